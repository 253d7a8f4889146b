/**
 * `settle --trace <file>`: records the prompt-operation lifecycle of every session the CLI run
 * uses (print, JSON, RPC and interactive modes) and the runtime machine that replaces them into one
 * trace, and saves it when the process ends — at the end of the run, and from a process `exit` hook
 * when a signal or a closed stdout ends it first.
 *
 * A session replacement (RPC `new_session`, `switch_session`, `fork`, `clone`, `/new`) continues
 * the same trace: the runtime machine's steps (beforeSwitch … disposing, rebinding) sit between the
 * old session's events and the new one's, in the order they happened. Each session starts with the
 * inspector's `∅ → idle (inspect)` line, and the trace's extra `sessions` field says where each one
 * starts; the viewer draws both machines.
 */
import { accessSync, chmodSync, constants, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { errorMessage } from "../errors.js";
import { sameFile } from "../export/write-file.js";
import type { LifecycleInspectionEvent } from "../inspect/lifecycle-inspector.js";
import { createTraceRecorder, type LifecycleTrace, TRACE_FORMAT, type TraceSession } from "../inspect/trace.js";
import { isSessionFile } from "../inspect/trace-file.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import type { AgentSession } from "../session/agent-session.js";
import { isSpecialFile, outputAdvice, replacementMode } from "../store/folders.js";
import { EXIT_FAILURE, EXIT_USAGE } from "./help.js";
import { CliError } from "./host.js";

/** Events a CLI trace keeps (the oldest are dropped first, and counted in `dropped`): about 550 simple prompts (18 events each, with the entries they write), a ~4.7 MB file. */
export const CLI_TRACE_MAX_EVENTS = 10_000;

/** One session of a CLI trace. */
export type CliTraceSession = TraceSession;

/** A trace `settle --trace` saves: a lifecycle trace (what `settle trace` and `loadTrace` read) with its sessions. */
export interface CliLifecycleTrace extends LifecycleTrace {
	sessions: CliTraceSession[];
}

/** Records a CLI run's lifecycle into one trace file. */
export interface CliTrace {
	/** The absolute path the trace is saved to. */
	readonly path: string;
	/**
	 * Records `runtime`'s current session now, the runtime machine, and each session that replaces
	 * the current one, and saves the trace if the process exits before {@link save} (SIGINT,
	 * SIGTERM, stdout closed). Throws {@link CliError} (exit 2), recording nothing, when the trace's
	 * path is the current session's file (`--session s.jsonl --trace s.jsonl`): saving would replace
	 * the conversation.
	 */
	follow(runtime: AgentSessionRuntime): void;
	/** The trace recorded so far. */
	toJSON(): CliLifecycleTrace;
	/**
	 * Writes the trace (atomically: a temp file renamed over `path`) and stops the exit hook.
	 * Throws {@link CliError} (exit 1) naming the path when it cannot be written, or when it is the
	 * file of a session the run used (a session switched to later: it is left as it is).
	 */
	save(): void;
}

/**
 * Checks that a trace can be written to `path` (its folder exists and is writable, the path is not
 * a folder, and an existing non-empty file there is an earlier Settle trace, not a file the trace
 * would replace by mistake, e.g. `--trace package.json`) before anything runs. Throws {@link CliError} with exit code 2 saying what is wrong.
 * Returns the absolute path.
 *
 * @example
 * ```ts
 * const path = checkTracePath("run.trace.json"); // "/home/me/project/run.trace.json"
 * ```
 */
export function checkTracePath(path: string): string {
	const file = resolve(path);
	const folder = dirname(file);
	const fail = (why: string) => new CliError(`--trace ${path}: ${why}`, EXIT_USAGE);
	let folderStat: ReturnType<typeof statSync>;
	try {
		folderStat = statSync(folder);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") {
			throw fail(`the folder ${folder} does not exist; create it or choose another path.`);
		}
		throw fail(`the folder ${folder} cannot be reached (${code ?? errorMessage(error)}).`);
	}
	if (!folderStat.isDirectory()) throw fail(`${folder} is not a folder.`);
	let fileStat: ReturnType<typeof statSync> | undefined;
	try {
		fileStat = statSync(file);
	} catch {
		// No such file yet: it is created when the run ends.
	}
	if (fileStat?.isDirectory()) throw fail(`${file} is a folder; give a file name, e.g. ${file}/trace.json.`);
	// The trace is renamed over the file at exit: only an earlier trace (a re-run) or an empty file is replaced.
	if (fileStat?.isFile() && fileStat.size > 0) {
		let text: string;
		try {
			text = readFileSync(file, "utf8");
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
			throw fail(`${file} exists and cannot be read (${code}) to check that it is a trace; pick another path.`);
		}
		if (isSessionFile(text)) throw new CliError(sessionFileText(file, `--trace ${path}`), EXIT_USAGE);
		if (!isSettleTrace(text)) {
			throw fail(
				`${file} exists and is not a Settle trace, and the trace would replace it; pick another path, or delete the file first.`,
			);
		}
	}
	try {
		accessSync(folder, constants.W_OK | constants.X_OK);
	} catch {
		throw fail(`the folder ${folder} is not writable.`);
	}
	return file;
}

/**
 * Starts a CLI trace to `path` (checked with {@link checkTracePath}: throws `CliError` exit 2).
 * Recording costs O(1) per lifecycle event and keeps at most `maxEvents` events, whatever the
 * session length; the file is written once, when the run ends.
 *
 * @example
 * ```ts
 * const trace = startCliTrace("run.trace.json");
 * trace.follow(runtime);
 * await runtime.session.prompt("hi");
 * await runtime.dispose();
 * trace.save();
 * ```
 */
export function startCliTrace(path: string, options: { maxEvents?: number } = {}): CliTrace {
	const file = checkTracePath(path);
	const recorder = createTraceRecorder({ maxEvents: options.maxEvents ?? CLI_TRACE_MAX_EVENTS });
	// Events recorded in all (the recorder only counts the ones it dropped).
	let recorded = 0;
	const observer = (event: LifecycleInspectionEvent) => {
		recorded++;
		recorder.observer(event);
	};
	const sessions: { sessionId: string; sessionFile: string | undefined; start: number }[] = [];
	let current: { session: AgentSession; subscription: { unsubscribe(): void } } | undefined;
	const attach = (session: AgentSession) => {
		current?.subscription.unsubscribe();
		sessions.push({ sessionId: session.sessionId, sessionFile: session.sessionFile, start: recorded });
		current = { session, subscription: session.inspect(observer) };
	};
	const onExit = () => {
		try {
			write();
		} catch (error) {
			process.stderr.write(`Error: ${errorMessage(error)}\n`);
		}
	};
	const toJSON = (): CliLifecycleTrace => {
		const trace = recorder.toJSON();
		const firstKept = recorded - trace.events.length;
		// Sessions whose events were all dropped are left out, except the one the kept events begin in.
		const kept = sessions.filter((_part, i) => (sessions[i + 1]?.start ?? recorded + 1) > firstKept);
		return {
			...trace,
			sessions: kept.map((part) => ({
				sessionId: part.sessionId,
				...(part.sessionFile !== undefined ? { sessionFile: part.sessionFile } : {}),
				firstEvent: Math.max(0, part.start - firstKept),
			})),
		};
	};
	const write = () => {
		// Renaming the trace over a session's file would replace the conversation with the trace.
		const session = sessions.find((part) => part.sessionFile !== undefined && sameFile(part.sessionFile, file));
		if (session) throw new CliError(sessionFileText(file, "Not saving the trace"), EXIT_FAILURE);
		const text = () => `${JSON.stringify(toJSON(), null, 2)}\n`;
		if (isSpecialFile(file)) {
			// A device or a pipe (/dev/stdout) is written in place: a rename would replace it.
			try {
				writeFileSync(file, text(), "utf8");
			} catch (error) {
				throw new CliError(
					`Could not save the trace to ${file}: ${errorMessage(error)}. ${outputAdvice(error)}`,
					EXIT_FAILURE,
				);
			}
			return;
		}
		const temp = `${file}.${process.pid}.tmp`;
		try {
			// The events carry prompts and errors: a new trace is private (0600), a rewritten one keeps its mode.
			const mode = replacementMode(file);
			writeFileSync(temp, text(), { encoding: "utf8", mode });
			chmodSync(temp, mode);
			renameSync(temp, file);
		} catch (error) {
			rmSync(temp, { force: true });
			throw new CliError(
				`Could not save the trace to ${file}: ${errorMessage(error).replaceAll(temp, file)}. ${outputAdvice(error)}`,
				EXIT_FAILURE,
			);
		}
	};
	return {
		path: file,
		follow(runtime) {
			const sessionFile = runtime.session.sessionFile;
			if (sessionFile !== undefined && sameFile(sessionFile, file)) {
				throw new CliError(sessionFileText(file, `--trace ${path}`), EXIT_USAGE);
			}
			// The session first: a trace's `machine` stays the prompt-operation machine, as before.
			attach(runtime.session);
			runtime.inspect(observer);
			// After the mode's rebind, before the replacing call returns: the next prompt is recorded.
			runtime.onSessionReplaced(({ session }) => {
				attach(session);
			});
			process.on("exit", onExit);
		},
		toJSON,
		save() {
			process.off("exit", onExit);
			write();
		},
	};
}

/** What the trace's path names: a session's file, which the trace would replace. */
function sessionFileText(file: string, start: string): string {
	return `${start}: ${file} is a session's file, and the trace would replace the conversation; give the trace another path (e.g. ${file.replace(/\.jsonl$/i, "")}.trace.json).`;
}

/**
 * A file an earlier `--trace` saved: a JSON object whose `format` is a lifecycle trace's. Its
 * version and events are not checked — a trace from another Settle version is still one to replace.
 */
function isSettleTrace(text: string): boolean {
	try {
		const value = JSON.parse(text) as { format?: unknown } | null;
		return typeof value === "object" && value !== null && value.format === TRACE_FORMAT;
	} catch {
		return false;
	}
}
