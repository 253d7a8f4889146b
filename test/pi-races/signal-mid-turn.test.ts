/**
 * Reports about a coding agent stopped by a signal, replayed against real `settle` processes on a
 * local OpenAI-compatible server and real session files.
 *
 * - oh-my-pi#10965: print mode killed with SIGTERM mid-turn exited 143 without saving the partial
 *   answer: the session file had nothing of the turn that was streaming. What the user should see:
 *   the aborted answer (its thinking and text so far) saved after the prompt, and the file resumable.
 * - codex#42717, codex#7985: interrupting a turn while a shell command ran ended the turn, but the
 *   command and what it spawned kept running in the background. Here Ctrl+C (SIGINT) reaches
 *   `settle -p` while a bash call runs a command that keeps spawning children: nothing of it
 *   survives the process, the call is answered in the file, and the next run's request (on a server
 *   that refuses an unanswered tool call, as OpenAI does) is answered.
 * - letta-code#3023: a one-shot headless run never wired SIGINT to the turn: a tool call streamed
 *   after the interrupt still ran its side effect, more requests followed, and it exited 0. Here
 *   SIGINT reaches `settle -p` while a bash call streams (its arguments whole, the answer not):
 *   the command never runs, nothing more is asked, exit 130, and the next run is answered.
 * - oh-my-pi#860: on SIGINT / SIGTERM the LSP client started its servers' shutdown without waiting
 *   for it and exited: every Ctrl+C left rust-analyzer and the like running. Here SIGINT reaches
 *   `settle -p` mid-answer while an extension's server waits for its shutdown handshake in
 *   `session_shutdown`: settle waits for it, so the server exits, and settle exits 130.
 * - pi#3747: `kill` of an idle interactive pi exited 0, like a clean quit, so `until pi; do :; done`
 *   could not tell them apart. What the user should see: 143 after SIGTERM, 0 after end of input.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, signalSettleWhen, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatPartial, chatReply, openAiError } from "../llm/wire/openai.js";
import { type RecordedRequest, type Reply, useWireServer } from "../llm/wire/server.js";
import { fileMessages, orphanToolMessages } from "./disk-harness.js";
import { killMarked, markedProcesses, markedSleepCommand, processMarker } from "./processes.js";

const cli = useCliProject("settle-pi-races-signal-mid-turn-");

/** A guard against a hang only: a hung run is killed, its code null. */
const HANG_GUARD_MS = 30_000;

type SentMessage = { role: string; content?: unknown; tool_calls?: { id: string }[]; tool_call_id?: string };

/** OpenAI's check: an assistant message with tool_calls must be followed by a tool message for each call. */
function refuseUnansweredToolCalls(request: RecordedRequest, next: () => Reply): Reply {
	const messages = (request.body?.messages ?? []) as SentMessage[];
	for (const [index, message] of messages.entries()) {
		if (!message.tool_calls?.length) continue;
		const answered = new Set<string>();
		for (const after of messages.slice(index + 1)) {
			if (after.role !== "tool") break;
			answered.add(after.tool_call_id!);
		}
		const open = message.tool_calls.map((call) => call.id).filter((id) => !answered.has(id));
		if (open.length > 0) {
			return openAiError(
				400,
				`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(", ")}`,
				"invalid_request_error",
			);
		}
	}
	return next();
}

/** Writes `text` on stderr once, at the first `event` for which `test` (JS over `event`) is true: the test's cue to send a signal. */
function cueExtension(name: string, event: string, test: string, text: string): string {
	const file = join(cli.dir, `${name}.mjs`);
	writeFileSync(
		file,
		`export default function (pi) {
	let said = false;
	pi.on(${JSON.stringify(event)}, (event) => {
		if (said || !(${test})) return;
		said = true;
		process.stderr.write(${JSON.stringify(`${text}\n`)});
	});
}
`,
	);
	return file;
}

/** The file's messages without the system-prompt records. */
function conversation(file: string) {
	return fileMessages(file).filter((message) => message.role !== "system");
}

let marker: string;
beforeEach(() => {
	marker = processMarker();
});
afterEach(() => killMarked(marker));

describe("oh-my-pi#10965: print mode killed with SIGTERM mid-turn saved nothing of the turn", () => {
	const server = useWireServer(refuseUnansweredToolCalls);
	beforeEach(() =>
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", reasoning: true }] }),
	);

	it("oh-my-pi#10965: SIGTERM while the answer streams: exit 143, the file holds the prompt and the aborted answer with its thinking and text so far; settle --session -p goes on from it", async () => {
		const file = join(cli.project, "killed.jsonl");
		// Thinking, then text, then the stream stays open: only the signal ends the run.
		server.reply(
			chatPartial(
				[
					{ type: "reasoning", text: "The user wants a long story." },
					{ type: "text", text: "Once upon a time" },
				],
				5,
				"hang",
			),
		);
		const cue = cueExtension(
			"streaming",
			"message_update",
			`JSON.stringify(event.message.content).includes("Once upon a time")`,
			"streaming",
		);
		const run = await signalSettleWhen(
			["--session", file, "--model", "local/coder", "-e", cue, "-p", "write a very long story"],
			{
				cwd: cli.project,
				agentDir: cli.agentDir,
				stream: "stderr",
				text: "streaming\n",
				signal: "SIGTERM",
				guardMs: HANG_GUARD_MS,
			},
		);
		expect(run.code).toBe(143);
		expect(server.closedByClient).toHaveLength(1);
		expect(conversation(file).map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(conversation(file)[1]).toMatchObject({
			stopReason: "aborted",
			content: [
				{ type: "thinking", thinking: "The user wants a long story." },
				{ type: "text", text: "Once upon a time" },
			],
		});

		server.reply(chatReply([{ type: "text", text: "A shorter one, then." }]));
		const resumed = await runSettleAsync(["--session", file, "--model", "local/coder", "-p", "shorter please"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect({ code: resumed.code, stdout: resumed.stdout }).toEqual({ code: 0, stdout: "A shorter one, then.\n" });
		const sent = (server.requests[1]!.body.messages as SentMessage[]).filter((m) => m.role === "user");
		expect(sent.map((m) => (m.content as { text: string }[]).map((part) => part.text).join(""))).toEqual([
			"write a very long story",
			"shorter please",
		]);
		expect(conversation(file).map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
	});
});

describe("codex#42717, codex#7985: interrupting a turn left the shell command and what it spawned running", () => {
	const server = useWireServer(refuseUnansweredToolCalls);
	beforeEach(() => writeLocalProvider(cli.agentDir, `${server.url}/v1`));

	it("codex#7985: Ctrl+C (SIGINT) to settle -p while a bash call keeps spawning children: exit 130, none of its processes left, the call answered in the file, the next run answered", async () => {
		const file = join(cli.project, "interrupted.jsonl");
		// A crawler-like command: a background loop that keeps starting long children, plus the
		// marked sleep whose `ready` says every kind of process it makes is running.
		const command = `export ${marker}=1; (while :; do sleep 300 & sleep 0.05; done) & ${markedSleepCommand(marker, 300)}`;
		server.reply(
			chatReply([{ type: "tool_call", id: "call_crawl", name: "bash", arguments: { command } }], {
				finishReason: "tool_calls",
			}),
		);
		const cue = cueExtension(
			"running",
			"tool_execution_update",
			`event.partialResult.content[0]?.text?.includes("ready")`,
			"running",
		);
		const run = await signalSettleWhen(
			["--session", file, "--model", "local/coder", "-e", cue, "-p", "crawl the site"],
			{
				cwd: cli.project,
				agentDir: cli.agentDir,
				stream: "stderr",
				text: "running\n",
				signal: "SIGINT",
				guardMs: HANG_GUARD_MS,
			},
		);
		expect(run.code).toBe(130);
		// Nothing of the command outlives settle (read after it exited, no waiting).
		expect(markedProcesses(marker)).toEqual([]);
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		expect(fileMessages(file).find((message) => message.role === "toolResult")).toMatchObject({
			toolCallId: "call_crawl",
			isError: true,
			content: [{ type: "text", text: expect.stringMatching(/^ready\n[\s\S]*Command aborted$/) }],
		});

		server.reply(chatReply([{ type: "text", text: "Stopped; starting over." }]));
		const resumed = await runSettleAsync(["--session", file, "--model", "local/coder", "-p", "go on"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect({ code: resumed.code, stdout: resumed.stdout }).toEqual({ code: 0, stdout: "Stopped; starting over.\n" });
		expect(server.requests).toHaveLength(2);
	});
});

describe("letta-code#3023: a one-shot headless run ignored SIGINT; a tool call streamed after it still ran", () => {
	const server = useWireServer(refuseUnansweredToolCalls);
	beforeEach(() => writeLocalProvider(cli.agentDir, `${server.url}/v1`));

	it("letta-code#3023: SIGINT to settle -p while the model streams a bash call (its arguments whole, the stream still open): exit 130, the command never runs, no second request; the next run is answered", async () => {
		const file = join(cli.project, "interrupted.jsonl");
		const ran = join(cli.project, "side-effect");
		// Every argument is sent, then the stream stays open: the call is complete but the answer is not.
		server.reply(
			chatPartial(
				[{ type: "tool_call", id: "call_late", name: "bash", arguments: { command: `touch ${ran}` } }],
				4,
				"hang",
			),
		);
		const cue = cueExtension(
			"streamed",
			"message_update",
			`event.assistantMessageEvent.type === "toolcall_delta" && event.message.content.some((part) => part.type === "toolCall" && part.arguments?.command)`,
			"streamed",
		);
		const run = await signalSettleWhen(["--session", file, "--model", "local/coder", "-e", cue, "-p", "clean up"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			stream: "stderr",
			text: "streamed\n",
			signal: "SIGINT",
			guardMs: HANG_GUARD_MS,
		});
		expect(run.code).toBe(130);
		expect(run.stderr.endsWith("streamed\nRequest was aborted\n")).toBe(true);
		// The call came after the interrupt's abort had begun: it never runs, and no request follows.
		expect(existsSync(ran)).toBe(false);
		expect(server.requests).toHaveLength(1);
		expect(server.closedByClient).toHaveLength(1);
		expect(conversation(file).map((message) => [message.role, message.stopReason])).toEqual([
			["user", undefined],
			["assistant", "aborted"],
		]);

		// The cut call is not sent as one awaiting a result (OpenAI refuses that): the next run is answered.
		server.reply(chatReply([{ type: "text", text: "Left it alone." }]));
		const next = await runSettleAsync(["--session", file, "--model", "local/coder", "-p", "never mind"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect({ code: next.code, stdout: next.stdout }).toEqual({ code: 0, stdout: "Left it alone.\n" });
		expect(existsSync(ran)).toBe(false);
	});
});

describe("oh-my-pi#860: Ctrl+C exited before an extension's child (an LSP server) was shut down", () => {
	const server = useWireServer();
	beforeEach(() => writeLocalProvider(cli.agentDir, `${server.url}/v1`));

	it("oh-my-pi#860: SIGINT to settle -p mid-answer: the extension's session_shutdown gets to finish its server's shutdown handshake (request, reply, exit) before settle exits 130; no server left", async () => {
		// The server as an LSP one: it answers "shutdown" and then exits on "exit"; when its stdin
		// ends first (its parent gone mid-handshake), it lives on.
		const serverScript = `export ${marker}=1; read request; echo "ack $request"; read confirm; [ "$confirm" = exit ] && exit 0; exec sleep 300`;
		const extension = join(cli.dir, "language-server.mjs");
		writeFileSync(
			extension,
			`import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
export default function (pi) {
	let child;
	pi.on("session_start", () => {
		child = spawn("sh", ["-c", ${JSON.stringify(serverScript)}], { stdio: ["pipe", "pipe", "ignore"] });
	});
	let said = false;
	pi.on("message_update", () => {
		if (!said) process.stderr.write("streaming\\n");
		said = true;
	});
	pi.on("session_shutdown", async () => {
		const lines = createInterface({ input: child.stdout });
		const exited = once(child, "exit");
		child.stdin.write("shutdown\\n");
		const [reply] = await once(lines, "line");
		child.stdin.write("exit\\n");
		await exited;
		process.stderr.write(reply + ", server exited\\n");
	});
}
`,
		);
		server.reply(chatPartial([{ type: "text", text: "A long answer that goes on" }], 3, "hang"));
		const run = await signalSettleWhen(["--no-session", "--model", "local/coder", "-e", extension, "-p", "explain"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			stream: "stderr",
			text: "streaming\n",
			signal: "SIGINT",
			guardMs: HANG_GUARD_MS,
		});
		expect(run.code).toBe(130);
		expect(run.stderr).toContain("ack shutdown, server exited\n");
		// Read after settle exited, no waiting.
		expect(markedProcesses(marker)).toEqual([]);
	});
});

describe("pi#3747: a killed interactive session exited 0, like a clean quit", () => {
	it("pi#3747: settle -i waiting for input: SIGTERM exits 143; end of input exits 0", async () => {
		const killed = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await killed.idle(0);
		killed.child.kill("SIGTERM");
		expect(await killed.exited).toBe(143);

		const quit = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await quit.idle(0);
		expect(await quit.end()).toBe(0);
	});
});
