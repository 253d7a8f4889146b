import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness } from "../../src/testing/harness.js";
import { type BashToolDetails, createBashToolDefinition } from "../../src/tools/bash.js";
import { type BashOperations, createLocalBashOperations } from "../../src/tools/shell.js";
import { failure, isProcessRunning, run, tempProject, text } from "./helpers.js";

describe("bash", () => {
	it("runs in the session cwd and returns stdout", async () => {
		const cwd = await tempProject({ "marker.txt": "" });
		const result = await run(createBashToolDefinition(cwd), { command: "pwd; ls" });
		expect(text(result)).toBe(`${cwd}\nmarker.txt\n`);
		expect(result.details).toBeUndefined();
	});

	it("captures stderr as well", async () => {
		const cwd = await tempProject();
		expect(text(await run(createBashToolDefinition(cwd), { command: "echo oops >&2" }))).toBe("oops\n");
	});

	it("says (no output) for a silent success", async () => {
		const cwd = await tempProject();
		expect(text(await run(createBashToolDefinition(cwd), { command: "true" }))).toBe("(no output)");
	});

	it("fails with the output and `Command exited with code N` on a non-zero exit", async () => {
		const cwd = await tempProject();
		const bash = createBashToolDefinition(cwd);
		expect(await failure(run(bash, { command: "echo partial; exit 3" }))).toBe(
			"partial\n\n\nCommand exited with code 3",
		);
		expect(await failure(run(bash, { command: "exit 2" }))).toBe("(no output)\n\nCommand exited with code 2");
	});

	it("streams partial output through onUpdate while the command still runs", async () => {
		const cwd = await tempProject();
		const fifo = join(cwd, "gate");
		execFileSync("mkfifo", [fifo]);
		const updates: string[] = [];
		const details: unknown[] = [];
		let opened = false;
		const result = await run(
			createBashToolDefinition(cwd),
			{ command: 'echo first; read -r word < gate; echo "second $word"' },
			{
				onUpdate: (partial: AgentToolResult) => {
					const block = partial.content[0];
					updates.push(block?.type === "text" ? block.text : "");
					details.push(partial.details);
					// The command blocks on the fifo until we see its first line: proof the update is live.
					if (!opened && updates.at(-1)?.includes("first")) {
						opened = true;
						void writeFile(fifo, "go\n");
					}
				},
			},
		);
		expect(text(result)).toBe("first\nsecond go\n");
		expect(updates[0]).toBe(""); // the initial empty update
		expect(updates).toContain("first\n");
		expect(updates.indexOf("first\n")).toBeLessThan(updates.findIndex((u) => u.includes("second")));
		// As pi's: output updates carry a details object even when nothing was cut (hosts read `details.truncation`).
		expect(details.slice(1).every((d) => typeof d === "object" && d !== null)).toBe(true);
		expect(details[updates.indexOf("first\n")]).toEqual({});
	});

	it("keeps the last 2000 lines and saves the full output to a temp file", async () => {
		const cwd = await tempProject();
		const result = await run<BashToolDetails>(createBashToolDefinition(cwd, { fullOutputDir: cwd }), {
			command: "seq 1 3000",
		});
		const output = text(result);
		const fullPath = result.details?.fullOutputPath ?? "";
		expect(fullPath.startsWith(join(cwd, "settle-bash-"))).toBe(true);
		expect(output.startsWith("1001\n1002\n")).toBe(true);
		expect(output.endsWith(`\n3000\n\n[Showing lines 1001-3000 of 3000. Full output: ${fullPath}]`)).toBe(true);
		expect(result.details?.truncation).toMatchObject({ truncated: true, truncatedBy: "lines", totalLines: 3000 });
		expect(readFileSync(fullPath, "utf-8")).toBe(execFileSync("seq", ["1", "3000"], { encoding: "utf-8" }));
	});

	it("keeps the last 50 KB when lines are long", async () => {
		const cwd = await tempProject();
		const result = await run<BashToolDetails>(createBashToolDefinition(cwd, { fullOutputDir: cwd }), {
			command: "for i in $(seq 1 100); do printf '%01023d\\n' $i; done",
		});
		const output = text(result);
		// 1023 characters per line: 50 lines and the 49 breaks between them fit 50 KB, 51 do not.
		expect(
			output.endsWith(`[Showing lines 51-100 of 100 (50.0KB limit). Full output: ${result.details?.fullOutputPath}]`),
		).toBe(true);
		expect(readFileSync(result.details?.fullOutputPath ?? "").length).toBe(100 * 1024);
	});

	it("keeps the end of a single line larger than 50 KB", async () => {
		const cwd = await tempProject();
		const result = await run<BashToolDetails>(createBashToolDefinition(cwd, { fullOutputDir: cwd }), {
			command: "head -c 60000 /dev/zero | tr '\\0' z",
		});
		expect(text(result)).toBe(
			`${"z".repeat(51200)}\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: ${result.details?.fullOutputPath}]`,
		);
	});

	it("times out with `Command timed out after N seconds` and keeps the output so far", async () => {
		const cwd = await tempProject();
		const message = await failure(
			run(createBashToolDefinition(cwd), { command: "echo started; sleep 30", timeout: 0.2 }),
		);
		expect(message).toBe("started\n\n\nCommand timed out after 0.2 seconds");
	});

	it("on abort, fails with `Command aborted` and kills the whole process group", async () => {
		const cwd = await tempProject();
		const controller = new AbortController();
		let pids: number[] = [];
		const call = run(
			createBashToolDefinition(cwd),
			{ command: 'sleep 1000 & echo "$$ $!"; wait' },
			{
				signal: controller.signal,
				onUpdate: (partial: AgentToolResult) => {
					const block = partial.content[0];
					const match = block?.type === "text" ? /^(\d+) (\d+)\n/.exec(block.text) : null;
					if (match && pids.length === 0) {
						pids = [Number(match[1]), Number(match[2])];
						controller.abort();
					}
				},
			},
		);
		const message = await failure(call);
		expect(message).toBe(`${pids.join(" ")}\n\n\nCommand aborted`);
		expect(pids).toHaveLength(2);
		for (const pid of pids) expect(isProcessRunning(pid)).toBe(false);
	});

	it("does not start a command when the signal is already aborted", async () => {
		const cwd = await tempProject();
		const controller = new AbortController();
		controller.abort();
		const message = await failure(
			run(createBashToolDefinition(cwd), { command: "touch ran" }, { signal: controller.signal }),
		);
		expect(message).toBe("Command aborted");
		expect(() => readFileSync(join(cwd, "ran"))).toThrow();
	});

	it("prepends the configured command prefix", async () => {
		const cwd = await tempProject();
		const bash = createBashToolDefinition(cwd, { commandPrefix: "GREETING=hello" });
		expect(text(await run(bash, { command: 'echo "$GREETING"' }))).toBe("hello\n");
	});

	it("runs through the configured shell, and says when it does not exist", async () => {
		const cwd = await tempProject();
		expect(text(await run(createBashToolDefinition(cwd, { shellPath: "/bin/sh" }), { command: "echo $0" }))).toBe(
			"/bin/sh\n",
		);
		expect(
			await failure(run(createBashToolDefinition(cwd, { shellPath: "/no/such/shell" }), { command: "true" })),
		).toBe("Custom shell path not found: /no/such/shell. Fix the shellPath setting or remove it to use /bin/bash.");
	});

	it("lets a spawn hook change the environment", async () => {
		const cwd = await tempProject();
		const bash = createBashToolDefinition(cwd, {
			spawnHook: (context) => ({ ...context, env: { ...context.env, SETTLE_TEST: "from-hook" } }),
		});
		expect(text(await run(bash, { command: 'echo "$SETTLE_TEST"' }))).toBe("from-hook\n");
	});

	it("reports a missing working directory", async () => {
		const cwd = join(await tempProject(), "gone");
		expect(await failure(run(createBashToolDefinition(cwd), { command: "true" }))).toBe(
			`Working directory does not exist: ${cwd}\nCannot execute bash commands.`,
		);
	});
});

describe("the full-output file of a short colored or redrawn output", () => {
	// Such an output is under the limits: its file was opened only when the final snapshot was taken,
	// after close(), so the path came back before its bytes were on disk (and the file stayed open).
	const printed = "printf '\\033[1;32mok\\033[0m build\\n'; printf '\\r[1] 33%%\\r[2] 66%%\\n'";
	const raw = "\x1b[1;32mok\x1b[0m build\n\r[1] 33%\r[2] 66%\n";

	it("regression: the bash tool named the file before its bytes were written; it is complete when the result comes", async () => {
		const cwd = await tempProject();
		const result = await run<BashToolDetails>(createBashToolDefinition(cwd), { command: printed });
		const path = result.details?.fullOutputPath;
		expect(path).toBeDefined();
		expect(readFileSync(path ?? "", "utf8")).toBe(raw);
		rmSync(path ?? "");
	});

	it("regression: executeBash named the file before its bytes were written; it is complete when the result comes", async () => {
		const h = await createHarness();
		try {
			const result = await h.session.executeBash(printed);
			expect(result.output).toBe("ok build\n[2] 66%\n");
			expect(readFileSync(result.fullOutputPath ?? "", "utf8")).toBe(raw);
			rmSync(result.fullOutputPath ?? "");
		} finally {
			h.cleanup();
		}
	});
});

describe("the full-output file of a command whose operations failed", () => {
	it("regression: operations that failed after a long output left a full-output file no error named; it is removed", async () => {
		const cwd = await tempProject();
		const local = createLocalBashOperations();
		// A remote runner (SSH, a container) whose link drops once the command has printed past the limits.
		const operations: BashOperations = {
			async exec(command, dir, options) {
				await local.exec(command, dir, options);
				throw new Error("connection to the runner lost");
			},
		};
		const bash = createBashToolDefinition(cwd, { operations, fullOutputDir: cwd });
		expect(await failure(run(bash, { command: "seq 1 3000" }))).toBe("connection to the runner lost");
		expect(readdirSync(cwd)).toEqual([]);
	});
});

describe("the full-output file of a command whose session was disposed", () => {
	it("an abort whose result is still recorded keeps the full-output file the result names, as pi does", async () => {
		const cwd = await tempProject();
		const controller = new AbortController();
		const call = run(
			createBashToolDefinition(cwd, { fullOutputDir: cwd }),
			{ command: "seq 1 3000; sleep 30" },
			{
				signal: controller.signal,
				onUpdate: (partial: AgentToolResult) => {
					if ((partial.details as BashToolDetails | undefined)?.fullOutputPath) controller.abort();
				},
			},
		);
		const message = await failure(call);
		const path = /Full output: (\S+)\]/.exec(message)?.[1] ?? "";
		expect(message.endsWith("Command aborted")).toBe(true);
		expect(readFileSync(path, "utf8")).toBe(execFileSync("seq", ["1", "3000"], { encoding: "utf-8" }));
	});

	it("regression: dispose() while a bash call had printed past the limits left its full-output file, which no recorded result names; it is removed", async () => {
		const h = await createHarness();
		try {
			h.setResponses([
				fauxAssistantMessage([fauxToolCall("bash", { command: "seq 1 3000; sleep 30" })], { stopReason: "toolUse" }),
			]);
			let named!: (path: string) => void;
			const spilled = new Promise<string>((resolve) => {
				named = resolve;
			});
			h.session.subscribe((event) => {
				if (event.type !== "tool_execution_update") return;
				const path = (event.partialResult as AgentToolResult<BashToolDetails | undefined>).details?.fullOutputPath;
				if (path) named(path);
			});
			const prompt = h.session.prompt("Count").catch(() => undefined);
			const path = await spilled;
			await h.session.dispose();
			await prompt;
			await h.session.agent.waitForIdle();
			// The log answers the call "Operation aborted": the tool's own result, naming the file, is never written.
			expect(h.session.messages.at(-1)).toMatchObject({ role: "toolResult", content: [{ text: "Operation aborted" }] });
			expect(existsSync(path)).toBe(false);
		} finally {
			h.cleanup();
		}
	});
});
