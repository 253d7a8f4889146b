import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/testing/index.js";
import { createTestAgent, echoTool, textResult } from "./helpers.js";

describe("abort listeners on the run's signal", () => {
	it("stay at one for the whole run, however many model calls and tool turns, and are removed at its end", async () => {
		const seen: { sameSignal: boolean; listeners: number }[] = [];
		let runSignal: AbortSignal | undefined;
		const tool = echoTool({
			execute: async (_id, params: { text: string }, signal) => {
				seen.push({
					sameSignal: signal === runSignal,
					listeners: signal ? getEventListeners(signal, "abort").length : -1,
				});
				return textResult(params.text);
			},
		});
		const { agent, faux } = createTestAgent({ initialState: { tools: [tool] } });
		agent.subscribe((event) => {
			if (event.type === "agent_start") runSignal = agent.signal;
		});
		faux.setResponses([
			...[1, 2, 3].map((turn) =>
				fauxAssistantMessage([fauxToolCall("echo", { text: `t${turn}` }, { id: `c${turn}` })], {
					stopReason: "toolUse",
				}),
			),
			fauxAssistantMessage("done"),
		]);
		await agent.prompt("go");
		expect(faux.callCount).toBe(4);
		// A lone tool call runs on the run's own signal; the only listener is the run's abort wake-up.
		expect(seen).toEqual([1, 2, 3].map(() => ({ sameSignal: true, listeners: 1 })));
		expect(getEventListeners(runSignal!, "abort")).toHaveLength(0);
	});

	it("parallel calls with siblings get a batch signal that follows the run's abort", async () => {
		const signals: AbortSignal[] = [];
		let runSignal: AbortSignal | undefined;
		const tool = echoTool({
			execute: (_id, _params, signal) =>
				new Promise((_resolve, reject) => {
					signal!.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
					signals.push(signal!);
					if (signals.length === 2) agent.abort();
				}),
		});
		const { agent, faux } = createTestAgent({ initialState: { tools: [tool] } });
		agent.subscribe((event) => {
			if (event.type === "agent_start") runSignal = agent.signal;
		});
		faux.setResponses([
			fauxAssistantMessage(
				[fauxToolCall("echo", { text: "a" }, { id: "c1" }), fauxToolCall("echo", { text: "b" }, { id: "c2" })],
				{ stopReason: "toolUse" },
			),
		]);
		await agent.prompt("go");
		expect(signals).toHaveLength(2);
		expect(signals[0]).toBe(signals[1]);
		expect(signals[0]).not.toBe(runSignal);
		expect(signals[0]!.aborted).toBe(true);
		expect(getEventListeners(runSignal!, "abort")).toHaveLength(0);
	});
});
