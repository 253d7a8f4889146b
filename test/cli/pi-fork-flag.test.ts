/**
 * piflags3: pi 0.73.1's `--fork <path|id-prefix>`, which Settle refused as an unknown option
 * (exit 2), so a pi user's `pi --fork 0190f5 -p "try the other way"` failed under `settle`. As pi's:
 * a new session of this project holding every entry of the named one (its header's
 * `parentSession` names the source, which is left as it was), run through the real `settle`
 * command on the faux model in -p, --json, --rpc and -i; refused with --session, -c or --no-session.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettle, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-piflags3-fork-");

function settle(args: string[], cwd = cli.project) {
	return runSettle(args, { cwd, agentDir: cli.agentDir });
}

interface Line {
	type: string;
	id: string;
	parentSession?: string;
	message?: { role: string; content: unknown };
}

/** Every session file under the agent folder, with its lines. */
function sessions(): { path: string; lines: Line[] }[] {
	const root = join(cli.agentDir, "sessions");
	if (!existsSync(root)) return [];
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => {
			const path = join(root, name);
			const lines = readFileSync(path, "utf8")
				.split("\n")
				.filter((line) => line.startsWith("{"))
				.map((line) => JSON.parse(line) as Line);
			return { path, lines };
		});
}

/** The user prompts of a session file, in order. */
function prompts(lines: readonly Line[]): string[] {
	return lines
		.filter((line) => line.type === "message" && line.message?.role === "user")
		.map((line) => JSON.stringify(line.message?.content))
		.map((content) => /"text":"([^"]*)"/.exec(content)?.[1] ?? content);
}

/** Runs one prompt in a new session and returns its file, id and text. */
function sourceSession(prompt = "first question"): { path: string; id: string; text: string } {
	const before = new Set(sessions().map((s) => s.path));
	expect(settle(["--faux", "-p", prompt]).code).toBe(0);
	const made = sessions().find((s) => !before.has(s.path))!;
	return { path: made.path, id: made.lines[0]!.id, text: readFileSync(made.path, "utf8") };
}

/** The one session file made since `source`, checked to be its fork; returns its lines. */
function forkOf(source: { path: string; text: string }): Line[] {
	const forks = sessions().filter((s) => s.lines[0]!.parentSession === source.path);
	expect(forks).toHaveLength(1);
	const [fork] = forks;
	expect(fork!.path).not.toBe(source.path);
	// Every entry of the source, with its id, in the new session; the source as it was.
	const sourceIds = source.text
		.split("\n")
		.filter((line) => line.startsWith("{"))
		.map((line) => JSON.parse(line) as Line)
		.slice(1)
		.map((line) => line.id);
	expect(
		fork!.lines
			.slice(1)
			.map((line) => line.id)
			.slice(0, sourceIds.length),
	).toEqual(sourceIds);
	expect(readFileSync(source.path, "utf8")).toBe(source.text);
	return fork!.lines;
}

describe("--fork <path|id-prefix> (pi's)", () => {
	it("-p with an id prefix: a new session with the source's entries and the new prompt", () => {
		const source = sourceSession();
		const run = settle(["--faux", "--fork", source.id.slice(0, 8), "-p", "second question"]);
		expect(run).toMatchObject({ code: 0, stdout: "second question\n" });
		expect(prompts(forkOf(source))).toEqual(["first question", "second question"]);
	});

	it("--json with the file's path, and --rpc: the session is the fork", async () => {
		const source = sourceSession();
		const json = settle(["--faux", "--fork", source.path, "--json", "from json"]);
		expect(json.code).toBe(0);
		expect(prompts(forkOf(source))).toEqual(["first question", "from json"]);

		const other = sourceSession("rpc source");
		const rpc = new RpcClient(["--faux", "--fork", other.path], { cwd: cli.project, agentDir: cli.agentDir });
		const state = (await rpc.request({ id: "1", type: "get_state" })).data as { sessionFile: string };
		expect(await rpc.end()).toBe(0);
		const lines = forkOf(other);
		expect(sessions().find((s) => s.lines[0]!.id === lines[0]!.id)?.path).toBe(state.sessionFile);
	});

	it("-i: the chat continues the fork", async () => {
		const source = sourceSession();
		const repl = new Repl(["--faux", "--fork", source.path], { cwd: cli.project, agentDir: cli.agentDir });
		await repl.idle(0);
		await repl.say("in the chat", "in the chat");
		expect(await repl.end()).toBe(0);
		expect(prompts(forkOf(source))).toEqual(["first question", "in the chat"]);
	});

	it("a session of another project is forked into this one, as pi does", () => {
		const source = sourceSession();
		const elsewhere = join(cli.dir, "elsewhere");
		mkdirSync(elsewhere);
		const run = settle(["--faux", "--fork", source.id, "-p", "over here"], elsewhere);
		expect(run.code).toBe(0);
		const lines = forkOf(source);
		expect((lines[0] as Line & { cwd?: string }).cwd).toBe(elsewhere);
	});

	it("with --session, -c or --no-session it is refused (exit 2), as pi refuses it", () => {
		const source = sourceSession();
		for (const [other, name] of [
			[["--session", source.path], "--session"],
			[["-c"], "--continue"],
			[["--no-session"], "--no-session"],
		] as const) {
			const run = settle(["--faux", "--fork", source.path, ...other, "-p", "x"]);
			expect(run.code).toBe(2);
			expect(run.stderr).toContain(`Error: --fork cannot be combined with ${name}`);
		}
		expect(sessions()).toHaveLength(1);
	});

	it("an id no session has (exit 2) and a file that does not exist (exit 3) are errors that start nothing", () => {
		const source = sourceSession();
		const unknown = settle(["--faux", "--fork", "zzzz", "-p", "x"]);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toContain("No session of this project has an id starting with zzzz");
		expect(unknown.stderr).toContain(`The latest: ${source.id}`);
		expect(unknown.stderr).toContain("(settle -r lists them all; settle --fork <id> forks one).");
		const missing = settle(["--faux", "--fork", "./gone.jsonl", "-p", "x"]);
		expect(missing.code).toBe(3);
		expect(missing.stderr).toContain(`--fork: ${join(cli.project, "gone.jsonl")} does not exist.`);
		expect(sessions().map((s) => s.path)).toEqual([source.path]);
	});
});
