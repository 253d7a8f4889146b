/**
 * Reports about the summarizer's own model call in the numbers a host shows, replayed against real
 * `settle --rpc` child processes on one session file and a local OpenAI-compatible endpoint
 * (test/llm/wire/server.ts) that reports usage on every answer, the summary request's included.
 *
 * openchamber#3572 (fixed by openchamber#3628; also codex#9416, XiaomiMiMo/MiMo-Code#435): right
 * after a compaction the context readout took the newest model call that reported tokens — the
 * compaction's own summary request, whose input is the whole history it folded — so the meter
 * stayed high or rose (MiMo-Code: 40% before `/compact`, 97% after), or, in codex, an oversized
 * estimate left "0% context left". What the host should see: after `compact`, the meter is unknown
 * (`tokens: null`) until the next answer, never the summary request's size, the old size or a full
 * window, the same in a process that reopens the file; the next answer's usage then sets it.
 *
 * openai/openai-agents-python#4434 (also devlawey/filar#387): a compaction's summary request was
 * billed but its usage was dropped, so the run's totals left out what was often the most expensive
 * call. What the host should see: `get_session_stats` counts the summary request's tokens and cost
 * in `tokens`, `cost` and `cumulative`, and a process that reopens the file reports the same.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { isChatSummaryRequest, rpcPrompt } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-summarizer-");

/** Dollars per million tokens. */
const PRICES = { input: 2, output: 8, cacheRead: 0, cacheWrite: 0 };

interface Totals {
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	cost: number;
}

interface Stats extends Totals {
	contextUsage?: { tokens: number | null; percent: number | null; contextWindow: number };
	cumulative: Totals;
}

function dollars(input: number, output: number): number {
	return (input * PRICES.input + output * PRICES.output) / 1_000_000;
}

describe("openchamber#3572, openai-agents-python#4434: the summary request in the meter and the totals", () => {
	it("openchamber#3572, openai-agents-python#4434: settle --rpc: after compact, whose summary requests reported 150,000 + 2,000 tokens each, the meter is unknown (not 152k) live and reopened; the totals count each request once, live and reopened; the next answer sets the meter", async () => {
		const server = await startWireServer((request, next) =>
			isChatSummaryRequest(request)
				? chatReply([{ type: "text", text: "## Goal\nthe summary" }], { usage: { prompt: 150_000, completion: 2_000 } })
				: next(),
		);
		const file = join(cli.dir, "summarized.jsonl");
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				compat: { supportsDeveloperRole: false },
				models: [{ id: "coder", contextWindow: 200_000, cost: PRICES }],
			});
			// Everything but the last exchange is summarized.
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
			server.reply(
				chatReply([{ type: "text", text: "first answer" }], { usage: { prompt: 100_000, completion: 100 } }),
				chatReply([{ type: "text", text: "second answer" }], { usage: { prompt: 150_000, completion: 100 } }),
				chatReply([{ type: "text", text: "after the compaction" }], { usage: { prompt: 3_000, completion: 50 } }),
			);
			const open = () =>
				new RpcClient(["--model", "local/coder", "--session", file], { cwd: cli.project, agentDir: cli.agentDir });
			const stats = async (client: RpcClient, id: string) =>
				((await client.request({ id, type: "get_session_stats" })) as { data: Stats }).data;

			const live = open();
			await rpcPrompt(live, "p1", "first question");
			await rpcPrompt(live, "p2", "second question");
			const compacted = await live.request({ id: "c", type: "compact" });
			expect(compacted).toMatchObject({ success: true });
			// The cut falls inside the last turn: one summary of the history, one of the turn's prefix.
			expect(server.requests.filter(isChatSummaryRequest)).toHaveLength(2);

			const afterCompact = await stats(live, "s1");
			expect(afterCompact.contextUsage).toEqual({ tokens: null, contextWindow: 200_000, percent: null });
			// The kept second answer and the two summary requests; the first answer was summarized away.
			expect(afterCompact.tokens).toEqual({
				input: 450_000,
				output: 4_100,
				cacheRead: 0,
				cacheWrite: 0,
				total: 454_100,
			});
			expect(afterCompact.cost).toBeCloseTo(dollars(450_000, 4_100), 12);
			// Spent: all four calls.
			expect(afterCompact.cumulative.tokens.total).toBe(554_200);
			expect(afterCompact.cumulative.cost).toBeCloseTo(dollars(550_000, 4_200), 12);
			expect(await live.end()).toBe(0);

			const reopened = open();
			const read = await stats(reopened, "s2");
			expect(read.contextUsage).toEqual(afterCompact.contextUsage);
			expect(read.tokens).toEqual(afterCompact.tokens);
			expect(read.cost).toBeCloseTo(afterCompact.cost, 12);
			expect(read.cumulative.tokens).toEqual(afterCompact.cumulative.tokens);
			expect(read.cumulative.cost).toBeCloseTo(afterCompact.cumulative.cost, 12);

			await rpcPrompt(reopened, "p3", "go on");
			const next = await stats(reopened, "s3");
			expect(next.contextUsage).toMatchObject({ tokens: 3_050, contextWindow: 200_000 });
			expect(next.contextUsage?.percent).toBeCloseTo(1.525, 10);
			expect(next.cumulative.tokens.total).toBe(557_250);
			expect(server.requests).toHaveLength(5);
			expect(await reopened.end()).toBe(0);
			expect(reopened.stderr).toBe("");
		} finally {
			await server.close();
		}
	});
});
