/**
 * A history with tool calls sent with no tools offered (`--no-tools`, an extension that turned
 * them all off). Anthropic refuses it ("Requests which include tool_use or tool_result blocks must
 * define tools"), Bedrock too ("The toolConfig field must be defined when using toolUse and
 * toolResult content blocks"); pi-ai 0.73.1 leaves `tools` out and sends the blocks as they are.
 */
import type { Context, ImageContent, Message, Model, TextContent } from "./types.js";

/** The wire APIs that refuse tool blocks in a request that offers no tools. */
const NEEDS_TOOLS = new Set(["anthropic-messages", "bedrock-converse-stream"]);

/**
 * `context` for a request to `model` that offers no tools: each tool call goes as a text of its
 * answer (`[Tool call] bash {"command":"ls"}`), each result as a text on the user's side
 * (`[Tool result of bash] …`), joined with the user messages next to it so roles still alternate.
 * Unchanged when tools are offered, when no call is in the history, or for another wire API. The
 * session's messages are never changed: only what this request carries.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * declare const context: Context;
 * const sent = toolHistoryAsText(model, { ...context, tools: [] });
 * // an Anthropic model reads "[Tool call] bash {…}" and "[Tool result of bash] …" as text
 * ```
 */
export function toolHistoryAsText(model: Model, context: Context): Context {
	// Only "no tools" counts: Bedrock's client also drops toolConfig for toolChoice "none", but requests
	// go through pi-ai's streamSimple, which never passes a toolChoice on (nor has Settle's StreamOptions one).
	if (!NEEDS_TOOLS.has(model.api) || (context.tools?.length ?? 0) > 0) return context;
	const hasToolBlocks = context.messages.some(
		(message) =>
			message.role === "toolResult" ||
			(message.role === "assistant" && message.content.some((block) => block.type === "toolCall")),
	);
	if (!hasToolBlocks) return context;
	const messages: Message[] = [];
	for (const message of context.messages) {
		if (message.role === "assistant") {
			const content = message.content.map((block) =>
				block.type === "toolCall"
					? { type: "text" as const, text: `[Tool call] ${block.name} ${JSON.stringify(block.arguments ?? {})}` }
					: block,
			);
			messages.push({ ...message, content });
			continue;
		}
		const content: (TextContent | ImageContent)[] =
			message.role === "toolResult"
				? [
						{ type: "text", text: `[Tool result of ${message.toolName}${message.isError ? ", an error" : ""}]` },
						...message.content,
					]
				: typeof message.content === "string"
					? [{ type: "text", text: message.content }]
					: message.content;
		const previous = messages.at(-1);
		if (previous?.role === "user") {
			messages[messages.length - 1] = { ...previous, content: [...(previous.content as typeof content), ...content] };
		} else {
			messages.push({ role: "user", content, timestamp: message.timestamp });
		}
	}
	return { ...context, messages };
}
