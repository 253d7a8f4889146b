/**
 * Usage of summary answers that no entry carries: a failed or cancelled compaction or branch summary
 * was billed all the same (mindroom#2151), so the session's totals must keep it.
 */
import type { Model, Usage } from "../llm/types.js";
import type { SessionInternals } from "./internals.js";

/**
 * Saves the summed usage of `billed` summary answers as one `usage` entry of `kind` (`compaction`,
 * `branch_summary`). Nothing when they report no tokens and no cost. Never throws.
 */
export async function recordUnsavedSummaryUsage(
	s: SessionInternals,
	kind: "compaction" | "branch_summary",
	model: Model,
	billed: readonly Usage[],
	note: string,
): Promise<void> {
	if (billed.length === 0) return;
	const { addUsage } = await import("../compaction/request.js");
	const usage = billed.reduce((sum, next) => addUsage(sum, next));
	// A refused request (a 400, an error before any answer) reports nothing: the file stays as it was.
	if (!(usage.input + usage.output + usage.cacheRead + usage.cacheWrite > 0 || usage.cost.total > 0)) return;
	try {
		s.sessionManager.appendUsage(kind, model.provider, model.id, usage, note);
	} catch {
		// A session that can no longer be written keeps its failure report; the usage is what is lost.
	}
}
