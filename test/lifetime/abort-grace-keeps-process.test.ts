/**
 * `abort()` always ends a run: a tool that ignores its abort signal is given up on after the 1 s
 * grace (README, "An abort at any moment"). In a real process that must hold even when nothing else
 * keeps Node alive — a script awaiting `prompt()` at top level, whose tool waits on something only
 * the process itself could resolve. The grace is what the script is waiting for, so it keeps the
 * process alive until it fires.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../cli/helpers.js";
import { orphanToolMessages } from "../pi-races/disk-harness.js";
import { runScript } from "./script-process.js";

const SCRIPT = join(ROOT, "test/fixtures/lifetime/abort-stubborn-tool.ts");

let dir: string | undefined;
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
	dir = undefined;
});

describe("the abort grace in a real process", () => {
	it("regression: a script awaiting prompt() while its aborted tool ignores the signal ends with the tool given up on, instead of Node exiting mid-run with nothing printed", async () => {
		dir = mkdtempSync(join(tmpdir(), "settle-abort-grace-"));
		const { code, stdout, stderr } = await runScript(SCRIPT, [dir, join(dir, "agent")], { cwd: dir });

		expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
		// The script got past its `await session.prompt(…)` (cut off, it ends silently, output-less).
		expect(stdout).toContain('"sessionFile"');
		const { result, sessionFile } = JSON.parse(stdout) as { result: unknown; sessionFile: string };
		expect(result).toMatchObject({ role: "toolResult", toolName: "wait_for_approval", isError: true });
		expect(JSON.stringify(result)).toContain("did not stop within 1000 ms of the abort");
		// The file ends the run too: no tool call is left without its result.
		expect(orphanToolMessages(sessionFile)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
	});
});
