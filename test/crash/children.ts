/** Spawning the session child (session-child.mjs) and reading its protocol lines. */
import { type ChildProcess, spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { compiledStore, SESSION_CHILD } from "./compile-store.js";

export interface SessionChild {
	process: ChildProcess;
	/** Resolves with the child's pid once it has opened the session (holds the lock). */
	ready: Promise<number>;
	/** Resolves when the child has exited and been reaped. */
	exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	/** Entry ids the child acknowledged (each append had returned). */
	acks: string[];
	/** Everything the child wrote to stderr. */
	stderr: () => string;
	/** Resolves with the rest of the child's first line that starts with `word ` ("result" in stall mode). */
	said: (word: string) => Promise<string>;
}

/**
 * Starts session-child.mjs in `mode`; `arg` is the seed in append mode, the FIFO in stall mode. `env`
 * is added to this process's environment (SETTLE_TEST_LOCK_STALE_MS for a shorter stale timeout).
 */
export function spawnSessionChild(
	mode: "hold" | "exit" | "append" | "stall" | "take-over",
	file: string,
	arg: number | string = 1,
	env: Record<string, string> = {},
): SessionChild {
	const { module } = compiledStore();
	const child = spawn(process.execPath, [SESSION_CHILD, mode, pathToFileURL(module).href, file, String(arg)], {
		stdio: ["ignore", "pipe", "pipe"],
		env: { ...process.env, ...env },
	});
	const acks: string[] = [];
	const lines: string[] = [];
	const waiting: { word: string; resolve: (rest: string) => void }[] = [];
	let errors = "";
	let buffer = "";
	let resolveReady!: (pid: number) => void;
	let rejectReady!: (error: Error) => void;
	const ready = new Promise<number>((resolve, reject) => {
		resolveReady = resolve;
		rejectReady = reject;
	});
	ready.catch(() => {}); // observed by callers that await it; never an unhandled rejection
	child.stdout!.setEncoding("utf8");
	child.stdout!.on("data", (chunk: string) => {
		buffer += chunk;
		let nl = buffer.indexOf("\n");
		while (nl >= 0) {
			const line = buffer.slice(0, nl);
			buffer = buffer.slice(nl + 1);
			if (line.startsWith("ack ")) acks.push(line.slice(4));
			else if (line.startsWith("ready ")) resolveReady(Number(line.slice(6)));
			lines.push(line);
			for (const wait of waiting.splice(0)) {
				if (line.startsWith(`${wait.word} `)) wait.resolve(line.slice(wait.word.length + 1));
				else waiting.push(wait);
			}
			nl = buffer.indexOf("\n");
		}
	});
	child.stderr!.setEncoding("utf8");
	child.stderr!.on("data", (chunk: string) => {
		errors += chunk;
	});
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
		// "close" fires after the process exited and its output streams ended: every ack is read.
		child.on("close", (code, signal) => {
			rejectReady(new Error(`child exited before it was ready (code ${code}, signal ${signal}): ${errors}`));
			resolve({ code, signal });
		});
	});
	const said = (word: string) =>
		new Promise<string>((resolve, reject) => {
			const line = lines.find((each) => each.startsWith(`${word} `));
			if (line !== undefined) return resolve(line.slice(word.length + 1));
			waiting.push({ word, resolve });
			exited.then(() => reject(new Error(`child exited without saying "${word}": ${errors}`)));
		});
	return { process: child, ready, exited, acks, stderr: () => errors, said };
}
