import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentTool, AgentToolUpdateCallback } from "../../src/agent/types.js";
import type { ToolResultMessage } from "../../src/llm/types.js";
import { agentEventViolations, fauxAssistantMessage, fauxToolCall } from "../../src/testing/index.js";
import { createTestAgent, deferred, echoTool, textOf, textResult } from "./helpers.js";

const toolUse = (...calls: ReturnType<typeof fauxToolCall>[]) => fauxAssistantMessage(calls, { stopReason: "toolUse" });

function toolResults(messages: readonly { role: string }[]): ToolResultMessage[] {
	return messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

/** Tools whose execute waits for a gate the test opens, recording start and end. */
function gatedTools(names: string[], log: string[]) {
	const gates = new Map(names.map((name) => [name, deferred()]));
	const started = new Map(names.map((name) => [name, deferred()]));
	const tools: AgentTool[] = names.map((name) =>
		echoTool({
			name,
			execute: async () => {
				log.push(`start:${name}`);
				started.get(name)!.resolve();
				await gates.get(name)!.promise;
				log.push(`end:${name}`);
				return textResult(name);
			},
		}),
	);
	return { tools, gates, started };
}

describe("parallel and sequential execution", () => {
	it("parallel (default): tools overlap, tool_execution_end in completion order, results in source order", async () => {
		const log: string[] = [];
		const { tools, gates, started } = gatedTools(["a", "b"], log);
		const { agent, faux, events } = createTestAgent({ initialState: { tools } });
		faux.setResponses([
			toolUse(fauxToolCall("a", { text: "" }, { id: "ca" }), fauxToolCall("b", { text: "" }, { id: "cb" })),
			fauxAssistantMessage("done"),
		]);
		const running = agent.prompt("go");
		await started.get("a")!.promise;
		await started.get("b")!.promise;
		expect(log).toEqual(["start:a", "start:b"]);
		gates.get("b")!.resolve();
		await new Promise((resolve) => setTimeout(resolve, 0));
		gates.get("a")!.resolve();
		await running;
		const ends = events.flatMap((event) => (event.type === "tool_execution_end" ? [event.toolCallId] : []));
		expect(ends).toEqual(["cb", "ca"]);
		expect(toolResults(agent.state.messages).map((message) => message.toolCallId)).toEqual(["ca", "cb"]);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("sequential config: each call finishes before the next starts", async () => {
		const log: string[] = [];
		const { tools, gates } = gatedTools(["a", "b"], log);
		for (const gate of gates.values()) gate.resolve();
		const { agent, faux, types } = createTestAgent({ toolExecution: "sequential", initialState: { tools } });
		faux.setResponses([
			toolUse(fauxToolCall("a", { text: "" }, { id: "ca" }), fauxToolCall("b", { text: "" }, { id: "cb" })),
			fauxAssistantMessage("done"),
		]);
		await agent.prompt("go");
		expect(log).toEqual(["start:a", "end:a", "start:b", "end:b"]);
		const firstTurn = types().slice(types().indexOf("tool_execution_start"), types().indexOf("turn_end"));
		expect(firstTurn).toEqual([
			"tool_execution_start",
			"tool_execution_end",
			"message_start",
			"message_end",
			"tool_execution_start",
			"tool_execution_end",
			"message_start",
			"message_end",
		]);
	});

	it("a tool declaring executionMode sequential makes its whole batch sequential", async () => {
		const log: string[] = [];
		const { tools, gates } = gatedTools(["a", "b"], log);
		for (const gate of gates.values()) gate.resolve();
		tools[1]!.executionMode = "sequential";
		const { agent, faux } = createTestAgent({ initialState: { tools } });
		faux.setResponses([
			toolUse(fauxToolCall("a", { text: "" }, { id: "ca" }), fauxToolCall("b", { text: "" }, { id: "cb" })),
			fauxAssistantMessage("done"),
		]);
		await agent.prompt("go");
		expect(log).toEqual(["start:a", "end:a", "start:b", "end:b"]);
	});

	it("parallel: every beforeToolCall of the batch runs before any tool executes", async () => {
		const log: string[] = [];
		const { tools, gates } = gatedTools(["a", "b"], log);
		for (const gate of gates.values()) gate.resolve();
		const { agent, faux } = createTestAgent({
			initialState: { tools },
			beforeToolCall: async ({ toolCall }) => {
				log.push(`before:${toolCall.name}`);
				return undefined;
			},
		});
		faux.setResponses([
			toolUse(fauxToolCall("a", { text: "" }, { id: "ca" }), fauxToolCall("b", { text: "" }, { id: "cb" })),
			fauxAssistantMessage("done"),
		]);
		await agent.prompt("go");
		expect(log.slice(0, 2)).toEqual(["before:a", "before:b"]);
		expect(log.slice(2).sort()).toEqual(["end:a", "end:b", "start:a", "start:b"]);
	});
});

describe("tool-call pipeline", () => {
	it("an unknown tool gets `Tool <name> not found`", async () => {
		const { agent, faux } = createTestAgent({ initialState: { tools: [echoTool()] } });
		faux.setResponses([toolUse(fauxToolCall("missing", {}, { id: "c1" })), fauxAssistantMessage("ok")]);
		await agent.prompt("go");
		expect(toolResults(agent.state.messages)[0]).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "Tool missing not found" }],
			details: {},
		});
	});

	it("invalid arguments get an error naming the field; neither beforeToolCall nor execute runs", async () => {
		const calls: string[] = [];
		const tool = echoTool({
			execute: async () => {
				calls.push("execute");
				return textResult("x");
			},
		});
		const { agent, faux } = createTestAgent({
			initialState: { tools: [tool] },
			beforeToolCall: async () => {
				calls.push("before");
				return undefined;
			},
		});
		faux.setResponses([toolUse(fauxToolCall("echo", { txt: "typo" }, { id: "c1" })), fauxAssistantMessage("ok")]);
		await agent.prompt("go");
		const result = toolResults(agent.state.messages)[0]!;
		expect(result.isError).toBe(true);
		expect(textOf(result)).toContain(
			'Validation failed for tool "echo":\n  - text: must have required properties text',
		);
		expect(calls).toEqual([]);
	});

	it("beforeToolCall gets the validated, coerced arguments after prepareArguments", async () => {
		const seen: unknown[] = [];
		const tool: AgentTool = {
			...echoTool(),
			parameters: Type.Object({ count: Type.Integer() }),
			prepareArguments: (args) => {
				const raw = args as { n?: unknown; count?: unknown };
				return { count: raw.count ?? raw.n };
			},
			execute: async (_id, params: { count: number }) => textResult(String(params.count * 2)),
		};
		const { agent, faux } = createTestAgent({
			initialState: { tools: [tool] },
			beforeToolCall: async ({ args }) => {
				seen.push(args);
				return undefined;
			},
		});
		faux.setResponses([toolUse(fauxToolCall("echo", { n: "21" }, { id: "c1" })), fauxAssistantMessage("ok")]);
		await agent.prompt("go");
		expect(seen).toEqual([{ count: 21 }]);
		expect(textOf(toolResults(agent.state.messages)[0])).toBe("42");
	});

	it("beforeToolCall can block (with a reason or pi's default text) and throwing blocks with the thrown text", async () => {
		const { agent, faux } = createTestAgent({
			initialState: { tools: [echoTool()] },
			beforeToolCall: async ({ toolCall }) => {
				if (toolCall.id === "c1") return { block: true, reason: "not in this folder" };
				if (toolCall.id === "c2") return { block: true };
				throw new Error("policy engine down");
			},
		});
		faux.setResponses([
			toolUse(
				fauxToolCall("echo", { text: "a" }, { id: "c1" }),
				fauxToolCall("echo", { text: "b" }, { id: "c2" }),
				fauxToolCall("echo", { text: "c" }, { id: "c3" }),
			),
			fauxAssistantMessage("ok"),
		]);
		await agent.prompt("go");
		expect(toolResults(agent.state.messages).map((message) => [textOf(message), message.isError])).toEqual([
			["not in this folder", true],
			["Tool execution was blocked", true],
			["policy engine down", true],
		]);
	});

	it("a throwing tool becomes an error result; a result with isError counts as an error", async () => {
		const failing = echoTool({
			name: "failing",
			execute: async () => {
				throw new Error("ENOENT: no such file");
			},
		});
		const flagged = echoTool({ name: "flagged", execute: async () => ({ ...textResult("exit 1"), isError: true }) });
		const { agent, faux } = createTestAgent({ initialState: { tools: [failing, flagged] } });
		faux.setResponses([
			toolUse(fauxToolCall("failing", { text: "" }, { id: "c1" }), fauxToolCall("flagged", { text: "" }, { id: "c2" })),
			fauxAssistantMessage("ok"),
		]);
		await agent.prompt("go");
		expect(toolResults(agent.state.messages).map((message) => [textOf(message), message.isError])).toEqual([
			["ENOENT: no such file", true],
			["exit 1", true],
		]);
	});

	it("afterToolCall overrides field by field and also sees thrown executions", async () => {
		const boom = echoTool({
			name: "boom",
			execute: async () => {
				throw new Error("raw failure");
			},
		});
		const usage = {
			input: 1,
			output: 2,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 3,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		};
		const seen: [string, boolean][] = [];
		const { agent, faux } = createTestAgent({
			initialState: { tools: [echoTool(), boom] },
			afterToolCall: async ({ toolCall, result, isError }) => {
				seen.push([textOf({ role: "toolResult", content: result.content } as ToolResultMessage), isError]);
				if (toolCall.id === "c1") return { content: [{ type: "text", text: "[redacted]" }], usage };
				return { isError: false, details: { normalized: true } };
			},
		});
		faux.setResponses([
			toolUse(fauxToolCall("echo", { text: "secret" }, { id: "c1" }), fauxToolCall("boom", { text: "" }, { id: "c2" })),
			fauxAssistantMessage("ok"),
		]);
		await agent.prompt("go");
		expect(seen).toEqual([
			["secret", false],
			["raw failure", true],
		]);
		const [first, second] = toolResults(agent.state.messages);
		expect(first).toMatchObject({
			content: [{ type: "text", text: "[redacted]" }],
			details: { text: "secret" },
			isError: false,
			usage,
		});
		expect(second).toMatchObject({
			content: [{ type: "text", text: "raw failure" }],
			details: { normalized: true },
			isError: false,
		});
	});

	it("a throwing afterToolCall turns the result into an error with the thrown text", async () => {
		const { agent, faux } = createTestAgent({
			initialState: { tools: [echoTool()] },
			afterToolCall: async () => {
				throw new Error("audit log unavailable");
			},
		});
		faux.setResponses([toolUse(fauxToolCall("echo", { text: "x" }, { id: "c1" })), fauxAssistantMessage("ok")]);
		await agent.prompt("go");
		expect(toolResults(agent.state.messages)[0]).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "audit log unavailable" }],
		});
	});

	it("tool_execution_update is forwarded only while execute is pending", async () => {
		let late: AgentToolUpdateCallback | undefined;
		const tool = echoTool({
			execute: async (_id, _params, _signal, onUpdate) => {
				onUpdate?.(textResult("10%"));
				await Promise.resolve();
				onUpdate?.(textResult("50%"));
				late = onUpdate;
				return textResult("100%");
			},
		});
		const { agent, faux, events } = createTestAgent({ initialState: { tools: [tool] } });
		faux.setResponses([toolUse(fauxToolCall("echo", { text: "" }, { id: "c1" })), fauxAssistantMessage("ok")]);
		agent.subscribe((event) => {
			if (event.type === "tool_execution_end") late?.(textResult("too late"));
		});
		await agent.prompt("go");
		const updates = events.filter(
			(event): event is Extract<AgentEvent, { type: "tool_execution_update" }> =>
				event.type === "tool_execution_update",
		);
		expect(
			updates.map((event) => textOf({ role: "toolResult", content: event.partialResult.content } as ToolResultMessage)),
		).toEqual(["10%", "50%"]);
		const types = events.map((event) => event.type);
		expect(types.lastIndexOf("tool_execution_update")).toBeLessThan(types.indexOf("tool_execution_end"));
	});

	it("a length stop executes no call; each gets pi's exact error and the run goes on", async () => {
		const executed: string[] = [];
		const tool = echoTool({
			execute: async (_id, params: { text: string }) => {
				executed.push(params.text);
				return textResult(params.text);
			},
		});
		const { agent, faux } = createTestAgent({ initialState: { tools: [tool] } });
		faux.setResponses([
			fauxAssistantMessage(
				[fauxToolCall("echo", { text: "a" }, { id: "c1" }), fauxToolCall("nope", { text: "b" }, { id: "c2" })],
				{ stopReason: "length" },
			),
			fauxAssistantMessage("retrying"),
		]);
		await agent.prompt("go");
		expect(executed).toEqual([]);
		expect(toolResults(agent.state.messages).map((message) => [textOf(message), message.isError])).toEqual([
			[
				'Tool call "echo" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.',
				true,
			],
			[
				'Tool call "nope" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.',
				true,
			],
		]);
		expect(faux.callCount).toBe(2);
	});

	it("stops after a batch only when every result asks to terminate", async () => {
		const stop = echoTool({ name: "stop", execute: async () => ({ ...textResult("bye"), terminate: true }) });
		const { agent, faux } = createTestAgent({ initialState: { tools: [stop, echoTool()] } });
		faux.setResponses([
			toolUse(fauxToolCall("stop", { text: "" }, { id: "c1" }), fauxToolCall("stop", { text: "" }, { id: "c2" })),
			fauxAssistantMessage("never"),
		]);
		await agent.prompt("go");
		expect(faux.callCount).toBe(1);
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "toolResult", toolCallId: "c2" });

		faux.setResponses([
			toolUse(fauxToolCall("stop", { text: "" }, { id: "c3" }), fauxToolCall("echo", { text: "x" }, { id: "c4" })),
			fauxAssistantMessage("continued"),
		]);
		await agent.prompt("again");
		expect(textOf(agent.state.messages.at(-1))).toBe("continued");
	});

	it("a blocked call with terminate counts towards early termination", async () => {
		const { agent, faux } = createTestAgent({
			initialState: { tools: [echoTool()] },
			beforeToolCall: async () => ({ block: true, reason: "done here", terminate: true }),
		});
		faux.setResponses([toolUse(fauxToolCall("echo", { text: "x" }, { id: "c1" })), fauxAssistantMessage("never")]);
		await agent.prompt("go");
		expect(faux.callCount).toBe(1);
	});

	it("the tool gets a copy of the arguments: mutating params leaves the transcript intact", async () => {
		const tool = echoTool({
			execute: async (_id, params: { text: string }) => {
				params.text = "mutated";
				return textResult(params.text);
			},
		});
		const { agent, faux } = createTestAgent({ initialState: { tools: [tool] } });
		faux.setResponses([toolUse(fauxToolCall("echo", { text: "original" }, { id: "c1" })), fauxAssistantMessage("ok")]);
		await agent.prompt("go");
		expect(agent.state.messages[1]).toMatchObject({ content: [{ arguments: { text: "original" } }] });
	});
});
