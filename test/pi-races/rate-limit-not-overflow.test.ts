/**
 * pi#1038: on Chutes (an OpenAI-compatible provider) a burst of requests from concurrent sessions
 * was refused `429 status code (no body)`, and pi 0.50.1 took it for a context overflow: on a new
 * session it compacted "from 35 tokens", got the 429 again, compacted again, then showed "Auto-
 * compaction cancelled". What the user should see: a rate limit waited out and retried, the
 * conversation left whole (nothing summarized), the answer arriving once the provider accepts.
 *
 * A whole session on pi-ai's OpenAI client against a local server, its JSONL on disk.
 */
import { describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import { text } from "../llm/wire/server.js";
import { lastAssistant, useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

describe("pi#1038: a bodiless 429 taken for a context overflow", () => {
	it("pi#1038: `429 status code (no body)` on the second prompt is retried, never compacted: the retry carries the whole conversation and is answered", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { compaction: { keepRecentTokens: 1 } } });
		w.server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			text(429, ""),
			chatReply([{ type: "text", text: "answer after the rate limit" }]),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");

		expect(w.eventsOf("auto_retry_start")).toMatchObject([
			{ attempt: 1, errorMessage: expect.stringContaining("429 status code (no body)") },
		]);
		expect(w.eventsOf("compaction_start")).toEqual([]);
		expect(w.entries().filter((entry) => entry.type === "compaction")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "answer after the rate limit" }],
		});
		expect(w.server.requests).toHaveLength(3);
		const retried = JSON.stringify(w.server.requests.at(-1)!.body.messages);
		expect(retried).toContain("first question");
		expect(retried).toContain("second question");
	});
});
