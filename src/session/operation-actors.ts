/**
 * What the session does for the prompt-operation machine (its module doc is the contract): the
 * answers to its four requests — `preflight_requested`, `run_requested`, `before_settle_requested`,
 * `settle_requested` — and the three actors it invokes for the rarer steps (`busyPreflight`,
 * `compact`, `navigateTree`).
 */
import { type Actor, type ActorOptions, createActor, fromPromise, type InputFrom } from "xstate";
import {
	type BusyPreflightInput,
	type BusyPreflightOutcome,
	type CompactionInput,
	type CompactionOutput,
	type NavigateTreeInput,
	type NavigateTreeOutput,
	type PromptOperationActor,
	type PromptOperationEvent,
	promptOperationMachine,
	type RunInput,
} from "../../machines/prompt-operation.machine.js";
import { lastNonSystemMessage } from "../agent/agent-loop.js";
import type { AgentMessage } from "../llm/types.js";
import { beforeSettleBoundary, canRunQueued } from "./boundaries.js";
import { runCompaction } from "./compaction-runner.js";
import type { SessionInternals } from "./internals.js";
import { busyPreflight, type PromptPayload, preflight } from "./prompt-pipeline.js";
import { runOutcome } from "./run-outcome.js";
import { runTreeNavigation } from "./tree-navigation.js";

/** Each session's internals, by its prompt-operation actor's system (one system per root actor). */
const sessionsBySystem = new WeakMap<object, SessionInternals>();

function sessionOf(system: object): SessionInternals {
	const s = sessionsBySystem.get(system);
	// Only reachable if an actor of this machine was created elsewhere than createSessionOperationActor.
	if (!s) throw new Error("Prompt-operation actor without a session: create it with createSessionOperationActor.");
	return s;
}

/**
 * The prompt-operation machine with the session actors, built once for every session: each
 * actor finds its session through its actor system. A machine built per session (`provide` per
 * session) costs each session its own 22 state nodes and XState's per-node caches, and grows
 * XState's module-wide cache table with the sessions created between two full GCs.
 */
const sessionOperationMachine = promptOperationMachine.provide({
	actors: {
		busyPreflight: fromPromise<BusyPreflightOutcome, BusyPreflightInput>(({ input, system }) => {
			const s = sessionOf(system);
			return withinDispatch(s, () => busyPreflight(s, input));
		}),
		compact: fromPromise<CompactionOutput, CompactionInput>(({ input, system }) =>
			runCompaction(sessionOf(system), input),
		),
		navigateTree: fromPromise<NavigateTreeOutput, NavigateTreeInput>(({ input, system }) =>
			runTreeNavigation(sessionOf(system), input),
		),
	},
});

/** The session's prompt-operation actor (not started), running the shared machine. */
export function createSessionOperationActor(
	s: SessionInternals,
	options: {
		input: InputFrom<typeof sessionOperationMachine>;
		clock?: ActorOptions<typeof sessionOperationMachine>["clock"];
	},
): Actor<typeof sessionOperationMachine> {
	const actor = createActor(sessionOperationMachine, options);
	sessionsBySystem.set(actor.system, s);
	return actor;
}

/**
 * Answers the machine's requests. Work without anything to await (the common case: no
 * `agent_before_settle` or `agent_settled` handlers) is answered synchronously; the answer is
 * processed right after the transition that asked.
 */
export function answerMachineRequests(actor: PromptOperationActor, s: SessionInternals): void {
	// Work still running when the session is disposed answers a stopped machine: nothing is
	// waiting for it any more, so the answer is dropped (XState would print a warning).
	const send = (event: PromptOperationEvent) => {
		if (actor.getSnapshot().status === "active") actor.send(event);
	};
	const answer = <T>(
		work: Promise<T>,
		done: (output: T) => PromptOperationEvent,
		failed: (error: unknown) => PromptOperationEvent,
	) => {
		work.then(
			(output) => send(done(output)),
			(error: unknown) => send(failed(error)),
		);
	};
	// The two requests of every prompt answer straight from the work's own promise: each extra
	// promise layer (an async wrapper, `answer`) is a microtask per prompt.
	actor.on("preflight_requested", ({ input }) => {
		// The session's own dispatch (see withinDispatch) until the preflight settles.
		const scratch = s.scratch;
		scratch.dispatchDepth++;
		const outcome = preflight(s, input.request);
		// Only a command may replace the session under its own prompt (see AgentSession.dispose).
		const payload = input.request.payload as PromptPayload;
		if (payload.kind === "text" && payload.text.startsWith("/")) {
			scratch.runningPreflight = { requestId: input.request.requestId, outcome };
		}
		outcome.then(
			(output) => {
				scratch.dispatchDepth--;
				scratch.runningPreflight = undefined;
				// Aborted before its run: the machine settles without one, so the next-turn messages the
				// preflight took are the next prompt's again.
				const nextTurn = scratch.preflightAbort?.nextTurn;
				if (nextTurn && output.disposition === "started" && s.snapshot().context.abortRequested) {
					s.queues.restoreNextTurn(nextTurn);
				}
				send({ type: "PREFLIGHT_DONE", output });
			},
			(error: unknown) => {
				scratch.dispatchDepth--;
				scratch.runningPreflight = undefined;
				send({ type: "PREFLIGHT_FAILED", error });
			},
		);
	});
	actor.on("run_requested", ({ input }) => {
		let run: Promise<void> | undefined;
		try {
			run = startRun(s, input);
		} catch (error) {
			run = Promise.reject(error);
		}
		// A skipped continuation's outcome is read at once; the answer still comes on a later microtask.
		const skipped = run === undefined ? runDone(s) : undefined;
		(run ?? Promise.resolve()).then(
			() => send(skipped ?? runDone(s)),
			(error: unknown) => send({ type: "RUN_FAILED", error }),
		);
	});
	actor.on("before_settle_requested", ({ input }) => {
		if (!s.runner().hasHandlers("agent_before_settle")) {
			send({ type: "BEFORE_SETTLE_DONE", output: { continue: canRunQueued(s) } });
			return;
		}
		answer(
			beforeSettleBoundary(s, input),
			(output) => ({ type: "BEFORE_SETTLE_DONE", output }),
			(error) => ({ type: "BEFORE_SETTLE_FAILED", error }),
		);
	});
	actor.on("settle_requested", ({ input }) => {
		settleOperation(s);
		const settled: { type: "agent_settled"; errorMessage?: string } = { type: "agent_settled" };
		if (s.scratch.unanswered !== undefined) settled.errorMessage = s.scratch.unanswered;
		s.scratch.unanswered = undefined;
		// pi's emitAgentSettled tells the cache warmer first: `streaming` mode stops, `idle` keeps warming.
		s.cacheWarmer?.onAgentSettled();
		if (!s.runner().hasHandlers("agent_settled")) {
			s.scratch.settledAnnounced = input.requestId;
			s.events.emit(settled);
			send({ type: "SETTLE_DONE" });
			return;
		}
		const controller = new AbortController();
		s.scratch.settledController = controller;
		answer(
			withinDispatch(s, async () => {
				try {
					await s.runner().emit({ ...settled });
				} finally {
					if (s.scratch.settledController === controller) s.scratch.settledController = undefined;
				}
				s.scratch.settledAnnounced = input.requestId;
				s.events.emit(settled);
			}),
			() => ({ type: "SETTLE_DONE" }),
			(error) => ({ type: "SETTLE_FAILED", error }),
		);
	});
}

/**
 * Starts one Agent run: `agent.prompt(messages)` for the first run of an operation,
 * `agent.continue()` for retries, continuations after compaction, queued messages and boundary
 * requests. The returned promise settles after the run's `agent_end` was handled; the machine's
 * view of how it ended is then {@link runOutcome}.
 *
 * A continuation is skipped (no run, undefined; the outcome says nothing ran) when the context
 * ends with an assistant message and nothing is queued — `agent.continue()` would throw `Cannot
 * continue from message role: assistant` (pi issues 5463, 5056: a queue emptied between the
 * decision and the run) — or when it has no message at all. A skipped run adds nothing
 * (`madeProgress: false`), so if messages are still queued the machine settles with a stall
 * instead of asking for the same run again.
 */
function startRun(s: SessionInternals, input: RunInput): Promise<void> | undefined {
	s.scratch.lastAssistant = undefined;
	s.scratch.turnToolResults = [];
	s.scratch.runMessageCount = 0;
	// This run may answer (a queued message after an unrecoverable overflow).
	s.scratch.unanswered = undefined;
	const afterUnanswered = s.scratch.unansweredOmitted;
	s.scratch.unansweredOmitted = false;
	if (input.mode === "prompt" && Array.isArray(input.payload)) {
		s.beforeRun();
		return s.agent.prompt(input.payload as AgentMessage[]);
	}
	// After an overflow that got no answer was taken out of the context, the queued messages run on
	// what is left, also nothing (the overflowing request was the session's first).
	if (canContinue(s) || (afterUnanswered && s.agent.hasQueuedMessages())) {
		s.beforeRun();
		return s.agent.continue();
	}
	return undefined;
}

/** The answer to a finished run: its outcome, or `RUN_FAILED` when that cannot be read. */
function runDone(s: SessionInternals): PromptOperationEvent {
	try {
		return { type: "RUN_DONE", output: runOutcome(s) };
	} catch (error) {
		return { type: "RUN_FAILED", error };
	}
}

/** `agent.continue()` has something to run: a context not ending with an answer, or queued messages. */
function canContinue(s: SessionInternals): boolean {
	const last = lastNonSystemMessage(s.agent.state.messages);
	return last !== undefined && (last.role !== "assistant" || s.agent.hasQueuedMessages());
}

/**
 * The synchronous part of settling (pi's `finally`): flush pending bash and custom messages and
 * clear the per-operation options. `agent_settled` follows (extension handlers first); prompts
 * issued meanwhile are deferred by the machine and run right after, in order.
 */
function settleOperation(s: SessionInternals): void {
	s.transcript.rebuildIfRequested();
	const scratch = s.scratch;
	try {
		s.queues.flushPendingBash();
		s.queues.flushPendingCustom();
	} catch (error) {
		// A throw here would leave the machine in `settling` for good (and is uncaught in a listener):
		// the operation settles, what was not written stays pending, and prompt() fails with why.
		scratch.settleWriteFailure = error;
	}
	if (scratch.promptSystemMessage) {
		// Still set: aborted before the prompt reached the transcript, so the recorded prompt did not change.
		s.loadout.resyncFromTranscript();
	}
	scratch.forcedSystemPrompt = undefined;
	scratch.promptSystemMessage = undefined;
	scratch.boundaryAborted = false;
	s.loadout.endOperation();
}

/**
 * Marks the session's own dispatch (extension commands, `input` / `before_agent_start` handlers,
 * the `agent_settled` dispatch) so `waitForIdle()` called from there resolves at once instead of
 * waiting for itself — pi behaves the same, no operation is active while those run. A counter on
 * the session, not AsyncLocalStorage: async context tracking slows down every promise in the process.
 */
async function withinDispatch<T>(s: SessionInternals, work: () => Promise<T>): Promise<T> {
	s.scratch.dispatchDepth++;
	try {
		return await work();
	} finally {
		s.scratch.dispatchDepth--;
	}
}
