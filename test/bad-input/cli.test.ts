import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSettle } from "../cli/helpers.js";

let dir: string;
let agentDir: string;
let project: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-bad-cli-"));
	agentDir = join(dir, "agent");
	project = join(dir, "project");
	mkdirSync(agentDir);
	mkdirSync(project);
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

function settle(args: string[]) {
	return runSettle(args, { cwd: project, agentDir });
}

/** Exit `code`, nothing on stdout, one `Error:` line containing every `mentions`, maybe a `--help` hint, no stack. */
function expectCleanFailure(run: ReturnType<typeof settle>, code: number, ...mentions: string[]): void {
	expect(run.stdout).toBe("");
	expect(run.code).toBe(code);
	const lines = run.stderr.trimEnd().split("\n");
	expect(lines[0]).toMatch(/^Error: /);
	for (const text of mentions) expect(lines[0]).toContain(text);
	expect(lines.slice(1).every((line) => line === "Run settle --help for the options.")).toBe(true);
	expect(run.stderr).not.toMatch(/\n\s+at /);
}

describe("settle with bad input (g)", () => {
	it("an unknown flag: exit 2 naming it", () => {
		expectCleanFailure(settle(["--faux", "--bogus", "-p", "hi"]), 2, "Unknown option: --bogus");
	});

	it("a session id that matches nothing: exit 2 naming the id and where it looked", () => {
		expectCleanFailure(settle(["--faux", "--session", "abc123", "-p", "hi"]), 2, "abc123", join(agentDir, "sessions"));
	});

	it("regression: a session path that is a directory said 'EISDIR: illegal operation' — now exit 3 saying it is a directory, not a session file", () => {
		expectCleanFailure(settle(["--faux", "--session", dir, "-p", "hi"]), 3, dir, "is a directory");
	});

	it("a session file that is not a session: exit 3 naming it; the file is untouched", () => {
		const file = join(dir, "notes.jsonl");
		writeFileSync(file, "shopping list\n");
		expectCleanFailure(settle(["--faux", "--session", file, "-p", "hi"]), 3, file, "not a valid pi session");
		expect(readFileSync(file, "utf8")).toBe("shopping list\n");
	});

	it("regression: a new --session path in a folder that cannot be made failed only after the model answered (exit 1, advice about sessionDir) — now exit 3 before the model is called, naming the folder", () => {
		const blocker = join(dir, "a-file");
		writeFileSync(blocker, "not a folder");
		const file = join(blocker, "s.jsonl");
		expectCleanFailure(
			settle(["--faux", "--session", file, "-p", "hi"]),
			3,
			`Cannot start a session at ${file}: ${blocker} is not a folder`,
			"--no-session",
		);
		expect(readFileSync(blocker, "utf8")).toBe("not a folder");
	});

	it("a model that does not exist: exit 2 naming it and the known providers", () => {
		expectCleanFailure(settle(["--faux", "--model", "nope/nope", "-p", "hi"]), 2, "nope/nope", "known providers: faux");
	});

	it("corrupt global settings: exit 1 naming the file; the file keeps its bytes", () => {
		const file = join(agentDir, "settings.json");
		writeFileSync(file, '{"defaultThinkingLevel": ');
		expectCleanFailure(settle(["--faux", "-p", "hi"]), 1, file, "Fix the file", "settle does not start until then");
		expect(readFileSync(file, "utf8")).toBe('{"defaultThinkingLevel": ');
	});

	it("a wrong-typed project setting: exit 1 naming the file and the key", () => {
		mkdirSync(join(project, ".settle"));
		const file = join(project, ".settle", "settings.json");
		writeFileSync(file, JSON.stringify({ retry: { enabled: "sometimes" } }));
		expectCleanFailure(settle(["--faux", "-p", "hi"]), 1, file, '"retry.enabled"', "settle does not start until then");
	});

	it("regression: a settings default model its provider does not have (a typo) was replaced by another model without a word — now a Warning naming both; not with --model or on resume", () => {
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProvider: "faux", defaultModel: "faux-9" }));
		const run = settle(["--faux", "-p", "hi"]);
		expect([run.code, run.stdout]).toEqual([0, "hi\n"]);
		expect(run.stderr).toContain(
			'Warning: The settings\' default model faux/faux-9 is not a model of faux, so this session uses faux/faux-1. Fix "defaultModel"',
		);
		for (const args of [
			["--faux", "--model", "faux/faux-1", "-p", "hi"],
			["--faux", "-c", "-p", "again"],
		]) {
			const quiet = settle(args);
			expect(quiet.code).toBe(0);
			expect(quiet.stderr).not.toContain("default model");
		}
	});

	it("corrupt auth.json: exit 1 naming the file and the way out; the file keeps its bytes", () => {
		const file = join(agentDir, "auth.json");
		writeFileSync(file, "{oops");
		const run = settle(["--model", "anthropic/claude-sonnet-4-5", "-p", "hi"]);
		expectCleanFailure(run, 1, file, "fix or delete it");
		// pi#7779: the refusal must not promise that keys from the environment still work (the run stops).
		expect(run.stderr).not.toContain("environment");
		expect(readFileSync(file, "utf8")).toBe("{oops");
	});

	it("regression: `--session <file>` resumed a file with a malformed middle line without a word — now a Warning naming the file and the line; the line stays on disk", () => {
		const file = join(dir, "s.jsonl");
		expect(settle(["--faux", "--session", file, "-p", "first"]).code).toBe(0);
		const lines = readFileSync(file, "utf8").trimEnd().split("\n");
		const broken = '{"type":"message", broken';
		lines.splice(2, 1, broken);
		writeFileSync(file, `${lines.join("\n")}\n`);

		const run = settle(["--faux", "--session", file, "-p", "second"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("second\n");
		expect(run.stderr).toContain(`Warning: ${file}: Line 3 skipped: not valid JSON`);
		const after = readFileSync(file, "utf8").split("\n");
		expect(after[2]).toBe(broken);
		expect(after.slice(0, lines.length)).toEqual(lines);
	});

	it("regression: `-c` cut a torn last line off and set it aside without a word — now a Warning naming the line and where its bytes went", () => {
		expect(settle(["--faux", "-p", "first"]).code).toBe(0);
		const sessions = join(agentDir, "sessions", readdirSync(join(agentDir, "sessions"))[0]!);
		const file = join(sessions, readdirSync(sessions)[0]!);
		const whole = readFileSync(file, "utf8");
		writeFileSync(file, `${whole}{"type":"message","id":"torn`);

		const run = settle(["--faux", "-c", "-p", "second"]);
		expect(run.code).toBe(0);
		const warning = run.stderr.split("\n").find((line) => line.includes("cut off mid-write"));
		expect(warning?.startsWith(`Warning: ${file}: Line 7 (the last, 28 bytes) was cut off mid-write`)).toBe(true);
		const aside = /moved to (\S+)\.$/.exec(warning!)?.[1];
		expect(readFileSync(aside!, "utf8")).toBe('{"type":"message","id":"torn');
		expect(readFileSync(file, "utf8").startsWith(whole)).toBe(true);
	});

	it("regression: an --extension file with a syntax error printed a multi-line error — now one line naming the file", () => {
		const file = join(dir, "broken.ts");
		writeFileSync(file, "export default (pi) => { pi.on(\n");
		expectCleanFailure(settle(["--faux", "-e", file, "-p", "hi"]), 1, "Failed to load extension", file);
	});

	it("regression: an extension in the agent folder that throws on load stopped settle saying only what failed — now it also says how to start anyway (--no-extensions), and that works", () => {
		mkdirSync(join(agentDir, "extensions"));
		const file = join(agentDir, "extensions", "broken.ts");
		writeFileSync(file, 'export default () => { throw new Error("boom at load"); };\n');
		expectCleanFailure(settle(["--faux", "-p", "hi"]), 1, "boom at load", file, "run with --no-extensions");
		const run = settle(["--faux", "--no-extensions", "-p", "hi"]);
		expect([run.code, run.stdout]).toEqual([0, "hi\n"]);
	});

	it("regression: an -e extension that throws on load said only what failed — now it names the -e to leave out", () => {
		writeFileSync(join(project, "broken.ts"), 'throw new Error("boom at import");\n');
		expectCleanFailure(
			settle(["--faux", "-e", "./broken.ts", "-p", "hi"]),
			1,
			"boom at import",
			"run without -e ./broken.ts",
		);
	});

	it("regression: an --extension path that does not exist was ignored (exit 0) — now exit 1 naming it", () => {
		expectCleanFailure(
			settle(["--faux", "-e", join(dir, "missing.ts"), "-p", "hi"]),
			1,
			"Extension path does not exist",
			"missing.ts",
		);
	});
});

describe("settle --rpc with bad input", () => {
	it("regression: a line without a command type answered 'Failed to parse command: no type' — now says what a command is; the server goes on", () => {
		const result = runSettle(["--rpc", "--faux", "--no-session"], {
			cwd: project,
			agentDir,
			input: `{"id":"1"}\nnot json\n${JSON.stringify({ id: "2", type: "get_state" })}\n`,
		});
		expect(result.code).toBe(0);
		const lines = result.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, unknown>)
			.filter((line) => line.type === "response");
		expect(lines[0]).toMatchObject({ success: false, error: expect.stringContaining('with a string "type"') });
		expect(lines[1]).toMatchObject({ success: false, error: expect.stringContaining("Failed to parse command") });
		expect(lines[2]).toMatchObject({ id: "2", success: true });
		expect(result.stderr).not.toMatch(/\n\s+at /);
	});
});
