/**
 * Kimi's thinking on its earlier tool-call turns. Kimi (K2.5, K2.6, Kimi for Coding) thinks at every
 * reasoning effort, and Moonshot and the gateways before it refuse a request whose assistant
 * tool-call messages lack `reasoning_content`: "400 thinking is enabled but reasoning_content is
 * missing in assistant tool call message at index N", on every request after the first tool call.
 * pi-ai 0.73.1 sends a turn's thinking back under the field it streamed in, `reasoning` on OpenCode
 * Go (pi#4251), and nothing for a call made without thinking (kilocode#5528).
 */
import type { Model, StreamOptions } from "./types.js";

/** The fields pi-ai streams thinking from (and sends it back in), Kimi's own first. */
const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

/** A Kimi model on a Chat Completions endpoint (Moonshot, OpenCode, OpenRouter, Fireworks, a models.json gateway). */
function isKimi(model: Model): boolean {
	return model.api === "openai-completions" && model.reasoning && /kimi/i.test(model.id);
}

/**
 * `options` for pi-ai whose `onPayload` gives each assistant message of a Kimi request its
 * thinking as `reasoning_content` (moved from `reasoning` / `reasoning_text`), and each one with
 * tool calls and no thinking an empty `reasoning_content`. The caller's own `onPayload` then runs.
 * Other models' options are returned as they are; the session's messages are never changed.
 *
 * @example
 * ```ts
 * declare const model: Model; // gateway/kimi-k2.6
 * const options = kimiReasoningContent(model, {});
 * // an assistant message { tool_calls, reasoning: "…" } goes as { tool_calls, reasoning_content: "…" }
 * ```
 */
export function kimiReasoningContent(model: Model, options: StreamOptions | undefined): StreamOptions | undefined {
	if (!isKimi(model)) return options;
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		const messages = (payload as { messages?: unknown } | null)?.messages;
		if (Array.isArray(messages)) {
			for (const message of messages as Record<string, unknown>[]) {
				if (message?.role === "assistant") withReasoningContent(message);
			}
		}
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { ...options, onPayload };
}

function withReasoningContent(message: Record<string, unknown>): void {
	// The field with text: pi-ai fills an empty `reasoning_content` beside thinking sent as `reasoning`
	// when models.json sets `requiresReasoningContentOnAssistantMessages` (pi#5309's workaround).
	const field =
		REASONING_FIELDS.find((name) => typeof message[name] === "string" && message[name] !== "") ??
		REASONING_FIELDS.find((name) => typeof message[name] === "string");
	if (field !== undefined && field !== "reasoning_content") {
		message.reasoning_content = message[field];
		delete message[field];
	} else if (field === undefined && Array.isArray(message.tool_calls)) {
		message.reasoning_content = "";
	}
}
