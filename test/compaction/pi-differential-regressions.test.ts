/**
 * Small pinned cases from the compaction differential (pi-differential.property.test.ts): Settle
 * defects it found (each named after the bug, failing without its fix) and the pi 0.73.1 bugs it
 * steers around, shown on both sides.
 */
import {
	convertToLlm as piConvertToLlm,
	serializeConversation as piSerializeConversation,
} from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	compact as piCompact,
	generateBranchSummary as piGenerateBranchSummary,
	prepareCompaction as piPrepareCompaction,
} from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/index.js";
import { generateBranchSummary } from "../../src/compaction/branch-summary.js";
import { prepareCompaction } from "../../src/compaction/prepare.js";
import { CHECKPOINT_PROMPT } from "../../src/compaction/prompts.js";
import { serializeConversation } from "../../src/compaction/serialize.js";
import { compact } from "../../src/compaction/summarize.js";
import { DEFAULT_COMPACTION_SETTINGS } from "../../src/compaction/types.js";
import type { BashExecutionMessage } from "../../src/session/messages.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { call, EntryLog } from "./builders.js";
import { settleBashFences } from "./pi-differential.compare.js";
import { PiSummarizer, requestParts, settleSummarizer } from "./pi-differential.helpers.js";

// biome-ignore lint/suspicious/noExplicitAny: pi's functions take pi's own types; the entries are the same JSON.
type Pi = any;

let summarizer: PiSummarizer;
beforeAll(() => {
	summarizer = new PiSummarizer(false, 128_000);
});
afterAll(() => summarizer.dispose());

/** A branch whose previous compaction (by an extension, say) left an empty summary. */
function afterEmptyCompaction(): SessionEntry[] {
	const log = new EntryLog();
	log.user("first question");
	const kept = log.assistant("first answer");
	log.add({ type: "compaction", summary: "", firstKeptEntryId: kept.id, tokensBefore: 10 });
	log.user("x".repeat(400));
	log.assistant("y".repeat(400), [call("c1", "read", { path: "src/a.ts" })]);
	log.toolResult("c1", "read", "contents");
	log.user("z".repeat(400));
	log.assistant("done");
	return log.entries;
}

describe("Settle defects found by the compaction differential", () => {
	it("empty previous summary: the request is a first compaction's, without an empty <previous-summary> block", async () => {
		const branch = afterEmptyCompaction();
		const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 101 };
		const preparation = prepareCompaction(branch, settings)!;
		expect(preparation.previousSummary).toBe("");
		expect(preparation.isSplitTurn).toBe(false);

		const settle = settleSummarizer([{ text: "summary" }]);
		await compact(preparation, { model: summarizer.model(), streamFn: settle.streamFn });
		const [request] = settle.requests();
		const parts = requestParts(request!.text);
		expect(parts.previousSummary).toBeUndefined();
		expect(parts.instructions).toBe(CHECKPOINT_PROMPT);

		// pi 0.73.1 on the same branch: the same structure.
		summarizer.requests.length = 0;
		summarizer.script([{ text: "summary" }]);
		await piCompact(piPrepareCompaction(branch as Pi, settings)!, summarizer.model() as Pi, "k");
		expect(requestParts(summarizer.requests[0]!.text).previousSummary).toBeUndefined();
	});

	it("empty previous summary on a split turn with no history: 'No prior history.' like pi, not an empty history", async () => {
		const log = new EntryLog();
		log.user("first");
		log.assistant("answer");
		// The kept entry is gone (a foreign file): the span starts right after the compaction, in both.
		log.add({ type: "compaction", summary: "", firstKeptEntryId: "gone", tokensBefore: 10 });
		log.user("one long turn");
		log.assistant("a".repeat(800), [call("c1", "edit", { path: "src/b.ts" })]);
		log.toolResult("c1", "edit", "ok");
		log.assistant("b".repeat(800));
		const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 150 };
		const preparation = prepareCompaction(log.entries, settings)!;
		expect(preparation.isSplitTurn).toBe(true);
		expect(preparation.messagesToSummarize).toEqual([]);

		const settle = settleSummarizer([{ text: "prefix summary" }]);
		const ours = await compact(preparation, { model: summarizer.model(), streamFn: settle.streamFn });
		summarizer.script([{ text: "prefix summary" }]);
		const pi = await piCompact(piPrepareCompaction(log.entries as Pi, settings)!, summarizer.model() as Pi, "k");
		expect(ours.summary).toBe(pi.summary);
		expect(ours.summary.startsWith("No prior history.\n\n---")).toBe(true);
	});
});

describe("pi 0.73.1 bugs the differential steers around, pinned on both sides", () => {
	it("PI_BUG_SPLIT_TURN_DROPS_PREVIOUS_SUMMARY: a split turn right after a compaction keeps the previous summary in Settle only", async () => {
		const log = new EntryLog();
		log.user("first");
		log.assistant("answer");
		log.add({ type: "compaction", summary: "## Goal\nearlier work", firstKeptEntryId: "gone", tokensBefore: 10 });
		log.user("one long turn");
		log.assistant("a".repeat(800));
		log.assistant("b".repeat(800));
		const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 150 };

		summarizer.script([{ text: "prefix summary" }]);
		const pi = await piCompact(piPrepareCompaction(log.entries as Pi, settings)!, summarizer.model() as Pi, "k");
		expect(pi.summary.startsWith("No prior history.\n\n---")).toBe(true);
		expect(pi.summary).not.toContain("earlier work");

		const settle = settleSummarizer([{ text: "prefix summary" }]);
		const preparation = prepareCompaction(log.entries, settings)!;
		const ours = await compact(preparation, { model: summarizer.model(), streamFn: settle.streamFn });
		expect(ours.summary.startsWith("## Goal\nearlier work\n\n---")).toBe(true);
	});

	it("PI_BUG_SPLIT_TURN_PREFIX_DROPS_FOCUS (pi#9348): a split turn's prefix request carries the instructions in Settle only", async () => {
		const log = new EntryLog();
		log.user("first question");
		log.assistant("first answer");
		log.user("one long turn");
		log.assistant("a".repeat(800));
		log.assistant("b".repeat(800));
		const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 150 };
		const focus = "\n\nAdditional focus: keep the linker flags";
		const answers = [{ text: "history summary" }, { text: "prefix summary" }];
		const prefixOf = (requests: { text: string }[]) =>
			requests.find((request) => requestParts(request.text).instructions.includes("## Original Request"))!;

		summarizer.requests.length = 0;
		summarizer.script(answers);
		const piPreparation = piPrepareCompaction(log.entries as Pi, settings)!;
		expect(piPreparation.isSplitTurn).toBe(true);
		await piCompact(piPreparation, summarizer.model() as Pi, "k", undefined, "keep the linker flags");
		expect(summarizer.requests).toHaveLength(2);
		expect(prefixOf(summarizer.requests).text).not.toContain("Additional focus");

		const settle = settleSummarizer(answers);
		const preparation = prepareCompaction(log.entries, settings)!;
		await compact(preparation, {
			model: summarizer.model(),
			streamFn: settle.streamFn,
			customInstructions: "keep the linker flags",
		});
		expect(settle.requests()).toHaveLength(2);
		expect(prefixOf(settle.requests()).text.endsWith(focus)).toBe(true);
		// Both send it with the history request.
		const historyOf = (requests: { text: string }[]) => requests.find((request) => request !== prefixOf(requests))!;
		expect(historyOf(summarizer.requests).text.endsWith(focus)).toBe(true);
		expect(historyOf(settle.requests()).text.endsWith(focus)).toBe(true);
	});

	it("PI_BUG_SETTINGS_ENTRY_SPLITS_TURN: a cut moved back over a model change before a user message is a turn boundary", () => {
		const log = new EntryLog();
		log.user("a".repeat(400));
		log.assistant("b".repeat(400));
		log.add({ type: "model_change", provider: "faux", modelId: "faux-2" });
		log.user("c".repeat(400));
		log.assistant("d".repeat(400));
		const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 200 };

		const pi = piPrepareCompaction(log.entries as Pi, settings)!;
		const ours = prepareCompaction(log.entries, settings)!;
		// Both keep the model change and the last turn.
		expect(pi.firstKeptEntryId).toBe(log.entries[2]!.id);
		expect(ours.firstKeptEntryId).toBe(log.entries[2]!.id);
		// pi: a "split turn" whose prefix is the whole previous turn, nothing as history.
		expect(pi.isSplitTurn).toBe(true);
		expect(pi.messagesToSummarize).toEqual([]);
		expect(pi.turnPrefixMessages).toHaveLength(2);
		// Settle: the previous turn is history.
		expect(ours.isSplitTurn).toBe(false);
		expect(ours.messagesToSummarize).toHaveLength(2);
		expect(ours.turnPrefixMessages).toEqual([]);
	});

	it("PI_BUG_BRANCH_BUDGET_UNLIMITED_WHEN_RESERVE_EXCEEDS_WINDOW: pi summarizes the whole branch; Settle at most what fits", async () => {
		const log = new EntryLog();
		// Each older message alone is over half the window (75000 of 128000 tokens).
		log.user("u".repeat(300_000));
		log.assistant("a".repeat(300_000));
		log.user("last");
		const model = summarizer.model();
		// DELIBERATE_RESERVE_CAPPED_AT_HALF_WINDOW (pi#8651): Settle's budget is half the window.
		const reserveTokens = model.contextWindow + 1000;

		summarizer.requests.length = 0;
		summarizer.script([{ text: "s" }]);
		await piGenerateBranchSummary(log.entries as Pi, {
			model: model as Pi,
			apiKey: "k",
			signal: new AbortController().signal,
			reserveTokens,
		});
		expect(requestParts(summarizer.requests[0]!.text).conversation).toContain("u".repeat(300_000));

		const settle = settleSummarizer([{ text: "s" }]);
		await generateBranchSummary(log.entries, { model, streamFn: settle.streamFn, reserveTokens });
		expect(requestParts(settle.requests()[0]!.text).conversation).toBe("[User]: last");
	});
});

describe("named Settle differences the differential takes out, shown on both sides", () => {
	// The CI counterexample of the serialization property: a `!` command that is one backtick.
	const backtick: BashExecutionMessage = {
		role: "bashExecution",
		command: "`",
		output: "",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: 0,
	};
	const plain: BashExecutionMessage = { ...backtick, command: "ls", output: "a.txt" };

	it("DELIBERATE_BASH_BACKTICK_FENCES: a command holding a backtick keeps its inline code whole in Settle only", () => {
		const pi = piSerializeConversation(piConvertToLlm([backtick, plain] as Pi));
		const ours = serializeConversation([backtick, plain]);
		expect(pi).toBe("[User]: Ran ```\n(no output)\n\n[User]: Ran `ls`\n```\na.txt\n```");
		expect(ours).toBe("[User]: Ran `` ` ``\n(no output)\n\n[User]: Ran `ls`\n```\na.txt\n```");
		// The comparison's view of pi's text changes only the backtick-bearing message.
		expect(settleBashFences(pi, [backtick, plain])).toBe(ours);
		expect(settleBashFences(pi, [plain])).toBe(pi);
	});

	it("DELIBERATE_BASH_BACKTICK_FENCES: output holding `$`` is put in literally, not read as a replacement pattern", () => {
		const message = { ...backtick, command: "x", output: "$`" };
		const pi = piSerializeConversation(piConvertToLlm([message] as Pi));
		expect(settleBashFences(pi, [message])).toBe(serializeConversation([message]));
	});
});
