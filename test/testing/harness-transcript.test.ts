/**
 * testkit2 audit: a failed property printed its counterexample and the violated invariant, but
 * nothing of the run — the violation says `run 2: #9 …` and the user cannot see event 9.
 * `h.transcript(run)` prints the recorded events one short line each, numbered as the violations
 * and `applyActionsOnEvents` number them, with the fired actions marked.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
	applyActionsOnEvents,
	createHarness,
	fauxAssistantMessage,
	fauxText,
	fauxToolCall,
	type Harness,
} from "../../src/testing/index.js";

const echo = {
	name: "echo",
	label: "Echo",
	description: "echo",
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text" as const, text: "ok" }], details: {} }),
};

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("h.transcript (testkit2)", () => {
	it("prints a retried tool run one line per event, numbered like the violations, with the fired action", async () => {
		h = await createHarness({ simulatedClock: true, customTools: [echo] });
		h.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
			fauxAssistantMessage([fauxText("let me"), fauxToolCall("echo", { a: 1 }, { id: "c1" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("done"),
		]);
		const run = applyActionsOnEvents(h, [
			{ kind: "steer", text: "use tabs", at: { event: "tool_execution_start", occurrence: 0 } },
		]);
		await h.settle(h.session.prompt("hi"));
		await run.done();
		const lines = h.transcript(run).split("\n");
		expect(lines).toContain('#4 [run 1 #4] message_start user "hi"');
		expect(lines).toContain('#10 [run 1 #10] message_end assistant "" [error] "503 Service Unavailable"');
		expect(lines).toContain("#12 [run 1 #12] agent_end willRetry");
		expect(lines).toContain('#13 auto_retry_start attempt 1/3 in 2000 ms: "503 Service Unavailable"');
		expect(lines).toContain("#15 [run 2 #0] agent_start");
		expect(lines).toContain('#24 [run 2 #9] message_end assistant "let me", echo(c1) {"a":1} [toolUse]');
		expect(lines).toContain(
			'#26 [run 2 #10] tool_execution_start echo(c1) {"a":1}  <- steer("use tabs") at tool_execution_start#0',
		);
		expect(lines).toContain('#35 [run 2 #17] message_end user "use tabs"');
		expect(lines.filter((line) => line.includes("message_update"))).toEqual([
			"#7-#9 [run 1 #7-#9] message_update ×3",
			"#18-#23 [run 2 #3-#8] message_update ×6",
			"#37-#39 [run 2 #19-#21] message_update ×3",
		]);
		expect(lines.at(-1)).toBe("#43 agent_settled");
		// every event is on a line: the folded updates count for their range
		const covered = lines.reduce((sum, line) => sum + (Number(/×(\d+)$/.exec(line)?.[1]) || 1), 0);
		expect(covered).toBe(h.events.length);
	});

	it("marks an action on its own line when the run started counting after earlier prompts", async () => {
		h = await createHarness({ simulatedClock: true });
		h.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("second")]);
		await h.settle(h.session.prompt("one"));
		const before = h.events.length;
		const run = applyActionsOnEvents(h, [{ kind: "followUp", text: "later", at: { eventIndex: 1 } }]);
		await h.settle(h.session.prompt("two"));
		await run.done();
		expect(run.fired).toMatchObject([{ eventIndex: 1, event: "turn_start" }]);
		const marked = h
			.transcript(run)
			.split("\n")
			.filter((line) => line.includes("<- "));
		expect(marked).toEqual([`#${before + 1} [run 2 #1] turn_start  <- followUp("later") at event 1`]);
	});
});
