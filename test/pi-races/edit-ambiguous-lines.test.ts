/**
 * openclaw#21645: an `edit` whose oldText is found more than once failed with "Found 2 occurrences
 * of the text in <file>. The text must be unique. Please provide more context to make it unique."
 * and nothing about where: to extend the oldText the model had to read the whole file and hunt for
 * the copies, and agents (Codex, Claude Code) gave up and stopped instead.
 *
 * Replayed in a real session on real files: the model's ambiguous edits, then the retry the line
 * numbers make possible (a `read` of just those lines, an oldText extended with the line above).
 * What the user should see: the error names the line each copy starts on (copies that differ only
 * by quote style too, and the first ten of many); the retry lands, the file otherwise unchanged.
 * The count costs no memory per match: "aa" in 10 MB of "a" kept ten million offsets (350 MB).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { planEdits } from "../../src/tools/edit-diff.js";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { script, toolResultTexts } from "./helpers.js";

const cli = useCliProject("settle-pi-races-edit-ambiguous-lines-");

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

async function modelCalls(
	prepare: (cwd: string) => void,
	calls: { name: string; args: Record<string, unknown> }[],
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "edit"] });
	prepare(harness.tempDir);
	script(harness, [
		...calls.map((call) => fauxAssistantMessage([fauxToolCall(call.name, call.args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("fix the lookup");
	return harness;
}

const unique = "Please provide more context to make it unique.";
const hint = "read around them and extend the oldText with nearby lines that differ.";

const service = [
	"export function findUser(id) {",
	"  const row = users.get(id);",
	"  if (!row) return null;",
	"  return row;",
	"}",
	"",
	"export function findTeam(id) {",
	"  const row = teams.get(id);",
	"  if (!row) return null;",
	"  return row;",
	"}",
	"",
].join("\n");

describe("openclaw#21645: an ambiguous oldText, and where its copies are", () => {
	it("openclaw#21645: `if (!row) return null;` in two functions: the error names lines 3 and 9; the model reads lines 8–9, extends the oldText, and the edit lands", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "service.js"), service),
			[
				{
					name: "edit",
					args: {
						path: "service.js",
						edits: [{ oldText: "  if (!row) return null;", newText: "  if (!row) throw new Error(id);" }],
					},
				},
				{ name: "read", args: { path: "service.js", offset: 8, limit: 2 } },
				{
					name: "edit",
					args: {
						path: "service.js",
						edits: [
							{
								oldText: "  const row = teams.get(id);\n  if (!row) return null;",
								newText: "  const row = teams.get(id);\n  if (!row) throw new Error(id);",
							},
						],
					},
				},
			],
		);
		const [ambiguous, read, retry] = toolResultTexts(h);
		expect(ambiguous).toEqual({
			isError: true,
			text: `Found 2 occurrences of the text in service.js. The text must be unique. ${unique} They start on lines 3 and 9: ${hint}`,
		});
		expect(read).toMatchObject({ isError: false, text: expect.stringContaining("  if (!row) return null;") });
		expect(retry).toEqual({ isError: false, text: "Successfully replaced 1 block(s) in service.js." });
		expect(readFileSync(join(h.tempDir, "service.js"), "utf8")).toBe(
			service.replace("teams.get(id);\n  if (!row) return null;", "teams.get(id);\n  if (!row) throw new Error(id);"),
		);
	});

	it("openclaw#21645: copies with smart quotes an ASCII-quoted oldText matches tolerantly, in a multi-edit call, and a line found 12 times: the lines are named, the first ten of many", async () => {
		// A comment pasted from a PDF, its "ffi" ligatures (one character, three once folded) before the copies.
		const quotes =
			"// e\uFB03cient, o\uFB03ce, a\uFB03x, di\uFB03cult, su\uFB03x, o\uFB03cial, tra\uFB03c\nlog(\u201Cstart\u201D)\nrun()\nlog(\u201Cstart\u201D)\n";
		const twelve = Array.from({ length: 12 }, (_, i) => `step ${i}\n  done();\n`).join("");
		h = await modelCalls(
			(cwd) => {
				writeFileSync(join(cwd, "quotes.js"), quotes);
				writeFileSync(join(cwd, "steps.txt"), twelve);
			},
			[
				{
					name: "edit",
					args: {
						path: "quotes.js",
						edits: [
							{ oldText: "run()", newText: "run(1)" },
							{ oldText: 'log("start")', newText: 'log("begin")' },
						],
					},
				},
				{ name: "edit", args: { path: "steps.txt", edits: [{ oldText: "  done();", newText: "  finish();" }] } },
			],
		);
		expect(toolResultTexts(h).slice(0, 2)).toEqual([
			{
				isError: true,
				text: `Found 2 occurrences of edits[1] in quotes.js. Each oldText must be unique. ${unique} They start on lines 2 and 4: ${hint}`,
			},
			{
				isError: true,
				text: `Found 12 occurrences of the text in steps.txt. The text must be unique. ${unique} They start on lines 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 and later ones: ${hint}`,
			},
		]);
		expect(readFileSync(join(h.tempDir, "quotes.js"), "utf8")).toBe(quotes);
		expect(readFileSync(join(h.tempDir, "steps.txt"), "utf8")).toBe(twelve);
	});

	it("openclaw#21645: `,` in a one-line minified bundle, 20,000 times: the error names line 1, and the file is scanned for line breaks once, not once per match", () => {
		const bundle = "a,".repeat(20_000);
		// Characters String#indexOf looked at while the error was built: a cost count, not a clock.
		let scanned = 0;
		const indexOf = String.prototype.indexOf;
		const spy = vi.spyOn(String.prototype, "indexOf").mockImplementation(function (this: string, search, from) {
			const found = indexOf.call(this, search, from);
			scanned += (found === -1 ? this.length : found) - Math.max(0, from ?? 0);
			return found;
		});
		let message = "";
		try {
			planEdits(bundle, [{ oldText: ",", newText: ";" }], "bundle.min.js");
		} catch (error) {
			message = (error as Error).message;
		} finally {
			spy.mockRestore();
		}
		expect(message).toBe(
			`Found 20000 occurrences of the text in bundle.min.js. The text must be unique. ${unique} They start on line 1: ${hint}`,
		);
		expect(scanned).toBeLessThan(4 * bundle.length);
	});

	it("openclaw#21645: settle -p, an edit of `aa` in a 10 MB file of `a` (9,999,999 overlapping matches) within a 64 MB heap: the tool says how many and line 1, the file untouched (every offset was kept: out of memory)", () => {
		const big = join(cli.project, "big.txt");
		writeFileSync(big, "a".repeat(10_000_000));
		const steps = join(cli.dir, "steps.json");
		writeFileSync(
			steps,
			JSON.stringify([
				{ toolCalls: [{ name: "edit", arguments: { path: "big.txt", oldText: "aa", newText: "b" } }] },
				"gave up",
			]),
		);
		const run = runSettle(["--faux-script", steps, "--no-session", "--mode", "json", "-p", "shorten it"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NODE_OPTIONS: "--max-old-space-size=64" },
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const ended = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line))
			.find((event) => event.type === "tool_execution_end");
		expect(ended).toMatchObject({
			toolName: "edit",
			isError: true,
			result: {
				content: [
					{
						type: "text",
						text: `Found 9999999 occurrences of the text in big.txt. The text must be unique. ${unique} They start on line 1: ${hint}`,
					},
				],
			},
		});
		expect(readFileSync(big, "utf8")).toBe("a".repeat(10_000_000));
	});
});
