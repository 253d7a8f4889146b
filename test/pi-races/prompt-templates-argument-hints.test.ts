/**
 * pi#2761: prompt templates' `argument-hint` front matter (`<file> [focus]`), Claude Code's way of
 * saying what a custom command takes, was not shown: "users have no way to discover what arguments
 * the command accepts without reading the source file". pi 0.73.1 shows it in its own TUI's
 * autocomplete only; RPC's `get_commands`, which a client builds its autocomplete from, leaves it
 * out. Settle read it and showed it nowhere: not in `settle -i`'s `/help`, not in `getCommands()`
 * nor `get_commands`. What the user should see: the hint beside the template's name wherever the
 * commands are listed. Replayed with real `settle` processes on the faux model.
 *
 * claude-code#22161: Claude Code's own example `argument-hint: [message]`, unquoted, is a YAML list,
 * not a string; Claude Code shows it as written, Settle showed no hint. What the user should see:
 * `[message]`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-template-argument-hints-");

function writeTemplates(): void {
	const prompts = join(cli.agentDir, "prompts");
	mkdirSync(prompts, { recursive: true });
	writeFileSync(
		join(prompts, "review.md"),
		'---\ndescription: Review a file\nargument-hint: "<file> [focus]"\n---\nReview $1, focusing on $2.\n',
	);
	writeFileSync(join(prompts, "tidy.md"), "---\ndescription: Tidy the imports\n---\nTidy the imports.\n");
}

describe("pi#2761: a prompt template's argument hint", () => {
	it("pi#2761: over RPC, get_commands gives /review its argumentHint `<file> [focus]`; a template without one has none", async () => {
		writeTemplates();
		const server = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const reply = (await server.request({ id: "1", type: "get_commands" })).data as {
			commands: { name: string; description?: string; argumentHint?: string; source: string }[];
		};
		const templates = reply.commands.filter((command) => command.source === "prompt");
		expect(templates.map(({ name, description, argumentHint }) => ({ name, description, argumentHint }))).toEqual([
			{ name: "review", description: "Review a file", argumentHint: "<file> [focus]" },
			{ name: "tidy", description: "Tidy the imports", argumentHint: undefined },
		]);
		expect(await server.end()).toBe(0);
	});

	it("pi#2761: settle -i: /help lists `/review <file> [focus]` with its description", async () => {
		writeTemplates();
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const help = await chat.say("/help");
		expect(help).toMatch(/^ {2}\/review <file> \[focus\] +Review a file$/m);
		expect(help).toMatch(/^ {2}\/tidy +Tidy the imports$/m);
		expect(await chat.end()).toBe(0);
	});

	it("claude-code#22161: an unquoted `argument-hint: [message]` (a YAML list) is the hint `[message]` in get_commands and /help", async () => {
		const prompts = join(cli.agentDir, "prompts");
		mkdirSync(prompts, { recursive: true });
		writeFileSync(
			join(prompts, "commit.md"),
			"---\nargument-hint: [message]\ndescription: Create a git commit\n---\nCommit with message: $ARGUMENTS\n",
		);
		const server = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const reply = (await server.request({ id: "1", type: "get_commands" })).data as {
			commands: { name: string; argumentHint?: string; source: string }[];
		};
		expect(reply.commands.find((command) => command.name === "commit")?.argumentHint).toBe("[message]");
		expect(await server.end()).toBe(0);

		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/help")).toMatch(/^ {2}\/commit \[message\] +Create a git commit$/m);
		expect(await chat.end()).toBe(0);
	});
});

describe("a template without a description: its first line, cut", () => {
	it("an emoji across the 60-character cut is left out whole: get_commands sends no lone half of it (which JSON clients and /help show as U+FFFD)", async () => {
		const prompts = join(cli.agentDir, "prompts");
		mkdirSync(prompts, { recursive: true });
		writeFileSync(join(prompts, "ship.md"), `${"a".repeat(59)}\u{1F680} ship it and tell the team\n`);
		const server = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const reply = (await server.request({ id: "1", type: "get_commands" })).data as {
			commands: { name: string; description?: string }[];
		};
		expect(reply.commands.find((command) => command.name === "ship")?.description).toBe(`${"a".repeat(59)}...`);
		expect(await server.end()).toBe(0);
	});
});
