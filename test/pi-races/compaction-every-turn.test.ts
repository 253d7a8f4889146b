/**
 * opencode#45368: on a small-window local model (16k, 32k) compaction ran after every step, or the
 * session ran into the server's refusal. In Settle (as in pi 0.73.1) the default
 * `keepRecentTokens` (20000) did not depend on the window: on a 32768-token model the kept tail
 * alone was over the 16384-token threshold, so from then on every answer compacted again, one turn
 * at a time; on a 16384-token model it held the whole context, so nothing could ever be summarized
 * and, once a request no longer fit, overflow recovery failed. Replayed with a real `settle -p`
 * process (all prompts on one session, one after the other, as a chat sends them) against a local
 * OpenAI-compatible server that reports the usage of what it was sent; which prompt compacted is read
 * from the session file.
 * What the user should see: after a compaction the next prompt is answered without another one,
 * and every prompt is answered.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import type { WireServer } from "../llm/wire/server.js";
import { compactionsIn, promptsIn } from "./helpers.js";
import { startLlamaServer } from "./llama-server.js";

const cli = useCliProject("settle-compaction-every-turn-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

const sessions = () => join(cli.dir, "sessions");
const compactions = () => compactionsIn(sessions());
const answered = (prompts: number) => Array.from({ length: prompts }, (_, n) => `answer ${n + 1}`);

/** One `settle -p` with `prompts` prompts of ~2000 tokens on a new session, one after the other. */
const settlePrompts = (prompts: number) =>
	runSettleAsync(
		[
			...["--session-dir", sessions(), "--model", "local/coder", "--no-tools", "-p"],
			...Array.from({ length: prompts }, (_, n) => `question ${n + 1} ${"word ".repeat(1600)}`),
		],
		{ cwd: cli.project, agentDir: cli.agentDir },
	);

describe("opencode#45368: compaction on a small-window local model", () => {
	it("opencode#45368: a local 32768-token model, default settings, prompts of ~2000 tokens: no prompt right after a compaction compacts again", {
		timeout: 120_000,
	}, async () => {
		// The server counts what it was sent (about 4 characters a token), as llama-server reports it.
		({ server } = await startLlamaServer());
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 32_768 }] });
		const prompts = 14;
		const run = await settlePrompts(prompts);
		expect(run.stderr).toBe("");
		expect(`${run.code} ${run.stdout}`).toBe(`0 answer ${prompts}\n`);
		expect(promptsIn(sessions()).map((prompt) => prompt.answer)).toEqual(answered(prompts));
		const compactedAfter = promptsIn(sessions()).map((prompt) => prompt.compacted);
		expect(compactedAfter.filter(Boolean).length).toBeGreaterThan(0);
		// Prompts (1-based) that compacted right after a compaction. Before the fix: 12, 13 and 14.
		const backToBack = compactedAfter.flatMap((compacted, n) => (compacted && compactedAfter[n - 1] ? [n + 1] : []));
		expect(backToBack).toEqual([]);
	});

	it("opencode#45368: a local 16384-token model that refuses what does not fit, default settings: every prompt is answered, the session compacting on the way", {
		timeout: 120_000,
	}, async () => {
		// llama-server's refusal when a request does not fit its context.
		({ server } = await startLlamaServer({ contextSize: 16_384 }));
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 16_384 }] });
		const run = await settlePrompts(10);
		expect(`${run.code} ${run.stdout.trim()} ${run.stderr.trim()}`.trim()).toBe("0 answer 10");
		// Before the fix the kept tail (20000 tokens) held the whole context: nothing could be
		// summarized, and once a request no longer fit, overflow recovery failed and prompts went unanswered.
		expect(promptsIn(sessions()).map((prompt) => prompt.answer)).toEqual(answered(10));
		expect(compactions()).toBeGreaterThan(0);
	});
});
