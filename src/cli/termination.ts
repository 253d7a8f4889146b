/**
 * How the `settle` process ends when it is told to (SIGINT, SIGTERM, SIGHUP) or when nobody reads
 * its output any more (stdout closed: `settle --json … | head -1`): the running request and any
 * shell command are aborted (their process groups killed, so nothing is left running), the runtime
 * is disposed (extensions get `session_shutdown`, the session file ends on a complete entry), and
 * the process exits with 128 + the signal number, as a shell expects. A second signal exits at once,
 * and so does the first when that clean end is still waiting after {@link SHUTDOWN_GRACE_MS}: an
 * extension handler that never settles must not keep the process alive (pi exits at once too).
 */
import { isIssuedAbortReason } from "../abort.js";
import { extensionsLoadingNow } from "../extensions/loading-now.js";
import type { AgentMessage } from "../llm/types.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";

/** Exit codes of the termination paths (128 + signal number). */
export const EXIT_SIGHUP = 129;
export const EXIT_SIGINT = 130;
export const EXIT_SIGPIPE = 141;
export const EXIT_SIGTERM = 143;

const SIGNAL_EXIT_CODES: Readonly<Record<string, number>> = {
	SIGINT: EXIT_SIGINT,
	SIGTERM: EXIT_SIGTERM,
	SIGHUP: EXIT_SIGHUP,
};

/** How long a signal waits for the clean end before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 2000;

/**
 * One line per extension handler the session is still waiting on, e.g.
 * `  before_agent_start handler of /p/ext.ts`; empty when there are none (or no session).
 */
export function describePendingHandlers(runtime: AgentSessionRuntime): string {
	return pendingHandlers(runtime)
		.map(({ extensionPath, event }) =>
			event.startsWith("command:")
				? `  the /${event.slice("command:".length)} command of ${extensionPath}\n`
				: `  the ${event} handler of ${extensionPath}\n`,
		)
		.join("");
}

/**
 * One line per `session_start` handler still running, e.g. `  the session_start handler of /x.ts`;
 * empty when none. The handlers after it in load order have not been called yet (gentle-pi#1007).
 */
function describeStartingHandlers(runtime: AgentSessionRuntime): string {
	return pendingHandlers(runtime)
		.filter(({ event }) => event === "session_start")
		.map(({ extensionPath }) => `  the session_start handler of ${extensionPath}\n`)
		.join("");
}

/**
 * What settle prints when a signal stops it while `session_start` handlers still run: which ones,
 * that the extensions after them have not started, and what to do; "" when none runs.
 */
export function stoppedWhileStartingText(runtime: AgentSessionRuntime): string {
	const starting = describeStartingHandlers(runtime);
	return starting
		? `settle: stopped while the extensions were starting, waiting for:\n${starting}The extensions after it have not started. Make the handler resolve (or reject), or start without that extension (without its -e, or with --no-extensions).\n`
		: "";
}

/**
 * One line per tool call the session still waits on, e.g. `  the stubborn tool (call call-1)`:
 * after an abort, a tool that ignores its signal and never returns. Empty when there are none.
 * Only on the way out (a signal's grace period, a stalled loop): it looks for the calls' names
 * from the end of the transcript.
 */
export function describeRunningTools(runtime: AgentSessionRuntime): string {
	let ids: ReadonlySet<string>;
	let messages: readonly AgentMessage[];
	try {
		({ pendingToolCalls: ids, messages } = runtime.session.agent.state);
	} catch {
		return "";
	}
	if (ids.size === 0) return "";
	const names = new Map<string, string>();
	for (let index = messages.length - 1; index >= 0 && names.size < ids.size; index--) {
		const message = messages[index]!;
		if (message.role !== "assistant") continue;
		for (const block of message.content) {
			if (block.type === "toolCall" && ids.has(block.id)) names.set(block.id, block.name);
		}
	}
	return [...ids].map((id) => `  the ${names.get(id) ?? "unknown"} tool (call ${id})\n`).join("");
}

/**
 * What the session still waits on: tool calls, extension handlers, then extension modules and
 * factories being loaded (a `/reload`; one line each); empty when nothing.
 */
export function describePendingWork(runtime: AgentSessionRuntime): string {
	return describeRunningTools(runtime) + describePendingHandlers(runtime) + extensionsLoadingNow();
}

/** What to tell the author of what the session waits on. */
const WHAT_TO_DO =
	"Make the handler resolve (or reject) and watch ctx.signal; make a tool return (or throw) once its abort signal fires";

/** What to do about `pending`: {@link WHAT_TO_DO} for handlers and tools, then about an extension still loading. */
function whatToDo(pending: string): string {
	const loading = extensionsLoadingNow();
	if (!loading || !pending.endsWith(loading)) return WHAT_TO_DO;
	return pending === loading ? LOAD_WHAT_TO_DO : `${WHAT_TO_DO}. ${LOAD_WHAT_TO_DO}`;
}

/** stdout's own `write`, once {@link keepStdoutForSettle} sent other writers to stderr. */
let settleStdoutWrite: ((text: string, done?: () => void) => boolean) | undefined;

/** stdout of this process; writes after it closed are dropped (never an EPIPE stack trace). */
export const processStdout = {
	closed: false,
	onClosed: undefined as (() => void) | undefined,
	/** Called instead of {@link onClosed} when stdout is a terminal that hung up (EIO: its window closed). */
	onHungUp: undefined as (() => void) | undefined,
	write(text: string): void {
		if (processStdout.closed) return;
		if (settleStdoutWrite) settleStdoutWrite(text);
		else process.stdout.write(text);
	},
	/**
	 * Resolves once everything written has reached the OS, or stdout closed. `process.exit()` drops
	 * what a slow pipe has not taken yet — even a last line too short to make `writableNeedDrain`
	 * true (kimi-code#1897).
	 */
	flushed(): Promise<void> {
		const stdout = process.stdout;
		if (processStdout.closed || stdout.writableLength === 0) return Promise.resolve();
		return new Promise<void>((resolve) => {
			const done = () => {
				stdout.off("close", done);
				stdout.off("error", done);
				resolve();
			};
			stdout.on("close", done);
			stdout.on("error", done);
			// Writes complete in order: the empty one's callback runs once all before it are out.
			if (settleStdoutWrite) settleStdoutWrite("", done);
			else stdout.write("", done);
		});
	},
};

/**
 * From now on stdout carries only what settle writes through {@link processStdout} (the answer,
 * one JSON object per line); anything else written to `process.stdout` — an extension's
 * `console.log`, a library's progress line — goes to stderr, as in pi's print, JSON and RPC modes.
 * The chat keeps stdout as it is. Returns the function that gives stdout back (a no-op when it
 * was already kept).
 *
 * @example
 * ```ts
 * const restore = keepStdoutForSettle();
 * console.log("from an extension"); // on stderr
 * processStdout.write("{}\n"); // on stdout
 * restore();
 * ```
 */
export function keepStdoutForSettle(): () => void {
	if (settleStdoutWrite) return () => {};
	const stdout = process.stdout;
	const write = stdout.write;
	settleStdoutWrite = (text, done) => write.call(stdout, text, "utf8", done);
	stdout.write = function (this: unknown, ...args: unknown[]): boolean {
		return (process.stderr.write as (...rest: unknown[]) => boolean).apply(process.stderr, args);
	} as typeof stdout.write;
	return () => {
		stdout.write = write;
		settleStdoutWrite = undefined;
	};
}

/**
 * Undefined while stdout can take more; otherwise a promise that resolves once its buffer drained
 * or it closed. `settle --json` and `--rpc` wait on it between a run's events, so a reader slower
 * than the run (`| jq`, a busy CI log) slows the run down instead of the output piling up in memory
 * (under `--rpc` a quadratic pile: each `message_update` carries the whole partial answer), and a reader that
 * went away (`| head -1`) is noticed mid-answer. A file or a terminal never needs it.
 *
 * @example
 * ```ts
 * session.agent.subscribe(() => stdoutRoom()); // the agent awaits its listeners: the run waits for the reader
 * ```
 */
export function stdoutRoom(): Promise<void> | undefined {
	const stdout = process.stdout;
	if (processStdout.closed || termination.code !== undefined || !stdout.writableNeedDrain) return undefined;
	return new Promise<void>((resolve) => {
		const done = () => {
			stdout.off("drain", done);
			stdout.off("close", done);
			stdout.off("error", done);
			roomWaits.delete(done);
			resolve();
		};
		stdout.on("drain", done);
		stdout.on("close", done);
		stdout.on("error", done);
		roomWaits.add(done);
	});
}

/** The {@link stdoutRoom} waits in progress: a signal ends them (a stalled reader must not hold the abort). */
const roomWaits = new Set<() => void>();

/** What a signal's grace period ends with when only stdout's reader is still waited for. */
export const STDOUT_NOT_READ = `settle: stdout's reader took no more output within ${SHUTDOWN_GRACE_MS / 1000} s; exiting without the rest.\n`;

/** The exit code of a termination in progress (it wins over the run's own code). */
export const termination = { code: undefined as number | undefined };

let stdoutWatched = false;

/** The runtime {@link guardRuntime} watches now, for {@link explainStall}. */
const guarded = { runtime: undefined as AgentSessionRuntime | undefined };

/**
 * What `settle` prints when the event loop empties while the run has not finished: nothing is left
 * that could ever finish it (typically an extension handler returned a promise that never settles).
 * Node would exit with code 13 and no word; this names the handlers the session waits on.
 */
export function explainStall(): string {
	const loading = guarded.runtime ? "" : extensionsLoadingNow();
	if (loading)
		return `settle: the run cannot go on: it waits for a promise that never settles, in\n${loading}${LOAD_WHAT_TO_DO}; settle exits.\n`;
	const pending = guarded.runtime ? describePendingWork(guarded.runtime) : "";
	return pending
		? `settle: the run cannot go on: it waits for a promise that never settles, in\n${pending}${whatToDo(pending)}; settle exits.\n`
		: "settle: the run cannot go on: it waits for a promise that never settles; settle exits.\n";
}

/**
 * What `settle` prints when the session has not stopped {@link SHUTDOWN_GRACE_MS} after a signal
 * (and exits anyway): what it still waits on, and what its author should do.
 */
export function stillWaitingText(runtime: AgentSessionRuntime): string {
	const pending = describePendingWork(runtime);
	return pending
		? `settle: still waiting after ${SHUTDOWN_GRACE_MS / 1000} s for:\n${pending}Exiting without waiting. ${whatToDo(pending)}.\n`
		: `settle: the session did not stop within ${SHUTDOWN_GRACE_MS / 1000} s; exiting without waiting.\n`;
}

/**
 * Turns EPIPE on stdout into {@link processStdout.closed} (once per process), and EIO on a terminal
 * into a hang-up: a write (a prompt redrawn) that lands after the terminal window closed, before its
 * SIGHUP or the end of input arrives, crashed settle with exit 1 (pi#3057).
 */
export function watchStdout(): void {
	if (stdoutWatched) return;
	stdoutWatched = true;
	process.stdout.on("error", (error: NodeJS.ErrnoException) => {
		const hungUp = error.code === "EIO" && process.stdout.isTTY === true;
		if (!hungUp && error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
		if (processStdout.closed) return;
		processStdout.closed = true;
		if (!hungUp) processStdout.onClosed?.();
		else if (processStdout.onHungUp) processStdout.onHungUp();
		else process.kill(process.pid, "SIGHUP"); // as the terminal would: guardRuntime ends the run with 129
	});
}

/**
 * A signal's end of a run (settle -p, --rpc, the chat): abort it, run `beforeDispose`, dispose the
 * runtime, wait for stdout's reader, then `exit(code)`. A session that does not stop (a tool
 * ignoring its abort) or a reader that takes nothing must not keep the process alive: after
 * {@link SHUTDOWN_GRACE_MS} it exits anyway, saying what it still waited on.
 */
export function shutDownThenExit(
	runtime: AgentSessionRuntime,
	code: number,
	exit: (code: number) => void,
	beforeDispose?: () => void,
): void {
	let disposed = false;
	const grace = setTimeout(() => {
		process.stderr.write(disposed ? STDOUT_NOT_READ : stillWaitingText(runtime));
		exit(code);
	}, SHUTDOWN_GRACE_MS);
	void (async () => {
		try {
			runtime.session.abortBash();
			await runtime.session.abort();
		} catch {
			// Already disposed or replaced: nothing left to stop.
		}
		try {
			beforeDispose?.();
		} catch {
			// The session is gone: nothing to record it in.
		}
		try {
			await runtime.dispose();
		} catch {
			// Disposal problems must not keep the process alive.
		}
		disposed = true;
		// The last lines (agent_end, agent_settled, the answer's end) may still wait for a slow reader (kimi-code#1897).
		await processStdout.flushed();
		clearTimeout(grace);
		exit(code);
	})();
}

const LOAD_WHAT_TO_DO =
	"Make its module and factory finish (resolve or reject), or start without that extension (without its -e, or with --no-extensions)";

/**
 * Until the session exists (Fusion#3579: start-up stuck on an extension, nothing saying which): a
 * signal that stops settle while an extension is still loading names it, then exits with the
 * signal's code. Returns the function that stops watching.
 */
export function explainLoadingOnSignal(exit: (code: number) => void = process.exit): () => void {
	const handlers = Object.entries(SIGNAL_EXIT_CODES).map(([signal, code]) => {
		const handler = () => {
			const loading = extensionsLoadingNow();
			if (loading)
				process.stderr.write(
					`settle: stopped while waiting for an extension to load:\n${loading}${LOAD_WHAT_TO_DO}.\n`,
				);
			exit(code);
		};
		process.on(signal, handler);
		return [signal, handler] as const;
	});
	return () => {
		for (const [signal, handler] of handlers) process.off(signal, handler);
	};
}

/**
 * While `runtime` runs: end the process cleanly on SIGINT / SIGTERM / SIGHUP and when stdout
 * closes. Returns the function that stops watching (call it once the run is over).
 *
 * @example
 * ```ts
 * const release = guardRuntime(runtime); // SIGINT / SIGTERM / SIGHUP now end the process cleanly
 * try { await runtime.session.prompt("hi"); } finally { release(); }
 * ```
 */
export function guardRuntime(runtime: AgentSessionRuntime, exit: (code: number) => void = process.exit): () => void {
	let ending = false;
	const end = (code: number) => {
		if (ending) {
			exit(code);
			return;
		}
		ending = true;
		termination.code = code;
		// The abort and the disposal do not wait for it: said now, or never (gentle-pi#1007).
		const starting = stoppedWhileStartingText(runtime);
		if (starting) process.stderr.write(starting);
		for (const done of [...roomWaits]) done();
		shutDownThenExit(runtime, code, exit);
	};
	const handlers = Object.entries(SIGNAL_EXIT_CODES).map(([signal, code]) => {
		const handler = () => end(code);
		process.on(signal, handler);
		return [signal, handler] as const;
	});
	processStdout.onClosed = () => end(EXIT_SIGPIPE);
	guarded.runtime = runtime;
	return () => {
		if (guarded.runtime === runtime) guarded.runtime = undefined;
		for (const [signal, handler] of handlers) process.off(signal, handler);
		processStdout.onClosed = undefined;
	};
}

/**
 * Exits with `code` once stdout's queued bytes reached the OS (a slow pipe reader), or after
 * {@link SHUTDOWN_GRACE_MS} saying the rest was left unread: `process.exit()` alone drops them.
 *
 * @example
 * ```ts
 * // After an error nothing caught was printed; the default `exit` is process.exit.
 * exitOnceFlushed(1, (code) => console.log(`exit ${code}`));
 * ```
 */
export function exitOnceFlushed(code: number, exit: (code: number) => void = process.exit): void {
	const grace = setTimeout(() => {
		process.stderr.write(STDOUT_NOT_READ);
		exit(code);
	}, SHUTDOWN_GRACE_MS);
	void processStdout.flushed().then(() => {
		clearTimeout(grace);
		exit(code);
	});
}

/** Set by the chat while it runs: whether its output left a line open (the prompt, a streaming answer). */
let crashLineOpen: (() => boolean) | undefined;

/**
 * Tells {@link guardExtensionErrors} whether the terminal's current line is open, so the stack of a
 * crash starts on a line of its own instead of after the chat's prompt. Returns the function that
 * removes it.
 *
 * @example
 * ```ts
 * const release = reportCrashesBelow(() => true);
 * release();
 * ```
 */
export function reportCrashesBelow(lineOpen: () => boolean): () => void {
	crashLineOpen = lineOpen;
	return () => {
		if (crashLineOpen === lineOpen) crashLineOpen = undefined;
	};
}

/**
 * While the CLI runs: an error nothing caught whose stack runs through a loaded extension's file
 * (a throw in its own `setInterval`, a rejection it never awaited) is reported as that extension's
 * `uncaught` error — the line every other extension error gets — and the session goes on, instead
 * of the process dying with it (oh-my-pi#5664, pi#4791). Any other uncaught error still ends the
 * process with exit code 1 and its stack on stderr (once stdout's queued output went out) — except Settle's own abort reason (an abort
 * listener that rethrows `signal.reason`, a fetch nobody awaited rejecting with it): that is the
 * abort arriving, and it is ignored (pi#9709, pi#2716). Returns the function that removes the handlers.
 *
 * @example
 * ```ts
 * const release = guardExtensionErrors(runtime);
 * try { await runtime.session.prompt("hi"); } finally { release(); }
 * ```
 */
export function guardExtensionErrors(runtime: AgentSessionRuntime): () => void {
	const report = (error: unknown) => {
		try {
			return runtime.session.extensionRunner.reportUncaught(error);
		} catch {
			return false; // disposed: nothing to report it to
		}
	};
	const onException = (error: unknown) => {
		// Settle's own abort reason, rethrown by an abort listener: the abort arriving, not a crash (pi#9709).
		if (isIssuedAbortReason(error) || report(error)) return;
		release();
		// A chat's prompt (or a half-streamed line) is open on the terminal: the stack starts below it.
		const freshLine = crashLineOpen?.() === true ? "\n" : "";
		process.stderr.write(`${freshLine}${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		// What stdout still holds for a slow reader goes out first, as on a normal exit (kimi-code#1897).
		exitOnceFlushed(1);
	};
	const onRejection = (reason: unknown) => {
		if (!isIssuedAbortReason(reason) && !report(reason)) throw reason;
	};
	process.on("uncaughtException", onException);
	process.on("unhandledRejection", onRejection);
	const release = () => {
		process.off("uncaughtException", onException);
		process.off("unhandledRejection", onRejection);
	};
	return release;
}

/** The extension handlers the session still waits on; none when there is no session to ask. */
function pendingHandlers(runtime: AgentSessionRuntime): { extensionPath: string; event: string }[] {
	try {
		return runtime.session.extensionRunner.pendingHandlers();
	} catch {
		return [];
	}
}
