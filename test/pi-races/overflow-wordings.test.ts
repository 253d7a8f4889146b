/**
 * pi#5677: an OpenAI-compatible server (vLLM) refused an over-long request with
 * `400 Input length (265330) exceeds model's maximum context length (262144).` pi's overflow check
 * knew `maximum context length is N tokens` and `… of N tokens`, not the number in parentheses, so
 * the error was taken for a plain failure: the session compacted only later and then stopped,
 * waiting for the user to type `continue`. What the user should see: the overflow compacted at
 * once and the request answered, without a word from them.
 *
 * The same for two more OpenAI-compatible texts other harnesses met: GLM behind a LiteLLM hub,
 * `Input length 877338 exceeds the maximum allowed input length of 639968 tokens` with `code:
 * "400"` (NVIDIA-NeMo/Switchyard#314: the overflow fallback never ran), and Zhipu's error 1261,
 * `Prompt 超长` (open-octo/octo-agent#2124: the turn failed instead of compacting).
 *
 * A whole session on pi-ai's OpenAI client against a local server, its JSONL on disk.
 */
import { describe, expect, it } from "vitest";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { json, type RecordedRequest, type Router } from "../llm/wire/server.js";
import {
	expectOverflowCompactedAndAnswered,
	lastAssistant,
	useWireSession,
	type WireSession,
} from "../llm/wire/session.js";

const wireSession = useWireSession();

const systemText = (request: RecordedRequest): string => String(request.body?.messages?.[0]?.content ?? "");
const summaries: Router = (request, next) =>
	systemText(request).startsWith("You are a context summarization assistant")
		? chatReply([{ type: "text", text: "## Goal\nwire summary" }])
		: next();

async function overflowedWith(message: string): Promise<WireSession> {
	const session = await wireSession({
		api: "openai-completions",
		route: summaries,
		settings: { compaction: { keepRecentTokens: 1 } },
	});
	session.server.reply(
		chatReply([{ type: "text", text: "first answer" }]),
		openAiError(400, message, "BadRequestError"),
		chatReply([{ type: "text", text: "answer after compaction" }]),
	);
	await session.session.prompt("first question");
	await session.session.prompt("second question");
	return session;
}

describe("pi#5677: an OpenAI-compatible overflow worded 'maximum context length (N)' is not recognized", () => {
	it("pi#5677: `400 Input length (265330) exceeds model's maximum context length (262144).` compacts and re-runs the request; the answer arrives with no further prompt", async () => {
		const w = await overflowedWith("Input length (265330) exceeds model's maximum context length (262144).");

		expectOverflowCompactedAndAnswered(w, "second question");
		expect(w.eventsOf("agent_settled")).toHaveLength(2);
	});

	it("pi#5677: the same words with `of N tokens` (`exceeds the maximum context length of 8192 tokens`) are an overflow too", async () => {
		const w = await overflowedWith("Input exceeds the maximum context length of 8192 tokens");

		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
	});

	it("pi#5677: a 400 naming the model's maximum output (`max_tokens … exceeds the maximum`) is no overflow: one request, the error shown, nothing compacted", async () => {
		const w = await wireSession({ api: "openai-completions", route: summaries });
		w.server.reply(
			openAiError(400, "max_tokens (300000) exceeds the maximum allowed output tokens (32768).", "BadRequestError"),
		);
		await w.session.prompt("hello");

		expect(w.eventsOf("compaction_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "error",
			errorMessage: expect.stringContaining("max_tokens (300000)"),
		});
	});
});

describe("Switchyard#314 / octo-agent#2124: GLM's and Zhipu's overflow texts are not recognized", () => {
	it("Switchyard#314: `Input length 877338 exceeds the maximum allowed input length of 639968 tokens` compacts and re-runs the request", async () => {
		const w = await overflowedWith("Input length 877338 exceeds the maximum allowed input length of 639968 tokens");

		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
	});

	it("octo-agent#2124: Zhipu's `Prompt 超长` (error 1261) compacts and re-runs the request", async () => {
		const w = await overflowedWith("Prompt 超长");

		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
	});
});

describe("opencode#45834 / openclaw#129352: DashScope's and SGLang's overflow texts are not recognized", () => {
	it("opencode#45834: DashScope's `Range of input length should be [1, 129024]` (Qwen, invalid_parameter_error) compacts and re-runs the request", async () => {
		const w = await overflowedWith(
			"<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]",
		);

		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
	});

	it("opencode#45834: DashScope's range error about the output (`Range of max_tokens should be [1, 8192]`) is no overflow: one request, the error shown, nothing compacted", async () => {
		const w = await wireSession({ api: "openai-completions", route: summaries });
		w.server.reply(
			openAiError(
				400,
				"<400> InternalError.Algo.InvalidParameter: Range of max_tokens should be [1, 8192]",
				"invalid_request_error",
			),
		);
		await w.session.prompt("hello");

		expect(w.eventsOf("compaction_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "error",
			errorMessage: expect.stringContaining("max_tokens"),
		});
	});

	it("openclaw#129352: SGLang's `The input (263000 tokens) is longer than the model's context length (262144 tokens).` compacts and re-runs the request", async () => {
		const w = await overflowedWith(
			"The input (263000 tokens) is longer than the model's context length (262144 tokens).",
		);

		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
	});
});

describe("omlx#26: an MLX server's overflow in a `detail` body is not recognized", () => {
	it('omlx#26: `400 {"detail":"Prompt too long: 32799 tokens exceeds max context window of 32768 tokens"}` compacts and re-runs the request', async () => {
		const w = await wireSession({
			api: "openai-completions",
			route: summaries,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			json(400, { detail: "Prompt too long: 32799 tokens exceeds max context window of 32768 tokens" }),
			chatReply([{ type: "text", text: "answer after compaction" }]),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");

		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
	});
});

describe("opencode#17746: vLLM's `the model's context length is only N tokens` is not recognized", () => {
	it("opencode#17746: `You passed 99073 input tokens and requested 32000 output tokens. However, the model's context length is only 131072 tokens…` (code context_length_exceeded) compacts and re-runs the request", async () => {
		const w = await wireSession({
			api: "openai-completions",
			route: summaries,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			openAiError(
				400,
				"You passed 99073 input tokens and requested 32000 output tokens. However, the model's context length is only 131072 tokens, resulting in a maximum input length of 99072 tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=99073)",
				"invalid_request_error",
				"context_length_exceeded",
			),
			chatReply([{ type: "text", text: "answer after compaction" }]),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");

		expectOverflowCompactedAndAnswered(w, "second question");
	});
});

describe("kimi-code#1862: Kimi's request size limit (`total message size N exceeds limit M`) is not recognized", () => {
	it("kimi-code#1862: `400 total message size 2100954 exceeds limit 2097152` (at 770k tokens of a 1M window) compacts and re-runs the request", async () => {
		const w = await overflowedWith("total message size 2100954 exceeds limit 2097152");

		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
		expect(JSON.stringify(w.server.requests.at(-1)!.body.messages)).not.toContain("first question");
	});
});

describe("pi#5930: vLLM's overflow with `you requested 0 output tokens` retried six times instead of compacting", () => {
	it("pi#5930: `400 This model's maximum context length is 262144 tokens. However, you requested 0 output tokens and your prompt contains at least 262145 input tokens…` compacts at once and re-runs the request, no retry of the refusal", async () => {
		const w = await overflowedWith(
			"This model's maximum context length is 262144 tokens. However, you requested 0 output tokens and your prompt contains at least 262145 input tokens, for a total of at least 262145 tokens.",
		);

		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(w.server.requests.filter((request) => !systemText(request).startsWith("You are a context"))).toHaveLength(3);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "answer after compaction" }] });
	});
});
