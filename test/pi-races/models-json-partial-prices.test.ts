/**
 * Reports about a custom model priced with only some of its prices, replayed against a real
 * `settle --rpc` child process on a local OpenAI-compatible endpoint (test/llm/wire/server.ts) that
 * reports usage with cached tokens.
 *
 * litellm#16000 (also opencode#17154, a fix for opencode#17121): a custom model configured with an
 * input and an output price only, on a provider that caches the prompt: the cached tokens were
 * priced at $0, so the session's cost was short by what the cache reads cost. In Settle such a
 * `models.json` entry (`"cost": {"input": 2, "output": 8}`) was worse: pi-ai prices an answer from
 * all four prices, the missing ones made every answer's cost NaN and the session showed $0 for all
 * its tokens, silently (pi 0.73.1 refuses the whole file). What the user should see: a warning that
 * names the missing prices and what to write; the cached tokens priced at the input price, and the
 * answer's cost and the session's totals the sum of its parts, never NaN or 0.
 */
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-models-json-partial-prices-");

interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

interface Stats {
	cost: number;
	cumulative: { cost: number };
}

describe("litellm#16000: a custom model given only an input and an output price", () => {
	it('litellm#16000: settle --rpc, models.json "cost": {"input": 2, "output": 8}: a warning names the missing cache prices; an answer with 4,000 cached of 10,000 prompt tokens costs $0.0208 (cache reads at the input price), the session too; not NaN / $0', async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [{ id: "coder", contextWindow: 100_000, cost: { input: 2, output: 8 } }],
			});
			server.reply(
				chatReply([{ type: "text", text: "answered" }], {
					usage: { prompt: 10_000, completion: 100, cached: 4_000 },
				}),
			);
			const client = new RpcClient(["--model", "local/coder", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			const answer = client.next(
				(line) => line.type === "message_end" && (line.message as { role?: string }).role === "assistant",
			);
			const settled = client.next((line) => line.type === "agent_settled");
			expect(await client.request({ id: "p", type: "prompt", message: "question" })).toMatchObject({ success: true });
			const usage = ((await answer).message as { usage: Usage }).usage;
			await settled;

			expect([usage.input, usage.output, usage.cacheRead]).toEqual([6_000, 100, 4_000]);
			expect(usage.cost.input).toBeCloseTo(0.012, 12);
			expect(usage.cost.output).toBeCloseTo(0.0008, 12);
			expect(usage.cost.cacheRead).toBeCloseTo(0.008, 12);
			expect(usage.cost.cacheWrite).toBe(0);
			expect(usage.cost.total).toBeCloseTo(0.0208, 12);
			const stats = ((await client.request({ id: "s", type: "get_session_stats" })) as { data: Stats }).data;
			expect(stats.cost).toBeCloseTo(0.0208, 12);
			expect(stats.cumulative.cost).toBeCloseTo(0.0208, 12);
			expect(await client.end()).toBe(0);
			expect(client.stderr).toContain(
				'model "coder": "models" field "cost" has no "cacheRead", "cacheWrite": a missing cache price is its "input" price',
			);
			expect(client.stderr).toContain("Write all four prices per million tokens");
		} finally {
			await server.close();
		}
	});
});
