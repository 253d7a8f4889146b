/**
 * oh-my-pi#7379 (the review of its RPC run ledger): a client that sends `compact` while a prompt
 * streams. omp's manual compaction stopped listening to the agent before aborting the turn, so the
 * RPC stream never carried that turn's terminal `agent_end`: a client waiting for the run's end
 * waited until some later prompt. What the client should see: the run ends on stdout (`agent_end`,
 * aborted, then `agent_settled`), the compaction runs after it and `compact` answers, and the
 * session is idle. Against a real `settle --rpc` on a local OpenAI-compatible
 * server whose answer stream stays open.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatPartial, chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-rpc-compact-mid-run-");

describe("oh-my-pi#7379: compact sent while a prompt streams left the run without its agent_end", () => {
	it("oh-my-pi#7379: settle --rpc: compact while the answer streams: agent_end (aborted) and agent_settled come before compaction_start, compact answers success, get_state idle", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			// Recent turns kept small: the earlier exchange is summarized.
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 10 } }));
			server.reply(
				chatReply([{ type: "text", text: `An earlier answer: ${"words ".repeat(200)}` }]),
				// The answer streams, then its stream stays open: the run is mid-answer until cut.
				chatPartial([{ type: "text", text: "Half of the report" }], 3, "hang"),
				chatReply([{ type: "text", text: "## Goal\nThe report." }]),
			);
			const client = new RpcClient(["--model", "local/coder", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			const first = client.next((line) => line.type === "agent_settled");
			client.send({ id: "p0", type: "prompt", message: "say something first" });
			await first;
			const streaming = client.next((line) => line.type === "message_update");
			client.send({ id: "p1", type: "prompt", message: "write the report" });
			await streaming;
			const compacted = client.next((line) => line.id === "c");
			client.send({ id: "c", type: "compact" });
			const answer = await compacted;
			expect(answer).toMatchObject({ type: "response", command: "compact", success: true });
			const state = client.next((line) => line.id === "s");
			client.send({ id: "s", type: "get_state" });
			expect(await state).toMatchObject({ data: { isStreaming: false, isCompacting: false } });
			expect(await client.end()).toBe(0);

			const types = client.lines.map((line) => line.type);
			const afterSecond = types.slice(types.indexOf("response", types.indexOf("agent_settled")));
			const order = afterSecond.filter((type) =>
				["agent_end", "compaction_start", "compaction_end", "agent_settled"].includes(type as string),
			);
			// The aborted run ends and settles on stdout first; the compaction then runs on its own.
			expect(order).toEqual(["agent_end", "agent_settled", "compaction_start", "compaction_end"]);
			const end = client.lines.filter((line) => line.type === "agent_end").at(-1) as {
				messages: { role: string; stopReason?: string }[];
			};
			expect(end.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
			// No run was started after the compaction: only summary requests followed the cut answer.
			expect(client.lines.filter((line) => line.type === "agent_start")).toHaveLength(2);
		} finally {
			await server.close();
		}
	});
});
