/**
 * Session transcript → messages a model understands. Pure; unchanged messages
 * are returned as the same objects, so callers can cache per message and nothing is copied per turn.
 */
import type { AgentMessage, ImageContent, Message, TextContent, UserMessage } from "../llm/types.js";
import { withWellFormedToolArguments } from "../llm/well-formed.js";
import { detectImageMimeType } from "../tools/image.js";
import { counted } from "../tools/truncate.js";
import type { BashExecutionMessage } from "./messages.js";

export const COMPACTION_SUMMARY_PREFIX =
	"The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
export const BRANCH_SUMMARY_PREFIX =
	"The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
export const BRANCH_SUMMARY_SUFFIX = "</summary>";
/** What an image becomes when image input is blocked. */
export const IMAGE_BLOCKED_TEXT = "Image reading is disabled.";

/** Image types every provider Settle talks to accepts inline. */
export const SUPPORTED_PROMPT_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * What an image block no provider takes inline becomes in a request: one of another type than
 * {@link SUPPORTED_PROMPT_IMAGE_TYPES} (piclaw#9: a tool returned a PDF as an image block), or one
 * whose data is not base64 (openclaw#18212) or whose bytes are no such image ({@link NOT_AN_IMAGE_TEXT}).
 * Providers refuse the whole request (400), and the block
 * stays in the transcript: every later request of the session failed. `undefined` for an image
 * that can be sent.
 *
 * @example
 * ```ts
 * unsendableImageText({ type: "image", data: "JVBERi0=", mimeType: "application/pdf" });
 * // "[Image omitted: application/pdf is not a supported image type (image/png, image/jpeg, image/gif, image/webp).]"
 * ```
 */
export function unsendableImageText(image: ImageContent): string | undefined {
	if (!(SUPPORTED_PROMPT_IMAGE_TYPES as readonly string[]).includes(image.mimeType)) {
		return `[Image omitted: ${image.mimeType || "an unknown type"} is not a supported image type (${SUPPORTED_PROMPT_IMAGE_TYPES.join(", ")}).]`;
	}
	// As the prompt-image path says it: a 404's empty body is no image, not data in another encoding.
	if (typeof image.data !== "string" || image.data.length === 0) return "[Image omitted: it has no image data.]";
	if (!isBase64(image)) return "[Image omitted: its data is not base64.]";
	return isImageData(image) ? undefined : NOT_AN_IMAGE_TEXT;
}

/**
 * What an image block whose bytes are no PNG, JPEG, GIF or WebP becomes: a `.png` that held a
 * server's JSON or HTML error page (opencode#48476, cc-haha#907); providers refuse such data.
 */
export const NOT_AN_IMAGE_TEXT =
	"[Image omitted: its data is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise); check the file or URL it came from.]";

/** Whether the data starts with the magic bytes of a PNG, JPEG, GIF or WebP image. */
function isImageData(image: ImageContent): boolean {
	return detectImageMimeType(Buffer.from(image.data.slice(0, 24), "base64")) !== undefined;
}

/**
 * Verdicts per image block: every request converts the whole history, and the transcript hands the
 * same block objects turn after turn, so each image's data is scanned once, not once per turn. The
 * data is kept beside the verdict so a block whose data was replaced is scanned again.
 */
const base64Verdicts = new WeakMap<ImageContent, { data: unknown; base64: boolean }>();

function isBase64(image: ImageContent): boolean {
	const known = base64Verdicts.get(image);
	if (known && known.data === image.data) return known.base64;
	// Standard base64: its alphabet, at most two `=` at the end; a length of 4n+1 never decodes.
	const base64 = typeof image.data === "string" && !(image.data.length % 4 === 1 || !BASE64.test(image.data));
	base64Verdicts.set(image, { data: image.data, base64 });
	return base64;
}

/** Options of {@link convertMessageToLlm}. */
export interface ConvertToLlmOptions {
	/** Replace image blocks of user and tool-result messages by {@link IMAGE_BLOCKED_TEXT}. */
	blockImages?: boolean;
}

/**
 * The user-message text of a bash execution: ``Ran `<command>` `` (a longer inline fence when the
 * command holds backticks) then the output in a fence (or `(no output)`), then `Command timed out
 * after N seconds`, `(command cancelled)` or `Command exited with code N` (non-zero codes only),
 * then the truncation note (naming the full-output file, or saying none was saved). The fence is longer than any
 * run of backticks in the output, so output holding a fence of its own stays inside it.
 *
 * @example
 * ```ts
 * bashExecutionToText({ role: "bashExecution", command: "ls", output: "a", exitCode: 0, cancelled: false,
 *   truncated: false, timestamp: 0 }); // "Ran `ls`\n```\na\n```"
 * ```
 */
export function bashExecutionToText(message: BashExecutionMessage): string {
	let text = `Ran ${inlineCode(message.command)}\n`;
	const fence = fenceFor(message.output);
	text += message.output ? `${fence}\n${message.output}\n${fence}` : "(no output)";
	if (message.timedOutAfter !== undefined) {
		text += `\n\nCommand timed out after ${counted(message.timedOutAfter, "second")}`;
	} else if (message.cancelled) {
		text += "\n\n(command cancelled)";
	} else if (message.killedBySignal) {
		text += "\n\nCommand was killed by a signal";
	} else if (message.exitCode !== null && message.exitCode !== undefined && message.exitCode !== 0) {
		text += `\n\nCommand exited with code ${message.exitCode}`;
	}
	if (message.notUtf8) {
		// As the bash tool says it (wave-agent#1753): the model can convert the kept bytes.
		text += message.fullOutputPath
			? `\n\n[Bytes that are not UTF-8 text are shown as \ufffd; ${message.fullOutputPath} keeps them: convert it with iconv -f <its encoding> -t UTF-8 (for example GBK, SHIFT_JIS, CP1252).]`
			: "\n\n[Bytes that are not UTF-8 text are shown as \ufffd.]";
	}
	if (message.truncated && message.fullOutputPath) {
		text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
	} else if (message.truncated) {
		// No file to name (an unusable temp folder): the model must still know this is not all of it (antirez/ds4#680).
		text += "\n\n[Output truncated: only its end is shown. The full output could not be saved.]";
	}
	return text;
}

/**
 * `text` as markdown inline code: a fence of backticks no run in `text` matches (one when it holds
 * none), padded with a space when `text` starts or ends with a backtick. A fixed single backtick
 * closed early on a command holding one (`` echo `date` ``).
 */
function inlineCode(text: string): string {
	if (!text.includes("`")) return `\`${text}\``;
	const runs = new Set([...text.matchAll(/`+/g)].map((run) => run[0].length));
	let length = 1;
	while (runs.has(length)) length++;
	const fence = "`".repeat(length);
	const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
	return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * A code fence longer than the longest run of backticks in `output` (three at least). A fixed
 * three closed early on output holding a fence (`cat README.md`): the rest, and a cut output's
 * unclosed block, read as the user's own text (getspecstory#241, mcp-ts-core#375).
 */
function fenceFor(output: string): string {
	if (!output.includes("```")) return "```";
	let longest = 0;
	for (const run of output.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
	return "`".repeat(longest + 1);
}

/**
 * Converts one transcript message. user / assistant / toolResult pass through (the same object
 * unless images are blocked or one cannot be sent: that block becomes the
 * {@link unsendableImageText} note; the transcript keeps it; a lone surrogate in a tool call's
 * arguments is sent as U+FFFD); custom → user (string content becomes one text block); a user or
 * custom message whose content is an empty list → `undefined` (nothing to send);
 * bashExecution → user text ({@link bashExecutionToText}), `undefined` when `excludeFromContext`;
 * compactionSummary / branchSummary → user text in their `<summary>` wrappers; system and unknown
 * roles → `undefined` (the system prompt travels separately).
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * const llm = convertMessageToLlm(messages[0]!, { blockImages: settingsManager.getBlockImages() });
 * ```
 */
export function convertMessageToLlm(message: AgentMessage, options: ConvertToLlmOptions = {}): Message | undefined {
	let converted: Message | undefined;
	switch (message.role) {
		case "user":
			if (hasNoContent(message.content)) return undefined;
			converted = message;
			break;
		case "assistant":
			converted = withWellFormedToolArguments(message);
			break;
		case "toolResult":
			converted = message;
			break;
		case "custom":
			if (hasNoContent(message.content)) return undefined;
			converted = {
				role: "user",
				content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
				timestamp: message.timestamp,
			};
			break;
		case "bashExecution":
			if (message.excludeFromContext) return undefined;
			converted = userText(bashExecutionToText(message), message.timestamp);
			break;
		case "compactionSummary":
			converted = userText(COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX, message.timestamp);
			break;
		case "branchSummary":
			converted = userText(BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX, message.timestamp);
			break;
		default:
			return undefined;
	}
	return options.blockImages ? withoutImages(converted) : withoutUnsendableImages(converted);
}

/**
 * Converts a transcript ({@link convertMessageToLlm} per message, dropping what the model never sees).
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * const agent = new Agent({ convertToLlm: (messages) => convertToLlm(messages, { blockImages: false }) });
 * ```
 */
export function convertToLlm(messages: readonly AgentMessage[], options: ConvertToLlmOptions = {}): Message[] {
	const result: Message[] = [];
	for (const message of messages) {
		const converted = convertMessageToLlm(message, options);
		if (converted) result.push(converted);
	}
	return result;
}

/**
 * Whether a user-side message has no block to send: a stored one whose content could not be read
 * (`42`, `null`, only unknown blocks: read as `[]`, reported on open as `invalid_field`). Such a
 * message is left out of the request: Bedrock refuses an empty user content, most other providers
 * drop it themselves, and pi 0.73.1 fails every request of such a session ("msg.content.map is not a
 * function"). The file and the session's context keep it.
 */
function hasNoContent(content: unknown): boolean {
	return Array.isArray(content) && content.length === 0;
}

function userText(text: string, timestamp: number): UserMessage {
	return { role: "user", content: [{ type: "text", text }], timestamp };
}

function withoutUnsendableImages(message: Message): Message {
	if (message.role === "assistant" || typeof message.content === "string") return message;
	const content: (TextContent | ImageContent)[] = message.content;
	let replaced: (TextContent | ImageContent)[] | undefined;
	content.forEach((block, index) => {
		const note = block.type === "image" ? unsendableImageText(block) : undefined;
		if (note === undefined) return;
		replaced ??= [...content];
		replaced[index] = { type: "text", text: note };
	});
	return replaced ? ({ ...message, content: replaced } as Message) : message;
}

function withoutImages(message: Message): Message {
	if (message.role === "assistant" || typeof message.content === "string") return message;
	const content: (TextContent | ImageContent)[] = message.content;
	if (!content.some((block) => block.type === "image")) return message;
	const replaced: (TextContent | ImageContent)[] = [];
	for (const block of content) {
		const next = block.type === "image" ? { type: "text" as const, text: IMAGE_BLOCKED_TEXT } : block;
		const previous = replaced[replaced.length - 1];
		const duplicate =
			next.type === "text" &&
			next.text === IMAGE_BLOCKED_TEXT &&
			previous?.type === "text" &&
			previous.text === IMAGE_BLOCKED_TEXT;
		if (!duplicate) replaced.push(next);
	}
	return { ...message, content: replaced } as Message;
}

/**
 * Wraps a whole-transcript converter so that no request carries a `toolResult` whose tool call is
 * not in an assistant message before it. Only a session file can hold one (pi#4570: an inner
 * compaction written between a call and its result, then a later compaction that keeps the result
 * but summarizes the call away); providers refuse it ("No tool call found for function call
 * output") on every later request. The file and the session's context keep it; the request leaves
 * it out. Incremental like the converter: each call looks only at the messages appended since the
 * last one, unless the converter returned a new array. Tool calls stored with an empty id (pi-ai's
 * for an Ollama call sent without one, LangBot#2261) are sent with one derived from their message,
 * their results with it: Anthropic and OpenAI Responses refuse an empty id.
 *
 * @example
 * ```ts
 * const agent = new Agent({ convertToLlm: pairToolResults(createLlmMessageConverter(convertMessageToLlm)) });
 * ```
 */
export function pairToolResults(
	convert: (messages: AgentMessage[]) => Message[],
): (messages: AgentMessage[]) => Message[] {
	let scanned: Message[] | undefined;
	let count = 0;
	let last: Message | undefined;
	// The last assistant message scanned: a result answers a call of it but for a rare interleaving.
	// No set of every call id: hashing each new id cost more than the rest of the check.
	let lastAssistant: Message | undefined;
	let idless = false;
	let orphaned = false;
	return (messages) => {
		let llm = convert(messages);
		if (llm !== scanned || llm.length < count || (count > 0 && llm[count - 1] !== last)) {
			scanned = llm;
			count = 0;
			lastAssistant = undefined;
			idless = false;
			orphaned = false;
		}
		for (let index = count; index < llm.length; index++) {
			const message = llm[index]!;
			if (message.role === "assistant") {
				lastAssistant = message;
				if (!idless && hasToolCall(message, "")) idless = true;
			} else if (message.role === "toolResult" && !orphaned) {
				const id = message.toolCallId;
				const paired = (lastAssistant && hasToolCall(lastAssistant, id)) || calledBefore(llm, index, id);
				if (!paired) orphaned = true;
			}
		}
		count = llm.length;
		last = llm[count - 1];
		if (idless) llm = withIdsForIdlessCalls(llm);
		return orphaned ? withoutOrphanedToolResults(llm) : llm;
	};
}

/** Whether `message` is an assistant message with a tool call of this id. */
function hasToolCall(message: Message, id: string): boolean {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return false;
	for (const block of message.content) if (block.type === "toolCall" && block.id === id) return true;
	return false;
}

/** Whether an assistant message before `end` holds a tool call of this id. */
function calledBefore(messages: readonly Message[], end: number, id: string): boolean {
	for (let index = end - 1; index >= 0; index--) if (hasToolCall(messages[index]!, id)) return true;
	return false;
}

function addToolCalls(message: Message, calls: Set<string>): void {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return;
	for (const block of message.content) if (block.type === "toolCall") calls.add(block.id);
}

/** `messages` less every tool result whose call does not come before it (a new array). */
function withoutOrphanedToolResults(messages: readonly Message[]): Message[] {
	const calls = new Set<string>();
	const kept: Message[] = [];
	for (const message of messages) {
		if (message.role === "assistant") addToolCalls(message, calls);
		else if (message.role === "toolResult" && !calls.has(message.toolCallId)) continue;
		kept.push(message);
	}
	return kept;
}

/**
 * `messages` with each tool call stored with an empty id given `call_<timestamp>_<block>` (the same
 * at every request and reopen), and each empty-id result after it given its call's id, in order.
 */
function withIdsForIdlessCalls(messages: readonly Message[]): Message[] {
	let open: string[] = [];
	return messages.map((message) => {
		if (message.role === "assistant") {
			open = [];
			if (!message.content.some((block) => block.type === "toolCall" && block.id === "")) return message;
			const content = message.content.map((block, index) => {
				if (block.type !== "toolCall" || block.id !== "") return block;
				const id = `call_${message.timestamp}_${index}`;
				open.push(id);
				return { ...block, id };
			});
			return { ...message, content };
		}
		if (message.role !== "toolResult" || message.toolCallId !== "") return message;
		const id = open.shift();
		return id === undefined ? message : { ...message, toolCallId: id };
	});
}
