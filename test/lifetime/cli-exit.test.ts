/**
 * The CLI ends by itself: `main()` (what `settle` runs before its final `process.exit`) leaves no
 * handle that would keep a host process alive, and releases the session file's lock, in print mode,
 * JSON mode and RPC mode.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, useCliProject } from "../cli/helpers.js";
import { locksUnder, sessionFilesUnder } from "../runtime/helpers.js";
import { runScript, type ScriptRun } from "./script-process.js";

const RUN_MAIN = join(ROOT, "test/fixtures/lifetime/run-main-without-exit.ts");

const project = useCliProject("settle-lifetime-cli-");

function runMain(args: string[], input: string): Promise<ScriptRun> {
	return runScript(RUN_MAIN, args, {
		cwd: project.project,
		env: { ...process.env, SETTLE_AGENT_DIR: project.agentDir },
		input,
		fromSources: true,
	});
}

describe("the CLI exits by itself", () => {
	it.each([
		["print mode", ["--faux", "-p", "hello"], ""],
		["json mode", ["--faux", "--mode", "json", "hello"], ""],
		["rpc mode", ["--faux", "--rpc"], `${JSON.stringify({ type: "prompt", message: "hello" })}\n`],
	])("%s: no handle left after main(), session file written, lock released", async (_mode, args, input) => {
		const run = await runMain(args, input);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stderr).toMatch(/active-resources-after-main: /);
		expect(sessionFilesUnder(project.agentDir)).toHaveLength(1);
		expect(locksUnder(project.dir)).toEqual([]);
	});
});
