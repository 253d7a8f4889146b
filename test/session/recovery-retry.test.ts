/**
 * Auto-retry rules (behavior C.4, issue 5) through the public API on a SimulatedClock: the one
 * classifier on real provider texts, backoff doubling and its cap, Retry-After honoured, a
 * requested delay above the cap ends the operation with the error, exact event payloads,
 * `agent_end.willRetry`, cancellation, and the failed attempts omitted by persisted context edits
 * (so a session reopened from the JSONL file sends the same context).
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { AgentSession } from "../../src/session/agent-session.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, fileSummary, reopenedContext, settleWithClock, tick } from "./helpers.js";
import { BIG_ANSWER, errorReply, OVERLOADED, SMALL_WINDOW, script, THRESHOLD_SETTINGS } from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

async function retryHarness(retry: Record<string, unknown>, extra: Parameters<typeof createHarness>[0] = {}) {
	return createHarness({ simulatedClock: true, ...extra, settings: { ...extra.settings, retry } });
}

describe("the retry classifier on real provider texts", () => {
	it.each([
		["Anthropic overloaded", OVERLOADED],
		["OpenAI rate limit", "429 Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM)."],
		["Google unavailable", '503 {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}'],
		["network", "fetch failed"],
		["socket", "socket hang up"],
		["gateway timeout", "504 Gateway Timeout"],
		["request timed out", "Request timed out."],
	])("retries %s", async (_name, text) => {
		h = await retryHarness({ baseDelayMs: 10 });
		h.setResponses([errorReply(text), fauxAssistantMessage("ok")]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(h.eventsOfType("auto_retry_start")).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 10, errorMessage: text },
		]);
		expect(h.eventsOfType("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 1 }]);
	});

	it.each([
		["quota exhausted", "429 You exceeded your current quota, please check your plan and billing details."],
		["bad key", "401 invalid x-api-key"],
		["bad request", "400 invalid_request_error: messages: roles must alternate"],
		[
			"a schema refusal naming bash's timeout parameter",
			"400 Invalid schema for function 'bash': In context=('properties', 'timeout'), 'minimum' is not permitted.",
		],
		["context overflow", "prompt is too long: 213462 tokens > 200000 maximum"],
	])("does not retry %s", async (_name, text) => {
		h = await retryHarness({ baseDelayMs: 10 }, { settings: { compaction: { enabled: false } } });
		h.setResponses([errorReply(text)]);
		await h.session.prompt("hi");
		expect(h.eventsOfType("auto_retry_start")).toEqual([]);
		expect(h.eventsOfType("agent_end").map((e) => e.willRetry)).toEqual([false]);
		expect(h.faux.callCount).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});
});

describe("settings", () => {
	it("default to pi's: 3 retries from 2 s, capped at 60 s; compaction reserve 16384, keep 20000", async () => {
		h = await createHarness({ simulatedClock: true });
		expect(h.settingsManager.getRetrySettings()).toEqual({
			enabled: true,
			maxRetries: 3,
			baseDelayMs: 2000,
			maxAgentDelayMs: 60_000,
		});
		expect(h.settingsManager.getCompactionSettings()).toEqual({
			enabled: true,
			reserveTokens: 16_384,
			keepRecentTokens: 20_000,
		});
		h.setResponses([errorReply(OVERLOADED), errorReply(OVERLOADED), errorReply(OVERLOADED), errorReply(OVERLOADED)]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(h.eventsOfType("auto_retry_start").map((e) => [e.attempt, e.maxAttempts, e.delayMs])).toEqual([
			[1, 3, 2000],
			[2, 3, 4000],
			[3, 3, 8000],
		]);
	});
});

describe("backoff", () => {
	it("is baseDelayMs·2^(attempt−1) capped at maxAgentDelayMs, waited on the actor clock only", async () => {
		h = await retryHarness({ baseDelayMs: 1000, maxRetries: 5, maxAgentDelayMs: 3000 });
		h.setResponses([
			...Array.from({ length: 5 }, () => errorReply("503 Service Unavailable")),
			fauxAssistantMessage("ok"),
		]);
		const done = h.session.prompt("hi");
		while (!h.session.isRetrying) await tick();
		// Real time passing does not fire the timer: only the simulated clock does.
		for (let i = 0; i < 20; i++) await tick();
		expect(h.faux.callCount).toBe(1);
		h.clock!.increment(999);
		await tick();
		expect(h.session.isRetrying).toBe(true);
		h.clock!.increment(1);
		while (h.faux.callCount < 2) await tick();
		await settleWithClock(h, done);
		expect(h.eventsOfType("auto_retry_start").map((e) => e.delayMs)).toEqual([1000, 2000, 3000, 3000, 3000]);
		expect(h.eventsOfType("auto_retry_start").map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5]);
		expect(h.eventsOfType("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 5 }]);
	});

	it("honours Retry-After (header and provider texts), and never shrinks within a sequence", async () => {
		h = await retryHarness({ baseDelayMs: 100, maxRetries: 4 });
		h.setResponses([
			errorReply("429 Too Many Requests. retry-after: 7"),
			errorReply("503 Service Unavailable"),
			errorReply('429 RESOURCE_EXHAUSTED "retryDelay": "12s"'),
			errorReply("429 rate limited; retry-after-ms: 1500"),
			fauxAssistantMessage("ok"),
		]);
		await settleWithClock(h, h.session.prompt("hi"));
		// 7000 requested; 200 backoff kept at 7000; 12000 requested; 1500 requested and 800 backoff kept at 12000.
		expect(h.eventsOfType("auto_retry_start").map((e) => e.delayMs)).toEqual([7000, 7000, 12_000, 12_000]);
	});

	it("a requested delay above maxAgentDelayMs ends the operation with the error instead of waiting", async () => {
		const overCap = "429 Too Many Requests: Server requested 3600s retry delay (max: 60s).";
		h = await retryHarness({ baseDelayMs: 10, maxAgentDelayMs: 60_000 });
		h.setResponses([errorReply("503 Service Unavailable"), errorReply(overCap), fauxAssistantMessage("never")]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(h.eventsOfType("auto_retry_start")).toHaveLength(1);
		expect(h.eventsOfType("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: overCap },
		]);
		expect(h.eventsOfType("agent_end").map((e) => e.willRetry)).toEqual([true, false]);
		expect(h.faux.callCount).toBe(2);
		expect(h.session.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: overCap });
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);

		// Alone (no sequence in flight): no retry events at all, just the failed answer.
		h.events.length = 0;
		h.setResponses([errorReply("503 overloaded; Retry-After: 120")]);
		await h.session.prompt("again");
		expect(h.eventsOfType("auto_retry_start")).toEqual([]);
		expect(h.eventsOfType("auto_retry_end")).toEqual([]);
		expect(h.eventsOfType("agent_end").map((e) => e.willRetry)).toEqual([false]);
	});
});

describe("the failed attempt", () => {
	it("stays in the log, leaves the context through a persisted context_edit; a reopened session sends the same context", async () => {
		h = await retryHarness({ baseDelayMs: 10 }, { persistence: "disk" });
		h.setResponses([errorReply(OVERLOADED), errorReply(OVERLOADED), fauxAssistantMessage("ok")]);
		await settleWithClock(h, h.session.prompt("hi"));
		const file = h.session.sessionFile!;
		expect(fileSummary(file).filter((line) => line === "context_edit")).toHaveLength(2);
		const edits = h.sessionManager.getEntries().filter((entry) => entry.type === "context_edit");
		const failed = h.sessionManager
			.getEntries()
			.filter(
				(entry) =>
					entry.type === "message" && entry.message.role === "assistant" && entry.message.stopReason === "error",
			);
		expect(edits.map((edit) => edit.targetId)).toEqual(failed.map((entry) => entry.id));
		expect(h.session.messages.some((m) => m.role === "assistant" && m.stopReason === "error")).toBe(false);
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));

		// A session opened from the file sends exactly the live context to the model.
		h.session.dispose();
		h.sessionManager.close();
		const reopenedManager = SessionManager.open(file);
		const reopened = await AgentSession.create({
			sessionManager: reopenedManager,
			settingsManager: h.settingsManager,
			resourceLoader: h.resourceLoader,
			modelRuntime: h.modelRuntime,
			model: h.model,
		});
		try {
			h.setResponses([fauxAssistantMessage("second")]);
			await reopened.prompt("next");
			const request = h.faux.requests.at(-1)!;
			expect(request.messages.some((m) => m.role === "assistant" && m.stopReason === "error")).toBe(false);
			expect(request.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
		} finally {
			reopened.dispose();
			reopenedManager.close();
		}
	});
});

describe("events and cancellation", () => {
	it("emits pi's payloads exactly, and agent_end.willRetry says whether the run is retried", async () => {
		h = await retryHarness({ baseDelayMs: 25, maxRetries: 2 });
		h.setResponses([errorReply("503 a"), errorReply("503 b"), errorReply("503 c")]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(h.eventsOfType("auto_retry_start")).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 2, delayMs: 25, errorMessage: "503 a" },
			{ type: "auto_retry_start", attempt: 2, maxAttempts: 2, delayMs: 50, errorMessage: "503 b" },
		]);
		expect(h.eventsOfType("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 2, finalError: "503 c" },
		]);
		expect(h.eventsOfType("agent_end").map((e) => e.willRetry)).toEqual([true, true, false]);
	});

	it.each(["abortRetry", "abort"] as const)(
		"%s() during the backoff: Retry cancelled, one agent_settled, and the session stays usable",
		async (how) => {
			h = await retryHarness({ baseDelayMs: 5000 });
			h.setResponses([errorReply(OVERLOADED), fauxAssistantMessage("never sent")]);
			const running = h.session.prompt("hi");
			while (!h.session.isRetrying) await tick();
			if (how === "abortRetry") h.session.abortRetry();
			else await h.session.abort();
			await running;
			expect(h.eventsOfType("auto_retry_end")).toEqual([
				{ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
			]);
			expect(h.eventsOfType("agent_settled")).toHaveLength(1);
			expect(h.session.lifecycle).toBe("idle");
			expect(h.faux.callCount).toBe(1);
			// The timer is gone: advancing the clock starts nothing.
			h.clock!.increment(60_000);
			await tick();
			expect(h.faux.callCount).toBe(1);
			h.setResponses([fauxAssistantMessage("fresh")]);
			await h.session.prompt("again");
			expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "fresh" }] });
			expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		},
	);

	it("abortRetry() outside a backoff does nothing", async () => {
		h = await retryHarness({ baseDelayMs: 10 });
		h.setResponses([fauxAssistantMessage("ok")]);
		h.session.abortRetry();
		await h.session.prompt("hi");
		expect(h.eventsOfType("auto_retry_end")).toEqual([]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});
});

describe("after retries give up", () => {
	it("the threshold check still runs (C.3 steps 5–6): a session that keeps failing can compact", async () => {
		h = await retryHarness({ baseDelayMs: 10, maxRetries: 1 }, { ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS });
		script(h, [
			fauxAssistantMessage("short"),
			fauxAssistantMessage(BIG_ANSWER),
			errorReply("503 Service Unavailable"),
			errorReply("503 Service Unavailable"),
		]);
		await h.session.prompt("a");
		h.session.setAutoCompactionEnabled(false);
		await h.session.prompt("b");
		h.session.setAutoCompactionEnabled(true);
		h.events.length = 0;
		await settleWithClock(h, h.session.prompt("c"));
		expect(h.eventsOfType("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "503 Service Unavailable" },
		]);
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "threshold", aborted: false, willRetry: false }),
		]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});
});
