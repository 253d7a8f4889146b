/** Helpers for the recovery-path tests: a model script that also answers summarization requests, gates, labels. */
import { expect } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AssistantMessage, Context } from "../../src/llm/types.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import type { Harness, HarnessOptions } from "../../src/testing/harness.js";

export const OVERFLOW_TEXT = "prompt is too long: 213462 tokens > 200000 maximum";
export const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
export const RECOVERY_FAILED =
	"Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";

export const errorReply = (errorMessage: string): AssistantMessage =>
	fauxAssistantMessage("", { stopReason: "error", errorMessage });
/** An overflow error, stamped when the request arrives (after any compaction, like a real provider). */
export const overflowReply = () => (): AssistantMessage => errorReply(OVERFLOW_TEXT);

/** One scripted answer: a message, or a factory of the request context. */
export type Answer = AssistantMessage | ((context: Context) => AssistantMessage | Promise<AssistantMessage>);

export function isSummarization(context: Context): boolean {
	return context.systemPrompt?.startsWith("You are a context summarization assistant") === true;
}

/** The text of every user message of a request (custom messages reach the model as user messages). */
export function userTexts(context: Context): string[] {
	return context.messages
		.filter((message) => message.role === "user")
		.map((message) =>
			typeof message.content === "string"
				? message.content
				: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
		);
}

/**
 * Scripts the faux provider: summarization requests (compaction, turn prefix, branch summary) get
 * a checkpoint summary, every other request takes the next answer. Returns what was asked, as it
 * was at request time (a request's message list is the live transcript, which moves on).
 */
export function script(h: Harness, answers: readonly Answer[], options: ScriptOptions = {}) {
	const queue = [...answers];
	const summaryRequests: Context[] = [];
	const answerRequests: Context[] = [];
	const route = async (live: Context): Promise<AssistantMessage> => {
		const context: Context = { ...live, messages: [...live.messages] };
		if (isSummarization(context)) {
			summaryRequests.push(context);
			const reply = options.summary?.(summaryRequests.length);
			if (reply && "then" in reply) return reply;
			return reply ?? fauxAssistantMessage(`## Goal\nsummary ${summaryRequests.length}`);
		}
		answerRequests.push(context);
		const next = queue.shift();
		if (!next) return errorReply("script exhausted: no answer left for this request");
		return typeof next === "function" ? next(context) : { ...next, timestamp: Date.now() };
	};
	h.setResponses(Array.from({ length: 64 }, () => route));
	return { summaryRequests, answerRequests, answersLeft: () => queue.length };
}

export interface ScriptOptions {
	/** Answers the n-th summarization request (1-based) instead of the default summary; may wait. */
	summary?: (n: number) => AssistantMessage | Promise<AssistantMessage> | undefined;
}

/** A promise released from outside. */
export function gate(): { promise: Promise<void>; release(): void; released(): boolean } {
	let release!: () => void;
	let done = false;
	const promise = new Promise<void>((resolve) => {
		release = () => {
			done = true;
			resolve();
		};
	});
	return { promise, release, released: () => done };
}

/** Session events as compact labels (message updates dropped). */
export function recoveryLabels(events: readonly AgentSessionEvent[]): string[] {
	return events
		.filter((event) => event.type !== "message_update")
		.map((event) => {
			switch (event.type) {
				case "compaction_start":
					return `compaction_start(${event.reason})`;
				case "compaction_end":
					return `compaction_end(${event.reason},${event.result ? "result" : "none"},aborted=${event.aborted},willRetry=${event.willRetry}${event.errorMessage ? `,${event.errorMessage}` : ""})`;
				case "auto_retry_start":
					return `auto_retry_start(${event.attempt}/${event.maxAttempts},${event.delayMs})`;
				case "auto_retry_end":
					return `auto_retry_end(${event.success},${event.attempt}${event.finalError ? `,${event.finalError}` : ""})`;
				case "entry_appended":
					return `entry_appended(${event.entry.type})`;
				case "agent_end":
					return `agent_end(willRetry=${event.willRetry})`;
				case "message_start":
				case "message_end":
					return `${event.type}(${event.message.role}${"stopReason" in event.message && event.message.stopReason === "error" ? ",error" : ""})`;
				default:
					return event.type;
			}
		});
}

/**
 * A small model whose threshold is easy to cross: window 8000, so with reserve 4000
 * ({@link THRESHOLD_SETTINGS}) compaction is due above 4000 tokens. A first short exchange stays
 * below (~2200 tokens with the built-in tools' schemas); {@link BIG_ANSWER} crosses it.
 */
export const SMALL_WINDOW: Pick<HarnessOptions, "faux"> = { faux: { models: [{ id: "small", contextWindow: 8000 }] } };
export const THRESHOLD_SETTINGS = { compaction: { reserveTokens: 4000, keepRecentTokens: 1 } };
/** About 3000 output tokens. */
export const BIG_ANSWER = "y".repeat(12_000);

/**
 * DESIGN §8 invariant 5 on one session's event stream: retry attempts numbered 1…n up to
 * `maxRetries`, delays never shrink (nor pass `maxAgentDelayMs`), every sequence closed by its
 * `auto_retry_end` before `agent_settled`; overflow recovery at most once per request.
 */
export function checkRetriesAndOverflow(
	events: readonly AgentSessionEvent[],
	retry: { maxRetries: number; maxAgentDelayMs: number },
) {
	let sequence: number[] = [];
	let overflowRecoveries = 0;
	for (const event of events) {
		switch (event.type) {
			case "auto_retry_start": {
				expect(event.attempt, "attempts are numbered 1…n").toBe(sequence.length + 1);
				expect(event.attempt).toBeLessThanOrEqual(retry.maxRetries);
				expect(event.maxAttempts).toBe(retry.maxRetries);
				if (sequence.length > 0) expect(event.delayMs, "delays never shrink").toBeGreaterThanOrEqual(sequence.at(-1)!);
				if (retry.maxAgentDelayMs > 0) expect(event.delayMs).toBeLessThanOrEqual(retry.maxAgentDelayMs);
				sequence.push(event.delayMs);
				break;
			}
			case "auto_retry_end":
				expect(sequence.length, "auto_retry_end closes a sequence that was started").toBeGreaterThan(0);
				expect(event.attempt).toBe(sequence.length);
				sequence = [];
				break;
			case "agent_settled":
				expect(sequence, "no retry sequence outlives its operation").toEqual([]);
				overflowRecoveries = 0;
				break;
			case "message_start":
				if (event.message.role === "user") overflowRecoveries = 0;
				break;
			case "message_end":
				if (
					event.message.role === "assistant" &&
					event.message.stopReason !== "error" &&
					event.message.stopReason !== "length"
				) {
					overflowRecoveries = 0;
				}
				break;
			case "compaction_start":
				if (event.reason === "overflow") {
					overflowRecoveries++;
					expect(overflowRecoveries, "overflow recovery at most once per request").toBeLessThanOrEqual(1);
				}
				break;
			default:
				break;
		}
	}
}
