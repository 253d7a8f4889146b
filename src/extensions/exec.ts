/** `pi.exec`: run a program as a real child process and collect its output. */

import { existsSync } from "node:fs";
import { errorMessage } from "../errors.js";
import { loadChildProcess } from "../lazy-deps.js";
import { signalExitCode, waitForChild } from "../tools/shell.js";
import type { ExecOptions, ExecResult } from "./types.js";

/** After SIGTERM, how long a process gets before SIGKILL (pi's grace). */
const KILL_GRACE_MS = 5000;

/**
 * The SIGKILLs still due (their grace not over). The timer dies with this process: at its exit
 * (settle ended by SIGTERM, say) each is sent at once, or a program ignoring SIGTERM would run on
 * under init (howaboua-pi-stuff#260).
 */
const killsDue = new Set<() => void>();

function sendDueKillsAtExit(): void {
	for (const kill of [...killsDue]) kill();
}

/**
 * Runs `command` with `args` (no shell) in `cwd` and resolves with its output. Never rejects: a
 * program that cannot start resolves with `code: 1` and the reason in `stderr`. On timeout or
 * abort the process and everything it started (its process group, on POSIX) get SIGTERM, then
 * SIGKILL after 5 s, or at once if settle exits sooner; the result has `killed: true` and `code`
 * 128 + the signal number.
 *
 * @example
 * ```ts
 * const { stdout, code } = await execCommand("git", ["status", "--short"], cwd, { timeout: 10_000 });
 * ```
 */
export async function execCommand(
	command: string,
	args: readonly string[],
	cwd: string,
	options: ExecOptions = {},
): Promise<ExecResult> {
	if (options.signal?.aborted) return { stdout: "", stderr: "", code: 1, killed: true };
	if (!existsSync(cwd)) {
		return { stdout: "", stderr: `Working directory does not exist: ${cwd}`, code: 1, killed: false };
	}
	const group = process.platform !== "win32";
	const child = loadChildProcess().spawn(command, [...args], {
		cwd,
		shell: false,
		detached: group,
		stdio: ["ignore", "pipe", "pipe"],
	});
	const stdout: Buffer[] = [];
	const stderr: Buffer[] = [];
	child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
	child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));

	let killed = false;
	const signalTree = (signal: NodeJS.Signals) => {
		if (child.pid === undefined) return;
		try {
			process.kill(group ? -child.pid : child.pid, signal);
		} catch {
			// Already gone.
		}
	};
	const kill = () => {
		if (killed) return;
		killed = true;
		signalTree("SIGTERM");
		const forceKill = () => {
			if (!killsDue.delete(forceKill)) return;
			if (killsDue.size === 0) process.off("exit", sendDueKillsAtExit);
			signalTree("SIGKILL");
		};
		if (killsDue.size === 0) process.on("exit", sendDueKillsAtExit);
		killsDue.add(forceKill);
		setTimeout(forceKill, KILL_GRACE_MS).unref();
	};
	const timeoutTimer = options.timeout && options.timeout > 0 ? setTimeout(kill, options.timeout) : undefined;
	options.signal?.addEventListener("abort", kill, { once: true });

	let code: number;
	let startError: string | undefined;
	try {
		const exitCode = await waitForChild(child, () => (killed ? 1000 : 100));
		code = exitCode ?? signalExitCode(child.signalCode);
	} catch (error) {
		startError = errorMessage(error);
		code = 1;
	} finally {
		if (timeoutTimer) clearTimeout(timeoutTimer);
		// The SIGKILL timer stays armed (unref'd): group members that ignored SIGTERM still get SIGKILL.
		options.signal?.removeEventListener("abort", kill);
	}
	const errText = Buffer.concat(stderr).toString("utf-8");
	return {
		stdout: Buffer.concat(stdout).toString("utf-8"),
		stderr: startError ? `${errText}${errText && !errText.endsWith("\n") ? "\n" : ""}${startError}` : errText,
		code,
		killed,
	};
}
