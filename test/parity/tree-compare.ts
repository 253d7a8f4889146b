/**
 * What the tree differential compares: a normalized run (tree-play.ts) with the named differences
 * between pi 0.73.1 and Settle taken out. Each difference is checked to hold on its side before it
 * is taken out ({@link namedDifferencesHold}).
 */
import { INVALID_FORK_ENTRY_MESSAGE } from "../../src/runtime/errors.js";
import { type normalizeRun, SETUP_FAILURE, SUMMARY_BACKEND_ERROR } from "./tree-play.js";

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
 * FAILED_SETUP_KEEPS_SESSION (DESIGN §8 invariant 10, test/runtime/replacement.property.test.ts;
 * PI_FAILED_SETUP_LEAVES_UNBOUND_SESSION in tree-pi-bugs.test.ts): a `newSession` whose `setup`
 * throws rejects with the callback's error on both, but pi 0.73.1 has already shut the old session
 * down (`session_shutdown new`) and installed the new one, which its host never binds; Settle keeps
 * the old session current, untouched. The run ends at that step (tree-play.ts `endsRun`).
 *
 * IMPORT_CHECKS_CWD_FIRST (src/runtime/targets.ts `openImport`, test/runtime/runtime.test.ts
 * "importing a session whose cwd is gone names the file given"; PI_FAILED_IMPORT_LEAVES_COPY in
 * tree-pi-bugs.test.ts): importing a file whose recorded cwd is gone fails on both with
 * `MissingSessionCwdError`, but pi 0.73.1 copies the file into the session dir first, leaves the copy
 * there and names it as the session file; Settle checks before copying and names the file given (both
 * name the copy an earlier import left in the session dir, which is opened, not copied again).
 *
 * FORK_ERROR_HINT (src/runtime/errors.ts `InvalidForkEntryError`, test/runtime/runtime.test.ts): a
 * fork at an unknown entry, or before one that is not a user message, rejects on both with pi's
 * `Invalid entry ID for forking`; Settle's SDK error (runtime.fork and an extension command's
 * ctx.fork) goes on with `: <what to pass instead>`. RPC `fork` answers pi's text alone
 * (test/cli/rpc-fork-entry.test.ts).
 *
 * RESUME_WRITES_LATER (oh-my-pi#528; src/session/agent-session.ts, `deferWrite`): a session opened
 * (switch, import) on a path without a thinking-level entry gets one; pi 0.73.1 appends it to the
 * file at once, Settle writes it with the next entry. A file the run leaves with no entry after that
 * ends with the `thinking_level_change` in pi's, and Settle's leaf is the unwritten entry; a step
 * whose leaf (or a tree hook's `oldLeafId`) is such an entry has it written in pi's and not (yet) in Settle's. Taken out on both
 * sides, not checked per side: a pi-made file a run imports ends so in both.
 *
 * HOST_LEVEL_RECORDED (src/session/agent-session.ts `createSessionAgent`; test/pi-races/thinking-levels.test.ts
 * "SDK thinkingLevel: …"): both factories pass `thinkingLevel: "off"` to every session they open, and
 * both run it at that level; opening (switch, import) a file whose branch records another level (an
 * imported `low`), Settle records `off` with the next entry, pi 0.73.1's file keeps `low`, so a later
 * resume comes back on a level none of the new turns ran at. Taken out in tree-play.ts: such an
 * entry is Settle-only (`isSettleOnlyEntry` given the file's entries), and a context's level is the
 * one its branch records without it. Not checked per side: no step of the differential sets a level.
 *
 * HOST_MODEL_RECORDED (src/session/agent-session.ts `createSessionAgent`;
 * test/pi-races/provider-switch-history.test.ts "SDK model: …"): both factories pass the faux model
 * to every session they open and run on it; opening a file whose branch's latest `model_change` or
 * answer names another model, Settle records the passed model with the next entry, pi 0.73.1's file
 * keeps the old one. Taken out in tree-play.ts as HOST_LEVEL_RECORDED (`isSettleOnlyEntry`: a
 * `model_change` to another model than the one its branch records before it). Not checked per side:
 * every file the differential opens was made on the same faux model, so neither side writes one.
 *
 * BRANCH_SUMMARY_TOOL_RESULTS (oh-my-pi#4011; src/compaction/branch-summary.ts `prepareBranchEntries`,
 * test/compaction/branch-summary.test.ts): Settle's branch summary request carries the abandoned
 * branch's tool results (`[Tool result]: …`, cut as in compaction); pi 0.73.1 leaves them out.
 * Taken out of every summarizer request on both sides (compaction requests carry them on both,
 * and the compaction differentials compare those).
 *
 * Returns what does not hold.
 */
export function namedDifferencesHold(run: NormalizedTreeRun, side: "pi" | "settle"): string[] {
	const problems: string[] = [];
	const failedSetup = failedSetupStep(run);
	if (failedSetup) {
		if (failedSetup.replaced !== (side === "pi"))
			problems.push(`${side} failed setup replaced ${failedSetup.replaced}`);
		const shutdowns = run.log.filter((line) => line.startsWith("session_shutdown new "));
		const lastSwitch = run.log.lastIndexOf("session_before_switch new -");
		const shutAfter = run.log[lastSwitch + 1]?.startsWith("session_shutdown new ") === true;
		if (shutAfter !== (side === "pi")) problems.push(`${side} failed setup shut down: ${shutdowns.length}`);
	}
	for (const record of run.timeline) {
		const source = missingCwdImportSource(record);
		if (source === undefined) continue;
		// An identical copy already in the session dir (an earlier import) is opened, not copied: both name it.
		const namesSource = source.startsWith("<root>/import/");
		const namesEarlierCopy = /^file\d+$/.test(source);
		if (side === "pi" ? namesSource : !namesSource && !namesEarlierCopy)
			problems.push(`${side} failed import names ${source}`);
	}
	const strays = run.strayCopies.filter((file) => !(side === "pi" && file.startsWith("<root>/sessions/")));
	if (strays.length > 0) problems.push(`${side} stray copies ${strays.join(", ")}`);
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
	for (const error of forkErrors(run)) {
		const hinted = error.startsWith(FORK_HINT_PREFIX) && error.length > FORK_HINT_PREFIX.length;
		if (side === "pi" ? error !== INVALID_FORK_ENTRY_MESSAGE : !hinted) problems.push(`${side} fork error ${error}`);
	}
	return problems;
}

const FORK_HINT_PREFIX = `${INVALID_FORK_ENTRY_MESSAGE}: `;
const COMMAND_FORK_REJECTED = "command fork rejected: ";

/** Fork rejections with pi's text, from the runtime (timeline) or an extension command (log). */
function forkErrors(run: NormalizedTreeRun): string[] {
	const fromRuntime = run.timeline
		.filter((record) => JSON.parse(String(record.action)).kind === "fork")
		.map((record) => record.error)
		.filter((error): error is string => typeof error === "string");
	const fromCommands = run.log
		.filter((line) => line.startsWith(COMMAND_FORK_REJECTED))
		.map((line) => line.slice(COMMAND_FORK_REJECTED.length));
	return [...fromRuntime, ...fromCommands].filter((error) => error.startsWith(INVALID_FORK_ENTRY_MESSAGE));
}

/** FORK_ERROR_HINT taken out: pi's text alone. */
function withoutForkHint(error: string): string {
	return error.startsWith(FORK_HINT_PREFIX) ? INVALID_FORK_ENTRY_MESSAGE : error;
}

const SUMMARY_ERROR_PREFIX = "Branch summarization failed: ";
const COMMAND_NAVIGATE_REJECTED = "command navigateTree rejected: ";

/** The last step when it is a `newSession` whose `setup` threw (FAILED_SETUP_KEEPS_SESSION). */
function failedSetupStep(run: NormalizedTreeRun): Record<string, unknown> | undefined {
	const last = run.timeline[run.timeline.length - 1];
	if (!last) return undefined;
	const action = JSON.parse(String(last.action)) as { kind: string; setup?: unknown; via?: string };
	if (action.kind !== "newSessionWith" || action.setup !== "fail") return undefined;
	const rejected =
		action.via === "runtime"
			? last.error === SETUP_FAILURE
			: run.log.includes(`command newSessionWith rejected: ${SETUP_FAILURE}`);
	return rejected ? last : undefined;
}

const MISSING_CWD = "Stored session working directory does not exist: ";
const SESSION_FILE_LINE = /\nSession file: ([^\n]*)\n/;

/** The session file a failed import's `MissingSessionCwdError` names (IMPORT_CHECKS_CWD_FIRST). */
function missingCwdImportSource(record: Record<string, unknown>): string | undefined {
	if (JSON.parse(String(record.action)).kind !== "import") return undefined;
	const error = record.error;
	if (typeof error !== "string" || !error.startsWith(MISSING_CWD)) return undefined;
	return SESSION_FILE_LINE.exec(error)?.[1];
}

/**
 * The `thinking_level_change` entries that end a file as a leaf (RESUME_WRITES_LATER), by file index
 * and name. Entries are named per file in order of first appearance (tree-play.ts `normalizeRun`),
 * so a file's last entry, new in it, has the highest `f<file>e<k>` name of that file's tree (a fork
 * copies earlier files' entries under their first names).
 */
function setupThinkingLevelLeaves(run: NormalizedTreeRun): { index: number; name: string }[] {
	return run.files.flatMap((entries, index) => {
		if (entries.length < 2 || entries[entries.length - 1]?.type !== "thinking_level_change") return [];
		const prefix = `f${index + 1}e`;
		const opened = run.crossOpened.find((candidate) => candidate.file === `file${index + 1}`);
		const own = treeNodes(opened?.pi.tree).filter((node) => String(node.id).startsWith(prefix));
		const newest = own.sort(
			(a, b) => Number(String(b.id).slice(prefix.length)) - Number(String(a.id).slice(prefix.length)),
		)[0];
		const isLeaf = Array.isArray(newest?.children) && newest.children.length === 0;
		return newest?.type === "thinking_level_change" && isLeaf ? [{ index, name: String(newest.id) }] : [];
	});
}

/** Every node of a `getTree()` shape. */
function treeNodes(nodes: unknown): Record<string, unknown>[] {
	if (!Array.isArray(nodes)) return [];
	return nodes.flatMap((node) => [node, ...treeNodes(node.children)]);
}

/** A `getTree()` shape (tree-play.ts `treeView`) without the nodes named. */
function withoutTreeNodes(nodes: unknown, names: readonly string[]): unknown {
	if (!Array.isArray(nodes)) return nodes;
	return nodes
		.filter((node) => !names.includes(node.id))
		.map((node) => ({ ...node, children: withoutTreeNodes(node.children, names) }));
}

/** The log lines (tree-play.ts `treeHooks`) that name the leaf a navigation starts from. */
const TREE_HOOKS_WITH_OLD_LEAF = ["session_before_tree", "session_tree"];

/** RESUME_WRITES_LATER taken out: pi's trailing entry is dropped and named as Settle's unwritten leaf. */
function withoutSetupThinkingLevels(run: NormalizedTreeRun): NormalizedTreeRun {
	// A step's leaf on such an entry: pi's is written; Settle's is written with the next entry, or
	// dropped when the session moves on first (and opening the file again makes a new one).
	const thinkingLevels = new Set(
		run.crossOpened
			.flatMap((opened) => treeNodes(opened.pi.tree))
			.filter((node) => node.type === "thinking_level_change")
			.map((node) => node.id),
	);
	const timeline = run.timeline.map((record) =>
		thinkingLevels.has(record.leaf) ? { ...record, leaf: "<unwritten id>" } : record,
	);
	// The same leaf as a tree hook's `oldLeafId`: Settle's held entry is never written when the navigation
	// appends nothing (a failed summary) and the session moves on (seed -885076651, TREE_RUNS=600).
	const log = run.log.map((line) => {
		const hook = TREE_HOOKS_WITH_OLD_LEAF.find((name) => line.startsWith(`${name} `));
		if (hook === undefined) return line;
		const payload = JSON.parse(line.slice(hook.length + 1)) as Record<string, unknown>;
		if (!thinkingLevels.has(payload.oldLeafId)) return line;
		return `${hook} ${JSON.stringify({ ...payload, oldLeafId: "<unwritten id>" })}`;
	});
	run = { ...run, timeline, log };
	const leaves = setupThinkingLevelLeaves(run);
	if (leaves.length === 0) return run;
	const names = leaves.map((leaf) => leaf.name);
	const files = run.files.map((entries, index) =>
		leaves.some((leaf) => leaf.index === index) ? entries.slice(0, -1) : entries,
	);
	const crossOpened = run.crossOpened.map((opened) => ({
		...opened,
		pi: { ...opened.pi, tree: withoutTreeNodes(opened.pi.tree, names) },
		settle: { ...opened.settle, tree: withoutTreeNodes(opened.settle.tree, names) },
	})) as NormalizedTreeRun["crossOpened"];
	let json = JSON.stringify({ ...run, files, crossOpened });
	for (const name of names) json = json.replace(new RegExp(`(\\\\?")${name}(\\\\?")`, "g"), "$1<unwritten id>$2");
	return JSON.parse(json) as NormalizedTreeRun;
}

/** A serialized `[Tool result]: …` block of a summarizer request, up to the next block or the end. */
const SUMMARIZED_TOOL_RESULT =
	/(?:\n\n|(?<=<conversation>\n))\[Tool result\]: [\s\S]*?(?=\n\n\[(?:User|Assistant|Assistant thinking|Assistant tool calls|Tool result)\]: |\n<\/conversation>)/g;

/** BRANCH_SUMMARY_TOOL_RESULTS taken out (see {@link namedDifferencesHold}). */
function withoutSummarizedToolResults(run: NormalizedTreeRun): NormalizedTreeRun {
	const requests = run.requests.map((request) => {
		const { system, messages } = request as { system?: string; messages?: unknown[] };
		if (system !== "summarizer" || !Array.isArray(messages)) return request;
		const stripped = messages.map((message) =>
			typeof message === "string"
				? message.replace(SUMMARIZED_TOOL_RESULT, "").replace("<conversation>\n\n\n", "<conversation>\n")
				: message,
		);
		return { ...(request as object), messages: stripped };
	});
	return { ...run, requests };
}

/** The run with the named differences taken out (see {@link namedDifferencesHold}). */
export function comparableTreeRun(run: NormalizedTreeRun): NormalizedTreeRun {
	run = withoutSummarizedToolResults(withoutSetupThinkingLevels(withoutStateDifferences(run)));
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

/** FAILED_SETUP_KEEPS_SESSION, IMPORT_CHECKS_CWD_FIRST and FORK_ERROR_HINT taken out (see {@link namedDifferencesHold}). */
function withoutStateDifferences(run: NormalizedTreeRun): NormalizedTreeRun {
	const failedSetup = failedSetupStep(run);
	const timeline = run.timeline.map((record) => {
		if (record === failedSetup) {
			const taken = "<FAILED_SETUP_KEEPS_SESSION>";
			return { ...record, replaced: taken, cwd: taken, leaf: taken, file: taken, messages: taken, context: taken };
		}
		if (typeof record.error === "string" && record.error.startsWith(FORK_HINT_PREFIX)) {
			return { ...record, error: withoutForkHint(record.error) };
		}
		const source = missingCwdImportSource(record);
		if (source === undefined) return record;
		const error = String(record.error).replace(SESSION_FILE_LINE, "\nSession file: <IMPORT_CHECKS_CWD_FIRST>\n");
		return { ...record, error };
	});
	let log = run.log.map((line) =>
		line.startsWith(COMMAND_FORK_REJECTED)
			? `${COMMAND_FORK_REJECTED}${withoutForkHint(line.slice(COMMAND_FORK_REJECTED.length))}`
			: line,
	);
	if (failedSetup) {
		const lastSwitch = log.lastIndexOf("session_before_switch new -");
		if (log[lastSwitch + 1]?.startsWith("session_shutdown new ")) log = log.filter((_, k) => k !== lastSwitch + 1);
	}
	return { ...run, timeline, log, strayCopies: [] };
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
		const action = JSON.parse(String(record.action)) as {
			kind: string;
			source?: string;
			setup?: boolean | "fail";
			cwdOverride?: boolean;
		};
		const result = record.result as Record<string, unknown> | string | undefined;
		if (action.kind === "import") {
			if (typeof record.error === "string") tags.add("import failed");
			if (missingCwdImportSource(record) !== undefined) tags.add("import missing cwd");
			else if (typeof result === "object" && result !== null) {
				tags.add(result.cancelled ? "import cancelled" : `import ${action.source}`);
				if (action.cwdOverride && !result.cancelled) tags.add("import cwdOverride");
			}
		}
		if (action.kind === "newSessionWith" && action.setup && typeof result === "object" && result?.cancelled === false)
			tags.add("newSession setup");
	}
	if (setupThinkingLevelLeaves(run).length > 0) tags.add("resume writes later");
	for (const line of run.log) {
		if (line.startsWith("withSession sent after new")) tags.add("withSession");
		if (line.startsWith("withSession sent after fork")) tags.add("withSession after fork");
		if (line.startsWith("withSession sent after switch")) tags.add("withSession after switch");
		if (line.startsWith("command newSessionWith {")) tags.add("command newSessionWith");
		if (line.startsWith("command navigateTree {")) tags.add("command navigateTree");
		if (line.startsWith("command switchSession {")) tags.add("command switchSession");
		if (line.startsWith("command fork {"))
			tags.add(line.includes('"cancelled":true') ? "fork cancelled" : "command fork");
		if (line.startsWith("command newSession {")) tags.add("command newSession");
	}
	const failedSetup = failedSetupStep(run);
	if (failedSetup) tags.add(`setup failed via ${JSON.parse(String(failedSetup.action)).via}`);
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
