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
		expect(run.stderr).toContain("start a new session, or switch to a model with a larger context window");
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
