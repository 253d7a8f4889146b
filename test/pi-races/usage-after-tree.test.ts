/**
 * Reports about the context numbers after moving back in a session's tree, replayed against a real
 * `settle -i` child process on a local OpenAI-compatible endpoint (test/llm/wire/server.ts) that
 * reports usage on every answer.
 *
 * sirmalloc/ccstatusline#33: after rewinding the conversation to an earlier message (Claude Code's
 * double Esc), the context meter and the other numbers kept the size of the branch left behind
 * until the next message was sent. What the user should see with `/tree` back onto the first
 * answer: `/session` at once gives the context of that branch (the first answer's usage), its
 * messages and tokens; money already spent (`spent:`) does not go down; the next prompt is sent
 * without the abandoned turn and its answer sets the meter.
 */
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, messageEntry, navigateTree } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { replAfterTwoAnswers } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-after-tree-");

/** The `/session` lines that carry numbers. */
function numbers(output: string): { messages?: string; tokens?: string; spent?: string; context?: string } {
	const line = (label: string) => new RegExp(`^ {2}${label}: (.*)$`, "m").exec(output)?.[1];
	return { messages: line("messages"), tokens: line("tokens"), spent: line("spent"), context: line("context") };
}

describe("ccstatusline#33: the context numbers right after /tree back to an earlier answer", () => {
	it("ccstatusline#33: settle -i, /tree back onto the first answer: /session at once gives that branch's context (40,100 of 100,000), messages and tokens; spent keeps both answers; the next prompt leaves the abandoned turn out", async () => {
		const server = await startWireServer();
		try {
			const chat = await replAfterTwoAnswers(
				cli,
				server,
				chatReply([{ type: "text", text: "third answer" }], { usage: { prompt: 41_000, completion: 200 } }),
			);
			const file = bannerSessionFile(chat.stdout);
			expect(numbers(await chat.say("/session", "context:"))).toMatchObject({
				tokens: "120300 (input 120000, output 300, cache read 0, cache write 0), cost $0.0000",
				spent: "$0.0000 (120300 tokens) in this session file, all branches",
				context: "80200 of 100000 tokens (80.2%)",
			});

			expect(await navigateTree(chat, messageEntry(file, "assistant", "first answer").id)).toContain("Now at ");
			const back = numbers(await chat.say("/session", "context:"));
			expect(back).toMatchObject({
				tokens: "40100 (input 40000, output 100, cache read 0, cache write 0), cost $0.0000",
				spent: "$0.0000 (120300 tokens) in this session file, all branches",
				context: "40100 of 100000 tokens (40.1%)",
			});
			expect(back.messages).toMatch(/^\d+ in context \(1 yours, 1 answers, /);
			expect(server.requests).toHaveLength(2);

			await chat.say("third question", "third answer");
			const sent = JSON.stringify(server.requests[2]?.body?.messages);
			expect(sent).toContain("first answer");
			expect(sent).not.toContain("second question");
			expect(numbers(await chat.say("/session", "context:")).context).toBe("41200 of 100000 tokens (41.2%)");
			expect(await chat.end()).toBe(0);
		} finally {
			await server.close();
		}
	});
});
