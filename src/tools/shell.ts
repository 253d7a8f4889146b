/**
 * Running shell commands as real child processes: shell resolution, process-group kill, and a wait
 * that does not hang on pipes inherited by daemonized grandchildren.
 */
import type { ChildProcess } from "node:child_process";
import {
	accessSync,
	existsSync,
	constants as fsConstants,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { SettleError } from "../errors.js";
import { loadChildProcess, loadTimersPromises } from "../lazy-deps.js";
import { outOfDescriptors } from "./fs-errors.js";

/** The shell binary and the arguments that come before the command (see {@link resolveShellConfig}). */
export interface ShellConfig {
	shell: string;
	args: string[];
}

/**
 * The shell used for commands: `shellPath` when given (an executable file, else `SettleError` INVALID_ARGUMENT),
 * else `/bin/bash`, else `bash` on PATH, else `sh`. Commands run as `<shell> -c <command>`.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 *
 * const { shell, args } = resolveShellConfig(); // { shell: "/bin/bash", args: ["-c"] } on most systems
 * const child = spawn(shell, [...args, "ls -la"], { cwd: process.cwd(), detached: true });
 * ```
 */
export function resolveShellConfig(shellPath?: string): ShellConfig {
	if (shellPath) {
		if (!existsSync(shellPath)) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Custom shell path not found: ${shellPath}. Fix the shellPath setting or remove it to use /bin/bash.`,
			);
		}
		// Said before spawning: Node's own error for these is a bare `spawn <path> EACCES` (local-operator#665).
		if (statSync(shellPath).isDirectory()) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Custom shell path is a folder, not a shell: ${shellPath}. Fix the shellPath setting (the shell's own file, such as /bin/bash) or remove it to use /bin/bash.`,
			);
		}
		if (process.platform !== "win32" && !isExecutable(shellPath)) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Custom shell path is not executable: ${shellPath}. Make it executable (chmod +x), fix the shellPath setting, or remove it to use /bin/bash.`,
			);
		}
		return { shell: shellPath, args: ["-c"] };
	}
	if (process.platform !== "win32" && existsSync("/bin/bash")) return { shell: "/bin/bash", args: ["-c"] };
	const lookup = loadChildProcess().spawnSync(process.platform === "win32" ? "where" : "which", ["bash"], {
		encoding: "utf-8",
		timeout: 5000,
	});
	const found = lookup.status === 0 ? lookup.stdout.trim().split(/\r?\n/)[0] : undefined;
	if (found) return { shell: found, args: ["-c"] };
	return { shell: "sh", args: ["-c"] };
}

/** Whether this process may execute `path` (for root: some execute bit is set). */
function isExecutable(path: string): boolean {
	try {
		accessSync(path, fsConstants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/**
 * Kills a detached child and everything in its process group (SIGKILL); on Linux also every process
 * of the session the detached child leads, so descendants that moved to a process group of their
 * own (GNU `timeout` does) die with it. Processes that started a session of their own (`setsid`,
 * daemons) are left alone. Never throws.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 *
 * const { shell, args } = resolveShellConfig();
 * const child = spawn(shell, [...args, "sleep 60 & sleep 60"], { detached: true });
 * signal.addEventListener("abort", () => killProcessTree(child.pid!));
 * ```
 */
export function killProcessTree(pid: number): void {
	if (process.platform === "win32") {
		try {
			loadChildProcess().spawn("taskkill", ["/F", "/T", "/PID", String(pid)], { stdio: "ignore", detached: true });
		} catch {
			// already gone
		}
		return;
	}
	signalProcessTree(pid, "SIGKILL");
}

/**
 * Sends `signal` to the process group `pid` leads and, on Linux, to the processes of its session
 * outside that group. Once each: a second SIGTERM reaching a shell already running its EXIT trap
 * (the first one reset its handler) killed it mid-trap. Never throws.
 */
function signalProcessTree(pid: number, signal: NodeJS.Signals): void {
	let groupSignalled = true;
	try {
		process.kill(-pid, signal);
	} catch {
		groupSignalled = false;
		signalQuietly(pid, signal);
	}
	if (process.platform !== "linux") return;
	for (const member of treeMembersSync(pid, groupSignalled) ?? []) signalQuietly(member, signal);
}

function signalQuietly(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
	try {
		process.kill(pid, signal);
	} catch {
		// already gone
	}
}

/**
 * Whether a /proc `stat` line is a live (not zombie) member of the process group or of the session
 * `leader` leads (`outsideGroup`: of the session only, not of the group). The fields after the
 * parenthesised command: state ppid pgrp session …
 */
function isTreeMember(stat: string, leader: number, outsideGroup = false): boolean {
	const [state, , pgrp, session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	if (state === "Z" || state === "X") return false;
	if (outsideGroup) return Number(pgrp) !== leader && Number(session) === leader;
	return Number(pgrp) === leader || Number(session) === leader;
}

/**
 * Linux: pids of the live members of `leader`'s process group and session (`outsideGroup`: those
 * outside the group only), read from /proc now; null when /proc cannot be read.
 */
function treeMembersSync(leader: number, outsideGroup = false): number[] | null {
	let entries: string[];
	try {
		entries = readdirSync("/proc");
	} catch {
		return null;
	}
	if (entries.length === 0) return null;
	return entries
		.filter((entry) => /^\d+$/.test(entry) && isLiveMember(Number(entry), leader, outsideGroup))
		.map(Number);
}

/** Linux: whether `pid` still runs as a member of `leader`'s tree (false once it exited, was reaped or is a zombie). */
function isLiveMember(pid: number, leader: number, outsideGroup = false): boolean {
	try {
		return isTreeMember(readFileSync(`/proc/${pid}/stat`, "utf-8"), leader, outsideGroup);
	} catch {
		return false; // exited while we looked
	}
}

/** Whether any process of the group still runs (no /proc: the group as the OS reports it). */
function processGroupRunning(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * After a SIGKILL to the group, waits (bounded) until no member of the group (on Linux, of the
 * session it leads too) runs any more, so that an aborted or timed-out command has really stopped
 * when the tool reports it. The OS gives no event for the death of processes that are not our
 * children, hence the short polling. Resolves false when members still run after `timeoutMs`;
 * never rejects.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 *
 * const child = spawn("sh", ["-c", "sleep 60 & sleep 60"], { detached: true });
 * killProcessTree(child.pid!);
 * const stopped = await waitForProcessGroupExit(child.pid!); // false after 2 s with members left
 * ```
 */
export async function waitForProcessGroupExit(pgid: number, timeoutMs = 2000): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	// Linux: all of /proc is read to find the members and, once they are gone, to find one forked
	// before its kill; in between only the members' own stat files. Scanning /proc at each poll (and
	// asynchronously, one file per event-loop turn) outlasted the 1 s abort grace on a busy machine,
	// and Settle's own bash was reported as ignoring the abort (seedhunt7).
	let members = process.platform === "linux" ? treeMembersSync(pgid) : null;
	if (members) {
		while (members.length > 0) {
			if (Date.now() >= deadline) return false;
			await loadTimersPromises().setTimeout(5);
			members = members.filter((pid) => isLiveMember(pid, pgid));
			if (members.length === 0) members = treeMembersSync(pgid) ?? [];
		}
		return true;
	}
	while (processGroupRunning(pgid)) {
		if (Date.now() >= deadline) return false;
		await loadTimersPromises().setTimeout(5);
	}
	return true;
}

/**
 * After a timeout, how long the command gets to act on SIGTERM (a `trap … EXIT` removing its lock
 * file or stopping what it started) before every process of it gets SIGKILL. SIGKILL at once skipped
 * such cleanup (OpenHands/software-agent-sdk#3120). The rest goes as soon as the shell has exited.
 */
const TIMEOUT_TERM_GRACE_MS = 1000;

/** After `exit`, how long to wait for stdout/stderr to end before giving up on inherited pipes. */
const STDIO_GRACE_MS = 100;
/** The same after we killed the process group: every member got SIGKILL, so the pipes close promptly. */
const KILLED_STDIO_GRACE_MS = 1000;

/**
 * Resolves with the exit code once the child has exited and its output has been read. A
 * background grandchild that inherited stdout would keep the pipe open forever; after a short
 * grace period (`graceMs()` at exit time) we stop reading.
 */
export function waitForChild(
	child: ChildProcess,
	graceMs: () => number = () => STDIO_GRACE_MS,
): Promise<number | null> {
	return new Promise((resolve, reject) => {
		let done = false;
		let exitCode: number | null = null;
		let exited = false;
		let graceTimer: NodeJS.Timeout | undefined;
		let openStreams = (child.stdout ? 1 : 0) + (child.stderr ? 1 : 0);
		const finish = (code: number | null) => {
			if (done) return;
			done = true;
			if (graceTimer) clearTimeout(graceTimer);
			if (child.stdout) letGo(child.stdout);
			if (child.stderr) letGo(child.stderr);
			resolve(code);
		};
		const onStreamEnd = () => {
			openStreams--;
			if (exited && openStreams <= 0) finish(exitCode);
		};
		child.stdout?.once("end", onStreamEnd);
		child.stderr?.once("end", onStreamEnd);
		child.once("error", (error) => {
			if (done) return;
			done = true;
			if (graceTimer) clearTimeout(graceTimer);
			reject(error);
		});
		child.once("exit", (code) => {
			exited = true;
			exitCode = code;
			if (openStreams <= 0) finish(code);
			else graceTimer = setTimeout(() => finish(code), graceMs());
		});
		child.once("close", (code) => finish(code ?? exitCode));
	});
}

/**
 * Stops reading a child's pipe without closing it. A background process (`server &`) that inherited
 * it may still write there: with the read end closed its next write fails (EPIPE) and kills it, so a
 * chatty server the user started died a moment after the call returned (opencode#22012). Its later
 * output is drained and dropped; the pipe no longer keeps the process alive.
 */
function letGo(stream: Readable): void {
	if (stream.readableEnded || stream.destroyed) return;
	stream.removeAllListeners("data");
	stream.on("error", () => {});
	stream.resume();
	(stream as Readable & { unref?: () => void }).unref?.();
}

/**
 * The exit code a shell reports for a process ended by `signal` (`$?`): 128 + the signal's
 * number, 137 for SIGKILL; 1 when the signal is unknown.
 */
export function signalExitCode(signal: NodeJS.Signals | null): number {
	if (!signal) return 1;
	const number = constants.signals[signal];
	return typeof number === "number" ? 128 + number : 1;
}

/** Where the incomplete UTF-8 sequence at the end of `data` starts (`data.length` when there is none). */
function incompleteUtf8Tail(data: Buffer): number {
	for (let i = data.length - 1; i >= Math.max(0, data.length - 3); i--) {
		const byte = data[i] as number;
		if ((byte & 0xc0) === 0x80) continue;
		const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
		return data.length - i < length ? i : data.length;
	}
	return data.length;
}

/** Passes a stream's bytes on in whole UTF-8 characters, holding a split one back until its rest arrives. */
function wholeCharacters(onData: (data: Buffer) => void): { write: (chunk: Buffer) => void; flush: () => void } {
	let pending: Buffer | undefined;
	return {
		write: (chunk) => {
			const data = pending ? Buffer.concat([pending, chunk]) : chunk;
			const cut = incompleteUtf8Tail(data);
			pending = cut < data.length ? data.subarray(cut) : undefined;
			if (cut > 0) onData(data.subarray(0, cut));
		},
		flush: () => {
			const rest = pending;
			pending = undefined;
			if (rest) onData(rest);
		},
	};
}

/** Variables naming an editor that a tool opens before VISUAL / EDITOR. */
const TOOL_EDITORS = ["KUBE_EDITOR", "FCEDIT", "SUDO_EDITOR", "HGEDITOR", "SVN_EDITOR", "JJ_EDITOR"] as const;

/**
 * The environment a command runs with: `env` as given, plus `GIT_EDITOR=true` when it names no
 * GIT_EDITOR. A command here has no terminal (stdin is /dev/null, its own session), so the editor
 * git opens for `git commit` without `-m` or `git rebase --continue` (vi by default) waited for
 * keys that never come and the call hung until its timeout, or forever without one (pi#9936).
 * With `true` git keeps the prepared message, or stops at once with "Aborting commit due to empty
 * commit message". A GIT_EDITOR the environment sets (the user's, a spawn hook's) is kept.
 * GIT_SEQUENCE_EDITOR=true too, unless the environment names either: `git rebase -i` runs its
 * todo list as prepared.
 * VISUAL and EDITOR are always replaced by {@link noEditor}: they name the user's terminal editor,
 * which `crontab -e`, `kubectl edit`, `gh pr create`, `hg commit` (or the model's `$EDITOR file`)
 * open themselves; with no terminal vi printed screen codes and failed, other editors waited until
 * the timeout (dagster-io/erk#4251). The command now fails at once saying why. So are the user's
 * KUBE_EDITOR, FCEDIT, SUDO_EDITOR, HGEDITOR, SVN_EDITOR and JJ_EDITOR, which `kubectl edit`,
 * bash's `fc`, `sudoedit`, `hg commit`, `svn commit` and `jj describe` open first.
 * An editor that needs no terminal can be named in SETTLE_BASH_EDITOR: these all get it instead.
 */
function nonInteractiveEnv(given: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	// `git rebase -i` opens a `sequence.editor` from git config before GIT_EDITOR (pi#6432).
	const git =
		given.GIT_EDITOR === undefined && given.GIT_SEQUENCE_EDITOR === undefined
			? { ...given, GIT_SEQUENCE_EDITOR: "true" }
			: given;
	// The user's explicit choice for commands without a terminal (e.g. `code --wait`) is kept.
	const editor = given.SETTLE_BASH_EDITOR || noEditor();
	const env: NodeJS.ProcessEnv = { ...git, VISUAL: editor, EDITOR: editor };
	// Editors tools prefer over EDITOR (kubectl edit, bash's fc, sudoedit, hg, svn, jj): replaced too when the user set them.
	for (const name of TOOL_EDITORS) if (given[name] !== undefined) env[name] = editor;
	return env.GIT_EDITOR === undefined ? { ...env, GIT_EDITOR: "true" } : env;
}

let noEditorPath: string | undefined;

const NO_EDITOR_SCRIPT =
	'#!/bin/sh\necho "settle: no editor in the bash tool (no terminal): pass the text another way, e.g. -m, --body or a file" >&2\nexit 1\n';

/**
 * The editor commands in the bash tool get: a script that prints why and exits 1. A single path,
 * because tools run `$EDITOR` every way: through `sh -c` (crontab, git, hg), split into words
 * (kubectl, gh), or unquoted in the model's own command. It lives in one folder per user under the
 * temp folder, reused by every process (a folder per process was left behind by each one killed);
 * a folder there that is not this user's own, or that others may write, is never used. `false`
 * when the script cannot be had: still fails at once, without the reason.
 */
function noEditor(): string {
	if (noEditorPath !== undefined) return noEditorPath;
	noEditorPath = "false";
	try {
		const uid = process.getuid?.();
		const dir = join(tmpdir(), `settle-no-editor-${uid ?? "user"}`);
		// One level (the temp folder exists): a recursive mkdir spins forever under /proc on Node 20.
		try {
			mkdirSync(dir, { mode: 0o700 });
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		}
		const folder = lstatSync(dir);
		// Another user's folder (made first on a shared /tmp) could hold their script: never run it.
		if (!folder.isDirectory() || (uid !== undefined && folder.uid !== uid) || (folder.mode & 0o022) !== 0) {
			return noEditorPath;
		}
		const file = join(dir, "editor");
		if (!existsSync(file) || readFileSync(file, "utf8") !== NO_EDITOR_SCRIPT) {
			// Written aside and renamed: a process starting meanwhile never runs half a script.
			const aside = `${file}.${process.pid}`;
			writeFileSync(aside, NO_EDITOR_SCRIPT, { mode: 0o755 });
			renameSync(aside, file);
		}
		noEditorPath = file;
	} catch {
		// No temp folder to write: `false` stays.
	}
	return noEditorPath;
}

/** The longest timer Node keeps (2^31 - 1 ms); a longer one fires after 1 ms instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The longest `timeout` (seconds) a command can be given: 2,147,483 s, about 24.8 days. */
const MAX_BASH_TIMEOUT_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/**
 * Refuses a timeout the process timer cannot wait for. Node turns a delay over 2^31 - 1 ms into
 * 1 ms, so `timeout: 99999999` killed the command at once and reported it as timed out after
 * 99999999 seconds (pi#6181).
 */
function checkTimeout(timeout: number | undefined): void {
	if (timeout === undefined || timeout <= 0 || (Number.isFinite(timeout) && timeout <= MAX_BASH_TIMEOUT_SECONDS)) {
		return;
	}
	throw new SettleError(
		"INVALID_ARGUMENT",
		`Timeout ${timeout} seconds is over the longest a command can be given (${MAX_BASH_TIMEOUT_SECONDS} seconds, about 24.8 days); nothing was run. Give a smaller timeout in seconds, or none.`,
	);
}

/**
 * Refuses a command holding a NUL character: no process argument can carry one, and Node's own
 * refusal ("The argument 'args[1]' must be a string without null bytes") reached the model as a
 * puzzle about an argument it never wrote (oh-my-openagent#2220: models emit stray NULs after a
 * compaction or a model fallback).
 */
function checkCommandText(command: string): void {
	if (!command.includes("\0")) return;
	throw new SettleError(
		"INVALID_ARGUMENT",
		"The command holds a NUL character, which no shell command can carry; nothing was run. Send it again without the NUL (printf '\\0' writes a NUL byte).",
	);
}

/** Options of one command execution. */
export interface ShellExecOptions {
	/** Receives stdout and stderr bytes, interleaved as they arrive. */
	onData: (data: Buffer) => void;
	signal?: AbortSignal;
	/** Seconds; no timeout when absent or not positive. */
	timeout?: number;
	env?: NodeJS.ProcessEnv;
}

/**
 * Pluggable command execution (for example over SSH). Same contract as pi's `BashOperations`:
 * resolve with the exit code (null when killed by a signal); reject with `Error("aborted")` after
 * an abort and `Error("timeout:<seconds>")` after a timeout.
 */
export interface BashOperations {
	exec: (command: string, cwd: string, options: ShellExecOptions) => Promise<{ exitCode: number | null }>;
}

/**
 * Runs commands locally as `<shell> -c <command>` in their own process group, so an abort or a
 * timeout kills the command and everything it started (a timeout sends SIGTERM first, so a shell's
 * `trap … EXIT` runs; SIGKILL follows once the shell has exited, or after 1 s).
 * A shell ended by a signal resolves with the shell's code for it (128 + the signal: 137 for
 * SIGKILL), and each of stdout and stderr reaches `onData` in whole UTF-8 characters.
 *
 * @example
 * ```ts
 * const ops = createLocalBashOperations();
 * const { exitCode } = await ops.exec("make test", cwd, { onData: (b) => process.stdout.write(b) });
 * ```
 */
export function createLocalBashOperations(options: { shellPath?: string } = {}): BashOperations {
	return {
		async exec(command, cwd, { onData, signal, timeout, env }) {
			checkTimeout(timeout);
			checkCommandText(command);
			const { shell, args } = resolveShellConfig(options.shellPath);
			if (!existsSync(cwd)) {
				throw new SettleError("NOT_FOUND", `Working directory does not exist: ${cwd}\nCannot execute bash commands.`);
			}
			if (signal?.aborted) throw new Error("aborted");
			// No descriptor left for the pipes (EMFILE): said as such, not as Node's bare "spawn /bin/bash EMFILE".
			const noDescriptors = (error: unknown) => outOfDescriptors(error, `start ${shell}`) ?? error;
			let child: ChildProcess;
			try {
				child = loadChildProcess().spawn(shell, [...args, command], {
					cwd,
					detached: process.platform !== "win32",
					env: nonInteractiveEnv(env ?? process.env),
					stdio: ["ignore", "pipe", "pipe"],
				});
			} catch (error) {
				throw noDescriptors(error);
			}
			let timedOut = false;
			let killed = false;
			let escalation: NodeJS.Timeout | undefined;
			const kill = () => {
				killed = true;
				if (child.pid !== undefined) killProcessTree(child.pid);
			};
			// A timeout asks first: SIGTERM to every process of the command lets a shell run its EXIT trap.
			const terminate = () => {
				if (process.platform === "win32" || child.pid === undefined) return kill();
				killed = true;
				signalProcessTree(child.pid, "SIGTERM");
				escalation = setTimeout(kill, TIMEOUT_TERM_GRACE_MS);
			};
			// Once the shell has exited (its trap done), what ignored SIGTERM gets SIGKILL without waiting out the grace.
			child.once("exit", () => {
				if (killed) kill();
			});
			const timer =
				timeout !== undefined && timeout > 0
					? setTimeout(() => {
							timedOut = true;
							terminate();
						}, timeout * 1000)
					: undefined;
			signal?.addEventListener("abort", kill, { once: true });
			// Each stream hands on whole UTF-8 characters only: a character split across two reads of
			// stdout must not be decoded around a stderr chunk that arrived in between (opencode#36655).
			const stdout = wholeCharacters(onData);
			const stderr = wholeCharacters(onData);
			child.stdout?.on("data", stdout.write);
			child.stderr?.on("data", stderr.write);
			try {
				const exitCode = await waitForChild(child, () => (killed ? KILLED_STDIO_GRACE_MS : STDIO_GRACE_MS)).catch(
					(error: unknown) => {
						throw noDescriptors(error);
					},
				);
				if (killed && child.pid !== undefined && process.platform !== "win32") {
					// The session sweep is not atomic as a group kill is: a process forked meanwhile dies now.
					killProcessTree(child.pid);
					await waitForProcessGroupExit(child.pid);
				}
				if (signal?.aborted) throw new Error("aborted");
				if (timedOut) throw new Error(`timeout:${timeout}`);
				// A shell killed by a signal has no exit code: report the shell's own 128 + n (137 for
				// SIGKILL), as `$?` would, not a success (pi#9577).
				return { exitCode: exitCode ?? signalExitCode(child.signalCode) };
			} finally {
				stdout.flush();
				stderr.flush();
				if (timer) clearTimeout(timer);
				if (escalation) clearTimeout(escalation);
				signal?.removeEventListener("abort", kill);
			}
		},
	};
}
