/**
 * A TypeScript script from test/fixtures run as a real Node process, its output collected: what the
 * lifetime tests use to see whether a process ends by itself. The script is bundled with the
 * sources it imports into one ESM file under the repository's `.tmp/` (so its packages resolve from
 * node_modules) and run by plain `node`: through tsx each child spent ~0.9 s of CPU loading
 * Settle's sources. With `SETTLE_TEST_CLI=sources` (as for the `settle` children) they still go
 * through tsx, and so does a script that runs the CLI's `main()`: bundled with it, main's is-entry
 * check would take the script for `settle` itself and exit before the script's own lines.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { buildSync } from "esbuild";
import { afterAll } from "vitest";
import { CLI_FROM_SOURCES, ROOT, trackChild } from "../cli/helpers.js";

const FROM_SOURCES = process.env.SETTLE_TEST_CLI === "sources";
let bundleDir: string | undefined;
const bundled = new Map<string, string>();
afterAll(() => {
	if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

/** The `node` arguments that run `script`: its bundle (made on first use), or tsx on the sources. */
function scriptArgs(script: string, fromSources: boolean): string[] {
	if (FROM_SOURCES || fromSources) return [CLI_FROM_SOURCES[0]!, CLI_FROM_SOURCES[1]!, script];
	let out = bundled.get(script);
	if (!out) {
		mkdirSync(join(ROOT, ".tmp"), { recursive: true });
		bundleDir ??= mkdtempSync(join(ROOT, ".tmp", "lifetime-scripts-"));
		out = join(bundleDir, basename(script).replace(/\.ts$/, ".mjs"));
		buildSync({
			entryPoints: [script],
			outfile: out,
			bundle: true,
			packages: "external",
			platform: "node",
			format: "esm",
			target: "node20",
			logLevel: "error",
		});
		bundled.set(script, out);
	}
	return [out];
}

/** A hang detector, not a speed check: a script still alive after this is killed and fails the test. */
const HANG_MS = 30_000;

/** What the script printed and how it ended (`code` null when the hang detector killed it). */
export interface ScriptRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

/**
 * Runs `script` with `args` in `cwd`; `input` (if given) is written to its stdin, which is then
 * closed. `fromSources`: through tsx on the sources, not bundled (see above).
 */
export async function runScript(
	script: string,
	args: string[],
	options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; fromSources?: boolean },
): Promise<ScriptRun> {
	const child = spawn(process.execPath, [...scriptArgs(script, options.fromSources ?? false), ...args], {
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
