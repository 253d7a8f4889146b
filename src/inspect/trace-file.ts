/**
 * Saving and loading lifecycle traces (the only file I/O of `settle/inspect` besides the
 * visualization writer).
 */
import { chmod, readFile, rename, rm, writeFile } from "node:fs/promises";
import { errorMessage, SettleError } from "../errors.js";
import { replacementMode } from "../store/folders.js";
import { type LifecycleTrace, parseTrace, type TraceRecorder } from "./trace.js";

/**
 * Writes a trace as pretty JSON. Atomic: a temp file next to `path` is renamed over it, so a crash
 * never leaves a half-written trace. A new file is private (0600: events carry prompts and errors);
 * a trace written over keeps its permissions. Throws `SettleError("IO")` with the path on failure.
 *
 * @example
 * ```ts
 * const recorder = createTraceRecorder();
 * session.inspect(recorder.observer);
 * await session.prompt("hi");
 * await saveTrace("run.trace.json", recorder);
 * ```
 */
export async function saveTrace(path: string, trace: LifecycleTrace | TraceRecorder): Promise<void> {
	const value = "observer" in trace ? trace.toJSON() : trace;
	const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
	try {
		const mode = replacementMode(path);
		await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { encoding: "utf8", mode });
		await chmod(temp, mode);
		await rename(temp, path);
	} catch (error) {
		await rm(temp, { force: true }).catch(() => {});
		// The temp file is ours, not the caller's: name the path they gave.
		const reason = errorMessage(error).replaceAll(temp, path);
		throw new SettleError("IO", `Could not save the trace to ${path}: ${reason}`, { cause: error });
	}
}

/**
 * Reads a trace saved by {@link saveTrace}. Throws `SettleError("IO")` when the file cannot be read
 * and `SettleError("INVALID_ARGUMENT")` naming the file when it is not a trace (saying so when it is
 * a session file) or was saved by a newer Settle.
 *
 * @example
 * ```ts
 * await saveTrace("run.trace.json", createTraceRecorder());
 * console.log(formatTrace(await loadTrace("run.trace.json")));
 * ```
 */
export async function loadTrace(path: string): Promise<LifecycleTrace> {
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch (error) {
		throw new SettleError("IO", `Could not read the trace ${path}: ${errorMessage(error)}`, { cause: error });
	}
	if (isSessionFile(text)) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`${path} is a session file (JSONL: one entry per line), not a lifecycle trace; settle --export ${path} renders a session as HTML. Save traces with saveTrace() or JSON.stringify(recorder.toJSON()).`,
		);
	}
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (error) {
		throw new SettleError("INVALID_ARGUMENT", `The trace ${path} is not valid JSON: ${errorMessage(error)}`, {
			cause: error,
		});
	}
	try {
		return parseTrace(json);
	} catch (error) {
		// Name the file: a user loading several traces must know which one is not a trace.
		if (!(error instanceof SettleError)) throw error;
		throw new SettleError("INVALID_ARGUMENT", `${path}: ${error.message}`, { cause: error });
	}
}

/** A session file (pi's format: a JSONL whose first line is the `{"type":"session", …}` header). */
export function isSessionFile(text: string): boolean {
	const newline = text.indexOf("\n");
	try {
		const first = JSON.parse(newline < 0 ? text : text.slice(0, newline)) as { type?: unknown } | null;
		return typeof first === "object" && first !== null && first.type === "session";
	} catch {
		return false;
	}
}
