/**
 * `/session` in `settle -i` and RPC `get_session_stats` on the same session file (real child
 * processes): the same message counts, tokens and cost, cache-warming refreshes and the summary
 * call included; `/session` also splits them by model.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Usage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { RpcClient, useCliProject, writeLocalProvider } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-session-stats-");

function usage(input: number, output: number, cacheRead: number, cacheWrite: number, total: number): Usage {
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: input + output + cacheRead + cacheWrite,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
	};
}

/** A session with two exchanges (one with a tool call), two cache-warming refreshes and a compaction. */
function writeSession(): string {
	const sm = SessionManager.create(cli.project, join(cli.dir, "sessions"));
	sm.appendMessage({ role: "user", content: "read it", timestamp: 1 });
	const call = fauxAssistantMessage([fauxToolCall("read", { path: "a.txt" })], { stopReason: "toolUse" });
	sm.appendMessage({ ...call, usage: usage(100, 20, 0, 900, 0.0125) });
	sm.appendMessage({
		role: "toolResult",
		toolCallId: (call.content[0] as { id: string }).id,
		toolName: "read",
		content: [{ type: "text", text: "contents" }],
		isError: false,
		timestamp: 2,
	});
	sm.appendMessage({ ...fauxAssistantMessage("It says hello."), usage: usage(10, 7, 900, 0, 0.003) });
	sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(0, 1, 1000, 0, 0.0003));
	const second = sm.appendMessage({ role: "user", content: "and now?", timestamp: 3 });
	sm.appendMessage({ ...fauxAssistantMessage("Still hello."), usage: usage(30, 4, 1000, 50, 0.0021) });
	sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(0, 1, 1080, 0, 0.0004));
	// The first exchange is compacted away; its answers leave the counts, the summary call is added.
	sm.appendCompaction("summary", second, 1200, undefined, false, usage(1200, 80, 0, 0, 0.005));
	const file = sm.getSessionFile()!;
	sm.close();
	return file;
}

/** `/session` in `settle -i` and RPC `get_session_stats`, each a process of its own, on {@link writeSession}'s file. */
async function statsOfWrittenSession() {
	const file = writeSession();
	const chat = new Repl(["--faux", "--session", file], { cwd: cli.project, agentDir: cli.agentDir });
	await chat.idle(0);
	const info = await chat.say("/session");
	expect(await chat.end()).toBe(0);

	const server = new RpcClient(["--faux", "--session", file], { cwd: cli.project, agentDir: cli.agentDir });
	const response = await server.request({ id: "1", type: "get_session_stats" });
	expect(await server.end()).toBe(0);
	return { info, response };
}

describe("/session and RPC get_session_stats", () => {
	it("show the same numbers, cache-warming refreshes and the summary call included", async () => {
		const { info, response } = await statsOfWrittenSession();
		const stats = response.data as {
			totalMessages: number;
			userMessages: number;
			assistantMessages: number;
			toolResults: number;
			toolCalls: number;
			tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
			cost: number;
		};

		// The context: the summary, the second prompt and its answer. Tokens and cost: that answer,
		// both refreshes and the summary call.
		expect(stats).toMatchObject({
			totalMessages: 3,
			userMessages: 1,
			assistantMessages: 1,
			toolResults: 0,
			toolCalls: 0,
			tokens: { input: 1230, output: 86, cacheRead: 3080, cacheWrite: 50, total: 4446 },
		});
		expect(stats.cost).toBeCloseTo(0.0021 + 0.0003 + 0.0004 + 0.005, 12);

		const other = stats.totalMessages - stats.userMessages - stats.assistantMessages - stats.toolResults;
		const t = stats.tokens;
		expect(info).toContain(
			`  messages: ${stats.totalMessages} in context (${stats.userMessages} yours, ${stats.assistantMessages} answers, ${stats.toolResults} tool results, ${other} other; ${stats.toolCalls} tool calls)\n`,
		);
		expect(info).toContain(
			`  tokens: ${t.total} (input ${t.input}, output ${t.output}, cache read ${t.cacheRead}, cache write ${t.cacheWrite}), cost $${stats.cost.toFixed(4)}\n`,
		);
		// The SDK's per-model split (pi 1.6's /session breakdown), most expensive first: the summary
		// call, the answer in the context, both refreshes. RPC keeps pi 0.73.1's shape without it.
		expect(info).toContain(
			[
				"  by model:",
				"    Tools/summaries: $0.0050 (1280 tokens)",
				"    faux/faux-1: $0.0021 (1084 tokens)",
				"    anthropic/claude-sonnet-4-5: $0.0007 (2082 tokens)\n",
			].join("\n"),
		);
		expect(stats).not.toHaveProperty("byModel");
	});

	it("gsd-2#1423: carry the cumulative tokens and cost of every model call in the file, the compacted-away exchange included", async () => {
		const { info, response } = await statsOfWrittenSession();
		const { cumulative } = response.data as { cumulative: { tokens: Record<string, number>; cost: number } };
		// All three answers, both refreshes and the summary call: nothing the compaction replaced is lost.
		expect(cumulative.tokens).toEqual({ input: 1340, output: 113, cacheRead: 3980, cacheWrite: 950, total: 6383 });
		expect(cumulative.cost).toBeCloseTo(0.0125 + 0.003 + 0.0003 + 0.0021 + 0.0004 + 0.005, 12);
		expect(info).toContain("  spent: $0.0233 (6383 tokens) in this session file, all branches\n");
	});

	it("/session rounds the context percentage half up as read: 41,050 of 100,000 tokens is 41.1%, not toFixed's 41.0%", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 100_000 }] });
			server.reply(chatReply([{ type: "text", text: "an answer" }], { usage: { prompt: 41_000, completion: 50 } }));
			const chat = new Repl(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
			await chat.idle(0);
			await chat.say("a question", "an answer");
			expect(await chat.say("/session", "context:")).toContain("  context: 41050 of 100000 tokens (41.1%)\n");
			expect(await chat.end()).toBe(0);
		} finally {
			await server.close();
		}
	});
});
