/**
 * Reports about the context meter after a model switch, replayed against a real `settle --rpc`
 * child process on a local OpenAI-compatible endpoint (test/llm/wire/server.ts) that reports usage.
 *
 * openchamber#2166 (also artokun/comfyui-mcp#543): after switching from a large-window model to a
 * smaller one, the context meter kept the old model's percentage until the next message was sent;
 * the user sent, trusting the headroom, and the next answer found the context near full (or an
 * unexpected compaction ran). What the host should see: right after `set_model`, before any
 * request, `get_session_stats` measures the same tokens against the new model's window, and again
 * against the old one after switching back; the next answer's usage is measured against the window
 * of the model that gave it.
 */
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { rpcContextUsage, rpcPrompt } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-model-switch-");

describe("openchamber#2166: the context meter right after a switch to a smaller model", () => {
	it("openchamber#2166: settle --rpc: after set_model to a 64k model, before any request, get_session_stats gives the same tokens against 64k (62.7%, not 20%); switching back gives 20% again; the next answer is measured against its model's window", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [
					{ id: "big", contextWindow: 200_000 },
					{ id: "small", contextWindow: 64_000 },
				],
			});
			server.reply(
				chatReply([{ type: "text", text: "answered by the big model" }], {
					usage: { prompt: 40_000, completion: 100 },
				}),
				chatReply([{ type: "text", text: "answered by the small model" }], {
					usage: { prompt: 40_200, completion: 300 },
				}),
			);
			const client = new RpcClient(["--model", "local/big", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			const switchTo = async (id: string, modelId: string) =>
				expect(await client.request({ id, type: "set_model", provider: "local", modelId })).toMatchObject({
					success: true,
				});

			await rpcPrompt(client, "p1", "first question");
			const onBig = await rpcContextUsage(client, "s1");
			expect(onBig).toMatchObject({ tokens: 40_100, contextWindow: 200_000 });
			expect(onBig?.percent).toBeCloseTo(20.05, 10);

			await switchTo("m1", "small");
			const onSmall = await rpcContextUsage(client, "s2");
			expect(server.requests).toHaveLength(1);
			expect(onSmall).toMatchObject({ tokens: 40_100, contextWindow: 64_000 });
			expect(onSmall?.percent).toBeCloseTo((40_100 / 64_000) * 100, 10);

			await switchTo("m2", "big");
			const back = await rpcContextUsage(client, "s3");
			expect(back).toMatchObject({ tokens: 40_100, contextWindow: 200_000 });
			expect(back?.percent).toBeCloseTo(20.05, 10);

			// 40,100 tokens are under the small model's threshold (64,000 − 16,384): no compaction, one answer.
			await switchTo("m3", "small");
			await rpcPrompt(client, "p2", "second question");
			expect(server.requests).toHaveLength(2);
			expect(server.requests[1]?.body?.model).toBe("small");
			const answered = await rpcContextUsage(client, "s4");
			expect(answered).toMatchObject({ tokens: 40_500, contextWindow: 64_000 });
			expect(answered?.percent).toBeCloseTo((40_500 / 64_000) * 100, 10);
			expect(await client.end()).toBe(0);
			expect(client.stderr).toBe("");
		} finally {
			await server.close();
		}
	});
});
