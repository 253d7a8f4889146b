/**
 * Chunked summaries (openclaw#10423) over random message sizes and windows: every summarization
 * request fits the summarizer's window (input chars / 4 + answer budget), and every message of the
 * span reaches exactly one request, in order; a span that fits is one request, as in pi.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	CHECKPOINT_PROMPT,
	CHECKPOINT_UPDATE_PROMPT,
	SUMMARIZATION_SYSTEM_PROMPT,
	summarizationRequestText,
} from "../../src/compaction/prompts.js";
import { serializeConversation } from "../../src/compaction/serialize.js";
import { generateSummary } from "../../src/compaction/summarize.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentMessage, Context } from "../../src/llm/types.js";

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
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
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
				fc.integer({ min: MIN_WINDOW, max: MIN_WINDOW + 30_000 }),
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
});
