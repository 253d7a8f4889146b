/**
 * Generated scenarios of the tree / replacement differential: a few prompts (scripted replies, some
 * with tool calls), then random navigations, labels, prompts, forks, new sessions and switches back
 * to earlier files, under extension hooks that may cancel or supply their own results.
 *
 * Targets are picked by kind and position (`{kind: "user", pick: 3}` = the 4th user message of the
 * current session, modulo their count), resolved when the action runs, so they mean the same entry
 * on both peers whatever its id.
 */
import fc from "fast-check";

/** What a scripted agent reply does: answer, or call a tool first and answer after its result. */
export type ReplyKind = "text" | "echo" | "fail";

/** Which entries a target is picked among; `root` is the session's first entry. */
export type TargetKind =
	| "user"
	| "assistant"
	| "toolResult"
	| "branch_summary"
	| "custom_message"
	| "compaction"
	| "any"
	| "root";

export interface Target {
	kind: TargetKind;
	pick: number;
}

/** How the branch summarizer answers a navigation that asks for a summary. */
export type SummaryOutcome = "ok" | "error" | "abort";

export type TreeAction =
	| { kind: "prompt"; reply: ReplyKind }
	/** A `custom_message` entry (sendCustomMessage without a turn): a navigation target with editor text. */
	| { kind: "custom" }
	/** A manual compaction (summary from the scripted summarizer). */
	| { kind: "compact" }
	| {
			kind: "navigate";
			target: Target;
			summarize: boolean;
			summary: SummaryOutcome;
			customInstructions?: string;
			replaceInstructions?: boolean;
			label?: string;
	  }
	| { kind: "label"; target: Target; label: string | undefined }
	/** `withSession`: the fork's callback sends a user message from the new session's context. */
	| { kind: "fork"; via: "runtime" | "command"; target: Target; position: "before" | "at"; withSession: boolean }
	| { kind: "newSession"; via: "runtime" | "command" }
	/** `runtime.switchSession` to an earlier file, with a `withSession` callback or not. */
	| { kind: "switchBack"; pick: number; withSession: boolean }
	/**
	 * `runtime.importFromJsonl`: a file written by pi's or Settle's SessionManager, an earlier file of
	 * the run, a missing one, one whose recorded cwd is gone; `cwdOverride`: with another existing
	 * directory as the session's cwd.
	 */
	| { kind: "import"; source: ImportSource; pick: number; cwdOverride: boolean }
	/**
	 * `newSession({ setup, withSession })` from the host or from an extension command (`ctx.newSession`);
	 * `setup: "fail"` throws before writing anything (the run ends there, see tree-play.ts `endsRun`).
	 */
	| { kind: "newSessionWith"; via: "runtime" | "command"; setup: boolean | "fail"; withSession: boolean }
	/** `ctx.navigateTree` from an extension command. */
	| { kind: "commandNavigate"; target: Target; summarize: boolean; summary: SummaryOutcome }
	/** `ctx.switchSession` from an extension command, to an earlier file, with a `withSession` callback or not. */
	| { kind: "commandSwitch"; pick: number; withSession: boolean };

/** Which file `import` imports (`elsewhere`: pi-made, its recorded cwd does not exist). */
export type ImportSource = "pi-made" | "settle-made" | "own" | "missing" | "elsewhere";

/** What `session_before_tree` handlers do. */
export type BeforeTreeMode = "none" | "cancel" | "summary" | "emptySummary" | "override";

export interface TreeHooks {
	beforeTree: BeforeTreeMode;
	/** `session_before_switch` cancels these reasons. */
	cancelSwitch: ("new" | "resume")[];
	cancelFork: boolean;
}

export interface TreeScenario {
	hooks: TreeHooks;
	opening: ReplyKind[];
	actions: TreeAction[];
}

const replyArb: fc.Arbitrary<ReplyKind> = fc.constantFrom("text", "text", "echo", "fail");

const targetArb: fc.Arbitrary<Target> = fc.record({
	kind: fc.constantFrom<TargetKind>(
		"user",
		"user",
		"assistant",
		"toolResult",
		"branch_summary",
		"custom_message",
		"compaction",
		"any",
		"root",
	),
	pick: fc.nat({ max: 20 }),
});

const navigateArb: fc.Arbitrary<TreeAction> = fc
	.record(
		{
			target: targetArb,
			summarize: fc.boolean(),
			summary: fc.constantFrom<SummaryOutcome>("ok", "ok", "error", "abort"),
			customInstructions: fc.constantFrom("Focus on the tools.", "List the questions."),
			replaceInstructions: fc.boolean(),
			label: fc.constantFrom("checkpoint", "retry here"),
		},
		{ requiredKeys: ["target", "summarize", "summary"] },
	)
	.map((navigate) => ({ kind: "navigate" as const, ...navigate }));

const actionArb: fc.Arbitrary<TreeAction> = fc.oneof(
	{ weight: 3, arbitrary: replyArb.map((reply) => ({ kind: "prompt" as const, reply })) },
	{ weight: 5, arbitrary: navigateArb },
	{ weight: 1, arbitrary: fc.constant({ kind: "custom" as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: "compact" as const }) },
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("label" as const),
			target: targetArb,
			label: fc.constantFrom<string | undefined>("marked", "other", undefined),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant("fork" as const),
			via: fc.constantFrom<"runtime" | "command">("runtime", "command"),
			target: targetArb,
			position: fc.constantFrom<"before" | "at">("before", "before", "at"),
			withSession: fc.constantFrom(false, false, true),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("newSession" as const),
			via: fc.constantFrom<"runtime" | "command">("runtime", "command"),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("switchBack" as const),
			pick: fc.nat({ max: 5 }),
			withSession: fc.constantFrom(false, false, true),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("import" as const),
			source: fc.constantFrom<ImportSource>("pi-made", "settle-made", "own", "missing", "elsewhere"),
			pick: fc.nat({ max: 5 }),
			cwdOverride: fc.constantFrom(false, false, true),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("newSessionWith" as const),
			via: fc.constantFrom<"runtime" | "command">("runtime", "command"),
			setup: fc.constantFrom<boolean | "fail">(false, true, false, true, "fail"),
			withSession: fc.boolean(),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("commandNavigate" as const),
			target: targetArb,
			summarize: fc.boolean(),
			summary: fc.constantFrom<SummaryOutcome>("ok", "ok", "error"),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("commandSwitch" as const),
			pick: fc.nat({ max: 5 }),
			withSession: fc.constantFrom(false, false, true),
		}),
	},
);

export const treeScenarioArb: fc.Arbitrary<TreeScenario> = fc.record({
	hooks: fc.record({
		beforeTree: fc.constantFrom<BeforeTreeMode>("none", "none", "cancel", "summary", "emptySummary", "override"),
		cancelSwitch: fc.subarray<"new" | "resume">(["new", "resume"]),
		cancelFork: fc.constantFrom(false, false, true),
	}),
	opening: fc.array(replyArb, { minLength: 1, maxLength: 3 }),
	actions: fc.array(actionArb, { minLength: 1, maxLength: 8 }),
});

const nav = (target: Target, summarize: boolean, summary: SummaryOutcome = "ok"): TreeAction => ({
	kind: "navigate",
	target,
	summarize,
	summary,
});

/**
 * Scenarios played before the random ones, so every path the comparison is about is taken in every
 * run of the test (tree-differential.property.test.ts checks that they were).
 */
export const TREE_EXAMPLES: TreeScenario[] = [
	{
		hooks: { beforeTree: "none", cancelSwitch: ["resume"], cancelFork: true },
		opening: ["text", "echo", "text"],
		actions: [
			nav({ kind: "user", pick: 2 }, true),
			nav({ kind: "assistant", pick: 0 }, true, "abort"),
			nav({ kind: "user", pick: 1 }, true, "error"),
			{ kind: "fork", via: "runtime", target: { kind: "user", pick: 1 }, position: "before", withSession: false },
			{ kind: "newSession", via: "runtime" },
			{ kind: "prompt", reply: "text" },
			{ kind: "switchBack", pick: 0, withSession: false },
			{ kind: "import", source: "settle-made", pick: 0, cwdOverride: false },
		],
	},
	{
		hooks: { beforeTree: "summary", cancelSwitch: ["new"], cancelFork: false },
		opening: ["text", "fail", "text"],
		actions: [
			nav({ kind: "user", pick: 2 }, true),
			{ kind: "fork", via: "command", target: { kind: "user", pick: 1 }, position: "before", withSession: false },
			{ kind: "prompt", reply: "text" },
			{ kind: "fork", via: "runtime", target: { kind: "assistant", pick: 1 }, position: "at", withSession: false },
			{ kind: "newSession", via: "command" },
			{ kind: "newSession", via: "runtime" },
			{ kind: "switchBack", pick: 0, withSession: false },
		],
	},
	{
		hooks: { beforeTree: "cancel", cancelSwitch: [], cancelFork: false },
		opening: ["echo"],
		actions: [nav({ kind: "user", pick: 0 }, true), { kind: "newSession", via: "runtime" }],
	},
	// FORK_ERROR_HINT: forks before entries that are not user messages (seed 1217683724 path 14).
	{
		hooks: { beforeTree: "summary", cancelSwitch: ["new", "resume"], cancelFork: false },
		opening: ["text", "text"],
		actions: [
			{ kind: "fork", via: "runtime", target: { kind: "any", pick: 0 }, position: "before", withSession: true },
			{ kind: "fork", via: "command", target: { kind: "assistant", pick: 0 }, position: "before", withSession: false },
			{ kind: "fork", via: "runtime", target: { kind: "assistant", pick: 1 }, position: "before", withSession: false },
		],
	},
	{
		hooks: { beforeTree: "none", cancelSwitch: [], cancelFork: false },
		opening: ["text", "echo", "text", "text"],
		actions: [
			{ kind: "compact" },
			{ kind: "prompt", reply: "text" },
			{ kind: "custom" },
			{ kind: "prompt", reply: "text" },
			nav({ kind: "custom_message", pick: 0 }, true),
			nav({ kind: "compaction", pick: 0 }, false),
		],
	},
	{
		hooks: { beforeTree: "none", cancelSwitch: [], cancelFork: false },
		opening: ["text", "echo"],
		actions: [
			{ kind: "import", source: "pi-made", pick: 0, cwdOverride: false },
			{ kind: "prompt", reply: "text" },
			{ kind: "import", source: "settle-made", pick: 0, cwdOverride: false },
			{ kind: "import", source: "missing", pick: 0, cwdOverride: false },
			{ kind: "import", source: "own", pick: 0, cwdOverride: false },
			{ kind: "newSessionWith", via: "runtime", setup: true, withSession: true },
			{ kind: "commandNavigate", target: { kind: "user", pick: 0 }, summarize: true, summary: "ok" },
			{ kind: "newSessionWith", via: "command", setup: true, withSession: true },
			{ kind: "commandSwitch", pick: 0, withSession: false },
			{ kind: "newSessionWith", via: "command", setup: false, withSession: false },
		],
	},
	{
		hooks: { beforeTree: "none", cancelSwitch: [], cancelFork: false },
		opening: ["text", "text"],
		actions: [
			{ kind: "fork", via: "runtime", target: { kind: "user", pick: 1 }, position: "before", withSession: true },
			{ kind: "switchBack", pick: 0, withSession: true },
			{ kind: "fork", via: "command", target: { kind: "assistant", pick: 0 }, position: "at", withSession: true },
			{ kind: "commandSwitch", pick: 0, withSession: true },
			{ kind: "import", source: "elsewhere", pick: 0, cwdOverride: false },
			{ kind: "import", source: "elsewhere", pick: 0, cwdOverride: true },
			{ kind: "prompt", reply: "text" },
			{ kind: "import", source: "settle-made", pick: 0, cwdOverride: true },
			{ kind: "newSessionWith", via: "runtime", setup: "fail", withSession: true },
		],
	},
	{
		hooks: { beforeTree: "none", cancelSwitch: [], cancelFork: false },
		opening: ["text"],
		actions: [{ kind: "newSessionWith", via: "command", setup: "fail", withSession: false }],
	},
	// IMPORT_CHECKS_CWD_FIRST (tree-compare.ts): the second import of a file whose cwd is gone opens
	// the identical copy the first (with a cwd override) left in the session dir.
	{
		hooks: { beforeTree: "none", cancelSwitch: [], cancelFork: false },
		opening: ["text"],
		actions: [
			{ kind: "import", source: "elsewhere", pick: 0, cwdOverride: true },
			{ kind: "import", source: "pi-made", pick: 0, cwdOverride: false },
			{ kind: "import", source: "elsewhere", pick: 0, cwdOverride: false },
		],
	},
	// RESUME_WRITES_LATER in a file a fork made: its entries keep the names they have in the file forked.
	{
		hooks: { beforeTree: "summary", cancelSwitch: ["new"], cancelFork: false },
		opening: ["echo"],
		actions: [
			{ kind: "import", source: "pi-made", pick: 3, cwdOverride: false },
			{ kind: "navigate", target: { kind: "assistant", pick: 15 }, summarize: true, summary: "ok" },
			{
				kind: "navigate",
				target: { kind: "branch_summary", pick: 10 },
				summarize: true,
				summary: "abort",
				label: "checkpoint",
			},
			{
				kind: "navigate",
				target: { kind: "assistant", pick: 19 },
				summarize: false,
				summary: "error",
				label: "checkpoint",
			},
			{ kind: "fork", via: "command", target: { kind: "compaction", pick: 7 }, position: "before", withSession: false },
			{ kind: "fork", via: "command", target: { kind: "any", pick: 16 }, position: "at", withSession: false },
			{ kind: "import", source: "pi-made", pick: 3, cwdOverride: false },
		],
	},
	// RESUME_WRITES_LATER, twice into one file: Settle drops the entry it held when the session moves on.
	{
		hooks: { beforeTree: "summary", cancelSwitch: [], cancelFork: false },
		opening: ["fail", "text", "fail"],
		actions: [
			{ kind: "commandNavigate", target: { kind: "root", pick: 11 }, summarize: true, summary: "ok" },
			{ kind: "newSession", via: "runtime" },
			{ kind: "switchBack", pick: 4, withSession: false },
			{ kind: "import", source: "settle-made", pick: 3, cwdOverride: false },
			{ kind: "switchBack", pick: 2, withSession: true },
			{ kind: "label", target: { kind: "branch_summary", pick: 3 }, label: "marked" },
		],
	},
	// HOST_LEVEL_RECORDED with RESUME_WRITES_LATER (tree-compare.ts), seed -885076651 (TREE_RUNS=600): over
	// the imported file's `low`, Settle holds its `off` as the leaf a failed summary navigates from, then
	// drops it when the session moves on; the file gets entries later, so its `low` is no trailing leaf.
	{
		hooks: { beforeTree: "none", cancelSwitch: [], cancelFork: false },
		opening: ["echo"],
		actions: [
			{ kind: "import", source: "pi-made", pick: 3, cwdOverride: false },
			{ kind: "navigate", target: { kind: "root", pick: 0 }, summarize: true, summary: "error" },
			{ kind: "switchBack", pick: 3, withSession: false },
			{ kind: "commandSwitch", pick: 3, withSession: true },
		],
	},
	// RESUME_WRITES_LATER (tree-compare.ts): the switch back lands on a path without a thinking level.
	{
		hooks: { beforeTree: "none", cancelSwitch: [], cancelFork: false },
		opening: ["text"],
		actions: [
			{ kind: "commandNavigate", target: { kind: "root", pick: 0 }, summarize: false, summary: "ok" },
			{ kind: "prompt", reply: "text" },
			{ kind: "newSession", via: "command" },
			{ kind: "commandSwitch", pick: 0, withSession: false },
		],
	},
];
