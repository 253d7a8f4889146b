/**
 * Two user messages in a row in a request: an answer stopped or failed mid-stream is left out of
 * later requests (pi-ai drops it), so the prompt before it meets the next one. DeepSeek refuses
 * that ("deepseek-reasoner does not support successive user or assistant messages"), on every
 * later request of the session (cherry-studio#5051).
 */
import type { Context, ImageContent, Message, Model, TextContent, UserMessage } from "./types.js";

/** As pi-ai 0.73.1 tells DeepSeek's Chat Completions endpoint (its `requiresReasoningContentOnAssistantMessages`). */
function refusesSuccessiveUsers(model: Model): boolean {
	return (
		model.api === "openai-completions" && (model.provider === "deepseek" || model.baseUrl.includes("deepseek.com"))
	);
}

/**
 * `context` for a request to `model` with user messages that would go in a row joined into one,
 * in order (texts by a blank line); an answer that ended `aborted` or `error` between them is left
 * out, as pi-ai leaves it out. Only for a model that refuses successive user messages (DeepSeek);
 * the session's messages are never changed.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * declare const context: Context;
 * const sent = joinedUserTurns(model, context);
 * // [user "write a long text", assistant (aborted), user "what did I ask?"] → one user message
 * ```
 */
export function joinedUserTurns(model: Model, context: Context): Context {
	if (!refusesSuccessiveUsers(model)) return context;
	const messages: Message[] = [];
	let joined = false;
	for (const message of context.messages) {
		if (message.role === "assistant" && (message.stopReason === "aborted" || message.stopReason === "error")) continue;
		const previous = messages.at(-1);
		if (message.role === "user" && previous?.role === "user") {
			messages[messages.length - 1] = joinUsers(previous, message);
			joined = true;
			continue;
		}
		messages.push(message);
	}
	return joined ? { ...context, messages } : context;
}

function joinUsers(first: UserMessage, second: UserMessage): UserMessage {
	const parts = (message: UserMessage): (TextContent | ImageContent)[] =>
		typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
	const content = [...parts(first), ...parts(second)];
	if (content.every((part) => part.type === "text")) {
		return { ...first, content: content.map((part) => (part as TextContent).text).join("\n\n") };
	}
	return { ...first, content };
}
