/** The `read` tool: text files with head truncation and continuation hints, images as image blocks. */
import { isUtf8 } from "node:buffer";
import { constants } from "node:fs";
import { access, readFile } from "node:fs/promises";
import type { Static } from "@sinclair/typebox";
import { SettleError } from "../errors.js";
import type { ImageContent, TextContent } from "../llm/types.js";
import { Type } from "../schema/typebox.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { fileSystemError, refuseSpecialFile } from "./fs-errors.js";
import {
	detectImageMimeTypeFromFile,
	detectUnsendableImageFormat,
	readImageDimensions,
	type SupportedImageMimeType,
	unsendableImageHint,
} from "./image.js";
import {
	formatDimensionNote,
	MAX_IMAGE_DIMENSION,
	MAX_INLINE_IMAGE_BYTES,
	NOT_RESIZABLE_IMAGE_NOTE,
	resizeImageDetailed,
	UNDECODABLE_IMAGE_NOTE,
} from "./image-resize.js";
import { expandPath, resolveReadPath } from "./paths.js";
import type { FileReadStamps } from "./read-stamps.js";
import { LineWindowScanner, READ_LINE_COUNT_MAX_BYTES, readFileChunks, type ScannedWindow } from "./read-window.js";
import { type Utf16Encoding, utf16Encoding, utf16Note } from "./text-encoding.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult, truncateHead } from "./truncate.js";
import type { ToolDefinition } from "./types.js";

// Public since read learned UTF-16 (DesktopCommanderMCP#610); shared with grep, @file and the resource loaders.
export { utf16Encoding } from "./text-encoding.js";

const readSchema = Type.Object({
	path: Type.String({ description: "Path to the file to read (relative or absolute)" }),
	offset: Type.Optional(Type.Number({ description: "Line number to start reading from (1-indexed)" })),
	limit: Type.Optional(Type.Number({ description: "Maximum number of lines to read" })),
});
/** Arguments of the `read` tool: a path and an optional line window (offset, limit). */
export type ReadToolInput = Static<typeof readSchema>;

/** `details` of a `read` tool result. */
export interface ReadToolDetails {
	truncation?: TruncationResult;
	/**
	 * Set when an image was read with `autoResizeImages` on and no `resizeImage` of your own, but the
	 * default resizer could not be loaded (`@silvia-odwyer/photon-node` missing or broken): why. The
	 * image was then sent as it is (or left out when over the inline size limit).
	 */
	imageResizeUnavailable?: string;
	/**
	 * Set when the file is larger than {@link READ_LINE_COUNT_MAX_BYTES} and reading stopped once the
	 * shown lines were known: the line and byte totals (in `truncation` and the notice) then count only
	 * as far as the file was read, and the notice says "at least".
	 */
	lineCountIncomplete?: true;
}

export { MAX_IMAGE_DIMENSION, MAX_INLINE_IMAGE_BYTES };

/** Result of an {@link ImageResizer}. */
export interface ResizedImage {
	data: string;
	mimeType: string;
	originalWidth: number;
	originalHeight: number;
	width: number;
	height: number;
	wasResized: boolean;
}

/**
 * Shrinks an image to at most 2000×2000 pixels and below {@link MAX_INLINE_IMAGE_BYTES} of base64;
 * returns `null` when it cannot. The read tool's default is `resizeImage` from `image-resize.ts`
 * (photon-node, pi's behavior); plug in another one (sharp, …) through {@link ReadToolOptions.resizeImage}.
 */
export type ImageResizer = (image: { data: string; mimeType: string }) => Promise<ResizedImage | null>;

/** Pluggable file access (for example to read over SSH). Same shape as pi's `ReadOperations`. */
export interface ReadOperations {
	/** The whole file: images, and text when {@link ReadOperations.readChunks} is not given. */
	readFile: (absolutePath: string) => Promise<Buffer>;
	/**
	 * The file's bytes in order, in chunks, for text: `read` stops asking once it has the lines it
	 * shows (and, up to {@link READ_LINE_COUNT_MAX_BYTES}, their count), so a large file is not loaded
	 * whole. A chunk may be reused after the next one is asked for; ending the iteration early must
	 * release the file. Without it, text is read with `readFile`.
	 *
	 * @example
	 * ```ts
	 * import { createReadStream } from "node:fs";
	 * import { access, readFile } from "node:fs/promises";
	 *
	 * const operations: ReadOperations = {
	 * 	readFile: (path) => readFile(path),
	 * 	readChunks: (path) => createReadStream(path),
	 * 	access: (path) => access(path),
	 * };
	 * ```
	 */
	readChunks?: (absolutePath: string) => AsyncIterable<Uint8Array>;
	/** Rejects when the file is not readable. */
	access: (absolutePath: string) => Promise<void>;
	/** Image MIME type of the file, or null/undefined for anything else. */
	detectImageMimeType?: (absolutePath: string) => Promise<string | null | undefined>;
}

/** Options of {@link createReadToolDefinition}. */
export interface ReadToolOptions {
	/**
	 * Resize images over 2000×2000 pixels or 4.5 MB of base64 before sending them, and leave out
	 * images that cannot be decoded. Default true. Off: images are sent as they are (one over the
	 * inline size limit is left out with a note).
	 */
	autoResizeImages?: boolean;
	/**
	 * Image resizer used when `autoResizeImages` is on, instead of the default one (photon-node, as
	 * pi). When the default cannot be loaded, images are sent as they are and
	 * {@link ReadToolDetails.imageResizeUnavailable} says why.
	 */
	resizeImage?: ImageResizer;
	operations?: ReadOperations;
	/** The session's record of files seen, which a successful read updates (see {@link FileReadStamps}). */
	readStamps?: FileReadStamps;
}

const defaultOperations: ReadOperations = {
	readFile: (path) => readFile(path),
	readChunks: readFileChunks,
	access: async (path) => {
		await access(path, constants.R_OK);
		await refuseSpecialFile(path, "read"); // before the image sniff opens it
	},
	detectImageMimeType: detectImageMimeTypeFromFile,
};

/** Model capabilities the read tool looks at in the tool context, when the session provides them. */
interface ModelAwareContext {
	model?: { input?: readonly string[] };
}

function nonVisionNote(ctx: unknown): string | undefined {
	const model = (ctx as ModelAwareContext | undefined)?.model;
	if (!model?.input || model.input.includes("image")) return undefined;
	return "[Current model does not support images. The image will be omitted from this request.]";
}

/**
 * Creates the `read` tool for a working directory. A file that is not an image and holds a NUL byte
 * in its first 8,000 bytes is refused as binary (`INVALID_ARGUMENT`), unlike pi, which sends the bytes;
 * so is a FIFO, a socket or a device (opening one could wait forever). A file that starts with a
 * UTF-16 byte-order mark is decoded to text, with a note that `edit` and `write` keep that encoding.
 * The file is read in its turn of the per-file queue of `edit` and `write` ({@link withFileMutationQueue}).
 *
 * @example
 * ```ts
 * const read = createReadToolDefinition(cwd);
 * const result = await read.execute("call-1", { path: "README.md", limit: 20 }, undefined, undefined, undefined);
 * ```
 */
export function createReadToolDefinition(
	cwd: string,
	options: ReadToolOptions = {},
): ToolDefinition<typeof readSchema, ReadToolDetails | undefined> {
	const ops = options.operations ?? defaultOperations;
	const autoResize = options.autoResizeImages ?? true;
	return {
		name: "read",
		label: "read",
		description: `Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments. For text files, output is truncated to ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.`,
		promptSnippet: "Read a file's contents (text, or jpg/png/gif/webp images)",
		promptGuidelines: [
			"Read a file before editing it, and prefer read over cat, head or sed for looking at files.",
			"For large files, read the part you need with offset/limit and follow the continuation hint.",
		],
		parameters: readSchema,
		async execute(_toolCallId, { path, offset, limit }, signal, _onUpdate, ctx) {
			throwIfAborted(signal);
			const absolutePath = resolveReadPath(path, cwd);
			// In the per-file queue of `edit` and `write`: a read the model put after a write of the same
			// file in one answer sees the write whole, one put before it the file as it was (gemini-cli#29244).
			const load = async (): Promise<{ mimeType: string; buffer: Buffer } | { text: TextWindow }> => {
				throwIfAborted(signal);
				try {
					await ops.access(absolutePath);
				} catch (error) {
					throw fileSystemError(error, absolutePath);
				}
				throwIfAborted(signal);
				try {
					const mimeType = ops.detectImageMimeType ? await ops.detectImageMimeType(absolutePath) : undefined;
					throwIfAborted(signal);
					// Stamped before the bytes are read: a change landing in between then refuses the next
					// write (the model reads again) instead of passing it over content it never saw.
					await options.readStamps?.record(absolutePath);
					if (mimeType) return { mimeType, buffer: await ops.readFile(absolutePath) };
					const chunks = ops.readChunks
						? ops.readChunks(absolutePath)
						: (async function* () {
								yield await ops.readFile(absolutePath);
							})();
					return { text: await scanText(chunks, path, offset, limit, signal) };
				} catch (error) {
					throw fileSystemError(error, absolutePath);
				}
			};
			const work = async () => {
				const loaded = await withFileMutationQueue(absolutePath, load);
				throwIfAborted(signal);
				if ("text" in loaded) return withEncodingNote(replyText(loaded.text, path, offset), loaded.text, path);
				const resizing: ImageResizing = !autoResize
					? { kind: "off" }
					: options.resizeImage
						? { kind: "custom", resize: options.resizeImage }
						: { kind: "default" };
				return readImage(loaded.buffer, loaded.mimeType, resizing, ctx, signal);
			};
			return raceAbort(work(), signal);
		},
	};
}

/**
 * The tool's `path` argument as one shell word naming the same file, for the bash command a hint
 * suggests: expanded as the tool expands it (a leading `@` dropped, `~` made the home folder), kept
 * as is when it holds only characters the shell leaves alone, else single-quoted. Unquoted,
 * `my notes.txt` or `it's.log` made the suggested command fail (pi#7523).
 */
function shellWord(path: string): string {
	const expanded = expandPath(path);
	if (/^[\w%+=:,./-]+$/.test(expanded)) return expanded;
	return `'${expanded.replaceAll("'", "'\\''")}'`;
}

/** Bytes inspected for a NUL byte to decide that a file is binary (git's heuristic; `grep` uses it too). */
const BINARY_SNIFF_BYTES = 8000;

/**
 * Whether a non-image file is binary: a NUL byte in its first {@link BINARY_SNIFF_BYTES}. Decoded as
 * text, such a file sends the model NUL bytes and U+FFFD noise (pi#5289: a `.ods` read by pi).
 */
export function looksBinary(buffer: Buffer): boolean {
	return buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Whether a file starts with the PDF header (`%PDF-`), which PDF readers look for first. */
export function isPdf(head: Uint8Array): boolean {
	return Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 5)).toString("latin1") === "%PDF-";
}

/** A UTF-8 byte-order mark. */
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The line window of a text file, and the encoding it was decoded from when that is not UTF-8. */
type TextWindow = ScannedWindow & { decodedFrom?: Utf16Encoding; notUtf8?: boolean; empty?: boolean };

/**
 * Whether bytes fed in chunks are all UTF-8: each chunk is checked with the sequence the last one
 * ended inside, so a character cut between two reads is not taken for an error.
 */
class Utf8Check {
	valid = true;
	private carry: Buffer = Buffer.alloc(0);

	push(chunk: Uint8Array): void {
		if (!this.valid || chunk.byteLength === 0) return;
		const bytes =
			this.carry.length > 0
				? Buffer.concat([this.carry, chunk])
				: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		const cut = incompleteTail(bytes);
		this.valid = isUtf8(bytes.subarray(0, bytes.length - cut));
		this.carry = Buffer.from(bytes.subarray(bytes.length - cut));
	}

	/** The bytes ended inside a sequence: not UTF-8 either. */
	end(): void {
		if (this.carry.length > 0) this.valid = false;
	}
}

/** How many bytes at the end of `bytes` start a sequence that needs more (0 when it ends on a whole character). */
function incompleteTail(bytes: Buffer): number {
	for (let back = 1; back <= Math.min(3, bytes.length); back++) {
		const byte = bytes[bytes.length - back]!;
		if ((byte & 0xc0) === 0x80) continue;
		const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
		return length > back ? back : 0;
	}
	return 0;
}

/** How the read tool shrinks images: not at all, with the caller's resizer, or with the default one. */
type ImageResizing = { kind: "off" } | { kind: "custom"; resize: ImageResizer } | { kind: "default" };

async function readImage(
	buffer: Buffer,
	mimeType: string,
	resizing: ImageResizing,
	ctx: unknown,
	signal: AbortSignal | undefined,
): Promise<{ content: (TextContent | ImageContent)[]; details: ReadToolDetails | undefined }> {
	const data = buffer.toString("base64");
	const extra = nonVisionNote(ctx);
	const header = (type: string, ...notes: (string | undefined)[]) =>
		[`Read image file [${type}]`, ...notes, extra].filter((line) => line !== undefined).join("\n");
	const textOnly = (note: string) => ({
		content: [{ type: "text" as const, text: header(mimeType, note) }],
		details: undefined,
	});
	const sent = (image: ResizedImage) => ({
		content: [
			{ type: "text" as const, text: header(image.mimeType, formatDimensionNote(image)) },
			{ type: "image" as const, data: image.data, mimeType: image.mimeType },
		],
		details: undefined,
	});
	if (resizing.kind === "custom") {
		const resized = await resizing.resize({ data, mimeType });
		return resized ? sent(resized) : textOnly(NOT_RESIZABLE_IMAGE_NOTE);
	}
	if (resizing.kind === "off") return unresized(buffer, data, mimeType, "image resizing is off", header);
	// The signal also stops the resizer's thread (photon cannot be interrupted otherwise).
	const outcome = await resizeImageDetailed({ data, mimeType }, { signal });
	switch (outcome.kind) {
		case "resized":
			return sent(outcome.image);
		case "undecodable":
			return textOnly(UNDECODABLE_IMAGE_NOTE);
		case "too-large":
		case "failed":
			return textOnly(NOT_RESIZABLE_IMAGE_NOTE);
		case "unavailable": {
			const result = unresized(buffer, data, mimeType, "image resizing unavailable", header);
			return { ...result, details: { imageResizeUnavailable: outcome.reason } };
		}
	}
}

/** An image sent without resizing: left out when over the inline limit, flagged when over 2000 px. */
function unresized(
	buffer: Buffer,
	data: string,
	mimeType: string,
	why: string,
	header: (type: string, ...notes: (string | undefined)[]) => string,
): { content: (TextContent | ImageContent)[]; details: ReadToolDetails | undefined } {
	const size = Buffer.byteLength(data, "utf-8");
	if (size >= MAX_INLINE_IMAGE_BYTES) {
		const note = `[Image omitted: ${formatSize(size)} encoded is over the ${formatSize(MAX_INLINE_IMAGE_BYTES)} inline image limit and ${why}. Make a smaller copy (for example with ImageMagick via bash) and read that instead.]`;
		return { content: [{ type: "text", text: header(mimeType, note) }], details: undefined };
	}
	const dimensions = readImageDimensions(buffer, mimeType as SupportedImageMimeType);
	const note =
		dimensions && (dimensions.width > MAX_IMAGE_DIMENSION || dimensions.height > MAX_IMAGE_DIMENSION)
			? `[Image: ${dimensions.width}x${dimensions.height}, sent at full size (${why}); the provider may scale it down.]`
			: undefined;
	return {
		content: [
			{ type: "text", text: header(mimeType, note) },
			{ type: "image", data, mimeType },
		],
		details: undefined,
	};
}

/** The 0-based first line of the window `offset` asks for. */
const windowStart = (offset: number | undefined) => (offset ? Math.max(0, Math.floor(offset) - 1) : 0);

/**
 * Reads the text window `offset`/`limit` from `chunks`, keeping only the lines it may show. Refuses
 * a binary file (a NUL in its first {@link BINARY_SNIFF_BYTES}), a limit below 1 and an offset past
 * the end, in that order.
 */
async function scanText(
	chunks: AsyncIterable<Uint8Array>,
	path: string,
	offset: number | undefined,
	limit: number | undefined,
	signal: AbortSignal | undefined,
): Promise<TextWindow> {
	const iterator = chunks[Symbol.asyncIterator]();
	try {
		// Copied: a chunk may be reused once the next is asked for.
		const head: Buffer[] = [];
		let headBytes = 0;
		let ended = false;
		while (headBytes < BINARY_SNIFF_BYTES) {
			const next = await iterator.next();
			throwIfAborted(signal);
			if (next.done) {
				ended = true;
				break;
			}
			head.push(Buffer.from(next.value));
			headBytes += next.value.byteLength;
		}
		const rawHead = Buffer.concat(head, headBytes);
		// A UTF-16 file (with its byte-order mark) is text whose every ASCII character holds a NUL byte:
		// it is decoded to UTF-8 (the mark dropped) instead of refused as binary (DesktopCommanderMCP#610).
		const encoding = utf16Encoding(rawHead);
		const decoder = encoding ? new TextDecoder(encoding) : undefined;
		const asUtf8 = (bytes: Uint8Array): Uint8Array =>
			decoder ? Buffer.from(decoder.decode(bytes, { stream: true }), "utf-8") : bytes;
		const headBuffer = decoder ? Buffer.from(asUtf8(rawHead)) : rawHead;
		// A PDF's header, metadata and page text can fill the first bytes without a NUL: its compressed
		// streams then reached the model as mojibake (hermes-agent#43059).
		if (isPdf(rawHead)) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`${path} is a PDF document: read shows text files and jpg/png/gif/webp images, so nothing of it was sent. Use bash to get its text (for example pdftotext ${shellWord(path)} - | head -200; pdfinfo gives its page count).`,
			);
		}
		// An iPhone photo (HEIC) or a TIFF was refused as binary, or by pi sent as mojibake; the model
		// then told the user it could not open it (claude-plugins-official#2286).
		const format = detectUnsendableImageFormat(rawHead);
		if (format) throw new SettleError("INVALID_ARGUMENT", `${path} ${unsendableImageHint(format, expandPath(path))}`);
		if (looksBinary(headBuffer)) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`${path} looks like a binary file (a NUL byte in its first ${BINARY_SNIFF_BYTES} bytes): read shows text files and jpg/png/gif/webp images. Use bash to inspect it instead (for example file, unzip -l, pdftotext, strings or xxd | head); a UTF-16 text file can be converted with iconv -f UTF-16.`,
			);
		}
		if (limit !== undefined && !(limit >= 1)) {
			throw new SettleError("INVALID_ARGUMENT", `Invalid limit ${limit}: it must be a positive number of lines.`);
		}
		const start = windowStart(offset);
		const scanner = new LineWindowScanner(start, limit !== undefined ? start + Math.floor(limit) : Infinity);
		// Text in GBK, Shift-JIS or Latin-1 decodes to U+FFFD: the reply then says so (openclaw#92664).
		const utf8 = decoder ? undefined : new Utf8Check();
		utf8?.push(headBuffer);
		let wanted = scanner.push(headBuffer);
		while (wanted && !ended) {
			const next = await iterator.next();
			throwIfAborted(signal);
			if (next.done) ended = true;
			else {
				utf8?.push(next.value);
				wanted = scanner.push(asUtf8(next.value));
			}
		}
		if (ended) utf8?.end();
		// An odd byte left at the end decodes to U+FFFD, as a cut UTF-8 sequence does.
		if (decoder && ended) scanner.push(Buffer.from(decoder.decode(), "utf-8"));
		const window: TextWindow = scanner.finish();
		if (encoding) window.decodedFrom = encoding;
		if (utf8 && !utf8.valid) window.notUtf8 = true;
		// No text at all (0 bytes, or a UTF-16 or UTF-8 mark alone, as Notepad saves a new file): said
		// so whatever the offset (pi#4884).
		if (ended && (headBuffer.length === 0 || headBuffer.equals(UTF8_BOM))) window.empty = true;
		if (start >= window.totalLines && !window.empty) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Offset ${offset} is beyond end of file (${lineCount(window.totalLines)} total)`,
			);
		}
		return window;
	} finally {
		await iterator.return?.();
	}
}

/**
 * Says, after the text of a file decoded from UTF-16, that it was, and that `edit` and `write` keep
 * that encoding: the model changes it as it would a UTF-8 file. After the text of a file that is
 * not UTF-8 (GBK, Shift-JIS, Latin-1), says so and how to read it converted.
 */
function withEncodingNote(
	reply: { content: TextContent[]; details: ReadToolDetails | undefined },
	window: TextWindow,
	path: string,
): { content: TextContent[]; details: ReadToolDetails | undefined } {
	if (!window.decodedFrom && !window.notUtf8) return reply;
	const note = window.decodedFrom
		? utf16Note(window.decodedFrom)
		: `[${path} is not UTF-8 text (each sequence of its bytes that is not shows as \ufffd), and edit refuses it. To read it, convert it with bash: iconv -f <its encoding> -t UTF-8 ${shellWord(path)} (for example GBK, SHIFT_JIS, CP1252).]`;
	const [first, ...rest] = reply.content;
	return { ...reply, content: [{ ...first!, text: `${first!.text}\n\n${note}` }, ...rest] };
}

function replyText(
	window: TextWindow,
	path: string,
	offset: number | undefined,
): { content: TextContent[]; details: ReadToolDetails | undefined } {
	// Said in words: an empty result reaches a Chat Completions or Responses model as "(see attached
	// image)" (pi-ai's placeholder for a result without text), and the model described an image (pi#4884).
	if (window.empty) return { content: [{ type: "text", text: `[${path} is empty.]` }], details: undefined };
	// A file's final line break ends its last line; it does not start another (`wc -l`): without this,
	// "a\nb\n" counts 3 lines, a window ending at line 2 says "1 more lines… offset=3", and offset 3
	// reads an empty phantom line instead of being beyond the end (pi#7329).
	// A window that reaches the end still shows that break.
	const { totalLines, stopped } = window;
	const start = windowStart(offset);
	const firstShown = start + 1;
	const end = start + window.windowLines;
	const kept = truncateHead(window.kept.join("\n"));
	// Past the caps only the lines that cross them were kept: the totals are the window's counts.
	const truncation = window.keptAll
		? kept
		: { ...kept, totalLines: window.windowLines, totalBytes: window.windowBytes };
	const incomplete: Pick<ReadToolDetails, "lineCountIncomplete"> = stopped ? { lineCountIncomplete: true } : {};
	const notCounted = `not counted past the first ${formatSize(READ_LINE_COUNT_MAX_BYTES)}`;
	const reply = (output: string, details?: ReadToolDetails) => ({
		content: [{ type: "text" as const, text: output }],
		details,
	});
	if (truncation.firstLineExceedsLimit) {
		const cutShort = stopped && totalLines === firstShown;
		const lineSize = `${cutShort ? "at least " : ""}${formatSize(window.firstLineBytes)}`;
		return reply(
			`[Line ${firstShown} is ${lineSize}, exceeds ${formatSize(DEFAULT_MAX_BYTES)} limit. Use bash: sed -n '${firstShown}p' ${shellWord(path)} | head -c ${DEFAULT_MAX_BYTES}]`,
			{ truncation, ...incomplete },
		);
	}
	if (truncation.truncated) {
		const lastShown = firstShown + truncation.outputLines - 1;
		const byBytes = truncation.truncatedBy !== "lines";
		const limitNote = byBytes ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
		const of = stopped
			? `at least ${totalLines} (${byBytes ? `${formatSize(DEFAULT_MAX_BYTES)} limit; ` : ""}lines ${notCounted})`
			: `${totalLines}${limitNote}`;
		return reply(
			`${truncation.content}\n\n[Showing lines ${firstShown}-${lastShown} of ${of}. Use offset=${lastShown + 1} to continue.]`,
			{ truncation, ...incomplete },
		);
	}
	if (end < totalLines) {
		const more = stopped
			? `At least ${lineCount(totalLines - end, "more ")} in file (${notCounted})`
			: `${lineCount(totalLines - end, "more ")} in file`;
		return reply(
			`${truncation.content}\n\n[${more}. Use offset=${end + 1} to continue.]`,
			stopped ? { ...incomplete } : undefined,
		);
	}
	return reply(end === totalLines && window.endsWithBreak ? `${truncation.content}\n` : truncation.content);
}

/** "1 line", "2 lines": pi says "(1 lines total)" and "1 more lines in file". */
function lineCount(count: number, qualifier = ""): string {
	return `${count} ${qualifier}${count === 1 ? "line" : "lines"}`;
}
