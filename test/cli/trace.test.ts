/**
 * `settle --trace <file>` and `settle trace <file>`: real child processes on the faux model, the
 * saved file read back with the SDK's `loadTrace`.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { LifecycleInspectionEvent, StateChangeEvent } from "../../src/inspect/lifecycle-inspector.js";
import { formatTrace } from "../../src/inspect/trace.js";
import { loadTrace } from "../../src/inspect/trace-file.js";
import { builtPackage } from "../package/helpers.js";
import { DISPOSAL_STATES, REPLACEMENT_STATES } from "../runtime/helpers.js";
import { cliCommand, RpcClient, trackChild, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-trace-");

/** A first exchange, then a call that is retried (529) and overflows (compaction), then the answer. */
const RETRY_THEN_COMPACT = [
	"The build uses esbuild.",
	{ stopReason: "error", errorMessage: "529 overloaded" },
	{ stopReason: "error", errorMessage: "prompt is too long: 213462 tokens > 200000 maximum" },
	"## Goal\nUnderstand the build.\n\n## Done\nThe build uses esbuild.",
	"Run npm run build.",
];

/** Retry at once (1 ms backoff) and keep only the newest turn when compacting (so the first one is summarized). */
function writeSettings(agentDir: string): void {
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(
		join(agentDir, "settings.json"),
		JSON.stringify({ retry: { baseDelayMs: 1 }, compaction: { keepRecentTokens: 1 } }),
	);
}

function writeScript(steps: unknown[], name = "script.json"): string {
	const path = join(cli.dir, name);
	writeFileSync(path, JSON.stringify(steps));
	return path;
}

/** The sessions' states (a CLI trace also holds the runtime machine's). */
const states = (events: readonly LifecycleInspectionEvent[]) =>
	events.filter((event): event is StateChangeEvent => event.kind === "state" && event.machine === "promptOperation");

const promptTexts = (events: readonly LifecycleInspectionEvent[]) =>
	events
		.filter((event) => event.kind === "event" && event.type === "PROMPT")
		.map(
			(event) => (event as { payload?: { request?: { payload?: { text?: string } } } }).payload?.request?.payload?.text,
		);

describe("settle --trace in print mode", () => {
	it("a retried-then-compacted request: the trace shows the retrying and compacting states, the attempt and the reason", async () => {
		writeSettings(cli.agentDir);
		const traceFile = join(cli.dir, "run.trace.json");
		const run = cli.settle([
			"--faux-script",
			writeScript(RETRY_THEN_COMPACT),
			"-p",
			"What does the build use?",
			"And how do I run it?",
			"--trace",
			traceFile,
		]);
		// Print mode names the backoff it waits for (on stderr; pi 0.73.1 waits silently).
		expect(run.stderr).toMatch(/^Retrying in \d+\.\d s, attempt 1\/3: 529 overloaded\n$/);
		expect(run.stdout).toBe("Run npm run build.\n");
		expect(run.code).toBe(0);

		const trace = await loadTrace(traceFile);
		expect(trace.machine).toBe("promptOperation");
		expect(trace.dropped).toBe(0);
		expect(promptTexts(trace.events)).toEqual(["What does the build use?", "And how do I run it?"]);
		const visited = states(trace.events);
		const retrying = visited.find((state) => state.to === "retrying");
		expect(retrying?.details).toMatchObject({ retryAttempt: 1, maxRetries: 3, retryDelayMs: 1 });
		const compacting = visited.find((state) => state.to === "compacting.working");
		expect(compacting?.details).toMatchObject({ compactionReason: "overflow", willRetry: true });
		expect(visited.indexOf(retrying!)).toBeLessThan(visited.indexOf(compacting!));
		// The re-runs after each: the retry, then the compaction's.
		const reruns = visited.filter((state) => state.to === "running.working").map((state) => state.details.runCause);
		expect(reruns).toEqual(["prompt", "prompt", "retry", "compaction"]);
		expect(trace.events).toContainEqual(
			expect.objectContaining({ kind: "delay", phase: "scheduled", delay: "retryDelay", ms: 1, state: "retrying" }),
		);
		expect(trace.events).toContainEqual(
			expect.objectContaining({
				kind: "emitted",
				type: "auto_retry_start",
				payload: expect.objectContaining({ attempt: 1 }),
			}),
		);
		expect(visited.at(-1)?.to).toBe("idle");
		const text = formatTrace(trace);
		expect(text).toContain("postRun → retrying (always (2) [canRetry]) attempt 1/3, delay 1ms");
		expect(text).toContain("postRun → compacting.working (always (3) [canRecoverOverflow]) reason overflow, willRetry");
		// The one session of the run, from its first event; no temp file left next to the trace.
		const sessions = (trace as unknown as { sessions: { sessionId: string; firstEvent: number }[] }).sessions;
		expect(sessions).toHaveLength(1);
		expect(sessions[0]?.firstEvent).toBe(0);
		expect(readdirSync(cli.dir).filter((name) => name.includes(".tmp"))).toEqual([]);
	});

	it("a model error that outlasts the retries (exit 1): the trace is saved with every attempt", async () => {
		writeSettings(cli.agentDir);
		const traceFile = join(cli.dir, "failed.json");
		const overloaded = { stopReason: "error", errorMessage: "529 overloaded" };
		const script = writeScript([overloaded, overloaded, overloaded, overloaded]);
		const run = cli.settle(["--faux-script", script, "-p", "hi", "--trace", traceFile]);
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(
			/^Retrying in \d+\.\d s, attempt 1\/3: 529 overloaded\nRetrying in \d+\.\d s, attempt 2\/3: 529 overloaded\nRetrying in \d+\.\d s, attempt 3\/3: 529 overloaded\n529 overloaded\n$/,
		);

		const trace = await loadTrace(traceFile);
		const attempts = states(trace.events)
			.filter((state) => state.to === "retrying")
			.map((state) => state.details.retryAttempt);
		expect(attempts).toEqual([1, 2, 3]);
		expect(states(trace.events).at(-1)?.to).toBe("idle");
	});
});

describe("settle --trace in JSON mode", () => {
	it("stdout is byte-identical with and without --trace (reproducible child processes)", () => {
		const script = writeScript(RETRY_THEN_COMPACT);
		const deterministic = pathToFileURL(join(import.meta.dirname, "trace-deterministic.mjs")).href;
		const runJson = (name: string, extra: string[]) => {
			const agentDir = join(cli.dir, name);
			writeSettings(agentDir);
			const result = spawnSync(
				process.execPath,
				["--import", deterministic, ...cliCommand(), "--faux-script", script, "--json", "first", "second", ...extra],
				{ cwd: cli.project, input: "", encoding: "utf8", env: { ...process.env, SETTLE_AGENT_DIR: agentDir } },
			);
			return { code: result.status, stdout: result.stdout, stderr: result.stderr };
		};
		const traceFile = join(cli.dir, "json.trace.json");
		const plain = runJson("agent-a", []);
		const traced = runJson("agent-b", ["--trace", traceFile]);
		expect(plain.code).toBe(0);
		expect(plain.stdout).toContain('"type":"compaction_end"');
		expect(traced).toEqual(plain);
		expect(readFileSync(traceFile, "utf8")).toContain('"compactionReason": "overflow"');
	});
});

describe("settle --trace in RPC mode", () => {
	it("new_session continues the trace: both sessions' prompts, each session from its own first event", async () => {
		const traceFile = join(cli.dir, "rpc.trace.json");
		const rpc = new RpcClient(["--faux", "--trace", traceFile], { cwd: cli.project, agentDir: cli.agentDir });
		const prompt = async (id: string, message: string) => {
			const settled = rpc.next((line) => line.type === "agent_settled");
			expect(await rpc.request({ id, type: "prompt", message })).toMatchObject({ success: true });
			await settled;
		};
		const sessionId = async (id: string) =>
			((await rpc.request({ id, type: "get_state" })).data as { sessionId: string }).sessionId;

		await prompt("1", "first session");
		const first = await sessionId("2");
		expect(await rpc.request({ id: "3", type: "new_session" })).toMatchObject({ success: true });
		const second = await sessionId("4");
		await prompt("5", "second session");
		expect(await rpc.end()).toBe(0);
		expect(second).not.toBe(first);

		const trace = await loadTrace(traceFile);
		const sessions = (trace as unknown as { sessions: { sessionId: string; firstEvent: number }[] }).sessions;
		expect(sessions.map((session) => session.sessionId)).toEqual([first, second]);
		const boundary = sessions[1]!.firstEvent;
		expect(trace.events[boundary]).toMatchObject({ kind: "state", from: null, to: "idle", trigger: "inspect" });
		expect(promptTexts(trace.events.slice(0, boundary))).toEqual(["first session"]);
		expect(promptTexts(trace.events.slice(boundary))).toEqual(["second session"]);
		// Each session's operation ran to its end.
		const settledAt = trace.events.flatMap((event, i) =>
			event.kind === "emitted" && event.type === "operation_settled" ? [i] : [],
		);
		expect(settledAt).toHaveLength(2);
		expect(settledAt[0]).toBeLessThan(boundary);
		expect(settledAt[1]).toBeGreaterThan(boundary);

		// The runtime machine is recorded too: its switch sits between the two sessions' operations.
		expect(trace.machines).toEqual(["promptOperation", "runtime"]);
		const runtimeStates = trace.events.flatMap((event, i) =>
			event.kind === "state" && event.machine === "runtime" ? [{ i, to: event.to }] : [],
		);
		// `rpc.end()` closes stdin: the runtime is disposed at the end.
		expect(runtimeStates.map((state) => state.to)).toEqual([...REPLACEMENT_STATES, ...DISPOSAL_STATES]);
		const at = (to: string, from = 0) => runtimeStates.find((state) => state.to === to && state.i >= from)!.i;
		const requested = trace.events.findIndex((event) => event.machine === "runtime" && event.kind === "event");
		expect(trace.events[requested]).toMatchObject({ kind: "event", type: "NEW" });
		// First session's operation settled → NEW → teardown → rebinding → second session attached → active → its prompt.
		expect(settledAt[0]).toBeLessThan(requested);
		expect(requested).toBeLessThan(at("disposing"));
		expect(at("disposing")).toBeLessThan(at("rebinding"));
		expect(at("rebinding")).toBeLessThan(boundary);
		const backToActive = at("active", at("rebinding"));
		expect(boundary).toBeLessThan(backToActive);
		const secondPrompt = trace.events.findIndex(
			(event, i) => i > boundary && event.kind === "event" && event.type === "PROMPT",
		);
		expect(backToActive).toBeLessThan(secondPrompt);
		// Both machines are Settle's: `settle trace` renders them.
		const rendered = cli.settle(["trace", traceFile, "-o", join(cli.dir, "rpc.html")]);
		expect(rendered).toEqual({ code: 0, stdout: `${join(cli.dir, "rpc.html")}\n`, stderr: "" });
		const html = readFileSync(join(cli.dir, "rpc.html"), "utf8");
		expect(html).toContain("<title>rpc.trace.json: promptOperation + runtime lifecycle trace</title>");
		expect(html).toContain('data-state="runtime.rebinding"');
		expect(html).toContain('data-state="promptOperation.retrying"');
	});
});

describe("settle --trace in interactive mode", () => {
	it("/new: the runtime machine's switch between the two sessions' prompts", async () => {
		const traceFile = join(cli.dir, "chat.trace.json");
		const chat = new Repl(["--faux", "--trace", traceFile], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("the first session", "the first session\n>");
		expect(await chat.say("/new")).toMatch(/^New session /m);
		await chat.say("the second session", "the second session\n>");
		expect(await chat.end()).toBe(0);

		const trace = await loadTrace(traceFile);
		const sessions = (trace as unknown as { sessions: { firstEvent: number }[] }).sessions;
		expect(sessions).toHaveLength(2);
		const prompts = trace.events.flatMap((event, i) => (event.kind === "event" && event.type === "PROMPT" ? [i] : []));
		const switchSteps = trace.events.flatMap((event, i) =>
			event.machine === "runtime" && event.kind === "state" && i > prompts[0]! && i < prompts[1]! ? [event.to] : [],
		);
		expect(prompts).toHaveLength(2);
		expect(switchSteps).toEqual(REPLACEMENT_STATES.slice(1));
		expect(sessions[1]!.firstEvent).toBeGreaterThan(prompts[0]!);
		expect(sessions[1]!.firstEvent).toBeLessThan(prompts[1]!);
	});
});

/** `settle --json --trace <file>` on a script whose first reply runs `command` in bash. */
function startTracedJson(command: string, traceFile: string) {
	const child: ChildProcessWithoutNullStreams = spawn(
		process.execPath,
		[
			...cliCommand(),
			"--faux-script",
			writeScript([{ toolCalls: [{ name: "bash", arguments: { command } }] }, "done"]),
			"--json",
			"go",
			"--trace",
			traceFile,
		],
		{ cwd: cli.project, env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir } },
	);
	child.stdin.end();
	let stderr = "";
	child.stderr.on("data", (chunk) => {
		stderr += String(chunk);
	});
	const exited = trackChild(child).then((code) => ({ code, stderr }));
	/** Resolves with the first stdout event of this type. */
	const event = (type: string) =>
		new Promise<void>((resolve) => {
			const lines = createInterface({ input: child.stdout });
			lines.on("line", (text) => {
				if ((JSON.parse(text) as { type: string }).type !== type) return;
				lines.close();
				resolve();
			});
		});
	return { child, exited, event };
}

describe("settle --trace when the process is ended", () => {
	it("SIGTERM while a tool runs: exit 143, and the trace holds the aborted operation", async () => {
		const traceFile = join(cli.dir, "term.trace.json");
		const run = startTracedJson("sleep 60", traceFile);
		await run.event("tool_execution_start");
		run.child.kill("SIGTERM");
		const { code, stderr } = await run.exited;
		expect(code).toBe(143);
		expect(stderr).toBe("");
		const trace = await loadTrace(traceFile);
		expect(promptTexts(trace.events)).toEqual(["go"]);
		const visited = states(trace.events).map((state) => `${state.to} (${state.trigger})`);
		expect(visited).toContain("running.working (PREFLIGHT_DONE)");
		expect(visited).toContain("running.aborting (ABORT)");
	});

	it("SIGTERM to an RPC server waiting for commands (its run loop never returns): exit 143, the trace is saved on exit", async () => {
		const traceFile = join(cli.dir, "rpc-term.trace.json");
		const rpc = new RpcClient(["--faux", "--trace", traceFile], { cwd: cli.project, agentDir: cli.agentDir });
		const settled = rpc.next((line) => line.type === "agent_settled");
		expect(await rpc.request({ id: "1", type: "prompt", message: "before the signal" })).toMatchObject({
			success: true,
		});
		await settled;
		rpc.child.kill("SIGTERM");
		expect(await rpc.exited).toBe(143);
		const trace = await loadTrace(traceFile);
		expect(promptTexts(trace.events)).toEqual(["before the signal"]);
		expect(states(trace.events).at(-1)?.to).toBe("idle");
	});

	it("stdout closed by its reader (settle --json … | head -1): exit 141, and the trace is saved", async () => {
		const traceFile = join(cli.dir, "pipe.trace.json");
		const run = startTracedJson("while :; do echo line; sleep 0.05; done", traceFile);
		await run.event("tool_execution_update");
		run.child.stdout.destroy();
		const { code } = await run.exited;
		expect(code).toBe(141);
		const trace = await loadTrace(traceFile);
		expect(states(trace.events).map((state) => state.to)).toContain("running.aborting");
	});
});

describe("settle --trace with a path that cannot be written", () => {
	/** A run whose model call would create `ran` in the project (its bash tool call). */
	const runWithTrace = (tracePath: string, options: { withoutDacOverride?: boolean } = {}) => {
		const script = writeScript([{ toolCalls: [{ name: "bash", arguments: { command: "touch ran" } }] }, "done"]);
		const argv = [process.execPath, ...cliCommand(), "--faux-script", script, "-p", "go", "--trace", tracePath];
		// util-linux's setpriv (Debian: essential): root without the capability to write where modes forbid it.
		const command = options.withoutDacOverride
			? ["setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override", ...argv]
			: argv;
		const result = spawnSync(command[0]!, command.slice(1), {
			cwd: cli.project,
			input: "",
			encoding: "utf8",
			env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
		});
		expect(existsSync(join(cli.project, "ran"))).toBe(false);
		expect(result.stdout).toBe("");
		return { code: result.status, stderr: result.stderr };
	};

	it("a folder that does not exist, a file as the folder, a folder as the file: exit 2 with one line, before any model call", () => {
		const missing = runWithTrace(join(cli.dir, "no-such-folder", "t.json"));
		expect(missing).toEqual({
			code: 2,
			stderr: `Error: --trace ${join(cli.dir, "no-such-folder", "t.json")}: the folder ${join(cli.dir, "no-such-folder")} does not exist; create it or choose another path.\n`,
		});
		const file = writeScript([], "plain.json");
		const underFile = runWithTrace(join(file, "t.json"));
		expect(underFile).toEqual({
			code: 2,
			stderr: `Error: --trace ${join(file, "t.json")}: ${file} is not a folder.\n`,
		});
		const folder = runWithTrace(cli.project);
		expect(folder.code).toBe(2);
		expect(folder.stderr).toMatch(/^Error: --trace .*: .* is a folder; give a file name, e\.g\. .*\/trace\.json\.\n$/);
	});

	it("--trace package.json (a typo) replaced the file with the trace at exit; now exit 2 with one line before any model call, its bytes untouched", () => {
		const files = {
			"package.json": Buffer.from('{\n\t"name": "app",\n\t"format": "not a trace"\n}\n'),
			"index.ts": Buffer.from("export const answer = 42;\n"),
			"data.bin": Buffer.from([0, 255, 10, 13, 128]),
		};
		for (const [name, bytes] of Object.entries(files)) {
			const path = join(cli.project, name);
			writeFileSync(path, bytes);
			expect(runWithTrace(name)).toEqual({
				code: 2,
				stderr: `Error: --trace ${name}: ${path} exists and is not a Settle trace, and the trace would replace it; pick another path, or delete the file first.\n`,
			});
			expect(readFileSync(path).equals(bytes)).toBe(true);
		}
	});

	it("an earlier trace (a re-run with the same --trace) and an empty file are replaced by the new trace", async () => {
		const earlier = join(cli.dir, "run.json");
		expect(cli.settle(["--faux", "-p", "first run", "--trace", earlier]).code).toBe(0);
		expect(promptTexts((await loadTrace(earlier)).events)).toEqual(["first run"]);
		expect(cli.settle(["--faux", "-p", "second run", "--trace", earlier]).code).toBe(0);
		expect(promptTexts((await loadTrace(earlier)).events)).toEqual(["second run"]);
		const empty = join(cli.dir, "empty.json");
		writeFileSync(empty, "");
		expect(cli.settle(["--faux", "-p", "into the empty file", "--trace", empty]).code).toBe(0);
		expect(promptTexts((await loadTrace(empty)).events)).toEqual(["into the empty file"]);
	});

	it("a folder that is not writable: exit 2 with one line, before any model call", () => {
		const readOnly = join(cli.dir, "read-only");
		mkdirSync(readOnly);
		chmodSync(readOnly, 0o555);
		// root writes anywhere: run it without CAP_DAC_OVERRIDE then (as another user it might not read the repo).
		const root = process.getuid?.() === 0;
		const result = runWithTrace(join(readOnly, "t.json"), { withoutDacOverride: root });
		expect(result).toEqual({
			code: 2,
			stderr: `Error: --trace ${join(readOnly, "t.json")}: the folder ${readOnly} is not writable.\n`,
		});
	});

	it("a folder removed during the run: the run's output stands, then one error line and exit 1", async () => {
		const folder = join(cli.dir, "traces");
		mkdirSync(folder);
		const rpc = new RpcClient(["--faux", "--trace", join(folder, "t.json")], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const settled = rpc.next((line) => line.type === "agent_settled");
		expect(await rpc.request({ id: "1", type: "prompt", message: "hi" })).toMatchObject({ success: true });
		await settled;
		rmSync(folder, { recursive: true });
		expect(await rpc.end()).toBe(1);
		expect(rpc.stderr).toMatch(
			new RegExp(`^Error: Could not save the trace to ${join(folder, "t.json")}: ENOENT[^\\n]*\\n$`),
		);
		expect(rpc.lines.some((line) => line.type === "agent_settled")).toBe(true);
	});

	it("--session s.jsonl --trace s.jsonl replaced the conversation with the trace; now exit 2 before the run, the session untouched", () => {
		const session = join(cli.dir, "s.jsonl");
		expect(cli.settle(["--faux", "-p", "first question", "--session", session]).code).toBe(0);
		const before = readFileSync(session, "utf8");
		const run = cli.settle(["--faux", "-p", "second question", "--session", session, "--trace", session]);
		expect(run).toEqual({
			code: 2,
			stdout: "",
			stderr: `Error: --trace ${session}: ${session} is a session's file, and the trace would replace the conversation; give the trace another path (e.g. ${join(cli.dir, "s")}.trace.json).\n`,
		});
		expect(readFileSync(session, "utf8")).toBe(before);
	});

	it("--session new.jsonl --trace new.jsonl, a session not written yet: exit 2 before the run (not exit 1 after it), nothing written", () => {
		// No file to recognise yet: only the session the run opens says that the path is its file.
		const session = join(cli.dir, "new.jsonl");
		const run = cli.settle(["--faux", "-p", "first question", "--session", session, "--trace", session]);
		expect(run).toEqual({
			code: 2,
			stdout: "",
			stderr: `Error: --trace ${session}: ${session} is a session's file, and the trace would replace the conversation; give the trace another path (e.g. ${join(cli.dir, "new")}.trace.json).\n`,
		});
		expect(existsSync(session)).toBe(false);
	});

	it("-c --trace <the newest session's file> replaced it with the trace; now exit 2, the session untouched", () => {
		expect(cli.settle(["--faux", "-p", "first question"]).code).toBe(0);
		const folder = join(cli.agentDir, "sessions");
		const [project] = readdirSync(folder);
		const [name] = readdirSync(join(folder, project!));
		const newest = join(folder, project!, name!);
		const before = readFileSync(newest, "utf8");
		const run = cli.settle(["--faux", "-c", "-p", "second question", "--trace", newest]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe(
			`Error: --trace ${newest}: ${newest} is a session's file, and the trace would replace the conversation; give the trace another path (e.g. ${newest.replace(/\.jsonl$/, "")}.trace.json).\n`,
		);
		expect(readFileSync(newest, "utf8")).toBe(before);
	});

	it("an RPC run that switched to the trace's path saved the trace over that session; now exit 1 naming it, the session untouched", async () => {
		const session = join(cli.dir, "other.jsonl");
		// The session is written once the server has started (an existing session's file is refused at the start).
		const rpc = new RpcClient(["--faux", "--trace", session], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await rpc.request({ id: "0", type: "get_state" })).toMatchObject({ success: true });
		expect(cli.settle(["--faux", "-p", "kept", "--session", session]).code).toBe(0);
		const before = readFileSync(session, "utf8");
		expect(await rpc.request({ id: "1", type: "switch_session", sessionPath: session })).toMatchObject({
			success: true,
		});
		expect(await rpc.end()).toBe(1);
		expect(rpc.stderr).toBe(
			`Error: Not saving the trace: ${session} is a session's file, and the trace would replace the conversation; give the trace another path (e.g. ${join(cli.dir, "other")}.trace.json).\n`,
		);
		expect(readFileSync(session, "utf8")).toBe(before);
	});

	it("--trace with a command that runs no prompt is a usage error", () => {
		const run = cli.settle(["viz", "--trace", join(cli.dir, "t.json")]);
		expect(run.code).toBe(2);
		expect(run.stderr.split("\n")[0]).toBe(
			"Error: --trace records a prompt run: use it with -p, --json or --rpc (settle trace <file> renders a saved trace).",
		);
	});

	it("--export with --trace or --inspect exported, exit 0, and silently wrote no trace and served nothing; now a usage error before the export", () => {
		const session = join(cli.dir, "s.jsonl");
		expect(cli.settle(["--faux", "-p", "hi", "--session", session]).code).toBe(0);
		const page = join(cli.dir, "s.html");
		const traced = cli.settle(["--export", session, page, "--trace", join(cli.dir, "t.json")]);
		expect(traced.code).toBe(2);
		expect(traced.stderr.split("\n")[0]).toBe(
			"Error: --trace records a prompt run: use it with -p, --json or --rpc (settle trace <file> renders a saved trace).",
		);
		const inspected = cli.settle(["--export", session, page, "--inspect"]);
		expect(inspected.code).toBe(2);
		expect(inspected.stderr.split("\n")[0]).toBe(
			"Error: --inspect watches a prompt run live: use it with -p, --json, --rpc or -i.",
		);
		expect(existsSync(page)).toBe(false);
	});
});

describe("settle trace <file>", () => {
	it("renders the offline viewer next to the trace (or at -o) and prints its path", () => {
		writeSettings(cli.agentDir);
		const traceFile = join(cli.dir, "run.trace.json");
		expect(
			cli.settle(["--faux-script", writeScript(RETRY_THEN_COMPACT), "-p", "one", "two", "--trace", traceFile]).code,
		).toBe(0);

		const rendered = cli.settle(["trace", traceFile]);
		expect(rendered).toEqual({ code: 0, stdout: `${join(cli.dir, "run.trace.html")}\n`, stderr: "" });
		const html = readFileSync(join(cli.dir, "run.trace.html"), "utf8");
		expect(html.startsWith("<!doctype html>")).toBe(true);
		expect(html).toContain("<title>run.trace.json: promptOperation + runtime lifecycle trace</title>");
		expect(html).toContain("postRun → retrying (always (2) [canRetry]) attempt 1/3, delay 1ms");
		expect(html).toContain("postRun → compacting.working (always (3) [canRecoverOverflow]) reason overflow, willRetry");

		const custom = join(cli.dir, "viewer.html");
		expect(cli.settle(["trace", traceFile, "-o", custom])).toEqual({ code: 0, stdout: `${custom}\n`, stderr: "" });
		expect(readFileSync(custom, "utf8")).toBe(html);
		// Found dogfooding: `-o views/run.html` failed with a bare ENOENT where `settle --export` creates the folder.
		const nested = join(cli.dir, "views", "2024", "run.html");
		expect(cli.settle(["trace", traceFile, "-o", nested])).toEqual({ code: 0, stdout: `${nested}\n`, stderr: "" });
		expect(readFileSync(nested, "utf8")).toBe(html);
	});

	it("a trace saved before traces held the runtime machine (no `machines`) still renders, as one diagram", () => {
		const old = join(import.meta.dirname, "../fixtures/traces/v1-rpc-new-session.trace.json");
		const out = join(cli.dir, "old.html");
		expect(cli.settle(["trace", old, "-o", out])).toEqual({ code: 0, stdout: `${out}\n`, stderr: "" });
		const html = readFileSync(out, "utf8");
		expect(html).toContain("<title>v1-rpc-new-session.trace.json: promptOperation lifecycle trace</title>");
		expect(html).not.toContain('data-state="runtime.');
		expect(html).not.toContain("<nav");
		expect(html.match(/<li data-i=/g)).toHaveLength(34);
	});

	it("the bundled CLI (scripts/build.mjs) records and renders the same way (the viewer is loaded on demand)", () => {
		const pkg = builtPackage("test/cli");
		try {
			const bin = (args: string[]) => {
				const result = spawnSync(process.execPath, [pkg.bin, ...args], {
					cwd: cli.project,
					input: "",
					encoding: "utf8",
					env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
				});
				return { code: result.status, stdout: result.stdout, stderr: result.stderr };
			};
			const traceFile = join(cli.dir, "bundled.json");
			expect(bin(["--faux", "-p", "hello", "--trace", traceFile])).toEqual({ code: 0, stdout: "hello\n", stderr: "" });
			expect(bin(["trace", traceFile])).toEqual({ code: 0, stdout: `${join(cli.dir, "bundled.html")}\n`, stderr: "" });
			expect(readFileSync(join(cli.dir, "bundled.html"), "utf8")).toContain("idle → preflight (PROMPT (2))");
		} finally {
			pkg.remove();
		}
	});

	it("a file that is not a trace, a missing file, no file: exit 2 with one line naming the file", () => {
		const notATrace = writeScript(["hello"], "steps.json");
		expect(cli.settle(["trace", notATrace])).toEqual({
			code: 2,
			stdout: "",
			// A faux script is a JSON array: the error says what the file holds, not just what it lacks.
			stderr: `Error: ${notATrace}: Not a Settle lifecycle trace: expected a JSON object, got an array. Record one with settle --trace <file>.\n`,
		});
		const notJson = join(cli.dir, "notes.json");
		writeFileSync(notJson, "not json\n");
		const invalid = cli.settle(["trace", notJson]);
		expect(invalid.code).toBe(2);
		expect(invalid.stderr).toMatch(new RegExp(`^Error: The trace ${notJson} is not valid JSON: [^\\n]+\\n$`));
		const missing = cli.settle(["trace", join(cli.dir, "nope.json")]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toMatch(/^Error: Could not read the trace .*nope\.json: ENOENT[^\n]*\n$/);
		expect(cli.settle(["trace"])).toMatchObject({
			code: 2,
			stderr: "Error: settle trace takes one trace file. Usage: settle trace <file> [-o|--output out.html]\n",
		});
		expect(existsSync(join(cli.dir, "steps.html"))).toBe(false);
	});

	it("a session file (the run's JSONL, not its trace): exit 2, saying what it is and what renders it", () => {
		expect(cli.settle(["--faux", "-p", "hello"])).toMatchObject({ code: 0, stdout: "hello\n" });
		const sessions = join(cli.agentDir, "sessions");
		const [folder] = readdirSync(sessions);
		const [name] = readdirSync(join(sessions, folder!));
		const session = join(sessions, folder!, name!);
		expect(cli.settle(["trace", session])).toEqual({
			code: 2,
			stdout: "",
			stderr: `Error: ${session} is a session file (JSONL: one entry per line), not a lifecycle trace; settle --export ${session} renders a session as HTML. Record one with settle --trace <file>.\n`,
		});
		expect(existsSync(session.replace(/\.jsonl$/, ".html"))).toBe(false);
	});
});
