/**
 * Shape checks of what a host hands `prompt`, `steer`, `followUp` and `sendUserMessage`. The
 * types already say it; these catch what TypeScript cannot (plain JavaScript, `req.body.message`
 * that is missing) before anything reaches the prompt-operation machine, where a non-string text
 * used to throw inside the actor: an uncaught exception and a session stuck in `preflight`.
 */
import { SettleError } from "../errors.js";

function described(value: unknown): string {
	if (value === undefined) return "undefined";
	if (value === null) return "null";
	if (typeof value === "string") return JSON.stringify(value);
	if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
	return `${typeof value} ${String(value)}`;
}

function isImageBlock(value: unknown): boolean {
	if (typeof value !== "object" || value === null) return false;
	const block = value as { type?: unknown; data?: unknown; mimeType?: unknown };
	return block.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string";
}

function isContentBlock(value: unknown): boolean {
	if (typeof value !== "object" || value === null) return false;
	const block = value as { type?: unknown; text?: unknown };
	return (block.type === "text" && typeof block.text === "string") || isImageBlock(value);
}

const IMAGE_SHAPE = '{ type: "image", data: <base64>, mimeType }';

/**
 * Why `text` and `images` cannot be a prompt (`method` names the call in the message), or
 * undefined when they can: a `SettleError` `INVALID_ARGUMENT` that says what to pass instead.
 */
export function promptInputError(method: string, text: unknown, images: unknown): SettleError | undefined {
	if (typeof text !== "string") {
		return new SettleError(
			"INVALID_ARGUMENT",
			`${method}: the text must be a string (got ${described(text)}). Pass the message's text; images go in a separate list.`,
			{ details: { method, field: "text" } },
		);
	}
	if (images !== undefined && !(Array.isArray(images) && images.every(isImageBlock))) {
		return new SettleError(
			"INVALID_ARGUMENT",
			`${method}: images must be an array of ${IMAGE_SHAPE} blocks (got ${described(images)}). Leave them out to send text only.`,
			{ details: { method, field: "images" } },
		);
	}
	return undefined;
}

/** Like {@link promptInputError} for `sendUserMessage`'s content: a string or text/image blocks. */
export function userMessageContentError(method: string, content: unknown): SettleError | undefined {
	if (typeof content === "string" || (Array.isArray(content) && content.every(isContentBlock))) return undefined;
	return new SettleError(
		"INVALID_ARGUMENT",
		`${method}: the content must be a string or an array of { type: "text", text } and ${IMAGE_SHAPE} blocks (got ${described(content)}).`,
		{ details: { method, field: "content" } },
	);
}

/**
 * Like {@link promptInputError} for a list of tool names (`setActiveTools`): a single name passed
 * as a string would otherwise be read letter by letter, every letter an unknown tool, and leave the
 * session with no tools at all.
 */
export function toolNamesError(method: string, names: unknown): SettleError | undefined {
	if (Array.isArray(names) && names.every((name) => typeof name === "string")) return undefined;
	const hint = typeof names === "string" ? ` Pass [${JSON.stringify(names)}].` : "";
	return new SettleError(
		"INVALID_ARGUMENT",
		`${method}: the tool names must be an array of strings (got ${described(names)}).${hint} No tool was changed.`,
		{ details: { method, field: "names" } },
	);
}
