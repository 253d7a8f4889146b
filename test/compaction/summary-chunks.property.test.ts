/**
 * Chunked summaries (openclaw#10423) over random message sizes and windows: every summarization
 * request fits the summarizer's window (input chars / 4 + answer budget), and every message of the
 * span reaches exactly one request, in order; a span that fits is one request, as in pi. With a
 * provider that counts tokens more densely than chars/4 (summchunk2), compaction either succeeds
 * with every message in exactly one accepted request or fails with a typed error, in a bounded
 * number of requests.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MIN_CHUNK_CHARS } from "../../src/compaction/chunks.js";
import {
	CHECKPOINT_PROMPT,
	CHECKPOINT_UPDATE_PROMPT,
	SUMMARIZATION_SYSTEM_PROMPT,
	summarizationRequestText,
} from "../../src/compaction/prompts.js";
import { serializeConversation } from "../../src/compaction/serialize.js";
import { generateSummary } from "../../src/compaction/summarize.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { type AgentMessage, type Context, emptyUsage } from "../../src/llm/types.js";

const RESERVE = 2000;
const MAX_TOKENS = Math.floor(0.8 * RESERVE);

type Kind = "user" | "assistant" | "toolResult";

function message(kind: Kind, index: number, size: number): AgentMessage {
	const text = `<m${index}>${"z".repeat(size)}`;
	if (kind === "user") return { role: "user", content: text, timestamp: index };
	if (kind === "toolResult") {
		return {
			role: "toolResult",
			toolCallId: `c${index}`,
			toolName: "read",
			content: [{ type: "text", text }],
			isError: false,
			timestamp: index,
		};
	}
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "faux",
		provider: "faux",
		model: "w",
		usage: emptyUsage(),
		stopReason: "stop",
		timestamp: index,
	};
}

function requestText(context: Context): string {
	const content = context.messages[0]!.content;
	return typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

/** Smallest window with room for the update prompt, a short running summary and the minimum chunk. */
const MIN_WINDOW =
	MAX_TOKENS +
	Math.ceil(
		(SUMMARIZATION_SYSTEM_PROMPT.length +
			summarizationRequestText("", CHECKPOINT_UPDATE_PROMPT, "## Goal\nsummary 999").length +
			400) /
			4,
	);

describe("chunked summaries: property (openclaw#10423)", () => {
	it("every request fits the window; every message is in exactly one request, in order", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(
					fc.tuple(fc.constantFrom<Kind>("user", "assistant", "toolResult"), fc.integer({ min: 0, max: 40_000 })),
					{ minLength: 1, maxLength: 30 },
				),
				// Windows where the reserve is not capped (pi#8651 caps it at half the window).
				fc.integer({ min: Math.max(MIN_WINDOW, 2 * RESERVE), max: MIN_WINDOW + 30_000 }),
				fc.option(fc.constant("## Goal\nearlier work"), { nil: undefined }),
				async (shape, contextWindow, previousSummary) => {
					const messages = shape.map(([kind, size], index) => message(kind, index, size));
					const faux = createFauxProvider({ models: [{ id: "w", contextWindow }] });
					const prompts: string[] = [];
					const budgets: number[] = [];
					faux.setResponses(
						Array.from(
							{ length: messages.length + 1 },
							() => (context: Context, options: { maxTokens?: number } | undefined) => {
								prompts.push(requestText(context));
								budgets.push(options?.maxTokens ?? 0);
								return fauxAssistantMessage(`## Goal\nsummary ${prompts.length}`);
							},
						),
					);
					const model = faux.getModel("w")!;
					const result = await generateSummary(messages, {
						model,
						streamFn: faux.streamFn,
						reserveTokens: RESERVE,
						...(previousSummary !== undefined ? { previousSummary } : {}),
					});

					for (let i = 0; i < prompts.length; i++) {
						const tokens = Math.ceil((SUMMARIZATION_SYSTEM_PROMPT.length + prompts[i]!.length) / 4) + budgets[i]!;
						expect(tokens, `request ${i + 1} of ${prompts.length}`).toBeLessThanOrEqual(contextWindow);
					}
					const seen = prompts.flatMap((prompt) => [...prompt.matchAll(/<m(\d+)>/g)].map((m) => Number(m[1])));
					expect(seen).toEqual(messages.map((_, index) => index));
					// Request i + 1 updates request i's summary; the first one updates the previous compaction's.
					prompts.forEach((prompt, i) => {
						const carried = i === 0 ? previousSummary : `## Goal\nsummary ${i}`;
						if (carried === undefined) expect(prompt).not.toContain("<previous-summary>");
						else expect(prompt).toContain(`<previous-summary>\n${carried}\n</previous-summary>`);
					});
					expect(result.text).toBe(`## Goal\nsummary ${prompts.length}`);
					// A span that fits is pi's one request, unchanged.
					const single = summarizationRequestText(
						serializeConversation(messages),
						previousSummary !== undefined ? CHECKPOINT_UPDATE_PROMPT : CHECKPOINT_PROMPT,
						previousSummary,
					);
					const fits =
						Math.ceil((SUMMARIZATION_SYSTEM_PROMPT.length + single.length) / 4) + MAX_TOKENS <= contextWindow;
					if (fits) expect(prompts).toEqual([single]);
					// Too large: several requests, or one whose only message was cut to fit.
					else
						expect(prompts.length > 1 || prompts[0]!.includes("cut to fit the summarizer's context window")).toBe(true);
				},
			),
			{ numRuns: 150 },
		);
	});

	it("summchunk2: with a provider denser than chars/4, every message is in exactly one accepted request, or a typed error; requests are bounded", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(
					fc.tuple(fc.constantFrom<Kind>("user", "assistant", "toolResult"), fc.integer({ min: 0, max: 40_000 })),
					{ minLength: 1, maxLength: 30 },
				),
				// Windows where the reserve is not capped (pi#8651 caps it at half the window).
				fc.integer({ min: Math.max(MIN_WINDOW, 2 * RESERVE), max: MIN_WINDOW + 30_000 }),
				fc.option(fc.constant("## Goal\nearlier work"), { nil: undefined }),
				// Characters per token as this provider counts them: 1.0 to 4.0 (4 is Settle's estimate).
				fc.integer({ min: 10, max: 40 }).map((tenths) => tenths / 10),
				async (shape, contextWindow, previousSummary, charsPerToken) => {
					const messages = shape.map(([kind, size], index) => message(kind, index, size));
					const faux = createFauxProvider({ models: [{ id: "w", contextWindow }] });
					const requests: { prompt: string; tokens: number; accepted: boolean }[] = [];
					faux.setResponses(
						Array.from({ length: 200 }, () => (context: Context, options: { maxTokens?: number } | undefined) => {
							const prompt = requestText(context);
							const tokens =
								Math.ceil((SUMMARIZATION_SYSTEM_PROMPT.length + prompt.length) / charsPerToken) +
								(options?.maxTokens ?? 0);
							const accepted = tokens <= contextWindow;
							requests.push({ prompt, tokens, accepted });
							if (!accepted) {
								return fauxAssistantMessage("", {
									stopReason: "error",
									errorMessage: `prompt is too long: ${tokens} tokens > ${contextWindow} maximum`,
								});
							}
							return fauxAssistantMessage(`## Goal\nsummary ${requests.filter((r) => r.accepted).length}`);
						}),
					);
					const outcome = await generateSummary(messages, {
						model: faux.getModel("w")!,
						streamFn: faux.streamFn,
						reserveTokens: RESERVE,
						...(previousSummary !== undefined ? { previousSummary } : {}),
					}).then(
						(result) => ({ result }),
						(error: unknown) => ({ error }),
					);

					// Bounded: one accepted request per message at most, and each rejection at least halves
					// the conversation a chunk may hold, from at most 4 × window characters down to MIN_CHUNK_CHARS.
					const bound = messages.length + Math.floor(Math.log2((4 * contextWindow) / MIN_CHUNK_CHARS)) + 1;
					expect(requests.length).toBeLessThanOrEqual(bound);
					const accepted = requests.filter((request) => request.accepted);
					// Succeeds whenever the provider takes every request of under 2 × MIN_CHUNK_CHARS of
					// conversation (with either prompt and a running summary): only a rejected chunk smaller
					// than that ends it.
					const smallRequestTokens = Math.max(
						...[CHECKPOINT_PROMPT, CHECKPOINT_UPDATE_PROMPT].map((instructions) =>
							Math.ceil(
								(SUMMARIZATION_SYSTEM_PROMPT.length +
									summarizationRequestText("x".repeat(2 * MIN_CHUNK_CHARS), instructions, "## Goal\nearlier work!")
										.length) /
									charsPerToken,
							),
						),
					);
					if (smallRequestTokens + MAX_TOKENS <= contextWindow) expect(outcome).not.toHaveProperty("error");
					if ("error" in outcome) {
						expect(outcome.error).toMatchObject({
							code: "PROVIDER",
							message: expect.stringMatching(
								/^Summarization failed: (prompt is too long: \d+ tokens > \d+ maximum|the summarizer's context window \(\d+ tokens\) cannot hold)/,
							),
						});
						return;
					}
					for (const request of accepted) expect(request.tokens).toBeLessThanOrEqual(contextWindow);
					const seen = accepted.flatMap((r) => [...r.prompt.matchAll(/<m(\d+)>/g)].map((m) => Number(m[1])));
					expect(seen).toEqual(messages.map((_, index) => index));
					// Accepted request i + 1 updates accepted request i's summary.
					accepted.forEach((request, i) => {
						const carried = i === 0 ? previousSummary : `## Goal\nsummary ${i}`;
						if (carried === undefined) expect(request.prompt).not.toContain("<previous-summary>");
						else expect(request.prompt).toContain(`<previous-summary>\n${carried}\n</previous-summary>`);
					});
					expect(outcome.result.text).toBe(`## Goal\nsummary ${accepted.length}`);
					// A provider that counts as the estimate does (or sparser) never rejects.
					if (charsPerToken === 4) expect(requests.every((request) => request.accepted)).toBe(true);
				},
			),
			{ numRuns: 150 },
		);
	});
});
