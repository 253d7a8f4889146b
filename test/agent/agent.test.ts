import { describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/types.js";
import { SettleError } from "../../src/errors.js";
import type { AssistantMessage, Message } from "../../src/llm/types.js";
import { agentEventViolations, fauxAssistantMessage, fauxText, fauxToolCall } from "../../src/testing/index.js";
import { createTestAgent, deferred, echoTool, textOf, user } from "./helpers.js";

describe("Agent event order", () => {
	it("a text reply: prompt message, streamed assistant, turn_end, agent_end", async () => {
		const { agent, faux, events, types } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("Hello there, how can I help you today?")]);
		await agent.prompt("hi");
		expect(types()).toEqual([
			"agent_start",
			"turn_start",
			"message_start",
			"message_end",
			"message_start",
			"message_update*",
			"message_end",
			"turn_end",
			"agent_end",
		]);
		expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(textOf(agent.state.messages[1])).toBe("Hello there, how can I help you today?");
		const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
		expect(end.messages).toEqual(agent.state.messages);
		expect(agent.state.isStreaming).toBe(false);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("a tool turn: tool execution, tool result message, then the next model call", async () => {
		const { agent, faux, types, events } = createTestAgent({ initialState: { tools: [echoTool()] } });
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "ping" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await agent.prompt("echo ping");
		expect(types()).toEqual([
			"agent_start",
			"turn_start",
			"message_start",
			"message_end",
			"message_start",
			"message_update*",
			"message_end",
			"tool_execution_start",
			"tool_execution_end",
			"message_start",
			"message_end",
			"turn_end",
			"turn_start",
			"message_start",
			"message_update*",
			"message_end",
			"turn_end",
			"agent_end",
		]);
		const toolResult = agent.state.messages[2];
		expect(toolResult).toMatchObject({
			role: "toolResult",
			toolCallId: "c1",
			toolName: "echo",
			content: [{ type: "text", text: "ping" }],
			isError: false,
		});
		const firstTurnEnd = events.find((event) => event.type === "turn_end") as Extract<AgentEvent, { type: "turn_end" }>;
		expect(firstTurnEnd.toolResults).toEqual([toolResult]);
		expect(faux.requests[1]!.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("awaits listeners in subscription order, with state already reduced", async () => {
		const { agent, faux } = createTestAgent({ initialState: { tools: [echoTool()] } });
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		const log: string[] = [];
		agent.subscribe(async (event) => {
			log.push(`first:${event.type}`);
			await new Promise((resolve) => setTimeout(resolve, 0));
			log.push(`first-done:${event.type}`);
		});
		agent.subscribe((event) => {
			log.push(`second:${event.type}`);
			if (event.type === "message_end") expect(agent.state.messages.at(-1)).toBe(event.message);
			if (event.type === "tool_execution_start") expect(agent.state.pendingToolCalls.has("c1")).toBe(true);
			if (event.type === "tool_execution_end") expect(agent.state.pendingToolCalls.has("c1")).toBe(false);
			if (event.type === "message_update") expect(agent.state.streamingMessage).toBe(event.message);
		});
		await agent.prompt("go");
		const agentStart = log.indexOf("first:agent_start");
		expect(log.slice(agentStart, agentStart + 3)).toEqual([
			"first:agent_start",
			"first-done:agent_start",
			"second:agent_start",
		]);
		for (let index = 0; index < log.length; index += 3) {
			const type = log[index]!.slice("first:".length);
			expect(log.slice(index, index + 3)).toEqual([`first:${type}`, `first-done:${type}`, `second:${type}`]);
		}
	});

	it("waitForIdle resolves only after agent_end listeners finish", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("ok")]);
		const gate = deferred();
		let listenerDone = false;
		agent.subscribe(async (event) => {
			if (event.type === "agent_end") {
				await gate.promise;
				listenerDone = true;
			}
		});
		const prompted = agent.prompt("hi");
		let idle = false;
		const waited = agent.waitForIdle().then(() => {
			idle = true;
		});
		await vi.waitFor(() => expect(agent.state.messages).toHaveLength(2));
		expect(idle).toBe(false);
		expect(agent.state.isStreaming).toBe(true);
		gate.resolve();
		await waited;
		expect(listenerDone).toBe(true);
		expect(agent.state.isStreaming).toBe(false);
		await prompted;
	});

	it("a text prompt with images becomes one user message", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("ok")]);
		await agent.prompt("look", [{ type: "image", data: "AAAA", mimeType: "image/png" }]);
		expect(agent.state.messages[0]).toMatchObject({
			role: "user",
			content: [
				{ type: "text", text: "look" },
				{ type: "image", data: "AAAA", mimeType: "image/png" },
			],
		});
	});

	it("without a stream function, the model call ends with an error saying what to pass", async () => {
		const agent = new Agent();
		await agent.prompt("hi");
		expect(agent.state.errorMessage).toContain("No stream function configured");
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
	});
});

describe("Agent prompt / continue / reset rules", () => {
	it("rejects prompt, continue and reset while a run is active, with pi's texts", async () => {
		const { agent, faux } = createTestAgent();
		const gate = deferred<AssistantMessage>();
		faux.setResponses([() => gate.promise]);
		const running = agent.prompt("hi");
		await expect(agent.prompt("again")).rejects.toThrow(
			"Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.",
		);
		await expect(agent.continue()).rejects.toThrow(
			"Agent is already processing. Wait for completion before continuing.",
		);
		expect(() => agent.reset()).toThrow("Agent is already processing. Wait for completion before resetting.");
		const busy = await agent.prompt("x").catch((error: unknown) => error);
		expect(busy).toBeInstanceOf(SettleError);
		expect((busy as SettleError).code).toBe("BUSY");
		gate.resolve(fauxAssistantMessage("ok"));
		await running;
	});

	it("continue rejects on an empty transcript and on one holding only system messages", async () => {
		const { agent } = createTestAgent();
		await expect(agent.continue()).rejects.toThrow("No messages to continue from");
		agent.state.messages = [{ role: "system", content: "You are nice.", timestamp: 1 }];
		await expect(agent.continue()).rejects.toThrow("No messages to continue from");
	});

	it("continue from an assistant message with empty queues rejects", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("ok")]);
		await agent.prompt("hi");
		await expect(agent.continue()).rejects.toThrow("Cannot continue from message role: assistant");
	});

	it("continue from a user message runs a continuation without new prompt messages", async () => {
		const { agent, faux, types } = createTestAgent({ initialState: { messages: [user("pending question")] } });
		faux.setResponses([fauxAssistantMessage("answer")]);
		await agent.continue();
		expect(types()).toEqual([
			"agent_start",
			"turn_start",
			"message_start",
			"message_update*",
			"message_end",
			"turn_end",
			"agent_end",
		]);
		expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
	});

	it("continue from an assistant message runs queued steering first (one batch, no second initial poll)", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("first")]);
		await agent.prompt("hi");
		agent.steer(user("steer 1"));
		agent.steer(user("steer 2"));
		agent.followUp(user("follow"));
		faux.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b"), fauxAssistantMessage("c")]);
		await agent.continue();
		expect(agent.state.messages.slice(2).map((message) => textOf(message))).toEqual([
			"steer 1",
			"a",
			"steer 2",
			"b",
			"follow",
			"c",
		]);
	});

	it("continue from an assistant message runs a queued follow-up when no steering is queued", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("second")]);
		await agent.prompt("hi");
		agent.followUp(user("and then?"));
		await agent.continue();
		expect(agent.state.messages.map((message) => textOf(message))).toEqual(["hi", "first", "and then?", "second"]);
	});

	it("reset clears transcript, queues and error but keeps the latest system message", async () => {
		const system = { role: "system" as const, content: "baseline", timestamp: 1 };
		const { agent, faux } = createTestAgent({ initialState: { messages: [system] } });
		faux.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "boom" })]);
		await agent.prompt("hi");
		agent.steer(user("s"));
		agent.followUp(user("f"));
		expect(agent.state.errorMessage).toBe("boom");
		agent.reset();
		expect(agent.state.messages).toEqual([system]);
		expect(agent.hasQueuedMessages()).toBe(false);
		expect(agent.state.errorMessage).toBeUndefined();
	});
});

describe("steering and follow-up", () => {
	function slowEchoAgent(options: Parameters<typeof createTestAgent>[0] = {}) {
		const gate = deferred();
		const started = deferred();
		const tool = echoTool({
			execute: async (_id, params: { text: string }) => {
				started.resolve();
				await gate.promise;
				return { content: [{ type: "text", text: params.text }], details: {} };
			},
		});
		const harness = createTestAgent({ ...options, initialState: { tools: [tool] } });
		return { ...harness, gate, started };
	}

	it("steering queued during a tool turn goes in after the tool results, before the next model call", async () => {
		const { agent, faux, gate, started } = slowEchoAgent();
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			(context) => fauxAssistantMessage(`saw ${context.messages.map((message) => message.role).join(",")}`),
		]);
		const running = agent.prompt("go");
		await started.promise;
		agent.steer(user("actually, stop"));
		gate.resolve();
		await running;
		expect(agent.state.messages.map((message) => textOf(message) || message.role)).toEqual([
			"go",
			"assistant",
			"x",
			"actually, stop",
			"saw user,assistant,toolResult,user",
		]);
	});

	it("one-at-a-time steering gives each message its own model call; all delivers the queue at once", async () => {
		for (const mode of ["one-at-a-time", "all"] as const) {
			const { agent, faux, gate, started } = slowEchoAgent({ steeringMode: mode });
			faux.setResponses([
				fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
				fauxAssistantMessage("r1"),
				fauxAssistantMessage("r2"),
			]);
			const running = agent.prompt("go");
			await started.promise;
			agent.steer(user("s1"));
			agent.steer(user("s2"));
			gate.resolve();
			await running;
			const tail = agent.state.messages.slice(3).map((message) => textOf(message));
			expect(tail).toEqual(mode === "all" ? ["s1", "s2", "r1"] : ["s1", "r1", "s2", "r2"]);
		}
	});

	it("follow-ups wait until the run would otherwise stop", async () => {
		const { agent, faux, gate, started } = slowEchoAgent();
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("after tools"),
			fauxAssistantMessage("after follow-up"),
		]);
		const running = agent.prompt("go");
		await started.promise;
		agent.followUp(user("follow"));
		gate.resolve();
		await running;
		expect(agent.state.messages.slice(3).map((message) => textOf(message))).toEqual([
			"after tools",
			"follow",
			"after follow-up",
		]);
		expect(faux.requests[1]!.messages.some((message) => textOf(message as Message) === "follow")).toBe(false);
	});

	it("follow-up mode all delivers every queued follow-up in one turn", async () => {
		const { agent, faux } = createTestAgent({ followUpMode: "all" });
		faux.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		agent.followUp(user("f1"));
		agent.followUp(user("f2"));
		await agent.prompt("go");
		expect(agent.state.messages.map((message) => textOf(message))).toEqual(["go", "a", "f1", "f2", "b"]);
	});

	it("steering queued while idle is delivered right after the prompt, before the first model call", async () => {
		const { agent, faux } = createTestAgent();
		agent.steer(user("early steer"));
		faux.setResponses([fauxAssistantMessage("ok")]);
		await agent.prompt("go");
		expect(faux.requests[0]!.messages.map((message) => textOf(message as Message))).toEqual(["go", "early steer"]);
	});

	it("peek, has and clear the queues; modes are live", () => {
		const { agent } = createTestAgent();
		expect(agent.hasQueuedMessages()).toBe(false);
		expect(agent.peekQueuedMessages()).toEqual([]);
		const f1 = user("f1");
		const f2 = user("f2");
		agent.followUp(f1);
		agent.followUp(f2);
		expect(agent.peekQueuedMessages()).toEqual([f1]);
		agent.followUpMode = "all";
		expect(agent.followUpMode).toBe("all");
		expect(agent.peekQueuedMessages()).toEqual([f1, f2]);
		const s1 = user("s1");
		agent.steer(s1);
		expect(agent.peekQueuedMessages()).toEqual([s1]);
		agent.clearSteeringQueue();
		expect(agent.peekQueuedMessages()).toEqual([f1, f2]);
		agent.clearFollowUpQueue();
		expect(agent.hasQueuedMessages()).toBe(false);
		agent.steer(s1);
		agent.followUp(f1);
		agent.clearAllQueues();
		expect(agent.hasQueuedMessages()).toBe(false);
	});
});

describe("message_end replacement", () => {
	it("later listeners, state, turn_end and agent_end all see the replacement", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("original")]);
		let replacement: AssistantMessage | undefined;
		const seenByLater: unknown[] = [];
		const seenInState: unknown[] = [];
		let turnEndMessage: unknown;
		let agentEndMessages: unknown[] = [];
		agent.subscribe((event) => {
			if (event.type === "message_end" && event.message.role === "assistant") {
				replacement = { ...event.message, content: [fauxText("redacted")] };
				return { message: replacement };
			}
			return undefined;
		});
		agent.subscribe((event) => {
			if (event.type === "message_end" && event.message.role === "assistant") {
				seenByLater.push(event.message);
				seenInState.push(agent.state.messages.at(-1));
			}
			if (event.type === "turn_end") turnEndMessage = event.message;
			if (event.type === "agent_end") agentEndMessages = event.messages;
		});
		await agent.prompt("hi");
		expect(replacement).toBeDefined();
		expect(seenByLater).toEqual([replacement]);
		expect(seenByLater[0]).toBe(replacement);
		expect(seenInState[0]).toBe(replacement);
		expect(turnEndMessage).toBe(replacement);
		expect(agentEndMessages[1]).toBe(replacement);
		expect(agent.state.messages[1]).toBe(replacement);
		expect(agent.state.messages).toHaveLength(2);
	});

	it("tool calls are taken from the replaced assistant message", async () => {
		const executed: string[] = [];
		const tool = echoTool({
			execute: async (_id, params: { text: string }) => {
				executed.push(params.text);
				return { content: [{ type: "text", text: params.text }], details: {} };
			},
		});
		const { agent, faux } = createTestAgent({ initialState: { tools: [tool] } });
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "original" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		agent.subscribe((event) => {
			if (
				event.type === "message_end" &&
				event.message.role === "assistant" &&
				event.message.stopReason === "toolUse"
			) {
				return {
					message: { ...event.message, content: [fauxToolCall("echo", { text: "replaced" }, { id: "c9" })] },
				};
			}
			return undefined;
		});
		await agent.prompt("go");
		expect(executed).toEqual(["replaced"]);
		expect(agent.state.messages[2]).toMatchObject({ role: "toolResult", toolCallId: "c9" });
	});

	it("a replaced prompt message is what the model receives", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("ok")]);
		agent.subscribe((event) => {
			if (event.type === "message_end" && event.message.role === "user") return { message: user("rewritten") };
			return undefined;
		});
		await agent.prompt("original");
		expect(textOf(faux.requests[0]!.messages[0] as Message)).toBe("rewritten");
		expect(textOf(agent.state.messages[0])).toBe("rewritten");
	});

	it("a replacement with a different role ends the run with a typed error; the agent stays usable", async () => {
		const { agent, faux, events } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("ok"), fauxAssistantMessage("second")]);
		const off = agent.subscribe((event) => {
			if (event.type === "message_end" && event.message.role === "assistant") return { message: user("nope") };
			return undefined;
		});
		await agent.prompt("hi");
		expect(agent.state.errorMessage).toBe(
			'A message_end listener replaced a "assistant" message with a "user" message; a replacement must keep the role.',
		);
		expect(agentEventViolations(events)).toEqual([]);
		off();
		await agent.prompt("again");
		expect(textOf(agent.state.messages.at(-1))).toBe("second");
	});
});

describe("failures become messages", () => {
	it("a stream function that throws synchronously gives an error message", async () => {
		const { agent, events } = createTestAgent({
			streamFn: () => {
				throw new Error("provider exploded");
			},
		});
		await agent.prompt("hi");
		expect(agent.state.messages.at(-1)).toMatchObject({
			role: "assistant",
			stopReason: "error",
			errorMessage: "provider exploded",
		});
		expect(agent.state.errorMessage).toBe("provider exploded");
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("a stream function that rejects gives an error message", async () => {
		const { agent, events } = createTestAgent({ streamFn: async () => Promise.reject(new Error("network down")) });
		await agent.prompt("hi");
		expect(agent.state.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "network down" });
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("a stream whose iteration throws keeps the partial content", async () => {
		const { agent, events } = createTestAgent({
			streamFn: (model) => {
				const partial = fauxAssistantMessage("half", { timestamp: 1 });
				partial.model = model.id;
				return {
					async *[Symbol.asyncIterator]() {
						yield { type: "start" as const, partial };
						throw new Error("connection reset");
					},
					result: () => new Promise<AssistantMessage>(() => {}),
				};
			},
		});
		await agent.prompt("hi");
		expect(agent.state.messages.at(-1)).toMatchObject({
			stopReason: "error",
			errorMessage: "connection reset",
			content: [{ type: "text", text: "half" }],
		});
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("a listener that throws ends the run with a failure message; the agent is usable again", async () => {
		const { agent, faux, events } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("ok"), fauxAssistantMessage("second")]);
		let fail = true;
		agent.subscribe((event) => {
			if (fail && event.type === "message_end" && event.message.role === "assistant") throw new Error("disk full");
		});
		await agent.prompt("hi");
		expect(agent.state.isStreaming).toBe(false);
		expect(agent.state.errorMessage).toBe("disk full");
		const last = agent.state.messages.at(-1);
		expect(last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "disk full" });
		expect(events.at(-1)).toMatchObject({ type: "agent_end", messages: [last] });
		expect(agentEventViolations(events)).toEqual([]);
		fail = false;
		await agent.prompt("again");
		expect(textOf(agent.state.messages.at(-1))).toBe("second");
		expect(agent.state.errorMessage).toBeUndefined();
	});

	it("a listener that throws mid-stream turns the open assistant message into the failure, keeping its content", async () => {
		const { agent, faux, events } = createTestAgent({}, { tokenSize: { min: 1, max: 1 } });
		faux.setResponses([fauxAssistantMessage("a long enough reply to stream in several chunks")]);
		let updates = 0;
		agent.subscribe((event) => {
			if (event.type === "message_update" && ++updates === 3) throw new Error("ui crashed");
		});
		await agent.prompt("hi");
		const last = agent.state.messages.at(-1) as AssistantMessage;
		expect(last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "ui crashed" });
		expect(textOf(last).length).toBeGreaterThan(0);
		expect("a long enough reply to stream in several chunks".startsWith(textOf(last))).toBe(true);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("a listener that throws at agent_end only sets the error; no events follow", async () => {
		const { agent, faux, events } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("ok")]);
		agent.subscribe((event) => {
			if (event.type === "agent_end") throw new Error("late failure");
		});
		await agent.prompt("hi");
		expect(events.filter((event) => event.type === "agent_end")).toHaveLength(1);
		expect(agent.state.errorMessage).toBe("late failure");
		expect(agent.state.messages).toHaveLength(2);
		expect(agent.state.isStreaming).toBe(false);
	});

	it("a hook that throws (transformContext) is closed like pi: failure message, turn_end, agent_end", async () => {
		const { agent, events } = createTestAgent({
			transformContext: () => {
				throw new Error("transform failed");
			},
		});
		await agent.prompt("hi");
		const failure = agent.state.messages.at(-1);
		expect(failure).toMatchObject({
			role: "assistant",
			content: [{ type: "text", text: "" }],
			stopReason: "error",
			errorMessage: "transform failed",
			usage: { totalTokens: 0 },
		});
		expect(events.slice(-4).map((event) => event.type)).toEqual([
			"message_start",
			"message_end",
			"turn_end",
			"agent_end",
		]);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("a listener throwing while parallel tools run aborts the siblings and ends the run", async () => {
		let siblingAborted = false;
		const fast = echoTool({ name: "fast" });
		const slow = echoTool({
			name: "slow",
			execute: (_id, _params, signal) =>
				new Promise((_resolve, reject) => {
					signal?.addEventListener("abort", () => {
						siblingAborted = true;
						reject(new Error("aborted"));
					});
				}),
		});
		const { agent, faux, events } = createTestAgent({ initialState: { tools: [fast, slow] } });
		faux.setResponses([
			fauxAssistantMessage(
				[fauxToolCall("slow", { text: "s" }, { id: "c1" }), fauxToolCall("fast", { text: "f" }, { id: "c2" })],
				{ stopReason: "toolUse" },
			),
		]);
		agent.subscribe((event) => {
			if (event.type === "tool_execution_end" && event.toolCallId === "c2") throw new Error("listener broke");
		});
		await agent.prompt("go");
		expect(siblingAborted).toBe(true);
		expect(agent.state.errorMessage).toBe("listener broke");
		expect(agent.state.pendingToolCalls.size).toBe(0);
		expect(events.at(-1)?.type).toBe("agent_end");
	});
});

describe("abort", () => {
	it("abort during streaming keeps the partial content and ends the run", async () => {
		const { agent, faux, events } = createTestAgent({}, { tokenSize: { min: 1, max: 1 } });
		const text = "x".repeat(400);
		faux.setResponses([fauxAssistantMessage(text)]);
		let updates = 0;
		agent.subscribe((event) => {
			if (event.type === "message_update" && ++updates === 5) agent.abort();
		});
		await agent.prompt("hi");
		const last = agent.state.messages.at(-1) as AssistantMessage;
		expect(last).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
		expect(textOf(last).length).toBeGreaterThanOrEqual(16);
		expect(textOf(last).length).toBeLessThan(text.length);
		expect(agent.state.errorMessage).toBe("Request was aborted");
		expect(agent.state.isStreaming).toBe(false);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("abort while a tool runs: the tool sees the signal, no further model call succeeds", async () => {
		const started = deferred();
		const tool = echoTool({
			execute: (_id, _params, signal) =>
				new Promise((_resolve, reject) => {
					started.resolve();
					signal?.addEventListener("abort", () => reject(new Error("tool stopped")));
				}),
		});
		const { agent, faux, events } = createTestAgent({ initialState: { tools: [tool] } });
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("never"),
		]);
		const running = agent.prompt("go");
		await started.promise;
		agent.abort();
		await running;
		expect(agent.state.messages.map((message) => message.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
		]);
		expect(agent.state.messages[2]).toMatchObject({ isError: true, content: [{ type: "text", text: "tool stopped" }] });
		expect(agent.state.messages[3]).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
		expect(faux.callCount).toBe(1);
		expect(agent.state.pendingToolCalls.size).toBe(0);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("a provider that ignores the signal cannot keep an aborted run alive", async () => {
		const started = deferred();
		const { agent, events } = createTestAgent({
			streamFn: (model) => {
				const partial = fauxAssistantMessage("so far", { timestamp: 1 });
				partial.model = model.id;
				return {
					async *[Symbol.asyncIterator]() {
						yield { type: "start" as const, partial };
						started.resolve();
						await new Promise(() => {});
					},
					result: () => new Promise<AssistantMessage>(() => {}),
				};
			},
		});
		const running = agent.prompt("hi");
		await started.promise;
		agent.abort();
		await running;
		expect(agent.state.messages.at(-1)).toMatchObject({
			stopReason: "aborted",
			errorMessage: "Request was aborted",
			content: [{ type: "text", text: "so far" }],
		});
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("abort() and signal are no-ops while idle", () => {
		const { agent } = createTestAgent();
		expect(agent.signal).toBeUndefined();
		agent.abort();
		expect(agent.state.isStreaming).toBe(false);
	});
});

describe("Agent hooks", () => {
	it("the default convertToLlm keeps only user, assistant and toolResult messages", async () => {
		const { agent, faux } = createTestAgent({
			initialState: {
				messages: [
					{ role: "system", content: "sys", timestamp: 1 },
					{ role: "custom", customType: "note", content: "hidden", display: true, timestamp: 1 },
					user("visible"),
				],
			},
		});
		faux.setResponses([fauxAssistantMessage("ok")]);
		await agent.continue();
		expect(faux.requests[0]!.messages.map((message) => message.role)).toEqual(["user"]);
	});

	it("convertMessageToLlm converts custom roles, once per message", async () => {
		const convert = vi.fn(
			(message: Parameters<NonNullable<ConstructorParameters<typeof Agent>[0]>["convertMessageToLlm"] & object>[0]) =>
				message.role === "custom"
					? { role: "user" as const, content: `[note] ${String(message.content)}`, timestamp: message.timestamp }
					: message.role === "user" || message.role === "assistant" || message.role === "toolResult"
						? message
						: undefined,
		);
		const { agent, faux } = createTestAgent({
			convertMessageToLlm: convert,
			initialState: {
				messages: [{ role: "custom", customType: "note", content: "remember", display: true, timestamp: 1 }],
			},
		});
		faux.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		await agent.prompt("one");
		await agent.prompt("two");
		expect(faux.requests[1]!.messages.map((message) => textOf(message as Message))).toEqual([
			"[note] remember",
			"one",
			"a",
			"two",
		]);
		// Four distinct messages reached the model over two requests; each was converted once.
		expect(convert).toHaveBeenCalledTimes(4);
	});

	it("transformContext shapes the request only; the transcript is unchanged", async () => {
		const { agent, faux } = createTestAgent({
			transformContext: async (messages) => messages.slice(-1),
			initialState: { messages: [user("old"), fauxAssistantMessage("old answer")] },
		});
		faux.setResponses([fauxAssistantMessage("ok")]);
		await agent.prompt("new");
		expect(faux.requests[0]!.messages.map((message) => textOf(message as Message))).toEqual(["new"]);
		expect(agent.state.messages).toHaveLength(4);
	});

	it("getApiKey is asked per model call with the provider; stream options carry session settings", async () => {
		const getApiKey = vi.fn(async (provider: string) => `key-for-${provider}`);
		const { agent, faux } = createTestAgent({ getApiKey, sessionId: "sess-1", initialState: { tools: [echoTool()] } });
		agent.state.thinkingLevel = "high";
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await agent.prompt("hi");
		expect(getApiKey).toHaveBeenCalledTimes(2);
		expect(getApiKey).toHaveBeenCalledWith("faux");
		expect(faux.requests[0]!.options).toEqual({
			apiKey: "key-for-faux",
			sessionId: "sess-1",
			transport: "auto",
			reasoning: "high",
		});
	});

	it("prepareRequest replaces the model for one request; state keeps its model", async () => {
		const { agent, faux } = createTestAgent({}, { models: [{ id: "m1" }, { id: "m2" }] });
		const m2 = faux.getModel("m2")!;
		agent.prepareRequest = ({ context }) => ({ model: m2, context: { ...context, systemPrompt: "routed" } });
		faux.setResponses([fauxAssistantMessage("ok")]);
		await agent.prompt("hi");
		expect(faux.requests[0]!.model.id).toBe("m2");
		expect(faux.requests[0]!.systemPrompt).toBe("routed");
		expect(agent.state.model.id).toBe("m1");
		expect(agent.state.systemPrompt).toBe("You are a test assistant.");
		expect(agent.state.messages[1]).toMatchObject({ model: "m2" });
	});

	it("prepareNextTurn runs before every turn but the first, may add messages and switch the model", async () => {
		const { agent, faux, events } = createTestAgent(
			{ initialState: { tools: [echoTool()] } },
			{ models: [{ id: "m1" }, { id: "m2" }] },
		);
		const calls: string[] = [];
		agent.prepareNextTurn = (turn) => {
			calls.push(textOf(turn.message) || turn.message.stopReason);
			return { model: faux.getModel("m2"), messages: [user("injected")] };
		};
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await agent.prompt("hi");
		expect(calls).toEqual(["toolUse"]);
		expect(faux.requests.map((request) => request.model.id)).toEqual(["m1", "m2"]);
		expect(agent.state.model.id).toBe("m2");
		expect(agent.state.messages.map((message) => textOf(message) || message.role)).toEqual([
			"hi",
			"assistant",
			"x",
			"injected",
			"ok",
		]);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("an async prepareNextTurn is awaited, and steering queued meanwhile goes in before the next model call", async () => {
		const { agent, faux, events } = createTestAgent(
			{ initialState: { tools: [echoTool()] } },
			{ models: [{ id: "m1" }, { id: "m2" }] },
		);
		agent.prepareNextTurn = async () => {
			await Promise.resolve();
			agent.steer(user("steered"));
			return { model: faux.getModel("m2"), messages: [user("injected")] };
		};
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await agent.prompt("hi");
		expect(faux.requests.map((request) => request.model.id)).toEqual(["m1", "m2"]);
		expect(agent.state.messages.map((message) => textOf(message) || message.role)).toEqual([
			"hi",
			"assistant",
			"x",
			"injected",
			"steered",
			"ok",
		]);
		expect(agentEventViolations(events)).toEqual([]);
	});

	it("a prepareNextTurn context replacement becomes the agent's transcript", async () => {
		const { agent, faux } = createTestAgent({ initialState: { tools: [echoTool()] } });
		agent.prepareNextTurn = (turn) => ({
			context: {
				...turn.context,
				systemPrompt: "compacted",
				messages: [user("summary"), ...turn.context.messages.slice(-2)],
			},
		});
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await agent.prompt("hi");
		expect(agent.state.systemPrompt).toBe("compacted");
		expect(agent.state.messages.map((message) => textOf(message) || message.role)).toEqual([
			"summary",
			"assistant",
			"x",
			"ok",
		]);
		expect(faux.requests[1]!.systemPrompt).toBe("compacted");
	});

	it("a model set on state during a run applies from the next turn", async () => {
		const { agent, faux } = createTestAgent(
			{ initialState: { tools: [echoTool()] } },
			{ models: [{ id: "m1" }, { id: "m2" }] },
		);
		agent.subscribe((event) => {
			if (event.type === "tool_execution_start") agent.state.model = faux.getModel("m2")!;
		});
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await agent.prompt("hi");
		expect(faux.requests.map((request) => request.model.id)).toEqual(["m1", "m2"]);
	});

	it("finishTurn runs before turn_end; `end` stops even with tool results pending a model call", async () => {
		const order: string[] = [];
		const { agent, faux } = createTestAgent({ initialState: { tools: [echoTool()] } });
		agent.finishTurn = (turn) => {
			order.push(`finishTurn:${turn.toolResults.length}`);
			return "end";
		};
		agent.subscribe((event) => {
			if (event.type === "turn_end" || event.type === "agent_end") order.push(event.type);
		});
		faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("never"),
		]);
		agent.followUp(user("not now"));
		await agent.prompt("hi");
		expect(order).toEqual(["finishTurn:1", "turn_end", "agent_end"]);
		expect(faux.callCount).toBe(1);
		expect(agent.hasQueuedMessages()).toBe(true);
	});

	it("finishTurn `continue` makes one more context-only model call when the run would stop", async () => {
		const { agent, faux } = createTestAgent();
		let asked = false;
		agent.finishTurn = () => {
			if (asked) return undefined;
			asked = true;
			return "continue";
		};
		faux.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("second")]);
		await agent.prompt("hi");
		expect(agent.state.messages.map((message) => textOf(message))).toEqual(["hi", "first", "second"]);
		expect(faux.requests[1]!.messages).toHaveLength(2);
	});
});
