/**
 * The OpenAI Chat Completions API as it streams
 * (https://platform.openai.com/docs/api-reference/chat-streaming): `data:` lines of
 * `chat.completion.chunk` objects (role, content / reasoning / tool_calls deltas, a chunk with
 * `finish_reason`, a final `choices: []` chunk with `usage` when `stream_options.include_usage`),
 * then `data: [DONE]`; errors as `{"error":{"message","type","param","code"}}`.
 */
import { json, type Reply, type SseEvent, type StreamEnd, sse } from "./server.js";

export type ChatPart =
	| { type: "text"; text: string }
	/** Reasoning text in `delta.reasoning_content` (DeepSeek, llama.cpp, vLLM) or `delta.reasoning` (OpenRouter). */
	| { type: "reasoning"; text: string; field?: "reasoning_content" | "reasoning" }
	| { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown> };

export interface ChatUsage {
	prompt: number;
	completion: number;
	cached?: number;
}

export interface ChatOptions {
	finishReason?: "stop" | "tool_calls" | "length" | "content_filter";
	usage?: ChatUsage;
	model?: string;
}

/** The SSE events of one streamed chat completion, through `[DONE]`. */
export function chatEvents(parts: readonly ChatPart[], options: ChatOptions = {}): SseEvent[] {
	const model = options.model ?? "gpt-wire-1";
	const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): SseEvent => ({
		data: {
			id: "chatcmpl-WireTest",
			object: "chat.completion.chunk",
			created: 1_764_000_000,
			model,
			choices,
			...extra,
		},
	});
	const delta = (value: Record<string, unknown>) =>
		chunk([{ index: 0, delta: value, logprobs: null, finish_reason: null }]);
	const events: SseEvent[] = [delta({ role: "assistant", content: "", refusal: null })];
	let toolIndex = 0;
	for (const part of parts) {
		if (part.type === "text") {
			for (const piece of halves(part.text)) events.push(delta({ content: piece }));
		} else if (part.type === "reasoning") {
			for (const piece of halves(part.text)) events.push(delta({ [part.field ?? "reasoning_content"]: piece }));
		} else {
			const index = toolIndex++;
			events.push(
				delta({
					tool_calls: [{ index, id: part.id, type: "function", function: { name: part.name, arguments: "" } }],
				}),
			);
			for (const piece of halves(JSON.stringify(part.arguments))) {
				events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
			}
		}
	}
	const usage = options.usage ?? { prompt: 10, completion: 5 };
	events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: options.finishReason ?? "stop" }]));
	events.push(
		chunk([], {
			usage: {
				prompt_tokens: usage.prompt,
				completion_tokens: usage.completion,
				total_tokens: usage.prompt + usage.completion,
				prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
			},
		}),
	);
	events.push({ data: "[DONE]" });
	return events;
}

export function chatReply(parts: readonly ChatPart[], options: ChatOptions = {}): Reply {
	return sse(chatEvents(parts, options));
}

/** The first `count` events of a completion, then the stream ends as `end` says. */
export function chatPartial(parts: readonly ChatPart[], count: number, end: StreamEnd): Reply {
	return sse(chatEvents(parts).slice(0, count), end);
}

export function openAiErrorBody(message: string, type: string, code: string | null = null) {
	return { error: { message, type, param: null, code } };
}

/** An HTTP error response as the OpenAI API sends it. */
export function openAiError(
	status: number,
	message: string,
	type: string,
	code: string | null = null,
	headers: Record<string, string> = {},
) {
	return json(status, openAiErrorBody(message, type, code), { "x-request-id": "req_wiretest", ...headers });
}

/** A stream that starts a completion, then sends an error object as a `data:` line (no `[DONE]`). */
export function chatStreamError(message: string, type: string, before: readonly ChatPart[] = []): Reply {
	const events = chatEvents(before);
	return sse([...events.slice(0, -3), { data: openAiErrorBody(message, type) }]);
}

function halves(text: string): string[] {
	const middle = Math.ceil(text.length / 2);
	return [text.slice(0, middle), text.slice(middle)].filter((part) => part.length > 0);
}
