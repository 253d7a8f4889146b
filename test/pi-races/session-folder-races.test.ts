/**
 * Several processes on one session folder, replayed with real `settle` child processes on real
 * session files.
 *
 * claude-code#87902, opencode#43133: a service restarted with `--continue` (or a second
 * `run --continue`) in a project where a person's chat was open resumed that live conversation and
 * wrote into its transcript: each saw the other's context. Settle refuses a second writer
 * (pi#9596), so `settle -c -p` must exit 5 naming the holder and the way out, and a chat's `-r` pick,
 * `/resume` or `/import` of that session must say the same in the chat's terms (not the SDK's
 * `manager.close()` / `readOnly`), resume nothing, and leave both chats writing their own files.
 *
 * codex#24425: two writes of one entry raced; the first was cut off by the second on the same line,
 * and the session vanished from the list. Settle's loader takes the whole entry at the end of such
 * a line; the list must count it too, so what `-r` shows is what the pick resumes.
 *
 * opencode#8825: one empty or cut session file made the whole list fail ("Unexpected end of JSON
 * input"), every session looking lost. A folder where another process has just made an empty file,
 * cut a header mid-write and is mid-way through a session's last line must still list the others.
 *
 * oh-my-pi#12538: `-c` landed on the newest file even when it held no conversation (a header only:
 * a chat opened on an empty file and left, a stub another tool made), though an older session had
 * one. `settle -c` must continue the session that holds messages, and take a file with none only
 * when no other session is left.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, RESUME_QUESTION, Repl, readEntries } from "../cli/interactive.helpers.js";
import { assistant, user } from "../store/helpers.js";

const cli = useCliProject("settle-pi-races-session-folder-");

/** The lines of a session of this project, as pi writes them: a header, then `texts` as user / assistant turns. */
function sessionLines(id: string, minute: number, texts: string[]): string[] {
	const at = `2026-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`;
	const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: at, cwd: realpathSync(cli.project) })];
	let parentId: string | null = null;
	for (const [index, text] of texts.entries()) {
		const entryId = `${id.slice(-4)}${String(index).padStart(4, "0")}`;
		const timestamp = Date.parse(at) + index;
		const message = index % 2 === 0 ? user(text, timestamp) : { ...assistant(text), timestamp };
		lines.push(JSON.stringify({ type: "message", id: entryId, parentId, timestamp: at, message }));
		parentId = entryId;
	}
	return lines;
}

describe("claude-code#87902, opencode#43133: --continue beside a live chat takes over its conversation", () => {
	it("claude-code#87902, opencode#43133: beside a live settle -i, settle -c -p exits 5 and another chat's -r pick and /resume are refused in the chat's terms naming the holder and settle --fork, and so is its /import; each chat keeps writing its own file", async () => {
		const person = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await person.idle(0);
		await person.say("the person's question", "the person's question\n>");
		const file = bannerSessionFile(person.stdout);
		const before = readFileSync(file, "utf8");
		const holder = `Session file ${file} is in use by process ${person.child.pid} on`;

		// The restarted service: `--continue` finds the person's session, the newest, and runs nothing.
		const service = await runSettleAsync(["--faux", "-c", "-p", "the service's prompt"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(service.code).toBe(5);
		expect(service.stderr).toContain(holder);
		expect(service.stderr).toContain(`--fork ${file}`);

		// A second chat's -r lists it as in use; picked anyway: refused, asked again; Enter starts its own session.
		const other = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const id = JSON.parse(before.split("\n")[0]!).id as string;
		expect(await other.until(RESUME_QUESTION)).toMatch(
			new RegExp(`  1\\. ${id}  .*  2 msgs  the person's question \\(in use by process ${person.child.pid}\\)\n`),
		);
		let from = other.mark();
		other.send("1");
		const picked = await other.until(RESUME_QUESTION, from);
		expect(picked).toContain(holder);
		expect(picked).toContain("so it was not resumed. Pick another, or press Enter for a new session.");
		expect(picked).toContain(`run settle --fork ${file} (a fork only reads it)`);
		expect(picked).not.toContain("SessionManager");
		expect(picked).not.toContain("readOnly");
		from = other.mark();
		other.send("");
		await other.idle(from, "Starting a new session.");

		// /resume of the person's session from inside that chat: refused, the chat stays where it was.
		const resumed = await other.say(`/resume ${id}`);
		expect(resumed).toContain(holder);
		expect(resumed).toContain("so it was not resumed. This chat goes on in its own session.");
		expect(resumed).toContain(`run settle --fork ${file}`);
		expect(resumed).not.toContain("SessionManager");
		expect(resumed).not.toContain("Resumed");
		// /import of its file: refused the same way (a copy would land on the same path).
		from = other.mark();
		other.send(`/import ${file}`);
		await other.until("[y/N] ", from);
		const imported = await other.say("y");
		expect(imported).toContain(holder);
		expect(imported).toContain("so it was not imported. This chat goes on in its own session.");
		expect(imported).not.toContain("SessionManager");
		expect(imported).not.toContain("Imported");
		await other.say("the other chat's question", "the other chat's question\n>");
		expect(await other.end()).toBe(0);
		const otherFile = bannerSessionFile(other.stdout);
		expect(otherFile).not.toBe(file);
		expect(readFileSync(otherFile, "utf8")).toContain("the other chat's question");
		expect(readFileSync(otherFile, "utf8")).not.toContain("the person's question");

		// The person's file: untouched by either, then their next turn on their own leaf.
		expect(readFileSync(file, "utf8")).toBe(before);
		const leaf = readEntries(file).at(-1)!.id;
		await person.say("the person's second question", "the person's second question\n>");
		expect(await person.end()).toBe(0);
		const entries = readEntries(file);
		const second = entries.find((entry) => JSON.stringify(entry).includes("the person's second question"))!;
		expect(second.parentId).toBe(leaf);
		expect(JSON.stringify(entries)).not.toContain("the service's prompt");
		expect(JSON.stringify(entries)).not.toContain("the other chat's question");
	});
	it("claude-code#87902: a chat SIGKILLed leaves its lock: settle -r lists its session without `in use`, and the pick resumes it", async () => {
		const crashed = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await crashed.idle(0);
		await crashed.say("a question before the crash", "a question before the crash\n>");
		const file = bannerSessionFile(crashed.stdout);
		crashed.child.kill("SIGKILL");
		await crashed.exited;
		expect(existsSync(`${file}.lock`)).toBe(true);

		const picker = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toMatch(/ {2}1\. \S+ {2}.* {2}2 msgs {2}a question before the crash\n/);
		const from = picker.mark();
		picker.send("1");
		expect(await picker.idle(from)).toContain("(2 messages)");
		expect(await picker.end()).toBe(0);
	});
});

describe("codex#24425: an entry written over a cut-off copy of itself, the session gone from the list", () => {
	it("codex#24425: settle -r lists a session whose first message sits after a cut-off copy of its line with every message and that first message, as many as the pick resumes", async () => {
		const folder = join(cli.dir, "sessions");
		mkdirSync(folder);
		const id = "019a0000-0000-7000-8000-00000000cccc";
		const lines = sessionLines(id, 3, [
			"the first question",
			"the first answer",
			"the next question",
			"the next answer",
		]);
		// The first write of the first message cut off by the second, which lands on the same line.
		const glued = [lines[0], `${lines[1]!.slice(0, 70)}${lines[1]}`, ...lines.slice(2)];
		writeFileSync(join(folder, `2026-01-01T00-03-00-000Z_${id}.jsonl`), `${glued.join("\n")}\n`);

		const picker = new Repl(["--faux", "--session-dir", folder, "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toContain(`  1. ${id}  2026-01-01 00:03  4 msgs  the first question\n`);
		const from = picker.mark();
		picker.send("1");
		expect(await picker.idle(from)).toContain(`Resumed ${id} (4 messages)`);
		expect(await picker.end()).toBe(0);
		expect(picker.stderr).toContain("Line 2 starts with 70 bytes of a line cut off mid-write");
	});
});

describe("opencode#8825: one empty or cut session file made every session disappear from the list", () => {
	it("opencode#8825: settle -r beside an empty session file, a header cut mid-write and a last line still being written lists both sessions with their whole messages, and resumes the older one", async () => {
		const folder = join(cli.dir, "sessions");
		mkdirSync(folder);
		const older = "019a0000-0000-7000-8000-00000000aaaa";
		const writing = "019a0000-0000-7000-8000-00000000bbbb";
		writeFileSync(
			join(folder, `2026-01-01T00-01-00-000Z_${older}.jsonl`),
			`${sessionLines(older, 1, ["alpha question", "alpha answer"]).join("\n")}\n`,
		);
		// Another process is mid-way through the answer's line.
		const lines = sessionLines(writing, 2, ["beta question", "beta answer", "beta again", "beta answer again"]);
		writeFileSync(
			join(folder, `2026-01-01T00-02-00-000Z_${writing}.jsonl`),
			`${lines.slice(0, 4).join("\n")}\n${lines[4]!.slice(0, 60)}`,
		);
		// Another process has just made its file, and a third's header was cut mid-write.
		writeFileSync(join(folder, "2026-01-01T00-03-00-000Z_019a0000-0000-7000-8000-00000000dddd.jsonl"), "");
		writeFileSync(
			join(folder, "2026-01-01T00-04-00-000Z_019a0000-0000-7000-8000-00000000eeee.jsonl"),
			sessionLines("019a0000-0000-7000-8000-00000000eeee", 4, [])[0]!.slice(0, 30),
		);

		const picker = new Repl(["--faux", "--session-dir", folder, "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toContain(`  1. ${writing}  2026-01-01 00:02  3 msgs  beta question\n`);
		expect(listed).toContain(`  2. ${older}  2026-01-01 00:01  2 msgs  alpha question\n`);
		expect(listed).not.toContain("Error");
		const from = picker.mark();
		picker.send("2");
		expect(await picker.idle(from)).toContain(`Resumed ${older} (2 messages)`);
		expect(await picker.end()).toBe(0);
		// The file still being written was only read.
		expect(readFileSync(join(folder, `2026-01-01T00-02-00-000Z_${writing}.jsonl`), "utf8")).toMatch(
			/"beta again".*\n.{60}$/s,
		);
	});
});

describe("oh-my-pi#12538: -c lands on a newer session file that holds no conversation", () => {
	it("oh-my-pi#12538: after a chat opened on an empty session file and left without a word, settle -c continues the older session that holds messages; alone, the empty one is continued", async () => {
		const folder = join(cli.dir, "sessions");
		mkdirSync(folder);
		const older = "019a0000-0000-7000-8000-00000000aaaa";
		writeFileSync(
			join(folder, `2026-01-01T00-01-00-000Z_${older}.jsonl`),
			`${sessionLines(older, 1, ["alpha question", "alpha answer"]).join("\n")}\n`,
		);
		const stub = join(folder, "stub.jsonl");
		writeFileSync(stub, "");
		const chat = new Repl(["--faux", "--session-dir", folder, "--session", stub], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await chat.idle(0);
		expect(await chat.end()).toBe(0);
		const stubId = (JSON.parse(readFileSync(stub, "utf8").split("\n")[0]!) as { type: string; id: string }).id;

		const again = await runSettleAsync(["--faux", "--json", "--session-dir", folder, "-c", "which one?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(again.code).toBe(0);
		expect((JSON.parse(again.stdout.split("\n")[0]!) as { id: string }).id).toBe(older);
		expect(readFileSync(stub, "utf8")).not.toContain("which one?");

		// With no session that holds a message, -c continues the empty one rather than none.
		rmSync(join(folder, `2026-01-01T00-01-00-000Z_${older}.jsonl`));
		const alone = await runSettleAsync(["--faux", "--json", "--session-dir", folder, "-c", "anyone?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(alone.code).toBe(0);
		expect((JSON.parse(alone.stdout.split("\n")[0]!) as { id: string }).id).toBe(stubId);
	});

	it("oh-my-pi#12538: a newer chat where the person only ran a `!` command is no stub: settle -c continues it, not the older session", async () => {
		const folder = join(cli.dir, "sessions");
		mkdirSync(folder);
		const older = "019a0000-0000-7000-8000-00000000bbbb";
		writeFileSync(
			join(folder, `2026-01-01T00-01-00-000Z_${older}.jsonl`),
			`${sessionLines(older, 1, ["alpha question", "alpha answer"]).join("\n")}\n`,
		);
		const file = join(folder, "build.jsonl");
		writeFileSync(file, "");
		const chat = new Repl(["--faux", "--session-dir", folder, "--session", file], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await chat.idle(0);
		expect(await chat.say("!echo build-log-line")).toContain("build-log-line");
		expect(await chat.end()).toBe(0);
		expect(readFileSync(file, "utf8")).toContain("build-log-line");
		const chatId = (JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { id: string }).id;

		const again = await runSettleAsync(["--faux", "--json", "--session-dir", folder, "-c", "what did it print?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(again.code).toBe(0);
		expect((JSON.parse(again.stdout.split("\n")[0]!) as { id: string }).id).toBe(chatId);
		expect(readFileSync(file, "utf8")).toContain("what did it print?");
	});

	it("oh-my-pi#12538: SessionManager.continueRecent picks what settle -c picks: the session with the latest message, not a newer header-only file nor one whose mtime a copy bumped", async () => {
		const folder = join(cli.dir, "sdk-sessions");
		mkdirSync(folder);
		const cwd = realpathSync(cli.project);
		const write = (id: string, minute: number, texts: string[], mtime: Date) => {
			const file = join(folder, `${id}.jsonl`);
			writeFileSync(file, `${sessionLines(id, minute, texts).join("\n")}\n`);
			utimesSync(file, mtime, mtime);
			return file;
		};
		const older = "019a0000-0000-7000-8000-00000000bbb1";
		const newer = "019a0000-0000-7000-8000-00000000bbb2";
		// Its last message at 00:01, its mtime (a copy, a backup restore) bumped to 00:04.
		write(older, 1, ["alpha question", "alpha answer"], new Date("2026-01-01T00:04:00Z"));
		write(newer, 2, ["beta question", "beta answer"], new Date("2026-01-01T00:02:30Z"));
		write("019a0000-0000-7000-8000-00000000bbb3", 3, [], new Date("2026-01-01T00:05:00Z"));

		const recent = SessionManager.continueRecent(cwd, folder);
		try {
			expect(recent.getHeader()?.id).toBe(newer);
		} finally {
			recent.close();
		}
		// settle -c: the same session.
		const run = await runSettleAsync(["--faux", "--json", "--session-dir", folder, "-c", "which one?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect((JSON.parse(run.stdout.split("\n")[0]!) as { id: string }).id).toBe(newer);
	});
});
