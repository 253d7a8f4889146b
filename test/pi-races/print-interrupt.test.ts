/**
 * gemini-cli#11479, replayed: Ctrl+C in a non-interactive run was not respected: the answer went on
 * streaming onto the terminal after several presses. Against Settle: a real `settle -p` and
 * `settle --mode json -p` sent one SIGINT (what the terminal sends on Ctrl+C) while the answer
 * streams from a local server whose stream stays open: the request is cut (the server sees its
 * connection closed), nothing is written after the run's end (`-p` prints no partial answer as if
 * it were one; stderr says the request was aborted), and the process exits 130.
 *
 * gemini-cli#11223 / codex#4721, replayed: Ctrl+C during a retry's backoff did not stop the retry
 * flow (the wait ran out and the request went again), and `codex exec` exited 0. Against Settle: a
 * real `settle -p` sent SIGINT in a 60 s backoff after a 503 exits 130 at once, with no second request,
 * and its stderr ends saying the retry was aborted (it ended on "Retrying in 60.0 s", as if the retry
 * were still coming).
 *
 * antigravity-cli#1018, replayed: a headless run stopped while it retried (its print timeout)
 * exited 0 with the partial output, though the prompt got no answer. Against Settle: `settle -p`
 * whose extension stops the run in the backoff (`ctx.abort()`) after a tool turn that wrote a
 * preamble exits 1, prints no answer (the preamble is not one) and says the retry was aborted;
 * `--mode json` exits 1 too.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type CliRun, runSettleAsync, signalSettleWhen, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { slowProvider } from "../cli/slow-provider.js";
import { chatPartial } from "../llm/wire/openai.js";
import { json, useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-print-interrupt-");

/** A guard against a hang only: a hung run is killed, its code null. */
const HANG_GUARD_MS = 30_000;

/** Says on stderr when the answer streams. */
const STREAMING_EXTENSION = `export default function (pi) {
	let said = false;
	pi.on("message_update", () => {
		if (!said) process.stderr.write("streaming\\n");
		said = true;
	});
}
`;

/** The lines a `--mode json` run wrote, parsed. */
function jsonEvents(stdout: string): { type: string; messages?: { stopReason?: string }[] }[] {
	return stdout
		.trimEnd()
		.split("\n")
		.map((line) => JSON.parse(line));
}

/** The last two lines of a `--mode json` run whose retry was cancelled in its backoff. */
const RETRY_CANCELLED_LAST = [
	{ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
	{ type: "agent_settled" },
];

/** `settle <args>` on the local model, sent one SIGINT once the answer streams. */
function interruptWhileStreaming(args: string[]): Promise<CliRun> {
	const extension = join(cli.dir, "streaming.mjs");
	writeFileSync(extension, STREAMING_EXTENSION);
	return signalSettleWhen(["--model", "local/coder", "--no-session", "-e", extension, ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		stream: "stderr",
		text: "streaming\n",
		signal: "SIGINT",
		guardMs: HANG_GUARD_MS,
	});
}

describe("gemini-cli#11479: Ctrl+C in a non-interactive run was not respected; the answer kept streaming", () => {
	const server = useWireServer();
	beforeEach(() => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// The answer streams, then the stream stays open: only an interrupt ends the run.
		server.reply(chatPartial([{ type: "text", text: "A story that goes on and on" }], 3, "hang"));
	});

	it("gemini-cli#11479: settle --mode json -p, one SIGINT while the answer streams: the request is cut, agent_end (aborted) then agent_settled are the last lines, exit 130", async () => {
		const run = await interruptWhileStreaming(["--mode", "json", "-p", "write a very long story"]);
		expect(run.code).toBe(130);
		expect(server.closedByClient).toHaveLength(1);
		const events = jsonEvents(run.stdout);
		expect(events.slice(-2).map((event) => event.type)).toEqual(["agent_end", "agent_settled"]);
		expect(events.at(-2)!.messages!.at(-1)!.stopReason).toBe("aborted");
	});

	it("gemini-cli#11479: settle -p, one SIGINT while the answer streams: the request is cut, nothing on stdout, stderr says the request was aborted, exit 130", async () => {
		const run = await interruptWhileStreaming(["-p", "write a very long story"]);
		expect(run.code).toBe(130);
		expect(server.closedByClient).toHaveLength(1);
		// The partial answer is not printed as if it were the answer; stderr says why there is none.
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe("streaming\nRequest was aborted\n");
	});
});

/** Answers a retried request, which must not be sent: it would fail the run at once. */
const NOT_EXPECTED = json(500, { error: { message: "a retried request was sent" } });

describe("gemini-cli#11223 / codex#4721: Ctrl+C during a retry's backoff did not stop the retry; exec exited 0", () => {
	const server = useWireServer();
	beforeEach(() => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// A 60 s backoff: only the interrupt can end the wait within the test's time.
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ retry: { baseDelayMs: 60_000, provider: { maxRetries: 0 } } }),
		);
		server.reply(json(503, { error: { message: "overloaded", type: "server_error" } }), NOT_EXPECTED);
	});

	/** `settle <args>` on the local model, sent one SIGINT once `stream` says the backoff started. */
	function interruptInBackoff(args: string[], stream: "stdout" | "stderr", text: string): Promise<CliRun> {
		return signalSettleWhen(["--model", "local/coder", "--no-session", ...args], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			stream,
			text,
			signal: "SIGINT",
			guardMs: HANG_GUARD_MS,
		});
	}

	it("gemini-cli#11223: settle -p, SIGINT in the 60 s backoff: exit 130 at once, no retried request, stderr ends saying the retry was aborted", async () => {
		const run = await interruptInBackoff(["-p", "hello"], "stderr", "Retrying in");
		expect(run.code).toBe(130);
		expect(server.requests).toHaveLength(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe("Retrying in 60.0 s, attempt 1/3: 503 overloaded\nAborted after 1 retry attempt.\n");
	});

	it("gemini-cli#11223: settle -p, SIGINT while the retried request streams: the abort is said once, as the answer's (Request was aborted)", async () => {
		// An extension's provider: a 503, then a retried answer that streams until it is aborted.
		const flaky = join(cli.dir, "flaky.ts");
		writeFileSync(
			flaky,
			slowProvider({ name: "flaky", failFirstWith: "503 service unavailable", holdsConnection: true }),
		);
		const streaming = join(cli.dir, "streaming.mjs");
		writeFileSync(streaming, STREAMING_EXTENSION);
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const run = await signalSettleWhen(
			["-e", flaky, "-e", streaming, "--model", "flaky/flaky-1", "--no-session", "-p", "go"],
			{
				cwd: cli.project,
				agentDir: cli.agentDir,
				stream: "stderr",
				text: "streaming\n",
				signal: "SIGINT",
				guardMs: HANG_GUARD_MS,
			},
		);
		expect(run.code).toBe(130);
		expect(run.stderr).toBe(
			"Retrying in 0.0 s, attempt 1/3: 503 service unavailable\nstreaming\nRequest was aborted\n",
		);
	});

	it("codex#4721: settle --mode json -p, SIGINT in the backoff: exit 130, auto_retry_end (Retry cancelled) then agent_settled are the last lines", async () => {
		const run = await interruptInBackoff(["--mode", "json", "-p", "hello"], "stdout", '"auto_retry_start"');
		expect(run.code).toBe(130);
		expect(server.requests).toHaveLength(1);
		expect(jsonEvents(run.stdout).slice(-2)).toEqual(RETRY_CANCELLED_LAST);
	});
});

/** Stops the run once its retry's backoff has begun (a budget guard that will not wait on an overloaded provider). */
const GIVE_UP_EXTENSION = `export default function (pi) {
	pi.on("agent_end", (event, ctx) => {
		if (event.willRetry) setTimeout(() => ctx.abort(), 100);
	});
}
`;

describe("antigravity-cli#1018: a headless run stopped while retrying exited 0 with partial output", () => {
	beforeEach(() => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 60_000 } }));
	});

	/** A faux script: a preamble and a bash call, then a 503 (retried after 60 s), then an answer. */
	function preambleThen503(): string {
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{ text: "Let me check the files first.", toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] },
				{ stopReason: "error", errorMessage: "503 overloaded" },
				"never asked",
			]),
		);
		return script;
	}

	/** `settle <args>` on {@link preambleThen503}, the extension stopping the run in the backoff. */
	function stoppedInBackoff(args: string[]): Promise<CliRun> {
		const extension = join(cli.dir, "give-up.mjs");
		writeFileSync(extension, GIVE_UP_EXTENSION);
		return runSettleAsync(["--approve", "--faux-script", preambleThen503(), "--no-session", "-e", extension, ...args], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
	}

	it("antigravity-cli#1018: settle -p, SIGINT in that backoff: exit 130, and the preamble is not printed as the answer", async () => {
		const run = await signalSettleWhen(["--approve", "--faux-script", preambleThen503(), "--no-session", "-p", "go"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			stream: "stderr",
			text: "Retrying in",
			signal: "SIGINT",
			guardMs: HANG_GUARD_MS,
		});
		expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 130, stdout: "" });
	});

	it("antigravity-cli#1018: settle -p, the retry stopped in its backoff: exit 1, no answer on stdout (not the preamble), stderr says the retry was aborted", async () => {
		const run = await stoppedInBackoff(["-p", "check the files"]);
		expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: "" });
		expect(run.stderr).toBe("Retrying in 60.0 s, attempt 1/3: 503 overloaded\nAborted after 1 retry attempt.\n");
	});

	it("antigravity-cli#1018: settle --mode json -p, the retry stopped in its backoff: exit 1, auto_retry_end (Retry cancelled) then agent_settled last", async () => {
		const run = await stoppedInBackoff(["--mode", "json", "-p", "check the files"]);
		expect(run.code).toBe(1);
		expect(jsonEvents(run.stdout).slice(-2)).toEqual(RETRY_CANCELLED_LAST);
	});
});

describe("settle -p: Ctrl+C during threshold auto-compaction after a complete answer", () => {
	it("settle -p, SIGINT while the threshold compaction after the answer runs: exit 130 with the answer, stderr says the compaction was cancelled and the session is unchanged; the file holds the answer and no compaction", async () => {
		// faux-1's window is 128000; the reserve is capped at half of it, so the ~66000-token answer is over the threshold.
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ compaction: { reserveTokens: 124_000, keepRecentTokens: 1 } }),
		);
		const script = join(cli.dir, "script.json");
		writeFileSync(script, JSON.stringify(["y".repeat(264_000)]));
		// Holds the compaction until it is aborted, saying on stderr that it runs.
		const extension = join(cli.dir, "hold-compaction.mjs");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("session_before_compact", async (event) => {
		process.stderr.write("compacting\\n");
		const alive = setInterval(() => {}, 1000);
		await new Promise((resolve) => event.signal.addEventListener("abort", resolve));
		clearInterval(alive);
		return undefined;
	});
}
`,
		);
		const run = await signalSettleWhen(["--faux-script", script, "-e", extension, "-p", "write a lot"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			stream: "stderr",
			text: "compacting\n",
			signal: "SIGINT",
			guardMs: HANG_GUARD_MS,
		});
		expect(run.code).toBe(130);
		expect(run.stdout).toBe(`${"y".repeat(264_000)}\n`);
		expect(run.stderr).toBe(
			"compacting\nCompaction (threshold) cancelled: the session is unchanged (the answer above is saved).\n",
		);
		const [sessionFile] = readdirSync(join(cli.agentDir, "sessions"), { recursive: true, encoding: "utf8" }).filter(
			(name) => name.endsWith(".jsonl"),
		);
		const entries = readFileSync(join(cli.agentDir, "sessions", sessionFile!), "utf8")
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string; stopReason?: string } });
		// Nothing of the compaction was written: the answer is the file's last entry.
		expect(entries.at(-1)?.message).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(entries.filter((entry) => entry.type === "compaction")).toEqual([]);
		expect(
			entries
				.filter((entry) => entry.type === "message")
				.map((entry) => `${entry.message?.role} ${entry.message?.stopReason ?? ""}`.trim()),
		).toEqual(["system", "user", "assistant stop"]);
	});
});
