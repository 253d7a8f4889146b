/**
 * What a finished run means for the post-run decision (behavior C.3–C.5): one classifier shared
 * by the `run` actor (the machine's {@link RunOutcome}) and the bridge (`agent_end.willRetry`).
 * Costs O(1) per run for a normal answer (the threshold uses the response's own usage).
 */
import {
	type PlanRetryOptions,
	planRetry,
	type RunErrorClass,
	type RunOutcome,
} from "../../machines/prompt-operation.machine.js";
import { contextTokensForThreshold, isBeforeCompaction } from "../compaction/threshold.js";
import { classifyAssistantError, parseRequestedRetryDelayMs } from "../llm/errors.js";
import { shouldCompact } from "../llm/tokens.js";
import type { AgentMessage, AssistantMessage } from "../llm/types.js";
import type { SessionInternals } from "./internals.js";

/**
 * How a response should be recovered from: retry, compact (`overflow` / `length_overflow`), or
 * nothing. Overflow needs compaction enabled, the current model (C.5 step 3), and a response newer
 * than the latest compaction (step 4); otherwise an overflow error is `fatal` and an over-window
 * answer is `none`. `fresh`: the response ended in a run that started after any compaction (a
 * post-run check), so it is newer by construction — timestamps within the same millisecond
 * would otherwise make it look stale.
 */
export function recoveryClass(s: SessionInternals, message: AssistantMessage, fresh = false): RunErrorClass {
	const model = s.model();
	if (!model) return message.stopReason === "error" ? "fatal" : "none";
	const errorClass = classifyAssistantError(message, model);
	if (errorClass !== "overflow" && errorClass !== "length_overflow") return errorClass;
	const recoverable =
		s.settingsManager.getCompactionEnabled() &&
		(fresh || !isBeforeCompaction(message, s.transcript.latestCompactionAt));
	if (recoverable) return errorClass;
	return message.stopReason === "error" ? "fatal" : "none";
}

/** C.5 step 6: the context after `message` is over the compaction threshold (`fresh` as in {@link recoveryClass}). */
export function isOverThreshold(s: SessionInternals, message: AssistantMessage, fresh = false): boolean {
	const settings = s.settingsManager.getCompactionSettings();
	const model = s.model();
	if (!settings.enabled || !model || model.contextWindow <= 0) return false;
	let latestCompactionAt = s.transcript.latestCompactionAt;
	// A fresh response is never stale itself; older usage it falls back to still can be.
	if (fresh && latestCompactionAt !== undefined && message.timestamp <= latestCompactionAt) {
		latestCompactionAt = message.timestamp - 1;
	}
	const tokens = contextTokensForThreshold({
		message,
		messages: s.agent.state.messages,
		latestCompactionAt,
		hasContextEdits: s.transcript.hasContextEdits,
	});
	return tokens !== undefined && shouldCompact(tokens, model.contextWindow, settings);
}

/** The machine's view of the run that just ended (computed from the last assistant message). */
export function runOutcome(s: SessionInternals): RunOutcome {
	const message = s.scratch.lastAssistant;
	const hasQueuedMessages = s.agent.hasQueuedMessages();
	const beforeSettleBoundary = s.runner().hasHandlers("agent_before_settle");
	if (!message) {
		return {
			stopReason: undefined,
			errorClass: "none",
			overThreshold: false,
			hasQueuedMessages,
			aborted: false,
			beforeSettleBoundary,
		};
	}
	const errorClass = recoveryClass(s, message, true);
	const aborted = message.stopReason === "aborted";
	const outcome: RunOutcome = {
		stopReason: message.stopReason,
		errorClass,
		// Overflow recovery comes first; an aborted response never compacts here (C.3 step 6). A retryable
		// error is checked too: when it is not retried the threshold still applies (C.3 steps 5–6).
		overThreshold:
			!aborted && errorClass !== "overflow" && errorClass !== "length_overflow" && isOverThreshold(s, message, true),
		hasQueuedMessages,
		aborted,
		beforeSettleBoundary,
	};
	if (message.errorMessage !== undefined) outcome.errorMessage = message.errorMessage;
	const requestedDelayMs = errorClass === "retryable" ? parseRequestedRetryDelayMs(message.errorMessage) : undefined;
	if (requestedDelayMs !== undefined) outcome.requestedDelayMs = requestedDelayMs;
	return outcome;
}

/**
 * `agent_end.willRetry` (B.2): no abort requested, and the machine's retry policy would retry the
 * run's last assistant message (retryable, enabled, attempts left, requested delay within the cap).
 */
export function willRetry(s: SessionInternals, messages: readonly AgentMessage[]): boolean {
	const context = s.snapshot().context;
	if (context.abortRequested) return false;
	const message = lastAssistant(messages) ?? s.scratch.lastAssistant;
	if (message?.stopReason !== "error") return false;
	if (recoveryClass(s, message, true) !== "retryable") return false;
	const options: PlanRetryOptions = {};
	const requested = parseRequestedRetryDelayMs(message.errorMessage);
	if (requested !== undefined) options.requestedDelayMs = requested;
	return planRetry(context.retry, context.retryAttempt + 1, options).kind === "retry";
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index]!;
		if (message.role === "assistant") return message;
	}
	return undefined;
}
