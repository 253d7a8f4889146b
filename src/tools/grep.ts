/**
 * The `grep` tool, in pure Node: no ripgrep download. Walks the tree (honouring .gitignore, skipping
 * .git and binary files), matches lines with a JavaScript regular expression or a literal string, on
 * a worker thread so that a pattern that backtracks for ages can be aborted.
 */
import { open, stat } from "node:fs/promises";
import { basename, isAbsolute, relative } from "node:path";
import type { Worker } from "node:worker_threads";
import type { Static } from "@sinclair/typebox";
import { SettleError } from "../errors.js";
import { loadPicomatch, loadWorkerThreads } from "../lazy-deps.js";
import { Type } from "../schema/typebox.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import { resolveReadPath, toNfc } from "./paths.js";
import { decodeText, utf16Encoding } from "./text-encoding.js";
import {
	counted,
	DEFAULT_MAX_BYTES,
	GREP_MAX_LINE_LENGTH,
	listingResult,
	type TruncationResult,
	truncateLine,
} from "./truncate.js";
import type { ToolDefinition } from "./types.js";
import { walkTree } from "./walk.js";

const grepSchema = Type.Object({
	pattern: Type.String({ description: "Search pattern (regex or literal string)" }),
	path: Type.Optional(Type.String({ description: "Directory or file to search (default: current directory)" })),
	glob: Type.Optional(Type.String({ description: "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'" })),
	ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive search (default: false)" })),
	literal: Type.Optional(
		Type.Boolean({ description: "Treat pattern as literal string instead of regex (default: false)" }),
	),
	context: Type.Optional(
		Type.Number({ description: "Number of lines to show before and after each match (default: 0)" }),
	),
	limit: Type.Optional(Type.Number({ description: "Maximum number of matches to return (default: 100)" })),
});
/** Arguments of the `grep` tool: a pattern, where to search and how to print matches. */
export type GrepToolInput = Static<typeof grepSchema>;

/** `details` of a `grep` tool result. */
export interface GrepToolDetails {
	truncation?: TruncationResult;
	/** The match limit, when more matches existed than were returned. */
	matchLimitReached?: number;
	linesTruncated?: boolean;
}

/** Options of {@link createGrepToolDefinition}. */
export interface GrepToolOptions {
	/** Largest file searched, in bytes (bigger files are skipped). Default 32 MB. */
	maxFileBytes?: number;
	/** Extra gitignore-style patterns skipped on top of the ignore files (for example `["node_modules/"]`). */
	ignore?: readonly string[];
}

/** Most matches `grep` returns when the call gives no limit. */
export const DEFAULT_GREP_LIMIT = 100;
const DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;
/** Bytes inspected for a NUL byte to decide that a file is binary (git uses the same heuristic). */
const BINARY_SNIFF_BYTES = 8000;

/**
 * Builds the line matcher. Accepts JavaScript regular-expression syntax; a leading `(?i)` (common in
 * ripgrep patterns) is understood as case-insensitive, and POSIX classes in brackets (`[[:digit:]]`,
 * `[[:^space:]]`) and `\A` / `\z` as rg reads them. Lines never hold a line break, so `.` is any
 * character (`s` flag: also CR, U+2028, U+2029, as in rg); the `u` flag (whole emoji for `.`,
 * Unicode case folding as rg's) is used when the pattern compiles with it. Throws `SettleError`
 * INVALID_ARGUMENT (`Invalid regex pattern: …`) for a pattern JavaScript cannot compile.
 *
 * @example
 * ```ts
 * compileGrepPattern("(?i)todo", {}); // /todo/isu
 * compileGrepPattern("a.b", { literal: true }); // /a\.b/su
 * compileGrepPattern("v[[:digit:]]+", {}); // /v[0-9]+/su
 * compileGrepPattern("\\Adone\\z", {}); // /^done$/su
 * // Not valid with the u flag, so read without it:
 * compileGrepPattern("a\\-b", {}); // /a\-b/s
 * ```
 */
export function compileGrepPattern(pattern: string, options: { ignoreCase?: boolean; literal?: boolean }): RegExp {
	let source = pattern;
	let ignoreCase = options.ignoreCase ?? false;
	if (options.literal) {
		source = pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
	} else {
		if (source.startsWith("(?i)")) {
			source = source.slice(4);
			ignoreCase = true;
		}
		source = translateRgSyntax(source);
	}
	const flags = ignoreCase ? "is" : "s";
	try {
		return new RegExp(source, `${flags}u`);
	} catch {
		// Stricter syntax with u (`\-`, a lone `{`): fall back to the plain reading.
	}
	try {
		return new RegExp(source, flags);
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Invalid regex pattern: ${reason}. Fix the pattern, or pass literal: true to search for the text as written.`,
		);
	}
}

/** ASCII members of the POSIX classes rg accepts in a bracket (`[[:space:]]`), as JavaScript class ranges. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
	alnum: "0-9A-Za-z",
	alpha: "A-Za-z",
	ascii: "\\x00-\\x7F",
	blank: "\\t ",
	cntrl: "\\x00-\\x1F\\x7F",
	digit: "0-9",
	graph: "\\x21-\\x7E",
	lower: "a-z",
	print: "\\x20-\\x7E",
	punct: "\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E",
	space: "\\t\\n\\v\\f\\r ",
	upper: "A-Z",
	word: "0-9A-Za-z_",
	xdigit: "0-9A-Fa-f",
};

/**
 * `source` with rg's syntax that JavaScript lacks spelled in JavaScript's. A POSIX class inside a
 * bracket (`[[:space:]]`, `[^[:digit:]_]`) becomes its ranges: JavaScript read `[[:space:]]` as the
 * set `[:space` then a literal `]`, so the grep habit models carry over matched nothing, silently
 * (mirage#1170). A negated one (`[[:^space:]]`) becomes an alternative of negated sets. `\A` / `\z`
 * (start / end of the text: a line's, as each line is matched alone) become `^` / `$`: JavaScript
 * read them as the letters `A` / `z`.
 */
function translateRgSyntax(source: string): string {
	if (!source.includes("[:") && !/\\[Az]/.test(source)) return source;
	let out = "";
	let bracket: RgBracket | undefined;
	for (let i = 0; i < source.length; i++) {
		const char = source[i]!;
		if (char === "\\") {
			const escaped = source.slice(i, i + 2);
			i++;
			if (bracket) bracket.members += escaped;
			else out += escaped === "\\A" ? "^" : escaped === "\\z" ? "$" : escaped;
			continue;
		}
		if (!bracket) {
			if (char !== "[") out += char;
			else {
				bracket = { negated: source[i + 1] === "^", members: "", complements: [] };
				if (bracket.negated) i++;
			}
			continue;
		}
		const posix = char === "[" ? /^\[:(\^?)([a-z]+):\]/.exec(source.slice(i)) : null;
		const ranges = posix ? POSIX_CLASSES[posix[2]!] : undefined;
		if (posix && ranges) {
			if (posix[1]) bracket.complements.push(ranges);
			else bracket.members += ranges;
			i += posix[0].length - 1;
		} else if (char === "]") {
			out += bracketSource(bracket);
			bracket = undefined;
		} else {
			bracket.members += char;
		}
	}
	// Unclosed: left as written, for RegExp to refuse.
	return bracket ? `${out}[${bracket.negated ? "^" : ""}${bracket.members}` : out;
}

/** A bracket being read: its own members and the ranges of its negated POSIX classes. */
interface RgBracket {
	negated: boolean;
	members: string;
	complements: string[];
}

/** A JavaScript class has no complement of a range inside it: `[a[:^digit:]]` is `(?:[a]|[^0-9])`. */
function bracketSource({ negated, members, complements }: RgBracket): string {
	if (complements.length === 0) return `[${negated ? "^" : ""}${members}]`;
	const sets = [...(members ? [`[${members}]`] : []), ...complements.map((ranges) => `[^${ranges}]`)].join("|");
	return negated ? `(?!${sets})[\\s\\S]` : `(?:${sets})`;
}

/**
 * Where a path-glob (`src/**`) of grep or find is matched from: the session cwd when the search
 * folder is inside it (pi runs rg/fd there, so `src/*.ts` means the same whatever `path` is), else
 * the search folder. Returns the search folder's path from there ("" when it is that folder).
 */
export function globBase(cwd: string, searchFolder: string): string {
	const rel = relative(cwd, searchFolder);
	if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return "";
	return rel.split("\\").join("/");
}

/**
 * File filter for the `glob` parameter, ripgrep style: a glob without `/` matches the file name at
 * any depth, one with `/` matches the path from the folder {@link globBase} names (the session cwd,
 * normally), anchored there; a leading `!` excludes.
 *
 * @example
 * ```ts
 * createGlobFilter("*.ts")("src/a.ts"); // true
 * createGlobFilter("!*.test.ts")("src/a.test.ts"); // false
 * createGlobFilter(undefined)("anything"); // true
 * ```
 */
export function createGlobFilter(glob: string | undefined): (relativePath: string) => boolean {
	if (!glob) return () => true;
	const negated = glob.startsWith("!");
	// Both sides in NFC, as find's patterns: macOS writes names decomposed (aside-codemode#30).
	const pattern = toNfc(negated ? glob.slice(1) : glob);
	const byPath = pattern.includes("/");
	const isMatch = loadPicomatch()(byPath ? pattern.replace(/^\//, "") : pattern, { dot: true });
	return (relativePath) => {
		const matched = isMatch(toNfc(byPath ? relativePath : basename(relativePath)));
		return negated ? !matched : matched;
	};
}

/** `glob` made to match at any depth (`**\/` before it), for a glob with `/` that is not one already. */
function globAtAnyDepth(glob: string | undefined): string | undefined {
	if (!glob || glob.startsWith("!") || !glob.includes("/") || glob.startsWith("**/")) return undefined;
	return `**/${glob.replace(/^\/+/, "")}`;
}

/**
 * The file's text as UTF-8 bytes (a UTF-16 file decoded by its mark, a UTF-8 mark dropped, as rg
 * does), or undefined when it is larger than `maxBytes` or, unless `binaryToo`, binary (a NUL anywhere, as rg skips them). Most binary files are recognised by their first
 * {@link BINARY_SNIFF_BYTES} without reading them whole.
 */
async function readTextFile(path: string, maxBytes: number, binaryToo: boolean): Promise<Buffer | undefined> {
	const handle = await open(path, "r");
	try {
		const { size } = await handle.stat();
		if (size > maxBytes) return undefined;
		const head = Buffer.alloc(Math.min(size, BINARY_SNIFF_BYTES));
		const { bytesRead } = await handle.read(head, 0, head.length, 0);
		// A UTF-16 file (with its mark) has a NUL in every ASCII character: searched as its text, as rg does.
		const wide = utf16Encoding(head.subarray(0, bytesRead)) !== undefined;
		if (!wide && !binaryToo && head.subarray(0, bytesRead).includes(0)) return undefined;
		if (!wide && size <= bytesRead) return withoutUtf8Bom(head.subarray(0, bytesRead));
		const whole = Buffer.alloc(size);
		head.copy(whole, 0, 0, bytesRead);
		let offset = bytesRead;
		while (offset < size) {
			const { bytesRead: n } = await handle.read(whole, offset, size - offset, offset);
			if (n === 0) break; // truncated while we read
			offset += n;
		}
		// A NUL byte past the first sniff is still a binary file (rg skips it too).
		let bytes = whole.subarray(0, offset);
		if (wide) bytes = Buffer.from(decodeText(bytes).text);
		if (!binaryToo && bytes.indexOf(0, wide ? 0 : bytesRead) !== -1) return undefined;
		return withoutUtf8Bom(bytes);
	} finally {
		await handle.close();
	}
}

/** `bytes` without a UTF-8 byte-order mark: rg drops it too, so `^` matches the first line. */
function withoutUtf8Bom(bytes: Buffer): Buffer {
	return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

/**
 * Creates the `grep` tool for a working directory.
 *
 * @example
 * ```ts
 * const grep = createGrepToolDefinition(cwd);
 * await grep.execute("call-1", { pattern: "TODO", glob: "*.ts", context: 1 }, undefined, undefined, undefined);
 * ```
 */
export function createGrepToolDefinition(
	cwd: string,
	options: GrepToolOptions = {},
): ToolDefinition<typeof grepSchema, GrepToolDetails | undefined> {
	return {
		name: "grep",
		label: "grep",
		description: `Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to ${DEFAULT_GREP_LIMIT} matches or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). Long lines are truncated to ${GREP_MAX_LINE_LENGTH} chars. Patterns use JavaScript regular-expression syntax.`,
		promptSnippet: "Search file contents by regex or literal text (respects .gitignore)",
		promptGuidelines: [
			"Prefer grep and find over bash for searching the code base; they skip ignored files and cap their output.",
		],
		parameters: grepSchema,
		async execute(_toolCallId, params, signal) {
			throwIfAborted(signal);
			return raceAbort(runGrep(cwd, params, options, signal), signal);
		},
	};
}

interface FileScan {
	absolutePath: string;
	displayPath: string;
	lines: string[];
	matchLines: number[];
}

/** Files read at once while searching a folder. */
const READ_CONCURRENCY = 16;

/**
 * A regex to test a whole file before splitting it into lines, or undefined when that could miss a
 * line match. With the `m` flag, `^`/`$` see line boundaries and `.` never crosses them, so a line
 * match implies a whole-text match; lookarounds could see across lines, so they get no precheck.
 */
function wholeFilePrecheck(regex: RegExp): RegExp | undefined {
	if (/\(\?<?[=!]/.test(regex.source)) return undefined;
	return new RegExp(regex.source, `${regex.flags}m`);
}

/**
 * The line matching, run on a worker thread (plain CommonJS, so it needs no loader in the sources or
 * in dist/). A JavaScript regex backtracks: `(a+)+$` on a line of a's takes ages, and on the main
 * thread it froze the whole session, abort included (rg's engine cannot backtrack; ours can, so it
 * runs where terminating it is possible).
 */
const LINE_MATCHER_SOURCE = `
const { parentPort } = require("node:worker_threads");
let regex;
let precheck;
parentPort.on("message", (message) => {
	if (message.source !== undefined) {
		regex = new RegExp(message.source, message.flags);
		precheck = message.precheck ? new RegExp(message.source, message.flags + "m") : undefined;
		return;
	}
	const matchLines = [];
	if (!precheck || precheck.test(message.text)) {
		const lines = message.text.split("\\n");
		if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
		for (let i = 0; i < lines.length && matchLines.length <= message.limit; i++) {
			if (regex.test(lines[i])) matchLines.push(i + 1);
		}
	}
	parentPort.postMessage({ id: message.id, matchLines });
});
`;

/** One grep call's worker: matching line numbers of a text. Stopped on abort and when the call ends. */
class LineMatcherThread {
	private readonly worker: Worker;
	private readonly pending = new Map<number, { resolve: (lines: number[]) => void; reject: (error: Error) => void }>();
	private nextId = 0;

	constructor(regex: RegExp, precheck: boolean) {
		this.worker = new (loadWorkerThreads().Worker)(LINE_MATCHER_SOURCE, { eval: true });
		this.worker.postMessage({ source: regex.source, flags: regex.flags, precheck });
		this.worker.on("message", ({ id, matchLines }: { id: number; matchLines: number[] }) => {
			this.pending.get(id)?.resolve(matchLines);
			this.pending.delete(id);
		});
		const failAll = (error: Error) => {
			for (const { reject } of this.pending.values()) reject(error);
			this.pending.clear();
		};
		this.worker.on("error", failAll);
		// Stopped: on abort (the tool has already answered `Operation aborted`) or once the search is
		// over, when the scans still in flight past the match limit are dropped unawaited.
		this.worker.on("exit", () => {
			for (const { resolve } of this.pending.values()) resolve([]);
			this.pending.clear();
		});
	}

	match(text: string, limit: number): Promise<number[]> {
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			this.worker.postMessage({ id, text, limit });
		});
	}

	stop(): void {
		void this.worker.terminate();
	}
}

interface Match {
	absolutePath: string;
	displayPath: string;
	lineNumber: number;
}

async function runGrep(cwd: string, params: GrepToolInput, options: GrepToolOptions, signal: AbortSignal | undefined) {
	const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
	// As read's path: a folder or file named in the other Unicode normalization is found (aside-codemode#30).
	const searchPath = resolveReadPath(params.path || ".", cwd);
	let isDirectory: boolean;
	try {
		isDirectory = (await stat(searchPath)).isDirectory();
	} catch {
		throw new SettleError("NOT_FOUND", `Path not found: ${searchPath}`);
	}
	// After the path check, as pi: a bad pattern in a missing folder is reported as the missing folder.
	const regex = compileGrepPattern(params.pattern, params);
	const contextLines = params.context && params.context > 0 ? Math.floor(params.context) : 0;
	const limit = Math.max(1, Math.floor(params.limit ?? DEFAULT_GREP_LIMIT));
	const globFilter = createGlobFilter(params.glob);

	const matcher = new LineMatcherThread(regex, wholeFilePrecheck(regex) !== undefined);
	const stopMatcher = () => matcher.stop();
	signal?.addEventListener("abort", stopMatcher, { once: true });
	try {
		return await searchWith(matcher);
	} finally {
		signal?.removeEventListener("abort", stopMatcher);
		matcher.stop();
	}

	async function searchWith(matcher: LineMatcherThread) {
		// A plain case-sensitive text can be looked for in the raw bytes, before any decoding.
		const literal = params.literal
			? params.pattern
			: /^[^\\^$.*+?()[\]{}|]+$/.test(params.pattern)
				? params.pattern
				: undefined;
		const literalBytes =
			literal && !regex.flags.includes("i") && !literal.includes("\n") ? Buffer.from(literal) : undefined;
		const fileLines = new Map<string, string[]>();
		const matches: Match[] = [];
		let moreMatches = false;

		/** Matching line numbers of one file (at most limit + 1), or undefined for no match / skipped. */
		// A file asked for by name is searched even when binary, as rg does.
		const scanFile = async (absolutePath: string, displayPath: string): Promise<FileScan | undefined> => {
			let content: Buffer | undefined;
			try {
				content = await readTextFile(absolutePath, maxFileBytes, !isDirectory);
			} catch {
				return undefined; // vanished or unreadable: skip
			}
			if (!content) return undefined;
			if (literalBytes && content.indexOf(literalBytes) === -1) return undefined;
			let text = content.toString("utf-8");
			// CRLF ends a line; a lone CR does not (line numbers count LF, as rg's and the read tool's do).
			if (text.includes("\r")) text = text.replace(/\r\n/g, "\n");
			const matchLines = await matcher.match(text, limit);
			if (matchLines.length === 0) return undefined;
			const lines = text.split("\n");
			// A final line break ends the last line; it does not start an empty one.
			if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
			return { absolutePath, displayPath, lines, matchLines };
		};
		/** Adds a file's matches in order; false once the limit is exceeded. */
		const accept = (scan: FileScan | undefined): boolean => {
			if (!scan) return true;
			for (const lineNumber of scan.matchLines) {
				if (matches.length >= limit) {
					moreMatches = true;
					return false;
				}
				matches.push({ absolutePath: scan.absolutePath, displayPath: scan.displayPath, lineNumber });
				fileLines.set(scan.absolutePath, scan.lines);
			}
			return true;
		};

		// A glob with `/` is matched from one folder, as rg does. When it takes no file there but would
		// deeper (`.github/workflows/*.yml` searched from above the repositories), the answer says so
		// (claude-code#30486: a bare "No matches found", read as no such code anywhere).
		const base = globBase(cwd, searchPath);
		const anyDepthGlob = globAtAnyDepth(params.glob);
		const matchesAtAnyDepth = anyDepthGlob ? createGlobFilter(anyDepthGlob) : undefined;
		let globTookAFile = false;
		let deeperFile: string | undefined;
		if (!isDirectory) {
			accept(await scanFile(searchPath, basename(searchPath)));
		} else {
			// Files are read a few at a time but their results are taken in walk order, so output is stable.
			const inFlight: Promise<FileScan | undefined>[] = [];
			let full = false;
			const fromBase = (relativePath: string) => (base ? `${base}/${relativePath}` : relativePath);
			const globMatches = (relativePath: string) => globFilter(fromBase(relativePath));
			// As rg: a file or folder the glob names is searched even when .gitignore skips it (not a `!` glob).
			const keep = params.glob && !params.glob.startsWith("!") ? globMatches : undefined;
			const walk = walkTree(searchPath, { signal, ignoreBoundary: cwd, extraIgnore: options.ignore, keep });
			for await (const entry of walk) {
				if (entry.kind !== "file") continue;
				if (!globMatches(entry.relativePath)) {
					if (matchesAtAnyDepth && !globTookAFile && deeperFile === undefined) {
						if (matchesAtAnyDepth(fromBase(entry.relativePath))) deeperFile = entry.relativePath;
					}
					continue;
				}
				globTookAFile = true;
				inFlight.push(scanFile(entry.absolutePath, entry.relativePath));
				if (inFlight.length >= READ_CONCURRENCY && !accept(await inFlight.shift())) {
					full = true;
					break;
				}
			}
			while (!full && inFlight.length > 0) {
				throwIfAborted(signal);
				full = !accept(await inFlight.shift());
			}
		}

		if (matches.length === 0) {
			const text =
				!globTookAFile && deeperFile !== undefined
					? `No matches found: no file's path from ${base ? cwd : searchPath} matches the glob "${params.glob}" (a glob with / is matched from that folder). Use glob "${anyDepthGlob}" to match it at any depth (it takes ${deeperFile}, for one)`
					: "No matches found";
			return { content: [{ type: "text" as const, text }], details: undefined };
		}

		let linesTruncated = false;
		const show = (text: string) => {
			const cut = truncateLine(text.includes("\r") ? text.replace(/\r/g, "") : text);
			if (cut.wasTruncated) linesTruncated = true;
			return cut.text;
		};
		// A file's matches are consecutive and in line order. Windows that overlap are merged, as `rg -C`
		// does: each line is shown once, marked as a match when it is one, also inside another's context
		// (pi#7971: pi printed every match's window whole, the same lines over and over).
		const matchedLines = new Set(matches.map((match) => `${match.absolutePath}\0${match.lineNumber}`));
		const output: string[] = [];
		let shownFile: string | undefined;
		let shownUpTo = 0;
		for (const match of matches) {
			if (match.absolutePath !== shownFile) {
				shownFile = match.absolutePath;
				shownUpTo = 0;
			}
			const lines = fileLines.get(match.absolutePath) ?? [];
			const first = Math.max(1, match.lineNumber - contextLines, shownUpTo + 1);
			const last = Math.min(lines.length, match.lineNumber + contextLines);
			for (let n = first; n <= last; n++) {
				const text = show(lines[n - 1] ?? "");
				output.push(
					matchedLines.has(`${match.absolutePath}\0${n}`)
						? `${match.displayPath}:${n}: ${text}`
						: `${match.displayPath}-${n}- ${text}`,
				);
			}
			shownUpTo = Math.max(shownUpTo, last);
		}

		return listingResult<GrepToolDetails>(
			output,
			moreMatches
				? [
						{
							text: `${counted(limit, "match", "matches")} limit reached. Use limit=${limit * 2} for more, or refine pattern`,
							details: { matchLimitReached: limit },
						},
					]
				: [],
			linesTruncated
				? [
						{
							text: `Some lines truncated to ${GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines`,
							details: { linesTruncated: true },
						},
					]
				: [],
		);
	}
}
