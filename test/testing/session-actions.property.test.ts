/**
 * `sessionActionsArbitrary` + `applyActionsOnEvents`: random steer / follow-up / abort / abortRetry /
 * clearQueue actions keyed to events of the run. Keyed to events, an abort lands inside a running
 * tool and a steer inside a retry backoff in a good share of runs (scheduled up front they almost
 * never do), and every run still passes `harnessViolations` — queue accounting included.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { applyActionsOnEvents, type SessionAction, sessionActionsArbitrary } from "../../src/testing/actions.js";
import { fauxScriptArbitrary } from "../../src/testing/arbitraries.js";
import { createHarness } from "../../src/testing/harness.js";
import { harnessViolations } from "../../src/testing/harness-invariants.js";

/** A tool that takes a macrotask to finish, or stops at once when aborted. */
const slow = {
	name: "slow",
	label: "Slow",
	description: "takes a moment",
	parameters: { type: "object", properties: {} },
	execute: (_id: string, _params: unknown, signal?: AbortSignal) =>
		new Promise<{ content: { type: "text"; text: string }[]; details: object }>((resolve, reject) => {
			if (signal?.aborted) return reject(new Error("aborted"));
			const timer = setImmediate(() => resolve({ content: [{ type: "text", text: "done" }], details: {} }));
			signal?.addEventListener("abort", () => {
				clearImmediate(timer);
				reject(new Error("aborted"));
			});
		}),
};

describe("session actions keyed to events", () => {
	it("prints an action list in one line, one action each", () => {
		const [actions] = fc.sample(sessionActionsArbitrary({ minLength: 3, maxLength: 3 }), { numRuns: 1, seed: 3 });
		expect(fc.stringify(actions)).toBe(
			'[abortRetry() at event 14,steer("steer 1") at turn_start#1,followUp("followUp 2") at agent_settled#1]',
		);
		// The printing method stays out of equality and spreads.
		expect(actions?.[1]).toEqual({ kind: "steer", text: "steer 1", at: { event: "turn_start", occurrence: 1 } });
	});

	it("fires each action at its event, in list order; an action whose event never comes stays pending", async () => {
		const h = await createHarness({ simulatedClock: true });
		try {
			h.setResponses([
				fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
				fauxAssistantMessage("ok"),
				fauxAssistantMessage("after steer"),
			]);
			const actions: SessionAction[] = [
				{ kind: "steer", text: "in backoff", at: { event: "auto_retry_start", occurrence: 0 } },
				{ kind: "followUp", text: "also", at: { event: "auto_retry_start", occurrence: 0 } },
				{ kind: "abort", at: { event: "tool_execution_start", occurrence: 0 } },
				{ kind: "clearQueue", at: { eventIndex: 0 } },
				{ kind: "abortRetry", at: { event: "message_end", occurrence: 1 } }, // the user message's (the system prompt's is #0)
			];
			const run = applyActionsOnEvents(h, actions);
			await h.settle(h.session.prompt("go"));
			await run.done();
			const fired = run.fired.map(
				(f) => `${f.action.kind}@${f.event}#${f.eventIndex}${f.inRetryBackoff ? " backoff" : ""}`,
			);
			expect(fired[0]).toBe("clearQueue@agent_start#0");
			const userEnd = h.events.findIndex((e) => e.type === "message_end" && e.message.role === "user");
			expect(fired[1]).toBe(`abortRetry@message_end#${userEnd}`);
			expect(fired.slice(2)).toEqual([
				expect.stringMatching(/^steer@auto_retry_start#\d+ backoff$/),
				expect.stringMatching(/^followUp@auto_retry_start#\d+ backoff$/),
			]);
			expect(run.pending()).toEqual([actions[2]]);
			expect(h.session.messages.filter((m) => m.role === "user").length).toBe(3);
			expect(harnessViolations(h)).toEqual([]);
		} finally {
			h.cleanup();
		}
	});

	it("in 100 seeded runs, aborts land inside a running tool and steers inside a retry backoff; every run is clean", async () => {
		let abortInTool = 0;
		let steerInBackoff = 0;
		await fc.assert(
			fc.asyncProperty(
				fauxScriptArbitrary({
					toolNames: ["slow"],
					kinds: ["text", "toolCalls", "retryableError"],
					minLength: 3,
					maxLength: 6,
				}),
				// Keyed to the first tool start, retry backoff or turn end: no abort at the first message ends runs early.
				sessionActionsArbitrary({
					kinds: ["steer", "followUp", "abort", "abortRetry"],
					events: ["tool_execution_start", "auto_retry_start", "turn_end"],
					maxOccurrence: 0,
					eventIndexWeight: 0,
					minLength: 2,
					maxLength: 6,
				}),
				async (script, actions) => {
					const h = await createHarness({ simulatedClock: true, customTools: [slow] });
					try {
						h.setResponses([...script.map((step) => step.message), fauxAssistantMessage("spare")]);
						const run = applyActionsOnEvents(h, actions);
						await h.settle(h.session.prompt("go"), { hangAfterMs: 5000 });
						await run.done();
						await h.settle(h.session.waitForIdle(), { hangAfterMs: 5000 });
						if (run.fired.some((f) => f.action.kind === "abort" && f.toolsRunning > 0)) abortInTool++;
						if (run.fired.some((f) => f.action.kind === "steer" && f.inRetryBackoff)) steerInBackoff++;
						expect(run.fired.filter((f) => f.error !== undefined)).toEqual([]);
						expect(harnessViolations(h)).toEqual([]);
					} finally {
						h.cleanup();
					}
				},
			),
			{ numRuns: 100, seed: 20261202 },
		);
		// With this seed: 14 and 12 of 100 (scheduled before the prompt, a steer never lands in a backoff).
		expect(abortInTool).toBeGreaterThanOrEqual(10);
		expect(steerInBackoff).toBeGreaterThanOrEqual(8);
	});

	it("clearQueue() at any turn boundary: every queued text is delivered once, listed or returned (60 seeded runs)", async () => {
		await fc.assert(
			fc.asyncProperty(
				fauxScriptArbitrary({
					toolNames: ["slow"],
					kinds: ["text", "toolCalls", "retryableError"],
					minLength: 2,
					maxLength: 5,
				}),
				// turn_start is where the run has already taken a steer that is still listed (clearQueue must keep it).
				sessionActionsArbitrary({
					kinds: ["steer", "followUp", "clearQueue"],
					events: ["turn_start", "tool_execution_start", "auto_retry_start", "turn_end"],
					maxOccurrence: 1,
					eventIndexWeight: 0,
					minLength: 2,
					maxLength: 6,
				}),
				async (script, actions) => {
					const h = await createHarness({ simulatedClock: true, customTools: [slow] });
					try {
						h.setResponses([...script.map((step) => step.message), ...Array(8).fill(fauxAssistantMessage("spare"))]);
						const run = applyActionsOnEvents(h, actions);
						await h.settle(h.session.prompt("go"), { hangAfterMs: 5000 });
						await run.done();
						await h.settle(h.session.waitForIdle(), { hangAfterMs: 5000 });
						expect(run.fired.filter((f) => f.error !== undefined)).toEqual([]);
						expect(harnessViolations(h)).toEqual([]);
					} finally {
						h.cleanup();
					}
				},
			),
			{ numRuns: 60, seed: 20261203 },
		);
	});
});
