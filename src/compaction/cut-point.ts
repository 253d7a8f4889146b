/**
 * Where to cut a branch for compaction: keep at least `keepRecentTokens` of the most recent
 * messages verbatim, never start the kept span at a tool result, and report when the cut falls inside a turn.
 */
import { estimateMessageTokens } from "../llm/tokens.js";
import type { AgentMessage } from "../llm/types.js";
import type { SessionEntry } from "../store/entries.js";
import { messageFromEntry } from "./entry-messages.js";

/** Where a compaction cuts the branch (see {@link findCutPoint}): the first kept entry, and the split turn if any. */
export interface CutPointResult {
	/** Index of the first entry kept verbatim. */
	firstKeptEntryIndex: number;
	/** Index of the entry that starts the split turn, or -1 when the cut is at a turn boundary. */
	turnStartIndex: number;
	isSplitTurn: boolean;
}

/**
 * Whether the kept span may start at this entry: user, assistant, custom, bash and summary
 * messages, `custom_message` and `branch_summary` entries. Never a tool result (it must follow the
 * assistant message that called the tool), never a system message or a non-message entry.
 *
 * @example
 * ```ts
 * const entries = sessionManager.getBranch();
 * const firstCandidate = entries.findIndex(isValidCutPoint); // -1 when no entry may start the kept span
 * ```
 */
export function isValidCutPoint(entry: SessionEntry): boolean {
	if (entry.type === "custom_message" || entry.type === "branch_summary") return true;
	if (entry.type !== "message") return false;
	switch (entry.message.role) {
		case "user":
		case "assistant":
		case "custom":
		case "bashExecution":
		case "branchSummary":
		case "compactionSummary":
			return true;
		default:
			return false;
	}
}

/**
 * Whether this entry starts a turn: a user, bash or custom message, a `custom_message` or `branch_summary` entry.
 *
 * @example
 * ```ts
 * const turnCount = sessionManager.getBranch().filter(isTurnStart).length;
 * ```
 */
export function isTurnStart(entry: SessionEntry): boolean {
	if (entry.type === "custom_message" || entry.type === "branch_summary") return true;
	if (entry.type !== "message") return false;
	const role = entry.message.role;
	return role === "user" || role === "bashExecution" || role === "custom";
}

/**
 * Index of the entry that starts the turn containing `index` (searching down to `startIndex`), or -1.
 *
 * @example
 * ```ts
 * declare const cutIndex: number; // from findCutPoint
 * const entries = sessionManager.getBranch();
 * const turnStart = findTurnStartIndex(entries, cutIndex, 0); // cutIndex itself when it starts a turn
 * ```
 */
export function findTurnStartIndex(entries: readonly SessionEntry[], index: number, startIndex: number): number {
	for (let i = index; i >= startIndex; i--) {
		if (isTurnStart(entries[i]!)) return i;
	}
	return -1;
}

/**
 * Finds the cut in `entries[startIndex, endIndex)`. Walks back from the newest entry adding message
 * estimates (`messageAt` gives the message an entry contributes; default: `messageFromEntry`, compaction
 * entries excluded) until at
 * least `keepRecentTokens` are collected, then cuts at the nearest valid cut point at or before that
 * entry — so the kept span holds at least `keepRecentTokens` whenever the range does. (pi 0.73 cuts
 * at the nearest point after it, which can keep less.) The cut then moves back over entries that
 * carry no message (settings changes, labels, custom data, context edits), keeping them with what
 * follows. (pi also moves it over `custom_message` / `branch_summary` entries; here those are
 * messages like any other, so a cut never silently turns a split turn into a whole one.)
 *
 * When the range holds fewer tokens than `keepRecentTokens`, the cut is the first valid cut point
 * (everything is kept). When the cut lands inside a turn, `turnStartIndex` is the turn's start.
 *
 * @example
 * ```ts
 * const branch = sessionManager.getBranch();
 * const cut = findCutPoint(branch, 0, branch.length, 20_000);
 * const firstKeptEntryId = branch[cut.firstKeptEntryIndex]!.id;
 * ```
 */
export function findCutPoint(
	entries: readonly SessionEntry[],
	startIndex: number,
	endIndex: number,
	keepRecentTokens: number,
	messageAt: (index: number) => AgentMessage | undefined = (index) => defaultMessage(entries[index]!),
): CutPointResult {
	let crossing = -1;
	let accumulated = 0;
	for (let i = endIndex - 1; i >= startIndex; i--) {
		const message = messageAt(i);
		if (!message) continue;
		accumulated += estimateMessageTokens(message);
		if (accumulated >= keepRecentTokens) {
			crossing = i;
			break;
		}
	}

	let anchor = -1;
	if (crossing === -1) {
		anchor = firstValidCut(entries, startIndex, endIndex);
	} else {
		for (let i = crossing; i >= startIndex; i--) {
			if (isValidCutPoint(entries[i]!)) {
				anchor = i;
				break;
			}
		}
		if (anchor === -1) anchor = firstValidCut(entries, crossing + 1, endIndex);
	}
	if (anchor === -1) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };

	let cut = anchor;
	while (cut > startIndex) {
		const previous = entries[cut - 1]!;
		if (carriesMessage(previous) || previous.type === "compaction") break;
		cut--;
	}

	if (isTurnStart(entries[anchor]!)) return { firstKeptEntryIndex: cut, turnStartIndex: -1, isSplitTurn: false };
	const turnStartIndex = findTurnStartIndex(entries, cut, startIndex);
	return turnStartIndex === -1
		? { firstKeptEntryIndex: cut, turnStartIndex: -1, isSplitTurn: false }
		: { firstKeptEntryIndex: cut, turnStartIndex, isSplitTurn: true };
}

/** Entries that put a message in the context (a `message`, `custom_message` or `branch_summary` entry). */
function carriesMessage(entry: SessionEntry): boolean {
	return entry.type === "message" || entry.type === "custom_message" || entry.type === "branch_summary";
}

function firstValidCut(entries: readonly SessionEntry[], from: number, to: number): number {
	for (let i = from; i < to; i++) if (isValidCutPoint(entries[i]!)) return i;
	return -1;
}

function defaultMessage(entry: SessionEntry): AgentMessage | undefined {
	return entry.type === "compaction" ? undefined : messageFromEntry(entry);
}
