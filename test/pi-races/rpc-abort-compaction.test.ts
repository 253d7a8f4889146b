/**
 * pi#8920, replayed against a real `settle --rpc` child process on a local OpenAI-compatible
 * endpoint: during a manual `compact`, the client sends `abort`. pi's RPC `abort` answered
 * `success: true` but only aborted the agent run, so the compaction went on summarizing,
 * `get_state.isCompacting` stayed true and a new `prompt` was refused "Cannot submit a prompt while
 * compaction is in progress". What the client should see: the summary request cancelled, the
 * `compact` request answered as failed, the session idle and not compacting, nothing written for
 * the compaction, and the next prompt answered.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, sse, useWireServer } from "../llm/wire/server.js";
import { isChatSummaryRequest } from "./helpers.js";

const cli = useCliProject("settle-pi-races-rpc-compact-");
/** Requests for a compaction summary, in arrival order. */
const summaryRequests: RecordedRequest[] = [];

// A summary request gets a stream that opens and then says nothing (the report's held summary);
// every other request takes the next scripted answer.
const server = useWireServer((request, next) => {
	if (!isChatSummaryRequest(request)) return next();
	summaryRequests.push(request);
	return sse([], "hang");
});
beforeEach(() => {
	summaryRequests.length = 0;
});

describe("pi#8920: RPC abort reports success without cancelling an in-progress compaction", () => {
	it("pi#8920: settle --rpc: abort during a manual compact cancels the summary request; compact fails, isCompacting is false, nothing is written, and the next prompt is answered", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { compat: { supportsDeveloperRole: false } });
		// Everything but the last exchange is summarized: two exchanges give the compaction work to do.
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			chatReply([{ type: "text", text: "second answer" }]),
			chatReply([{ type: "text", text: "answered after the abort" }]),
		);
		const client = new RpcClient(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
		await client.promptAndSettle("first question", "p1");
		await client.promptAndSettle("second question", "p2");
		const { data: before } = (await client.request({ id: "s0", type: "get_state" })) as {
			data: { sessionFile: string };
		};
		const linesBefore = readFileSync(before.sessionFile, "utf8");

		const compacted = client.next((line) => line.type === "response" && line.id === "c");
		client.send({ id: "c", type: "compact" });
		// The summary requests are on the wire and their streams stay silent.
		// The cut falls inside the last turn: the history and the turn's prefix are summarized at once.
		await server.waitForRequests(4);
		expect(summaryRequests).toHaveLength(2);
		expect(await client.request({ id: "s1", type: "get_state" })).toMatchObject({ data: { isCompacting: true } });

		expect(await client.request({ id: "a", type: "abort" })).toMatchObject({ success: true });
		// The abort reached the compaction: its requests were cancelled, and compact answers as failed.
		await server.waitForClientClose(2);
		expect(new Set(server.closedByClient)).toEqual(new Set(summaryRequests));
		expect(await compacted).toMatchObject({ command: "compact", success: false, error: "Compaction cancelled" });
		expect(await client.request({ id: "s2", type: "get_state" })).toMatchObject({
			data: { isCompacting: false, isStreaming: false },
		});
		// Nothing of the cancelled compaction was written.
		expect(readFileSync(before.sessionFile, "utf8")).toBe(linesBefore);

		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p3", type: "prompt", message: "and now this" })).toMatchObject({
			success: true,
		});
		await settled;
		const answers = client.lines
			.filter((line) => line.type === "message_end" && (line.message as { role?: string }).role === "assistant")
			.map((line) => JSON.stringify(line.message));
		expect(answers.at(-1)).toContain("answered after the abort");
		expect(JSON.stringify(client.lines)).not.toMatch(/compaction is in progress/i);
		expect(summaryRequests).toHaveLength(2);
		expect(server.pending()).toBe(0);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});
