/**
 * howaboua-pi-stuff#260, replayed: an extension's exec tool (pi-codex-conversion's `exec_command`)
 * running when pi was shut down: the owned shell died, its child lived on under PID 1. In Settle an
 * extension's `pi.exec(…, { signal })` aborted by a SIGTERM to settle sends the program's process
 * group SIGTERM, then SIGKILL after 5 s; a program that ignores SIGTERM outlived that promise, as
 * the SIGKILL timer died with settle (the process exits well within the 5 s). Real `settle -p`, a
 * real program, its processes looked up in /proc.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
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
