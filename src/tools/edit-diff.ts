/**
 * Text replacement and diffs for the `edit` tool. Every edit is matched against the ORIGINAL content
 * (not after earlier edits), must match exactly once, and must not overlap another edit.
 *
 * Exact matching comes first. When an edit's text is not found verbatim, a tolerant match ignores
 * trailing whitespace and typographic variants (smart quotes, Unicode dashes and spaces, NFKC forms,
 * decomposed accents), which models often get wrong, and lets whole lines match a last line that has
 * no final break. Unlike pi, a tolerant match rewrites only the matched region: the rest of the file
 * keeps its bytes.
 */
import { createRequire } from "node:module";
import { SettleError } from "../errors.js";

/** jsdiff loads on the first edit, not with Settle. */
let diffModule: typeof import("diff") | undefined;
function diff(): typeof import("diff") {
	diffModule ??= createRequire(import.meta.url)("diff") as typeof import("diff");
	return diffModule;
}

export interface TextEdit {
	oldText: string;
	newText: string;
}

export type LineEnding = "\r\n" | "\n";

/** The line ending of the first line break (`\n` when there is none). */
export function detectLineEnding(content: string): LineEnding {
	const lf = content.indexOf("\n");
	if (lf === -1) return "\n";
	return lf > 0 && content[lf - 1] === "\r" ? "\r\n" : "\n";
}

export function normalizeToLF(text: string): string {
	return text.replace(/\r\n?/g, "\n");
}

export function restoreLineEndings(text: string, ending: LineEnding): string {
	return ending === "\r\n" ? text.replace(/\n/g, "\r\n") : text;
}

/** Splits a UTF-8 byte-order mark off the content. */
export function stripBom(content: string): { bom: string; text: string } {
	return content.startsWith("\uFEFF") ? { bom: "\uFEFF", text: content.slice(1) } : { bom: "", text: content };
}

const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
const SPACES = /[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g;

/** Folds one cluster (a character and the marks that combine with it) to its tolerant form. */
function foldCluster(cluster: string): string {
	return cluster
		.normalize("NFKC")
		.replace(SINGLE_QUOTES, "'")
		.replace(DOUBLE_QUOTES, '"')
		.replace(DASHES, "-")
		.replace(SPACES, " ");
}

/**
 * Code points that combine with the one before them: marks (the U+0301 of a decomposed `é`) and
 * Hangul medial vowels and final consonants (a decomposed syllable's second and third jamo).
 */
const COMBINING = /^[\p{M}\u1160-\u11FF]$/u;

/** Tolerant form of `text` plus, for each of its UTF-16 units, the source range it came from. */
interface FoldedText {
	text: string;
	sourceStart: number[];
	sourceEnd: number[];
}

function foldText(text: string): FoldedText {
	const out: string[] = [];
	const sourceStart: number[] = [];
	const sourceEnd: number[] = [];
	let lineStart = 0; // index in `out` where the current line begins
	const dropTrailingWhitespace = () => {
		while (out.length > lineStart && /\s/.test(out[out.length - 1] ?? "")) {
			out.pop();
			sourceStart.pop();
			sourceEnd.pop();
		}
	};
	// The cluster being gathered: folded whole, so a decomposed `é` (NFD, as macOS tools save it)
	// composes like the `é` a model types (opencode#31786).
	let cluster = "";
	let clusterStart = 0;
	const flush = () => {
		if (cluster === "") return;
		const end = clusterStart + cluster.length;
		if (cluster === "\n") {
			dropTrailingWhitespace();
			out.push("\n");
			sourceStart.push(clusterStart);
			sourceEnd.push(end);
			lineStart = out.length;
		} else if (cluster.length === 1 && cluster.charCodeAt(0) < 0x80) {
			// ASCII folds to itself: skipping NFKC and the replaces makes a 10 MB file's fold ~10x faster.
			out.push(cluster);
			sourceStart.push(clusterStart);
			sourceEnd.push(end);
		} else {
			for (const unit of foldCluster(cluster).split("")) {
				out.push(unit);
				sourceStart.push(clusterStart);
				sourceEnd.push(end);
			}
		}
		cluster = "";
	};
	let index = 0;
	for (const codePoint of text) {
		const joins = cluster !== "" && cluster !== "\n" && codePoint.charCodeAt(0) >= 0x80 && COMBINING.test(codePoint);
		if (joins) cluster += codePoint;
		else {
			flush();
			cluster = codePoint;
			clusterStart = index;
		}
		index += codePoint.length;
	}
	flush();
	dropTrailingWhitespace();
	return { text: out.join(""), sourceStart, sourceEnd };
}

/**
 * `folded` (of a file `length` units long) with a line break after its last line when the file
 * ends without one: an oldText copied as whole lines ends with a break, which the file's last
 * line lacks ("no newline at end of file"), and was not found there (aider#3737). The break is
 * added only at the end, so `return foo\n` still cannot match `return foobar`.
 */
function withFinalBreak(folded: FoldedText, length: number): FoldedText {
	if (folded.text === "" || folded.text.endsWith("\n")) return folded;
	return {
		text: `${folded.text}\n`,
		sourceStart: [...folded.sourceStart, length],
		sourceEnd: [...folded.sourceEnd, length],
	};
}

/** Lines listed at most by {@link ambiguous}. */
const MAX_LISTED_LINES = 10;

/** How often a needle occurs, and where: just enough for {@link ambiguous}. */
interface Occurrences {
	count: number;
	/**
	 * Offsets into the file of the first match on each of the first `MAX_LISTED_LINES + 1` lines
	 * with one, ascending (the first is the first match).
	 */
	lineStarts: number[];
}

/**
 * Every place `needle` starts in `haystack`, overlapping ones included: `foo\nfoo\n` occurs twice in
 * `foo\nfoo\nfoo\n` (lines 1–2 and 2–3), so it does not say which block to replace (pi#9697: pi
 * counts with `split`, sees one, and replaces the first). Counted, not kept: "aa" in 10 MB of "a"
 * kept 10 million offsets (350 MB) to say "Found 9999999 occurrences". `toSource` maps an offset
 * in `haystack` to one in `content`, the file whose lines are named.
 */
function occurrencesOf(
	haystack: string,
	needle: string,
	content: string,
	toSource: (at: number) => number = (at) => at,
): Occurrences {
	let count = 0;
	const lineStarts: number[] = [];
	// The first line break at or after the last kept start: a match past it is on a later line.
	let nextBreak = -1;
	for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) {
		count++;
		if (lineStarts.length > MAX_LISTED_LINES) continue;
		const start = toSource(i);
		if (lineStarts.length > 0 && (nextBreak === -1 || start <= nextBreak)) continue;
		lineStarts.push(start);
		nextBreak = content.indexOf("\n", start);
	}
	return { count, lineStarts };
}

interface MatchedEdit {
	editIndex: number;
	start: number;
	end: number;
	newText: string;
}

function notFound(path: string, index: number, total: number, hint = ""): SettleError {
	return new SettleError(
		"NOT_FOUND",
		(total === 1
			? `Could not find the exact text in ${path}. The old text must match exactly including all whitespace and newlines.`
			: `Could not find edits[${index}] in ${path}. The oldText must match exactly including all whitespace and newlines.`) +
			hint,
	);
}

// As read says "[path is empty.]": "must match exactly" sends a model hunting for whitespace.
function inEmptyFile(path: string, index: number, total: number): SettleError {
	const what = total === 1 ? "the exact text" : `edits[${index}]`;
	return new SettleError(
		"NOT_FOUND",
		`Could not find ${what} in ${path}: the file is empty. Use the write tool to give it content.`,
	);
}

const LEADING_WHITESPACE = /^[ \t]*/;

/** Each line of `text` without its leading spaces and tabs. */
function dedent(text: string): string {
	return text
		.split("\n")
		.map((line) => line.replace(LEADING_WHITESPACE, ""))
		.join("\n");
}

/**
 * "2 tabs", "4 spaces", "a tab, then 2 spaces", "no indentation": runs in order, so a tab and
 * spaces in another order are not described alike.
 */
function describeIndent(whitespace: string): string {
	const runs = whitespace.match(/\t+| +/g) ?? [];
	const named = runs.map((run) => {
		const unit = run[0] === "\t" ? "tab" : "space";
		return run.length === 1 ? `a ${unit}` : `${run.length} ${unit}s`;
	});
	return named.length === 0 ? "no indentation" : named.join(", then ");
}

/**
 * Names where an oldText not found matches the folded file except for its lines' indentation (tabs
 * where the model typed spaces, or another width): the model sees the file's tabs as spaces and
 * retries blindly, then falls back to sed (claude-code#37403, claude-code#9163). "" when nowhere.
 */
function indentationHint(folded: string, needle: string): string {
	const flatNeedle = dedent(needle);
	if (flatNeedle.trim() === "") return "";
	const flatFile = dedent(folded);
	// An indented first line stands for a whole line's start; an unindented one may start mid-line.
	const atLineStart = LEADING_WHITESPACE.exec(needle)?.[0] !== "";
	// 1-based; `at` only grows, so each newline is counted once (a slice and split per match was O(n) each).
	let line = 1;
	let scanned = 0;
	const lineOf = (at: number) => {
		for (let nl = flatFile.indexOf("\n", scanned); nl !== -1 && nl < at; nl = flatFile.indexOf("\n", nl + 1)) line++;
		scanned = at;
		return line;
	};
	const lines: number[] = [];
	for (let i = flatFile.indexOf(flatNeedle); i !== -1 && lines.length < 6; i = flatFile.indexOf(flatNeedle, i + 1)) {
		if (atLineStart && i > 0 && flatFile[i - 1] !== "\n") continue;
		const at = lineOf(i);
		if (lines.at(-1) !== at) lines.push(at);
	}
	if (lines.length === 0) return "";
	const fileLines = folded.split("\n");
	if (lines.length > 1) {
		const many = lines.length > 5 ? "more than 5 places" : `${lines.length} places`;
		return ` It matches at ${many} (lines ${lines.slice(0, 5).join(", ")}) if indentation is ignored: copy the indentation of the lines you mean exactly, with enough context to be unique.`;
	}
	const first = lines[0] ?? 1;
	const needleLines = needle.split("\n");
	for (let i = 0; i < needleLines.length; i++) {
		const fileLine = fileLines[first - 1 + i] ?? "";
		const ours = needleLines[i]?.match(LEADING_WHITESPACE)?.[0] ?? "";
		const theirs = fileLine.match(LEADING_WHITESPACE)?.[0] ?? "";
		// An unindented first line may start mid-line: it says nothing of the file's indentation.
		if (ours === theirs || (i === 0 && ours === "")) continue;
		return ` Line ${first + i} matches except for indentation: the file has ${describeIndent(theirs)} there, the oldText ${describeIndent(ours)}. Copy the file's indentation exactly (tabs as tab characters).`;
	}
	return "";
}

/** `a, b and c`. */
function listed(items: readonly (string | number)[]): string {
	return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * The "Found N occurrences" error, naming the lines the matches start on, each once: without them
 * the model must read the whole file to find where the copies are, and agents gave up instead
 * (openclaw#21645).
 */
function ambiguous(path: string, index: number, total: number, content: string, found: Occurrences): SettleError {
	const lines: number[] = [];
	let line = 1;
	// The first break not yet counted, kept across matches: searching again from each match would
	// scan a long line once per match (a minified bundle's 400,000 commas took 4 s).
	let nextBreak = content.indexOf("\n");
	for (const start of found.lineStarts.slice(0, MAX_LISTED_LINES)) {
		for (; nextBreak !== -1 && nextBreak < start; nextBreak = content.indexOf("\n", nextBreak + 1)) line++;
		lines.push(line);
	}
	const more = found.lineStarts.length > MAX_LISTED_LINES;
	const where = ` They start on line${lines.length > 1 ? "s" : ""} ${more ? `${lines.join(", ")} and later ones` : listed(lines)}: read around them and extend the oldText with nearby lines that differ.`;
	return new SettleError(
		"INVALID_ARGUMENT",
		(total === 1
			? `Found ${found.count} occurrences of the text in ${path}. The text must be unique. Please provide more context to make it unique.`
			: `Found ${found.count} occurrences of edits[${index}] in ${path}. Each oldText must be unique. Please provide more context to make it unique.`) +
			where,
	);
}

/**
 * Whether tolerantly matched edits ask for nothing: each newText is the text its oldText matches in
 * the folded file (e.g. oldText and newText both `'` where the file has `’`). pi reports "No changes"
 * then; rewriting the matched `’` would change what the model asked to keep.
 */
function asksForNoChange(edits: readonly TextEdit[], foldedContent: string): boolean {
	return edits.every((edit) => {
		const matched = foldedContent.includes(edit.oldText) ? edit.oldText : foldText(edit.oldText).text;
		return edit.newText === matched;
	});
}

/**
 * Applies `edits` to LF-normalized `content`. Throws a {@link SettleError} (nothing is applied) when
 * an oldText is empty, not found, found more than once, overlaps another edit, or when the result
 * equals the input (for tolerantly matched edits: when each newText equals the text it matched, folded).
 *
 * @example
 * ```ts
 * applyEdits("a\nb\nc\n", [{ oldText: "b", newText: "B" }], "f.txt"); // "a\nB\nc\n"
 * ```
 */
export function applyEdits(content: string, edits: readonly TextEdit[], path: string): string {
	return planEdits(content, edits, path).result;
}

/** One replacement {@link planEdits} found: `[start, end)` of the LF text becomes `newText` (LF). */
export interface PlannedReplacement {
	start: number;
	end: number;
	newText: string;
}

/**
 * {@link applyEdits} with the replacements it made, in file order (for {@link spliceIntoOriginal}).
 *
 * @example
 * ```ts
 * planEdits("a\nb\n", [{ oldText: "b", newText: "B" }], "f.txt");
 * // { result: "a\nB\n", replacements: [{ start: 2, end: 3, newText: "B" }] }
 * ```
 */
export function planEdits(
	content: string,
	edits: readonly TextEdit[],
	path: string,
): { result: string; replacements: PlannedReplacement[] } {
	const normalized = edits.map((edit) => ({
		oldText: normalizeToLF(edit.oldText),
		newText: normalizeToLF(edit.newText),
	}));
	const total = normalized.length;
	normalized.forEach((edit, i) => {
		if (edit.oldText.length === 0) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				total === 1 ? `oldText must not be empty in ${path}.` : `edits[${i}].oldText must not be empty in ${path}.`,
			);
		}
	});
	let folded: FoldedText | undefined;
	let withBreak: FoldedText | undefined;
	const matches: MatchedEdit[] = normalized.map((edit, editIndex) => {
		const exact = occurrencesOf(content, edit.oldText, content);
		if (exact.count > 1) throw ambiguous(path, editIndex, total, content, exact);
		if (exact.count === 1) {
			const start = exact.lineStarts[0]!;
			return { editIndex, start, end: start + edit.oldText.length, newText: edit.newText };
		}
		folded ??= foldText(content);
		// Only an oldText of whole lines (text, then a line break) may match the file's last line.
		const wholeLines = edit.oldText.endsWith("\n") && edit.oldText.trim() !== "";
		if (wholeLines) withBreak ??= withFinalBreak(folded, content.length);
		const haystack = wholeLines && withBreak ? withBreak : folded;
		const needle = foldText(edit.oldText).text;
		const found =
			needle.length === 0
				? { count: 0, lineStarts: [] }
				: occurrencesOf(haystack.text, needle, content, (at) => haystack.sourceStart[at] ?? content.length);
		if (found.count === 0 && content === "") throw inEmptyFile(path, editIndex, total);
		if (found.count === 0) throw notFound(path, editIndex, total, indentationHint(folded.text, needle));
		if (found.count > 1) throw ambiguous(path, editIndex, total, content, found);
		const at = haystack.text.indexOf(needle);
		const end = haystack.sourceEnd[at + needle.length - 1] ?? content.length;
		// Matched up to the added final break: the file keeps ending without one.
		const throughAddedBreak = haystack !== folded && at + needle.length === haystack.text.length;
		return {
			editIndex,
			start: haystack.sourceStart[at] ?? 0,
			end,
			newText: throughAddedBreak && edit.newText.endsWith("\n") ? edit.newText.slice(0, -1) : edit.newText,
		};
	});
	const ordered = [...matches].sort((a, b) => a.start - b.start);
	for (let i = 1; i < ordered.length; i++) {
		const previous = ordered[i - 1]!;
		const current = ordered[i]!;
		if (previous.end > current.start) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`edits[${previous.editIndex}] and edits[${current.editIndex}] overlap in ${path}. Merge them into one edit or target disjoint regions.`,
			);
		}
	}
	let result = "";
	let cursor = 0;
	for (const match of ordered) {
		result += content.slice(cursor, match.start) + match.newText;
		cursor = match.end;
	}
	result += content.slice(cursor);
	if (result === content || (folded !== undefined && asksForNoChange(normalized, folded.text))) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			total === 1
				? `No changes made to ${path}. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.`
				: `No changes made to ${path}. The replacements produced identical content.`,
		);
	}
	return {
		result,
		replacements: ordered.map(({ start, end, newText }) => ({ start, end, newText })),
	};
}

/**
 * Writes replacements planned on the LF-normalized text into the `original` text, so everything the
 * edits did not touch keeps its bytes, line endings included: a file mixing CRLF and LF (or with an
 * old-Mac lone CR) keeps them on untouched lines (pi#8544: pi rewrites every line break in the style
 * of the first). A newText's line breaks take the style of the region it replaces, or `ending` (the
 * file's first break) when that region has none.
 *
 * @example
 * ```ts
 * spliceIntoOriginal("a\r\nb\nc", [{ start: 4, end: 5, newText: "C" }], "\r\n"); // "a\r\nb\nC"
 * ```
 */
export function spliceIntoOriginal(
	original: string,
	replacements: readonly PlannedReplacement[],
	ending: LineEnding,
): string {
	// at[k]: where the k-th character of the LF text starts in `original` (CRLF is one "\n" there).
	const at: number[] = [];
	for (let i = 0; i < original.length; i++) {
		at.push(i);
		if (original[i] === "\r" && original[i + 1] === "\n") i++;
	}
	at.push(original.length);
	let out = "";
	const append = (piece: string) => {
		// A lone CR (old Mac) that ends up right before a "\n" would merge with it into one CRLF break;
		// it is written as "\n", the break it was read as. (A CRLF never leaves `out` ending in "\r".)
		if (out.endsWith("\r") && piece.startsWith("\n")) out = `${out.slice(0, -1)}\n`;
		out += piece;
	};
	let cursor = 0;
	for (const { start, end, newText } of replacements) {
		const from = at[start] ?? original.length;
		const to = at[end] ?? original.length;
		const region = original.slice(from, to);
		const lf = region.indexOf("\n");
		const style: LineEnding = lf === -1 ? ending : lf > 0 && region[lf - 1] === "\r" ? "\r\n" : "\n";
		append(original.slice(cursor, from));
		append(restoreLineEndings(newText, style));
		cursor = to;
	}
	append(original.slice(cursor));
	return out;
}

/**
 * A compact diff with line numbers (pi's display format: `+N line`, `-N line`, ` N line`, ` ...`)
 * and the first changed line of the new file.
 *
 * @example
 * ```ts
 * numberedDiff("a\nb\nc\n", "a\nB\nc\n");
 * // { diff: " 1 a\n-2 b\n+2 B\n 3 c", firstChangedLine: 2 }
 * ```
 */
export function numberedDiff(
	oldContent: string,
	newContent: string,
	contextLines = 4,
): { diff: string; firstChangedLine: number | undefined } {
	const parts = diff().diffLines(oldContent, newContent);
	const width = String(Math.max(oldContent.split("\n").length, newContent.split("\n").length)).length;
	const num = (n: number) => String(n).padStart(width, " ");
	const ellipsis = ` ${"".padStart(width, " ")} ...`;
	const out: string[] = [];
	let oldLine = 1;
	let newLine = 1;
	let firstChangedLine: number | undefined;
	let previousWasChange = false;
	const context = (lines: string[]) => {
		for (const line of lines) {
			out.push(` ${num(oldLine)} ${line}`);
			oldLine++;
			newLine++;
		}
	};
	const skip = (count: number) => {
		if (count <= 0) return;
		out.push(ellipsis);
		oldLine += count;
		newLine += count;
	};
	parts.forEach((part, i) => {
		const lines = part.value.split("\n");
		if (lines[lines.length - 1] === "") lines.pop();
		if (part.added || part.removed) {
			firstChangedLine ??= newLine;
			for (const line of lines) {
				if (part.added) out.push(`+${num(newLine++)} ${line}`);
				else out.push(`-${num(oldLine++)} ${line}`);
			}
			previousWasChange = true;
			return;
		}
		const next = parts[i + 1];
		const nextIsChange = Boolean(next && (next.added || next.removed));
		if (previousWasChange && nextIsChange) {
			if (lines.length <= contextLines * 2) context(lines);
			else {
				context(lines.slice(0, contextLines));
				skip(lines.length - contextLines * 2);
				context(lines.slice(lines.length - contextLines));
			}
		} else if (previousWasChange) {
			context(lines.slice(0, contextLines));
			skip(lines.length - contextLines);
		} else if (nextIsChange) {
			const skipped = Math.max(0, lines.length - contextLines);
			skip(skipped);
			context(lines.slice(skipped));
		} else {
			oldLine += lines.length;
			newLine += lines.length;
		}
		previousWasChange = false;
	});
	return { diff: out.join("\n"), firstChangedLine };
}

/**
 * A standard unified diff (`---`/`+++`/`@@`) of LF-normalized contents, for tools that apply patches.
 *
 * @example
 * ```ts
 * unifiedPatch("a.txt", "a\nb\n", "a\nc\n");
 * // "Index: a.txt\n====…\n--- a.txt\n+++ a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
 * ```
 */
export function unifiedPatch(path: string, oldContent: string, newContent: string): string {
	return diff().createTwoFilesPatch(path, path, oldContent, newContent, undefined, undefined, { context: 3 });
}
