/**
 * The token side of the post-run compaction check, as pure functions.
 */
import { calculateContextTokens, estimateContextTokens } from "../llm/tokens.js";
import type { AgentMessage, AssistantMessage } from "../llm/types.js";
import type { SessionEntry } from "../store/entries.js";

/**
 * Timestamp (ms) of the latest `compaction` entry on the branch, or `undefined`. Walks back from
 * the leaf and stops at the first compaction.
 *
 * @example
 * ```ts
 * const latestCompactionAt = latestCompactionTime(sessionManager.getBranch());
 * ```
 */
export function latestCompactionTime(branchEntries: readonly SessionEntry[]): number | undefined {
	for (let i = branchEntries.length - 1; i >= 0; i--) {
		const entry = branchEntries[i]!;
		if (entry.type === "compaction") return Date.parse(entry.timestamp);
	}
	return undefined;
}

/**
 * Whether a response predates the latest compaction (its usage describes the context before it):
 * such a response must trigger neither overflow nor threshold compaction. `latestCompactionAt`
 * is the compaction entry's time in epoch ms; false when there was none.
 *
 * @example
 * ```ts
 * declare const response: AssistantMessage; // the response that just ended
 * const latestCompactionAt = latestCompactionTime(sessionManager.getBranch());
 * if (!isBeforeCompaction(response, latestCompactionAt)) console.log("usage is current: check the threshold");
 * ```
 */
export function isBeforeCompaction(message: AssistantMessage, latestCompactionAt: number | undefined): boolean {
	return latestCompactionAt !== undefined && message.timestamp <= latestCompactionAt;
}

/** Input of {@link contextTokensForThreshold}. */
export interface ThresholdTokensInput {
	/** The response that just ended. */
	message: AssistantMessage;
	/** The context as the next request would see it (the projection, after context edits). */
	messages: readonly AgentMessage[];
	/** From {@link latestCompactionTime}. */
	latestCompactionAt?: number;
	/** The branch has context edits: the response's usage no longer describes the context. */
	hasContextEdits?: boolean;
	/**
	 * Whether a response predates the latest compaction. Default: its timestamp is at or before
	 * `latestCompactionAt` ({@link isBeforeCompaction}). A live session passes an exact test (the
	 * messages the compaction kept), which timestamps within one millisecond cannot give.
	 */
	isStale?: (message: AssistantMessage) => boolean;
	/**
	 * With context edits: whether a response's usage still describes the context (see
	 * `usageStillCurrent`); a rejected one is estimated instead. Default: every usage is current.
	 */
	isUsageCurrent?: (message: AssistantMessage) => boolean;
}

/**
 * Context tokens to compare with the threshold after a response, or `undefined` when
 * no threshold compaction may run:
 * - the response predates the latest compaction (`isStale`) → `undefined`;
 * - context edits exist, the response is an error, or it reported no usage → the estimate of
 *   `messages` ({@link estimateContextTokens}); `undefined` when the usage it rests on is from a
 *   response at or before the latest compaction (stale);
 * - otherwise the response's own usage tokens.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * declare const message: AssistantMessage; // the response that just ended
 * const tokens = contextTokensForThreshold({ message, messages: agent.state.messages });
 * if (tokens !== undefined && shouldCompact(tokens, model.contextWindow, settingsManager.getCompactionSettings())) {
 *   console.log("compact before the next request");
 * }
 * ```
 */
export function contextTokensForThreshold(input: ThresholdTokensInput): number | undefined {
	const { message, messages, latestCompactionAt } = input;
	const isStale = input.isStale ?? ((response: AssistantMessage) => isBeforeCompaction(response, latestCompactionAt));
	if (isStale(message)) return undefined;
	const usageTokens = message.usage ? calculateContextTokens(message.usage) : 0;
	if (!input.hasContextEdits && message.stopReason !== "error" && usageTokens > 0) return usageTokens;
	const estimate = estimateContextTokens(messages, input.isUsageCurrent);
	if (estimate.lastUsageIndex !== null) {
		const source = messages[estimate.lastUsageIndex] as AssistantMessage;
		if (isStale(source)) return undefined;
	}
	return estimate.tokens;
}
