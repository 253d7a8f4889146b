/**
 * Blank user text left out of Gemini requests. Gemini refuses a text part with no text, "Unable to
 * submit request because it has an empty text parameter", on every later request of the session
 * (zuisong/gemini-openai-proxy#83); pi-ai 0.73.1 sends a user-side message of blank text (an
 * extension's message of empty text) as such a part. Two user turns in a row Gemini takes; two
 * model turns in a row, left where the blank message answered by the model went, it refuses: "Please
 * ensure that multiturn requests alternate between user and model" (hermes-agent#55125).
 */
import type { Context, Message, Model, StreamOptions } from "./types.js";

type Content = { role?: unknown; parts?: unknown };

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
	if (!isGemini(model)) return context;
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

/**
 * `options` for pi-ai so that a Gemini request joins model turns that would go in a row into one,
 * their parts in order (an answer, a blank message left out, the answer to it), before anyone else
 * sees the payload (`onPayload`, whose own hook then runs). Other wire APIs are left as they are.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * const options = alternatingGeminiTurnsOptions(model, {});
 * // [user "hello", model "Hi.", model "Anything else?", user "what next?"] goes with one model turn of two parts
 * ```
 */
export function alternatingGeminiTurnsOptions(
	model: Model,
	options: StreamOptions | undefined,
): StreamOptions | undefined {
	if (!isGemini(model)) return options;
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		const holder = payload as { contents?: unknown } | null;
		if (Array.isArray(holder?.contents)) holder.contents = joinedModelTurns(holder.contents as Content[]);
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { ...options, onPayload };
}

function isGemini(model: Model): boolean {
	return model.api === "google-generative-ai" || model.api === "google-vertex";
}

function joinedModelTurns(contents: Content[]): Content[] {
	const joined: Content[] = [];
	for (const content of contents) {
		const previous = joined.at(-1);
		if (
			content?.role === "model" &&
			previous?.role === "model" &&
			Array.isArray(previous.parts) &&
			Array.isArray(content.parts)
		) {
			joined[joined.length - 1] = { ...previous, parts: [...previous.parts, ...content.parts] };
			continue;
		}
		joined.push(content);
	}
	return joined;
}
