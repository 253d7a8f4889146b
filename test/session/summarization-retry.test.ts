/**
 * Retries inside compaction and branch-summary model calls (pi 1.6 `summarization_retry_*`): the
 * same `settings.retry` budget and backoff as turn retries, slept on the session's clock
 * (SimulatedClock here: no real waiting), reported to public listeners in pi's order with pi's
 * payloads, cancelled at once by an abort during the backoff; and `session.refreshContext()`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AssistantMessage, Context, StreamOptions } from "../../src/llm/types.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { createHarness, type Harness, type HarnessOptions } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";
import { comparable, fileSummary, reopenedContext, roles } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const UNAVAILABLE = "503 Service Unavailable";
const TERMINATED = "terminated";
const failure = (errorMessage: string) => () => fauxAssistantMessage("", { stopReason: "error", errorMessage });
const summary = (text: string) => (context: Context) => {
	expect(context.systemPrompt).toMatch(/^You are a context summarization assistant/);
	return fauxAssistantMessage(`## Goal\n${text}`);
};
/** A summary request that never answers: it ends only when its signal aborts. */
const hanging = () => (_context: Context, options: StreamOptions | undefined) =>
	new Promise<AssistantMessage>((resolve) =>
		options?.signal?.addEventListener("abort", () => resolve(fauxAssistantMessage("", { stopReason: "aborted" }))),
	);

/** Summarization retry events, compactions and settles, as short labels. */
function labels(events: readonly AgentSessionEvent[]): string[] {
	const shown: string[] = [];
	for (const event of events) {
		switch (event.type) {
			case "summarization_retry_scheduled":
				shown.push(`scheduled(${event.attempt}/${event.maxAttempts},${event.delayMs},${event.errorMessage})`);
				break;
			case "summarization_retry_attempt_start":
				shown.push(`attempt_start(${event.source === "compaction" ? event.reason : event.source})`);
				break;
			case "summarization_retry_finished":
				shown.push("finished");
				break;
			case "compaction_start":
				shown.push(`compaction_start(${event.reason})`);
				break;
			case "compaction_end":
				shown.push(`compaction_end(${event.aborted ? "aborted" : event.result ? "result" : event.errorMessage})`);
				break;
			case "auto_retry_start":
			case "auto_retry_end":
			case "agent_settled":
				shown.push(event.type);
				break;
		}
	}
	return shown;
}

const summaryRequests = (h: Harness) =>
	h.faux.requests.filter((request) => request.systemPrompt?.startsWith("You are a context summarization"));

/**
 * Two exchanges whose compaction cuts at the second prompt (a long user message, a short answer),
 * so one summary request is made, not a split turn's two.
 */
async function twoExchanges(options: HarnessOptions = {}): Promise<Harness> {
	h = await createHarness({
		persistence: "disk",
		simulatedClock: true,
		...options,
		settings: { compaction: { keepRecentTokens: 20 }, retry: { baseDelayMs: 100, maxRetries: 3 }, ...options.settings },
	});
	h.setResponses([fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")]);
	await h.session.prompt("question one");
	await h.session.prompt(`question two ${"x".repeat(400)}`);
	h.events.length = 0;
	return h;
}

describe("manual compaction", () => {
	it("retries a transient summary failure after the backoff, then compacts (events in pi's order)", async () => {
		await twoExchanges();
		const compactingAtRetry: boolean[] = [];
		h.session.subscribe((event) => {
			if (event.type.startsWith("summarization_retry")) compactingAtRetry.push(h.session.isCompacting);
		});
		h.appendResponses([failure(UNAVAILABLE), failure(TERMINATED), summary("done")]);
		const result = await h.settle(h.session.compact());
		expect(labels(h.events)).toEqual([
			"compaction_start(manual)",
			`scheduled(1/3,100,${UNAVAILABLE})`,
			"attempt_start(manual)",
			`scheduled(2/3,200,${TERMINATED})`,
			"attempt_start(manual)",
			"finished",
			"compaction_end(result)",
		]);
		expect(h.eventsOfType("summarization_retry_scheduled")[0]).toEqual({
			type: "summarization_retry_scheduled",
			attempt: 1,
			maxAttempts: 3,
			delayMs: 100,
			errorMessage: UNAVAILABLE,
		});
		expect(h.eventsOfType("summarization_retry_attempt_start")[0]).toEqual({
			type: "summarization_retry_attempt_start",
			source: "compaction",
			reason: "manual",
		});
		expect(h.eventsOfType("summarization_retry_finished")).toEqual([{ type: "summarization_retry_finished" }]);
		expect(compactingAtRetry).toEqual([true, true, true, true, true]);
		expect(summaryRequests(h)).toHaveLength(3);
		expect(result.summary).toMatch(/^## Goal\ndone/);
		// Failed summary attempts leave no trace in the log: one compaction entry, the summary of the last attempt.
		expect(fileSummary(h.session.sessionFile!).slice(-2)).toEqual(["message:assistant", "compaction"]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(h.clock!.now()).toBe(300);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("gives up after maxRetries: the last error fails the compaction, nothing is written", async () => {
		await twoExchanges({ settings: { retry: { baseDelayMs: 10, maxRetries: 2 } } });
		const before = fileSummary(h.session.sessionFile!);
		h.appendResponses([failure(UNAVAILABLE), failure(UNAVAILABLE), failure("502 Bad Gateway")]);
		await expect(h.settle(h.session.compact())).rejects.toMatchObject({
			code: "PROVIDER",
			message: "Summarization failed: 502 Bad Gateway",
		});
		expect(labels(h.events)).toEqual([
			"compaction_start(manual)",
			`scheduled(1/2,10,${UNAVAILABLE})`,
			"attempt_start(manual)",
			`scheduled(2/2,20,${UNAVAILABLE})`,
			"attempt_start(manual)",
			"finished",
			"compaction_end(Compaction failed: Summarization failed: 502 Bad Gateway)",
		]);
		expect(summaryRequests(h)).toHaveLength(3);
		expect(fileSummary(h.session.sessionFile!)).toEqual(before);
		expect(h.session.isCompacting).toBe(false);
	});

	it("regression: a rate-limited summary request was retried after the plain backoff (100 ms), long before the 3 s it was asked to wait; now it waits as a turn retry does, never less after", async () => {
		await twoExchanges();
		const RATE_LIMITED = "429 rate limit exceeded. Please retry in 3s.";
		h.appendResponses([failure(RATE_LIMITED), failure(UNAVAILABLE), summary("done")]);
		await h.settle(h.session.compact());
		expect(labels(h.events)).toEqual([
			"compaction_start(manual)",
			`scheduled(1/3,3000,${RATE_LIMITED})`,
			"attempt_start(manual)",
			`scheduled(2/3,3000,${UNAVAILABLE})`,
			"attempt_start(manual)",
			"finished",
			"compaction_end(result)",
		]);
		expect(h.clock!.now()).toBe(6000);
		expect(summaryRequests(h)).toHaveLength(3);
	});

	it("a requested wait past maxAgentDelayMs is not retried early: the compaction fails with the provider's text, one request", async () => {
		await twoExchanges({ settings: { retry: { baseDelayMs: 100, maxRetries: 3, maxAgentDelayMs: 60_000 } } });
		const LONG_WAIT = "429 rate limit exceeded. Please retry in 3600s.";
		h.appendResponses([failure(LONG_WAIT), summary("never asked")]);
		await expect(h.settle(h.session.compact())).rejects.toMatchObject({
			code: "PROVIDER",
			message: `Summarization failed: ${LONG_WAIT}`,
		});
		expect(labels(h.events)).toEqual([
			"compaction_start(manual)",
			`compaction_end(Compaction failed: Summarization failed: ${LONG_WAIT})`,
		]);
		expect(summaryRequests(h)).toHaveLength(1);
	});

	it("does not retry an error that is not transient", async () => {
		await twoExchanges();
		h.appendResponses([failure("400 invalid_request_error: bad request"), summary("never asked")]);
		await expect(h.settle(h.session.compact())).rejects.toMatchObject({ code: "PROVIDER" });
		expect(labels(h.events)).toEqual([
			"compaction_start(manual)",
			"compaction_end(Compaction failed: Summarization failed: 400 invalid_request_error: bad request)",
		]);
		expect(summaryRequests(h)).toHaveLength(1);
	});

	it("autoRetryEnabled = false disables summarization retries too", async () => {
		await twoExchanges();
		h.session.setAutoRetryEnabled(false);
		h.appendResponses([failure(UNAVAILABLE), summary("never asked")]);
		await expect(h.settle(h.session.compact())).rejects.toMatchObject({
			message: `Summarization failed: ${UNAVAILABLE}`,
		});
		expect(h.eventsOfType("summarization_retry_scheduled")).toEqual([]);
		expect(summaryRequests(h)).toHaveLength(1);
	});

	it("abortCompaction() during the backoff cancels at once: no waiting, no further request, nothing written", async () => {
		await twoExchanges({ settings: { retry: { baseDelayMs: 60_000, maxRetries: 3 } } });
		const before = fileSummary(h.session.sessionFile!);
		h.appendResponses([failure(UNAVAILABLE), summary("never asked")]);
		h.session.subscribe((event) => {
			// A macrotask later: the backoff timer is set and waiting.
			if (event.type === "summarization_retry_scheduled") setImmediate(() => h.session.abortCompaction());
		});
		// The clock is never advanced: only the abort can end the 60 s backoff (else this never settles).
		await expect(h.session.compact()).rejects.toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		expect(h.clock!.now()).toBe(0);
		expect(labels(h.events)).toEqual([
			"compaction_start(manual)",
			`scheduled(1/3,60000,${UNAVAILABLE})`,
			"finished",
			"compaction_end(aborted)",
		]);
		expect(summaryRequests(h)).toHaveLength(1);
		expect(fileSummary(h.session.sessionFile!)).toEqual(before);
		expect(h.session.isCompacting).toBe(false);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("an abort during the retried request ends it as aborted, with one finished", async () => {
		await twoExchanges();
		h.appendResponses([failure(UNAVAILABLE), hanging()]);
		h.session.subscribe((event) => {
			if (event.type === "summarization_retry_attempt_start") setImmediate(() => h.session.abortCompaction());
		});
		await expect(h.settle(h.session.compact())).rejects.toMatchObject({ code: "ABORTED" });
		expect(labels(h.events)).toEqual([
			"compaction_start(manual)",
			`scheduled(1/3,100,${UNAVAILABLE})`,
			"attempt_start(manual)",
			"finished",
			"compaction_end(aborted)",
		]);
		expect(summaryRequests(h)).toHaveLength(2);
	});
});

describe("automatic compaction", () => {
	it("threshold compaction after a run retries its summary; the operation settles once", async () => {
		// Threshold: more than 1000 tokens in use (window 5000 − reserve 4000).
		h = await createHarness({
			persistence: "disk",
			simulatedClock: true,
			faux: { models: [{ id: "small", contextWindow: 5000 }] },
			settings: { compaction: { reserveTokens: 4000, keepRecentTokens: 20 }, retry: { baseDelayMs: 50 } },
		});
		h.setResponses([
			fauxAssistantMessage("answer a"),
			fauxAssistantMessage("ok"),
			failure(UNAVAILABLE),
			summary("compacted"),
		]);
		await h.session.prompt("a");
		h.events.length = 0;
		await h.settle(h.session.prompt(`b ${"y".repeat(4400)}`));
		expect(labels(h.events)).toEqual([
			"compaction_start(threshold)",
			`scheduled(1/3,50,${UNAVAILABLE})`,
			"attempt_start(threshold)",
			"finished",
			"compaction_end(result)",
			"agent_settled",
		]);
		expect(sessionEventViolations(h.events)).toEqual([]);
		expect(roles(h.session.messages)).toEqual(["system", "compactionSummary", "user", "assistant"]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("overflow recovery retries its summary, then re-runs the request; no auto_retry events", async () => {
		h = await createHarness({
			persistence: "disk",
			simulatedClock: true,
			settings: { compaction: { keepRecentTokens: 1 }, retry: { baseDelayMs: 10 } },
		});
		h.setResponses([
			fauxAssistantMessage("first answer"),
			() =>
				fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long: 213462 tokens > 200000" }),
			failure(TERMINATED),
			summary("earlier work"),
			fauxAssistantMessage("answer after compaction"),
		]);
		await h.session.prompt("one");
		h.events.length = 0;
		await h.settle(h.session.prompt("two"));
		expect(labels(h.events)).toEqual([
			"compaction_start(overflow)",
			`scheduled(1/3,10,${TERMINATED})`,
			"attempt_start(overflow)",
			"finished",
			"compaction_end(result)",
			"agent_settled",
		]);
		expect(sessionEventViolations(h.events)).toEqual([]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "answer after compaction" }] });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("abort() during a threshold compaction's backoff settles the operation once, promptly", async () => {
		h = await createHarness({
			simulatedClock: true,
			faux: { models: [{ id: "small", contextWindow: 5000 }] },
			settings: { compaction: { reserveTokens: 4000, keepRecentTokens: 20 }, retry: { baseDelayMs: 60_000 } },
		});
		h.setResponses([fauxAssistantMessage("answer a"), fauxAssistantMessage("ok"), failure(UNAVAILABLE)]);
		await h.session.prompt("a");
		h.events.length = 0;
		h.session.subscribe((event) => {
			if (event.type === "summarization_retry_scheduled") void h.session.abort();
		});
		await h.session.prompt(`b ${"y".repeat(4400)}`);
		expect(labels(h.events)).toEqual([
			"compaction_start(threshold)",
			`scheduled(1/3,60000,${UNAVAILABLE})`,
			"finished",
			"compaction_end(aborted)",
			"agent_settled",
		]);
		expect(sessionEventViolations(h.events)).toEqual([]);
		expect(h.session.lifecycle).toBe("idle");
		// The answer that triggered the compaction stays.
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "ok" }] });
	});
});

describe("branch summary", () => {
	it("navigateTree({summarize}) retries the summary; attempt_start says branchSummary", async () => {
		await twoExchanges();
		const target = h.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "assistant")!;
		h.appendResponses([failure(UNAVAILABLE), () => fauxAssistantMessage("what the branch did")]);
		const result = await h.settle(h.session.navigateTree(target.id, { summarize: true }));
		expect(labels(h.events)).toEqual([`scheduled(1/3,100,${UNAVAILABLE})`, "attempt_start(branchSummary)", "finished"]);
		expect(h.eventsOfType("summarization_retry_attempt_start")).toEqual([
			{ type: "summarization_retry_attempt_start", source: "branchSummary" },
		]);
		expect(result.summaryEntry?.summary).toContain("what the branch did");
		expect(fileSummary(h.session.sessionFile!).at(-1)).toBe("branch_summary");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("abortBranchSummary() during the backoff: aborted, nothing changed", async () => {
		await twoExchanges({ settings: { retry: { baseDelayMs: 60_000 } } });
		const leaf = h.sessionManager.getLeafId();
		const entries = h.sessionManager.getEntries().length;
		const target = h.sessionManager.getEntries().find((entry) => entry.type === "message")!;
		h.appendResponses([failure(UNAVAILABLE)]);
		h.session.subscribe((event) => {
			if (event.type === "summarization_retry_scheduled") h.session.abortBranchSummary();
		});
		const result = await h.session.navigateTree(target.id, { summarize: true });
		expect(result).toEqual({ cancelled: true, aborted: true });
		expect(labels(h.events)).toEqual([`scheduled(1/3,60000,${UNAVAILABLE})`, "finished"]);
		expect(h.sessionManager.getLeafId()).toBe(leaf);
		expect(h.sessionManager.getEntries()).toHaveLength(entries);
		expect(h.session.isCompacting).toBe(false);
	});
});

describe("refreshContext()", () => {
	it("reads entries appended straight through the SessionManager into session.messages", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("hello")]);
		await h.session.prompt("hi");
		h.sessionManager.appendCustomMessageEntry("note", "Deploy finished", true);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant"]);
		h.session.refreshContext();
		expect(h.session.messages.at(-1)).toMatchObject({ role: "custom", customType: "note", content: "Deploy finished" });
		expect(h.session.state.messages).toBe(h.session.messages);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("during a run it waits for the next safe point: the next request sees the entry, nothing is lost", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("tool_execution_start", () => {
						h.sessionManager.appendCustomMessageEntry("note", "written by the host", true);
						h.session.refreshContext();
						// Deferred: the live transcript is only rebuilt at the next safe point.
						expect(roles(h.session.messages)).toEqual(["system", "user", "assistant"]);
					}),
			],
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("bash", { command: "echo hi" })], { stopReason: "toolUse" }),
			(context) => fauxAssistantMessage(`saw ${context.messages.length} messages`),
		]);
		await h.session.prompt("run it");
		expect(h.extensionErrors).toEqual([]);
		// The tool's result was persisted after the note; the second request saw both.
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "custom", "toolResult", "assistant"]);
		expect(h.faux.requests.at(-1)!.messages.map((message) => message.role)).toEqual([
			"user",
			"assistant",
			"user",
			"toolResult",
		]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
