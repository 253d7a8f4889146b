/**
 * `retry.provider.streamIdleTimeoutMs`: a provider response stream that stays open but goes silent
 * (a blackholed connection, a provider incident; pi issue 8331) ends as a retryable provider error
 * instead of holding the turn forever.
 */

import type { LoopTimers } from "../agent/types.js";
import { SettleError } from "../errors.js";
import { createAssistantMessageEventStream } from "../llm/event-stream.js";
import { watchResponseActivity } from "../llm/response-activity.js";
import {
	type AssistantMessage,
	type AssistantMessageEvent,
	type AssistantMessageEventStream,
	emptyAssistantMessage,
	type Model,
	type StreamFn,
	type StreamOptions,
} from "../llm/types.js";

const REAL_TIMERS: LoopTimers = {
	setTimeout: (fn, ms) => setTimeout(fn, ms),
	clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/**
 * The error text of a request cancelled for silence. It says "timeout", so the session's retry
 * policy treats it as transient (`classifyAssistantError` → `retryable`).
 *
 * @example
 * ```ts
 * streamIdleTimeoutMessage({ provider: "anthropic", id: "claude-sonnet-4-5" }, 180_000);
 * // "Provider stream idle timeout: no event from anthropic/claude-sonnet-4-5 for 180000 ms …"
 * ```
 */
export function streamIdleTimeoutMessage(model: Pick<Model, "provider" | "id">, idleMs: number): string {
	return (
		`Provider stream idle timeout: no event from ${model.provider}/${model.id} for ${idleMs} ms ` +
		"(retry.provider.streamIdleTimeoutMs), so the request was cancelled."
	);
}

/**
 * One request of `stream`, watched for silence: every event, and every byte of the provider's
 * response (headers, SSE keep-alives), re-arms a timer of `idleMs` on `timers`; when it fires
 * the provider request is aborted and the returned stream ends with an `error` event (the partial answer so far, `stopReason: "error"`, {@link streamIdleTimeoutMessage}).
 * The caller's abort still cancels the request. Events are passed through as they arrive.
 *
 * @example
 * ```ts
 * const watched = streamWithIdleTimeout(modelRuntime.stream, 180_000);
 * const response = await watched(model, { messages: [] }, { signal });
 * ```
 */
export function streamWithIdleTimeout(stream: StreamFn, idleMs: number, timers: LoopTimers = REAL_TIMERS): StreamFn {
	return (model, context, options) => {
		const controller = new AbortController();
		const outer = options?.signal;
		const request: StreamOptions = { ...options, signal: controller.signal };
		const out = createAssistantMessageEventStream();
		let partial: AssistantMessage | undefined;
		let timer: unknown;
		let finished = false;
		const onOuterAbort = (): void => {
			controller.abort(outer?.reason);
		};
		const finish = (): void => {
			finished = true;
			if (timer !== undefined) timers.clearTimeout(timer);
			outer?.removeEventListener("abort", onOuterAbort);
		};
		const end = (message: AssistantMessage): void => {
			finish();
			const stopReason = message.stopReason;
			out.push(
				stopReason === "error" || stopReason === "aborted"
					? { type: "error", reason: stopReason, error: message }
					: { type: "done", reason: stopReason, message },
			);
			out.end(message);
		};
		const onIdle = (): void => {
			if (finished) return;
			const text = streamIdleTimeoutMessage(model, idleMs);
			end({
				...(partial ?? emptyAssistantMessage(model)),
				stopReason: "error",
				errorMessage: text,
				timestamp: Date.now(),
			});
			controller.abort(new SettleError("PROVIDER", text));
		};
		const arm = (): void => {
			if (finished) return;
			if (timer !== undefined) timers.clearTimeout(timer);
			timer = timers.setTimeout(onIdle, idleMs);
		};
		if (outer?.aborted) controller.abort(outer.reason);
		else outer?.addEventListener("abort", onOuterAbort, { once: true });
		arm();
		void pump(stream, model, context, request, {
			finished: () => finished,
			alive: arm,
			event(event) {
				if ("partial" in event) partial = event.partial;
				arm();
				if (event.type === "done" || event.type === "error") {
					finish();
					out.push(event);
					out.end(event.type === "done" ? event.message : event.error);
				} else {
					out.push(event);
				}
			},
			end,
			fail(error) {
				const message = emptyAssistantMessage(model, controller.signal.aborted ? "aborted" : "error");
				message.errorMessage = error instanceof Error ? error.message : String(error);
				end({ ...(partial ?? message), stopReason: message.stopReason, errorMessage: message.errorMessage! });
			},
		});
		return out;
	};
}

interface PumpSink {
	finished(): boolean;
	/** Bytes came from the provider (headers, a keep-alive, part of an event). */
	alive(): void;
	event(event: AssistantMessageEvent): void;
	end(message: AssistantMessage): void;
	fail(error: unknown): void;
}

/** Reads the provider's stream into `sink` until it ends, the watchdog fires, or it fails. */
async function pump(
	stream: StreamFn,
	model: Model,
	context: Parameters<StreamFn>[1],
	request: StreamOptions,
	sink: PumpSink,
): Promise<void> {
	try {
		// Any byte of the response re-arms the timer too: a keep-alive is not silence (jcode#976).
		const inner: AssistantMessageEventStream = await watchResponseActivity(sink.alive, () =>
			stream(model, context, request),
		);
		for await (const event of inner) {
			if (sink.finished()) return;
			sink.event(event);
			if (sink.finished()) return;
		}
		if (sink.finished()) return;
		// The events ended without a terminal one: the result still counts, and silence still times out.
		const final = await inner.result();
		if (!sink.finished()) sink.end(final);
	} catch (error) {
		if (!sink.finished()) sink.fail(error);
	}
}
