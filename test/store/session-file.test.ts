import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FileEntry, SessionEntry } from "../../src/store/entries.js";
import { migrateSessionEntries } from "../../src/store/migration.js";
import {
	loadEntriesFromFile,
	parseSessionEntries,
	parseSessionText,
	readSessionFile,
} from "../../src/store/session-file.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, tempDir, track, user } from "./helpers.js";

/** A session file with `n` user/assistant messages, closed; returns its path and text. */
function writeSession(n = 4) {
	const dir = tempDir();
	const sm = SessionManager.create("/cwd", dir);
	for (let i = 0; i < n; i++) sm.appendMessage(i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`));
	sm.close();
	const file = sm.getSessionFile()!;
	return { dir, file, text: readFileSync(file, "utf8"), entries: sm.getEntries() };
}

describe("torn last line", () => {
	it("is reported, set aside to a sidecar file, and the next append starts on a clean line", () => {
		const { dir, file, text, entries } = writeSession(4);
		const torn = '{"type":"message","id":"abcd1234","parentId":"x","timestamp":"2024-01-01T0';
		writeFileSync(file, text + torn);
		const sm = track(SessionManager.open(file));
		expect(sm.getEntries()).toEqual(entries);
		const [diagnostic, ...rest] = sm.getDiagnostics();
		expect(rest).toEqual([]);
		expect(diagnostic).toMatchObject({ kind: "torn_line", file, line: 6 });
		expect(diagnostic!.message).toContain("Line 6");
		expect(readFileSync(diagnostic!.setAsidePath!, "utf8")).toBe(torn);
		expect(readdirSync(dir).filter((f) => f.endsWith(".torn"))).toHaveLength(1);
		expect(readFileSync(file, "utf8")).toBe(text);
		const id = sm.appendMessage(user("after crash"));
		sm.close();
		const again = track(SessionManager.open(file));
		expect(again.getDiagnostics()).toEqual([]);
		expect(again.getEntries().map((e) => e.id)).toEqual([...entries.map((e) => e.id), id]);
	});

	it("a complete last line without its newline is kept, reported, and the newline added", () => {
		const { file, text, entries } = writeSession(2);
		writeFileSync(file, text.slice(0, -1));
		const sm = track(SessionManager.open(file));
		expect(sm.getEntries()).toEqual(entries);
		expect(sm.getDiagnostics().map((d) => d.kind)).toEqual(["missing_newline"]);
		expect(readFileSync(file, "utf8")).toBe(text);
		sm.appendMessage(user("next"));
		expect(
			readFileSync(file, "utf8")
				.split("\n")
				.filter(Boolean)
				.map((l) => JSON.parse(l).type),
		).toHaveLength(4);
	});

	it("a file holding only the start of a header (crash during the first write) starts over at that path", () => {
		const dir = tempDir();
		const file = join(dir, "s.jsonl");
		writeFileSync(file, '{"type":"session","version":3,"id":"0190');
		const sm = track(SessionManager.open(file, undefined, "/cwd"));
		expect(sm.getEntries()).toEqual([]);
		expect(sm.getDiagnostics().map((d) => d.kind)).toEqual(["torn_line"]);
		expect(readFileSync(file, "utf8")).toBe(`${JSON.stringify(sm.getHeader())}\n`);
		writeFileSync(join(dir, "t.jsonl"), '{"ty');
		expect(track(SessionManager.open(join(dir, "t.jsonl"))).getEntries()).toEqual([]);
	});
});

describe("malformed lines in the middle", () => {
	it("are reported with line number and reason and skipped; every later entry still loads", () => {
		const { file, text, entries } = writeSession(6);
		const rows = text.split("\n");
		rows.splice(3, 0, "{not json", "[1,2,3]", '{"no":"type"}', '{"type":"message"}', "   ");
		const damaged = rows.join("\n");
		writeFileSync(file, damaged);
		const sm = track(SessionManager.open(file));
		expect(sm.getEntries()).toEqual(entries);
		const diagnostics = sm.getDiagnostics();
		expect(diagnostics.map((d) => [d.kind, d.line])).toEqual([
			["malformed_line", 4],
			["malformed_line", 5],
			["malformed_line", 6],
			["malformed_line", 7],
		]);
		expect(diagnostics[0]!.message).toMatch(/^Line 4 skipped: not valid JSON \(.+\)\.$/);
		expect(diagnostics[1]!.message).toBe("Line 5 skipped: not a JSON object.");
		expect(diagnostics[2]!.message).toBe('Line 6 skipped: has no string "type".');
		expect(diagnostics[3]!.message).toBe('Line 7 skipped: entry has no string "id".');
		// nothing is rewritten: the damaged lines stay where they are
		expect(readFileSync(file, "utf8")).toBe(damaged);
		expect(sm.buildSessionContext().messages).toHaveLength(6);
	});

	it("an entry whose parent was on a skipped line (no id left to read) is attached to the entry before that line", () => {
		const { file, text, entries } = writeSession(4);
		const rows = text.split("\n");
		rows[2] = "garbage";
		writeFileSync(file, rows.join("\n"));
		const sm = track(SessionManager.open(file));
		const diagnostics = sm.getDiagnostics();
		expect(diagnostics.map((d) => d.kind)).toEqual(["malformed_line"]);
		expect(diagnostics[0]!.message).toContain(`Entry ${entries[2]!.id}, whose parent ${entries[1]!.id}`);
		expect(diagnostics[0]!.message).toContain(`was attached to ${entries[0]!.id}, the last entry before line 3`);
		expect(sm.getEntries()).toHaveLength(3);
		// the context keeps the entry before the skipped line
		expect(sm.buildSessionContext().messages).toHaveLength(3);
		expect(readFileSync(file, "utf8")).toBe(rows.join("\n"));
	});

	it("duplicate headers and duplicate ids are reported", () => {
		const { file, text, entries } = writeSession(2);
		const rows = text.split("\n");
		const dup = JSON.stringify({ ...entries[0], message: user("again") });
		writeFileSync(file, [rows[0], rows[1], rows[0], rows[2], dup, ""].join("\n"));
		const sm = track(SessionManager.open(file));
		expect(sm.getDiagnostics().map((d) => [d.kind, d.line])).toEqual([
			["duplicate_header", 3],
			["duplicate_id", undefined],
		]);
		expect(sm.getEntry(entries[0]!.id)).toMatchObject({ message: user("again") });
	});

	it("a duplicate id inside one chain is reported once the session appends, and new ids avoid every loaded id", () => {
		const { file, text, entries } = writeSession(3);
		const rows = text.split("\n");
		// The third entry reuses the first one's id but still continues the chain.
		rows[3] = JSON.stringify({ ...entries[2], id: entries[0]!.id });
		writeFileSync(file, rows.join("\n"));
		const sm = track(SessionManager.open(file));
		expect(sm.getDiagnostics()).toEqual([]);
		const id = sm.appendMessage(user("next"));
		expect(sm.getDiagnostics().map((d) => d.kind)).toEqual(["duplicate_id"]);
		expect(entries.map((entry) => entry.id)).not.toContain(id);
		expect(sm.getEntry(id)).toMatchObject({ parentId: entries[0]!.id });
	});

	it("appending to a clean chain gives ids unique among the loaded ones and keeps lookups by id working", () => {
		const { file, entries } = writeSession(6);
		const sm = track(SessionManager.open(file));
		const added = [sm.appendMessage(user("a")), sm.appendMessage(assistant("b"))];
		expect(new Set([...entries.map((entry) => entry.id), ...added]).size).toBe(entries.length + 2);
		expect(sm.getDiagnostics()).toEqual([]);
		for (const entry of entries) expect(sm.getEntry(entry.id)).toEqual(entry);
		expect(sm.getEntry(added[1]!)).toMatchObject({ parentId: added[0] });
		expect(sm.getBranch().map((entry) => entry.id)).toEqual([...entries.map((entry) => entry.id), ...added]);
	});
});

describe("reading helpers", () => {
	it("readSessionFile handles lines larger than its read chunk and multi-byte text across chunk edges", () => {
		const dir = tempDir();
		const sm = SessionManager.create("/cwd", dir);
		const big = "é€😀".repeat(300_000);
		sm.appendMessage(user(big));
		sm.appendMessage(assistant("x".repeat(1_500_000)));
		sm.appendMessage(user("tail"));
		sm.close();
		const contents = readSessionFile(sm.getSessionFile()!)!;
		expect(contents.diagnostics).toEqual([]);
		expect(contents.entries).toEqual(sm.getEntries());
		expect(contents.completeBytes).toBe(contents.fileBytes);
		expect(readSessionFile(join(dir, "missing.jsonl"))).toBeUndefined();
	});

	it("parseSessionText and parseSessionEntries follow pi's rules", () => {
		const text = [
			JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" }),
			"bad",
			JSON.stringify({ type: "custom", id: "a", parentId: null, timestamp: "t", customType: "x" }),
			'{"type":"cus',
		].join("\n");
		const parsed = parseSessionText(text);
		expect(parsed.header?.id).toBe("s");
		expect(parsed.entries.map((e) => e.id)).toEqual(["a"]);
		expect(parsed.diagnostics.map((d) => d.kind)).toEqual(["malformed_line", "torn_line"]);
		expect(parseSessionEntries(text).map((e) => e.type)).toEqual(["session", "custom"]);
		expect(parseSessionEntries("")).toEqual([]);
	});

	it("loadEntriesFromFile returns [header, ...entries], or [] for a missing or header-less file, and never writes", () => {
		const { dir, file, text, entries } = writeSession(2);
		writeFileSync(file, `${text}{"torn`);
		const loaded = loadEntriesFromFile(file);
		expect(loaded[0]?.type).toBe("session");
		expect(loaded.slice(1)).toEqual(entries);
		expect(readFileSync(file, "utf8")).toBe(`${text}{"torn`);
		const other = join(dir, "x.jsonl");
		writeFileSync(other, '{"type":"custom","id":"a"}\n');
		expect(loadEntriesFromFile(other)).toEqual([]);
		expect(loadEntriesFromFile(join(dir, "none.jsonl"))).toEqual([]);
	});
});

describe("migration v1 → v2 → v3", () => {
	const v1 = (): FileEntry[] =>
		[
			{ type: "session", id: "old", timestamp: "2024-01-01T00:00:00.000Z", cwd: "/p" },
			{ type: "message", timestamp: "2024-01-01T00:00:01.000Z", message: user("a") },
			{ type: "message", timestamp: "2024-01-01T00:00:02.000Z", message: assistant("b") },
			{
				type: "message",
				timestamp: "2024-01-01T00:00:03.000Z",
				message: { role: "hookMessage", customType: "h", content: "x", display: true, timestamp: 3 },
			},
			{
				type: "compaction",
				timestamp: "2024-01-01T00:00:04.000Z",
				summary: "s",
				firstKeptEntryIndex: 2,
				tokensBefore: 9,
			},
		] as unknown as FileEntry[];

	it("assigns ids and a linear parent chain, converts firstKeptEntryIndex, renames hookMessage", () => {
		const lines = v1();
		expect(migrateSessionEntries(lines)).toBe(true);
		const [header, ...entries] = lines as [FileEntry, ...SessionEntry[]];
		expect(header).toMatchObject({ version: 3 });
		expect(entries.map((e) => e.parentId)).toEqual([null, entries[0]!.id, entries[1]!.id, entries[2]!.id]);
		expect(new Set(entries.map((e) => e.id)).size).toBe(4);
		for (const e of entries) expect(e.id).toMatch(/^[0-9a-f]{8}$/);
		expect(entries[3]).toMatchObject({ firstKeptEntryId: entries[1]!.id });
		expect("firstKeptEntryIndex" in entries[3]!).toBe(false);
		expect((entries[2] as { message: { role: string } }).message.role).toBe("custom");
		const snapshot = structuredClone(lines);
		expect(migrateSessionEntries(lines)).toBe(false);
		expect(lines).toEqual(snapshot);
	});

	it("v2 files only get the role rename", () => {
		const lines = [
			{ type: "session", version: 2, id: "s", timestamp: "t", cwd: "/" },
			{
				type: "message",
				id: "a",
				parentId: null,
				timestamp: "t",
				message: { role: "hookMessage", customType: "h", content: "x", display: true, timestamp: 3 },
			},
		] as unknown as FileEntry[];
		expect(migrateSessionEntries(lines)).toBe(true);
		expect(lines[1]).toMatchObject({ id: "a", message: { role: "custom" } });
	});

	it("open() rewrites an old file once (atomically) and reports it; reopening changes nothing", () => {
		const dir = tempDir();
		const file = join(dir, "old.jsonl");
		writeFileSync(
			file,
			`${v1()
				.map((l) => JSON.stringify(l))
				.join("\n")}\n`,
		);
		const sm = SessionManager.open(file);
		expect(sm.getDiagnostics().map((d) => d.kind)).toEqual(["migrated"]);
		expect(sm.getDiagnostics()[0]!.message).toMatch(/from session format v1 to v3/);
		sm.close();
		const rewritten = readFileSync(file, "utf8");
		expect(JSON.parse(rewritten.split("\n")[0]!)).toMatchObject({ version: 3, id: "old" });
		const reopened = track(SessionManager.open(file));
		expect(reopened.getDiagnostics()).toEqual([]);
		expect(reopened.getEntries()).toEqual(sm.getEntries());
		expect(readFileSync(file, "utf8")).toBe(rewritten);
		expect(readdirSync(dir).sort()).toEqual(["old.jsonl", "old.jsonl.lock"]);
		expect(reopened.buildSessionContext().messages.map((m) => m.role)).toEqual([
			"compactionSummary",
			"assistant",
			"custom",
		]);
	});

	it("keeps the original beside the file when migration drops unreadable lines", () => {
		const dir = tempDir();
		const file = join(dir, "old.jsonl");
		const original = `${v1()
			.map((l) => JSON.stringify(l))
			.join("\n")}\nnot json\n`;
		writeFileSync(file, original);
		const sm = track(SessionManager.open(file));
		const migrated = sm.getDiagnostics().find((d) => d.kind === "migrated")!;
		expect(migrated.setAsidePath).toBe(`${file}.v1.bak`);
		expect(readFileSync(`${file}.v1.bak`, "utf8")).toBe(original);
		expect(existsSync(`${file}.migrating-${process.pid}`)).toBe(false);
	});
});
