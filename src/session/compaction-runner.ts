/**
 * The machine's `compact` actor (behavior C.5 `_runAutoCompaction` and manual `compact()`):
 * prepare, let `session_before_compact` handlers cancel or supply the summary, summarize with the
 * current model, append the compaction entry, rebuild the transcript, and report
 * `compaction_start` / `compaction_end` (+ `session_compact` / `session_compact_failed` to
 * extensions). Overflow recovery first omits the failed turn from the context (`context_edit`).
 *
 * The summarizer and its prompts are loaded on first use, so sessions that never compact don't
 * pay for them at startup.
 */
import type { CompactionInput, CompactionOutput } from "../../machines/prompt-operation.machine.js";
import type { CompactionResult } from "../compaction/types.js";
import { SettleError } from "../errors.js";
import type { CompactionReason } from "../extensions/types.js";
import type { AgentMessage } from "../llm/types.js";
import type { SessionInternals } from "./internals.js";

/** Payload of a manual `COMPACT` request. */
export interface ManualCompactionPayload {
	customInstructions?: string;
}

/**
 * Runs one compaction. Automatic ones resolve `{compacted: false}` on failure (after reporting
 * it); a manual one rejects with the error (`Compaction failed: …`, `Compaction cancelled`,
 * `Nothing to compact (session too small)`, `Already compacted`, the no-model text).
 */
export async function runCompaction(s: SessionInternals, input: CompactionInput): Promise<CompactionOutput> {
	const reason = input.reason;
	const manual = reason === "manual";
	const willRetry = input.willRetry;
	const customInstructions = manual
		? (input.payload as ManualCompactionPayload | undefined)?.customInstructions
		: undefined;
	const notCompacted = (extra: Partial<CompactionOutput> = {}): CompactionOutput => ({
		compacted: false,
		continue: s.agent.hasQueuedMessages(),
		...extra,
	});
	const texts = await import("../compaction/texts.js");
	const model = s.model();
	if (willRetry) omitFailedTurn(s);
	if (!model) {
		if (manual) throw new SettleError("NO_MODEL", texts.NO_MODEL_FOR_SUMMARIZATION);
		return notCompacted();
	}
	const settings = s.settingsManager.getCompactionSettings();
	const branchEntries = s.sessionManager.getBranch();
	const { prepareCompaction } = await import("../compaction/prepare.js");
	const prepared = prepareCompaction(branchEntries, settings);
	// A span holding only the recorded system prompt has nothing to summarize.
	const preparation = prepared && summarizesConversation(prepared) ? prepared : undefined;
	if (manual) s.events.emit({ type: "compaction_start", reason });
	if (!preparation) {
		if (!manual) return notCompacted();
		const message = texts.nothingToCompactReason(branchEntries);
		reportFailure(s, reason, false, `Compaction failed: ${message}`, false);
		throw new SettleError("INVALID_ARGUMENT", message);
	}
	if (!manual) s.events.emit({ type: "compaction_start", reason });

	const controller = new AbortController();
	s.scratch.compactionController = controller;
	let fromExtension = false;
	try {
		const runner = s.runner();
		let result: CompactionResult<unknown> | undefined;
		if (runner.hasHandlers("session_before_compact")) {
			const decision = await runner.emit({
				type: "session_before_compact",
				preparation,
				branchEntries,
				...(customInstructions !== undefined ? { customInstructions } : {}),
				reason,
				willRetry,
				signal: controller.signal,
			});
			if (decision?.cancel) throw new CompactionCancelled(texts.COMPACTION_CANCELLED);
			if (decision?.compaction) {
				result = { ...decision.compaction, details: decision.compaction.details };
				fromExtension = true;
			}
		}
		if (!result) {
			const { compact } = await import("../compaction/summarize.js");
			const apiKey = await s.modelRuntime.getApiKey(model.provider);
			result = await compact(preparation, {
				model,
				streamFn: s.agent.streamFn ?? s.modelRuntime.stream,
				signal: controller.signal,
				thinkingLevel: s.agent.state.thinkingLevel,
				...(apiKey !== undefined ? { apiKey } : {}),
				...(customInstructions !== undefined ? { customInstructions } : {}),
			});
		}
		if (controller.signal.aborted) throw new CompactionCancelled("Compaction aborted");
		const entryId = s.sessionManager.appendCompaction(
			result.summary,
			result.firstKeptEntryId,
			result.tokensBefore,
			result.details,
			fromExtension,
			result.usage,
		);
		s.transcript.noteCompaction(entryId);
		s.transcript.rebuild();
		const compactionEntry = s.sessionManager.getEntry(entryId);
		if (compactionEntry?.type === "compaction" && runner.hasHandlers("session_compact")) {
			await runner.emit({ type: "session_compact", compactionEntry, fromExtension, reason, willRetry });
		}
		s.events.emit({ type: "compaction_end", reason, result, aborted: false, willRetry });
		return { compacted: true, continue: willRetry || s.agent.hasQueuedMessages(), result };
	} catch (error) {
		const aborted = controller.signal.aborted || error instanceof CompactionCancelled;
		const errorMessage = aborted ? undefined : texts.compactionFailureMessage(reason, error);
		reportFailure(s, reason, aborted, errorMessage, fromExtension);
		if (manual) {
			if (error instanceof CompactionCancelled) throw new SettleError("ABORTED", error.message);
			throw error instanceof SettleError ? error : new SettleError("PROVIDER", errorMessage ?? String(error));
		}
		const output = notCompacted({ cancelled: aborted });
		if (errorMessage !== undefined) output.errorMessage = errorMessage;
		return output;
	} finally {
		if (s.scratch.compactionController === controller) s.scratch.compactionController = undefined;
	}
}

/** Reports a second overflow in one request (the machine's `overflow_recovery_failed`). */
export function reportOverflowRecoveryFailed(s: SessionInternals, errorMessage: string): void {
	reportFailure(s, "overflow", false, errorMessage, false);
}

function reportFailure(
	s: SessionInternals,
	reason: CompactionReason,
	aborted: boolean,
	errorMessage: string | undefined,
	fromExtension: boolean,
): void {
	const end: Extract<Parameters<typeof s.events.emit>[0], { type: "compaction_end" }> = {
		type: "compaction_end",
		reason,
		result: undefined,
		aborted,
		willRetry: false,
	};
	if (errorMessage !== undefined) end.errorMessage = errorMessage;
	s.events.emit(end);
	const runner = s.runner();
	if (runner.hasHandlers("session_compact_failed")) {
		void runner.emit({
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
	if (s.scratch.lastAssistant) failed.push(s.scratch.lastAssistant);
	for (const result of s.scratch.turnToolResults) failed.push(result);
	s.transcript.omit(failed);
}

class CompactionCancelled extends Error {}

function summarizesConversation(preparation: {
	messagesToSummarize: AgentMessage[];
	turnPrefixMessages: AgentMessage[];
}): boolean {
	const conversational = (message: AgentMessage) => message.role !== "system";
	return preparation.messagesToSummarize.some(conversational) || preparation.turnPrefixMessages.some(conversational);
}
