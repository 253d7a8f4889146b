/**
 * inspect_ai#4656 (and the same cut in smithers PR 191, agent-os#2014): tool output cut to a byte
 * limit by slicing its UTF-8 bytes split a character at the cut: the kept text began or ended with
 * U+FFFD (an emoji became up to three of them), so the "50 KB" result was over its limit and held
 * characters the command never printed. What the model should get: the end of the line from a
 * whole character, within the limit, nothing replaced.
 *
 * A real `settle --mode json` child process running real bash over a real file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-byte-limit-characters-");

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LIMIT = 50 * 1024;

describe("inspect_ai#4656: a byte limit cut a character in half", () => {
	it("inspect_ai#4656: one 127 KB line of CJK and emoji keeps its last 50 KB from a whole character: no U+FFFD, no half emoji, within the limit; the full-output file has every byte", () => {
		// 10 bytes a unit (3 + 3 + 4), then "ends": the 50 KB cut falls inside 本.
		const line = `${"日本😀".repeat(13_000)}ends`;
		writeFileSync(join(cli.project, "long.txt"), line);
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "cat long.txt" } }] }, "done"]),
		);
		const run = runSettle(["--faux-script", script, "--tools", "bash", "--mode", "json", "-p", "show it"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { TMPDIR: cli.dir },
		});
		expect(run.code).toBe(0);
		const [text] = toolEnds(run.stdout).map((end) => end.result.content[0]!.text!);

		const [shown, note] = text!.split("\n\n[");
		expect(shown).not.toContain("\ufffd");
		expect(shown).not.toMatch(LONE_SURROGATE);
		expect(line.endsWith(shown!)).toBe(true);
		// From the first whole character after the cut: at most 3 bytes short of the limit.
		expect(Buffer.byteLength(shown!)).toBeLessThanOrEqual(LIMIT);
		expect(Buffer.byteLength(shown!)).toBeGreaterThan(LIMIT - 4);
		const path = /Full output: (\S+)\]$/.exec(note!)![1]!;
		expect(note).toMatch(/^Showing last 50\.0KB of line 1 \(line is 127\.0KB\)\. Full output: /);
		expect(readFileSync(path, "utf8")).toBe(line);
	});
});
