/**
 * What the tree differential compares: a normalized run (tree-play.ts) with the named differences
 * between pi 0.73.1 and Settle taken out. Each difference is checked to hold on its side before it
 * is taken out ({@link namedDifferencesHold}).
 */
import { type normalizeRun, SUMMARY_BACKEND_ERROR } from "./tree-play.js";

export type NormalizedTreeRun = ReturnType<typeof normalizeRun>;

interface TreeLogPayload {
	oldLeafId: string | null;
	summaryEntry?: { parentId: string | null; fromId: string; fromHook?: boolean; usage?: unknown };
}

function sessionTreePayloads(run: NormalizedTreeRun): TreeLogPayload[] {
	return run.log
		.filter((line) => line.startsWith("session_tree "))
		.map((line) => JSON.parse(line.slice("session_tree ".length)) as TreeLogPayload);
}

/**
 * DELIBERATE_BRANCH_SUMMARY_FROM_ID (README, store section; test/store/pi-differential.helpers.ts):
 * a `branch_summary`'s `fromId` is the leaf the user navigated from in Settle (spec D.3, pi's docs);
 * pi 0.73.1's code writes the branch target, which repeats `parentId`.
 *
 * SUMMARY_USAGE (behavior C.13 / D.2, `branchWithSummary(…, usage)`): Settle records the branch
 * summarizer's token usage on a `branch_summary` entry it requested; pi 0.73.1 records none.
 *
 * SUMMARY_ERROR_TEXT (src/compaction/branch-summary.ts, a `SettleError` `PROVIDER`): a failed branch
 * summary rejects `navigateTree()` with `Branch summarization failed: <provider error>` in Settle,
 * naming the step that failed; pi 0.73.1 rejects with the provider's text alone. The same holds
 * for an extension command's `ctx.navigateTree` (its rejection, logged by the command).
 *
 * Returns what does not hold.
 */
export function namedDifferencesHold(run: NormalizedTreeRun, side: "pi" | "settle"): string[] {
	const problems: string[] = [];
	for (const payload of sessionTreePayloads(run)) {
		const entry = payload.summaryEntry;
		if (!entry) continue;
		const expected = side === "pi" ? (entry.parentId ?? "root") : (payload.oldLeafId ?? "root");
		if (entry.fromId !== expected) problems.push(`${side} fromId ${entry.fromId}, expected ${expected}`);
		const hasUsage = entry.usage !== undefined;
		// Settle: only on a summary its summarizer requested (not on an extension's, nor on the
		// request-free "nothing to summarize" text).
		if (hasUsage && (side === "pi" || entry.fromHook !== false)) problems.push(`${side} usage ${hasUsage}`);
	}
	for (const record of run.timeline) {
		const error = record.error;
		if (typeof error !== "string" || !error.includes(SUMMARY_BACKEND_ERROR)) continue;
		const expected = side === "settle" ? `${SUMMARY_ERROR_PREFIX}${SUMMARY_BACKEND_ERROR}` : SUMMARY_BACKEND_ERROR;
		if (error !== expected) problems.push(`${side} summary error ${error}`);
	}
	for (const line of run.log) {
		if (!line.startsWith(COMMAND_NAVIGATE_REJECTED) || !line.includes(SUMMARY_BACKEND_ERROR)) continue;
		const error = line.slice(COMMAND_NAVIGATE_REJECTED.length);
		const expected = side === "settle" ? `${SUMMARY_ERROR_PREFIX}${SUMMARY_BACKEND_ERROR}` : SUMMARY_BACKEND_ERROR;
		if (error !== expected) problems.push(`${side} command summary error ${error}`);
	}
	return problems;
}

const SUMMARY_ERROR_PREFIX = "Branch summarization failed: ";
const COMMAND_NAVIGATE_REJECTED = "command navigateTree rejected: ";

/** The run with the named differences taken out (see {@link namedDifferencesHold}). */
export function comparableTreeRun(run: NormalizedTreeRun): NormalizedTreeRun {
	// DELIBERATE_BRANCH_SUMMARY_FROM_ID: in entries, results, branchSummary messages and the log's JSON.
	const json = JSON.stringify(run)
		.replace(/(\\?"fromId\\?":\\?")([^"\\]*)(\\?")/g, "$1<DELIBERATE_BRANCH_SUMMARY_FROM_ID>$3")
		// SUMMARY_USAGE: normalizedEntry (tree-play.ts) writes it as "<usage>".
		.replace(/,\\?"usage\\?":\\?"<usage>\\?"/g, "")
		// SUMMARY_ERROR_TEXT
		.replaceAll(`"error":"${SUMMARY_ERROR_PREFIX}`, `"error":"`)
		.replaceAll(`${COMMAND_NAVIGATE_REJECTED}${SUMMARY_ERROR_PREFIX}`, COMMAND_NAVIGATE_REJECTED);
	return JSON.parse(json) as NormalizedTreeRun;
}

/** Which interesting paths a run took (the test checks that the generated runs take all of them). */
export function coverageOf(run: NormalizedTreeRun): string[] {
	const tags = new Set<string>();
	for (const record of run.timeline) {
		const action = JSON.parse(String(record.action)) as { kind: string; via?: string; target?: { kind: string } };
		const result = record.result as Record<string, unknown> | string | undefined;
		if (typeof record.error === "string" && action.kind === "navigate") tags.add("navigate failed");
		if (result === "compacted") tags.add("compacted");
		if (typeof result !== "object" || result === null) continue;
		const targetKind = action.target?.kind;
		if (action.kind === "navigate" && (targetKind === "compaction" || targetKind === "custom_message"))
			tags.add(`navigate to ${targetKind}`);
		if (action.kind === "navigate") {
			if (result.aborted) tags.add("navigate aborted");
			else if (result.cancelled) tags.add("navigate cancelled");
			const summary = result.summaryEntry as { fromHook?: boolean } | undefined;
			if (summary) tags.add(summary.fromHook ? "navigate summarized by extension" : "navigate summarized");
			if (typeof result.editorText === "string") tags.add("editorText");
		}
		const kind = action.kind === "switchBack" ? "switch" : action.kind;
		if (kind === "fork" || kind === "newSession" || kind === "switch")
			tags.add(result.cancelled ? `${kind} cancelled` : kind);
	}
	for (const record of run.timeline) {
		const action = JSON.parse(String(record.action)) as { kind: string; source?: string; setup?: boolean };
		const result = record.result as Record<string, unknown> | string | undefined;
		if (action.kind === "import") {
			if (typeof record.error === "string") tags.add("import failed");
			else if (typeof result === "object" && result !== null)
				tags.add(result.cancelled ? "import cancelled" : `import ${action.source}`);
		}
		if (action.kind === "newSessionWith" && action.setup && typeof result === "object" && result?.cancelled === false)
			tags.add("newSession setup");
	}
	for (const line of run.log) {
		if (line.startsWith("withSession sent")) tags.add("withSession");
		if (line.startsWith("command newSessionWith {")) tags.add("command newSessionWith");
		if (line.startsWith("command navigateTree {")) tags.add("command navigateTree");
		if (line.startsWith("command switchSession {")) tags.add("command switchSession");
		if (line.startsWith("command fork {"))
			tags.add(line.includes('"cancelled":true') ? "fork cancelled" : "command fork");
		if (line.startsWith("command newSession {")) tags.add("command newSession");
	}
	return [...tags];
}

/**
 * Files the other product's SessionManager reads differently from their writer's (cross-opening,
 * tree-play.ts `crossOpen`): each file's `buildSessionContext()` and `getTree()` shape by pi's
 * SessionManager against Settle's. Returns the files that differ.
 */
export function crossOpenDifferences(run: NormalizedTreeRun): string[] {
	return run.crossOpened
		.filter((opened) => canonical(opened.pi) !== canonical(opened.settle))
		.map((opened) => `${opened.file}: pi ${canonical(opened.pi)} settle ${canonical(opened.settle)}`);
}

/**
 * CUT_DIFFERS_BY_DESIGN (README "compaction cuts at or before the point where the kept tokens are
 * reached"; src/compaction/cut-point.ts; differential-compare.ts `cutDiffersByDesign`): Settle keeps at
 * least `keepRecentTokens` where pi 0.73.1 can keep less, so one may compact where the other finds
 * nothing to compact, or cut elsewhere. True when the first compaction whose outcome differs follows
 * a timeline that agreed until then: such runs are discarded (everything after differs by design).
 */
export function compactionDiffersByDesign(pi: NormalizedTreeRun, settle: NormalizedTreeRun): boolean {
	const a = comparableTreeRun(pi).timeline;
	const b = comparableTreeRun(settle).timeline;
	for (let k = 0; k < Math.min(a.length, b.length); k++) {
		if (canonical(a[k]) === canonical(b[k])) continue;
		return JSON.parse(String(a[k]?.action)).kind === "compact";
	}
	return false;
}

/** JSON with sorted keys (the peers build their objects in different key orders). */
function canonical(value: unknown): string {
	return JSON.stringify(value, (_key, inner: unknown) =>
		inner && typeof inner === "object" && !Array.isArray(inner)
			? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
			: inner,
	);
}
