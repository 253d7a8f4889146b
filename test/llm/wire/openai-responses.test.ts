/**
 * OpenAI Responses over real HTTP: whole Settle sessions through pi-ai's `openai-responses`
 * provider (the OpenAI SDK) against a local server speaking the Responses streaming protocol.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openAiError } from "./openai.js";
import { responsesFailed, responsesPartial, responsesReply } from "./responses.js";
import type { Router } from "./server.js";
import { API_KEY, abortAtFirstDelta, lastAssistant, useWireSession } from "./session.js";

const wireSession = useWireSession();

const summaries: Router = (request, next) =>
	String(request.body?.input?.[0]?.content ?? "").startsWith("You are a context summarization assistant")
		? responsesReply([{ type: "message", text: "## Goal\nwire summary" }])
		: next();
const CONTEXT_WINDOW = "Your input exceeds the context window of this model. Please adjust your input and try again.";

describe("OpenAI Responses over HTTP", () => {
	it("reasoning summary and text, usage with cached input, the request's instructions and tools", async () => {
		const w = await wireSession({ api: "openai-responses", settings: { defaultThinkingLevel: "medium" } });
		w.server.reply(
			responsesReply(
				[
					{ type: "reasoning", summary: "Thinking about greetings." },
					{ type: "message", text: "Hello via Responses." },
				],
				{ input: 1000, output: 30, cached: 600 },
			),
		);
		await w.session.prompt("say hello");
		expect(lastAssistant(w)).toMatchObject({
			api: "openai-responses",
			stopReason: "stop",
			content: [
				{ type: "thinking", thinking: "Thinking about greetings." },
				{ type: "text", text: "Hello via Responses." },
			],
			usage: { input: 400, output: 30, cacheRead: 600, totalTokens: 1030 },
		});
		expect(w.session.getSessionStats().tokens).toMatchObject({ input: 400, output: 30, cacheRead: 600 });
		const [request] = w.server.requests;
		expect(request).toMatchObject({ method: "POST", path: "/v1/responses" });
		expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
		expect(request!.body).toMatchObject({ model: "gpt-wire-1", stream: true, reasoning: { effort: "medium" } });
		expect(request!.body.input[0]).toMatchObject({ content: w.session.systemPrompt });
		expect(request!.body.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
			"bash",
			"edit",
			"read",
			"write",
		]);
	});

	it("a function call with the real read tool; the follow-up input carries function_call_output", async () => {
		const w = await wireSession({ api: "openai-responses", settings: { defaultThinkingLevel: "off" } });
		writeFileSync(join(w.dir, "notes.txt"), "the secret is 42\n");
		w.server.reply(
			responsesReply([{ type: "function_call", callId: "call_wire1", name: "read", arguments: { path: "notes.txt" } }]),
			responsesReply([{ type: "message", text: "It is 42." }]),
		);
		await w.session.prompt("what is the secret in notes.txt?");
		expect(w.server.requests).toHaveLength(2);
		const input = w.server.requests[1]!.body.input as { type?: string; call_id?: string; output?: unknown }[];
		expect(input.find((item) => item.type === "function_call")).toMatchObject({ call_id: "call_wire1", name: "read" });
		const output = input.find((item) => item.type === "function_call_output");
		expect(output).toMatchObject({ call_id: "call_wire1" });
		expect(JSON.stringify(output)).toContain("the secret is 42");
		expect(w.session.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
		]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "It is 42." }] });
	});
});

describe("OpenAI Responses errors", () => {
	it("response.failed (server_error) after the stream began is retried", async () => {
		const w = await wireSession({ api: "openai-responses" });
		w.server.reply(
			responsesFailed("server_error", "The server had an error while processing your request."),
			responsesReply([{ type: "message", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start").map((e) => e.errorMessage)).toEqual([
			"server_error: The server had an error while processing your request.",
		]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "ok" }] });
	});

	it("400 context_length_exceeded compacts, then re-runs", async () => {
		const w = await wireSession({
			api: "openai-responses",
			route: summaries,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			responsesReply([{ type: "message", text: "first answer" }]),
			responsesReply([{ type: "message", text: "second answer" }]),
			openAiError(400, CONTEXT_WINDOW, "invalid_request_error", "context_length_exceeded"),
			responsesReply([{ type: "message", text: "answer after compaction" }]),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");
		await w.session.prompt("third question");
		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
		const rerun = JSON.stringify(w.server.requests.at(-1)!.body.input);
		expect(rerun).toContain("wire summary");
		expect(rerun).not.toContain("first question");
	});

	it("abort() mid-stream closes the HTTP request; the partial text is persisted as aborted", async () => {
		const w = await wireSession({ api: "openai-responses" });
		w.server.reply(responsesPartial([{ type: "message", text: "streaming forever" }], 6, "hang"));
		await abortAtFirstDelta(w, "go");
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "aborted",
			content: [{ type: "text", text: "streaming forever" }],
		});
		const persisted = w.entries().findLast((e) => e.type === "message" && e.message.role === "assistant");
		expect(persisted).toMatchObject({ message: { stopReason: "aborted" } });
	});
});
