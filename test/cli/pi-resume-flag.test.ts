/**
 * pi's `--resume` / `-r` start-up flag in `settle -i` (piflags5): before the first prompt the chat
 * lists this project's sessions as `/resume` does, numbered, and asks which one to continue. The
 * sessions are written by earlier real `settle -p` runs; the chat is a real child process over a pipe.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { savedSession } from "../pi-races/helpers.js";
import { useCliProject } from "./helpers.js";
import { bannerSessionFile, RESUME_QUESTION, Repl, transcript } from "./interactive.helpers.js";

const cli = useCliProject("settle-pi-resume-flag-");

/**
 * An `-e` extension that appends each session_start / session_shutdown it sees (reason, session
 * file) to a log file; returns the extension's path and a reader of the log's lines.
 */
function lifecycleLog(): { extension: string; events: () => string[] } {
	const log = join(cli.dir, "lifecycle.log");
	const extension = join(cli.dir, "lifecycle.mjs");
	writeFileSync(
		extension,
		`import { appendFileSync } from "node:fs";
export default function (pi) {
	const note = (line) => appendFileSync(${JSON.stringify(log)}, line + "\\n");
	pi.on("session_start", (event, ctx) => note(\`start \${event.reason} \${ctx.sessionManager.getSessionFile()}\`));
	pi.on("session_shutdown", (event, ctx) => note(\`shutdown \${event.reason} \${ctx.sessionManager.getSessionFile()}\`));
}
`,
	);
	return { extension, events: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []) };
}

function chat(...args: string[]): Repl {
	return new Repl(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("settle -r / --resume (pi's start-up session picker, as a question)", () => {
	it("lists this project's sessions newest first, numbered; a number resumes that one and the chat goes on in it", async () => {
		const first = savedSession(cli, "the first session");
		const second = savedSession(cli, "the second session");
		const repl = chat("-r");
		const listed = await repl.until(RESUME_QUESTION);
		expect(listed).toContain("Sessions of this project, newest first:\n");
		const one = listed.indexOf(`  1. ${second.id}  `);
		const two = listed.indexOf(`  2. ${first.id}  `);
		expect(one).toBeGreaterThan(0);
		expect(two).toBeGreaterThan(one);
		expect(listed).toContain("the first session\n");

		const resumed = await repl.say("2", "Resumed");
		expect(resumed).toContain(`Resumed ${first.id} (2 messages): ${first.file}\n`);
		expect(resumed).toContain("  last message: the first session\n");
		await repl.say("more of the first", "more of the first\n>");
		expect(await repl.end()).toBe(0);
		expect(transcript(first.file)).toEqual([
			"user: the first session",
			"assistant: the first session",
			"user: more of the first",
			"assistant: more of the first",
		]);
		expect(transcript(second.file)).toEqual(["user: the second session", "assistant: the second session"]);
	});

	it("the -r list's `N msgs` is the conversation's, as `Resumed … (N messages)`; SessionInfo.messageCount counts the system prompt's record, as pi 0.73.1's does on the same file", async () => {
		const saved = savedSession(cli, "count these");
		const repl = chat("-r");
		const listed = await repl.until(RESUME_QUESTION);
		// A prompt and its answer: two messages, not three (Settle's file also records the system prompt).
		expect(listed).toMatch(new RegExp(`  1\\. ${saved.id}  [0-9-]+ [0-9:]+  2 msgs  count these\n`));
		expect(await repl.say("1", "Resumed")).toContain(`Resumed ${saved.id} (2 messages): `);
		expect(await repl.end()).toBe(0);
		// The SDK's SessionInfo stays pi's: every message entry, the system prompt's record too.
		const folder = dirname(saved.file);
		const [settle] = await SessionManager.list(cli.project, folder);
		const [pi] = await PiSessionManager.list(cli.project, folder);
		expect(settle?.messageCount).toBe(3);
		expect(pi?.messageCount).toBe(settle?.messageCount);
	});

	it("--resume takes an id prefix; an answer matching none says so and asks again", async () => {
		const first = savedSession(cli, "the first session");
		savedSession(cli, "the second session");
		const repl = chat("--resume");
		await repl.until(RESUME_QUESTION);
		const from = repl.mark();
		repl.send("zzzz");
		const refused = await repl.until(RESUME_QUESTION, from);
		expect(refused).toContain("Error: No session of this project has an id starting with zzzz");
		// Ids are UUIDv7: sessions started close together share their first characters.
		const resumed = await repl.say(first.id.slice(0, 24), "Resumed");
		expect(resumed).toContain(`Resumed ${first.id} (2 messages): ${first.file}\n`);
		await repl.say("again", "again\n>");
		expect(await repl.end()).toBe(0);
		expect(transcript(first.file).slice(2)).toEqual(["user: again", "assistant: again"]);
	});

	it("an empty answer keeps the new session: the saved ones keep their bytes", async () => {
		const first = savedSession(cli, "the first session");
		const before = readFileSync(first.file, "utf8");
		const repl = chat("-r");
		await repl.until(RESUME_QUESTION);
		expect(await repl.say("", "Starting a new session.")).not.toContain("Resumed");
		await repl.say("a fresh start", "a fresh start\n>");
		expect(await repl.end()).toBe(0);
		const fresh = bannerSessionFile(repl.stdout);
		expect(fresh).not.toBe(first.file);
		expect(transcript(fresh)).toEqual(["user: a fresh start", "assistant: a fresh start"]);
		expect(readFileSync(first.file, "utf8")).toBe(before);
	});

	it("no saved session: says so, asks nothing, and the chat starts on a new one", async () => {
		const repl = chat("-r");
		const started = await repl.idle(0, "Starting a new session.");
		expect(started).toContain("This project has no saved sessions yet.\n");
		expect(started).not.toContain(RESUME_QUESTION);
		await repl.say("hello", "hello\n>");
		expect(await repl.end()).toBe(0);
		expect(transcript(bannerSessionFile(repl.stdout))).toEqual(["user: hello", "assistant: hello"]);
	});

	it("answers piped all at once (read before the question is asked) answer it in order; the rest is the chat's", () => {
		savedSession(cli, "the first session");
		const second = savedSession(cli, "the second session");
		const run = cli.settle(["--faux", "-i", "-r"], "zzzz\n1\nhello\n");
		expect(run.code).toBe(0);
		expect(run.stdout).toContain(
			`${RESUME_QUESTION}zzzz\nError: No session of this project has an id starting with zzzz`,
		);
		expect(run.stdout).toContain(`${RESUME_QUESTION}1\nResumed ${second.id} (2 messages): ${second.file}\n`);
		expect(transcript(second.file).slice(2)).toEqual(["user: hello", "assistant: hello"]);
	});

	it("end of input at the question: 'No session selected', exit 0, as pi's cancelled picker", async () => {
		const first = savedSession(cli, "the first session");
		const before = readFileSync(first.file, "utf8");
		const repl = chat("-r");
		await repl.until(RESUME_QUESTION);
		expect(await repl.end()).toBe(0);
		expect(repl.stdout).toContain("No session selected.\n");
		expect(readFileSync(first.file, "utf8")).toBe(before);
	});

	it("-r picker: extensions start once, on the picked session, with reason startup; no discarded session", async () => {
		const first = savedSession(cli, "the first session");
		const { extension, events } = lifecycleLog();
		const repl = chat("-e", extension, "-r");
		await repl.until(RESUME_QUESTION);
		// pi picks before the runtime exists: nothing has started yet.
		expect(events()).toEqual([]);
		await repl.say("1", "Resumed");
		await repl.say("more", "more\n>");
		expect(await repl.end()).toBe(0);
		expect(events()).toEqual([`start startup ${first.file}`, `shutdown quit ${first.file}`]);
		const folder = dirname(first.file);
		expect(readdirSync(folder)).toEqual([basename(first.file)]);
	});

	it("-r picker: an empty answer starts extensions once, on the new session", async () => {
		const first = savedSession(cli, "the first session");
		const { extension, events } = lifecycleLog();
		const repl = chat("-e", extension, "-r");
		await repl.until(RESUME_QUESTION);
		expect(events()).toEqual([]);
		await repl.say("", "Starting a new session.");
		await repl.say("fresh", "fresh\n>");
		expect(await repl.end()).toBe(0);
		const fresh = bannerSessionFile(repl.stdout);
		expect(fresh).not.toBe(first.file);
		expect(events()).toEqual([`start startup ${fresh}`, `shutdown quit ${fresh}`]);
	});

	it("-r picker: cancelled at the question, no extension started and no session file written", async () => {
		const first = savedSession(cli, "the first session");
		const { extension, events } = lifecycleLog();
		const repl = chat("-e", extension, "-r");
		await repl.until(RESUME_QUESTION);
		expect(await repl.end()).toBe(0);
		expect(repl.stdout).toContain("No session selected.\n");
		expect(events()).toEqual([]);
		expect(readdirSync(dirname(first.file))).toEqual([basename(first.file)]);
	});

	it("-r picker: Ctrl+C at the question: 'No session selected', exit 0, no extension started", async () => {
		const first = savedSession(cli, "the first session");
		const { extension, events } = lifecycleLog();
		const repl = chat("-e", extension, "-r");
		await repl.until(RESUME_QUESTION);
		repl.child.kill("SIGINT");
		expect(await repl.exited).toBe(0);
		expect(repl.stdout).toContain(`${RESUME_QUESTION}\nNo session selected.\n`);
		expect(events()).toEqual([]);
		expect(readdirSync(dirname(first.file))).toEqual([basename(first.file)]);
	});

	it("with -p, --json or --rpc: exit 2 naming --session and -c (pi opens its full-screen picker; --json writes it as its one error line); nothing runs", () => {
		savedSession(cli, "the first session");
		for (const args of [["-p", "hi"], ["--json", "hi"], ["--rpc"]]) {
			const run = cli.settle(["--faux", "-r", ...args]);
			expect(run.code).toBe(2);
			// --json's reader gets the refusal as the stream's one line (opencode#27559).
			const said = args[0] === "--json" ? JSON.parse(run.stdout) : run.stdout;
			expect(said).toEqual(
				args[0] === "--json" ? { type: "error", message: expect.stringContaining("--resume asks") } : "",
			);
			expect(run.stderr).toContain(
				"Error: --resume asks which session to continue in the chat (settle -i -r). With -p, --json or --rpc name it: --session <id-prefix>, or -c for this project's latest.\n",
			);
		}
		expect(cli.settle(["--faux", "-r", "-c", "-i"]).stderr).toContain(
			"Error: Use only one of --session <file>, --continue, --resume and --no-session.",
		);
	});
});
