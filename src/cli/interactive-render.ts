/**
 * How `settle -i` prints a session as it happens: assistant text streamed, thinking dimmed (or
 * `[thinking]` without colors), one line per tool call and a few lines of its result, errors,
 * retries, compactions and queued messages. Plain text (no ANSI codes) unless colors are on.
 */

import type { AgentToolResult } from "../agent/types.js";
import type { CompactionResult } from "../compaction/types.js";
import { errorMessage } from "../errors.js";
import type { AssistantMessageEvent, Model } from "../llm/types.js";
import { parseSkillBlock } from "../resources/skills.js";
import { userMessageText } from "../runtime/targets.js";
import type { AgentSessionEvent } from "../session/events.js";
import type { RetrySettings } from "../session/retry-policy.js";
import { RETRY_CANCELLED } from "../session/retry-policy.js";
import { redrawLines } from "../tools/output-accumulator.js";
import { sliceWholeCharacters } from "../tools/truncate.js";
import { graphemeSegmenter } from "./graphemes.js";
import { outputCapText } from "./output-cap.js";
import { retryWaitHint } from "./retry-wait-hint.js";

/** Text styles; each is the identity when colors are off. */
export interface Style {
	readonly color: boolean;
	dim(text: string): string;
	bold(text: string): string;
	red(text: string): string;
	yellow(text: string): string;
	cyan(text: string): string;
}

const ansi = (open: number, close: number) => (text: string) => (text ? `\x1b[${open}m${text}\x1b[${close}m` : text);
const same = (text: string) => text;

/**
 * The styles: ANSI codes when `color`, plain text otherwise.
 *
 * @example
 * ```ts
 * createStyle(false).red("Error"); // "Error"
 * ```
 */
export function createStyle(color: boolean): Style {
	if (!color) return { color, dim: same, bold: same, red: same, yellow: same, cyan: same };
	return { color, dim: ansi(2, 22), bold: ansi(1, 22), red: ansi(31, 39), yellow: ansi(33, 39), cyan: ansi(36, 39) };
}

/**
 * Colors only for a terminal, and never with `NO_COLOR` set (no-color.org) or `TERM=dumb`.
 *
 * @example
 * ```ts
 * shouldUseColor({ isTTY: true }, { NO_COLOR: "1" }); // false
 * ```
 */
export function shouldUseColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
	if (stream.isTTY !== true) return false;
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	return takesEscapes(env);
}

/**
 * Whether a terminal shows escape sequences as what they do: not with `TERM=dumb` (Emacs'
 * `M-x shell`, Acme's win), which prints them as text (copilot-cli#3372).
 *
 * @example
 * ```ts
 * takesEscapes({ TERM: "dumb" }); // false
 * ```
 */
export function takesEscapes(env: Record<string, string | undefined>): boolean {
	return env.TERM !== "dumb";
}

/** Lines of a tool result shown (the rest is counted). */
export const TOOL_RESULT_LINES = 4;
const ARG_VALUE_CHARS = 60;
const ARGS_CHARS = 160;
const LINE_CHARS = 200;
/** The argument a tool call is usually read by (shown bare when it is the only one). */
const PRIMARY_ARGS = ["command", "path", "file_path", "pattern", "query", "url"];

/**
 * A tool call's arguments on one line: the primary argument bare (`ls -la`), otherwise
 * `key=value` pairs, each value and the whole clipped. Must not throw.
 *
 * @example
 * ```ts
 * compactArgs({ command: "ls -la" }); // "ls -la"
 * compactArgs({ path: "a.ts", offset: 10 }); // "path=a.ts offset=10"
 * ```
 */
export function compactArgs(args: unknown): string {
	if (args === undefined || args === null) return "";
	if (typeof args !== "object" || Array.isArray(args)) return clip(oneLineText(safeJson(args)), ARGS_CHARS);
	const entries = Object.entries(args as Record<string, unknown>);
	if (entries.length === 1 && PRIMARY_ARGS.includes(entries[0]![0]) && typeof entries[0]![1] === "string") {
		return clip(oneLineText(entries[0]![1]), ARGS_CHARS);
	}
	const parts = entries.map(([key, value]) => {
		const text = typeof value === "string" && !/\s/.test(value) && value !== "" ? value : safeJson(value);
		return `${key}=${clip(oneLineText(text), ARG_VALUE_CHARS)}`;
	});
	return clip(parts.join(" "), ARGS_CHARS);
}

/** The text of a tool result: its text parts, `[image]` for images. */
export function toolResultText(result: AgentToolResult | undefined): string {
	const content = (result as { content?: unknown } | undefined)?.content;
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((part: { type?: string; text?: string }) =>
			part.type === "text" ? (part.text ?? "") : part.type === "image" ? "[image]" : "",
		)
		.join("\n");
}

/**
 * Prints session events through `write`. Tracks whether the output is at the start of a line so
 * that every notice starts on its own line, whatever was streaming.
 */
export class TranscriptPrinter {
	private atLineStart = true;
	private block: "text" | "thinking" | undefined;
	/** The current thinking block prints its label only (`hideThinkingBlock`). */
	private thinkingHidden = false;
	/** Texts the user typed in this operation: their user messages are not printed again. */
	private ownTexts: string[] = [];
	private abortShown = false;
	private queued = { steering: 0, followUp: 0 };

	constructor(
		private readonly write: (text: string) => void,
		private readonly style: Style,
		/** pi's `hideThinkingBlock` setting: thinking shows as a label only (read at each block). */
		private readonly hideThinking: () => boolean = () => false,
		/** The session's model: a cut answer's notice names its `maxTokens`. */
		private readonly model: () => Model | undefined = () => undefined,
		/** The session's retry settings: a failure not retried for its requested wait says so. */
		private readonly retrySettings: () => RetrySettings | undefined = () => undefined,
		/** The images of each queued message (the session's lists): an image-only one is not an empty notice. */
		private readonly queuedImages: () => { steering: number[]; followUp: number[] } | undefined = () => undefined,
	) {}

	/** Whether the last character written ended a line. */
	get lineStart(): boolean {
		return this.atLineStart;
	}

	/** Writes text as is. */
	raw(text: string): void {
		if (!text) return;
		this.write(text);
		this.atLineStart = text.endsWith("\n");
	}

	/** Writes `text` as a line of its own. */
	line(text: string): void {
		if (!this.atLineStart) this.raw("\n");
		this.raw(`${text}\n`);
	}

	/** An error line (`Error: …`). */
	error(error: unknown): void {
		this.line(this.style.red(`Error: ${oneLineText(errorMessage(error))}`));
	}

	/** A dimmed notice line. */
	notice(text: string): void {
		this.line(this.style.dim(text));
	}

	/** The next user message with this text is the one typed: don't echo it. */
	expectOwn(text: string): void {
		// Bounded: a text a command or template consumed never comes back as a message.
		if (this.ownTexts.push(text) > 20) this.ownTexts.shift();
	}

	/** After a Ctrl+C abort: says so, unless the aborted answer already did. */
	aborted(): void {
		if (!this.abortShown) this.line(this.style.yellow("Aborted."));
		this.abortShown = true;
	}

	/** Prints one event. Must not throw. */
	handle(event: AgentSessionEvent): void {
		const s = this.style;
		switch (event.type) {
			case "agent_start":
				this.abortShown = false;
				return;
			case "message_start": {
				const message = event.message as { role: string; content?: unknown; display?: boolean; customType?: string };
				if (message.role === "user") {
					const text = userMessageText(message.content as never);
					const own = this.ownTexts.indexOf(text);
					if (own !== -1) {
						this.ownTexts.splice(own, 1);
						return;
					}
					this.line(s.dim(`» ${firstLine(asTyped(text))}`));
				} else if (message.role === "custom" && message.display) {
					// Shown whole, as pi's TUI shows it: it is written for the user to read (an extension
					// command's report, a subagent's result), and the chat has no key that expands it (pi#2843).
					const [first = "", ...rest] = userMessageText(message.content as never)
						.trim()
						.split(/\r?\n/);
					this.line(s.dim(`[${outputLineSafe(String(message.customType))}] ${outputLineSafe(first)}`));
					for (const text of rest) this.line(s.dim(`  ${outputLineSafe(text)}`));
				}
				return;
			}
			case "message_update":
				if (event.message.role === "assistant") this.assistantDelta(event.assistantMessageEvent);
				return;
			case "message_end": {
				const message = event.message;
				if (message.role !== "assistant") return;
				this.endBlock();
				if (message.stopReason === "error") {
					const text = message.errorMessage || "the model request failed";
					this.line(s.red(`Error: ${oneLineText(sessionFileChangedForChat(text) ?? text)}`));
					const settings = this.retrySettings();
					const hint = settings && retryWaitHint(message, settings);
					if (hint) this.notice(hint);
				} else if (message.stopReason === "aborted") {
					this.aborted();
				} else if (message.stopReason === "length") {
					// The same words as `settle -p`'s warning: where the cap comes from, how to raise it.
					this.notice(`(${outputCapText(message, this.model(), "/thinking")})`);
				}
				return;
			}
			case "tool_execution_start":
				this.endBlock();
				// The name is the model's, as its arguments are: a called tool that does not exist is shown too.
				this.line(`${s.cyan("→")} ${s.bold(oneLineText(event.toolName))} ${compactArgs(event.args)}`.trimEnd());
				return;
			case "tool_execution_end": {
				const lines = toolResultText(event.result).replace(/\s+$/, "").split("\n");
				const shown = lines[0] === "" && lines.length === 1 ? [] : lines.slice(0, TOOL_RESULT_LINES);
				const paint = event.isError ? s.red : s.dim;
				if (shown.length === 0) this.line(paint(event.isError ? "  (failed, no output)" : "  (no output)"));
				for (const text of shown) this.line(paint(`  ${clip(outputLineSafe(text), LINE_CHARS)}`));
				if (lines.length > shown.length && shown.length > 0) {
					this.line(s.dim(`  … ${lines.length - shown.length} more lines`));
				}
				return;
			}
			case "auto_retry_start":
				this.line(
					s.yellow(
						`Retrying in ${(event.delayMs / 1000).toFixed(1)} s, attempt ${event.attempt}/${event.maxAttempts}: ${oneLineText(event.errorMessage)}`,
					),
				);
				return;
			case "auto_retry_end":
				if (event.success) this.notice(`Retry ${event.attempt} succeeded.`);
				else if (event.finalError === RETRY_CANCELLED) {
					// Stopped, not failed (Ctrl+C, abortRetry): said as an abort is, once (pi: "Aborted after N retry attempts").
					if (!this.abortShown) {
						this.line(s.yellow(retryCancelledText(event.attempt)));
					}
					this.abortShown = true;
				} else this.line(s.red(`Retry failed: ${oneLineText(event.finalError ?? "unknown error")}`));
				return;
			case "summarization_retry_scheduled":
				// pi 1.6 shows the error and a retry indicator; the retried attempt and the end need no line.
				this.line(
					s.yellow(
						`Summary request${event.part === "turnPrefix" ? " (split turn's prefix)" : event.part === "history" ? " (history)" : ""} failed, retrying in ${(event.delayMs / 1000).toFixed(1)} s, attempt ${event.attempt}/${event.maxAttempts}: ${oneLineText(event.errorMessage)}`,
					),
				);
				return;
			case "compaction_start":
				this.notice(`Compacting the context (${event.reason})…`);
				return;
			case "compaction_end":
				if (event.aborted && event.cancelledBy !== undefined) {
					this.line(
						s.yellow(
							`Compaction (${event.reason}) cancelled by the extension ${event.cancelledBy} (its session_before_compact handler).`,
						),
					);
				} else if (event.aborted) this.line(s.yellow(`Compaction (${event.reason}) aborted.`));
				else if (event.errorMessage) this.line(s.red(`Compaction failed: ${oneLineText(event.errorMessage)}`));
				else if (event.result) this.notice(compactedText(event.reason, event.result, event.willRetry));
				return;
			case "compaction_over_threshold":
				this.line(s.yellow(event.message));
				return;
			case "default_not_saved":
				this.line(s.yellow(`Warning: ${event.message}`));
				return;
			case "queue_update": {
				const before = this.queued;
				this.queued = { steering: event.steering.length, followUp: event.followUp.length };
				const images = this.queuedImages();
				if (event.steering.length > before.steering) {
					this.notice(`Queued (steer): ${queuedText(event.steering, images?.steering)}`);
				}
				if (event.followUp.length > before.followUp) {
					this.notice(`Queued (follow-up): ${queuedText(event.followUp, images?.followUp)}`);
				}
				return;
			}
			case "agent_settled":
				this.endBlock();
				// The prompt got no answer (an overflow compaction could not recover): say what to do.
				if (event.errorMessage) this.line(s.red(oneLineText(event.errorMessage)));
				return;
			default:
				return;
		}
	}

	private assistantDelta(event: AssistantMessageEvent): void {
		switch (event.type) {
			case "text_start":
				this.startBlock("text");
				return;
			case "text_delta":
				if (this.block !== "text") this.startBlock("text");
				this.raw(streamSafe(event.delta));
				return;
			case "thinking_start":
				this.startBlock("thinking");
				return;
			case "thinking_delta":
				if (this.block !== "thinking") this.startBlock("thinking");
				if (!this.thinkingHidden) this.raw(this.style.dim(streamSafe(event.delta)));
				return;
			case "text_end":
			case "thinking_end":
				this.endBlock();
				return;
			default:
				return;
		}
	}

	private startBlock(block: "text" | "thinking"): void {
		this.endBlock();
		this.block = block;
		if (!this.atLineStart) this.raw("\n");
		if (block !== "thinking") return;
		this.thinkingHidden = this.hideThinking();
		if (this.thinkingHidden) this.raw(this.style.dim(this.style.color ? "Thinking…" : "[thinking hidden]"));
		else this.raw(this.style.dim(this.style.color ? "Thinking: " : "[thinking] "));
	}

	private endBlock(): void {
		if (this.block !== undefined && !this.atLineStart) this.raw("\n");
		this.block = undefined;
	}
}

/**
 * A user message as typed: an expanded skill (`<skill name=…>` block, then the arguments) as
 * `/skill:name args`, not its block's first line. Other texts as they are.
 */
export function asTyped(text: string): string {
	const skill = parseSkillBlock(text);
	return skill ? `/skill:${skill.name}${skill.userMessage ? ` ${skill.userMessage}` : ""}` : text;
}

/**
 * The newest of a queued list as the "Queued" notice shows it: its first line, with its images counted
 * (`[1 image]` alone for an image-only message, as typed text alone shows none). `images` is read from
 * the session's list at the same moment: used only when it lists the same number of messages.
 */
function queuedText(texts: readonly string[], images: readonly number[] | undefined): string {
	const text = firstLine(asTyped(texts[texts.length - 1]!));
	const count = images?.length === texts.length ? images[images.length - 1]! : 0;
	if (count === 0) return text;
	const label = `${count} image${count === 1 ? "" : "s"}`;
	return text ? `${text} [+${label}]` : `[${label}]`;
}

/** The first line of a text, clipped and {@link terminalSafe}, with a count of the lines left out. */
export function firstLine(text: string): string {
	const lines = text.trim().split(/\r?\n/);
	const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
	return `${clip(terminalSafe((lines[0] ?? "").replace(/\t/g, " ")), LINE_CHARS)}${more}`;
}

/** `text` on one line (whitespace runs with a newline become one space; tabs a space), {@link terminalSafe}. */
export function oneLineText(text: string): string {
	return terminalSafe(
		text
			.trim()
			.replace(/\s*\n\s*/g, " ")
			.replace(/\t/g, " "),
	);
}

// C0 controls (ESC, BEL, CR…), DEL and the C1 controls (CSI as one character).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `text` with its control characters made visible — `␛` for ESC, `␇` for BEL, `␍` for CR (C1
 * controls as `�`) — one character for one, so lengths stay. Text read from a session file, a
 * label or a model goes through it before a line is printed: a raw `\x1b]52;c;…\x07` in a message
 * would otherwise write the user's clipboard, and other sequences move the cursor or hide text.
 *
 * @example
 * ```ts
 * terminalSafe("hi \x1b]52;c;aGk=\x07"); // "hi ␛]52;c;aGk=␇"
 * ```
 */
export function terminalSafe(text: string): string {
	return text.replace(CONTROL_CHARACTERS, (character) => {
		const code = character.charCodeAt(0);
		if (code < 0x20) return String.fromCharCode(0x2400 + code);
		return code === 0x7f ? "\u2421" : "\ufffd";
	});
}

/**
 * Streamed model text for a terminal: newlines and tabs kept, carriage returns dropped, every other
 * control character made visible ({@link terminalSafe}). One character at a time, so a sequence split
 * across deltas is caught too: a model's answer cannot set the clipboard (OSC 52) or move the cursor.
 *
 * @example
 * ```ts
 * streamSafe("ok\r\n\x1b]52;c;aGk=\x07"); // "ok\n␛]52;c;aGk=␇"
 * ```
 */
export function streamSafe(text: string): string {
	return text.replace(CONTROL_CHARACTERS, (character) =>
		character === "\n" || character === "\t" ? character : character === "\r" ? "" : terminalSafe(character),
	);
}

// CSI sequences (colors, cursor moves) as commands print them: dropped from a shown output line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const CSI_SEQUENCES = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * One line of a tool's output for a terminal: a line redrawn with `\r` as a terminal leaves it, CSI
 * sequences (colors) dropped, tabs as a space, other control characters made visible
 * ({@link terminalSafe}). With its `\r` only dropped, a `!curl` progress bar showed every frame
 * glued into one line (cursor/cursor#3842).
 */
export function outputLineSafe(line: string): string {
	const drawn = redrawLines(line, true);
	return terminalSafe(drawn.replace(CSI_SEQUENCES, "").replace(/\t/g, " ").replace(/\r/g, ""));
}

/** `text` cut to `max` characters with an ellipsis, between graphemes. */
export function clip(text: string, max: number): string {
	return text.length > max ? `${wholeGraphemes(text, max - 1)}…` : text;
}

/**
 * The longest start of `text` of at most `max` UTF-16 units that cuts no grapheme: a flag's two
 * letters, an emoji's joined parts, a letter and its accents. A flag cut in half showed as another
 * letter (handochan/aelix-ai#181). Whole code points when the first grapheme alone is longer.
 */
function wholeGraphemes(text: string, max: number): string {
	let end = 0;
	for (const { index, segment } of graphemeSegmenter().segment(text)) {
		if (index + segment.length > max) break;
		end = index + segment.length;
	}
	return end > 0 ? text.slice(0, end) : sliceWholeCharacters(text, max);
}

function safeJson(value: unknown): string {
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}

const SDK_WAY_OUT =
	" The conversation so far is still in memory (SessionManager.createBranchedSession(leafId) saves it to a new file); " +
	"or reopen the file to continue from what it holds now, or start a new session.";

/**
 * The store's refusal to append to a session file another program deleted, replaced or wrote to,
 * with its way out told in chat commands instead of SDK calls: `/clone` saves the conversation in
 * memory to a new file (oh-my-pi#12624: refused, never run unsaved). Undefined for any other text.
 *
 * @example
 * ```ts
 * sessionFileChangedForChat("Session file /s.jsonl was deleted while this session was open …"); // "… /clone saves it …"
 * sessionFileChangedForChat("the model request failed"); // undefined
 * ```
 */
export function sessionFileChangedForChat(message: string): string | undefined {
	if (!message.startsWith("Session file ") || !message.endsWith(SDK_WAY_OUT)) return undefined;
	const what = message.slice(0, -SDK_WAY_OUT.length);
	const reopen = / was deleted( with its folder .*)? while this session was open/.test(what)
		? ""
		: " /resume reopens the file as it is now;";
	return `${what} The conversation so far is still here: /clone saves it to a new session file and goes on there;${reopen} /new starts another session.`;
}

/** A compaction's result in one line (`settle -i`'s notice, `settle -p "/compact"`'s output). */
export function compactedText(
	reason: string,
	result: Pick<CompactionResult<unknown>, "tokensBefore" | "estimatedTokensAfter">,
	willRetry = false,
): string {
	const after = result.estimatedTokensAfter;
	return `Compacted (${reason}): ${result.tokensBefore} tokens before${after !== undefined ? `, about ${after} after` : ""}${willRetry ? "; retrying" : ""}.`;
}

/** A retry stopped in its backoff or retried request (Ctrl+C, abortRetry), as pi says it. */
export function retryCancelledText(attempt: number): string {
	return `Aborted after ${attempt} retry attempt${attempt === 1 ? "" : "s"}.`;
}
