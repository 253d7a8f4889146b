/**
 * The seven actors the prompt-operation machine invokes (its module doc is the contract),
 * implemented on the session's parts, and the machine they are provided to.
 */
import { fromPromise } from "xstate";
import {
	type BeforeSettleInput,
	type BeforeSettleOutput,
	type BusyPreflightInput,
	type BusyPreflightOutcome,
	type CompactionInput,
	type CompactionOutput,
	type NavigateTreeInput,
	type NavigateTreeOutput,
	type PreflightInput,
	type PreflightOutcome,
	promptOperationMachine,
	type RunInput,
	type RunOutcome,
	type SettleInput,
} from "../../machines/prompt-operation.machine.js";
import { SettleError } from "../errors.js";
import type { AgentMessage } from "../llm/types.js";
import { beforeSettleBoundary } from "./boundaries.js";
import { runCompaction } from "./compaction-runner.js";
import { withinSessionDispatch } from "./dispatch-scope.js";
import type { SessionInternals } from "./internals.js";
import { busyPreflight, preflight } from "./prompt-pipeline.js";
import { runOutcome } from "./run-outcome.js";
import { notYetSupported } from "./texts.js";

/** The prompt-operation machine with the session's actors. */
export function sessionPromptOperationMachine(s: SessionInternals) {
	return promptOperationMachine.provide({
		actors: {
			preflight: fromPromise<PreflightOutcome, PreflightInput>(({ input }) =>
				withinSessionDispatch(() => preflight(s, input.request)),
			),
			busyPreflight: fromPromise<BusyPreflightOutcome, BusyPreflightInput>(({ input }) =>
				withinSessionDispatch(() => busyPreflight(s, input)),
			),
			run: fromPromise<RunOutcome, RunInput>(({ input }) => runAgent(s, input)),
			compact: fromPromise<CompactionOutput, CompactionInput>(({ input }) => runCompaction(s, input)),
			beforeSettle: fromPromise<BeforeSettleOutput, BeforeSettleInput>(({ input }) => beforeSettleBoundary(s, input)),
			settle: fromPromise<void, SettleInput>(() => withinSessionDispatch(() => settleOperation(s))),
			navigateTree: fromPromise<NavigateTreeOutput, NavigateTreeInput>(async () => {
				throw new SettleError("INVALID_ARGUMENT", notYetSupported("navigateTree()"));
			}),
		},
	});
}

/**
 * One Agent run: `agent.prompt(messages)` for the first run of an operation, `agent.continue()`
 * for retries, continuations after compaction, queued messages and boundary requests. Resolves
 * after the run's `agent_end` was handled, with the machine's view of how it ended.
 */
async function runAgent(s: SessionInternals, input: RunInput): Promise<RunOutcome> {
	s.scratch.lastAssistant = undefined;
	s.scratch.turnToolResults = [];
	if (input.mode === "prompt" && Array.isArray(input.payload)) await s.agent.prompt(input.payload as AgentMessage[]);
	else await s.agent.continue();
	return runOutcome(s);
}

/**
 * Settling (C.2 `finally` + `_emitAgentSettled`): flush pending bash and custom messages, clear
 * the per-operation options, await extension `agent_settled` handlers, then tell listeners. Prompts
 * issued meanwhile are deferred by the machine and run right after, in order.
 */
async function settleOperation(s: SessionInternals): Promise<void> {
	s.queues.flushPendingBash();
	s.queues.flushPendingCustom();
	const scratch = s.scratch;
	if (scratch.promptSystemMessage && s.transcript.entryIdOf(scratch.promptSystemMessage) === undefined) {
		// Aborted before the prompt reached the transcript: the recorded prompt did not change.
		s.loadout.resyncFromTranscript();
	}
	scratch.forcedSystemPrompt = undefined;
	scratch.promptSystemMessage = undefined;
	scratch.boundaryAborted = false;
	const runner = s.runner();
	if (runner.hasHandlers("agent_settled")) await runner.emit({ type: "agent_settled" });
	s.events.emit({ type: "agent_settled" });
}
