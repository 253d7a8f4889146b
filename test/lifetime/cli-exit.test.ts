/**
 * The CLI ends by itself: `main()` (what `settle` runs before its final `process.exit`) leaves no
 * handle that would keep a host process alive, and releases the session file's lock, in print mode,
 * JSON mode and RPC mode.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_FROM_SOURCES, ROOT, trackChild, useCliProject } from "../cli/helpers.js";
import { locksUnder, sessionFilesUnder } from "../runtime/helpers.js";

const RUN_MAIN = join(ROOT, "test/fixtures/lifetime/run-main-without-exit.ts");
/** A hang detector, not a speed check: a run still alive after this is killed and fails the test. */
const HANG_MS = 30_000;

const project = useCliProject("settle-lifetime-cli-");

async function runMain(
	args: string[],
	input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const child = spawn(process.execPath, [CLI_FROM_SOURCES[0]!, CLI_FROM_SOURCES[1]!, RUN_MAIN, ...args], {
		cwd: project.project,
		env: { ...process.env, SETTLE_AGENT_DIR: project.agentDir },
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk: Buffer) => {
		stdout += chunk.toString();
	});
	child.stderr.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	child.stdin.end(input);
	const hang = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
	const code = await trackChild(child).finally(() => clearTimeout(hang));
	return { code, stdout, stderr };
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
