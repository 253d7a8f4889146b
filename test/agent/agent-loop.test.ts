import { describe, expect, it } from "vitest";
import { agentLoop, agentLoopContinue, runAgentLoop, runAgentLoopContinue } from "../../src/agent/agent-loop.js";
import type { AgentContext, AgentEvent, AgentLoopConfig } from "../../src/agent/types.js";
import { instantStreamFn } from "../../src/llm/event-stream.js";
import type { AgentMessage, Context } from "../../src/llm/types.js";
import {
	agentEventViolations,
	createFauxProvider,
	fauxAssistantMessage,
	fauxToolCall,
} from "../../src/testing/index.js";
import { echoTool, textOf, user } from "./helpers.js";

function setup() {
	const faux = createFauxProvider();
	const config: AgentLoopConfig = { model: faux.getModel()!, streamFn: faux.streamFn };
	return { faux, config };
}

describe("runAgentLoop", () => {
	it("appends to the given context in place and returns the run's new messages", async () => {
		const { faux, config } = setup();
		faux.setResponses([fauxAssistantMessage("hello")]);
		const existing = user("earlier");
		const context: AgentContext = { systemPrompt: "sys", messages: [existing], tools: [] };
		const seenAtEnd: number[] = [];
		const prompt = user("now");
		const result = await runAgentLoop([prompt], context, config, (event) => {
			if (event.type === "message_end") seenAtEnd.push(context.messages.indexOf(event.message));
		});
		expect(context.messages.map((message) => textOf(message))).toEqual(["earlier", "now", "hello"]);
		expect(result).toEqual([prompt, context.messages[2]]);
		// The sink saw each message already appended.
		expect(seenAtEnd).toEqual([1, 2]);
	});

	it("a sink replacement is written into a plain context array", async () => {
		const { faux, config } = setup();
		faux.setResponses([fauxAssistantMessage("raw")]);
		const context: AgentContext = { systemPrompt: "", messages: [] };
		const replaced = fauxAssistantMessage("clean");
		const result = await runAgentLoop([user("hi")], context, config, (event) =>
			event.type === "message_end" && event.message.role === "assistant" ? { message: replaced } : undefined,
		);
		expect(context.messages[1]).toBe(replaced);
		expect(result[1]).toBe(replaced);
	});

	it("rejects when the sink throws (model failures never reject)", async () => {
		const { faux, config } = setup();
		faux.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error" })]);
		const context: AgentContext = { systemPrompt: "", messages: [] };
		const result = await runAgentLoop([user("hi")], context, config, () => undefined);
		expect(result[1]).toMatchObject({ stopReason: "error", errorMessage: "overloaded_error" });
		await expect(
			runAgentLoop([user("hi")], { systemPrompt: "", messages: [] }, config, () => {
				throw new Error("sink failed");
			}),
		).rejects.toThrow("sink failed");
	});

	it("hands the stream function an append-only LLM array that grows across turns", async () => {
		const arrays: unknown[][] = [];
		const lengths: number[] = [];
		const faux = createFauxProvider();
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		const streamFn = (
			model: Parameters<typeof faux.streamFn>[0],
			context: Context,
			options?: Parameters<typeof faux.streamFn>[2],
		) => {
			arrays.push(context.messages);
			lengths.push(context.messages.length);
			return faux.streamFn(model, context, options);
		};
		const context: AgentContext = { systemPrompt: "", messages: [], tools: [echoTool()] };
		await runAgentLoop([user("go")], context, { model: faux.getModel()!, streamFn }, () => undefined);
		expect(lengths).toEqual([1, 3]);
		expect(arrays[1]).toBe(arrays[0]);
		expect(faux.requests.map((request) => request.messages.length)).toEqual([1, 3]);
	});

	it("an aborted signal before a model call skips the provider", async () => {
		const { faux, config } = setup();
		faux.setResponses([fauxAssistantMessage("never")]);
		const controller = new AbortController();
		controller.abort();
		const events: AgentEvent[] = [];
		await runAgentLoop(
			[user("hi")],
			{ systemPrompt: "", messages: [] },
			config,
			(event) => {
				events.push(event);
			},
			controller.signal,
		);
		expect(faux.callCount).toBe(0);
		expect(events.at(-2)).toMatchObject({
			type: "turn_end",
			message: { stopReason: "aborted", errorMessage: "Request was aborted" },
		});
		expect(agentEventViolations(events)).toEqual([]);
	});
});

describe("runAgentLoopContinue", () => {
	it("rejects an empty context and a trailing assistant message with pi's texts", async () => {
		const { config } = setup();
		await expect(runAgentLoopContinue({ systemPrompt: "", messages: [] }, config, () => undefined)).rejects.toThrow(
			"Cannot continue: no messages in context",
		);
		await expect(
			runAgentLoopContinue({ systemPrompt: "", messages: [fauxAssistantMessage("x")] }, config, () => undefined),
		).rejects.toThrow("Cannot continue from message role: assistant");
		expect(() => agentLoopContinue({ systemPrompt: "", messages: [] }, config)).toThrow(
			"Cannot continue: no messages in context",
		);
	});

	it("continues from a trailing tool result", async () => {
		const { faux, config } = setup();
		faux.setResponses([fauxAssistantMessage("next")]);
		const messages: AgentMessage[] = [
			user("go"),
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			{ role: "toolResult", toolCallId: "c1", toolName: "echo", content: [], isError: false, timestamp: 1 },
		];
		const result = await runAgentLoopContinue({ systemPrompt: "", messages }, config, () => undefined);
		expect(result.map((message) => textOf(message))).toEqual(["next"]);
		expect(messages).toHaveLength(4);
	});
});

describe("agentLoop stream variants", () => {
	it("yields every event and resolves result() with the new messages", async () => {
		const { faux, config } = setup();
		faux.setResponses([fauxAssistantMessage("hi")]);
		const stream = agentLoop([user("hello")], { systemPrompt: "", messages: [] }, config);
		const events: AgentEvent[] = [];
		for await (const event of stream) events.push(event);
		expect(agentEventViolations(events)).toEqual([]);
		expect((await stream.result()).map((message) => textOf(message))).toEqual(["hello", "hi"]);
	});

	it("closes a run whose hook throws with a failure message", async () => {
		const config: AgentLoopConfig = {
			model: createFauxProvider().getModel()!,
			streamFn: instantStreamFn(fauxAssistantMessage("unused")),
			convertToLlm: () => {
				throw new Error("cannot convert");
			},
		};
		const stream = agentLoop([user("hello")], { systemPrompt: "", messages: [] }, config);
		const events: AgentEvent[] = [];
		for await (const event of stream) events.push(event);
		expect(agentEventViolations(events)).toEqual([]);
		const [failure] = await stream.result();
		expect(failure).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "cannot convert" });
	});

	it("agentLoopContinue streams a continuation", async () => {
		const { faux, config } = setup();
		faux.setResponses([fauxAssistantMessage("answer")]);
		const stream = agentLoopContinue({ systemPrompt: "", messages: [user("q")] }, config);
		const types: string[] = [];
		for await (const event of stream) types.push(event.type);
		expect(types[0]).toBe("agent_start");
		expect(types.at(-1)).toBe("agent_end");
		expect((await stream.result()).map((message) => textOf(message))).toEqual(["answer"]);
	});
});
