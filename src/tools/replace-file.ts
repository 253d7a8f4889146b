/**
 * Replacing a file's whole content so that another process (a dev server's watcher, `cat` in a
 * parallel bash call) sees the old bytes or the new ones, never a truncated or half-written file.
 */

import { constants, type Stats } from "node:fs";
import { access, type FileHandle, open, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { loadCrypto } from "../lazy-deps.js";

function errorCode(error: unknown): unknown {
	return (error as { code?: unknown } | null)?.code;
}

/** Names the file the caller gave instead of our temp file in a Node error's message. */
function blameTarget(error: unknown, temp: string, target: string): unknown {
	if (error instanceof Error) error.message = error.message.replaceAll(temp, target);
	return error;
}

/**
 * Writes `content` (a string as UTF-8, bytes as they are) to the regular file `target` (no
 * symbolic link: the caller resolves them) by writing a temp file beside it and renaming it over: the swap is atomic. An existing
 * file keeps its mode bits and owner. Falls back to writing in place, as before, where a rename
 * would lose something: a file with hard links (they would keep the old content), a folder that
 * lets us write the file but not create a temp file in it, and an owner we cannot give the temp
 * file. A file we may not write is refused (EACCES / EPERM) before anything is created; on any
 * error the temp file is removed.
 *
 * @example
 * ```ts
 * await replaceFileContent("app.ts", "export const ready = true;\n"); // app.ts in the current folder
 * ```
 */
export async function replaceFileContent(target: string, content: string | Uint8Array): Promise<void> {
	let existing: Stats | undefined;
	try {
		existing = await stat(target);
	} catch (error) {
		if (errorCode(error) !== "ENOENT") throw error;
	}
	if (existing !== undefined) {
		// A folder or another non-file: the in-place write gives the error (EISDIR) it always did.
		if (!existing.isFile() || existing.nlink > 1) return writeFile(target, content, "utf-8");
		// The rename needs only the folder's permission: a read-only file must still be refused.
		await access(target, constants.W_OK);
	}
	const temp = join(
		dirname(target),
		`.${basename(target)}.${process.pid}.${loadCrypto().randomBytes(6).toString("hex")}.tmp`,
	);
	let handle: FileHandle;
	try {
		handle = await open(temp, "wx", existing === undefined ? 0o666 : existing.mode & 0o7777);
	} catch (error) {
		const code = errorCode(error);
		if (existing !== undefined && (code === "EACCES" || code === "EPERM" || code === "EROFS")) {
			return writeFile(target, content, "utf-8");
		}
		throw blameTarget(error, temp, target);
	}
	let isOpen = true;
	try {
		await handle.writeFile(content, "utf-8");
		if (existing !== undefined) {
			try {
				await handle.chown(existing.uid, existing.gid);
			} catch {
				await handle.close();
				isOpen = false;
				await rm(temp, { force: true });
				return writeFile(target, content, "utf-8");
			}
			await handle.chmod(existing.mode & 0o7777); // after chown, which clears set-id bits; beats the umask
		}
		await handle.sync();
		await handle.close();
		isOpen = false;
		await rename(temp, target);
	} catch (error) {
		if (isOpen) await handle.close().catch(() => {});
		await rm(temp, { force: true }).catch(() => {});
		throw blameTarget(error, temp, target);
	}
}
