/** Helpers for the session tests: event sequences, the JSONL file read back, settling on a SimulatedClock. */
import { readFileSync } from "node:fs";
import type fc from "fast-check";
import type { AgentTool } from "../../src/agent/types.js";
import type { CompactionResult } from "../../src/compaction/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentMessage, AssistantMessage, Context } from "../../src/llm/types.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { SessionManager } from "../../src/store/session-manager.js";
import type { Harness } from "../../src/testing/harness.js";

/** A tool `echo` that answers its arguments as JSON text. */
export const echo: AgentTool = {
	name: "echo",
	label: "Echo",
	description: "Echoes its arguments",
	parameters: { type: "object" },
	execute: async (_id, params) => ({ content: [{ type: "text", text: JSON.stringify(params) }], details: {} }),
};

/** Event types with runs of `message_update` collapsed (as pi's observed sequences print them). */
export function eventTypes(events: readonly AgentSessionEvent[], options: { updates?: boolean } = {}): string[] {
	const out: string[] = [];
	for (const event of events) {
		if (event.type === "message_update" && !options.updates) continue;
		out.push(event.type);
	}
	return out;
}

/** `message_start(user)`-style labels for message events, plain types otherwise. */
export function labeled(events: readonly AgentSessionEvent[]): string[] {
	return events
		.filter((event) => event.type !== "message_update")
		.map((event) => {
			if (event.type === "message_start" || event.type === "message_end") return `${event.type}(${event.message.role})`;
			if (event.type === "tool_execution_start" || event.type === "tool_execution_end") {
				return `${event.type}(${event.toolName})`;
			}
			return event.type;
		});
}

/** The session file's lines as `type` / `message:<role>` (header included as `session`). */
export function fileSummary(file: string): string[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => {
			const entry = JSON.parse(line) as { type: string; message?: { role: string } };
			return entry.type === "message" ? `message:${entry.message!.role}` : entry.type;
		});
}

/** The roles of a message list. */
export function roles(messages: readonly AgentMessage[]): string[] {
	return messages.map((message) => message.role);
}

/** A message reduced to what the model context depends on (custom messages get their timestamp from the entry). */
export function comparable(message: AgentMessage): unknown {
	if (message.role === "custom") {
		const { timestamp: _timestamp, ...rest } = message;
		return { ...rest, content: rest.content ?? [] };
	}
	return message;
}

/** The context rebuilt from the session file (opened read-only, so the live session keeps its lock). */
export function reopenedContext(file: string): AgentMessage[] {
	const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
	try {
		return reopened.buildSessionContext().messages;
	} finally {
		reopened.close();
	}
}

/** Lets pending promise reactions and I/O callbacks run. */
export function tick(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Drives a harness built with `simulatedClock: true` until `done` resolves: whenever the session
 * waits out a retry backoff (a turn retry or a summarization retry), the clock jumps by that delay. Throws when it does not finish within
 * `hangAfterMs` of real time (a hang detector, not a speed check).
 */
export async function settleWithClock<T>(h: Harness, done: Promise<T>, hangAfterMs = 20_000): Promise<T> {
	let finished = false;
	let result: T | undefined;
	let failure: unknown;
	done.then(
		(value) => {
			finished = true;
			result = value;
		},
		(error: unknown) => {
			finished = true;
			failure = error;
		},
	);
	// Summarization retries sleep inside the compaction / branch summary (two at once in a split turn).
	let summaryDelayMs: number | undefined;
	const unsubscribe = h.session.subscribe((event) => {
		if (event.type === "summarization_retry_scheduled") summaryDelayMs = Math.max(summaryDelayMs ?? 0, event.delayMs);
	});
	const deadline = performance.now() + hangAfterMs;
	while (!finished && performance.now() < deadline) {
		await tick();
		if (h.session.isRetrying) h.clock!.increment(h.session.snapshot.context.retryDelayMs);
		else if (summaryDelayMs !== undefined) {
			const ms = summaryDelayMs;
			summaryDelayMs = undefined;
			h.clock!.increment(ms);
		}
	}
	unsubscribe();
	if (!finished) throw new Error(`did not settle; lifecycle ${h.session.lifecycle}`);
	if (failure !== undefined) throw failure;
	return result as T;
}

/** Faux pacing for an abort mid-stream: one token a chunk on a real timer, so listeners run between chunks. */
export const SLOW_STREAM = { tokensPerSecond: 200, tokenSize: { min: 1, max: 1 } };

/** A long answer that {@link SLOW_STREAM} streams in many chunks (an abort cuts it off). */
export const SLOW_ANSWER = "This answer streams slowly, one token at a time, and gets cut off.";

/**
 * Aborts the session at its third `message_update` (mid-stream); `aborting()` is that abort's
 * promise (undefined until then).
 */
export function abortAtThirdUpdate(session: Harness["session"]): { aborting(): Promise<void> | undefined } {
	let updates = 0;
	let aborting: Promise<void> | undefined;
	session.subscribe((event) => {
		if (event.type === "message_update" && ++updates === 3) aborting = session.abort();
	});
	return { aborting: () => aborting };
}

/** A tool that runs until its signal aborts (then rejects "Operation aborted"); `started` resolves when it runs. */
export function toolUntilAbort(): { tool: AgentTool; started: Promise<void> } {
	let toolStarted!: () => void;
	const started = new Promise<void>((resolve) => {
		toolStarted = resolve;
	});
	const tool: AgentTool = {
		name: "slow",
		label: "Slow",
		description: "Waits for abort",
		parameters: { type: "object", properties: {} },
		execute: (_id, _params, signal) =>
			new Promise((_resolve, reject) => {
				toolStarted();
				signal?.addEventListener("abort", () => reject(new Error("Operation aborted")), { once: true });
			}),
	};
	return { tool, started };
}

/** A retry backoff that waits on the clock: a turn retry's, or a summary request's. */
export type BackoffKind = "backoff" | "summaryBackoff";

/**
 * Drives a harness built with `simulatedClock: true` whose actions go through the fast-check
 * scheduler `s`, until `finished()`, the session is idle and nothing is scheduled: the clock moves
 * only when nothing scheduled is left to release. Before the clock ends the `nth` backoff of a kind,
 * `fireAt(kind, nth)` hands the actions keyed to it to the scheduler (they land inside it); when it
 * handed any, they run first. Bounded by 20 s of real time only to catch a hang (compaction loads
 * its modules on first use): the caller then finds `finished()` false.
 */
export async function driveScheduled(
	h: Harness,
	s: fc.Scheduler,
	finished: () => boolean,
	fireAt: (kind: BackoffKind, nth: number) => boolean,
): Promise<void> {
	const deadline = performance.now() + 20_000;
	// A compaction's summary request may be retried too (its backoff sleeps on the same clock). A
	// split turn retries its two summaries at once: two backoffs may be scheduled before the next
	// jump, so jump by the longer (the last one's alone could strand the other).
	let summaryDelayMs: number | undefined;
	const unsubscribe = h.session.subscribe((event) => {
		if (event.type === "summarization_retry_scheduled") summaryDelayMs = Math.max(summaryDelayMs ?? 0, event.delayMs);
	});
	const count = { backoff: 0, summaryBackoff: 0 };
	const open = { backoff: false, summaryBackoff: false };
	try {
		while (!(finished() && h.session.lifecycle === "idle" && s.count() === 0) && performance.now() < deadline) {
			if (s.count() > 0) {
				await s.waitOne();
				continue;
			}
			await tick();
			if (h.session.isRetrying) {
				if (!open.backoff) {
					open.backoff = true;
					if (fireAt("backoff", count.backoff++)) continue;
				}
				open.backoff = false;
				h.clock!.increment(h.session.snapshot.context.retryDelayMs);
			} else if (summaryDelayMs !== undefined) {
				open.backoff = false;
				if (!open.summaryBackoff) {
					open.summaryBackoff = true;
					if (fireAt("summaryBackoff", count.summaryBackoff++)) continue;
				}
				open.summaryBackoff = false;
				h.clock!.increment(summaryDelayMs);
				summaryDelayMs = undefined;
			} else open.backoff = false;
		}
	} finally {
		unsubscribe();
	}
}

/**
 * Two exchanges ("a" → "one", "b" → "two") on a disk harness, then `navigateTree` back to the first
 * answer with a branch summary whose request waits on a gate; resolves once that request has
 * started (the navigation is running). `navigating` settles after `release()`.
 */
export async function startGatedNavigation(h: Harness): Promise<{ navigating: Promise<unknown>; release: () => void }> {
	h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
	await h.session.prompt("a");
	await h.session.prompt("b");
	const target = h.sessionManager
		.getEntries()
		.find((entry) => entry.type === "message" && entry.message.role === "assistant")!;
	let release!: () => void;
	const gate = new Promise<void>((resolve) => {
		release = resolve;
	});
	let summarizing!: () => void;
	const summarizerCalled = new Promise<void>((resolve) => {
		summarizing = resolve;
	});
	h.setResponses([
		async () => {
			summarizing();
			await gate;
			return fauxAssistantMessage("## Goal\nsummary");
		},
	]);
	const navigating = h.session.navigateTree(target.id, { summarize: true });
	await summarizerCalled;
	return { navigating, release };
}

/**
 * Two exchanges ("a" → "one", "b" → "two"), then a manual `compact()` whose summary request waits
 * on a gate; resolves once that request has started (the compaction is running). Wants a harness
 * with `compaction.keepRecentTokens: 1`, which splits the last turn: its prefix is summarized too,
 * as `summary("prefix")`. `compacting` settles after `release()`.
 */
export async function startGatedCompaction(
	h: Harness,
	summary: (text: string) => (context: Context) => AssistantMessage = (text) => () =>
		fauxAssistantMessage(`## Goal\n${text}`),
): Promise<{ compacting: Promise<CompactionResult<unknown>>; release: () => void }> {
	let release!: () => void;
	const gate = new Promise<void>((resolve) => {
		release = resolve;
	});
	let summarizing!: () => void;
	const summarizerCalled = new Promise<void>((resolve) => {
		summarizing = resolve;
	});
	h.setResponses([
		fauxAssistantMessage("one"),
		fauxAssistantMessage("two"),
		async (context: Context) => {
			summarizing();
			await gate;
			return summary("gated")(context);
		},
		summary("prefix"),
	]);
	await h.session.prompt("a");
	await h.session.prompt("b");
	const compacting = h.session.compact();
	await summarizerCalled;
	return { compacting, release };
}
