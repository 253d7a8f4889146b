/**
 * Piped stdin in print and JSON modes, as in pi: the trimmed text is the prompt, or goes before
 * the first prompt (`cat error.log | settle -p "Why?"`). It used to be dropped when a prompt was
 * given, and sent with its trailing newline when it was the prompt.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { type CliProject, cliCommand, useCliProject } from "./helpers.js";

/** The user messages the session recorded (`--json` events), for `--faux` which echoes each prompt. */
function userTexts(cli: CliProject, args: string[], input: string): string[] {
	const run = cli.settle(["--faux", "--no-session", "--json", ...args], input);
	expect(run.code).toBe(0);
	return run.stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: { text: string }[] } })
		.filter((event) => event.type === "message_end" && event.message?.role === "user")
		.map((event) => event.message!.content[0]!.text);
}

describe("settle with piped stdin", () => {
	const cli = useCliProject("settle-stdin-");
	it("is the prompt, trimmed, when none is given", () => {
		expect(userTexts(cli, [], "  What is this?\n")).toEqual(["What is this?"]);
		const print = cli.settle(["--faux", "--no-session", "-p"], "hello\n");
		expect(print).toEqual({ code: 0, stdout: "hello\n", stderr: "" });
	});

	it("goes before the first prompt, not the later ones", () => {
		expect(userTexts(cli, ["Why does it fail?", "And the fix?"], "Error: ENOENT config.json\n")).toEqual([
			"Error: ENOENT config.json\n\nWhy does it fail?",
			"And the fix?",
		]);
	});

	it("only whitespace: the prompt alone; no prompt at all: exit 2", () => {
		expect(userTexts(cli, ["Why?"], " \n\n")).toEqual(["Why?"]);
		const none = cli.settle(["--faux", "--no-session", "-p"], " \n");
		expect(none.code).toBe(2);
		expect(none.stderr).toContain("Error: no prompt.");
	});
});

/**
 * Starts `settle --faux --no-session -p` with a stdin pipe the test keeps open, in a scratch folder
 * of its own: the tests below run concurrently (each waits out the 2 s silence notice), so they
 * share neither useCliProject's folder nor its cleanup; each stops its own child.
 */
function startWithOpenStdin(onTestFinished: TestContext["onTestFinished"]) {
	const dir = mkdtempSync(join(tmpdir(), "settle-stdin-open-"));
	const project = join(dir, "project");
	mkdirSync(project);
	const child = spawn(process.execPath, [...cliCommand(), "--faux", "--no-session", "-p"], {
		cwd: project,
		env: { ...process.env, SETTLE_AGENT_DIR: join(dir, "agent") },
		stdio: ["pipe", "pipe", "pipe"],
	});
	const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	onTestFinished(async () => {
		if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
		await closed;
		rmSync(dir, { recursive: true, force: true });
	});
	child.stdout.setEncoding("utf8");
	child.stderr.setEncoding("utf8");
	const output = { stdout: "", stderr: "" };
	child.stdout.on("data", (chunk: string) => {
		output.stdout += chunk;
	});
	const stderrLines: ((text: string) => void)[] = [];
	child.stderr.on("data", (chunk: string) => {
		output.stderr += chunk;
		for (const listener of stderrLines) listener(output.stderr);
	});
	const firstStderr = new Promise<void>((resolve) => stderrLines.push(() => resolve()));
	return { child, output, firstStderr, closed };
}

describe.concurrent("settle with a stdin pipe that stays open (pi#7593, pi#5571, pi#8506: pi waits without a word)", () => {
	it("says on stderr what it waits for while the pipe is silent, then runs the prompt when it closes", async ({
		expect,
		onTestFinished,
	}) => {
		const run = startWithOpenStdin(onTestFinished);
		await run.firstStderr;
		expect(run.output.stderr).toContain("Waiting for piped stdin to end");
		expect(run.output.stderr).toContain("</dev/null");
		expect(run.output.stdout).toBe("");
		run.child.stdin.end("late prompt\n");
		expect(await run.closed).toBe(0);
		expect(run.output.stdout).toBe("late prompt\n");
	});

	it("says nothing when text has arrived, however long the writer then takes to close", async ({
		expect,
		onTestFinished,
	}) => {
		const run = startWithOpenStdin(onTestFinished);
		// More than a pipe holds: the write completes only once the child has read most of it, so
		// its notice timer (started when it begins reading) is running by then, whatever the load.
		const first = "first part ".repeat(30_000);
		await new Promise<void>((resolve, reject) =>
			run.child.stdin.write(first, (error) => (error ? reject(error) : resolve())),
		);
		// Longer than the notice's delay from there: a notice shown despite the text would be due.
		await new Promise((resolve) => setTimeout(resolve, 2500));
		run.child.stdin.end("second part\n");
		expect(await run.closed).toBe(0);
		expect(run.output.stderr).toBe("");
		expect(run.output.stdout).toBe(`${first}second part\n`);
	});
});
