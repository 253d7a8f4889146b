// biome-ignore-all lint/suspicious/noTemplateCurlyInString: template placeholders like ${@:2} are the subject of these tests
/**
 * pi's reports about prompt template arguments, replayed with the real `settle` CLI and pi 0.73.1's
 * own CLI side by side (`pi-peer`), both offline on the faux model, which echoes the prompt it got:
 * stdout is the expanded template. pi#4553: a label, a blank line and a description typed after
 * `/arg-test` — the description's first word was glued to `$1`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DiffDirs, makeDiffDirs, runPiCli, runSettleCli } from "../cli/pi-diff-process.js";

let root: string;
let dirs: DiffDirs;

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "settle-pi-races-templates-"));
	dirs = makeDiffDirs(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The report's template, in both CLIs' global prompts folder. */
function argTestTemplate(): void {
	const body =
		"---\ndescription: test pi's prompt template argument substitution\n---\n\nParse the name-value pairs below, and return the names and values back.\n\n- arg1: $1\n- rest: ${@:2}\n";
	for (const agent of [dirs.piAgent, dirs.settleAgent]) {
		mkdirSync(join(agent, "prompts"), { recursive: true });
		writeFileSync(join(agent, "prompts", "arg-test.md"), body);
	}
}

const HEAD = "Parse the name-value pairs below, and return the names and values back.\n\n";

describe("pi#4553: prompt template arguments after a line break", () => {
	it("pi#4553: `/arg-test short-label⏎⏎Verbose description...`: $1 is the label and ${@:2} the whole description; pi 0.73.1 glues the description's first word to $1", async () => {
		argTestTemplate();
		const prompt = "/arg-test short-label\n\nVerbose description of the change.";
		const settle = await runSettleCli(dirs, ["--no-session", "-p", prompt]);
		expect(settle.code, settle.stderr).toBe(0);
		expect(settle.stdout).toBe(`${HEAD}- arg1: short-label\n- rest: Verbose description of the change.\n`);

		const pi = await runPiCli(dirs, ["--no-session", "-p", prompt]);
		expect(pi.code, pi.stderr).toBe(0);
		expect(pi.stdout).toBe(`${HEAD}- arg1: short-label\n\nVerbose\n- rest: description of the change.\n`);
	});

	it("pi#4553: the report's passing case (all on one line) and a quoted argument spanning lines expand the same as before", async () => {
		argTestTemplate();
		const oneLine = await runSettleCli(dirs, ["--no-session", "-p", "/arg-test label-1 Here is some description #1."]);
		expect(oneLine.stdout).toBe(`${HEAD}- arg1: label-1\n- rest: Here is some description #1.\n`);
		const quoted = await runSettleCli(dirs, ["--no-session", "-p", '/arg-test "two\nlines" rest']);
		expect(quoted.stdout).toBe(`${HEAD}- arg1: two\nlines\n- rest: rest\n`);
	});
});

describe("pi#4553: line breaks separate arguments, and the text they join keeps its lines", () => {
	it("a pasted stack trace after `/fix`: $ARGUMENTS keeps one line per line; `${@:2}` after a label keeps the description's lines", async () => {
		for (const agent of [dirs.settleAgent]) {
			mkdirSync(join(agent, "prompts"), { recursive: true });
			writeFileSync(join(agent, "prompts", "fix.md"), "Fix this:\n$ARGUMENTS\n");
			writeFileSync(join(agent, "prompts", "note.md"), "[$1]\n${@:2}\n");
		}
		const trace = "/fix TypeError: boom\n    at a (src/x.ts:1:2)\r\n    at b (src/y.ts:3:4)";
		const fixed = await runSettleCli(dirs, ["--no-session", "-p", trace]);
		expect(fixed.code, fixed.stderr).toBe(0);
		expect(fixed.stdout.trimEnd()).toBe("Fix this:\nTypeError: boom\nat a (src/x.ts:1:2)\nat b (src/y.ts:3:4)");
		const note = await runSettleCli(dirs, ["--no-session", "-p", "/note todo\n\nfirst line\nsecond line"]);
		expect(note.stdout.trimEnd()).toBe("[todo]\nfirst line\nsecond line");
		// The name itself may end the line: `/fix`, a new line, then the paste (pi sends it as plain text).
		const pasted = await runSettleCli(dirs, ["--no-session", "-p", "/fix\nTypeError: boom\n    at a (src/x.ts:1:2)"]);
		expect(pasted.stdout.trimEnd()).toBe("Fix this:\nTypeError: boom\nat a (src/x.ts:1:2)");
	});
});
