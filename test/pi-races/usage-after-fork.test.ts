/**
 * Reports about the context meter of a session just forked, replayed against a real `settle -i`
 * child process on a local OpenAI-compatible endpoint (test/llm/wire/server.ts) that reports
 * usage on every answer.
 *
 * CommandCodeAI/desktop#102: after `/fork` the new chat's context size read 0 until its first
 * answer; a switch to a smaller model in the fork then compacted unannounced. codex#25467: the
 * other way, a fork that dropped two short follow-ups showed more context used than the session it
 * came from (38% left before, 29% after). What the user should see: `/session` right after `/fork`
 * gives the context of what the fork holds (the first answer's usage, 40,100 of 100,000 tokens),
 * and right after `/clone` (the whole branch copied) the source's 80,200, never 0 and never more;
 * the fork's next prompt is sent without the turn left behind and its answer sets the meter.
 */
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { replAfterTwoAnswers } from "./helpers.js";

const cli = useCliProject("settle-pi-races-usage-after-fork-");

/** The context line of `/session`. */
function contextLine(output: string): string | undefined {
	return /^ {2}context: (.*)$/m.exec(output)?.[1];
}

describe("CommandCodeAI/desktop#102, codex#25467: the context meter right after /fork or /clone", () => {
	it("CommandCodeAI/desktop#102: settle -i, two answers (40,100 then 80,200 context tokens), /fork before the second question: /session at once says 40100 of 100000 tokens, not 0; the fork's next answer sets it", async () => {
		const server = await startWireServer();
		try {
			const chat = await replAfterTwoAnswers(
				cli,
				server,
				chatReply([{ type: "text", text: "forked answer" }], { usage: { prompt: 41_000, completion: 300 } }),
			);
			expect(contextLine(await chat.say("/session", "context:"))).toBe("80200 of 100000 tokens (80.2%)");

			expect(await chat.say("/fork", "Forked into a new session")).toContain(
				"just before your message: second question",
			);
			expect(contextLine(await chat.say("/session", "context:"))).toBe("40100 of 100000 tokens (40.1%)");
			expect(server.requests).toHaveLength(2);

			await chat.say("another second question", "forked answer");
			const sent = JSON.stringify(server.requests[2]?.body?.messages);
			expect(sent).toContain("first answer");
			expect(sent).not.toContain("second answer");
			expect(contextLine(await chat.say("/session", "context:"))).toBe("41300 of 100000 tokens (41.3%)");
			expect(await chat.end()).toBe(0);
		} finally {
			await server.close();
		}
	});

	it("codex#25467: settle -i, /clone of a session at 80,200 context tokens: /session in the clone says the same 80200 of 100000 tokens, not more", async () => {
		const server = await startWireServer();
		try {
			const chat = await replAfterTwoAnswers(cli, server);
			const before = contextLine(await chat.say("/session", "context:"));
			expect(before).toBe("80200 of 100000 tokens (80.2%)");

			expect(await chat.say("/clone", "Cloned into a new session")).not.toContain("Error");
			expect(contextLine(await chat.say("/session", "context:"))).toBe(before);
			expect(server.requests).toHaveLength(2);
			expect(await chat.end()).toBe(0);
		} finally {
			await server.close();
		}
	});
});
