/**
 * Streaming command output with bounded memory: keeps a decoded tail for display and, once the
 * output outgrows the display limits, spills every raw byte to a temp file so nothing is lost.
 */

import { createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SettleError } from "../errors.js";
import { loadCrypto, loadStreamPromises } from "../lazy-deps.js";
import { PRIVATE_FILE_MODE } from "../store/folders.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, type TruncationResult, truncateTail } from "./truncate.js";

/** Options of {@link OutputAccumulator}: display limits and where the full-output file goes. */
export interface OutputAccumulatorOptions {
	maxLines?: number;
	maxBytes?: number;
	/** File name prefix of the full-output file. */
	tempFilePrefix?: string;
	/** Folder of the full-output file. Default: the OS temp folder. */
	tempDir?: string;
	/**
	 * Show a line redrawn with a lone `\r` (a progress bar) as a terminal leaves it, not every frame;
	 * the raw bytes then go to the full-output file. Default false.
	 */
	redrawCarriageReturns?: boolean;
	/**
	 * Leave terminal escape sequences (colors, cursor moves, window titles) out of the shown text;
	 * the raw bytes then go to the full-output file. Default false.
	 */
	stripEscapes?: boolean;
	/**
	 * Leave control characters other than tab and line feed out of the shown text, as pi's `!`
	 * commands do; a lone `\r` too, after the redraw when `redrawCarriageReturns` is set (else a
	 * progress bar's frames run together). The raw bytes then go to the full-output file. Default false.
	 */
	dropControlCharacters?: boolean;
	/**
	 * Save the raw bytes to the full-output file when some are not UTF-8 (text in Shift-JIS, GBK,
	 * Latin-1: shown as U+FFFD), so they can be converted. Default false.
	 */
	keepBytesNotUtf8?: boolean;
}

/** What {@link OutputAccumulator.snapshot} returns: the displayable tail, how it was cut, and the full-output file. */
export interface OutputSnapshot {
	/** The tail that fits the limits. */
	content: string;
	truncation: TruncationResult;
	/** Set once the output has outgrown the limits, unless that file could not be written. */
	fullOutputPath: string | undefined;
	/** Why the full-output file could not be written (it is then not named), e.g. an unusable `TMPDIR`. */
	fullOutputError?: string;
	/** Some line was redrawn with `\r` (with `redrawCarriageReturns`): the content shows its end state. */
	redrawn: boolean;
	/** Terminal escape sequences (or, with `dropControlCharacters`, control characters) were left out of the content. */
	escapesStripped: boolean;
	/** Some bytes of the output were not UTF-8: each such sequence shows as U+FFFD. */
	notUtf8: boolean;
}

/**
 * Streaming command output with bounded memory: keeps a decoded tail for display (`maxLines` /
 * `maxBytes`, pi's defaults) and, once the output outgrows them, spills every raw byte to a temp file
 * (`fullOutputPath`) so nothing is lost. `append` after `finish()` throws; `finish()` opens the temp
 * file when the output outgrew the limits, and `close()` ends it: take the final snapshot after it.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * import { once } from "node:events";
 *
 * const output = new OutputAccumulator({ tempFilePrefix: "my-tool" });
 * const child = spawn("ls", ["-la"]);
 * child.stdout.on("data", (chunk: Buffer) => output.append(chunk));
 * await once(child, "close");
 * output.finish();
 * await output.close(); // the full-output file (if any) is complete on disk now, or known to have failed
 * const { content, truncation, fullOutputPath } = output.snapshot();
 * ```
 */
export class OutputAccumulator {
	private readonly maxLines: number;
	private readonly maxBytes: number;
	/** How much decoded text we keep: enough to rebuild any tail the limits allow. */
	private readonly keepBytes: number;
	private readonly tempFilePrefix: string;
	private readonly tempDir: string;
	private readonly redrawCarriageReturns: boolean;
	private readonly stripEscapes: boolean;
	private readonly dropControlCharacters: boolean;
	private readonly keepBytesNotUtf8: boolean;
	private readonly decoder = new TextDecoder();
	/** U+FFFD decoded, and U+FFFD the bytes held as such (EF BF BD): more decoded means bytes that are not UTF-8. */
	private replacementsDecoded = 0;
	private replacementsInBytes = 0;
	/** The last two bytes appended: an EF BF BD can straddle two chunks. */
	private lastBytes: Buffer = Buffer.alloc(0);
	private pendingChunks: Buffer[] = [];
	private tail = "";
	private tailBytes = 0;
	private tailStartsAtLineStart = true;
	/** Whether the start of the output was dropped from `tail`. */
	private tailTrimmed = false;
	private rawBytes = 0;
	private decodedBytes = 0;
	/** Line breaks seen: each ends a line. */
	private lineBreaks = 0;
	/** Bytes of the line after the last break (none yet when the output ends with a break). */
	private openLineBytes = 0;
	/** Bytes of the line the last break ended. */
	private endedLineBytes = 0;
	private finished = false;
	private tempPath: string | undefined;
	private tempStream: WriteStream | undefined;
	private tempError: string | undefined;
	/** The shape once `finish()` ran: the text no longer changes. */
	private finalShape: Omit<OutputSnapshot, "fullOutputPath" | "fullOutputError"> | undefined;

	constructor(options: OutputAccumulatorOptions = {}) {
		this.maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
		this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
		this.keepBytes = Math.max(this.maxBytes * 2, 1);
		this.tempFilePrefix = options.tempFilePrefix ?? "settle-output";
		this.tempDir = options.tempDir ?? tmpdir();
		this.redrawCarriageReturns = options.redrawCarriageReturns ?? false;
		this.stripEscapes = options.stripEscapes ?? false;
		this.dropControlCharacters = options.dropControlCharacters ?? false;
		this.keepBytesNotUtf8 = options.keepBytesNotUtf8 ?? false;
	}

	append(chunk: Buffer): void {
		if (this.finished) throw new SettleError("INTERNAL", "OutputAccumulator: append after finish()");
		this.rawBytes += chunk.length;
		const text = this.decoder.decode(chunk, { stream: true });
		this.countReplacements(chunk, text);
		this.addText(text);
		if (this.tempStream || this.overLimits()) {
			this.openTempFile();
			this.tempStream?.write(chunk);
		} else if (chunk.length > 0) {
			this.pendingChunks.push(chunk);
		}
	}

	/**
	 * Flushes the decoder; call once the stream has ended. Opens the full-output file now when the
	 * final text needs it, so that {@link close} ends it: a file opened later would be named before
	 * its bytes are on disk, and its descriptor never closed.
	 */
	finish(): void {
		if (this.finished) return;
		this.finished = true;
		const rest = this.decoder.decode();
		this.countReplacements(Buffer.alloc(0), rest);
		this.addText(rest);
		if (this.overLimits()) this.openTempFile();
		this.finalShape = this.shape();
	}

	/** Bytes of the last line (unterminated, or ended by the output's last line break), the break not counted. */
	get lastLineSize(): number {
		return this.endsWithBreak ? this.endedLineBytes : this.openLineBytes;
	}

	/**
	 * Lines of the output. The line break that ends the output ends its last line and starts no
	 * empty one: `seq 1 3000` is 3,000 lines, not 3,001 (pi#4818).
	 */
	private get lines(): number {
		return this.lineBreaks + (this.endsWithBreak ? 0 : 1);
	}

	/** Whether the output so far ends with a line break (and is not empty). */
	private get endsWithBreak(): boolean {
		return this.lineBreaks > 0 && this.openLineBytes === 0;
	}

	snapshot(): OutputSnapshot {
		const shape = this.finalShape ?? this.shape();
		// A file that could not be written is not offered: the reader would look for it in vain (pi#5667).
		if (this.tempError !== undefined) return { ...shape, fullOutputPath: undefined, fullOutputError: this.tempError };
		return { ...shape, fullOutputPath: this.tempPath };
	}

	/** The shown text and how it was cut; opens the full-output file when the text leaves something out. */
	private shape(): Omit<OutputSnapshot, "fullOutputPath" | "fullOutputError"> {
		const text = this.snapshotText();
		const plain = this.stripEscapes ? withoutEscapes(text) : text;
		const redrawnPlain = this.redrawCarriageReturns ? redrawLines(plain) : plain;
		const redrawn = redrawnPlain !== plain;
		// A redraw reads the erase codes (`\r\x1b[K`) before they are left out.
		const drawn = redrawn && plain !== text ? withoutEscapes(redrawLines(text, true)) : redrawnPlain;
		// Controls go after the redraw: dropped first, a bar's `\r` frames ran together (copilot-cli#3191).
		const shown = this.dropControlCharacters ? withoutControlCharacters(drawn) : drawn;
		const escapesStripped = plain !== text || shown !== drawn;
		// The final line break is cut with the line it ends: left as a line of its own, it was the only
		// line that fit after a line over the byte limit, and the model got "(no output)" (openclaw#133213).
		const ended = shown.endsWith("\n");
		const withoutFinalBreak = ended ? shown.slice(0, -1) : shown;
		const tail = truncateTail(withoutFinalBreak, { maxLines: this.maxLines, maxBytes: this.maxBytes });
		const bytes = this.decodedBytes - (this.endsWithBreak ? 1 : 0);
		// Frames a redraw hides and escapes left out do not count against the limits while the whole output is at hand.
		const truncated =
			(redrawn || escapesStripped) && !this.tailTrimmed
				? tail.truncated
				: this.lines > this.maxLines || bytes > this.maxBytes;
		const truncation: TruncationResult = {
			...tail,
			// Whole, the output keeps its final line break; cut, the note follows its last line.
			content: truncated || !ended ? tail.content : shown,
			truncated,
			truncatedBy: truncated ? (tail.truncatedBy ?? (bytes > this.maxBytes ? "bytes" : "lines")) : null,
			totalLines: this.lines,
			totalBytes: this.decodedBytes,
		};
		const notUtf8 = this.replacementsDecoded > this.replacementsInBytes;
		// Redrawn frames and escapes are not shown: the file keeps them, so nothing the command printed is lost.
		if (truncated || redrawn || escapesStripped || (notUtf8 && this.keepBytesNotUtf8)) this.openTempFile();
		return { content: truncation.content, truncation, redrawn, escapesStripped, notUtf8 };
	}

	/** Counts the U+FFFD `text` decoded from `chunk`, and those `chunk` (with the bytes before it) held as bytes. */
	private countReplacements(chunk: Buffer, text: string): void {
		if (text.includes("\ufffd")) {
			for (let at = text.indexOf("\ufffd"); at !== -1; at = text.indexOf("\ufffd", at + 1)) this.replacementsDecoded++;
			const bytes = Buffer.concat([this.lastBytes, chunk]);
			for (let at = bytes.indexOf(REPLACEMENT_BYTES); at !== -1; at = bytes.indexOf(REPLACEMENT_BYTES, at + 3)) {
				this.replacementsInBytes++;
			}
		}
		if (chunk.length > 0)
			this.lastBytes = Buffer.from(Buffer.concat([this.lastBytes, chunk.subarray(-2)]).subarray(-2));
	}

	/**
	 * Ends the temp file stream (if any) and waits until its bytes are on disk. Take the final
	 * {@link snapshot} after it: a file that failed to open or write is known only then.
	 */
	async close(): Promise<void> {
		const stream = this.tempStream;
		if (!stream) return;
		this.tempStream = undefined;
		stream.end();
		// A failed log file must not fail the command: its output is still in the result.
		await loadStreamPromises()
			.finished(stream)
			.catch(() => {});
		if (this.tempError !== undefined && this.tempPath) await rm(this.tempPath, { force: true }).catch(() => {});
	}

	private overLimits(): boolean {
		return this.rawBytes > this.maxBytes || this.decodedBytes > this.maxBytes || this.lines > this.maxLines;
	}

	private addText(text: string): void {
		if (text.length === 0) return;
		const bytes = Buffer.byteLength(text, "utf-8");
		this.decodedBytes += bytes;
		this.tail += text;
		this.tailBytes += bytes;
		if (this.tailBytes > this.keepBytes * 2) this.trimTail();
		const lastNewline = text.lastIndexOf("\n");
		if (lastNewline === -1) {
			this.openLineBytes += bytes;
			return;
		}
		let newlines = 0;
		for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines++;
		this.lineBreaks += newlines;
		// Not lastIndexOf(…, -1): that still finds a break at index 0.
		const previousNewline = lastNewline > 0 ? text.lastIndexOf("\n", lastNewline - 1) : -1;
		this.endedLineBytes =
			previousNewline === -1
				? this.openLineBytes + Buffer.byteLength(text.slice(0, lastNewline), "utf-8")
				: Buffer.byteLength(text.slice(previousNewline + 1, lastNewline), "utf-8");
		this.openLineBytes = Buffer.byteLength(text.slice(lastNewline + 1), "utf-8");
	}

	private trimTail(): void {
		const buffer = Buffer.from(this.tail, "utf-8");
		let start = buffer.length - this.keepBytes;
		if (start <= 0) return;
		while (start < buffer.length && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;
		this.tailStartsAtLineStart = buffer[start - 1] === 0x0a;
		this.tailTrimmed = true;
		this.tail = buffer.subarray(start).toString("utf-8");
		this.tailBytes = buffer.length - start;
	}

	/**
	 * The kept tail, minus a leading partial line (its start was dropped), unless that line is the
	 * last one: then its end is what the result shows. Dropped when only the output's final break
	 * followed it, a 244 KB line left nothing to show (openclaw#133213).
	 */
	private snapshotText(): string {
		if (this.tailStartsAtLineStart) return this.tail;
		const newline = this.tail.indexOf("\n");
		const lastLine = newline === -1 || newline === this.tail.length - 1;
		return lastLine ? this.tail : this.tail.slice(newline + 1);
	}

	private openTempFile(): void {
		if (this.tempPath) return;
		this.tempPath = join(this.tempDir, `${this.tempFilePrefix}-${loadCrypto().randomBytes(8).toString("hex")}.log`);
		// The output of a command is conversation: only its owner may read it (0600), in /tmp too.
		this.tempStream = createWriteStream(this.tempPath, { mode: PRIVATE_FILE_MODE });
		this.tempStream.on("error", (error) => {
			this.tempError ??= error.message;
		});
		for (const chunk of this.pendingChunks) this.tempStream.write(chunk);
		this.pendingChunks = [];
	}
}

/** U+FFFD in UTF-8. */
const REPLACEMENT_BYTES = Buffer.from([0xef, 0xbf, 0xbd]);

/**
 * Terminal escape sequences: CSI (`ESC [ … final`: colors, cursor moves, erases), OSC (`ESC ] …`
 * ended by BEL or `ESC \`: titles, hyperlinks) and the short `ESC x` / `ESC ( B` forms.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const ESCAPE_SEQUENCES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]/g;

/** C0 controls but tab and line feed, and the Unicode format characters U+FFF9–U+FFFB (pi's `sanitizeBinaryOutput`, then its `\r` removal). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\x00-\x08\x0b-\x1f\ufff9-\ufffb]/g;

function withoutControlCharacters(text: string): string {
	return text.replace(CONTROL_CHARACTERS, "");
}

/**
 * `text` without terminal escape sequences. A colored log (a Rust service's `tracing`, a test
 * runner forced to color) sent its codes to the model: tokens spent on styling, a context filled
 * with `[2m…[0m` (claude-code#26373, cline#13346).
 */
function withoutEscapes(text: string): string {
	return text.includes("\x1b") ? text.replace(ESCAPE_SEQUENCES, "") : text;
}

/** Erase in line: `ESC[K` / `ESC[0K` (from the cursor to the end), `ESC[2K` (the whole line). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const ERASE_IN_LINE = /^\x1b\[([02]?)K$/;

/**
 * `text` as a terminal leaves it: on each line, a lone `\r` (not the one of a `\r\n` ending)
 * moves back to the line's start and what follows overwrites what was there, character by
 * character. A progress bar's thousand frames become its last one. With `escapes`, escape
 * sequences take no width and an erase in line (`\r\x1b[K`, how many bars clear the line before a
 * shorter frame) erases, as on a terminal; the caller leaves the other sequences out afterwards.
 */
export function redrawLines(text: string, escapes = false): string {
	if (!text.includes("\r")) return text;
	return text
		.split("\n")
		.map((line) => {
			const ending = line.endsWith("\r") ? "\r" : "";
			const body = ending ? line.slice(0, -1) : line;
			if (!body.includes("\r")) return line;
			const screen: string[] = [];
			for (const frame of body.split("\r")) {
				let cursor = 0;
				const write = (chars: string) => {
					for (const char of chars) screen[cursor++] = char;
				};
				if (!escapes) {
					write(frame);
					continue;
				}
				let at = 0;
				for (const match of frame.matchAll(ESCAPE_SEQUENCES)) {
					write(frame.slice(at, match.index));
					at = match.index + match[0].length;
					const erase = ERASE_IN_LINE.exec(match[0]);
					if (!erase) continue;
					screen.length = cursor;
					if (erase[1] === "2") screen.fill(" ");
				}
				write(frame.slice(at));
			}
			return screen.join("") + ending;
		})
		.join("\n");
}
