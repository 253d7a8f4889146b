/**
 * The default compaction summarizer: a structured checkpoint summary from the current model.
 */
import { SettleError } from "../errors.js";
import { effectiveReserveTokens } from "../llm/tokens.js";
import type { AgentMessage, Model, Usage } from "../llm/types.js";
import type { FileOperationDetails } from "../store/entries.js";
import { summarizeSpan } from "./chunks.js";
import { computeFileLists, formatFileOperations, withoutFileLists } from "./file-operations.js";
import {
	CHECKPOINT_PROMPT,
	CHECKPOINT_UPDATE_PROMPT,
	joinSplitTurnSummary,
	NO_PRIOR_HISTORY,
	summarizationRequestText,
	TURN_PREFIX_PROMPT,
	TURN_PREFIX_UPDATE_PROMPT,
	withCustomInstructions,
} from "./prompts.js";
import { addUsage, type SummaryText } from "./request.js";
import { messagesToSummarize, serializeConversation } from "./serialize.js";
import type {
	CompactionPreparation,
	CompactionResult,
	SummarizationRetryOptions,
	SummarizerOptions,
	SummaryPart,
} from "./types.js";

/** Options of {@link generateSummary}. */
export interface GenerateSummaryOptions extends SummarizerOptions {
	/** The answer may use up to 80% of these tokens. */
	reserveTokens: number;
	/** Extra focus for the summary ("Additional focus: …"). */
	customInstructions?: string;
	/** The previous compaction's summary: switches to update mode (an empty one does not). */
	previousSummary?: string;
}

/**
 * Asks the model for the structured checkpoint summary of `history` (Goal / Constraints &
 * Preferences / Progress (Done, In Progress, Blocked) / Key Decisions / Next Steps / Critical
 * Context). The request has the summarization system prompt, one user message with the serialized
 * conversation in `<conversation>` tags (plus `<previous-summary>` in update mode), and no tools.
 * A Claude model is not sent the history's thinking ({@link messagesToSummarize}).
 *
 * When that request would not fit `model.contextWindow` (chars/4 estimate plus the answer budget),
 * the span is summarized in several requests that each fit, split at message boundaries and each
 * updating the summary of the ones before (a single message too large on its own is cut); pi sends
 * the one request and fails. A request the provider rejects as too long although the estimate
 * said it fits (dense text) is split again with half its size, down to a minimum.
 *
 * Throws `SettleError("PROVIDER", "Summarization failed: <provider text>")` on a provider error, an
 * empty answer or one cut at its token cap (pi 0.73.1 returns the cut text: pi#7048),
 * `SettleError("ABORTED")` on abort.
 *
 * @example
 * ```ts
 * const { text } = await generateSummary(messages, { model, streamFn: faux.streamFn, reserveTokens: 16384, signal });
 * ```
 */
export function generateSummary(
	history: readonly AgentMessage[],
	summaryOptions: GenerateSummaryOptions,
): Promise<SummaryText> {
	const messages = messagesToSummarize(history, summaryOptions.model);
	// An empty previous summary carries nothing to merge: a first compaction's request (as pi).
	const options =
		summaryOptions.previousSummary === "" ? { ...summaryOptions, previousSummary: undefined } : summaryOptions;
	const firstInstructions = withCustomInstructions(CHECKPOINT_PROMPT, options.customInstructions);
	const updateInstructions = withCustomInstructions(CHECKPOINT_UPDATE_PROMPT, options.customInstructions);
	const instructions = options.previousSummary !== undefined ? updateInstructions : firstInstructions;
	const prompt = summarizationRequestText(serializeConversation(messages), instructions, options.previousSummary);
	const maxTokens = summaryMaxTokens(options.model, options.reserveTokens, 0.8);
	const failurePrefix = "Summarization failed";
	// pi's one request where it fits; in chunks where it does not (pi sends it and fails) or where the
	// provider rejects it as too long.
	return summarizeSpan(messages, prompt, {
		...options,
		firstInstructions,
		updateInstructions,
		maxTokens,
		failurePrefix,
	});
}

/**
 * Summarizes the beginning of a split turn (Original Request / Early Progress / Context for
 * Suffix) with half the reserve as budget; a prefix too large for one request is summarized in
 * chunks as in {@link generateSummary}. `customInstructions` are appended as in
 * {@link generateSummary} (pi 0.73.1 leaves them out of this request). Errors as {@link generateSummary}, prefixed
 * `Turn prefix summarization failed`.
 *
 * @example
 * ```ts
 * declare const turnPrefixMessages: AgentMessage[]; // the start of the turn the cut splits
 * const history = await generateSummary(messages, { model, streamFn: faux.streamFn, reserveTokens: 16384, signal });
 * const prefix = await generateTurnPrefixSummary(turnPrefixMessages, { model, streamFn: faux.streamFn, reserveTokens: 16384, signal });
 * const summary = joinSplitTurnSummary(history.text, prefix.text);
 * ```
 */
export function generateTurnPrefixSummary(
	turnPrefix: readonly AgentMessage[],
	options: SummarizerOptions & { reserveTokens: number; customInstructions?: string },
): Promise<SummaryText> {
	const messages = messagesToSummarize(turnPrefix, options.model);
	// `/compact <focus>` steers this request too (pi#9348: pi 0.73.1 sends the prefix without it, so
	// a split turn with no history before it loses the focus altogether).
	const firstInstructions = withCustomInstructions(TURN_PREFIX_PROMPT, options.customInstructions);
	const updateInstructions = withCustomInstructions(TURN_PREFIX_UPDATE_PROMPT, options.customInstructions);
	const prompt = summarizationRequestText(serializeConversation(messages), firstInstructions);
	const maxTokens = summaryMaxTokens(options.model, options.reserveTokens, 0.5);
	const failurePrefix = "Turn prefix summarization failed";
	return summarizeSpan(messages, prompt, {
		...options,
		firstInstructions,
		updateInstructions,
		maxTokens,
		failurePrefix,
	});
}

/**
 * A summary request's output cap: `share` of the reserve, the reserve capped at half the window so
 * the answer fits a small window (pi#8651), and never over the model's own output cap: a 1M window
 * with a matching reserve asked for 250000 of a model that answers at most 128000, refused (pi#4390).
 */
function summaryMaxTokens(model: Model, reserveTokens: number, share: number): number {
	const fromReserve = Math.floor(share * effectiveReserveTokens(model.contextWindow, reserveTokens));
	return model.maxTokens > 0 ? Math.min(fromReserve, model.maxTokens) : fromReserve;
}

/** Options of {@link compact}: the summarizer's model and stream function, and extra focus for the summary. */
export interface CompactRequestOptions extends SummarizerOptions {
	customInstructions?: string;
}

/**
 * Runs the default summarizer on a preparation and returns the compaction entry's fields.
 *
 * The summary is the checkpoint summary (update mode when the preparation has a previous summary);
 * for a split turn, the history and turn-prefix summaries are requested in parallel and joined
 * after `---` under `**Turn Context (split turn):**`; the `<read-files>` / `<modified-files>` lists
 * are appended. `details` = `{readFiles, modifiedFiles}`, `usage` = the summed request usage.
 *
 * Throws (nothing is written by this function): `SettleError("PROVIDER", …)` with the provider
 * text when a request fails (the other request is aborted), `SettleError("ABORTED")` when `signal`
 * aborts.
 *
 * @example
 * ```ts
 * const preparation = prepareCompaction(sessionManager.getBranch(), settingsManager.getCompactionSettings());
 * if (preparation) {
 *   const result = await compact(preparation, { model, streamFn: faux.streamFn, signal });
 *   sessionManager.appendCompaction(result.summary, result.firstKeptEntryId, result.tokensBefore, result.details);
 * }
 * ```
 */
export async function compact(
	preparation: CompactionPreparation,
	options: CompactRequestOptions,
): Promise<CompactionResult<FileOperationDetails>> {
	const { reserveTokens } = preparation.settings;
	// The previous file lists are in `fileOps` already: its prose alone is merged (pi#9945).
	const previousSummary =
		preparation.previousSummary === undefined ? undefined : withoutFileLists(preparation.previousSummary);
	const summaryOptions: GenerateSummaryOptions = {
		...options,
		reserveTokens,
		...(previousSummary !== undefined ? { previousSummary } : {}),
	};

	let summary: string;
	let usage: Usage;
	if (preparation.isSplitTurn && preparation.turnPrefixMessages.length > 0) {
		const [history, prefix] = await allOrAbort(options.signal, (signal) => [
			preparation.messagesToSummarize.length > 0
				? generateSummary(preparation.messagesToSummarize, {
						...summaryOptions,
						signal,
						...retryOfPart(options.retry, "history"),
					})
				: Promise.resolve(undefined),
			generateTurnPrefixSummary(preparation.turnPrefixMessages, {
				...options,
				reserveTokens,
				signal,
				...retryOfPart(options.retry, "turnPrefix"),
			}),
		]);
		summary = joinSplitTurnSummary(history?.text ?? (previousSummary || NO_PRIOR_HISTORY), prefix.text);
		usage = history ? addUsage(history.usage, prefix.usage) : prefix.usage;
	} else {
		const history = await generateSummary(preparation.messagesToSummarize, summaryOptions);
		summary = history.text;
		usage = history.usage;
	}
	if (options.signal?.aborted) throw new SettleError("ABORTED", "Summarization aborted");

	const details = computeFileLists(preparation.fileOps);
	return {
		summary: summary + formatFileOperations(details),
		firstKeptEntryId: preparation.firstKeptEntryId,
		tokensBefore: preparation.tokensBefore,
		details,
		usage,
	};
}

/** The retry options of one of a split turn's two requests: their reports say which (`part`). */
function retryOfPart(
	retry: SummarizationRetryOptions | undefined,
	part: SummaryPart,
): { retry?: SummarizationRetryOptions } {
	if (!retry) return {};
	const { onRetryScheduled, onRetryAttemptStart, onRetryFinished } = retry;
	return {
		retry: {
			...retry,
			...(onRetryScheduled && {
				onRetryScheduled: (attempt, maxAttempts, delayMs, errorMessage) =>
					onRetryScheduled(attempt, maxAttempts, delayMs, errorMessage, part),
			}),
			...(onRetryAttemptStart && { onRetryAttemptStart: () => onRetryAttemptStart(part) }),
			...(onRetryFinished && {
				onRetryFinished: (success, attempt, errorMessage) => onRetryFinished(success, attempt, errorMessage, part),
			}),
		},
	};
}

/**
 * Runs two requests on a signal of their own (linked to `outer`); the first failure aborts the
 * other, so a failed compaction never leaves a request running.
 */
async function allOrAbort<A, B>(
	outer: AbortSignal | undefined,
	start: (signal: AbortSignal) => [Promise<A>, Promise<B>],
): Promise<[A, B]> {
	const controller = new AbortController();
	const forward = () => controller.abort(outer?.reason);
	if (outer?.aborted) controller.abort(outer.reason);
	outer?.addEventListener("abort", forward, { once: true });
	const abortOnFailure = <T>(promise: Promise<T>) =>
		promise.catch((error: unknown) => {
			controller.abort(error);
			throw error;
		});
	try {
		const [a, b] = start(controller.signal);
		return await Promise.all([abortOnFailure(a), abortOnFailure(b)]);
	} finally {
		outer?.removeEventListener("abort", forward);
	}
}
