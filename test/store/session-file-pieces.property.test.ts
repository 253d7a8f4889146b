/**
 * The reader decodes what it reads in pieces cut at newlines (small ones in a fresh process, whole
 * read chunks once V8's young generation has grown). Whatever the piece size, the result must be
 * the same: entries, diagnostics with their line numbers, torn tail, and what the sink is handed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionEntry, SessionHeader } from "../../src/store/entries.js";
import { entryFieldProblem } from "../../src/store/entry-shape.js";
import {
	decodePieceBytes,
	parseSessionText,
	READ_CHUNK_BYTES,
	readSessionFileInto,
} from "../../src/store/session-file.js";
import { tempDir } from "./helpers.js";

const header = JSON.stringify({
	type: "session",
	version: 3,
	id: "s",
	timestamp: "2024-01-01T00:00:00.000Z",
	cwd: "/",
});

/** One line of a session file: mostly entries (some with multi-byte or long text), some damage. */
const line = fc.oneof(
	{
		weight: 8,
		arbitrary: fc
			.record({
				text: fc.oneof(
					fc.string({ maxLength: 20 }),
					fc.constantFrom("é€😀", "ß".repeat(70)),
					fc.integer({ min: 1, max: 400 }).map((n) => "x".repeat(n)),
				),
				id: fc.constantFrom("a1", "b2", "c3", "d4"),
			})
			.map(({ text, id }) =>
				JSON.stringify({
					type: "message",
					id,
					parentId: null,
					timestamp: "t",
					message: { role: "user", content: text },
				}),
			),
	},
	fc.constantFrom(
		"",
		"  ",
		"not json",
		"[1]",
		'{"no":"type"}',
		'{"type":"message"}',
		// A write a crash lost (zeros, claude-code#49876), and a terminal escape sequence.
		"\u0000".repeat(12),
		"\u001b]0;title\u0007{",
		header,
		// pi's append after a torn line, glued to it: the whole entry is loaded, the fragment reported.
		'{"type":"mess{"type":"custom","id":"g7","parentId":null,"timestamp":"t","data":{"é":1}}',
		// A block nested in a cut-off entry is not an entry: skipped.
		'{"type":"message","id":"c8","message":{"content":[{"type":"toolCall","id":"k1"}',
		// Loaded, with an invalid_field diagnostic.
		'{"type":"custom_message","id":"e5","parentId":null,"timestamp":"t","customType":"x","content":42}',
		'{"type":"message","id":"e6","parentId":null,"timestamp":"t","message":{"role":"user","content":[null]}}',
	),
);

const sessionText = fc.record({
	lines: fc.array(line, { maxLength: 40 }),
	tail: fc.constantFrom(
		"",
		'{"type":"mess',
		JSON.stringify({ type: "custom", id: "z", parentId: null, timestamp: "t" }),
	),
});

function read(file: string, pieceBytes: number) {
	const seen: Array<SessionHeader | SessionEntry> = [];
	const entries: SessionEntry[] = [];
	const sink = {
		entries,
		header: (h: SessionHeader) => seen.push(h),
		added: (from: number) => {
			// Each batch starts where the previous one ended.
			expect(from).toBe(seen.length - 1);
			seen.push(...entries.slice(from));
		},
	};
	const contents = readSessionFileInto(file, sink, pieceBytes);
	if (contents?.header) expect(contents.entries).toBe(sink.entries);
	return { contents, seen };
}

/** The entry at the end of a line after a torn fragment: the last `{"type":` from which the rest is an entry as pi writes one. */
function gluedEntry(text: string): { at: number; value: Record<string, unknown> } | undefined {
	for (let at = text.length - 1; at > 0; at--) {
		if (!text.startsWith('{"type":', at)) continue;
		try {
			const value = JSON.parse(text.slice(at)) as Record<string, unknown>;
			const isEntry =
				typeof value === "object" &&
				value !== null &&
				typeof value.type === "string" &&
				value.type !== "session" &&
				typeof value.id === "string" &&
				(value.parentId === null || typeof value.parentId === "string") &&
				typeof value.timestamp === "string";
			if (isEntry) return { at, value };
		} catch {
			// not the start of the entry
		}
	}
	return undefined;
}

/**
 * The reading rules for complete lines, one line at a time, as plainly as they can be written: the
 * oracle for the reader's batched hot path (entries and diagnostics must match exactly).
 */
function referenceRead(lines: string[]) {
	let header: Record<string, unknown> | null = null;
	const entries: unknown[] = [];
	const diagnostics: Array<{ kind: string; line: number; message: string }> = [];
	const malformed = (line: number, reason: string) =>
		diagnostics.push({ kind: "malformed_line", line, message: `Line ${line} skipped: ${reason}.` });
	for (let i = 0; i < lines.length; i++) {
		const text = lines[i]!;
		const line = i + 1;
		if (text.trim() === "") continue;
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch (error) {
			const glued = header === null ? undefined : gluedEntry(text);
			if (glued !== undefined) {
				const fragment = text.slice(0, glued.at);
				diagnostics.push({
					kind: "torn_line",
					line,
					message: `Line ${line} starts with ${Buffer.byteLength(fragment)} bytes of a line cut off mid-write (${fragment}), skipped; the whole entry written after them on the same line (${glued.value.id}) was loaded.`,
				});
				entries.push(glued.value);
				continue;
			}
			// Control characters the parser quotes from the line are shown as \uXXXX escapes.
			const quoted = (error as Error).message.replace(
				/\p{Cc}/gu,
				(char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
			);
			malformed(line, `not valid JSON (${quoted})`);
			continue;
		}
		if (typeof value !== "object" || value === null || Array.isArray(value)) {
			malformed(line, "not a JSON object");
			continue;
		}
		const record = value as Record<string, unknown>;
		if (typeof record.type !== "string") {
			malformed(line, 'has no string "type"');
			continue;
		}
		if (header === null) {
			if (record.type !== "session" || typeof record.id !== "string") return { header: null, entries: [], diagnostics };
			header = record;
			continue;
		}
		if (record.type === "session") {
			diagnostics.push({
				kind: "duplicate_header",
				line,
				message: `Line ${line} is a second session header; skipped.`,
			});
			continue;
		}
		if (((header.version as number | undefined) ?? 1) >= 2 && typeof record.id !== "string") {
			malformed(line, 'entry has no string "id"');
			continue;
		}
		const message = record.message;
		if (record.type === "message" && (typeof message !== "object" || message === null || Array.isArray(message))) {
			malformed(line, "a message entry without a message object");
			continue;
		}
		const problem = entryFieldProblem(record as SessionEntry & Record<string, unknown>);
		if (problem !== undefined) {
			diagnostics.push({
				kind: "invalid_field",
				line,
				message: `Line ${line}: ${problem} (the line is kept as it is).`,
			});
		}
		entries.push(record);
	}
	return { header, entries, diagnostics };
}

describe("reading rules", () => {
	it("entries and diagnostics of complete lines match the line-by-line rules, in files and in text", () => {
		const dir = tempDir();
		const oldHeader = JSON.stringify({ type: "session", id: "old", timestamp: "t", cwd: "/" });
		const withoutId = JSON.stringify({ type: "message", parentId: null, timestamp: "t", message: { role: "user" } });
		let n = 0;
		fc.assert(
			fc.property(
				fc.constantFrom(header, oldHeader),
				fc.array(fc.oneof(line, fc.constantFrom(withoutId, "{}", '{"type":7}', "null", "3", '"x"', "\t")), {
					maxLength: 40,
				}),
				fc.integer({ min: 1, max: 600 }),
				(first, rest, pieceBytes) => {
					const lines = [first, ...rest];
					const text = `${lines.join("\n")}\n`;
					const expected = referenceRead(lines);
					const file = join(dir, `r${n++}.jsonl`);
					writeFileSync(file, text);
					for (const contents of [read(file, pieceBytes).contents!, parseSessionText(text, file)]) {
						expect(contents.header).toEqual(expected.header);
						expect(contents.entries).toEqual(expected.entries);
						expect(contents.diagnostics.map(({ kind, line, message }) => ({ kind, line, message }))).toEqual(
							expected.diagnostics,
						);
					}
				},
			),
			{ numRuns: 200 },
		);
	});
});

describe("reading in decode pieces", () => {
	it("any piece size gives the same contents, diagnostics and sink calls as whole chunks", () => {
		const dir = tempDir();
		let n = 0;
		fc.assert(
			fc.property(sessionText, fc.integer({ min: 1, max: 600 }), ({ lines, tail }, pieceBytes) => {
				const file = join(dir, `s${n++}.jsonl`);
				writeFileSync(file, `${[header, ...lines].join("\n")}\n${tail}`);
				const whole = read(file, READ_CHUNK_BYTES);
				const pieces = read(file, pieceBytes);
				expect(pieces.contents).toEqual(whole.contents);
				expect(pieces.seen).toEqual(whole.seen);
				expect(whole.seen.slice(1)).toEqual(whole.contents!.entries);
			}),
			{ numRuns: 200 },
		);
	});

	it("a file of several read chunks with a line longer than a chunk reads the same in small pieces", () => {
		const dir = tempDir();
		const entry = (i: number, text: string) =>
			JSON.stringify({
				type: "message",
				id: `e${i}`,
				parentId: i === 0 ? null : `e${i - 1}`,
				timestamp: "t",
				message: { role: "user", content: text },
			});
		const rows = [header];
		for (let i = 0; i < 3000; i++)
			rows.push(entry(i, i === 1500 ? "€".repeat(400_000) : `line ${i} ${"y".repeat(i % 900)}`));
		const file = join(dir, "big.jsonl");
		writeFileSync(file, `${rows.join("\n")}\n`);
		const whole = read(file, READ_CHUNK_BYTES);
		const small = read(file, 1 << 16);
		expect(whole.contents!.fileBytes).toBeGreaterThan(2 * READ_CHUNK_BYTES);
		expect(whole.contents!.entries).toHaveLength(3000);
		expect(whole.contents!.diagnostics).toEqual([]);
		expect(small.contents).toEqual(whole.contents);
		expect(small.seen).toEqual(whole.seen);
	});

	it("pieces are either small enough for V8's young generation or whole read chunks", () => {
		expect([1 << 16, READ_CHUNK_BYTES]).toContain(decodePieceBytes());
	});
});
