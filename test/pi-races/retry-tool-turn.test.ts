/**
 * pi#2439 (fixed in pi by PR pi#2440): an automatic retry whose retried answer called a tool.
 * `session.prompt()` resolved on the retried answer's `message_end`, while the loop still ran the
 * tool; the caller saw `isStreaming` true after `prompt()` returned, its next `prompt()` threw
 * "Agent is already processing", and the tool's result was lost. Replayed against Settle through
 * its public API on a SimulatedClock (the backoff passes without real waiting) and a real session
 * file. What the user should see: `prompt()` resolves once the whole run ended (tool result and
 * final answer in, the session idle), the next `prompt()` is accepted, and the file holds it all.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type HarnessWithClock } from "../../src/testing/harness.js";
import { orphanToolMessages } from "./disk-harness.js";
import { comparable, errorReply, OVERLOADED, persistedRoles, reopenedContext, script } from "./helpers.js";

let h: HarnessWithClock | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("pi#2439: prompt() returns before an auto-retried run's tool calls finish", () => {
	it("pi#2439: after an overloaded error, the retried answer's tool runs and the final answer arrives before prompt() resolves; the next prompt() is accepted", async () => {
		const ran: string[] = [];
		const lookup: AgentTool = {
			name: "lookup",
			label: "Lookup",
			description: "looks a value up",
			parameters: { type: "object" },
			execute: async () => {
				ran.push("lookup");
				return { content: [{ type: "text", text: "value 42" }], details: {} };
			},
		};
		h = await createHarness({
			persistence: "disk",
			simulatedClock: true,
			tools: [lookup],
			settings: { retry: { maxRetries: 3, baseDelayMs: 2000 } },
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			errorReply(OVERLOADED),
			fauxAssistantMessage([fauxToolCall("lookup", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("the value is 42"),
			fauxAssistantMessage("second answer"),
		]);
		let promptResolvedWith: { idle: boolean; last: unknown; toolEnds: number } | undefined;
		const done = harness.session.prompt("look it up").then(() => {
			// What a caller sees the moment prompt() returns.
			promptResolvedWith = {
				idle: harness.session.isIdle,
				last: harness.session.messages.at(-1),
				toolEnds: harness.eventsOfType("tool_execution_end").length,
			};
		});
		await harness.settle(done);

		expect(harness.eventsOfType("auto_retry_end")).toEqual([expect.objectContaining({ success: true, attempt: 1 })]);
		expect(ran).toEqual(["lookup"]);
		expect(promptResolvedWith).toEqual({
			idle: true,
			last: expect.objectContaining({ role: "assistant", content: [{ type: "text", text: "the value is 42" }] }),
			toolEnds: 1,
		});
		// The next prompt is accepted at once (no BUSY) and answered.
		await harness.settle(harness.session.prompt("and now?"));
		expect(answerRequests).toHaveLength(4);
		expect(harness.session.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "second answer" }] });
		const file = harness.session.sessionFile!;
		// The failed answer stays in the file (as in pi), off the branch the retry continued.
		expect(persistedRoles(file)).toEqual([
			"user",
			"assistant",
			"assistant",
			"toolResult",
			"assistant",
			"user",
			"assistant",
		]);
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});
