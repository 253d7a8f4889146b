/**
 * pi's reports about compaction and the context window, replayed against Settle on real session
 * files: a summary request that grows past the window because it carries thinking the ordinary
 * requests left out (pi#9602), a kept tail that ends in one tool call whose result alone nearly
 * fills `keepRecentTokens` (pi#8498), the `fromId` a branch summary records on `/tree`
 * (pi#3796), and a `length` stop far below the window taken for a full context (pi#9793, pi#8130).
 * pi#8651: on a model with an 8192-token window the default `reserveTokens` (16384) put the
 * threshold below zero, so every prompt compacted, and the summary request asked for 13107 output
 * tokens, more than the window; Settle caps the reserve at half the window.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "../../src/llm/faux.js";
import type { AssistantMessage, Context, Model, StreamOptions } from "../../src/llm/types.js";
import type { CompactionEntry, SessionEntry } from "../../src/store/entries.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { messageChars, promptOf, underReportedUsage } from "../compaction/summary-chunks.helpers.js";
import { orphanToolMessages } from "./disk-harness.js";
import { overflowReply, script, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** The session file's entries, read from disk. */
function entriesOnDisk(harness: Harness): SessionEntry[] {
	return readFileSync(harness.sessionManager.getSessionFile()!, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type !== "session");
}

describe("pi#9602: compaction overflows by including thinking the model requests left out", () => {
	const WINDOW = 8000;
	const RESERVE = 2000;
	/** About 2500 tokens of thinking per answer; four answers are 10000 tokens, over the window. */
	const thinking = (turn: number) => `thought-${turn} ${"z".repeat(10_000)}`;

	it("pi#9602: four thinking-only answers under-reported by the provider: /compact summarizes them in requests that each fit the window, and the session continues", async () => {
		h = await createHarness({
			persistence: "disk",
			faux: { models: [{ id: "small", contextWindow: WINDOW }] },
			settings: { compaction: { reserveTokens: RESERVE, keepRecentTokens: 1000 } },
			// The report's provider left thinking-only answers out of its requests: usage stayed low.
			extensionFactories: [underReportedUsage],
		});
		const summaries: { prompt: string; tokens: number }[] = [];
		const answers: AssistantMessage[] = [1, 2, 3, 4].map((turn) =>
			fauxAssistantMessage([fauxThinking(thinking(turn))]),
		);
		answers.push(fauxAssistantMessage("answered after the compaction"));
		// Rejects any request over the window, as llama.cpp did. Ordinary requests are counted
		// without thinking (the provider drops it); a summary request is plain text, all counted.
		const route = async (context: Context, stream: StreamOptions | undefined, _s: unknown, model: Model) => {
			const chars = context.messages.reduce(
				(n, m) =>
					n +
					(m.role === "assistant" && typeof m.content !== "string"
						? messageChars({ ...m, content: m.content.filter((b) => b.type !== "thinking") })
						: messageChars(m)),
				(context.systemPrompt ?? "").length,
			);
			const summarizing = context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT;
			// A summary request must leave room for its answer budget.
			const tokens = Math.ceil(chars / 4) + (summarizing ? (stream?.maxTokens ?? 0) : 0);
			if (tokens > model.contextWindow) {
				return fauxAssistantMessage("", {
					stopReason: "error",
					errorMessage: `request (${tokens} tokens) exceeds the available context size (${model.contextWindow} tokens)`,
				});
			}
			if (summarizing) {
				summaries.push({ prompt: promptOf(context), tokens });
				return fauxAssistantMessage(`## Goal\nsummary ${summaries.length}`);
			}
			return answers.shift() ?? fauxAssistantMessage("", { stopReason: "error", errorMessage: "no answer left" });
		};
		h.setResponses(Array.from({ length: 32 }, () => route));
		for (let turn = 1; turn <= 4; turn++) await h.session.prompt(`task ${turn}`);
		expect(h.eventsOfType("compaction_end")).toEqual([]);

		const result = await h.session.compact();

		// More than one request, each within the window with its answer budget.
		expect(summaries.length).toBeGreaterThan(1);
		for (const request of summaries) expect(request.tokens).toBeLessThanOrEqual(WINDOW);
		// The summarized thinking reached the summarizer once each, in order (none dropped).
		const seen = summaries.flatMap((request) => [...request.prompt.matchAll(/thought-(\d)/g)].map((m) => m[1]));
		// (The last answer is kept: the cut splits its turn.)
		expect(seen).toEqual(["1", "2", "3"]);
		const compactions = entriesOnDisk(h).filter((entry) => entry.type === "compaction");
		expect(compactions).toEqual([expect.objectContaining({ summary: result.summary })]);
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({ reason: "manual", aborted: false });

		await h.session.prompt("go on");
		expect(h.session.messages.at(-1)).toMatchObject({
			role: "assistant",
			stopReason: "stop",
			content: [fauxText("answered after the compaction")],
		});
	});
});

describe("pi#8651: the default reserveTokens on a small-window model", () => {
	const WINDOW = 8192;

	it("pi#8651: an 8192-token model with the default reserve: short prompts compact nothing, and /compact's summary request with its answer budget fits the window", async () => {
		h = await createHarness({
			persistence: "disk",
			faux: { models: [{ id: "small", contextWindow: WINDOW }] },
			// The default reserve (16384); a small kept tail, so there is always something to summarize.
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		const summaries: { maxTokens: number; tokens: number }[] = [];
		const route = async (context: Context, stream: StreamOptions | undefined) => {
			if (context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT) {
				const maxTokens = stream?.maxTokens ?? 0;
				const chars = context.messages.reduce((n, m) => n + messageChars(m), context.systemPrompt.length);
				summaries.push({ maxTokens, tokens: Math.ceil(chars / 4) + maxTokens });
				return fauxAssistantMessage(`## Goal\nsummary ${summaries.length}`);
			}
			return fauxAssistantMessage(`short answer ${summaries.length}`);
		};
		h.setResponses(Array.from({ length: 16 }, () => route));
		for (let turn = 1; turn <= 4; turn++) await h.session.prompt(`short prompt ${turn}`);
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(summaries).toEqual([]);
		expect(entriesOnDisk(h).filter((entry) => entry.type === "compaction")).toEqual([]);

		await h.session.compact();
		// The history request and the split last turn's prefix request. Half the window is the reserve
		// (4096): the history answer gets 80% of it, the prefix answer half; each fits.
		expect(summaries.map((request) => request.maxTokens).sort()).toEqual([2048, 3276]);
		for (const request of summaries) expect(request.tokens).toBeLessThanOrEqual(WINDOW);
		expect(entriesOnDisk(h).filter((entry) => entry.type === "compaction")).toHaveLength(1);
	});

	it("pi#8651: an 8192-token model with the default branch-summary reserve: navigateTree with a summary sends the short branch in a request that fits the window and records the model's summary", async () => {
		h = await createHarness({ persistence: "disk", faux: { models: [{ id: "small", contextWindow: WINDOW }] } });
		const summaries: { maxTokens: number; tokens: number; prompt: string }[] = [];
		const route = async (context: Context, stream: StreamOptions | undefined) => {
			if (context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT) {
				const maxTokens = stream?.maxTokens ?? 0;
				const chars = context.messages.reduce((n, m) => n + messageChars(m), context.systemPrompt.length);
				summaries.push({ maxTokens, tokens: Math.ceil(chars / 4) + maxTokens, prompt: promptOf(context) });
				return fauxAssistantMessage("## Goal\nbranch summary of the abandoned question");
			}
			return fauxAssistantMessage("answer");
		};
		h.setResponses(Array.from({ length: 4 }, () => route));
		await h.session.prompt("question one");
		await h.session.prompt("abandoned question two");
		const firstAnswer = h.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "assistant")!;

		await h.session.navigateTree(firstAnswer.id, { summarize: true });

		// Half the window is the reserve (4096), as for compaction: the abandoned turn fits the
		// 4096-token budget and reaches the request, and the request with its answer budget fits.
		expect(summaries).toHaveLength(1);
		expect(summaries[0]!.prompt).toContain("abandoned question two");
		expect(summaries[0]!.maxTokens).toBe(2048);
		expect(summaries[0]!.tokens).toBeLessThanOrEqual(WINDOW);
		const entry = entriesOnDisk(h).find((e) => e.type === "branch_summary");
		expect(entry).toMatchObject({ summary: expect.stringContaining("branch summary of the abandoned question") });
	});
});

describe("pi#8498: the kept tail is one tool call whose result alone nearly fills keepRecentTokens", () => {
	/** About 1800 tokens of output: under the 2000-token budget alone, over it with its prompt. */
	const RESULT_TEXT = "result line of a long query\n".repeat(257);
	const query: AgentTool = {
		name: "query",
		label: "query",
		description: "runs a query",
		parameters: { type: "object", properties: {} } as never,
		execute: async () => ({ content: [{ type: "text", text: RESULT_TEXT }], details: {} }),
	};

	it("pi#8498: after an earlier compaction, the overflowing request's compaction keeps the turn from its prompt — prompt, call and result together — and the retry is answered", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [query],
			settings: { compaction: { keepRecentTokens: 2000 } },
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage(`first answer ${"a".repeat(4000)}`),
			fauxAssistantMessage(`second answer ${"b".repeat(4000)}`),
			fauxAssistantMessage([fauxToolCall("query", {}, { id: "call-q" })], { stopReason: "toolUse" }),
			// The request carrying the result overflows; compacted, it is retried.
			overflowReply(),
			fauxAssistantMessage("The query shows the failure."),
		]);
		await h.session.prompt("first task");
		await h.session.prompt("second task");
		await h.session.compact();
		const recentPrompt = `third task ${"c".repeat(1200)}`;
		await h.session.prompt(recentPrompt);

		const ends = h.eventsOfType("compaction_end");
		expect(ends.map((event) => [event.reason, event.errorMessage, event.result !== undefined])).toEqual([
			["manual", undefined, true],
			["overflow", undefined, true],
		]);
		const entries = entriesOnDisk(h);
		const compactions = entries.filter((entry): entry is CompactionEntry => entry.type === "compaction");
		expect(compactions).toHaveLength(2);
		// The second cut is the recent prompt: the turn is kept whole, over the budget rather than split
		// between a call and its result.
		const kept = entries.find((entry) => entry.id === compactions[1]!.firstKeptEntryId);
		expect(kept).toMatchObject({ type: "message", message: { role: "user", content: [fauxText(recentPrompt)] } });
		const retried = answerRequests.at(-1)!;
		expect(userTexts(retried).join("\n")).not.toContain("second task");
		expect(retried.messages.slice(-3).map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
		expect(retried.messages.at(-1)).toMatchObject({ role: "toolResult", toolCallId: "call-q" });
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(orphanToolMessages(h.session.sessionManager.getSessionFile()!)).toEqual({
			callsWithoutResult: [],
			resultsWithoutCall: [],
		});
	});
});

describe("pi#3796: a branch summary's fromId is the branch target, not the leaf the user left", () => {
	it("pi#3796: navigateTree with a summary records the leaf the user navigated from in fromId, on disk", async () => {
		h = await createHarness({ persistence: "disk" });
		script(h, [fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")]);
		await h.session.prompt("question one");
		await h.session.prompt("question two");
		const leafBefore = h.sessionManager.getLeafId()!;
		const firstAnswer = h.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "assistant")!;

		await h.session.navigateTree(firstAnswer.id, { summarize: true });

		const summary = entriesOnDisk(h).find((entry) => entry.type === "branch_summary");
		expect(summary).toMatchObject({ parentId: firstAnswer.id, fromId: leafBefore });
		expect(leafBefore).not.toBe(firstAnswer.id);
	});
});

describe("pi#9793: an ambiguous length stop far below the window drops the history", () => {
	/** The report's gateway: streaming usage left the reasoning out, so a cut answer reports no output. */
	const reportedUsage = (pi: ExtensionAPI) =>
		void pi.on("message_end", (event) => {
			if (event.message.role !== "assistant" || event.message.stopReason !== "length") return undefined;
			const usage = { ...event.message.usage, input: 107_687, output: 0, cacheRead: 0, totalTokens: 107_687 };
			return { message: { ...event.message, usage } };
		});

	it("pi#9793: a length stop with no reported output at 11% of a 1M window is not compacted: the run ends on it, and the next prompt still carries the earlier turns", async () => {
		h = await createHarness({
			persistence: "disk",
			// The report's model: a 1M window and a 16384-token output cap.
			faux: { models: [{ id: "wide", contextWindow: 1_000_000, maxTokens: 16_384 }] },
			settings: { compaction: { keepRecentTokens: 10 } },
			extensionFactories: [reportedUsage],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("the spec says to parse the header first"),
			fauxAssistantMessage("", { stopReason: "length" }),
			fauxAssistantMessage("the stub parses the header"),
		]);
		await h.session.prompt("read the spec");
		await h.session.prompt("write the stub");

		// 107687 input tokens and a 16384-token cap fit the window: the provider had room for the
		// whole answer, so the window did not cut it, and compacting would not give it more.
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(entriesOnDisk(h).filter((entry) => entry.type === "compaction")).toEqual([]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "length" });
		expect(answerRequests).toHaveLength(2);

		await h.session.prompt("go on");
		expect(userTexts(answerRequests.at(-1)!)).toEqual(["read the spec", "write the stub", "go on"]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [fauxText("the stub parses the header")] });
	});
});

describe("pi#8130: a second recoverable length stop is reported as a failed context-overflow recovery", () => {
	it("pi#8130: two length stops below a 100-token cap in a 1M window: nothing is compacted or re-run, no error; the run ends on the cut answer", async () => {
		h = await createHarness({
			persistence: "disk",
			// The report's model: a 1M window and `maxTokens: 100`.
			faux: { models: [{ id: "wide", contextWindow: 1_000_000, maxTokens: 100 }] },
			settings: { compaction: { keepRecentTokens: 10 } },
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("an earlier answer"),
			fauxAssistantMessage("cut short", { stopReason: "length" }),
			fauxAssistantMessage("cut short again", { stopReason: "length" }),
		]);
		await h.session.prompt("first");
		await h.session.prompt("second");

		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(answerRequests).toHaveLength(2);
		const settled = h.eventsOfType("agent_settled").at(-1) as { errorMessage?: string } | undefined;
		expect(settled).toBeDefined();
		expect(settled?.errorMessage).toBeUndefined();
		expect(h.session.messages.at(-1)).toMatchObject({ stopReason: "length", content: [fauxText("cut short")] });
	});
});
