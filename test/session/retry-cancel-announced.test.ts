/**
 * `abortRetry()` once `agent_end{willRetry: true}` has announced a retry — from that listener, or
 * right after it on the SimulatedClock, before the backoff began — cancels it with exactly the
 * outcome of `abortRetry()` during the backoff: the same events, the same session file, no second
 * model request, one `agent_settled`, and `prompt()` resolves. pi 0.73.1 ignores it there and
 * retries anyway; before a retry is announced it still does nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";
import { fileSummary, labeled, tick } from "./helpers.js";
import { errorReply, OVERLOADED } from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

type When = "agent_end listener" | "right after agent_end" | "during the backoff";

/** One prompt whose first `failures` replies are retryable; `abortRetry()` at the last failure's agent_end, per `when`. */
async function cancelled(when: When, failures = 1) {
	h = await createHarness({ simulatedClock: true, persistence: "disk", settings: { retry: { baseDelayMs: 5000 } } });
	h.setResponses([...Array.from({ length: failures }, () => errorReply(OVERLOADED)), fauxAssistantMessage("never")]);
	let ends = 0;
	let lifecycleAtCancel: string | undefined;
	const cancel = () => {
		lifecycleAtCancel = h.session.lifecycle;
		h.session.abortRetry();
	};
	if (when === "agent_end listener") {
		h.session.subscribe((event) => {
			if (event.type === "agent_end" && event.willRetry && ++ends === failures) cancel();
		});
	}
	const lastEnd =
		when === "agent_end listener" ? undefined : waitFor((e) => e.type === "agent_end" && ++ends === failures);
	const running = h.session.prompt("hi");
	if (when === "right after agent_end") {
		await lastEnd;
		cancel();
	} else if (when === "during the backoff") {
		await lastEnd;
		while (!h.session.isRetrying) await tick();
		cancel();
	}
	// h.settle moves the clock over the earlier backoffs; the cancelled one never elapses.
	await h.settle(running);
	return { lifecycleAtCancel, events: [...h.events] };
}

function waitFor(match: (event: AgentSessionEvent) => boolean): Promise<void> {
	return new Promise((resolve) => {
		const off = h.session.subscribe((event) => {
			if (!match(event)) return;
			off();
			resolve();
		});
	});
}

/** The events from the cancelled run's agent_end on, message updates left out. */
function tail(events: AgentSessionEvent[]): unknown[] {
	const from = events.findLastIndex((e) => e.type === "agent_end");
	return events.slice(from).map((e) => {
		if (e.type === "agent_end") return { type: e.type, willRetry: e.willRetry };
		if (e.type === "entry_appended") return { type: e.type, entry: e.entry.type };
		return e;
	});
}

describe("abortRetry() after agent_end{willRetry: true}, before the backoff", () => {
	it.each(["agent_end listener", "right after agent_end"] as const)(
		"from the %s: the retry is cancelled — no second request, one agent_settled, prompt() resolves",
		async (when) => {
			const run = await cancelled(when);
			// Still the failed run: the backoff has not begun (this is what pi ignores).
			expect(run.lifecycleAtCancel).toBe("running.working");
			expect(tail(run.events)).toEqual([
				{ type: "agent_end", willRetry: true },
				{ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5000, errorMessage: OVERLOADED },
				{ type: "entry_appended", entry: "context_edit" },
				{ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
				{ type: "agent_settled" },
			]);
			expect(h.faux.callCount).toBe(1);
			expect(h.session.lifecycle).toBe("idle");
			expect(h.session.isRetrying).toBe(false);
			// No timer is left: the backoff passing starts nothing.
			h.clock!.increment(60_000);
			await tick();
			expect(h.faux.callCount).toBe(1);
			expect(h.getPendingResponseCount()).toBe(1);
			// The failed attempt stays in the log and leaves the context, as after a cancelled backoff.
			expect(fileSummary(h.session.sessionFile!)).toEqual([
				"session",
				"model_change",
				"thinking_level_change",
				"message:system",
				"message:user",
				"message:assistant",
				"context_edit",
			]);
			expect(h.session.messages.filter((m) => m.role === "assistant")).toEqual([]);
			expect(sessionEventViolations(run.events)).toEqual([]);
		},
	);

	it.each(["agent_end listener", "right after agent_end"] as const)(
		"from the %s: the same events and log as abortRetry() during the backoff",
		async (when) => {
			const during = await cancelled("during the backoff");
			const duringFile = fileSummary(h.session.sessionFile!);
			expect(during.lifecycleAtCancel).toBe("retrying");
			h.cleanup();
			const early = await cancelled(when);
			expect(labeled(early.events)).toEqual(labeled(during.events));
			expect(tail(early.events)).toEqual(tail(during.events));
			expect(fileSummary(h.session.sessionFile!)).toEqual(duringFile);
		},
	);

	it("in a retry sequence: the second failure's agent_end cancels attempt 2 (attempt 1 ran)", async () => {
		const run = await cancelled("agent_end listener", 2);
		expect(h.faux.callCount).toBe(2);
		expect(run.events.filter((e) => e.type === "auto_retry_start").map((e) => e.attempt)).toEqual([1, 2]);
		expect(run.events.filter((e) => e.type === "auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 2, finalError: "Retry cancelled" },
		]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(sessionEventViolations(run.events)).toEqual([]);
	});

	it("the session stays usable: the next prompt runs normally", async () => {
		await cancelled("agent_end listener");
		h.setResponses([fauxAssistantMessage("fresh")]);
		await h.session.prompt("again");
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "fresh" }] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(h.eventsOfType("auto_retry_start")).toHaveLength(1);
	});

	it("before agent_end announced a retry it does nothing: the failed request is retried", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 10 } } });
		h.setResponses([errorReply(OVERLOADED), fauxAssistantMessage("ok")]);
		let cancelledAt: string | undefined;
		h.session.subscribe((event) => {
			// The failed assistant message has ended, agent_end has not been emitted yet.
			if (event.type === "message_end" && event.message.role === "assistant" && cancelledAt === undefined) {
				cancelledAt = h.session.lifecycle;
				h.session.abortRetry();
			}
		});
		await h.settle(h.session.prompt("hi"));
		expect(cancelledAt).toBe("running.working");
		expect(h.faux.callCount).toBe(2);
		expect(h.eventsOfType("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 1 }]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "ok" }] });
	});

	it("after the retried request started it does nothing either (abort() stops a running request)", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 10 } } });
		h.setResponses([errorReply(OVERLOADED), fauxAssistantMessage("ok")]);
		let starts = 0;
		h.session.subscribe((event) => {
			if (event.type === "agent_start" && ++starts === 2) h.session.abortRetry();
		});
		await h.settle(h.session.prompt("hi"));
		expect(h.faux.callCount).toBe(2);
		expect(h.eventsOfType("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 1 }]);
	});
});
