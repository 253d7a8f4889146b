import { afterEach, describe, expect, it } from "vitest";
import { MIN_CHUNK_CHARS } from "../../src/compaction/chunks.js";
import { SUMMARIZATION_SYSTEM_PROMPT, TURN_PREFIX_PROMPT } from "../../src/compaction/prompts.js";
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

const WINDOW = 10_000;
const RESERVE = 2000;
const MAX_TOKENS = Math.floor(0.8 * RESERVE);
/** About 1250 tokens by the estimate per answer; four turns fit the window by chars/4, not by chars/2. */
const answerText = (turn: number) => `fact-${turn} ${"y".repeat(5000)}`;

/** Input tokens as this provider counts them: 2 characters per token (the estimate says 4). */
const denseTokens = (context: Context) =>
	Math.ceil(((context.systemPrompt ?? "").length + context.messages.reduce((n, m) => n + messageChars(m), 0)) / 2);

/** The same request by Settle's chars/4 estimate, answer budget included. */
const estimatedTokens = (prompt: string) =>
	Math.ceil((SUMMARIZATION_SYSTEM_PROMPT.length + prompt.length) / 4) + MAX_TOKENS;

interface SummaryRequest {
	prompt: string;
	/** Dense input tokens plus the answer budget. */
	tokens: number;
	rejected: boolean;
}

const tooLong = (tokens: number, window: number) =>
	fauxAssistantMessage("", {
		stopReason: "error",
		errorMessage: `prompt is too long: ${tokens} tokens > ${window} maximum`,
	});

/**
 * A provider that counts 2 characters per token and rejects, with Anthropic's overflow error, a
 * turn whose input exceeds the window or a summary request whose input plus answer budget does.
 * Every summary request is recorded; an accepted one gets `## Goal\nsummary <n>` (n counts accepted).
 */
function denseProvider(
	h: Harness,
	answers: string[],
	options: { rejectAll?: boolean; summary?: (n: number) => Promise<void> | undefined } = {},
) {
	const summaries: SummaryRequest[] = [];
	const route = async (context: Context, stream: StreamOptions | undefined, _s: unknown, model: Model) => {
		const input = denseTokens(context);
		if (context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT) {
			const tokens = input + (stream?.maxTokens ?? 0);
			const rejected = options.rejectAll === true || tokens > model.contextWindow;
			summaries.push({ prompt: promptOf(context), tokens, rejected });
			if (rejected) return tooLong(tokens, model.contextWindow);
			const n = summaries.filter((request) => !request.rejected).length;
			await options.summary?.(n);
			return fauxAssistantMessage(`## Goal\nsummary ${n}`);
		}
		if (input > model.contextWindow) return tooLong(input, model.contextWindow);
		const next = answers.shift();
		return next === undefined
			? fauxAssistantMessage("", { stopReason: "error", errorMessage: "no answer left" })
			: fauxAssistantMessage(next);
	};
	h.setResponses(Array.from({ length: 64 }, () => route));
	return summaries;
}

/** Five turns on a large-window model, then the 10000-token one; the last turn is kept, four are summarized. */
async function denseSessionOnSmallModel(
	answersAfter: string[],
	options?: Parameters<typeof denseProvider>[2],
	underReported = false,
) {
	h = await smallModelHarness({ window: WINDOW, reserveTokens: RESERVE, keepRecentTokens: 1300, underReported });
	const answers = [1, 2, 3, 4, 5].map(answerText);
	const summaries = denseProvider(h, [...answers, ...answersAfter], options);
	await fiveTurnsThenSmallModel(h);
	return summaries;
}

const factsOf = (requests: SummaryRequest[]) =>
	requests.flatMap((request) => [...request.prompt.matchAll(/fact-(\d)/g)].map((m) => m[1]));

describe("summary request rejected as too long although the estimate said it fits (summchunk2)", () => {
	it("regression summchunk2: manual compaction re-splits the rejected request in halves that carry the running summary", async () => {
		const summaries = await denseSessionOnSmallModel([]);

		const result = await h.session.compact();

		// pi's one request went out (it fits by the estimate) and was rejected.
		const [single, ...after] = summaries;
		expect(estimatedTokens(single!.prompt)).toBeLessThanOrEqual(WINDOW);
		expect(single).toMatchObject({ rejected: true });
		expect(factsOf([single!])).toEqual(["1", "2", "3", "4"]);
		// Then smaller requests, all accepted, each carrying the summary of the ones before.
		expect(after.length).toBeGreaterThan(1);
		for (const request of after) {
			expect(request.rejected).toBe(false);
			expect(request.tokens).toBeLessThanOrEqual(WINDOW);
			expect(request.prompt.length).toBeLessThan(single!.prompt.length);
		}
		expect(after[0]!.prompt).not.toContain("<previous-summary>");
		for (let i = 1; i < after.length; i++) {
			expect(after[i]!.prompt).toContain(`<previous-summary>\n## Goal\nsummary ${i}\n</previous-summary>`);
		}
		expect(factsOf(after)).toEqual(["1", "2", "3", "4"]);
		expect(result.summary).toBe(`## Goal\nsummary ${after.length}`);
		expect(compactionEntriesOnDisk(h)).toEqual([expect.objectContaining({ summary: result.summary })]);
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "manual", aborted: false, willRetry: false, result: expect.anything() }),
		]);
	});

	it("regression summchunk2: overflow recovery survives the rejected summary request and the run continues", async () => {
		const summaries = await denseSessionOnSmallModel(["done on the small model"], {}, true);

		await h.session.prompt("continue");

		expect(summaries[0]).toMatchObject({ rejected: true });
		expect(summaries.slice(1).every((request) => !request.rejected)).toBe(true);
		expect(factsOf(summaries.slice(1))).toEqual(["1", "2", "3", "4"]);
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "overflow", aborted: false, willRetry: true }),
		]);
		expect(compactionEntriesOnDisk(h)).toHaveLength(1);
		const last = h.session.messages.at(-1) as AssistantMessage;
		expect(last.stopReason).toBe("stop");
		expect(last.content).toEqual([{ type: "text", text: "done on the small model" }]);
	});

	it("gives up with the provider's overflow error once a chunk cannot shrink: a bounded number of ever smaller requests, one compaction_end, no entry", async () => {
		const summaries = await denseSessionOnSmallModel([], { rejectAll: true });

		const compacting = h.session.compact();

		await expect(compacting).rejects.toMatchObject({
			code: "PROVIDER",
			message: expect.stringMatching(/^Summarization failed: prompt is too long: \d+ tokens > 10000 maximum$/),
		});
		// The single request (21770 characters of conversation), then chunks of at most half the
		// rejected one's conversation (10892, 5453), until a chunk of one message (turn 1's 414-character
		// prompt) has no half of at least MIN_CHUNK_CHARS: four requests, ever smaller.
		const conversation = (prompt: string) => /<conversation>\n([\s\S]*)\n<\/conversation>/.exec(prompt)![1]!;
		const sizes = summaries.map((request) => conversation(request.prompt).length);
		for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThanOrEqual(sizes[i - 1]! / 2);
		const last = conversation(summaries.at(-1)!.prompt);
		expect(last.match(/^\[(User|Assistant)\]:/gm)).toHaveLength(1);
		expect(last.length).toBeLessThan(2 * MIN_CHUNK_CHARS);
		expect(summaries).toHaveLength(4);
		expect(summaries.every((request) => request.rejected)).toBe(true);
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "manual", aborted: false, willRetry: false, result: undefined }),
		]);
		expect(compactionEntriesOnDisk(h)).toEqual([]);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("abortCompaction() during the request after the rejection cancels at once and writes nothing", async () => {
		const first = heldSummaryRequest(1);
		const summaries = await denseSessionOnSmallModel([], { summary: first.summary });

		const compacting = h.session.compact();
		await Promise.race([
			first.reached,
			compacting.then(() => expect.fail("the compaction ended before the request after the rejection")),
		]);
		h.session.abortCompaction();
		await expect(compacting).rejects.toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		first.release();

		expect(summaries.map((request) => request.rejected)).toEqual([true, false]);
		expect(h.eventsOfType("compaction_end")).toEqual([
			{ type: "compaction_end", reason: "manual", result: undefined, aborted: true, willRetry: false },
		]);
		expect(compactionEntriesOnDisk(h)).toEqual([]);
	});
});

describe("a split turn's beginning rejected as too long although the estimate said it fits (summchunk2)", () => {
	it("regression summchunk2: the turn prefix is re-split after the rejection ('Turn prefix summarization failed' before)", async () => {
		const faux = createFauxProvider({ models: [{ id: "small", contextWindow: WINDOW }] });
		const requests: SummaryRequest[] = [];
		faux.setResponses(
			Array.from({ length: 8 }, () => (context: Context, options: StreamOptions | undefined) => {
				const tokens = denseTokens(context) + (options?.maxTokens ?? 0);
				const rejected = tokens > WINDOW;
				requests.push({ prompt: promptOf(context), tokens, rejected });
				return rejected
					? tooLong(tokens, WINDOW)
					: fauxAssistantMessage(`## Original Request\nprefix ${requests.length}`);
			}),
		);
		const prefix: AgentMessage[] = [{ role: "user", content: "task", timestamp: 0 }];
		for (let i = 1; i <= 4; i++) {
			prefix.push({
				role: "custom",
				customType: "note",
				content: `step-${i} ${"y".repeat(5000)}`,
				display: true,
				timestamp: i,
			});
		}

		const result = await generateTurnPrefixSummary(prefix, {
			model: faux.getModel("small")!,
			streamFn: faux.streamFn,
			reserveTokens: RESERVE,
		});

		expect(requests[0]).toMatchObject({ rejected: true });
		expect(requests[0]!.prompt.endsWith(TURN_PREFIX_PROMPT)).toBe(true);
		const accepted = requests.slice(1);
		expect(accepted.length).toBeGreaterThan(1);
		expect(accepted.every((request) => !request.rejected)).toBe(true);
		const steps = accepted.flatMap((request) => [...request.prompt.matchAll(/step-(\d)/g)].map((m) => m[1]));
		expect(steps).toEqual(["1", "2", "3", "4"]);
		expect(result.text).toBe(`## Original Request\nprefix ${requests.length}`);
	});
});

describe("rejections that halving cannot help keep today's error (summchunk2)", () => {
	const parts = (count: number): AgentMessage[] =>
		Array.from({ length: count }, (_, i) => ({ role: "user", content: `part-${i} ${"x".repeat(5000)}`, timestamp: i }));

	it("a provider error that is not an overflow ends the summary after its one request", async () => {
		const faux = createFauxProvider({ models: [{ id: "small", contextWindow: WINDOW }] });
		const prompts: string[] = [];
		faux.setResponses(
			Array.from({ length: 8 }, () => (context: Context) => {
				prompts.push(promptOf(context));
				return fauxAssistantMessage("", {
					stopReason: "error",
					errorMessage: "400 invalid_request_error: messages.0.content: unsupported",
				});
			}),
		);

		const summary = generateSummary(parts(3), {
			model: faux.getModel("small")!,
			streamFn: faux.streamFn,
			reserveTokens: RESERVE,
		});

		await expect(summary).rejects.toMatchObject({
			code: "PROVIDER",
			message: "Summarization failed: 400 invalid_request_error: messages.0.content: unsupported",
		});
		expect(prompts).toHaveLength(1);
	});

	it("pi#8651: the default reserve on an 8000-token window: the answer budget is capped at 80% of half the window, and the dense span is summarized in requests the provider accepts", async () => {
		const faux = createFauxProvider({ models: [{ id: "small", contextWindow: 8000 }] });
		const budgets: number[] = [];
		faux.setResponses(
			Array.from({ length: 32 }, () => (context: Context, options: StreamOptions | undefined) => {
				budgets.push(options?.maxTokens ?? 0);
				const tokens = denseTokens(context) + (options?.maxTokens ?? 0);
				return tokens > 8000 ? tooLong(tokens, 8000) : fauxAssistantMessage(`## Goal\nsummary ${budgets.length}`);
			}),
		);

		// pi 0.73.1 asks for 13107 tokens (80% of 16384), more than the window: every request fails.
		const summary = await generateSummary(parts(3), {
			model: faux.getModel("small")!,
			streamFn: faux.streamFn,
			reserveTokens: 16_384,
		});

		expect(summary.text).toMatch(/^## Goal\nsummary \d+$/);
		expect(new Set(budgets)).toEqual(new Set([3200]));
	});
});

describe("a summarizer model without a context window (a virtual model with its window unset)", () => {
	it("a rejection as too long splits the span in halves that the provider accepts, as for a model with a window", async () => {
		const faux = createFauxProvider({ models: [{ id: "unknown-window", contextWindow: 0 }] });
		const requests: { prompt: string; rejected: boolean }[] = [];
		faux.setResponses(
			Array.from({ length: 8 }, () => (context: Context, options: StreamOptions | undefined) => {
				const tokens = denseTokens(context) + (options?.maxTokens ?? 0);
				requests.push({ prompt: promptOf(context), rejected: tokens > 8000 });
				return tokens > 8000 ? tooLong(tokens, 8000) : fauxAssistantMessage(`## Goal\nsummary ${requests.length}`);
			}),
		);
		const messages: AgentMessage[] = [0, 1, 2].map((i) => ({
			role: "user",
			content: `part-${i} ${"x".repeat(5000)}`,
			timestamp: i,
		}));

		const summary = await generateSummary(messages, {
			model: faux.getModel("unknown-window")!,
			streamFn: faux.streamFn,
			reserveTokens: RESERVE,
		});

		// The one request (about 9800 tokens as this provider counts) is rejected; its halves are not.
		expect(requests.map((request) => request.rejected)).toEqual([true, false, false, false]);
		const accepted = requests.filter((request) => !request.rejected);
		expect(accepted.flatMap((request) => [...request.prompt.matchAll(/part-(\d)/g)].map((m) => m[1]))).toEqual([
			"0",
			"1",
			"2",
		]);
		expect(summary.text).toBe(`## Goal\nsummary ${requests.length}`);
	});
});
