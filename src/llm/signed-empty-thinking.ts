/**
 * Signed thinking blocks whose text is empty, kept in Anthropic requests. Claude's newer models
 * (thinking display "omitted") and DeepSeek's Anthropic endpoint answer with a `thinking` block
 * that has a signature and no text; the API wants it back unchanged, before the turn's tool calls.
 * pi-ai 0.73.1 leaves every thinking block with empty text out of the request (later pi-ai sends
 * it), so the request after such a tool call was refused, on every retry (pi#6376, pi#4003).
 */
import type { Context, Message, Model, StreamOptions } from "./types.js";

/** Stands in for the empty text while pi-ai builds the request; a number follows it. */
const STAND_IN = "\u2063settle-signed-empty-thinking:";

type PayloadBlock = { type?: unknown; thinking?: unknown };

/**
 * `context` and `options` for pi-ai so that `model`'s own signed thinking blocks with empty text
 * reach an `anthropic-messages` request: each goes to pi-ai with a stand-in text, and the request
 * payload gets the original text back before anyone else sees it (`onPayload`, whose own hook then
 * runs). Other wire APIs, other models' blocks and blocks with text are left as they are.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * declare const context: Context;
 * const sent = keepSignedEmptyThinking(model, context, {});
 * // pi-ai's Anthropic request then holds { type: "thinking", thinking: "", signature: "…" }
 * ```
 */
export function keepSignedEmptyThinking(
	model: Model,
	context: Context,
	options: StreamOptions | undefined,
): { context: Context; options: StreamOptions | undefined } {
	if (model.api !== "anthropic-messages") return { context, options };
	const originals: string[] = [];
	const messages = context.messages.map((message): Message => {
		if (message.role !== "assistant") return message;
		if (message.provider !== model.provider || message.api !== model.api || message.model !== model.id) return message;
		let content = message.content;
		for (const [index, block] of message.content.entries()) {
			if (block.type !== "thinking" || block.redacted || block.thinking.trim() !== "") continue;
			if (!block.thinkingSignature?.trim()) continue;
			if (content === message.content) content = [...message.content];
			content[index] = { ...block, thinking: `${STAND_IN}${originals.length}` };
			originals.push(block.thinking);
		}
		return content === message.content ? message : { ...message, content };
	});
	if (originals.length === 0) return { context, options };
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		restoreEmptyThinking(payload, originals);
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { context: { ...context, messages }, options: { ...options, onPayload } };
}

/** Puts each stand-in's original text back into the Anthropic payload's thinking blocks. */
function restoreEmptyThinking(payload: unknown, originals: readonly string[]): void {
	const messages = (payload as { messages?: unknown } | null)?.messages;
	if (!Array.isArray(messages)) return;
	for (const message of messages as { content?: unknown }[]) {
		if (!Array.isArray(message?.content)) continue;
		for (const block of message.content as PayloadBlock[]) {
			if (block?.type !== "thinking" || typeof block.thinking !== "string") continue;
			if (!block.thinking.startsWith(STAND_IN)) continue;
			block.thinking = originals[Number(block.thinking.slice(STAND_IN.length))] ?? "";
		}
	}
}
