/**
 * pi 0.73.1's compaction functions with pi's signatures and results, for pi extensions (see
 * pi-compat.ts). Each is an adapter over Settle's own: positional arguments become Settle's options,
 * Settle's results and typed errors become pi's shapes. Summaries are requested through pi-ai's
 * `streamSimple`, as pi's `completeSimple` does, so the model must be one pi-ai serves (a catalogue
 * model, or a provider registered with pi-ai such as its `registerFauxProvider`). A model only
 * Settle's model runtime serves (Settle's faux provider, a provider registered with a `streamFn`)
 * fails with `Summarization failed: <pi-ai's "no API provider" text>`; a `session_before_compact`
 * handler that throws leaves the session to its default compaction.
 */

import {
	type BranchPreparation,
	collectEntriesForBranchSummary as collectBranchEntries,
	EMPTY_BRANCH_SUMMARY,
	prepareBranchEntries as prepareSettleBranchEntries,
	type BranchSummaryResult as SettleBranchSummaryResult,
	generateBranchSummary as settleBranchSummary,
} from "../compaction/branch-summary.js";
import { type CutPointResult, isTurnStart, isValidCutPoint } from "../compaction/cut-point.js";
import { compact as settleCompact, generateSummary as settleGenerateSummary } from "../compaction/summarize.js";
import type { CompactionPreparation, SessionTreeReader, SummarizerOptions } from "../compaction/types.js";
import { SettleError } from "../errors.js";
import { withDefaultProfileRegion } from "../llm/bedrock-region.js";
import { loadPiAi } from "../llm/pi-ai.js";
import { estimateMessageTokens } from "../llm/tokens.js";
import type { AgentMessage, Model, StreamFn, ThinkingLevel, Usage } from "../llm/types.js";
import type { SessionEntry } from "../store/entries.js";

/**
 * pi-ai's `streamSimple`, loaded on the first summary request (pi-ai stays off `import "settle"`);
 * a Bedrock model goes to the default profile's region, as the session's own requests do.
 */
const piAiStream: StreamFn = async (model, context, options) =>
	(await loadPiAi()).streamSimple(withDefaultProfileRegion(model), context, options);

function summarizerOptions(
	model: Model,
	apiKey: string | undefined,
	headers: Record<string, string> | undefined,
	signal: AbortSignal | undefined,
	thinkingLevel?: ThinkingLevel,
): SummarizerOptions {
	return {
		model,
		streamFn: piAiStream,
		// pi returns what the model wrote, even nothing.
		acceptEmptyAnswer: true,
		...(apiKey !== undefined ? { apiKey } : {}),
		...(headers !== undefined ? { headers } : {}),
		...(signal !== undefined ? { signal } : {}),
		...(thinkingLevel !== undefined ? { thinkingLevel } : {}),
	};
}

/**
 * pi's token estimate of a message (chars / 4). Settle's own estimate also counts an image in a
 * user message as 4800 characters, as pi does for tool results; pi counts user images as nothing.
 * pi counts a `!!` bash message (`excludeFromContext`) by its text; Settle's own counts it as 0.
 * Unlike pi, a CJK character counts as about one token here too (pi#2562), so an extension sizing a
 * Chinese session's kept tail gets the budget it asked for.
 *
 * @example
 * ```ts
 * estimateTokens({ role: "user", content: "hello world!", timestamp: 0 }); // 3
 * ```
 */
export function estimateTokens(message: AgentMessage): number {
	if (message.role === "user" && Array.isArray(message.content)) {
		return estimateMessageTokens({ ...message, content: message.content.filter((block) => block.type === "text") });
	}
	if (message.role === "bashExecution") return Math.ceil((message.command.length + message.output.length) / 4);
	return estimateMessageTokens(message);
}

/**
 * pi's turn start: the entry at or before `entryIndex` (down to `startIndex`) that is a user or bash
 * message, a `custom_message` or a `branch_summary` entry; -1 when there is none. (Settle's own also
 * counts a `custom` message inside a `message` entry, as migrated v1 files have.)
 *
 * @example
 * ```ts
 * import { type ExtensionContext, findTurnStartIndex } from "@mariozechner/pi-coding-agent";
 *
 * declare const ctx: ExtensionContext; // a handler's context
 * const entries = ctx.sessionManager.getBranch();
 * findTurnStartIndex(entries, entries.length - 1, 0); // index of the last turn's user message
 * ```
 */
export function findTurnStartIndex(entries: readonly SessionEntry[], entryIndex: number, startIndex: number): number {
	for (let i = entryIndex; i >= startIndex; i--) {
		const entry = entries[i]!;
		if (isTurnStart(entry) && !(entry.type === "message" && entry.message.role === "custom")) return i;
	}
	return -1;
}

/**
 * pi's compaction cut: walking back from the newest `message` entry, once `keepRecentTokens` are
 * collected, the nearest valid cut point AT OR AFTER that entry (so the kept span may hold fewer
 * tokens), moved back over entries that are not `message` entries (up to a compaction). A cut at a
 * user message is a whole turn; anywhere else the cut splits the turn starting at `turnStartIndex`.
 *
 * Settle's sessions cut differently on purpose (`findCutPoint` from "settle" keeps at least
 * `keepRecentTokens`, cutting at or before that entry); this export answers as pi's, for
 * extensions that compute their own cut, quirks included (a cut moved back over a settings entry
 * before a user message is reported as a split turn).
 *
 * @example
 * ```ts
 * import { type ExtensionContext, findCutPoint } from "@mariozechner/pi-coding-agent";
 *
 * declare const ctx: ExtensionContext; // a handler's context
 * const branch = ctx.sessionManager.getBranch();
 * const { firstKeptEntryIndex, isSplitTurn } = findCutPoint(branch, 0, branch.length, 20_000);
 * ```
 */
export function findCutPoint(
	entries: readonly SessionEntry[],
	startIndex: number,
	endIndex: number,
	keepRecentTokens: number,
): CutPointResult {
	const cutPoints: number[] = [];
	for (let i = startIndex; i < endIndex; i++) if (isValidCutPoint(entries[i]!)) cutPoints.push(i);
	if (cutPoints.length === 0) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };

	let cutIndex = cutPoints[0]!;
	let accumulated = 0;
	for (let i = endIndex - 1; i >= startIndex; i--) {
		const entry = entries[i]!;
		if (entry.type !== "message") continue;
		accumulated += estimateTokens(entry.message);
		if (accumulated >= keepRecentTokens) {
			cutIndex = cutPoints.find((point) => point >= i) ?? cutIndex;
			break;
		}
	}
	while (cutIndex > startIndex) {
		const previous = entries[cutIndex - 1]!;
		if (previous.type === "compaction" || previous.type === "message") break;
		cutIndex--;
	}

	const cut = entries[cutIndex]!;
	if (cut.type === "message" && cut.message.role === "user") {
		return { firstKeptEntryIndex: cutIndex, turnStartIndex: -1, isSplitTurn: false };
	}
	const turnStartIndex = findTurnStartIndex(entries, cutIndex, startIndex);
	return { firstKeptEntryIndex: cutIndex, turnStartIndex, isSplitTurn: turnStartIndex !== -1 };
}

/**
 * pi's: the usage of the newest assistant message that was not aborted and did not fail, or
 * undefined. (Settle's own token rules also skip usage that counts no tokens; pi returns it.)
 *
 * @example
 * ```ts
 * import { calculateContextTokens, type ExtensionContext, getLastAssistantUsage } from "@mariozechner/pi-coding-agent";
 *
 * declare const ctx: ExtensionContext; // a handler's context
 * const usage = getLastAssistantUsage(ctx.sessionManager.getBranch());
 * if (usage) console.log(calculateContextTokens(usage));
 * ```
 */
export function getLastAssistantUsage(entries: readonly SessionEntry[]): Usage | undefined {
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i]!;
		if (entry.type !== "message" || entry.message.role !== "assistant") continue;
		const { stopReason, usage } = entry.message;
		if (stopReason !== "aborted" && stopReason !== "error" && usage) return usage;
	}
	return undefined;
}

/**
 * pi's `generateSummary`: the structured checkpoint summary of `currentMessages` as a string
 * (update mode with a non-empty `previousSummary`), answer budget 80% of `reserveTokens`.
 * Settle's `generateSummary` builds the request (its prompt wording is its own; the structure,
 * headings, `<conversation>` / `<previous-summary>` text, budget, key, headers and reasoning level
 * are pi's).
 *
 * Rejects as pi with an Error `Summarization failed: <provider text>` (a `SettleError` with code
 * PROVIDER). Unlike pi, an aborted request rejects (`SettleError` ABORTED) instead of resolving
 * with whatever the model had written, and so does an answer cut at its token cap (PROVIDER,
 * pi#7048) instead of resolving with the cut text.
 *
 * @example
 * ```ts
 * import { type ExtensionAPI, generateSummary } from "@mariozechner/pi-coding-agent";
 *
 * declare const pi: ExtensionAPI;
 * pi.on("session_before_compact", async (event, ctx) => {
 *   const auth = await ctx.modelRegistry.getApiKeyAndHeaders(ctx.model!);
 *   if (!auth.ok || !auth.apiKey) return;
 *   const { messagesToSummarize, firstKeptEntryId, tokensBefore } = event.preparation;
 *   const summary = await generateSummary(messagesToSummarize, ctx.model!, 16_384, auth.apiKey, auth.headers, event.signal);
 *   return { compaction: { summary, firstKeptEntryId, tokensBefore } };
 * });
 * ```
 */
export async function generateSummary(
	currentMessages: AgentMessage[],
	model: Model,
	reserveTokens: number,
	apiKey: string,
	headers?: Record<string, string>,
	signal?: AbortSignal,
	customInstructions?: string,
	previousSummary?: string,
	thinkingLevel?: ThinkingLevel,
): Promise<string> {
	const { text } = await settleGenerateSummary(currentMessages, {
		...summarizerOptions(model, apiKey, headers, signal, thinkingLevel),
		reserveTokens,
		...(customInstructions !== undefined ? { customInstructions } : {}),
		...(previousSummary ? { previousSummary } : {}),
	});
	return text;
}

/** pi's `CompactionResult`: what a `session_before_compact` handler returns as `compaction`. */
export interface PiCompactionResult {
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	details: { readFiles: string[]; modifiedFiles: string[] };
}

/**
 * pi's `compact`: summarizes a `session_before_compact` preparation (both summaries of a split
 * turn in parallel, joined under `**Turn Context (split turn):**`, file lists appended) and
 * returns pi's `{ summary, firstKeptEntryId, tokensBefore, details }` (no usage). Settle's
 * `compact` does the work; requests and errors as {@link generateSummary}.
 *
 * One difference on purpose: when a split turn has no history before it but there is a previous
 * summary, the previous summary is kept where pi writes "No prior history." (pi loses it).
 *
 * @example
 * ```ts
 * import { compact, type ExtensionAPI } from "@mariozechner/pi-coding-agent";
 *
 * declare const pi: ExtensionAPI;
 * pi.on("session_before_compact", async (event, ctx) => {
 *   const auth = await ctx.modelRegistry.getApiKeyAndHeaders(ctx.model!);
 *   if (!auth.ok || !auth.apiKey) return;
 *   return { compaction: await compact(event.preparation, ctx.model!, auth.apiKey, auth.headers, "focus on tests", event.signal) };
 * });
 * ```
 */
export async function compact(
	preparation: CompactionPreparation,
	model: Model,
	apiKey: string,
	headers?: Record<string, string>,
	customInstructions?: string,
	signal?: AbortSignal,
	thinkingLevel?: ThinkingLevel,
): Promise<PiCompactionResult> {
	if (!preparation.firstKeptEntryId) {
		throw new SettleError("INVALID_ARGUMENT", "First kept entry has no UUID - session may need migration");
	}
	const { summary, firstKeptEntryId, tokensBefore, details } = await settleCompact(preparation, {
		...summarizerOptions(model, apiKey, headers, signal, thinkingLevel),
		...(customInstructions !== undefined ? { customInstructions } : {}),
	});
	return { summary, firstKeptEntryId, tokensBefore, details };
}

/**
 * pi's `collectEntriesForBranchSummary` (Settle's: the entries a navigation from `oldLeafId` to
 * `targetId` abandons, oldest first, and the common ancestor). Unlike pi, an unknown `targetId`
 * throws `SettleError` NOT_FOUND instead of collecting the whole old branch.
 *
 * @example
 * ```ts
 * import { collectEntriesForBranchSummary, type ExtensionContext } from "@mariozechner/pi-coding-agent";
 *
 * declare const ctx: ExtensionContext; // a handler's context
 * declare const targetId: string; // the entry the user navigates to
 * const { entries } = collectEntriesForBranchSummary(ctx.sessionManager, ctx.sessionManager.getLeafId(), targetId);
 * ```
 */
export function collectEntriesForBranchSummary(
	session: SessionTreeReader,
	oldLeafId: string | null,
	targetId: string,
): { entries: SessionEntry[]; commonAncestorId: string | null } {
	return collectBranchEntries(session, oldLeafId, targetId);
}

/**
 * pi's `prepareBranchEntries` (Settle's, sizing messages with pi's {@link estimateTokens}): the
 * newest messages of `entries` within `tokenBudget` (0 = no limit), tool results left out, and the
 * files they touched. `messages` and `totalTokens` are pi's, except that a branch summary with an
 * empty text adds no message (as in the context); `fileOps` also holds the files of entries
 * dropped for the budget (pi forgets those).
 *
 * @example
 * ```ts
 * import { type ExtensionContext, prepareBranchEntries } from "@mariozechner/pi-coding-agent";
 *
 * declare const ctx: ExtensionContext; // a handler's context
 * const { messages, fileOps } = prepareBranchEntries(ctx.sessionManager.getBranch(), 100_000);
 * ```
 */
export function prepareBranchEntries(entries: readonly SessionEntry[], tokenBudget = 0): BranchPreparation {
	return prepareSettleBranchEntries(entries, tokenBudget, estimateTokens, false);
}

/** pi's `GenerateBranchSummaryOptions`. */
export interface PiGenerateBranchSummaryOptions {
	model: Model;
	apiKey: string;
	headers?: Record<string, string>;
	signal: AbortSignal;
	customInstructions?: string;
	/** `customInstructions` replaces the prompt instead of being appended. */
	replaceInstructions?: boolean;
	/** Tokens kept free for the prompt and the answer (default 16384). */
	reserveTokens?: number;
}

/** pi's `BranchSummaryResult`: a summary with its file lists, `aborted`, or a provider `error`. */
export interface PiBranchSummaryResult {
	summary?: string;
	readFiles?: string[];
	modifiedFiles?: string[];
	aborted?: boolean;
	error?: string;
}

/**
 * pi's `generateBranchSummary`: Settle's branch summary (preamble, the model's summary, file
 * lists) as `{ summary, readFiles, modifiedFiles }`; `{ summary: "No content to summarize" }`
 * without a model call when there is nothing to summarize; `{ aborted: true }` on abort;
 * `{ error }` with the provider text when the request fails. Never rejects for those. As in pi, the
 * request leaves the branch's tool results out (the session's own branch summaries carry them).
 *
 * Differences on purpose: `readFiles` / `modifiedFiles` also name files of entries dropped for the
 * budget, the budget counts images in user messages (as Settle's sessions do), `reserveTokens`
 * is at most half the window (pi#8651; pi 0.73.1 takes it as set, unlimited when over the window),
 * the request with its instructions and answer fits the window (`{ error }` saying to shorten the
 * custom instructions when they leave no room), a newest message over the whole budget is sent cut
 * to fit (pi: "No content to summarize"), and an answer cut at its token cap is an `{ error }`.
 *
 * @example
 * ```ts
 * import { type ExtensionContext, generateBranchSummary } from "@mariozechner/pi-coding-agent";
 *
 * declare const ctx: ExtensionContext; // a handler's context
 * const result = await generateBranchSummary(ctx.sessionManager.getBranch(), { model: ctx.model!, apiKey: "sk-…", signal: ctx.signal! });
 * if (result.summary) console.log(result.summary, result.readFiles);
 * ```
 */
export async function generateBranchSummary(
	entries: readonly SessionEntry[],
	options: PiGenerateBranchSummaryOptions,
): Promise<PiBranchSummaryResult> {
	let result: SettleBranchSummaryResult;
	try {
		result = await settleBranchSummary(entries, {
			...summarizerOptions(options.model, options.apiKey, options.headers, options.signal),
			...(options.customInstructions !== undefined ? { customInstructions: options.customInstructions } : {}),
			...(options.replaceInstructions !== undefined ? { replaceInstructions: options.replaceInstructions } : {}),
			...(options.reserveTokens !== undefined ? { reserveTokens: options.reserveTokens } : {}),
			toolResults: false,
		});
	} catch (error) {
		if (error instanceof SettleError && error.code === "ABORTED") return { aborted: true };
		if (error instanceof SettleError && typeof error.details?.errorMessage === "string") {
			return { error: error.details.errorMessage };
		}
		return { error: error instanceof Error ? error.message : String(error) };
	}
	if (result.usage === undefined && result.summary === EMPTY_BRANCH_SUMMARY) return { summary: result.summary };
	return { summary: result.summary, ...result.details };
}
