/**
 * Making folders one level at a time, and checking up front that a folder can be made. Node 20's
 * `mkdir(dir, { recursive: true })` (sync and async) never returns (100% CPU) when a missing level
 * cannot be made but `access()` says its parent is writable — under /proc or /sys — so nothing in
 * Settle uses it: every writer that makes folders goes through {@link makeFolders} or
 * {@link makeFoldersAsync} (test/store/recursive-mkdir-guard.test.ts checks no other call appears).
 */
import { accessSync, chmodSync, constants, existsSync, mkdirSync, rmdirSync, statSync } from "node:fs";
import { chmod, mkdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { errorMessage } from "../errors.js";

/**
 * Makes `dir` and its missing parents like `mkdirSync(dir, { recursive: true })`, but one
 * `mkdir` per level, so a level that cannot be made throws Node's error for it (`ENOENT` under
 * /proc, `ENOTDIR` below a file, `EACCES`) instead of spinning. A level someone else made
 * meanwhile is fine; `dir` existing as a file is `ENOTDIR`.
 *
 * @example
 * ```ts
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 *
 * makeFolders(join(tmpdir(), "settle-example", "sessions")); // makes settle-example, then sessions
 * try {
 *   makeFolders("/proc/x/sessions");
 * } catch (error) {
 *   console.error(String(error)); // Error: ENOENT: no such file or directory, mkdir '/proc/x'
 * }
 * ```
 */
export function makeFolders(dir: string, options: MakeFoldersOptions = {}): void {
	const missing: string[] = [];
	for (let current = resolve(dir); !existsSync(current); ) {
		missing.unshift(current);
		const parent = dirname(current);
		if (parent === current) break;
		current = parent;
	}
	for (const level of missing) {
		try {
			mkdirSync(level);
			if (options.mode !== undefined) chmodSync(level, options.mode);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !isDirectory(level)) throw error;
		}
	}
	if (missing.length === 0 && !isDirectory(dir)) {
		throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: "ENOTDIR", path: dir });
	}
}

/**
 * Permissions of the folders Settle makes for what holds conversations (the agent folder, session
 * folders): the owner only, so other users of a shared machine or CI runner cannot read sessions
 * (pi 0.73.1 makes them with the umask's default, usually world-readable). Existing folders keep theirs.
 */
export const PRIVATE_FOLDER_MODE = 0o700;

/**
 * Permissions of the files Settle creates that hold conversations (session files, their migration
 * backups and set-aside torn lines, forks and imports, HTML / JSONL exports, traces and their viewer
 * pages, bash output spilled to a temp file): the owner only, so they stay private in a folder others
 * can read (a shared `--session-dir`, `/tmp`, a project folder). pi 0.73.1 creates them with the
 * umask's default (usually 0644). Existing files keep theirs.
 */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * The permissions to give a file written over `path` (a temp file renamed over it): the existing
 * file's, so rewriting a file never changes who can read it; {@link PRIVATE_FILE_MODE} for a new one.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 *
 * const mode = replacementMode("page.html"); // 0o600 for a new page.html, the old file's mode otherwise
 * writeFileSync("page.html.tmp", "<!doctype html>", { mode });
 * ```
 */
export function replacementMode(path: string): number {
	try {
		return statSync(path).mode & 0o7777;
	} catch {
		return PRIVATE_FILE_MODE;
	}
}

/**
 * Whether `path` (links followed) is a device, a FIFO or a socket: an output that must be written
 * in place (`/dev/stdout`, a pipe), never replaced by renaming a temp file over it — which, for a
 * user allowed to write the folder (root in /dev), would swap `/dev/full` for a regular file.
 *
 * @example
 * ```ts
 * isSpecialFile("/dev/null"); // true
 * isSpecialFile("notes.txt"); // false (a regular file, or nothing there)
 * ```
 */
export function isSpecialFile(path: string): boolean {
	try {
		const stat = statSync(path, { throwIfNoEntry: false });
		return stat !== undefined && !stat.isFile() && !stat.isDirectory();
	} catch (error) {
		// A path under a file: nothing there, and writing it fails with an error that names the path.
		if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return false;
		throw error;
	}
}

/** What to do when an output cannot be written: room for a full disk, another path otherwise. */
export function outputAdvice(error: unknown): string {
	const code = (error as NodeJS.ErrnoException | undefined)?.code;
	return code === "ENOSPC" || code === "EDQUOT" || code === "EFBIG"
		? "Free some disk space, or choose a path on another disk."
		: "Choose a writable path.";
}

/** Options of {@link makeFolders} and {@link makeFoldersAsync}. */
export interface MakeFoldersOptions {
	/** Permissions of the levels made (e.g. `0o700` for a folder holding credentials); existing ones are left alone. */
	mode?: number;
}

/**
 * {@link makeFolders} without blocking: the same levels, the same errors.
 *
 * @example
 * ```ts
 * await makeFoldersAsync("views/runs"); // makes views, then views/runs
 * await makeFoldersAsync("/proc/x/views").catch((error) => console.error(String(error))); // ENOENT for /proc/x, at once
 * ```
 */
export async function makeFoldersAsync(dir: string, options: MakeFoldersOptions = {}): Promise<void> {
	const missing: string[] = [];
	for (let current = resolve(dir); !(await exists(current)); ) {
		missing.unshift(current);
		const parent = dirname(current);
		if (parent === current) break;
		current = parent;
	}
	for (const level of missing) {
		try {
			await mkdir(level);
			if (options.mode !== undefined) await chmod(level, options.mode);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !(await isDirectoryAsync(level))) throw error;
		}
	}
	if (missing.length === 0 && !(await isDirectoryAsync(dir))) {
		throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: "ENOTDIR", path: dir });
	}
}

/**
 * Why files cannot be created in `dir` (which may not exist yet), or undefined: its nearest
 * existing ancestor (or itself) must be a writable folder, and the first missing level must be
 * makeable (it is made and removed again: under /proc or /sys `access()` says writable but
 * `mkdir` fails).
 *
 * @example
 * ```ts
 * unwritableFolder("/proc/x/sessions"); // "/proc/x cannot be made (ENOENT)"
 * ```
 */
export function unwritableFolder(dir: string): string | undefined {
	// The first folder that would have to be made (none when `dir` exists).
	let missing: string | undefined;
	for (let current = dir; ; ) {
		if (existsSync(current)) {
			if (!isDirectory(current)) return `${current} is not a folder`;
			try {
				accessSync(current, constants.W_OK);
			} catch {
				return `${current} is not writable`;
			}
			return missing === undefined ? undefined : unmakeableFolder(missing);
		}
		const parent = dirname(current);
		if (parent === current) return undefined;
		missing = current;
		current = parent;
	}
}

/** Makes `folder` (its parent exists) and removes it again: a folder that cannot be made is named now. */
function unmakeableFolder(folder: string): string | undefined {
	try {
		mkdirSync(folder);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === "EEXIST" ? undefined : `${folder} cannot be made (${code ?? errorMessage(error)})`;
	}
	try {
		rmdirSync(folder);
	} catch {
		// Someone else is using it already: it exists, which is all the check needs.
	}
	return undefined;
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

async function exists(path: string): Promise<boolean> {
	return stat(path).then(
		() => true,
		() => false,
	);
}

async function isDirectoryAsync(path: string): Promise<boolean> {
	return stat(path).then(
		(info) => info.isDirectory(),
		() => false,
	);
}
