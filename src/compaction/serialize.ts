/**
 * The conversation as plain text for a summarization request. Sent as text (not as chat
 * messages) so the model summarizes it instead of continuing it.
 */
import type { AgentMessage, Model } from "../llm/types.js";
import { convertToLlm } from "../session/convert-to-llm.js";
import { sliceWholeCharacters } from "../tools/truncate.js";

/** Tool results are cut to this many characters: the summary needs the gist, not the full output. */
export const TOOL_RESULT_MAX_CHARS = 2000;

/**
 * Serializes a transcript (converted with `convertToLlm` first, so bash runs, custom messages and
 * summaries appear as the user text the model saw) as blocks separated by blank lines:
 * `[User]: …`, `[Assistant thinking]: …`, `[Assistant]: …`, `[Assistant tool calls]: read(path="a.ts"); …`,
 * `[Tool result]: …` (cut to 2000 characters). Images and empty texts are left out.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * serializeConversation([{ role: "user", content: "fix the bug", timestamp: 0 }]); // "[User]: fix the bug"
 * ```
 */
export function serializeConversation(messages: readonly AgentMessage[]): string {
	const parts: string[] = [];
	for (const message of convertToLlm(messages)) {
		if (message.role === "user") {
			const text =
				typeof message.content === "string"
					? message.content
					: message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
			if (text) parts.push(`[User]: ${text}`);
		} else if (message.role === "assistant") {
			const texts: string[] = [];
			const thinking: string[] = [];
			const calls: string[] = [];
			for (const block of message.content) {
				if (block.type === "text") texts.push(block.text);
				else if (block.type === "thinking") thinking.push(block.thinking);
				else if (block.type === "toolCall") calls.push(`${block.name}(${formatArguments(block.arguments)})`);
			}
			if (thinking.length > 0) parts.push(`[Assistant thinking]: ${thinking.join("\n")}`);
			if (texts.length > 0) parts.push(`[Assistant]: ${texts.join("\n")}`);
			if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
		} else {
			const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
			if (text) parts.push(`[Tool result]: ${truncate(text, TOOL_RESULT_MAX_CHARS)}`);
		}
	}
	return parts.join("\n\n");
}

/**
 * The messages a summary request to `model` reads. Claude refuses, every time, a request that hands
 * it a turn's reasoning as text (`stop_reason: "refusal"`, category `reasoning_extraction`), so
 * compaction failed on any history with thinking (openclaw#129518): for a Claude model the thinking
 * blocks are left out (a turn's text and tool calls say what it did). Other models get them, as pi
 * sends them.
 *
 * @example
 * ```ts
 * declare const messages: AgentMessage[];
 * declare const model: Model; // claude-sonnet-4-5
 * serializeConversation(messagesToSummarize(messages, model)); // no "[Assistant thinking]: …" block
 * ```
 */
export function messagesToSummarize(
	messages: readonly AgentMessage[],
	model: Pick<Model, "id" | "provider">,
): readonly AgentMessage[] {
	if (model.provider !== "anthropic" && !/claude/i.test(model.id)) return messages;
	return messages.map((message) =>
		message.role === "assistant" && message.content.some((block) => block.type === "thinking")
			? { ...message, content: message.content.filter((block) => block.type !== "thinking") }
			: message,
	);
}

function formatArguments(args: Record<string, unknown> | undefined): string {
	if (!args || typeof args !== "object") return "";
	return Object.entries(args)
		.map(([key, value]) => `${key}=${JSON.stringify(value)}`)
		.join(", ");
}

function truncate(text: string, maxChars: number): string {
	if (text.length <= maxChars) return text;
	const kept = sliceWholeCharacters(text, maxChars);
	return `${kept}\n\n[... ${text.length - kept.length} more characters truncated]`;
}
