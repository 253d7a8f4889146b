/**
 * pi#4999: pi's docs say "type `/name` to invoke a template", and a user who made `name.md` found
 * that `/name …` in the interactive chat set the session's name instead (the built-in `/name` runs
 * first), with nothing saying so. What the user of `settle -i` should see: a warning at start-up
 * naming the template, its file and what to do; `/name …` there is the built-in; `settle -p`
 * expands the template, as the warning says. Replayed against real `settle` processes on the faux
 * model, which echoes the prompt it got.
 *
 * claude-code#25658: with `worktree.md` both in the user's and the project's commands, choosing the
 * project's still ran the user's, though "project commands override personal commands". What the
 * user should see: the project's runs, and which file is skipped is said.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-template-names-");

describe("pi#4999: a prompt template named after a built-in command", () => {
	it("pi#4999: prompts/name.md: settle -i warns at start-up, `/name release notes` names the session without a model call; settle -p expands the template", async () => {
		const prompts = join(cli.agentDir, "prompts");
		mkdirSync(prompts, { recursive: true });
		const template = join(prompts, "name.md");
		writeFileSync(template, "Suggest a name for: $ARGUMENTS");

		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const startup = await chat.idle(0);
		expect(startup.split("\n").filter((line) => line.startsWith("Warning:"))).toEqual([
			`Warning: The prompt template /name (${template}) has the name of a built-in command: /name here runs the built-in. Rename it to use it in settle -i (-p and --rpc run it).`,
		]);
		const named = await chat.say("/name release notes");
		// The line typed, the built-in's line, then the prompt again: no template, no answer from the model.
		expect(named.split("\n").slice(0, -1)).toEqual(["/name release notes", "Session name: release notes"]);
		chat.send("/quit");
		expect(await chat.exited).toBe(0);
		expect(chat.stderr).toBe("");

		const run = runSettle(["--faux", "--no-session", "-p", "/name release notes"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("Suggest a name for: release notes\n");
	});
});

describe("claude-code#25658: a project template with the name of a user template", () => {
	it("claude-code#25658: `/worktree x` runs the project's template, not the user's; the warning names both files and which one is used", () => {
		const userPrompts = join(cli.agentDir, "prompts");
		const projectPrompts = join(cli.project, ".settle", "prompts");
		mkdirSync(userPrompts, { recursive: true });
		mkdirSync(projectPrompts, { recursive: true });
		writeFileSync(join(userPrompts, "worktree.md"), "---\ndescription: Create Git Worktree\n---\nUSER worktree $1\n");
		writeFileSync(
			join(projectPrompts, "worktree.md"),
			"---\ndescription: Create Git Worktree\n---\nPROJECT worktree $1\n",
		);
		const run = cli.settle(["--faux", "--no-session", "-p", "/worktree feature-x"]);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toBe("PROJECT worktree feature-x\n");
		expect(run.stderr).toBe(
			`Warning: name "/worktree" collision: ${join(userPrompts, "worktree.md")} is skipped, ${join(projectPrompts, "worktree.md")} is used; give one of them another name to keep both.\n`,
		);
	});
});
