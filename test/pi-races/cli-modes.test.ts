/**
 * pi's reports about its one-shot and RPC modes, replayed against a real `settle` child process on
 * the faux model: print / JSON mode with an extension that holds a handle from `session_start`
 * (pi#2576, pi#2677), the exit code of a failed request in JSON mode (pi#9089) and of one a retry
 * recovered (opencode#50062), a prompt sent
 * over RPC right after `abort` (oh-my-pi#69), and an RPC `abort` with a steer already queued
 * (sesori#1157) or while a hung command runs (gsd-2#1414), a session file deleted while `-p` runs
 * (pi#8939), an auto-retry seen over RPC (pi#4314 / pi#4716), `-p` or `-i` killed by a signal (pi#3212 /
 * pi#5080), queued messages taken back over RPC before an abort (pi#9194), and `-c` in a project whose
 * session folder another project shares (openclaw#96542) or holds a fork into another cwd (pi#3249). What the user should see: the answer, then
 * the process gone with a code that says how the request ended; the prompt after an abort answered; an
 * abort that stops everything at once; a deleted file reported, never recreated without its header; a
 * run's end that says whether a retry follows, and one `agent_settled` once nothing does; a signal
 * that still runs the extensions' `session_shutdown`; cleared messages never delivered; only this
 * project's sessions continued.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// pi's session store alone (the package index would load all of pi).
import { SessionManager as piSessionManager } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { RpcClient, runSettle, useCliProject } from "../cli/helpers.js";
import { fileAppears, Repl } from "../cli/interactive.helpers.js";
import { makeDiffDirs, runPiCli } from "../cli/pi-diff-process.js";
import { persistedUserTexts } from "./helpers.js";
import { killMarked, markedProcesses, processMarker, wedgingCommand } from "./processes.js";

const cli = useCliProject("settle-pi-races-cli-");

/** An extension that starts an interval on session_start and stops it on session_shutdown (pi#2576's). */
const TIMER_EXTENSION = (log: string) => `import { appendFileSync } from "node:fs";
export default function (pi) {
	let interval;
	pi.on("session_start", (event) => {
		appendFileSync(${JSON.stringify(log)}, "session_start " + event.reason + "\\n");
		interval = setInterval(() => {}, 60_000);
	});
	pi.on("session_shutdown", (event) => {
		appendFileSync(${JSON.stringify(log)}, "session_shutdown " + event.reason + "\\n");
		clearInterval(interval);
	});
}
`;

/** An extension that leaves a handle open for good (an MCP client, a watcher: pi#2677, pi#8814). */
const LEAKY_EXTENSION = `export default function (pi) {
	pi.on("session_start", () => { setInterval(() => {}, 60_000); });
}
`;

/** A guard against a hang only (the run takes about a second): a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

describe("pi#2576 / pi#2677: print and JSON mode with an extension that holds a handle", () => {
	for (const mode of ["text", "json"] as const) {
		it(`pi#2576: settle --mode ${mode} -p: the extension hears session_shutdown, and the process exits 0 after the answer, even with a handle an extension never closes`, () => {
			const log = join(cli.dir, "lifecycle.log");
			writeFileSync(log, "");
			const timer = join(cli.dir, "timer.mjs");
			writeFileSync(timer, TIMER_EXTENSION(log));
			const leaky = join(cli.dir, "leaky.mjs");
			writeFileSync(leaky, LEAKY_EXTENSION);
			const run = runSettle(["--faux", "-e", timer, "-e", leaky, "--mode", mode, "-p", "Say exactly: done"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: HANG_GUARD_MS,
			});
			expect(run.code).toBe(0);
			expect(run.stderr).toBe("");
			if (mode === "text") expect(run.stdout).toBe("Say exactly: done\n");
			else expect(JSON.parse(run.stdout.trim().split("\n").at(-1)!)).toEqual({ type: "agent_settled" });
			expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["session_start startup", "session_shutdown quit"]);
		});
	}
});

describe("pi#9089: --mode json exits 0 on a model error, --mode text exits 1", () => {
	it("pi#9089: a request that ends in a model error exits with the same non-zero code in text and JSON mode; the JSON stream carries the error", () => {
		const script = join(cli.dir, "script.json");
		writeFileSync(script, JSON.stringify([{ stopReason: "error", errorMessage: "401 Incorrect API key provided" }]));
		const runs = Object.fromEntries(
			(["text", "json"] as const).map((mode) => [
				mode,
				runSettle(["--faux-script", script, "--mode", mode, "-p", "hi"], {
					cwd: cli.project,
					agentDir: cli.agentDir,
					timeoutMs: HANG_GUARD_MS,
				}),
			]),
		);
		expect(runs.text!.code).not.toBe(0);
		expect(runs.text!.code).not.toBeNull();
		expect(runs.json!.code).toBe(runs.text!.code);
		expect(runs.text!.stderr).toContain("401 Incorrect API key provided");
		const lines = runs
			.json!.stdout.trim()
			.split("\n")
			.map(
				(line) =>
					JSON.parse(line) as { type: string; message?: { role: string; stopReason?: string; errorMessage?: string } },
			);
		const answer = lines.filter((line) => line.type === "message_end" && line.message?.role === "assistant").at(-1);
		expect(answer?.message).toMatchObject({ stopReason: "error", errorMessage: "401 Incorrect API key provided" });
		expect(lines.at(-1)).toMatchObject({ type: "agent_settled" });
	});
});

describe("opencode#50062: a headless run exited 1 after a provider error its retry recovered from", () => {
	it("opencode#50062: a retryable error, then the answer on the retry: exit 0 in text and JSON mode; -p prints the recovered answer, the JSON stream carries the failed attempt then the answer", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const script = join(cli.dir, "recovered.json");
		writeFileSync(
			script,
			JSON.stringify([{ stopReason: "error", errorMessage: "ECONNRESET: socket closed" }, "recovered"]),
		);
		const [text, json] = (["text", "json"] as const).map((mode) =>
			runSettle(["--faux-script", script, "--no-session", "--mode", mode, "-p", "hi"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: HANG_GUARD_MS,
			}),
		);
		expect({ code: text!.code, stdout: text!.stdout }).toEqual({ code: 0, stdout: "recovered\n" });
		expect(text!.stderr).toContain("attempt 1/3: ECONNRESET: socket closed");
		expect(json!.code).toBe(0);
		const lines = json!.stdout
			.trim()
			.split("\n")
			.map(
				(line) =>
					JSON.parse(line) as { type: string; success?: boolean; message?: { role: string; stopReason?: string } },
			);
		const answers = lines.filter((line) => line.type === "message_end" && line.message?.role === "assistant");
		expect(answers.map((line) => line.message!.stopReason)).toEqual(["error", "stop"]);
		expect(lines.find((line) => line.type === "auto_retry_end")).toMatchObject({ success: true });
		expect(lines.at(-1)).toMatchObject({ type: "agent_settled" });
	});
});

describe("oh-my-pi#69: a prompt sent over RPC right after abort is refused (Agent is already processing)", () => {
	it("oh-my-pi#69: settle --rpc: abort while a command runs, then prompt at once (no get_state, no wait): the prompt is accepted and answered", async () => {
		const client = await rpcRunningSlowCommand();
		const firstEnd = client.next((line) => line.type === "agent_settled");
		const answered = client.next(
			(line) =>
				line.type === "message_end" &&
				(line.message as { role?: string })?.role === "assistant" &&
				JSON.stringify(line.message).includes("and now this"),
		);
		const prompted = client.next((line) => line.type === "response" && line.id === "3");
		// The prompt right behind the abort: both lines in one write, read together by the server.
		client.child.stdin.write(
			`${JSON.stringify({ id: "2", type: "abort" })}\n${JSON.stringify({ id: "3", type: "prompt", message: "and now this" })}\n`,
		);
		expect(await prompted).toMatchObject({ success: true });
		await firstEnd;
		await answered;
		// The abort answers first (its run has ended), then the prompt, which started a new run.
		const responses = client.lines.filter((line) => line.type === "response");
		expect(responses.map((line) => [line.id, line.success])).toEqual([
			["1", true],
			["2", true],
			["3", true],
		]);
		expect(JSON.stringify(client.lines)).not.toMatch(/already processing/i);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
		// Two operations, each settled once: the aborted one and the prompt's.
		expect(client.lines.filter((line) => line.type === "agent_settled")).toHaveLength(2);
	});
});

/**
 * `settle --rpc` whose prompt (id "1") runs a 60 s bash command, once the command has started;
 * then the faux model echoes the last user message.
 */
async function rpcRunningSlowCommand(): Promise<RpcClient> {
	const script = join(cli.dir, "script.json");
	writeFileSync(
		script,
		JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "echo started; sleep 60" } }] }]),
	);
	const client = new RpcClient(["--faux-script", script], { cwd: cli.project, agentDir: cli.agentDir });
	const started = client.next(
		(line) => line.type === "tool_execution_update" && JSON.stringify(line).includes("started"),
	);
	expect(await client.request({ id: "1", type: "prompt", message: "run the slow thing" })).toMatchObject({
		success: true,
	});
	await started;
	return client;
}

describe("sesori#1157 (sesori_apps_monorepo): over RPC, abort with a steer already queued waits for the steer's continuation", () => {
	it("sesori#1157: settle --rpc: a steer queued while a command runs, then abort — abort answers once the run has stopped, no model request follows it, and the next prompt carries the steer once", async () => {
		const client = await rpcRunningSlowCommand();
		expect(await client.request({ id: "2", type: "steer", message: "change of plan" })).toMatchObject({
			success: true,
		});
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "3", type: "abort" })).toMatchObject({ success: true });
		// The abort's answer comes after the run has stopped: no continuation is left to wait for.
		const abortAt = client.lines.findIndex((line) => line.type === "response" && line.id === "3");
		expect(client.lines.findIndex((line) => line.type === "agent_end")).toBeLessThan(abortAt);
		await settled;
		const state = (await client.request({ id: "4", type: "get_state" })) as { data: Record<string, unknown> };
		expect(state.data).toMatchObject({ isStreaming: false, isCompacting: false });
		// No model request was made for the steer after the abort: no answer streamed after it.
		const answered = (from: number) =>
			client.lines
				.slice(from)
				.filter(
					(line) =>
						line.type === "message_end" &&
						(line.message as { role?: string; stopReason?: string }).role === "assistant" &&
						(line.message as { stopReason?: string }).stopReason !== "aborted",
				);
		expect(answered(abortAt)).toEqual([]);
		// The steer is not lost: saved once, after the stopped command's result, so the next prompt's
		// request carries it; the session answers that prompt.
		const nextSettled = client.next((line) => line.type === "agent_settled");
		const from = client.lines.length;
		expect(await client.request({ id: "5", type: "prompt", message: "go on" })).toMatchObject({ success: true });
		await nextSettled;
		const users = client.lines
			.filter((line) => line.type === "message_end" && (line.message as { role?: string }).role === "user")
			.map((line) => JSON.stringify((line.message as { content: unknown }).content));
		expect(users.filter((text) => text.includes("change of plan"))).toHaveLength(1);
		expect(answered(from)).toHaveLength(1);
		expect(JSON.stringify(client.lines)).not.toMatch(/already processing/i);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
		expect(client.lines.filter((line) => line.type === "agent_settled")).toHaveLength(2);
	});
});

describe("pi#9194 / pi#8432: over RPC, abort keeps the queued messages and nothing clears them", () => {
	it("pi#9194: settle --rpc: `clear_queue` while a command runs answers the queued steer and follow-up and empties the queues; after abort, the next prompt carries neither and nothing saves them", async () => {
		const client = await rpcRunningSlowCommand();
		expect(await client.request({ id: "2", type: "steer", message: "also update the docs" })).toMatchObject({
			success: true,
		});
		expect(await client.request({ id: "3", type: "follow_up", message: "then run the tests" })).toMatchObject({
			success: true,
		});
		// "Stop, do this instead": the bridge takes the queued texts back, then aborts.
		expect(await client.request({ id: "4", type: "clear_queue" })).toMatchObject({
			success: true,
			data: { steering: ["also update the docs"], followUp: ["then run the tests"] },
		});
		expect(client.lines.filter((line) => line.type === "queue_update").at(-1)).toMatchObject({
			steering: [],
			followUp: [],
		});
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "5", type: "abort" })).toMatchObject({ success: true });
		await settled;
		expect(await client.request({ id: "6", type: "get_state" })).toMatchObject({
			data: { isStreaming: false, pendingMessageCount: 0 },
		});
		const nextSettled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "7", type: "prompt", message: "do this instead" })).toMatchObject({
			success: true,
		});
		await nextSettled;
		const userTexts = client.lines
			.filter((line) => line.type === "message_end" && (line.message as { role?: string }).role === "user")
			.map((line) => JSON.stringify((line.message as { content: unknown }).content));
		expect(userTexts).toEqual([
			JSON.stringify([{ type: "text", text: "run the slow thing" }]),
			JSON.stringify([{ type: "text", text: "do this instead" }]),
		]);
		// Nothing left to clear: an empty answer, not an error.
		expect(await client.request({ id: "8", type: "clear_queue" })).toMatchObject({
			success: true,
			data: { steering: [], followUp: [] },
		});
		const sessionFile = ((await client.request({ id: "9", type: "get_state" })) as { data: { sessionFile: string } })
			.data.sessionFile;
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
		expect(persistedUserTexts(sessionFile)).toEqual(["run the slow thing", "do this instead"]);
	});
});

describe("gsd-2#1414: agent_end never comes after an abort during a hung tool; RPC clients stay 'streaming'", () => {
	it("gsd-2#1414: settle --rpc: abort while a command whose processes ignore SIGTERM runs — agent_end, then agent_settled, before abort's answer; get_state is idle, no process of the command is left, and the next prompt is answered", async () => {
		const mark = processMarker();
		try {
			const script = join(cli.dir, "script.json");
			// A hung command (the report's looping `find`), then the faux model echoes the last user message.
			writeFileSync(
				script,
				JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: wedgingCommand(mark) } }] }]),
			);
			const client = new RpcClient(["--faux-script", script], { cwd: cli.project, agentDir: cli.agentDir });
			const ready = client.next(
				(line) => line.type === "tool_execution_update" && JSON.stringify(line.partialResult).includes("ready"),
			);
			expect(await client.request({ id: "1", type: "prompt", message: "find the config" })).toMatchObject({
				success: true,
			});
			await ready;
			expect(markedProcesses(mark).length).toBeGreaterThanOrEqual(3);
			expect(await client.request({ id: "2", type: "abort" })).toMatchObject({ success: true });
			// What a client tracking the lifecycle needs: the run's end and its settlement, both before
			// the abort is answered, each once.
			const types = client.lines.map((line) => (line.type === "response" ? `response ${line.id}` : line.type));
			const abortAt = types.indexOf("response 2");
			expect(types.filter((type) => type === "agent_end" || type === "agent_settled")).toEqual([
				"agent_end",
				"agent_settled",
			]);
			expect(types.lastIndexOf("agent_settled")).toBeLessThan(abortAt);
			const ended = client.lines.find((line) => line.type === "tool_execution_end") as { isError?: boolean };
			expect(ended.isError).toBe(true);
			const state = (await client.request({ id: "3", type: "get_state" })) as { data: Record<string, unknown> };
			expect(state.data).toMatchObject({ isStreaming: false, isCompacting: false });
			expect(markedProcesses(mark)).toEqual([]);
			const settled = client.next((line) => line.type === "agent_settled");
			const from = client.lines.length;
			expect(await client.request({ id: "4", type: "prompt", message: "and now this" })).toMatchObject({
				success: true,
			});
			await settled;
			expect(
				client.lines
					.slice(from)
					.some(
						(line) =>
							line.type === "message_end" &&
							(line.message as { role?: string }).role === "assistant" &&
							JSON.stringify(line.message).includes("and now this"),
					),
			).toBe(true);
			expect(await client.end()).toBe(0);
			expect(client.stderr).toBe("");
		} finally {
			killMarked(mark);
		}
	});
});

/** An extension that writes each session_shutdown it hears to `log` (the reports' cleanup witness). */
const SHUTDOWN_WITNESS = (log: string) => `import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_shutdown", (event) => { appendFileSync(${JSON.stringify(log)}, "session_shutdown " + event.reason + "\\n"); });
}
`;

/**
 * A signal test's files: the {@link SHUTDOWN_WITNESS} extension and its (empty) log, and a faux
 * script whose one tool call runs `command` in bash.
 */
function shutdownWitnessRun(command: string): { log: string; witness: string; script: string } {
	const log = join(cli.dir, "shutdown.log");
	writeFileSync(log, "");
	const witness = join(cli.dir, "witness.mjs");
	writeFileSync(witness, SHUTDOWN_WITNESS(log));
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command } }] }]));
	return { log, witness, script };
}

/** The extension heard `session_shutdown` (quit) once, and no process of the command (`mark`) is left. */
function expectCleanedUp(log: string, mark: string): void {
	expect(readFileSync(log, "utf8")).toBe("session_shutdown quit\n");
	expect(markedProcesses(mark)).toEqual([]);
}

describe("pi#3212 / pi#5080: session_shutdown does not fire on SIGTERM or SIGHUP; an extension's cleanup never runs", () => {
	for (const [signal, code] of [
		["TERM", 143],
		["HUP", 129],
	] as const) {
		it(`pi#3212 / pi#5080: settle -p sent SIG${signal} while its command runs: the extension hears session_shutdown (quit) once, no process of the command is left, exit ${code}`, () => {
			const mark = processMarker();
			try {
				// The command signals settle itself (its parent) mid-run: a tmux pane closed, a `kill`.
				const { log, witness, script } = shutdownWitnessRun(
					`export ${mark}=1; kill -${signal} $PPID; sleep 60; echo "not reached"`,
				);
				const run = runSettle(["--faux-script", script, "-e", witness, "-p", "clean up after yourself"], {
					cwd: cli.project,
					agentDir: cli.agentDir,
					timeoutMs: HANG_GUARD_MS,
				});
				expect(run.code).toBe(code);
				expect(run.stderr).not.toMatch(/\n\s+at /);
				expectCleanedUp(log, mark);
			} finally {
				killMarked(mark);
			}
		});
	}
});

describe("pi#5080: in the interactive mode a SIGHUP (the terminal closed) skipped session_shutdown and the cleanup", () => {
	it("pi#5080: settle -i sent SIGHUP while its command runs: the extension hears session_shutdown (quit) once, no process of the command is left, exit 129", async () => {
		const mark = processMarker();
		try {
			const { log, witness, script } = shutdownWitnessRun(
				`export ${mark}=1; touch started; sleep 60; echo "not reached"`,
			);
			const chat = new Repl(["--faux-script", script, "-e", witness], { cwd: cli.project, agentDir: cli.agentDir });
			await chat.idle(0);
			chat.send("work");
			await fileAppears(cli.project, "started");
			chat.child.kill("SIGHUP");
			expect(await chat.exited).toBe(129);
			expectCleanedUp(log, mark);
		} finally {
			killMarked(mark);
		}
	});
});

/** An extension whose `/reload-now` command reloads and writes what `ctx.reload()` did to `log`. */
const RELOAD_COMMAND_EXTENSION = (log: string) => `import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("reload-now", {
		description: "reload extensions",
		handler: async (_args, ctx) => {
			try {
				await ctx.reload();
				appendFileSync(${JSON.stringify(log)}, "reloaded\\n");
			} catch (error) {
				appendFileSync(${JSON.stringify(log)}, "refused " + error.code + ": " + error.message + "\\n");
			}
		},
	});
}
`;

describe("pi#9221: in RPC mode an extension command can reload while a tool runs; the tool's result turns into an error", () => {
	it("pi#9221: settle --rpc: /reload-now sent while a bash call runs is refused (typed BUSY, heard by the command); the call's successful output is its result and reaches the model", async () => {
		const log = join(cli.dir, "reload.log");
		writeFileSync(log, "");
		const extension = join(cli.dir, "reload-command.mjs");
		writeFileSync(extension, RELOAD_COMMAND_EXTENSION(log));
		const script = join(cli.dir, "script.json");
		// A command that says it started, then runs until the test creates `gate` in the cwd.
		writeFileSync(
			script,
			JSON.stringify([
				{
					toolCalls: [
						{
							name: "bash",
							arguments: { command: "echo started; while [ ! -e gate ]; do sleep 0.01; done; echo opened" },
						},
					],
				},
			]),
		);
		const client = new RpcClient(["--faux-script", script, "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const started = client.next(
			(line) => line.type === "tool_execution_update" && JSON.stringify(line).includes("started"),
		);
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "1", type: "prompt", message: "run the slow thing" })).toMatchObject({
			success: true,
		});
		await started;
		expect(await client.request({ id: "2", type: "prompt", message: "/reload-now" })).toMatchObject({ success: true });
		expect(readFileSync(log, "utf8")).toMatch(/^refused BUSY: Cannot reload while the session is processing/);
		writeFileSync(join(cli.project, "gate"), "");
		await settled;
		const result = client.lines.find(
			(line) => line.type === "message_end" && (line.message as { role?: string }).role === "toolResult",
		);
		expect(result?.message).toMatchObject({ isError: false, toolName: "bash" });
		expect(JSON.stringify(result?.message)).toContain("opened");
		// The model's next answer (the faux echo of the last user message) came after that result.
		const messageEnds = client.lines
			.filter((line) => line.type === "message_end")
			.map((line) => line.message as { role: string });
		expect(messageEnds.map((message) => message.role).filter((role) => role !== "system")).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
		]);
		expect(JSON.stringify(client.lines)).not.toMatch(/stale/i);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});

/** An extension that sends a follow-up from session_start (oh-my-pi#1372's subagent reminder). */
const KICKOFF_EXTENSION = `export default function (pi) {
	pi.on("session_start", () => {
		pi.sendUserMessage("Reminder: follow the house rules.", { deliverAs: "followUp" });
	});
}
`;

describe("oh-my-pi#1372: a message an extension sends from session_start makes the task prompt busy", () => {
	it("oh-my-pi#1372: settle -p with an extension that sends from session_start: the reminder runs, then the task, each once; exit 0 with the task's answer", () => {
		const extension = join(cli.dir, "kickoff.mjs");
		writeFileSync(extension, KICKOFF_EXTENSION);
		const text = runSettle(["--faux", "-e", extension, "-p", "Say exactly: task done"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(text.stderr).toBe("");
		expect(text.code).toBe(0);
		expect(text.stdout).toBe("Say exactly: task done\n");
		const json = runSettle(["--faux", "-e", extension, "--mode", "json", "-p", "Say exactly: task done"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(json.code).toBe(0);
		const events = json.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: { text?: string }[] } });
		const users = events.flatMap((event) =>
			event.type === "message_end" && event.message?.role === "user"
				? [event.message.content.map((part) => part.text ?? "").join("")]
				: [],
		);
		expect(users).toEqual(["Reminder: follow the house rules.", "Say exactly: task done"]);
		// Both operations stream whole: the reminder's from its agent_start.
		const lifecycle = events
			.map((event) => event.type)
			.filter((type) => type === "agent_start" || type === "agent_settled");
		expect(lifecycle).toEqual(["agent_start", "agent_settled", "agent_start", "agent_settled"]);
	});
});

describe("pi#8939: a session file deleted while a -p run is in progress is recreated without its header", () => {
	it("pi#8939: settle -p --session <file>, the file deleted by the run's own command: exit 1 with an error naming the file and what happened; the file is not recreated (no headerless file); the path opens as a new session next time", () => {
		const file = join(cli.project, "run.jsonl");
		const script = join(cli.dir, "script.json");
		// The report's other process (a session manager, a cleanup script) deletes the file mid-run.
		writeFileSync(
			script,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: `rm ${file}` } }] }, "the file is gone"]),
		);
		const run = runSettle(["--faux-script", script, "-p", "--session", file, "delete the session file"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		// Not a silent success (pi's exit 0): the write that found the file gone fails the request.
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(`Session file ${file} was deleted while this session was open`);
		expect(run.stderr).not.toMatch(/\n\s+at /);
		// Nothing written after the deletion: no file whose first line is a message, not a header.
		expect(existsSync(file)).toBe(false);
		// The next run on that path starts a session there (with its header) and is answered.
		const next = runSettle(["--faux", "-p", "--session", file, "start again"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(next.code).toBe(0);
		expect(next.stdout).toBe("start again\n");
		const lines = readFileSync(file, "utf8").trim().split("\n");
		expect(JSON.parse(lines[0]!)).toMatchObject({ type: "session" });
	});
});

describe("pi#4314 / pi#4716: over RPC, agent_end comes before an auto-retry with nothing saying another run follows", () => {
	it("pi#4314: settle --rpc, a retryable error then the answer: the first agent_end says willRetry: true, the last willRetry: false, and one agent_settled comes after the recovered answer, last", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([{ stopReason: "error", errorMessage: "529 overloaded_error: Overloaded" }, "recovered"]),
		);
		const client = new RpcClient(["--faux-script", script], { cwd: cli.project, agentDir: cli.agentDir });
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "1", type: "prompt", message: "hello" })).toMatchObject({ success: true });
		await settled;
		expect(await client.end()).toBe(0);
		const lifecycle = client.lines.flatMap((line) => {
			if (line.type === "agent_end") return [`agent_end willRetry=${line.willRetry}`];
			if (line.type === "auto_retry_start" || line.type === "auto_retry_end" || line.type === "agent_settled") {
				return [line.type];
			}
			return [];
		});
		// The consumer that finalizes on agent_end can tell the first one apart: a retry follows it.
		expect(lifecycle).toEqual([
			"agent_end willRetry=true",
			"auto_retry_start",
			"auto_retry_end",
			"agent_end willRetry=false",
			"agent_settled",
		]);
		const settledAt = client.lines.findIndex((line) => line.type === "agent_settled");
		const answers = client.lines.flatMap((line, index) =>
			line.type === "message_end" && (line.message as { role?: string }).role === "assistant"
				? [{ index, stopReason: (line.message as { stopReason?: string }).stopReason }]
				: [],
		);
		expect(answers.map((answer) => answer.stopReason)).toEqual(["error", "stop"]);
		expect(answers.at(-1)!.index).toBeLessThan(settledAt);
		// Nothing of the run comes after agent_settled.
		expect(client.lines.slice(settledAt + 1).filter((line) => line.type !== "response")).toEqual([]);
	});
});

describe("openclaw#96542: two projects whose paths differ only by a separator share a session dir; continue resumes the other one", () => {
	it("openclaw#96542: `settle -c` in client/app never continues client-app's session (newer or not), and client-app still continues its own", () => {
		const clientApp = join(cli.dir, "dev", "client-app");
		const clientSlashApp = join(cli.dir, "dev", "client", "app");
		mkdirSync(clientApp, { recursive: true });
		mkdirSync(clientSlashApp, { recursive: true });
		const settle = (cwd: string, args: string[]) =>
			runSettle(["--faux", ...args], { cwd, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS });
		const sessions = () => {
			const dirs = readdirSync(join(cli.agentDir, "sessions"));
			// Both projects map to one folder (pi's naming, kept so pi's sessions stay readable).
			expect(dirs).toHaveLength(1);
			const dir = join(cli.agentDir, "sessions", dirs[0]!);
			return readdirSync(dir).map((name) => join(dir, name));
		};
		const headerCwd = (file: string) => JSON.parse(readFileSync(file, "utf8").split("\n")[0]!).cwd;

		expect(settle(clientApp, ["-p", "the client-app deploy key is in vault"])).toMatchObject({ code: 0 });
		const [clientAppFile] = sessions();
		const clientAppBytes = readFileSync(clientAppFile!, "utf8");

		// In the other project, the newest session of the shared folder is client-app's: not continued.
		expect(settle(clientSlashApp, ["-c", "-p", "what do you know about this project?"])).toMatchObject({ code: 0 });
		expect(readFileSync(clientAppFile!, "utf8")).toBe(clientAppBytes);
		const [ownFile] = sessions().filter((file) => file !== clientAppFile);
		expect(headerCwd(ownFile!)).toBe(clientSlashApp);
		expect(persistedUserTexts(ownFile!)).toEqual(["what do you know about this project?"]);

		// Back in client-app, its own (now older) session is continued, not client/app's newer one.
		const ownBytes = readFileSync(ownFile!, "utf8");
		expect(settle(clientApp, ["-c", "-p", "and where is it?"])).toMatchObject({ code: 0 });
		expect(readFileSync(ownFile!, "utf8")).toBe(ownBytes);
		expect(persistedUserTexts(clientAppFile!)).toEqual(["the client-app deploy key is in vault", "and where is it?"]);
		expect(sessions()).toHaveLength(2);

		// Its id given in client/app names client-app as the project that holds it; nothing is written.
		const id = JSON.parse(readFileSync(clientAppFile!, "utf8").split("\n")[0]!).id as string;
		const byId = settle(clientSlashApp, ["--session", id.slice(0, 13), "-p", "go on"]);
		expect(byId.code).toBe(2);
		expect(byId.stderr).toContain(`of the project ${clientApp} does`);
		expect(sessions()).toHaveLength(2);
	});
});

describe("pi#3249: a session forked into another project's cwd, in a shared session dir: --continue resumed it with the launch cwd", () => {
	it("pi#3249: `settle --session-dir <shared> -c` in A continues A's own session, never the newer fork whose header names B; in B it continues the fork, its tools running in B", () => {
		const a = join(cli.dir, "project-a");
		const b = join(cli.dir, "project-b");
		const shared = join(cli.dir, "shared-sessions");
		mkdirSync(a, { recursive: true });
		mkdirSync(b, { recursive: true });
		const pwdScript = join(cli.dir, "pwd.json");
		writeFileSync(pwdScript, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }]));
		const settle = (cwd: string, args: string[]) =>
			runSettle(["--session-dir", shared, ...args], { cwd, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS });
		const toolOutputs = (stdout: string) =>
			stdout
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line))
				.filter((event) => event.type === "tool_execution_end")
				.map((event) => event.result.content[0].text.trim());

		expect(settle(a, ["--faux", "-p", "the A task"])).toMatchObject({ code: 0 });
		const [aFile] = readdirSync(shared).map((name) => join(shared, name));
		// The report's step: the session forked into B with forkFrom, beside it in the same folder (newer).
		const fork = SessionManager.forkFrom(aFile!, b, { sessionDir: shared });
		const forkFile = fork.getSessionFile()!;
		fork.close(); // the report's process exited: its write lock is released
		const forkBytes = readFileSync(forkFile, "utf8");
		expect(JSON.parse(forkBytes.split("\n")[0]!).cwd).toBe(b);

		const inA = settle(a, ["--faux-script", pwdScript, "-c", "--json", "where are we?"]);
		expect(inA.code).toBe(0);
		expect(toolOutputs(inA.stdout)).toEqual([a]);
		expect(readFileSync(forkFile, "utf8")).toBe(forkBytes);
		expect(persistedUserTexts(aFile!)).toEqual(["the A task", "where are we?"]);

		const inB = settle(b, ["--faux-script", pwdScript, "-c", "--json", "and here?"]);
		expect(inB.code).toBe(0);
		expect(toolOutputs(inB.stdout)).toEqual([b]);
		expect(persistedUserTexts(forkFile)).toEqual(["the A task", "and here?"]);
		expect(readdirSync(shared)).toHaveLength(2);
	});

	it("pi#3249: pi 0.73.1 (peer) on the same steps: `-c` in A continues the fork whose header names B, and its tools run in A", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "pi"));
		const b = join(cli.dir, "pi", "project-b");
		const shared = join(cli.dir, "pi", "shared-sessions");
		mkdirSync(b, { recursive: true });
		const pwdScript = join(cli.dir, "pi-pwd.json");
		writeFileSync(pwdScript, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }]));
		expect(await runPiCli(dirs, ["--session-dir", shared, "-p", "the A task"])).toMatchObject({ code: 0 });
		const [aFile] = readdirSync(shared).map((name) => join(shared, name));
		const forkFile = piSessionManager.forkFrom(aFile!, b, shared).getSessionFile()!;

		const inA = await runPiCli(dirs, ["--session-dir", shared, "-c", "--mode", "json", "where are we?"], {
			script: pwdScript,
		});
		expect(inA.code).toBe(0);
		const outputs = inA.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line))
			.filter((event) => event.type === "tool_execution_end")
			.map((event) => event.result.content[0].text.trim());
		expect(outputs).toEqual([dirs.project]);
		expect(persistedUserTexts(forkFile)).toEqual(["the A task", "where are we?"]);
		expect(JSON.parse(readFileSync(forkFile, "utf8").split("\n")[0]!).cwd).toBe(b);
	});
});
