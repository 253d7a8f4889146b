import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTrace } from "../../src/inspect/trace-file.js";

/**
 * tsx's transform cache, where a user's tsx keeps it (`<tmpdir>/tsx-<uid>`). The examples run with a
 * TMPDIR of their own, where tsx would start an empty cache and transpile Settle's sources anew in
 * every example (~0.3 s of CPU each); linked there, a second run reuses it as a user's would.
 */
const TSX_CACHE_NAME = `tsx-${process.geteuid?.() ?? userInfo().username}`;
const TSX_CACHE = join(tmpdir(), TSX_CACHE_NAME);

/**
 * Runs an example the way the README does (`npx tsx examples/<name>.ts`), with a temp dir of its
 * own that is removed after (sdk.ts, like the README, leaves its temp project for the user to see).
 */
function runExample(name: string, args: string[] = []): { status: number | null; stdout: string; stderr: string } {
	const tmp = mkdtempSync(join(tmpdir(), `settle-example-${name}-`));
	try {
		mkdirSync(TSX_CACHE, { recursive: true });
		symlinkSync(TSX_CACHE, join(tmp, TSX_CACHE_NAME), "junction");
		const result = spawnSync(process.execPath, ["--import", "tsx", `examples/${name}.ts`, ...args], {
			encoding: "utf8",
			timeout: 60_000,
			env: { ...process.env, TMPDIR: tmp },
		});
		return { status: result.status, stdout: result.stdout, stderr: result.stderr };
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}

// Each test waits for real child processes that have their own limits (60 s, 120 s for the nested
// vitest run), which report a hang with the child's output: vitest's own timeout must not fire first.
describe("examples stay runnable (the README quotes them)", { timeout: 150_000 }, () => {
	it("sdk.ts: a tool call through createAgentSession, one agent_settled, the file reopens", () => {
		const { status, stdout, stderr } = runExample("sdk");
		expect(stderr).toBe("");
		expect(status).toBe(0);
		expect(stdout).toContain("extension saw tool_call weather");
		expect(stdout).toContain("assistant: It is 21°C, clear in Lisbon.");
		expect(stdout.match(/agent_settled/g)).toHaveLength(1);
		expect(stdout).toMatch(/Reopened 5 context messages/);
	});

	it("quickstart.ts (npm run demo): retried, then answered, and the reopened context matches", () => {
		const { status, stdout } = runExample("quickstart");
		expect(status).toBe(0);
		expect(stdout).toContain("retry succeeded");
		// The demo names the guard that chose the retry path.
		expect(stdout).toContain("◆ postRun → retrying  (always [canRetry])");
		expect(stdout).toContain("The reopened file rebuilds the same context: yes");
	});

	it("runtime-projects.ts: each project's AGENTS.md, extensions and cwd follow the switch; a failed switch tears nothing down", () => {
		const { status, stdout, stderr } = runExample("runtime-projects");
		expect(stderr).toBe("");
		expect(status).toBe(0);
		expect(stdout).toBe(
			[
				"  [alpha] session_start (startup)",
				"In alpha:",
				"  bash pwd → <root>/alpha (AGENTS.md in the system prompt: project alpha)",
				"switchSession(beta's file):",
				"  [alpha] session_before_switch (resume)",
				"  [alpha] session_shutdown (resume)",
				"  [beta] session_start (resume)",
				"  runtime.cwd → <root>/beta",
				"  bash pwd → <root>/beta (AGENTS.md in the system prompt: project beta)",
				"switchSession(gamma's file), gamma deleted:",
				"  [beta] session_before_switch (resume)",
				"  MISSING_SESSION_CWD: nothing torn down; same session: true",
				"  bash pwd → <root>/beta (AGENTS.md in the system prompt: project beta)",
				"  [beta] session_shutdown (quit)",
				"",
			].join("\n"),
		);
	});

	it("guarded-tools.ts: the extension blocks the prod deploy, staging runs, text streams, one agent_settled", () => {
		const { status, stdout, stderr } = runExample("guarded-tools");
		expect(stderr).toBe("");
		expect(status).toBe(0);
		expect(stdout).toBe(
			[
				'→ deploy {"service":"api","env":"staging"}',
				'→ deploy {"service":"api","env":"prod"}',
				"← deploy error: Blocked: prod deploys need a human.",
				"← deploy ok: deployed api to staging",
				"1 of 2 deploys went out; prod is waiting for you.",
				"■ agent_settled",
				"",
			].join("\n"),
		);
	});

	it("trace-retry-compaction.ts: a retry then an overflow compaction, traced, saved and rendered", async () => {
		const outDir = mkdtempSync(join(tmpdir(), "settle-example-trace-"));
		try {
			const { status, stdout, stderr } = runExample("trace-retry-compaction", [outDir]);
			expect(stderr).toBe("");
			expect(status).toBe(0);
			const states = stdout.split("\n").filter((line) => /^\+\d+ms\s+state/.test(line));
			expect(states.map((line) => line.replace(/^\+\d+ms\s+state\s+/, "").split(" (")[0])).toEqual([
				"∅ → idle",
				"idle → preflight",
				"preflight → running.working",
				"running.working → postRun",
				"postRun → retrying",
				"retrying → running.working",
				"running.working → postRun",
				"postRun → compacting.working",
				"compacting.working → running.working",
				"running.working → postRun",
				"postRun → beforeSettle.working",
				"beforeSettle.working → settling",
				"settling → idle",
			]);
			expect(stdout).toMatch(/^\+2000ms\s+state\s+retrying → running.working/m);
			// Why each way: the guard, and how the run before it ended.
			expect(stdout).toMatch(/^\+0ms\s+event\s+RUN_DONE error \(retryable\): 503 Service Unavailable$/m);
			expect(stdout).toMatch(
				/^\+0ms\s+state\s+postRun → retrying \(always \(2\) \[canRetry\]\) attempt 1\/3, delay 2000ms$/m,
			);
			expect(stdout).toMatch(/state\s+postRun → compacting.working \(always \(3\) \[canRecoverOverflow\]\)/);
			// What each step wrote: the failed attempt leaves the context during the backoff; the compaction's entry.
			expect(stdout).toMatch(/^\+0ms\s+event\s+ENTRY_WRITTEN context_edit \w+ \(omits \w+\)$/m);
			expect(stdout).toMatch(
				/actor\s+compaction done: compacted \d+ tokens to ~\d+ \(entry \w+\), first kept entry \w+/,
			);
			expect(stdout).toContain('queued followUp "And in watch mode?" in retrying: delivered in run 3 (compaction)');
			expect(stdout).toMatch(/compaction: overflow, summary of \d+ tokens, re-ran: true/);
			const trace = await loadTrace(join(outDir, "retry-compaction.trace.json"));
			expect(trace.machine).toBe("promptOperation");
			const html = readFileSync(join(outDir, "retry-compaction.html"), "utf8");
			expect(html).toContain("<title>A retry, then a compaction</title>");
			expect(html).toContain('data-state="promptOperation.compacting"');
		} finally {
			rmSync(outDir, { recursive: true, force: true });
		}
	});

	it("testing/my-agent.test.ts: the example suite of settle/testing passes under its own vitest config", () => {
		const outDir = mkdtempSync(join(tmpdir(), "settle-example-vitest-"));
		try {
			const report = join(outDir, "report.json");
			const vitest = join("node_modules", "vitest", "vitest.mjs");
			const result = spawnSync(
				process.execPath,
				[vitest, "run", "--config", "examples/testing/vitest.config.ts", "--reporter=json", `--outputFile=${report}`],
				{ encoding: "utf8", timeout: 120_000 },
			);
			expect(result.status).toBe(0);
			const summary = JSON.parse(readFileSync(report, "utf8")) as {
				numPassedTests: number;
				numFailedTests: number;
				testResults: { assertionResults: { title: string; status: string }[] }[];
			};
			expect(summary.numFailedTests).toBe(0);
			expect(summary.testResults.flatMap((file) => file.assertionResults.map((test) => test.title))).toEqual([
				"retries an overloaded provider after 2 s, then deploys to staging",
				"gives up after three retries with the provider's error, and settles once",
				"never deploys to prod, whatever the model asks",
				"any model script: one agent_settled per prompt, idle after, and a well-formed event stream",
			]);
			expect(summary.numPassedTests).toBe(4);
		} finally {
			rmSync(outDir, { recursive: true, force: true });
		}
	});
});
