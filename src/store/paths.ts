/** Where sessions live on disk: agent dir, per-cwd session dir, file names. */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import { getDefaultAgentDir } from "../settings/paths.js";
import { makeFolders, PRIVATE_FOLDER_MODE } from "./folders.js";

/**
 * The session directory for a cwd, computed as pi does (`<agentDir>/sessions/--<cwd mangled>--`), without creating it.
 *
 * @example
 * ```ts
 * getDefaultSessionDirPath("/home/me/project", "/home/me/.settle/agent");
 * // "/home/me/.settle/agent/sessions/--home-me-project--"
 * ```
 */
export function getDefaultSessionDirPath(cwd: string, agentDir: string = getDefaultAgentDir()): string {
	const safe = `--${resolve(cwd)
		.replace(/^[/\\]/, "")
		.replace(/[/\\:]/g, "-")}--`;
	return join(resolve(agentDir), "sessions", safe);
}

/**
 * Like {@link getDefaultSessionDirPath}, and creates the directory (pi's `getDefaultSessionDir`).
 *
 * @example
 * ```ts
 * const dir = getDefaultSessionDir(process.cwd(), "/tmp/agent");
 * ```
 */
export function getDefaultSessionDir(cwd: string, agentDir: string = getDefaultAgentDir()): string {
	const dir = getDefaultSessionDirPath(cwd, agentDir);
	if (!existsSync(dir)) createSessionFolder(dir);
	return dir;
}

/**
 * Creates a session folder (and its parents). Throws `SettleError` `IO` naming the folder and saying
 * where to point sessions instead, rather than Node's bare `ENOTDIR` / `EACCES` — and at once under
 * /proc or /sys, where Node 20's recursive `mkdirSync` spins forever ({@link makeFolders}).
 */
export function createSessionFolder(dir: string): void {
	try {
		makeFolders(dir, { mode: PRIVATE_FOLDER_MODE });
	} catch (error) {
		throw new SettleError(
			"IO",
			`Cannot create the session folder ${dir}: ${errorMessage(error)}. Point sessionDir (settings), SETTLE_AGENT_DIR or the agentDir you passed in code at a writable folder.`,
			{ cause: error, details: { path: dir } },
		);
	}
}

/** `<ISO timestamp with ':' and '.' replaced by '-'>_<sessionId>.jsonl` */
export function sessionFileName(isoTimestamp: string, sessionId: string): string {
	return `${isoTimestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
