/**
 * Reports about the context meter while an answer is on its way, replayed against a real
 * `settle --rpc` child process on a local OpenAI-compatible endpoint (test/llm/wire/server.ts)
 * whose answer streams a first piece of text, then waits for the test before it finishes.
 *
 * dust#25675: while an agent message was processing, the context usage indicator dropped to 0%
 * (the run in progress had no usage yet and its missing numbers were read as 0), then jumped to the
 * real value when the message completed. What the host should see: `get_session_stats` read while
 * the answer streams gives the last complete answer's usage plus the estimate of the new prompt,
 * never 0 or unknown; once the answer ends, that answer's usage.
 */
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatEvents, chatReply } from "../llm/wire/openai.js";
import { encodeSse, type Reply, startWireServer } from "../llm/wire/server.js";
import { rpcContextUsage, rpcPrompt } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-mid-answer-");

describe("dust#25675: the context meter while an answer streams", () => {
	it("dust#25675: settle --rpc: get_session_stats while the second answer streams gives the first answer's 40,100 tokens plus the new prompt's estimate (not 0, not null); after it ends, its own usage", async () => {
		const server = await startWireServer();
		let release = () => {};
		const released = new Promise<void>((resolve) => {
			release = resolve;
		});
		const events = chatEvents([{ type: "text", text: "a long answer in the making" }], {
			usage: { prompt: 41_100, completion: 300 },
		});
		// The first chunks at once, the rest (with the usage) once the test has read the meter.
		const held: Reply = (_request, res) => {
			res.writeHead(200, {
				"content-type": "text/event-stream",
				"cache-control": "no-cache",
				connection: "keep-alive",
			});
			res.write(encodeSse(events.slice(0, 2)));
			void released.then(() => res.end(encodeSse(events.slice(2))));
		};
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 100_000 }] });
			server.reply(
				chatReply([{ type: "text", text: "first answer" }], { usage: { prompt: 40_000, completion: 100 } }),
				held,
			);
			const client = new RpcClient(["--model", "local/coder", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			await rpcPrompt(client, "p1", "first question");
			expect(await rpcContextUsage(client, "s1")).toMatchObject({ tokens: 40_100, contextWindow: 100_000 });

			const streaming = client.next((line) => line.type === "message_update");
			const settled = client.next((line) => line.type === "agent_settled");
			// 4,000 characters: estimated as 1,000 tokens.
			expect(await client.request({ id: "p2", type: "prompt", message: "x".repeat(4_000) })).toMatchObject({
				success: true,
			});
			await streaming;
			const midway = await rpcContextUsage(client, "s2");
			expect(midway?.tokens).toBeGreaterThanOrEqual(41_100);
			expect(midway?.tokens).toBeLessThan(42_000);
			expect(midway?.percent).toBeCloseTo((midway?.tokens ?? 0) / 1_000, 10);

			release();
			await settled;
			expect(await rpcContextUsage(client, "s3")).toMatchObject({ tokens: 41_400, contextWindow: 100_000 });
			expect(await client.end()).toBe(0);
			expect(client.stderr).toBe("");
		} finally {
			release();
			await server.close();
		}
	});
});
