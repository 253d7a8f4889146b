/**
 * BaseIntelligence/bounty-challenge#18140 (Cortex, a codex-style agent): a reasoning effort set
 * during a session was dropped when the session was forked; the fork ran at the default effort.
 * Replayed with a real `settle -i` in a pseudo-terminal (test/cli/interactive.helpers.ts): the level
 * set with `--thinking` over `defaultThinkingLevel` (which it does not change), then `/fork`; and the forked file reopened by a
 * real `settle --session <file> -p`; a reasoning model served by a local OpenAI-compatible server,
 * whose requests show the level each message ran at. What the user should see: the fork and its
 * file keep the level set, not the default.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { readEntries, Terminal } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

describe("bounty-challenge#18140: the thinking level of a forked session", () => {
	const cli = useCliProject("settle-fork-thinking-level-");
	const server = useWireServer();

	it("bounty-challenge#18140: --thinking high, then /fork: the message sent again in the fork, and the fork reopened by `settle --session`, run at high, not the default low", async () => {
		writeLocalProvider(cli.agentDir, server.url, { models: [{ id: "coder", reasoning: true }] });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "low" }));
		server.reply(
			chatReply([{ type: "text", text: "answer one" }], { model: "coder" }),
			chatReply([{ type: "text", text: "answer again" }], { model: "coder" }),
			chatReply([{ type: "text", text: "answer reopened" }], { model: "coder" }),
		);
		const term = new Terminal(["--model", "local/coder", "--thinking", "high"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		expect(term.output).toContain("thinking high");
		let from = term.mark();
		term.type("one\r");
		await term.until("answer one", from);

		from = term.mark();
		term.type("/fork\r");
		await term.until("Send it again", from);
		const forked = /Forked into a new session \((\S+\.jsonl)\)/.exec(term.output.slice(from))![1]!;
		// The message is back on the input line: Enter sends it in the fork.
		from = term.mark();
		term.type("\r");
		await term.until("answer again", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);

		const reopened = await runSettleAsync(["--session", forked, "-p", "and now?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(reopened.stdout).toBe("answer reopened\n");
		expect(reopened.code).toBe(0);
		const efforts = server.requests.map((request) => (request.body as { reasoning_effort?: string }).reasoning_effort);
		expect(efforts).toEqual(["high", "high", "high"]);
		const userTexts = server.requests.map((request) =>
			(request.body as { messages: { role: string; content: unknown }[] }).messages
				.filter((message) => message.role === "user")
				.map((message) => JSON.stringify(message.content)),
		);
		// The fork holds the message sent again, not the original turn.
		expect(userTexts[1]).toHaveLength(1);
		expect(
			readEntries(forked)
				.filter((entry) => entry.type === "thinking_level_change")
				.map((entry) => entry.thinkingLevel)
				.at(-1),
		).toBe("high");
		expect(JSON.parse(readFileSync(join(cli.agentDir, "settings.json"), "utf8"))).toMatchObject({
			defaultThinkingLevel: "low",
		});
	});
});
