/**
 * `prepareCompaction`: everything a compaction needs, computed from the branch without a model.
 */
import { estimateContextTokens } from "../llm/tokens.js";
import type { AgentMessage } from "../llm/types.js";
import { usageStillCurrent } from "../session/session-stats.js";
import type { CompactionEntry, SessionEntry } from "../store/entries.js";
import { findCutPoint } from "./cut-point.js";
import { collectContextEdits, messageFromEntry } from "./entry-messages.js";
import { addRecordedFileLists, collectFileOperations, createFileOperations } from "./file-operations.js";
import type { CompactionPreparation, CompactionSettings } from "./types.js";

/**
 * Prepares a compaction of the active branch (root → leaf entries, as `getBranch()` returns them).
 *
 * The span is the current context: from the previous compaction's first kept entry (or the root)
 * to the leaf, with the branch's context edits applied (omitted messages are neither summarized
 * nor counted). The cut keeps at least `settings.keepRecentTokens` of recent messages
 * ({@link findCutPoint}); what comes before is summarized, together with the previous summary
 * (update mode). A cut inside a turn yields `turnPrefixMessages` (from the turn's opening message
 * to the cut) for a separate summary. Files read/written/edited by tool calls in the summarized
 * messages, plus those recorded by the previous compaction, are collected in `fileOps`.
 *
 * `system` messages (the recorded system prompt and its patches) are never summarized: the
 * compaction entry stores the prompt in effect itself, so they are left out of
 * `messagesToSummarize` and `turnPrefixMessages`.
 *
 * Returns `undefined` when there is nothing to compact: the last entry already is a compaction, or
 * every conversation message fits in the kept span (what precedes it is at most the system
 * prompt). Must not throw.
 *
 * @example
 * ```ts
 * const preparation = prepareCompaction(sessionManager.getBranch(), settingsManager.getCompactionSettings());
 * if (!preparation) throw new Error("Nothing to compact (session too small)");
 * ```
 */
export function prepareCompaction(
	branchEntries: readonly SessionEntry[],
	settings: CompactionSettings,
): CompactionPreparation | undefined {
	const last = branchEntries[branchEntries.length - 1];
	if (!last || last.type === "compaction") return undefined;

	let previousCompactionIndex = -1;
	for (let i = branchEntries.length - 1; i >= 0; i--) {
		if (branchEntries[i]!.type === "compaction") {
			previousCompactionIndex = i;
			break;
		}
	}
	const previous =
		previousCompactionIndex === -1 ? undefined : (branchEntries[previousCompactionIndex] as CompactionEntry);
	let spanStart = 0;
	if (previous) {
		const keptIndex = branchEntries.findIndex((entry) => entry.id === previous.firstKeptEntryId);
		spanStart = keptIndex >= 0 && keptIndex < previousCompactionIndex ? keptIndex : previousCompactionIndex + 1;
	}
	const spanEnd = branchEntries.length;

	const edits = collectContextEdits(branchEntries, spanStart, spanEnd);
	const messages: (AgentMessage | undefined)[] = new Array(spanEnd);
	for (let i = spanStart; i < spanEnd; i++) {
		const entry = branchEntries[i]!;
		messages[i] = entry.type === "compaction" ? undefined : messageFromEntry(entry, edits);
	}
	const spanMessages = (from: number, to: number, withSystem = false): AgentMessage[] => {
		const result: AgentMessage[] = [];
		for (let i = from; i < to; i++) {
			const message = messages[i];
			if (message && (withSystem || message.role !== "system")) result.push(message);
		}
		return result;
	};

	const contextMessages = spanMessages(spanStart, spanEnd, true);
	if (previous) contextMessages.unshift(messageFromEntry(previous)!);
	// After a context edit, an answer that saw the edited message measured more (or less) than is
	// left: its usage is estimated instead, as getContextUsage() does (ms-agent#999).
	const byId = new Map(branchEntries.map((entry) => [entry.id, entry]));
	const isUsageCurrent = usageStillCurrent({ getLeafEntry: () => last, getEntry: (id) => byId.get(id) });
	const tokensBefore = estimateContextTokens(contextMessages, isUsageCurrent).tokens;

	const cut = findCutPoint(branchEntries, spanStart, spanEnd, settings.keepRecentTokens, (index) => messages[index]);
	const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
	const messagesToSummarize = spanMessages(spanStart, historyEnd);
	const turnPrefixMessages = cut.isSplitTurn ? spanMessages(cut.turnStartIndex, cut.firstKeptEntryIndex) : [];
	if (messagesToSummarize.length === 0 && turnPrefixMessages.length === 0) return undefined;

	const fileOps = createFileOperations();
	if (previous && !previous.fromHook) addRecordedFileLists(previous.details, fileOps);
	for (const message of messagesToSummarize) collectFileOperations(message, fileOps);
	for (const message of turnPrefixMessages) collectFileOperations(message, fileOps);

	return {
		firstKeptEntryId: branchEntries[cut.firstKeptEntryIndex]!.id,
		messagesToSummarize,
		turnPrefixMessages,
		isSplitTurn: cut.isSplitTurn && turnPrefixMessages.length > 0,
		tokensBefore,
		...(previous ? { previousSummary: previous.summary } : {}),
		fileOps,
		settings,
	};
}
