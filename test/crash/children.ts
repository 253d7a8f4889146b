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
}

export function spawnSessionChild(mode: "hold" | "exit" | "append", file: string, seed = 1): SessionChild {
	const { module } = compiledStore();
	const child = spawn(process.execPath, [SESSION_CHILD, mode, pathToFileURL(module).href, file, String(seed)], {
		stdio: ["ignore", "pipe", "pipe"],
	});
	const acks: string[] = [];
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
	return { process: child, ready, exited, acks, stderr: () => errors };
}
