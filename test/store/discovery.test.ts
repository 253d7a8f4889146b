import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findLatestActiveSession, readSessionHeader } from "../../src/store/discovery.js";
import { getDefaultSessionDirPath } from "../../src/store/paths.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, tempDir, track, user } from "./helpers.js";

/** A closed session in `dir` for `cwd`; `ageSeconds` back-dates its mtime. */
function session(dir: string, cwd: string, texts: string[], options: { name?: string; ageSeconds?: number } = {}) {
	const sm = SessionManager.create(cwd, dir);
	texts.forEach((text, i) => {
		sm.appendMessage(i % 2 === 0 ? user(text, 1_700_000_000_000 + i * 1000) : assistant(text));
	});
	if (options.name !== undefined) sm.appendSessionInfo(options.name);
	sm.close();
	const file = sm.getSessionFile()!;
	if (options.ageSeconds) {
		const t = new Date(Date.now() - options.ageSeconds * 1000);
		utimesSync(file, t, t);
	}
	return { id: sm.getSessionId(), file };
}

describe("finding sessions", () => {
	it("findLatestActiveSession takes a valid .jsonl of that cwd: a newer file without a session header is skipped", async () => {
		const dir = tempDir();
		const old = session(dir, "/a", ["old"], { ageSeconds: 300 });
		const mid = session(dir, "/b", ["mid"], { ageSeconds: 200 });
		writeFileSync(join(dir, "junk.jsonl"), "not a session\n");
		writeFileSync(join(dir, "notes.txt"), "ignored");
		expect((await findLatestActiveSession(dir, "/b"))?.path).toBe(mid.file);
		expect((await findLatestActiveSession(dir, "/a"))?.path).toBe(old.file);
		expect(await findLatestActiveSession(join(dir, "missing"), "/a")).toBeNull();
	});

	it("findById finds a session by header id, reading only headers", () => {
		const dir = tempDir();
		const a = session(dir, "/a", ["x"]);
		session(dir, "/b", ["y"]);
		expect(SessionManager.findById("/a", a.id, dir)).toBe(a.file);
		// a custom dir that is not the cwd's default: only sessions of that cwd
		expect(SessionManager.findById("/b", a.id, dir)).toBeUndefined();
		expect(SessionManager.findById("/a", "nope", dir)).toBeUndefined();
		expect(readSessionHeader(a.file)?.id).toBe(a.id);
		expect(readSessionHeader(join(dir, "missing.jsonl"))).toBeNull();
	});

	it("continueRecent opens the most recent session, or starts a new one", () => {
		const dir = tempDir();
		const empty = track(SessionManager.continueRecent("/a", dir));
		expect(empty.getEntries()).toEqual([]);
		empty.close();
		session(dir, "/a", ["older"], { ageSeconds: 100 });
		const recent = session(dir, "/a", ["newer"]);
		session(dir, "/other", ["other cwd"], { ageSeconds: -100 });
		const continued = track(SessionManager.continueRecent("/a", dir));
		expect(continued.getSessionFile()).toBe(recent.file);
		expect(continued.getCwd()).toBe("/a");
		expect(continued.buildSessionContext().messages).toEqual([user("newer", 1_700_000_000_000)]);
	});

	it("list summarises the sessions of a cwd, newest first", async () => {
		const dir = tempDir();
		const first = session(dir, "/a", ["hello there", "hi!", "second question"], { name: " Named \n" });
		// a session without a conversation message was never written, so it is not listed
		session(dir, "/a", [], { name: "never written" });
		session(dir, "/b", ["elsewhere"]);
		writeFileSync(join(dir, "junk.jsonl"), "junk\n");
		const progress: number[] = [];
		const infos = await SessionManager.list("/a", dir, (loaded) => progress.push(loaded));
		expect(infos.map((i) => i.id)).toEqual([first.id]);
		expect(progress.sort()).toEqual([1, 2, 3]);
		const [info] = infos;
		expect(info).toMatchObject({
			path: first.file,
			cwd: "/a",
			name: "Named",
			messageCount: 3,
			firstMessage: "hello there",
			allMessagesText: "hello there hi! second question",
		});
		expect(info!.modified.getTime()).toBe(1_700_000_000_000 + 2000);
		expect(info!.created.toISOString()).toBe(
			SessionManager.open(first.file, undefined, undefined, { readOnly: true }).getHeader()?.timestamp,
		);
	});

	it("pi#4122: list and listAll with { messagesText: false } keep no message text (allMessagesText is empty), everything else as without it", async () => {
		const dir = tempDir();
		const big = "x".repeat(100_000);
		const large = session(dir, "/a", ["hello there", big, "second question"], { name: "Big" });
		const small = session(dir, "/a", ["small", "answer"]);
		const other = session(dir, "/b", ["elsewhere"]);
		const full = await SessionManager.list("/a", { sessionDir: dir });
		const light = await SessionManager.list("/a", { sessionDir: dir, messagesText: false });
		expect(full.map((info) => info.path).sort()).toEqual([large.file, small.file].sort());
		expect(full.find((info) => info.path === large.file)!.allMessagesText).toBe(`hello there ${big} second question`);
		expect(light).toEqual(full.map((info) => ({ ...info, allMessagesText: "" })));
		expect(await SessionManager.list("/a", { sessionDir: dir, messagesText: true })).toEqual(full);

		const all = await SessionManager.listAll({ sessionDir: dir });
		expect(all.map((info) => info.path).sort()).toEqual([large.file, small.file, other.file].sort());
		expect(await SessionManager.listAll({ sessionDir: dir, messagesText: false })).toEqual(
			all.map((info) => ({ ...info, allMessagesText: "" })),
		);
		await expect(SessionManager.listAll({ sessionDir: dir, messagesText: "no" as never })).rejects.toMatchObject({
			code: "INVALID_ARGUMENT",
			message: 'SessionManager.listAll: messagesText must be true or false, got "no".',
		});
	});

	describe("with the default agent dir", () => {
		let saved: string | undefined;
		beforeEach(() => {
			saved = process.env.SETTLE_AGENT_DIR;
			process.env.SETTLE_AGENT_DIR = tempDir();
		});
		afterEach(() => {
			if (saved === undefined) delete process.env.SETTLE_AGENT_DIR;
			else process.env.SETTLE_AGENT_DIR = saved;
		});

		it("list uses the cwd's directory and listAll every cwd's, newest first", async () => {
			const a = session(getDefaultSessionDirPath("/proj/a"), "/proj/a", ["in a"], { ageSeconds: 50 });
			const b = session(getDefaultSessionDirPath("/proj/b"), "/proj/b", ["in b"]);
			expect((await SessionManager.list("/proj/a")).map((i) => i.path)).toEqual([a.file]);
			const all = await SessionManager.listAll();
			expect(all.map((i) => i.path).sort()).toEqual([a.file, b.file].sort());
			expect((await SessionManager.listAll(getDefaultSessionDirPath("/proj/b"))).map((i) => i.path)).toEqual([b.file]);
			expect(SessionManager.findById("/proj/b", b.id)).toBe(b.file);
			expect(track(SessionManager.continueRecent("/proj/a")).getSessionFile()).toBe(a.file);
		});

		it("openclaw#96542: two cwds that share a default dir (`client/app`, `client-app`) never see each other's sessions", async () => {
			const dir = getDefaultSessionDirPath("/dev/client-app");
			expect(getDefaultSessionDirPath("/dev/client/app")).toBe(dir);
			const mine = session(dir, "/dev/client-app", ["client-app work"], { ageSeconds: 50 });
			const other = session(dir, "/dev/client/app", ["client/app work"]);
			// The newest file of the shared dir belongs to the other project: not continued, listed or found.
			expect(track(SessionManager.continueRecent("/dev/client-app")).getSessionFile()).toBe(mine.file);
			expect((await SessionManager.list("/dev/client-app")).map((i) => i.path)).toEqual([mine.file]);
			expect(SessionManager.findById("/dev/client-app", other.id)).toBeUndefined();
			expect(SessionManager.findById("/dev/client/app", other.id)).toBe(other.file);
		});
	});

	describe("settle -c reads the session it continues once", () => {
		/** A closed session of /a whose mtime is a whole second (utimes can put it back exactly). */
		function settledSession(dir: string, texts: string[]) {
			const saved = session(dir, "/a", texts);
			const at = new Date(Math.floor(Date.now() / 1000) * 1000);
			utimesSync(saved.file, at, at);
			return { ...saved, at };
		}

		it("the session -c picks is opened from the read that picked it: while its size and mtime are unchanged it is not read again", async () => {
			const dir = tempDir();
			const picked = settledSession(dir, ["first question", "first answer"]);
			const latest = await findLatestActiveSession(dir, "/a");
			expect(latest?.path).toBe(picked.file);
			// Same size, same mtime, other bytes: only a second read would see "FIRST".
			writeFileSync(picked.file, readFileSync(picked.file, "utf8").replace("first question", "FIRST question"));
			utimesSync(picked.file, picked.at, picked.at);
			expect(statSync(picked.file).mtimeMs).toBe(latest!.read.mtimeMs);
			const opened = track(SessionManager.openReadAhead(latest!.read, dir, "/a"));
			expect(opened.buildSessionContext().messages[0]).toEqual(user("first question", 1_700_000_000_000));
		});

		it("a message another process appended between -c's pick and its open is opened too, and the next message follows it", async () => {
			const dir = tempDir();
			const picked = settledSession(dir, ["first question", "first answer"]);
			const latest = await findLatestActiveSession(dir, "/a");
			const other = SessionManager.open(picked.file);
			other.appendMessage(user("appended meanwhile", 1_700_000_100_000));
			other.close();
			const opened = track(SessionManager.openReadAhead(latest!.read, dir, "/a"));
			opened.appendMessage(assistant("after it"));
			opened.close();
			// Reopened from the file: the conversation that ends at "after it" runs through the appended message.
			const reopened = track(SessionManager.open(picked.file, undefined, undefined, { readOnly: true }));
			const texts = reopened
				.buildSessionContext()
				.messages.map((message) => ("content" in message ? message.content : ""))
				.map((content) => (typeof content === "string" ? content : (content[0] as { text: string }).text));
			expect(texts).toEqual(["first question", "first answer", "appended meanwhile", "after it"]);
		});
	});
});
