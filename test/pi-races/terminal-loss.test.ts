/**
 * Reports about a `settle` process that loses its terminal, replayed against the real command in a
 * real pseudo-terminal (util-linux `script`, test/cli/interactive.helpers.ts). The terminal is
 * closed as a terminal window closes: the process holding its master side dies (SIGKILL), so the
 * chat's reads end and every write or mode change on it fails with EIO.
 *
 * pi#3057: closing the terminal (or SIGHUP / SIGTERM) left every process the bash tool had started
 * running as an orphan (811 of them after a session that spawned sub-agents). Replayed, Settle had
 * it in the chat: readline's close set the dead terminal's mode back, that threw EIO out of an
 * event handler, and the process exited 1 on the spot: the command kept running under init, the
 * extensions never heard `session_shutdown`, the call never got its result.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_FROM_SOURCES, runSettle, useCliProject } from "../cli/helpers.js";
import { exitWitness, fileAppears, killWitnessed, quote, Terminal } from "../cli/interactive.helpers.js";
import { fileMessages } from "./disk-harness.js";
import { sessionFilesUnder } from "./helpers.js";
import { killMarked, markedProcesses, markedSleepCommand, processMarker } from "./processes.js";

const cli = useCliProject("settle-pi-races-terminal-loss-");

const killSettle = () => killWitnessed(cli.dir);

describe("pi#3057: closing the terminal leaves the agent's commands running as orphans", () => {
	it("pi#3057: settle -i whose terminal closes while a command runs: no process of the command is left, the extension hears session_shutdown once, the call is saved with its aborted result, exit 129, and the session opens at once", async () => {
		const mark = processMarker();
		const witness = join(cli.dir, "witness.mjs");
		writeFileSync(witness, exitWitness(cli.dir));
		writeFileSync(join(cli.dir, "shutdown.log"), "");
		const script = join(cli.dir, "script.json");
		const command = markedSleepCommand(mark, 300, "touch started");
		writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command } }] }]));
		const term = new Terminal(["--faux-script", script, "-e", witness], { cwd: cli.project, agentDir: cli.agentDir });
		try {
			await term.until("> ", 0);
			term.type("build it\r");
			await fileAppears(cli.project, "started");
			expect(markedProcesses(mark)).not.toEqual([]);
			// The terminal window closes: the master side of the pseudo-terminal goes with its process.
			term.child.kill("SIGKILL");
			await fileAppears(cli.dir, "exit-code");
			expect(readFileSync(join(cli.dir, "exit-code"), "utf8")).toBe("129");
			expect(markedProcesses(mark)).toEqual([]);
			expect(readFileSync(join(cli.dir, "shutdown.log"), "utf8")).toBe("session_shutdown quit\n");
			const [file] = sessionFilesUnder(cli.agentDir);
			// Every line whole; the call is answered by its (aborted) result, as after Ctrl+C.
			const messages = fileMessages(file!);
			const result = messages.find((message) => message.role === "toolResult");
			expect(result).toMatchObject({ isError: true, toolName: "bash" });
			expect(JSON.stringify(result)).toContain("aborted");
			// The lock went with the process: the session is taken up again at once.
			const next = runSettle(["--faux", "--session", file!, "-p", "still there?"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: 60_000,
			});
			expect(next.stderr).toBe("");
			expect(next.code).toBe(0);
		} finally {
			killMarked(mark);
			killSettle();
		}
	});

	it("pi#3057: settle -i whose terminal closes while it waits at the prompt: the extension hears session_shutdown once and settle exits 129, no EIO crash", async () => {
		const witness = join(cli.dir, "witness.mjs");
		writeFileSync(witness, exitWitness(cli.dir));
		writeFileSync(join(cli.dir, "shutdown.log"), "");
		const term = new Terminal(["--faux", "-e", witness], { cwd: cli.project, agentDir: cli.agentDir });
		try {
			await term.until("> ", 0);
			term.child.kill("SIGKILL");
			await fileAppears(cli.dir, "exit-code");
			expect(readFileSync(join(cli.dir, "exit-code"), "utf8")).toBe("129");
			expect(readFileSync(join(cli.dir, "shutdown.log"), "utf8")).toBe("session_shutdown quit\n");
		} finally {
			killSettle();
		}
	});
	it("pi#3057: the input of a raw-mode terminal that ends while the terminal still takes mode changes is its hang-up, not Ctrl+D (final CI failure of terminal-loss)", async () => {
		// The kernel ends the read of a terminal whose window closed a moment before it fails mode
		// changes: a probe in that moment passed, the chat ended as on Ctrl+D, and the SIGHUP that
		// followed killed settle mid-shutdown (CI: no exit code within 30 s). That moment cannot be
		// made on demand with a real terminal, so a stream stands for one here.
		const chatInput = join(CLI_FROM_SOURCES[2]!, "..", "chat-input.ts");
		const child = join(cli.dir, "raw-end.mts");
		writeFileSync(
			child,
			`import { PassThrough } from "node:stream";
import { ChatInput } from ${JSON.stringify(chatInput)};
const input = Object.assign(new PassThrough(), {
	isTTY: true,
	isRaw: false,
	setRawMode(mode) {
		this.isRaw = mode;
		return this;
	},
});
const lines = new ChatInput({ input, terminal: true });
lines.onTerminalLost = () => process.stdout.write("\\nlost raw=" + input.isRaw + "\\n");
lines.rl.on("close", () => process.stdout.write("\\nclosed\\n"));
input.end();
`,
		);
		const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
			execFile(process.execPath, [CLI_FROM_SOURCES[0]!, CLI_FROM_SOURCES[1]!, child], (error, out) =>
				error ? reject(error) : resolve({ stdout: out }),
			);
		});
		expect(stdout.split("\n").filter((line) => line === "closed" || line.startsWith("lost"))).toEqual([
			"lost raw=true",
			"closed",
		]);
	});
	it("pi#3057: a SIGHUP while settle -i shuts down after Ctrl+D (an extension's session_shutdown still running) ends it with 129 and its exit handlers run, not by Node's default kill", async () => {
		// The chat's own signal handlers end with the chat; a terminal closed during the shutdown that
		// follows (a slow session_shutdown handler) killed settle by SIGHUP's default action.
		const witness = join(cli.dir, "witness.mjs");
		writeFileSync(witness, exitWitness(cli.dir));
		const slow = join(cli.dir, "slow-shutdown.mjs");
		writeFileSync(
			slow,
			`import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_shutdown", () => {
		writeFileSync(${JSON.stringify(join(cli.dir, "shutting-down"))}, "");
		return new Promise(() => {}); // never done: only a signal ends settle now
	});
}
`,
		);
		const term = new Terminal(["--faux", "-e", witness, "-e", slow], { cwd: cli.project, agentDir: cli.agentDir });
		try {
			await term.until("> ", 0);
			term.type("\x04");
			await fileAppears(cli.dir, "shutting-down");
			process.kill(Number(readFileSync(join(cli.dir, "pid"), "utf8")), "SIGHUP");
			await term.exited;
			expect(existsSync(join(cli.dir, "exit-code")) ? readFileSync(join(cli.dir, "exit-code"), "utf8") : "killed").toBe(
				"129",
			);
			expect(term.output).toContain("settle: still waiting after 2 s for:");
		} finally {
			killSettle();
		}
	});
	it("pi#3057: a write to the terminal after it hung up (EIO), before its SIGHUP or end of input, ends the process as the hang-up (129), not as a crash (1)", async () => {
		// Under load the chat's prompt could be redrawn after the window closed and before either sign of
		// it arrived: the EIO crashed settle with exit 1. Here SIGHUP is ignored and input never read, so
		// only the failed write can tell; stdout's watcher must take it for the hang-up.
		const exitCode = join(cli.dir, "exit-code");
		const child = join(cli.dir, "writer.mts");
		const termination = join(CLI_FROM_SOURCES[2]!, "..", "termination.ts");
		writeFileSync(
			child,
			`import { renameSync, writeFileSync } from "node:fs";
import { processStdout, watchStdout } from ${JSON.stringify(termination)};
process.on("SIGHUP", () => {});
process.on("exit", (code) => {
	writeFileSync(${JSON.stringify(`${exitCode}.tmp`)}, String(code));
	renameSync(${JSON.stringify(`${exitCode}.tmp`)}, ${JSON.stringify(exitCode)});
});
watchStdout();
processStdout.onHungUp = () => process.exit(129);
process.stdout.write("ready\\n");
setInterval(() => process.stdout.write("."), 5);
`,
		);
		const command = [process.execPath, CLI_FROM_SOURCES[0]!, CLI_FROM_SOURCES[1]!, child].map(quote).join(" ");
		const script = spawn("script", ["-qfec", command, "/dev/null"], { cwd: cli.project });
		await new Promise<void>((resolve) => {
			let seen = "";
			script.stdout.on("data", (chunk) => {
				seen += String(chunk);
				if (seen.includes("ready")) resolve();
			});
		});
		script.kill("SIGKILL");
		await fileAppears(cli.dir, "exit-code");
		expect(readFileSync(exitCode, "utf8")).toBe("129");
	});
});
