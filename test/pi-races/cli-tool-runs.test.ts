/**
 * Reports about tool calls in a one-shot run, replayed against a real `settle -p` child process on
 * a scripted faux model: the project folder removed while the session runs (oh-my-pi#11828: omp
 * died of an uncaught `process.cwd` error), and — found while replaying it — a wide parallel batch
 * (eleven calls or more) that made Node print "MaxListenersExceededWarning: Possible EventTarget
 * memory leak" into the user's terminal. What the user should see: the tools failing with an error
 * the model can act on, the run answering and exiting 0, and nothing on stderr that is not theirs.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-tools-");

/** A guard against a hang only (the run takes about a second): a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

function writeScript(steps: unknown[]): string {
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify(steps));
	return script;
}

describe("oh-my-pi#11828: the working directory removed while the session runs", () => {
	it("oh-my-pi#11828: an extension removes ctx.cwd at session_start; bash, ls and read then fail with an error naming the missing folder, and the run answers and exits 0", () => {
		// The report's reproduction: the extension stands for a worktree removed by something else.
		const remover = join(cli.dir, "remove-cwd.mjs");
		writeFileSync(
			remover,
			`import { rmSync } from "node:fs";
export default function (pi) {
	pi.on("session_start", (_event, ctx) => { rmSync(ctx.cwd, { recursive: true, force: true }); });
}
`,
		);
		const script = writeScript([
			{
				toolCalls: [
					{ name: "bash", arguments: { command: "echo still here" } },
					{ name: "ls", arguments: {} },
					{ name: "read", arguments: { path: "notes.txt" } },
				],
			},
			"The project folder is gone.",
		]);
		const run = runSettle(
			["--faux-script", script, "--tools", "bash,ls,read", "-e", remover, "--no-session", "--mode", "json", "-p", "go"],
			{ cwd: cli.project, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS },
		);
		expect(existsSync(cli.project)).toBe(false);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const ends = toolEnds(run.stdout);
		expect(ends.map((end) => [end.toolName, end.isError])).toEqual([
			["bash", true],
			["ls", true],
			["read", true],
		]);
		for (const end of ends) expect(end.result.content[0]?.text).toContain(cli.project);
		expect(ends[0]!.result.content[0]?.text).toContain("Working directory does not exist");
		const last = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { type: string };
		expect(last).toEqual({ type: "agent_settled" });
		expect(run.stdout).toContain("The project folder is gone.");
	});
});

describe("a parallel batch of eleven tool calls or more (found replaying oh-my-pi#11828)", () => {
	it("settle -p: twelve parallel read calls answer, and stderr stays empty (no MaxListenersExceededWarning about the batch's abort signal)", () => {
		writeFileSync(join(cli.project, "notes.txt"), "a note\n");
		const calls = Array.from({ length: 12 }, () => ({ name: "read", arguments: { path: "notes.txt" } }));
		const script = writeScript([{ toolCalls: calls }, "Read twelve times."]);
		const text = runSettle(["--faux-script", script, "--no-session", "-p", "go"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(text).toEqual({ code: 0, stdout: "Read twelve times.\n", stderr: "" });
		const json = runSettle(["--faux-script", script, "--no-session", "--mode", "json", "-p", "go"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(json.stderr).toBe("");
		expect(json.code).toBe(0);
		const ends = toolEnds(json.stdout);
		expect(ends).toHaveLength(12);
		for (const end of ends) expect(end).toMatchObject({ isError: false, result: { content: [{ text: "a note\n" }] } });
	});

	it("settle -p: an extension's tool_call and tool_result handlers that wait on ctx.signal (a fetch, a timer) for twelve parallel calls: the calls answer, stderr stays empty", () => {
		writeFileSync(join(cli.project, "notes.txt"), "a note\n");
		const waiter = join(cli.dir, "waits-on-signal.mjs");
		writeFileSync(
			waiter,
			`import { setTimeout as sleep } from "node:timers/promises";
export default function (pi) {
	pi.on("tool_call", async (_event, ctx) => { await sleep(20, undefined, { signal: ctx.signal }); });
	pi.on("tool_result", async (_event, ctx) => { await sleep(20, undefined, { signal: ctx.signal }); });
}
`,
		);
		const calls = Array.from({ length: 12 }, () => ({ name: "read", arguments: { path: "notes.txt" } }));
		const script = writeScript([{ toolCalls: calls }, "Read twelve times."]);
		const run = runSettle(["--faux-script", script, "-e", waiter, "--no-session", "-p", "go"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(run).toEqual({ code: 0, stdout: "Read twelve times.\n", stderr: "" });
	});
});
