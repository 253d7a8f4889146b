/**
 * The machine's `compact` actor (automatic compaction, pi's `_runAutoCompaction`, and manual `compact()`), and the
 * check before a prompt is sent: prepare, let `session_before_compact` handlers cancel or supply the
 * summary, summarize with the current model, append the compaction entry, rebuild the transcript,
 * and report `compaction_start` / `compaction_end` (+ `session_compact` / `session_compact_failed`
 * to extensions). Overflow recovery first omits the failed turn from the context (`context_edit`);
 * one that cannot compact also omits the request that got no answer.
 *
 * Custom messages that `session_compact` handlers publish while an operation runs are added to the
 * context right after the compaction, so the retried request sees them (pi issue 9051).
 *
 * The summarizer and its prompts are loaded on first use, so sessions that never compact don't
 * pay for them at startup.
 */
import type {
	CompactionInput,
	CompactionOutput,
	PromptOperationEvent,
} from "../../machines/prompt-operation.machine.js";
import type { CompactionPreparation, CompactionResult } from "../compaction/types.js";
import { SettleError } from "../errors.js";
import type { CompactionReason } from "../extensions/types.js";
import { defaultRequestedMaxTokens } from "../llm/errors.js";
import { noModelSelectedMessage } from "../llm/model-runtime.js";
import { effectiveKeepRecentTokens, estimateMessageTokens } from "../llm/tokens.js";
import type { AgentMessage, AssistantMessage, Model, Usage } from "../llm/types.js";
import type { SessionEntry } from "../store/entries.js";
import type { SessionInternals } from "./internals.js";
import { requireModelAndAuth } from "./prompt-pipeline.js";
import { isRequestOverThreshold, noteCompactedContext, recoveryClass, thresholdCheck } from "./run-outcome.js";
import { summarizationRetry } from "./summarization-retry.js";
import { summaryPayloadHook } from "./summary-payload.js";
import { recordUnsavedSummaryUsage } from "./unsaved-summary-usage.js";

/** Payload of a manual `COMPACT` request. */
export interface ManualCompactionPayload {
	customInstructions?: string;
}

/**
 * Runs one compaction. Automatic ones (threshold, overflow) resolve `{compacted: false}` on
 * failure after reporting it, and emit nothing when there is nothing to compact or no model. A
 * manual one always reports `compaction_start` / `compaction_end` and rejects with the error:
 * the no-model text, the auth texts of `prompt()`, `Nothing to compact (session too small)`,
 * `Already compacted`, `Compaction cancelled` (`ABORTED`: `abortCompaction()` was called),
 * `Compaction cancelled by the extension <path>: …` (`ABORTED`: its `session_before_compact`
 * handler cancelled) or `Compaction failed: …`.
 */
export async function runCompaction(s: SessionInternals, input: CompactionInput): Promise<CompactionOutput> {
	// Before the first await: abortCompaction() / abort() from now on must reach this compaction.
	s.scratch.compactionController = new AbortController();
	if (input.willRetry) {
		try {
			omitFailedTurn(s);
		} catch (error) {
			// Not in the log (file deleted, disk full): the machine drops an automatic compaction's
			// error, so the operation's prompt() fails with this one; nothing is re-run.
			s.scratch.settleWriteFailure = error;
			throw error;
		}
	}
	if (input.reason === "manual") {
		const customInstructions = (input.payload as ManualCompactionPayload | undefined)?.customInstructions;
		return runManualCompaction(s, customInstructions);
	}
	const output = await runAutoCompaction(s, input);
	// Overflow recovery that could not compact: the failed response is out of the context and
	// nothing re-runs, so the prompt got no answer; agent_settled says so (else print mode says nothing).
	if (input.willRetry && !output.compacted) {
		const overflow = s.scratch.lastAssistant?.errorMessage;
		const texts = await import("../compaction/texts.js");
		const model = s.model();
		// The window the server states beats a wrong one in models.json (Step-Audio-R1#3).
		const stated = texts.statedContextWindow(overflow);
		const serverWindow = stated !== undefined && stated !== model?.contextWindow ? stated : undefined;
		const cap = model && {
			model: modelKey(model),
			requestedMaxTokens: defaultRequestedMaxTokens(model),
			contextWindow: serverWindow ?? model.contextWindow,
			...(serverWindow === undefined ? {} : { configuredWindow: model.contextWindow }),
		};
		// A cap that takes the window is refused whatever the context holds: name it, not the context (gpustack#929).
		const outputCap = cap && texts.outputCapTakesWindow(cap) ? cap : undefined;
		s.scratch.unanswered = texts.unansweredOverflowMessage(overflow, {
			...output,
			...(outputCap ? { outputCap } : {}),
		});
		// The request that overflowed leaves the context too (it stays in the log): sent again with
		// the next prompt, or with a message queued meanwhile that runs next, it would only overflow
		// again. pi 0.73.1 keeps it and sends it again (DELIBERATE_UNANSWERED_REQUEST_OMITTED).
		omitUnansweredRequest(s);
	}
	return output;
}

async function runAutoCompaction(s: SessionInternals, input: CompactionInput): Promise<CompactionOutput> {
	const model = s.model();
	const notCompacted = (): CompactionOutput => ({ compacted: false, continue: s.agent.hasQueuedMessages() });
	// A trace shows why an automatic compaction did not start (no events are emitted for it).
	if (!model) return { ...notCompacted(), skipped: "no_model" };
	const branchEntries = s.sessionManager.getBranch();
	const { prepareCompaction } = await import("../compaction/prepare.js");
	const preparation = prepareCompaction(branchEntries, compactionSettingsFor(s, model));
	if (!preparation) return { ...notCompacted(), skipped: "nothing_to_compact" };
	s.events.emit({ type: "compaction_start", reason: input.reason });
	const attempt = await compactPrepared(s, {
		reason: input.reason,
		willRetry: input.willRetry,
		model,
		preparation,
		branchEntries,
	});
	if (attempt.ok) {
		const output: CompactionOutput = {
			compacted: true,
			continue: attempt.retries || s.agent.hasQueuedMessages(),
			result: attempt.result,
			entryId: attempt.entryId,
		};
		// Its compaction_end said willRetry: false; the machine must not re-run the request either.
		if (input.willRetry && !attempt.retries) output.abortedAfterSave = true;
		return output;
	}
	const output: CompactionOutput = { ...notCompacted(), cancelled: attempt.aborted };
	if (attempt.errorMessage !== undefined) output.errorMessage = attempt.errorMessage;
	// The unanswered overflow's message names it, as a manual compaction's rejection does.
	if (attempt.error instanceof CompactionCancelled && attempt.error.byExtension !== undefined) {
		output.cancelledBy = attempt.error.byExtension;
	}
	const last = lastAssistant(s.agent.state.messages);
	const check = input.reason === "threshold" && !attempt.aborted && last ? thresholdCheck(s, last) : undefined;
	if (last && check) failedThreshold.set(s, { message: last, model: modelKey(s.model()), ...check });
	return output;
}

/**
 * The context a threshold compaction last failed on: the check before the next prompt does not try
 * again on it (github/app#3565: a summarizer that kept failing cost two attempts per prompt). The
 * next answer, growth past it, a smaller threshold (a smaller model's window, pi#6426) or another
 * model (it is the summarizer: it may not fail) does.
 */
const failedThreshold = new WeakMap<
	SessionInternals,
	{ message: AssistantMessage; model: string; contextTokens: number; thresholdTokens: number }
>();

function modelKey(model: Model | undefined): string {
	return model ? `${model.provider}/${model.id}` : "";
}

/**
 * Before a new prompt is sent: the last response in the context (aborted ones
 * included) may already be an overflow the previous request could not recover from, or put the
 * context over the threshold — compact first (`overflow` or `threshold`, never `willRetry`: the new
 * prompt is what runs next). A response older than the latest compaction, or one a context edit
 * already omitted, triggers nothing. Never throws (a failed compaction is reported and the prompt
 * goes on). Returns undefined when there is nothing to compact, else the compaction to await.
 */
export function preSendCompaction(s: SessionInternals): Promise<void> | undefined {
	const due = preSendCompactionReason(s);
	// Nothing to compact (the usual case): answered synchronously, so the prompt costs no microtask here.
	return due ? compactBeforeSend(s, due) : undefined;
}

/**
 * pi 1.6, before a request a virtual model routed to `model`: when `messages` are over that
 * model's threshold, the machine compacts (`running.compacting`, reason `threshold`) while this
 * request preparation waits; the caller then sends the rebuilt context on the same route. Resolves
 * true when a compaction ran (whatever its outcome: a failed one is reported and the request goes
 * out as it is), false when none was due or the machine cannot take one (the run is being aborted).
 */
export async function compactBeforeRoutedRequest(
	s: SessionInternals,
	model: Model,
	messages: readonly AgentMessage[],
): Promise<boolean> {
	if (!isRequestOverThreshold(s, model, messages)) return false;
	const event = { type: "REQUEST_NEEDS_COMPACTION" } as const;
	if (!s.snapshot().can(event)) return false;
	await new Promise<void>((resolve) => {
		s.scratch.requestCompactionDone = resolve;
		s.send(event);
	});
	return true;
}

/** The machine answered `REQUEST_NEEDS_COMPACTION` (or the session is disposed): the request goes on. */
export function finishRequestCompaction(s: SessionInternals): void {
	const done = s.scratch.requestCompactionDone;
	s.scratch.requestCompactionDone = undefined;
	done?.();
}

/** A compaction due before the next prompt: why, and for `threshold` the check's numbers (shown in traces). */
type PreSendCompaction = Omit<Extract<PromptOperationEvent, { type: "PRE_SEND_COMPACTION_START" }>, "type">;

/** Why the context must be compacted before the next prompt, or undefined. */
function preSendCompactionReason(s: SessionInternals): PreSendCompaction | undefined {
	if (!s.settingsManager.getCompactionEnabled()) return undefined;
	const last = lastAssistant(s.agent.state.messages);
	if (!last) return undefined;
	const recovery = recoveryClass(s, last);
	if (recovery === "overflow" || recovery === "length_overflow") return { reason: "overflow" };
	const threshold = thresholdCheck(s, last);
	if (!threshold?.over) return undefined;
	const failed = failedThreshold.get(s);
	if (
		failed?.message === last &&
		failed.model === modelKey(s.model()) &&
		threshold.contextTokens <= failed.contextTokens &&
		threshold.thresholdTokens >= failed.thresholdTokens
	)
		return undefined;
	return { reason: "threshold", contextTokens: threshold.contextTokens, thresholdTokens: threshold.thresholdTokens };
}

async function compactBeforeSend(s: SessionInternals, due: PreSendCompaction): Promise<void> {
	// The machine stays in `preflight` but knows: `isCompacting` is true and the trace shows it.
	s.send({ type: "PRE_SEND_COMPACTION_START", ...due });
	let output: CompactionOutput | undefined;
	try {
		output = await runCompaction(s, { reason: due.reason, willRetry: false });
	} catch {
		// Automatic compactions report their failures as events and never throw.
	} finally {
		// What it did, for traces (no compaction actor runs here, so no `done` line would say it).
		s.send(output ? { type: "PRE_SEND_COMPACTION_END", output } : { type: "PRE_SEND_COMPACTION_END" });
	}
}

/**
 * After the preflight's own dispatch (a command, `input` or `before_agent_start` handlers): asks
 * the machine whether the preflight may go on. A `ctx.compact()` from that dispatch runs beside it
 * (the machine's `dispatchCompaction`, pi#7154: held until the prompt settled, it would wait for
 * the handler that waits for it), and the machine answers `preflight_dispatch_released` once it
 * has ended. Undefined when the machine answered at once (nothing compacts: no microtask).
 */
export function releasePreflightDispatch(s: SessionInternals): Promise<void> | undefined {
	// The command replaced (disposed) this session: its machine has stopped and answers nothing.
	if (s.snapshot().status !== "active") return undefined;
	let released = false;
	s.scratch.dispatchReleased = () => {
		released = true;
	};
	s.send({ type: "PREFLIGHT_DISPATCH_END" });
	if (released) {
		s.scratch.dispatchReleased = undefined;
		return undefined;
	}
	return new Promise((resolve) => {
		s.scratch.dispatchReleased = resolve;
	});
}

/** The machine's `preflight_dispatch_released` (or the session is disposed): the preflight goes on. */
export function finishPreflightDispatch(s: SessionInternals): void {
	const release = s.scratch.dispatchReleased;
	s.scratch.dispatchReleased = undefined;
	release?.();
}

/** Reports a second overflow in one request (the machine's `overflow_recovery_failed`). */
export function reportOverflowRecoveryFailed(s: SessionInternals, errorMessage: string): void {
	void reportFailure(s, "overflow", false, errorMessage, false);
}

/** The compaction settings with the kept tail capped for `model`'s window (opencode#45368). */
function compactionSettingsFor(s: SessionInternals, model: Model) {
	const settings = s.settingsManager.getCompactionSettings();
	return { ...settings, keepRecentTokens: effectiveKeepRecentTokens(model.contextWindow, settings) };
}

/** Manual `compact()`: always `compaction_start`, then the result or the error. */
async function runManualCompaction(
	s: SessionInternals,
	customInstructions: string | undefined,
): Promise<CompactionOutput> {
	const reason = "manual";
	// compact() sends its request synchronously (the machine holds it from the call on), but its
	// caller hears compaction_start after the call has returned, as in pi (which awaits abort() first).
	await Promise.resolve();
	s.events.emit({ type: "compaction_start", reason });
	let model: Model;
	let branchEntries: SessionEntry[];
	let preparation: CompactionPreparation | undefined;
	try {
		if (!s.model()) throw new SettleError("NO_MODEL", noModelSelectedMessage());
		model = await requireModelAndAuth(s);
		branchEntries = s.sessionManager.getBranch();
		const { prepareCompaction } = await import("../compaction/prepare.js");
		// A host's model or thinking level recorded on open over the file's own (not written yet: no
		// activity since) is no activity: a branch ending with a compaction before it is already
		// compacted, as in pi, which records nothing there (HOST_MODEL_RECORDED, HOST_LEVEL_RECORDED).
		const hostRecorded = branchEntries.filter(
			(entry, at) =>
				s.sessionManager.isWriteDeferred(entry.id) &&
				(entry.type === "model_change" ||
					(entry.type === "thinking_level_change" &&
						branchEntries.slice(0, at).some((before) => before.type === "thinking_level_change"))),
		);
		const texts = await import("../compaction/texts.js");
		if (branchEntries.filter((entry) => !hostRecorded.includes(entry)).at(-1)?.type === "compaction")
			throw new SettleError("INVALID_ARGUMENT", texts.ALREADY_COMPACTED);
		preparation = prepareCompaction(branchEntries, compactionSettingsFor(s, model));
		if (!preparation) throw new SettleError("INVALID_ARGUMENT", texts.nothingToCompactReason(branchEntries));
	} catch (error) {
		const texts = await import("../compaction/texts.js");
		await reportFailure(s, reason, false, texts.compactionFailureMessage(reason, error), false);
		throw error;
	}
	let attempt: CompactionAttempt;
	try {
		attempt = await compactPrepared(s, {
			reason,
			willRetry: false,
			model,
			preparation,
			branchEntries,
			...(customInstructions !== undefined ? { customInstructions } : {}),
		});
	} finally {
		s.scratch.manualCompactionSaved = false;
	}
	if (attempt.ok) return { compacted: true, continue: false, result: attempt.result, entryId: attempt.entryId };
	if (attempt.aborted) {
		const texts = await import("../compaction/texts.js");
		// Cancelled by an extension, not by the caller: name it, or nobody can tell why (pi#7492).
		const by = attempt.error instanceof CompactionCancelled ? attempt.error.byExtension : undefined;
		const text = by === undefined ? texts.COMPACTION_CANCELLED : texts.compactionCancelledByExtension(by);
		throw new SettleError("ABORTED", text, { cause: attempt.error });
	}
	throw attempt.error instanceof SettleError
		? attempt.error
		: new SettleError("PROVIDER", attempt.errorMessage ?? "Compaction failed", { cause: attempt.error });
}

interface CompactionJob {
	reason: CompactionReason;
	willRetry: boolean;
	model: Model;
	preparation: CompactionPreparation;
	branchEntries: SessionEntry[];
	customInstructions?: string;
}

type CompactionAttempt =
	| { ok: true; result: CompactionResult<unknown>; entryId: string; retries: boolean }
	| { ok: false; aborted: boolean; errorMessage: string | undefined; error: unknown };

/**
 * After `compaction_start`: `session_before_compact`, the summary (extension or default
 * summarizer), the entry, the rebuilt context, `session_compact`, the custom messages its handlers
 * published, then `compaction_end`. Failures are reported (`compaction_end` with the error,
 * `session_compact_failed`) and returned, never thrown.
 */
async function compactPrepared(s: SessionInternals, job: CompactionJob): Promise<CompactionAttempt> {
	const { reason, willRetry, preparation, branchEntries } = job;
	const controller = s.scratch.compactionController ?? new AbortController(); // made by runCompaction
	s.scratch.compactionController = controller;
	let fromExtension = false;
	// Usage of the summary answers; recorded apart when no compaction entry carries it.
	const billed: Usage[] = [];
	let saved = false;
	try {
		// Cancelled while it was being prepared: no extension hears of a compaction that will not happen.
		if (controller.signal.aborted) throw new CompactionCancelled();
		const runner = s.runner();
		let result: CompactionResult<unknown> | undefined;
		if (runner.hasHandlers("session_before_compact")) {
			const { result: decision, decidedBy } = await runner.emitNamingDecider({
				type: "session_before_compact",
				preparation,
				branchEntries,
				...(job.customInstructions !== undefined ? { customInstructions: job.customInstructions } : {}),
				reason,
				willRetry,
				signal: controller.signal,
			});
			if (decision?.cancel) throw new CompactionCancelled(decidedBy);
			if (decision?.compaction) {
				result = { ...decision.compaction, details: decision.compaction.details };
				fromExtension = true;
			}
		}
		if (!result) {
			const { compact } = await import("../compaction/summarize.js");
			const apiKey = await s.modelRuntime.getApiKey(job.model.provider);
			result = await compact(preparation, {
				model: job.model,
				streamFn: s.agent.streamFn ?? s.modelRuntime.stream,
				signal: controller.signal,
				thinkingLevel: s.agent.state.thinkingLevel,
				retry: summarizationRetry(s, { source: "compaction", reason }),
				onAnswerUsage: (usage) => billed.push(usage),
				...summaryPayloadHook(runner),
				...(apiKey !== undefined ? { apiKey } : {}),
				...(job.customInstructions !== undefined ? { customInstructions: job.customInstructions } : {}),
			});
		}
		if (controller.signal.aborted) throw new CompactionCancelled();
		const entryId = s.sessionManager.appendCompaction(
			result.summary,
			result.firstKeptEntryId,
			result.tokensBefore,
			result.details,
			fromExtension,
			result.usage,
		);
		saved = true;
		s.transcript.noteCompaction(entryId);
		s.transcript.rebuild();
		noteCompactedContext(s);
		// Saved: an extension's send from here on waits for the compaction's end (pi#9647).
		if (reason === "manual") s.scratch.manualCompactionSaved = true;
		result = { ...result, estimatedTokensAfter: estimateTokens(s.agent.state.messages) };
		const compactionEntry = s.sessionManager.getEntry(entryId);
		if (compactionEntry?.type === "compaction" && runner.hasHandlers("session_compact")) {
			await runner.emit({ type: "session_compact", compactionEntry, fromExtension, reason, willRetry });
		}
		// Held while the operation runs; the retry or next run must see them (pi issue 9051).
		s.queues.flushPendingCustom();
		// Aborted after its entry was written (compact() or abort() during session_compact): it stays
		// saved, but the operation ends here, so no retry follows.
		const retries = willRetry && !controller.signal.aborted;
		s.events.emit({ type: "compaction_end", reason, result, aborted: false, willRetry: retries });
		return { ok: true, result, entryId, retries };
	} catch (error) {
		const aborted = controller.signal.aborted || error instanceof CompactionCancelled;
		const texts = await import("../compaction/texts.js");
		const errorMessage = aborted ? undefined : texts.compactionFailureMessage(reason, error);
		if (!saved) {
			const note = "summary requests of a compaction that failed";
			await recordUnsavedSummaryUsage(s, "compaction", job.model, billed, note);
		}
		const cancelledBy = error instanceof CompactionCancelled ? error.byExtension : undefined;
		await reportFailure(s, reason, aborted, errorMessage, fromExtension, cancelledBy);
		return { ok: false, aborted, errorMessage, error };
	} finally {
		if (s.scratch.compactionController === controller) s.scratch.compactionController = undefined;
	}
}

/** `compaction_end` without a result, then `session_compact_failed` (awaited). */
async function reportFailure(
	s: SessionInternals,
	reason: CompactionReason,
	aborted: boolean,
	errorMessage: string | undefined,
	fromExtension: boolean,
	cancelledBy?: string,
): Promise<void> {
	const end: Extract<Parameters<typeof s.events.emit>[0], { type: "compaction_end" }> = {
		type: "compaction_end",
		reason,
		result: undefined,
		aborted,
		willRetry: false,
	};
	if (errorMessage !== undefined) end.errorMessage = errorMessage;
	if (cancelledBy !== undefined) end.cancelledBy = cancelledBy;
	s.events.emit(end);
	const runner = s.runner();
	if (runner.hasHandlers("session_compact_failed")) {
		await runner.emit({
			type: "session_compact_failed",
			reason,
			aborted,
			willRetry: false,
			fromExtension,
			...(errorMessage !== undefined ? { errorMessage } : {}),
		});
	}
}

/** Overflow recovery: the failed response and its turn's tool results leave the model context. */
function omitFailedTurn(s: SessionInternals): void {
	const failed: AgentMessage[] = [];
	if (s.scratch.lastAssistant) {
		failed.push(s.scratch.lastAssistant);
		// The request after the compaction retries this one (a router sees reason `retry`).
		s.router.noteRetry(s.scratch.lastAssistant);
	}
	for (const result of s.scratch.turnToolResults) failed.push(result);
	s.transcript.omit(failed);
}

/**
 * Omits from the context what the request that overflowed added after the last answer: its prompt,
 * and the tool calls and results of its turns (a `context_edit` each; the log keeps them, and the
 * failed answer is already out). Walks the branch back from its leaf to the last answer, a
 * compaction or a branch summary; system messages stay. The next prompt is sent without it, and
 * messages queued meanwhile run next in this operation, also when nothing is left in the context
 * (`scratch.unansweredOmitted`).
 */
function omitUnansweredRequest(s: SessionInternals): void {
	const branch = s.sessionManager.getBranch();
	const omitted = new Set<string>();
	const unanswered: string[] = [];
	for (let index = branch.length - 1; index >= 0; index--) {
		const entry = branch[index]!;
		if (entry.type === "context_edit") {
			if (entry.replacement === null) omitted.add(entry.targetId);
		} else if (entry.type === "custom_message") {
			if (!omitted.has(entry.id)) unanswered.push(entry.id);
		} else if (entry.type === "message") {
			if (omitted.has(entry.id)) continue;
			const message = entry.message;
			if (message.role === "assistant" && message.stopReason !== "toolUse") break;
			if (message.role !== "system") unanswered.push(entry.id);
		} else if (entry.type === "compaction" || entry.type === "branch_summary") break;
	}
	s.scratch.unansweredOmitted = true;
	if (unanswered.length === 0) return;
	for (const id of unanswered.reverse()) s.transcript.appendContextEdit(id, null);
	s.transcript.rebuild();
}

/** Estimated tokens of a freshly compacted context (kept responses' usage describes the old, larger one). */
function estimateTokens(messages: readonly AgentMessage[]): number {
	let tokens = 0;
	for (const message of messages) tokens += estimateMessageTokens(message);
	return tokens;
}

/** The last assistant message (walks back only past the messages after it). */
function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index]!;
		if (message.role === "assistant") return message;
	}
	return undefined;
}

/** An extension cancelled the compaction, or it was aborted before its entry was written. */
class CompactionCancelled extends Error {
	/** `byExtension`: the path of the extension whose `session_before_compact` handler cancelled. */
	constructor(readonly byExtension?: string) {
		super("Compaction cancelled");
	}
}
