/**
 * pi#7048 / openclaw#127987: a compaction summary whose answer stopped at its output cap
 * (`stopReason: "length"`: a reasoning model spent the budget thinking, or the summary outgrew
 * it) was saved as the checkpoint as if complete. The session resumed on a summary that ended
 * mid-word, and the history behind it was gone from the context.
 *
 * What the user should see: a cut answer is a failed compaction, reported as every other one is
 * (`/compact` rejects with a typed PROVIDER error, `Compaction failed: …` / `Auto-compaction
 * failed: …` on `compaction_end`), nothing is written, the next request carries the whole history,
 * and compacting again (by hand, or the next threshold check) records the complete summary. Not
 * retried on the spot: the same request with the same cap would most likely stop at it again.
 *
 * Replayed over HTTP (pi-ai's own OpenAI client, a local Chat Completions server, JSONL on disk)
 * for `/compact`, and on the faux provider for a threshold compaction and an overflow recovery.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage, fauxThinking } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { chatReply } from "../llm/wire/openai.js";
import type { Reply } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";
import {
	comparable,
	expectFileKeptButBilledUsage,
	isChatSummaryRequest,
	overflowReply,
	promptOverThreshold,
	reopenedContext,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	userTexts,
} from "./helpers.js";

const CUT_TEXT = "## Goal\nMigrate the billing tables\n\n## Progress\n### Done\n- [x] moved the invoices ta";
/** Only the cut answer has this: the file must never hold it. */
const CUT_MARK = "- [x] moved the invoices ta";
const COMPLETE_TEXT = "## Goal\nMigrate the billing tables\n\n## Next Steps\n1. Move the payments table";

describe("pi#7048: a /compact summary cut at its output cap", () => {
	const wireSession = useWireSession();

	it("pi#7048: /compact whose summary stops at the cap fails with a typed error naming the cap, the file keeps its bytes (the cut answer's cost recorded), and compacting again records the complete summary", async () => {
		const summaries: Reply[] = [
			chatReply(
				[
					{ type: "reasoning", text: "Let me go through every table the session touched, one by one..." },
					{ type: "text", text: CUT_TEXT },
				],
				{ finishReason: "length", usage: { prompt: 900, completion: 13_107 } },
			),
			chatReply([{ type: "text", text: COMPLETE_TEXT }]),
		];
		const w = await wireSession({
			api: "openai-completions",
			model: { maxTokens: 32_768 },
			// The last turn is kept; the one before it is summarized.
			settings: { compaction: { keepRecentTokens: 8 } },
			route: (request, next) => (isChatSummaryRequest(request) ? summaries.shift()! : next()),
		});
		w.server.reply(chatReply([{ type: "text", text: "moved the invoices table" }]));
		w.server.reply(chatReply([{ type: "text", text: "moved the payments table" }]));
		await w.session.prompt("move the invoices table");
		await w.session.prompt("move the payments table");
		const file = w.session.sessionManager.getSessionFile()!;
		const bytesBefore = readFileSync(file, "utf8");
		const contextBefore = w.session.messages.map(comparable);

		const failed = await w.session.compact().then(
			() => undefined,
			(error: unknown) => error,
		);

		const cap = w.server.requests.find(isChatSummaryRequest)!.body.max_completion_tokens;
		expect(failed).toBeInstanceOf(SettleError);
		expect((failed as SettleError).code).toBe("PROVIDER");
		expect((failed as SettleError).message).toBe(
			`Summarization failed: the answer reached its ${cap}-token cap before the summary was complete (a reasoning model may have spent it thinking); no summary was written; compact again, or raise compaction.reserveTokens`,
		);
		expect(w.eventsOf("compaction_end")).toEqual([
			expect.objectContaining({
				reason: "manual",
				result: undefined,
				aborted: false,
				errorMessage: `Compaction failed: ${(failed as SettleError).message}`,
			}),
		]);
		// pi 0.73.1 writes the cut text as the checkpoint and drops the history behind it; here only
		// the cut answer's cost is recorded.
		expectFileKeptButBilledUsage(file, bytesBefore, true);
		expect(w.session.messages.map(comparable)).toEqual(contextBefore);

		const result = await w.session.compact();
		expect(result.summary).toContain(COMPLETE_TEXT);
		// One request per compaction: the cut one was not resent on the spot.
		expect(w.server.requests.filter(isChatSummaryRequest)).toHaveLength(2);
		const compactions = w.entries().filter((entry) => entry.type === "compaction");
		expect(compactions).toHaveLength(1);
		expect(readFileSync(file, "utf8")).not.toContain(CUT_MARK);
	});
});

describe("openclaw#127987: a threshold compaction's summary cut at its output cap", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("openclaw#127987: the cut summary is not committed: Auto-compaction failed, the next request holds the whole history, and the next threshold check compacts with the complete summary", async () => {
		h = await createHarness({ persistence: "disk", ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS });
		const cut = fauxAssistantMessage(
			[fauxThinking("planning the summary at length"), { type: "text", text: CUT_TEXT }],
			{
				stopReason: "length",
			},
		);
		const requests = await promptOverThreshold(h, (n) => (n === 1 ? cut : fauxAssistantMessage(COMPLETE_TEXT)), [
			fauxAssistantMessage("after"),
		]);

		const ends = h.eventsOfType("compaction_end");
		expect(ends).toEqual([
			expect.objectContaining({ reason: "threshold", result: undefined, aborted: false, willRetry: false }),
		]);
		expect(ends[0]?.errorMessage).toMatch(
			/^Auto-compaction failed: Summarization failed: the answer reached its \d+-token cap/,
		);
		const file = h.sessionManager.getSessionFile()!;
		expect(readFileSync(file, "utf8")).not.toContain(CUT_MARK);
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));

		await h.session.prompt("third");

		// A later threshold check compacted again, this time with the complete answer.
		expect(h.eventsOfType("compaction_end").slice(1)).toContainEqual(
			expect.objectContaining({ reason: "threshold", aborted: false, result: expect.anything() }),
		);
		const compactions = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line))
			.filter((entry) => entry.type === "compaction");
		expect(compactions.length).toBeGreaterThan(0);
		for (const compaction of compactions) expect(compaction.summary).toContain(COMPLETE_TEXT);
		expect(readFileSync(file, "utf8")).not.toContain(CUT_MARK);
		expect(userTexts(requests.answerRequests.at(-1)!)).toContain("third");
	});
});

describe("pi#7048: overflow recovery whose summary is cut at its output cap", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("pi#7048: the overflow's compaction fails as any failed compaction: one agent_settled naming it, no entry, the cut text nowhere, idle, and the next prompt is answered", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		const cut = fauxAssistantMessage([{ type: "text", text: CUT_TEXT }], { stopReason: "length" });
		const { summaryRequests, answerRequests } = script(
			h,
			[fauxAssistantMessage("first answer"), overflowReply(), fauxAssistantMessage("answered after the failure")],
			{ summary: () => cut },
		);
		await h.session.prompt("first");
		await h.session.prompt("second, which overflows");

		expect(summaryRequests.length).toBeGreaterThan(0);
		const ends = h.eventsOfType("compaction_end");
		expect(ends).toEqual([expect.objectContaining({ reason: "overflow", result: undefined, aborted: false })]);
		expect(ends[0]?.errorMessage).toMatch(
			/^Context overflow recovery failed: (Turn prefix s|S)ummarization failed: the answer reached its \d+-token cap/,
		);
		const settled = h.eventsOfType("agent_settled");
		expect(settled).toHaveLength(2);
		expect(settled[1]?.errorMessage).toContain("token cap before the summary was complete");
		const file = h.sessionManager.getSessionFile()!;
		expect(readFileSync(file, "utf8")).not.toContain(CUT_MARK);
		expect(h.session.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.isIdle).toBe(true);

		await h.session.prompt("third");
		expect(userTexts(answerRequests.at(-1)!)).toContain("third");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
