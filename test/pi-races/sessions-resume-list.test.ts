/**
 * Finding sessions again, reports not replayed elsewhere. Real `settle` child processes on real
 * session files.
 *
 * pi#9463: `pi -r` started in project B, a session of project A picked from the list: the
 * conversation came back, but pi still thought it was in B — `!pwd` printed B. Settle's `-r` asks
 * for a number or an id prefix, and takes another project's session file by its path: the model's
 * `pwd` must then run in A, and its result be saved in A's file.
 *
 * oh-my-pi#12581: `omp -r` listed none of the project's sessions, not even the one a running omp
 * was writing (1.37 MB) — only an empty "(no messages)" row. Settle's `-r` must list the session a
 * running `settle -i` holds open, and a session whose one line is longer than the block the list
 * reads at a time, each with its first message.
 *
 * pi#320: with sessions kept in another folder than the default, `/resume` in the chat listed the
 * default folder's sessions (none of the user's), `--resume` found none, and new sessions were
 * written where neither looked. Settle with `--session-dir <dir>`: `-r`, `/resume` and the new
 * session's file must all be that folder, the default folder's sessions nowhere in the list.
 *
 * Every project's sessions (pi's picker toggles to them with Tab): `-r` listed only this project's,
 * and with none it started a new session without asking, so another project's session could be
 * reached only by typing its path. The answer `all` (and `/resume all`) lists every project's,
 * numbered, each with its folder; with `--session-dir` that folder's, whichever project saved them.
 */
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, RESUME_QUESTION, Repl, readEntries, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-resume-list-");

/** Every session file under `dir`, at any depth. */
function sessionFiles(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(dir, name));
}

/** The text of every tool result saved in `file`. */
function toolResults(file: string): string[] {
	return readEntries(file).flatMap((entry) => {
		const message = entry.message as { role?: string; content?: { text?: string }[] } | undefined;
		return message?.role === "toolResult" ? [message.content?.map((part) => part.text ?? "").join("") ?? ""] : [];
	});
}

describe("pi#9463: -r in project B, a session of project A picked: the tools keep running in B", () => {
	it("pi#9463: settle -r in B answered with A's session file: the model's `pwd` runs in A, saved in A's file", async () => {
		const other = join(cli.dir, "project-a");
		mkdirSync(other);
		const inA = runSettle(["--faux", "-p", "hello from project A"], { cwd: other, agentDir: cli.agentDir });
		expect(inA.code).toBe(0);
		const [fileA] = sessionFiles(join(cli.agentDir, "sessions"));
		expect(fileA).toBeDefined();
		// B has a session of its own, so -r asks.
		expect(runSettle(["--faux", "-p", "hello from project B"], { cwd: cli.project, agentDir: cli.agentDir }).code).toBe(
			0,
		);

		const steps = join(cli.dir, "script.json");
		writeFileSync(steps, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, "here"]));
		const chat = new Repl(["--faux-script", steps, "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.until(RESUME_QUESTION);
		expect(await chat.say(fileA!, "Resumed")).toContain(fileA!);
		await chat.say("where do your commands run?", "here\n");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");

		const results = toolResults(fileA!);
		expect(results).toHaveLength(1);
		expect(results[0]!.trim()).toBe(realpathSync(other));
	});
});

describe("oh-my-pi#12581: -r lists none of the project's sessions, not even the one being written", () => {
	it("oh-my-pi#12581: settle -r beside a running chat lists its session, and a 1.5 MB session of one long line, with their first messages", async () => {
		// A session of one 1.5 MB user message (longer than the 1 MiB the list reads at a time), as pi writes it.
		const folder = join(cli.dir, "sessions");
		mkdirSync(folder);
		const longId = "019a0000-0000-7000-8000-00000000aaaa";
		const long = `the long one ${"x".repeat(1_500_000)}`;
		const at = "2026-01-01T00:00:00.000Z";
		writeFileSync(
			join(folder, `2026-01-01T00-00-00-000Z_${longId}.jsonl`),
			`${[
				{ type: "session", version: 3, id: longId, timestamp: at, cwd: realpathSync(cli.project) },
				{
					type: "message",
					id: "a1",
					parentId: null,
					timestamp: at,
					message: { role: "user", content: long, timestamp: Date.parse(at) },
				},
			]
				.map((entry) => JSON.stringify(entry))
				.join("\n")}\n`,
		);

		const running = new Repl(["--faux", "--session-dir", folder], { cwd: cli.project, agentDir: cli.agentDir });
		await running.idle(0);
		await running.say("still being written", "still being written\n>");
		const runningFile = bannerSessionFile(running.stdout);
		const runningId = /_([0-9a-f-]+)\.jsonl$/.exec(runningFile)?.[1];
		expect(runningId).toBeDefined();

		const picker = new Repl(["--faux", "--session-dir", folder, "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toContain("Sessions of this project, newest first:\n");
		expect(listed).toMatch(
			new RegExp(
				`  1\\. ${runningId}  .*  \\d+ msgs  still being written \\(in use by process ${running.child.pid}\\)\n`,
			),
		);
		expect(listed).toMatch(new RegExp(`  2\\. ${longId}  2026-01-01 00:00  1 msgs  the long one x+…?\n`));
		expect(listed).not.toContain("(no messages)");
		await picker.say("", "Starting a new session.");
		expect(await picker.end()).toBe(0);
		expect(await running.end()).toBe(0);
	});
});

describe("pi#320: --resume and /resume look in another folder than the one sessions are written to", () => {
	it("pi#320: settle -i --session-dir <dir>: -r and /resume list that folder's sessions only, and the chat's new session is written there", async () => {
		const folder = join(cli.dir, "kept-sessions");
		const kept = runSettle(["--faux", "--json", "--session-dir", folder, "kept in the folder"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(kept.code).toBe(0);
		const keptId = (JSON.parse(kept.stdout.split("\n")[0]!) as { id: string }).id;
		const elsewhere = runSettle(["--faux", "--json", "kept in the default folder"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(elsewhere.code).toBe(0);
		const elsewhereId = (JSON.parse(elsewhere.stdout.split("\n")[0]!) as { id: string }).id;

		const chat = new Repl(["--faux", "--session-dir", folder, "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const asked = await chat.until(RESUME_QUESTION);
		expect(asked).toMatch(new RegExp(`  1\\. ${keptId}  .*kept in the folder\n`));
		expect(asked).not.toContain(elsewhereId);
		await chat.say("", "Starting a new session.");
		await chat.say("a new one", "a new one\n>");
		const listed = await chat.say("/resume");
		expect(listed).toContain(`  ${keptId}  `);
		expect(listed).toContain("a new one (current)\n");
		expect(listed).not.toContain(elsewhereId);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");

		const newFile = bannerSessionFile(chat.stdout);
		expect(realpathSync(join(newFile, ".."))).toBe(realpathSync(folder));
		expect(sessionFiles(folder)).toHaveLength(2);
	});
});

/** `settle --json -p <prompt>` in `cwd` (more args before it): the saved session's id. */
function savedIn(cwd: string, prompt: string, ...args: string[]): string {
	const run = runSettle(["--faux", "--json", ...args, prompt], { cwd, agentDir: cli.agentDir });
	expect(run.code).toBe(0);
	return (JSON.parse(run.stdout.split("\n")[0]!) as { id: string }).id;
}

describe("every project's sessions: -r and /resume list only this project's, and -r with none starts new without asking", () => {
	it("every project's sessions: settle -r in a project with none offers `all`; a number of that list resumes another project's session there", async () => {
		const other = join(cli.dir, "project-a");
		mkdirSync(other);
		const idA = savedIn(other, "from project A");
		const [fileA] = sessionFiles(join(cli.agentDir, "sessions"));

		const chat = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const asked = await chat.until(RESUME_QUESTION);
		expect(asked).toContain(
			"This project has no saved sessions yet.\nOther projects have 1 saved session: answer all to list them.\n",
		);
		const from = chat.mark();
		chat.send("all");
		const listed = await chat.until(RESUME_QUESTION, from);
		expect(listed).toMatch(
			new RegExp(
				`Sessions of every project, newest first:\n  1\\. ${idA}  .*from project A\n     in ${realpathSync(other)}\n`,
			),
		);
		expect(await chat.say("1", "Resumed")).toContain(`Resumed ${idA} (`);
		await chat.say("more for A", "more for A\n>");
		expect(await chat.end()).toBe(0);
		expect(transcript(fileA!)).toEqual([
			"user: from project A",
			"assistant: from project A",
			"user: more for A",
			"assistant: more for A",
		]);
	});

	it("every project's sessions: settle -r with sessions here: `all` lists both projects' newest first, and an id prefix from it resumes the other's", async () => {
		const idB = savedIn(cli.project, "from project B");
		const other = join(cli.dir, "project-a");
		mkdirSync(other);
		const idA = savedIn(other, "from project A");

		const chat = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const asked = await chat.until(RESUME_QUESTION);
		expect(asked).toContain(`  1. ${idB}  `);
		expect(asked).not.toContain(idA);
		const from = chat.mark();
		chat.send("all");
		const listed = await chat.until(RESUME_QUESTION, from);
		expect(listed).toMatch(
			new RegExp(
				`  1\\. ${idA}  .*\n     in ${realpathSync(other)}\n  2\\. ${idB}  .*\n     in ${realpathSync(cli.project)}\n`,
			),
		);
		// UUIDv7 ids of sessions started close together share their first characters.
		expect(await chat.say(idA.slice(0, 30), "Resumed")).toContain(`Resumed ${idA} (`);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});

	it("every project's sessions: with --session-dir, `all` (-r and /resume all) lists that folder's sessions of every project, none of the default folder's", async () => {
		const folder = join(cli.dir, "shared-sessions");
		const other = join(cli.dir, "project-a");
		mkdirSync(other);
		const inFolder = savedIn(other, "A in the shared folder", "--session-dir", folder);
		const inDefault = savedIn(other, "A in the default folder");

		const chat = new Repl(["--faux", "--session-dir", folder, "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const asked = await chat.until(RESUME_QUESTION);
		expect(asked).toContain("Other projects have 1 saved session: answer all to list them.\n");
		const from = chat.mark();
		chat.send("all");
		const listed = await chat.until(RESUME_QUESTION, from);
		expect(listed).toMatch(
			new RegExp(`  1\\. ${inFolder}  .*A in the shared folder\n     in ${realpathSync(other)}\n`),
		);
		expect(listed).not.toContain(inDefault);
		await chat.say("", "Starting a new session.");
		expect(await chat.say("/resume")).toContain("Other projects have 1 saved session: /resume all lists them.\n");
		const all = await chat.say("/resume all");
		expect(all).toContain(`  ${inFolder}  `);
		expect(all).toMatch(new RegExp(`    in ${realpathSync(other)}: ${join(folder, ".*")}${inFolder}\\.jsonl\n`));
		expect(all).not.toContain(inDefault);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});
