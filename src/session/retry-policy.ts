/**
 * Auto-retry policy . The policy itself lives with the machine that
 * runs it (`machines/prompt-operation.machine.ts`, pure); this module re-exports it for SDK users
 * and adds argument checking with Settle's typed errors. The session's `retrying` state owns the
 * timer and the attempt count.
 */
import {
	backoffDelayMs as machineBackoffDelayMs,
	planRetry as machinePlanRetry,
	type PlanRetryOptions,
	type RetryJitter,
	type RetryPlan,
	type RetrySettings,
} from "../../machines/prompt-operation.machine.js";
import { SettleError } from "../errors.js";

export {
	DEFAULT_RETRY_SETTINGS,
	type PlanRetryOptions,
	proportionalJitter,
	RETRY_CANCELLED_MESSAGE as RETRY_CANCELLED,
	type RetryGiveUpReason,
	type RetryJitter,
	type RetryPlan,
	type RetrySettings,
} from "../../machines/prompt-operation.machine.js";

/**
 * The exponential backoff for a retry: `baseDelayMs · 2^(attempt−1)`, jittered if asked, capped at
 * `maxAgentDelayMs` (when positive). Never negative. Throws `SettleError("INVALID_ARGUMENT")` when
 * `attempt` is not an integer ≥ 1.
 *
 * @example
 * ```ts
 * backoffDelayMs(DEFAULT_RETRY_SETTINGS, 3); // 8000
 * ```
 */
export function backoffDelayMs(settings: RetrySettings, attempt: number, jitter?: RetryJitter): number {
	assertAttempt(attempt);
	return machineBackoffDelayMs(settings, attempt, jitter);
}

/**
 * Decides whether retry number `attempt` (1-based: the retry about to be made) happens and after
 * what delay: disabled → `give_up` (`disabled`); `attempt > maxRetries` → `give_up` (`exhausted`);
 * a provider-requested delay above `maxAgentDelayMs` → `give_up` (`requested_delay_exceeds_cap`);
 * otherwise `retry` after `max(backoff, requestedDelayMs, floorMs)`, never above the cap.
 *
 * Throws `SettleError("INVALID_ARGUMENT")` when `attempt` is not an integer ≥ 1.
 *
 * @example
 * ```ts
 * declare const failed: AssistantMessage; // a retryable error response
 * declare const retryAttempt: number; // retries so far
 * const plan = planRetry(DEFAULT_RETRY_SETTINGS, retryAttempt + 1, {
 *   requestedDelayMs: parseRequestedRetryDelayMs(failed.errorMessage),
 * });
 * if (plan.kind === "retry") await new Promise((resolve) => setTimeout(resolve, plan.delayMs));
 * ```
 */
export function planRetry(settings: RetrySettings, attempt: number, options: PlanRetryOptions = {}): RetryPlan {
	assertAttempt(attempt);
	return machinePlanRetry(settings, attempt, options);
}

function assertAttempt(attempt: number): void {
	if (!Number.isInteger(attempt) || attempt < 1) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Retry attempt must be an integer >= 1 (the retry about to be made), got ${String(attempt)}`,
		);
	}
}
