/**
 * genesis-kit#15 (an MCP server exiting at stdin's end with a response still queued): the same
 * through `settle --rpc` whose stdin ends right after a `get_state`.
 *
 * command-code#700, replayed: an orchestrator read `command-code -p --output-format json` through a
 * pipe; the CLI wrote its final `result` line and called `process.exit()` at once, so a line the
 * pipe could not take yet was dropped, exit 0. Against Settle: a real `settle -p` and
 * `settle --mode json -p` writing into a pipe already full (another writer filled it: the reader
 * is behind), read only once the session has shut down: the answer, and every JSON line, arrive.
 * Settle waited only when more than the stream's high-water mark (16 KB) was queued: a short last
 * write behind a full pipe was lost, the whole answer with it.
 *
 * kimi-code#1897, replayed: a bridge read `kimi --output-format stream-json --prompt …` through a
 * pipe; on a signal the headless mode cleaned up, then called `process.exit()` with the last lines
 * still queued for the slow pipe: the stream ended without its final lines (cut mid-line too).
 * Against Settle: a real `settle --mode json -p` and `settle --rpc`, each sent SIGTERM mid-answer
 * while their reader reads nothing (it starts only once the session has shut down): every line
 * written after the signal still arrives whole, `agent_settled` last, exit 143.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
	type CliRun,
	cliCommand,
	ROOT,
	runSettleStalledReader,
	useCliProject,
	writeLocalProvider,
} from "../cli/helpers.js";
import { makeDiffDirs, writeScript } from "../cli/pi-diff-process.js";
import { chatPartial } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-signal-slow-reader-");

/** A guard against a hang only: a hung run is killed, its code null. */
const HANG_GUARD_MS = 30_000;

/** Says on stderr when the answer streams and when the session has shut down. */
const MARKER_EXTENSION = `export default function (pi) {
	let said = false;
	pi.on("message_update", () => {
		if (!said) process.stderr.write("streaming\\n");
		said = true;
	});
	pi.on("session_shutdown", () => {
		process.stderr.write("shutdown-done\\n");
	});
}
`;

/** Larger than a pipe or socket buffer holds: the lines after the signal cannot all be taken at once. */
const ANSWER = "r".repeat(1_000_000);

interface SignalledRun {
	code: number | null;
	lines: string[];
	stderr: string;
}

/**
 * Runs settle with `args`, its stdout read only after `shutdown-done` (or never); SIGTERM once
 * the answer streams (`input`, when given, is written to stdin first).
 */
async function runSignalledWithStalledReader(
	args: string[],
	input?: string,
	{ neverRead = false, chat = false } = {},
): Promise<SignalledRun> {
	const extension = join(cli.dir, "markers.mjs");
	writeFileSync(extension, MARKER_EXTENSION);
	const { code, stdout, stderr } = await runSettleStalledReader(["--model", "local/coder", "-e", extension, ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		input,
		signal: { name: "SIGTERM", after: "streaming\n" },
		...(neverRead ? {} : { readAfter: "shutdown-done\n" }),
		guardMs: HANG_GUARD_MS,
	});
	if (neverRead) return { code, lines: [], stderr };
	// The chat's output ends with its prompt ("> "), not a newline.
	if (chat) return { code, lines: stdout.split("\n"), stderr };
	expect(stdout.endsWith("\n"), `stdout ends mid-line: …${stdout.slice(-80)}`).toBe(true);
	return { code, lines: stdout.trimEnd().split("\n"), stderr };
}

/**
 * For a describe block: each test's model is a local server whose answer (ANSWER) streams in full,
 * then the stream stays open: the run is mid-answer for good.
 */
function useMidAnswerServer(): void {
	const server = useWireServer();
	beforeEach(() => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(chatPartial([{ type: "text", text: ANSWER }], 3, "hang"));
	});
}

describe("kimi-code#1897: a signal while the reader lags dropped the stream's last lines", () => {
	useMidAnswerServer();

	it("kimi-code#1897: settle --mode json -p sent SIGTERM mid-answer, its reader stalled until the session shut down: every line arrives whole, agent_end (aborted, with the partial answer) then agent_settled last, exit 143", async () => {
		const run = await runSignalledWithStalledReader(["--no-session", "--mode", "json", "-p", "write the report"]);
		expect(run.code).toBe(143);
		const events = run.lines.map(
			(line) =>
				JSON.parse(line) as { type: string; messages?: { role: string; stopReason?: string; content?: unknown }[] },
		);
		expect(events.slice(-2).map((event) => event.type)).toEqual(["agent_end", "agent_settled"]);
		const answer = events.at(-2)!.messages!.at(-1)!;
		expect([answer.role, answer.stopReason]).toEqual(["assistant", "aborted"]);
		// Cut after the first half or the whole text, as the signal landed: the streamed text, whole.
		const [part] = answer.content as { type: string; text: string }[];
		expect([ANSWER.slice(0, ANSWER.length / 2), ANSWER]).toContain(part!.text);
		expect(run.stderr).not.toContain("stdout's reader");
	});

	it("kimi-code#1897: settle --rpc sent SIGTERM mid-answer (stdin still open), its reader stalled until the session shut down: the prompt's response, then every event line whole, agent_settled last, exit 143", async () => {
		const run = await runSignalledWithStalledReader(
			["--no-session", "--mode", "rpc"],
			`${JSON.stringify({ id: "p1", type: "prompt", message: "write the report" })}\n`,
		);
		expect(run.code).toBe(143);
		const lines = run.lines.map(
			(line) => JSON.parse(line) as { type: string; id?: string; messages?: { stopReason?: string }[] },
		);
		expect(lines.find((line) => line.type === "response")?.id).toBe("p1");
		expect(lines.slice(-2).map((line) => line.type)).toEqual(["agent_end", "agent_settled"]);
		expect(lines.at(-2)!.messages!.at(-1)!.stopReason).toBe("aborted");
	});

	it("kimi-code#1897: a reader that never reads again does not keep the signalled process alive: exit 143, stderr says the rest of the output was left unread", async () => {
		const run = await runSignalledWithStalledReader(
			["--no-session", "--mode", "json", "-p", "write the report"],
			undefined,
			{
				neverRead: true,
			},
		);
		expect(run.code).toBe(143);
		expect(run.stderr).toContain("settle: stdout's reader took no more output within 2 s; exiting without the rest.\n");
	});
});

describe("exits that dropped what a stalled reader had not taken yet (the chat's signal exit, an uncaught error)", () => {
	useMidAnswerServer();

	it("kimi-code#1897: settle -i (the chat, its output piped) sent SIGTERM mid-answer, its reader stalled until the session shut down: the streamed answer and the abort's notice arrive, exit 143", async () => {
		const run = await runSignalledWithStalledReader(["--no-session", "-i"], "write the report\n", { chat: true });
		expect(run.code).toBe(143);
		const stdout = run.lines.join("\n");
		expect(stdout).toContain(ANSWER.slice(0, ANSWER.length / 2));
		// What the chat printed after the abort, behind the answer, arrives too.
		expect(stdout).toContain("\nAborted.\n");
		expect(run.stderr).not.toContain("stdout's reader");
	});

	/** settle --mode json -p whose extension leaves a rejection no extension owns once the answer streams; stdout read once it was reported (or never). */
	function runWithUncaughtRejection(neverRead: boolean): Promise<CliRun> {
		const extension = join(cli.dir, "rejects.mjs");
		// A string has no stack naming this file: the process's error, not the extension's.
		writeFileSync(
			extension,
			`export default function (pi) {
	let said = false;
	pi.on("message_update", () => {
		if (said) return;
		said = true;
		setTimeout(() => Promise.reject("boom: nobody awaited this"));
	});
}
`,
		);
		// The reader catches up only once the error was reported.
		return runSettleStalledReader(
			["--model", "local/coder", "-e", extension, "--no-session", "--mode", "json", "-p", "go"],
			{ cwd: cli.project, agentDir: cli.agentDir, ...(neverRead ? {} : { readAfter: "boom" }), guardMs: HANG_GUARD_MS },
		);
	}

	it("an uncaught error (a rejection no extension owns) while the reader lags: its stack on stderr, then every queued JSON line arrives whole, exit 1", async () => {
		const { code, stdout, stderr } = await runWithUncaughtRejection(false);
		expect(code).toBe(1);
		expect(stderr).toContain("boom: nobody awaited this\n");
		expect(stdout.endsWith("\n"), `stdout ends mid-line: …${stdout.slice(-80)}`).toBe(true);
		const events = stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string });
		expect(events[0]!.type).toBe("session");
		expect(events.some((event) => event.type === "message_update")).toBe(true);
	});

	it("an uncaught error whose stdout reader never reads again: the process still ends, exit 1, stderr says the rest was left unread", async () => {
		const { code, stderr } = await runWithUncaughtRejection(true);
		expect(code).toBe(1);
		expect(stderr).toContain("settle: stdout's reader took no more output within 2 s; exiting without the rest.\n");
	});
});

/** Tells the reader through the FIFO `ready.fifo` that the session has shut down. */
const READY_EXTENSION = `import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_shutdown", () => {
		writeFileSync("ready.fifo", "go\\n");
	});
}
`;

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/** A line as long as a Linux pipe holds (64 KiB): the pipe is full before settle writes. */
const FILLER = `${"f".repeat(65_535)}\n`;

/**
 * `settle --faux -e <ready> <args>` (stdin: `stdin`, or none) after FILLER in one pipe, read by
 * bash only once the session shut down; returns settle's exit code and what the reader got after
 * FILLER. `peer`: pi 0.73.1's CLI (test/cli/pi-diff-peer.mjs) in its own project instead.
 */
function runBehindFullPipe(
	args: string[],
	stdin?: string,
	peer?: { project: string; env: Record<string, string> },
): { code: string; stdout: string } {
	const project = peer?.project ?? cli.project;
	if (stdin !== undefined) writeFileSync(join(project, "commands.jsonl"), stdin);
	const extension = join(project, "ready.mjs");
	writeFileSync(extension, READY_EXTENSION);
	expect(spawnSync("mkfifo", [join(project, "ready.fifo")]).status).toBe(0);
	const command = peer ? [join(ROOT, "test/cli/pi-diff-peer.mjs")] : [...cliCommand(), "--faux"];
	const settle = [process.execPath, ...command, "--no-session", "-e", extension, ...args].map(quote).join(" ");
	const run = spawnSync(
		"bash",
		[
			"-c",
			`{ head -c 65535 /dev/zero | tr '\\0' f; echo; exec ${settle} <${stdin === undefined ? "/dev/null" : "commands.jsonl"}; } | { read -r _ <ready.fifo; cat >out.txt; }; echo "\${PIPESTATUS[0]}" >status`,
		],
		{
			cwd: project,
			env: peer ? peer.env : { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
			encoding: "utf8",
			timeout: HANG_GUARD_MS,
		},
	);
	expect(run.status).toBe(0);
	const out = readFileSync(join(project, "out.txt"), "utf8");
	expect(out.startsWith(FILLER)).toBe(true);
	return { code: readFileSync(join(project, "status"), "utf8").trim(), stdout: out.slice(FILLER.length) };
}

describe("command-code#700: -p exits right after its last write; a line the pipe has not taken is lost", () => {
	it("command-code#700: settle -p behind a full pipe, read once the session shut down: the answer arrives, exit 0", () => {
		const run = runBehindFullPipe(["-p", "say hi"]);
		expect(run).toEqual({ code: "0", stdout: "say hi\n" });
	});

	it("command-code#700: settle --mode json -p behind a full pipe: every line arrives whole, agent_settled last, exit 0", () => {
		const run = runBehindFullPipe(["--mode", "json", "-p", "say hi"]);
		expect(run.code).toBe("0");
		expect(run.stdout.endsWith("\n")).toBe(true);
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string });
		expect(events[0]!.type).toBe("session");
		expect(events.at(-1)!.type).toBe("agent_settled");
	});

	it("command-code#700 (pi-peer): pi 0.73.1 -p and --mode json -p behind a full pipe deliver the answer and every line, exit 0", () => {
		for (const [name, args] of [
			["text", ["-p", "say hi"]],
			["json", ["--mode", "json", "-p", "say hi"]],
		] as const) {
			const dirs = makeDiffDirs(join(cli.dir, `pi-${name}`));
			const script = writeScript(dirs, ["the answer"]);
			const env = {
				PATH: process.env.PATH ?? "/usr/bin:/bin",
				HOME: dirs.home,
				LANG: "C.UTF-8",
				PI_CODING_AGENT_DIR: dirs.piAgent,
				PI_OFFLINE: "1",
				PI_SKIP_VERSION_CHECK: "1",
				PI_DIFF_SCRIPT: script,
			};
			const run = runBehindFullPipe([...args], undefined, { project: dirs.project, env });
			expect(run.code).toBe("0");
			if (name === "text") expect(run.stdout).toBe("the answer\n");
			else {
				const events = run.stdout
					.trimEnd()
					.split("\n")
					.map((line) => JSON.parse(line) as { type: string });
				expect([events[0]!.type, events.at(-1)!.type]).toEqual(["session", "agent_end"]);
			}
		}
	});
});

describe("the chat's own exits (stdin's end as Ctrl+D, /quit) behind a full pipe", () => {
	it("settle -i whose input ends (Ctrl+D) or says /quit, behind a full pipe read once the session shut down: the answer arrives, exit 0", () => {
		for (const input of ["say hi\n", "say hi\n/quit\n"]) {
			const run = runBehindFullPipe(["-i"], input);
			expect(run.code).toBe("0");
			expect(run.stdout).toContain("\nsay hi\n");
			rmSync(join(cli.project, "ready.fifo"));
		}
	});
});

describe("genesis-kit#15: a stdio server exiting at the end of stdin drops the response still queued", () => {
	it("genesis-kit#15: settle --rpc whose stdin ends right after get_state, behind a full pipe: the response arrives whole, exit 0", () => {
		const run = runBehindFullPipe(["--rpc"], `${JSON.stringify({ id: "s", type: "get_state" })}\n`);
		expect(run.code).toBe("0");
		const lines = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; id?: string; success?: boolean });
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatchObject({ type: "response", id: "s", success: true });
	});
});
