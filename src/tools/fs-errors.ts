/** Turns Node file-system errors into messages a model can act on. */
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
		case "ENOENT":
			return new SettleError("NOT_FOUND", `File not found: ${absolutePath}${notFoundHint ? `. ${notFoundHint}` : ""}`, {
				cause: error,
			});
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
		default: {
			const message = error instanceof Error ? error.message : String(error);
			return new SettleError("IO", `Cannot access ${absolutePath}: ${message}`, { cause: error });
		}
	}
}
