/**
 * A session file written by a newer version, replayed against Settle with real `settle` child
 * processes on a real session file.
 * pi#9426: pi opened a session whose header said `"version": 4` (newer than its v3), continued the
 * conversation and appended v3 entries to it, without a word: a newer pi reusing a field with other
 * meaning would then read entries an older pi wrote with the old one. Settle refuses to write such a
 * file and changes none of its bytes; but its reason, made for the SDK, told a command-line user to
 * "open it with { readOnly: true }", which no `settle` option does. What the user should see: exit 3,
 * the file unchanged, and in command-line terms what to do — upgrade Settle, or read the file with
 * `settle --export`, which still shows the entries this version knows.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { RESUME_QUESTION, Repl } from "../cli/interactive.helpers.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-newer-format-");

function settle(...args: string[]) {
	return runSettle(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

/** A session of this project whose header a newer version wrote (`"version": 4`), as pi#9426 made it. */
function sessionOfNewerVersion(): string {
	expect(settle("-p", "remember the word heron").code).toBe(0);
	const [file] = sessionFilesUnder(cli.agentDir);
	const text = readFileSync(file!, "utf8");
	writeFileSync(file!, text.replace('"version":3', '"version":4'));
	return file!;
}

describe("pi#9426: a session file of a newer format version", () => {
	it("pi#9426: `settle -p --session <file>` and `settle -p -c` refuse it (exit 3), change none of its bytes, and say what to do in command-line terms", () => {
		const file = sessionOfNewerVersion();
		const before = readFileSync(file, "utf8");
		for (const args of [
			["-p", "--session", file, "next"],
			["-p", "-c", "next"],
		]) {
			const run = settle(...args);
			expect(run.code).toBe(3);
			expect(run.stdout).toBe("");
			expect(run.stderr).toContain(`Session file ${file} uses session format v4`);
			expect(run.stderr).toContain("Upgrade Settle to continue it");
			expect(run.stderr).toContain(`settle --export ${file}`);
			expect(run.stderr).not.toContain("readOnly");
			expect(readFileSync(file, "utf8")).toBe(before);
		}
		expect(sessionFilesUnder(cli.agentDir)).toEqual([file]);
	});

	it("pi#9426: `settle -p --fork <file>` refuses it too (exit 3): a fork would copy its entries under a v3 header, to be read with this version's meaning by every later reader; no session file is made", () => {
		const file = sessionOfNewerVersion();
		const before = readFileSync(file, "utf8");
		const run = settle("-p", "--fork", file, "next");
		expect(run.code).toBe(3);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(`Session file ${file} uses session format v4`);
		expect(run.stderr).toContain(`settle --export ${file}`);
		expect(run.stderr).not.toContain("readOnly");
		expect(readFileSync(file, "utf8")).toBe(before);
		expect(sessionFilesUnder(cli.agentDir)).toEqual([file]);
	});

	it("pi#9426: `SessionManager.forkFrom` of it throws INVALID_SESSION_FILE naming the file and its version, and writes nothing", () => {
		const file = sessionOfNewerVersion();
		const forks = join(cli.dir, "forks");
		let thrown: unknown;
		try {
			SessionManager.forkFrom(file, cli.project, { sessionDir: forks });
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(SettleError);
		expect((thrown as SettleError).code).toBe("INVALID_SESSION_FILE");
		expect((thrown as SettleError).details).toMatchObject({ path: file, version: 4 });
		expect(existsSync(forks) ? readdirSync(forks) : []).toEqual([]);
	});

	it("pi#9426: in a chat, the `-r` pick, `/resume <id>` and `/import` of a copy refuse it in the same terms; the chat goes on in its own session", async () => {
		const file = sessionOfNewerVersion();
		const before = readFileSync(file, "utf8");
		const id = JSON.parse(before.split("\n")[0]!).id as string;
		const chat = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.until(RESUME_QUESTION);
		let from = chat.mark();
		chat.send("1");
		const picked = await chat.until(RESUME_QUESTION, from);
		from = chat.mark();
		chat.send("");
		await chat.idle(from, "Starting a new session.");
		const resumed = await chat.say(`/resume ${id}`);
		// /import of a copy kept elsewhere: refused the same way, and no copy left in the session folder.
		const shared = join(cli.dir, "shared.jsonl");
		copyFileSync(file, shared);
		from = chat.mark();
		chat.send(`/import ${shared}`);
		await chat.until("[y/N] ", from);
		const imported = (await chat.say("y")).replaceAll(shared, file);
		expect(existsSync(join(dirname(file), "shared.jsonl"))).toBe(false);
		for (const said of [picked, resumed, imported]) {
			expect(said).toContain(`Session file ${file} uses session format v4`);
			expect(said).toContain(`settle --export ${file}`);
			expect(said).not.toContain("readOnly");
			expect(said).not.toContain("Resumed");
		}
		expect(await chat.end()).toBe(0);
		expect(readFileSync(file, "utf8")).toBe(before);
	});

	it("pi#9426: `settle --export <file>`, as that message says, writes the conversation this version can read", () => {
		const file = sessionOfNewerVersion();
		const page = join(cli.dir, "page.html");
		const run = settle("--export", file, page);
		expect(run.code).toBe(0);
		expect(readFileSync(page, "utf8")).toContain("remember the word heron");
	});
});
