/**
 * What the tree differential compares: a normalized run (tree-play.ts) with the named differences
 * between pi 0.73.1 and Settle taken out. Each difference is checked to hold on its side before it
 * is taken out ({@link namedDifferencesHold}).
 */
import type { normalizeRun } from "./tree-play.js";

export type NormalizedTreeRun = ReturnType<typeof normalizeRun>;

interface TreeLogPayload {
	oldLeafId: string | null;
	summaryEntry?: { parentId: string | null; fromId: string };
}

function sessionTreePayloads(run: NormalizedTreeRun): TreeLogPayload[] {
	return run.log
		.filter((line) => line.startsWith("session_tree "))
		.map((line) => JSON.parse(line.slice("session_tree ".length)) as TreeLogPayload);
}

/**
 * DELIBERATE_BRANCH_SUMMARY_FROM_ID (README, store section; test/store/pi-differential.helpers.ts):
 * a `branch_summary`'s `fromId` is the leaf the user navigated from in Settle (spec D.3, pi's docs);
 * pi 0.73.1's code writes the branch target, which repeats `parentId`. Returns what does not hold.
 */
export function namedDifferencesHold(run: NormalizedTreeRun, side: "pi" | "settle"): string[] {
	const problems: string[] = [];
	for (const payload of sessionTreePayloads(run)) {
		const entry = payload.summaryEntry;
		if (!entry) continue;
		const expected = side === "pi" ? (entry.parentId ?? "root") : (payload.oldLeafId ?? "root");
		if (entry.fromId !== expected) problems.push(`${side} fromId ${entry.fromId}, expected ${expected}`);
	}
	return problems;
}

/** The run with the named differences taken out (see {@link namedDifferencesHold}). */
export function comparableTreeRun(run: NormalizedTreeRun): NormalizedTreeRun {
	// DELIBERATE_BRANCH_SUMMARY_FROM_ID: in entries, results, branchSummary messages and the log's JSON.
	const json = JSON.stringify(run).replace(
		/(\\?"fromId\\?":\\?")([^"\\]*)(\\?")/g,
		"$1<DELIBERATE_BRANCH_SUMMARY_FROM_ID>$3",
	);
	return JSON.parse(json) as NormalizedTreeRun;
}
