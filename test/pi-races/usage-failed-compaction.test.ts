/**
 * Reports about the cost of a compaction that failed, replayed against a real `settle --rpc`
 * child process on a local OpenAI-compatible endpoint (test/llm/wire/server.ts): what a host reads
 * is taken off the process's output lines.
 *
 * mindroom-ai/mindroom#2151 (also github/app#3820, "I don't want to pay for nothing"): a
 * compaction's summary requests were billed, but when the summary was rejected (cut at its cap,
 * empty) or the compaction failed, their tokens were never recorded: the usage reports left out
 * what the failed compactions cost. What the host should see: a failed compaction's summary
 * answers counted in `tokens`, `cost` and `cumulative`, live and in a process reopening the file.
 * The same holds for a branch summary (`/tree` with a summary) whose answer was billed and rejected.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { bannerSessionFile, messageEntry, navigateTree, Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { isChatSummaryRequest, replAfterTwoAnswers, rpcPrompt } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-failed-compaction-");

/** Dollars per million tokens. */
const PRICES = { input: 2, output: 8, cacheRead: 0, cacheWrite: 0 };

interface Totals {
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	cost: number;
}

interface Stats extends Totals {
	cumulative: Totals;
}

function dollars(input: number, output: number): number {
	return (input * PRICES.input + output * PRICES.output) / 1_000_000;
}

/** A local server whose summary answers stop at their cap (40,500 + 4,000 tokens); other requests take its queued replies. */
function summaryCutAtCap() {
	return startWireServer((request, next) =>
		isChatSummaryRequest(request)
			? chatReply([{ type: "text", text: "## Goal\nthe summary, cut" }], {
					usage: { prompt: 40_500, completion: 4_000 },
					finishReason: "length",
				})
			: next(),
	);
}

describe("mindroom#2151, github/app#3820: the summary requests of a failed compaction are billed", () => {
	it("mindroom#2151: settle --rpc: compact whose summary answer stops at its cap (40,500 + 4,000 tokens): the compaction fails and the totals count that answer, live and reopened", async () => {
		const server = await summaryCutAtCap();
		const file = join(cli.dir, "failed-compaction.jsonl");
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				compat: { supportsDeveloperRole: false },
				models: [{ id: "coder", contextWindow: 200_000, cost: PRICES }],
			});
			// The first exchange is summarized, in one request (the last exchange is kept whole).
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 6 } }));
			server.reply(
				chatReply([{ type: "text", text: "first answer" }], { usage: { prompt: 40_000, completion: 100 } }),
				chatReply([{ type: "text", text: "second answer" }], { usage: { prompt: 40_200, completion: 100 } }),
			);
			const open = () =>
				new RpcClient(["--model", "local/coder", "--session", file], { cwd: cli.project, agentDir: cli.agentDir });
			const stats = async (client: RpcClient, id: string) =>
				((await client.request({ id, type: "get_session_stats" })) as { data: Stats }).data;

			const live = open();
			await rpcPrompt(live, "p1", "first question");
			await rpcPrompt(live, "p2", "second question");
			const compacted = await live.request({ id: "c", type: "compact" });
			expect(compacted).toMatchObject({ success: false });
			expect(String(compacted.error)).toContain("cap");
			expect(server.requests.filter(isChatSummaryRequest)).toHaveLength(1);

			// The two answers and the rejected summary answer, each once.
			const total = 40_100 + 40_300 + 44_500;
			const cost = dollars(40_000 + 40_200 + 40_500, 100 + 100 + 4_000);
			const afterFailure = await stats(live, "s1");
			expect(afterFailure.cumulative.tokens.total).toBe(total);
			expect(afterFailure.cumulative.cost).toBeCloseTo(cost, 12);
			expect(afterFailure.tokens.total).toBe(total);
			expect(afterFailure.cost).toBeCloseTo(cost, 12);
			live.child.stdin.end();
			await live.exited;

			const reopened = open();
			const read = await stats(reopened, "s2");
			expect(read.cumulative.tokens).toEqual(afterFailure.cumulative.tokens);
			expect(read.cumulative.cost).toBeCloseTo(cost, 12);
			expect(read.tokens).toEqual(afterFailure.tokens);
			reopened.child.stdin.end();
			await reopened.exited;
		} finally {
			await server.close();
		}
	});

	it("mindroom#2151: settle -i, /tree with a summary whose answer stops at its cap (40,500 + 4,000 tokens): the move fails and /session's tokens and spent count that answer, live and reopened", async () => {
		const server = await summaryCutAtCap();
		try {
			const chat = await replAfterTwoAnswers(cli, server);
			const file = bannerSessionFile(chat.stdout);
			const failed = await navigateTree(chat, messageEntry(file, "assistant", "first answer").id, "2");
			expect(failed).toContain("Error: Branch summarization failed: the answer reached its");
			expect(server.requests.filter(isChatSummaryRequest)).toHaveLength(1);
			// The two answers (40,100 + 80,200) and the rejected summary answer.
			const spent = "$0.0000 (164800 tokens) in this session file, all branches";
			const live = await chat.say("/session", "context:");
			expect(live).toContain("  tokens: 164800 (input 160500, output 4300, cache read 0, cache write 0)");
			expect(live).toContain(`  spent: ${spent}`);
			expect(await chat.end()).toBe(0);

			const reopened = new Repl(["--model", "local/coder", "--session", file], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			await reopened.idle(0);
			expect(await reopened.say("/session", "context:")).toContain(`  spent: ${spent}`);
			expect(await reopened.end()).toBe(0);
		} finally {
			await server.close();
		}
	});
});
