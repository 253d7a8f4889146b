/**
 * The entries of a session extracted into a new one (`createBranchedSession`, and a fork's new
 * file): the path root..leaf without its label entries, re-chained so every parent is on the path,
 * then the labels in effect on path entries, re-emitted at the end. Pure; O(path + labels), so
 * forking a long session copies only the branch, never the whole session.
 */
import type { CompactionEntry, LabelEntry, SessionEntry } from "./entries.js";
import type { LabelState } from "./entry-index.js";
import { generateEntryId } from "./ids.js";

/**
 * `path`: the entries from the root to the new leaf (`getBranch(leafId)`); `labels`: the labels in
 * effect by target id, in the session's order. Entries are new objects (messages shared).
 *
 * @example
 * ```ts
 * import { SessionManager } from "settle";
 *
 * const manager = SessionManager.inMemory();
 * const leafId = manager.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
 * const labels = new Map([[leafId, { label: "here", timestamp: new Date().toISOString() }]]);
 * branchCopyEntries(manager.getBranch(leafId), labels); // [the message, a label entry re-emitted for it]
 * ```
 */
export function branchCopyEntries(
	path: readonly SessionEntry[],
	labels: ReadonlyMap<string, LabelState>,
): SessionEntry[] {
	const kept: SessionEntry[] = [];
	// A compaction keeping a label entry (dropped here) keeps the entry after it instead.
	const replacedLabel = new Map<string, string>();
	const pendingLabels: string[] = [];
	let parentId: string | null = null;
	for (const entry of path) {
		if (entry.type === "label") {
			pendingLabels.push(entry.id);
			continue;
		}
		for (const labelId of pendingLabels) replacedLabel.set(labelId, entry.id);
		pendingLabels.length = 0;
		if (entry.type === "compaction") {
			const firstKeptEntryId =
				entry.firstKeptEntryId === entry.id
					? entry.id
					: (replacedLabel.get(entry.firstKeptEntryId) ?? entry.firstKeptEntryId);
			kept.push({ ...entry, parentId, firstKeptEntryId } as CompactionEntry);
		} else {
			kept.push({ ...entry, parentId });
		}
		parentId = entry.id;
	}
	const ids = new Set(kept.map((e) => e.id));
	const labelEntries: LabelEntry[] = [];
	let labelParent: string | null = kept.length > 0 ? kept[kept.length - 1]!.id : null;
	for (const [targetId, { label, timestamp }] of labels) {
		if (!ids.has(targetId)) continue;
		const id = generateEntryId(ids);
		ids.add(id);
		labelEntries.push({ type: "label", id, parentId: labelParent, timestamp, targetId, label });
		labelParent = id;
	}
	return [...kept, ...labelEntries];
}
