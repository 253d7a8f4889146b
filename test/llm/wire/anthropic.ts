/**
 * The Anthropic Messages API as it streams (https://docs.anthropic.com/en/api/messages-streaming):
 * `message_start`, per block `content_block_start` / `content_block_delta` / `content_block_stop`,
 * a `ping`, `message_delta` (stop reason and final usage), `message_stop`; errors as the API sends
 * them (`{"type":"error","error":{"type":…,"message":…}}`, HTTP or an SSE `error` event).
 */
import { json, type Reply, type SseEvent, type StreamEnd, sse } from "./server.js";

export type AnthropicBlock =
	| { type: "text"; text: string }
	| { type: "thinking"; thinking: string; signature: string }
	| { type: "redacted_thinking"; data: string }
	| { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export interface AnthropicUsage {
	input: number;
	output: number;
	cacheRead?: number;
	cacheWrite?: number;
}

export interface AnthropicMessageOptions {
	stopReason?: "end_turn" | "tool_use" | "max_tokens";
	usage?: AnthropicUsage;
	model?: string;
	id?: string;
}

/** Splits a string in two halves, so every block streams as more than one delta. */
function halves(text: string): string[] {
	const middle = Math.ceil(text.length / 2);
	return [text.slice(0, middle), text.slice(middle)].filter((part) => part.length > 0);
}

/** The SSE events of one assistant message, up to and including `message_stop`. */
export function anthropicEvents(blocks: readonly AnthropicBlock[], options: AnthropicMessageOptions = {}): SseEvent[] {
	const usage = options.usage ?? { input: 10, output: 5 };
	const events: SseEvent[] = [
		{
			event: "message_start",
			data: {
				type: "message_start",
				message: {
					id: options.id ?? "msg_01WireTest",
					type: "message",
					role: "assistant",
					content: [],
					model: options.model ?? "claude-wire-1",
					stop_reason: null,
					stop_sequence: null,
					usage: {
						input_tokens: usage.input,
						cache_creation_input_tokens: usage.cacheWrite ?? 0,
						cache_read_input_tokens: usage.cacheRead ?? 0,
						output_tokens: 1,
					},
				},
			},
		},
		{ event: "ping", data: { type: "ping" } },
	];
	blocks.forEach((block, index) => {
		const start =
			block.type === "text"
				? { type: "text", text: "" }
				: block.type === "thinking"
					? { type: "thinking", thinking: "" }
					: block.type === "redacted_thinking"
						? block
						: { type: "tool_use", id: block.id, name: block.name, input: {} };
		events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: start } });
		// A redacted block arrives whole in its start event.
		const deltas =
			block.type === "redacted_thinking"
				? []
				: block.type === "text"
					? halves(block.text).map((text) => ({ type: "text_delta", text }))
					: block.type === "thinking"
						? [
								...halves(block.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
								{ type: "signature_delta", signature: block.signature },
							]
						: halves(JSON.stringify(block.input)).map((partial_json) => ({ type: "input_json_delta", partial_json }));
		for (const delta of deltas) {
			events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
		}
		events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
	});
	events.push(
		{
			event: "message_delta",
			data: {
				type: "message_delta",
				delta: { stop_reason: options.stopReason ?? "end_turn", stop_sequence: null },
				usage: { output_tokens: usage.output },
			},
		},
		{ event: "message_stop", data: { type: "message_stop" } },
	);
	return events;
}

/** A streamed assistant message. */
export function anthropicReply(blocks: readonly AnthropicBlock[], options: AnthropicMessageOptions = {}): Reply {
	return sse(anthropicEvents(blocks, options));
}

/** The first `count` events of a message, then the stream ends as `end` says. */
export function anthropicPartial(blocks: readonly AnthropicBlock[], count: number, end: StreamEnd): Reply {
	return sse(anthropicEvents(blocks).slice(0, count), end);
}

/** The error body of the Anthropic API. */
export function anthropicErrorBody(type: string, message: string) {
	return { type: "error", error: { type, message } };
}

/** An HTTP error response as the Anthropic API sends it (`request-id` and any extra headers). */
export function anthropicError(status: number, type: string, message: string, headers: Record<string, string> = {}) {
	return json(status, anthropicErrorBody(type, message), { "request-id": "req_011CWireTest", ...headers });
}

/** A stream that starts a message, then sends an SSE `error` event (the API's mid-stream overload). */
export function anthropicStreamError(type: string, message: string, before: readonly AnthropicBlock[] = []): Reply {
	const events = anthropicEvents(before);
	// Keep message_start, ping and the blocks; drop message_delta / message_stop.
	return sse([...events.slice(0, -2), { event: "error", data: anthropicErrorBody(type, message) }]);
}
