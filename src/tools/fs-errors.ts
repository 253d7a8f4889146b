/** Turns Node file-system errors into messages a model can act on. */
import { SettleError } from "../errors.js";

function errorCode(error: unknown): string | undefined {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" ? code : undefined;
}

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
			return new SettleError("IO", `Permission denied: ${absolutePath}`, { cause: error });
		case "ENOTDIR":
			return new SettleError("NOT_FOUND", `Not a valid path (a parent is a file): ${absolutePath}`, { cause: error });
		default: {
			const message = error instanceof Error ? error.message : String(error);
			return new SettleError("IO", `Cannot access ${absolutePath}: ${message}`, { cause: error });
		}
	}
}
