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

/** What to pass instead, in the `INVALID_ARGUMENT` of a setter given a value of the wrong type. */
export const SESSION_NAME_HINT = 'Pass the display name as text ("" clears it). Nothing was written.';
/** See {@link SESSION_NAME_HINT}. */
export const LABEL_HINT = 'Pass the label as text, or undefined (or "") to clear it. Nothing was written.';
/** See {@link SESSION_NAME_HINT}. */
export const ENTRY_ID_HINT = "Pass the id of an entry (getEntries(), getLeafId()). Nothing was written.";
/** See {@link SESSION_NAME_HINT}. */
export const CUSTOM_TYPE_HINT = "Pass your extension's name for the entry as text. Nothing was written.";

/**
 * Like {@link promptInputError} for an argument that must be a string (a directory, a session
 * file's path, an entry id): `field` names it; `hint` says what to pass. Without it Node's
 * `path.resolve` threw its raw `paths[0]` TypeError. `optional` lets undefined through.
 */
export function stringArgumentError(
	method: string,
	field: string,
	value: unknown,
	hint: string,
	optional = false,
): SettleError | undefined {
	if (typeof value === "string" || (optional && value === undefined)) return undefined;
	return new SettleError(
		"INVALID_ARGUMENT",
		`${method}: ${field} must be a string (got ${described(value)}). ${hint}`,
		{
			details: { method, field },
		},
	);
}

/** Like {@link stringArgumentError} for an optional callback (`setup`, `withSession`). */
export function callbackArgumentError(method: string, field: string, value: unknown): SettleError | undefined {
	if (value === undefined || typeof value === "function") return undefined;
	return new SettleError(
		"INVALID_ARGUMENT",
		`${method}: ${field} must be a function (got ${described(value)}). Leave it out to skip it.`,
		{ details: { method, field } },
	);
}

/**
 * Like {@link promptInputError} for a thinking level: anything but one of `levels` (a typo such as
 * "hgih") was clamped to "off" without a word, or recorded as is when no model was selected.
 */
export function thinkingLevelError(
	method: string,
	level: unknown,
	levels: readonly string[],
	optional = false,
): SettleError | undefined {
	if ((optional && level === undefined) || (typeof level === "string" && levels.includes(level))) return undefined;
	return new SettleError(
		"INVALID_ARGUMENT",
		`${method}: the thinking level must be one of ${levels.map((name) => JSON.stringify(name)).join(", ")} (got ${described(level)}).`,
		{ details: { method, field: "thinkingLevel" } },
	);
}

/**
 * Like {@link promptInputError} for a model: an object with string `provider` and `id` (as
 * `modelRuntime.getModel(provider, id)` returns), or, where `byName` says so, `"provider/id"`.
 */
export function modelArgumentError(
	method: string,
	model: unknown,
	options: { byName?: boolean; optional?: boolean } = {},
): SettleError | undefined {
	if (options.optional && model === undefined) return undefined;
	if (options.byName && typeof model === "string") return undefined;
	if (typeof model === "object" && model !== null) {
		const candidate = model as { provider?: unknown; id?: unknown };
		if (typeof candidate.provider === "string" && typeof candidate.id === "string") return undefined;
	}
	const accepted = options.byName ? 'a model (modelRuntime.getModel(provider, id)) or "provider/id"' : "a model";
	return new SettleError(
		"INVALID_ARGUMENT",
		`${method}: the model must be ${accepted} with string provider and id (got ${described(model)}). modelRuntime.getAvailable() lists the models you can use.`,
		{ details: { method, field: "model" } },
	);
}

/**
 * Like {@link userMessageContentError} for a custom message (`sendCustomMessage`, `pi.sendMessage`):
 * an object whose `content`, when given, is a string or text/image blocks. Stored as it was, a
 * number there broke the token count of every later run ("content is not iterable").
 */
export function customMessageError(method: string, message: unknown): SettleError | undefined {
	if (typeof message !== "object" || message === null || Array.isArray(message)) {
		return new SettleError(
			"INVALID_ARGUMENT",
			`${method}: the message must be an object { customType, content, display } (got ${described(message)}). Nothing was sent.`,
			{ details: { method, field: "message" } },
		);
	}
	const content = (message as { content?: unknown }).content;
	if (content === undefined) return undefined;
	const invalid = userMessageContentError(method, content);
	return (
		invalid && new SettleError("INVALID_ARGUMENT", `${invalid.message} Nothing was sent.`, { details: invalid.details })
	);
}

/**
 * Like {@link modelArgumentError} for a list of scoped models (`setScopedModels`): an array of
 * `{ model, thinkingLevel? }`. A string was spread letter by letter, a number threw "not iterable".
 */
export function scopedModelsError(method: string, scopedModels: unknown): SettleError | undefined {
	if (!Array.isArray(scopedModels)) {
		return new SettleError(
			"INVALID_ARGUMENT",
			`${method}: the scoped models must be an array of { model, thinkingLevel? } (got ${described(scopedModels)}). Pass [] to cycle through every available model.`,
			{ details: { method, field: "scopedModels" } },
		);
	}
	for (let index = 0; index < scopedModels.length; index++) {
		const scoped: unknown = scopedModels[index];
		const model = typeof scoped === "object" && scoped !== null ? (scoped as { model?: unknown }).model : scoped;
		const invalid = modelArgumentError(`${method}: scopedModels[${index}].model`, model);
		if (invalid) return invalid;
	}
	return undefined;
}
