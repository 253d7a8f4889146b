/**
 * `abortRetry()` at a random moment of a random run (text, tool calls, retryable / fatal / overflow
 * errors): called from the listener of any event between an `agent_end{willRetry: true}` and the
 * retried run's `agent_start`, the announced retry never runs — its sequence ends with
 * `auto_retry_end{finalError: "Retry cancelled"}` and the operation settles; called anywhere else
 * (outside that window) it changes nothing. Either way the stream is clean (`sessionEventViolations`)
 * and the session is idle afterwards.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { fauxScriptArbitrary } from "../../src/testing/arbitraries.js";
import { createHarness } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";

type Step = ReturnType<typeof fauxAssistantMessage>;

const overloaded = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" });

/** Which event's listener calls `abortRetry()`: the `occurrence`-th (1-based) event of `type`. */
interface Trigger {
	type: AgentSessionEvent["type"];
	occurrence: number;
}

/** One prompt on `steps`; with `trigger`, `abortRetry()` from that event's listener. */
async function run(steps: Step[], trigger?: Trigger) {
	const h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 100 } } });
	try {
		h.setResponses(steps);
		let seen = 0;
		let cancelAt = -1;
		h.session.subscribe((event) => {
			if (!trigger || event.type !== trigger.type || ++seen !== trigger.occurrence) return;
			cancelAt = h.events.length; // the harness recorded this event already
			h.session.abortRetry();
		});
		await h.settle(h.session.prompt("go"));
		return { events: [...h.events], calls: h.faux.callCount, lifecycle: h.session.lifecycle, cancelAt };
	} finally {
		h.cleanup();
	}
}

/** Event types, without `message_update` (the faux model streams in chunks of varying size). */
const types = (events: readonly AgentSessionEvent[]) =>
	events.filter((e) => e.type !== "message_update").map((e) => e.type);

/** Whether the `index`-th event (0-based) lies between an agent_end{willRetry: true} and the next agent_start. */
function inAnnouncedWindow(events: readonly AgentSessionEvent[], index: number): boolean {
	for (let i = index; i >= 0; i--) {
		const event = events[i]!;
		if (event.type === "agent_start") return false;
		if (event.type === "agent_end") return event.willRetry;
	}
	return false;
}

describe("abortRetry() at a random moment", () => {
	it("cancels exactly the retries it was told about, and the stream stays clean", async () => {
		await fc.assert(
			fc.asyncProperty(
				fauxScriptArbitrary({ kinds: ["text", "toolCalls", "retryableError", "fatalError", "overflowError"] }),
				fc.boolean(),
				fc.boolean(),
				fc.nat(),
				async (script, failFirst, nearAnnouncement, pick) => {
					const steps = [
						...(failFirst ? [overloaded()] : []),
						...script.map((step) => step.message),
						fauxAssistantMessage("tail"),
						fauxAssistantMessage("tail"),
					];
					const plain = await run(steps);
					// Half the time an event inside an announced window (when there is one), else any event.
					const indexes = plain.events
						.map((_e, index) => index)
						.filter((i) => plain.events[i]!.type !== "message_update");
					const windowed = indexes.filter((i) => inAnnouncedWindow(plain.events, i));
					const choices = nearAnnouncement && windowed.length > 0 ? windowed : indexes;
					const at = choices[pick % choices.length]!;
					const type = plain.events[at]!.type;
					const occurrence = plain.events.slice(0, at + 1).filter((e) => e.type === type).length;
					const cancelled = await run(steps, { type, occurrence });
					expect(cancelled.cancelAt).toBeGreaterThan(0);
					expect(sessionEventViolations(cancelled.events)).toEqual([]);
					expect(cancelled.lifecycle).toBe("idle");
					expect(cancelled.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
					const before = cancelled.events.slice(0, cancelled.cancelAt);
					if (inAnnouncedWindow(cancelled.events, cancelled.cancelAt - 1)) {
						const after = cancelled.events.slice(cancelled.cancelAt);
						expect(after.map((e) => e.type)).not.toContain("agent_start");
						expect(after.filter((e) => e.type === "auto_retry_end")).toEqual([
							expect.objectContaining({ success: false, finalError: "Retry cancelled" }),
						]);
						// Every model call the run made streamed an assistant message before the cancel.
						const replies = before.filter((e) => e.type === "message_end" && e.message.role === "assistant");
						expect(cancelled.calls).toBe(replies.length);
					} else {
						expect(cancelled.calls).toBe(plain.calls);
						expect(types(cancelled.events)).toEqual(types(plain.events));
					}
				},
			),
			{ numRuns: 40 },
		);
	});
});
