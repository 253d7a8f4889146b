/**
 * The line the CLI adds to a failed request the session did not retry because the provider asked
 * for a longer wait than `retry.maxAgentDelayMs`: the provider's text alone reads as "it never
 * recovers" (claude-code#81330).
 */

import { isRetryableError, parseRequestedRetryDelayMs } from "../llm/errors.js";
import type { AssistantMessage } from "../llm/types.js";
import type { RetrySettings } from "../session/retry-policy.js";

/**
 * "Not retried: …" naming the wait, the cap and the setting, when `message` is a transient failure
 * whose requested wait is over `retry.maxAgentDelayMs` with retries on; undefined otherwise.
 */
export function retryWaitHint(message: AssistantMessage, settings: RetrySettings): string | undefined {
	if (!isRetryableError(message)) return undefined;
	const { enabled, maxRetries, maxAgentDelayMs } = settings;
	const requested = parseRequestedRetryDelayMs(message.errorMessage);
	if (!enabled || maxRetries < 1 || maxAgentDelayMs <= 0 || requested === undefined || requested <= maxAgentDelayMs) {
		return undefined;
	}
	return `Not retried: the provider asks to wait ${waitText(requested)}, longer than retry.maxAgentDelayMs (${waitText(maxAgentDelayMs)}). Run it again after the wait, or raise retry.maxAgentDelayMs in settings.json to have the session wait.`;
}

/** `3h 6m 20s`, `2m 0s`, `45s`, `1.5s`. */
function waitText(ms: number): string {
	if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
	const seconds = Math.round(ms / 1000);
	const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
	return h > 0 ? `${h}h ${m}m ${s}s` : `${m}m ${s}s`;
}
