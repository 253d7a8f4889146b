/**
 * Reports about the numbers a host shows for a session it reopened or branched, replayed against
 * real `settle --rpc` child processes on one session file and a local OpenAI-compatible endpoint
 * (test/llm/wire/server.ts) that reports usage on every answer.
 *
 * pilish#65 (pilish, an Emacs front end to pi over RPC), gemini-cli#15486, mistral-vibe#712: after
 * resuming a session (or branching it) the context meter showed 0% — or "100% left" — and the
 * session's totals started again from zero until the next answer arrived; the history was loaded
 * but its usage was not. What the host should see: the reopened process reports, before any new
 * request, the context size of the last answer and the same tokens, cost and money spent as the
 * process that wrote the file; a fork reports the context and usage of the answers it kept.
 *
 * netease-lcap/wave-agent#2159: a session-start hook appended a message without usage when a
 * session was resumed, and the meter read only the last message's usage: 0. What the host should
 * see: the last answer's usage plus the estimate of what came after it.
 *
 * Kilo-Org/cloud#6272: after `/compact` the context indicator went back to the pre-compaction
 * percentage, also once the session was left and reopened. What the host should see: no figure
 * (unknown) until the next answer on the compacted context, in the reopened process too.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type Router, startWireServer } from "../llm/wire/server.js";
import { isChatSummaryRequest, rpcPrompt } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-after-resume-");

interface Stats {
	userMessages: number;
	assistantMessages: number;
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	cost: number;
	contextUsage?: { tokens: number | null; percent: number | null; contextWindow: number };
	cumulative: { tokens: { total: number }; cost: number };
}

/** Dollars per million tokens. */
const PRICES = { input: 2, output: 8, cacheRead: 0.2, cacheWrite: 0 };

function rpc(file: string, ...extra: string[]): RpcClient {
	return new RpcClient(["--model", "local/coder", "--session", file, ...extra], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

async function stats(client: RpcClient, id: string): Promise<Stats> {
	return ((await client.request({ id, type: "get_session_stats" })) as { data: Stats }).data;
}

async function close(client: RpcClient): Promise<void> {
	client.child.stdin.end();
	expect(await client.exited).toBe(0);
}

/** A server whose two answers use 40,000 + 100 tokens, then 52,000 (of which 40,000 cached) + 300. */
async function serveTwoAnswers(route?: Router): Promise<{ server: Awaited<ReturnType<typeof startWireServer>> }> {
	const server = await startWireServer(route);
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
		models: [{ id: "coder", contextWindow: 100_000, cost: PRICES }],
	});
	server.reply(
		chatReply([{ type: "text", text: "first answer" }], { usage: { prompt: 40_000, completion: 100 } }),
		chatReply([{ type: "text", text: "second answer" }], {
			usage: { prompt: 52_000, completion: 300, cached: 40_000 },
		}),
	);
	return { server };
}

describe("pilish#65, gemini-cli#15486, mistral-vibe#712: the numbers of a reopened or branched session", () => {
	it("pilish#65: settle --rpc --session <file> reopened: before any request, get_session_stats gives the last answer's context (52%) and the same tokens, cost and spent money as the process that wrote the file", async () => {
		const file = join(cli.dir, "resumed.jsonl");
		const { server } = await serveTwoAnswers();
		try {
			const writer = rpc(file);
			await rpcPrompt(writer, "p1", "first question");
			await rpcPrompt(writer, "p2", "second question");
			const written = await stats(writer, "s1");
			await close(writer);
			// The second answer: 12,000 uncached + 40,000 cached + 300 out.
			expect(written.contextUsage?.tokens).toBe(52_300);
			expect(written.tokens).toEqual({ input: 52_000, output: 400, cacheRead: 40_000, cacheWrite: 0, total: 92_400 });
			const cost = (52_000 * PRICES.input + 400 * PRICES.output + 40_000 * PRICES.cacheRead) / 1_000_000;
			expect(written.cost).toBeCloseTo(cost, 12);

			const reopened = rpc(file);
			const read = await stats(reopened, "s2");
			expect(server.requests).toHaveLength(2);
			expect(read.contextUsage).toMatchObject({ tokens: 52_300, contextWindow: 100_000 });
			expect(read.contextUsage?.percent).toBeCloseTo(52.3, 10);
			expect(read.tokens).toEqual(written.tokens);
			expect(read.cost).toBeCloseTo(cost, 12);
			expect(read.cumulative).toEqual(written.cumulative);
			expect([read.userMessages, read.assistantMessages]).toEqual([2, 2]);
			await close(reopened);
		} finally {
			await server.close();
		}
	});

	it("wave-agent#2159: settle --rpc --session <file> reopened with an extension whose session_start appends a message without usage: the meter is the last answer's usage plus that message's estimate, not 0", async () => {
		const file = join(cli.dir, "resumed-with-note.jsonl");
		const { server } = await serveTwoAnswers();
		try {
			const writer = rpc(file);
			await rpcPrompt(writer, "p1", "first question");
			await rpcPrompt(writer, "p2", "second question");
			await close(writer);

			const extension = join(cli.dir, "resume-note.mjs");
			// 4,000 characters: estimated as 1,000 tokens.
			writeFileSync(
				extension,
				`export default function (pi) {
	pi.on("session_start", async () => {
		await pi.sendMessage({ customType: "resume-note", content: "n".repeat(4000), display: true });
	});
}
`,
			);
			const reopened = rpc(file, "-e", extension);
			// Commands wait for session_start's handlers (pi#8735): the note is in place when this is answered.
			const read = await stats(reopened, "s1");
			expect(server.requests).toHaveLength(2);
			expect(read.contextUsage?.tokens).toBe(52_300 + 1_000);
			expect(read.contextUsage?.percent).toBeCloseTo(53.3, 10);
			await close(reopened);
		} finally {
			await server.close();
		}
	});

	it("pilish#65: settle --rpc fork before the second question: the fork reports the first answer's context (40%) and usage, the one it kept, before any request", async () => {
		const file = join(cli.dir, "branched.jsonl");
		const { server } = await serveTwoAnswers();
		try {
			const client = rpc(file);
			await rpcPrompt(client, "p1", "first question");
			await rpcPrompt(client, "p2", "second question");
			const forkable = (await client.request({ id: "m", type: "get_fork_messages" })) as {
				data: { messages: { entryId: string; text: string }[] };
			};
			const second = forkable.data.messages.find((message) => message.text === "second question");
			expect(second).toBeDefined();
			expect(await client.request({ id: "f", type: "fork", entryId: second!.entryId })).toMatchObject({
				success: true,
				data: { text: "second question", cancelled: false },
			});
			const forked = await stats(client, "s1");
			expect(server.requests).toHaveLength(2);
			expect(forked.contextUsage).toMatchObject({ tokens: 40_100, contextWindow: 100_000 });
			expect(forked.contextUsage?.percent).toBeCloseTo(40.1, 10);
			expect(forked.tokens).toEqual({ input: 40_000, output: 100, cacheRead: 0, cacheWrite: 0, total: 40_100 });
			expect([forked.userMessages, forked.assistantMessages]).toEqual([1, 1]);
			await close(client);
		} finally {
			await server.close();
		}
	});

	it("Kilo-Org/cloud#6272: settle --rpc --session <file> reopened after a compaction, before any request: the meter is unknown (tokens null), not the pre-compaction 52%; the next answer's usage sets it", async () => {
		const file = join(cli.dir, "compacted.jsonl");
		// Summary requests (a split turn asks two) get a summary; the others take the next reply.
		const { server } = await serveTwoAnswers((request, next) =>
			isChatSummaryRequest(request)
				? chatReply([{ type: "text", text: "## Goal\nthe summary" }], { usage: { prompt: 30_000, completion: 500 } })
				: next(),
		);
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		try {
			const writer = rpc(file);
			await rpcPrompt(writer, "p1", "first question");
			await rpcPrompt(writer, "p2", "second question");
			expect(await writer.request({ id: "c1", type: "compact" })).toMatchObject({ success: true });
			const written = await stats(writer, "s1");
			await close(writer);
			expect(written.contextUsage).toEqual({ tokens: null, percent: null, contextWindow: 100_000 });

			const reopened = rpc(file);
			const read = await stats(reopened, "s2");
			expect(read.contextUsage).toEqual({ tokens: null, percent: null, contextWindow: 100_000 });
			// Money spent keeps both answers and the summary requests.
			expect(read.cumulative).toEqual(written.cumulative);
			expect(read.cumulative.tokens.total).toBeGreaterThan(92_400);

			server.reply(chatReply([{ type: "text", text: "third answer" }], { usage: { prompt: 3_000, completion: 50 } }));
			await rpcPrompt(reopened, "p3", "third question");
			expect((await stats(reopened, "s3")).contextUsage).toMatchObject({ tokens: 3_050, contextWindow: 100_000 });
			await close(reopened);
		} finally {
			await server.close();
		}
	});
});
