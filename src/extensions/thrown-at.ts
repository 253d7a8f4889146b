/**
 * Where in an extension's own file an error was thrown, from its stack: the first frame in that
 * file, so an author sees the line even when the throw happened deeper, in code the file called.
 */
import { basename } from "node:path";

/**
 * `file.ts:line` of the first stack frame in `file` (absolute path), or undefined when the stack
 * never passes through it (a non-Error thrown, an inline factory). No column: on a module's first
 * line the loader's wrapper shifts it.
 */
export function thrownAt(stack: string | undefined, file: string): string | undefined {
	const position = thrownAtPosition(stack, file);
	return position ? `${basename(file)}:${position.line}` : undefined;
}

/** Line and column (1-based) of the first stack frame in `file` (absolute path), as the stack gives them. */
export function thrownAtPosition(
	stack: string | undefined,
	file: string,
): { line: number; column: number } | undefined {
	if (stack === undefined || !file.startsWith("/")) return undefined;
	for (const frame of stack.split("\n")) {
		const line = frame.replace("file://", "");
		const at = line.indexOf(`${file}:`);
		if (at < 0) continue;
		const position = /^:(\d+):(\d+)/.exec(line.slice(at + file.length));
		if (position) return { line: Number(position[1]), column: Number(position[2]) };
	}
	return undefined;
}

/**
 * ` (thrown at file.ts:line)` for an error message, or "" when {@link thrownAt} finds no frame or
 * the message names the place already (a parser's error).
 */
export function thrownAtText(error: unknown, file: string): string {
	if (error instanceof Error && error.message.includes(`${file}:`)) return "";
	const at = thrownAt(error instanceof Error ? error.stack : undefined, file);
	return at ? ` (thrown at ${at})` : "";
}
