/**
 * Anthropic Messages failures as the API sends them, through pi-ai's Anthropic provider into the
 * session's retry (C.4) and overflow compaction (C.5): HTTP 429 / 529 / 500 / 503 / 400 / 401,
 * an SSE `error` event mid-stream, a connection cut mid-stream, a stream without `message_stop`,
 * and `abort()` during a streaming response.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../../src/llm/types.js";
import { anthropicError, anthropicPartial, anthropicReply, anthropicStreamError } from "./anthropic.js";
import { hangUp, type RecordedRequest, type Reply, type Router } from "./server.js";
import { abortAtFirstDelta, lastAssistant, type startWireSession, useWireSession } from "./session.js";

const wireSession = useWireSession();

const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const PROMPT_TOO_LONG = "prompt is too long: 213462 tokens > 200000 maximum";
const RATE_LIMITED = "Number of request tokens has exceeded your per-minute rate limit";

const userTexts = (request: RecordedRequest): string[] =>
	request.body.messages
		.filter((m: { role: string }) => m.role === "user")
		.flatMap((m: { content: string | { type: string; text?: string }[] }) =>
			typeof m.content === "string" ? [m.content] : m.content.flatMap((block) => (block.text ? [block.text] : [])),
		);

/** Summarization requests (compaction) get a checkpoint summary; everything else takes the queue. */
const summaries: Router = (request, next) =>
	String(request.body?.system?.[0]?.text ?? "").startsWith("You are a context summarization assistant")
		? anthropicReply([{ type: "text", text: "## Goal\nwire summary" }])
		: next();

describe("Anthropic errors → session retry", () => {
	it("529 overloaded is retried with backoff; auto_retry_start/end carry the API's error; the retry resends the context", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(
			anthropicError(529, "overloaded_error", "Overloaded"),
			anthropicReply([{ type: "text", text: "finally" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start")).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 1, errorMessage: OVERLOADED },
		]);
		expect(w.eventsOf("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 1 }]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "finally" }] });
		expect(w.server.requests).toHaveLength(2);
		// Same context both times: no duplicated user message, the failed answer is not sent back.
		expect(w.server.requests[1]!.body.messages).toEqual(w.server.requests[0]!.body.messages);
		// The failed attempt stays in the file's history.
		const assistants = w.entries().filter((e) => e.type === "message" && e.message.role === "assistant");
		expect(assistants.map((e) => e.type === "message" && (e.message as AssistantMessage).stopReason)).toEqual([
			"error",
			"stop",
		]);
	});

	it("500 then 503 are retried with exponential backoff (1, 2 ms), then the answer", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(
			anthropicError(500, "api_error", "Internal server error"),
			anthropicError(503, "api_error", "Service Unavailable"),
			anthropicReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(
			w.eventsOf("auto_retry_start").map(({ attempt, delayMs, errorMessage }) => ({ attempt, delayMs, errorMessage })),
		).toEqual([
			{
				attempt: 1,
				delayMs: 1,
				errorMessage: '500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
			},
			{
				attempt: 2,
				delayMs: 2,
				errorMessage: '503 {"type":"error","error":{"type":"api_error","message":"Service Unavailable"}}',
			},
		]);
		expect(w.eventsOf("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 2 }]);
		expect(lastAssistant(w).stopReason).toBe("stop");
	});

	it("retries exhausted: the last API error ends the prompt, auto_retry_end{success:false} names it", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { retry: { baseDelayMs: 1, maxRetries: 2 } } });
		w.server.reply(
			anthropicError(529, "overloaded_error", "Overloaded"),
			anthropicError(529, "overloaded_error", "Overloaded"),
			anthropicError(529, "overloaded_error", "Overloaded"),
		);
		await w.session.prompt("hello");
		expect(w.server.requests).toHaveLength(3);
		expect(w.eventsOf("auto_retry_start").map((e) => e.attempt)).toEqual([1, 2]);
		expect(w.eventsOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 2, finalError: OVERLOADED },
		]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "error", errorMessage: OVERLOADED });
	});

	it("429 rate_limit_error is retried by the session when the SDK's own retries are off", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(
			anthropicError(429, "rate_limit_error", RATE_LIMITED, { "retry-after": "0" }),
			anthropicReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start")).toMatchObject([
			{
				attempt: 1,
				errorMessage: `429 {"type":"error","error":{"type":"rate_limit_error","message":"${RATE_LIMITED}"}}`,
			},
		]);
		expect(lastAssistant(w).stopReason).toBe("stop");
	});

	it("with the SDK's default transport retries, a 429 with retry-after is retried inside the request (no session retry)", async () => {
		const w = await wireSession({ api: "anthropic-messages", sdkMaxRetries: undefined });
		w.server.reply(
			anthropicError(429, "rate_limit_error", RATE_LIMITED, { "retry-after": "0" }),
			anthropicReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.server.requests).toHaveLength(2);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.session.messages.filter((m) => m.role === "assistant")).toMatchObject([{ stopReason: "stop" }]);
	});

	it("regression: retry.provider.maxRetries reaches the provider SDK (0: the 529 comes back to the session's retry)", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			sdkMaxRetries: undefined,
			settings: { retry: { baseDelayMs: 1, provider: { maxRetries: 0 } } },
		});
		w.server.reply(
			anthropicError(529, "overloaded_error", "Overloaded", { "retry-after": "0" }),
			anthropicReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.server.requests).toHaveLength(2);
		expect(w.eventsOf("auto_retry_start")).toMatchObject([{ attempt: 1, errorMessage: OVERLOADED }]);
		expect(lastAssistant(w).stopReason).toBe("stop");
	});

	it("regression: before_provider_headers handlers set the HTTP headers of the request", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			extensionFactories: [
				(pi) =>
					pi.on("before_provider_headers", (event) => {
						event.headers["x-wire-tenant"] = "acme";
					}),
			],
		});
		w.server.reply(anthropicReply([{ type: "text", text: "ok" }]));
		await w.session.prompt("hello");
		expect(w.server.requests[0]!.headers["x-wire-tenant"]).toBe("acme");
	});

	it("401 authentication_error is not retried and ends the prompt with the API's message", async () => {
		const w = await wireSession({ api: "anthropic-messages", sdkMaxRetries: undefined });
		w.server.reply(anthropicError(401, "authentication_error", "invalid x-api-key"));
		await w.session.prompt("hello");
		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "error",
			// The API's text, then where the refused key came from (codewhale#2665).
			errorMessage:
				'401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}\n\n' +
				'anthropic answered 401 to the key stored for anthropic in auth.json, which comes before ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY and models.json: replace or remove its "anthropic" entry in auth.json.',
		});
	});

	it("an SSE error event mid-stream (overloaded_error) is retried; the partial text is not kept in the context", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(
			anthropicStreamError("overloaded_error", "Overloaded", [{ type: "text", text: "half an ans" }]),
			anthropicReply([{ type: "text", text: "whole answer" }]),
		);
		await w.session.prompt("hello");
		const [start] = w.eventsOf("auto_retry_start");
		expect(start?.errorMessage).toBe('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
		expect(w.server.requests[1]!.body.messages).toEqual(w.server.requests[0]!.body.messages);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "whole answer" }] });
	});

	it("a connection cut mid-stream is retried", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(
			anthropicPartial([{ type: "text", text: "cut off here" }], 4, "cut"),
			anthropicReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start")).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "ok" }] });
	});

	it("bug: a stream that ended before message_stop was fatal; it is a cut connection and is retried (pi #4433)", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(
			anthropicPartial([{ type: "text", text: "no end" }], 5, "end"),
			anthropicReply([{ type: "text", text: "ok" }]),
		);
		await w.session.prompt("hello");
		expect(w.eventsOf("auto_retry_start").map((e) => e.errorMessage)).toEqual([
			"Anthropic stream ended before message_stop",
		]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "ok" }] });
	});
});

describe("Anthropic 400 prompt is too long → overflow compaction", () => {
	it("compacts the history, then re-runs the request, which now fits", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			route: summaries,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "first answer" }]),
			anthropicReply([{ type: "text", text: "second answer" }]),
			anthropicError(400, "invalid_request_error", PROMPT_TOO_LONG),
			anthropicReply([{ type: "text", text: "answer after compaction" }]),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");
		await w.session.prompt("third question");

		expect(w.eventsOf("compaction_start")).toEqual([{ type: "compaction_start", reason: "overflow" }]);
		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "answer after compaction" }],
		});
		const answers = w.server.requests.filter((r) => !String(r.body.system?.[0]?.text).startsWith("You are a context"));
		expect(answers).toHaveLength(4);
		// The re-run starts from the summary, not the old exchanges, and still asks the third question.
		const rerun = userTexts(answers[3]!).join("\n");
		expect(rerun).toContain("wire summary");
		expect(rerun).not.toContain("first question");
		expect(rerun).toContain("third question");
		expect(w.entries().filter((e) => e.type === "compaction")).toHaveLength(1);
	});
});

describe("Anthropic 429 `Extra usage is required for long context requests` (a 1M-context model without the plan)", () => {
	const LONG_CONTEXT = "Extra usage is required for long context requests.";

	/** Two prompts; the second's request refused with the 429, then `afterCompaction` answers the re-run. */
	async function refusedOnce(afterCompaction: Reply) {
		const w = await wireSession({
			api: "anthropic-messages",
			route: summaries,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "first answer" }]),
			anthropicError(429, "rate_limit_error", LONG_CONTEXT),
			afterCompaction,
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");
		return w;
	}

	it("hermes-agent#4747: it is no rate limit: not retried (opencode looped on it), the history compacted below the plan's window and the request re-run", async () => {
		const w = await refusedOnce(anthropicReply([{ type: "text", text: "answer after compaction" }]));

		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "answer after compaction" }],
		});
		const answers = w.server.requests.filter((r) => !String(r.body.system?.[0]?.text).startsWith("You are a context"));
		expect(answers).toHaveLength(3);
		const rerun = userTexts(answers[2]!).join("\n");
		expect(rerun).toContain("wire summary");
		expect(rerun).toContain("second question");
	});

	it("hermes-agent#4747: refused again after the compaction (the plan refuses even a short request): the prompt ends with the provider's words, one compaction, no retries", async () => {
		const w = await refusedOnce(anthropicError(429, "rate_limit_error", LONG_CONTEXT));

		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.eventsOf("compaction_start")).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "error",
			errorMessage: expect.stringContaining(LONG_CONTEXT),
		});
		const answers = w.server.requests.filter((r) => !String(r.body.system?.[0]?.text).startsWith("You are a context"));
		expect(answers).toHaveLength(3);
	});
});

describe("abort() during a streaming Anthropic response", () => {
	it("closes the HTTP request and persists the partial assistant message as aborted", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(anthropicPartial([{ type: "text", text: "streaming forever" }], 4, "hang"));
		await abortAtFirstDelta(w, "go");
		expect(w.server.closedByClient).toHaveLength(1);
		const last = lastAssistant(w);
		expect(last).toMatchObject({ stopReason: "aborted", content: [{ type: "text", text: "streaming" }] });
		const persisted = w.entries().findLast((e) => e.type === "message" && e.message.role === "assistant");
		expect(persisted).toMatchObject({
			message: { stopReason: "aborted", content: [{ type: "text", text: "streaming" }] },
		});
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
	});
});

/** A wire session on a 64k-output Anthropic model (pi-ai asks for 32000), thinking off, every turn compactable. */
function startCapSession(): ReturnType<typeof startWireSession> {
	return wireSession({
		api: "anthropic-messages",
		route: summaries,
		model: { maxTokens: 64_000 },
		settings: { defaultThinkingLevel: "off", compaction: { keepRecentTokens: 1 } },
	});
}

describe("Anthropic answers cut by the output cap (stop_reason max_tokens)", () => {
	it("bug: an answer that used all of pi-ai's default max_tokens (32000) was taken for a context-full truncation and compacted", async () => {
		// A 64k-output model: pi-ai asks for min(maxTokens, 32000) = 32000 output tokens. Hitting that cap
		// is the output limit, not a full context; nothing to compact, the answer stands. The input
		// leaves room in the 200k window for the 32000 asked for but not for the model's 64000, so
		// judging the stop against model.maxTokens would call it cut by the window.
		const w = await startCapSession();
		w.server.reply(
			anthropicReply([{ type: "text", text: "short" }]),
			anthropicReply([{ type: "text", text: "a very long answer, cut" }], {
				stopReason: "max_tokens",
				usage: { input: 140_000, output: 32_000 },
			}),
		);
		await w.session.prompt("first");
		await w.session.prompt("write a lot");
		expect(w.server.requests[1]!.body.max_tokens).toBe(32_000);
		expect(w.eventsOf("compaction_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(2);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "length",
			content: [{ type: "text", text: "a very long answer, cut" }],
		});
	});

	it("a max_tokens stop far below the requested cap, its input leaving less room than the cap, is still recovered like an overflow (compact, re-run)", async () => {
		const w = await startCapSession();
		// 190000 input tokens in the 200k window leave 10000 of the 32000 asked for: the window cut it.
		w.server.reply(
			anthropicReply([{ type: "text", text: "short" }]),
			anthropicReply([{ type: "text", text: "cut" }], {
				stopReason: "max_tokens",
				usage: { input: 190_000, output: 12 },
			}),
			anthropicReply([{ type: "text", text: "whole answer" }]),
		);
		await w.session.prompt("first");
		await w.session.prompt("second");
		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "whole answer" }] });
	});

	it("pi#9793: a max_tokens stop far below the requested cap with room for the whole cap is not compacted (the window did not cut it)", async () => {
		const w = await startCapSession();
		w.server.reply(
			anthropicReply([{ type: "text", text: "short" }]),
			anthropicReply([{ type: "text", text: "cut" }], { stopReason: "max_tokens", usage: { input: 5000, output: 12 } }),
		);
		await w.session.prompt("first");
		await w.session.prompt("second");
		expect(w.eventsOf("compaction_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(2);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "length", content: [{ type: "text", text: "cut" }] });
	});
});

describe("Anthropic 400 'input length and max_tokens exceed context limit'", () => {
	it("bug: the API's input+max_tokens overflow ended the prompt as a fatal error; it is an overflow and is compacted", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			route: summaries,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "first answer" }]),
			anthropicError(
				400,
				"invalid_request_error",
				"input length and `max_tokens` exceed context limit: 188240 + 32000 > 200000, decrease input length or `max_tokens` and try again",
			),
			anthropicReply([{ type: "text", text: "answer after compaction" }]),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");
		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "answer after compaction" }],
		});
	});
});

describe("more of the wire", () => {
	it("a tool call cut mid-arguments is never executed; the retry's complete call is", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "off" } });
		const write = {
			type: "tool_use" as const,
			id: "toolu_01Write",
			name: "write",
			input: { path: "out.txt", content: "written once" },
		};
		// message_start, ping, content_block_start(tool_use), first half of the JSON — then the connection dies.
		w.server.reply(
			anthropicPartial([write], 4, "cut"),
			anthropicReply([write], { stopReason: "tool_use" }),
			anthropicReply([{ type: "text", text: "done" }]),
		);
		await w.session.prompt("write the file");
		expect(w.eventsOf("auto_retry_start")).toHaveLength(1);
		const toolStarts = w.events.filter((e) => e.type === "tool_execution_start");
		expect(toolStarts).toHaveLength(1);
		expect(readFileSync(join(w.dir, "out.txt"), "utf8")).toBe("written once");
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "done" }] });
	});

	it("real usage near the window triggers threshold compaction after the answer", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			route: summaries,
			settings: { defaultThinkingLevel: "off", compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "first answer" }], { usage: { input: 1000, output: 10 } }),
			anthropicReply([{ type: "text", text: "big answer" }], {
				usage: { input: 150_000, output: 20, cacheRead: 40_000 },
			}),
		);
		await w.session.prompt("first");
		expect(w.eventsOf("compaction_start")).toEqual([]);
		await w.session.prompt("second");
		// 150000 + 40000 + 20 context tokens > 200000 − 16384 reserve.
		expect(w.eventsOf("compaction_start")).toEqual([{ type: "compaction_start", reason: "threshold" }]);
		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "threshold", willRetry: false, aborted: false }]);
		expect(w.entries().filter((e) => e.type === "compaction")).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "big answer" }] });
	});

	it("the endpoint drops the connection before answering: retried, then the prompt ends with the connection error", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { retry: { baseDelayMs: 1, maxRetries: 1 } } });
		w.server.reply(hangUp(), hangUp());
		await w.session.prompt("hello");
		// pi-ai's bare "Connection error.", with the address and the cause the client dropped.
		const dropped = `Connection error: ${w.server.url} closed the connection before answering (UND_ERR_SOCKET: other side closed). Check that the server is still running (its log says why it hung up), and any proxy in between.`;
		expect(w.eventsOf("auto_retry_start")).toMatchObject([{ attempt: 1, errorMessage: dropped }]);
		expect(w.eventsOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: dropped },
		]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "error", errorMessage: dropped });
	});
});
