/**
 * `buildSessionInfo` (what `SessionManager.list` / `listAll` return per file) reads a session a
 * block at a time. Differential properties: on random files it returns exactly what reading the
 * whole file at once returned (the previous implementation, kept below as the reference), for any
 * block size, invalid UTF-8 and damaged lines included; and on random folders of session files in
 * pi's domain, exactly pi 0.73.1's `SessionInfo` per file, `allMessagesText` included.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type SessionInfo as PiSessionInfo, SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildSessionInfo } from "../../src/store/discovery.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { tempDir } from "./helpers.js";
import { DIFF_TIMEOUT_MS, runs } from "./pi-differential.helpers.js";
import { wholeFileSessionInfo as referenceSessionInfo } from "./whole-file-session-info.js";

// -------------------------------------------------------------------------------------------------
// Random session lines

/** Text with multi-byte characters (2-, 3- and 4-byte UTF-8), spaces, newlines and quotes. */
const text = fc
	.array(fc.constantFrom("a", "b", " ", "\n", '"', "\\", "é", "ß", "中", "文", "😀", "𝄞", "\u2028", "  "), {
		maxLength: 12,
	})
	.map((parts) => parts.join(""));
const timestamp = fc.integer({ min: -5, max: 1_800_000_000_000 });
const isoTimestamp = fc.oneof(
	timestamp.filter((t) => t >= 0).map((t) => new Date(t).toISOString()),
	fc.constant("not a date"),
);
const block = fc.oneof(
	fc.record({ type: fc.constant("text"), text }),
	fc.record({ type: fc.constant("thinking"), thinking: text }),
	fc.record({
		type: fc.constant("toolCall"),
		id: fc.constant("c1"),
		name: fc.constant("read"),
		arguments: fc.constant({}),
	}),
	fc.record({ type: fc.constant("image"), data: fc.constant("aGk="), mimeType: fc.constant("image/png") }),
);
/** A message in pi's domain: user/assistant content is a string or an array of blocks. */
const piMessage = fc.oneof(
	fc.record(
		{ role: fc.constant("user"), content: fc.oneof(text, fc.array(block, { maxLength: 3 })), timestamp },
		{ requiredKeys: ["role", "content"] },
	),
	fc.record(
		{ role: fc.constant("assistant"), content: fc.array(block, { maxLength: 3 }), timestamp },
		{ requiredKeys: ["role", "content"] },
	),
	fc.record({
		role: fc.constant("toolResult"),
		toolCallId: fc.constant("c1"),
		content: fc.array(block, { maxLength: 2 }),
	}),
	fc.record({ role: fc.constant("bashExecution"), command: text, output: text }),
	fc.record({ role: fc.constant("custom"), customType: fc.constant("note"), content: text, display: fc.boolean() }),
);
const entryBase = {
	id: fc.integer({ min: 0, max: 0xffffffff }).map((n) => n.toString(16).padStart(8, "0")),
	timestamp: isoTimestamp,
};
/** An entry line in pi's domain (both read every such line the same way). */
const piEntry = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ type: fc.constant("message"), ...entryBase, message: piMessage }) },
	{ weight: 1, arbitrary: fc.record({ type: fc.constant("session_info"), ...entryBase, name: fc.option(text) }) },
	{ weight: 1, arbitrary: fc.record({ type: fc.constant("custom"), ...entryBase, customType: text, data: text }) },
	{ weight: 1, arbitrary: fc.record({ type: fc.constant("compaction"), ...entryBase, summary: text }) },
	{ weight: 1, arbitrary: fc.record({ type: fc.constant("label"), ...entryBase, targetId: text, label: text }) },
);
const header = fc.record(
	{
		type: fc.constant("session"),
		version: fc.constant(3),
		id: fc.uuid(),
		timestamp: isoTimestamp,
		cwd: fc.constantFrom("/work/project", "/work/other"),
		parentSession: fc.constant("/work/parent.jsonl"),
	},
	{ requiredKeys: ["type", "id", "timestamp", "cwd"] },
);

/** How one entry is written: as is, torn, with CRLF, or followed by a blank line. */
const written = (value: unknown) =>
	fc.constantFrom("plain", "plain", "plain", "torn", "crlf", "blankAfter").map((how) => {
		const json = JSON.stringify(value);
		if (how === "torn") return json.slice(0, Math.max(1, Math.floor(json.length / 2)));
		if (how === "crlf") return `${json}\r`;
		if (how === "blankAfter") return `${json}\n   `;
		return json;
	});

/** A file in pi's domain: a header, entries, optionally a BOM and no final newline; or not a session at all. */
const piFile = fc.oneof(
	{
		weight: 8,
		arbitrary: fc
			.tuple(fc.boolean(), header.chain(written), fc.array(piEntry.chain(written), { maxLength: 14 }), fc.boolean())
			.map(([bom, head, lines, finalNewline]) => {
				const body = [head, ...lines].join("\n") + (finalNewline ? "\n" : "");
				return (bom ? "\uFEFF" : "") + body;
			}),
	},
	{ weight: 1, arbitrary: fc.constantFrom("", "\n\n", '{"type":"message","id":"x"}\n', "not json\n") },
);

/** Any line at all: pi-domain entries, JSON values that are not entries, odd shapes, garbage. */
const anyLine = fc.oneof(
	piEntry.chain(written),
	fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value) ?? "null"),
	fc
		.record({
			type: fc.constantFrom("message", "session_info", "session"),
			id: fc.oneof(fc.string(), fc.integer()),
			timestamp: fc.oneof(isoTimestamp, fc.integer()),
			name: fc.oneof(text, fc.integer(), fc.constant(null)),
			message: fc.oneof(
				fc.constant(null),
				fc.string(),
				fc.record({
					role: fc.constantFrom("user", "assistant", 7),
					content: fc.oneof(
						text,
						fc.constant(null),
						fc.array(fc.oneof(block, fc.constant(null), fc.record({ type: fc.constant("text"), text: fc.integer() }))),
					),
					timestamp: fc.oneof(timestamp, fc.constant("soon")),
				}),
			),
		})
		.map((value) => JSON.stringify(value)),
	fc.string(),
);

/** Any file: lines of anything, or raw bytes (invalid UTF-8 included). */
const anyFile = fc.oneof(
	fc
		.tuple(fc.boolean(), header.chain(written), fc.array(anyLine, { maxLength: 14 }))
		.map(([bom, head, lines]) => Buffer.from((bom ? "\uFEFF" : "") + [head, ...lines].join("\n"))),
	fc.array(anyLine, { maxLength: 8 }).map((lines) => Buffer.from(lines.join("\n"))),
	fc
		.tuple(
			header.map((h) => JSON.stringify(h)),
			fc.uint8Array({ maxLength: 200 }),
		)
		.map(([head, bytes]) => Buffer.concat([Buffer.from(`${head}\n`), Buffer.from(bytes)])),
	fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes)),
);

/** Block sizes: tiny ones cut lines and multi-byte characters anywhere; the default reads any test file at once. */
const readBytes = fc.oneof(fc.integer({ min: 1, max: 48 }), fc.constant(undefined));

describe("buildSessionInfo: read a block at a time", () => {
	it(
		"returns exactly what reading the whole file returned, for any block size",
		async () => {
			const dir = tempDir("settle-info-");
			let n = 0;
			await fc.assert(
				fc.asyncProperty(
					fc.oneof(
						anyFile,
						piFile.map((s) => Buffer.from(s)),
					),
					readBytes,
					async (bytes, size) => {
						const path = join(dir, `s${n++}.jsonl`);
						writeFileSync(path, bytes);
						expect(await buildSessionInfo(path, size)).toEqual(await referenceSessionInfo(path));
					},
				),
				{ numRuns: runs(400) },
			);
		},
		DIFF_TIMEOUT_MS,
	);

	it("reads a file whose lines are longer than the block, and a missing file or a directory as no session", async () => {
		const dir = tempDir("settle-info-long-");
		const path = join(dir, "long.jsonl");
		const long = "長".repeat(5000);
		writeFileSync(
			path,
			[
				JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" }),
				JSON.stringify({
					type: "message",
					id: "m1",
					timestamp: "2025-01-02T00:00:00.000Z",
					message: { role: "user", content: long, timestamp: 5 },
				}),
			].join("\n"),
		);
		const info = await buildSessionInfo(path, 7);
		expect(info).toMatchObject({ id: "s1", messageCount: 1, firstMessage: long, allMessagesText: long });
		expect(info).toEqual(await referenceSessionInfo(path));
		expect(await buildSessionInfo(join(dir, "missing.jsonl"))).toBeNull();
		expect(await buildSessionInfo(dir)).toBeNull();
	});
});

/**
 * DELIBERATE_FORK_ACTIVITY (README "Coming from pi"): Settle counts a fork's creation (its header's
 * time) as activity when later than its last message, whose time the copy kept from the original
 * (codex#39553); pi 0.73.1 takes the last message alone.
 */
function withForkActivity(info: PiSessionInfo): PiSessionInfo {
	const forkedAt = info.parentSessionPath ? info.created.getTime() : Number.NaN;
	if (Number.isNaN(forkedAt) || forkedAt <= info.modified.getTime()) return info;
	return { ...info, modified: new Date(forkedAt) };
}

describe("list / listAll against pi 0.73.1 on random folders", () => {
	it(
		"the same SessionInfo per file, allMessagesText included",
		async () => {
			await fc.assert(
				fc.asyncProperty(fc.array(piFile, { maxLength: 8 }), readBytes, async (files, size) => {
					const dir = tempDir("settle-info-folder-");
					for (const [i, content] of files.entries()) writeFileSync(join(dir, `2025-01-0${i}-s${i}.jsonl`), content);
					const pi = (await PiSessionManager.list("/work/project", dir)).map(withForkActivity);
					const byPath = <T extends { path: string }>(list: readonly T[]) =>
						[...list].sort((a, b) => a.path.localeCompare(b.path));
					// pi lists every session of a custom dir; Settle's listAll(dir) does too.
					expect(byPath(await SessionManager.listAll(dir))).toEqual(byPath(pi));
					for (let i = 0; i < files.length; i++) {
						const path = join(dir, `2025-01-0${i}-s${i}.jsonl`);
						expect(await buildSessionInfo(path, size)).toEqual(pi.find((info) => info.path === path) ?? null);
					}
				}),
				{ numRuns: runs(150) },
			);
		},
		DIFF_TIMEOUT_MS,
	);
});
