/**
 * Reports about token counts and cost (per answer, in `get_session_stats`, in the context meter),
 * replayed against a real `settle --rpc` child process on a local OpenAI-compatible endpoint
 * (test/llm/wire/server.ts): what a host reads is taken off the process's output lines.
 *
 * pi#2148 (also pi_agent_rust#121, a pi port): OpenAI-style usage counts the cached prefix inside
 * `prompt_tokens`; a client that took `prompt_tokens` as the uncached input and added
 * `cached_tokens` again as cache reads counted (and billed) every cached token twice — the
 * port reported 1.77M input beside 1.61M cache reads for one 130k-token conversation. What the
 * host should see: `input` is the uncached remainder, each token is counted once in the answer's
 * usage, its cost, the session's totals and the context meter.
 *
 * pilish#7 (pilish, an Emacs front end to pi over RPC): after aborting a streaming answer the
 * context meter dropped to 0%, because the aborted answer's usage (zeros, or partial) was taken
 * as the context's size. What the host should see: `get_session_stats` after the abort still
 * counts the last complete answer's usage (plus the estimate of what came after it), never 0.
 *
 * pi#4385: an answer that arrived with no `usage` object at all (a provider or passthrough that
 * reports none) crashed pi's compaction check after the answer (`Cannot read properties of
 * undefined (reading 'totalTokens')`). What the user should see: the answer kept, the context
 * measured by estimate (a number, never NaN or a crash), and the session answering the next prompt.
 *
 * pi#7688: on `openrouter/auto-beta` pi's footer showed a cost of `$-58035.000`: the catalog gives
 * the router (whose price depends on the model it picks) `-1000000` a million as a placeholder, and
 * each answer was priced with it. What the user should see: no negative cost — the answer's cost
 * unknown (0, as a model without prices), its tokens counted, the session's cost 0.
 *
 * pi#1441 (a pi PR, with markusylisiurunen/tau#452, a pi-style agent): the context estimate
 * counted a user message's inline image as 0 tokens (compaction came too late), and in tau the
 * image's base64 as text (a 2.5 MB screenshot became ~580k tokens and compacted at once). What the
 * user should see: each image counted as a fixed 1200 tokens, whatever its size.
 *
 * openclaw#14979 (fixed by openclaw#15018, a pi embedder): the session's context size was taken
 * from the usage summed over every model call of a run (a tool loop's calls added up), so a run of
 * two calls showed about twice the context. What the host should see: the context meter is the
 * last call's usage; the summed tokens belong to the session's totals (what was billed).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatEvents, chatReply } from "../llm/wire/openai.js";
import { sse, startWireServer } from "../llm/wire/server.js";
import { rpcPrompt } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-tokens-");

interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

interface Stats {
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	cost: number;
	contextUsage?: { tokens: number | null; percent: number | null; contextWindow: number };
}

/** The assistant messages the process reported (`message_end`), in order. */
function answers(client: RpcClient): { stopReason: string; usage?: Usage }[] {
	return client.lines
		.filter((line) => line.type === "message_end" && (line.message as { role?: string })?.role === "assistant")
		.map((line) => line.message as { stopReason: string; usage?: Usage });
}

function startClient(): RpcClient {
	return new RpcClient(["--model", "local/coder", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
}

async function stats(client: RpcClient, id: string): Promise<Stats> {
	return ((await client.request({ id, type: "get_session_stats" })) as { data: Stats }).data;
}

describe("pi#2148, pi_agent_rust#121: cached prompt tokens reported inside prompt_tokens", () => {
	it("pi#2148: settle --rpc: prompt_tokens 2006 of which 1920 cached: input 86, cacheRead 1920, each token counted and billed once in the answer, the session stats and the context meter", async () => {
		const server = await startWireServer();
		try {
			// Dollars per million tokens: cached input at a tenth of the price.
			const prices = { input: 2, output: 8, cacheRead: 0.2, cacheWrite: 0 };
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [{ id: "coder", contextWindow: 100_000, cost: prices }],
			});
			server.reply(
				chatReply([{ type: "text", text: "cached answer" }], {
					usage: { prompt: 2006, completion: 300, cached: 1920 },
				}),
			);
			const client = startClient();
			await rpcPrompt(client, "p1", "the question");
			const usage = answers(client).at(-1)?.usage;
			expect(usage).toMatchObject({ input: 86, cacheRead: 1920, output: 300, cacheWrite: 0, totalTokens: 2306 });
			const expectedCost = (86 * 2 + 300 * 8 + 1920 * 0.2) / 1_000_000;
			expect(usage?.cost.input).toBeCloseTo((86 * 2) / 1_000_000, 12);
			expect(usage?.cost.cacheRead).toBeCloseTo((1920 * 0.2) / 1_000_000, 12);
			expect(usage?.cost.total).toBeCloseTo(expectedCost, 12);

			const session = await stats(client, "s1");
			expect(session.tokens).toEqual({ input: 86, output: 300, cacheRead: 1920, cacheWrite: 0, total: 2306 });
			expect(session.cost).toBeCloseTo(expectedCost, 12);
			// The context is the prompt plus the answer, the cached prefix once.
			expect(session.contextUsage?.tokens).toBe(2306);
			client.child.stdin.end();
			await client.exited;
		} finally {
			await server.close();
		}
	});
});

describe("pilish#7: the context meter after aborting a streaming answer", () => {
	it("pilish#7: settle --rpc: an answer streaming when the host aborts: get_session_stats still counts the last complete answer's usage, never 0", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 100_000 }] });
			server.reply(
				chatReply([{ type: "text", text: "first answer" }], { usage: { prompt: 40_000, completion: 100 } }),
				// Streams a first piece of text, then stays open: the host aborts it.
				sse(chatEvents([{ type: "text", text: "a long answer in the making" }]).slice(0, 2), "hang"),
			);
			const client = startClient();
			await rpcPrompt(client, "p1", "first question");
			const before = (await stats(client, "s1")).contextUsage;
			expect(before?.tokens).toBe(40_100);

			const streaming = client.next((line) => line.type === "message_update");
			const settled = client.next((line) => line.type === "agent_settled");
			expect(await client.request({ id: "p2", type: "prompt", message: "second question" })).toMatchObject({
				success: true,
			});
			await streaming;
			expect(await client.request({ id: "a", type: "abort" })).toMatchObject({ success: true });
			await settled;
			expect(answers(client).at(-1)?.stopReason).toBe("aborted");

			const after = (await stats(client, "s2")).contextUsage;
			// The last complete answer's usage, plus the estimate of the messages after it.
			expect(after?.tokens).toBeGreaterThanOrEqual(40_100);
			expect(after?.percent).toBeGreaterThanOrEqual(40);
			client.child.stdin.end();
			await client.exited;
		} finally {
			await server.close();
		}
	});
});

describe("pi#4385: an answer with no usage object at all", () => {
	it("pi#4385: settle --rpc --session <file>: the last answer saved without usage (stopReason stop): stats and context meter give numbers, the next prompt is answered", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 100_000 }] });
			const file = join(cli.dir, "no-usage.jsonl");
			const at = "2026-05-11T10:00:00.000Z";
			const entries = [
				{ type: "session", version: 3, id: "no-usage-session", timestamp: at, cwd: cli.project },
				{
					type: "message",
					id: "u1",
					parentId: null,
					timestamp: at,
					message: { role: "user", content: "x".repeat(4000), timestamp: 1 },
				},
				{
					type: "message",
					id: "a1",
					parentId: "u1",
					timestamp: at,
					// What a passthrough provider that reported no usage left behind: no `usage` key.
					message: {
						role: "assistant",
						content: [{ type: "text", text: "answer without usage" }],
						api: "openai-completions",
						provider: "local",
						model: "coder",
						stopReason: "stop",
						timestamp: 2,
					},
				},
			];
			writeFileSync(file, `${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
			server.reply(
				chatReply([{ type: "text", text: "the next answer" }], { usage: { prompt: 1_500, completion: 20 } }),
			);
			const client = new RpcClient(["--model", "local/coder", "--session", file], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			const before = await stats(client, "s1");
			// Measured by estimate: 4000 characters of prompt and the answer's text, a number.
			expect(before.contextUsage?.tokens).toBeGreaterThanOrEqual(1000);
			expect(Number.isFinite(before.contextUsage?.percent)).toBe(true);
			expect(Number.isFinite(before.cost)).toBe(true);

			await rpcPrompt(client, "p1", "go on");
			expect(server.requests).toHaveLength(1);
			const last = answers(client).at(-1);
			expect(last?.stopReason).toBe("stop");
			const after = await stats(client, "s2");
			expect(after.contextUsage?.tokens).toBe(1_520);
			client.child.stdin.end();
			await client.exited;
		} finally {
			await server.close();
		}
	});
});

describe("pi#7688: negative cost reported for openrouter/auto", () => {
	it("pi#7688: settle --rpc on openrouter/openrouter/auto (the catalog's price is -1000000 a million, a placeholder): the answer's and the session's cost are 0 (unknown), never negative; the tokens are still counted", async () => {
		const server = await startWireServer();
		try {
			mkdirSync(cli.agentDir, { recursive: true });
			writeFileSync(
				join(cli.agentDir, "models.json"),
				JSON.stringify({ providers: { openrouter: { baseUrl: `${server.url}/api/v1`, apiKey: "router-key" } } }),
			);
			server.reply(
				chatReply([{ type: "text", text: "routed answer" }], { usage: { prompt: 56_000, completion: 2_300 } }),
			);
			const client = new RpcClient(["--model", "openrouter/openrouter/auto", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			await rpcPrompt(client, "p1", "hi");
			expect(server.requests[0]?.body.model).toBe("openrouter/auto");
			const usage = answers(client).at(-1)?.usage;
			expect(usage).toMatchObject({ input: 56_000, output: 2_300 });
			// The placeholder is no price: the cost is unknown and counts 0, as a model without prices.
			expect(usage?.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
			const session = await stats(client, "s1");
			expect(session.tokens.total).toBe(58_300);
			expect(session.cost).toBe(0);
			client.child.stdin.end();
			await client.exited;
		} finally {
			await server.close();
		}
	});
});

describe("pi#1441, markusylisiurunen/tau#452: images in the context estimate", () => {
	it("pi#1441: settle --rpc: a prompt carrying a 2 MB image, its answer aborted: the context counts the image as 1200 tokens, neither 0 nor its base64 length as text", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [{ id: "coder", contextWindow: 100_000, input: ["text", "image"] }],
			});
			server.reply(
				chatReply([{ type: "text", text: "first answer" }], { usage: { prompt: 10_000, completion: 100 } }),
				sse(chatEvents([{ type: "text", text: "looking at it" }]).slice(0, 2), "hang"),
			);
			const client = startClient();
			await rpcPrompt(client, "p1", "first question");
			const streaming = client.next((line) => line.type === "message_update");
			const settled = client.next((line) => line.type === "agent_settled");
			// 2,000,000 characters of base64 (a 1×1 PNG's header, then filler): 500,000 tokens if it were counted as text.
			const header = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ";
			const image = { type: "image", mimeType: "image/png", data: header + "A".repeat(2_000_000 - header.length) };
			expect(
				await client.request({ id: "p2", type: "prompt", message: "what is in it?", images: [image] }),
			).toMatchObject({ success: true });
			await streaming;
			expect(await client.request({ id: "a", type: "abort" })).toMatchObject({ success: true });
			await settled;
			const sent = JSON.stringify(server.requests[1]?.body.messages);
			expect(sent).toContain("A".repeat(1000));

			const usage = (await stats(client, "s1")).contextUsage;
			// The last answer's 10,100, the image's 1200 and a few tokens of text.
			expect(usage?.tokens).toBeGreaterThanOrEqual(10_100 + 1200);
			expect(usage?.tokens).toBeLessThan(10_100 + 1200 + 100);
			client.child.stdin.end();
			await client.exited;
		} finally {
			await server.close();
		}
	});
});

describe("openclaw#14979 (fixed by openclaw#15018): the context size after a run of several model calls", () => {
	it("openclaw#14979: settle --rpc: a prompt answered in two calls (a read, then the answer): the context meter is the last call's usage, the session's tokens the sum of both", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 100_000 }] });
			writeFileSync(join(cli.project, "notes.txt"), "a short note\n");
			server.reply(
				chatReply([{ type: "tool_call", id: "call_1", name: "read", arguments: { path: "notes.txt" } }], {
					finishReason: "tool_calls",
					usage: { prompt: 30_000, completion: 50 },
				}),
				chatReply([{ type: "text", text: "the note says hi" }], { usage: { prompt: 30_100, completion: 20 } }),
			);
			const client = startClient();
			await rpcPrompt(client, "p1", "read the notes");
			expect(server.requests).toHaveLength(2);
			expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("a short note");
			const session = await stats(client, "s1");
			// The context is what the last request held plus its answer, not the run's two calls summed.
			expect(session.contextUsage?.tokens).toBe(30_120);
			expect(session.tokens).toMatchObject({ input: 60_100, output: 70, total: 60_170 });
			client.child.stdin.end();
			await client.exited;
		} finally {
			await server.close();
		}
	});
});
