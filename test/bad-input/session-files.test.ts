/**
 * Bad session files and ids through the public API (SessionManager, createAgentSession,
 * AgentSessionRuntime): each is reported with a typed error or a diagnostic that names the file and
 * line, and nothing already on disk is lost — the file is reopened and compared.
 */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import { createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	closeSession,
	diskRoles,
	expectSettleError,
	fileEntries,
	lastAssistant,
	openSession,
	thrown,
	useWorkspace,
} from "./helpers.js";

const ws = useWorkspace();

/** A session file with two exchanges written by a real session; returns its path. */
async function writtenSession(): Promise<string> {
	const session = await openSession(ws);
	ws.reply("one", "two");
	await session.prompt("first");
	await session.prompt("second");
	const file = session.sessionFile!;
	closeSession(session);
	return file;
}

function header(version: number): string {
	return `${JSON.stringify({ type: "session", version, id: "future-1", timestamp: new Date().toISOString(), cwd: ws.project })}\n`;
}

describe("session JSONL (a)", () => {
	it("a malformed middle line is skipped with a diagnostic naming its line; it stays on disk; appends continue", async () => {
		const file = await writtenSession();
		const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
		lines.splice(3, 0, '{"type":"message","id":"broken",'); // a line cut short, then more lines after it
		writeFileSync(file, `${lines.join("\n")}\n`);
		const before = readFileSync(file);

		const reopened = SessionManager.open(file);
		const diagnostic = reopened.getDiagnostics().find((d) => d.kind === "malformed_line");
		expect(diagnostic).toMatchObject({ file, line: 4 });
		expect(diagnostic!.message).toContain("Line 4 skipped");
		expect(reopened.getEntries()).toHaveLength(lines.length - 2); // header and the broken line
		const session = await openSession(ws, { sessionManager: reopened });
		ws.reply("three");
		await session.prompt("third");
		closeSession(session);
		const after = readFileSync(file);
		expect(after.subarray(0, before.length).equals(before)).toBe(true);
		const appended = after.subarray(before.length).toString("utf8").trim().split("\n");
		expect(appended.map((line) => JSON.parse(line).message?.role)).toEqual(["user", "assistant"]);
	});

	it("a torn last line is moved aside (bytes kept), every complete line loads, and the session goes on", async () => {
		const file = await writtenSession();
		const complete = readFileSync(file);
		const torn = '{"type":"message","id":"cut","parentId":null,"message":{"role":"user","cont';
		appendFileSync(file, torn);

		const reopened = SessionManager.open(file);
		const diagnostic = reopened.getDiagnostics().find((d) => d.kind === "torn_line");
		expect(diagnostic?.message).toContain("cut off mid-write");
		expect(readFileSync(diagnostic!.setAsidePath!, "utf8")).toBe(torn);
		expect(readFileSync(file).equals(complete)).toBe(true);
		const session = await openSession(ws, { sessionManager: reopened });
		ws.reply("three");
		await session.prompt("third");
		closeSession(session);
		expect(diskRoles(file).filter((role) => role === "user")).toHaveLength(3);
	});

	it("a file that is not a session: INVALID_SESSION_FILE naming it and saying what to do; the file is untouched", () => {
		const file = join(ws.root, "notes.jsonl");
		writeFileSync(file, '{"todo":"buy milk"}\n{"todo":"call bob"}\n');
		const error = thrown(() => SessionManager.open(file));
		expectSettleError(error, "INVALID_SESSION_FILE", file, "Open a different file");
		expect(readFileSync(file, "utf8")).toBe('{"todo":"buy milk"}\n{"todo":"call bob"}\n');
		expect(readdirSync(ws.root).filter((name) => name.startsWith("notes.jsonl"))).toEqual(["notes.jsonl"]);
	});

	it("regression: a directory given as the session file failed with 'EISDIR: illegal operation' — now says it is a directory; no lock file is left", () => {
		const error = thrown(() => SessionManager.open(ws.root));
		expectSettleError(error, "IO", `${ws.root}: it is a directory, not a session file`);
		// Its own lock folder only (`<path>.lock`, src/store/lock.ts): the temp folder also holds the locks
		// of other test files' sessions, and other programs'.
		expect(readdirSync(dirname(ws.root)).filter((name) => name.startsWith(`${basename(ws.root)}.lock`))).toEqual([]);
	});

	it("an empty file becomes a new session at that exact path", async () => {
		const file = join(ws.root, "empty.jsonl");
		writeFileSync(file, "");
		const session = await openSession(ws, { sessionManager: SessionManager.open(file, undefined, ws.project) });
		ws.reply("hi");
		await session.prompt("hello");
		closeSession(session);
		expect(session.sessionFile).toBe(file);
		expect(diskRoles(file)).toEqual(expect.arrayContaining(["user", "assistant"]));
		expect(fileEntries(file)[0]).toMatchObject({ type: "session", version: 3 });
	});

	it("regression: a future-version file was opened and appended to as v3 — now refused for writing (INVALID_SESSION_FILE, says to upgrade); read-only works; bytes untouched", () => {
		const file = join(ws.root, "future.jsonl");
		const text = `${header(99)}${JSON.stringify({ type: "hologram", id: "aaaa0001", parentId: null, timestamp: new Date().toISOString() })}\n`;
		writeFileSync(file, text);
		const error = expectSettleError(
			thrown(() => SessionManager.open(file)),
			"INVALID_SESSION_FILE",
			file,
			"v99",
		);
		expect(error.message).toMatch(/newer/i);
		expect(error.message).toContain("readOnly");
		expect(readFileSync(file, "utf8")).toBe(text);
		expect(readdirSync(ws.root).filter((name) => name.startsWith("future.jsonl"))).toEqual(["future.jsonl"]);
		const viewer = SessionManager.open(file, undefined, undefined, { readOnly: true });
		expect(viewer.getEntries()).toHaveLength(1);
		viewer.close();
		expect(readFileSync(file, "utf8")).toBe(text);
	});

	it("the runtime refuses to switch to a future-version file and keeps the current session usable", async () => {
		const file = join(ws.root, "future.jsonl");
		const text = header(4);
		writeFileSync(file, text);
		const factory = createAgentSessionRuntimeFactory({ modelRuntime: () => ws.modelRuntime });
		const runtime = await createAgentSessionRuntime(factory, {
			cwd: ws.project,
			agentDir: ws.agentDir,
			sessionManager: SessionManager.inMemory(ws.project),
		});
		const before = runtime.session;
		expectSettleError(await runtime.switchSession(file).catch((e: unknown) => e), "INVALID_SESSION_FILE", file);
		expect(runtime.session).toBe(before);
		ws.reply("still here");
		await runtime.session.prompt("still here?");
		expect(lastAssistant(runtime.session).text).toBe("still here");
		await runtime.dispose();
		expect(readFileSync(file, "utf8")).toBe(text);
	});
});

describe("SessionManager.setSessionFile with a file it cannot open", () => {
	it.each([
		["not a session", "shopping list\n"],
		["a newer format", `${JSON.stringify({ type: "session", version: 7, id: "x", timestamp: "t", cwd: "/" })}\n`],
	])(
		"regression: %s left the manager without a writer (appends threw a TypeError) and unlocked — now it keeps writing its own file",
		(_, text) => {
			const manager = SessionManager.create(ws.project, ws.sessionDir);
			manager.appendMessage({ role: "user", content: "a", timestamp: 1 });
			const file = manager.getSessionFile()!;
			const other = join(ws.root, "other.jsonl");
			writeFileSync(other, text);
			expectSettleError(
				thrown(() => manager.setSessionFile(other)),
				"INVALID_SESSION_FILE",
				other,
			);
			expect(manager.getSessionFile()).toBe(file);
			manager.appendMessage({ role: "user", content: "b", timestamp: 2 });
			expectSettleError(
				thrown(() => SessionManager.open(file)),
				"SESSION_LOCKED",
			);
			manager.close();
			expect(diskRoles(file)).toEqual(["user", "user"]);
			expect(readFileSync(other, "utf8")).toBe(text);
		},
	);
});

describe("session ids supplied by the caller (i)", () => {
	it.each(["", "-leading", "trailing.", "../escape", "a/b", "spa ce"])(
		"%j is rejected with INVALID_ARGUMENT (pi's text) before anything is written",
		async (id) => {
			expectSettleError(
				thrown(() => SessionManager.create(ws.project, ws.sessionDir, { id })),
				"INVALID_ARGUMENT",
				"Session id must be",
			);
			const live = SessionManager.create(ws.project, ws.sessionDir);
			const session = await openSession(ws, { sessionManager: live });
			ws.reply("ok", "ok");
			await session.prompt("kept");
			const file = session.sessionFile!;
			const bytes = readFileSync(file);
			expectSettleError(
				thrown(() => live.newSession({ id })),
				"INVALID_ARGUMENT",
				"Session id must be",
			);
			expect(live.getSessionFile()).toBe(file);
			expect(readFileSync(file).equals(bytes)).toBe(true);
			await session.prompt("still appending");
			closeSession(session);
			expect(diskRoles(file).filter((role) => role === "user")).toHaveLength(2);
		},
	);
});
