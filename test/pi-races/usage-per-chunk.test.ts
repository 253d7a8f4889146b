/**
 * Reports about how a streamed answer's usage is read, replayed against a real `settle --rpc`
 * child process on a local endpoint (test/llm/wire/server.ts) reached through pi-ai's clients:
 * what a host reads is taken off the process's output lines.
 *
 * anomalyco/opencode#17566 (also browser-use/browser-use#4065): OpenAI reports reasoning tokens in
 * `completion_tokens_details.reasoning_tokens`, a part of `completion_tokens`; counted again beside
 * them, each reasoning token was billed twice (gpt-5.4-pro: 14,746 input and 1,944 output tokens,
 * 1,360 of them reasoning, cost $0.7923; opencode showed about $1.04). What the user should see:
 * output 1,944, cost $0.7923, in the answer and in the session's totals.
 *
 * docker/docker-agent#1855 (also ax-llm/ax#516): Gemini sends `usageMetadata` on every streamed
 * chunk, each a running total; added up chunk by chunk, the tokens and cost were multiplied by the
 * number of chunks. What the user should see: the last chunk's totals, once.
 *
 * router-for-me/CLIProxyAPI#3077: OpenAI-compatible servers (DeepSeek, Kimi) put a `usage` object
 * on every streamed chunk, zeros until the chunk that carries `finish_reason`, with no trailing
 * usage-only chunk; the first (zero) usage was kept and every answer counted 0 tokens. What the
 * user should see: the finishing chunk's usage.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { writeGeminiProvider } from "../llm/wire/gemini.js";
import { chatEvents } from "../llm/wire/openai.js";
import { type SseEvent, sse, startWireServer, type WireServer } from "../llm/wire/server.js";
import { rpcPrompt } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-per-chunk-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	totalTokens: number;
	cost: { output: number; total: number };
}

interface Stats {
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	cost: number;
	contextUsage?: { tokens: number | null };
}

function lastAnswer(client: RpcClient): { usage?: Usage } | undefined {
	return client.lines
		.filter((line) => line.type === "message_end" && (line.message as { role?: string })?.role === "assistant")
		.map((line) => line.message as { usage?: Usage })
		.at(-1);
}

async function stats(client: RpcClient): Promise<Stats> {
	return ((await client.request({ id: "s", type: "get_session_stats" })) as { data: Stats }).data;
}

describe("opencode#17566, browser-use#4065: OpenAI reasoning tokens are part of completion_tokens", () => {
	it("opencode#17566: settle --rpc: 14,746 prompt and 1,944 completion tokens, 1,360 of them reasoning: output 1,944, cost $0.7923 in the answer and the session's totals", async () => {
		server = await startWireServer();
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [{ id: "coder", reasoning: true, contextWindow: 400_000, cost: { input: 30, output: 180 } }],
		});
		const events = chatEvents(
			[
				{ type: "reasoning", text: "thinking it over" },
				{ type: "text", text: "the answer" },
			],
			{ usage: { prompt: 14_746, completion: 1_944 } },
		);
		// The usage chunk as OpenAI sends it for a reasoning model: the reasoning part broken out.
		const usageChunk = events.find((event) => (event.data as { usage?: unknown })?.usage) as SseEvent;
		Object.assign((usageChunk.data as { usage: object }).usage, {
			completion_tokens_details: { reasoning_tokens: 1_360 },
		});
		server.reply(sse(events));
		const client = new RpcClient(["--model", "local/coder", "--no-session"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await rpcPrompt(client, "p1", "the question");
		const cost = (14_746 * 30 + 1_944 * 180) / 1e6;
		expect(cost.toFixed(4)).toBe("0.7923");
		const usage = lastAnswer(client)?.usage;
		expect(usage).toMatchObject({ input: 14_746, output: 1_944, totalTokens: 16_690 });
		expect(usage?.cost.output).toBeCloseTo((1_944 * 180) / 1e6, 12);
		expect(usage?.cost.total).toBeCloseTo(cost, 12);
		const session = await stats(client);
		expect(session.tokens).toEqual({ input: 14_746, output: 1_944, cacheRead: 0, cacheWrite: 0, total: 16_690 });
		expect(session.cost).toBeCloseTo(cost, 12);
		expect(session.contextUsage?.tokens).toBe(16_690);
		client.child.stdin.end();
		await client.exited;
	});
});

describe("docker-agent#1855, ax#516: Gemini's usage on every chunk is a running total", () => {
	it("docker-agent#1855: settle --rpc: three chunks each carrying the running usage (prompt 1,000; 2, 4, then 6 candidate tokens and 30 thought tokens): the answer counts 1,000 input and 36 output once", async () => {
		server = await startWireServer();
		writeGeminiProvider(cli.agentDir, server.url, { contextWindow: 1_000_000, cost: { input: 2, output: 12 } });
		const chunk = (text: string, candidates: number, finish?: string): SseEvent => ({
			data: {
				candidates: [
					{ content: { role: "model", parts: [{ text }] }, index: 0, ...(finish ? { finishReason: finish } : {}) },
				],
				usageMetadata: {
					promptTokenCount: 1_000,
					candidatesTokenCount: candidates,
					thoughtsTokenCount: 30,
					totalTokenCount: 1_030 + candidates,
				},
				modelVersion: "gemini-wire",
			},
		});
		server.reply(sse([chunk("one ", 2), chunk("two ", 4), chunk("three", 6, "STOP")]));
		const client = new RpcClient(["--model", "gem/gemini-wire", "--no-session"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await rpcPrompt(client, "p1", "count to three");
		const cost = (1_000 * 2 + 36 * 12) / 1e6;
		expect(lastAnswer(client)?.usage).toMatchObject({ input: 1_000, output: 36, totalTokens: 1_036 });
		expect(lastAnswer(client)?.usage?.cost.total).toBeCloseTo(cost, 12);
		const session = await stats(client);
		expect(session.tokens).toEqual({ input: 1_000, output: 36, cacheRead: 0, cacheWrite: 0, total: 1_036 });
		expect(session.cost).toBeCloseTo(cost, 12);
		expect(session.contextUsage?.tokens).toBe(1_036);
		client.child.stdin.end();
		await client.exited;
	});
});

describe("CLIProxyAPI#3077: zero usage on every chunk until the finishing one", () => {
	it("CLIProxyAPI#3077: settle --rpc: zero usage on each chunk, then 3,000 prompt (1,000 cached) and 200 completion tokens on the finish_reason chunk: the answer and the session count those", async () => {
		server = await startWireServer();
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [{ id: "coder", contextWindow: 128_000, cost: { input: 2, output: 8, cacheRead: 0.5 } }],
		});
		const events = chatEvents([{ type: "text", text: "the whole answer" }], {
			usage: { prompt: 3_000, completion: 200, cached: 1_000 },
		});
		// No trailing usage-only chunk: its usage goes on the finishing chunk, zeros on the ones before.
		const [usageChunk] = events.splice(-2, 1) as [SseEvent];
		const real = (usageChunk.data as { usage: object }).usage;
		const zero = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
		events.slice(0, -1).forEach((event, index, chunks) => {
			(event.data as { usage: object }).usage = index === chunks.length - 1 ? real : zero;
		});
		server.reply(sse(events));
		const client = new RpcClient(["--model", "local/coder", "--no-session"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await rpcPrompt(client, "p1", "the question");
		const cost = (2_000 * 2 + 200 * 8 + 1_000 * 0.5) / 1e6;
		expect(lastAnswer(client)?.usage).toMatchObject({
			input: 2_000,
			output: 200,
			cacheRead: 1_000,
			totalTokens: 3_200,
		});
		expect(lastAnswer(client)?.usage?.cost.total).toBeCloseTo(cost, 12);
		const session = await stats(client);
		expect(session.tokens).toEqual({ input: 2_000, output: 200, cacheRead: 1_000, cacheWrite: 0, total: 3_200 });
		expect(session.cost).toBeCloseTo(cost, 12);
		expect(session.contextUsage?.tokens).toBe(3_200);
		client.child.stdin.end();
		await client.exited;
	});
});
