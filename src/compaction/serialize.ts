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
 * Of a cut tool result, the last characters kept: a test run's failures, a build's error and an exit
 * code come last, and a head-only cut lost them from every summary (gsd-2#4665, prime-agent#2217).
 */
export const TOOL_RESULT_TAIL_CHARS = 500;

/**
 * Serializes a transcript (converted with `convertToLlm` first, so bash runs, custom messages and
 * summaries appear as the user text the model saw) as blocks separated by blank lines:
 * `[User]: …`, `[Assistant thinking]: …`, `[Assistant]: …`, `[Assistant tool calls]: read(path="a.ts"); …`,
 * `[Tool result]: …` (cut to 2000 characters: {@link cutToolResult}). Images and empty texts are left out.
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
			if (text) parts.push(`[Tool result]: ${cutToolResult(text)}`);
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

/**
 * A tool result's text as a summary request carries it: whole up to {@link TOOL_RESULT_MAX_CHARS};
 * longer, its first 1500 and last {@link TOOL_RESULT_TAIL_CHARS} characters around a note counting
 * the characters cut (pi keeps the first 2000 only). Neither cut falls between an emoji's halves.
 * Must not throw.
 *
 * @example
 * ```ts
 * cutToolResult(`${"a".repeat(3000)}FAILED: 2 tests`); // "aaa…\n\n[... 1000 more characters truncated]\n\naaa…FAILED: 2 tests"
 * ```
 */
export function cutToolResult(text: string): string {
	if (text.length <= TOOL_RESULT_MAX_CHARS) return text;
	const head = sliceWholeCharacters(text, TOOL_RESULT_MAX_CHARS - TOOL_RESULT_TAIL_CHARS);
	let tailStart = text.length - TOOL_RESULT_TAIL_CHARS;
	const first = text.charCodeAt(tailStart);
	if (first >= 0xdc00 && first <= 0xdfff) tailStart++;
	return `${head}\n\n[... ${tailStart - head.length} more characters truncated]\n\n${text.slice(tailStart)}`;
}
