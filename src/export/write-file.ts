/**
 * Writing an export (the HTML page, the branch as JSONL) without harming what is on disk: never
 * over the session file it comes from, never half a file (a temp file and a rename), and a typed
 * error that says what to do. Light: no page template here (session-stats imports it).
 */
import { chmodSync, closeSync, openSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { SettleError } from "../errors.js";
import { isSpecialFile, makeFolders, outputAdvice, replacementMode } from "../store/folders.js";

/**
 * Throws `INVALID_ARGUMENT` when `outputPath` is the session file itself (same path, or a link to
 * it): writing there would replace the session (and a live session would go on appending to the
 * replaced file, losing every later message).
 */
export function refuseSessionFileAsOutput(
	sessionFile: string | undefined,
	outputPath: string,
	what: string,
	defaultName: string,
): void {
	if (sessionFile === undefined || !sameFile(outputPath, sessionFile)) return;
	throw new SettleError(
		"INVALID_ARGUMENT",
		`Not writing the ${what} over the session file ${resolve(sessionFile)} itself: it would replace the session. ` +
			`Give another output path (e.g. ${defaultName}).`,
		{ details: { path: resolve(sessionFile) } },
	);
}

/**
 * Writes `text` — one string, or pieces written one after the other (an export can be longer than
 * any one string, pi#5231) — to a temp file next to `path` (creating missing folders), then renames
 * it over `path`. A new file is private (0600: an export holds the conversation); a file replaced keeps its
 * permissions. A device or a pipe (`/dev/stdout`) is written in place: renaming over it would replace it.
 * Throws `IO` naming the path (a folder, no permission, a full disk); the temp file is gone then.
 */
export function writeFileAtomically(path: string, text: string | Iterable<string>, what: string): void {
	const target = resolve(path);
	if (isDirectory(target)) {
		throw new SettleError(
			"IO",
			`Cannot write the ${what} to ${target}: it is a folder. Choose a writable path: a file name, e.g. one inside that folder.`,
			{ details: { path: target } },
		);
	}
	if (isSpecialFile(target)) {
		try {
			writePieces(target, text);
		} catch (error) {
			throw new SettleError(
				"IO",
				`Cannot write the ${what} to ${target}: ${error instanceof Error ? error.message : String(error)}. ${outputAdvice(error)}`,
				{ cause: error, details: { path: target } },
			);
		}
		return;
	}
	const temp = `${target}.${process.pid}.${Date.now().toString(36)}.tmp`;
	try {
		makeFolders(dirname(target));
		const mode = replacementMode(target);
		writePieces(temp, text, mode);
		chmodSync(temp, mode); // exact: the umask only narrows
		renameSync(temp, target);
	} catch (error) {
		removeTemp(temp);
		const blocker = (error as NodeJS.ErrnoException).code === "ENOTDIR" ? fileAbove(target) : undefined;
		if (blocker !== undefined) {
			throw new SettleError(
				"IO",
				`Cannot write the ${what} to ${target}: ${blocker} is a file, not a folder. Choose a path outside it, or move that file away.`,
				{ cause: error, details: { path: target } },
			);
		}
		// Node names the temp file ("EACCES: permission denied, open '…/page.html.123.tmp'"): name the path the user gave.
		const reason = (error instanceof Error ? error.message : String(error)).split(temp).join(target);
		throw new SettleError("IO", `Cannot write the ${what} to ${target}: ${reason}. ${outputAdvice(error)}`, {
			cause: error,
			details: { path: target },
		});
	}
}

/** The nearest existing path above `target` that is not a folder (what ENOTDIR tripped on); undefined when there is none. */
function fileAbove(target: string): string | undefined {
	for (let current = dirname(target); ; current = dirname(current)) {
		let stats: ReturnType<typeof statSync>;
		try {
			stats = statSync(current, { throwIfNoEntry: false });
		} catch {
			stats = undefined; // ENOTDIR: below the file, keep going up
		}
		if (stats !== undefined) return stats.isDirectory() ? undefined : current;
		if (dirname(current) === current) return undefined;
	}
}

/**
 * Removes a temp file left by a failed write, if any. Quietly: the write's own error is the one to
 * report, and under a file (ENOTDIR) there is nothing to remove.
 */
function removeTemp(temp: string): void {
	try {
		rmSync(temp, { force: true });
	} catch {
		// Nothing to add to the write's error.
	}
}

/** Writes `text` (a string or its pieces, in order) to `path`, created with `mode` if new, truncated if not. */
function writePieces(path: string, text: string | Iterable<string>, mode?: number): void {
	if (typeof text === "string") {
		writeFileSync(path, text, { encoding: "utf8", ...(mode === undefined ? {} : { mode }) });
		return;
	}
	const fd = openSync(path, "w", mode);
	try {
		for (const piece of text) writeFileSync(fd, piece, "utf8");
	} finally {
		closeSync(fd);
	}
}

/** One path, or both exist and are one file (a symlink or hard link to the session is the session). */
export function sameFile(a: string, b: string): boolean {
	if (resolve(a) === resolve(b)) return true;
	try {
		const first = statSync(a);
		const second = statSync(b);
		return first.dev === second.dev && first.ino === second.ino;
	} catch {
		return false;
	}
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}
