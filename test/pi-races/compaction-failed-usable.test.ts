/**
 * Compactions that fail, and what the session looks like afterwards.
 *
 * - claude-code#19443, openclaw#69202, github/app#3565: `/compact` failed (the summarizer's
 *   provider refused it), and the session was dead from then on: messages failed, or each one
 *   compacted again and failed again, until the user started over.
 * - kilocode#14088, codegraff#379: the summarizer answered with nothing; "empty response", and the
 *   context meter stayed where it was, the user not told whether anything was kept.
 * - openclaw#120264: a failed automatic compaction zeroed the context's measured size, so the
 *   threshold check never fired again and the session ran into the window.
 * - github/app#3565: each prompt cost two failed compactions (after the answer, then again before
 *   the next prompt on the same context); now one per answer.
 *
 * Replayed over HTTP (pi-ai's OpenAI client, a local Chat Completions server, JSONL on disk) for
 * `/compact`, and on the faux provider for the threshold compaction.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import type { Reply } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";
import {
	comparable,
	expectFileKeptButBilledUsage,
	isChatSummaryRequest,
	promptOverThreshold,
	reopenedContext,
	SMALL_WINDOW,
	THRESHOLD_SETTINGS,
	userTexts,
} from "./helpers.js";

const userTextsOf = (body: { messages?: { role: string; content: unknown }[] }) =>
	(body.messages ?? [])
		.filter((m) => m.role === "user")
		.map((m) =>
			typeof m.content === "string"
				? m.content
				: (m.content as { text?: string }[]).map((part) => part.text ?? "").join(""),
		);

/** The summarizer's provider refuses its first `times` requests, then summarizes. */
const summarizerFailing =
	(times: number, errorMessage = "400 summarization model unavailable") =>
	(n: number) =>
		n <= times
			? fauxAssistantMessage("", { stopReason: "error", errorMessage })
			: fauxAssistantMessage("## Goal\nthe summary");

describe("a failed /compact leaves the session as it was, and usable", () => {
	const wireSession = useWireSession();

	// `billed`: the summarizer answered (tokens reported), so the failure's cost is recorded.
	const failures: { report: string; what: string; reply: Reply; error: RegExp; billed: boolean }[] = [
		{
			report: "claude-code#19443, openclaw#69202",
			what: "the summarizer's provider refuses the request (400)",
			reply: openAiError(400, "Reasoning is required for this model", "invalid_request_error"),
			error: /Reasoning is required for this model/,
			billed: false,
		},
		{
			report: "kilocode#14088, codegraff#379",
			what: "the summarizer answers with nothing",
			reply: chatReply([{ type: "text", text: "" }]),
			error: /no summary text/,
			billed: true,
		},
	];
	for (const failure of failures) {
		it(`${failure.report}: /compact where ${failure.what} rejects with a typed error naming it; the file keeps its bytes (its cost recorded when billed), the meter its size, and the next prompt is answered on the whole history`, async () => {
			const w = await wireSession({
				api: "openai-completions",
				settings: { compaction: { keepRecentTokens: 8 } },
				route: (request, next) => (isChatSummaryRequest(request) ? failure.reply : next()),
			});
			w.server.reply(
				chatReply([{ type: "text", text: "read the schema" }], { usage: { prompt: 900, completion: 20 } }),
			);
			w.server.reply(
				chatReply([{ type: "text", text: "wrote the migration" }], { usage: { prompt: 1200, completion: 20 } }),
			);
			await w.session.prompt("read the schema");
			await w.session.prompt("write the migration");
			const file = w.session.sessionManager.getSessionFile()!;
			const bytesBefore = readFileSync(file, "utf8");
			const usageBefore = w.session.getContextUsage();

			const failed = await w.session.compact().then(
				() => undefined,
				(error: unknown) => error,
			);

			expect(failed).toBeInstanceOf(SettleError);
			expect((failed as SettleError).message).toMatch(failure.error);
			expect(w.eventsOf("compaction_end")).toEqual([
				expect.objectContaining({ reason: "manual", result: undefined, aborted: false }),
			]);
			expect(w.eventsOf("compaction_end")[0]?.errorMessage).toMatch(failure.error);
			expectFileKeptButBilledUsage(file, bytesBefore, failure.billed);
			expect(w.session.getContextUsage()).toEqual(usageBefore);
			expect(w.session.isIdle).toBe(true);

			// The session is not dead: the next prompt is one request, answered, with the whole history.
			const before = w.server.requests.length;
			w.server.reply(chatReply([{ type: "text", text: "ran the migration" }]));
			await w.session.prompt("run it");
			const sent = w.server.requests.slice(before);
			expect(sent.filter((request) => !isChatSummaryRequest(request))).toHaveLength(1);
			expect(sent.filter(isChatSummaryRequest)).toEqual([]);
			expect(userTextsOf(sent[0]!.body)).toEqual(["read the schema", "write the migration", "run it"]);
			expect(w.session.messages.at(-1)).toMatchObject({
				role: "assistant",
				stopReason: "stop",
				content: [{ type: "text", text: "ran the migration" }],
			});
			expect(w.entries().filter((entry) => entry.type === "compaction")).toEqual([]);
			expect(reopenedContext(file).map(comparable)).toEqual(w.session.messages.map(comparable));
		});
	}
});

describe("openclaw#120264: a failed threshold compaction keeps the context's measured size", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("openclaw#120264: after the summary request fails, getContextUsage still reports the context over the threshold, and the check after the next answer compacts it (not the check before that prompt: github/app#3565)", async () => {
		h = await createHarness({ persistence: "disk", ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS });
		const requests = await promptOverThreshold(h, summarizerFailing(1, "400 model does not support this request"), [
			fauxAssistantMessage("after"),
			fauxAssistantMessage("fourth answer"),
		]);

		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "threshold", result: undefined, aborted: false }),
		]);
		const usage = h.session.getContextUsage()!;
		// 8000 window − 4000 reserve: the failure left the measured size over it, not zeroed.
		expect(usage.tokens).toBeGreaterThan(4000);

		await h.session.prompt("third");

		// "third" is sent on the context the attempt failed on (no second attempt before it); the check
		// after its answer compacts, on the size the failure left in place plus that turn.
		const ends = h.eventsOfType("compaction_end");
		expect(ends).toHaveLength(2);
		expect(ends[1]).toMatchObject({
			reason: "threshold",
			aborted: false,
			result: expect.objectContaining({ tokensBefore: expect.any(Number) }),
		});
		expect(ends[1]!.result!.tokensBefore).toBeGreaterThan(usage.tokens ?? Number.POSITIVE_INFINITY);
		expect(userTexts(requests.answerRequests.at(-1)!).at(-1)).toBe("third");

		await h.session.prompt("fourth");
		expect(userTexts(requests.answerRequests.at(-1)!)).toEqual([
			expect.stringContaining("## Goal\nthe summary"),
			"fourth",
		]);
		const file = h.sessionManager.getSessionFile()!;
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("github/app#3565 with pi#6426: a failed threshold compaction, then a smaller window", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("after a failed threshold compaction, a switch to a model with a smaller window still compacts before the next prompt", async () => {
		h = await createHarness({
			persistence: "disk",
			faux: {
				models: [
					{ id: "small", contextWindow: 8000 },
					{ id: "smaller", contextWindow: 7000 },
				],
			},
			settings: THRESHOLD_SETTINGS,
		});
		const harness = h;
		const requests = await promptOverThreshold(harness, summarizerFailing(2), [fauxAssistantMessage("after")]);
		expect(harness.eventsOfType("compaction_end")).toEqual([expect.objectContaining({ result: undefined })]);

		await harness.session.setModel(harness.faux.getModel("smaller")!);
		const from = harness.events.length;
		await harness.session.prompt("third");
		const after = harness.events.slice(from).map((event) => event.type);
		// The threshold is lower now (7000 − 3500): the check before "third" compacts first.
		expect(after.indexOf("compaction_end")).toBeGreaterThan(-1);
		expect(after.indexOf("compaction_end")).toBeLessThan(after.indexOf("agent_start"));
		expect(harness.eventsOfType("compaction_end")[1]).toMatchObject({ reason: "threshold", result: expect.anything() });
		expect(userTexts(requests.answerRequests.at(-1)!)).toEqual([
			expect.stringContaining("## Goal\nthe summary"),
			"third",
		]);
	});
});

describe("github/app#3565: a failed threshold compaction, then another model with the same window", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("after the summarizer failed on one model, a switch to another model (same window) compacts before the next prompt: the new model summarizes", async () => {
		h = await createHarness({
			persistence: "disk",
			faux: {
				models: [
					{ id: "small", contextWindow: 8000 },
					{ id: "other", contextWindow: 8000 },
				],
			},
			settings: THRESHOLD_SETTINGS,
		});
		const harness = h;
		const requests = await promptOverThreshold(harness, summarizerFailing(2), [fauxAssistantMessage("after")]);
		expect(harness.eventsOfType("compaction_end")).toEqual([expect.objectContaining({ result: undefined })]);

		await harness.session.setModel(harness.faux.getModel("other")!);
		await harness.session.prompt("third");
		expect(harness.eventsOfType("compaction_end")[1]).toMatchObject({ reason: "threshold", result: expect.anything() });
		// Compacted before "third" was sent: its request carries the summary, not the big answer.
		expect(userTexts(requests.answerRequests.at(-1)!)).toEqual([
			expect.stringContaining("## Goal\nthe summary"),
			"third",
		]);
	});
});

describe("github/app#3565: a failed threshold compaction, then a lower threshold on the same model", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("after a failed threshold compaction, a larger compaction.reserveTokens (the same model) still compacts before the next prompt", async () => {
		// The context after "second" measures about 4800 tokens: over this 4700-token threshold.
		h = await createHarness({
			persistence: "disk",
			...SMALL_WINDOW,
			settings: { compaction: { reserveTokens: 3300, keepRecentTokens: 1 } },
		});
		const harness = h;
		const requests = await promptOverThreshold(harness, summarizerFailing(2), [fauxAssistantMessage("after")]);
		expect(harness.eventsOfType("compaction_end")).toEqual([expect.objectContaining({ result: undefined })]);

		harness.session.settingsManager.applyOverrides({ compaction: { reserveTokens: 4000 } });
		await harness.session.prompt("third");
		expect(harness.eventsOfType("compaction_end")[1]).toMatchObject({ reason: "threshold", result: expect.anything() });
		expect(userTexts(requests.answerRequests.at(-1)!)).toEqual([
			expect.stringContaining("## Goal\nthe summary"),
			"third",
		]);
	});
});

describe("pi-goal-list-loop-audit#56: an empty session_before_compact result after an extension supplied the compaction", () => {
	const wireSession = useWireSession();

	// `{ cancel: false }` is a handler's "go ahead": it supplies nothing either.
	it.each([
		{ shown: "{}", result: {} },
		{ shown: "{ cancel: false }", result: { cancel: false } },
	])(
		"pi-goal-list-loop-audit#56: a later handler returning $shown does not discard the summary another extension supplied: no summary request is sent, and the entry holds the supplied summary",
		async ({ result: later }) => {
			const supplied = "## Goal\nsupplied by the memory extension";
			const w = await wireSession({
				api: "openai-completions",
				settings: { compaction: { keepRecentTokens: 8 } },
				extensionFactories: [
					(pi) => {
						pi.on("session_before_compact", (event) => ({
							compaction: {
								summary: supplied,
								firstKeptEntryId: event.preparation.firstKeptEntryId,
								tokensBefore: event.preparation.tokensBefore,
								details: { source: "memory" },
							},
						}));
					},
					// Neither cancels nor supplies one (the report's goal extension ended its handler so).
					(pi) => {
						pi.on("session_before_compact", () => later);
					},
				],
			});
			w.server.reply(chatReply([{ type: "text", text: "read the schema" }]));
			w.server.reply(chatReply([{ type: "text", text: "wrote the migration" }]));
			await w.session.prompt("read the schema");
			await w.session.prompt("write the migration");

			const result = await w.session.compact();

			expect(result.summary).toBe(supplied);
			expect(w.server.requests.filter(isChatSummaryRequest)).toEqual([]);
			expect(w.entries().filter((entry) => entry.type === "compaction")).toEqual([
				expect.objectContaining({ summary: supplied, fromHook: true, details: { source: "memory" } }),
			]);
		},
	);
});

describe("github/app#3565: a summarizer that keeps failing", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("github/app#3565: every prompt over the threshold is still sent and answered, each failed compaction is reported, and the file holds only the turns", async () => {
		h = await createHarness({ persistence: "disk", ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS });
		const requests = await promptOverThreshold(h, summarizerFailing(Number.POSITIVE_INFINITY), [
			fauxAssistantMessage("answer 3"),
			fauxAssistantMessage("answer 4"),
		]);
		await h.session.prompt("third");
		await h.session.prompt("fourth");

		expect(requests.answerRequests.map((request) => userTexts(request).at(-1))).toEqual([
			"first",
			"second",
			"third",
			"fourth",
		]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		// One automatic attempt per answer over the threshold (after "second", "third", "fourth"): the
		// check before a prompt does not try again on the context the last attempt failed on.
		const ends = h.eventsOfType("compaction_end");
		expect(ends).toHaveLength(3);
		// Each attempt is one summary request and its one retry (was 5 attempts, 10 requests).
		expect(requests.summaryRequests).toHaveLength(6);
		for (const end of ends) {
			expect(end).toMatchObject({ reason: "threshold", result: undefined, aborted: false });
			expect(end.errorMessage).toBe(
				"Auto-compaction failed: Summarization failed: 400 summarization model unavailable",
			);
		}
		// A failed automatic compaction does not fail the prompt it followed.
		expect(h.eventsOfType("agent_settled").map((event) => event.errorMessage)).toEqual([
			undefined,
			undefined,
			undefined,
			undefined,
		]);
		const file = h.sessionManager.getSessionFile()!;
		expect(h.session.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
