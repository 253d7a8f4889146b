/**
 * Reports about input typed while an abort winds down, replayed against Settle through its public
 * API on a real session file: a follow-up or steer sent after `abort()` was called but before the
 * aborted run ended (gsd-2#1439). What the user should see: the message is neither dropped nor
 * answered by the run being stopped; it waits, listed, and the next prompt delivers it once.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, gate, reopenedContext, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("gsd-2#1439: messages typed during or right after an abort are silently dropped", () => {
	for (const how of ["followUp", "steer"] as const) {
		it(`gsd-2#1439: a ${how}() sent after abort() was called, while the aborted tool still runs, is kept and delivered once by the next prompt`, async () => {
			const toolStarted = gate();
			const slow: AgentTool = {
				name: "slow",
				label: "Slow",
				description: "Runs until aborted",
				parameters: { type: "object" },
				execute: (_id, _params, signal) =>
					new Promise((resolve) => {
						toolStarted.release();
						signal?.addEventListener("abort", () =>
							resolve({ content: [{ type: "text", text: "stopped" }], details: {} }),
						);
					}),
			};
			h = await createHarness({ persistence: "disk", tools: [slow] });
			const harness = h;
			const { answerRequests, answersLeft } = script(harness, [
				fauxAssistantMessage([fauxToolCall("slow", {})], { stopReason: "toolUse" }),
				fauxAssistantMessage("answered the next prompt"),
				fauxAssistantMessage("answered the follow-up"),
			]);
			const running = harness.session.prompt("long task");
			await toolStarted.promise;
			const aborting = harness.session.abort();
			// The user types right after Esc, before the abort has finished.
			await harness.session[how]("typed right after esc");
			await aborting;
			await running;
			// The stopped run asked the model nothing more.
			expect(answerRequests).toHaveLength(1);
			expect(harness.session.isIdle).toBe(true);
			const file = harness.session.sessionFile!;
			if (how === "followUp") {
				// Still listed, waiting for the next run.
				expect(harness.session.getFollowUpMessages()).toEqual(["typed right after esc"]);
				expect(timesPersisted(file, "typed right after esc")).toBe(0);
			} else {
				// Taken at the tool boundary the abort stopped at: saved after the tool's result, unanswered.
				expect(harness.session.getSteeringMessages()).toEqual([]);
				expect(timesPersisted(file, "typed right after esc")).toBe(1);
			}
			await harness.session.prompt("next");
			// The next operation's requests carry it exactly once; nothing is left queued.
			const last = answerRequests.at(-1)!;
			expect(userTexts(last).filter((text) => text === "typed right after esc")).toHaveLength(1);
			expect(answerRequests.slice(1).every((request) => userTexts(request).includes("next"))).toBe(true);
			expect(answersLeft()).toBe(how === "followUp" ? 0 : 1);
			expect(harness.session.pendingMessageCount).toBe(0);
			expect(harness.eventsOfType("agent_settled")).toHaveLength(2);
			expect(timesPersisted(file, "typed right after esc")).toBe(1);
			expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		});
	}
});
