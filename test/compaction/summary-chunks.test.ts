import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
	CHECKPOINT_UPDATE_PROMPT,
	SUMMARIZATION_SYSTEM_PROMPT,
	summarizationRequestText,
	TURN_PREFIX_PROMPT,
	TURN_PREFIX_UPDATE_PROMPT,
} from "../../src/compaction/prompts.js";
import { serializeConversation } from "../../src/compaction/serialize.js";
import { generateSummary, generateTurnPrefixSummary } from "../../src/compaction/summarize.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentMessage, AssistantMessage, Context, Model, StreamOptions } from "../../src/llm/types.js";
import type { Harness } from "../../src/testing/harness.js";
import {
	compactionEntriesOnDisk,
	fiveTurnsThenSmallModel,
	heldSummaryRequest,
	messageChars,
	promptOf,
	smallModelHarness,
} from "./summary-chunks.helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const SMALL_WINDOW = 8000;
const RESERVE = 2000;
/** About 3000 tokens per answer: five turns are about 15000 tokens, twice the small window. */
const answerText = (turn: number) => `fact-${turn} ${"y".repeat(11_900)}`;

/** Estimated input tokens of a request, as the provider would count them (chars / 4). */
const inputTokens = (context: Context) =>
	Math.ceil(((context.systemPrompt ?? "").length + context.messages.reduce((n, m) => n + messageChars(m), 0)) / 4);

interface SummaryRequest {
	prompt: string;
	/** Input tokens plus the answer budget: what must fit the window. */
	tokens: number;
}

/**
 * A provider that rejects any request whose input exceeds the model's window with Anthropic's
 * overflow error; summarization requests get `## Goal\nsummary <n>`, others the next answer.
 */
function provider(
	h: Harness,
	answers: string[],
	options: { summary?: (n: number) => Promise<void> | undefined; sent?: string[] } = {},
) {
	const summaries: SummaryRequest[] = [];
	const route = async (context: Context, stream: StreamOptions | undefined, _s: unknown, model: Model) => {
		// Every summary request that reaches the provider, rejected ones included.
		if (context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT) options.sent?.push(promptOf(context));
		const tokens = inputTokens(context);
		if (tokens > model.contextWindow) {
			return fauxAssistantMessage("", {
				stopReason: "error",
				errorMessage: `prompt is too long: ${tokens} tokens > ${model.contextWindow} maximum`,
			});
		}
		if (context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT) {
			summaries.push({ prompt: promptOf(context), tokens: tokens + (stream?.maxTokens ?? 0) });
			const n = summaries.length;
			await options.summary?.(n);
			return fauxAssistantMessage(`## Goal\nsummary ${n}`);
		}
		const next = answers.shift();
		return next === undefined
			? fauxAssistantMessage("", { stopReason: "error", errorMessage: "no answer left" })
			: fauxAssistantMessage(next);
	};
	h.setResponses(Array.from({ length: 64 }, () => route));
	return summaries;
}

/**
 * Five long turns on the large-window model, then the session moves to the small one. The last
 * turn (about 3080 tokens: its answer alone is under `keepRecentTokens`, 3000 (at most half the
 * 6000-token threshold), with its prompt over) is kept whole; the four before it are the span to
 * summarize.
 */
async function longSessionOnSmallModel(
	answersAfter: string[],
	options?: Parameters<typeof provider>[2],
	underReported = false,
) {
	h = await smallModelHarness({ window: SMALL_WINDOW, reserveTokens: RESERVE, keepRecentTokens: 3000, underReported });
	const answers = [1, 2, 3, 4, 5].map(answerText);
	const summaries = provider(h, [...answers, ...answersAfter], options);
	await fiveTurnsThenSmallModel(h);
	return summaries;
}

describe("summary larger than the summarizer's window (openclaw#10423, pi#8196)", () => {
	it("regression openclaw#10423: manual compaction summarizes the span in requests that each fit the window", async () => {
		const summaries = await longSessionOnSmallModel([]);

		const result = await h.session.compact();

		// One turn (about 3100 tokens, plus prompt and answer budget) per request: two do not fit.
		expect(summaries).toHaveLength(4);
		for (const request of summaries) expect(request.tokens).toBeLessThanOrEqual(SMALL_WINDOW);
		// Each later request updates the summary of the ones before it.
		expect(summaries[0]!.prompt).not.toContain("<previous-summary>");
		for (let i = 1; i < summaries.length; i++) {
			expect(summaries[i]!.prompt).toContain(`<previous-summary>\n## Goal\nsummary ${i}\n</previous-summary>`);
		}
		// Every turn's text reached exactly one request, in order (the last turn is kept, not summarized).
		const factsSeen = summaries.flatMap((request) => [...request.prompt.matchAll(/fact-(\d)/g)].map((m) => m[1]));
		expect(factsSeen).toEqual(["1", "2", "3", "4"]);
		// The entry is today's shape: the last request's summary (file lists empty here).
		expect(result.summary).toBe(`## Goal\nsummary ${summaries.length}`);
		const [entry] = compactionEntriesOnDisk(h);
		expect(entry).toMatchObject({ summary: result.summary, details: { readFiles: [], modifiedFiles: [] } });
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({ reason: "manual", aborted: false });
	});

	it("regression openclaw#10423: overflow recovery compacts in chunks and the run continues", async () => {
		const summaries = await longSessionOnSmallModel(["done on the small model"], {}, true);

		await h.session.prompt("continue");

		expect(summaries).toHaveLength(4);
		for (const request of summaries) expect(request.tokens).toBeLessThanOrEqual(SMALL_WINDOW);
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "overflow", aborted: false, willRetry: true }),
		]);
		expect(compactionEntriesOnDisk(h)).toHaveLength(1);
		const last = h.session.messages.at(-1) as AssistantMessage;
		expect(last.role).toBe("assistant");
		expect(last.stopReason).toBe("stop");
		expect(last.content).toEqual([{ type: "text", text: "done on the small model" }]);
	});

	it("abortCompaction() during the second chunk's request settles once and writes no compaction entry", async () => {
		const second = heldSummaryRequest(2);
		const summaries = await longSessionOnSmallModel([], { summary: second.summary });

		const compacting = h.session.compact();
		await Promise.race([
			second.reached,
			compacting.then(() => expect.fail("the compaction ended before its second summary request")),
		]);
		h.session.abortCompaction();
		await expect(compacting).rejects.toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		second.release();

		expect(summaries).toHaveLength(2);
		expect(h.eventsOfType("compaction_end")).toEqual([
			{ type: "compaction_end", reason: "manual", result: undefined, aborted: true, willRetry: false },
		]);
		expect(compactionEntriesOnDisk(h)).toEqual([]);
		expect(h.session.lifecycle).toBe("idle");
	});
});

describe("turn prefix larger than the summarizer's window (openclaw#10423: 'Turn prefix summarization failed')", () => {
	it("regression openclaw#10423: the beginning of a split turn is summarized in requests that each fit", async () => {
		const faux = createFauxProvider({ models: [{ id: "small", contextWindow: SMALL_WINDOW }] });
		const prompts: SummaryRequest[] = [];
		faux.setResponses(
			Array.from({ length: 8 }, () => (context: Context, options: StreamOptions | undefined) => {
				prompts.push({ prompt: promptOf(context), tokens: inputTokens(context) + (options?.maxTokens ?? 0) });
				return fauxAssistantMessage(`## Original Request\nprefix ${prompts.length}`);
			}),
		);
		// One turn: a request larger than the window on its own (it is cut), then three large extension notes.
		const prefix: AgentMessage[] = [{ role: "user", content: `task ${"x".repeat(40_000)}`, timestamp: 0 }];
		for (let i = 1; i <= 3; i++) {
			const content = `step-${i} ${"y".repeat(12_000)}`;
			prefix.push({ role: "custom", customType: "note", content, display: true, timestamp: i });
		}

		const result = await generateTurnPrefixSummary(prefix, {
			model: faux.getModel("small")!,
			streamFn: faux.streamFn,
			reserveTokens: RESERVE,
		});

		expect(prompts.length).toBeGreaterThan(1);
		for (const request of prompts) expect(request.tokens).toBeLessThanOrEqual(SMALL_WINDOW);
		expect(prompts[0]!.prompt.endsWith(TURN_PREFIX_PROMPT)).toBe(true);
		expect(prompts[0]!.prompt).toContain("more characters cut to fit the summarizer's context window");
		for (let i = 1; i < prompts.length; i++) {
			expect(prompts[i]!.prompt).toContain(`<previous-summary>\n## Original Request\nprefix ${i}\n</previous-summary>`);
			expect(prompts[i]!.prompt.endsWith(TURN_PREFIX_UPDATE_PROMPT)).toBe(true);
		}
		const steps = prompts.flatMap((request) => [...request.prompt.matchAll(/step-(\d)/g)].map((m) => m[1]));
		expect(steps).toEqual(["1", "2", "3"]);
		expect(result.text).toBe(`## Original Request\nprefix ${prompts.length}`);
	});

	it("a message too long for the window cut between an emoji's halves: the summarizer gets the emoji whole or not at all, and the note counts exactly the characters cut", async () => {
		// One character more or less before the emojis moves the cut between a pair's halves and onto a boundary.
		for (const lead of ["task ", "task x"]) {
			const faux = createFauxProvider({ models: [{ id: "small", contextWindow: SMALL_WINDOW }] });
			const prompts: string[] = [];
			faux.setResponses(
				Array.from({ length: 4 }, () => (context: Context) => {
					prompts.push(promptOf(context));
					return fauxAssistantMessage(`## Original Request\nprefix ${prompts.length}`);
				}),
			);
			const message: AgentMessage = { role: "user", content: `${lead}${"\u{1F600}".repeat(20_000)}`, timestamp: 0 };
			await generateTurnPrefixSummary([message], {
				model: faux.getModel("small")!,
				streamFn: faux.streamFn,
				reserveTokens: RESERVE,
			});
			const whole = serializeConversation([message]);
			const cut = /\n\n\[\.\.\. (\d+) more characters cut to fit the summarizer's context window\]/.exec(prompts[0]!);
			expect(cut).not.toBeNull();
			const shown = prompts[0]!.slice(0, cut!.index);
			const kept = shown.slice(shown.indexOf("[User]: "));
			expect(whole.startsWith(kept)).toBe(true);
			expect(Buffer.from(kept, "utf8").toString("utf8")).toBe(kept); // a lone half comes back as U+FFFD
			expect(Number(cut![1])).toBe(whole.length - kept.length);
		}
	});
});

describe("a running summary that leaves no room in the window", () => {
	it("fails with a typed error that says what to change, before sending a request that cannot hold the span", async () => {
		const faux = createFauxProvider({ models: [{ id: "small", contextWindow: SMALL_WINDOW }] });
		const maxTokens = Math.floor(0.8 * RESERVE);
		// The first answer is so long that the second request has room for only 200 characters of conversation.
		const fixed =
			SUMMARIZATION_SYSTEM_PROMPT.length + summarizationRequestText("", CHECKPOINT_UPDATE_PROMPT, "").length;
		const longSummary = "s".repeat(4 * (SMALL_WINDOW - maxTokens) - fixed - 200);
		const prompts: string[] = [];
		faux.setResponses(
			Array.from({ length: 4 }, () => (context: Context) => {
				prompts.push(promptOf(context));
				return fauxAssistantMessage(longSummary);
			}),
		);
		const messages: AgentMessage[] = [1, 2].map((i) => ({
			role: "user",
			content: `part-${i} ${"x".repeat(20_000)}`,
			timestamp: i,
		}));

		const summary = generateSummary(messages, {
			model: faux.getModel("small")!,
			streamFn: faux.streamFn,
			reserveTokens: RESERVE,
		});

		await expect(summary).rejects.toMatchObject({
			code: "PROVIDER",
			message: `Summarization failed: the summarizer's context window (${SMALL_WINDOW} tokens) cannot hold the summarization instructions, the running summary and the answer budget (${maxTokens} tokens). Lower compaction.reserveTokens or compact with a model that has a larger context window.`,
		});
		expect(prompts).toHaveLength(1);
	});
});

describe("a window that cannot hold the instructions and the answer budget with room for a chunk", () => {
	it("/compact with a focus too long for the window fails with a typed error naming the focus, sends no request, and leaves the file as it was", async () => {
		const sent: string[] = [];
		await longSessionOnSmallModel([], { sent });
		const fileBefore = readFileSync(h.sessionManager.getSessionFile()!, "utf8");
		// About 6100 tokens of focus beside a 1600-token answer budget: the window holds no conversation.
		const focus = "Keep every endpoint name and its callers. ".repeat(580);

		const compacting = h.session.compact(focus);

		await expect(compacting).rejects.toMatchObject({
			code: "PROVIDER",
			message: `Summarization failed: the summarizer's context window (${SMALL_WINDOW} tokens) cannot hold the summarization instructions (with your ${focus.length}-character focus) and the answer budget (1600 tokens). Shorten the compaction focus, lower compaction.reserveTokens or compact with a model that has a larger context window.`,
		});
		// pi sends the one request and shows the provider's "prompt is too long".
		expect(sent).toEqual([]);
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "manual", aborted: false, willRetry: false, result: undefined }),
		]);
		expect(readFileSync(h.sessionManager.getSessionFile()!, "utf8")).toBe(fileBefore);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("a previous summary that fills the window fails with a typed error naming it, before any request", async () => {
		const faux = createFauxProvider({ models: [{ id: "small", contextWindow: SMALL_WINDOW }] });
		const sent: string[] = [];
		faux.setResponses([
			(context: Context) => {
				sent.push(promptOf(context));
				return fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long" });
			},
		]);
		const messages: AgentMessage[] = [1, 2].map((i) => ({
			role: "user",
			content: `part-${i} ${"x".repeat(2000)}`,
			timestamp: i,
		}));

		const summary = generateSummary(messages, {
			model: faux.getModel("small")!,
			streamFn: faux.streamFn,
			reserveTokens: RESERVE,
			previousSummary: `## Goal\n${"earlier work, ".repeat(1800)}`,
		});

		await expect(summary).rejects.toMatchObject({
			code: "PROVIDER",
			message: `Summarization failed: the summarizer's context window (${SMALL_WINDOW} tokens) cannot hold the summarization instructions, the previous compaction's summary and the answer budget (1600 tokens). Lower compaction.reserveTokens or compact with a model that has a larger context window.`,
		});
		expect(sent).toEqual([]);
	});
});

describe("pi#8651: the default reserve on a small window", () => {
	it("pi#8651: an 8000-token model with the default reserve (16384): the answer budget is capped at 80% of half the window, and every request with it fits", async () => {
		const faux = createFauxProvider({ models: [{ id: "small", contextWindow: SMALL_WINDOW }] });
		const requests: { prompt: string; tokens: number; budget: number }[] = [];
		faux.setResponses(
			Array.from({ length: 16 }, () => (context: Context, options: StreamOptions | undefined) => {
				const prompt = promptOf(context);
				const budget = options?.maxTokens ?? 0;
				requests.push({
					prompt,
					budget,
					tokens: Math.ceil((SUMMARIZATION_SYSTEM_PROMPT.length + prompt.length) / 4) + budget,
				});
				return fauxAssistantMessage(`## Goal\nsummary ${requests.length}`);
			}),
		);
		const messages: AgentMessage[] = [1, 2, 3].map((i) => ({
			role: "user",
			content: `part-${i} ${"x".repeat(12_000)}`,
			timestamp: i,
		}));

		// pi 0.73.1 asks for a 13107-token answer (80% of 16384): more than the 8000-token window.
		const summary = await generateSummary(messages, {
			model: faux.getModel("small")!,
			streamFn: faux.streamFn,
			reserveTokens: 16_384,
		});

		expect(summary.text).toBe(`## Goal\nsummary ${requests.length}`);
		for (const request of requests) {
			expect(request.budget).toBe(3200);
			expect(request.tokens).toBeLessThanOrEqual(SMALL_WINDOW);
		}
		expect(requests.flatMap((request) => [...request.prompt.matchAll(/part-(\d)/g)].map((m) => m[1]))).toEqual([
			"1",
			"2",
			"3",
		]);
	});
});
