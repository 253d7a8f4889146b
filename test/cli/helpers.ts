/** Runs the `settle` command from the sources as a user would: a real child process (`node --import tsx`). */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** `node` arguments that start the CLI from its TypeScript sources. */
export const CLI_FROM_SOURCES = [
	"--import",
	pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href,
	join(ROOT, "src/cli/main.ts"),
];

export interface CliRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `settle <args>` in `cwd` with `SETTLE_AGENT_DIR=agentDir`, stdin `input` (default empty). */
export function runSettle(args: string[], options: { cwd: string; agentDir: string; input?: string }): CliRun {
	const result = spawnSync(process.execPath, [...CLI_FROM_SOURCES, ...args], {
		cwd: options.cwd,
		input: options.input ?? "",
		encoding: "utf8",
		env: { ...process.env, SETTLE_AGENT_DIR: options.agentDir },
	});
	return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
