/**
 * pi#4390: on `claude-opus-4-7` with its 1M-token window, `compaction.reserveTokens` raised to match
 * (312500), every automatic compaction failed: the summary request asked for `max_tokens` 250000
 * (0.8 of the reserve), over the model's 128000-token output cap, and Anthropic refused it
 * ("max_tokens: 250000 > 128000, which is the maximum allowed number of output tokens"). The
 * context kept growing while the host reported compactions. What the user should see: the
 * compaction summarized and written, its request asking for no more than the model can answer.
 * Replayed with thinking off (a model without reasoning): with a thinking budget pi-ai itself caps
 * the request at the model's `maxTokens`, so only then does the summary's own cap reach the wire.
 *
 * A whole session on pi-ai's Anthropic client against a local server that checks `max_tokens`
 * against the model's output cap as Anthropic does.
 */
import { describe, expect, it } from "vitest";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import type { RecordedRequest, Router } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

const OUTPUT_CAP = 128_000;
const isSummaryRequest = (request: RecordedRequest): boolean =>
	JSON.stringify(request.body?.system ?? "").includes("You are a context summarization assistant");

/** Anthropic's check of the requested output against the model's cap, then the summarizer's answer. */
const anthropicOutputCap: Router = (request, next) => {
	const asked = Number(request.body?.max_tokens);
	if (asked > OUTPUT_CAP) {
		return anthropicError(
			400,
			"invalid_request_error",
			`max_tokens: ${asked} > ${OUTPUT_CAP}, which is the maximum allowed number of output tokens for claude-wire-1`,
		);
	}
	return isSummaryRequest(request) ? anthropicReply([{ type: "text", text: "## Goal\nwire summary" }]) : next();
};

describe("pi#4390: a compaction summary asking for more output than the model's cap", () => {
	it("pi#4390: a 1M-window model with a 128000-token output cap, thinking off, and reserveTokens 312500: the threshold compaction's summary request asks for at most 128000 and the compaction is written", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			route: anthropicOutputCap,
			model: { contextWindow: 1_000_000, maxTokens: OUTPUT_CAP, reasoning: false },
			settings: { compaction: { reserveTokens: 312_500, keepRecentTokens: 1 } },
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "first answer" }]),
			// 700000 tokens of context: over the threshold (1000000 − 312500).
			anthropicReply([{ type: "text", text: "second answer" }], { usage: { input: 700_000, output: 5 } }),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");

		const summaryRequests = w.server.requests.filter(isSummaryRequest);
		expect(summaryRequests.length).toBeGreaterThan(0);
		for (const request of summaryRequests) expect(request.body.max_tokens).toBeLessThanOrEqual(OUTPUT_CAP);
		expect(w.eventsOf("compaction_end")).toMatchObject([
			{ reason: "threshold", aborted: false, result: { summary: expect.stringContaining("wire summary") } },
		]);
		expect(w.eventsOf("compaction_end")[0]).not.toHaveProperty("errorMessage");
		expect(w.entries().filter((entry) => entry.type === "compaction")).toHaveLength(1);
	});
});
