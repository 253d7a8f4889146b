/**
 * howaboua-pi-stuff#260, replayed: an extension's exec tool (pi-codex-conversion's `exec_command`)
 * running when pi was shut down: the owned shell died, its child lived on under PID 1. In Settle an
 * extension's `pi.exec(…, { signal })` aborted by a SIGTERM to settle sends the program's process
 * group SIGTERM, then SIGKILL after 5 s; a program that ignores SIGTERM outlived that promise, as
 * the SIGKILL timer died with settle (the process exits well within the 5 s). Real `settle -p`, a
 * real program, its processes looked up in /proc.
 *
 * The same end for a program an extension starts with `pi.exec` and no signal (or never awaits): it
 * ran on under init after `settle -p` answered and exited, as in pi 0.73.1. Now the session's end
 * sends its process group SIGTERM, then SIGKILL after 5 s or as settle exits, whichever is first.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { isProcessRunning } from "../tools/helpers.js";
import { killMarked, markedProcesses, markedSleepCommand, processMarker } from "./processes.js";

const cli = useCliProject("settle-pi-races-extension-exec-exit-");

/** An extension tool that runs `command` through `pi.exec("sh", …)` with its abort signal, and logs `session_shutdown`. */
const EXEC_TOOL = (command: string, log: string) => `import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.registerTool({
		name: "exec_command",
		label: "exec",
		description: "runs a command",
		parameters: { type: "object", properties: {} },
		async execute(_id, _params, signal) {
			const result = await pi.exec("sh", ["-c", ${JSON.stringify(command)}], { signal });
			return { content: [{ type: "text", text: "exit " + result.code }] };
		},
	});
	pi.on("session_shutdown", (event) => {
		appendFileSync(${JSON.stringify(log)}, "session_shutdown " + event.reason + "\\n");
	});
}
`;

/**
 * Resolves once no process carries `mark`, or with what is left after `ms`: a process sent SIGKILL
 * as settle exited is gone once the kernel has run it, which under load can be just after settle's end.
 */
async function leftAfter(mark: string, ms: number): Promise<number[]> {
	const deadline = Date.now() + ms;
	let left = markedProcesses(mark);
	while (left.length > 0 && Date.now() < deadline) {
		await nextTurn();
		left = markedProcesses(mark);
	}
	return left;
}

describe("howaboua-pi-stuff#260: an extension's exec survives the agent's shutdown under PID 1", () => {
	it("howaboua-pi-stuff#260: settle -p sent SIGTERM while an extension's pi.exec runs a program ignoring SIGTERM: exit 143, session_shutdown once, and no process of the program is left", async () => {
		const mark = processMarker();
		const log = join(cli.dir, "shutdown.log");
		writeFileSync(log, "");
		// The program ignores SIGTERM (its sleep too), and once all of it runs it signals settle, its parent.
		const program = `trap '' TERM; ${markedSleepCommand(mark, 300, "kill -TERM $PPID")}`;
		const extension = join(cli.dir, "exec-tool.mjs");
		writeFileSync(extension, EXEC_TOOL(program, log));
		const script = join(cli.dir, "script.json");
		writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "exec_command", arguments: {} }] }]));
		try {
			const run = runSettle(["--faux-script", script, "-e", extension, "-p", "build it"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: 60_000,
			});
			expect(run.code).toBe(143);
			expect(run.stderr).not.toMatch(/\n\s+at /);
			expect(await leftAfter(mark, 2000)).toEqual([]);
			expect(readFileSync(log, "utf8")).toBe("session_shutdown quit\n");
		} finally {
			killMarked(mark);
		}
	});
});

/**
 * An extension that, at `session_start`, starts `count` copies of `program` through
 * `pi.exec("sh", …)` without a signal and without awaiting them, and returns once each wrote its
 * pid to `<pidFile>.<i>` (renamed into place, so a file is whole when it appears).
 */
const BACKGROUND_EXEC = (program: string, pidFile: string, count: number) => `import { existsSync } from "node:fs";
export default function (pi) {
	pi.on("session_start", async () => {
		for (let i = 0; i < ${count}; i++) {
			const file = ${JSON.stringify(pidFile)} + "." + i;
			void pi.exec("sh", ["-c", "echo $$ > " + file + ".tmp && mv " + file + ".tmp " + file + "; " + ${JSON.stringify(program)}]);
			while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 5));
		}
	});
}
`;

/** Resolves true once `pid` no longer runs, false if it still does after `ms`. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (isProcessRunning(pid) && Date.now() < deadline) await nextTurn();
	return !isProcessRunning(pid);
}

describe("an extension's pi.exec without a signal outlives settle", () => {
	// Twelve at once: more than Node's 10 listeners per AbortSignal, past which it prints a leak warning.
	for (const [what, program, count] of [
		["a program", "exec sleep 300", 1],
		["a program ignoring SIGTERM", "trap '' TERM; exec sleep 300", 1],
		["twelve programs", "exec sleep 300", 12],
	] as const) {
		it(`settle -p with an extension that started ${what} through pi.exec without a signal at session_start: settle answers and exits 0 with nothing on stderr, and every program's pid is gone`, async () => {
			const mark = processMarker();
			const pidFile = join(cli.dir, "exec.pid");
			const extension = join(cli.dir, "background-exec.mjs");
			writeFileSync(extension, BACKGROUND_EXEC(`export ${mark}=1; ${program}`, pidFile, count));
			try {
				const run = runSettle(["--faux", "-e", extension, "--no-session", "-p", "hello"], {
					cwd: cli.project,
					agentDir: cli.agentDir,
					timeoutMs: 60_000,
				});
				expect(run.code).toBe(0);
				expect(run.stderr).toBe("");
				const pids = Array.from({ length: count }, (_, i) => Number(readFileSync(`${pidFile}.${i}`, "utf8")));
				// Killed as settle ended; the kernel and init may take a moment to finish them under load.
				for (const pid of pids) expect(await goneWithin(pid, 2000)).toBe(true);
			} finally {
				killMarked(mark);
			}
		});
	}
});
