/**
 * Lone UTF-16 surrogates (half an emoji) in a model's tool-call arguments. No UTF-8 writer can
 * encode one: a tool receives U+FFFD in its place, strict JSON readers refuse the escape, and
 * Anthropic refuses the request body ("no low surrogate in string", claude-code#6273).
 */
import type { AssistantMessage } from "./types.js";

/** ES2024's string methods (Node 20 has them; the ES2023 lib does not declare them). */
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * `message` with every lone surrogate in its tool calls' arguments replaced by U+FFFD, what the
 * tool receives (a string crosses to a child process or a file as UTF-8); the same object when
 * there is none. The agent loop cleans each answer before it is saved, run and sent again; a
 * transcript written before (or by pi, which keeps them) is cleaned when sent. Must not throw.
 *
 * @example
 * ```ts
 * declare const answer: AssistantMessage; // a tool call whose arguments hold "launch \ud83d"
 * withWellFormedToolArguments(answer); // the call's arguments hold "launch \ufffd"
 * ```
 */
export function withWellFormedToolArguments(message: AssistantMessage): AssistantMessage {
	if (!Array.isArray(message.content)) return message;
	let content: AssistantMessage["content"] | undefined;
	for (let index = 0; index < message.content.length; index++) {
		const block = message.content[index]!;
		if (block.type !== "toolCall" || !holdsLoneSurrogate(block.arguments)) continue;
		content ??= [...message.content];
		content[index] = { ...block, arguments: wellFormed(block.arguments) as typeof block.arguments };
	}
	return content ? { ...message, content } : message;
}

function holdsLoneSurrogate(value: unknown): boolean {
	// Native: a regex took ~30 ms per MB of arguments, on every message of each rebuilt transcript.
	if (typeof value === "string") return !(value as WellFormedString).isWellFormed();
	if (value === null || typeof value !== "object") return false;
	// Keys, not entries: run on every answer, the [key, item] pairs were most of its cost.
	const record = value as Record<string, unknown>;
	for (const key of Object.keys(record)) {
		if (!(key as WellFormedString).isWellFormed() || holdsLoneSurrogate(record[key])) return true;
	}
	return false;
}

function wellFormed(value: unknown): unknown {
	if (typeof value === "string") return (value as WellFormedString).toWellFormed();
	if (value === null || typeof value !== "object") return value;
	if (Array.isArray(value)) return value.map(wellFormed);
	return Object.fromEntries(Object.entries(value).map(([key, item]) => [wellFormed(key), wellFormed(item)]));
}
