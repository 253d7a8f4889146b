import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { LabelEntry, SessionEntry } from "../../src/store/entries.js";
import { INVALID_SESSION_ID_MESSAGE } from "../../src/store/ids.js";
import { getDefaultSessionDir, getDefaultSessionDirPath } from "../../src/store/paths.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, tempDir, toolResult, track, usage, user } from "./helpers.js";

const lines = (file: string) =>
	readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l !== "")
		.map((l) => JSON.parse(l));

function expectSettleError(fn: () => unknown, code: string, message: string | RegExp): SettleError {
	let caught: unknown;
	try {
		fn();
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(SettleError);
	const error = caught as SettleError;
	expect(error.code).toBe(code);
	if (typeof message === "string") expect(error.message).toBe(message);
	else expect(error.message).toMatch(message);
	return error;
}

describe("file layout (D.1)", () => {
	it("writes a v3 header with a UUIDv7 id, the absolute cwd and a timestamped file name", () => {
		const dir = tempDir();
		const sm = track(SessionManager.create(join(dir, "project", ".."), dir));
		sm.appendMessage(user("hi"));
		const header = lines(sm.getSessionFile()!)[0];
		expect(header).toEqual({
			type: "session",
			version: 3,
			id: sm.getSessionId(),
			timestamp: expect.any(String),
			cwd: dir,
		});
		expect(sm.getSessionId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(new Date(header.timestamp).toISOString()).toBe(header.timestamp);
		const name = `${header.timestamp.replace(/[:.]/g, "-")}_${sm.getSessionId()}.jsonl`;
		expect(sm.getSessionFile()).toBe(join(dir, name));
	});

	it("session ids sort by creation time", () => {
		const ids = Array.from({ length: 5 }, () => SessionManager.inMemory().getSessionId());
		expect(new Set(ids).size).toBe(5);
		const first = SessionManager.inMemory().getSessionId();
		const later = Date.now() + 2;
		while (Date.now() < later) {
			// wait two milliseconds so the time prefix differs
		}
		expect(SessionManager.inMemory().getSessionId() > first).toBe(true);
	});

	it("stores parentSession in the header when given", () => {
		const dir = tempDir();
		const sm = track(SessionManager.create(dir, dir, { parentSession: "/some/where.jsonl" }));
		sm.appendMessage(user("hi"));
		expect(lines(sm.getSessionFile()!)[0].parentSession).toBe("/some/where.jsonl");
		expect(sm.getHeader()?.parentSession).toBe("/some/where.jsonl");
	});

	it("accepts caller-supplied ids that match pi's rule and rejects others with pi's message", () => {
		const dir = tempDir();
		for (const id of ["a", "A1", "review-2024.1_x", "0"]) {
			expect(SessionManager.inMemory(dir, { id }).getSessionId()).toBe(id);
		}
		for (const id of ["", "-a", "a-", ".a", "a b", "a/b", "ä", "a\n"]) {
			expectSettleError(() => SessionManager.create(dir, dir, { id }), "INVALID_ARGUMENT", INVALID_SESSION_ID_MESSAGE);
			expectSettleError(() => SessionManager.inMemory(dir, { id }), "INVALID_ARGUMENT", INVALID_SESSION_ID_MESSAGE);
			expectSettleError(
				() => SessionManager.inMemory(dir).newSession({ id }),
				"INVALID_ARGUMENT",
				INVALID_SESSION_ID_MESSAGE,
			);
		}
		expect(INVALID_SESSION_ID_MESSAGE).toBe(
			"Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character",
		);
		const sm = track(SessionManager.create(dir, dir, { id: "my-session" }));
		sm.appendMessage(user("x"));
		expect(sm.getSessionFile()).toMatch(/_my-session\.jsonl$/);
	});

	it("derives the default session dir from the cwd as pi does", () => {
		const agentDir = tempDir();
		expect(getDefaultSessionDirPath("/home/me/my project", agentDir)).toBe(
			join(agentDir, "sessions", "--home-me-my project--"),
		);
		expect(getDefaultSessionDirPath("/a/b:c\\d", agentDir)).toBe(join(agentDir, "sessions", "--a-b-c-d--"));
		const dir = getDefaultSessionDir("/x/y", agentDir);
		expect(existsSync(dir)).toBe(true);
	});

	describe("default agent dir", () => {
		const saved = process.env.SETTLE_AGENT_DIR;
		afterEach(() => {
			if (saved === undefined) delete process.env.SETTLE_AGENT_DIR;
			else process.env.SETTLE_AGENT_DIR = saved;
		});

		it("puts sessions under <agentDir>/sessions/--cwd--/ (SETTLE_AGENT_DIR overrides ~/.settle/agent)", () => {
			const agentDir = tempDir();
			delete process.env.SETTLE_AGENT_DIR;
			expect(getDefaultSessionDirPath("/w")).toMatch(/[/\\]\.settle[/\\]agent[/\\]sessions[/\\]--w--$/);
			process.env.SETTLE_AGENT_DIR = agentDir;
			const sm = track(SessionManager.create("/work/proj"));
			expect(sm.getSessionDir()).toBe(join(agentDir, "sessions", "--work-proj--"));
			expect(existsSync(sm.getSessionDir())).toBe(false);
			sm.appendMessage(user("hi"));
			expect(existsSync(sm.getSessionFile()!)).toBe(true);
		});
	});

	it("gives entries unique 8-hex ids chained by parentId", () => {
		const sm = SessionManager.inMemory();
		const ids = [sm.appendModelChange("p", "m"), sm.appendMessage(user("a")), sm.appendMessage(assistant("b"))];
		for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
		const entries = sm.getEntries();
		expect(entries.map((e) => e.parentId)).toEqual([null, ids[0], ids[1]]);
		expect(entries.map((e) => new Date(e.timestamp).toISOString())).toEqual(entries.map((e) => e.timestamp));
	});
});

describe("lazy persistence", () => {
	it("writes nothing until the first user message, then header + buffered entries, then one line per append", () => {
		const dir = tempDir();
		const sm = track(SessionManager.create(dir, dir));
		const file = sm.getSessionFile()!;
		sm.appendModelChange("faux", "faux-1");
		sm.appendThinkingLevelChange("high");
		sm.appendCustomEntry("ext", { a: 1 });
		sm.appendCustomMessageEntry("note", "not a conversation message", true);
		expect(existsSync(file)).toBe(false);
		expect(readdirSync(dir)).toEqual([]);
		sm.appendMessage(user("hi"));
		expect(lines(file).map((l) => l.type)).toEqual([
			"session",
			"model_change",
			"thinking_level_change",
			"custom",
			"custom_message",
			"message",
		]);
		let size = statSync(file).size;
		for (const add of [() => sm.appendMessage(assistant("yo")), () => sm.appendLabelChange(sm.getLeafId()!, "x")]) {
			const id = add();
			const text = readFileSync(file, "utf8");
			const added = text.slice(size);
			expect(added.endsWith("\n")).toBe(true);
			expect(added.slice(0, -1).includes("\n")).toBe(false);
			expect(JSON.parse(added).id).toBe(id);
			size = text.length;
		}
	});

	it("an assistant message also starts persistence", () => {
		const dir = tempDir();
		const sm = track(SessionManager.create(dir, dir));
		sm.appendMessage(assistant("first"));
		expect(lines(sm.getSessionFile()!).map((l) => l.type)).toEqual(["session", "message"]);
	});

	it("tool results and custom messages alone do not", () => {
		const dir = tempDir();
		const sm = track(SessionManager.create(dir, dir));
		sm.appendMessage(toolResult("c1", "out"));
		sm.appendMessage({ role: "custom", customType: "x", content: "c", display: true, timestamp: 1 });
		expect(existsSync(sm.getSessionFile()!)).toBe(false);
	});

	it("an in-memory session never writes", () => {
		const cwd = tempDir();
		const sm = SessionManager.inMemory(cwd);
		for (let i = 0; i < 5; i++) {
			sm.appendMessage(user(`u${i}`));
			sm.appendMessage(assistant(`a${i}`));
		}
		sm.createBranchedSession(sm.getLeafId()!);
		expect(sm.isPersisted()).toBe(false);
		expect(sm.getSessionFile()).toBeUndefined();
		expect(sm.getSessionDir()).toBe("");
		expect(readdirSync(cwd)).toEqual([]);
		expect(sm.getEntries()).toHaveLength(10);
	});
});

describe("regression: a session folder that cannot be created", () => {
	it("is an IO error naming the folder and saying where to point sessions, not Node's bare ENOTDIR", () => {
		const dir = tempDir();
		const notAFolder = join(dir, "agent");
		writeFileSync(notAFolder, "a file where the agent folder should be");
		const sm = track(SessionManager.create(dir, join(notAFolder, "sessions")));
		const error = expectSettleError(
			() => sm.appendMessage(user("hi")),
			"IO",
			/^Cannot create the session folder .*agent\/sessions: .*ENOTDIR.*\. Point sessionDir \(settings\), SETTLE_AGENT_DIR or the agentDir you passed in code at a writable folder\.$/,
		);
		expect(error.details).toEqual({ path: join(notAFolder, "sessions") });
		expect(readFileSync(notAFolder, "utf8")).toBe("a file where the agent folder should be");
	});

	it("getDefaultSessionDir says the same", () => {
		const dir = tempDir();
		writeFileSync(join(dir, "agent"), "");
		expectSettleError(() => getDefaultSessionDir(dir, join(dir, "agent")), "IO", /^Cannot create the session folder /);
	});
});

describe("opening files", () => {
	it("opens what it wrote: same header, entries, leaf, cwd and dir", () => {
		const dir = tempDir();
		const sm = SessionManager.create("/work/p", dir);
		sm.appendMessage(user("hi"));
		sm.appendMessage(assistant("yo"));
		const file = sm.getSessionFile()!;
		sm.close();
		const reopened = track(SessionManager.open(file));
		expect(reopened.getHeader()).toEqual(sm.getHeader());
		expect(reopened.getEntries()).toEqual(sm.getEntries());
		expect(reopened.getLeafId()).toBe(sm.getLeafId());
		expect(reopened.getCwd()).toBe("/work/p");
		expect(reopened.getSessionDir()).toBe(dir);
		expect(reopened.getDiagnostics()).toEqual([]);
	});

	it("takes the cwd override and the given session dir", () => {
		const dir = tempDir();
		const sm = SessionManager.create("/work/p", dir);
		sm.appendMessage(user("hi"));
		sm.close();
		const other = tempDir();
		const reopened = track(SessionManager.open(sm.getSessionFile()!, other, "/else"));
		expect(reopened.getCwd()).toBe("/else");
		expect(reopened.getSessionDir()).toBe(other);
	});

	it("a missing path starts a new session written lazily at exactly that path", () => {
		const dir = tempDir();
		const file = join(dir, "sub", "chosen.jsonl");
		const sm = track(SessionManager.open(file, undefined, "/cwd"));
		expect(sm.getSessionFile()).toBe(file);
		expect(existsSync(file)).toBe(false);
		sm.appendMessage(user("hi"));
		expect(lines(file).map((l) => l.type)).toEqual(["session", "message"]);
		expect(lines(file)[0].cwd).toBe("/cwd");
	});

	it("an empty file gets a fresh header at once", () => {
		const dir = tempDir();
		const file = join(dir, "empty.jsonl");
		writeFileSync(file, "");
		const sm = track(SessionManager.open(file, undefined, "/cwd"));
		expect(lines(file)).toEqual([sm.getHeader()]);
		sm.appendModelChange("p", "m");
		expect(lines(file).map((l) => l.type)).toEqual(["session", "model_change"]);
	});

	it("a non-empty file that is not a session throws INVALID_SESSION_FILE naming it, and is left untouched", () => {
		const dir = tempDir();
		for (const content of ["hello world\n", '{"type":"message","id":"x"}\n', '[1,2]\n{"a":1}', "not json"]) {
			const file = join(dir, "bad.jsonl");
			writeFileSync(file, content);
			const error = expectSettleError(
				() => SessionManager.open(file),
				"INVALID_SESSION_FILE",
				/^Session file is not a valid pi session: /,
			);
			expect(error.message.startsWith(`Session file is not a valid pi session: ${file}`)).toBe(true);
			expect(readFileSync(file, "utf8")).toBe(content);
			expect(existsSync(`${file}.lock`)).toBe(false);
		}
	});

	it("a path that cannot be read gives an IO error naming it", () => {
		const dir = tempDir();
		const error = expectSettleError(() => SessionManager.open(dir), "IO", /^Could not read session file /);
		expect(error.message).toContain(dir);
		expect(existsSync(`${dir}.lock`)).toBe(false);
	});

	it("read-only open never writes and refuses appends", () => {
		const dir = tempDir();
		const file = join(dir, "s.jsonl");
		const sm = SessionManager.create(dir, dir);
		sm.appendMessage(user("hi"));
		sm.close();
		const text = `${readFileSync(sm.getSessionFile()!, "utf8")}{"type":"mess`;
		writeFileSync(file, text);
		const writer = track(SessionManager.open(sm.getSessionFile()!));
		const viewer = track(SessionManager.open(file, undefined, undefined, { readOnly: true }));
		expect(viewer.getDiagnostics().map((d) => d.kind)).toEqual(["torn_line"]);
		expect(viewer.buildSessionContext().messages).toHaveLength(1);
		expect(readFileSync(file, "utf8")).toBe(text);
		expectSettleError(() => viewer.appendMessage(user("x")), "INVALID_ARGUMENT", /opened read-only/);
		// A read-only viewer does not take the lock, so it coexists with a writer.
		const viewer2 = track(SessionManager.open(writer.getSessionFile()!, undefined, undefined, { readOnly: true }));
		expect(viewer2.getEntries()).toEqual(writer.getEntries());
		expectSettleError(
			() => SessionManager.open(join(dir, "missing.jsonl"), undefined, undefined, { readOnly: true }),
			"NOT_FOUND",
			/not found/,
		);
	});

	it("setSessionFile switches files and releases the previous one", () => {
		const dir = tempDir();
		const a = SessionManager.create(dir, dir);
		a.appendMessage(user("in a"));
		const b = SessionManager.create(dir, dir);
		b.appendMessage(user("in b"));
		b.close();
		a.setSessionFile(b.getSessionFile()!);
		track(a);
		expect(a.getSessionId()).toBe(b.getSessionId());
		expect(a.buildSessionContext().messages).toEqual([user("in b")]);
		// a's first file is free again
		const first = lines(b.getSessionFile()!);
		expect(first).toHaveLength(2);
	});
});

describe("entry types (D.2)", () => {
	it("every entry type survives a reopen byte-identically", () => {
		const dir = tempDir();
		const sm = SessionManager.create(dir, dir);
		const u = sm.appendMessage(user("hi"));
		sm.appendThinkingLevelChange("medium");
		sm.appendModelChange("anthropic", "claude");
		const a = sm.appendMessage(assistant("calling", { toolCall: "c1" }));
		sm.appendMessage(toolResult("c1", "file content"));
		sm.appendMessage({
			role: "bashExecution",
			command: "ls",
			output: "a\nb",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 5,
		});
		sm.appendCompaction("summary", a, 1234, { readFiles: ["a"], modifiedFiles: [] }, true, usage);
		sm.appendCustomEntry("ext", { state: [1, 2] });
		sm.appendCustomMessageEntry("ext", [{ type: "text", text: "injected" }], false, { why: 1 });
		sm.appendLabelChange(u, "start");
		sm.appendSessionInfo("name");
		sm.appendContextEdit(u, { content: "edited" });
		sm.appendUsage("summary", "anthropic", "claude", usage, "compaction call");
		sm.appendUsage("summary", "anthropic", "claude", usage);
		sm.branchWithSummary(u, "left a branch", { readFiles: [], modifiedFiles: ["b"] }, false, usage);
		const file = sm.getSessionFile()!;
		sm.close();
		const text = readFileSync(file, "utf8");
		const reopened = track(SessionManager.open(file));
		expect(reopened.getEntries()).toEqual(sm.getEntries());
		expect(reopened.getEntries().map((e) => e.type)).toEqual([
			"message",
			"thinking_level_change",
			"model_change",
			"message",
			"message",
			"message",
			"compaction",
			"custom",
			"custom_message",
			"label",
			"session_info",
			"context_edit",
			"usage",
			"usage",
			"branch_summary",
		]);
		expect(readFileSync(file, "utf8")).toBe(text);
		const usages = reopened.getEntries().filter((e) => e.type === "usage");
		expect(usages.map((e) => "note" in e)).toEqual([true, false]);
	});

	it("session names collapse newlines, trim, and the latest (anywhere in the file) wins; empty clears", () => {
		const sm = SessionManager.inMemory();
		expect(sm.getSessionName()).toBeUndefined();
		sm.appendMessage(user("x"));
		sm.appendSessionInfo("  first\r\nline\nsecond  ");
		expect(sm.getSessionName()).toBe("first line second");
		expect((sm.getLeafEntry() as { name?: string }).name).toBe("first line second");
		const named = sm.getLeafId()!;
		sm.appendSessionInfo("later");
		sm.branch(named);
		expect(sm.getSessionName()).toBe("later");
		sm.appendSessionInfo("   ");
		expect(sm.getSessionName()).toBeUndefined();
	});

	it("appendMessage refuses derived summary roles with a pointer to the right method", () => {
		const sm = SessionManager.inMemory();
		expectSettleError(
			() => sm.appendMessage({ role: "compactionSummary", summary: "s", tokensBefore: 1, timestamp: 1 }),
			"INVALID_ARGUMENT",
			/appendCompaction\(\)/,
		);
		expectSettleError(
			() => sm.appendMessage({ role: "branchSummary", summary: "s", fromId: "x", timestamp: 1 }),
			"INVALID_ARGUMENT",
			/branchWithSummary\(\)/,
		);
		expect(sm.getEntries()).toEqual([]);
	});

	it("appendCompaction with a null firstKeptEntryId keeps nothing before it (points at itself)", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("old"));
		const id = sm.appendCompaction("sum", null, 10);
		expect(sm.getEntry(id)).toMatchObject({ type: "compaction", firstKeptEntryId: id });
		expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["compactionSummary"]);
	});
});

describe("tree (D.3)", () => {
	it("appends as children of the leaf; branch() makes the next append a sibling", () => {
		const sm = SessionManager.inMemory();
		const u1 = sm.appendMessage(user("1"));
		const a1 = sm.appendMessage(assistant("2"));
		sm.branch(u1);
		expect(sm.getLeafId()).toBe(u1);
		const a2 = sm.appendMessage(assistant("alt"));
		expect(sm.getEntry(a2)?.parentId).toBe(u1);
		expect(sm.getChildren(u1).map((e) => e.id)).toEqual([a1, a2]);
		expect(sm.getChildren(null).map((e) => e.id)).toEqual([u1]);
		expect(sm.getBranch().map((e) => e.id)).toEqual([u1, a2]);
		expect(sm.getBranch(a1).map((e) => e.id)).toEqual([u1, a1]);
		expect(sm.getBranch("nope")).toEqual([]);
		expect(sm.getLeafEntry()?.id).toBe(a2);
	});

	it("branch() to an unknown id throws pi's message", () => {
		const sm = SessionManager.inMemory();
		expectSettleError(() => sm.branch("deadbeef"), "NOT_FOUND", "Entry deadbeef not found");
	});

	it("resetLeaf() makes the next append a new root", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("1"));
		sm.resetLeaf();
		expect(sm.getLeafId()).toBeNull();
		expect(sm.getLeafEntry()).toBeUndefined();
		expect(sm.buildSessionContext()).toEqual({ messages: [], thinkingLevel: "off", model: null });
		const root2 = sm.appendMessage(user("2"));
		expect(sm.getEntry(root2)?.parentId).toBeNull();
		expect(sm.getTree()).toHaveLength(2);
	});

	it("on load the leaf is the last entry in the file, not the deepest", () => {
		const dir = tempDir();
		const sm = SessionManager.create(dir, dir);
		const u1 = sm.appendMessage(user("1"));
		sm.appendMessage(assistant("2"));
		sm.appendMessage(user("3"));
		sm.branch(u1);
		const shallow = sm.appendMessage(assistant("alt"));
		sm.close();
		const reopened = track(SessionManager.open(sm.getSessionFile()!));
		expect(reopened.getLeafId()).toBe(shallow);
		expect(reopened.buildSessionContext().messages).toEqual([user("1"), assistant("alt")]);
	});

	it("branchWithSummary records the previous leaf (or root) and appends under the target", () => {
		const sm = SessionManager.inMemory();
		const u1 = sm.appendMessage(user("1"));
		const a1 = sm.appendMessage(assistant("2"));
		const s1 = sm.branchWithSummary(u1, "tried something", { readFiles: ["x"], modifiedFiles: [] }, true);
		expect(sm.getEntry(s1)).toMatchObject({
			type: "branch_summary",
			parentId: u1,
			fromId: a1,
			summary: "tried something",
			fromHook: true,
		});
		expect(sm.getLeafId()).toBe(s1);
		sm.resetLeaf();
		const s2 = sm.branchWithSummary(null, "from nothing");
		expect(sm.getEntry(s2)).toMatchObject({ parentId: null, fromId: "root" });
		expectSettleError(() => sm.branchWithSummary("nope", "x"), "NOT_FOUND", "Entry nope not found");
	});

	it("labels: latest change wins, undefined or empty clears, unknown target throws", () => {
		const sm = SessionManager.inMemory();
		const u1 = sm.appendMessage(user("1"));
		sm.appendLabelChange(u1, "a");
		sm.appendLabelChange(u1, "b");
		expect(sm.getLabel(u1)).toBe("b");
		sm.appendLabelChange(u1, undefined);
		expect(sm.getLabel(u1)).toBeUndefined();
		sm.appendLabelChange(u1, "c");
		sm.appendLabelChange(u1, "");
		expect(sm.getLabel(u1)).toBeUndefined();
		expectSettleError(() => sm.appendLabelChange("missing1", "x"), "NOT_FOUND", "Entry missing1 not found");
		const cleared = sm.getEntries().filter((e): e is LabelEntry => e.type === "label")[2]!;
		expect("label" in cleared && cleared.label).toBeUndefined();
	});

	it("getTree: roots for null/self/missing parents, children oldest first, resolved labels", () => {
		const dir = tempDir();
		const file = join(dir, "t.jsonl");
		const entry = (id: string, parentId: string | null, ts: string, extra: object = {}) =>
			JSON.stringify({ type: "custom", id, parentId, timestamp: ts, customType: "t", ...extra });
		writeFileSync(
			file,
			[
				JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2024-01-01T00:00:00.000Z", cwd: "/" }),
				entry("r", null, "2024-01-01T00:00:01.000Z"),
				entry("late", "r", "2024-01-01T00:00:09.000Z"),
				entry("early", "r", "2024-01-01T00:00:02.000Z"),
				entry("self", "self", "2024-01-01T00:00:03.000Z"),
				entry("orphan", "gone", "2024-01-01T00:00:04.000Z"),
				JSON.stringify({
					type: "label",
					id: "l1",
					parentId: "early",
					timestamp: "2024-01-01T00:00:05.000Z",
					targetId: "early",
					label: "mark",
				}),
			].join("\n") + "\n",
		);
		const sm = track(SessionManager.open(file));
		const tree = sm.getTree();
		expect(tree.map((n) => n.entry.id)).toEqual(["r", "self", "orphan"]);
		expect(tree[0]!.children.map((n) => n.entry.id)).toEqual(["early", "late"]);
		const early = tree[0]!.children[0]!;
		expect(early.label).toBe("mark");
		expect(early.labelTimestamp).toBe("2024-01-01T00:00:05.000Z");
		expect(early.children.map((n) => n.entry.id)).toEqual(["l1"]);
		expect(sm.getDiagnostics()).toEqual([
			expect.objectContaining({ kind: "missing_parent", message: expect.stringContaining("orphan") }),
		]);
		// an orphan's context is just itself
		sm.branch("orphan");
		expect(sm.getBranch().map((e) => e.id)).toEqual(["orphan"]);
	});
});

describe("createBranchedSession (D.5)", () => {
	function labelled() {
		const dir = tempDir();
		const sm = track(SessionManager.create("/cwd", dir));
		const u1 = sm.appendMessage(user("1"));
		sm.appendLabelChange(u1, "first");
		const a1 = sm.appendMessage(assistant("2"));
		const u2 = sm.appendMessage(user("3"));
		sm.appendLabelChange(u2, "off-path");
		sm.branch(a1);
		const u3 = sm.appendMessage(user("3b"));
		sm.appendLabelChange(a1, "second");
		return { dir, sm, u1, a1, u2, u3 };
	}

	it("extracts the path into a new file, drops label entries and re-emits path labels at the end", () => {
		const { dir, sm, u1, a1, u3 } = labelled();
		const oldFile = sm.getSessionFile()!;
		const oldId = sm.getSessionId();
		const labelTimestamps = new Map(
			sm
				.getEntries()
				.filter((e): e is LabelEntry => e.type === "label")
				.map((e) => [e.targetId, e.timestamp]),
		);
		const newFile = sm.createBranchedSession(sm.getLeafId()!);
		expect(newFile).toBe(sm.getSessionFile());
		expect(newFile).not.toBe(oldFile);
		expect(sm.getSessionId()).not.toBe(oldId);
		expect(sm.getHeader()?.parentSession).toBe(oldFile);
		expect(sm.getSessionDir()).toBe(dir);
		const entries = sm.getEntries();
		expect(entries.map((e) => e.id).slice(0, 3)).toEqual([u1, a1, u3]);
		expect(entries.slice(0, 3).map((e) => e.parentId)).toEqual([null, u1, a1]);
		const labels = entries.slice(3) as LabelEntry[];
		expect(labels.map((l) => [l.targetId, l.label])).toEqual([
			[u1, "first"],
			[a1, "second"],
		]);
		expect(labels.map((l) => l.timestamp)).toEqual([labelTimestamps.get(u1), labelTimestamps.get(a1)]);
		expect(labels.map((l) => l.parentId)).toEqual([u3, labels[0]!.id]);
		expect(sm.getLabel(u1)).toBe("first");
		expect(sm.getLeafId()).toBe(labels[1]!.id);
		// Written now because the path holds a conversation message; the old file is unchanged.
		expect(lines(newFile!)).toEqual([sm.getHeader(), ...entries]);
		expect(lines(oldFile)).toHaveLength(8);
		sm.appendMessage(assistant("more"));
		expect(lines(newFile!)).toHaveLength(7);
	});

	it("re-links a compaction's firstKeptEntryId that pointed at a dropped label", () => {
		const sm = SessionManager.inMemory();
		const u1 = sm.appendMessage(user("1"));
		const label = sm.appendLabelChange(u1, "x");
		const a1 = sm.appendMessage(assistant("2"));
		const c = sm.appendCompaction("sum", label, 5);
		sm.createBranchedSession(c);
		const compaction = sm.getEntry(c);
		expect(compaction).toMatchObject({ firstKeptEntryId: a1, parentId: a1 });
		expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["compactionSummary", "assistant"]);
	});

	it("is lazy when the path has no conversation message", () => {
		const dir = tempDir();
		const sm = track(SessionManager.create("/cwd", dir));
		const m = sm.appendModelChange("p", "m");
		sm.appendMessage(user("1"));
		const newFile = sm.createBranchedSession(m)!;
		expect(existsSync(newFile)).toBe(false);
		sm.appendMessage(user("now"));
		expect(lines(newFile).map((l) => l.type)).toEqual(["session", "model_change", "message"]);
	});

	it("in memory replaces the entries in place and returns undefined", () => {
		const sm = SessionManager.inMemory();
		const u1 = sm.appendMessage(user("1"));
		sm.appendLabelChange(u1, "l");
		sm.appendMessage(assistant("2"));
		sm.branch(u1);
		sm.appendMessage(assistant("alt"));
		const before = sm.getSessionId();
		expect(sm.createBranchedSession(sm.getLeafId()!)).toBeUndefined();
		expect(sm.getSessionId()).not.toBe(before);
		expect(sm.getHeader()?.parentSession).toBeUndefined();
		expect(sm.getEntries().map((e) => e.type)).toEqual(["message", "message", "label"]);
	});

	it("throws for an unknown entry", () => {
		const sm = SessionManager.inMemory();
		expectSettleError(() => sm.createBranchedSession("nope"), "NOT_FOUND", "Entry nope not found");
	});
});

describe("forkFrom (D.5)", () => {
	it("copies every entry of the source into a new file for the target cwd", () => {
		const dir = tempDir();
		const src = SessionManager.create("/src", dir);
		const u1 = src.appendMessage(user("1"));
		src.appendMessage(assistant("2"));
		src.branch(u1);
		src.appendMessage(assistant("alt"));
		src.close();
		const target = tempDir();
		const fork = track(SessionManager.forkFrom(src.getSessionFile()!, "/dst", target, { id: "fork-1" }));
		expect(fork.getSessionId()).toBe("fork-1");
		expect(fork.getCwd()).toBe("/dst");
		expect(fork.getSessionDir()).toBe(target);
		expect(fork.getHeader()?.parentSession).toBe(src.getSessionFile());
		expect(fork.getEntries()).toEqual(src.getEntries());
		expect(fork.getLeafId()).toBe(src.getLeafId());
		expect(lines(fork.getSessionFile()!)).toEqual([fork.getHeader(), ...src.getEntries()]);
		// the source can be opened (it is not locked by the fork)
		track(SessionManager.open(src.getSessionFile()!));
	});

	it("refuses an empty, missing or invalid source with pi's message", () => {
		const dir = tempDir();
		const empty = join(dir, "empty.jsonl");
		writeFileSync(empty, "");
		const junk = join(dir, "junk.jsonl");
		writeFileSync(junk, "junk\n");
		for (const file of [empty, junk, join(dir, "missing.jsonl")]) {
			expectSettleError(
				() => SessionManager.forkFrom(file, dir, dir),
				"INVALID_SESSION_FILE",
				`Cannot fork: source session file is empty or invalid: ${file}`,
			);
		}
		expect(readdirSync(dir).sort()).toEqual(["empty.jsonl", "junk.jsonl"]);
	});
});

describe("lifecycle", () => {
	it("newSession starts over with a new id and file, keeping cwd and dir", () => {
		const dir = tempDir();
		const sm = track(SessionManager.create("/cwd", dir));
		sm.appendMessage(user("1"));
		const first = sm.getSessionFile();
		const file = sm.newSession({ parentSession: first });
		expect(file).toBe(sm.getSessionFile());
		expect(file).not.toBe(first);
		expect(sm.getEntries()).toEqual([]);
		expect(sm.getLeafId()).toBeNull();
		expect(sm.getHeader()?.parentSession).toBe(first);
		expect(sm.getCwd()).toBe("/cwd");
		// the first file is released: another manager can open it
		track(SessionManager.open(first!));
	});

	it("close() releases the lock; afterwards reads work and appends throw SESSION_CLOSED", () => {
		const dir = tempDir();
		const sm = SessionManager.create(dir, dir);
		sm.appendMessage(user("1"));
		const file = sm.getSessionFile()!;
		expect(existsSync(`${file}.lock`)).toBe(true);
		sm.close();
		sm.close();
		expect(sm.isClosed()).toBe(true);
		expect(existsSync(`${file}.lock`)).toBe(false);
		expect(sm.buildSessionContext().messages).toHaveLength(1);
		expectSettleError(() => sm.appendMessage(user("2")), "SESSION_CLOSED", /SessionManager\.open\(\)/);
		expectSettleError(() => sm.newSession(), "SESSION_CLOSED", /closed/);
		expect(lines(file)).toHaveLength(2);
		const memory = SessionManager.inMemory();
		memory.dispose();
		expectSettleError(() => memory.appendCustomEntry("x"), "SESSION_CLOSED", /closed/);
	});

	it("getEntries and getChildren return copies", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("1"));
		(sm.getEntries() as SessionEntry[]).pop();
		sm.getChildren(null).pop();
		expect(sm.getEntries()).toHaveLength(1);
		expect(sm.getChildren(null)).toHaveLength(1);
	});

	it("inMemory can preload entries (with a header, migrated; or without, under a new header)", () => {
		const withHeader = SessionManager.inMemory("/x", undefined, [
			{ type: "session", id: "old", timestamp: "2024-01-01T00:00:00.000Z", cwd: "/x" },
			{ type: "message", timestamp: "2024-01-01T00:00:01.000Z", message: user("v1") } as unknown as SessionEntry,
		]);
		expect(withHeader.getSessionId()).toBe("old");
		expect(withHeader.getHeader()?.version).toBe(3);
		expect(withHeader.getEntries()[0]!.id).toMatch(/^[0-9a-f]{8}$/);
		expect(withHeader.buildSessionContext().messages).toEqual([user("v1")]);
		const bare = SessionManager.inMemory("/x", { id: "given" }, withHeader.getEntries());
		expect(bare.getSessionId()).toBe("given");
		expect(bare.getEntries()).toEqual(withHeader.getEntries());
	});
});
