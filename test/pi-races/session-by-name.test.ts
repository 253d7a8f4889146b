/**
 * Opening a session by its name, replayed against Settle with real `settle` child processes on real
 * session files.
 *
 * pi#5018, pi#3070: scripts and terminal multiplexers relaunch agents with a stored command; `-c`
 * resumed the same latest session for each of them, and `--session <path>` went stale. The users
 * asked for `--session <name>`: the session named that way, found again. Settle's `--session` (and
 * `/resume`) takes a session's name when no id starts with it; when two sessions share it (a fork
 * keeps its name) it refuses, listing them, rather than pick one to append to.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, Repl, transcript } from "../cli/interactive.helpers.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-session-by-name-");

function settle(args: string[], input?: string) {
	return runSettle(["--faux", ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		...(input === undefined ? {} : { input }),
	});
}

/** A session saved by `settle -i` fed `prompt` then `/name <name>`: its file. */
function namedSession(prompt: string, name: string): string {
	const before = new Set(sessionFilesUnder(cli.agentDir));
	expect(settle(["-i"], `${prompt}\n/name ${name}\n`).code).toBe(0);
	const [file] = sessionFilesUnder(cli.agentDir).filter((path) => !before.has(path));
	return file!;
}

describe("pi#5018, pi#3070: a session found again by its name", () => {
	it("pi#5018: settle --session '<name>' -p continues the session with that name; a name two sessions share is refused listing both, and nothing is written", () => {
		const triage = namedSession("first triage", "nightly triage");
		const other = namedSession("unrelated work", "refactor");
		// The latest session is the other one: -c would not find the triage.
		const run = settle(["--session", "nightly triage", "-p", "second triage"]);
		expect(run).toMatchObject({ code: 0, stdout: "second triage\n" });
		expect(transcript(triage)).toEqual([
			"user: first triage",
			"assistant: first triage",
			"user: second triage",
			"assistant: second triage",
		]);
		expect(transcript(other)).toEqual(["user: unrelated work", "assistant: unrelated work"]);

		// A fork keeps the name: two sessions are named so, and neither is picked.
		expect(settle(["--fork", triage, "-p", "a forked triage"]).code).toBe(0);
		const bytes = sessionFilesUnder(cli.agentDir).map((file) => readFileSync(file, "utf8"));
		const ambiguous = settle(["--session", "nightly triage", "-p", "third triage"]);
		expect(ambiguous.code).not.toBe(0);
		expect(ambiguous.stderr).toContain('2 sessions of this project are named "nightly triage": ');
		expect(ambiguous.stderr).toContain("Give its id or a prefix of it.");
		expect(sessionFilesUnder(cli.agentDir).map((file) => readFileSync(file, "utf8"))).toEqual(bytes);
	});

	it("pi#3070: /resume <name> in settle -i switches to the session with that name, and the chat goes on in its file", async () => {
		const triage = namedSession("first triage", "nightly triage");
		namedSession("unrelated work", "refactor");
		const id = (JSON.parse(readFileSync(triage, "utf8").split("\n")[0]!) as { id: string }).id;
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/resume nightly triage")).toContain(`Resumed ${id} (`);
		await chat.say("second triage", "second triage\n>");
		expect(await chat.end()).toBe(0);
		expect(transcript(triage).slice(-2)).toEqual(["user: second triage", "assistant: second triage"]);
	});

	it("pi#5018: settle --session '<neither an id nor a name>' says that no id starts with it and no session is named so, that settle -r lists them; nothing is written", () => {
		const triage = namedSession("first triage", "nightly triage");
		const bytes = readFileSync(triage, "utf8");
		const run = settle(["--session", "weekly triage", "-p", "go on"]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("No session of this project has an id starting with weekly triage (in ");
		expect(run.stderr).toContain(', and none is named "weekly triage" (/name names a session). The latest: ');
		expect(run.stderr).toContain("(settle -r lists them all; settle --continue resumes the latest).");
		expect(sessionFilesUnder(cli.agentDir)).toEqual([triage]);
		expect(readFileSync(triage, "utf8")).toBe(bytes);
	});

	it("pi#3070: /resume <neither an id nor a name> in settle -i says no session is named so either, and the chat stays in its session", async () => {
		namedSession("first triage", "nightly triage");
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const refused = await chat.say("/resume weekly triage");
		expect(refused).toContain("Error: No session of this project has an id starting with weekly triage (in ");
		expect(refused).toContain(', and none is named "weekly triage" (/name names a session). The latest: ');
		expect(refused).toContain(" (/resume lists them).\n");
		await chat.say("still here", "still here\n>");
		expect(await chat.end()).toBe(0);
	});
});

describe("oh-my-pi#4696 (PR): a session's name that is also the name of a file or folder in the project", () => {
	it("oh-my-pi#4696: with a docs/ folder and an empty notes file in the project, --session docs, --session notes, /resume docs and --fork docs open the sessions so named; notes stays empty; a session file named by a bare word still opens", async () => {
		const docs = namedSession("write the docs", "docs");
		const notes = namedSession("take notes", "notes");
		mkdirSync(join(cli.project, "docs"));
		writeFileSync(join(cli.project, "notes"), "");

		expect(settle(["--session", "docs", "-p", "more docs"])).toMatchObject({ code: 0, stdout: "more docs\n" });
		expect(transcript(docs).slice(-2)).toEqual(["user: more docs", "assistant: more docs"]);
		expect(settle(["--session", "notes", "-p", "more notes"])).toMatchObject({ code: 0, stdout: "more notes\n" });
		expect(transcript(notes).slice(-2)).toEqual(["user: more notes", "assistant: more notes"]);
		expect(readFileSync(join(cli.project, "notes"), "utf8")).toBe("");

		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const docsId = (JSON.parse(readFileSync(docs, "utf8").split("\n")[0]!) as { id: string }).id;
		expect(await chat.say("/resume docs")).toContain(`Resumed ${docsId} (`);
		expect(await chat.end()).toBe(0);

		// The fork keeps the name: the last use of "docs" here.
		const before = new Set(sessionFilesUnder(cli.agentDir));
		expect(settle(["--fork", "docs", "-p", "docs, forked"])).toMatchObject({ code: 0, stdout: "docs, forked\n" });
		const [fork] = sessionFilesUnder(cli.agentDir).filter((path) => !before.has(path));
		expect(JSON.parse(readFileSync(fork!, "utf8").split("\n")[0]!)).toMatchObject({ parentSession: docs });
		expect(transcript(fork!).slice(0, 2)).toEqual(["user: write the docs", "assistant: write the docs"]);

		// A bare word naming a session file in the project is that file, as before.
		copyFileSync(notes, join(cli.project, "saved"));
		expect(settle(["--session", "saved", "-p", "from the copy"])).toMatchObject({ code: 0 });
		expect(transcript(join(cli.project, "saved")).slice(-2)).toEqual([
			"user: from the copy",
			"assistant: from the copy",
		]);
	});
});

describe("codex#30995, claude-code#61172, claude-code#82969: a name stays with the one session given it", () => {
	it("codex#30995: a session named MAIN in another project: settle --session MAIN here resumes nothing, says that project's session is named so and how to resume it there; no file is written", () => {
		const other = join(cli.dir, "other-project");
		mkdirSync(other);
		expect(
			runSettle(["--faux", "-i"], { cwd: other, agentDir: cli.agentDir, input: "other work\n/name MAIN\n" }).code,
		).toBe(0);
		const [main] = sessionFilesUnder(cli.agentDir);
		// A later session there, not named: not the one offered.
		expect(runSettle(["--faux", "-p", "later work"], { cwd: other, agentDir: cli.agentDir }).code).toBe(0);
		const files = sessionFilesUnder(cli.agentDir);
		const bytes = readFileSync(main!, "utf8");
		const id = (JSON.parse(bytes.split("\n")[0]!) as { id: string }).id;

		const run = settle(["--session", "MAIN", "-p", "go on"]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(', and none is named "MAIN" (/name names a session).');
		expect(run.stderr).toContain(`Session ${id} of the project ${other} is named "MAIN". To resume it there: `);
		expect(sessionFilesUnder(cli.agentDir)).toEqual(files);
		expect(readFileSync(main!, "utf8")).toBe(bytes);
	});

	it("claude-code#61172, claude-code#82969: /name foo, then /new: the new session has no name; settle --session foo finds the first session alone and goes on in it", async () => {
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const named = bannerSessionFile(chat.stdout);
		await chat.say("the named work", "the named work\n>");
		await chat.say("/name foo", "Session name: foo");
		const from = chat.mark();
		await chat.say("/new");
		await chat.say("unrelated work", "unrelated work\n>");
		expect(await chat.say("/name")).toContain("The session has no name.");
		expect(await chat.end()).toBe(0);
		const [fresh] = sessionFilesUnder(cli.agentDir).filter((file) => file !== named);
		expect(chat.stdout.slice(from)).not.toContain("foo");
		expect(readFileSync(fresh!, "utf8")).not.toContain('"session_info"');

		expect(settle(["--session", "foo", "-p", "more named work"])).toMatchObject({ code: 0 });
		expect(transcript(named).slice(-2)).toEqual(["user: more named work", "assistant: more named work"]);
		expect(transcript(fresh!)).toEqual(["user: unrelated work", "assistant: unrelated work"]);
	});
});
