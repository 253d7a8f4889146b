/** The `bash` tool: runs a command in the session cwd, streams output, keeps the tail. */
import { rm } from "node:fs/promises";
import type { Static } from "@sinclair/typebox";
import { resultsDiscarded } from "../abort.js";
import { SettleError } from "../errors.js";
import { Type } from "../schema/typebox.js";
import { OutputAccumulator, type OutputSnapshot } from "./output-accumulator.js";
import { type BashOperations, createLocalBashOperations } from "./shell.js";
import { counted, DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult } from "./truncate.js";
import type { ToolDefinition } from "./types.js";

const bashSchema = Type.Object({
	command: Type.String({ description: "Bash command to execute" }),
	// pi's wording, byte for byte: the model is sent the same tool as pi's (test/llm/wire/pi-parity); a
	// timeout in milliseconds is refused with the unit spelled out instead (checkTimeoutUnit).
	timeout: Type.Optional(Type.Number({ description: "Timeout in seconds (optional, no default timeout)" })),
});
/** Arguments of the `bash` tool: the command and an optional timeout in seconds. */
export type BashToolInput = Static<typeof bashSchema>;

/** `details` of a `bash` tool result. */
export interface BashToolDetails {
	truncation?: TruncationResult;
	/** Temp file holding the complete output, when the result shows only its tail. */
	fullOutputPath?: string;
}

/** What a command is run with; a {@link BashSpawnHook} may change any of it. */
export interface BashSpawnContext {
	command: string;
	cwd: string;
	env: NodeJS.ProcessEnv;
}
/** Rewrites a command's spawn context (command, cwd, env) before it runs. */
export type BashSpawnHook = (context: BashSpawnContext) => BashSpawnContext;

/** Options of {@link createBashToolDefinition}. */
export interface BashToolOptions {
	/** Custom execution (for example SSH). Default: a local child process. */
	operations?: BashOperations;
	/** Shell setup run before every command (it is prepended on its own line). */
	commandPrefix?: string;
	/** Shell binary; default `/bin/bash` (then `bash` on PATH, then `sh`). */
	shellPath?: string;
	/** Adjusts command, cwd or environment right before execution. */
	spawnHook?: BashSpawnHook;
	/** Folder for full-output files of truncated commands. Default: the OS temp folder. */
	fullOutputDir?: string;
}

/**
 * Refuses a timeout that reads as milliseconds: whole thousands from 10000 up (`120000` for two
 * minutes). Taken as seconds, such a timeout let a hung command hold the run for 33 hours
 * (pi#9785); refused before anything runs, the model calls again in seconds. Legitimate seconds
 * that large are rare, and a command meant to run that long can go without a timeout.
 */
function checkTimeoutUnit(timeout: number | undefined): void {
	if (timeout === undefined || timeout < 10_000 || timeout % 1000 !== 0) return;
	const seconds = timeout / 1000;
	throw new SettleError(
		"INVALID_ARGUMENT",
		`Timeout ${timeout} seconds is ${(timeout / 3600).toFixed(1)} hours: the timeout is in seconds, not milliseconds; nothing was run. For ${seconds} seconds, call again with timeout: ${seconds}. (Whole thousands from 10000 up are taken for milliseconds; a command meant to run that long needs no timeout.)`,
	);
}

/** Minimum spacing of streamed partial results, so a chatty command does not flood listeners. */
const UPDATE_INTERVAL_MS = 100;

/**
 * Creates the `bash` tool for a working directory.
 *
 * @example
 * ```ts
 * const bash = createBashToolDefinition("/repo", { commandPrefix: "set -o pipefail" });
 * await bash.execute("call-1", { command: "npm test", timeout: 120 }, signal, (partial) => console.log(partial.content), undefined);
 * ```
 */
export function createBashToolDefinition(
	cwd: string,
	options: BashToolOptions = {},
): ToolDefinition<typeof bashSchema, BashToolDetails | undefined> {
	const ops = options.operations ?? createLocalBashOperations({ shellPath: options.shellPath });
	return {
		name: "bash",
		label: "bash",
		description: `Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.`,
		promptSnippet: "Run shell commands in the project directory (build, test, git, search)",
		promptGuidelines: [
			"Give long-running commands a timeout, and never start commands that wait for interactive input.",
			"When bash output is truncated, read the saved full-output file instead of re-running the command.",
		],
		parameters: bashSchema,
		async execute(_toolCallId, { command, timeout }, signal, onUpdate) {
			checkTimeoutUnit(timeout);
			const fullCommand = options.commandPrefix ? `${options.commandPrefix}\n${command}` : command;
			const base: BashSpawnContext = { command: fullCommand, cwd, env: { ...process.env } };
			const spawnContext = options.spawnHook ? options.spawnHook(base) : base;
			const output = new OutputAccumulator({
				tempFilePrefix: "settle-bash",
				tempDir: options.fullOutputDir,
				redrawCarriageReturns: true,
				stripEscapes: true,
				keepBytesNotUtf8: true,
			});
			const updates = createUpdateThrottle(output, onUpdate);
			onUpdate?.({ content: [], details: undefined });

			const finishOutput = async (): Promise<OutputSnapshot> => {
				output.finish();
				updates.flush();
				await output.close();
				return output.snapshot();
			};
			const render = (snapshot: OutputSnapshot, emptyText: string) =>
				formatBashOutput(snapshot, output.lastLineSize, emptyText);
			const withStatus = (text: string, status: string) => `${text ? `${text}\n\n` : ""}${status}`;

			let exitCode: number | null;
			try {
				({ exitCode } = await ops.exec(spawnContext.command, spawnContext.cwd, {
					onData: (chunk) => {
						output.append(chunk);
						updates.schedule();
					},
					signal,
					timeout,
					env: spawnContext.env,
				}));
			} catch (error) {
				const snapshot = await finishOutput();
				const { text } = render(snapshot, "");
				const message = error instanceof Error ? error.message : String(error);
				if (message === "aborted") {
					// A disposed session never records this result: nothing would ever point to the file.
					if (!resultsDiscarded(signal)) throw new SettleError("ABORTED", withStatus(text, "Command aborted"));
					if (snapshot.fullOutputPath) await rm(snapshot.fullOutputPath, { force: true }).catch(() => {});
					throw new SettleError("ABORTED", withStatus(snapshot.content, "Command aborted"));
				}
				if (message.startsWith("timeout:")) {
					throw new SettleError(
						"TOOL",
						withStatus(text, `Command timed out after ${counted(message.slice(8), "second")}`),
					);
				}
				// This error names no full-output file: nothing would ever point to it, so it goes.
				if (snapshot.fullOutputPath) await rm(snapshot.fullOutputPath, { force: true }).catch(() => {});
				throw error;
			} finally {
				updates.cancel();
			}
			const snapshot = await finishOutput();
			const { text, details } = render(snapshot, "(no output)");
			// `null` is how operations say "killed by a signal" (pi's contract): a failure, not a success (pi#9577).
			if (exitCode === null) throw new SettleError("TOOL", withStatus(text, "Command was killed by a signal"));
			if (exitCode !== 0) throw new SettleError("TOOL", withStatus(text, `Command exited with code ${exitCode}`));
			return { content: [{ type: "text", text }], details };
		},
	};
}

/** The visible text for a snapshot, with the truncation hint pi's model prompts are tuned to. */
function formatBashOutput(
	snapshot: OutputSnapshot,
	lastLineSize: number,
	emptyText: string,
): { text: string; details: BashToolDetails | undefined } {
	const { truncation, fullOutputPath, fullOutputError } = snapshot;
	let text = snapshot.content || emptyText;
	const full = fullOutputPath ? `Full output: ${fullOutputPath}` : `Full output not saved: ${fullOutputError}`;
	// Progress bars redrawn with \r show their last frame only (opencode#35246); the file has every frame.
	// Colors and other escape codes are left out (claude-code#26373); the file has them.
	const escapes = snapshot.escapesStripped ? "Terminal escape codes (colors) left out. " : "";
	// Text in a legacy encoding (GBK, Shift-JIS, Latin-1) decodes to U+FFFD (wave-agent#1753); the file has its bytes.
	const notUtf8 = snapshot.notUtf8
		? "Bytes that are not UTF-8 text are shown as \ufffd; the file keeps them: convert it with iconv -f <its encoding> -t UTF-8 (for example GBK, SHIFT_JIS, CP1252). "
		: "";
	const notes = `${snapshot.redrawn ? "Lines redrawn with \\r are shown as a terminal leaves them. " : ""}${escapes}${notUtf8}`;
	if (!truncation.truncated) {
		if (!notes) return { text, details: undefined };
		text += `\n\n[${notes}${full}]`;
		return { text, details: fullOutputPath ? { fullOutputPath } : undefined };
	}
	const first = truncation.totalLines - truncation.outputLines + 1;
	const last = truncation.totalLines;
	if (truncation.lastLinePartial) {
		text += `\n\n[Showing last ${formatSize(truncation.outputBytes)} of line ${last} (line is ${formatSize(lastLineSize)}). ${notes}${full}]`;
	} else if (truncation.truncatedBy === "lines") {
		text += `\n\n[Showing lines ${first}-${last} of ${truncation.totalLines}. ${notes}${full}]`;
	} else {
		text += `\n\n[Showing lines ${first}-${last} of ${truncation.totalLines} (${formatSize(DEFAULT_MAX_BYTES)} limit). ${notes}${full}]`;
	}
	const details: BashToolDetails = { truncation };
	if (fullOutputPath) details.fullOutputPath = fullOutputPath;
	return { text, details };
}

/** Emits the current tail through `onUpdate` at most every {@link UPDATE_INTERVAL_MS}. */
function createUpdateThrottle(
	output: OutputAccumulator,
	onUpdate:
		| ((partial: { content: { type: "text"; text: string }[]; details: BashToolDetails | undefined }) => void)
		| undefined,
) {
	let timer: NodeJS.Timeout | undefined;
	let dirty = false;
	let lastEmit = 0;
	const emit = () => {
		if (!onUpdate || !dirty) return;
		dirty = false;
		lastEmit = Date.now();
		const snapshot = output.snapshot();
		// Always an object, as pi's: hosts written against pi read `partialResult.details.truncation`.
		const details: BashToolDetails = snapshot.truncation.truncated
			? { truncation: snapshot.truncation, fullOutputPath: snapshot.fullOutputPath }
			: {};
		onUpdate({ content: [{ type: "text", text: snapshot.content }], details });
	};
	const cancel = () => {
		if (timer) clearTimeout(timer);
		timer = undefined;
	};
	return {
		schedule() {
			if (!onUpdate) return;
			dirty = true;
			const wait = UPDATE_INTERVAL_MS - (Date.now() - lastEmit);
			if (wait <= 0) {
				cancel();
				emit();
			} else {
				timer ??= setTimeout(() => {
					timer = undefined;
					emit();
				}, wait);
			}
		},
		flush() {
			cancel();
			emit();
		},
		cancel,
	};
}
