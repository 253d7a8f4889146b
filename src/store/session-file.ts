/**
 * Reading session files: one JSON object per line, line 1 the header. Reading is tolerant: a
 * malformed line is skipped with a diagnostic (an entry whose parent it held follows the entry
 * before it), a whole entry glued after a torn fragment is loaded, a torn last line is reported,
 * and every other line still loads. Nothing here writes; repairs are the SessionManager's job (it
 * holds the lock).
 */
import { isAscii } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";
import { loadV8 } from "../lazy-deps.js";
import { sliceWholeCharacters } from "../tools/truncate.js";
import type { FileEntry, SessionDiagnostic, SessionEntry, SessionHeader } from "./entries.js";
import { entryFieldProblem, hasMessageObject, isWellShaped } from "./entry-shape.js";

/** Bytes read at a time. */
export const READ_CHUNK_BYTES = 1 << 20;
/** Decoded text pieces small enough to be allocated in V8's young generation (below its 128 KiB object limit). */
const SMALL_PIECE_BYTES = 1 << 16;
/** From this size on, V8's young generation has grown (a fresh process starts at 1 MiB). */
const GROWN_YOUNG_GENERATION_BYTES = 8 << 20;

/**
 * How many bytes to decode into one string at a time. Text decoded in whole read chunks (1 MiB,
 * stored outside V8's heap) lands on freshly mapped pages in a fresh process: about 1.5 µs per
 * 4 KiB page fault here, ~3 ms for 7 MB, more than the parsing it feeds saves. Small pieces are
 * allocated in the young generation, whose pages are reused; while it is small (a fresh process)
 * it is collected every few hundred KiB anyway and dead text costs those collections nothing. Once
 * it has grown, it holds the parsed entries without a collection during the read, and 7 MB of text
 * in it would force one (a copy of every entry parsed so far); then whole chunks are cheaper, their
 * memory being reused from earlier reads.
 */
export function decodePieceBytes(): number {
	for (const space of loadV8().getHeapSpaceStatistics()) {
		if (space.space_name === "new_space") {
			return space.space_size >= GROWN_YOUNG_GENERATION_BYTES ? READ_CHUNK_BYTES : SMALL_PIECE_BYTES;
		}
	}
	return READ_CHUNK_BYTES;
}
/** How a header line starts when pi or Settle wrote it: used to recognise a header cut off mid-write. */
const HEADER_PREFIX = '{"type":"session"';
/** How every line pi or Settle writes starts: where a whole entry glued after a torn line begins. */
const LINE_START = '{"type":';
/** The id of an entry line pi or Settle wrote (`type` first, `id` second), while its start is intact. */
const WRITTEN_ID = /^\{"type":"[^"\\]*","id":"([^"\\]+)"/;
/** How much of a torn fragment a diagnostic quotes. */
const QUOTED_FRAGMENT_CHARS = 60;

/** A line after the header that was skipped as unreadable. */
interface SkippedLine {
	line: number;
	/** How many entries were loaded before it. */
	before: number;
	/** The entry id the line held, when its start was intact enough to tell. */
	id: string | undefined;
	diagnostic: SessionDiagnostic;
}

/** The result of reading a session file (or text) without changing it. */
export interface SessionFileContents {
	/** The header, or null when the first parsable line is not a session header. */
	header: SessionHeader | null;
	/** Entries in file order (as parsed: not migrated). */
	entries: SessionEntry[];
	diagnostics: SessionDiagnostic[];
	/** Size of what was read, in bytes. */
	fileBytes: number;
	/** Bytes up to and including the last newline (where a torn line starts). */
	completeBytes: number;
	/** The bytes after the last newline when they did not form an entry (a torn last line). */
	tornTail?: { line: number; bytes: Buffer };
	/** True when the file's last line was a complete entry without a final newline. */
	missingNewline: boolean;
	/** True when the file holds nothing but the start of a header (a crash during the first write). */
	tornHeaderOnly: boolean;
}

/**
 * Receives what a read finds as it parses it (internal: how the SessionManager indexes entries
 * while they are still in the CPU cache). The reader fills `entries` (it becomes the result's
 * `entries`) and calls `added(from)` after each decoded piece (and after a last line without a
 * newline): `entries[from]` onwards are new. `header` comes before any entry. A file that turns
 * out not to be a session may have sent some before `header` is found to be null.
 */
export interface SessionFileSink {
	readonly entries: SessionEntry[];
	header(header: SessionHeader): void;
	added(from: number): void;
}

/**
 * The hot loop of reading: pushes `lines[start]`, `lines[start + 1]`, … onto `entries` while each
 * is a well-formed entry, and returns the index of the first line that is not (or `lines.length`).
 * A plain function of its arguments: optimized code that reads fields of a short-lived parser
 * object is thrown away when that object's hidden class is collected after a read, and recompiled
 * on the next one.
 */
function takeEntries(lines: string[], start: number, entries: SessionEntry[], requireIds: boolean): number {
	for (let i = start; i < lines.length; i++) {
		let value: { type?: unknown; id?: unknown } | null;
		try {
			value = JSON.parse(lines[i]!);
		} catch {
			return i;
		}
		if (
			value === null ||
			typeof value !== "object" ||
			typeof value.type !== "string" ||
			value.type === "session" ||
			(requireIds && typeof value.id !== "string") ||
			Array.isArray(value) ||
			// Fields of the wrong type: feedLine loads the entry and says what is read instead.
			!isWellShaped(value as Record<string, unknown>)
		) {
			return i;
		}
		entries.push(value as SessionEntry);
	}
	return lines.length;
}

/** `text` with each control character (C0, DEL, C1) written as a `\uXXXX` escape. */
function printable(text: string): string {
	let out = "";
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		out += code < 0x20 || (code >= 0x7f && code < 0xa0) ? `\\u${code.toString(16).padStart(4, "0")}` : text[i];
	}
	return out;
}

class LineParser {
	header: SessionHeader | null = null;
	readonly entries: SessionEntry[];
	readonly diagnostics: SessionDiagnostic[] = [];
	/** Set when the first parsable line is not a header: the file is not a session. */
	notASession = false;
	/** Unreadable lines after the header, in file order (see {@link reattachOrphans}). */
	readonly skipped: SkippedLine[] = [];
	lineNo = 0;
	private requireIds = true;
	/** How many entries the sink has been told about. */
	private announced = 0;

	constructor(
		private readonly file: string | undefined,
		private readonly sink: SessionFileSink | undefined = undefined,
	) {
		this.entries = sink ? sink.entries : [];
	}

	/**
	 * Parses a block of complete lines (UTF-8 bytes, no trailing newline), decoded in pieces of
	 * about `pieceBytes` (cut at newlines; see {@link decodePieceBytes}).
	 */
	feedBytes(bytes: Buffer, pieceBytes: number): void {
		let start = 0;
		while (bytes.length - start > pieceBytes) {
			let end = bytes.lastIndexOf(10, start + pieceBytes);
			if (end < start) end = bytes.indexOf(10, start + pieceBytes);
			if (end < 0) break;
			this.feedPiece(bytes.subarray(start, end));
			if (this.notASession) return;
			start = end + 1;
		}
		this.feedPiece(start === 0 ? bytes : bytes.subarray(start));
	}

	/**
	 * Parses complete lines (UTF-8 bytes, no trailing newline). Pure ASCII (the usual case) is
	 * decoded in one go; otherwise line by line, so one non-ASCII character does not turn every
	 * string of the piece into a slower two-byte string.
	 */
	private feedPiece(bytes: Buffer): void {
		if (isAscii(bytes)) {
			this.feedBlock(bytes.toString("latin1"));
			this.announce();
			return;
		}
		let start = 0;
		for (;;) {
			const nl = bytes.indexOf(10, start);
			const end = nl < 0 ? bytes.length : nl;
			this.lineNo++;
			this.feedLine(bytes.toString("utf8", start, end), this.lineNo);
			if (this.notASession || nl < 0) break;
			start = nl + 1;
		}
		this.announce();
	}

	/** Tells the sink about the entries pushed since the last call. */
	announce(): void {
		const from = this.announced;
		if (this.sink === undefined || this.entries.length === from) return;
		this.announced = this.entries.length;
		this.sink.added(from);
	}

	/** Parses a block of complete lines (no trailing newline). */
	feedBlock(text: string): void {
		const lines = text.split("\n");
		let i = 0;
		for (; i < lines.length && this.header === null; i++) {
			this.feedLine(lines[i]!, ++this.lineNo);
			if (this.notASession) return;
		}
		const entries = this.entries;
		const requireIds = this.requireIds;
		while (i < lines.length) {
			const stop = takeEntries(lines, i, entries, requireIds);
			this.lineNo += stop - i;
			if (stop === lines.length) return;
			// Not a well-formed entry: feedLine parses it again to say what is wrong with it.
			this.feedLine(lines[stop]!, ++this.lineNo);
			i = stop + 1;
		}
	}

	/** Returns false when the line is not a usable entry (already diagnosed unless `quiet`). */
	feedLine(text: string, lineNo: number, quiet = false): boolean {
		// A UTF-8 byte order mark before the header (some editors add one): pi reads past it too.
		const line = lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
		if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === "")) return true;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch (error) {
			// Its own method: this one runs for every line, and kept small it stays cheap to call.
			return this.unparsable(line, lineNo, quiet, error);
		}
		if (typeof value !== "object" || value === null || Array.isArray(value)) {
			if (!quiet) this.malformed(lineNo, "not a JSON object");
			return false;
		}
		const record = value as { type?: unknown; id?: unknown };
		if (typeof record.type !== "string") {
			if (!quiet) this.malformed(lineNo, 'has no string "type"');
			return false;
		}
		if (this.header === null) {
			if (record.type === "session" && typeof record.id === "string") {
				this.header = value as SessionHeader;
				this.requireIds = (this.header.version ?? 1) >= 2;
				this.sink?.header(this.header);
			} else {
				this.notASession = true;
			}
			return true;
		}
		if (record.type === "session") {
			this.diagnostics.push({
				kind: "duplicate_header",
				file: this.file,
				line: lineNo,
				message: `Line ${lineNo} is a second session header; skipped.`,
			});
			return true;
		}
		if (this.requireIds && typeof record.id !== "string") {
			if (!quiet) this.malformed(lineNo, 'entry has no string "id"');
			return false;
		}
		if (record.type === "message" && !hasMessageObject(record as { message?: unknown })) {
			if (!quiet) this.malformed(lineNo, "a message entry without a message object", record.id);
			return false;
		}
		const problem = entryFieldProblem(value as SessionEntry & Record<string, unknown>);
		if (problem !== undefined) {
			this.diagnostics.push({
				kind: "invalid_field",
				file: this.file,
				line: lineNo,
				message: `Line ${lineNo}: ${problem} (the line is kept as it is).`,
			});
		}
		this.entries.push(value as SessionEntry);
		return true;
	}

	/** A line that is not JSON: a whole entry glued after a torn fragment is loaded, else the line is skipped. */
	private unparsable(line: string, lineNo: number, quiet: boolean, error: unknown): boolean {
		if (this.header !== null && this.takeGluedEntry(line, lineNo)) return true;
		// The parser quotes the line: escaped, the NUL bytes of a write a crash lost (claude-code#49876) or escape
		// sequences reach no terminal raw.
		if (!quiet)
			this.malformed(lineNo, `not valid JSON (${printable((error as Error).message)})`, WRITTEN_ID.exec(line)?.[1]);
		return false;
	}

	private malformed(lineNo: number, reason: string, id?: unknown): void {
		const diagnostic: SessionDiagnostic = {
			kind: "malformed_line",
			file: this.file,
			line: lineNo,
			message: `Line ${lineNo} skipped: ${reason}.`,
		};
		this.diagnostics.push(diagnostic);
		if (this.header !== null) {
			const held = typeof id === "string" ? id : undefined;
			this.skipped.push({ line: lineNo, before: this.entries.length, id: held, diagnostic });
		}
	}

	/** Loads the whole entry {@link gluedEntry} finds at the end of a line that starts with a fragment. */
	private takeGluedEntry(line: string, lineNo: number): boolean {
		const glued = gluedEntry(line);
		if (!glued) return false;
		const { at, record } = glued;
		const fragment = line.slice(0, at);
		const quoted =
			fragment.length > QUOTED_FRAGMENT_CHARS ? `${sliceWholeCharacters(fragment, QUOTED_FRAGMENT_CHARS)}…` : fragment;
		this.diagnostics.push({
			kind: "torn_line",
			file: this.file,
			line: lineNo,
			message:
				`Line ${lineNo} starts with ${Buffer.byteLength(fragment)} bytes of a line cut off mid-write ` +
				`(${printable(quoted)}), skipped; the whole entry written after them on the same line` +
				`${typeof record.id === "string" ? ` (${record.id})` : ""} was loaded.`,
		});
		return this.feedLine(line.slice(at), lineNo, true);
	}
}

/**
 * The whole entry at the end of a line that starts with a fragment, and where it starts: pi does
 * not set a torn last line aside, so the next entry it appends after a crash lands on that line,
 * glued to the fragment (and two writers racing on one file glue the same way, codex#24425). The
 * entry is the line's last `{"type":` from which the rest parses as an entry. The loader and the
 * session lists both read such a line this way, so a list counts what a resume loads.
 *
 * @example
 * ```ts
 * gluedEntry('{"type":"mess{"type":"label","id":"a1","parentId":null,"timestamp":"t"}')?.at; // 13
 * ```
 */
export function gluedEntry(line: string): { at: number; record: Record<string, unknown> & { id: string } } | undefined {
	for (let at = line.lastIndexOf(LINE_START); at > 0; at = line.lastIndexOf(LINE_START, at - 1)) {
		let value: unknown;
		try {
			value = JSON.parse(line.slice(at));
		} catch {
			continue;
		}
		if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
		// An entry as pi appends one (not a block nested in the fragment that happens to end the line).
		const record = value as {
			type?: unknown;
			id?: unknown;
			parentId?: unknown;
			timestamp?: unknown;
			message?: unknown;
		};
		if (typeof record.type !== "string" || record.type === "session" || typeof record.id !== "string") continue;
		if ((record.parentId !== null && typeof record.parentId !== "string") || typeof record.timestamp !== "string")
			continue;
		if (record.type === "message" && !hasMessageObject(record)) continue;
		return { at, record: record as Record<string, unknown> & { id: string } };
	}
	return undefined;
}

/**
 * Re-attaches, in memory, each entry whose parent is not in the file because the line holding it
 * was unreadable: to the last entry loaded before that line, so the branch keeps the conversation
 * before the damage instead of starting at the orphan (the file is not changed). The line is the
 * skipped line before the entry that held the parent's id, else the nearest one whose id is unknown.
 */
function reattachOrphans(parser: LineParser): void {
	const skipped = parser.skipped;
	if (skipped.length === 0) return;
	const entries = parser.entries;
	const byId = new Map<string, SessionEntry>();
	for (const entry of entries) byId.set(entry.id, entry);
	for (let i = skipped[0]!.before; i < entries.length; i++) {
		const entry = entries[i]!;
		const parentId = entry.parentId;
		if (typeof parentId !== "string" || parentId === entry.id || byId.has(parentId)) continue;
		let holder: SkippedLine | undefined;
		for (const line of skipped) {
			if (line.before > i) break;
			if (line.id === parentId) holder = line;
			else if (line.id === undefined && holder?.id !== parentId) holder = line;
		}
		if (holder === undefined || holder.before === 0) continue;
		const target = entries[holder.before - 1]!;
		if (hasAncestor(target, entry, byId, entries.length)) continue;
		entry.parentId = target.id;
		holder.diagnostic.message +=
			` Entry ${entry.id}, whose parent ${parentId} is not in the file, was attached to ${target.id}, ` +
			`the last entry before line ${holder.line} (in memory; the file is unchanged).`;
	}
}

/** Whether `ancestor` is `entry` or on its path to the root (at most `limit` steps: a cycle in a hand-edited file ends it). */
function hasAncestor(
	entry: SessionEntry,
	ancestor: SessionEntry,
	byId: ReadonlyMap<string, SessionEntry>,
	limit: number,
): boolean {
	let current: SessionEntry | undefined = entry;
	for (let steps = 0; current !== undefined && steps <= limit; steps++) {
		if (current === ancestor) return true;
		current = typeof current.parentId === "string" ? byId.get(current.parentId) : undefined;
	}
	return false;
}

function finish(
	parser: LineParser,
	file: string | undefined,
	fileBytes: number,
	tail: Buffer | undefined,
): SessionFileContents {
	const result: SessionFileContents = {
		header: parser.notASession ? null : parser.header,
		entries: parser.notASession ? [] : parser.entries,
		diagnostics: parser.diagnostics,
		fileBytes,
		completeBytes: fileBytes - (tail?.length ?? 0),
		missingNewline: false,
		tornHeaderOnly: false,
	};
	if (!tail || parser.notASession) {
		if (result.header) reattachOrphans(parser);
		return result;
	}
	const line = parser.lineNo + 1;
	const text = tail.toString("utf8");
	if (text.trim() !== "" && parser.feedLine(text, line, true) && !parser.notASession && parser.header) {
		parser.announce();
		reattachOrphans(parser);
		result.header = parser.header;
		result.missingNewline = true;
		result.completeBytes = fileBytes;
		result.diagnostics.push({
			kind: "missing_newline",
			file,
			line,
			message: `Line ${line} (the last) had no final newline; it was loaded.`,
		});
		return result;
	}
	if (parser.notASession) {
		result.header = null;
		result.entries = [];
		return result;
	}
	if (result.header) reattachOrphans(parser);
	result.tornTail = { line, bytes: tail };
	result.tornHeaderOnly =
		parser.header === null &&
		tail.length === fileBytes &&
		HEADER_PREFIX.startsWith(text.slice(0, HEADER_PREFIX.length));
	result.diagnostics.push({
		kind: "torn_line",
		file,
		line,
		message: `Line ${line} (the last, ${tail.length} bytes) was cut off mid-write and not loaded.`,
	});
	return result;
}

/**
 * Reads a session file without modifying it. Returns undefined when the file does not exist.
 * Never throws for bad content: see `header` (null = not a session), `diagnostics`, `tornTail`.
 * An entry whose parent was on an unreadable line gets, in the result, the `parentId` of the last
 * entry before that line (its diagnostic says so).
 *
 * @example
 * ```ts
 * const contents = readSessionFile("/path/to/session.jsonl");
 * for (const d of contents?.diagnostics ?? []) console.warn(d.message);
 * ```
 */
export function readSessionFile(path: string): SessionFileContents | undefined {
	return readSessionFileInto(path, undefined);
}

/**
 * {@link readSessionFile}, also handing the header and each entry to `sink` as they are parsed
 * (internal; `pieceBytes` only for tests).
 */
export function readSessionFileInto(
	path: string,
	sink: SessionFileSink | undefined,
	pieceBytes = decodePieceBytes(),
): SessionFileContents | undefined {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw error;
	}
	const parser = new LineParser(path, sink);
	let total = 0;
	// Bytes [0, filled) of `buffer` are read but not yet parsed (the start of an unfinished line).
	let buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
	let filled = 0;
	try {
		for (;;) {
			if (filled === buffer.length) {
				// One line longer than the buffer: grow it.
				const bigger = Buffer.allocUnsafe(buffer.length * 2);
				buffer.copy(bigger, 0, 0, filled);
				buffer = bigger;
			}
			const n = readSync(fd, buffer, filled, buffer.length - filled, null);
			if (n === 0) break;
			const scanFrom = filled;
			filled += n;
			total += n;
			const lastNl = buffer.subarray(scanFrom, filled).lastIndexOf(10);
			if (lastNl < 0) continue;
			const end = scanFrom + lastNl;
			// A newline byte never occurs inside a multi-byte UTF-8 sequence, so this cut is safe.
			parser.feedBytes(buffer.subarray(0, end), pieceBytes);
			if (parser.notASession) break;
			buffer.copy(buffer, 0, end + 1, filled);
			filled -= end + 1;
		}
	} finally {
		closeSync(fd);
	}
	return finish(
		parser,
		path,
		total,
		filled > 0 && !parser.notASession ? Buffer.from(buffer.subarray(0, filled)) : undefined,
	);
}

/**
 * Parses session text (what a file holds) with the same rules as {@link readSessionFile}.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 *
 * const { header, entries } = parseSessionText(readFileSync(sessionManager.getSessionFile()!, "utf8"));
 * ```
 */
export function parseSessionText(text: string, file?: string): SessionFileContents {
	const parser = new LineParser(file);
	const lastNl = text.lastIndexOf("\n");
	if (lastNl > 0) parser.feedBlock(text.slice(0, lastNl));
	else if (lastNl === 0) parser.lineNo = 1;
	const rest = text.slice(lastNl + 1);
	const bytes = Buffer.byteLength(text);
	return finish(parser, file, bytes, rest.length > 0 ? Buffer.from(rest) : undefined);
}

/**
 * pi's `parseSessionEntries`: every line that parses as a JSON object with a `type` (the header
 * included), malformed lines skipped. Must not throw.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 *
 * const [header, ...entries] = parseSessionEntries(readFileSync(sessionManager.getSessionFile()!, "utf8"));
 * ```
 */
export function parseSessionEntries(content: string): FileEntry[] {
	const out: FileEntry[] = [];
	for (const line of content.trim().split("\n")) {
		if (!line.trim()) continue;
		try {
			const value: unknown = JSON.parse(line);
			if (typeof value === "object" && value !== null && !Array.isArray(value)) {
				if (typeof (value as { type?: unknown }).type === "string") out.push(value as FileEntry);
			}
		} catch {
			// malformed line: skipped, as pi does
		}
	}
	return out;
}

/**
 * pi's `loadEntriesFromFile`: `[header, ...entries]` of a session file (not migrated), or `[]`
 * when the file is missing, empty, or does not start with a session header. Read-only; must not throw
 * for bad content.
 *
 * @example
 * ```ts
 * const loaded = loadEntriesFromFile(sessionManager.getSessionFile()!);
 * if (loaded.length === 0) console.log("not a session");
 * ```
 */
export function loadEntriesFromFile(path: string): FileEntry[] {
	const contents = readSessionFile(path);
	if (!contents?.header) return [];
	return [contents.header, ...contents.entries];
}
