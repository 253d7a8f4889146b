/**
 * A TypeScript script from test/fixtures run as a real Node process (through tsx, as the CLI from
 * sources), its output collected: what the lifetime tests use to see whether a process ends by itself.
 */
import { spawn } from "node:child_process";
import { CLI_FROM_SOURCES, trackChild } from "../cli/helpers.js";

/** A hang detector, not a speed check: a script still alive after this is killed and fails the test. */
const HANG_MS = 30_000;

/** What the script printed and how it ended (`code` null when the hang detector killed it). */
export interface ScriptRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `script` with `args` in `cwd`; `input` (if given) is written to its stdin, which is then closed. */
export async function runScript(
	script: string,
	args: string[],
	options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string },
): Promise<ScriptRun> {
	const child = spawn(process.execPath, [CLI_FROM_SOURCES[0]!, CLI_FROM_SOURCES[1]!, script, ...args], {
		cwd: options.cwd,
		...(options.env ? { env: options.env } : {}),
		stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	child.stdout?.on("data", (chunk: Buffer) => {
		stdout += chunk.toString();
	});
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	if (options.input !== undefined) child.stdin?.end(options.input);
	const hang = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
	const code = await trackChild(child).finally(() => clearTimeout(hang));
	return { code, stdout, stderr };
}
