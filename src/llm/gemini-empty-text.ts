/**
 * Blank user text left out of Gemini requests. Gemini refuses a text part with no text, "Unable to
 * submit request because it has an empty text parameter", on every later request of the session
 * (zuisong/gemini-openai-proxy#83); pi-ai 0.73.1 sends a user-side message of blank text (an
 * extension's message of empty text) as such a part. Two user turns in a row Gemini takes.
 */
import type { Context, Message, Model } from "./types.js";

/**
 * `context` for a request to `model` with blank text blocks of user messages left out, and a user
 * message left with nothing left out whole. Only for Gemini's wire APIs (`google-generative-ai`,
 * `google-vertex`); the session's messages are never changed.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * declare const context: Context;
 * const sent = withoutBlankGeminiText(model, context);
 * // [user "hello", assistant "Hi.", user "", user "what next?"] → the "" message is left out
 * ```
 */
export function withoutBlankGeminiText(model: Model, context: Context): Context {
	if (model.api !== "google-generative-ai" && model.api !== "google-vertex") return context;
	let changed = false;
	const messages: Message[] = [];
	for (const message of context.messages) {
		if (message.role !== "user") {
			messages.push(message);
			continue;
		}
		if (typeof message.content === "string") {
			if (message.content.trim() === "") changed = true;
			else messages.push(message);
			continue;
		}
		const content = message.content.filter((part) => part.type !== "text" || part.text.trim() !== "");
		if (content.length === message.content.length) {
			messages.push(message);
			continue;
		}
		changed = true;
		if (content.length > 0) messages.push({ ...message, content });
	}
	return changed ? { ...context, messages } : context;
}
