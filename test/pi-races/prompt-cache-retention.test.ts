/**
 * pi#967 (with holaOS#549, an embedder of pi): the prompt cache lasted Anthropic's default 5
 * minutes, so a pause to read the agent's work re-billed the whole prompt (6.8x on identical
 * bytes); `PI_CACHE_RETENTION=long` asks for the longer lifetime (Anthropic `ttl: "1h"`, OpenAI
 * `prompt_cache_retention: "24h"`), and holaOS set it for one API only. Replayed with the real
 * `settle -p` on local Anthropic and OpenAI Responses endpoints, pi-ai's own clients sending.
 *
 * pi#5603 (also pi#5737): Anthropic bills a 1-hour cache write at twice the input price, a
 * 5-minute one at 1.25 times; pi priced every write at the 5-minute rate, so with
 * `PI_CACHE_RETENTION=long` the cost shown was about 0.6 of the writes' bill. What the user should
 * see: the writes of a long-retention answer priced at twice the input price, the default
 * retention's at the catalog's cache-write price.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/llm/types.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { responsesReply } from "../llm/wire/responses.js";
import { useWireServer } from "../llm/wire/server.js";
import { fileEntries, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-prompt-cache-retention-");
const server = useWireServer();

// biome-ignore lint/suspicious/noExplicitAny: request payloads are walked field by field
type Json = any;

/** Every `cache_control` of an Anthropic request body, in order (system, tools, messages). */
function cacheControls(body: Json): unknown[] {
	return [
		...(body.system ?? []),
		...(body.tools ?? []),
		...body.messages.flatMap((message: Json) => (Array.isArray(message.content) ? message.content : [])),
	].flatMap((block: Json) => (block.cache_control ? [block.cache_control] : []));
}

async function prompt(env: Record<string, string | undefined>): Promise<void> {
	const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env,
	});
	expect(run.stderr).toBe("");
	expect(run.code).toBe(0);
}

describe("pi#967, holaOS#549: PI_CACHE_RETENTION=long", () => {
	it("pi#967: settle -p on Anthropic: every breakpoint asks for 1 hour with PI_CACHE_RETENTION=long, the default 5 minutes without", async () => {
		writeLocalProvider(cli.agentDir, server.url, { api: "anthropic-messages" });
		server.reply(anthropicReply([{ type: "text", text: "long" }]), anthropicReply([{ type: "text", text: "short" }]));
		await prompt({ PI_CACHE_RETENTION: "long" });
		await prompt({ PI_CACHE_RETENTION: undefined });
		const [long, short] = server.requests.map((request) => request.body);
		expect(cacheControls(long)).toEqual([
			{ type: "ephemeral", ttl: "1h" },
			{ type: "ephemeral", ttl: "1h" },
			{ type: "ephemeral", ttl: "1h" },
		]);
		expect(cacheControls(short)).toEqual([{ type: "ephemeral" }, { type: "ephemeral" }, { type: "ephemeral" }]);
	});

	it("holaOS#549: settle -p on OpenAI Responses: prompt_cache_retention 24h with PI_CACHE_RETENTION=long, none without", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { api: "openai-responses" });
		server.reply(
			responsesReply([{ type: "message", text: "long" }]),
			responsesReply([{ type: "message", text: "short" }]),
		);
		await prompt({ PI_CACHE_RETENTION: "long" });
		await prompt({ PI_CACHE_RETENTION: undefined });
		const [long, short] = server.requests.map((request) => request.body);
		expect(long.prompt_cache_retention).toBe("24h");
		expect(short).not.toHaveProperty("prompt_cache_retention");
		expect(long.prompt_cache_key).toEqual(expect.any(String));
	});
});

describe("pi#5603, pi#5737: a 1-hour cache write is priced as billed", () => {
	it("pi#5603: settle -p on Anthropic at $3 input / $3.75 cache write: 10,000 tokens written with PI_CACHE_RETENTION=long cost $0.06 (twice the input price), $0.0375 without", async () => {
		writeLocalProvider(cli.agentDir, server.url, {
			api: "anthropic-messages",
			models: [{ id: "coder", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }],
		});
		const usage = { input: 100, output: 50, cacheRead: 0, cacheWrite: 10_000 };
		const answerUsage = async (env: Record<string, string | undefined>) => {
			server.reply(anthropicReply([{ type: "text", text: "cached" }], { usage }));
			const run = await runSettleAsync(["--model", "local/coder", "-p", "hi"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				env,
			});
			expect(run.code).toBe(0);
			const [file] = sessionFilesUnder(cli.agentDir);
			const answer = fileEntries(file!).findLast((entry) => entry.message?.role === "assistant");
			rmSync(join(cli.agentDir, "sessions"), { recursive: true, force: true });
			return (answer!.message as AssistantMessage).usage;
		};
		const long = await answerUsage({ PI_CACHE_RETENTION: "long" });
		expect(long.cacheWrite).toBe(10_000);
		expect(long.cost.cacheWrite).toBeCloseTo((10_000 * 6) / 1e6, 12);
		expect(long.cost.total).toBeCloseTo((100 * 3 + 50 * 15 + 10_000 * 6) / 1e6, 12);
		const short = await answerUsage({ PI_CACHE_RETENTION: undefined });
		expect(short.cost.cacheWrite).toBeCloseTo((10_000 * 3.75) / 1e6, 12);
	});
});
