/**
 * Sessions saved under a `--cwd` link path, before `--cwd` was resolved through symlinks
 * (oh-my-pi#941, fixed by resolving it). Such a session sits in the session folder named after the
 * LINK (`<agent dir>/sessions/--<link path>--/`) and its header names the link path; `settle --cwd
 * <link>` now keys the project by the real path. The upgrade must not lose them: `-c` and
 * `--session <id-prefix>` given the same `--cwd <link>` still find them (the files are neither
 * moved nor rewritten), while new sessions go to the real path's folder.
 */
import { readdirSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getDefaultSessionDirPath } from "../../src/store/paths.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { persistedUserTexts } from "../pi-races/helpers.js";
import { assistant } from "../store/helpers.js";
import { runSettle, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-cwd-symlink-");

/** A guard against a hang only (a run takes about a second). */
const HANG_GUARD_MS = 60_000;

function settleIn(cwd: string, ...args: string[]): ReturnType<typeof runSettle> {
	return runSettle(args, { cwd, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS });
}

/**
 * A session as `settle --cwd <cwd>` saved it before: header cwd `cwd` (as given), in the default
 * folder named after `cwd`, one exchange. Its file's modification time is `mtime` (seconds).
 */
function savedSession(cwd: string, text: string, mtime: number): { id: string; file: string } {
	const manager = SessionManager.create(cwd, getDefaultSessionDirPath(cwd, cli.agentDir));
	// Its messages are as old as its file: -c and the lists go by the last message's time.
	manager.appendMessage({ role: "user", content: text, timestamp: mtime * 1000 });
	manager.appendMessage({ ...assistant(text), timestamp: mtime * 1000 });
	const file = manager.getSessionFile()!;
	const id = manager.getSessionId();
	manager.close();
	utimesSync(file, mtime, mtime);
	return { id, file };
}

function sessionFiles(): string[] {
	const sessions = join(cli.agentDir, "sessions");
	return readdirSync(sessions, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(sessions, name));
}

describe("oh-my-pi#941 follow-up: sessions saved under a --cwd link path before --cwd was resolved", () => {
	it("oh-my-pi#941: settle --cwd <link> -c continues the session saved in the link-named folder, in its own file", () => {
		const link = join(cli.dir, "link");
		symlinkSync(cli.project, link);
		const old = savedSession(link, "before the upgrade", 1_000_000);
		const run = settleIn(cli.dir, "--faux", "--cwd", link, "-c", "-p", "after the upgrade");
		expect(run).toEqual({ code: 0, stdout: "after the upgrade\n", stderr: "" });
		// Continued in place: no new file, nothing moved.
		expect(sessionFiles()).toEqual([old.file]);
		expect(persistedUserTexts(old.file)).toEqual(["before the upgrade", "after the upgrade"]);
	});

	it("oh-my-pi#941: -c takes the newer of the link-named and the real folder's latest sessions", () => {
		const link = join(cli.dir, "link");
		symlinkSync(cli.project, link);
		const old = savedSession(link, "under the link", 1_000_000);
		const real = savedSession(cli.project, "under the real path", 2_000_000);
		expect(settleIn(cli.dir, "--faux", "--cwd", link, "-c", "-p", "one").code).toBe(0);
		expect(persistedUserTexts(real.file)).toEqual(["under the real path", "one"]);
		expect(settleIn(cli.dir, "--faux", "--cwd", link, "--session", old.file, "-p", "newer under the link").code).toBe(
			0,
		);
		expect(settleIn(cli.dir, "--faux", "--cwd", link, "-c", "-p", "two").code).toBe(0);
		expect(persistedUserTexts(old.file)).toEqual(["under the link", "newer under the link", "two"]);
		expect(persistedUserTexts(real.file)).toEqual(["under the real path", "one"]);
	});

	it("oh-my-pi#941: settle --cwd <link> --session <id-prefix> opens the session saved in the link-named folder", () => {
		const link = join(cli.dir, "link");
		symlinkSync(cli.project, link);
		const old = savedSession(link, "before the upgrade", 1_000_000);
		for (const id of [old.id, old.id.slice(0, 8)]) {
			const run = settleIn(cli.dir, "--faux", "--cwd", link, "--session", id, "-p", `by ${id}`);
			expect(run).toEqual({ code: 0, stdout: `by ${id}\n`, stderr: "" });
		}
		expect(sessionFiles()).toEqual([old.file]);
		expect(persistedUserTexts(old.file)).toEqual(["before the upgrade", `by ${old.id}`, `by ${old.id.slice(0, 8)}`]);
	});

	it("oh-my-pi#941: a new session of settle --cwd <link> goes to the real path's folder; --session-dir keeps only its own", () => {
		const link = join(cli.dir, "link");
		symlinkSync(cli.project, link);
		const old = savedSession(link, "before the upgrade", 1_000_000);
		expect(settleIn(cli.dir, "--faux", "--cwd", link, "-p", "new").code).toBe(0);
		const created = sessionFiles().filter((file) => file !== old.file);
		expect(created).toHaveLength(1);
		expect(created[0]!.startsWith(getDefaultSessionDirPath(cli.project, cli.agentDir))).toBe(true);
		// A chosen session folder is the only one looked in: the link-named folder's session is not continued.
		const own = join(cli.dir, "own-sessions");
		expect(settleIn(cli.dir, "--faux", "--cwd", link, "--session-dir", own, "-c", "-p", "elsewhere").code).toBe(0);
		expect(persistedUserTexts(old.file)).toEqual(["before the upgrade"]);
		expect(readdirSync(own)).toHaveLength(1);
	});

	it("oh-my-pi#941: /resume in settle --cwd <link> -i lists the link-named folder's session with the project's and resumes it by id prefix, in its own file", async () => {
		const link = join(cli.dir, "link");
		symlinkSync(cli.project, link);
		const old = savedSession(link, "before the upgrade", 1_000_000);
		const real = savedSession(cli.project, "under the real path", 2_000_000);
		const chat = new Repl(["--faux", "--cwd", link], { cwd: cli.dir, agentDir: cli.agentDir });
		await chat.idle(0);
		const list = await chat.say("/resume");
		expect(list).toContain("Sessions of this project, newest first");
		expect(list).toContain(`  ${real.id}  `);
		expect(list).toContain(`  ${old.id}  `);
		// All but the last character: a prefix, which the real folder's session cannot share.
		const resumed = await chat.say(`/resume ${old.id.slice(0, -1)}`);
		expect(resumed).toContain(`Resumed ${old.id} (2 messages): ${old.file}\n`);
		await chat.say("after the upgrade", "after the upgrade\n>");
		// Resumed as this project's (not the link path's): both folders are listed again after the switch.
		const again = await chat.say("/resume");
		expect(again).toContain(`  ${old.id}  `);
		expect(again).toContain(`  ${real.id}  `);
		expect(await chat.end()).toBe(0);
		expect(persistedUserTexts(old.file)).toEqual(["before the upgrade", "after the upgrade"]);
	});
	it("oh-my-pi#941: settle --cwd <link> --session <file in the link-named folder> -i: /resume still lists the real path's folder's sessions", async () => {
		const link = join(cli.dir, "link");
		symlinkSync(cli.project, link);
		const old = savedSession(link, "before the upgrade", 1_000_000);
		const real = savedSession(cli.project, "under the real path", 2_000_000);
		const chat = new Repl(["--faux", "--cwd", link, "--session", old.file], { cwd: cli.dir, agentDir: cli.agentDir });
		await chat.idle(0);
		const list = await chat.say("/resume");
		expect(list).toContain(`  ${real.id}  `);
		expect(list).toContain(`  ${old.id}  `);
		expect(await chat.end()).toBe(0);
	});

	it("oh-my-pi#941: /new after resuming a link-named folder's session (by /resume or --session) saves the new session in the real path's folder", async () => {
		const link = join(cli.dir, "link");
		symlinkSync(cli.project, link);
		const old = savedSession(link, "before the upgrade", 1_000_000);
		const realFolder = getDefaultSessionDirPath(cli.project, cli.agentDir);
		const newFiles = () => sessionFiles().filter((file) => file !== old.file);
		const resumed = new Repl(["--faux", "--cwd", link], { cwd: cli.dir, agentDir: cli.agentDir });
		await resumed.idle(0);
		expect(await resumed.say(`/resume ${old.id}`)).toContain(`Resumed ${old.id} `);
		await resumed.say("/new");
		await resumed.say("after /resume", "after /resume\n>");
		expect(await resumed.end()).toBe(0);
		expect(newFiles()).toHaveLength(1);
		expect(newFiles()[0]!.startsWith(`${realFolder}/`)).toBe(true);
		expect(persistedUserTexts(newFiles()[0]!)).toEqual(["after /resume"]);
		const byId = new Repl(["--faux", "--cwd", link, "--session", old.id], { cwd: cli.dir, agentDir: cli.agentDir });
		await byId.idle(0);
		await byId.say("/new");
		await byId.say("after --session", "after --session\n>");
		expect(await byId.end()).toBe(0);
		expect(newFiles()).toHaveLength(2);
		expect(newFiles().every((file) => file.startsWith(`${realFolder}/`))).toBe(true);
		expect(persistedUserTexts(old.file)).toEqual(["before the upgrade"]);
	});
});
