/**
 * Anthropic Messages over real HTTP: whole Settle sessions through pi-ai's Anthropic provider
 * (the Anthropic SDK) against a local server speaking the streaming protocol.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../../src/llm/types.js";
import { anthropicReply } from "./anthropic.js";
import { API_KEY, useWireSession } from "./session.js";

const wireSession = useWireSession();

describe("Anthropic Messages over HTTP", () => {
	it("a text reply: streamed deltas, usage and cost on the message, session stats, the request the API received", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(
			anthropicReply([{ type: "text", text: "Hello from the wire." }], {
				usage: { input: 1200, output: 7, cacheRead: 300, cacheWrite: 50 },
			}),
		);
		await w.session.prompt("say hello");

		const last = w.session.messages.at(-1) as AssistantMessage;
		expect(last).toMatchObject({
			role: "assistant",
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-wire-1",
			stopReason: "stop",
			content: [{ type: "text", text: "Hello from the wire." }],
			usage: { input: 1200, output: 7, cacheRead: 300, cacheWrite: 50, totalTokens: 1557 },
		});
		expect(last.usage.cost.total).toBeCloseTo((1200 * 3 + 7 * 15 + 300 * 0.3 + 50 * 3.75) / 1e6, 10);
		const deltas = w.events.flatMap((e) =>
			e.type === "message_update" && e.assistantMessageEvent.type === "text_delta"
				? [e.assistantMessageEvent.delta]
				: [],
		);
		expect(deltas).toEqual(["Hello from", " the wire."]);
		expect(w.session.getSessionStats().tokens).toEqual({
			input: 1200,
			output: 7,
			cacheRead: 300,
			cacheWrite: 50,
			total: 1557,
		});

		const [request] = w.server.requests;
		expect(request).toMatchObject({ method: "POST", path: "/v1/messages" });
		expect(request!.headers["x-api-key"]).toBe(API_KEY);
		expect(request!.body).toMatchObject({ model: "claude-wire-1", stream: true });
		expect(request!.body.system[0].text).toBe(w.session.systemPrompt);
		expect(request!.body.messages).toEqual([
			{ role: "user", content: [{ type: "text", text: "say hello", cache_control: { type: "ephemeral" } }] },
		]);
		expect(request!.body.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
			"bash",
			"edit",
			"read",
			"write",
		]);
		const read = request!.body.tools.find((tool: { name: string }) => tool.name === "read");
		expect(read.input_schema).toMatchObject({ type: "object", required: ["path"] });

		// What is on disk: the user message and the assistant message with its usage.
		const messages = w.entries().filter((entry) => entry.type === "message" && entry.message.role !== "system");
		expect(messages.map((entry) => entry.type === "message" && entry.message.role)).toEqual(["user", "assistant"]);
		expect(messages[1]).toMatchObject({ message: { usage: { input: 1200, output: 7 } } });
	});

	it("a tool call with the real read tool, then the follow-up request carries the tool result", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "off" } });
		writeFileSync(join(w.dir, "notes.txt"), "the secret is 42\n");
		w.server.reply(
			anthropicReply(
				[
					{ type: "text", text: "Reading it." },
					{ type: "tool_use", id: "toolu_01Wire", name: "read", input: { path: "notes.txt" } },
				],
				{ stopReason: "tool_use", usage: { input: 500, output: 30 } },
			),
			anthropicReply([{ type: "text", text: "The secret is 42." }], { usage: { input: 560, output: 8 } }),
		);
		await w.session.prompt("what is the secret in notes.txt?");

		expect(w.server.requests).toHaveLength(2);
		const followUp = w.server.requests[1]!.body;
		expect(followUp.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
		expect(followUp.messages[1].content).toEqual([
			{ type: "text", text: "Reading it." },
			{ type: "tool_use", id: "toolu_01Wire", name: "read", input: { path: "notes.txt" } },
		]);
		const [toolResult] = followUp.messages[2].content;
		expect(toolResult).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01Wire", is_error: false });
		expect(JSON.stringify(toolResult.content)).toContain("the secret is 42");

		const conversation = w.session.messages.filter((m) => m.role !== "system");
		expect(conversation.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
		expect(conversation[1]).toMatchObject({ stopReason: "toolUse" });
		expect(w.session.messages.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "The secret is 42." }],
		});
		const stats = w.session.getSessionStats();
		expect(stats).toMatchObject({ assistantMessages: 2, toolCalls: 1, toolResults: 1 });
		expect(stats.tokens).toMatchObject({ input: 1060, output: 38 });
	});

	it("thinking: thinking blocks with their signature land in the message and are sent back on the next turn", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "medium" } });
		w.server.reply(
			anthropicReply(
				[
					{ type: "thinking", thinking: "The user wants a number.", signature: "sig-abc" },
					{ type: "text", text: "7" },
				],
				{ usage: { input: 100, output: 40 } },
			),
			anthropicReply([{ type: "text", text: "8" }]),
		);
		await w.session.prompt("pick a number");
		expect(w.session.messages.at(-1)).toMatchObject({
			content: [
				{ type: "thinking", thinking: "The user wants a number.", thinkingSignature: "sig-abc" },
				{ type: "text", text: "7" },
			],
		});
		expect(w.server.requests[0]!.body.thinking).toMatchObject({ type: "enabled" });
		const thinkingDeltas = w.events.filter(
			(e) => e.type === "message_update" && e.assistantMessageEvent.type === "thinking_delta",
		);
		expect(thinkingDeltas).toHaveLength(2);

		await w.session.prompt("another");
		const replayed = w.server.requests[1]!.body.messages[1];
		expect(replayed).toEqual({
			role: "assistant",
			content: [
				{ type: "thinking", thinking: "The user wants a number.", signature: "sig-abc" },
				{ type: "text", text: "7" },
			],
		});
	});

	it("extension hooks see the real wire: before_provider_request changes the payload sent, after_provider_response gets status and headers", async () => {
		const responses: { status: number; headers: Record<string, string> }[] = [];
		const w = await wireSession({
			api: "anthropic-messages",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [
				(pi) => {
					pi.on("before_provider_request", (event) => ({
						...(event.payload as object),
						metadata: { user_id: "wire-user" },
					}));
					pi.on("after_provider_response", (event) => {
						responses.push({ status: event.status, headers: event.headers });
					});
				},
			],
		});
		w.server.reply(anthropicReply([{ type: "text", text: "ok" }]));
		await w.session.prompt("hi");
		expect(w.server.requests[0]!.body.metadata).toEqual({ user_id: "wire-user" });
		expect(responses).toHaveLength(1);
		expect(responses[0]).toMatchObject({ status: 200, headers: { "content-type": "text/event-stream" } });
	});
});
