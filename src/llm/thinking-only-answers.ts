/**
 * An answer that is only thinking: Claude ended its turn (or reached its output cap) after a
 * signed thinking block, before any text or tool call. pi-ai sends it back as an assistant message
 * whose one block is `thinking`, and Anthropic refuses that request and every later one: "The final
 * block in an assistant message cannot be `thinking`" (forgecode#3071, hermes-agent#13010).
 */
import type { AssistantMessage, Context, Message, Model } from "./types.js";

/**
 * `context` for a request to an `anthropic-messages` model without that model's own answers that
 * hold only thinking (signed or redacted; no text, no tool call). Anthropic would drop an earlier
 * turn's thinking anyway, and pi-ai already leaves an answer with nothing to send out; the user
 * messages around it then go in a row, as after an aborted answer. Another model's thinking goes as
 * text (pi-ai) and is kept. The session's messages are never changed.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * declare const context: Context;
 * withoutThinkingOnlyAnswers(model, context);
 * // [user "plan it", assistant [thinking (signed)], user "go on"] → [user "plan it", user "go on"]
 * ```
 */
export function withoutThinkingOnlyAnswers(model: Model, context: Context): Context {
	if (model.api !== "anthropic-messages") return context;
	const kept = context.messages.filter((message) => !isOwnThinkingOnly(model, message));
	return kept.length === context.messages.length ? context : { ...context, messages: kept };
}

function isOwnThinkingOnly(model: Model, message: Message): boolean {
	if (message.role !== "assistant" || !sameModel(model, message)) return false;
	let thinking = false;
	for (const block of message.content) {
		if (block.type === "toolCall") return false;
		if (block.type === "text" && block.text.trim() !== "") return false;
		if (block.type === "thinking" && (block.redacted || block.thinkingSignature?.trim())) thinking = true;
	}
	return thinking;
}

function sameModel(model: Model, message: AssistantMessage): boolean {
	return message.provider === model.provider && message.api === model.api && message.model === model.id;
}
