/**
 * zed-industries/zed#61373: a thread grown on a large-context model, then switched to a model with a
 * smaller window: the next message started a compaction, but the summary request carried the whole
 * pre-compaction history to the new model, which refused it (`model_context_window_exceeded`)
 * before writing any summary. What the user should see: every request the smaller model gets, the
 * summary requests included, fits its window, and the message is answered on the compacted
 * context.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { Context, Model, StreamOptions } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { messageChars } from "../compaction/summary-chunks.helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const SMALL = 16_384;

/** Input tokens as the provider counts them (chars / 4, system prompt included). */
const inputTokens = (context: Context) =>
	Math.ceil(((context.systemPrompt ?? "").length + context.messages.reduce((n, m) => n + messageChars(m), 0)) / 4);

describe("zed#61373: switching to a smaller-context model mid-thread", () => {
	it("zed#61373: seven ~3000-token turns (more than the small window) on a 200k model, then a 16k one, default settings: the next prompt compacts in requests that each fit 16k and is answered", async () => {
		h = await createHarness({
			persistence: "disk",
			faux: {
				models: [
					{ id: "large", contextWindow: 200_000 },
					{ id: "small", contextWindow: SMALL },
				],
			},
		});
		const toSmall: { summary: boolean; tokens: number }[] = [];
		const answers = [1, 2, 3, 4, 5, 6, 7].map((turn) => `fact-${turn} ${"y".repeat(11_900)}`);
		answers.push("answered on the small model");
		let summaries = 0;
		const route = async (context: Context, stream: StreamOptions | undefined, _s: unknown, model: Model) => {
			const summary = context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT;
			// What must fit: the input, and for a summary request its answer budget too.
			const tokens = inputTokens(context) + (summary ? (stream?.maxTokens ?? 0) : 0);
			if (model.id === "small") toSmall.push({ summary, tokens });
			if (tokens > model.contextWindow) {
				return fauxAssistantMessage("", {
					stopReason: "error",
					errorMessage: `Your input exceeds the context window of this model (${tokens} > ${model.contextWindow})`,
				});
			}
			if (summary) return fauxAssistantMessage(`## Goal\nsummary ${++summaries}`);
			return fauxAssistantMessage(answers.shift() ?? "no answer left");
		};
		h.setResponses(Array.from({ length: 64 }, () => route));
		await h.session.setModel(h.getModel("large")!);
		for (let turn = 1; turn <= 7; turn++) await h.session.prompt(`task ${turn} ${"x".repeat(400)}`);
		await h.session.setModel(h.getModel("small")!);

		await h.session.prompt("continue on the small model");

		expect(toSmall.filter((request) => request.summary).length).toBeGreaterThan(0);
		expect(toSmall.filter((request) => request.tokens > SMALL)).toEqual([]);
		const ends = h.eventsOfType("compaction_end");
		expect(ends).toHaveLength(1);
		expect(ends[0]).toMatchObject({ aborted: false });
		expect(ends[0]!.errorMessage).toBeUndefined();
		expect(JSON.stringify(h.session.messages.at(-1))).toContain("answered on the small model");
		expect(JSON.stringify(h.session.messages)).not.toContain("fact-1");
	});
});
