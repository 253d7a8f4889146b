/**
 * Messages Bedrock's Converse API takes. It refuses two user (or two assistant) messages in a row,
 * "A conversation must alternate between user and assistant roles" (Portkey-AI/gateway#748), and a
 * blank text block, "The text field in the ContentBlock object … is blank" (OpenHands#5339), on
 * every later request of the session. pi-ai 0.73.1 builds both from ordinary histories: an answer
 * stopped or failed before any text is left out (so the prompts around it meet), tool results go
 * as a user message and a steer after them as another, a compaction summary or an extension's
 * message goes before a prompt; an extension's empty message or a tool's empty output goes as is
 * (a tool that returned no content at all as `content: []`, refused as well).
 */
import type { Model, StreamOptions } from "./types.js";

type PayloadMessage = { role?: unknown; content?: unknown };
type PayloadBlock = { text?: unknown; cachePoint?: unknown; toolResult?: { content?: unknown } };

/** What a tool result whose only text was blank says instead (as `bash` says of a silent command). */
const NO_OUTPUT = "(no output)";

/**
 * `options` for pi-ai so that a `bedrock-converse-stream` request leaves out blank text blocks
 * (a tool result left with none, or given none, says `(no output)`) and joins messages of one role that would go
 * in a row into one, their blocks in order (tool results before the text after them), before
 * anyone else sees the payload (`onPayload`, whose own hook then runs). Other wire APIs are left
 * as they are; the session's messages are never changed.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * const options = converseMessagesOptions(model, {});
 * // [user "write a long text", user "what did I ask?"] goes as one user message with two text blocks
 * ```
 */
export function converseMessagesOptions(model: Model, options: StreamOptions | undefined): StreamOptions | undefined {
	if (model.api !== "bedrock-converse-stream") return options;
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		acceptableMessages(payload);
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { ...options, onPayload };
}

function isBlankText(block: PayloadBlock): boolean {
	return typeof block?.text === "string" && block.text.trim() === "";
}

function isOnlyCachePoints(message: PayloadMessage): boolean {
	return Array.isArray(message?.content) && message.content.every((block) => block?.cachePoint !== undefined);
}

function withoutBlankText(block: PayloadBlock): PayloadBlock {
	const inner = block?.toolResult?.content;
	// A tool that returned no content at all goes as `content: []`, refused too (pydantic-ai#6116).
	if (!Array.isArray(inner) || (inner.length > 0 && !inner.some(isBlankText))) return block;
	const kept = inner.filter((part: PayloadBlock) => !isBlankText(part));
	return { ...block, toolResult: { ...block.toolResult, content: kept.length > 0 ? kept : [{ text: NO_OUTPUT }] } };
}

function acceptableMessages(payload: unknown): void {
	const holder = payload as { messages?: unknown } | null;
	if (!Array.isArray(holder?.messages)) return;
	const joined: PayloadMessage[] = [];
	for (const original of holder.messages as PayloadMessage[]) {
		let message = original;
		if (Array.isArray(message?.content)) {
			const content = (message.content as PayloadBlock[]).filter((block) => !isBlankText(block)).map(withoutBlankText);
			if (content.length === 0) continue;
			message = { ...message, content };
		}
		const previous = joined.at(-1);
		// A blank last user message leaves pi-ai's cache point alone, refused as an empty message
		// (zed#59436): it goes with the message before it of its role, or not at all.
		if (previous?.role !== message?.role && isOnlyCachePoints(message)) continue;
		if (previous?.role === message?.role && Array.isArray(previous?.content) && Array.isArray(message?.content)) {
			joined[joined.length - 1] = { ...previous, content: [...previous.content, ...message.content] };
			continue;
		}
		joined.push(message);
	}
	holder.messages = joined;
}
