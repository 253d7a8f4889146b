/**
 * cc-switch#1181: a session on Kimi K2.5 (or Gemini) that ran tools, switched to Claude mid-session:
 * Kimi names its calls `functions.<tool>:<n>`, and Anthropic refused the replayed history ("tool_use.id:
 * String should match pattern '^[a-zA-Z0-9_-]+$'"), first in the compaction the switch started,
 * then on every request. What the user should see: the compaction's summary and the next answer,
 * each call under an id Anthropic takes with its result under the same; the file keeps Kimi's ids.
 *
 * Over HTTP through pi-ai's own clients (OpenAI Chat for Kimi, Anthropic for Claude) to a local
 * server that checks `tool_use` ids as Anthropic does, a whole session from `createAgentSession`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import type { Router } from "../llm/wire/server.js";
import {
	anthropicIdRefusal,
	chatBashCall,
	resultsUnder,
	sentBlocks,
	type WireModelSpec,
	wireProjectsPerTest,
} from "./helpers.js";

const wireProject = wireProjectsPerTest("settle-kimi-ids-", "off");
const KIMI: WireModelSpec = { api: "openai-completions", provider: "moonshotai", id: "kimi-k2.5", name: "Kimi K2.5" };
const CLAUDE: WireModelSpec = { api: "anthropic-messages", provider: "anthropic", id: "claude-wire-1" };

/** Anthropic's checks on `tool_use` ids: its pattern, and one id per call in a request. */
const anthropicIds: Router = (request, next) => {
	if (!request.path.endsWith("/v1/messages")) return next();
	return anthropicIdRefusal(request) ?? next();
};

describe("cc-switch#1181: a session switched from Kimi to Claude replays Kimi's `functions.<tool>:<n>` ids", () => {
	it("cc-switch#1181: after setModel onto Claude, the compaction is summarized and the next prompt answered; each call goes under an id Anthropic takes, its result under the same", async () => {
		const { server, model, open } = await wireProject([KIMI, CLAUDE], {
			route: anthropicIds,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		const session = await open(KIMI);
		server.reply(
			chatReply([chatBashCall("functions.bash:0", "echo alpha"), chatBashCall("functions.bash:1", "echo beta")], {
				model: "kimi-k2.5",
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "Printed alpha and beta." }], { model: "kimi-k2.5" }),
			// Numbered per answer, as vLLM's and SGLang's Kimi parsers do: `functions.bash:0` again.
			chatReply([chatBashCall("functions.bash:0", "echo gamma")], { model: "kimi-k2.5", finishReason: "tool_calls" }),
			chatReply([{ type: "text", text: "Printed gamma." }], { model: "kimi-k2.5" }),
			anthropicReply([{ type: "text", text: "They printed alpha, beta and gamma." }]),
			anthropicReply([{ type: "text", text: "## Goal\nRan echo alpha and echo beta; both printed." }]),
			anthropicReply([{ type: "text", text: "## Original Request\nWhat the commands printed." }]),
			anthropicReply([{ type: "text", text: "Still alpha and beta." }]),
		);
		await session.prompt("run echo alpha and echo beta");
		await session.prompt("run echo gamma");
		await session.setModel(model(CLAUDE));
		await session.prompt("what did they print?");

		expect(session.messages.at(-1)).toMatchObject({
			role: "assistant",
			provider: "anthropic",
			stopReason: "stop",
			content: [{ type: "text", text: "They printed alpha, beta and gamma." }],
		});
		const blocks = sentBlocks(server.requests[4]!);
		const uses = blocks.filter((block) => block.type === "tool_use");
		expect(uses.map((use) => use.input?.command)).toEqual(["echo alpha", "echo beta", "echo gamma"]);
		expect(new Set(uses.map((use) => use.id)).size).toBe(3);
		for (const use of uses) expect(use.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		const resultOf = (id: string) => resultsUnder(blocks, id);
		expect(resultOf(uses[0]!.id!)).toEqual([expect.stringContaining("alpha")]);
		expect(resultOf(uses[1]!.id!)).toEqual([expect.stringContaining("beta")]);
		expect(resultOf(uses[2]!.id!)).toEqual([expect.stringContaining("gamma")]);

		// The compaction on Claude (the history, then the split turn's start): Kimi's calls reach the
		// summarizer as text, no tool_use to refuse.
		const compaction = await session.compact();
		expect(compaction.summary).toContain("Ran echo alpha and echo beta");
		const summaryRequests = server.requests.slice(5, 7);
		for (const request of summaryRequests) {
			expect(request.path).toMatch(/\/v1\/messages$/);
			expect(sentBlocks(request).filter((block) => block.type === "tool_use")).toEqual([]);
		}
		expect(JSON.stringify(summaryRequests[0]!.body.messages)).toContain("echo alpha");

		await session.prompt("and now?");
		expect(session.messages.at(-1)).toMatchObject({ stopReason: "stop", content: [{ text: "Still alpha and beta." }] });
		expect(server.requests).toHaveLength(8);
		const file = readFileSync(session.sessionFile!, "utf8");
		expect(file).toContain('"functions.bash:0"');
		expect(file).toContain('"functions.bash:1"');
		expect(file.split('"functions.bash:0"').length - 1).toBe(4);
	});
});
