/**
 * PostHog/code#820: Codex found no ripgrep installed and fell back to `grep -R`, slower and blind
 * to .gitignore; oh-my-openagent#3003: with no `rg` on PATH (common on Windows and fresh installs)
 * the grep tool fell back to GNU grep silently, its noisy results distrusted and re-read file by
 * file. What the user should see: the search tools working the same with no rg, fd or grep on
 * PATH, .gitignore honoured. Replayed with a real `settle -p` whose PATH holds no program at all.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-no-rg-");

/** A guard against a hang only (the run takes about a second): a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

describe("PostHog/code#820, oh-my-openagent#3003: no ripgrep on PATH", () => {
	it("PostHog/code#820: with PATH an empty folder, grep, find and ls answer from the project, dist/ (gitignored) left out, and the run exits 0 with nothing on stderr", () => {
		mkdirSync(join(cli.project, "src"));
		mkdirSync(join(cli.project, "dist"));
		writeFileSync(join(cli.project, ".gitignore"), "dist/\n");
		writeFileSync(join(cli.project, "src/app.ts"), "// TODO: retry\nexport {};\n");
		writeFileSync(join(cli.project, "dist/app.js"), "// TODO: retry\n");
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{
					toolCalls: [
						{ name: "grep", arguments: { pattern: "TODO" } },
						{ name: "find", arguments: { pattern: "*.{ts,js}" } },
						{ name: "ls", arguments: {} },
					],
				},
				"Searched.",
			]),
		);
		const emptyPath = mkdtempSync(join(tmpdir(), "settle-empty-path-"));
		const run = runSettle(
			["--faux-script", script, "--tools", "grep,find,ls", "--no-session", "--mode", "json", "-p", "go"],
			{ cwd: cli.project, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS, env: { PATH: emptyPath } },
		);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		// Parallel calls: ends come in the order they finish.
		const results = toolEnds(run.stdout).map((end) => [end.toolName, end.isError, end.result.content[0]?.text]);
		expect(Object.fromEntries(results.map(([name, ...rest]) => [name, rest]))).toEqual({
			grep: [false, "src/app.ts:1: // TODO: retry"],
			find: [false, "src/app.ts"],
			ls: [false, ".gitignore\ndist/\nsrc/"],
		});
	});
});
