/**
 * Shape checks of what a host hands `prompt`, `steer`, `followUp` and `sendUserMessage`. The
 * types already say it; these catch what TypeScript cannot (plain JavaScript, `req.body.message`
 * that is missing) before anything reaches the prompt-operation machine, where a non-string text
 * used to throw inside the actor: an uncaught exception and a session stuck in `preflight`.
 */
import { SettleError } from "../errors.js";
import { isUsableBlock } from "../store/entry-shape.js";

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

/**
 * Why `value` cannot be a prompt's `streamingBehavior`, or undefined when it can (absent,
 * `"steer"` or `"followUp"`). pi queues any other value as a steer, so `"follow_up"` (the RPC
 * command's name) put a message meant for after the run into it.
 *
 * @example
 * ```ts
 * streamingBehaviorError("session.prompt", "follow_up")?.message; // names "steer" and "followUp"
 * ```
 */
export function streamingBehaviorError(method: string, value: unknown): SettleError | undefined {
	if (value === undefined || value === "steer" || value === "followUp") return undefined;
	return new SettleError(
		"INVALID_ARGUMENT",
		`${method}: streamingBehavior must be "steer" or "followUp" (got ${described(value)}). "steer" delivers the message after the current tool calls, "followUp" once the agent would stop; leave it out when the session is idle.`,
		{ details: { method, field: "streamingBehavior" } },
	);
}

/** Why `content` cannot be a user message's content (text or text/image blocks), naming it `owner`. */
function userContentProblem(owner: string, content: unknown): string | undefined {
	if (typeof content === "string" || (Array.isArray(content) && content.every(isContentBlock))) return undefined;
	return `${owner} must be a string or an array of { type: "text", text } and ${IMAGE_SHAPE} blocks (got ${described(content)})`;
}

/** Like {@link promptInputError} for `sendUserMessage`'s content: a string or text/image blocks. */
export function userMessageContentError(method: string, content: unknown): SettleError | undefined {
	const problem = userContentProblem("the content", content);
	if (problem === undefined) return undefined;
	return new SettleError("INVALID_ARGUMENT", `${method}: ${problem}.`, { details: { method, field: "content" } });
}

/**
 * `sendUserMessage([])`: a block list with nothing in it is a caller's mistake (a filter that left
 * nothing), not a message; it would send the model a user turn with no text. A string, `""` too, is
 * what the caller chose to say and goes through, as with `prompt("")`.
 */
export function emptyUserMessageError(method: string, content: unknown): SettleError | undefined {
	if (!Array.isArray(content) || content.length > 0) return undefined;
	return new SettleError(
		"INVALID_ARGUMENT",
		`${method}: the content is empty: pass a string or at least one text or image block. Nothing was sent.`,
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

/**
 * `customTools` that are not a list, or an entry without a name or an `execute` function: in
 * plain JavaScript these were taken as they were, and the tool was missing ("Tool t not found")
 * or failed only when the model called it ("definition.execute is not a function").
 *
 * @example
 * ```ts
 * customToolsError("createAgentSession", [{ name: "t" }])?.message; // 'createAgentSession: customTools[0] ("t") has no execute function (got undefined). …'
 * ```
 */
export function customToolsError(method: string, value: unknown): SettleError | undefined {
	if (value === undefined) return undefined;
	const hint = "Give each tool { name, label, description, parameters, execute }, e.g. with defineTool({ … }).";
	const invalid = (problem: string, index?: number) =>
		new SettleError("INVALID_ARGUMENT", `${method}: ${problem}. ${hint}`, {
			details: { method, field: "customTools", ...(index === undefined ? {} : { index }) },
		});
	if (!Array.isArray(value)) return invalid(`customTools must be a list of tool definitions (got ${described(value)})`);
	for (const [index, tool] of value.entries()) {
		if (typeof tool !== "object" || tool === null) {
			return invalid(`customTools[${index}] must be a tool definition (got ${described(tool)})`, index);
		}
		const { name, execute } = tool as { name?: unknown; execute?: unknown };
		if (typeof name !== "string" || name === "") {
			return invalid(`customTools[${index}] has no name (got ${described(name)})`, index);
		}
		// atlas-mcp-server#14: Anthropic and OpenAI answer 400 to every request carrying another name.
		if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
			return invalid(
				`customTools[${index}] (${JSON.stringify(name)}) has a name providers refuse: only letters, digits, "_" and "-", at most 64`,
				index,
			);
		}
		if (typeof execute !== "function") {
			return invalid(
				`customTools[${index}] (${JSON.stringify(name)}) has no execute function (got ${described(execute)})`,
				index,
			);
		}
		const { parameters } = tool as { parameters?: unknown };
		if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
			return invalid(
				`customTools[${index}] (${JSON.stringify(name)}) has no parameters schema object (got ${described(parameters)}); use Type.Object({}) for a tool without arguments`,
				index,
			);
		}
	}
	return undefined;
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
 * an object with a string `customType` whose `content`, when given, is a string or text/image blocks. Stored as it was, a
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
	const { customType, content } = message as { customType?: unknown; content?: unknown };
	// Refused later otherwise: when the queued message is stored, by then part of someone's prompt or run.
	if (typeof customType !== "string") {
		return new SettleError(
			"INVALID_ARGUMENT",
			`${method}: the message's customType must be a string (got ${described(customType)}). Pass your extension's name for it. Nothing was sent.`,
			{ details: { method, field: "customType" } },
		);
	}
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

const BLOCKS_HINT =
	'Pass a list of { type: "text", text }, { type: "image", data, mimeType }, thinking or toolCall blocks.';

function fieldError(method: string, outcome: string, field: string, problem: string, hint: string): SettleError {
	return new SettleError("INVALID_ARGUMENT", `${method}: ${problem}. ${hint ? `${hint} ` : ""}${outcome}`, {
		details: { method, field },
	});
}

function textFieldError(
	method: string,
	outcome: string,
	owner: string,
	message: Record<string, unknown>,
	field: string,
	hint: string,
): SettleError | undefined {
	const value = message[field];
	if (typeof value === "string") return undefined;
	return fieldError(method, outcome, field, `the ${owner}'s ${field} must be a string (got ${described(value)})`, hint);
}

/** Why `content` is not a list of blocks the context can send (entry-shape's reading rule), or undefined. */
function blockListProblem(owner: string, content: unknown): string | undefined {
	if (!Array.isArray(content)) {
		return `the ${owner}'s content must be an array of content blocks (got ${described(content)})`;
	}
	let index = 0;
	while (index < content.length && isUsableBlock(content[index])) index++;
	if (index === content.length) return undefined;
	const block: unknown = content[index];
	const what =
		typeof block === "object" && block !== null && !Array.isArray(block)
			? `a block of type ${described((block as { type?: unknown }).type)}`
			: described(block);
	return `the ${owner}'s content[${index}] is ${what}, not a text, image, thinking or toolCall block`;
}

/**
 * Why `message` cannot be stored as a message entry (`appendMessage`), or undefined when it can:
 * per role, the fields the context, the request and a reader of the file use. User and custom
 * content is text or text/image blocks (as {@link userMessageContentError}); assistant and tool
 * result content a list of blocks the context can send (the rule the reader reports stored entries
 * by); a tool result names its call and tool, a custom message its type, a bash execution its
 * command and output. Assistant and tool-result block fields are not checked (pi stores a tool
 * result whose text is `42` and sends it as it is); roles Settle does not know (an extension's
 * own) are stored as they are.
 */
export function messageShapeError(
	method: string,
	message: unknown,
	outcome = "Nothing was written.",
): SettleError | undefined {
	const role =
		typeof message === "object" && message !== null && !Array.isArray(message)
			? (message as { role?: unknown }).role
			: undefined;
	if (typeof role !== "string") {
		return fieldError(
			method,
			outcome,
			"role",
			`the message must be an object with a string role (got ${described(message)})`,
			'Pass e.g. { role: "user", content: "fix the test", timestamp: Date.now() }.',
		);
	}
	const fields = message as Record<string, unknown>;
	switch (role) {
		case "custom":
		case "user": {
			const typeError =
				role === "custom"
					? textFieldError(
							method,
							outcome,
							"custom message",
							fields,
							"customType",
							"Pass your extension's name for it.",
						)
					: undefined;
			if (typeError) return typeError;
			const problem = userContentProblem(`the ${role} message's content`, fields.content);
			return problem === undefined ? undefined : fieldError(method, outcome, "content", problem, "");
		}
		case "assistant":
		case "toolResult": {
			const problem = blockListProblem(`${role} message`, fields.content);
			if (problem) return fieldError(method, outcome, "content", problem, BLOCKS_HINT);
			if (role === "assistant") return undefined;
			const hint = "Pass the id and name of the toolCall block it answers.";
			return (
				textFieldError(method, outcome, "toolResult message", fields, "toolCallId", hint) ??
				textFieldError(method, outcome, "toolResult message", fields, "toolName", hint)
			);
		}
		case "bashExecution": {
			const hint = "Pass the command that ran and its output as text.";
			return (
				textFieldError(method, outcome, "bashExecution message", fields, "command", hint) ??
				textFieldError(method, outcome, "bashExecution message", fields, "output", hint)
			);
		}
		default:
			return undefined;
	}
}

const BASH_RESULT_SHAPE =
	"{ output: string, exitCode: number | undefined, cancelled: boolean, truncated: boolean, fullOutputPath?: string, timedOutAfter?: number, notUtf8?: boolean, killedBySignal?: boolean }";

/**
 * Like {@link promptInputError} for `recordBashResult(command, result)`: a string command and a
 * result of {@link BASH_RESULT_SHAPE}. Checked here, at the call: a `null` result threw a bare
 * TypeError, and a result `appendMessage` refuses (`output: 42`) would, while a run streams, be
 * refused only when the held result is written, inside the run.
 */
export function bashResultError(method: string, command: unknown, result: unknown): SettleError | undefined {
	const fail = (field: string, problem: string) =>
		new SettleError("INVALID_ARGUMENT", `${method}: ${problem}. Nothing was recorded.`, { details: { method, field } });
	if (typeof command !== "string") return fail("command", `the command must be a string (got ${described(command)})`);
	if (typeof result !== "object" || result === null || Array.isArray(result)) {
		return fail("result", `the result must be ${BASH_RESULT_SHAPE} (got ${described(result)})`);
	}
	const { output, exitCode, cancelled, truncated, fullOutputPath, timedOutAfter, notUtf8, killedBySignal } =
		result as Record<string, unknown>;
	const wrong = (field: string, value: unknown, expected: string) =>
		fail(field, `the result's ${field} must be ${expected} (got ${described(value)}); pass ${BASH_RESULT_SHAPE}`);
	if (typeof output !== "string") return wrong("output", output, "a string");
	if (exitCode != null && typeof exitCode !== "number") return wrong("exitCode", exitCode, "a number or undefined");
	if (typeof cancelled !== "boolean") return wrong("cancelled", cancelled, "a boolean");
	if (typeof truncated !== "boolean") return wrong("truncated", truncated, "a boolean");
	if (fullOutputPath !== undefined && typeof fullOutputPath !== "string") {
		return wrong("fullOutputPath", fullOutputPath, "a string or undefined");
	}
	if (timedOutAfter !== undefined && !(typeof timedOutAfter === "number" && timedOutAfter > 0)) {
		return wrong("timedOutAfter", timedOutAfter, "a positive number of seconds or undefined");
	}
	if (notUtf8 !== undefined && typeof notUtf8 !== "boolean") return wrong("notUtf8", notUtf8, "a boolean or undefined");
	if (killedBySignal !== undefined && typeof killedBySignal !== "boolean") {
		return wrong("killedBySignal", killedBySignal, "a boolean or undefined");
	}
	return undefined;
}
