/**
 * `sessionEventViolations` under host aborts: an abort that lands after `agent_end{willRetry:true}`
 * and before the backoff begins (e.g. from the `agent_end` listener itself) cancels the retry, and
 * the real stream that follows must be judged clean — the checker is what hosts run over their own
 * random abort timings.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { fauxScriptArbitrary } from "../../src/testing/arbitraries.js";
import { createHarness } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";

const overloaded = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" });

/** Runs one prompt and calls `abort()` from the listener of the `abortAt`-th event (1-based). */
async function abortedAt(
	steps: ReturnType<typeof fauxAssistantMessage>[],
	abortAt: (event: AgentSessionEvent, n: number) => boolean,
) {
	const h = await createHarness({ simulatedClock: true });
	try {
		h.setResponses(steps);
		let n = 0;
		h.session.subscribe((event) => {
			if (abortAt(event, ++n)) void h.session.abort();
		});
		await h.settle(h.session.prompt("go"));
		return { events: [...h.events], calls: h.faux.callCount, lifecycle: h.session.lifecycle };
	} finally {
		h.cleanup();
	}
}

describe("sessionEventViolations with aborts", () => {
	it("an abort from the agent_end{willRetry:true} listener cancels the retry; the stream is clean", async () => {
		const run = await abortedAt([overloaded(), fauxAssistantMessage("never sent")], (e) => e.type === "agent_end");
		const agentEnd = run.events.find((e) => e.type === "agent_end");
		expect(agentEnd).toMatchObject({ willRetry: true });
		expect(run.calls).toBe(1);
		expect(run.events.filter((e) => e.type === "auto_retry_start")).toEqual([]);
		expect(run.events.at(-1)?.type).toBe("agent_settled");
		expect(run.lifecycle).toBe("idle");
		expect(sessionEventViolations(run.events)).toEqual([]);
	});

	it("the same during a retry sequence: it ends as cancelled, and the stream is clean", async () => {
		let ends = 0;
		const run = await abortedAt(
			[overloaded(), overloaded(), fauxAssistantMessage("never sent")],
			(e) => e.type === "agent_end" && ++ends === 2,
		);
		expect(run.calls).toBe(2);
		expect(run.events.filter((e) => e.type === "auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
		]);
		expect(sessionEventViolations(run.events)).toEqual([]);
	});

	it("a promised retry that starts something else, or settles a sequence not cancelled, is still named", () => {
		const end: AgentSessionEvent = { type: "agent_end", messages: [], willRetry: true, aborted: false };
		const start: AgentSessionEvent = { type: "agent_start" };
		expect(sessionEventViolations([start, end, { type: "compaction_start", reason: "threshold" }])).toContainEqual(
			"#2 compaction_start: agent_end said willRetry, no retry came",
		);
		const retry: AgentSessionEvent = {
			type: "auto_retry_start",
			attempt: 1,
			maxAttempts: 3,
			delayMs: 2000,
			errorMessage: "503",
		};
		const ended = (finalError: string): AgentSessionEvent[] => [
			start,
			end,
			retry,
			start,
			end,
			{ type: "auto_retry_end", success: false, attempt: 1, finalError },
			{ type: "agent_settled" },
		];
		expect(sessionEventViolations(ended("503"))).toEqual(["#6 agent_settled: agent_end said willRetry, no retry came"]);
		expect(sessionEventViolations(ended("Retry cancelled"))).toEqual([]);
	});

	it("random scripts, an abort at any event: every real stream is clean", async () => {
		await fc.assert(
			fc.asyncProperty(
				fauxScriptArbitrary({ kinds: ["text", "toolCalls", "retryableError", "fatalError", "overflowError"] }),
				fc.nat({ max: 40 }),
				async (script, abortAt) => {
					const steps = [
						...script.map((step) => step.message),
						fauxAssistantMessage("tail"),
						fauxAssistantMessage("tail"),
					];
					const run = await abortedAt(steps, (_e, n) => n === abortAt);
					expect(sessionEventViolations(run.events)).toEqual([]);
					expect(run.lifecycle).toBe("idle");
				},
			),
			{ numRuns: 60 },
		);
	});
});
