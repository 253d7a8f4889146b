/**
 * The tree differential's own comparison (tree-play.ts `normalizeRun`, tree-compare.ts): a run whose
 * first difference is a compaction outcome is recognized as such, also when the compaction lands in
 * a file created before files the earlier steps looked at (TREE_SEED=1926124602: pi compacted in
 * file1 where Settle refused, and the extra entry renamed every entry of file2, so the first step
 * already differed and the run was reported instead of discarded).
 */
import { describe, expect, it } from "vitest";
import { compactionDiffersByDesign } from "./tree-compare.js";
import { normalizeRun, type TreeRun } from "./tree-play.js";

type Json = Record<string, unknown>;

const ROOT = "/tmp/tree-compare-root";

function entry(id: string, parentId: string | null, type: string): Json {
	return { type, id, parentId, timestamp: "2026-01-01T00:00:00.000Z" };
}

/** file1: a turn (compacted at the end when `compacted`); file2: a turn; the run switches to file2, back, then compacts. */
function run(compacted: boolean): TreeRun {
	const file1 = `${ROOT}/sessions/one.jsonl`;
	const file2 = `${ROOT}/sessions/two.jsonl`;
	const first = [
		{ type: "session", id: "aaaa0000", timestamp: "t", cwd: `${ROOT}/cwd` },
		entry("aaaa0001", null, "model_change"),
		entry("aaaa0002", "aaaa0001", "thinking_level_change"),
		...(compacted ? [{ ...entry("aaaa0003", "aaaa0002", "compaction"), firstKeptEntryId: "aaaa0001" }] : []),
	];
	const second = [
		{ type: "session", id: "bbbb0000", timestamp: "t", cwd: `${ROOT}/cwd` },
		entry("bbbb0001", null, "model_change"),
		entry("bbbb0002", "bbbb0001", "thinking_level_change"),
	];
	const timeline: Json[] = [
		{ action: JSON.stringify({ kind: "newSession" }), result: { cancelled: false }, leaf: "bbbb0002", file: file2 },
		{ action: JSON.stringify({ kind: "switchBack" }), result: { cancelled: false }, leaf: "aaaa0002", file: file1 },
		compacted
			? { action: JSON.stringify({ kind: "compact" }), result: "compacted", leaf: "aaaa0003", file: file1 }
			: { action: JSON.stringify({ kind: "compact" }), error: "Nothing to compact", leaf: "aaaa0002", file: file1 },
	];
	return {
		timeline,
		files: [file1, file2],
		events: [],
		crossOpened: [],
		disk: [
			{ file: file1, entries: first },
			{ file: file2, entries: second },
		],
		log: [],
		requests: [],
		root: ROOT,
		memoryFiles: [file1, file2],
		strayCopies: [],
	} as unknown as TreeRun;
}

describe("tree differential comparison", () => {
	it("an entry appended to an earlier file later in the run leaves the names of the steps before it alike", () => {
		const withCompaction = normalizeRun(run(true));
		const without = normalizeRun(run(false));
		expect(withCompaction.timeline.slice(0, 2)).toEqual(without.timeline.slice(0, 2));
		expect(withCompaction.timeline[0]?.leaf).toBe("f2e2");
	});

	it("a run whose first difference is a compaction outcome is discarded as CUT_DIFFERS_BY_DESIGN", () => {
		expect(compactionDiffersByDesign(normalizeRun(run(true)), normalizeRun(run(false)))).toBe(true);
		expect(compactionDiffersByDesign(normalizeRun(run(false)), normalizeRun(run(false)))).toBe(false);
	});
});
