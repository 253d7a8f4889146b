/**
 * Retries inside compaction and branch-summary model calls (pi 1.6 `_summarizationRetryCallbacks`):
 * the summarizer's retry loop uses the session's `settings.retry` (the same budget and backoff as
 * turn retries, read when the summary starts), sleeps on the session's clock (XState's
 * `SimulatedClock` in tests) and reports each retry to the prompt-operation machine, which
 * announces it (inspection, traces) and the session forwards to public listeners as
 * `summarization_retry_scheduled` → `summarization_retry_attempt_start` → … →
 * `summarization_retry_finished`. The backoff ends at once when the compaction or branch summary is
 * aborted; the operation then ends as aborted, as without a retry.
 */
import type { PromptOperationEmitted, SummarizationRetryReport } from "../../machines/prompt-operation.machine.js";
import type { SummarizationRetryOptions, SummaryPart } from "../compaction/types.js";
import { SettleError } from "../errors.js";
import type { CompactionReason } from "../extensions/types.js";
import type { AgentSessionEvent } from "./events.js";
import type { SessionInternals } from "./internals.js";

/** The machine's emits that echo a {@link SummarizationRetryReport}. */
export type SummarizationRetryEmit = Extract<PromptOperationEmitted, { type: `summarization_retry_${string}` }>;

/** What a summarization retry belongs to (`summarization_retry_attempt_start` carries it). */
export type SummarizationRetrySource = { source: "compaction"; reason: CompactionReason } | { source: "branchSummary" };

/**
 * The summarizer's retry options for one compaction or branch summary of this session. Each report
 * goes to the prompt-operation machine, which announces it (`summarization_retry_*` emits: in
 * `session.inspect()` / traces, and forwarded by the session to public listeners), so the retries
 * show in the lifecycle where they happen — inside `compacting`, `branchSummary` or `preflight`.
 */
export function summarizationRetry(s: SessionInternals, source: SummarizationRetrySource): SummarizationRetryOptions {
	return {
		settings: s.settingsManager.getRetrySettings(),
		sleep: s.sleep,
		onRetryScheduled: (attempt, maxAttempts, delayMs, errorMessage, part) =>
			report(s, {
				type: "SUMMARIZATION_RETRY_SCHEDULED",
				attempt,
				maxAttempts,
				delayMs,
				errorMessage,
				...partField(part),
			}),
		onRetryAttemptStart: (part) =>
			report(s, { type: "SUMMARIZATION_RETRY_ATTEMPT_START", ...source, ...partField(part) }),
		onRetryFinished: (success, attempt, errorText, part) =>
			report(s, {
				type: "SUMMARIZATION_RETRY_FINISHED",
				success,
				attempt,
				...(errorText !== undefined ? { finalError: errorText } : {}),
				...partField(part),
			}),
	};
}

/** `{ part }` when the request is one of a split turn's two, else nothing (pi's payloads). */
function partField(part: SummaryPart | undefined): { part?: SummaryPart } {
	return part !== undefined ? { part } : {};
}

/**
 * Sends a report to the machine. A machine no longer running (the session was disposed while the
 * summarizer unwound) cannot announce it: the public event goes out directly, as the machine's
 * would have been forwarded.
 */
function report(s: SessionInternals, event: SummarizationRetryReport): void {
	if (s.snapshot().status === "active") {
		s.send(event);
		return;
	}
	s.events.emit(publicSummarizationRetryEvent(event));
}

/** The public event of a report (or of the machine's emit that echoes it): pi's payloads, `finished` has none. */
export function publicSummarizationRetryEvent(
	event: SummarizationRetryReport | SummarizationRetryEmit,
): Extract<AgentSessionEvent, { type: `summarization_retry_${string}` }> {
	switch (event.type) {
		case "SUMMARIZATION_RETRY_SCHEDULED":
		case "summarization_retry_scheduled": {
			const { attempt, maxAttempts, delayMs, errorMessage } = event;
			return {
				type: "summarization_retry_scheduled",
				attempt,
				maxAttempts,
				delayMs,
				errorMessage,
				...partField(event.part),
			};
		}
		case "SUMMARIZATION_RETRY_ATTEMPT_START":
		case "summarization_retry_attempt_start":
			return event.source === "compaction"
				? {
						type: "summarization_retry_attempt_start",
						source: "compaction",
						reason: event.reason,
						...partField(event.part),
					}
				: { type: "summarization_retry_attempt_start", source: "branchSummary" };
		default:
			return { type: "summarization_retry_finished", ...partField(event.part) };
	}
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
