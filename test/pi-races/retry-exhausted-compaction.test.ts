/**
 * pi#1763, pi#1808: a session whose requests kept failing with Anthropic's 529 "overloaded" never
 * compacted: the retry handler returned before the threshold check, and once the retries ran out
 * the check bailed on `stopReason: "error"`. Sessions grew to the context window and stuck there
 * (23 Discord sessions at exactly 200,000 tokens) until reset by hand.
 *
 * What the user should see: when the retries of a request over the compaction threshold run out,
 * the threshold check still runs and the session compacts; the next prompt goes out on the summary.
 *
 * Replayed over HTTP (pi-ai's OpenAI client, a local Chat Completions server, the JSONL on disk).
 */
import { describe, expect, it } from "vitest";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireSession } from "../llm/wire/session.js";
import { isChatSummaryRequest } from "./helpers.js";

const overloaded = openAiError(529, "Overloaded", "overloaded_error");

describe("pi#1763, pi#1808: retries that run out on 529s still let the session compact", () => {
	const wireSession = useWireSession();

	it("pi#1763, pi#1808: a prompt that takes the context over the threshold, every request 529: after the last retry the session compacts (threshold), and the next prompt is sent on the summary", async () => {
		const w = await wireSession({
			api: "openai-completions",
			model: { contextWindow: 10_000 },
			settings: {
				retry: { baseDelayMs: 1, maxRetries: 2 },
				compaction: { reserveTokens: 2000, keepRecentTokens: 100 },
			},
			route: (request, next) =>
				isChatSummaryRequest(request) ? chatReply([{ type: "text", text: "## Goal\nwire summary" }]) : next(),
		});
		w.server.reply(chatReply([{ type: "text", text: "read it" }], { usage: { prompt: 5000, completion: 20 } }));
		w.server.reply(overloaded, overloaded, overloaded);
		w.server.reply(chatReply([{ type: "text", text: "answer after compaction" }]));

		await w.session.prompt("read the schema");
		await w.session.prompt(`write the migration ${"word ".repeat(3000)}`);

		expect(w.eventsOf("auto_retry_end")).toMatchObject([{ success: false, attempt: 2 }]);
		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "threshold", aborted: false }]);
		expect(w.entries().filter((entry) => entry.type === "compaction")).toHaveLength(1);

		await w.session.prompt("and the rollback");
		// The answer, the request and its two retries (529), then the summary, then the next prompt.
		expect(w.server.requests.map(isChatSummaryRequest)).toEqual([false, false, false, false, true, false]);
		const next = JSON.stringify(w.server.requests.at(-1)!.body.messages);
		expect(next).toContain("wire summary");
		expect(next).toContain("and the rollback");
		expect(next).not.toContain("read the schema");
	});
});
