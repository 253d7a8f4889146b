/**
 * The `read` tool's line window over a file read in chunks: it keeps only the lines it may show
 * (at most the output caps, plus the line that crosses them) and counts the rest, so the first lines
 * of a file of any size come back without the file in memory (pi#9654).
 */
import { open } from "node:fs/promises";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "./truncate.js";

/**
 * Bytes of a file `read` goes through to count its lines for the notices ("of 5000", "300 more
 * lines"). Past this point, once the shown lines are known, it stops; the notices then say "at least".
 */
export const READ_LINE_COUNT_MAX_BYTES = 64 * 1024 * 1024;

/** Bytes of one chunk of the default chunked reader. */
const CHUNK_BYTES = 256 * 1024;

/**
 * The file's bytes in chunks through one reused buffer: each chunk is valid only until the next is
 * asked for. Ending the iteration early closes the file.
 */
export async function* readFileChunks(absolutePath: string): AsyncGenerator<Uint8Array> {
	const handle = await open(absolutePath, "r");
	try {
		const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
		for (;;) {
			const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
			if (bytesRead === 0) return;
			yield buffer.subarray(0, bytesRead);
		}
	} finally {
		await handle.close();
	}
}

/** What {@link LineWindowScanner} found once the file ended, or once it stopped counting. */
export interface ScannedWindow {
	/** The window's lines it kept, decoded; the last may be cut when it crosses the byte cap. */
	kept: string[];
	/** Whether `kept` holds the whole window (else it holds more than the caps allow). */
	keptAll: boolean;
	/** Lines in the file (`wc -l`, plus an unterminated last line); a lower bound when `stopped`. */
	totalLines: number;
	/** Whether the file's last line ends with a line break. */
	endsWithBreak: boolean;
	/** Lines of the window ([start, start + limit) within the file); a lower bound when `stopped`. */
	windowLines: number;
	/** Bytes of the window's lines joined by line breaks; a lower bound when `stopped`. */
	windowBytes: number;
	/** Bytes of the window's first line; a lower bound when `stopped` within it. */
	firstLineBytes: number;
	/** Whether it stopped before the end of the file (past {@link READ_LINE_COUNT_MAX_BYTES}). */
	stopped: boolean;
}

/**
 * Splits chunks into lines and keeps those of the window `[start, end)` (0-based) until the output
 * caps are crossed. Feed chunks with {@link push} while it returns true, then call {@link finish}.
 */
export class LineWindowScanner {
	private lineIndex = 0;
	private lineBytes = 0;
	private linePieces: Buffer[] = [];
	private linePieceBytes = 0;
	private readonly kept: string[] = [];
	private keptBytes = 0;
	private retaining = true;
	private windowBytes = 0;
	private firstLineBytes = 0;
	private consumed = 0;
	private stopped = false;

	constructor(
		private readonly start: number,
		private readonly end: number,
	) {}

	/** Takes the next chunk (copied where kept); false once the rest of the file is not needed. */
	push(chunk: Uint8Array): boolean {
		const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		let from = 0;
		for (;;) {
			const lineBreak = bytes.indexOf(10, from);
			if (lineBreak === -1) break;
			this.addToLine(bytes, from, lineBreak);
			this.endLine();
			from = lineBreak + 1;
		}
		this.addToLine(bytes, from, bytes.length);
		this.consumed += bytes.length;
		// Stopping within a line (not right after a break) makes that line count: "at least" is then
		// never "at least 0 more lines".
		const withinLine = this.lineBytes > 0;
		if (
			this.consumed >= READ_LINE_COUNT_MAX_BYTES &&
			withinLine &&
			this.lineIndex >= this.start &&
			!this.needsMoreOfWindow()
		) {
			this.stopped = true;
			return false;
		}
		return true;
	}

	/** The window as far as the file went (call after the last {@link push}). */
	finish(): ScannedWindow {
		// The file's last line is one when it holds bytes, or when the file has no line break at all
		// (an empty file reads as one empty line); a final break ends a line, it starts none (pi#7329).
		const unterminated = this.lineBytes > 0 || (this.lineIndex === 0 && !this.stopped);
		if (unterminated) this.endLine();
		const totalLines = this.lineIndex;
		const windowEnd = Math.min(this.end, totalLines);
		const windowLines = Math.max(0, windowEnd - this.start);
		return {
			kept: this.kept,
			keptAll: this.retaining,
			totalLines,
			endsWithBreak: !unterminated && !this.stopped,
			windowLines,
			windowBytes: this.windowBytes,
			firstLineBytes: this.firstLineBytes,
			stopped: this.stopped,
		};
	}

	private inWindow(): boolean {
		return this.lineIndex >= this.start && this.lineIndex < this.end;
	}

	/** Whether bytes still to come may be shown: the line being read is in the window and within the caps. */
	private needsMoreOfWindow(): boolean {
		if (!this.retaining || this.lineIndex >= this.end) return false;
		return this.kept.length < DEFAULT_MAX_LINES && this.keptBytes + this.linePieceBytes <= DEFAULT_MAX_BYTES;
	}

	private addToLine(bytes: Buffer, from: number, to: number): void {
		const length = to - from;
		this.lineBytes += length;
		if (!this.inWindow()) return;
		this.windowBytes += length;
		if (this.lineIndex === this.start) this.firstLineBytes += length;
		// Past the byte cap the line cannot be shown whole: what is kept of it already crosses the cap.
		if (this.retaining && length > 0 && this.keptBytes + this.linePieceBytes <= DEFAULT_MAX_BYTES) {
			this.linePieces.push(Buffer.from(bytes.subarray(from, to)));
			this.linePieceBytes += length;
		}
	}

	private endLine(): void {
		if (this.inWindow()) {
			if (this.lineIndex > this.start) this.windowBytes += 1; // the break joining it to the line before
			if (this.retaining) {
				const line = Buffer.concat(this.linePieces, this.linePieceBytes).toString("utf-8");
				this.keptBytes += Buffer.byteLength(line, "utf-8") + (this.kept.length > 0 ? 1 : 0);
				this.kept.push(line);
				if (this.kept.length > DEFAULT_MAX_LINES || this.keptBytes > DEFAULT_MAX_BYTES) this.retaining = false;
			}
		}
		this.linePieces = [];
		this.linePieceBytes = 0;
		this.lineBytes = 0;
		this.lineIndex++;
	}
}
