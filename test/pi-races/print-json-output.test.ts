/**
 * Reports about what a one-shot run (`settle -p`, `--mode json`) hands back to the script that
 * started it — its exit code and its stdout — replayed against real `settle` child processes on the
 * faux model, and where cheap against pi 0.73.1's own CLI on the same faux script
 * (test/cli/pi-diff-process.ts). gsd-pi#1293: a command or extension that set `process.exitCode`
 * to report its verdict was overruled by an unconditional exit 0 (fixed). oh-my-pi#7635: the large
 * last events of a json run cut off before exit; oh-my-pi#10965: a run killed mid-answer left no
 * session file; oh-my-pi#10297: a start-up `ctx.ui.notify` never surfaced headless (all held).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage, UserMessage } from "../../src/llm/types.js";
import {
	RpcClient,
	runSettleAsync,
	runSettleStalledReader,
	signalSettleWhen,
	useCliProject,
	writeLocalProvider,
} from "../cli/helpers.js";
import { makeDiffDirs, runPiCli, runSettleCli, writeScript } from "../cli/pi-diff-process.js";
import { chatPartial } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-print-json-");

/** A guard against a hang only (each run takes a few seconds): a hung run is killed, its code null. */
const HANG_GUARD_MS = 30_000;

/** gsd-pi#1293's shape: a command that reports its verdict through the exit code. */
const VERDICT_EXTENSION = `export default function (pi) {
	pi.registerCommand("verdict", {
		description: "report a failed check through the exit code",
		handler: async (_args, ctx) => {
			process.exitCode = 21;
			ctx.ui.notify("verdict: failed", "error");
		},
	});
}
`;

/** The same verdict given after the run's answer. */
const AGENT_END_EXTENSION = `export default function (pi) {
	pi.on("agent_end", () => {
		process.exitCode = 3;
	});
}
`;

function verdictExtension(dir: string, source = VERDICT_EXTENSION): string {
	const file = join(dir, "verdict.mjs");
	writeFileSync(file, source);
	return file;
}

describe("gsd-pi#1293: print mode discards the process.exitCode a command or extension set", () => {
	it("gsd-pi#1293: settle -p '/verdict' whose handler sets process.exitCode = 21 exits 21, in text and in json mode", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "command"));
		const extension = verdictExtension(join(cli.dir, "command"));
		const text = await runSettleCli(dirs, ["--no-session", "-e", extension, "-p", "/verdict"]);
		expect(text).toEqual({ code: 21, stdout: "", stderr: "[error] verdict.mjs: verdict: failed\n" });
		const json = await runSettleCli(dirs, ["--no-session", "-e", extension, "--mode", "json", "-p", "/verdict"]);
		expect(json.code).toBe(21);
		expect(
			json.stdout
				.trim()
				.split("\n")
				.map((line) => (JSON.parse(line) as { type: string }).type),
		).toEqual(["session", "extension_notify"]);
	});

	it("gsd-pi#1293: an agent_end handler's process.exitCode = 3 after a successful answer: the answer on stdout, exit 3", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "agent-end"));
		const extension = verdictExtension(join(cli.dir, "agent-end"), AGENT_END_EXTENSION);
		const script = writeScript(dirs, ["checked: 2 failures"]);
		const run = await runSettleCli(dirs, ["--no-session", "-e", extension, "-p", "check it"], {
			script,
		});
		expect(run).toEqual({ code: 3, stdout: "checked: 2 failures\n", stderr: "" });
	});

	it("gsd-pi#1293: a failed run keeps its own exit code (4, an auth failure) whatever an extension set", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "failed"));
		const extension = verdictExtension(join(cli.dir, "failed"), AGENT_END_EXTENSION);
		const script = writeScript(dirs, [{ stopReason: "error", errorMessage: "401 Incorrect API key provided" }]);
		const run = await runSettleCli(dirs, ["--no-session", "-e", extension, "-p", "check it"], { script });
		expect(run.code).toBe(4);
		expect(run.stderr).toContain("401 Incorrect API key provided");
	});

	it("gsd-pi#1293: settle --rpc keeps its own exit code 0 after the command set process.exitCode = 21, as pi 0.73.1's RPC mode does (its shutdown calls process.exit(0))", async () => {
		const extension = verdictExtension(cli.dir);
		const rpc = new RpcClient(["--faux", "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const verdict = rpc.next((line) => line.type === "extension_ui_request" && line.method === "notify");
		await rpc.request({ id: "1", type: "prompt", message: "/verdict" });
		expect((await verdict).message).toBe("verdict: failed");
		expect(await rpc.end()).toBe(0);
	});

	it("gsd-pi#1293 (pi-peer): pi 0.73.1 exits with the command's process.exitCode too", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "peer"));
		const extension = verdictExtension(join(cli.dir, "peer"));
		const run = await runPiCli(dirs, ["--no-session", "-e", extension, "-p", "/verdict"]);
		expect(run.code).toBe(21);
	});
});

/**
 * oh-my-pi#7635's shape: megabytes of JSON written at the very end of the run. The extension sends
 * a 1 MB context message from `agent_end` (written after the run's last answer, as the run ends)
 * and says on stderr when the session shuts down, after which the process only exits.
 */
const BIG_TAIL_EXTENSION = `export default function (pi) {
	pi.on("agent_end", () => {
		pi.sendMessage({ customType: "big-report", content: "r".repeat(1_000_000), display: false });
	});
	pi.on("session_shutdown", () => {
		process.stderr.write("shutdown-done\\n");
	});
}
`;

describe("oh-my-pi#7635: JSON mode can truncate the large final event before exit", () => {
	it("oh-my-pi#7635: settle --mode json whose last events hold megabytes, read by a consumer that starts reading only once the session has shut down: every line arrives whole, agent_settled last, exit 0", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "big-tail"));
		const extension = join(cli.dir, "big-tail", "big-tail.mjs");
		writeFileSync(extension, BIG_TAIL_EXTENSION);
		const script = writeScript(dirs, ["done"]);
		// The consumer is busy: it reads nothing until the process has nothing left to do but exit.
		const { code, stdout } = await runSettleStalledReader(
			["--faux-script", script, "--no-session", "-e", extension, "--mode", "json", "-p", "report"],
			{
				cwd: dirs.project,
				agentDir: dirs.settleAgent,
				env: { PATH: process.env.PATH, HOME: dirs.home, LANG: "C.UTF-8" },
				readAfter: "shutdown-done\n",
				guardMs: HANG_GUARD_MS,
			},
		);
		expect(code).toBe(0);
		expect(stdout.endsWith("\n")).toBe(true);
		const events = stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content?: unknown } });
		expect(events.at(-1)!.type).toBe("agent_settled");
		const report = events.find((event) => event.type === "message_end" && event.message?.role === "custom");
		expect(report?.message?.content).toBe("r".repeat(1_000_000));
		expect(Buffer.byteLength(stdout)).toBeGreaterThan(2_000_000);
	});
});

describe("oh-my-pi#10965: a print-mode run killed mid-answer leaves no session file", () => {
	const server = useWireServer();

	it("oh-my-pi#10965: settle --mode json -p sent SIGTERM while the answer streams: exit 143, every stdout line whole, and the session file holds the prompt and the partial answer, aborted", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// The answer streams in full, then the stream stays open: the run is mid-answer for good.
		server.reply(chatPartial([{ type: "text", text: "Half of the report" }], 3, "hang"));
		const sessionFile = join(cli.project, "killed.jsonl");
		const { code, stdout, stderr } = await signalSettleWhen(
			["--model", "local/coder", "--session", sessionFile, "--mode", "json", "-p", "write the report"],
			{
				cwd: cli.project,
				agentDir: cli.agentDir,
				stream: "stdout",
				// The answer's second half (deltas only, pi#7395): all of it has streamed.
				text: '"delta":"he report"',
				signal: "SIGTERM",
				guardMs: HANG_GUARD_MS,
			},
		);
		expect(code).toBe(143);
		expect(stderr).toBe(`Warning: ${sessionFile} does not exist: starting a new session there.\n`);
		expect(stdout.endsWith("\n")).toBe(true);
		const events = stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; aborted?: boolean });
		expect(events.slice(-2).map((event) => event.type)).toEqual(["agent_end", "agent_settled"]);
		expect(events.at(-2)!.aborted).toBe(true);
		const saved = readFileSync(sessionFile, "utf8")
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: AgentMessage })
			.filter((entry) => entry.type === "message" && entry.message!.role !== "system")
			.map((entry) => entry.message as UserMessage | AssistantMessage);
		expect(saved.map((message) => [message.role, message.content])).toEqual([
			["user", [{ type: "text", text: "write the report" }]],
			["assistant", [{ type: "text", text: "Half of the report" }]],
		]);
		expect((saved[1] as AssistantMessage).stopReason).toBe("aborted");
	});
});

/** oh-my-pi#10297's shape: a warning an extension gives once, as the session starts. */
const STARTUP_NOTIFY_EXTENSION = `export default function (pi) {
	pi.on("session_start", (_event, ctx) => {
		ctx.ui.notify("index is stale: run /reindex", "warning");
	});
}
`;

describe("oh-my-pi#10297: a session_start ctx.ui.notify never surfaces in a headless run", () => {
	it("oh-my-pi#10297: settle -p: the answer alone on stdout, the start-up warning on stderr naming its extension; --mode json: an extension_notify line right after the session header, stderr empty", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "notify"));
		const extension = join(cli.dir, "notify", "stale-index.mjs");
		writeFileSync(extension, STARTUP_NOTIFY_EXTENSION);
		const text = await runSettleCli(dirs, ["--no-session", "-e", extension, "-p", "hi"]);
		expect(text).toEqual({
			code: 0,
			stdout: "hi\n",
			stderr: "[warning] stale-index.mjs: index is stale: run /reindex\n",
		});
		const json = await runSettleCli(dirs, ["--no-session", "-e", extension, "--mode", "json", "-p", "hi"]);
		expect(json.code).toBe(0);
		expect(json.stderr).toBe("");
		const events = json.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		expect(events.slice(1, 3)).toEqual([
			{
				type: "extension_notify",
				message: "index is stale: run /reindex",
				notifyType: "warning",
				extensionPath: extension,
			},
			{ type: "agent_start" },
		]);
	});

	it("oh-my-pi#10297 (pi-peer): pi 0.73.1 -p drops the start-up warning: the answer on stdout, nothing of it on stderr", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "notify-peer"));
		const extension = join(cli.dir, "notify-peer", "stale-index.mjs");
		writeFileSync(extension, STARTUP_NOTIFY_EXTENSION);
		const run = await runPiCli(dirs, ["--no-session", "-e", extension, "-p", "hi"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("hi\n");
		expect(run.stderr).not.toContain("index is stale");
	});
});

/** An extension whose `turn_start` handler throws: the run goes on without it. */
const THROWING_EXTENSION = `export default function (pi) {
	pi.on("turn_start", () => {
		throw new Error("index unreachable");
	});
}
`;

describe("prime-agent#569: --mode json told an extension's error only in prose on stderr", () => {
	it("prime-agent#569: settle --mode json -p with a turn_start handler that throws: an extension_error line on stdout (as --rpc writes) naming the extension, the event and the error, before agent_end; the answer still comes, exit 0, and stderr still says it", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "ext-error"));
		const extension = join(cli.dir, "ext-error", "indexer.mjs");
		writeFileSync(extension, THROWING_EXTENSION);
		const run = await runSettleCli(dirs, ["--no-session", "-e", extension, "--mode", "json", "-p", "hi"]);
		expect(run.code).toBe(0);
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		const types = events.map((event) => event.type);
		expect(events.filter((event) => event.type === "extension_error")).toEqual([
			{ type: "extension_error", extensionPath: extension, event: "turn_start", error: "index unreachable" },
		]);
		expect(types.indexOf("extension_error")).toBeLessThan(types.indexOf("agent_end"));
		expect(types.at(-1)).toBe("agent_settled");
		const answer = events.findLast((event) => event.type === "message_end")?.message as AssistantMessage;
		expect(answer.content).toEqual([{ type: "text", text: "hi" }]);
		expect(run.stderr).toContain("Extension error (");
		expect(run.stderr).toContain("turn_start): index unreachable");
	});
});

describe("gemini-cli#20183: a run refused before any event (no API key) ends the JSON stream with no word of why", () => {
	it("gemini-cli#20183: settle --mode json -p on a model with no key: the session header, then one error line (code NO_AUTH, the message naming the key to set) as stdout's last line, every line JSON; exit 4, stderr says it too", async () => {
		const run = await runSettleAsync(["--no-session", "--model", "openai/gpt-4o", "--mode", "json", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENAI_API_KEY: undefined },
		});
		expect(run.code).toBe(4);
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		expect(events.map((event) => event.type)).toEqual(["session", "error"]);
		expect(events[1]).toMatchObject({ code: "NO_AUTH" });
		expect(events[1]?.message).toContain("No API key found for openai");
		expect(events[1]?.message).toContain("OPENAI_API_KEY");
		expect(run.stderr).toContain("No API key found for openai");
	});
});

describe("opencode#27559: a run that could not start (an unknown session id) ended the JSON stream with no line at all", () => {
	it("opencode#27559: settle --mode json -p --session <unknown id>, and --json on a missing @file: stdout is one error line saying why, exit 2, stderr says it too", async () => {
		const [session, file] = await Promise.all([
			runSettleAsync(["--faux", "--session", "ses_doesnotexist", "--mode", "json", "-p", "hi"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			}),
			runSettleAsync(["--faux", "--json", "-p", "@missing.txt"], { cwd: cli.project, agentDir: cli.agentDir }),
		]);
		for (const [run, says] of [
			[session, "No session of this project has an id starting with ses_doesnotexist"],
			[file, `File not found: ${join(cli.project, "missing.txt")}`],
		] as const) {
			expect(run.code).toBe(2);
			const lines = run.stdout.trimEnd().split("\n");
			expect(lines).toHaveLength(1);
			const line = JSON.parse(lines[0]!) as { type: string; message: string };
			expect(line.type).toBe("error");
			expect(line.message).toContain(says);
			expect(run.stderr).toContain(`Error: ${says}`);
		}
	});

	it("opencode#27559: settle --json refused before it starts (a bad option, an unknown option, -r, no prompt, no model with a key): stdout is one error line saying why, stderr and the exit code as without --json", async () => {
		const cases = [
			{
				args: ["--no-session", "--tools", "read", "--no-tools", "hi"],
				says: "Use either --tools <names> or --no-tools, not both.",
				code: 2,
			},
			{ args: ["--no-session", "--no-extensions", "--bogus", "hi"], says: "Unknown option: --bogus", code: 2 },
			{ args: ["--faux", "-r", "hi"], says: "--resume asks which session to continue in the chat", code: 2 },
			{ args: ["--no-session", "--faux"], says: "no prompt. Give one", code: 2 },
			{ args: ["--no-session", "hi"], says: "No models available.", code: 4 },
		];
		const runs = await Promise.all(
			cases.map(({ args }) => runSettleAsync(["--json", ...args], { cwd: cli.project, agentDir: cli.agentDir })),
		);
		for (const [index, run] of runs.entries()) {
			const { says, code } = cases[index]!;
			expect(run.code).toBe(code);
			const lines = run.stdout.trimEnd().split("\n");
			expect(lines).toHaveLength(1);
			const line = JSON.parse(lines[0]!) as Record<string, unknown>;
			expect(Object.keys(line)).toEqual(["type", "message"]);
			expect(line.type).toBe("error");
			expect(line.message).toContain(says);
			expect(run.stderr).toContain(`Error: ${says}`);
		}
	});
});

/** A `--json` message_update line. */
interface JsonUpdate {
	assistantMessageEvent: { type: string; delta?: string };
}

describe("pi#7395: --mode json wrote the whole answer so far on every streamed delta (quadratic output)", () => {
	it("pi#7395: settle --mode json -p on a 40 KB answer with a tool call: each message_update carries its delta alone (no message, no partial; toolcall_start names its call), the deltas rebuild message_end's text, and no update line past 1 KB but the one text_end, all of stdout linear in the answer", async () => {
		const answer = Array.from({ length: 400 }, (_, index) => `line ${index} ${"x".repeat(95)}`).join("\n");
		const script = join(cli.dir, "long-answer.json");
		writeFileSync(script, JSON.stringify([{ text: answer, toolCalls: [{ name: "ls", arguments: {} }] }, "done"]));
		const run = await runSettleAsync(["--faux-script", script, "--no-session", "--mode", "json", "-p", "go"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code).toBe(0);
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		const updates = events.filter((event) => event.type === "message_update");
		expect(updates.length).toBeGreaterThan(100);
		for (const update of updates) {
			expect(Object.keys(update).sort()).toEqual(["assistantMessageEvent", "type", "usage"]);
			expect(update.assistantMessageEvent).not.toHaveProperty("partial");
		}
		const deltas = updates.map((update) => update.assistantMessageEvent as { type: string; delta?: string });
		const first = events.find(
			(event) => event.type === "message_end" && (event.message as AgentMessage).role === "assistant",
		);
		const [text, call] = (first!.message as AssistantMessage).content;
		expect(text).toEqual({ type: "text", text: answer });
		expect(
			deltas
				.filter((delta) => delta.type === "text_delta")
				.map((delta) => delta.delta)
				.join("")
				.startsWith(answer),
		).toBe(true);
		expect(deltas.find((delta) => delta.type === "toolcall_start")).toMatchObject({
			id: (call as { id: string }).id,
			toolName: "ls",
		});
		// Linear in the answer: a line per delta of constant size (the usage so far), the text once in text_end.
		const longUpdates = run.stdout
			.split("\n")
			.filter((line) => line.length > 1000 && line.includes('"message_update"'));
		expect(longUpdates.map((line) => (JSON.parse(line) as JsonUpdate).assistantMessageEvent.type)).toEqual([
			"text_end",
		]);
		expect(Buffer.byteLength(run.stdout)).toBeLessThan(40 * answer.length);
	});
});
