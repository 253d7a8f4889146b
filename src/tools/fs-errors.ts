/** Turns Node file-system errors into messages a model can act on. */
import { lstatSync, readlinkSync, type Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { SettleError } from "../errors.js";

function errorCode(error: unknown): string | undefined {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" ? code : undefined;
}

/**
 * `IO` saying that this process has no file descriptor left (EMFILE: its own limit; ENFILE: the
 * system's) and what to do, for `what` (e.g. "open /p/f.txt"); undefined for any other error.
 */
export function outOfDescriptors(error: unknown, what: string): SettleError | undefined {
	const code = errorCode(error);
	if (code !== "EMFILE" && code !== "ENFILE") return undefined;
	const whose = code === "EMFILE" ? "this process's limit (ulimit -n)" : "the system's limit";
	return new SettleError(
		"IO",
		`Cannot ${what}: ${code}, too many open files: Settle has no file descriptor left under ${whose}. ` +
			"Nothing was changed. Retry once fewer files are open, or raise the limit (ulimit -n) before starting settle.",
		{ cause: error },
	);
}

/** Where the symbolic link at `path` points, when `path` is one; undefined otherwise. */
function danglingLinkTarget(path: string): string | undefined {
	try {
		return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * " (a symbolic link to <target>, which does not exist)" when `path` is a dangling link, else "":
 * said after a path reported missing that the user can see in its folder.
 */
export function danglingLinkNote(path: string): string {
	const target = danglingLinkTarget(path);
	return target === undefined ? "" : ` (a symbolic link to ${target}, which does not exist)`;
}

/** What the model can do about a path it may not read or write: said after the path. */
const PERMISSION_HINT =
	"Nothing was changed. Check the file's permissions (ls -l) or ask the user to change them, or pick a path you can write to.";

/**
 * A {@link SettleError} saying what went wrong with `absolutePath`; Settle errors pass through.
 * `notFoundHint` is appended to the not-found message (for example what to do instead).
 */
export function fileSystemError(error: unknown, absolutePath: string, notFoundHint?: string): SettleError {
	if (error instanceof SettleError) return error;
	switch (errorCode(error)) {
		case "ENOENT": {
			// ls lists a dangling link; a bare "not found" for it reads as a contradiction (lionagi#2059).
			const target = danglingLinkTarget(absolutePath);
			const link = target === undefined ? "" : ` (a symbolic link to ${target}, which does not exist)`;
			return new SettleError(
				"NOT_FOUND",
				`File not found: ${absolutePath}${link}${notFoundHint ? `. ${notFoundHint}` : ""}`,
				{ cause: error },
			);
		}
		case "EISDIR":
			return new SettleError("INVALID_ARGUMENT", `${absolutePath} is a directory, not a file. Use ls to list it.`, {
				cause: error,
			});
		case "EACCES":
		case "EPERM":
			return new SettleError("IO", `Permission denied: ${absolutePath}. ${PERMISSION_HINT}`, { cause: error });
		case "EROFS":
			return new SettleError("IO", `Read-only file system: ${absolutePath}. ${PERMISSION_HINT}`, { cause: error });
		case "ENOTDIR":
			return new SettleError("NOT_FOUND", `Not a valid path (a parent is a file): ${absolutePath}`, { cause: error });
		case "EMFILE":
		case "ENFILE":
			return outOfDescriptors(error, `open ${absolutePath}`)!;
		case "ENOSPC":
		case "EDQUOT":
		case "EFBIG":
			return outOfSpace(error, absolutePath);
		default: {
			const message = error instanceof Error ? error.message : String(error);
			return new SettleError("IO", `Cannot access ${absolutePath}: ${message}`, { cause: error });
		}
	}
}

/** Why a write ran out of room (ENOSPC, EDQUOT, EFBIG), and what to do about it. */
const OUT_OF_SPACE: Readonly<Record<string, { what: string; todo: string }>> = {
	ENOSPC: {
		what: "the disk is full (ENOSPC)",
		todo: "Free space on that disk (df -h shows which is full; remove build outputs or caches), then write it again",
	},
	EDQUOT: {
		what: "the disk quota is used up (EDQUOT)",
		todo: "Free space under your quota (quota -s shows it) or pick a path on another disk, then write it again",
	},
	EFBIG: {
		what: "the file would pass the file-size limit (EFBIG)",
		todo: "Write it in smaller parts, or raise the limit (ulimit -f) before starting settle",
	},
};

/**
 * `IO` for a write the disk had no room for: says which limit was hit and that the file was left as
 * it was (writes go to a temp file renamed over it, src/tools/replace-file.ts).
 */
function outOfSpace(error: unknown, absolutePath: string): SettleError {
	const { what, todo } = OUT_OF_SPACE[errorCode(error)!]!;
	return new SettleError(
		"IO",
		`Cannot write ${absolutePath}: ${what}. Nothing was changed: the file is left as it was. ${todo}.`,
		{ cause: error },
	);
}

/** What a file that is neither a regular file nor a folder is, in words; undefined for those two. */
function specialFileKind(stats: Stats): string | undefined {
	if (stats.isFIFO()) return "a FIFO (named pipe)";
	if (stats.isSocket()) return "a socket";
	if (stats.isCharacterDevice()) return "a character device";
	if (stats.isBlockDevice()) return "a block device";
	return undefined;
}

/**
 * Rejects with `INVALID_ARGUMENT` when `absolutePath` (links followed) is a FIFO, a socket or a
 * device: opening a FIFO waits for a writer (or a reader) forever, inside a thread no abort reaches,
 * and a device such as `/dev/zero` never ends. A missing path, a folder or a regular file passes.
 */
export async function refuseSpecialFile(absolutePath: string, action: "read" | "edit" | "write"): Promise<void> {
	let stats: Stats;
	try {
		stats = await stat(absolutePath);
	} catch {
		return; // missing or unreachable: the tool's own open says so
	}
	const kind = specialFileKind(stats);
	if (kind === undefined) return;
	throw new SettleError(
		"INVALID_ARGUMENT",
		`Cannot ${action} ${absolutePath}: it is ${kind}, not a regular file, so ${action === "write" ? "writing" : "reading"} it could wait forever. Nothing was ${action === "read" ? "read" : "changed"}. Pick a regular file, or use bash with a timeout (for example timeout 5 cat) if you mean to talk to it.`,
	);
}
