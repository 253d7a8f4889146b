/**
 * How the `settle` process ends when it is told to (SIGINT, SIGTERM, SIGHUP) or when nobody reads
 * its output any more (stdout closed: `settle --json … | head -1`): the running request and any
 * shell command are aborted (their process groups killed, so nothing is left running), the runtime
 * is disposed (extensions get `session_shutdown`, the session file ends on a complete entry), and
 * the process exits with 128 + the signal number, as a shell expects. A second signal exits at once.
 */
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

/** stdout of this process; writes after it closed are dropped (never an EPIPE stack trace). */
export const processStdout = {
	closed: false,
	onClosed: undefined as (() => void) | undefined,
	write(text: string): void {
		if (!processStdout.closed) process.stdout.write(text);
	},
};

/** The exit code of a termination in progress (it wins over the run's own code). */
export const termination = { code: undefined as number | undefined };

let stdoutWatched = false;

/** Turns EPIPE on stdout into {@link processStdout.closed} (once per process). */
export function watchStdout(): void {
	if (stdoutWatched) return;
	stdoutWatched = true;
	process.stdout.on("error", (error: NodeJS.ErrnoException) => {
		if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
		if (processStdout.closed) return;
		processStdout.closed = true;
		processStdout.onClosed?.();
	});
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
		void (async () => {
			try {
				runtime.session.abortBash();
				await runtime.session.abort();
			} catch {
				// Already disposed or replaced: nothing left to stop.
			}
			try {
				await runtime.dispose();
			} catch {
				// Disposal problems must not keep the process alive.
			}
			exit(code);
		})();
	};
	const handlers = Object.entries(SIGNAL_EXIT_CODES).map(([signal, code]) => {
		const handler = () => end(code);
		process.on(signal, handler);
		return [signal, handler] as const;
	});
	processStdout.onClosed = () => end(EXIT_SIGPIPE);
	return () => {
		for (const [signal, handler] of handlers) process.off(signal, handler);
		processStdout.onClosed = undefined;
	};
}
