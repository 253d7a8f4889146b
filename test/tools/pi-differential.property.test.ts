/**
 * Randomized differential tests against pi 0.73.1's own tools: the same random call runs on both
 * implementations, in real temp folders, and what a model sees must match — the text content,
 * `details` where both define them, the error message, and the files left on disk.
 *
 * Deliberate Settle differences are normalized explicitly below, each named where it is applied.
 * grep/find are not compared: pi needs ripgrep/fd binaries (not installed here) and would try to
 * download them.
 */

import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";
import { createAllToolDefinitions } from "../../src/tools/index.js";
import { formatSize, truncateHead, truncateLine, truncateTail } from "../../src/tools/truncate.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";
import { fixture } from "./helpers.js";

type Executable = { execute: AnyToolDefinition["execute"]; prepareArguments?: (args: unknown) => unknown };
type ToolName = "read" | "bash" | "edit" | "write" | "ls";

/** A call's outcome as the model sees it, plus what identifies it beyond the text. */
interface Outcome {
	ok?: { content: unknown[]; details: unknown };
	error?: string;
	/** Settle's typed error code, or Node's errno code pi lets through. */
	code?: string;
}

/**
 * Deliberate difference (truncate.ts, code_puppy#903): Settle's byte-limit notice of a listing says
 * how many lines it shows of how many and that a higher limit shows no more; pi says only
 * "50.0KB limit reached". The counts are checked against `details.truncation`, then pi's words put back.
 */
function piByteNotice(ours: Outcome): Outcome {
	const text = (ours.ok?.content[0] as { text?: string } | undefined)?.text;
	if (ours.ok === undefined || text === undefined) return ours;
	const byteNotice =
		/50\.0KB limit reached: showing the first (\d+) of (\d+) lines\. A higher limit shows no more; narrow the path, glob or pattern to see the rest/;
	const found = byteNotice.exec(text);
	if (!found) return ours;
	const truncation = (ours.ok.details as { truncation?: { outputLines: number; totalLines: number } }).truncation;
	expect([Number(found[1]), Number(found[2])]).toEqual([truncation?.outputLines, truncation?.totalLines]);
	const content = [{ ...(ours.ok.content[0] as object), text: text.replace(byteNotice, "50.0KB limit reached") }];
	return { ...ours, ok: { ...ours.ok, content: [...content, ...ours.ok.content.slice(1)] } };
}

async function outcome(tool: Executable, params: Record<string, unknown>): Promise<Outcome> {
	try {
		// The agent loop runs a tool's argument shim (edit: legacy oldText/newText) before execute.
		const args = (tool.prepareArguments?.(structuredClone(params)) ?? structuredClone(params)) as Record<
			string,
			unknown
		>;
		const result: AgentToolResult = await tool.execute("c", args, undefined, undefined, undefined);
		const content = result.content.map((c) =>
			c.type === "text" ? { type: "text", text: c.text } : { type: c.type, mimeType: c.mimeType, data: c.data },
		);
		return { ok: { content, details: result.details } };
	} catch (error) {
		const code = (error as { code?: unknown }).code;
		return { error: (error as Error).message, code: typeof code === "string" ? code : undefined };
	}
}

/**
 * Deliberate difference (read.ts lineCount, truncate.ts counted): Settle says "1 more line in file",
 * "(1 line total)" and "1 entry limit reached"; pi says "1 more lines", "(1 lines total)" and
 * "1 entries limit reached". Rewrites pi's outcome to the singular.
 */
function piSingularCounts(theirs: Outcome): Outcome {
	const singular = (text: string) =>
		text
			.replace(/\[1 more lines in file\./, "[1 more line in file.")
			.replace(/\(1 lines total\)/, "(1 line total)")
			.replace(/\[1 entries limit reached\./, "[1 entry limit reached.");
	if (theirs.error !== undefined) return { ...theirs, error: singular(theirs.error) };
	const [first, ...rest] = (theirs.ok?.content ?? []) as { text?: string }[];
	if (theirs.ok === undefined || first?.text === undefined) return theirs;
	return { ...theirs, ok: { ...theirs.ok, content: [{ ...first, text: singular(first.text) }, ...rest] } };
}

function piTools(cwd: string): Record<ToolName, Executable> {
	return {
		read: pi.createReadToolDefinition(cwd, { autoResizeImages: false }),
		bash: pi.createBashToolDefinition(cwd),
		edit: pi.createEditToolDefinition(cwd),
		write: pi.createWriteToolDefinition(cwd),
		ls: pi.createLsToolDefinition(cwd),
	} as unknown as Record<ToolName, Executable>;
}

/** JSON with object keys sorted (key order is not visible to a model). */
function canonical(value: unknown): string {
	return (
		JSON.stringify(value, (_key, v: unknown) =>
			v && typeof v === "object" && !Array.isArray(v)
				? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1)))
				: v,
		) ?? "undefined"
	);
}

/** Equality of two JSON-able values, reporting only the first difference (outputs can be 50 KB). */
function expectSame(ours: unknown, theirs: unknown, label = ""): void {
	const [a, b] = [canonical(ours), canonical(theirs)];
	if (a === b) return;
	let i = 0;
	while (a[i] === b[i]) i++;
	const around = (t: string) => t.slice(Math.max(0, i - 120), i + 120);
	throw new Error(`${label} Settle and pi differ at char ${i}:\n  settle: ${around(a)}\n  pi:     ${around(b)}`);
}

// Seeds print on failure (fast-check's report); every property is bounded.
// SETTLE_DIFF_SCALE=10 multiplies every numRuns for a deeper search by hand. Replay a failure with
// SETTLE_DIFF_SEED=<seed> SETTLE_DIFF_PATH=<path> npx vitest run <this file> -t "<test name>".
const scale = Math.max(1, Number(process.env.SETTLE_DIFF_SCALE ?? 1) || 1);
const replay = {
	...(process.env.SETTLE_DIFF_SEED === undefined ? {} : { seed: Number(process.env.SETTLE_DIFF_SEED) }),
	...(process.env.SETTLE_DIFF_PATH ? { path: process.env.SETTLE_DIFF_PATH } : {}),
};
const runs = (numRuns: number) => ({ numRuns: numRuns * scale, endOnFailure: true, ...replay });
// The test timeouts grow with the runs (SETTLE_DIFF_SCALE=40: the edit property alone took 30 s).
vi.setConfig({ testTimeout: 30_000 * scale });

let root: string;
let counter = 0;
beforeAll(async () => {
	root = await mkdtemp(join(tmpdir(), "settle-pi-diff-"));
});
afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

/** A fresh folder under this file's temp root (removed with it). */
async function freshDir(files: Record<string, string | Buffer> = {}): Promise<string> {
	const dir = join(root, `d${counter++}`);
	await mkdir(dir, { recursive: true });
	for (const [path, content] of Object.entries(files)) {
		await mkdir(dirname(join(dir, path)), { recursive: true });
		await writeFile(join(dir, path), content);
	}
	return dir;
}

/** Every file under `dir`, relative path → bytes (base64 for comparison). */
async function snapshotTree(dir: string): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
		if (!entry.isFile()) continue;
		const full = join(entry.parentPath, entry.name);
		out[full.slice(dir.length + 1)] = (await readFile(full)).toString("base64");
	}
	return out;
}

/**
 * Deliberate difference (src/tools/fs-errors.ts): pi lets Node's errno errors through
 * (`ENOENT: no such file or directory, access '/x'`); Settle throws a typed SettleError with a message
 * that says what to do. Both sides are mapped to the same category; anything else must match verbatim.
 */
const ERRNO_TO_SETTLE: Record<string, string> = {
	ENOENT: "NOT_FOUND",
	ENOTDIR: "NOT_FOUND",
	EISDIR: "INVALID_ARGUMENT",
};
function errnoCategory(o: Outcome): Outcome {
	if (o.error === undefined || o.code === undefined) return o;
	if (ERRNO_TO_SETTLE[o.code]) return { error: `<fs:${ERRNO_TO_SETTLE[o.code]}>` };
	return o;
}
function settleFsCategory(o: Outcome, piSide: Outcome): Outcome {
	if (o.error === undefined || piSide.code === undefined || !ERRNO_TO_SETTLE[piSide.code]) return o;
	return { error: `<fs:${o.code}>` };
}

// ───────────────────────────────────────────── read ─────────────────────────────────────────────

const lineChar = fc.constantFrom("a", "é", "€", "😀", " ", "\t", "\r");
/** A text file shaped around the read limits: line count near 2000, bytes near 50 KB, long lines. */
const textFileShape = fc.record({
	lines: fc.oneof(
		fc.integer({ min: 0, max: 12 }),
		fc.integer({ min: 1990, max: 2010 }),
		fc.integer({ min: 20, max: 260 }),
	),
	width: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 180, max: 230 })),
	char: lineChar,
	longLineAt: fc.option(fc.integer({ min: 0, max: 15 }), { nil: undefined }),
	longLineBytes: fc.integer({ min: 51_190, max: 51_250 }),
	crlf: fc.boolean(),
	bom: fc.boolean(),
	trailingNewline: fc.boolean(),
});
type TextFileShape = typeof textFileShape extends fc.Arbitrary<infer T> ? T : never;
/** Builds the file inside the property, so a failure prints the small shape, not 50 KB of text. */
function textFile(s: TextFileShape): string {
	const unit = Buffer.byteLength(s.char);
	const lines = Array.from({ length: s.lines }, (_, i) => `${i + 1}:${s.char.repeat(Math.floor(s.width / unit))}`);
	if (s.longLineAt !== undefined && s.longLineAt < lines.length) {
		lines[s.longLineAt] = s.char.repeat(Math.ceil(s.longLineBytes / unit));
	}
	const body = lines.join(s.crlf ? "\r\n" : "\n") + (s.trailingNewline && lines.length ? "\n" : "");
	return (s.bom ? "\uFEFF" : "") + body;
}

const offsetOrLimit = fc.option(fc.oneof(fc.integer({ min: -2, max: 20 }), fc.integer({ min: 1990, max: 2700 })), {
	nil: undefined,
});

/** Real images (tests/fixtures), whole or cut short, with random bytes after them; and binary junk. */
const IMAGE_FIXTURES = ["red-3x2.png", "white-1x1.jpg", "green-2x7.gif", "lossless-1x1.webp", "actually-png.txt"];
const imageish = fc
	.record({
		fixture: fc.constantFrom(...IMAGE_FIXTURES, "junk", "jpeg-marker"),
		marker: fc.constantFrom(0xe0, 0xe1, 0xdb, 0xc0, 0xf7),
		cut: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
		tail: fc.uint8Array({ minLength: 0, maxLength: 32 }),
		ext: fc.constantFrom(".png", ".jpg", ".txt", ""),
	})
	.map(({ fixture: name, marker, cut, tail, ext }) => {
		const whole =
			name === "junk"
				? Buffer.from([0x00, 0xff, 0xfe, 0x01])
				: name === "jpeg-marker" // JPEG start of image, then a random marker (0xF7: JPEG-LS)
					? Buffer.from([0xff, 0xd8, 0xff, marker, 0x00, 0x10])
					: readFileSync(fixture(`images/${name}`));
		// Known difference, left alone: pi (file-type) also walks the PNG chunks after IHDR and calls the file
		// text when a later chunk header is corrupt (negative length); Settle checks signature and IHDR only.
		// So random bytes go after whole files, and a cut file ends where it is cut.
		return { bytes: cut === undefined ? Buffer.concat([whole, Buffer.from(tail)]) : whole.subarray(0, cut), ext };
	});

describe("read: same results as pi on random files", () => {
	it("text files around the line/byte limits, with random offset/limit", async () => {
		await fc.assert(
			fc.asyncProperty(textFileShape, offsetOrLimit, offsetOrLimit, async (shape, offset, limit) => {
				const content = textFile(shape);
				const cwd = await freshDir({ "f.txt": content });
				const params: Record<string, unknown> = { path: "f.txt" };
				if (offset !== undefined) params.offset = offset;
				if (limit !== undefined) params.limit = limit;
				const ours = await outcome(createAllToolDefinitions(cwd).read, params);
				// Deliberate difference (read.ts readText, pi#7329): pi counts the break that ends a file as
				// the start of one more, empty line (wrong totals, a "1 more lines" hint, an offset past the
				// end read as an empty line). Settle reads such a file as pi reads it without that break, and
				// shows the break only at the end of a window that reaches the end of the file.
				const endsWithBreak = content.endsWith("\n");
				if (endsWithBreak) await writeFile(join(cwd, "f.txt"), content.slice(0, -1));
				const theirs = await outcome(piTools(cwd).read, params);
				await rm(cwd, { recursive: true });
				if (endsWithBreak && ours.ok) {
					const [block] = ours.ok.content as { type: string; text?: string }[];
					if (block?.text?.endsWith("\n")) block.text = block.text.slice(0, -1);
				}
				// Deliberate difference (read.ts readText): a limit below 1 is a typed INVALID_ARGUMENT error in
				// Settle; pi returns an empty window plus "[N more lines in file…]".
				if (limit !== undefined && limit < 1) {
					expect(ours.code).toBe("INVALID_ARGUMENT");
					expect(ours.error).toBe(`Invalid limit ${limit}: it must be a positive number of lines.`);
					return;
				}
				// DELIBERATE_EMPTY_FILE_NOTE (read.ts replyText, pi#4884): an empty file (or a UTF-8 mark alone) reads as a
				// note saying so, at any offset; pi returns empty text, which pi-ai sends a Chat Completions model as "(see attached image)".
				if (content === "" || content === "\uFEFF") {
					expect(ours.ok?.content).toEqual([{ type: "text", text: "[f.txt is empty.]" }]);
					return;
				}
				expectSame({ ...ours, code: undefined }, { ...piSingularCounts(theirs), code: undefined });
			}),
			runs(45),
		);
	});

	it("images and binary files are told apart the same way", async () => {
		await fc.assert(
			fc.asyncProperty(imageish, async ({ bytes, ext }) => {
				const cwd = await freshDir({ [`f${ext}`]: bytes });
				// Both without resizing: this compares how files are told apart (read-image-resize.test.ts compares
				// the default, resized images, with pi's default).
				const settleRead = createAllToolDefinitions(cwd, { read: { autoResizeImages: false } }).read;
				const ours = await outcome(settleRead, { path: `f${ext}` });
				const theirs = await outcome(piTools(cwd).read, { path: `f${ext}` });
				await rm(cwd, { recursive: true });
				const head = bytes.subarray(0, 6).toString("latin1");
				// DELIBERATE_NOT_UTF8_READ_NOTE (read.ts withEncodingNote, openclaw#92664): after the text of a file
				// that is not UTF-8, Settle says so and how to read it converted; pi says nothing.
				const text = ours.ok?.content[0] as { text?: string } | undefined;
				if (text?.text) text.text = text.text.replace(/\n\n\[f[^ ]* is not UTF-8 text \(each sequence[^\]]*\]$/, "");
				if (head.startsWith("GIF") && head !== "GIF87a" && head !== "GIF89a") {
					// pi bug kept out: pi (file-type) calls anything starting with "GIF" an image/gif and sends it;
					// a provider rejects such a broken image. Settle needs the GIF87a/GIF89a header and reads the
					// file as text.
					expect(ours.ok?.content).toEqual([{ type: "text", text: bytes.toString("utf-8") }]);
					return;
				}
				if (theirs.ok && !ours.ok && ours.code === "INVALID_ARGUMENT" && head.startsWith("%PDF-")) {
					// Deliberate difference (read.ts isPdf, hermes-agent#43059): a PDF is refused as one; pi sends its bytes.
					expect(ours.error).toContain(`f${ext} is a PDF document`);
					return;
				}
				if (theirs.ok && !ours.ok && ours.code === "INVALID_ARGUMENT") {
					// Deliberate difference (read.ts looksBinary, pi#5289): a file that is not an image and holds a
					// NUL byte in its first 8000 bytes is refused as binary; pi decodes it and sends the NUL bytes.
					expect(bytes.subarray(0, 8000).includes(0)).toBe(true);
					expect(ours.error).toContain(`f${ext} looks like a binary file`);
					expect(theirs.ok.content).toEqual([{ type: "text", text: bytes.toString("utf-8") }]);
					return;
				}
				// Deliberate addition (read.ts readImage): without a resizer Settle tells the model when an image
				// is over 2000 px and sent at full size; pi (autoResizeImages off) says nothing.
				const first = ours.ok?.content[0] as { text?: string } | undefined;
				if (first?.text) first.text = first.text.replace(/\n\[Image: \d+x\d+, sent at full size[^\]]*\]/, "");
				expectSame(ours, theirs);
			}),
			runs(60),
		);
	});

	it("paths: relative, absolute, ~, @, missing, directories, NFC/NFD and macOS screenshot spellings", async () => {
		const stored = [
			"é.txt",
			"e\u0301.txt",
			"Capture d\u2019e\u0301cran.png.txt",
			"Shot 9.41 AM.txt",
			"Shot 9.41\u202FAM.txt",
			"plain.txt",
		];
		const asked = [
			"é.txt",
			"e\u0301.txt",
			"Capture d'écran.png.txt",
			"Shot 9.41 AM.txt",
			"plain.txt",
			"missing.txt",
			"sub",
			"sub/..",
			"./plain.txt",
			"@plain.txt",
			"plain.txt/x",
		];
		const home = process.env.HOME;
		try {
			await fc.assert(
				fc.asyncProperty(
					fc.subarray(stored, { minLength: 0 }),
					fc.constantFrom(...asked),
					fc.constantFrom("relative", "absolute", "home"),
					async (names, name, style) => {
						const files: Record<string, string> = { "sub/inner.txt": "inner" };
						for (const n of names) files[n] = `content of ${JSON.stringify(n)}\n`;
						const cwd = await freshDir(files);
						process.env.HOME = cwd; // `~` resolves through os.homedir(), which reads HOME
						const path = style === "relative" ? name : style === "absolute" ? join(cwd, name) : `~/${name}`;
						const ours = await outcome(createAllToolDefinitions(cwd).read, { path });
						const theirs = await outcome(piTools(cwd).read, { path });
						await rm(cwd, { recursive: true });
						expect(settleFsCategory(ours, theirs)).toEqual(errnoCategory(theirs));
					},
				),
				runs(60),
			);
		} finally {
			process.env.HOME = home;
		}
	});
});

// ───────────────────────────────────────────── edit ─────────────────────────────────────────────

const SMART: Record<string, string> = { "'": "\u2019", '"': "\u201C", "-": "\u2013", " ": "\u00A0" };
const token = fc.constantFrom("foo", "bar", "x", "'", '"', "-", "\u2019", "\u2014", " ", "  ", "\t", "\n", "\n", "é");
const editFile = fc.record({
	text: fc.array(token, { minLength: 1, maxLength: 40 }).map((t) => t.join("")),
	endings: fc.constantFrom("lf", "crlf", "mixed", "lone-cr"),
	bom: fc.boolean(),
});
/** An oldText: a slice of the file (possibly made "typographic" or given trailing spaces), or a random token run. */
const editSpec = fc.record({
	from: fc.nat(),
	length: fc.integer({ min: 0, max: 12 }),
	mangle: fc.constantFrom("none", "none", "smart", "trailing-space", "random"),
	random: fc.array(token, { maxLength: 3 }).map((t) => t.join("")),
	newText: fc.array(token, { maxLength: 4 }).map((t) => t.join("")),
});

type EditSpec = typeof editSpec extends fc.Arbitrary<infer T> ? T : never;

function oldTextFor(text: string, spec: EditSpec): string {
	if (spec.mangle === "random") return spec.random;
	const start = text.length === 0 ? 0 : spec.from % text.length;
	const slice = text.slice(start, start + spec.length);
	if (spec.mangle === "smart") return slice.replace(/['"\- ]/g, (c) => SMART[c] ?? c);
	if (spec.mangle === "trailing-space") return slice.replace(/\n/g, " \n");
	return slice;
}

/** pi's fuzzy normal form (trailing whitespace, quotes, dashes, spaces, NFKC), for comparing fuzzy edits. */
function piFold(text: string): string {
	return text
		.normalize("NFKC")
		.split("\n")
		.map((l) => l.trimEnd())
		.join("\n")
		.replace(/[\u2018\u2019\u201A\u201B]/g, "'")
		.replace(/[\u201C\u201D\u201E\u201F]/g, '"')
		.replace(/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, "-")
		.replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, " ");
}

describe("edit: same results as pi on random files and edits", () => {
	it("texts, diffs, firstChangedLine, errors and the bytes on disk", async () => {
		await fc.assert(
			fc.asyncProperty(editFile, fc.array(editSpec, { minLength: 1, maxLength: 3 }), async (file, specs) => {
				const lf = file.text;
				// The tools see LF text; the file on disk has CRLF, a mix (the first break decides what is
				// written back by pi; Settle keeps untouched breaks), or a lone CR (old Mac) that both read as a line break.
				let seen = 0;
				const body =
					file.endings === "crlf"
						? lf.replace(/\n/g, "\r\n")
						: file.endings === "mixed"
							? lf.replace(/\n/g, () => (seen++ % 2 === 0 ? "\r\n" : "\n"))
							: file.endings === "lone-cr"
								? lf.replace(/\n/, "\r")
								: lf;
				const bytes = (file.bom ? "\uFEFF" : "") + body;
				// What both tools match against: LF text (a lone CR before an LF makes one CRLF break).
				const seenByTools = body.replace(/\r\n?/g, "\n");
				// Deliberate difference (edit-diff.ts spliceIntoOriginal, pi#8544): pi writes every line break
				// of the file in the style of its first one; Settle rewrites only the replaced regions, so a
				// mixed or lone-CR file keeps its other breaks as they were. Such files are compared with their
				// line breaks normalized (pi-races/edit-tool.test.ts pins the bytes).
				const breaks = (t: string) =>
					file.endings === "mixed" || file.endings === "lone-cr" ? t.replace(/\r\n?/g, "\n") : t;
				const edits = specs.map((s) => ({ oldText: oldTextFor(lf, s), newText: s.newText }));
				const [cwdOurs, cwdPi] = [await freshDir({ "f.txt": bytes }), await freshDir({ "f.txt": bytes })];
				// One edit is sometimes sent in the legacy top-level form (pi ≤ 0.58).
				const params =
					edits.length === 1 && specs[0]!.from % 2 === 0 ? { path: "f.txt", ...edits[0] } : { path: "f.txt", edits };
				const ours = await outcome(createAllToolDefinitions(cwdOurs).edit, params);
				// DELIBERATE_EDIT_INDENT_HINT (edit-diff.ts indentationHint, claude-code#37403): after "Could
				// not find …", Settle names the lines that match except for indentation; pi says nothing more.
				if (ours.error)
					ours.error = ours.error.replace(/(newlines\.) (?:Line \d+ matches except|It matches at ).*$/s, "$1");
				// DELIBERATE_EDIT_EMPTY_FILE (edit-diff.ts inEmptyFile): in an empty file Settle says the file is
				// empty; pi says only that the text must match exactly.
				if (ours.error)
					ours.error = ours.error.replace(
						/^(Could not find (the exact text|edits\[\d+\]) in f\.txt): the file is empty\. Use the write tool to give it content\.$/,
						(_all, head: string, what: string) =>
							`${head}. The ${what === "the exact text" ? "old text" : "oldText"} must match exactly including all whitespace and newlines.`,
					);
				// DELIBERATE_EDIT_AMBIGUOUS_LINES (edit-diff.ts ambiguous, openclaw#21645): after "Found N
				// occurrences …", Settle names the lines they start on; pi says nothing more.
				if (ours.error) ours.error = ours.error.replace(/(make it unique\.) They start on lines? .*$/s, "$1");
				const theirs = await outcome(piTools(cwdPi).edit, params);
				const [afterOurs, afterPi] = [
					await readFile(join(cwdOurs, "f.txt"), "utf-8"),
					await readFile(join(cwdPi, "f.txt"), "utf-8"),
				];
				await Promise.all([rm(cwdOurs, { recursive: true }), rm(cwdPi, { recursive: true })]);
				// Settle adds a unified `patch` to details; pi has none. Compared: diff and firstChangedLine.
				const shown = (o: Outcome) =>
					o.ok
						? {
								content: o.ok.content,
								diff: (o.ok.details as { diff?: string }).diff,
								firstChangedLine: (o.ok.details as { firstChangedLine?: number }).firstChangedLine,
							}
						: { error: o.error };
				// Occurrences as Settle counts them: overlapping ones too (pi#9697; pi counts with split).
				const occurrencesIn = (haystack: string, needle: string) => {
					let count = 0;
					for (let i = haystack.indexOf(needle); needle !== "" && i !== -1; i = haystack.indexOf(needle, i + 1))
						count++;
					return count;
				};
				const exactCount = (oldText: string) => occurrencesIn(seenByTools, oldText.replace(/\r\n?/g, "\n"));
				// Deliberate difference (edit-diff.ts applyEdits, "Exact matching comes first"): pi counts
				// occurrences in the FOLDED text even when an oldText matches exactly. So pi rejects an oldText
				// found verbatim exactly once as ambiguous when another spot differs only in trailing spaces or
				// quote/dash style, and its "Found N occurrences" counts folded look-alikes. Settle accepts a
				// unique exact match and counts exact occurrences when there are several.
				const blank = (t: string) => t !== "" && piFold(t.replace(/\r\n?/g, "\n")) === "";
				const allExact = edits.every((e) => exactCount(e.oldText) > 0);
				if (edits.some((e) => blank(e.oldText) && (exactCount(e.oldText) !== 1 || !allExact))) {
					// pi bug kept out: an oldText of only whitespace folds to "" in pi's tolerant match, which
					// then "finds" it at offset 0 and counts occurrences of "" in the folded file. Seen: a blank
					// oldText that is not in the file reported as "Found N occurrences" (or, in a short file,
					// newText inserted at offset 0); one that occurs twice verbatim accepted and the first
					// replaced; the error of another edit reported instead. Settle reports it as not found or
					// ambiguous and leaves the file alone.
					if (ours.ok) {
						// …and where a blank oldText occurs verbatim once, Settle replaces exactly that.
						expect(edits.filter((e) => blank(e.oldText)).every((e) => exactCount(e.oldText) === 1)).toBe(true);
						expect(afterOurs).not.toBe(bytes);
					} else {
						expect(ours.error).toMatch(
							/^Could not find |^Found \d+ occurrences |overlap|^No changes|must not be empty/,
						);
						expect(afterOurs).toBe(bytes);
					}
					return;
				}
				const endsAtLastLine = (t: string) =>
					t.endsWith("\n") && t.trim() !== "" && exactCount(t) === 0 && `${piFold(seenByTools)}\n`.endsWith(piFold(t));
				if (!seenByTools.endsWith("\n") && edits.some((e) => endsAtLastLine(e.oldText.replace(/\r\n?/g, "\n")))) {
					// Deliberate difference (edit-diff.ts withFinalBreak, aider#3737): in a file that ends
					// without a line break, an oldText ending with one matches the last line in Settle; pi finds
					// it nowhere, so the two may stop at different edits. Settle may also count such an oldText
					// once more (at the end) and refuse it as ambiguous. Refused, the file is left as it was.
					if (!ours.ok) expect(afterOurs).toBe(bytes);
					return;
				}
				const ambiguous = /^Found (\d+) occurrences of (?:edits\[(\d+)\]|the text)/.exec(theirs.error ?? "");
				const oursAmbiguous = /^Found (\d+) occurrences of (?:edits\[(\d+)\]|the text)/.exec(ours.error ?? "");
				const overlaps = (haystack: string, needle: string) =>
					occurrencesIn(haystack, needle) > haystack.split(needle).length - 1;
				const refused = oursAmbiguous ? edits[Number(oursAmbiguous[2] ?? 0)]!.oldText.replace(/\r\n?/g, "\n") : "";
				if (oursAmbiguous && (overlaps(seenByTools, refused) || overlaps(piFold(seenByTools), piFold(refused)))) {
					// Deliberate difference (pi#9697, edit-diff.ts countOccurrences): pi counts an oldText's
					// places with split, which misses overlapping ones (foo\nfoo\n at lines 1–2 and 2–3 of three
					// foos), and then replaces the first or reports a smaller count; Settle counts every place and
					// refuses the edit, leaving the file alone.
					// pi may name another edit: an earlier blank oldText its fold "finds" everywhere (the blank-fold
					// bug above; seed -732318684 path 124: pi's edits[0] "  " in `  """`), or a later one, having
					// missed the overlapping places of Settle's (the same seed replayed from path 124: pi's edits[2]),
					// or an earlier one Settle accepts as a unique exact match that pi counts folded (the exact-first
					// difference above; seed 34883353 path 2326: "-—" once in "—--—", pi's two "--").
					const [piEdit, oursEdit] = [Number(ambiguous?.[2] ?? 0), Number(oursAmbiguous[2] ?? 0)];
					expect(
						ambiguous === null ||
							(piEdit === oursEdit
								? Number(ambiguous[1]) <= Number(oursAmbiguous[1])
								: piEdit > oursEdit || blank(edits[piEdit]!.oldText) || exactCount(edits[piEdit]!.oldText) === 1),
					).toBe(true);
					expect(afterOurs).toBe(bytes);
					return;
				}
				if (ambiguous) {
					const edit = edits[Number(ambiguous[2] ?? 0)]!;
					const exactly = exactCount(edit.oldText);
					if (exactly === 1) {
						expect(ours.error ?? "", "Settle must not call a unique exact match ambiguous").not.toMatch(
							new RegExp(`^Found \\d+ occurrences of ${ambiguous[2] ? `edits\\[${ambiguous[2]}\\]` : "the text"}`),
						);
						return;
					}
					if (exactly > 1) theirs.error = theirs.error!.replace(/^Found \d+/, `Found ${exactly}`);
				}
				if (!allExact) {
					// Deliberate difference (edit-diff.ts header): when an edit needs the tolerant match, pi
					// rewrites the WHOLE file in folded form (drops every trailing space, turns every smart quote
					// and dash into ASCII) and diffs that; Settle changes only the matched regions. Outcomes and
					// error texts must agree, and the files must agree once folded and stripped of spaces and tabs
					// (Settle keeps a line's trailing whitespace next to a matched region; pi drops all of it).
					const overlap = /^edits\[(\d+)\] and edits\[(\d+)\] overlap/.exec(ours.error ?? "");
					if (overlap && (theirs.ok || !theirs.error?.includes("overlap"))) {
						// Deliberate difference: pi's tolerant match trims trailing whitespace off the oldText too,
						// so two oldTexts that share a tab or space in the file (one ends with it, the other starts
						// with it) do not "overlap" in pi, which then drops or moves that character. Settle matches
						// the real text and reports the overlap.
						const pair = [edits[Number(overlap[1])]!.oldText, edits[Number(overlap[2])]!.oldText];
						expect(pair.some((t) => /[^\S\n]+(\n|$)/.test(t))).toBe(true);
						expect(afterOurs).toBe(bytes);
						return;
					}
					const piOverlap = /^edits\[(\d+)\] and edits\[(\d+)\] overlap/.exec(theirs.error ?? "");
					if (ours.ok && piOverlap) {
						// Deliberate difference ("Exact matching comes first"): once any edit needs the tolerant
						// match, pi re-finds EVERY edit in the folded file, where an exact oldText (say '') can first
						// occur at a new spot made by folding (’' → '') inside another edit. Settle keeps the exact
						// match where it is in the real file. The same re-find can make an oldText with trailing
						// whitespace exact only in the folded file ('␠ is not in a file with ’␠ but is in its fold): pi then matches it with
						// that whitespace, where its tolerant match (and Settle's) trims it off the oldText, so the two
						// regions touch in Settle and overlap in pi (seed -1803863158, path 2159).
						const pair = [Number(piOverlap[1]), Number(piOverlap[2])].map((i) => edits[i]!.oldText);
						const foldedFile = piFold(seenByTools);
						const exactOnlyWhenFolded = (t: string) =>
							exactCount(t) === 0 && /[^\S\n]+(\n|$)/.test(t) && foldedFile.split(t).length - 1 === 1;
						expect(pair.some((t) => exactCount(t) === 1 || exactOnlyWhenFolded(t))).toBe(true);
						return;
					}
					if (theirs.ok && /^No changes/.test(ours.error ?? "")) {
						// The same named difference: an oldText matched tolerantly whose newText is already the file's
						// text there ("' " matches "’" and asks for "’") changes nothing in Settle, which says "No
						// changes"; pi's only change is re-spelling the file in folded form (seed 2112675155, path 89).
						const loose = (t: string) => piFold(t.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n")).replace(/[ \t]/g, "");
						expect(loose(afterPi)).toBe(loose(bytes));
						expect(afterOurs).toBe(bytes);
						return;
					}
					// Matched regions start at different offsets (Settle: in the real text; pi: in the folded text),
					// so when three edits overlap, or two start at the same spot, the pair named can differ.
					const anyPair = (e?: string) =>
						e?.replace(/^edits\[\d+\] and edits\[\d+\] overlap/, "edits[i] and edits[j] overlap");
					expectSame(ours.ok ? "ok" : anyPair(ours.error), theirs.ok ? "ok" : anyPair(theirs.error));
					if (ours.ok) {
						expect(ours.ok.content).toEqual(theirs.ok?.content);
						const loose = (t: string) => piFold(t).replace(/[ \t]/g, "");
						// The same named difference without an overlap: pi's re-find in the folded file can put an
						// oldText found verbatim once at an earlier spot made by folding ('’’\t folds to '''; ’’\t is
						// re-found as '' at 0), so pi replaces other text (seed -696612623, path 7573).
						const foldedFile = piFold(seenByTools);
						const movedByFolding = (oldText: string) => {
							const t = oldText.replace(/\r\n?/g, "\n");
							if (exactCount(t) !== 1) return false;
							const piAt = foldedFile.indexOf(foldedFile.includes(t) ? t : piFold(t));
							// Where the exact spot lands in the folded file (the sentinel keeps its line's spaces).
							const foldedSpot = piFold(`${seenByTools.slice(0, seenByTools.indexOf(t))}\u0000`).length - 1;
							return piAt !== foldedSpot;
						};
						if (!edits.some((e) => movedByFolding(e.oldText)))
							expect(loose(breaks(afterOurs))).toBe(loose(breaks(afterPi)));
					}
					return;
				}
				expect(shown(ours)).toEqual(shown(theirs));
				expect(breaks(afterOurs)).toBe(breaks(afterPi));
			}),
			runs(250),
		);
	});

	it("missing files and directories fail on both sides, leaving nothing behind", async () => {
		for (const path of ["missing.txt", "sub", "sub/missing/deeper.txt"]) {
			const cwd = await freshDir({ "sub/keep.txt": "k" });
			const edits = [{ oldText: "a", newText: "b" }];
			const ours = await outcome(createAllToolDefinitions(cwd).edit, { path, edits });
			const theirs = await outcome(piTools(cwd).edit, { path, edits });
			expect(ours.error, path).toBeDefined();
			expect(theirs.error, path).toBeDefined();
			// Deliberate difference (fs-errors.ts): pi says `Could not edit file: <path>. Error code: ENOENT.`;
			// Settle names the absolute path and what to do (`File not found: … Use write to create a new file.`).
			expect(ours.code, path).toBe(path === "sub" ? "INVALID_ARGUMENT" : "NOT_FOUND");
			expect(await snapshotTree(cwd)).toEqual({ "sub/keep.txt": Buffer.from("k").toString("base64") });
		}
	});
});

// ───────────────────────────────────────────── write ────────────────────────────────────────────

describe("write: same files and texts as pi", () => {
	it("new and existing files, nested folders, CRLF and multi-byte content", async () => {
		const segment = fc.constantFrom("a", "b", "dir", "é", ".hidden");
		await fc.assert(
			fc.asyncProperty(
				fc.array(segment, { minLength: 1, maxLength: 3 }),
				fc.string({ unit: fc.constantFrom("x", "\r\n", "\n", "é", "😀", "\uFEFF"), maxLength: 30 }),
				fc.constantFrom("none", "exists", "file-as-parent", "folder-as-file"),
				async (segments, content, setup) => {
					const path = `${segments.join("/")}.txt`;
					// A FILE where the path needs a folder (its first segment), or a FOLDER where it wants the file.
					const initial: Record<string, string> =
						setup === "exists"
							? { [path]: "old" }
							: setup === "file-as-parent"
								? segments.length > 1
									? { [segments[0]!]: "blocker" }
									: {}
								: setup === "folder-as-file"
									? { [`${path}/inside`]: "x" }
									: {};
					const [cwdOurs, cwdPi] = [await freshDir(initial), await freshDir(initial)];
					const ours = await outcome(createAllToolDefinitions(cwdOurs).write, { path, content });
					const theirs = await outcome(piTools(cwdPi).write, { path, content });
					const [treeOurs, treePi] = [await snapshotTree(cwdOurs), await snapshotTree(cwdPi)];
					await Promise.all([rm(cwdOurs, { recursive: true }), rm(cwdPi, { recursive: true })]);
					expect(treeOurs).toEqual(treePi);
					if (theirs.error !== undefined) {
						// Deliberate difference (write.ts, fs-errors.ts): pi lets `EEXIST: file already exists, mkdir`
						// / `ENOTDIR` / `EISDIR` through; Settle says which path is in the way.
						expect(theirs.code).toMatch(/^(EEXIST|ENOTDIR|EISDIR)$/);
						expect(ours.code).toBe("INVALID_ARGUMENT");
						expect(ours.error).toMatch(/is a file, not a folder|is a directory, not a file/);
						return;
					}
					// pi bug kept out: pi reports `content.length` (UTF-16 units) as bytes. Settle reports the
					// UTF-8 byte count actually written ("1 byte" for one); the rest of the text must match.
					const bytes = Buffer.byteLength(content, "utf-8");
					expect(ours).toEqual({
						ok: {
							content: [{ type: "text", text: `Successfully wrote ${bytes} byte${bytes === 1 ? "" : "s"} to ${path}` }],
							details: undefined,
						},
					});
					const withoutCount = (o: Outcome) => JSON.stringify(o).replace(/wrote \d+ bytes?/, "wrote N bytes");
					expect(withoutCount(ours)).toBe(withoutCount(theirs));
				},
			),
			runs(60),
		);
	});
});

// ───────────────────────────────────────────── ls ───────────────────────────────────────────────

describe("ls: same listings as pi on random trees", () => {
	it("sorting, dotfiles, folders, entry limits and their notices", async () => {
		const name = fc.constantFrom("a", "B", "b", "_x", ".env", ".Git", "Zeta", "zeta2", "10", "9", "é", "E", "a.b", "-");
		await fc.assert(
			fc.asyncProperty(
				fc.uniqueArray(fc.tuple(name, fc.boolean()), { maxLength: 12, selector: ([n]) => n.toLowerCase() }),
				fc.option(fc.oneof(fc.integer({ min: 1, max: 14 }), fc.constantFrom(0, -1, 1.5, 2.5)), { nil: undefined }),
				fc.constantFrom(undefined, ".", "sub", "missing", "file.txt"),
				async (entries, limit, path) => {
					const cwd = await freshDir({ "file.txt": "f" });
					const dir = path === "sub" ? join(cwd, "sub") : cwd;
					await mkdir(dir, { recursive: true });
					for (const [n, isDir] of entries) {
						if (isDir) await mkdir(join(dir, n), { recursive: true });
						else await writeFile(join(dir, n), "");
					}
					const params: Record<string, unknown> = {};
					if (limit !== undefined) params.limit = limit;
					if (path !== undefined) params.path = path;
					const ours = await outcome(createAllToolDefinitions(cwd).ls, params);
					// pi bug kept out: pi uses a limit as given, so limit 0 lists nothing and says
					// "(empty directory)" for a folder that has entries, and 1.5 lists 2 entries. Settle lists at
					// least one entry and rounds a fractional limit down; compare with pi given that limit.
					const piParams = limit === undefined ? params : { ...params, limit: Math.max(1, Math.floor(limit)) };
					const theirs = piSingularCounts(await outcome(piTools(cwd).ls, piParams));
					await rm(cwd, { recursive: true });
					// Deliberate difference (ls.ts): "Not a directory" adds what to do ("Use read to see a file.").
					const plain = (o: Outcome) => ({
						...o,
						code: undefined,
						error: o.error?.replace(/\. Use read to see a file\.$/, ""),
					});
					expect(plain(ours)).toEqual(plain(theirs));
				},
			),
			runs(60),
		);
	});

	it("the byte-limit notice and entry limit together, on a folder of long names", async () => {
		// 260 names of ~220 bytes exceed 50 KB; the limit may cut before or after the byte limit.
		const cwd = await freshDir();
		await Promise.all(
			Array.from({ length: 260 }, (_, i) =>
				writeFile(join(cwd, `${String(i).padStart(3, "0")}${"n".repeat(217)}`), ""),
			),
		);
		await fc.assert(
			fc.asyncProperty(fc.option(fc.integer({ min: 200, max: 300 }), { nil: undefined }), async (limit) => {
				const params = limit === undefined ? {} : { limit };
				const ours = piByteNotice(await outcome(createAllToolDefinitions(cwd).ls, params));
				expect(ours).toEqual(await outcome(piTools(cwd).ls, params));
			}),
			runs(8),
		);
	});
});

// ───────────────────────────────────────────── bash ─────────────────────────────────────────────

const bashCall = fc
	.record({
		lines: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1995, max: 2005 })),
		width: fc.oneof(
			fc.integer({ min: 0, max: 40 }),
			fc.integer({ min: 24, max: 27 }),
			fc.integer({ min: 51_190, max: 51_250 }),
		),
		char: fc.constantFrom("x", "é", "€"),
		stream: fc.constantFrom("out", "err", "both"),
		exit: fc.constantFrom(0, 0, 1, 2, 127),
		trailingNewline: fc.boolean(),
		sleep: fc.constantFrom(false, false, false, true),
	})
	.map((s) => {
		// A line over 50 KB comes once or twice, not 2000 times.
		const lines = s.width > 1000 ? Math.min(s.lines, 2) : s.lines;
		// Lines of `width` characters; 2000 lines × 26 bytes crosses 50 KB together with the line limit.
		// The line is built by doubling (log2 width appends): mawk appending one "€" 51,000 times took
		// 8-12 s per side on a loaded machine, and two such runs timed the whole property out.
		const print =
			lines === 0
				? ""
				: `awk -v n=${lines} -v w=${s.width} 'BEGIN{for(p="${s.char}"; w>0; w=int(w/2)) {if (w%2) l=l p; p=p p}; for(i=1;i<=n;i++) print i l}'`;
		const redirect = s.stream === "err" ? " 1>&2" : "";
		// Deliberate difference (output-accumulator.ts, pi#4818, fixed in pi after 0.73.1): the line
		// break ending an output is no line of its own in Settle; pi 0.73.1 counts one more line, so an
		// output that ends with a break and reaches a limit differs (test/pi-races/bash-output.test.ts
		// replays it). Near the limits the output here ends without one.
		const nearLimit = lines >= 1995 || s.width > 1000;
		const trailingNewline = s.trailingNewline && !nearLimit;
		const tail = trailingNewline ? "" : "; printf 'end'";
		const both = s.stream === "both" ? `; ${nearLimit ? "printf to-stderr" : "echo to-stderr"} 1>&2` : "";
		const command = `{ ${print || "true"}${tail}; }${redirect}${both}${s.sleep ? "; sleep 3" : ""}; exit ${s.exit}`;
		return s.sleep ? { command: `sleep 3; exit ${s.exit}`, timeout: 0.4 } : { command };
	});

describe("bash: same results as pi for random commands (real child processes)", () => {
	it(
		"outputs, exit codes, stderr, timeouts and truncation notices",
		async () => {
			const cwd = await freshDir();
			const tempPaths = (o: Outcome) =>
				JSON.stringify(o).match(/\/[^"\]\s]*pi-bash-[^"\]\s]*|\/[^"\]\s]*settle-bash-[^"\]\s]*/g) ?? [];
			await fc.assert(
				fc.asyncProperty(bashCall, async (params) => {
					const ours = await outcome(createAllToolDefinitions(cwd).bash, params);
					const theirs = await outcome(piTools(cwd).bash, params);
					// Both keep the full output of a truncated run in a temp file named in the notice.
					const paths = [...new Set([...tempPaths(ours), ...tempPaths(theirs)])];
					await Promise.all(paths.map((p) => rm(p, { force: true })));
					const anon = (o: Outcome) => {
						let s = JSON.stringify({ ...o, code: undefined });
						for (const p of paths) s = s.split(p).join("<full-output>");
						return s;
					};
					expectSame(anon(ours), anon(theirs));
				}),
				runs(14),
			);
			// A timed-out command takes its 0.4 s on each side: the timeout grows with SETTLE_DIFF_SCALE.
		},
		30_000 * scale,
	);
});

// ─────────────────────────────────────── truncation helpers ─────────────────────────────────────

describe("truncation helpers: same results as pi", () => {
	it("truncateHead/truncateTail with multi-byte characters at the byte boundary", () => {
		const unit = fc.constantFrom("a", "é", "€", "😀", "\n", "\r\n", "\uD83D");
		fc.assert(
			fc.property(
				fc.string({ unit, maxLength: 80 }),
				fc.record(
					{ maxLines: fc.integer({ min: 1, max: 30 }), maxBytes: fc.integer({ min: 1, max: 120 }) },
					{ requiredKeys: [] },
				),
				(text, options) => {
					expect(truncateHead(text, options)).toEqual(pi.truncateHead(text, options));
					expect(truncateTail(text, options)).toEqual(pi.truncateTail(text, options));
				},
			),
			runs(600),
		);
	});

	it("formatSize and truncateLine", () => {
		const piTruncate = pi as unknown as { truncateLine?: typeof truncateLine; formatSize: typeof formatSize };
		fc.assert(
			fc.property(
				fc.oneof(
					fc.nat(5_000),
					fc.integer({ min: 1000, max: 3 * 1024 * 1024 }),
					fc.constantFrom(1023, 1024, 1048575, 1048576),
				),
				fc.string({ unit: fc.constantFrom("a", "é", "😀"), maxLength: 40 }),
				fc.integer({ min: 0, max: 45 }),
				(bytes, line, maxChars) => {
					expect(formatSize(bytes)).toBe(piTruncate.formatSize(bytes));
					if (piTruncate.truncateLine) {
						// One difference: a cut that would split an emoji moves before it (claude-code#56064);
						// pi keeps the pair's lone first half.
						const piCut = piTruncate.truncateLine(line, maxChars);
						const withoutLoneHalf = piCut.text.replace(/[\ud800-\udbff](?=\.\.\. \[truncated\]$)/, "");
						expect(truncateLine(line, maxChars)).toEqual({ ...piCut, text: withoutLoneHalf });
					}
				},
			),
			runs(400),
		);
	});
});
