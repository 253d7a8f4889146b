/** Where sessions live on disk: agent dir, per-cwd session dir, file names. */

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import { loadCrypto } from "../lazy-deps.js";
import { getDefaultAgentDir } from "../settings/paths.js";
import { makeFolders, PRIVATE_FOLDER_MODE } from "./folders.js";

/** The longest file name most file systems take (ext4, APFS, NTFS: 255 bytes, UTF-8 on Linux). */
const NAME_MAX_BYTES = 255;

/**
 * The session directory for a cwd, computed as pi does (`<agentDir>/sessions/--<cwd mangled>--`), without creating it.
 * A name longer than 255 bytes (a deep path, or CJK names at 3 bytes a character) could not be
 * created (`ENAMETOOLONG`, pi#9836): it keeps as much of the path as fits, then `-<hash of the cwd>--`.
 *
 * @example
 * ```ts
 * getDefaultSessionDirPath("/home/me/project", "/home/me/.settle/agent");
 * // "/home/me/.settle/agent/sessions/--home-me-project--"
 * ```
 */
export function getDefaultSessionDirPath(cwd: string, agentDir: string = getDefaultAgentDir()): string {
	const resolved = resolve(cwd);
	const mangled = resolved.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-");
	return join(resolve(agentDir), "sessions", sessionFolderName(resolved, mangled));
}

/** `--<mangled>--`, or, past {@link NAME_MAX_BYTES}, the longest prefix of it that fits before `-<hash>--`. */
function sessionFolderName(resolved: string, mangled: string): string {
	const whole = `--${mangled}--`;
	if (Buffer.byteLength(whole, "utf8") <= NAME_MAX_BYTES) return whole;
	const suffix = `-${loadCrypto().createHash("sha256").update(resolved).digest("hex").slice(0, 16)}--`;
	let prefix = "--";
	let bytes = suffix.length + prefix.length;
	// By code point, so a character is never cut in half.
	for (const char of mangled) {
		const size = Buffer.byteLength(char, "utf8");
		if (bytes + size > NAME_MAX_BYTES) break;
		prefix += char;
		bytes += size;
	}
	return `${prefix}${suffix}`;
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
