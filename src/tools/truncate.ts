/**
 * Output truncation shared by the tools. Two independent limits (lines and UTF-8 bytes); whichever
 * is hit first wins. Whole lines only, except when a single last line is larger than the byte
 * limit in tail mode (then its end is kept).
 */

export const DEFAULT_MAX_LINES = 2000;
/** Byte limit of tool output shown to the model (50 KB); see also `DEFAULT_MAX_LINES`. */
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** Longest grep line (characters) before it is cut. */
export const GREP_MAX_LINE_LENGTH = 500;

/** Limits of {@link truncateHead} / {@link truncateTail} (defaults `DEFAULT_MAX_LINES`, `DEFAULT_MAX_BYTES`). */
export interface TruncationOptions {
	maxLines?: number;
	maxBytes?: number;
}

/** What was kept, and why. Field names match pi's `TruncationResult` (tools' `details.truncation`). */
export interface TruncationResult {
	content: string;
	truncated: boolean;
	truncatedBy: "lines" | "bytes" | null;
	totalLines: number;
	totalBytes: number;
	outputLines: number;
	outputBytes: number;
	/** Tail mode only: the single kept line is the end of a longer line. */
	lastLinePartial: boolean;
	/** Head mode only: the first line alone is over the byte limit, so nothing was kept. */
	firstLineExceedsLimit: boolean;
	maxLines: number;
	maxBytes: number;
}

/**
 * `512B`, `1.5KB`, `2.0MB`.
 * @example
 * ```ts
 * formatSize(512); // "512B"
 * formatSize(1536); // "1.5KB"
 * formatSize(2 * 1024 * 1024); // "2.0MB"
 * ```
 */
export function formatSize(bytes: number): string {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/**
 * A count with its noun, singular for 1: pi prints "1 matches", "1 bytes", "1 seconds".
 * @example
 * ```ts
 * counted(1, "match", "matches"); // "1 match"
 * counted(2, "byte"); // "2 bytes"
 * ```
 */
export function counted(count: number | string, singular: string, plural = `${singular}s`): string {
	return `${count} ${Number(count) === 1 ? singular : plural}`;
}

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf-8");

function untruncated(content: string, lines: number, bytes: number, maxLines: number, maxBytes: number) {
	return {
		content,
		truncated: false,
		truncatedBy: null,
		totalLines: lines,
		totalBytes: bytes,
		outputLines: lines,
		outputBytes: bytes,
		lastLinePartial: false,
		firstLineExceedsLimit: false,
		maxLines,
		maxBytes,
	} satisfies TruncationResult;
}

/**
 * Keeps the beginning of `content` (file reads). Never returns a partial line; when the first line
 * alone exceeds the byte limit the result is empty with `firstLineExceedsLimit`.
 * @example
 * ```ts
 * truncateHead("a\nb\nc", { maxLines: 2 }); // { content: "a\nb", truncated: true, truncatedBy: "lines", … }
 * ```
 */
export function truncateHead(content: string, options: TruncationOptions = {}): TruncationResult {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const totalBytes = utf8Length(content);
	const lines = content.split("\n");
	if (lines.length <= maxLines && totalBytes <= maxBytes) {
		return untruncated(content, lines.length, totalBytes, maxLines, maxBytes);
	}
	const base = { totalLines: lines.length, totalBytes, maxLines, maxBytes, lastLinePartial: false, truncated: true };
	if (utf8Length(lines[0] ?? "") > maxBytes) {
		return {
			...base,
			content: "",
			truncatedBy: "bytes",
			outputLines: 0,
			outputBytes: 0,
			firstLineExceedsLimit: true,
		};
	}
	let kept = 0;
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	while (kept < lines.length && kept < maxLines) {
		const lineBytes = utf8Length(lines[kept] ?? "") + (kept > 0 ? 1 : 0);
		if (bytes + lineBytes > maxBytes) {
			truncatedBy = "bytes";
			break;
		}
		bytes += lineBytes;
		kept++;
	}
	if (kept >= maxLines && bytes <= maxBytes) truncatedBy = "lines";
	const output = lines.slice(0, kept).join("\n");
	return {
		...base,
		content: output,
		truncatedBy,
		outputLines: kept,
		outputBytes: utf8Length(output),
		firstLineExceedsLimit: false,
	};
}

/**
 * Keeps the end of `content` (command output, where errors and results are). If the last line
 * alone exceeds the byte limit, its final bytes are kept and `lastLinePartial` is set.
 *
 * @example
 * ```ts
 * truncateTail("a\nb\nc", { maxLines: 2 }).content; // "b\nc"
 * ```
 */
export function truncateTail(content: string, options: TruncationOptions = {}): TruncationResult {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const totalBytes = utf8Length(content);
	const lines = content.split("\n");
	if (lines.length <= maxLines && totalBytes <= maxBytes) {
		return untruncated(content, lines.length, totalBytes, maxLines, maxBytes);
	}
	const kept: string[] = [];
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	let lastLinePartial = false;
	for (let i = lines.length - 1; i >= 0 && kept.length < maxLines; i--) {
		const line = lines[i] ?? "";
		const lineBytes = utf8Length(line) + (kept.length > 0 ? 1 : 0);
		if (bytes + lineBytes > maxBytes) {
			truncatedBy = "bytes";
			if (kept.length === 0) {
				const end = takeLastBytes(line, maxBytes);
				kept.unshift(end);
				bytes = utf8Length(end);
				lastLinePartial = true;
			}
			break;
		}
		kept.unshift(line);
		bytes += lineBytes;
	}
	if (kept.length >= maxLines && bytes <= maxBytes) truncatedBy = "lines";
	const output = kept.join("\n");
	return {
		content: output,
		truncated: true,
		truncatedBy,
		totalLines: lines.length,
		totalBytes,
		outputLines: kept.length,
		outputBytes: utf8Length(output),
		lastLinePartial,
		firstLineExceedsLimit: false,
		maxLines,
		maxBytes,
	};
}

/**
 * The last `maxBytes` bytes of `text`, starting on a UTF-8 character boundary.
 *
 * @example
 * ```ts
 * takeLastBytes("héllo", 4); // "llo" (the cut would split "é", so it starts after it)
 * ```
 */
export function takeLastBytes(text: string, maxBytes: number): string {
	const buffer = Buffer.from(text, "utf-8");
	if (buffer.length <= maxBytes) return text;
	let start = buffer.length - maxBytes;
	// Skip continuation bytes (10xxxxxx) so we never start mid-character.
	while (start < buffer.length && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;
	return buffer.subarray(start).toString("utf-8");
}

/**
 * Cuts one line to `maxChars` characters, marking the cut with `... [truncated]`.
 *
 * @example
 * ```ts
 * truncateLine("abcdef", 3); // { text: "abc... [truncated]", wasTruncated: true }
 * truncateLine("abc", 3); // { text: "abc", wasTruncated: false }
 * ```
 */
export function truncateLine(line: string, maxChars = GREP_MAX_LINE_LENGTH): { text: string; wasTruncated: boolean } {
	if (line.length <= maxChars) return { text: line, wasTruncated: false };
	return { text: `${sliceWholeCharacters(line, maxChars)}... [truncated]`, wasTruncated: true };
}

/**
 * The first `maxChars` UTF-16 units of `text`, one fewer when the cut would fall between the halves
 * of a surrogate pair (an emoji): a lone surrogate is something no UTF-8 writer can encode, strict
 * JSON readers and provider APIs refuse, and a terminal shows as "�".
 *
 * @example
 * ```ts
 * sliceWholeCharacters("ab😀", 3); // "ab"
 * sliceWholeCharacters("ab😀", 4); // "ab😀"
 * ```
 */
export function sliceWholeCharacters(text: string, maxChars: number): string {
	const last = text.charCodeAt(maxChars - 1);
	return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}

/**
 * The notice of a listing cut at the byte limit: how many of its lines are shown, and that a higher
 * `limit` shows no more. pi says only "50.0KB limit reached", after "1000 matches limit reached.
 * Use limit=2000 for more" when both hit, so a model shown 112 matches took them for 1000, or for
 * all there are (code_puppy#903, claude-supertool#622).
 */
function byteLimitNotice(truncation: TruncationResult): string {
	return `${formatSize(DEFAULT_MAX_BYTES)} limit reached: showing the first ${truncation.outputLines} of ${counted(truncation.totalLines, "line")}. A higher limit shows no more; narrow the path, glob or pattern to see the rest`;
}

/** One bracketed notice of a listing and the `details` fields that go with it. */
export interface ListingNotice<D> {
	text: string;
	details: Partial<D>;
}

/**
 * A listing tool's result (find, grep, ls): the lines cut to the byte limit, then pi's bracketed
 * notices — `before` (the result limit), the byte limit when it cut, `after` (grep's long lines) —
 * with their fields merged into `details`; `details` is undefined when nothing was limited.
 *
 * @example
 * ```ts
 * listingResult(["a.ts", "b.ts"], []); // { content: [{ type: "text", text: "a.ts\nb.ts" }], details: undefined }
 * listingResult<FindToolDetails>(["a.ts", "b.ts"], [{ text: "2 results limit reached", details: { resultLimitReached: 2 } }]);
 * // text "a.ts\nb.ts\n\n[2 results limit reached]", details { resultLimitReached: 2 }
 * ```
 */
export function listingResult<D extends { truncation?: TruncationResult }>(
	lines: readonly string[],
	before: readonly ListingNotice<D>[],
	after: readonly ListingNotice<D>[] = [],
): { content: { type: "text"; text: string }[]; details: D | undefined } {
	const truncation = truncateHead(lines.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
	const notices = [...before];
	if (truncation.truncated) {
		notices.push({ text: byteLimitNotice(truncation), details: { truncation } as Partial<D> });
	}
	notices.push(...after);
	if (notices.length === 0) return { content: [{ type: "text", text: truncation.content }], details: undefined };
	const details = Object.assign({}, ...notices.map((notice) => notice.details)) as D;
	const text = `${truncation.content}\n\n[${notices.map((notice) => notice.text).join(". ")}]`;
	return { content: [{ type: "text", text }], details };
}
