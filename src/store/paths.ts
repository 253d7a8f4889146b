/** Where sessions live on disk: agent dir, per-cwd session dir, file names. */
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Settle's agent directory: `$SETTLE_AGENT_DIR` when set, else `~/.settle/agent`.
 *
 * @example
 * ```ts
 * getDefaultAgentDir(); // "/home/me/.settle/agent"
 * ```
 */
export function getDefaultAgentDir(): string {
	const fromEnv = process.env.SETTLE_AGENT_DIR;
	if (fromEnv) return resolve(fromEnv.startsWith("~/") ? join(homedir(), fromEnv.slice(2)) : fromEnv);
	return join(homedir(), ".settle", "agent");
}

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
	if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
	return dir;
}

/** `<ISO timestamp with ':' and '.' replaced by '-'>_<sessionId>.jsonl` */
export function sessionFileName(isoTimestamp: string, sessionId: string): string {
	return `${isoTimestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
