/**
 * Tool call ids replayed to a chat-completions model from another model's answers. OpenAI (also
 * behind a proxy: OpenRouter, LiteLLM, Copilot) refuses an id over 40 characters; pi-ai 0.73.1
 * shortens one only for the provider named `openai`, and by cutting it, so two calls whose ids
 * share their first 40 characters (Gemini's `<tool>_<time>_<n>`) went back under one id.
 */
import { createHash } from "node:crypto";
import type { Context, Message, Model } from "./types.js";

/** OpenAI's limit on `tool_calls[].id` ("Expected a string with maximum length 40"). */
export const CHAT_COMPLETIONS_TOOL_CALL_ID_LIMIT = 40;

/**
 * `context` with each tool call id another model wrote renamed, for a chat-completions `model`,
 * when pi-ai would send it over 40 characters: the new id is `call_` and a hash of the old one
 * (the same on every request, so a cached prefix holds; two ids cut to one prefix stay two), and
 * the call's result follows it. Ids the same model wrote, and other wire APIs, are left as they are.
 *
 * @example
 * ```ts
 * const context: Context = { messages: session.messages.filter((m) => m.role !== "system") as Message[] };
 * const sent = replayableToolCallIds(model, context);
 * // another model's call "read_file_and_summarize_1780000000000_1" goes as "call_3f9a…" (40 characters)
 * ```
 */
export function replayableToolCallIds(model: Model, context: Context): Context {
	if (model.api !== "openai-completions") return context;
	let renamed = new Map<string, string>();
	let changed = false;
	const messages = context.messages.map((message): Message => {
		if (message.role === "assistant") {
			renamed = new Map();
			if (message.provider === model.provider && message.api === model.api && message.model === model.id) {
				return message;
			}
			let content = message.content;
			for (const [index, block] of message.content.entries()) {
				if (block.type !== "toolCall") continue;
				const id = replayableId(block.id);
				if (id === block.id) continue;
				renamed.set(block.id, id);
				if (content === message.content) content = [...message.content];
				content[index] = { ...block, id };
			}
			if (content === message.content) return message;
			changed = true;
			return { ...message, content };
		}
		if (message.role === "toolResult") {
			const id = renamed.get(message.toolCallId);
			return id === undefined ? message : { ...message, toolCallId: id };
		}
		return message;
	});
	return changed ? { ...context, messages } : context;
}

/** What pi-ai would send (the call id of a `call|item` pair) when that fits, else a hash of the id. */
function replayableId(id: string): string {
	const sent = id.includes("|") ? id.split("|")[0]!.replace(/[^a-zA-Z0-9_-]/g, "_") : id;
	if (sent.length <= CHAT_COMPLETIONS_TOOL_CALL_ID_LIMIT) return sent;
	const hash = createHash("sha256").update(id).digest("hex");
	return `call_${hash.slice(0, CHAT_COMPLETIONS_TOOL_CALL_ID_LIMIT - 5)}`;
}
