/**
 * piflags: pi 0.73.1's start-up flags `--system-prompt`, `--append-system-prompt`,
 * `--no-context-files`/`-nc`, `--no-skills`/`-ns`, `--no-prompt-templates`/`-np` and `--offline`,
 * which Settle refused as unknown options (exit 2), so a pi user's script
 * (`pi -p --no-context-files --append-system-prompt "…" "task"`) failed under `settle`. Each is run
 * through the real `settle` command on the faux model; the system prompt the model gets is the
 * `system` message Settle emits (`--json`, `--rpc`) and records in the session file (`-p`, `-i`).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baselinePrompts, runSettle, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-piflags-");

function settle(args: string[], input?: string) {
	return runSettle(args, { cwd: cli.project, agentDir: cli.agentDir, ...(input ? { input } : {}) });
}

/** The base system prompts recorded in every session file of the project, file by file. */
function sessionBaselines(): string[][] {
	const root = join(cli.agentDir, "sessions");
	const files = readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.sort();
	return files.map((name) => [...new Set(baselinePrompts(readFileSync(join(root, name), "utf8")))]);
}

function addProjectResources(): void {
	writeFileSync(join(cli.project, "AGENTS.md"), "AGENTS-MARKER: use tabs\n");
	mkdirSync(join(cli.project, ".settle", "skills", "deploy-docs"), { recursive: true });
	writeFileSync(
		join(cli.project, ".settle", "skills", "deploy-docs", "SKILL.md"),
		"---\nname: deploy-docs\ndescription: SKILL-MARKER deploys the docs\n---\nSteps.\n",
	);
	mkdirSync(join(cli.project, ".settle", "prompts"), { recursive: true });
	writeFileSync(join(cli.project, ".settle", "prompts", "greet.md"), "TEMPLATE-MARKER say hello\n");
	writeFileSync(join(cli.project, ".settle", "APPEND_SYSTEM.md"), "APPEND-FILE-MARKER\n");
}

describe("pi's start-up flags (piflags)", () => {
	it("settle -p --no-context-files --append-system-prompt …: a pi script runs unchanged", () => {
		addProjectResources();
		writeFileSync(join(cli.project, "extra.txt"), "FROM-FILE-MARKER\n");
		const run = settle([
			"--faux",
			"-p",
			"--no-context-files",
			"--append-system-prompt",
			"extra.txt",
			"--append-system-prompt",
			"INLINE-MARKER",
			"task",
		]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("task\n");
		const [[prompt]] = sessionBaselines() as [[string]];
		// A value naming a file is read; repeats are kept in order; as in pi, they replace APPEND_SYSTEM.md.
		expect(prompt).toContain("FROM-FILE-MARKER\n\nINLINE-MARKER");
		expect(prompt.indexOf("FROM-FILE-MARKER")).toBeLessThan(prompt.indexOf("INLINE-MARKER"));
		expect(prompt).not.toContain("APPEND-FILE-MARKER");
		expect(prompt).not.toContain("AGENTS-MARKER");
		// Not turned off: skills are still listed.
		expect(prompt).toContain("SKILL-MARKER");
	});

	it("without the flags the same project's prompt has AGENTS.md, APPEND_SYSTEM.md and the skill", () => {
		addProjectResources();
		const run = settle(["--faux", "--json", "task"]);
		expect(run.code).toBe(0);
		const [prompt] = baselinePrompts(run.stdout) as [string];
		expect(prompt).toContain("AGENTS-MARKER");
		expect(prompt).toContain("APPEND-FILE-MARKER");
		expect(prompt).toContain("SKILL-MARKER");
		expect(prompt).toContain("You are an expert coding assistant");
	});

	it("settle --json --system-prompt <folder> --append-system-prompt <folder>: a warning names each folder, and the values are kept as the prompt text, as pi 0.73.1 does", () => {
		mkdirSync(join(cli.project, "reviewer"));
		mkdirSync(join(cli.project, "house-rules"));
		const run = settle([
			"--faux",
			"--json",
			"--system-prompt",
			"reviewer",
			"--append-system-prompt",
			"house-rules",
			"task",
		]);
		expect(run.code).toBe(0);
		expect(run.stderr).toContain(
			`Warning: cannot read system prompt file: EISDIR: illegal operation on a directory, read; the value is used as the system prompt text, as written (${join(cli.project, "reviewer")})`,
		);
		expect(run.stderr).toContain(
			`Warning: cannot read appended system prompt file: EISDIR: illegal operation on a directory, read; the value is used as the appended system prompt text, as written (${join(cli.project, "house-rules")})`,
		);
		const [prompt] = baselinePrompts(run.stdout) as [string];
		expect(prompt.startsWith("reviewer")).toBe(true);
		expect(prompt).not.toContain("You are an expert coding assistant");
		expect(prompt).toContain("<addendum>\nhouse-rules\n</addendum>");
	});

	it("settle -p --system-prompt ./prompts/x.md --append-system-prompt rules.txt, neither file there (a typo'd path): a warning names each, and the values are kept as the prompt text, as pi 0.73.1 does; it became the whole system prompt silently", () => {
		const run = settle([
			"--faux",
			"-p",
			"--system-prompt",
			"./prompts/reviewer.md",
			"--append-system-prompt",
			"rules.txt",
			"--append-system-prompt",
			"INLINE-MARKER follow docs/style.md",
			"task",
		]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("task\n");
		expect(run.stderr.split("\n").filter((line) => line.startsWith("Warning:"))).toEqual([
			`Warning: no system prompt file ./prompts/reviewer.md: the value looks like a path but no such file exists, so it is used as the system prompt text, as written; fix the path to read the file (${join(cli.project, "prompts", "reviewer.md")})`,
			`Warning: no appended system prompt file rules.txt: the value looks like a path but no such file exists, so it is used as the appended system prompt text, as written; fix the path to read the file (${join(cli.project, "rules.txt")})`,
		]);
		const [[prompt]] = sessionBaselines() as [[string]];
		expect(prompt.startsWith("./prompts/reviewer.md")).toBe(true);
		// Text with a space is text, whatever it names: no warning.
		expect(prompt).toContain("rules.txt\n\nINLINE-MARKER follow docs/style.md");
	});

	it("settle --json --system-prompt <text> -ns: the base prompt is replaced, the skill left out", () => {
		addProjectResources();
		const run = settle(["--faux", "--json", "--system-prompt", "BASE-MARKER you review code", "-ns", "task"]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const [prompt] = baselinePrompts(run.stdout) as [string];
		expect(prompt.startsWith("BASE-MARKER you review code")).toBe(true);
		expect(prompt).not.toContain("You are an expert coding assistant");
		expect(prompt).not.toContain("SKILL-MARKER");
		// As in pi, context files, APPEND_SYSTEM.md and the cwd line stay.
		expect(prompt).toContain("AGENTS-MARKER");
		expect(prompt).toContain("APPEND-FILE-MARKER");
		expect(prompt).toContain(`Current working directory: ${cli.project}`);
	});

	it("settle -p --system-prompt <file>: a value naming a file is read", () => {
		writeFileSync(join(cli.project, "base.md"), "FILE-BASE-MARKER\n");
		const run = settle(["--faux", "--json", "--system-prompt", "base.md", "task"]);
		expect(run.code).toBe(0);
		const [prompt] = baselinePrompts(run.stdout) as [string];
		expect(prompt.startsWith("FILE-BASE-MARKER")).toBe(true);
	});

	it("settle -p -np /greet: the prompt template is not expanded (and is without -np)", () => {
		addProjectResources();
		expect(settle(["--faux", "-p", "/greet"]).stdout.trim()).toBe("TEMPLATE-MARKER say hello");
		const run = settle(["--faux", "-p", "-np", "/greet"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("/greet\n");
	});

	it("settle --offline -p: accepted, and changes nothing", () => {
		const run = settle(["--faux", "--offline", "-p", "hi"]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("hi\n");
		// --help says it does nothing, and lists the other flags.
		const help = settle(["--help"]).stdout;
		expect(help).toMatch(/--offline +Accepted for pi's scripts; does nothing/);
		for (const flag of ["--system-prompt", "--append-system-prompt", "--no-context-files", "--no-skills", "-np"]) {
			expect(help).toContain(flag);
		}
	});

	it("settle --theme dark --no-themes -p: a pi script's theme options are accepted and change nothing", () => {
		// pi 0.73.1 parses --theme (repeatable) and --no-themes for its TUI; Settle refused them (exit 2).
		const run = settle(["--faux", "--theme", "dark", "--theme", "./my-theme.json", "--no-themes", "-p", "hi"]);
		expect(run).toEqual({ code: 0, stdout: "hi\n", stderr: "" });
		const json = settle(["--faux", "--no-themes", "--json", "hi"]);
		expect([json.code, json.stderr]).toEqual([0, ""]);
		const command = `${JSON.stringify({ id: "1", type: "get_state" })}\n`;
		const rpc = settle(["--faux", "--theme", "light", "--rpc"], command);
		expect([rpc.code, rpc.stderr]).toEqual([0, ""]);
		expect(settle(["--help"]).stdout).toMatch(
			/--theme <name\|path>, --no-themes\n +Accepted for pi's scripts; do nothing/,
		);
	});

	it("settle -i --theme dark: one note on stderr that the chat has no themes, then the chat runs", async () => {
		const repl = new Repl(["--faux", "--no-session", "--theme", "dark", "--no-themes"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await repl.say("hi", "hi");
		expect(await repl.end()).toBe(0);
		const note =
			"Note: --theme and --no-themes are pi's terminal-UI options; Settle's chat is line-based and has no themes (NO_COLOR turns its colours off).\n";
		expect(repl.stderr).toBe(note);
		const plain = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await plain.say("hi", "hi");
		expect(await plain.end()).toBe(0);
		expect(plain.stderr).toBe("");
	});

	it("settle --rpc: new_session keeps the flags", () => {
		addProjectResources();
		const commands = [{ type: "prompt", message: "one" }, { type: "new_session" }, { type: "prompt", message: "two" }];
		const run = settle(
			["--faux", "--rpc", "-nc", "--append-system-prompt", "RPC-MARKER"],
			commands.map((command) => JSON.stringify(command)).join("\n"),
		);
		expect(run.code).toBe(0);
		const prompts = [...new Set(baselinePrompts(run.stdout))];
		expect(prompts.length).toBeGreaterThan(0);
		for (const prompt of prompts) {
			expect(prompt).toContain("RPC-MARKER");
			expect(prompt).not.toContain("AGENTS-MARKER");
		}
		// Two sessions, each started with the flags.
		const sessions = sessionBaselines();
		expect(sessions).toHaveLength(2);
		for (const prompts of sessions) for (const prompt of prompts) expect(prompt).toContain("RPC-MARKER");
	});

	it("settle -i: /new keeps the flags", async () => {
		addProjectResources();
		const repl = new Repl(["--faux", "-nc", "--system-prompt", "REPL-MARKER"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await repl.idle(0);
		await repl.say("one", "one");
		await repl.say("/new");
		await repl.say("two", "two");
		expect(await repl.end()).toBe(0);
		const sessions = sessionBaselines();
		expect(sessions).toHaveLength(2);
		for (const prompts of sessions) {
			expect(prompts.length).toBeGreaterThan(0);
			for (const prompt of prompts) {
				expect(prompt.startsWith("REPL-MARKER")).toBe(true);
				expect(prompt).not.toContain("AGENTS-MARKER");
			}
		}
	});
});
