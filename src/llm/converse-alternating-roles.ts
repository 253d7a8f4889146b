/**
 * Roles alternating in Bedrock Converse requests. Bedrock refuses two user (or two assistant)
 * messages in a row, "A conversation must alternate between user and assistant roles", on every
 * later request of the session (Portkey-AI/gateway#748). pi-ai 0.73.1 builds such requests from
 * ordinary histories: an answer stopped or failed before any text is left out (so the prompts
 * around it meet), an answer with no content is left out, tool results go as a user message and a
 * steer after them as another, a compaction summary or an extension's message before a prompt.
 */
import type { Model, StreamOptions } from "./types.js";

type PayloadMessage = { role?: unknown; content?: unknown };

/**
 * `options` for pi-ai so that a `bedrock-converse-stream` request joins messages of the same role
 * that would go in a row into one, their blocks in order (tool results before the text after
 * them), before anyone else sees the payload (`onPayload`, whose own hook then runs). Other wire
 * APIs are left as they are; the session's messages are never changed.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * const options = alternatingConverseRoles(model, {});
 * // [user "write a long text", user "what did I ask?"] goes as one user message with two text blocks
 * ```
 */
export function alternatingConverseRoles(model: Model, options: StreamOptions | undefined): StreamOptions | undefined {
	if (model.api !== "bedrock-converse-stream") return options;
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		joinSuccessiveRoles(payload);
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { ...options, onPayload };
}

function joinSuccessiveRoles(payload: unknown): void {
	const holder = payload as { messages?: unknown } | null;
	if (!Array.isArray(holder?.messages)) return;
	const joined: PayloadMessage[] = [];
	for (const message of holder.messages as PayloadMessage[]) {
		const previous = joined.at(-1);
		if (previous?.role === message?.role && Array.isArray(previous?.content) && Array.isArray(message?.content)) {
			joined[joined.length - 1] = { ...previous, content: [...previous.content, ...message.content] };
			continue;
		}
		joined.push(message);
	}
	holder.messages = joined;
}
