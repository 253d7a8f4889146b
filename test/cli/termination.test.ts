/**
 * How `settle` ends when it is interrupted (SIGINT, SIGTERM) while a request runs, or when nobody
 * reads its output any more (`settle --json … | head -1`): real child processes, a real shell
 * command in flight.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { waitForProcessGroupExit } from "../../src/tools/shell.js";
import { cliCommand, trackChild, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-term-");

/** An extension that writes a file when its session shuts down. */
function shutdownWitness(): { extension: string; marker: string } {
	const marker = join(cli.dir, "shutdown.txt");
	const extension = join(cli.dir, "witness.ts");
	writeFileSync(
		extension,
		`import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_shutdown", (event) => { writeFileSync(${JSON.stringify(marker)}, event.reason); });
}
`,
	);
	return { extension, marker };
}

/** `settle --json` on a script whose first reply runs `command` in bash; stdout lines are parsed as they come. */
function startJson(command: string, extra: string[] = []) {
	const steps = join(cli.dir, "steps.json");
	writeFileSync(steps, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command } }] }, "done"]));
	const child: ChildProcessWithoutNullStreams = spawn(
		process.execPath,
		[...cliCommand(), "--faux-script", steps, "--json", ...extra, "go"],
		{ cwd: cli.project, env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir } },
	);
	// Piped stdin is read before the prompt (pi's rule): give it an end.
	child.stdin.end();
	let stderr = "";
	child.stderr.on("data", (chunk) => {
		stderr += String(chunk);
	});
	// Once the process has ended and its stderr is read to the end.
	const exited = trackChild(child).then((code) => ({ code, stderr }));
	return { child, exited };
}

/**
 * Resolves with the bash pid the command printed first (`echo $$`), from its first
 * tool_execution_update: the first line of that output (under load, later lines come in the same update).
 */
function shellPid(child: ChildProcessWithoutNullStreams): Promise<number> {
	return new Promise((resolve, reject) => {
		const lines = createInterface({ input: child.stdout });
		lines.on("line", (text) => {
			const event = JSON.parse(text) as { type: string; partialResult?: { content: { text: string }[] } };
			const output = event.partialResult?.content[0]?.text;
			if (event.type !== "tool_execution_update" || !output) return;
			lines.close();
			const pid = Number(output.split("\n")[0]);
			if (Number.isInteger(pid) && pid > 1) resolve(pid);
			else reject(new Error(`expected the shell's pid first, got: ${JSON.stringify(output.slice(0, 200))}`));
		});
	});
}

describe("settle interrupted while a tool runs", () => {
	for (const [signal, code] of [
		["SIGTERM", 143],
		["SIGINT", 130],
	] as const) {
		it(`regression: ${signal} left the running shell command behind (orphaned) and skipped session_shutdown; now exit ${code}`, async () => {
			const { extension, marker } = shutdownWitness();
			const { child, exited } = startJson("echo $$; sleep 60", ["-e", extension]);
			const pid = await shellPid(child);
			child.kill(signal);
			const result = await exited;
			expect(result.code).toBe(code);
			expect(result.stderr).not.toMatch(/\n\s+at /);
			// The shell's process group is gone: nothing keeps running after settle.
			expect(await waitForProcessGroupExit(pid, 0)).toBe(true);
			expect(readFileSync(marker, "utf8")).toBe("quit");
		});
	}
});

describe("settle with its stdout closed", () => {
	it("regression: settle --json … | head -1 crashed with an EPIPE stack trace; now it stops the run and exits 141", async () => {
		const { extension, marker } = shutdownWitness();
		// A command that keeps printing until it is stopped, so settle keeps writing updates (every
		// 100 ms) after the reader left: a burst that ended before a slow reader closed its end would
		// leave settle nothing to write, and the run would wait for the command instead (it did
		// under load). Slow enough to stay under the bash tool's limits (no full-output temp file).
		const { child, exited } = startJson("echo $$; while :; do echo line; sleep 0.05; done", ["-e", extension]);
		const pid = await shellPid(child);
		child.stdout.destroy();
		const result = await exited;
		expect(result.stderr).not.toContain("EPIPE");
		expect(result.stderr).not.toMatch(/\n\s+at /);
		expect(result.code).toBe(141);
		expect(await waitForProcessGroupExit(pid, 0)).toBe(true);
		expect(existsSync(marker)).toBe(true);
	});
});

/**
 * `settle -p` whose run is over and whose extension's `session_shutdown` handler is still at work
 * (it waits for a file that is never created): a signal then must not kill the process mid-cleanup.
 */
function slowShutdown(): { extension: string; done: string; start: () => ReturnType<typeof startPrint> } {
	const go = join(cli.dir, "go");
	const done = join(cli.dir, "cleanup-done");
	const extension = join(cli.dir, "slow-shutdown.ts");
	writeFileSync(
		extension,
		`import { existsSync, writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_shutdown", () => new Promise((resolve) => {
		process.stderr.write("cleanup started\\n");
		const poll = setInterval(() => {
			if (!existsSync(${JSON.stringify(go)})) return;
			clearInterval(poll);
			writeFileSync(${JSON.stringify(done)}, "done");
			resolve();
		}, 10);
	}));
}
`,
	);
	return { extension, done, start: () => startPrint(["--faux", "-e", extension, "-p", "hi"]) };
}

/** A real `settle` process; `started` resolves once its stderr says the cleanup started. */
function startPrint(args: string[]) {
	const child = spawn(process.execPath, [...cliCommand(), ...args], {
		cwd: cli.project,
		env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
	});
	child.stdin.end();
	let stderr = "";
	let cleanupStarted: () => void = () => {};
	const started = new Promise<void>((resolve) => {
		cleanupStarted = resolve;
	});
	child.stderr.on("data", (chunk) => {
		stderr += String(chunk);
		if (stderr.includes("cleanup started\n")) cleanupStarted();
	});
	const exited = trackChild(child).then((code) => ({ code, stderr }));
	return { child, started, exited };
}

describe("settle signalled while an extension's session_shutdown handler runs", () => {
	it("regression: SIGTERM during session_shutdown killed settle mid-cleanup (the signal handlers were already removed); now it waits for the handler, names it after 2 s, and exits 143", async () => {
		const { extension, done, start } = slowShutdown();
		const { child, started, exited } = start();
		await started;
		// The test never creates the file the handler waits for: it is still at work when the grace ends.
		child.kill("SIGTERM");
		const result = await exited;
		expect(result.code).toBe(143);
		expect(result.stderr).toBe(
			`cleanup started\nsettle: still waiting after 2 s for:\n  the session_shutdown handler of ${extension}\nExiting without waiting. Make the handler resolve (or reject) and watch ctx.signal; make a tool return (or throw) once its abort signal fires.\n`,
		);
		expect(existsSync(done)).toBe(false);
	});

	it("regression: a second signal during session_shutdown was Node's default kill (no exit code); now it exits at once with 128 + its number", async () => {
		const { done, start } = slowShutdown();
		const { child, started, exited } = start();
		await started;
		// Two different signals, so neither is merged into the other while pending: the second exits at once.
		child.kill("SIGINT");
		child.kill("SIGTERM");
		const result = await exited;
		expect([130, 143]).toContain(result.code);
		// It did not wait out the grace period for the handler.
		expect(result.stderr).toBe("cleanup started\n");
		expect(existsSync(done)).toBe(false);
	});
});
