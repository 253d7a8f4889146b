/**
 * pi#967 (with holaOS#549, an embedder of pi): the prompt cache lasted Anthropic's default 5
 * minutes, so a pause to read the agent's work re-billed the whole prompt (6.8x on identical
 * bytes); `PI_CACHE_RETENTION=long` asks for the longer lifetime (Anthropic `ttl: "1h"`, OpenAI
 * `prompt_cache_retention: "24h"`), and holaOS set it for one API only. Replayed with the real
 * `settle -p` on local Anthropic and OpenAI Responses endpoints, pi-ai's own clients sending.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { responsesReply } from "../llm/wire/responses.js";
import { useWireServer } from "../llm/wire/server.js";

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
