/**
 * Auto-retry policy (behavior C.4, discrepancy I.6): whether to retry a transient failure and how
 * long to back off first. Pure: the session's `retrying` state owns the timer and the attempt count.
 */
import { SettleError } from "../errors.js";

/** Settings `retry.*`. */
export interface RetrySettings {
	/** Retry transient provider failures automatically. */
	enabled: boolean;
	/** Retries per failing request (not counting the original attempt). */
	maxRetries: number;
	/** Delay before the first retry; doubles for each further retry. */
	baseDelayMs: number;
	/**
	 * Longest wait the agent accepts: computed delays are capped here, and a provider asking for a
	 * longer wait ends the operation with the error instead. `0` (or less) means no cap.
	 */
	maxAgentDelayMs: number;
}

export const DEFAULT_RETRY_SETTINGS: Readonly<RetrySettings> = Object.freeze({
	enabled: true,
	maxRetries: 3,
	baseDelayMs: 2000,
	maxAgentDelayMs: 60_000,
});

/** `auto_retry_end.finalError` when the backoff is aborted (`abort()` / `abortRetry()`). */
export const RETRY_CANCELLED = "Retry cancelled";

/** Adjusts a computed backoff delay (e.g. ±10% jitter). The result is still capped. */
export type RetryJitter = (delayMs: number, attempt: number) => number;

export interface PlanRetryOptions {
	/** The wait the provider asked for (see `parseRequestedRetryDelayMs`). */
	requestedDelayMs?: number;
	/** Jitter applied to the computed backoff before the cap; default none (deterministic). */
	jitter?: RetryJitter;
}

export type RetryGiveUpReason = "disabled" | "exhausted" | "requested_delay_exceeds_cap";

/** What to do about a retryable failure. */
export type RetryPlan =
	| {
			kind: "retry";
			/** The 1-based retry number this plan is for. */
			attempt: number;
			/** How long to wait before `continue()`. */
			delayMs: number;
			/** The capped exponential backoff alone (before honouring a requested delay). */
			backoffDelayMs: number;
			requestedDelayMs?: number;
	  }
	| {
			kind: "give_up";
			reason: RetryGiveUpReason;
			attempt: number;
			maxRetries: number;
			requestedDelayMs?: number;
			maxAgentDelayMs: number;
	  };

/**
 * The exponential backoff for a retry: `baseDelayMs · 2^(attempt−1)`, jittered if asked, capped at
 * `maxAgentDelayMs` (when positive). Never negative.
 *
 * @example
 * ```ts
 * backoffDelayMs(DEFAULT_RETRY_SETTINGS, 3); // 8000
 * ```
 */
export function backoffDelayMs(settings: RetrySettings, attempt: number, jitter?: RetryJitter): number {
	assertAttempt(attempt);
	const exponential = Math.max(0, settings.baseDelayMs) * 2 ** (attempt - 1);
	const jittered = jitter ? jitter(exponential, attempt) : exponential;
	const capped = settings.maxAgentDelayMs > 0 ? Math.min(jittered, settings.maxAgentDelayMs) : jittered;
	return Math.max(0, Math.round(capped));
}

/**
 * Decides whether retry number `attempt` (1-based: the retry about to be made) happens and after
 * what delay. In order: disabled → give up (`disabled`); `attempt > maxRetries` → give up
 * (`exhausted`); a provider-requested delay above `maxAgentDelayMs` → give up
 * (`requested_delay_exceeds_cap`: waiting that long silently is worse than reporting the error);
 * otherwise retry after `max(backoff, requestedDelayMs)`.
 *
 * Honouring the requested delay as a lower bound is a deliberate change from pi 0.73, which ignores
 * it at the agent level (its provider layer waits for Retry-After itself and reports over-cap waits
 * as `Server requested …s retry delay`, which pi then retries after the plain backoff — too early).
 * A delay the provider asked for is never cut short, and the result never exceeds the cap.
 *
 * Throws `SettleError("INVALID_ARGUMENT")` when `attempt` is not an integer ≥ 1.
 *
 * @example
 * ```ts
 * const plan = planRetry(DEFAULT_RETRY_SETTINGS, retryAttempt + 1, {
 *   requestedDelayMs: parseRequestedRetryDelayMs(message.errorMessage),
 * });
 * if (plan.kind === "retry") wait(plan.delayMs);
 * ```
 */
export function planRetry(settings: RetrySettings, attempt: number, options: PlanRetryOptions = {}): RetryPlan {
	assertAttempt(attempt);
	const { requestedDelayMs } = options;
	const giveUp = (reason: RetryGiveUpReason): RetryPlan => ({
		kind: "give_up",
		reason,
		attempt,
		maxRetries: settings.maxRetries,
		...(requestedDelayMs === undefined ? {} : { requestedDelayMs }),
		maxAgentDelayMs: settings.maxAgentDelayMs,
	});
	if (!settings.enabled) return giveUp("disabled");
	if (attempt > settings.maxRetries) return giveUp("exhausted");
	const requested = requestedDelayMs !== undefined && Number.isFinite(requestedDelayMs) ? requestedDelayMs : undefined;
	if (requested !== undefined && settings.maxAgentDelayMs > 0 && requested > settings.maxAgentDelayMs) {
		return giveUp("requested_delay_exceeds_cap");
	}
	const backoff = backoffDelayMs(settings, attempt, options.jitter);
	return {
		kind: "retry",
		attempt,
		delayMs: Math.max(backoff, Math.ceil(Math.max(0, requested ?? 0))),
		backoffDelayMs: backoff,
		...(requested === undefined ? {} : { requestedDelayMs: requested }),
	};
}

/**
 * Proportional jitter: multiplies the delay by a factor in `[1 − ratio, 1 + ratio)` (newest pi-ai
 * uses ±10%). `random` is injectable for tests.
 *
 * @example
 * ```ts
 * planRetry(settings, 1, { jitter: proportionalJitter(0.1) });
 * ```
 */
export function proportionalJitter(ratio = 0.1, random: () => number = Math.random): RetryJitter {
	return (delayMs) => delayMs * (1 - ratio + random() * 2 * ratio);
}

function assertAttempt(attempt: number): void {
	if (!Number.isInteger(attempt) || attempt < 1) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Retry attempt must be an integer >= 1 (the retry about to be made), got ${String(attempt)}`,
		);
	}
}
