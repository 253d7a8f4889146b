/**
 * Retries inside compaction and branch-summary model calls (pi 1.6 `_summarizationRetryCallbacks`):
 * the summarizer's retry loop uses the session's `settings.retry` (the same budget and backoff as
 * turn retries, read when the summary starts), sleeps on the session's clock (XState's
 * `SimulatedClock` in tests) and reports each retry to public listeners as
 * `summarization_retry_scheduled` → `summarization_retry_attempt_start` → … →
 * `summarization_retry_finished`. The backoff ends at once when the compaction or branch summary is
 * aborted; the operation then ends as aborted, as without a retry.
 */
import type { SummarizationRetryOptions } from "../compaction/types.js";
import { SettleError } from "../errors.js";
import type { CompactionReason } from "../extensions/types.js";
import type { SessionInternals } from "./internals.js";

/** What a summarization retry belongs to (`summarization_retry_attempt_start` carries it). */
export type SummarizationRetrySource = { source: "compaction"; reason: CompactionReason } | { source: "branchSummary" };

/** The summarizer's retry options for one compaction or branch summary of this session. */
export function summarizationRetry(s: SessionInternals, source: SummarizationRetrySource): SummarizationRetryOptions {
	return {
		settings: s.settingsManager.getRetrySettings(),
		sleep: s.sleep,
		onRetryScheduled: (attempt, maxAttempts, delayMs, errorMessage) =>
			s.events.emit({ type: "summarization_retry_scheduled", attempt, maxAttempts, delayMs, errorMessage }),
		onRetryAttemptStart: () => s.events.emit({ type: "summarization_retry_attempt_start", ...source }),
		onRetryFinished: () => s.events.emit({ type: "summarization_retry_finished" }),
	};
}

/** The timer source of {@link sleepOn}: XState's clock interface (`SessionClock`). */
export interface SleepClock {
	setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
	clearTimeout(id: unknown): void;
}

const REAL_TIMERS: SleepClock = {
	setTimeout: (fn, timeout) => setTimeout(fn, timeout),
	clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/**
 * Waits `ms` on `clock` (the real timers when absent); rejects with `SettleError("ABORTED")` as
 * soon as `signal` aborts, clearing the timer, so an abort never waits out a backoff.
 */
export function sleepOn(clock: SleepClock | undefined, ms: number, signal: AbortSignal | undefined): Promise<void> {
	const timers: SleepClock = clock ?? REAL_TIMERS;
	return new Promise((resolve, reject) => {
		const aborted = () => new SettleError("ABORTED", "Summarization aborted");
		if (signal?.aborted) return reject(aborted());
		const onAbort = () => {
			timers.clearTimeout(id);
			reject(aborted());
		};
		const id = timers.setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}
