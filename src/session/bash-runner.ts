/**
 * User shell commands outside the model (`!cmd` in pi): `executeBash` runs a real
 * child process now and streams its output; the result becomes a `bashExecution` message that joins
 * the transcript at once when idle, or at the next safe point while an operation runs (never
 * between a tool call and its result).
 */
import { rm } from "node:fs/promises";
import { SettleError } from "../errors.js";
import type { UserBashResult } from "../extensions/types.js";
import { OutputAccumulator } from "../tools/output-accumulator.js";
import { type BashOperations, createLocalBashOperations } from "../tools/shell.js";
import { holdsSideMessages, type SessionInternals } from "./internals.js";
import type { BashExecutionMessage } from "./messages.js";

/** The outcome of a user shell command (pi's `BashResult`). */
export type BashResult = UserBashResult;

/** Options of `session.executeBash()`. */
export interface ExecuteBashOptions {
	/** `!!` commands: kept in the log, never sent to the model. */
	excludeFromContext?: boolean;
	/** Correlates `bash_execution_update` events. */
	id?: string;
	/** Run through these operations instead of the local shell (e.g. a container). */
	operations?: BashOperations;
	/** Seconds; no timeout when absent. */
	timeout?: number;
}

/** `executeBash()` rejects with this (`SESSION_CLOSED`) when the session is disposed while the command runs. */
export const BASH_DISPOSED = "The AgentSession was disposed while this command ran; its result was not recorded.";

export class BashRunner {
	private readonly running = new Set<AbortController>();
	/** Each `execute()` until it has recorded its result (or failed): a teardown waits for them. */
	private readonly executions = new Set<Promise<unknown>>();
	/** Commands of {@link execute} that have not recorded their result (or failed) yet. */
	private unrecorded = 0;
	private disposed = false;

	constructor(private readonly s: SessionInternals) {}

	get isRunning(): boolean {
		return this.running.size > 0;
	}

	/** Whether a command started here has yet to record its result (its process may have ended already). */
	get hasUnrecordedResult(): boolean {
		return this.unrecorded > 0;
	}

	/**
	 * Runs `command` in the session cwd (the settings' `shellCommandPrefix` on its own line first),
	 * streaming output to `onChunk` and `bash_execution_update`, then records the result. A
	 * `user_bash` handler may supply the result or the operations; a failing handler makes this
	 * reject without running anything. Resolves with `cancelled: true` after {@link abortAll}.
	 */
	execute(command: string, onChunk?: (chunk: string) => void, options: ExecuteBashOptions = {}): Promise<BashResult> {
		this.unrecorded++;
		// Counted down before the caller hears the result: a move right after it is not refused.
		const execution = this.run(command, onChunk, options).finally(() => {
			this.unrecorded--;
		});
		const ended = execution.then(
			() => undefined,
			() => undefined,
		);
		this.executions.add(ended);
		void ended.then(() => this.executions.delete(ended));
		return execution;
	}

	/** Resolves once every command started so far has recorded its result (or failed); never rejects. */
	async ended(): Promise<void> {
		while (this.executions.size > 0) await Promise.all(this.executions);
	}

	private async run(
		command: string,
		onChunk: ((chunk: string) => void) | undefined,
		options: ExecuteBashOptions,
	): Promise<BashResult> {
		const s = this.s;
		const excludeFromContext = options.excludeFromContext === true;
		let operations = options.operations;
		// Registered before the first await, so abortBash() while a user_bash handler runs is not lost.
		const controller = new AbortController();
		this.running.add(controller);
		const runner = s.runner();
		if (runner.hasHandlers("user_bash")) {
			let decision: Awaited<ReturnType<typeof runner.emitUserBash>>;
			try {
				decision = await runner.emitUserBash({ type: "user_bash", command, excludeFromContext, cwd: s.cwd });
			} catch (error) {
				this.running.delete(controller);
				throw error;
			}
			if (decision?.result) {
				this.running.delete(controller);
				if (this.disposed) throw disposedError();
				const result = signalNoted(decision.result);
				// The handler's output is the command's output: streamed as a run's would be, so `settle -i`
				// (and any caller watching `onChunk`) shows it, as pi's TUI does (oh-my-pi#185).
				this.stream(result.output, onChunk, options.id);
				this.record(command, result, { excludeFromContext });
				return result;
			}
			if (decision?.operations) operations ??= decision.operations;
		}
		const prefix = s.settingsManager.getShellCommandPrefix();
		const shellPath = s.settingsManager.getShellPath();
		const ops = operations ?? createLocalBashOperations(shellPath ? { shellPath } : {});
		// What reaches the model and the log is what pi's `!` keeps (no escape codes, no `\r`, no other
		// controls), with a line redrawn by `\r` as a terminal leaves it: pi glued a progress bar's
		// frames into one line (copilot-cli#3191). A command's raw bytes stay in the full-output file.
		const output = new OutputAccumulator({
			tempFilePrefix: "settle-user-bash",
			stripEscapes: true,
			redrawCarriageReturns: true,
			dropControlCharacters: true,
			keepBytesNotUtf8: true,
		});
		const decoder = new TextDecoder();
		let exitCode: number | undefined;
		let killedBySignal = false;
		let cancelled = false;
		let timedOut = false;
		try {
			// Aborted while the user_bash handler ran: nothing is started.
			if (controller.signal.aborted) throw new Error("aborted");
			const run = await ops.exec(prefix ? `${prefix}\n${command}` : command, s.cwd, {
				onData: (chunk) => {
					output.append(chunk);
					this.stream(decoder.decode(chunk, { stream: true }), onChunk, options.id);
				},
				signal: controller.signal,
				...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
			});
			exitCode = run.exitCode ?? undefined;
			// pi's contract for a signal: recorded as pi does (no code), but not as a success (pi#9577).
			killedBySignal = run.exitCode === null;
		} catch (error) {
			timedOut = !controller.signal.aborted && error instanceof Error && error.message.startsWith("timeout:");
			if (!controller.signal.aborted && !timedOut) {
				// Nothing will point to the output spilled to a temp file: close and remove it before failing.
				await discardOutput(output);
				throw error instanceof SettleError
					? error
					: new SettleError("TOOL", `Could not run ${command}: ${String(error)}`, { cause: error });
			}
			cancelled = true;
		} finally {
			this.running.delete(controller);
		}
		output.finish();
		await output.close();
		const snapshot = output.snapshot();
		const result: BashResult = {
			output: snapshot.content,
			exitCode,
			cancelled,
			truncated: snapshot.truncation.truncated,
		};
		if (snapshot.fullOutputPath) result.fullOutputPath = snapshot.fullOutputPath;
		if (timedOut && options.timeout !== undefined) result.timedOutAfter = options.timeout;
		if (snapshot.notUtf8) result.notUtf8 = true;
		if (killedBySignal && !cancelled) result.killedBySignal = true;
		// A disposed session's log is closed, or already the next session's: nothing more goes into it.
		if (this.disposed) {
			// Must not throw: a failed removal would replace SESSION_CLOSED.
			if (snapshot.fullOutputPath) await rm(snapshot.fullOutputPath, { force: true }).catch(() => {});
			throw disposedError();
		}
		this.record(command, result, { excludeFromContext });
		return result;
	}

	/** Passes a piece of a command's output to `onChunk` and `bash_execution_update` (nothing when empty). */
	private stream(delta: string, onChunk: ((chunk: string) => void) | undefined, id: string | undefined): void {
		if (delta.length === 0) return;
		onChunk?.(delta);
		this.s.events.emit(
			id !== undefined ? { type: "bash_execution_update", id, delta } : { type: "bash_execution_update", delta },
		);
	}

	/**
	 * Records a bash result (also for extensions that ran the command themselves): into the
	 * transcript and the log now when idle, else held until the operation's next safe point.
	 * Emits no message events (as in pi).
	 */
	record(command: string, result: BashResult, options: { excludeFromContext?: boolean } = {}): BashExecutionMessage {
		const message: BashExecutionMessage = {
			role: "bashExecution",
			command,
			output: result.output,
			exitCode: result.exitCode,
			cancelled: result.cancelled,
			truncated: result.truncated,
			timestamp: Date.now(),
		};
		if (result.fullOutputPath !== undefined) message.fullOutputPath = result.fullOutputPath;
		if (result.timedOutAfter !== undefined) message.timedOutAfter = result.timedOutAfter;
		if (result.notUtf8) message.notUtf8 = true;
		if (result.killedBySignal) message.killedBySignal = true;
		if (options.excludeFromContext) message.excludeFromContext = true;
		if (holdsSideMessages(this.s)) this.s.queues.holdBash(message);
		else this.s.transcript.append(message);
		return message;
	}

	/** Aborts every running command (their results are recorded with `cancelled: true`). */
	abortAll(): void {
		for (const controller of this.running) controller.abort();
	}

	/** Aborts every running command for good: their `execute()` rejects with `SESSION_CLOSED`, recording nothing. */
	dispose(): void {
		this.disposed = true;
		this.abortAll();
	}
}

/** Closes `output` and removes its temp file, if it spilled to one. Must not throw. */
async function discardOutput(output: OutputAccumulator): Promise<void> {
	output.finish();
	const path = output.snapshot().fullOutputPath;
	await output.close();
	if (path) await rm(path, { force: true }).catch(() => {});
}

/**
 * A handler's (or `recordBashResult`'s) result with `exitCode: null` (a JavaScript extension passing
 * on a child's close code: killed by a signal) as the operations path records one (pi#9577): no code,
 * `killedBySignal`.
 */
export function signalNoted(result: BashResult): BashResult {
	if ((result.exitCode as number | null | undefined) !== null || result.cancelled) return result;
	return { ...result, exitCode: undefined, killedBySignal: true };
}

function disposedError(): SettleError {
	const error = new SettleError("SESSION_CLOSED", BASH_DISPOSED);
	// Formatted now: until then the error keeps its frames' receivers (the disposed session's parts) alive.
	void error.stack;
	return error;
}
