/**
 * OpenAI Chat Completions over real HTTP: whole Settle sessions through pi-ai's
 * `openai-completions` provider (the OpenAI SDK) against a local server speaking the streaming
 * protocol — answers, tool calls, reasoning, usage; API errors into retry and overflow compaction.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chatPartial, chatReply, chatStreamError, openAiError } from "./openai.js";
import type { RecordedRequest, Router } from "./server.js";
import {
	API_KEY,
	abortAtFirstDelta,
	expectOverflowCompactedAndAnswered,
	lastAssistant,
	useWireSession,
} from "./session.js";

const wireSession = useWireSession();

const systemText = (request: RecordedRequest): string => {
	const first = request.body?.messages?.[0];
	return first && (first.role === "system" || first.role === "developer") ? String(first.content) : "";
};
const summaries: Router = (request, next) =>
	systemText(request).startsWith("You are a context summarization assistant")
		? chatReply([{ type: "text", text: "## Goal\nwire summary" }])
		: next();

const CONTEXT_TOO_LONG =
	"This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.";
const rateLimited = (wait: string) =>
	`Rate limit reached for gpt-wire-1 in organization org-wire on tokens per min (TPM): Limit 30000, Used 29800, Requested 900. Please try again in ${wait}. Visit https://platform.openai.com/account/rate-limits to learn more.`;

describe("OpenAI Chat Completions over HTTP", () => {
	it("a text reply: deltas, usage (cached prompt tokens as cacheRead), stats, and the request: system prompt, tools, stream_options", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(
			chatReply([{ type: "text", text: "Hello over chat completions." }], {
				usage: { prompt: 900, completion: 12, cached: 400 },
			}),
		);
		await w.session.prompt("say hello");
		expect(lastAssistant(w)).toMatchObject({
			api: "openai-completions",
			provider: "openai",
			stopReason: "stop",
			content: [{ type: "text", text: "Hello over chat completions." }],
			usage: { input: 500, output: 12, cacheRead: 400, cacheWrite: 0, totalTokens: 912 },
		});
		expect(w.session.getSessionStats().tokens).toEqual({
			input: 500,
			output: 12,
			cacheRead: 400,
			cacheWrite: 0,
			total: 912,
		});

		const [request] = w.server.requests;
		expect(request).toMatchObject({ method: "POST", path: "/v1/chat/completions" });
		expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
		expect(request!.body).toMatchObject({ model: "gpt-wire-1", stream: true, stream_options: { include_usage: true } });
		expect(systemText(request!)).toBe(w.session.systemPrompt);
		expect(request!.body.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "say hello" }] });
		const tools = request!.body.tools as {
			type: string;
			function: { name: string; parameters: { required?: string[] } };
		}[];
		expect(tools.map((tool) => tool.function.name).sort()).toEqual(["bash", "edit", "read", "write"]);
		expect(tools.find((tool) => tool.function.name === "read")?.function.parameters.required).toEqual(["path"]);
	});

	it("a tool call with the real read tool; the follow-up carries the tool message with the file's content", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		writeFileSync(join(w.dir, "notes.txt"), "the secret is 42\n");
		w.server.reply(
			chatReply([{ type: "tool_call", id: "call_wire1", name: "read", arguments: { path: "notes.txt" } }], {
				finishReason: "tool_calls",
				usage: { prompt: 300, completion: 20 },
			}),
			chatReply([{ type: "text", text: "It is 42." }], { usage: { prompt: 350, completion: 5 } }),
		);
		await w.session.prompt("what is the secret in notes.txt?");
		expect(w.server.requests).toHaveLength(2);
		const messages = w.server.requests[1]!.body.messages as { role: string; [key: string]: unknown }[];
		expect(messages.slice(-2)).toMatchObject([
			{
				role: "assistant",
				tool_calls: [
					{ id: "call_wire1", type: "function", function: { name: "read", arguments: '{"path":"notes.txt"}' } },
				],
			},
			{ role: "tool", tool_call_id: "call_wire1" },
		]);
		expect(JSON.stringify(messages.at(-1))).toContain("the secret is 42");
		const conversation = w.session.messages.filter((m) => m.role !== "system");
		expect(conversation.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
		expect(conversation[1]).toMatchObject({
			stopReason: "toolUse",
			content: [{ type: "toolCall", id: "call_wire1", name: "read", arguments: { path: "notes.txt" } }],
		});
		expect(w.session.getSessionStats()).toMatchObject({
			toolCalls: 1,
			toolResults: 1,
			tokens: { input: 650, output: 25 },
		});
	});

	it("reasoning deltas (reasoning_content) become a thinking block; the request carries reasoning_effort", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "high" } });
		w.server.reply(
			chatReply([
				{ type: "reasoning", text: "Two plus two is four." },
				{ type: "text", text: "4" },
			]),
		);
		await w.session.prompt("2+2?");
		expect(lastAssistant(w).content).toEqual([
			{ type: "thinking", thinking: "Two plus two is four.", thinkingSignature: "reasoning_content" },
			{ type: "text", text: "4" },
		]);
		expect(w.server.requests[0]!.body.reasoning_effort).toBe("high");
	});
});

describe("OpenAI Chat Completions errors", () => {
	it("429 'Please try again in 20ms': the session waits what the API asked (delayMs 20), then succeeds", async () => {
		const w = await wireSession({ api: "openai-completions" });
		w.server.reply(
			openAiError(429, rateLimited("20ms"), "tokens", "rate_limit_exceeded", { "retry-after": "1" }),
			chatReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start")).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 20, errorMessage: `429 ${rateLimited("20ms")}` },
		]);
		expect(w.eventsOf("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 1 }]);
		expect(lastAssistant(w).stopReason).toBe("stop");
	});

	it("429 asking for longer than retry.maxAgentDelayMs: no retry, the prompt ends with the API's error", async () => {
		const w = await wireSession({
			api: "openai-completions",
			settings: { retry: { baseDelayMs: 1, maxAgentDelayMs: 1000 } },
		});
		w.server.reply(openAiError(429, rateLimited("20s"), "tokens", "rate_limit_exceeded", { "retry-after": "20" }));
		await w.session.prompt("hello");
		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "error", errorMessage: `429 ${rateLimited("20s")}` });
	});

	it("429 insufficient_quota is not retried (waiting does not refill a quota)", async () => {
		const w = await wireSession({ api: "openai-completions" });
		const quota = "You exceeded your current quota, please check your plan and billing details.";
		w.server.reply(openAiError(429, quota, "insufficient_quota", "insufficient_quota"));
		await w.session.prompt("hello");
		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "error", errorMessage: `429 ${quota}` });
	});

	it("500 and 503 are retried with backoff", async () => {
		const w = await wireSession({ api: "openai-completions" });
		w.server.reply(
			openAiError(500, "The server had an error while processing your request. Sorry about that!", "server_error"),
			openAiError(503, "The engine is currently overloaded, please try again later", "server_error"),
			chatReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start").map(({ attempt, delayMs }) => ({ attempt, delayMs }))).toEqual([
			{ attempt: 1, delayMs: 1 },
			{ attempt: 2, delayMs: 2 },
		]);
		expect(w.eventsOf("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 2 }]);
		expect(lastAssistant(w).stopReason).toBe("stop");
	});

	it("401 invalid_api_key is not retried", async () => {
		const w = await wireSession({ api: "openai-completions", sdkMaxRetries: undefined });
		const message =
			"Incorrect API key provided: sk-wire-***-key. You can find your API key at https://platform.openai.com/account/api-keys.";
		w.server.reply(openAiError(401, message, "invalid_request_error", "invalid_api_key"));
		await w.session.prompt("hello");
		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		// The API's text, then where the refused key came from (codewhale#2665).
		const keyNote =
			'openai answered 401 to the key stored for openai in auth.json, which comes before OPENAI_API_KEY and models.json: replace or remove its "openai" entry in auth.json.';
		expect(lastAssistant(w)).toMatchObject({ stopReason: "error", errorMessage: `401 ${message}\n\n${keyNote}` });
	});

	it("an error object mid-stream (server_error) is retried", async () => {
		const w = await wireSession({ api: "openai-completions" });
		const text =
			"The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error.";
		w.server.reply(
			chatStreamError(text, "server_error", [{ type: "text", text: "partial" }]),
			chatReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start").map((e) => e.errorMessage)).toEqual([text]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "ok" }] });
	});

	it("a connection cut mid-stream is retried", async () => {
		const w = await wireSession({ api: "openai-completions" });
		w.server.reply(
			chatPartial([{ type: "text", text: "cut off here" }], 2, "cut"),
			chatReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start")).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "ok" }] });
	});

	it("a stream that ends without finish_reason or [DONE] is a failed attempt, retried (pi-ai 0.73.1 took it for the answer; later pi-ai fails it too)", async () => {
		const w = await wireSession({ api: "openai-completions" });
		w.server.reply(
			chatPartial([{ type: "text", text: "no end" }], 2, "end"),
			chatReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start").map((e) => e.errorMessage)).toEqual(["Stream ended without finish_reason"]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "ok" }] });
	});

	it("400 context_length_exceeded compacts the history, then re-runs the request", async () => {
		const w = await wireSession({
			api: "openai-completions",
			route: summaries,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			chatReply([{ type: "text", text: "second answer" }]),
			openAiError(400, CONTEXT_TOO_LONG, "invalid_request_error", "context_length_exceeded"),
			chatReply([{ type: "text", text: "answer after compaction" }]),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");
		await w.session.prompt("third question");
		expectOverflowCompactedAndAnswered(w, "third question");
	});

	it("abort() during the stream closes the HTTP request; the partial answer is persisted as aborted", async () => {
		const w = await wireSession({ api: "openai-completions" });
		w.server.reply(chatPartial([{ type: "text", text: "streaming forever" }], 2, "hang"));
		await abortAtFirstDelta(w, "go");
		expect(lastAssistant(w)).toMatchObject({ stopReason: "aborted", content: [{ type: "text", text: "streaming" }] });
		const persisted = w.entries().findLast((e) => e.type === "message" && e.message.role === "assistant");
		expect(persisted).toMatchObject({
			message: { stopReason: "aborted", content: [{ type: "text", text: "streaming" }] },
		});
	});
});
