/**
 * A line cut for length between the two halves of an emoji, replayed against a real `settle --mode
 * json` process over a real file. claude-code#56064: a tool error cut mid-emoji left a lone `\ud83d`
 * in the session file; every request after it was refused ("no low surrogate in string") and the
 * session could not be resumed. DeepSeek-Reasonix PR 1976: a tool result trimmed inside a surrogate
 * pair made DeepSeek's JSON parser refuse the turn. Settle's grep tool (as pi 0.73.1's) cut a long
 * matching line at 500 UTF-16 units: an emoji on the boundary left its high half, and every
 * `--mode json` line carrying the result held a lone surrogate that a strict reader (serde_json) or
 * a UTF-8 writer (Python's) refuses. What a consumer should see: the cut before the emoji, no lone
 * surrogate in the stream or the session file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-cut-surrogates-");

/** `JSON.stringify` escapes a surrogate only when it is lone: any such escape is one. */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;

describe("claude-code#56064: a line cut mid-emoji leaves a lone surrogate in the stream and the session file", () => {
	it("claude-code#56064: settle --mode json: grep's 500-character cut of a line whose emoji straddles it keeps 499 characters and drops the emoji; no stdout line and no session entry holds a lone surrogate", () => {
		// 499 ASCII characters, then 😀 (two UTF-16 units: the 500th and 501st), then the match.
		writeFileSync(join(cli.project, "notes.txt"), `${"a".repeat(499)}😀 needle\n`);
		const script = join(cli.dir, "grep-script.json");
		writeFileSync(
			script,
			JSON.stringify([{ toolCalls: [{ name: "grep", arguments: { pattern: "needle" } }] }, "done"]),
		);
		const sessionFile = join(cli.dir, "cut.jsonl");
		const run = runSettle(
			["--faux-script", script, "--tools", "grep", "--session", sessionFile, "--mode", "json", "-p", "find it"],
			{ cwd: cli.project, agentDir: cli.agentDir, timeoutMs: 60_000 },
		);
		expect(run.code).toBe(0);
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; result?: { content: { text: string }[] } });
		const end = events.find((event) => event.type === "tool_execution_end");
		expect(end!.result!.content[0]!.text).toContain(`notes.txt:1: ${"a".repeat(499)}... [truncated]`);
		expect(run.stdout).not.toMatch(LONE_SURROGATE_ESCAPE);
		expect(readFileSync(sessionFile, "utf8")).not.toMatch(LONE_SURROGATE_ESCAPE);
	});
});
