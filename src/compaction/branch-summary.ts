/**
 * Branch summaries for tree navigation: what the branch being left did, so the
 * branch the user returns to can carry it as context.
 */
import { SettleError } from "../errors.js";
import { effectiveReserveTokens, estimateMessageTokens } from "../llm/tokens.js";
import type { AgentMessage, Usage } from "../llm/types.js";
import type { FileOperationDetails, SessionEntry } from "../store/entries.js";
import { cutToFit, summaryRequestFits } from "./chunks.js";
import { messageFromEntry } from "./entry-messages.js";
import {
	addRecordedFileLists,
	collectFileOperations,
	computeFileLists,
	createFileOperations,
	formatFileOperations,
} from "./file-operations.js";
import {
	BRANCH_SUMMARY_PREAMBLE,
	BRANCH_SUMMARY_PROMPT,
	SUMMARIZATION_SYSTEM_PROMPT,
	summarizationRequestText,
	withCustomInstructions,
} from "./prompts.js";
import { requestSummary } from "./request.js";
import { messagesToSummarize, serializeConversation, TOOL_RESULT_MAX_CHARS } from "./serialize.js";
import type { FileOperations, SessionTreeReader, SummarizerOptions } from "./types.js";

/** What a tree navigation abandons: see {@link collectEntriesForBranchSummary}. */
export interface BranchEntriesToSummarize {
	/** Entries from just below the common ancestor down to the old leaf, oldest first. */
	entries: SessionEntry[];
	/** Deepest entry on both the old leaf's and the target's path; `null` when they share none. */
	commonAncestorId: string | null;
}

/**
 * The entries a navigation from `oldLeafId` to `targetId` abandons: those on the old leaf's path
 * below the deepest entry shared with the target's path (compaction and summary entries included —
 * their summaries become context). `oldLeafId` null (empty session) → nothing.
 *
 * Throws `SettleError("NOT_FOUND", "Entry <id> not found")` for an unknown target.
 *
 * @example
 * ```ts
 * declare const targetId: string; // the entry the user navigates to
 * const { entries } = collectEntriesForBranchSummary(sessionManager, sessionManager.getLeafId(), targetId);
 * ```
 */
export function collectEntriesForBranchSummary(
	tree: SessionTreeReader,
	oldLeafId: string | null,
	targetId: string,
): BranchEntriesToSummarize {
	if (!tree.getEntry(targetId)) throw new SettleError("NOT_FOUND", `Entry ${targetId} not found`);
	if (!oldLeafId) return { entries: [], commonAncestorId: null };

	const oldPath = new Set(tree.getBranch(oldLeafId).map((entry) => entry.id));
	const targetPath = tree.getBranch(targetId);
	let commonAncestorId: string | null = null;
	for (let i = targetPath.length - 1; i >= 0; i--) {
		if (oldPath.has(targetPath[i]!.id)) {
			commonAncestorId = targetPath[i]!.id;
			break;
		}
	}

	const entries: SessionEntry[] = [];
	const seen = new Set<string>();
	let current: string | null = oldLeafId;
	while (current && current !== commonAncestorId && !seen.has(current)) {
		seen.add(current);
		const entry = tree.getEntry(current);
		if (!entry) break;
		entries.push(entry);
		current = entry.parentId;
	}
	entries.reverse();
	return { entries, commonAncestorId };
}

/** The most a tool result adds to a summary request: its cut text and the note saying how much was cut. */
const TOOL_RESULT_TOKENS = Math.ceil((TOOL_RESULT_MAX_CHARS + 64) / 4);

/** What {@link prepareBranchEntries} returns: the messages to summarize, the files they touched and their estimated tokens. */
export interface BranchPreparation {
	/** Messages to summarize, oldest first (newest kept when over budget). */
	messages: AgentMessage[];
	fileOps: FileOperations;
	totalTokens: number;
}

/**
 * Messages of abandoned entries within a token budget (0 = no limit), keeping the newest: walks from
 * the newest entry back and stops at the first message that does not fit (a compaction or branch
 * summary is still taken while under 90% of the budget). Tool results are kept (unlike pi 0.73.1,
 * oh-my-pi#4011): a fact the branch learned only from a `read` or `bash` output reaches the summary;
 * each is sized as the at most {@link TOOL_RESULT_MAX_CHARS} characters the request carries of it.
 * `toolResults: false` leaves them out, as pi does. File operations come from every entry, including
 * earlier branch summaries' recorded lists (not those made by extensions). `estimate` sizes a message
 * (default `estimateMessageTokens`; pi-compat passes pi's, which counts user images as nothing).
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * const { entries } = collectEntriesForBranchSummary(sessionManager, sessionManager.getLeafId(), "target-entry-id");
 * const { messages, fileOps } = prepareBranchEntries(entries, model.contextWindow - 16384);
 * ```
 */
export function prepareBranchEntries(
	entries: readonly SessionEntry[],
	tokenBudget = 0,
	estimate: (message: AgentMessage) => number = estimateMessageTokens,
	toolResults = true,
): BranchPreparation {
	const fileOps = createFileOperations();
	for (const entry of entries) {
		if (entry.type === "branch_summary" && !entry.fromHook) addRecordedFileLists(entry.details, fileOps);
	}

	const messages: AgentMessage[] = [];
	let totalTokens = 0;
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i]!;
		const message = messageFromEntry(entry);
		if (!message || message.role === "system" || (message.role === "toolResult" && !toolResults)) continue;
		collectFileOperations(message, fileOps);
		const tokens = message.role === "toolResult" ? Math.min(estimate(message), TOOL_RESULT_TOKENS) : estimate(message);
		if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
			const isSummary = entry.type === "compaction" || entry.type === "branch_summary";
			if (isSummary && totalTokens < tokenBudget * 0.9) {
				messages.push(message);
				totalTokens += tokens;
			}
			// Older entries are dropped, but their file operations still count.
			for (let j = i - 1; j >= 0; j--) {
				const older = messageFromEntry(entries[j]!);
				if (older) collectFileOperations(older, fileOps);
			}
			break;
		}
		messages.push(message);
		totalTokens += tokens;
	}
	messages.reverse();
	return { messages, fileOps, totalTokens };
}

/** Options of {@link generateBranchSummary}: the summarizer's model and stream function, plus prompt and budget knobs. */
export interface GenerateBranchSummaryOptions extends SummarizerOptions {
	/** Extra focus appended to the prompt, or (with `replaceInstructions`) the whole prompt. */
	customInstructions?: string;
	replaceInstructions?: boolean;
	/**
	 * Tokens kept free below the context window for the prompt and the answer (default 16384), at
	 * most half the window ({@link effectiveReserveTokens}).
	 */
	reserveTokens?: number;
	/**
	 * Answer budget (default 2048, as pi), capped at half the window like the reserve
	 * ({@link effectiveReserveTokens}), so that the kept conversation and the answer fit the window.
	 */
	maxTokens?: number;
	/** `false` leaves the branch's tool results out of the request, as pi 0.73.1 does (default true). */
	toolResults?: boolean;
}

/** What {@link generateBranchSummary} returns: the text of the branch summary entry and its file lists. */
export interface BranchSummaryResult {
	/** The preamble, the model's summary and the file lists. */
	summary: string;
	details: FileOperationDetails;
	/** Absent when no model was called (nothing to summarize). */
	usage?: Usage;
}

/**
 * A message sized as the summary request carries it: its images are never serialized, so an
 * images-only message costs nothing and does not push the branch's earlier text out of the budget.
 * pi 0.73.1 sizes tool-result and custom-message images at 1,200 tokens each here.
 *
 * @example
 * ```ts
 * const { entries } = collectEntriesForBranchSummary(sessionManager, sessionManager.getLeafId(), "target-entry-id");
 * const { messages } = prepareBranchEntries(entries, 10_000, estimateBranchMessageTokens);
 * ```
 */
export function estimateBranchMessageTokens(message: AgentMessage): number {
	if (
		(message.role === "user" || message.role === "custom" || message.role === "toolResult") &&
		Array.isArray(message.content)
	) {
		return estimateMessageTokens({
			...message,
			content: message.content.filter((block) => block.type !== "image"),
		} as AgentMessage);
	}
	return estimateMessageTokens(message);
}

/** Summary text when the abandoned entries hold no message. */
export const EMPTY_BRANCH_SUMMARY = "No content to summarize";

/**
 * The instructions of a branch summary request: the branch prompt with `customInstructions` as
 * "Additional focus", or (with `replaceInstructions`) `customInstructions` alone.
 *
 * @example
 * ```ts
 * branchSummaryInstructions("Only list the files.", true); // "Only list the files."
 * ```
 */
export function branchSummaryInstructions(customInstructions?: string, replaceInstructions?: boolean): string {
	return replaceInstructions && customInstructions
		? customInstructions
		: withCustomInstructions(BRANCH_SUMMARY_PROMPT, customInstructions);
}

/** How a branch summary request shares the window: see {@link branchSummaryBudget}. */
export interface BranchSummaryBudget {
	/** The answer's tokens: `answerTokens` capped at half the window. */
	maxTokens: number;
	/** The request's own text (system prompt, instructions, tags), by the chars/4 estimate. */
	requestTokens: number;
	/** What the window leaves for the conversation beside the answer and the request's own text (≤ 0: nothing). */
	room: number;
	/** Tokens of conversation kept: `contextWindow − reserveTokens` (reserve capped at half the window), at most `room`, at least 1. */
	budget: number;
}

/**
 * The token budget of a branch summary request on a `contextWindow`-token model. Unlike pi 0.73.1,
 * the request's own text counts: long custom instructions on a small window shrink the
 * conversation kept instead of pushing the request past the window.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * const { budget, maxTokens } = branchSummaryBudget(8192, branchSummaryInstructions("the migration plan"));
 * console.log(maxTokens, budget); // 2048 4096
 * ```
 */
export function branchSummaryBudget(
	contextWindow: number,
	instructions: string,
	reserveTokens = 16_384,
	answerTokens = 2048,
): BranchSummaryBudget {
	// The answer gets the same half-window cap as the reserve (pi 0.73.1 asks for 2048 whatever the window).
	const maxTokens = effectiveReserveTokens(contextWindow, answerTokens);
	const requestTokens = Math.ceil(
		(SUMMARIZATION_SYSTEM_PROMPT.length + summarizationRequestText("", instructions).length) / 4,
	);
	const room = contextWindow - maxTokens - requestTokens;
	const budget = Math.max(1, Math.min(contextWindow - effectiveReserveTokens(contextWindow, reserveTokens), room));
	return { maxTokens, requestTokens, room, budget };
}

/**
 * Summarizes abandoned branch entries with the model: the newest messages that fit in
 * `contextWindow − reserveTokens` (the reserve capped at half the window, as compaction's:
 * {@link effectiveReserveTokens}, pi#8651) and in what the window leaves beside the answer and the
 * request's own text (system prompt, branch prompt, custom instructions), serialized in
 * `<conversation>` tags, with the branch prompt (Goal / Constraints & Preferences / Progress / Key
 * Decisions / Next Steps); a newest message larger than that on its own is sent cut to fit. The
 * answer gets 2048 tokens (at most half the window). The summary starts with pi's preamble and ends
 * with the `<read-files>` / `<modified-files>` lists.
 *
 * Throws `SettleError("ABORTED")` on abort; `SettleError("PROVIDER", "Branch summarization
 * failed: <provider text>")` on a provider error, and when the answer stopped at its token cap (the
 * summary would be incomplete); `SettleError("INVALID_ARGUMENT")` when the instructions and the
 * answer leave no room for the conversation in the window. Returns {@link EMPTY_BRANCH_SUMMARY}
 * without a model call when there is no message to summarize, or only tool results (pi's rule).
 *
 * @example
 * ```ts
 * declare const targetId: string; // the entry the user navigates to
 * const { entries } = collectEntriesForBranchSummary(sessionManager, sessionManager.getLeafId(), targetId);
 * const result = await generateBranchSummary(entries, { model, streamFn: faux.streamFn, signal });
 * sessionManager.branchWithSummary(targetId, result.summary, result.details);
 * ```
 */
export async function generateBranchSummary(
	entries: readonly SessionEntry[],
	options: GenerateBranchSummaryOptions,
): Promise<BranchSummaryResult> {
	// Nothing abandoned but tool results (the user went back to the call that made them, to run it
	// again): no summary to keep and no request that could fail or be aborted, as in pi 0.73.1.
	const all = prepareBranchEntries(entries, 0, estimateMessageTokens, options.toolResults);
	if (all.messages.every((message) => message.role === "toolResult")) {
		return { summary: EMPTY_BRANCH_SUMMARY, details: computeFileLists(all.fileOps) };
	}
	const contextWindow = options.model.contextWindow || 128_000;
	const instructions = branchSummaryInstructions(options.customInstructions, options.replaceInstructions);
	const { maxTokens, requestTokens, room, budget } = branchSummaryBudget(
		contextWindow,
		instructions,
		options.reserveTokens,
		options.maxTokens,
	);
	if (room <= 0 && prepareBranchEntries(entries, 0, estimateMessageTokens, options.toolResults).messages.length > 0) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Branch summary instructions (about ${requestTokens} tokens) and the ${maxTokens}-token answer leave no room for the conversation in ${options.model.id}'s ${contextWindow}-token context window: shorten the custom instructions, or navigate without a summary.`,
			{ details: { requestTokens, maxTokens, contextWindow } },
		);
	}
	const prepared = prepareBranchEntries(entries, budget, estimateBranchMessageTokens, options.toolResults);
	const details = computeFileLists(prepared.fileOps);
	let prompt: string;
	if (prepared.messages.length === 0) {
		// The newest message alone is over the budget: its start, cut to fit, rather than no summary of
		// the branch at all (pi 0.73.1 records "No content to summarize").
		const newest = prepareBranchEntries(entries, 0, estimateMessageTokens, options.toolResults).messages.at(-1);
		const text = newest ? serializeConversation(messagesToSummarize([newest], options.model)) : "";
		if (text === "") return { summary: EMPTY_BRANCH_SUMMARY, details };
		prompt = summarizationRequestText(cutToFit(text, budget * 4), instructions);
	} else {
		// The estimate sizes messages, not their serialized form: drop the oldest until the request as sent fits.
		const messages = [...messagesToSummarize(prepared.messages, options.model)];
		prompt = summarizationRequestText(serializeConversation(messages), instructions);
		while (messages.length > 1 && !summaryRequestFits(prompt, maxTokens, { contextWindow })) {
			messages.shift();
			prompt = summarizationRequestText(serializeConversation(messages), instructions);
		}
	}
	const { text, usage } = await requestSummary(
		prompt,
		maxTokens,
		options,
		"Branch summarization failed",
		"try again, or navigate without a summary",
	);
	return { summary: BRANCH_SUMMARY_PREAMBLE + text + formatFileOperations(details), details, usage };
}
