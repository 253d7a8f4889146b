/**
 * Persistence through the awaited bridge (C.10 invariants): the log order equals the event order
 * even with slow extensions, a tool call starts only after its assistant message is persisted
 * (also for parallel calls), a message_end replacement is what state, events and the log see,
 * and the reopened file rebuilds the live context.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, fileSummary, reopenedContext, roles } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function textOf(content: readonly { type: string; text?: string }[]): string {
	return content.map((block) => block.text ?? "").join("");
}

function echoTool(onExecute?: () => void): AgentTool {
	return {
		name: "echo",
		label: "Echo",
		description: "Echoes its text",
		parameters: { type: "object", properties: { text: { type: "string" } } },
		async execute(_id, params: { text?: string }) {
			onExecute?.();
			return { content: [{ type: "text", text: `echo: ${params.text ?? ""}` }], details: {} };
		},
	};
}

describe("persistence order", () => {
	it("a slow async message_end handler keeps the log in order: user, assistant, toolResult, assistant", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [echoTool()],
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("message_end", async (event) => {
						await sleep(event.message.role === "assistant" ? 20 : 5);
					}),
			],
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "a" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("echo", { text: "b" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("go");
		expect(fileSummary(h.session.sessionFile!).slice(3)).toEqual([
			"message:system",
			"message:user",
			"message:assistant",
			"message:toolResult",
			"message:assistant",
			"message:toolResult",
			"message:assistant",
		]);
		// The log order is the event order.
		const ended = h.eventsOfType("message_end").map((event) => event.message.role);
		expect(fileSummary(h.session.sessionFile!).slice(3)).toEqual(ended.map((role) => `message:${role}`));
	});

	it("a tool_call hook sees the requesting assistant already persisted, also for parallel calls", async () => {
		const observations: { id: string; persisted: boolean; resultsSoFar: number }[] = [];
		h = await createHarness({
			persistence: "disk",
			tools: [echoTool()],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("message_end", async () => {
						await sleep(5);
					});
					pi.on("tool_call", (event, ctx) => {
						const entries = ctx.sessionManager.getEntries();
						const persisted = entries.some(
							(entry) =>
								entry.type === "message" &&
								entry.message.role === "assistant" &&
								entry.message.content.some((block) => block.type === "toolCall" && block.id === event.toolCallId),
						);
						const resultsSoFar = entries.filter(
							(entry) => entry.type === "message" && entry.message.role === "toolResult",
						).length;
						observations.push({ id: event.toolCallId, persisted, resultsSoFar });
					});
				},
			],
		});
		h.setResponses([
			fauxAssistantMessage(
				[
					fauxToolCall("echo", { text: "1" }, { id: "c1" }),
					fauxToolCall("echo", { text: "2" }, { id: "c2" }),
					fauxToolCall("echo", { text: "3" }, { id: "c3" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("three in parallel");
		expect(observations).toEqual([
			{ id: "c1", persisted: true, resultsSoFar: 0 },
			{ id: "c2", persisted: true, resultsSoFar: 0 },
			{ id: "c3", persisted: true, resultsSoFar: 0 },
		]);
		// Results follow source order in the log.
		const results = h.sessionManager
			.getEntries()
			.flatMap((entry) =>
				entry.type === "message" && entry.message.role === "toolResult" ? [entry.message.toolCallId] : [],
			);
		expect(results).toEqual(["c1", "c2", "c3"]);
	});

	it("every tool result of a turn is persisted before the next model call", async () => {
		const persistedAtCall: number[] = [];
		h = await createHarness({ tools: [echoTool()] });
		const countResults = () =>
			h.sessionManager.getEntries().filter((entry) => entry.type === "message" && entry.message.role === "toolResult")
				.length;
		h.setResponses([
			() => {
				persistedAtCall.push(countResults());
				return fauxAssistantMessage(
					[fauxToolCall("echo", { text: "x" }, { id: "a" }), fauxToolCall("echo", { text: "y" }, { id: "b" })],
					{ stopReason: "toolUse" },
				);
			},
			() => {
				persistedAtCall.push(countResults());
				return fauxAssistantMessage("done");
			},
		]);
		await h.session.prompt("go");
		expect(persistedAtCall).toEqual([0, 2]);
	});
});

describe("tool hooks", () => {
	it("tool_result overrides chain field by field and are what the model and the log get", async () => {
		h = await createHarness({
			tools: [echoTool()],
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("tool_result", (event) => ({ content: [{ type: "text", text: `${textOf(event.content)} +a` }] })),
				(pi: ExtensionAPI) =>
					pi.on("tool_result", (event) => ({
						content: [{ type: "text", text: `${textOf(event.content)} +b` }],
						details: { audited: true },
					})),
			],
		});
		let seenByModel = "";
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" })], { stopReason: "toolUse" }),
			(context) => {
				const result = context.messages.at(-1);
				seenByModel = result?.role === "toolResult" ? textOf(result.content) : "";
				return fauxAssistantMessage("ok");
			},
		]);
		await h.session.prompt("go");
		expect(seenByModel).toBe("echo: x +a +b");
		const logged = h.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "toolResult");
		expect(logged).toMatchObject({ message: { details: { audited: true }, content: [{ text: "echo: x +a +b" }] } });
	});

	it("a tool_call handler may rewrite the validated arguments in place", async () => {
		h = await createHarness({
			tools: [echoTool()],
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("tool_call", (event) => {
						const input = event.input as Record<string, unknown>;
						input.text = `${String(input.text)} (sandboxed)`;
					}),
			],
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "ls" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await h.session.prompt("go");
		expect(h.session.messages.find((message) => message.role === "toolResult")).toMatchObject({
			content: [{ text: "echo: ls (sandboxed)" }],
		});
	});
});

describe("message_end replacement", () => {
	it("is what state, public events and the log all see", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("message_end", (event) => {
						if (event.message.role !== "assistant") return undefined;
						return { message: { ...event.message, content: [{ type: "text", text: "[redacted]" }] } };
					}),
			],
		});
		let listenerSawInState: AgentMessage | undefined;
		h.session.subscribe((event) => {
			if (event.type === "message_end" && event.message.role === "assistant")
				listenerSawInState = h.session.messages.at(-1);
		});
		h.setResponses([fauxAssistantMessage("secret token 1234")]);
		await h.session.prompt("tell me");
		const ended = h.eventsOfType("message_end").find((event) => event.message.role === "assistant")!;
		expect(ended.message).toMatchObject({ content: [{ type: "text", text: "[redacted]" }] });
		expect(listenerSawInState).toBe(ended.message);
		expect(h.session.messages.at(-1)).toBe(ended.message);
		expect(reopenedContext(h.session.sessionFile!).at(-1)).toMatchObject({
			role: "assistant",
			content: [{ type: "text", text: "[redacted]" }],
		});
		expect(JSON.stringify(h.sessionManager.getEntries())).not.toContain("secret token");
	});

	it("a replacement with another role is reported and ignored", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("message_end", (event) =>
						event.message.role === "assistant"
							? { message: { role: "user", content: "nope", timestamp: Date.now() } as AgentMessage }
							: undefined,
					),
			],
		});
		h.setResponses([fauxAssistantMessage("kept")]);
		await h.session.prompt("hi");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "kept" }] });
		expect(h.extensionErrors.map((error) => error.error)).toContain(
			"message_end handlers must return a message with the same role",
		);
	});

	it("regression: a replacement appendMessage would refuse (assistant content 42) is reported and ignored; the reply is saved once", async () => {
		// It used to replace the reply: persisted twice with content 42 and the prompt rejected
		// ("message.content is not iterable"); with appendMessage's shape check it was lost instead.
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("message_end", (event) =>
						event.message.role === "assistant"
							? { message: { ...event.message, content: 42 } as unknown as AgentMessage }
							: undefined,
					),
			],
		});
		h.setResponses([fauxAssistantMessage("kept")]);
		await h.session.prompt("hi");
		const kept = { role: "assistant", content: [{ type: "text", text: "kept" }] };
		expect(h.session.messages.at(-1)).toMatchObject(kept);
		expect(reopenedContext(h.session.sessionFile!).slice(-2)).toMatchObject([{ role: "user" }, kept]);
		expect(h.extensionErrors.map((error) => error.error)).toEqual([
			"A message_end handler's replacement: the assistant message's content must be an array of content blocks (got number 42). " +
				'Pass a list of { type: "text", text }, { type: "image", data, mimeType }, thinking or toolCall blocks. It was ignored.',
		]);
	});
});

describe("reopening the JSONL", () => {
	it("rebuilds the context the live session had (tools, custom messages, bash, errors)", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [echoTool()],
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("before_agent_start", () => ({
						message: { customType: "reminder", content: "Be brief.", display: false },
					})),
			],
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("one"),
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid_request_error: nope" }),
		]);
		await h.session.prompt("first");
		await h.session.executeBash("echo from-bash");
		await h.session.prompt("second");
		const live = h.session.messages;
		expect(roles(live)).toEqual([
			"system",
			"user",
			"custom",
			"assistant",
			"toolResult",
			"assistant",
			"bashExecution",
			"user",
			"custom",
			"assistant",
		]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(live.map(comparable));
	});
});
