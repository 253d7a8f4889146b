/**
 * Reports about prompt-cache writes in the usage a user sees, replayed through the SDK on a real
 * session file against a local Anthropic Messages endpoint (test/llm/wire/server.ts) that reports
 * `cache_creation_input_tokens` and `cache_read_input_tokens` beside `input_tokens`.
 *
 * agentclientprotocol/codex-acp#509, ccusage#1617: cache-write tokens were counted as ordinary
 * input or dropped — the cache-write count was lost and its (higher) price left out of the cost.
 * What the user should see: each answer's `cacheWrite` as the provider reported it, priced at the
 * model's cache-write rate, counted once in the session's tokens and cost and in the context size,
 * and the same numbers after the session file is reopened.
 */
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

describe("codex-acp#509, ccusage#1617: cache-write tokens in usage and cost", () => {
	it("codex-acp#509: an answer reporting 100 input, 30,000 cache-write and 40,000 cache-read tokens: each counted once, cache writes priced at the cache-write rate, in the answer, getSessionStats(), the context size and the reopened file", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		// Dollars per million tokens (wireModel): input 3, output 15, cache read 0.3, cache write 3.75.
		const { cost: prices } = w.model;
		w.server.reply(
			anthropicReply([{ type: "text", text: "cached answer" }], {
				usage: { input: 100, output: 10, cacheWrite: 30_000, cacheRead: 40_000 },
			}),
		);
		await w.session.prompt("the question");
		const answer = w.session.messages.at(-1) as { usage?: Record<string, unknown> & { cost: Record<string, number> } };
		expect(answer.usage).toMatchObject({
			input: 100,
			output: 10,
			cacheWrite: 30_000,
			cacheRead: 40_000,
			totalTokens: 70_110,
		});
		const expected = {
			input: (100 * prices.input) / 1e6,
			output: (10 * prices.output) / 1e6,
			cacheRead: (40_000 * prices.cacheRead) / 1e6,
			cacheWrite: (30_000 * prices.cacheWrite) / 1e6,
		};
		const total = expected.input + expected.output + expected.cacheRead + expected.cacheWrite;
		expect(answer.usage?.cost.cacheWrite).toBeCloseTo(expected.cacheWrite, 12);
		expect(answer.usage?.cost.total).toBeCloseTo(total, 12);

		const stats = w.session.getSessionStats();
		expect(stats.tokens).toEqual({ input: 100, output: 10, cacheRead: 40_000, cacheWrite: 30_000, total: 70_110 });
		expect(stats.cost).toBeCloseTo(total, 12);
		expect(stats.cumulative.tokens.cacheWrite).toBe(30_000);
		expect(stats.contextUsage?.tokens).toBe(70_110);

		const reopened = SessionManager.open(w.session.sessionFile!, { readOnly: true });
		expect(reopened.getCumulativeUsage().tokens).toMatchObject({ cacheWrite: 30_000, cacheRead: 40_000, input: 100 });
		expect(reopened.getCumulativeUsage().cost).toBeCloseTo(total, 12);
	});
});
