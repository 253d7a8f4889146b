/**
 * kimi-code#2325: when the system prompt and tools alone are over the compaction threshold (a
 * ~5000-token system prompt on an 8192-token window, default settings), every compaction leaves the
 * context still over it, so every answer compacted again: a summary request per prompt, and the
 * history shredded one turn at a time. pi 0.73.1 does the same (its threshold on that window is below
 * zero); Settle diverges on purpose (DELIBERATE_INEFFECTIVE_COMPACTION_NOT_REPEATED, src/session/run-outcome.ts).
 * Replayed with real `settle -p` processes against a local OpenAI-compatible server that
 * reports the usage of what it was sent and refuses what does not fit, as llama-server does. What the
 * user should see: every prompt answered, and a compaction that could not get under the threshold not
 * repeated until the conversation has grown by a kept tail's worth (`keepRecentTokens` as capped for
 * the window) or the server refuses the request as too long.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { type RecordedRequest, startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-compaction-over-threshold-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

const isSummaryRequest = (request: RecordedRequest) =>
	JSON.stringify(request.body?.messages ?? "").includes(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 40));

function compactions(): number {
	const sessionDir = join(cli.dir, "sessions");
	const [file] = readdirSync(sessionDir);
	return readFileSync(join(sessionDir, file!), "utf8")
		.trim()
		.split("\n")
		.filter((line) => JSON.parse(line).type === "compaction").length;
}

/** `prompts` real `settle -p` runs on one session; per prompt, whether it compacted. */
async function replay(systemPromptTokens: number, prompts: number) {
	let answers = 0;
	let summaries = 0;
	// The server counts what it was sent (about 4 characters a token) and refuses what does not fit.
	server = await startWireServer((request) => {
		const prompt = Math.ceil(JSON.stringify(request.body ?? {}).length / 4);
		if (prompt > 8192) {
			return openAiError(
				400,
				`request (${prompt} tokens) exceeds the available context size (8192 tokens), try increasing it`,
				"exceed_context_size_error",
			);
		}
		if (isSummaryRequest(request)) {
			summaries++;
			return chatReply([{ type: "text", text: "## Goal\nanswer the questions" }], {
				usage: { prompt, completion: 10 },
			});
		}
		answers++;
		return chatReply([{ type: "text", text: `answer ${answers}` }], { usage: { prompt, completion: 3 } });
	});
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 8192 }] });
	const systemPrompt = "rule ".repeat(systemPromptTokens * 0.8);
	const outcomes: string[] = [];
	const compactedAt: number[] = [];
	for (let n = 1; n <= prompts; n++) {
		const before = n === 1 ? 0 : compactions();
		const run = await runSettleAsync(
			[
				"--session-dir",
				join(cli.dir, "sessions"),
				"--model",
				"local/coder",
				"--no-tools",
				"--system-prompt",
				systemPrompt,
				...(n === 1 ? [] : ["-c"]),
				"-p",
				`question ${n} ${"word ".repeat(200)}`,
			],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		outcomes.push(`${run.code} ${run.stdout.trim()} ${run.stderr.trim()}`.trim());
		if (compactions() > before) compactedAt.push(n);
	}
	const backToBack = compactedAt.filter((n) => compactedAt.includes(n - 1));
	return { outcomes, compactedAt, backToBack, summaries };
}

const answered = (prompts: number) => Array.from({ length: prompts }, (_, n) => `0 answer ${n + 1}`);

describe("kimi-code#2325: a context the compaction cannot get under the threshold", () => {
	it("kimi-code#2325: a 2500-token system prompt on an 8192-token model (threshold 4096), default settings: after a compaction the next one waits until the conversation has grown by the kept tail (2048 tokens)", {
		timeout: 180_000,
	}, async () => {
		const { outcomes, compactedAt, backToBack, summaries } = await replay(2500, 19);
		expect(outcomes).toEqual(answered(19));
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
		const { outcomes, compactedAt, backToBack } = await replay(5000, 16);
		expect(outcomes).toEqual(answered(16));
		expect(compactedAt.length).toBeGreaterThan(0);
		// Before the fix: every prompt from the first compaction on compacted again (7 of 16; now 4, at the refusals).
		expect(backToBack).toEqual([]);
	});

	it("kimi-code#2325, a model switch to a smaller window: the tail a 65536-token model's compaction kept (20000 tokens) is over the 32768-token model's threshold (16384), and its first answer compacts it (keep 8192)", {
		timeout: 180_000,
	}, async () => {
		const windows: Record<string, number> = { big: 65536, small: 32768 };
		server = await startWireServer((request) => {
			const prompt = Math.ceil(JSON.stringify(request.body ?? {}).length / 4);
			const window = windows[String(request.body?.model)] ?? 0;
			if (prompt > window) {
				return openAiError(
					400,
					`request (${prompt} tokens) exceeds the available context size (${window} tokens)`,
					"exceed_context_size_error",
				);
			}
			if (isSummaryRequest(request)) {
				return chatReply([{ type: "text", text: "## Goal\nanswer the questions" }], {
					usage: { prompt, completion: 10 },
				});
			}
			return chatReply([{ type: "text", text: "answer" }], { usage: { prompt, completion: 3 } });
		});
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [
				{ id: "big", contextWindow: 65536 },
				{ id: "small", contextWindow: 32768 },
			],
		});
		const run = (n: number, model: string, text: string) =>
			runSettleAsync(
				[
					"--session-dir",
					join(cli.dir, "sessions"),
					"--model",
					`local/${model}`,
					"--no-tools",
					...(n === 1 ? [] : ["-c"]),
					"-p",
					text,
				],
				{ cwd: cli.project, agentDir: cli.agentDir },
			);
		// About 10000 tokens a prompt: the fifth answer on the big model is over its threshold (49152).
		for (let n = 1; n <= 5; n++) expect((await run(n, "big", `question ${n} ${"word ".repeat(8000)}`)).code).toBe(0);
		expect(compactions()).toBe(1);
		const switched = await run(6, "small", "question 6");
		expect(`${switched.code} ${switched.stdout.trim()}`).toBe("0 answer");
		// Before the fix: not compacted (the conversation had not grown by 8192 since), the context left over the threshold.
		expect(compactions()).toBe(2);
	});
});
