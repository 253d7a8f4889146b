/**
 * The chat's lines from stdin, opened before the chat starts when something must be asked first
 * (`settle -r`: which session to start on, before any session exists). Lines read meanwhile (typed
 * ahead, or piped all at once) are kept: the question takes the first, the chat gets the rest.
 */
import type { Interface } from "node:readline";
import type { Readable } from "node:stream";
import type { ReadStream } from "node:tty";
import { loadReadline } from "../lazy-deps.js";
import { graphemeSegmenter } from "./graphemes.js";
import { takesEscapes } from "./interactive-render.js";

/** Lines the input line's history keeps (Up / Down). */
export const HISTORY_SIZE = 500;

/**
 * How a line break shows in a message recalled with Up: readline edits one terminal line, where a
 * raw break would move the cursor off the prompt. Enter gives the breaks back ({@link ChatInput.takeLine}).
 */
export const LINE_BREAK_MARK = "\u21b5";

const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";
/** The signals whose default kill would leave the terminal as the input set it. */
const FALLBACK_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

/** Options of {@link ChatInput}. */
export interface ChatInputOptions {
	/** Where lines come from (default `process.stdin`). */
	input?: Readable;
	/** Line editing, history and Ctrl+C as a key (default: stdin and stdout are terminals). */
	terminal?: boolean;
}

/**
 * One readline over the chat's input, shared by a question asked before the chat and the chat
 * itself: lines nobody waits for are kept until {@link ChatInput.handOver} gives them to the chat.
 *
 * @example
 * ```ts
 * import { PassThrough } from "node:stream";
 * const input = new PassThrough();
 * const lines = new ChatInput({ input, terminal: false });
 * input.end("2\nhello\n");
 * const answer = await lines.ask("Which? ", (text) => process.stdout.write(text)); // "2"
 * const { lines: rest } = lines.handOver(); // ["hello"]
 * ```
 */
export class ChatInput {
	/** The readline the chat goes on with. */
	readonly rl: Interface;
	/** Whether the readline edits lines on a terminal. */
	readonly terminal: boolean;
	/** Whether lines read are echoed into the transcript (a pipe: the terminal does not show them). */
	readonly echoInput: boolean;
	/** Between the terminal's paste-start and paste-end marks: a line read now ends at a pasted line break, not at Enter. */
	pasting = false;
	/**
	 * True while the line read ends at a typed line feed (Ctrl+J, or Shift+Enter where the terminal
	 * is set to send one: Ghostty's `shift+enter=text:\n`, Zed): a line break in the message, as in pi's editor.
	 */
	lineFeedTyped = false;
	/** True while the line read ends at Alt+Enter (`ESC` + Enter), which readline ignores: pi's follow-up key. */
	followUpTyped = false;
	/** Set once the terminal hung up (its window closed, the SSH link gone): nothing can be read or shown any more. */
	terminalLost = false;
	/** Called once when the terminal hangs up (see {@link terminalLost}). */
	onTerminalLost: (() => void) | undefined;
	/** Called on Shift+Tab (a terminal's `ESC [ Z`), which readline itself ignores. */
	onShiftTab: (() => void) | undefined;
	/** Called on Esc (alone, not starting a key's sequence), which readline itself ignores. */
	onEscape: (() => void) | undefined;
	/** Asked on a terminal resize: false while the prompt is hidden (a run prints), so nothing is redrawn. */
	showsPrompt: (() => boolean) | undefined;
	/**
	 * Asked on Ctrl+D at an empty line: true when a message is still being typed (its earlier lines
	 * held), so the key ends nothing; undefined or false, it ends the input as readline does.
	 */
	onEndWhileTyping: (() => boolean) | undefined;
	/** Whether the line being edited came from the history with a {@link LINE_BREAK_MARK} in it. */
	private recalledBreaks = false;
	private readonly unread: string[] = [];
	private ended = false;
	private readonly input: NodeJS.ReadableStream;
	private waiting: ((line: string | undefined) => void) | undefined;

	constructor(options: ChatInputOptions = {}) {
		const input = options.input ?? process.stdin;
		this.input = input;
		this.terminal = options.terminal ?? (process.stdin.isTTY === true && process.stdout.isTTY === true);
		this.echoInput = !this.terminal && (input as { isTTY?: boolean }).isTTY !== true;
		const resizeListeners = new Set(process.stdout.listeners("resize"));
		this.rl = loadReadline().createInterface({
			input,
			...(this.terminal ? { output: process.stdout } : {}),
			terminal: this.terminal,
			prompt: "> ",
			historySize: HISTORY_SIZE,
			crlfDelay: Number.POSITIVE_INFINITY,
		});
		this.rl.on("line", this.onLine);
		this.rl.on("close", this.onClose);
		if (this.terminal) {
			this.rl.on("SIGINT", this.onUnclaimedInterrupt);
			for (const signal of FALLBACK_SIGNALS) process.on(signal, this.onUnhandledSignal);
			this.rl.once("close", this.stopSignalFallback);
			editByGraphemes(this.rl);
			insertAtCursor(this.rl);
			this.editKeys();
			this.redrawOnlyAtPrompt(resizeListeners);
			this.markRecalledBreaks();
			// Bracketed paste, as pi's TUI asks for it: the terminal marks a paste, so its line breaks
			// are told apart from Enter (hermes-agent#10994: a multi-line paste was one message per line).
			input.on("keypress", (_text: string | undefined, key: { name?: string; shift?: boolean } | undefined) => {
				if (key?.name === "paste-start") this.pasting = true;
				else if (key?.name === "paste-end") this.pasting = false;
				else if (key?.name === "tab" && key.shift === true && !this.pasting) this.onShiftTab?.();
				else if (key?.name === "escape" && !this.pasting) this.onEscape?.();
			});
			if (takesEscapes(process.env)) {
				process.stdout.write(BRACKETED_PASTE_ON);
				process.once("exit", this.endPasteMode);
				this.rl.once("close", this.endPasteMode);
			}
			const tty = input as Partial<ReadStream>;
			if (tty.isTTY === true && typeof tty.setRawMode === "function") {
				// Before readline's own listener: its close sets the terminal's mode back, which throws EIO on
				// a terminal that hung up, out of an event handler (exit 1, the running command orphaned).
				input.prependListener("end", () => this.checkTerminal(tty as ReadStream));
			}
		}
	}

	/**
	 * Ctrl+C that neither a question nor the chat listens for (`settle -r` loading the picked
	 * session's extensions): a SIGINT, as the terminal sends it out of raw mode. Readline alone
	 * closed the input: the key was lost, and the chat then started and ended at once as on Ctrl+D.
	 * Given to the process's listeners directly: on Windows `process.kill` would end the process at once.
	 */
	private readonly onUnclaimedInterrupt = (): void => {
		if (this.rl.listenerCount("SIGINT") !== 1) return;
		if (process.listenerCount("SIGINT") > 0) process.emit("SIGINT", "SIGINT");
		else process.kill(process.pid, "SIGINT");
	};

	/**
	 * SIGINT or SIGTERM that nothing else handles (`settle -r` between its start-up steps, before the
	 * chat takes the signals over): the terminal is given back (raw mode off, no paste marks), then the
	 * process dies of the signal as it would have. Node's default kill left the shell's terminal
	 * asking for paste marks.
	 */
	private readonly onUnhandledSignal = (signal: NodeJS.Signals): void => {
		if (process.listenerCount(signal) > 1) return; // a handler of the start-up step or of the chat
		this.stopSignalFallback();
		try {
			this.rl.close();
		} catch {
			// the terminal hung up: nothing to give back
		}
		process.kill(process.pid, signal);
	};

	private readonly stopSignalFallback = (): void => {
		for (const signal of FALLBACK_SIGNALS) process.off(signal, this.onUnhandledSignal);
	};

	/**
	 * The input of a terminal in raw mode ends only when the terminal hung up: no probe is needed, and
	 * none can be trusted, as the kernel ends the read before it fails mode changes (a probe that
	 * passed in that window took the hang-up for Ctrl+D; the chat ended as a clean exit and the SIGHUP
	 * that followed killed settle mid-shutdown). Out of raw mode a mode change tells: it fails (EIO)
	 * once the terminal hung up. Once lost, mode changes are skipped and {@link onTerminalLost} runs.
	 */
	private checkTerminal(tty: ReadStream): void {
		const raw = tty.isRaw;
		if (raw) {
			this.loseTerminal();
			return;
		}
		try {
			// Changed and set back: setting the mode it has is skipped without asking the terminal.
			tty.setRawMode(!raw);
			tty.setRawMode(raw);
			return; // still there: an ordinary end of input
		} catch {
			// hung up
		}
		this.loseTerminal();
	}

	/**
	 * The terminal hung up (its input ended, or a write failed with EIO): from now on mode changes are
	 * skipped, as they would throw EIO, and {@link onTerminalLost} runs, once.
	 */
	loseTerminal(): void {
		if (this.terminalLost) return;
		const tty = this.input as Partial<ReadStream>;
		if (typeof tty.setRawMode === "function") tty.setRawMode = () => tty as ReadStream;
		this.terminalLost = true;
		this.onTerminalLost?.();
	}

	/**
	 * A message for the input line's history (Up / Down): its line breaks as {@link LINE_BREAK_MARK}.
	 *
	 * @example
	 * ```ts
	 * ChatInput.historyEntry("fix the tests\nthen push"); // "fix the tests↵then push"
	 * ```
	 */
	static historyEntry(message: string): string {
		return message.replaceAll("\n", LINE_BREAK_MARK);
	}

	/**
	 * The message a line read stands for: a line recalled from the history (edited or not) has its
	 * line breaks back; a mark typed on a line of its own stays a mark.
	 */
	takeLine(read: string): string {
		const recalled = this.recalledBreaks;
		this.recalledBreaks = false;
		return recalled ? read.replaceAll(LINE_BREAK_MARK, "\n") : read;
	}

	/** The line being edited as the message it stands for (an extension's `getEditorText`). */
	get editedText(): string {
		return this.recalledBreaks ? this.rl.line.replaceAll(LINE_BREAK_MARK, "\n") : this.rl.line;
	}

	/**
	 * Keys readline gets wrong for a message being typed. Ctrl+D ends the chat only when nothing is
	 * being typed (copilot-cli#938): readline takes an empty line for an empty input, so on a
	 * message's next line (after a pasted break or `\` + Enter) it exited and the lines held were
	 * lost. A line feed typed on its own is a line break (claude-code#1282, pi#7257): readline
	 * (with CRLF read as one line end) dropped the first one after any Enter and took the next for Enter.
	 */
	private editKeys(): void {
		const editor = this.rl as unknown as { line: string } & Record<symbol, (...args: unknown[]) => void>;
		const key = readlineMethod(this.rl, "_ttyWrite");
		if (key === undefined) return;
		const write = editor[key]!;
		// Set by Enter until the keys read with it are handled: a line feed then is CRLF's second half.
		let returnInThisRead = false;
		// Enter as readline reads it, marked for the line handler as the key that was really typed.
		const pressReturn = (typed: "lineFeedTyped" | "followUpTyped") => {
			this[typed] = true;
			try {
				write.call(editor, "\r", { name: "return", sequence: "\r" });
			} finally {
				this[typed] = false;
			}
		};
		override(editor, key, (text: unknown, pressed: unknown) => {
			const { ctrl, meta, name } = (pressed ?? {}) as { ctrl?: boolean; meta?: boolean; name?: string };
			if (ctrl === true && meta !== true && name === "d" && editor.line === "" && this.onEndWhileTyping?.() === true) {
				return;
			}
			if (name === "enter" && meta !== true && !this.pasting && !returnInThisRead) {
				pressReturn("lineFeedTyped");
				return;
			}
			if (name === "return" && meta === true && !this.pasting) {
				pressReturn("followUpTyped");
				return;
			}
			if (name === "return" && !returnInThisRead) {
				returnInThisRead = true;
				queueMicrotask(() => {
					returnInThisRead = false;
				});
			}
			write.call(editor, text, pressed);
		});
	}

	/**
	 * A resize makes readline redraw its prompt and line where the cursor is: while a run printed (the
	 * prompt hidden) that wiped the line being printed and left a `> ` in the answer (pi#4568). Now
	 * only a shown prompt is redrawn.
	 */
	private redrawOnlyAtPrompt(before: Set<unknown>): void {
		const redraws = process.stdout.listeners("resize").filter((listener) => !before.has(listener)) as (() => void)[];
		if (redraws.length === 0) return;
		for (const redraw of redraws) process.stdout.off("resize", redraw);
		const onResize = () => {
			if (this.showsPrompt?.() === false) return;
			for (const redraw of redraws) redraw();
		};
		process.stdout.on("resize", onResize);
		this.rl.once("close", () => process.stdout.off("resize", onResize));
	}

	/** Notes, after each Up / Down, whether the line now shown holds a recalled message's line breaks. */
	private markRecalledBreaks(): void {
		const editor = this.rl as unknown as { line: string } & Record<symbol, (...args: unknown[]) => void>;
		for (const name of ["_historyPrev", "_historyNext"]) {
			const key = readlineMethod(this.rl, name);
			if (key === undefined) continue;
			const browse = editor[key]!;
			override(editor, key, (...args: unknown[]) => {
				browse.apply(editor, args);
				this.recalledBreaks = editor.line.includes(LINE_BREAK_MARK);
			});
		}
	}

	/** Gives the terminal back as the shell expects it: on close, or at exit when settle ends first. */
	private readonly endPasteMode = (): void => {
		process.off("exit", this.endPasteMode);
		this.rl.off("close", this.endPasteMode);
		if (!this.terminalLost) process.stdout.write(BRACKETED_PASTE_OFF);
	};

	private readonly onLine = (line: string): void => {
		const waiting = this.waiting;
		this.waiting = undefined;
		if (waiting) waiting(line);
		else this.unread.push(line);
	};

	private readonly onClose = (): void => {
		this.ended = true;
		const waiting = this.waiting;
		this.waiting = undefined;
		waiting?.(undefined);
	};

	/**
	 * Asks `text` (written with `write`) and resolves with the next line: one read before it was
	 * asked is its answer. Undefined when the input ends or on Ctrl+C (`signals`: a process SIGINT
	 * too, when stdin is not a terminal).
	 */
	ask(text: string, write: (text: string) => void, signals = false): Promise<string | undefined> {
		const early = this.unread.shift();
		if (early !== undefined) {
			write(`${text}${this.echoInput ? early : ""}\n`);
			return Promise.resolve(early);
		}
		if (this.ended) {
			write(`${text}\n`);
			return Promise.resolve(undefined);
		}
		return new Promise((resolve) => {
			// Ctrl+C cancels the question only: the input goes on (for nobody, as the chat does not start).
			const cancel = () => {
				const waiting = this.waiting;
				this.waiting = undefined;
				waiting?.(undefined);
			};
			const done = (line: string | undefined) => {
				this.rl.off("SIGINT", cancel);
				if (signals) process.off("SIGINT", cancel);
				if (line !== undefined && this.echoInput) write(`${line}\n`);
				if (line === undefined) write("\n");
				resolve(line);
			};
			// Listening before the question shows: a Ctrl+C right after it must not find the default action.
			this.rl.on("SIGINT", cancel);
			if (signals) process.on("SIGINT", cancel);
			this.waiting = done;
			if (this.terminal) {
				this.rl.setPrompt(text);
				this.rl.prompt(true);
			} else write(text);
		});
	}

	/** Gives the input to the chat: the lines read and not answered, and whether it has ended. */
	handOver(): { lines: string[]; ended: boolean } {
		this.rl.off("line", this.onLine);
		this.rl.off("close", this.onClose);
		return { lines: this.unread.splice(0), ended: this.ended };
	}

	/** Stops reading (when the chat does not start). */
	close(): void {
		this.rl.close();
	}
}

/** The readline method keyed by the symbol described `name` (node keeps its line editing behind symbols). */
function readlineMethod(rl: Interface, name: string): symbol | undefined {
	for (let proto: object | null = rl; proto !== null; proto = Object.getPrototypeOf(proto)) {
		const key = Object.getOwnPropertySymbols(proto).find((symbol) => symbol.description === name);
		if (key !== undefined) return key;
	}
	return undefined;
}

/** Replaces `rl`'s method `key` on this instance (the prototype's legacy accessor has no setter). */
function override(rl: object, key: symbol, method: (this: unknown, ...args: unknown[]) => void): void {
	Object.defineProperty(rl, key, { value: method, writable: true, configurable: true });
}

/**
 * Backspace, Delete, Left and Right act on whole grapheme clusters, as pi's editor does: readline
 * steps one code point, so an emoji with a skin tone, a flag or a ZWJ sequence took several presses
 * and left half a character on the line (and in the message). Each key is readline's own, repeated
 * or widened to the cluster's end.
 */
function editByGraphemes(rl: Interface): void {
	const line = rl as unknown as { line: string; cursor: number } & Record<symbol, (...args: unknown[]) => void>;
	const deleteLeft = readlineMethod(rl, "_deleteLeft");
	const deleteRight = readlineMethod(rl, "_deleteRight");
	const moveCursor = readlineMethod(rl, "_moveCursor");
	if (deleteLeft === undefined || deleteRight === undefined || moveCursor === undefined) return;
	const graphemes = graphemeSegmenter();
	const before = () => [...graphemes.segment(line.line.slice(0, line.cursor))].at(-1)?.segment ?? "";
	const after = () => graphemes.segment(line.line.slice(line.cursor)).containing(0)?.segment ?? "";
	const codePoints = (text: string) => Math.max(1, [...text].length);
	const left = line[deleteLeft]!;
	override(line, deleteLeft, function (this: unknown) {
		for (let n = codePoints(before()); n > 0; n--) left.call(this);
	});
	const right = line[deleteRight]!;
	override(line, deleteRight, function (this: unknown) {
		for (let n = codePoints(after()); n > 0; n--) right.call(this);
	});
	const move = line[moveCursor]!;
	override(line, moveCursor, function (this: unknown, dx: unknown) {
		// Left and Right ask for one code point: the whole cluster instead. Word and line moves pass.
		const step = typeof dx === "number" ? dx : 0;
		const back = before();
		const ahead = after();
		const oneLeft = step < 0 && -step === ([...back].at(-1)?.length ?? 0);
		const oneRight = step > 0 && step === (ahead.codePointAt(0)! > 0xffff ? 2 : 1);
		move.call(this, oneLeft ? -back.length : oneRight ? ahead.length : dx);
	});
}

/**
 * Typed text goes in at the cursor even when several keys come in one read (typed ahead while
 * settle was busy, sent by tmux or over SSH at once): node's readline takes every key of such a
 * read but the last for a paste and appends it at the line's end, so `ab`, Left, `m` sent `abm`.
 */
function insertAtCursor(rl: Interface): void {
	const line = rl as unknown as Record<symbol, (...args: unknown[]) => void>;
	const insertString = readlineMethod(rl, "_insertString");
	if (insertString === undefined) return;
	const insert = line[insertString]!;
	override(line, insertString, function (this: unknown, text: unknown) {
		const editor = this as { isCompletionEnabled: boolean; line: string; cursor: number };
		// At the line's end readline's fast append is right (and keeps a long paste cheap).
		if (editor.cursor >= editor.line.length) return insert.call(this, text);
		// The flag picks readline's append-only branch; it also gates Tab completion, so it is put back.
		const enabled = editor.isCompletionEnabled;
		editor.isCompletionEnabled = true;
		try {
			insert.call(this, text);
		} finally {
			editor.isCompletionEnabled = enabled;
		}
	});
}
