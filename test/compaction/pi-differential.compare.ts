/**
 * The comparisons the compaction differentials share (function level and session level): the cut
 * both products make, the preparation and the summarizer requests, with every difference taken out
 * named where it is taken out (DELIBERATE_* documented Settle behaviour, PI_BUG_* pinned in
 * pi-differential-regressions.test.ts).
 */
import { convertToLlm as piConvertToLlm } from "@mariozechner/pi-coding-agent";
import { expect } from "vitest";
import {
	computeFileLists as piComputeFileLists,
	findCutPoint as piFindCutPoint,
	findTurnStartIndex as piFindTurnStartIndex,
} from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/index.js";
import { summaryRequestFits } from "../../src/compaction/chunks.js";
import { findCutPoint, findTurnStartIndex, isValidCutPoint } from "../../src/compaction/cut-point.js";
import { messageFromEntry } from "../../src/compaction/entry-messages.js";
import { computeFileLists } from "../../src/compaction/file-operations.js";
import { summarizationRequestText } from "../../src/compaction/prompts.js";
import { cutToolResult, serializeConversation, TOOL_RESULT_MAX_CHARS } from "../../src/compaction/serialize.js";
import type { CompactionPreparation } from "../../src/compaction/types.js";
import { errorMessage } from "../../src/errors.js";
import { estimateMessageTokens } from "../../src/llm/tokens.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { bashExecutionToText } from "../../src/session/convert-to-llm.js";
import type { BashExecutionMessage } from "../../src/session/messages.js";
import type { SessionEntry } from "../../src/store/entries.js";
import {
	back,
	entriesTokenView,
	headings,
	type Mode,
	requestParts,
	type SeenRequest,
} from "./pi-differential.helpers.js";

// biome-ignore lint/suspicious/noExplicitAny: pi's functions take pi's own types; the entries are the same JSON.
type Pi = any;

/** The messages an entry list puts in front of the summarizer (compaction entries excluded). */
export function entryMessages(entries: readonly SessionEntry[]): AgentMessage[] {
	return entries.flatMap((entry) => {
		const message = entry.type === "compaction" ? undefined : messageFromEntry(entry);
		return message ? [message] : [];
	});
}

/** Where both products start the span a compaction may cut: after the previous compaction's kept start. */
export function spanStart(branch: readonly SessionEntry[]): number {
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i]!;
		if (entry.type !== "compaction") continue;
		const kept = branch.findIndex((e) => e.id === entry.firstKeptEntryId);
		return kept >= 0 ? kept : i + 1;
	}
	return 0;
}

/** Tokens (Settle's estimate) kept verbatim when the kept span starts at `index`. */
export function keptTokens(branch: readonly SessionEntry[], index: number): number {
	return entryMessages(branch.slice(index)).reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}

/**
 * The cut both products make on the same span. Returns whether they agree after the named
 * normalizations; where they differ, checks the named difference's own property instead.
 */
export function compareCut(
	mode: Mode,
	branch: SessionEntry[],
	keepRecentTokens: number,
): { same: boolean; piSpuriousSplit: boolean } {
	const start = spanStart(branch);
	const end = branch.length;
	const ours = findCutPoint(branch, start, end, keepRecentTokens);
	const pi = piFindCutPoint(entriesTokenView(branch).view as Pi, start, end, keepRecentTokens);

	for (let i = start; i < end; i++) {
		const piTurnStart = piFindTurnStartIndex(branch as Pi, i, start);
		// DELIBERATE_CUSTOM_MESSAGE_STARTS_TURN: a `custom` message starts a turn in Settle, as the
		// `custom_message` entry it stands for does in both (src/compaction/cut-point.ts `isTurnStart`).
		const customInBetween = branch
			.slice(Math.max(piTurnStart, start), i + 1)
			.some((e) => e.type === "message" && e.message.role === "custom");
		if (!customInBetween) expect(findTurnStartIndex(branch, i, start), `turn start of ${i}`).toBe(piTurnStart);
	}

	// DELIBERATE_EMPTY_SPLIT_IS_NO_SPLIT: pi 0.73.1 flags a cut at a bash run, custom message or
	// branch summary as a split turn whose prefix is empty (and its compact() then ignores it);
	// Settle reports a turn boundary (src/compaction/cut-point.ts, test/compaction/pi-compat.test.ts).
	let piSplit = pi.isSplitTurn && pi.turnStartIndex !== pi.firstKeptEntryIndex;
	// PI_BUG_SETTINGS_ENTRY_SPLITS_TURN: when pi 0.73.1 moves a cut back over an entry without a
	// message (a model or thinking-level change, a label…) that precedes a user message, it tests that
	// entry for "user message", finds none and reports a split turn whose "prefix" is the whole
	// previous turn (summarized with the turn-prefix prompt). The cut is at a turn boundary; Settle
	// says so. Pinned in pi-differential-regressions.test.ts.
	let anchor = pi.firstKeptEntryIndex;
	while (anchor < end && branch[anchor]!.type !== "message") anchor++;
	const piSpuriousSplit =
		piSplit &&
		anchor !== pi.firstKeptEntryIndex &&
		anchor < end &&
		(branch[anchor] as { message: AgentMessage }).message.role === "user";
	if (piSpuriousSplit) piSplit = false;
	const normalizedPi = {
		firstKeptEntryIndex: pi.firstKeptEntryIndex,
		turnStartIndex: piSplit ? pi.turnStartIndex : -1,
		isSplitTurn: piSplit,
	};
	const same = ours.firstKeptEntryIndex === normalizedPi.firstKeptEntryIndex;
	if (same && mode === "pure") expect(ours).toEqual(normalizedPi);
	if (same) {
		const agree = ours.isSplitTurn === normalizedPi.isSplitTurn && ours.turnStartIndex === normalizedPi.turnStartIndex;
		return { same: agree, piSpuriousSplit };
	}

	const spanTokens = keptTokens(branch, start);
	if (mode === "pure") {
		// DELIBERATE_CUT_AT_OR_BEFORE (src/compaction/cut-point.ts `findCutPoint`): Settle cuts at the
		// nearest valid cut point at or before the entry where `keepRecentTokens` is reached, so it keeps
		// at least that much; pi 0.73.1 cuts at the nearest one after it (keeping less), or keeps
		// everything when no valid cut point follows it. Here: pi keeps less than asked, Settle enough,
		// and Settle's cut is the last valid cut point that keeps enough.
		const piFirst = branch.findIndex((e, i) => i >= start && isValidCutPoint(e));
		expect(keptTokens(branch, pi.firstKeptEntryIndex) < keepRecentTokens || pi.firstKeptEntryIndex <= piFirst).toBe(
			true,
		);
		expect(keptTokens(branch, ours.firstKeptEntryIndex)).toBeGreaterThanOrEqual(Math.min(keepRecentTokens, spanTokens));
		let anchor = ours.firstKeptEntryIndex;
		while (!isValidCutPoint(branch[anchor]!)) anchor++;
		for (let c = anchor + 1; c < end; c++) {
			if (isValidCutPoint(branch[c]!))
				expect(keptTokens(branch, c), `later cut ${c} keeps too little`).toBeLessThan(keepRecentTokens);
		}
	} else {
		// Mixed entries add DELIBERATE_CUSTOM_AND_SUMMARY_ENTRIES_COUNTED (Settle counts custom_message
		// and branch_summary entries toward the kept tokens and never moves a cut back over them; pi
		// 0.73.1 skips them, src/compaction/cut-point.ts) on top of DELIBERATE_CUT_AT_OR_BEFORE: Settle's
		// own guarantee is checked instead.
		expect(keptTokens(branch, ours.firstKeptEntryIndex)).toBeGreaterThanOrEqual(Math.min(keepRecentTokens, spanTokens));
	}
	return { same: false, piSpuriousSplit };
}

/*
 * DELIBERATE_BRANCH_SUMMARY_TOOL_RESULTS (oh-my-pi#4011): Settle's branch summaries keep the branch's
 * tool results (src/compaction/branch-summary.ts `prepareBranchEntries`, each sized as the 2,000
 * characters the request carries); pi 0.73.1 leaves them out. The differentials compare Settle's
 * preparation with `toolResults: false` against pi's, and check what keeping them adds on its own.
 */

/**
 * DELIBERATE_EMPTY_BRANCH_SUMMARY_SKIPPED: a branch_summary entry with an empty summary adds no
 * message anywhere in Settle (src/compaction/entry-messages.ts), as it adds none to the context in
 * both products; pi 0.73.1's compaction and branch preparation still add an empty summary message.
 */
export function withoutEmptyBranchSummaries(messages: readonly unknown[]): unknown[] {
	return messages.filter(
		(m) => !((m as AgentMessage).role === "branchSummary" && (m as { summary: string }).summary === ""),
	);
}

/**
 * Whether Settle sends a branch selection as it is: the check generateBranchSummary makes before it
 * drops the oldest messages (src/compaction/branch-summary.ts), on Settle's own request text.
 * DELIBERATE_BRANCH_REQUEST_FITS_WINDOW (kdeps#566) and DELIBERATE_OWN_PROMPT_WORDING: pi's request for
 * the same selection has pi's wording, of another length, so whether pi's fits says nothing about
 * Settle's (seed 1099484885: pi's fit by a few characters, Settle's longer prompt did not).
 */
export function settleSendsSelection(
	messages: readonly AgentMessage[],
	instructions: string,
	maxTokens: number,
	contextWindow: number,
): boolean {
	const prompt = summarizationRequestText(serializeConversation([...messages]), instructions);
	return messages.length <= 1 || summaryRequestFits(prompt, maxTokens, { contextWindow });
}

export function expectSamePreparation(
	ours: CompactionPreparation | undefined,
	pi: Pi,
	original: Map<object, AgentMessage>,
	piSpuriousSplit = false,
): void {
	if (pi) {
		pi = {
			...pi,
			messagesToSummarize: withoutEmptyBranchSummaries(pi.messagesToSummarize),
			turnPrefixMessages: withoutEmptyBranchSummaries(pi.turnPrefixMessages),
		};
	}
	if (pi && piSpuriousSplit) {
		// PI_BUG_SETTINGS_ENTRY_SPLITS_TURN (see compareCut): pi's "turn prefix" is history.
		pi = {
			...pi,
			messagesToSummarize: [...pi.messagesToSummarize, ...pi.turnPrefixMessages],
			turnPrefixMessages: [],
			isSplitTurn: false,
		};
	}
	if (pi === undefined) {
		expect(ours).toBeUndefined();
		return;
	}
	// DELIBERATE_NOTHING_TO_COMPACT: with nothing before the kept span, Settle's prepareCompaction
	// returns undefined (src/compaction/prepare.ts; README "An overflow recovery"); pi 0.73.1 prepares
	// a compaction of an empty conversation.
	if (pi.messagesToSummarize.length === 0 && pi.turnPrefixMessages.length === 0) {
		expect(ours).toBeUndefined();
		return;
	}
	expect(ours).toBeDefined();
	const piPrefix = back(original, pi.turnPrefixMessages);
	expect({
		firstKeptEntryId: ours!.firstKeptEntryId,
		messagesToSummarize: ours!.messagesToSummarize,
		turnPrefixMessages: ours!.turnPrefixMessages,
		isSplitTurn: ours!.isSplitTurn,
		tokensBefore: ours!.tokensBefore,
		previousSummary: ours!.previousSummary,
		fileLists: computeFileLists(ours!.fileOps),
		settings: ours!.settings,
	}).toEqual({
		firstKeptEntryId: pi.firstKeptEntryId,
		messagesToSummarize: back(original, pi.messagesToSummarize),
		turnPrefixMessages: piPrefix,
		// DELIBERATE_EMPTY_SPLIT_IS_NO_SPLIT (see compareCut).
		isSplitTurn: pi.isSplitTurn && piPrefix.length > 0,
		tokensBefore: pi.tokensBefore,
		previousSummary: pi.previousSummary,
		fileLists: piComputeFileLists(pi.fileOps),
		settings: pi.settings,
	});
}

/**
 * DELIBERATE_CUT_BEFORE_SPLIT_EMOJI (claude-code#56064): pi cuts a tool result at 2000 UTF-16 units
 * even between an emoji's halves, leaving a lone high surrogate; Settle cuts one unit earlier
 * (sliceWholeCharacters in src/tools/truncate.ts). pi's text put the way Settle cuts: the lone half
 * goes and the truncation note counts it.
 */
export function cutBeforeSplitEmoji(piText: string): string {
	return piText.replace(
		/[\ud800-\udbff]\n\n\[\.\.\. (\d+) more characters truncated\]/g,
		(_, more: string) => `\n\n[... ${Number(more) + 1} more characters truncated]`,
	);
}

/**
 * DELIBERATE_TOOL_RESULT_TAIL (gsd-2#4665, prime-agent#2217; src/compaction/serialize.ts `cutToolResult`):
 * a tool result over 2000 characters reaches Settle's summarizer as its first 1500 and last 500
 * characters; pi 0.73.1 sends the first 2000. pi's cut of each such result in `messages` put the way
 * Settle cuts it (before {@link cutBeforeSplitEmoji}, which then has nothing left to match).
 */
export function settleToolResultCuts(piText: string, messages: readonly AgentMessage[]): string {
	const renders = messages
		.filter((m) => m.role === "toolResult")
		.map((m) => m.content.map((block) => (block.type === "text" ? block.text : "")).join(""))
		.filter((text) => text.length > TOOL_RESULT_MAX_CHARS)
		.map((text) => ({
			pi: `${text.slice(0, TOOL_RESULT_MAX_CHARS)}\n\n[... ${text.length - TOOL_RESULT_MAX_CHARS} more characters truncated]`,
			settle: cutToolResult(text),
		}));
	return renders.reduce((text, { pi, settle }) => text.replaceAll(pi, () => settle), piText);
}

/**
 * DELIBERATE_BASH_BACKTICK_FENCES (src/session/convert-to-llm.ts `bashExecutionToText`): a `!` command
 * holding backticks gets a longer inline fence, and output holding a fence a longer block fence, so
 * neither closes early; pi 0.73.1 always writes one and three backticks. pi's text with pi's own
 * rendering of each such bash message (its `convertToLlm`) put the way Settle renders it. Messages
 * without a backtick are left as pi wrote them, so every other difference still shows.
 */
export function settleBashFences(piText: string, messages: readonly AgentMessage[]): string {
	const renders = messages
		.filter((m): m is BashExecutionMessage => m.role === "bashExecution" && !m.excludeFromContext)
		.filter((m) => `${m.command}${m.output}`.includes("`"))
		.map((m) => ({ pi: piUserText(m), settle: bashExecutionToText(m) }))
		// A longer rendering first, so a shorter one that is its prefix does not split it.
		.sort((a, b) => b.pi.length - a.pi.length);
	return renders.reduce((text, { pi, settle }) => text.replaceAll(pi, () => settle), piText);
}

function piUserText(message: BashExecutionMessage): string {
	const [converted] = piConvertToLlm([message as Pi]) as { content: { type: string; text?: string }[] }[];
	return converted!.content.map((block) => block.text ?? "").join("");
}

/** Compares one pair of summarizer requests: the shared structure exactly, the wording by its headings. */
export function expectSameRequest(ours: SeenRequest, pi: SeenRequest): void {
	// DELIBERATE_OWN_PROMPT_WORDING: Settle's summarizer system prompt and instructions are its own
	// text (src/compaction/prompts.ts, written without copying pi's); what is compared is the request
	// structure, the serialized conversation, the previous summary, the section headings a summary is
	// asked for (the contract later updates and extensions read), the focus line and the budget.
	expect(ours.systemPrompt?.startsWith("You are a context summarization assistant")).toBe(true);
	expect(pi.systemPrompt?.startsWith("You are a context summarization assistant")).toBe(true);
	const a = requestParts(ours.text);
	const b = requestParts(pi.text);
	expect(a.conversation).toBe(b.conversation);
	expect(a.previousSummary).toBe(b.previousSummary);
	expect(headings(a.instructions)).toEqual(headings(b.instructions));
	expect(/\n\nAdditional focus: [\s\S]*$/.exec(a.instructions)?.[0]).toBe(
		/\n\nAdditional focus: [\s\S]*$/.exec(b.instructions)?.[0],
	);
	expect({ ...ours, systemPrompt: 0, text: 0 }).toEqual({ ...pi, systemPrompt: 0, text: 0 });
}

export async function outcome<T>(run: () => Promise<T>): Promise<{ ok: T } | { error: string }> {
	try {
		return { ok: await run() };
	} catch (error) {
		return { error: errorMessage(error) };
	}
}
