/**
 * Types shared by compaction and branch summarization.
 */
import type { RetrySettings } from "../../machines/prompt-operation.machine.js";
import type { AgentMessage, Model, StreamFn, StreamOptions, ThinkingLevel, Usage } from "../llm/types.js";
import type { FileOperationDetails, SessionEntry } from "../store/entries.js";

/** Settings `compaction.*`. */
export interface CompactionSettings {
	enabled: boolean;
	/** Tokens kept free below the context window; compaction is due above `contextWindow − reserveTokens`. */
	reserveTokens: number;
	/** Recent tokens kept verbatim after a compaction. */
	keepRecentTokens: number;
}

/** Compaction settings used when the settings files say nothing (pi's defaults). */
export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
	enabled: true,
	reserveTokens: 16_384,
	keepRecentTokens: 20_000,
});

/**
 * Files touched by tool calls (pi-compatible shape, so pi extensions that read
 * `preparation.fileOps` keep working). {@link computeFileLists} turns it into the recorded lists.
 */
export interface FileOperations {
	read: Set<string>;
	written: Set<string>;
	edited: Set<string>;
}

/** Read-only view of a session tree; `SessionManager` satisfies it. */
export interface SessionTreeReader {
	getEntry(id: string): SessionEntry | undefined;
	/** Path from the root to `fromId` (inclusive), root first. */
	getBranch(fromId?: string): SessionEntry[];
}

/** Everything the summarizer needs, computed from the branch without calling a model. */
export interface CompactionPreparation {
	/** First entry kept verbatim after the compaction. */
	firstKeptEntryId: string;
	/** Messages before the kept span (or before the split turn) to fold into the summary. */
	messagesToSummarize: AgentMessage[];
	/** When the cut splits a turn: the turn's messages before the cut (summarized separately). */
	turnPrefixMessages: AgentMessage[];
	isSplitTurn: boolean;
	/** Estimated context tokens before compacting. */
	tokensBefore: number;
	/** Summary of the previous compaction on the branch (update mode). */
	previousSummary?: string;
	fileOps: FileOperations;
	settings: CompactionSettings;
}

/** What a compaction writes (the fields of a `compaction` entry). */
export interface CompactionResult<TDetails = FileOperationDetails> {
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	details: TDetails;
	/** Usage of the summarization request(s); absent when no model was called. */
	usage?: Usage;
	/**
	 * Estimated tokens of the context right after the compaction (chars/4 of the rebuilt context).
	 * Set by the session on the result it reports (`compaction_end`, `compact()`); not stored.
	 */
	estimatedTokensAfter?: number;
}

/** How the default summarizers reach a model. */
export interface SummarizerOptions {
	model: Model;
	streamFn: StreamFn;
	apiKey?: string;
	headers?: Record<string, string>;
	/**
	 * Sees each summarization request's provider payload and may replace it, as `onPayload` does for
	 * a turn. The session passes its `before_provider_request` handlers here (pi#8999), so an
	 * extension that rewrites requests reaches compaction and branch summaries too.
	 *
	 * @example
	 * ```ts
	 * declare const runner: ExtensionRunner;
	 * const options: SummarizerOptions = {
	 *   model,
	 *   streamFn: faux.streamFn,
	 *   onPayload: (payload, model) => runner.emitBeforeProviderRequest(payload, { model }),
	 * };
	 * ```
	 */
	onPayload?: StreamOptions["onPayload"];
	signal?: AbortSignal;
	/** Reasoning level for reasoning models (`off` or absent: none). */
	thinkingLevel?: ThinkingLevel;
	/** Retry transient failures of each summarization request (absent: one attempt, as before). */
	retry?: SummarizationRetryOptions;
	/** Take an answer without text as an empty summary instead of failing (pi's functions do; see pi-compat). */
	acceptEmptyAnswer?: boolean;
	/**
	 * Sees the usage of every summarization answer as it arrives (not of error answers), also of
	 * one that is then rejected (cut at its cap, empty, aborted): each was billed. The session
	 * records them when the compaction fails, so its totals keep what the failure cost (mindroom#2151).
	 */
	onAnswerUsage?: (usage: Usage) => void;
}

/**
 * Which request of a split-turn compaction a summarization retry belongs to: the history summary
 * and the turn-prefix summary run at the same time, each with its own retries.
 */
export type SummaryPart = "history" | "turnPrefix";

/**
 * How a summarization request retries (pi 1.6 `retryAssistantCall`): an answer with
 * `stopReason: "error"` whose text is transient (`isRetryableError`) is retried up to
 * `settings.maxRetries` times (none when `settings.enabled` is false) after the turn retries'
 * delay (`planRetry`: `baseDelayMs · 2^(attempt−1)` capped, at least the wait the provider asked
 * for and the previous delay; a requested wait past `maxAgentDelayMs` is not retried) — the same
 * settings as turn retries. Non-retryable errors, thrown stream functions and aborts are never retried.
 *
 * Callbacks, in order per retry: `onRetryScheduled` before the backoff, `onRetryAttemptStart` after
 * it (before the retried request), and once at the end of a request that was retried at least once
 * `onRetryFinished` (success, exhausted, non-retryable error, or aborted — also during the backoff).
 *
 * @example
 * ```ts
 * const { text } = await generateSummary(messages, {
 *   model,
 *   streamFn: faux.streamFn,
 *   reserveTokens: 16384,
 *   signal,
 *   retry: {
 *     settings: settingsManager.getRetrySettings(),
 *     onRetryScheduled: (attempt, max, delayMs, error) => console.log(`retry ${attempt}/${max} in ${delayMs} ms: ${error}`),
 *   },
 * });
 * ```
 */
export interface SummarizationRetryOptions {
	settings: RetrySettings;
	/** Waits `ms`; must reject promptly when `signal` aborts. Default: `setTimeout`. */
	sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
	/** `part`: set for the two requests of a split-turn compaction ({@link SummaryPart}). */
	onRetryScheduled?: (
		attempt: number,
		maxAttempts: number,
		delayMs: number,
		errorMessage: string,
		part?: SummaryPart,
	) => void;
	onRetryAttemptStart?: (part?: SummaryPart) => void;
	onRetryFinished?: (success: boolean, attempt: number, errorMessage?: string, part?: SummaryPart) => void;
}
