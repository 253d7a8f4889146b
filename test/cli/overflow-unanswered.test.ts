/**
 * A prompt whose request overflows the context ("prompt is too long") when overflow recovery
 * cannot compact (nothing to compact: all of it is within `compaction.keepRecentTokens`; or the
 * summary request fails): the failed response is edited out of the context and nothing re-runs, so
 * the prompt got no answer. pi 0.73.1's print mode then prints nothing and exits 0; Settle names
 * what happened on stderr and exits 1, and `--json` / `--rpc` end with an `agent_settled` whose
 * `errorMessage` says so. Real `settle` processes on the scripted faux model; pi as a real peer.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// pi's session store alone (the package index would load all of pi, ~1.5 s of CPU in this worker).
import { SessionManager as piSessionManager } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";
import { RpcClient } from "../../src/rpc/index.js";
import { cliCommand, runSettle, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";
import { makeDiffDirs, runPiCli } from "./pi-diff-process.js";

const cli = useCliProject("settle-overflow-");

const OVERFLOW = { stopReason: "error", errorMessage: "prompt is too long: 250000 tokens > 200000 maximum" };
const UNANSWERED =
	"The prompt got no answer: the context is too long for the model (prompt is too long: 250000 tokens > 200000 maximum)";
const NOTHING = "there is nothing to compact (all of it is within compaction.keepRecentTokens)";

function script(steps: unknown[]): string {
	const file = join(cli.dir, `script-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

const settle = (args: string[]) => runSettle(args, { cwd: cli.project, agentDir: cli.agentDir, timeoutMs: 60_000 });

function jsonLines(stdout: string): Record<string, unknown>[] {
	return stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("settle -p: an overflow that compaction cannot recover", () => {
	it("regression: a fresh session's overflow printed nothing and exited 0; now stderr names it and exit 1", () => {
		const run = settle(["--faux-script", script([OVERFLOW]), "--no-session", "-p", "hello"]);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(`Error: ${UNANSWERED} and ${NOTHING}.`);
		expect(run.stderr).toContain(
			"The prompt is left out of the context (the session history keeps it): send it again shorter or with less attached, or switch to a model with a larger context window first.",
		);
		expect(run.code).toBe(1);
	});

	it("regression: a continued session (--session <file>) exits 1 too, and its file keeps every entry", () => {
		const file = join(cli.dir, "state.jsonl");
		const first = settle(["--faux-script", script(["first answer"]), "--session", file, "-p", "first"]);
		expect([first.code, first.stdout]).toEqual([0, "first answer\n"]);

		const named = settle(["--faux-script", script([OVERFLOW]), "--session", file, "-p", "third"]);
		expect([named.code, named.stdout]).toEqual([1, ""]);
		expect(named.stderr).toContain(`${UNANSWERED} and ${NOTHING}.`);
		const entries = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
		const texts = entries
			.filter((entry) => entry.type === "message" && entry.message.role !== "system")
			.map((entry) => [entry.message.role, entry.message.stopReason ?? null]);
		// The overflow answer stays in the log (edited out of the context by a context_edit).
		expect(texts).toEqual([
			["user", null],
			["assistant", "stop"],
			["user", null],
			["assistant", "error"],
		]);
		expect(entries.at(-1).type).toBe("context_edit");
	});

	it("regression: -c on the session just written exits 1 with the message", () => {
		const first = settle(["--faux-script", script(["first answer"]), "-p", "first"]);
		expect(first.code).toBe(0);
		const second = settle(["--faux-script", script([OVERFLOW]), "-c", "-p", "second"]);
		expect([second.code, second.stdout]).toEqual([1, ""]);
		expect(second.stderr).toContain(`${UNANSWERED} and ${NOTHING}.`);
	});

	it("a failed overflow compaction (the summary request fails) names the compaction's error and exits 1", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 20 } }));
		const steps = ["first answer", OVERFLOW, { stopReason: "error", errorMessage: "400 invalid request: bad summary" }];
		const run = settle([
			"--faux-script",
			script(steps),
			"--no-session",
			"-p",
			"first question",
			`second ${"x".repeat(400)}`,
		]);
		expect([run.code, run.stdout]).toEqual([1, ""]);
		expect(run.stderr).toContain(
			`${UNANSWERED} and compacting it failed (Context overflow recovery failed: Summarization failed: 400 invalid request: bad summary).`,
		);
	});

	it("an overflow compaction an extension's session_before_compact cancels: the error names the extension and what to do", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 20 } }));
		const extension = join(cli.dir, "no-compaction.mjs");
		writeFileSync(
			extension,
			'export default function (pi) { pi.on("session_before_compact", () => ({ cancel: true })); }\n',
		);
		const steps = ["first answer", OVERFLOW];
		const args = ["--faux-script", script(steps), "--no-session", "-e", extension];
		const cancelled = `${UNANSWERED} and its compaction was cancelled by the extension ${extension} (its session_before_compact handler returned { cancel: true }; to let it compact, change what that handler checks, or run without the extension).`;
		const run = settle([...args, "-p", "first question", `second ${"x".repeat(400)}`]);
		expect([run.code, run.stdout]).toEqual([1, ""]);
		expect(run.stderr).toContain(cancelled);
		const json = settle([...args, "--mode", "json", "-p", "first question", `second ${"x".repeat(400)}`]);
		const settled = jsonLines(json.stdout).filter((line) => line.type === "agent_settled");
		expect(String(settled.at(-1)?.errorMessage)).toContain(cancelled);
	});

	it("an answered prompt still prints and exits 0; an overflow answered after compaction is no failure", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 20 } }));
		const steps = ["first answer", OVERFLOW, "SUMMARY", "the retried answer"];
		const run = settle([
			"--faux-script",
			script(steps),
			"--no-session",
			"-p",
			"first question",
			`second ${"x".repeat(400)}`,
		]);
		expect([run.code, run.stdout, run.stderr]).toEqual([0, "the retried answer\n", ""]);
	});
});

/**
 * An extension's model with a small window, as a real provider behaves: it refuses any request
 * longer than 20000 characters with Anthropic's text, and answers the others with the last user
 * message and how many user messages the request carried.
 */
const SMALL_WINDOW_PROVIDER = `const usage = () => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
const text = (message) => typeof message.content === "string" ? message.content : message.content.filter((part) => part.type === "text").map((part) => part.text).join("");
export default function (pi) {
	pi.registerProvider("small", {
		baseUrl: "http://localhost:0",
		apiKey: "none",
		api: "small-api",
		models: [{ id: "small-1", name: "Small", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 200000, maxTokens: 1000 }],
		streamSimple: (model, context) => {
			const size = JSON.stringify(context.messages).length;
			const users = context.messages.filter((message) => message.role === "user");
			const base = { role: "assistant", api: model.api, provider: model.provider, model: model.id, usage: usage(), timestamp: Date.now() };
			const refused = size > 20000;
			const message = refused
				? { ...base, content: [], stopReason: "error", errorMessage: "prompt is too long: " + Math.ceil(size / 4) + " tokens > 5000 maximum" }
				: { ...base, content: [{ type: "text", text: "answered: " + text(users.at(-1)) + " (" + users.length + " user messages)" }], stopReason: "stop" };
			async function* events() {
				yield { type: "start", partial: { ...base, content: [], stopReason: "stop" } };
				yield refused ? { type: "error", reason: "error", error: message } : { type: "done", reason: "stop", message };
			}
			return { [Symbol.asyncIterator]: events, result: async () => message };
		},
	});
}
`;

describe("settle -p twice on one --session file: the prompt that overflowed is not sent again", () => {
	it("regression: the second, short prompt re-sent the huge one and got no answer either (exit 1 until /compact); now it is answered", () => {
		const extension = join(cli.dir, "small.ts");
		writeFileSync(extension, SMALL_WINDOW_PROVIDER);
		const file = join(cli.dir, "stuck.jsonl");
		const small = ["-e", extension, "--model", "small/small-1", "--session", file, "-p"];
		const huge = `summarize this log: ${"a line of a huge log; ".repeat(1500)}`;

		const first = settle([...small, "first"]);
		expect([first.code, first.stdout]).toEqual([0, "answered: first (1 user messages)\n"]);
		const refused = settle([...small, huge]);
		expect([refused.code, refused.stdout]).toEqual([1, ""]);
		expect(refused.stderr).toContain(
			"The prompt got no answer: the context is too long for the model (prompt is too long:",
		);
		expect(refused.stderr).toContain("The prompt is left out of the context");

		const second = settle([...small, "a short question"]);
		expect([second.code, second.stdout, second.stderr]).toEqual([
			0,
			"answered: a short question (2 user messages)\n",
			"",
		]);
		// The log keeps the huge prompt and its failed answer; context_edit entries take them out.
		const entries = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
		const hugeEntry = entries.find((entry) => entry.type === "message" && JSON.stringify(entry).includes("huge log"));
		const failed = entries.find((entry) => entry.type === "message" && entry.message.stopReason === "error");
		const omitted = entries.filter((entry) => entry.type === "context_edit").map((entry) => entry.targetId);
		expect(omitted.sort()).toEqual([hugeEntry.id, failed.id].sort());

		// DELIBERATE_UNANSWERED_REQUEST_OMITTED: pi 0.73.1 opens the file; its reader has no
		// context_edit, so it shows the overflowed request with its failed answer in the context.
		const piContext = piSessionManager.open(file).buildSessionContext().messages as {
			role: string;
			stopReason?: string;
		}[];
		// (Settle's recorded system prompt is a message there too: DELIBERATE_SYSTEM_MESSAGES.)
		expect(piContext.map((message) => message.stopReason ?? message.role)).toEqual([
			"system",
			"user",
			"stop",
			"user",
			"error",
			"user",
			"stop",
		]);
	});
});

describe("settle --json and --rpc: agent_settled says the prompt got no answer", () => {
	it("regression: --json ended with a bare agent_settled and exit 0; now agent_settled.errorMessage and exit 1", () => {
		const run = settle(["--faux-script", script([OVERFLOW]), "--no-session", "--json", "hello"]);
		const events = jsonLines(run.stdout);
		expect(events.at(-1)).toEqual({ type: "agent_settled", errorMessage: expect.stringContaining(UNANSWERED) });
		expect(events.at(-1)?.errorMessage).toContain(NOTHING);
		expect(run.code).toBe(1);

		const ok = settle(["--faux", "--no-session", "--json", "hello"]);
		expect([ok.code, jsonLines(ok.stdout).at(-1)]).toEqual([0, { type: "agent_settled" }]);
	});

	const clients: RpcClient[] = [];
	afterEach(async () => {
		await Promise.all(clients.splice(0).map((rpc) => rpc.stop()));
	});

	it("promptAndWait's last event is agent_settled with the errorMessage; the next prompt is answered", async () => {
		const rpc = new RpcClient({
			command: [process.execPath, ...cliCommand(), "--rpc"],
			cwd: cli.project,
			env: { SETTLE_AGENT_DIR: cli.agentDir },
			args: ["--faux-script", script([OVERFLOW]), "--no-session"],
		});
		clients.push(rpc);
		await rpc.start();
		const events = await rpc.promptAndWait("hello");
		const settled = events.at(-1) as { type: string; errorMessage?: string };
		expect(settled.type).toBe("agent_settled");
		expect(settled.errorMessage).toContain(`${UNANSWERED} and ${NOTHING}.`);
		const again = await rpc.promptAndWait("shorter");
		expect(again.at(-1)).toEqual({ type: "agent_settled" });
		expect(await rpc.getLastAssistantText()).toBe("shorter");
	});
});

describe("settle -i: the chat says the prompt got no answer and what to do", () => {
	it("after the provider's error line, then the next prompt is answered", async () => {
		const chat = new Repl(["--faux-script", script([OVERFLOW]), "--no-session", "hello"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const shown = await chat.idle(0, `${NOTHING}.`);
		expect(shown).toContain(`Error: ${OVERFLOW.errorMessage}\n${UNANSWERED} and ${NOTHING}.`);
		expect(await chat.say("shorter", "shorter\n")).not.toContain("got no answer");
		expect(await chat.end()).toBe(0);
	});
});

/** A tool call whose output makes the next request overflow (pi#8073's accumulated tool output). */
const TOOL_THEN_OVERFLOW = [{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 3" } }] }, OVERFLOW];

describe("pi#8073: print mode exits 0 with no output when the request after a tool's output overflows", () => {
	it("pi#8073: settle -p and --json, the overflow on the request after a tool result (nothing to compact): exit 1 naming it, no answer printed; the unanswered turn is left out of the context and the next prompt on the file is answered", () => {
		const file = join(cli.dir, "tool-overflow.jsonl");
		const run = settle(["--faux-script", script(TOOL_THEN_OVERFLOW), "--session", file, "-p", "read the logs"]);
		expect([run.code, run.stdout]).toEqual([1, ""]);
		expect(run.stderr).toContain(`Error: ${UNANSWERED} and ${NOTHING}.`);

		const json = settle(["--faux-script", script(TOOL_THEN_OVERFLOW), "--no-session", "--json", "read the logs"]);
		expect(json.code).toBe(1);
		const events = jsonLines(json.stdout);
		expect(events.filter((event) => event.type === "tool_execution_end")).toHaveLength(1);
		expect(events.at(-1)).toEqual({ type: "agent_settled", errorMessage: expect.stringContaining(UNANSWERED) });

		// The file keeps the whole turn; the next run's context holds none of it, and is answered.
		const next = settle(["--faux", "--session", file, "--json", "a shorter question"]);
		expect(next.code).toBe(0);
		const lines = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
		const kept = lines
			.filter((entry) => entry.type === "message")
			.map((entry) => entry.message.stopReason ?? entry.message.role);
		expect(kept).toEqual(["system", "user", "toolUse", "toolResult", "error", "user", "stop"]);
		const agentEnd = jsonLines(next.stdout).find((event) => event.type === "agent_end") as {
			messages: { role: string; content: unknown }[];
		};
		expect(agentEnd.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(jsonLines(next.stdout).at(-1)).toEqual({ type: "agent_settled" });
	});

	it("pi#8073: pi 0.73.1 (peer) on the same script: prints nothing and exits 0", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "pi-tool"));
		const file = join(cli.dir, "pi-tool-script.json");
		writeFileSync(file, JSON.stringify(TOOL_THEN_OVERFLOW));
		const pi = await runPiCli(dirs, ["--no-session", "-p", "read the logs"], { script: file });
		// The tool ran and the request after it failed, yet nothing says so: exit 0, no output at all.
		expect(pi).toEqual({ code: 0, stdout: "", stderr: "" });
	});
});

describe("pi 0.73.1 (peer) on the same overflow", () => {
	it("prints nothing and exits 0 (Settle exits 1 and says why: see above)", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "pi"));
		const file = join(cli.dir, "pi-script.json");
		writeFileSync(file, JSON.stringify([OVERFLOW]));
		const pi = await runPiCli(dirs, ["--no-session", "-p", "hello"], { script: file });
		expect([pi.code, pi.stdout]).toEqual([0, ""]);
		expect(pi.stderr).not.toContain("too long");
	});
});

describe("pi#6472: settle -p with automatic compaction off", () => {
	it("pi#6472: an overflow with compaction.enabled false prints the provider's error and says how to compact", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false } }));
		const run = settle(["--faux-script", script(["first answer", OVERFLOW]), "-p", "first", "second"]);
		expect([run.code, run.stdout]).toEqual([1, ""]);
		expect(run.stderr).toBe(
			`${OVERFLOW.errorMessage}\nThe conversation no longer fits the model's context window, and automatic compaction is off (the compaction.enabled setting is false): resume with \`settle -c\` and run /compact, or set compaction.enabled to true.\n`,
		);
	});

	it("pi#6472: with compaction off, a failure that is not an overflow gets no compaction hint", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false } }));
		const run = settle([
			"--faux-script",
			script([{ stopReason: "error", errorMessage: "400 bad request" }]),
			"-p",
			"hi",
		]);
		expect(run.code).toBe(1);
		expect(run.stderr).toBe("400 bad request\n");
	});
});
