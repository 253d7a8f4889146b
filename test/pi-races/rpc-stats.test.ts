/**
 * Reports about what RPC clients read from `get_session_stats`, replayed against a real
 * `settle --rpc` child process on a local OpenAI-compatible endpoint.
 *
 * hapi#1630 (also paseo#3726, gustavonline/pi-desktop#56): after a `compact`, a host's context
 * meter stayed at the pre-compaction value (stuck at 93-98%) until the next answer, so the
 * compaction looked as if it had failed. What the client should see: the `compact` answer and the
 * `compaction_end` event carry the estimated size after the compaction; `get_session_stats` then
 * says the context size is unknown (`tokens: null`) until the next answer, never the old size;
 * after the next answer it reports that answer's usage.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { isChatSummaryRequest, rpcContextUsage, rpcPrompt } from "./helpers.js";

const cli = useCliProject("settle-pi-races-rpc-stats-");

describe("hapi#1630: the context usage a client reads right after a compact", () => {
	it("hapi#1630: settle --rpc: after compact, the answer and compaction_end carry the estimated size, get_session_stats says unknown (not the old size) until the next answer, then that answer's usage", async () => {
		const server = await startWireServer((request, next) =>
			isChatSummaryRequest(request) ? chatReply([{ type: "text", text: "## Goal\nthe summary" }]) : next(),
		);
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				compat: { supportsDeveloperRole: false },
				models: [{ id: "coder", contextWindow: 200_000 }],
			});
			// Everything but the last exchange is summarized.
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
			server.reply(
				chatReply([{ type: "text", text: "first answer" }], { usage: { prompt: 100_000, completion: 100 } }),
				chatReply([{ type: "text", text: "second answer" }], { usage: { prompt: 150_000, completion: 100 } }),
				chatReply([{ type: "text", text: "after the compaction" }], { usage: { prompt: 2_000, completion: 50 } }),
			);
			const client = new RpcClient(["--model", "local/coder", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			await rpcPrompt(client, "p1", "first question");
			await rpcPrompt(client, "p2", "second question");
			const before = await rpcContextUsage(client, "s1");
			expect(before?.tokens).toBeGreaterThanOrEqual(150_100);
			// Three quarters of the window: below the auto-compaction threshold (window minus its reserve).
			expect(before?.percent).toBeGreaterThan(75);

			const compaction = client.next((line) => line.type === "compaction_end");
			const compacted = (await client.request({ id: "c", type: "compact" })) as {
				success: boolean;
				data: { tokensBefore: number; estimatedTokensAfter?: number };
			};
			expect(compacted.success).toBe(true);
			const after = compacted.data.estimatedTokensAfter;
			expect(after).toBeGreaterThan(0);
			expect(after).toBeLessThan(compacted.data.tokensBefore);
			expect(await compaction).toMatchObject({ result: { estimatedTokensAfter: after } });
			// Unknown until the next answer: never the pre-compaction size.
			expect(await rpcContextUsage(client, "s2")).toEqual({ tokens: null, contextWindow: 200_000, percent: null });

			await rpcPrompt(client, "p3", "go on");
			const fresh = await rpcContextUsage(client, "s3");
			expect(fresh?.tokens).toBeGreaterThanOrEqual(2_050);
			expect(fresh?.tokens).toBeLessThan(10_000);
			expect(await client.end()).toBe(0);
			expect(client.stderr).toBe("");
		} finally {
			await server.close();
		}
	});
});
