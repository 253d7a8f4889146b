/**
 * Stored entries whose fields have the wrong type: a custom_message whose content is `42`, a user
 * message whose content list holds `null`, a label that is a number. A file written by hand, by
 * another tool, or by pi (which stores what `pi.sendMessage` is given) can hold them. They load as
 * they are (the file is never rewritten); reading them goes through the functions here, so the
 * context, the tree and the session name never meet a value that makes a later run throw, and the
 * reader reports each such line once.
 */
import type { ImageContent, TextContent, ThinkingContent, ToolCall } from "../llm/types.js";

/** A block of a message's content as the context uses it. */
export type ContentBlock = TextContent | ImageContent | ThinkingContent | ToolCall;

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null;
}

/** Roles whose `content` is text or a list of blocks (the roles a model sees as they are). */
function hasBlockContent(role: unknown): boolean {
	return role === "user" || role === "assistant" || role === "toolResult";
}

/**
 * Whether `block` is a content block the context can send: an object of type text, image, thinking
 * or toolCall. Its fields are not checked: pi itself stores a tool result whose text is `42` (a
 * `tool_call` handler's `reason: 42`) and counts and sends it as it is, so the context keeps it too.
 */
export function isUsableBlock(block: unknown): block is ContentBlock {
	if (!isObject(block) || Array.isArray(block)) return false;
	const type = block.type;
	return type === "text" || type === "image" || type === "thinking" || type === "toolCall";
}

/** Whether `content` is text or a list of usable blocks (what {@link contextContent} returns unchanged). */
export function isUsableContent(content: unknown): boolean {
	if (typeof content === "string") return true;
	if (!Array.isArray(content)) return false;
	for (let index = 0; index < content.length; index++) if (!isUsableBlock(content[index])) return false;
	return true;
}

/**
 * A stored message's content as the context uses it: text or a list of usable blocks as it is, a
 * list without the blocks it cannot use, anything else (missing, `null`, `42`, `{}`) no content.
 */
export function contextContent(content: unknown): string | ContentBlock[] {
	if (isUsableContent(content)) return content as string | ContentBlock[];
	return Array.isArray(content) ? content.filter(isUsableBlock) : [];
}

/** `value` as stored text: a string as it is, anything else (a number, an object) undefined. */
export function storedText(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

function shown(value: unknown): string {
	if (value === undefined) return "missing";
	if (typeof value === "string") return JSON.stringify(value);
	if (Array.isArray(value)) return "a list";
	if (value === null || typeof value !== "object") return String(value);
	return "an object";
}

function contentProblem(owner: string, content: unknown): string | undefined {
	if (isUsableContent(content)) return undefined;
	if (!Array.isArray(content)) {
		return `the ${owner}'s content is ${shown(content)}, not text or a list of content blocks; the context reads it as empty`;
	}
	const bad = content.find((block) => !isUsableBlock(block));
	const what =
		isObject(bad) && !Array.isArray(bad)
			? `a block of type ${shown(bad.type)}, not text, image, thinking or toolCall`
			: `${shown(bad)}, not a content block`;
	return `the ${owner}'s content holds ${what}; the context leaves it out`;
}

function textProblem(owner: string, field: string, value: unknown, reading: string): string | undefined {
	if (value === undefined || value === null || typeof value === "string") return undefined;
	return `the ${owner}'s ${field} is ${shown(value)}, not text; ${reading}`;
}

/**
 * Why an entry's fields cannot be used as stored, in a phrase for a diagnostic ("the
 * custom_message's content is 42, not text …; the context reads it as empty"), or undefined when
 * they can. Only the fields the context, tree and name read are checked.
 */
export function entryFieldProblem(entry: { type: string } & Record<string, unknown>): string | undefined {
	switch (entry.type) {
		case "message": {
			const message = entry.message as Record<string, unknown>;
			if (!hasBlockContent(message.role) || isUsableContent(message.content)) return undefined;
			return contentProblem(`${message.role as string} message`, message.content);
		}
		case "custom_message":
			return contentProblem("custom_message", entry.content);
		case "compaction":
			return typeof entry.summary === "string"
				? undefined
				: `the compaction's summary is ${shown(entry.summary)}, not text; the context reads it as empty`;
		case "branch_summary":
			return textProblem("branch_summary", "summary", entry.summary, "the context leaves it out");
		case "session_info":
			return textProblem("session_info", "name", entry.name, "read as no name");
		case "label":
			return textProblem("label", "label", entry.label, "read as no label");
		default:
			return undefined;
	}
}

/**
 * Whether the reader can load `entry` as it is, with nothing to report: the check of every line
 * read (false for a message entry without a message object, or when {@link entryFieldProblem} finds
 * one). Allocation-free for a well-shaped entry: the problem phrase is only built for a bad one.
 */
export function isWellShaped(entry: { type?: unknown; message?: unknown } & Record<string, unknown>): boolean {
	if (entry.type === "message" && !hasMessageObject(entry)) return false;
	return entryFieldProblem(entry as { type: string } & Record<string, unknown>) === undefined;
}

/** Whether a message entry's `message` can be read at all: an object (its role is read). */
export function hasMessageObject(entry: { message?: unknown }): boolean {
	return isObject(entry.message) && !Array.isArray(entry.message);
}
