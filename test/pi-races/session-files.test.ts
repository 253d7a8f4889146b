/**
 * Reports about session files and what is made of them, replayed against Settle with real `settle`
 * processes and real JSONL files.
 *
 * kooky#37: a terminal integration took the session's identifier from its file name
 * (`<timestamp>_<uuid>`, the `.jsonl` cut off) and later ran `pi --session <that>`: "No session
 * found matching …" every time, though the session was there — pi matches `--session` against the
 * header's id only. What the user should see: the file's name (without `.jsonl`) resumes, or forks,
 * the session it names, as its id does.
 *
 * pi#7497: sessions kept in a project's own folder (`sessionDir: ".pi/sessions"`) and linked into
 * `~/.pi/agent/sessions/` with a symlink were never found by pi's listing across projects:
 * `Dirent.isDirectory()` is false for a symlink. What the user should see: a linked folder's
 * sessions are found like a real folder's, and a dangling link or a linked file breaks nothing.
 *
 * pi#6407: a host that saved a session's id and passed it back after a restart got a brand-new
 * session under that id once the file was gone (cleanup, a volume swap): no error, and over RPC no
 * sign that the past conversation was lost. oh-my-pi#11553: `--fork <path>` on a file that does not
 * exist started an empty session and answered, exit 0. What the user should see: both refused, with
 * a non-zero exit, a message naming what is missing, and no session file written.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-session-files-");
const settle = cli.settle;

/** The one session file of the project folder, and the id `settle --json` reported for it. */
function startSession(prompt: string): { id: string; stem: string; file: string } {
	const run = settle(["--faux", "--json", prompt]);
	expect(run.stderr).toBe("");
	expect(run.code).toBe(0);
	const id = (JSON.parse(run.stdout.split("\n")[0]!) as { id: string }).id;
	const folders = readdirSync(join(cli.agentDir, "sessions"));
	expect(folders).toHaveLength(1);
	const files = readdirSync(join(cli.agentDir, "sessions", folders[0]!)).filter((name) => name.endsWith(".jsonl"));
	const file = files.find((name) => name.includes(id));
	expect(file, files.join(", ")).toBeDefined();
	return { id, stem: file!.slice(0, -".jsonl".length), file: join(cli.agentDir, "sessions", folders[0]!, file!) };
}

/** The text of each user message in a session file, in order. */
function userPrompts(file: string): string[] {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: { text: string }[] } })
		.filter((entry) => entry.type === "message" && entry.message!.role === "user")
		.map((entry) => entry.message!.content[0]!.text);
}

describe("kooky#37: --session with the session file's name (timestamp_uuid) finds no session", () => {
	it("kooky#37: settle --session <file name without .jsonl> resumes that session, as its id does", () => {
		const { id, stem, file } = startSession("remember the word TANGERINE");
		expect(stem).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z_/);

		const resumed = settle(["--faux", "--json", "--session", stem, "which word?"]);
		expect(resumed.stderr).toBe("");
		expect(resumed.code).toBe(0);
		expect(JSON.parse(resumed.stdout.split("\n")[0]!)).toMatchObject({ type: "session", id });
		// The conversation continued in that file.
		expect(userPrompts(file)).toEqual(["remember the word TANGERINE", "which word?"]);
	});

	it("kooky#37: settle --fork <file name without .jsonl> forks that session into a new one", () => {
		const { id, stem } = startSession("remember the word PERSIMMON");
		const forked = settle(["--faux", "--json", "--fork", stem, "which word?"]);
		expect(forked.stderr).toBe("");
		expect(forked.code).toBe(0);
		const header = JSON.parse(forked.stdout.split("\n")[0]!) as { id: string; parentSession?: string };
		expect(header.id).not.toBe(id);
		expect(header.parentSession).toContain(stem);
	});

	it("kooky#37: settle --session (or --fork) <file name with .jsonl>, no folder, takes the session in the project's session folder instead of starting a new file in the cwd", () => {
		const { id, stem, file } = startSession("remember the word TANGERINE");
		const resumed = settle(["--faux", "--json", "--session", `${stem}.jsonl`, "which word?"]);
		expect(resumed.stderr).toBe("");
		expect(resumed.code).toBe(0);
		expect(JSON.parse(resumed.stdout.split("\n")[0]!)).toMatchObject({ type: "session", id });
		expect(userPrompts(file)).toEqual(["remember the word TANGERINE", "which word?"]);
		expect(readdirSync(cli.project)).toEqual([]);

		const forked = settle(["--faux", "--json", "--fork", `${stem}.jsonl`, "again"]);
		expect(forked.stderr).toBe("");
		expect(forked.code).toBe(0);
		expect(JSON.parse(forked.stdout.split("\n")[0]!)).toMatchObject({ parentSession: file });
	});

	it("kooky#37: a file name whose session is not there still says no session of this project has that id", () => {
		startSession("one session");
		const run = settle(["--faux", "-p", "--session", "2026-07-14T19-24-02-459Z_0000dead-beef", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("No session of this project has an id starting with 0000dead-beef ");
	});
});

describe("pi#7497: session discovery silently ignores symlinked folders in the global sessions folder", () => {
	it("pi#7497: settle --fork <id prefix> finds another project's session through a symlinked folder under <agentDir>/sessions, past a dangling link and a linked file", () => {
		const other = join(cli.dir, "other-project");
		const kept = join(other, ".pi", "sessions");
		mkdirSync(other);
		const there = settle(["--faux", "--json", "--cwd", other, "--session-dir", kept, "remember the word QUINCE"]);
		expect(there.stderr).toBe("");
		expect(there.code).toBe(0);
		const id = (JSON.parse(there.stdout.split("\n")[0]!) as { id: string }).id;

		const sessions = join(cli.agentDir, "sessions");
		mkdirSync(sessions, { recursive: true });
		symlinkSync(kept, join(sessions, "--other-project--"));
		symlinkSync(join(cli.dir, "gone"), join(sessions, "--gone--"));
		writeFileSync(join(cli.dir, "stray.txt"), "not a folder");
		symlinkSync(join(cli.dir, "stray.txt"), join(sessions, "--stray--"));

		const forked = settle(["--faux", "--json", "--fork", id.slice(0, 13), "which word?"]);
		expect(forked.stderr).toBe("");
		expect(forked.code).toBe(0);
		const header = JSON.parse(forked.stdout.split("\n")[0]!) as { id: string; parentSession?: string; cwd: string };
		expect(header.id).not.toBe(id);
		expect(header.cwd).toBe(cli.project);
		expect(header.parentSession).toContain(join(sessions, "--other-project--"));
	});
});

describe("pi#6407, oh-my-pi#11553: a session flag naming a session that is gone starts a fresh one silently", () => {
	it("pi#6407: settle --rpc --session <the id a host saved>, its file since removed: exit 2 before serving, nothing on stdout, the id named on stderr, no session created under it", () => {
		const { id, file } = startSession("remember the word QUINCE");
		rmSync(file);
		const run = settle(["--faux", "--rpc", "--session", id], '{"id":"s","type":"get_state"}\n');
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(`No session of this project has an id starting with ${id} `);
		const folder = join(cli.agentDir, "sessions", readdirSync(join(cli.agentDir, "sessions"))[0]!);
		expect(readdirSync(folder)).toEqual([]);
	});

	it("oh-my-pi#11553: settle -p --fork <a path with no file>: exit 3, the path named on stderr, nothing on stdout, no session file anywhere", () => {
		const missing = join(cli.dir, "gone", "2026-01-01T00-00-00-000Z_missing.jsonl");
		const run = settle(["--faux", "-p", "--fork", missing, "what did we decide?"]);
		expect(run.code).toBe(3);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(`--fork: ${missing} does not exist`);
		expect(existsSync(join(cli.agentDir, "sessions"))).toBe(false);
	});
});
