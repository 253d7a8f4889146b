/**
 * Reports about which project folder a session belongs to and where its tools run, replayed with
 * real folders, real `git worktree add` and real `settle` processes on a scripted faux model.
 * claude-code#30906: a session saved in a linked git worktree, resumed from the
 * main checkout, came back with its tools in the main checkout. github/app#154: two projects whose
 * folders share a name (`~/foo/main`, `~/bar/main`, as worktree layouts make) were taken as one.
 * claude-code#37659: a `cd sub` in one bash call moved every later call: `git add .` ran in `sub/`.
 * claude-code#45402: `/resume` inside a worktree of an earlier session of that worktree moved the
 * chat's cwd to the main checkout. claude-code#28314: a worktree removed after its session ended; the printed resume command then
 * failed, the worktree gone, and nothing said how to get the conversation back.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, runSettle, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-folders-");

/** A guard against a hang only (a run takes about a second). */
const HANG_GUARD_MS = 60_000;

/** The bash outputs of a `--mode json` run, in order, after checking it answered and exited 0. */
function bashOutputs(run: ReturnType<typeof runSettle>): string[] {
	expect(run.stderr).toBe("");
	expect(run.code).toBe(0);
	return toolEnds(run.stdout).map((end) => {
		expect(end.isError).toBe(false);
		return (end.result.content[0]?.text ?? "").trim();
	});
}

/** `settle --mode json -p <prompt>` in `cwd`, the model running each command in `commands` in turn. */
function runCommands(cwd: string, prompt: string, commands: string[], ...args: string[]): ReturnType<typeof runSettle> {
	const script = join(cli.dir, `script-${prompt}.json`);
	writeFileSync(
		script,
		JSON.stringify([...commands.map((command) => ({ toolCalls: [{ name: "bash", arguments: { command } }] })), "done"]),
	);
	return runSettle(["--faux-script", script, ...args, "--mode", "json", "-p", prompt], {
		cwd,
		agentDir: cli.agentDir,
		timeoutMs: HANG_GUARD_MS,
	});
}

/** Every session file under the agent folder, with its header's cwd and its user prompts. */
function sessions(): { file: string; id: string; cwd: string; prompts: string[] }[] {
	const root = join(cli.agentDir, "sessions");
	return readdirSync(root).flatMap((folder) =>
		readdirSync(join(root, folder)).map((name) => {
			const file = join(root, folder, name);
			const entries = readFileSync(file, "utf8")
				.trim()
				.split("\n")
				.map(
					(line) =>
						JSON.parse(line) as {
							type: string;
							id?: string;
							cwd?: string;
							message?: { role: string; content: unknown };
						},
				);
			const prompts = entries
				.filter((entry) => entry.type === "message" && entry.message?.role === "user")
				.map((entry) => {
					const content = entry.message!.content;
					return typeof content === "string"
						? content
						: (content as { text: string }[]).map((part) => part.text).join("");
				});
			return { file, id: entries[0]!.id!, cwd: entries[0]!.cwd!, prompts };
		}),
	);
}

function git(cwd: string, ...args: string[]): void {
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], {
		cwd,
		stdio: "ignore",
	});
}

/** A main checkout (`repo`, on `main`) and a linked worktree beside it (`repo-feature`, on `feature`). */
function checkoutWithWorktree(): { repo: string; worktree: string } {
	const repo = realpathSync(cli.project);
	writeFileSync(join(repo, "README.md"), "main\n");
	git(repo, "init", "-q");
	git(repo, "add", "README.md");
	git(repo, "commit", "-qm", "init");
	const worktree = join(realpathSync(cli.dir), "repo-feature");
	git(repo, "worktree", "add", "-q", worktree, "-b", "feature");
	return { repo, worktree };
}

/** {@link checkoutWithWorktree}, a session of the worktree (its model ran `pwd` there), then the worktree removed. */
function removedWorktreeSession(): { repo: string; worktree: string; session: ReturnType<typeof sessions>[number] } {
	const { repo, worktree } = checkoutWithWorktree();
	expect(bashOutputs(runCommands(worktree, "feature-work", ["pwd"]))).toEqual([worktree]);
	const [session] = sessions();
	git(repo, "worktree", "remove", worktree);
	return { repo, worktree, session: session! };
}

/** `settle -i` in `cwd`, idle, whose model runs `command` at the next message, then answers "done". */
async function chatRunning(cwd: string, command: string): Promise<Repl> {
	const script = join(cli.dir, "script-chat.json");
	writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command } }] }, "done"]));
	const chat = new Repl(["--faux-script", script], { cwd, agentDir: cli.agentDir });
	await chat.idle(0);
	return chat;
}

/** The first text of each tool result saved in the session `file`, trimmed, in file order. */
function savedToolResults(file: string): (string | undefined)[] {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { message?: { role: string; content: { text?: string }[] } })
		.filter((entry) => entry.message?.role === "toolResult")
		.map((entry) => entry.message!.content[0]?.text?.trim());
}

describe("claude-code#30906: a session of a linked git worktree, resumed from the main checkout", () => {
	it("claude-code#30906: --session <file> from the main checkout runs the worktree session's tools in the worktree (its id alone is refused, naming that command); -c keeps each checkout's own session", () => {
		const { repo, worktree } = checkoutWithWorktree();
		expect(bashOutputs(runCommands(worktree, "feature-work", ["pwd"]))).toEqual([worktree]);
		expect(bashOutputs(runCommands(repo, "main-work", ["pwd"]))).toEqual([repo]);
		const featureSession = sessions().find((session) => session.prompts[0] === "feature-work")!;
		expect(featureSession.cwd).toBe(worktree);

		// By id from the main checkout: refused (the id is another project's), the way out printed.
		const before = readFileSync(featureSession.file, "utf8");
		const byId = runCommands(repo, "by-id", ["pwd"], "--session", featureSession.id);
		expect(byId.code).not.toBe(0);
		expect(byId.stderr).toContain(
			`of the project ${worktree} does. To resume it there: settle --cwd ${worktree} --session ${featureSession.file}`,
		);
		expect(readFileSync(featureSession.file, "utf8")).toBe(before);
		// The report: resumed by its file from the main checkout, the tools must run in the worktree.
		const resumed = runCommands(
			repo,
			"resume-feature",
			["pwd && git branch --show-current"],
			"--session",
			featureSession.file,
		);
		expect(bashOutputs(resumed)).toEqual([`${worktree}\nfeature`]);
		expect(sessions().find((session) => session.id === featureSession.id)!.prompts).toEqual([
			"feature-work",
			"resume-feature",
		]);

		// -c in each checkout continues that checkout's session, not the other's.
		expect(bashOutputs(runCommands(repo, "main-again", ["pwd"], "-c"))).toEqual([repo]);
		expect(bashOutputs(runCommands(worktree, "feature-again", ["pwd"], "-c"))).toEqual([worktree]);
		const byFirstPrompt = Object.fromEntries(sessions().map((session) => [session.prompts[0], session.prompts]));
		expect(byFirstPrompt).toEqual({
			"feature-work": ["feature-work", "resume-feature", "feature-again"],
			"main-work": ["main-work", "main-again"],
		});
	});
});

describe("github/app#154: two projects whose folders have the same name", () => {
	it("github/app#154: settle -c in bar/main starts bar's own session; foo/main continues foo's, each running its tools in its own folder", () => {
		const foo = join(realpathSync(cli.dir), "foo", "main");
		const bar = join(realpathSync(cli.dir), "bar", "main");
		mkdirSync(foo, { recursive: true });
		mkdirSync(bar, { recursive: true });

		expect(bashOutputs(runCommands(foo, "foo-first", ["pwd"]))).toEqual([foo]);
		expect(bashOutputs(runCommands(bar, "bar-first", ["pwd"], "-c"))).toEqual([bar]);
		expect(bashOutputs(runCommands(foo, "foo-second", ["pwd"], "-c"))).toEqual([foo]);

		const found = sessions().map(({ cwd, prompts }) => ({ cwd, prompts }));
		expect(found).toHaveLength(2);
		expect(found).toEqual(
			expect.arrayContaining([
				{ cwd: foo, prompts: ["foo-first", "foo-second"] },
				{ cwd: bar, prompts: ["bar-first"] },
			]),
		);
		// Each has its own session folder, named after the whole path.
		expect(readdirSync(join(cli.agentDir, "sessions")).sort()).toEqual(
			[`--${bar.slice(1).replaceAll("/", "-")}--`, `--${foo.slice(1).replaceAll("/", "-")}--`].sort(),
		);
	});
});

describe("claude-code#37659: a cd in one bash call moves the calls after it", () => {
	it("claude-code#37659: after `cd server`, the next bash call runs in the project again (git add . stages the root's file), and read finds the project's file", () => {
		const project = realpathSync(cli.project);
		mkdirSync(join(project, "server"));
		writeFileSync(join(project, "notes.txt"), "root notes\n");
		writeFileSync(join(project, "server", "notes.txt"), "server notes\n");
		writeFileSync(join(project, "server", "main.swift"), "print(1)\n");
		git(project, "init", "-q");

		const script = join(cli.dir, "cd-script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: "cd server && pwd" } }] },
				{ toolCalls: [{ name: "bash", arguments: { command: "cd server" } }] },
				{ toolCalls: [{ name: "bash", arguments: { command: "pwd && git add . && git status --porcelain" } }] },
				{ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
				"done",
			]),
		);
		const run = runSettle(["--faux-script", script, "--no-session", "--mode", "json", "-p", "build"], {
			cwd: project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		// Within one call the cd holds; the next call starts in the session's cwd.
		expect(bashOutputs(run)).toEqual([
			join(project, "server"),
			"(no output)",
			`${project}\nA  notes.txt\nA  server/main.swift\nA  server/notes.txt`,
			"root notes",
		]);
	});
});

describe("claude-code#28314: the session of a worktree removed since, resumed by its id", () => {
	it("claude-code#28314: --session <id> from the main checkout says the worktree is gone and prints a command that resumes it here; pasted, the conversation goes on in the main checkout", () => {
		const { repo, worktree, session } = removedWorktreeSession();

		// The file alone: its folder is gone (pi#2853's answer), nothing written.
		const before = readFileSync(session.file, "utf8");
		const byFile = runCommands(repo, "by-file", ["pwd"], "--session", session.file);
		expect(byFile.code).toBe(3);
		expect(byFile.stderr).toContain(`Stored session working directory does not exist: ${worktree}`);

		const byId = runCommands(repo, "by-id", ["pwd"], "--session", session.id);
		expect(byId.code).toBe(2);
		expect(byId.stderr).toContain(
			`of the project ${worktree} does; that folder no longer exists. To resume it in this one: `,
		);
		expect(readFileSync(session.file, "utf8")).toBe(before);
		const command = /To resume it in this one: (settle .+)\n/.exec(byId.stderr)?.[1];
		expect(command, byId.stderr).toBe(`settle --cwd ${repo} --session ${session.file}`);

		// Pasted into a shell in the main checkout (`settle` standing for this test's CLI).
		const script = join(cli.dir, "script-pasted.json");
		writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, "done"]));
		const settleWords = [process.execPath, ...cliCommand()].map((word) => `'${word}'`).join(" ");
		const pasted = spawnSync(
			"sh",
			["-c", `${settleWords}${command!.slice("settle".length)} --faux-script '${script}' --mode json -p pasted`],
			{ cwd: repo, encoding: "utf8", env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir }, timeout: HANG_GUARD_MS },
		);
		expect(bashOutputs({ code: pasted.status, stdout: pasted.stdout, stderr: pasted.stderr })).toEqual([repo]);
		expect(sessions().map(({ id, prompts }) => ({ id, prompts }))).toEqual([
			{ id: session.id, prompts: ["feature-work", "pasted"] },
		]);
	});
});

describe("claude-code#28314 in a chat: /resume of the session of a removed worktree", () => {
	it("claude-code#28314: settle -i in the main checkout: /resume <id> names /resume <file>, which asks to continue here; no leaves all as it was, yes resumes it and its tools run in the main checkout", async () => {
		const { repo, worktree, session } = removedWorktreeSession();
		const before = readFileSync(session.file, "utf8");

		const chat = await chatRunning(repo, "pwd");
		expect(await chat.say(`/resume ${session.id.slice(0, 13)}`)).toContain(
			`of the project ${worktree} does; that folder no longer exists. To resume it in this one: /resume ${session.file}\n`,
		);
		const question = `Resume session: its folder ${worktree} no longer exists. Continue it in ${repo}? [y/N] `;
		let from = chat.mark();
		chat.send(`/resume ${session.file}`);
		await chat.until(question, from);
		expect(await chat.say("n")).toContain("Resume cancelled.");
		expect(readFileSync(session.file, "utf8")).toBe(before);

		from = chat.mark();
		chat.send(`/resume ${session.file}`);
		await chat.until(question, from);
		expect(await chat.say("y", "Resumed")).toContain(
			`Resumed ${session.id} (4 messages) in ${repo} (its folder ${worktree} is gone): ${session.file}`,
		);
		await chat.say("where do your commands run?", "done\n");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		const saved = readFileSync(session.file, "utf8");
		expect(saved.startsWith(before)).toBe(true);
		const results = savedToolResults(session.file);
		expect(results).toEqual([worktree, repo]);
	});
});

describe("claude-code#28314 in a chat: /import of the session file of a removed worktree", () => {
	it("claude-code#28314: settle -i in the main checkout, /import <file>: asks to continue in the chat's folder; no imports nothing, yes imports it and its tools run there", async () => {
		const { repo, worktree, session } = removedWorktreeSession();
		const before = readFileSync(session.file, "utf8");

		const chat = await chatRunning(repo, "pwd");
		const question = `Import session: its folder ${worktree} no longer exists. Continue it in ${repo}? [y/N] `;
		for (const answer of ["n", "y"]) {
			let from = chat.mark();
			chat.send(`/import ${session.file}`);
			await chat.until("Import session: Replace the current session", from);
			from = chat.mark();
			chat.send("y");
			await chat.until(question, from);
			const said = await chat.say(answer);
			if (answer === "n") expect(said).toContain("Import cancelled.");
			else expect(said).toContain("Imported into a new session");
		}
		await chat.say("where do your commands run?", "done\n");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		expect(readFileSync(session.file, "utf8")).toBe(before);
		const imported = sessions().filter((found) => found.file !== session.file);
		expect(imported.map(({ prompts }) => prompts)).toEqual([["feature-work", "where do your commands run?"]]);
		const results = savedToolResults(imported[0]!.file);
		expect(results).toEqual([worktree, repo]);
	});
});

describe("claude-code#45402: /resume inside a worktree, of an earlier session of that worktree", () => {
	it("claude-code#45402: settle -i in the worktree, /resume <id> of its earlier session: the model's pwd and git branch are the worktree's, saved in that session", async () => {
		const { repo, worktree } = checkoutWithWorktree();
		expect(bashOutputs(runCommands(worktree, "earlier", ["pwd"]))).toEqual([worktree]);
		expect(bashOutputs(runCommands(repo, "main-work", ["pwd"]))).toEqual([repo]);
		const earlier = sessions().find((session) => session.prompts[0] === "earlier")!;

		const chat = await chatRunning(worktree, "pwd && git branch --show-current");
		expect(await chat.say(`/resume ${earlier.id.slice(0, 13)}`, "Resumed")).toContain(`Resumed ${earlier.id} `);
		await chat.say("where are we?", "done\n");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		const results = savedToolResults(earlier.file);
		expect(results).toEqual([worktree, `${worktree}\nfeature`]);
	});
});
