/**
 * kimi-code#2325: when the system prompt and tools alone are over the compaction threshold (a
 * ~5000-token system prompt on an 8192-token window, default settings), every compaction leaves the
 * context still over it, so every answer compacted again: a summary request per prompt, and the
 * history shredded one turn at a time. pi 0.73.1 does the same (its threshold on that window is below
 * zero); Settle diverges on purpose (DELIBERATE_INEFFECTIVE_COMPACTION_NOT_REPEATED, src/session/run-outcome.ts).
 * Replayed with real `settle -p` processes (one per prompt, or one for all prompts of a session)
 * against a local OpenAI-compatible server that reports the usage of what it was sent and refuses
 * what does not fit, as llama-server does. What the user should see: every prompt answered, and a
 * compaction that could not get under the threshold not repeated until the conversation has grown by
 * a kept tail's worth (`keepRecentTokens` as capped for the window) or the server refuses the request
 * as too long.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	cliCommand,
	RpcClient,
	runSettleAsync,
	trackChild,
	useCliProject,
	writeLocalProvider,
} from "../cli/helpers.js";
import type { WireServer } from "../llm/wire/server.js";
import { compactionsIn, promptsIn, rpcPrompt } from "./helpers.js";
import { startLlamaServer } from "./llama-server.js";

const cli = useCliProject("settle-compaction-over-threshold-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

const compactions = () => compactionsIn(join(cli.dir, "sessions"));

/** A local server that counts what it was sent (about 4 characters a token) and refuses what does not fit. */
async function startServer() {
	const started = await startLlamaServer({ contextSize: 8192 });
	server = started.server;
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
		models: [
			{ id: "coder", contextWindow: 8192 },
			{ id: "coder-b", contextWindow: 8192 },
		],
	});
	return started.counts;
}

const settleArgs = (systemPromptTokens: number) => [
	"--session-dir",
	join(cli.dir, "sessions"),
	"--model",
	"local/coder",
	"--no-tools",
	"--system-prompt",
	"rule ".repeat(systemPromptTokens * 0.8),
];

const question = (n: number) => `question ${n} ${"word ".repeat(200)}`;

/**
 * `prompts` prompts on one session, per prompt whether it compacted: the first `together` in one
 * `settle -p` (no compaction is due before them: one process writes what one per prompt did), then
 * one `settle -p -c` per prompt, so each compaction's aftermath is read back from the file.
 */
async function replay(systemPromptTokens: number, prompts: number, together: number) {
	const counts = await startServer();
	const opening = Array.from({ length: together }, (_, n) => question(n + 1));
	const first = await runSettleAsync([...settleArgs(systemPromptTokens), "-p", ...opening], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
	const opened = promptsIn(join(cli.dir, "sessions"));
	const outcomes = opened.map((prompt) => `${first.code} ${prompt.answer}`);
	const stderr = [first.stderr.trim()];
	const compactedAt = opened.flatMap((prompt, n) => (prompt.compacted ? [n + 1] : []));
	for (let n = together + 1; n <= prompts; n++) {
		const before = compactions();
		const run = await runSettleAsync([...settleArgs(systemPromptTokens), "-c", "-p", question(n)], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		outcomes.push(`${run.code} ${run.stdout.trim()}`.trim());
		stderr.push(run.stderr.trim());
		if (compactions() > before) compactedAt.push(n);
	}
	const backToBack = compactedAt.filter((n) => compactedAt.includes(n - 1));
	return { outcomes, stderr, compactedAt, backToBack, summaries: counts.summaries };
}

// The numbers (after compacting, the threshold, the window) and the remedies, on one line.
const WARNING =
	/^Warning: Compaction cannot get the context under the threshold: about \d+ tokens after compacting \(system prompt, tools and context files included\), threshold 4096 \(coder's 8192-token window less compaction\.reserveTokens\)\. Lower compaction\.reserveTokens, use a model with a larger window, or load fewer tools or a shorter system prompt \/ context files\.$/;

const answered = (prompts: number) => Array.from({ length: prompts }, (_, n) => `0 answer ${n + 1}`);

describe("kimi-code#2325: a context the compaction cannot get under the threshold", () => {
	it("kimi-code#2325: a 2500-token system prompt on an 8192-token model (threshold 4096), default settings: after a compaction the next one waits until the conversation has grown by the kept tail (2048 tokens)", {
		timeout: 180_000,
	}, async () => {
		const counts = await startServer();
		const prompted = Array.from({ length: 19 }, (_, n) => question(n + 1));
		const run = await runSettleAsync([...settleArgs(2500), "-p", ...prompted], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(`${run.code} ${run.stdout.trim()}`).toBe("0 answer 19");
		const prompts = promptsIn(join(cli.dir, "sessions"));
		expect(prompts.map((prompt) => `0 ${prompt.answer}`)).toEqual(answered(19));
		const compactedAt = prompts.flatMap((prompt, n) => (prompt.compacted ? [n + 1] : []));
		const backToBack = compactedAt.filter((n) => compactedAt.includes(n - 1));
		const summaries = counts.summaries;
		// Before the fix: a compaction after every prompt from the first one on (10 of 19, each still over 4096).
		expect(backToBack).toEqual([]);
		// The first compaction, then one more once the conversation has grown by the kept tail; no refusal.
		expect(compactedAt).toHaveLength(2);
		expect(compactedAt[1]! - compactedAt[0]!).toBeGreaterThan(4);
		expect(summaries).toBe(2);
	});

	it("kimi-code#2325: a 5000-token system prompt on an 8192-token model, alone over the threshold: every prompt answered, no compaction right after another", {
		timeout: 180_000,
	}, async () => {
		// The first compaction comes with the tenth prompt: nine in one process, then one process each.
		const { outcomes, stderr, compactedAt, backToBack } = await replay(5000, 16, 9);
		expect(outcomes).toEqual(answered(16));
		// Told on stderr, with the numbers and what to change (each `settle -p` is a session of its own).
		expect(stderr.filter((text) => text !== "").length).toBeGreaterThan(0);
		for (const text of stderr.filter((line) => line !== "")) expect(text).toMatch(WARNING);
		expect(compactedAt.length).toBeGreaterThan(0);
		// Before the fix: every prompt from the first compaction on compacted again (7 of 16; now 4, at the refusals).
		expect(backToBack).toEqual([]);
	});

	it("kimi-code#2325, a model switch to a smaller window: the tail a 65536-token model's compaction kept (20000 tokens) is over the 32768-token model's threshold (16384), and its first answer compacts it (keep 8192)", {
		timeout: 180_000,
	}, async () => {
		({ server } = await startLlamaServer({
			contextSize: { big: 65536, small: 32768 },
			hint: false,
			answer: () => "answer",
		}));
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [
				{ id: "big", contextWindow: 65536 },
				{ id: "small", contextWindow: 32768 },
			],
		});
		const run = (continued: boolean, model: string, ...texts: string[]) =>
			runSettleAsync(
				[
					...["--session-dir", join(cli.dir, "sessions"), "--model", `local/${model}`, "--no-tools"],
					...(continued ? ["-c"] : []),
					"-p",
					...texts,
				],
				{ cwd: cli.project, agentDir: cli.agentDir },
			);
		// About 10000 tokens a prompt: the fifth answer on the big model is over its threshold (49152).
		const big = Array.from({ length: 5 }, (_, n) => `question ${n + 1} ${"word ".repeat(8000)}`);
		expect((await run(false, "big", ...big)).code).toBe(0);
		expect(promptsIn(join(cli.dir, "sessions")).map((prompt) => prompt.answer)).toEqual(big.map(() => "answer"));
		expect(compactions()).toBe(1);
		const switched = await run(true, "small", "question 6");
		expect(`${switched.code} ${switched.stdout.trim()}`).toBe("0 answer");
		// Before the fix: not compacted (the conversation had not grown by 8192 since), the context left over the threshold.
		expect(compactions()).toBe(2);
	});

	it("kimi-code#2325: one `settle -p` with sixteen prompts and a 5000-token system prompt says once on stderr that compaction cannot get under the threshold, naming the numbers and what to change", {
		timeout: 180_000,
	}, async () => {
		await startServer();
		const prompts = Array.from({ length: 16 }, (_, n) => question(n + 1));
		const run = await runSettleAsync([...settleArgs(5000), "-p", ...prompts], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code, run.stderr).toBe(0);
		const warnings = run.stderr.split("\n").filter((line) => line.startsWith("Warning:"));
		// Before the fix: nothing on stderr; the user never learns why compaction stopped helping.
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(WARNING);
	});

	it("kimi-code#2325: over `settle --rpc` the host gets one `compaction_over_threshold` event with the numbers, and one more after a switch to another model where it holds too", {
		timeout: 180_000,
	}, async () => {
		await startServer();
		const client = new RpcClient([...settleArgs(5000), "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		for (let n = 1; n <= 16; n++) await rpcPrompt(client, `p${n}`, question(n));
		const told = () => client.lines.filter((line) => line.type === "compaction_over_threshold");
		expect(told()).toHaveLength(1);
		expect(told()[0]).toMatchObject({ thresholdTokens: 4096, contextWindow: 8192 });
		expect(told()[0]!.contextTokens).toBeGreaterThan(4096);
		expect(told()[0]!.message).toMatch(/compaction\.reserveTokens/);
		expect(await client.request({ id: "m", type: "set_model", provider: "local", modelId: "coder-b" })).toMatchObject({
			success: true,
		});
		await rpcPrompt(client, "p17", question(17));
		expect(told()).toHaveLength(2);
		expect(told()[1]!.message).toMatch(/coder-b's 8192-token window/);
		expect(await client.end()).toBe(0);
	});

	it("kimi-code#2325: `settle -i` fed sixteen prompts (queued as steers) shows the warning once as a line of the chat", {
		timeout: 180_000,
	}, async () => {
		await startServer();
		const child = spawn(process.execPath, [...cliCommand(), ...settleArgs(5000), "-i"], {
			cwd: cli.project,
			env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
			stdio: ["pipe", "pipe", "pipe"],
		});
		let output = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			output += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			output += chunk;
		});
		child.stdin.end(Array.from({ length: 16 }, (_, n) => `${question(n + 1)}\n`).join(""));
		expect(await trackChild(child)).toBe(0);
		const told = output.split("\n").filter((line) => line.includes("Compaction cannot get the context under"));
		expect(told).toHaveLength(1);
	});
});
