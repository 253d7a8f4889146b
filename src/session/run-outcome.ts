/**
 * What a finished run means for the post-run decision: one classifier shared
 * by the `run` actor (the machine's {@link RunOutcome}) and the bridge (`agent_end.willRetry`).
 * Costs O(1) per run for a normal answer (the threshold uses the response's own usage).
 */
import {
	type PlanRetryOptions,
	planRetry,
	type RunErrorClass,
	type RunOutcome,
} from "../../machines/prompt-operation.machine.js";
import { contextTokensForThreshold } from "../compaction/threshold.js";
import { classifyAssistantError, parseRequestedRetryDelayMs } from "../llm/errors.js";
import {
	compactionThresholdTokens,
	effectiveKeepRecentTokens,
	estimateContextTokens,
	estimateMessageTokens,
	shouldCompact,
} from "../llm/tokens.js";
import type { AgentMessage, AssistantMessage, Model } from "../llm/types.js";
import { isVirtualModel } from "../llm/virtual-models.js";
import type { SessionInternals } from "./internals.js";
import { usageStillCurrent } from "./session-stats.js";
import { physicalModel } from "./virtual-routing.js";

/**
 * The model whose limits apply to `message`: the selected one; under a virtual selection, the
 * physical model that produced it (pi 1.6's `_modelForMessage`), else the virtual model itself.
 */
function limitsModelFor(s: SessionInternals, message: AssistantMessage): Model | undefined {
	const model = s.model();
	if (!model || !isVirtualModel(model)) return model;
	return physicalModel(s.modelRuntime, message.provider, message.model) ?? model;
}

/** Per session: the messages the latest compaction kept (they predate it), while it is the live context's. */
const keptByCompaction = new WeakMap<SessionInternals, WeakSet<AgentMessage>>();

/**
 * Call right after a compaction rebuilt the context: the messages in it now (the summary and the
 * kept ones) predate the compaction, whatever their timestamps say. O(context), once per compaction.
 */
export function noteCompactedContext(s: SessionInternals): void {
	keptByCompaction.set(s, new WeakSet(s.agent.state.messages));
}

/** Call when the context was replaced by another branch's (tree navigation): fall back to timestamps. */
export function forgetCompactedContext(s: SessionInternals): void {
	keptByCompaction.delete(s);
}

/**
 * Whether a response predates the latest compaction of the live context: one the
 * compaction kept, or — for a context the session did not compact itself (reopened, navigated) —
 * one whose timestamp is at or before the compaction entry's. `fresh`: it ended in a run that
 * started after any compaction, so it is newer by construction.
 */
function predatesCompaction(s: SessionInternals, message: AgentMessage, fresh: boolean): boolean {
	if (fresh) return false;
	const kept = keptByCompaction.get(s);
	if (kept) return kept.has(message);
	const at = s.transcript.latestCompactionAt;
	return at !== undefined && "timestamp" in message && message.timestamp <= at;
}

/**
 * kimi-code#2325: the latest compaction left the context still over the threshold (the system
 * prompt and tools alone can be), and the tail it kept plus what came since is under two kept tails:
 * another compaction would only summarize the last turn again, a summary request per prompt. The
 * context as the compaction left it is `contextTokens` less the estimate of what came after it.
 * A provider's overflow refusal still compacts (that path does not ask this). pi 0.73.1 compacts again
 * after every answer: DELIBERATE_INEFFECTIVE_COMPACTION_NOT_REPEATED.
 */
function compactionCannotHelp(
	s: SessionInternals,
	contextTokens: number,
	thresholdTokens: number,
	keepRecentTokens: number,
): number | undefined {
	if (s.transcript.latestCompactionAt === undefined) return undefined;
	let growth = 0;
	let kept = 0;
	for (const message of s.agent.state.messages) {
		if (!predatesCompaction(s, message, false)) growth += estimateMessageTokens(message);
		else if (message.role !== "compactionSummary") kept += estimateMessageTokens(message);
	}
	// The tail kept, as well as the growth, counts: a tail kept under a larger keepRecentTokens (a
	// switch to a smaller window, a setting lowered) is what another compaction would summarize.
	if (contextTokens - growth > thresholdTokens && kept + growth < 2 * keepRecentTokens) return contextTokens - growth;
	return undefined;
}

/** Per session: the model and settings the last `compaction_over_threshold` was told for. */
const toldOverThreshold = new WeakMap<SessionInternals, string>();

/**
 * Tells the host once (per session; again when another model or other compaction settings make it
 * true anew) that compaction cannot get the context under the threshold: without it, compaction
 * silently stops helping and the user never learns what to change.
 */
function tellOverThreshold(
	s: SessionInternals,
	model: Model,
	settings: { reserveTokens: number; keepRecentTokens: number },
	contextTokens: number,
	thresholdTokens: number,
): void {
	const key = `${model.provider}/${model.id}:${model.contextWindow}:${settings.reserveTokens}:${settings.keepRecentTokens}`;
	if (toldOverThreshold.get(s) === key) return;
	toldOverThreshold.set(s, key);
	s.events.emit({
		type: "compaction_over_threshold",
		contextTokens,
		thresholdTokens,
		contextWindow: model.contextWindow,
		message:
			`Compaction cannot get the context under the threshold: about ${contextTokens} tokens after compacting (system prompt, tools and context files included), ` +
			`threshold ${thresholdTokens} (${model.id}'s ${model.contextWindow}-token window less compaction.reserveTokens). ` +
			"Lower compaction.reserveTokens, use a model with a larger window, or load fewer tools or a shorter system prompt / context files.",
	});
}

/**
 * How a response should be recovered from: retry, compact (`overflow` / `length_overflow`), or
 * nothing. Overflow needs compaction enabled, the current model, and a response newer
 * than the latest compaction (step 4); otherwise an overflow error is `fatal` and an over-window
 * answer is `none`. `fresh`: the response ended in the run just finished (a post-run check).
 */
export function recoveryClass(s: SessionInternals, message: AssistantMessage, fresh = false): RunErrorClass {
	const model = limitsModelFor(s, message);
	if (!model) return message.stopReason === "error" ? "fatal" : "none";
	const errorClass = classifyAssistantError(message, model);
	if (errorClass !== "overflow" && errorClass !== "length_overflow") return errorClass;
	const recoverable = s.settingsManager.getCompactionEnabled() && !predatesCompaction(s, message, fresh);
	if (recoverable) return errorClass;
	return message.stopReason === "error" ? "fatal" : "none";
}

/** The context after `message` is over the compaction threshold (`fresh` as in {@link recoveryClass}). */
export function isOverThreshold(s: SessionInternals, message: AssistantMessage, fresh = false): boolean {
	return thresholdCheck(s, message, fresh)?.over ?? false;
}

/**
 * The threshold check after `message` with its numbers (traces show them: why a run compacted, or
 * how near it came): context tokens against `contextWindow − reserveTokens`. Undefined when no
 * check applies (compaction disabled, no model or window, no usable token count).
 */
export function thresholdCheck(
	s: SessionInternals,
	message: AssistantMessage,
	fresh = false,
): { over: boolean; contextTokens: number; thresholdTokens: number } | undefined {
	const settings = s.settingsManager.getCompactionSettings();
	const model = limitsModelFor(s, message);
	if (!settings.enabled || !model || model.contextWindow <= 0) return undefined;
	const tokens = contextTokensForThreshold({
		message,
		messages: s.agent.state.messages,
		hasContextEdits: s.transcript.hasContextEdits,
		// A fresh response is never stale itself; older usage it falls back to still can be.
		isStale: (response) => predatesCompaction(s, response, fresh && response === message),
		// An edit of a message the response counted (a pruned tool output) makes its usage too large.
		isUsageCurrent: s.transcript.hasContextEdits ? usageStillCurrent(s.sessionManager) : undefined,
	});
	if (tokens === undefined) return undefined;
	const thresholdTokens = compactionThresholdTokens(model.contextWindow, settings);
	const keep = effectiveKeepRecentTokens(model.contextWindow, settings);
	const due = shouldCompact(tokens, model.contextWindow, settings);
	const afterCompaction = due ? compactionCannotHelp(s, tokens, thresholdTokens, keep) : undefined;
	if (afterCompaction !== undefined) tellOverThreshold(s, model, settings, afterCompaction, thresholdTokens);
	return {
		over: due && afterCompaction === undefined,
		contextTokens: tokens,
		thresholdTokens,
	};
}

/**
 * Whether the request about to be sent with `messages` to `model` (the model a virtual selection
 * routed it to) is over that model's compaction threshold (pi 1.6 `_exceedsCompactionThreshold`).
 * Tokens as pi's `estimateProjectedContextTokens`: the last valid usage plus estimates of the
 * messages after it — walking back only to that response — or, when that usage predates the
 * latest compaction or the context holds context edits, the estimate of every message.
 */
export function isRequestOverThreshold(s: SessionInternals, model: Model, messages: readonly AgentMessage[]): boolean {
	const settings = s.settingsManager.getCompactionSettings();
	if (!settings.enabled || model.contextWindow <= 0) return false;
	const estimate = estimateContextTokens(messages);
	let tokens = estimate.tokens;
	const usageSource =
		estimate.lastUsageIndex === null ? undefined : (messages[estimate.lastUsageIndex] as AssistantMessage);
	if (usageSource !== undefined && (s.transcript.hasContextEdits || predatesCompaction(s, usageSource, false))) {
		// The usage describes another context: estimate all of it (pi does the same).
		tokens = 0;
		for (const message of messages) tokens += estimateMessageTokens(message);
	}
	return shouldCompact(tokens, model.contextWindow, settings);
}

/** The machine's view of the run that just ended (computed from the last assistant message). */
export function runOutcome(s: SessionInternals): RunOutcome {
	const message = s.scratch.lastAssistant;
	const hasQueuedMessages = s.agent.hasQueuedMessages();
	const madeProgress = s.scratch.runMessageCount > 0;
	const beforeSettleBoundary = s.runner().hasHandlers("agent_before_settle");
	if (!message) {
		return {
			stopReason: undefined,
			errorClass: "none",
			overThreshold: false,
			hasQueuedMessages,
			madeProgress,
			aborted: false,
			beforeSettleBoundary,
		};
	}
	const errorClass = recoveryClass(s, message, true);
	const aborted = message.stopReason === "aborted";
	// Overflow recovery comes first; an aborted response never compacts here (C.3 step 6). A retryable
	// error is checked too: when it is not retried the threshold still applies (C.3 steps 5–6).
	const threshold =
		!aborted && errorClass !== "overflow" && errorClass !== "length_overflow"
			? thresholdCheck(s, message, true)
			: undefined;
	const outcome: RunOutcome = {
		stopReason: message.stopReason,
		errorClass,
		overThreshold: threshold?.over ?? false,
		hasQueuedMessages,
		madeProgress,
		aborted,
		beforeSettleBoundary,
	};
	if (threshold) {
		outcome.contextTokens = threshold.contextTokens;
		outcome.thresholdTokens = threshold.thresholdTokens;
	}
	if (message.errorMessage !== undefined) outcome.errorMessage = message.errorMessage;
	const requestedDelayMs = errorClass === "retryable" ? parseRequestedRetryDelayMs(message.errorMessage) : undefined;
	if (requestedDelayMs !== undefined) outcome.requestedDelayMs = requestedDelayMs;
	return outcome;
}

/**
 * Gives the machine the current `retry.*` settings when they changed: a host may set them straight
 * through the `SettingsManager` (pi reads them live), so they are read when a prompt is sent and
 * when a run ends, before anything is decided about a retry.
 */
export function syncRetrySettings(s: SessionInternals): void {
	const next = s.settingsManager.getRetrySettings();
	const current = s.snapshot().context.retry;
	if (
		next.enabled !== current.enabled ||
		next.maxRetries !== current.maxRetries ||
		next.baseDelayMs !== current.baseDelayMs ||
		next.maxAgentDelayMs !== current.maxAgentDelayMs
	) {
		s.send({ type: "UPDATE_RETRY_SETTINGS", retry: next });
	}
}

/**
 * `agent_end.willRetry`: no abort requested, and the machine's retry policy would retry the
 * run's last assistant message (retryable, enabled, attempts left, requested delay within the cap).
 */
export function willRetry(s: SessionInternals, messages: readonly AgentMessage[]): boolean {
	syncRetrySettings(s);
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

/** The run's last answer ended `error` (the only end a retry can follow). */
export function lastAnswerFailed(s: SessionInternals, messages: readonly AgentMessage[]): boolean {
	return (lastAssistant(messages) ?? s.scratch.lastAssistant)?.stopReason === "error";
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index]!;
		if (message.role === "assistant") return message;
	}
	return undefined;
}
