/**
 * Push-based async event streams: the provider stream protocol (pi-ai `EventStream` compatible)
 * and helpers to build a stream from a finished message.
 */
import { SettleError } from "../errors.js";
import type {
	AssistantMessage,
	AssistantMessageEvent,
	AssistantMessageEventStream as AssistantMessageEventStreamContract,
	StreamFn,
} from "./types.js";

/**
 * A single-consumer async stream: a producer `push`es events and `end`s it; a consumer iterates
 * with `for await` and reads the final value with `result()`.
 *
 * Contract: `push` after the stream is done is ignored; `end()` without a result, when no
 * completing event was pushed, makes `result()` reject (never hang).
 *
 * @example
 * ```ts
 * const stream = new EventStream<number, number>((n) => n < 0, (n) => n);
 * stream.push(1);
 * stream.push(-1); // completes: result() resolves to -1
 * for await (const n of stream) console.log(n);
 * ```
 */
export class EventStream<TEvent, TResult> implements AsyncIterable<TEvent> {
	private readonly queue: TEvent[] = [];
	private readonly waiting: ((value: IteratorResult<TEvent>) => void)[] = [];
	private done = false;
	private settled = false;
	private readonly finalResult: Promise<TResult>;
	private resolveResult!: (value: TResult) => void;
	private rejectResult!: (error: unknown) => void;

	constructor(
		private readonly isComplete: (event: TEvent) => boolean,
		private readonly extractResult: (event: TEvent) => TResult,
	) {
		this.finalResult = new Promise<TResult>((resolve, reject) => {
			this.resolveResult = resolve;
			this.rejectResult = reject;
		});
		// A stream nobody asks for a result must not produce an unhandled rejection.
		this.finalResult.catch(() => {});
	}

	/** Delivers one event; a completing event also fixes the result. Ignored once the stream is done. */
	push(event: TEvent): void {
		if (this.done) return;
		if (this.isComplete(event)) {
			this.done = true;
			this.settle(this.extractResult(event));
		}
		const waiter = this.waiting.shift();
		if (waiter) waiter({ value: event, done: false });
		else this.queue.push(event);
	}

	/** Ends the stream; `result` (if given) becomes the final value unless one was already fixed. */
	end(result?: TResult): void {
		this.done = true;
		if (result !== undefined) this.settle(result);
		else if (!this.settled) {
			this.settled = true;
			this.rejectResult(new SettleError("PROVIDER", "Stream ended without a final message"));
		}
		while (this.waiting.length > 0) this.waiting.shift()!({ value: undefined, done: true });
	}

	async *[Symbol.asyncIterator](): AsyncIterator<TEvent> {
		while (true) {
			if (this.queue.length > 0) {
				yield this.queue.shift()!;
			} else if (this.done) {
				return;
			} else {
				const next = await new Promise<IteratorResult<TEvent>>((resolve) => this.waiting.push(resolve));
				if (next.done) return;
				yield next.value;
			}
		}
	}

	/** The final value: resolves at the completing event (or `end(result)`). */
	result(): Promise<TResult> {
		return this.finalResult;
	}

	private settle(value: TResult): void {
		if (this.settled) return;
		this.settled = true;
		this.resolveResult(value);
	}
}

/**
 * The stream one model response arrives on: completes at the `done` or `error` event, whose
 * message is the result.
 *
 * @example
 * ```ts
 * const message = fauxAssistantMessage("hi");
 * const stream = new AssistantMessageEventStream();
 * stream.push({ type: "done", reason: "stop", message });
 * stream.end();
 * const final = await stream.result(); // message
 * ```
 */
export class AssistantMessageEventStream
	extends EventStream<AssistantMessageEvent, AssistantMessage>
	implements AssistantMessageEventStreamContract
{
	constructor() {
		super(
			(event) => event.type === "done" || event.type === "error",
			(event) => {
				if (event.type === "done") return event.message;
				if (event.type === "error") return event.error;
				throw new SettleError("INTERNAL", `Unexpected completing event ${event.type}`);
			},
		);
	}
}

/**
 * Creates an empty {@link AssistantMessageEventStream} (pi-ai `createAssistantMessageEventStream`).
 *
 * @example
 * ```ts
 * const message = fauxAssistantMessage("hi");
 * const stream = createAssistantMessageEventStream();
 * stream.push({ type: "done", reason: "stop", message });
 * stream.end();
 * const final = await stream.result(); // message
 * ```
 */
export function createAssistantMessageEventStream(): AssistantMessageEventStream {
	return new AssistantMessageEventStream();
}

/**
 * A finished stream holding one terminal event for `message`: `done` for stop/length/toolUse,
 * `error` for error/aborted. No `start` or delta events.
 *
 * @example
 * ```ts
 * const stream = streamFromMessage(fauxAssistantMessage("hi"));
 * await stream.result(); // the same message object
 * ```
 */
export function streamFromMessage(message: AssistantMessage): AssistantMessageEventStream {
	const stream = new AssistantMessageEventStream();
	if (message.stopReason === "error" || message.stopReason === "aborted") {
		stream.push({ type: "error", reason: message.stopReason, error: message });
	} else {
		stream.push({ type: "done", reason: message.stopReason, message });
	}
	stream.end(message);
	return stream;
}

/**
 * A stream function that answers every request at once with one terminal event (no deltas, no
 * delay beyond a resolved promise). For benchmarks and tests that measure the loop, not the model.
 * `reply` is a message (reused for every call, stamped with the request's model) or a function
 * of the request.
 *
 * @example
 * ```ts
 * const agent = new Agent({ streamFn: instantStreamFn(fauxAssistantMessage("ok")) });
 * ```
 */
export function instantStreamFn(
	reply: AssistantMessage | ((...args: Parameters<StreamFn>) => AssistantMessage),
): StreamFn {
	return (model, context, options) => {
		const message =
			typeof reply === "function"
				? reply(model, context, options)
				: { ...reply, api: model.api, provider: model.provider, model: model.id };
		return streamFromMessage(message);
	};
}
