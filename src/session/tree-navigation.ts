/**
 * Tree navigation: move the session's leaf to another entry of the tree, optionally
 * leaving a summary of the abandoned branch behind. The machine's `navigateTree` actor runs
 * {@link runTreeNavigation} in its `branchSummary` state (or beside an extension command's
 * preflight), so `session.isCompacting` is true meanwhile and `abortBranchSummary()` reaches it.
 *
 * Steps: checks (`Entry <id> not found`, no model for a summary) → entries between the old leaf and
 * the common ancestor → `session_before_tree` (cancel, supplied summary, overridden instructions
 * and label) → the branch summarizer → new leaf (a user or custom message target: its parent, and
 * its text for the editor) → `branch_summary` entry or plain leaf move (+ label) → context rebuilt
 * from the projection, tool loadout restored from the branch's recorded system prompt →
 * `session_tree`.
 */
import type { NavigateTreeInput, NavigateTreeOutput } from "../../machines/prompt-operation.machine.js";
import { SettleError } from "../errors.js";
import type { NavigateTreeOptions, TreePreparation } from "../extensions/types.js";
import type { AgentMessage, ImageContent, TextContent, Usage } from "../llm/types.js";
import type { BranchSummaryEntry, FileOperationDetails, SessionEntry } from "../store/entries.js";
import type { SessionInternals } from "./internals.js";
import { requireModelAndAuth } from "./prompt-pipeline.js";
import { forgetCompactedContext } from "./run-outcome.js";
import { summarizationRetry } from "./summarization-retry.js";
import { summaryPayloadHook } from "./summary-payload.js";
import { recordUnsavedSummaryUsage } from "./unsaved-summary-usage.js";

export type { NavigateTreeOptions } from "../extensions/types.js";

/** What {@link AgentSession.navigateTree} resolves with. */
export interface NavigateTreeResult {
	/** `session_before_tree` cancelled it, or (with `aborted`) the branch summary was aborted: nothing changed. */
	cancelled: boolean;
	/** `abortBranchSummary()` / `abort()` stopped the summary. */
	aborted?: boolean;
	/** The target was a user or custom message: its text, to put back into the editor. */
	editorText?: string;
	/** The `branch_summary` entry written for the abandoned branch. */
	summaryEntry?: BranchSummaryEntry;
}

/** Payload of the machine's `NAVIGATE_TREE` event. */
export interface TreeNavigationPayload {
	targetId: string;
	options: NavigateTreeOptions;
}

/** `navigateTree()` while an operation runs (pi's text). */
export const NAVIGATE_WHILE_STREAMING = "Wait for the current response to finish before navigating the session tree.";
/** `navigateTree()` while a compaction or another navigation runs. */
export const NAVIGATE_WHILE_COMPACTING =
	"Wait for the compaction (or the tree navigation) in progress to finish before navigating the session tree.";
/** `navigateTree()` while a user shell command (`!cmd`, `executeBash`) has not recorded its result. */
export const NAVIGATE_WHILE_SHELL_COMMAND =
	"Wait for the running shell command to finish (or cancel it) before navigating the session tree: its output joins the branch in use when it ends.";
/** `navigateTree({summarize: true})` without a model (pi's text). */
export const NO_MODEL_FOR_BRANCH_SUMMARY = "No model available for summarization";

interface PendingNavigation {
	resolve(result: NavigateTreeResult): void;
	reject(error: unknown): void;
}

interface NavigationState {
	pending: Map<string, PendingNavigation>;
	controller: AbortController | undefined;
	counter: number;
}

const states = new WeakMap<SessionInternals, NavigationState>();

function stateOf(s: SessionInternals): NavigationState {
	let state = states.get(s);
	if (!state) {
		state = { pending: new Map(), controller: undefined, counter: 0 };
		states.set(s, state);
	}
	return state;
}

/**
 * Asks the machine to navigate (the facade's `navigateTree()`); the machine takes it or refuses it.
 * Rejects with `BUSY` {@link NAVIGATE_WHILE_STREAMING} while an operation runs (also from inside a
 * prompt's preflight, unless called by an extension command) and {@link NAVIGATE_WHILE_COMPACTING}
 * during a compaction or another navigation.
 * Resolves with the navigation's result; rejects with its error.
 */
export function requestTreeNavigation(
	s: SessionInternals,
	targetId: string,
	options: NavigateTreeOptions,
): Promise<NavigateTreeResult> {
	const payload: TreeNavigationPayload = { targetId, options };
	const state = stateOf(s);
	// Whether it is taken is the machine's decision: it answers every NAVIGATE_TREE (refused or done).
	const event = {
		type: "NAVIGATE_TREE" as const,
		requestId: `tree${++state.counter}`,
		payload,
		fromCommand: s.scratch.dispatchDepth > 0,
	};
	return new Promise((resolve, reject) => {
		state.pending.set(event.requestId, { resolve, reject });
		s.send(event);
	});
}

/** The machine's `tree_navigation_done`: settles the caller of {@link requestTreeNavigation}. */
export function finishTreeNavigation(
	s: SessionInternals,
	requestId: string,
	output: NavigateTreeOutput | undefined,
	error: unknown,
	refused?: "streaming" | "compacting",
): void {
	if (refused === undefined && !s.isStreaming()) {
		// Recorded while it ran, they waited for it: they join the branch now in use.
		try {
			s.queues.flushPendingBash();
			s.queues.flushPendingCustom();
		} catch {
			// Not written: they stay pending, and the next prompt's flush fails with why.
		}
	}
	const pending = stateOf(s).pending;
	const caller = pending.get(requestId);
	if (!caller) return;
	pending.delete(requestId);
	if (refused !== undefined)
		caller.reject(
			new SettleError("BUSY", refused === "streaming" ? NAVIGATE_WHILE_STREAMING : NAVIGATE_WHILE_COMPACTING),
		);
	else if (error !== undefined || !output)
		caller.reject(error ?? new SettleError("INTERNAL", "Tree navigation ended without a result"));
	else caller.resolve((output.result as NavigateTreeResult | undefined) ?? { cancelled: output.cancelled });
}

/** Aborts the branch summary (or `session_before_tree` handlers' signal) of the navigation in progress. */
export function abortBranchSummary(s: SessionInternals): void {
	stateOf(s).controller?.abort();
}

/** On dispose: aborts the navigation in progress and rejects every caller still waiting. */
export function closeTreeNavigations(s: SessionInternals, error: unknown): void {
	const state = stateOf(s);
	state.controller?.abort();
	for (const caller of state.pending.values()) caller.reject(error);
	state.pending.clear();
}

/**
 * The machine's `navigateTree` actor. Resolves `{cancelled: false, result}` after moving the
 * leaf, `{cancelled: true}` when `session_before_tree` cancelled, `{cancelled: true, aborted: true}`
 * when the summary was aborted (nothing changed). Throws `Entry <id> not found` (`NOT_FOUND`),
 * {@link NO_MODEL_FOR_BRANCH_SUMMARY} (`NO_MODEL`), the auth texts of `prompt()` and
 * `Branch summarization failed: …` (`PROVIDER`).
 */
export async function runTreeNavigation(s: SessionInternals, input: NavigateTreeInput): Promise<NavigateTreeOutput> {
	const { targetId, options } = input.payload as TreeNavigationPayload;
	const result = await navigate(s, targetId, options);
	const output: NavigateTreeOutput = { cancelled: result.cancelled, result };
	if (result.aborted) output.aborted = true;
	return output;
}

async function navigate(
	s: SessionInternals,
	targetId: string,
	options: NavigateTreeOptions,
): Promise<NavigateTreeResult> {
	const sessionManager = s.sessionManager;
	const oldLeafId = sessionManager.getLeafId();
	if (targetId === oldLeafId) return { cancelled: false };
	const summarize = options.summarize ?? false;
	if (summarize && !s.model()) throw new SettleError("NO_MODEL", NO_MODEL_FOR_BRANCH_SUMMARY);
	const targetEntry = sessionManager.getEntry(targetId);
	if (!targetEntry) throw new SettleError("NOT_FOUND", `Entry ${targetId} not found`);

	// Before the first await: an abortBranchSummary() from now on must reach this navigation.
	const state = stateOf(s);
	const controller = new AbortController();
	state.controller = controller;
	const { collectEntriesForBranchSummary, generateBranchSummary } = await import("../compaction/branch-summary.js");
	const { entries: entriesToSummarize, commonAncestorId } = collectEntriesForBranchSummary(
		sessionManager,
		oldLeafId,
		targetId,
	);
	let customInstructions = options.customInstructions;
	let replaceInstructions = options.replaceInstructions;
	let label = options.label;
	const preparation: TreePreparation = {
		targetId,
		oldLeafId,
		commonAncestorId,
		entriesToSummarize,
		userWantsSummary: summarize,
	};
	if (customInstructions !== undefined) preparation.customInstructions = customInstructions;
	if (replaceInstructions !== undefined) preparation.replaceInstructions = replaceInstructions;
	if (label !== undefined) preparation.label = label;

	try {
		const runner = s.runner();
		let summary: { text: string; details: unknown; usage?: BranchSummaryEntry["usage"] } | undefined;
		let fromExtension = false;
		if (runner.hasHandlers("session_before_tree")) {
			const decision = await runner.emit({ type: "session_before_tree", preparation, signal: controller.signal });
			if (controller.signal.aborted) return { cancelled: true, aborted: true };
			if (decision?.cancel) return { cancelled: true };
			if (decision?.summary && summarize) {
				summary = { text: decision.summary.summary, details: decision.summary.details };
				if (decision.summary.usage) summary.usage = decision.summary.usage;
				fromExtension = true;
			}
			if (decision?.customInstructions !== undefined) customInstructions = decision.customInstructions;
			if (decision?.replaceInstructions !== undefined) replaceInstructions = decision.replaceInstructions;
			if (decision?.label !== undefined) label = decision.label;
		}
		if (summarize && !summary && entriesToSummarize.length > 0) {
			const model = await requireModelAndAuth(s);
			const apiKey = await s.modelRuntime.getApiKey(model.provider);
			// Summary answers that were billed: recorded apart when no summary entry carries them.
			const billed: Usage[] = [];
			try {
				const generated = await generateBranchSummary(entriesToSummarize, {
					model,
					streamFn: s.agent.streamFn ?? s.modelRuntime.stream,
					signal: controller.signal,
					thinkingLevel: s.agent.state.thinkingLevel,
					reserveTokens: s.settingsManager.getBranchSummarySettings().reserveTokens,
					retry: summarizationRetry(s, { source: "branchSummary" }),
					onAnswerUsage: (usage) => billed.push(usage),
					...summaryPayloadHook(runner),
					...(apiKey !== undefined ? { apiKey } : {}),
					...(customInstructions !== undefined ? { customInstructions } : {}),
					...(replaceInstructions !== undefined ? { replaceInstructions } : {}),
				});
				summary = { text: generated.summary, details: generated.details satisfies FileOperationDetails };
				if (generated.usage) summary.usage = generated.usage;
			} catch (error) {
				const note = "summary requests of a branch summary that failed";
				await recordUnsavedSummaryUsage(s, "branch_summary", model, billed, note);
				if (controller.signal.aborted) return { cancelled: true, aborted: true };
				throw error;
			}
		}
		if (controller.signal.aborted) return { cancelled: true, aborted: true };

		const { newLeafId, editorText } = newLeafFor(targetEntry);
		const levelBefore = sessionManager.getBranchThinkingLevel();
		// An empty summary (an extension's `{summary: ""}`, an empty model reply) is no summary: a plain
		// leaf move with the label on the target, as in pi.
		if (summary && summary.text === "") summary = undefined;
		let summaryEntry: BranchSummaryEntry | undefined;
		if (summary) {
			const summaryId = sessionManager.branchWithSummary(
				newLeafId,
				summary.text,
				summary.details,
				fromExtension,
				summary.usage,
			);
			summaryEntry = sessionManager.getEntry(summaryId) as BranchSummaryEntry | undefined;
			if (label) sessionManager.appendLabelChange(summaryId, label);
		} else {
			if (newLeafId === null) sessionManager.resetLeaf();
			else sessionManager.branch(newLeafId);
			if (label) sessionManager.appendLabelChange(targetId, label);
		}
		restoreContext(s);
		noteThinkingLevel(s, levelBefore);
		if (runner.hasHandlers("session_tree")) {
			await runner.emit({
				type: "session_tree",
				newLeafId: sessionManager.getLeafId(),
				oldLeafId,
				...(summaryEntry ? { summaryEntry } : {}),
				...(summary ? { fromExtension } : {}),
			});
		}
		const result: NavigateTreeResult = { cancelled: false };
		if (editorText !== undefined) result.editorText = editorText;
		if (summaryEntry) result.summaryEntry = summaryEntry;
		return result;
	} finally {
		if (state.controller === controller) state.controller = undefined;
	}
}

/**
 * As in pi, navigating leaves the live thinking level alone (pi#3544: its maintainers kept that).
 * When the move is what made the branch disagree with the live level (the old branch said it, the
 * new one says another), the next turn records the live level first, so that a resume of the new
 * leaf starts on the level its turns ran at. A move back to a branch that agrees drops the note.
 */
function noteThinkingLevel(s: SessionInternals, levelBefore: string): void {
	const live = s.agent.state.thinkingLevel;
	const disagrees = s.sessionManager.getBranchThinkingLevel() !== live;
	s.transcript.thinkingLevelUnrecorded = disagrees && (s.transcript.thinkingLevelUnrecorded || levelBefore === live);
}

/** A user or custom message target: the leaf goes to its parent and its text back to the editor. */
function newLeafFor(target: SessionEntry): { newLeafId: string | null; editorText?: string } {
	if (target.type === "message" && target.message.role === "user") {
		return { newLeafId: target.parentId, editorText: textOf(target.message.content) };
	}
	if (target.type === "custom_message") return { newLeafId: target.parentId, editorText: textOf(target.content) };
	return { newLeafId: target.id };
}

function textOf(content: string | (TextContent | ImageContent)[]): string {
	if (typeof content === "string") return content;
	let text = "";
	for (const block of content) if (block.type === "text") text += block.text;
	return text;
}

/**
 * The branch's context becomes the live one: messages from the projection, the system prompt and
 * active tools it recorded (the next prompt records a patch only if the loadout differs).
 */
function restoreContext(s: SessionInternals): void {
	s.transcript.rebuild();
	forgetCompactedContext(s);
	const loadout = s.loadout;
	loadout.resyncFromTranscript();
	const recorded = loadout.recordedActiveToolNames();
	if (recorded) loadout.setActiveToolsByName(recorded);
	const system = lastSystemMessage(s.agent.state.messages);
	s.agent.state.systemPrompt = system ? system.content : loadout.renderedPrompt();
}

function lastSystemMessage(messages: readonly AgentMessage[]): Extract<AgentMessage, { role: "system" }> | undefined {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index]!;
		if (message.role === "system") return message;
	}
	return undefined;
}
