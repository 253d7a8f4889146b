/**
 * The prompt-operation machine: one long-lived actor per AgentSession whose state answers "what is
 * this session doing" (prompts, retries, compaction, extension boundaries, tree navigation). Pure: no I/O, no timers of its own
 * (delays run on the actor's clock), no imports from `src/` other than types.
 *
 * ## How the AgentSession runs it
 * ```ts
 * const actor = createActor(
 *   promptOperationMachine.provide({ actors: { busyPreflight, compact, navigateTree } }),
 *   { input: { retry: settings.retry }, clock }, // clock: omit in production, SimulatedClock in tests
 * );
 * actor.on("run_requested", ({ input }) => runAgent(input).then(
 *   (output) => actor.send({ type: "RUN_DONE", output }),
 *   (error) => actor.send({ type: "RUN_FAILED", error }),
 * )); // likewise preflight_requested, before_settle_requested, settle_requested
 * actor.on("*", (event) => session.handleMachineEmit(event)); // typed by PromptOperationEmitted
 * actor.start();
 * ```
 *
 * ## Events the session sends ({@link PromptOperationEvent})
 * - `PROMPT {request}` — `prompt()`, `sendUserMessage()` and triggered custom messages. Idle → `preflight`.
 *   In `preflight` and `settling` the request is deferred (kept in order, re-issued once idle, as pi does
 *   at the start of its prompt pipeline), and in a manual compaction's `compacting` when it is marked
 *   `whenIdle` (an extension's send from `session_compact`, pi#9647). In every other busy state a `busyPreflight` child `busyPreflight.<requestId>` is
 *   spawned (the rules for a prompt while busy), so request ids must be unique per session. An `ABORT` during
 *   `preflight` is remembered: a `started` outcome then settles at once without a run.
 * - `COMPACT {requestId, payload?}` — manual `compact()`, accepted in every state, one decision:
 *   idle → `compacting`; during a manual compaction → join it when it gives no instructions or the
 *   same payload (pi#4203: one summary, every caller answered with it), else refused
 *   (`manual_compaction_done {refused: "other_instructions"}`: that summary would not follow its
 *   instructions); busy → abort what runs (the run, a retry backoff, a compaction, the
 *   boundary, a preflight, a branch summary — as `ABORT` does there) and hold the compaction in
 *   `context.deferredCompaction` until idle, where it starts before the deferred prompts. In
 *   `settling` (`ctx.compact()` / `compact()` from `agent_settled`, pi-powerline-footer#174) it is
 *   held without aborting anything. There is no window between the abort and the compaction for a
 *   prompt to take (the session used to abort, wait for idle, then ask, and failed with `BUSY` when
 *   a prompt came first). `COMPACT_WHEN_SETTLED {requestId, payload?}` — `ctx.compact()`: while an
 *   operation is active (through `settling`) it is held without aborting it (UniPi#30) and starts
 *   once the operation has settled; elsewhere it is `COMPACT`. One compaction is held at a time: a
 *   later `COMPACT` / `COMPACT_WHEN_SETTLED` joins it under the same rule as a running one (no
 *   instructions or the same payload; else refused, `{refused: "other_instructions"}`, and nothing
 *   of it happens — what runs is not aborted); every caller is answered with its outcome
 *   (`manual_compaction_done`, once per request).
 *   `ABORT_COMPACTION` cancels a held compaction, and `ABORT` one held while something ran
 *   (`manual_compaction_done {cancelled: true}`). `COMPACT_WHEN_SETTLED {fromDispatch: true}` in
 *   `preflight` — from the preflight's own command or `input` / `before_agent_start` handlers
 *   (pi#7154: held until the prompt settled, it would wait for the handler that waits for it) —
 *   runs at once, beside the dispatch, in a `compact` child `dispatchCompaction`
 *   (`context.preflightCompactions.dispatch`; later ones join it; `isCompacting` is true meanwhile; `ABORT`
 *   cancels it through the preflight's abort; after an `ABORT` it is cancelled at once). The
 *   session sends `PREFLIGHT_DISPATCH_END` once the dispatch has returned and goes on when the
 *   machine answers `preflight_dispatch_released`: at once, or once that compaction has ended.
 *   (A child, not a sub-state, so that `preflight` stays a leaf path, as for the pre-send compaction.) `NAVIGATE_TREE {requestId, payload?, fromCommand?}` — `navigateTree()`
 *   (`fromCommand`: called inside an extension dispatch): in `idle` it enters `branchSummary`; in
 *   `preflight`, from a command (`ctx.navigateTree()`, which runs inside its prompt's preflight), a
 *   `navigateTree` child is spawned beside the command, and prompts wait for it. One navigation at a
 *   time. The machine answers every other one at once, refused
 *   (`tree_navigation_done {refused: "streaming" | "compacting"}`): `streaming` while an operation is
 *   active (through `settling`) and in a preflight not from a command, `compacting` otherwise (a
 *   compaction, or another navigation in flight). For the other events, check
 *   `actor.getSnapshot().can(event)` before sending: events a state does not accept are ignored.
 * - `ABORT` (`abort()`), `ABORT_RETRY` (`abortRetry()`), `ABORT_COMPACTION` (`abortCompaction()`),
 *   `ABORT_BRANCH_SUMMARY` (`abortBranchSummary()`).
 * - `RETRY_ANNOUNCED` — from the event bridge, when it decides `agent_end{willRetry: true}` (before any handler sees it). From then
 *   until the run ends, an `ABORT_RETRY` is remembered and cancels that retry as soon as its backoff
 *   starts (one `auto_retry_start`, then `auto_retry_end{finalError: "Retry cancelled"}`, → `settling`). It also fixes the retry
 *   settings for that retry: an `UPDATE_RETRY_SETTINGS` after it applies from the next failure on.
 * - `RETRY_DECLINED` — from the event bridge, when it decides `agent_end{willRetry: false}` after a
 *   failed answer: that run is not retried, even if a listener turns retries on (its setting applies
 *   from the next failure on).
 * - From the event bridge, while a run is active: `USER_MESSAGE_START` at a user
 *   `message_start`, `ASSISTANT_MESSAGE_END {stopReason}` at an assistant `message_end`. They keep the
 *   retry counter and the overflow-recovered flag in this machine's context. During a retried request
 *   the first answer ends the retry: `auto_retry_end{success: true}`, or `{success: false, finalError:
 *   "Retry cancelled"}` when it was aborted (pi 0.73.1 reports an aborted answer as a success).
 * - `REQUEST_NEEDS_COMPACTION` — from the run's request preparation (pi 1.6 virtual models): the
 *   request a virtual model just routed is over the routed model's compaction threshold. Accepted
 *   only in `running.working` (check `can()` first; otherwise send as is): the machine enters
 *   `running.compacting`, runs the `compact` actor (`threshold`, never `willRetry`) and answers
 *   `request_compaction_done`, whatever the outcome; the run then sends the request on the same route.
 * - `PRE_SEND_COMPACTION_START {reason}` / `PRE_SEND_COMPACTION_END` — from the preflight, around
 *   the compaction it runs before sending a prompt. Accepted only in `preflight`; the
 *   machine stays there and keeps the reason in `context.preflightCompactions.preSend`, so `isCompacting` is
 *   true meanwhile (as in pi) and the inspection stream shows it.
 * - `UPDATE_RETRY_SETTINGS {retry}` — any time (when a prompt is sent, a run ends, settings reload).
 * - From a summarizer's retry loop ({@link SummarizationRetryReport}), any time:
 *   `SUMMARIZATION_RETRY_SCHEDULED {attempt, maxAttempts, delayMs, errorMessage}`,
 *   `SUMMARIZATION_RETRY_ATTEMPT_START {source, reason?}`, `SUMMARIZATION_RETRY_FINISHED {success, attempt, finalError?}`.
 * - `QUEUE_CHANGED {steering, followUp, change, queue?, text?}` ({@link QueueChange}) — any time, only
 *   when the session's steering / follow-up lists changed (a message queued, delivered, the lists
 *   cleared, an undelivered one restored on dispose), never per turn.
 * - `ENTRY_WRITTEN {entryId, entryType, role?, stopReason?, targetId?}` ({@link EntryWritten}) — any
 *   time, for each entry the session appends to its log. The machine ignores it (no transition, no
 *   action): it is sent so that inspection and traces show which entries each step wrote.
 * - `QUEUE_INPUT_STARTED` / `QUEUE_INPUT_FINISHED {queued}` — any time, around the input hooks of
 *   a `steer()` / `followUp()` call (sent only when an `input` handler exists, i.e. when queueing
 *   awaits): counted with the busy prompts, so an operation about to settle waits for it in
 *   `beforeSettle.awaitingInput` and runs again when it was queued (pi issue 5886).
 * - The replies to the machine's requests (below): `PREFLIGHT_DONE {output}` / `PREFLIGHT_FAILED {error}`,
 *   `RUN_DONE` / `RUN_FAILED`, `BEFORE_SETTLE_DONE` / `BEFORE_SETTLE_FAILED`, `SETTLE_DONE` / `SETTLE_FAILED`.
 *
 * ## Work the session does for the machine
 * The four steps of every operation are requests the machine emits on entering a state and the
 * session answers with an event; the state is left only by its answer, so an answer always
 * belongs to the request in flight. (An invoked XState actor per step cost ~25 µs each — more than
 * the rest of an operation's orchestration; a request/answer pair costs a few µs, and the
 * inspection stream still shows each request and answer.)
 *
 * | request (emitted) | input | answer (event) | notes |
 * |---|---|---|---|
 * | `preflight_requested` | {@link PreflightInput} | `PREFLIGHT_DONE {output: PreflightOutcome}` | The prompt pipeline while idle (command, input hook, expansion, model and auth checks, pre-send compaction). `PREFLIGHT_FAILED` → rejected. |
 * | `run_requested` | {@link RunInput} | `RUN_DONE {output: RunOutcome}` | one `agent.prompt(messages)` / `agent.continue()`; answered after `agent_end` was handled. |
 * | `before_settle_requested` | {@link BeforeSettleInput} | `BEFORE_SETTLE_DONE {output: BeforeSettleOutput}` | the `agent_before_settle` boundary; `continue` only when valid. |
 * | `settle_requested` | {@link SettleInput} | `SETTLE_DONE` | flush pending bash + custom messages, clear per-run options, await `agent_settled` handlers and listeners. |
 *
 * Actors the session provides for the rarer steps (input → output); each placeholder throws
 * `"<name>" is not provided`:
 * | actor | input | output | notes |
 * |---|---|---|---|
 * | `busyPreflight` | {@link BusyPreflightInput} | {@link BusyPreflightOutcome} | The prompt pipeline while busy: command, input hook, expansion, `streamingBehavior` (queue) or pi's rejection. Never starts a run. |
 * | `compact` | {@link CompactionInput} | {@link CompactionOutput} | `_runAutoCompaction` / manual `compact()`; emits `compaction_start/end` itself. |
 * | `navigateTree` | {@link NavigateTreeInput} | {@link NavigateTreeOutput} | Tree navigation, including the branch summary (counts as compacting). |
 *
 * Long-running work is never cut short by an abort: the machine enters an `aborting` sub-state,
 * emits `abort_requested {target}` and waits for the answer (or the actor) to finish (see "Decisions").
 *
 * ## What the machine emits ({@link PromptOperationEmitted}, via XState `emit`; listen with `actor.on`)
 * Side effects are typed emitted events, not placeholder actions: the session subscribes once, the
 * diagram still shows the named action (`announceRetryStart` …), and the inspection stream sees each
 * payload. Listeners run synchronously after the transition (the snapshot already shows the new
 * state) and must not throw: XState keeps the actor running but rethrows the error asynchronously,
 * which is an uncaught exception in Node — wrap listener bodies.
 * - `preflight_result {requestId, disposition, error?}` — resolve/reject the caller of `prompt()`;
 *   `started` callers keep waiting for `operation_settled` (`prompt()` resolves after settling).
 * - `prompt_deferred {requestId}`; `operation_started {operationId, requestId}`;
 *   `operation_settled {operationId, requestId, aborted, stall?, runFailure?}` — once per started
 *   operation, after `settle`; `stall` ({@link OperationStall}) when it settled because a run made no
 *   progress (fail the caller of `prompt()` with it; what was queued stays queued); `runFailure` when
 *   the run threw (`RUN_FAILED`: fail the caller with that error after settling, as pi does).
 * - `auto_retry_start {attempt, maxAttempts, delayMs, errorMessage}` (the session also omits the failed
 *   attempt from context here) and `auto_retry_end {success, attempt, finalError?}` —
 *   forward both to public listeners unchanged.
 * - `summarization_retry_scheduled {attempt, maxAttempts, delayMs, errorMessage}`,
 *   `summarization_retry_attempt_start {source, reason?}`, `summarization_retry_finished {success, attempt, finalError?}`
 *   — echo the summarizer's reports (above) without changing state, so inspection and traces show a
 *   compaction's or branch summary's retries and backoffs; forward them to public listeners (pi's
 *   `summarization_retry_finished` carries no fields).
 * - `queue_changed {steering, followUp, change, queue?, text?}` — echoes `QUEUE_CHANGED` without changing
 *   state, so inspection and traces show the queues beside the lifecycle (the session does not listen
 *   to it: its public `queue_update` is emitted by the queues themselves).
 * - `overflow_recovery_failed {kind, errorMessage}` — emit `compaction_end{reason:"overflow",
 *   result:undefined, aborted:false, willRetry:false, errorMessage}` + `session_compact_failed`.
 * - `abort_requested {target: "run" | "compaction" | "boundary" | "branch_summary" | "preflight" | "settled"}` — call
 *   `agent.abort()` / abort the compaction, boundary or branch-summary controller; `preflight`: abort
 *   the pre-send compaction if the preflight is running one; `settled`: abort the signal the
 *   `agent_settled` handlers get as `ctx.signal` (an `ABORT` in `settling` changes no state).
 * - `preflight_dispatch_released` — the answer to `PREFLIGHT_DISPATCH_END` (also emitted when a
 *   dispatch compaction ends before the dispatch asked: nobody waits then).
 * - `manual_compaction_done {requestId, output?, error?, cancelled?, refused?}` (one per compaction request, also
 *   per request that joined a held one), `tree_navigation_done {requestId, output?, error?}`.
 * - `request_compaction_done {output?, error?}` — the answer to `REQUEST_NEEDS_COMPACTION`: let the
 *   waiting request preparation go on (after an `ABORT` the run is being aborted by then).
 *
 * ## Decisions
 * - **Abort while running**: `running.aborting` waits for `RUN_DONE` (the agent finishes
 *   cooperatively, so the partial assistant message reaches `message_end` and is persisted) and only
 *   then goes through `postRun` (abort first) to `settling`. Stopping the child instead would let
 *   `settle` race the agent's last `message_end`. Same pattern for compaction, the boundary and the
 *   branch summary.
 * - **Decision order out of `postRun`** : abort → retry (attempts left) → overflow
 *   recovery (once per request) → recovery failed → successful answer over the window (compact,
 *   never re-run) → threshold → stalled (queued, but the run added nothing: settle) → queued after
 *   `agent_end` → `beforeSettle`. A retryable error that
 *   is not retried (disabled, exhausted, or the provider asked for more than the cap) ends its
 *   retry sequence (`auto_retry_end{success:false}`) and still gets the threshold check and the
 *   queued-messages check, so a session that keeps failing can still compact.
 * - **No run repeats a run that made no progress** (no livelock): a run re-runs for queued messages
 *   only when it added something to the transcript (`RunOutcome.madeProgress`). A run that added
 *   nothing while messages stay queued (a continuation skipped or without effect) would be followed
 *   by the same run on the same state, forever, in microtasks — no timer, no `ABORT` could get in.
 *   Instead the operation settles at once with `operation_settled.stall` (`queuedRunStalled`);
 *   likewise when `agent_before_settle` asks to continue again after its own continuation added
 *   nothing (`boundaryContinuationStalled`), unless input was queued while the boundary ran (that
 *   runs: it is progress, and a stall would strand it). The boundary is skipped on this path, as after a
 *   failed run. Every other way back into `running` is bounded already: retries by `maxRetries`,
 *   overflow recovery once per request, threshold compaction only after a response.
 * - **Input still in flight never strands**: a prompt that arrives while busy runs its input hooks
 *   in a `busyPreflight` child. If the operation is about to settle while one is still running,
 *   it waits in `beforeSettle.awaitingInput`: a queued result continues the operation (`running`,
 *   cause `queued`), anything else settles. Without this, a steer typed during a compaction whose input
 *   hook is slow would be queued after the operation settled and wait for an unrelated prompt.
 *   `steer()` / `followUp()` calls in their input hooks count the same way (`QUEUE_INPUT_STARTED` /
 *   `QUEUE_INPUT_FINISHED {queued}`): they queue outside the machine, so the session reports them.
 * - **Backoff**: {@link planRetry} (the one retry policy) = max(`baseDelayMs·2^(attempt−1)` capped at
 *   `maxAgentDelayMs`, provider-requested delay, previous delay of this retry sequence); a requested
 *   delay above the cap gives up. The floor keeps delays non-decreasing within a sequence even when
 *   Retry-After shrinks.
 *   Jitter: override the `scheduleRetry` action via `.provide()`.
 * - **compact() while busy is one transition**: the `COMPACT` that aborts also holds the compaction
 *   (`deferredCompaction`), so it starts the moment the machine is idle again — after the aborted
 *   operation's one settle (its partial message persisted, `agent_end` / `agent_settled` emitted),
 *   before the prompts deferred meanwhile; a prompt sent once it runs meets pi's manual-compaction
 *   rule (`BUSY`). What the aborted run had queued stays queued (a manual compaction never
 *   continues), as after `abort()`.
 * - **Exactly one settle** per started operation: every path out of an operation state ends in
 *   `settling`, which requests `settle` once and goes to `idle`. Preflight outcomes other than
 *   `started` never settle. A `started` preflight after an `ABORT` settles without running.
 * - `ABORT_RETRY` during backoff ends the operation like `ABORT` (→ `settling`), per the task brief.
 *   Sent after `agent_end{willRetry: true}` (`RETRY_ANNOUNCED`) but before the run ended, it cancels
 *   the announced retry at the first instant of its backoff, so the outcome is the same as during the
 *   backoff (pi ignores it there and retries anyway; a caller told a retry is coming can't cancel it).
 * - **Compaction before a routed request** (pi 1.6 `_installAgentRequestProjection`) happens while
 *   the run is suspended inside its request preparation, so it is a sub-state of `running`
 *   (`running.compacting`), not a run that ends and restarts: the user message is already in the
 *   transcript, the router has decided and stored its state, and the request must go out on that
 *   route with the compacted context. Ending the run instead would need a "needs compaction"
 *   outcome the agent loop does not have (it would record an aborted or error response) and a
 *   second routing. A failed or cancelled compaction still sends the request (pi: the route stands;
 *   overflow recovery handles the rest); `ABORT` waits for the compaction to end, then aborts the
 *   run (`running.aborting`), so the operation still settles once.
 * - A cancelled or failed compaction never re-runs the request; the operation continues only when
 *   messages are queued, else goes to `beforeSettle` (no dead ends). An extension that cancels an
 *   overflow recovery (`session_before_compact` → `{cancel: true}`) means "don't compact now":
 *   re-sending the same oversized context would only overflow again, so the request ends —
 *   `compaction_end{aborted: true, willRetry: false}`, one `agent_settled`, `prompt()` resolves —
 *   and the next request's overflow is recovered as usual (the once-per-request flag resets with
 *   the operation and at every user message). A downstream fork instead hung here.
 *
 * Derive the session flags from the snapshot with {@link isStreaming}, {@link isRetrying},
 * {@link isCompacting}, {@link isOperationActive} and {@link lifecycleState}.
 * @module
 */
import { type ActorRefFrom, assign, emit, enqueueActions, fromPromise, not, type SnapshotFrom, setup } from "xstate";
import type { StopReason } from "../src/llm/types.js";

/** The machine's id (root state node id and inspection name). */
export const PROMPT_OPERATION_MACHINE_ID = "promptOperation";

// ---------------------------------------------------------------------------------------------
// Settings and pure helpers

/** Settings `retry.*` (same shape as the settings schema). The one definition: `src/session/retry-policy.ts` re-exports it. */
export interface RetrySettings {
	/** Retry transient provider failures automatically. */
	enabled: boolean;
	/** Retries per failing request, not counting the original attempt. */
	maxRetries: number;
	/** Delay before the first retry; doubles for each further retry. */
	baseDelayMs: number;
	/**
	 * Longest wait the agent accepts: computed delays are capped here, and a provider asking for a
	 * longer wait ends the operation with the error instead. `0` (or less) means no cap.
	 */
	maxAgentDelayMs: number;
}

/** pi's defaults: 3 retries, 2 s base, 60 s cap. */
export const DEFAULT_RETRY_SETTINGS: Readonly<RetrySettings> = Object.freeze({
	enabled: true,
	maxRetries: 3,
	baseDelayMs: 2000,
	maxAgentDelayMs: 60_000,
});

/** Adjusts a computed backoff delay (e.g. ±10% jitter). The result is still capped. */
export type RetryJitter = (delayMs: number, attempt: number) => number;

/** Options of {@link planRetry}. */
export interface PlanRetryOptions {
	/** The wait the provider asked for (see `parseRequestedRetryDelayMs`). */
	requestedDelayMs?: number;
	/** Jitter applied to the computed backoff before the cap; default none (deterministic). */
	jitter?: RetryJitter;
	/**
	 * Lower bound for the delay: the previous delay of the same retry sequence, so delays never
	 * shrink within a sequence even when a provider's Retry-After does. Itself capped at a positive
	 * `maxAgentDelayMs` (a cap lowered mid-sequence wins).
	 */
	floorMs?: number;
}

/** Why {@link planRetry} gave up. */
export type RetryGiveUpReason = "disabled" | "exhausted" | "requested_delay_exceeds_cap";

/** What to do about a retryable failure. */
export type RetryPlan =
	| {
			kind: "retry";
			/** The 1-based retry number this plan is for. */
			attempt: number;
			/** How long to wait before `continue()`. */
			delayMs: number;
			/** The capped exponential backoff alone (before honouring a requested delay or the floor). */
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
 * `maxAgentDelayMs` (when positive). Never negative. Pure.
 *
 * @example
 * ```ts
 * backoffDelayMs(DEFAULT_RETRY_SETTINGS, 3); // 8000
 * ```
 */
export function backoffDelayMs(settings: RetrySettings, attempt: number, jitter?: RetryJitter): number {
	const exponential = Math.max(0, settings.baseDelayMs) * 2 ** Math.max(0, attempt - 1);
	const jittered = jitter ? jitter(exponential, attempt) : exponential;
	const capped = settings.maxAgentDelayMs > 0 ? Math.min(jittered, settings.maxAgentDelayMs) : jittered;
	return Math.max(0, Math.round(capped));
}

/**
 * The retry policy — the one implementation; the machine's
 * `canRetry` guard and `scheduleRetry` action use it, and `src/session/retry-policy.ts` wraps it.
 * Decides whether retry number `attempt` (1-based: the retry about to be made) happens and after
 * what delay. In order: disabled → give up (`disabled`); `attempt > maxRetries` → give up
 * (`exhausted`); a provider-requested delay above a positive `maxAgentDelayMs` → give up
 * (`requested_delay_exceeds_cap`: waiting that long silently is worse than reporting the error);
 * otherwise retry after `max(backoff, requestedDelayMs, floorMs)`.
 *
 * Honouring the requested delay as a lower bound is a deliberate change from pi 0.73, which ignores
 * it at the agent level (its provider layer waits for Retry-After itself and reports over-cap waits
 * as `Server requested …s retry delay`, which pi then retries after the plain backoff — too early).
 * Pure; `attempt` is not validated here (the session's wrapper does).
 *
 * @example
 * ```ts
 * planRetry(DEFAULT_RETRY_SETTINGS, 3); // { kind: "retry", attempt: 3, delayMs: 8000, backoffDelayMs: 8000 }
 * planRetry(DEFAULT_RETRY_SETTINGS, 1, { requestedDelayMs: 3_600_000 }); // { kind: "give_up", reason: "requested_delay_exceeds_cap", … }
 * ```
 */
export function planRetry(settings: RetrySettings, attempt: number, options: PlanRetryOptions = {}): RetryPlan {
	const requested =
		options.requestedDelayMs !== undefined && Number.isFinite(options.requestedDelayMs)
			? options.requestedDelayMs
			: undefined;
	const giveUp = (reason: RetryGiveUpReason): RetryPlan => ({
		kind: "give_up",
		reason,
		attempt,
		maxRetries: settings.maxRetries,
		...(options.requestedDelayMs === undefined ? {} : { requestedDelayMs: options.requestedDelayMs }),
		maxAgentDelayMs: settings.maxAgentDelayMs,
	});
	if (!settings.enabled) return giveUp("disabled");
	if (attempt > settings.maxRetries) return giveUp("exhausted");
	if (requested !== undefined && settings.maxAgentDelayMs > 0 && requested > settings.maxAgentDelayMs) {
		return giveUp("requested_delay_exceeds_cap");
	}
	const backoff = backoffDelayMs(settings, attempt, options.jitter);
	const floor = Math.round(Math.max(0, options.floorMs ?? 0));
	const delayMs = Math.max(
		backoff,
		Math.ceil(Math.max(0, requested ?? 0)),
		settings.maxAgentDelayMs > 0 ? Math.min(floor, settings.maxAgentDelayMs) : floor,
	);
	return {
		kind: "retry",
		attempt,
		delayMs,
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
 * planRetry(DEFAULT_RETRY_SETTINGS, 1, { jitter: proportionalJitter(0.1) });
 * ```
 */
export function proportionalJitter(ratio = 0.1, random: () => number = Math.random): RetryJitter {
	return (delayMs) => delayMs * (1 - ratio + random() * 2 * ratio);
}

/** pi's texts for a second overflow within one request. */
export const OVERFLOW_RECOVERY_FAILED_MESSAGE =
	"Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";
export const LENGTH_RECOVERY_FAILED_MESSAGE = "Truncated response recovery failed after one compact-and-retry attempt.";
/** `finalError` of `auto_retry_end` when a backoff is cancelled. */
export const RETRY_CANCELLED_MESSAGE = "Retry cancelled";

// ---------------------------------------------------------------------------------------------
// Actor contracts

/**
 * One prompt as the session hands it to the machine. The machine only reads `requestId` (to
 * correlate emitted events); `payload` (text, images, options, source…) is opaque and passed back
 * in the `preflight_requested` request / to the `busyPreflight` actor unchanged.
 */
export interface PromptRequest {
	requestId: string;
	payload?: unknown;
	/**
	 * Sent while a manual compaction's `session_compact` handlers run (the compaction is saved): in
	 * `compacting` the request is deferred and re-issued once idle instead of refused (pi#9647).
	 */
	whenIdle?: boolean;
}

/** Input of the `preflight_requested` request (the prompt pipeline while idle). */
export interface PreflightInput {
	request: PromptRequest;
}

/**
 * What a preflight decided (`PREFLIGHT_DONE {output}`). `started` may carry `runPayload` (e.g. the
 * built messages), handed to the first run request of the operation as {@link RunInput.payload};
 * the machine never looks inside.
 */
export type PreflightOutcome =
	| { disposition: "handled" }
	| { disposition: "queued" }
	| { disposition: "rejected"; error: unknown }
	| { disposition: "started"; runPayload?: unknown };

/** States in which a `PROMPT` is handled by a spawned `busyPreflight` child. */
export type BusyPhase = "running" | "retrying" | "compacting" | "beforeSettle" | "branchSummary";

/** Input of the `busyPreflight` actor (the prompt pipeline while streaming or compacting). */
export interface BusyPreflightInput {
	request: PromptRequest;
	phase: BusyPhase;
	/** Set in `compacting`: `manual` means pi's "Cannot submit a prompt while compaction is in progress" rule. */
	compactionReason?: CompactionReason;
}

/** A busy preflight never starts a run: it handles, queues (steer / followUp) or rejects. */
export type BusyPreflightOutcome =
	| { disposition: "handled" }
	| { disposition: "queued" }
	| { disposition: "rejected"; error: unknown };

/** Why a run was started (for the run request and the inspection stream). */
export type RunCause = "prompt" | "retry" | "compaction" | "queued" | "boundary";

/** Input of the `run_requested` request. */
export interface RunInput {
	operationId: number;
	requestId: string;
	/** `prompt` → `agent.prompt(payload)`; `continue` → `agent.continue()` (no duplicate user message). */
	mode: "prompt" | "continue";
	cause: RunCause;
	/** 1-based index of this run within the operation. */
	runIndex: number;
	/** Retry attempt this run is (0 when not a retry). */
	retryAttempt: number;
	/** The preflight's `runPayload`, on the first run only. */
	payload?: unknown;
}

/** How the session classifies the last assistant message of a run (one classifier for retry and compaction). */
export type RunErrorClass = "none" | "retryable" | "overflow" | "length_overflow" | "fatal";

/**
 * Answer to `run_requested` (`RUN_DONE {output}`), computed by the session from the last assistant message recorded at
 * its `message_end` and the agent state once the run has ended.
 */
export interface RunOutcome {
	/** Stop reason of the last assistant message; `undefined` when the run produced none. */
	stopReason: StopReason | undefined;
	/**
	 * `overflow` with `stopReason: "error"` (or `length_overflow`) → compact and re-run once per request;
	 * `overflow` with any other stop reason = a successful answer over the window → compact, never re-run.
	 */
	errorClass: RunErrorClass;
	errorMessage?: string;
	/** Retry-After the provider asked for, in ms. */
	requestedDelayMs?: number;
	/** The compaction threshold check after the response says compact (`shouldCompact`). */
	overThreshold: boolean;
	/**
	 * The threshold check's numbers, for traces (the machine decides on `overThreshold` alone): the
	 * context's tokens after the response, and the threshold it is compared with (`contextWindow −
	 * compaction.reserveTokens`; over means `contextTokens > thresholdTokens`). Absent when no check
	 * ran (compaction disabled, an overflow, an aborted response, no usage or model).
	 */
	contextTokens?: number;
	thresholdTokens?: number;
	/** `agent.hasQueuedMessages()` after the run (messages queued by `agent_end` handlers). */
	hasQueuedMessages: boolean;
	/**
	 * `false`: the run added no message to the transcript (a skipped continuation, or an
	 * `agent.continue()` that returned without running), so running again on the same state cannot
	 * deliver what is queued (see `queuedRunStalled`). Absent counts as progress.
	 */
	madeProgress?: boolean;
	/** The last assistant message ended with `stopReason: "aborted"`. */
	aborted: boolean;
	/**
	 * `false` when no extension handles `agent_before_settle`: the boundary is then passed without
	 * a request (it could only continue for queued messages, which `hasQueuedMessages` covers).
	 * Absent: the boundary is requested.
	 */
	beforeSettleBoundary?: boolean;
}

/**
 * Why an operation settled early instead of running again (`operation_settled.stall`): a run added
 * nothing to the transcript, and the only way on was to run again on the same state — a livelock.
 * - `queued_messages`: messages stayed queued after a run that added nothing (`postRun`).
 * - `boundary_continuation`: the `agent_before_settle` boundary asked to continue again after the
 *   continuation it had asked for added nothing.
 */
export interface OperationStall {
	reason: "queued_messages" | "boundary_continuation";
	/** The run that added nothing: why it ran and its 1-based index within the operation. */
	runCause: RunCause;
	runIndex: number;
}

/** `compaction_start/end` reason. */
export type CompactionReason = "manual" | "threshold" | "overflow";

/** Why the preflight compacts before it sends a prompt: never `manual` (`compact()` is `COMPACT`). */
export type PreSendCompactionReason = Exclude<CompactionReason, "manual">;

/** Input of the `compact` actor. */
export interface CompactionInput {
	reason: CompactionReason;
	/** Overflow recovery: omit the failed turn, compact, then re-run. */
	willRetry: boolean;
	/** The operation it belongs to; undefined for manual compaction. */
	operationId?: number;
	/** Manual compaction: the `COMPACT` request id. */
	requestId?: string;
	/** Manual compaction: opaque payload of `COMPACT` (custom instructions). */
	payload?: unknown;
}

/** Output of the `compact` actor. Failures resolve with `compacted: false` (reject is treated the same). */
export interface CompactionOutput {
	/** A compaction entry was written. */
	compacted: boolean;
	/** `agent.hasQueuedMessages()` afterwards: continue the operation even without a retry. */
	continue: boolean;
	/** An extension cancelled it (`session_before_compact`). */
	cancelled?: boolean;
	/** The path of the extension whose `session_before_compact` handler cancelled it. */
	cancelledBy?: string;
	/**
	 * Aborted once its entry was written (`abortCompaction()` during `session_compact`): the entry
	 * stays, but an overflow recovery does not re-run the request (its `compaction_end` said `willRetry: false`).
	 */
	abortedAfterSave?: boolean;
	/** Compaction result or error text for the caller of a manual `compact()`. */
	result?: unknown;
	errorMessage?: string;
	/** The `compaction` entry written (when `compacted`), for traces: the session file's entry id. */
	entryId?: string;
	/**
	 * Why an automatic compaction did not start (it emits no `compaction_start` then): the session
	 * has no model, or nothing to compact (everything fits in `keepRecentTokens`). Shown in traces.
	 */
	skipped?: "no_model" | "nothing_to_compact";
}

/** Input of the `before_settle_requested` request. */
export interface BeforeSettleInput {
	operationId: number;
	requestId: string;
	/** From the last run's stop reason. */
	outcome: "completed" | "aborted" | "error";
}

/** Answer to `before_settle_requested` (`BEFORE_SETTLE_DONE {output}`): `continue` only when a continuation is valid (`canContinue`). */
export interface BeforeSettleOutput {
	continue: boolean;
}

/** Input of the `settle_requested` request. */
export interface SettleInput {
	operationId: number;
	requestId: string;
	aborted: boolean;
	/** Error text of the last run when it failed. */
	finalError?: string;
}

/** Input of the `navigateTree` actor. */
export interface NavigateTreeInput {
	requestId: string;
	payload?: unknown;
}

/** Output of the `navigateTree` actor (the navigation's result). */
export interface NavigateTreeOutput {
	cancelled: boolean;
	aborted?: boolean;
	result?: unknown;
}

// ---------------------------------------------------------------------------------------------
// Events, emitted events, context

/** Events the session sends to the machine. */
export type PromptOperationEvent =
	| { type: "PROMPT"; request: PromptRequest }
	| { type: "COMPACT"; requestId: string; payload?: unknown }
	/**
	 * `ctx.compact()`: held until the operation settles. `fromDispatch`: called inside the session's
	 * own extension dispatch (during `preflight`: its command or `input` / `before_agent_start` handlers).
	 */
	| { type: "COMPACT_WHEN_SETTLED"; requestId: string; payload?: unknown; fromDispatch?: boolean }
	| { type: "NAVIGATE_TREE"; requestId: string; payload?: unknown; fromCommand?: boolean }
	| { type: "ABORT" }
	| { type: "ABORT_RETRY" }
	| { type: "RETRY_ANNOUNCED" }
	| { type: "RETRY_DECLINED" }
	| { type: "ABORT_COMPACTION" }
	| { type: "ABORT_BRANCH_SUMMARY" }
	| { type: "USER_MESSAGE_START" }
	| { type: "ASSISTANT_MESSAGE_END"; stopReason: StopReason }
	| { type: "REQUEST_NEEDS_COMPACTION" }
	| {
			type: "PRE_SEND_COMPACTION_START";
			reason: PreSendCompactionReason;
			/** For traces, with `threshold`: the check's numbers, as in {@link RunOutcome}. */
			contextTokens?: number;
			thresholdTokens?: number;
	  }
	/** `output`, for traces: what the compaction did (the machine runs no `compact` actor for it). */
	| { type: "PRE_SEND_COMPACTION_END"; output?: CompactionOutput }
	/** The preflight's dispatch (command, `input` / `before_agent_start` handlers) returned: may it go on? */
	| { type: "PREFLIGHT_DISPATCH_END" }
	| { type: "UPDATE_RETRY_SETTINGS"; retry: Partial<RetrySettings> }
	| ({ type: "ENTRY_WRITTEN" } & EntryWritten)
	| SummarizationRetryReport
	| ({ type: "QUEUE_CHANGED" } & QueueChange)
	| { type: "QUEUE_INPUT_STARTED" }
	| { type: "QUEUE_INPUT_FINISHED"; queued: boolean }
	| { type: "PREFLIGHT_DONE"; output: PreflightOutcome }
	| { type: "PREFLIGHT_FAILED"; error: unknown }
	| { type: "RUN_DONE"; output: RunOutcome }
	| { type: "RUN_FAILED"; error: unknown }
	| { type: "BEFORE_SETTLE_DONE"; output: BeforeSettleOutput }
	| { type: "BEFORE_SETTLE_FAILED"; error: unknown }
	| { type: "SETTLE_DONE" }
	| { type: "SETTLE_FAILED"; error: unknown }
	| { type: `xstate.done.actor.busyPreflight.${string}`; output: BusyPreflightOutcome; actorId?: string }
	| { type: `xstate.error.actor.busyPreflight.${string}`; error: unknown; actorId?: string }
	| { type: "xstate.done.actor.navigateTree"; output: NavigateTreeOutput; actorId?: string }
	| { type: "xstate.error.actor.navigateTree"; error: unknown; actorId?: string }
	| { type: "xstate.done.actor.dispatchCompaction"; output: CompactionOutput; actorId?: string }
	| { type: "xstate.error.actor.dispatchCompaction"; error: unknown; actorId?: string };

/**
 * What a summarizer's retry loop reports while it runs (inside `compacting`, `branchSummary`, or a
 * preflight's pre-send compaction / a command's tree navigation): a transient failure and its
 * backoff, the next attempt starting, the retried call ending. The loop and its sleep stay in the
 * summarizer (its abort signal ends the backoff); the machine only announces them.
 */
export type SummarizationRetryReport =
	| ({ type: "SUMMARIZATION_RETRY_SCHEDULED" } & SummarizationRetryScheduled)
	| ({ type: "SUMMARIZATION_RETRY_ATTEMPT_START" } & SummarizationRetryAttemptStart)
	| ({ type: "SUMMARIZATION_RETRY_FINISHED" } & SummarizationRetryFinished);

/**
 * Which of a split-turn compaction's two summary requests (they run at the same time, each retried
 * on its own) a report is about; absent for every other summary request.
 */
export type SummaryPartField = { part?: "history" | "turnPrefix" };
/** A transient summary failure and the backoff before the next attempt. */
export type SummarizationRetryScheduled = {
	attempt: number;
	maxAttempts: number;
	delayMs: number;
	errorMessage: string;
} & SummaryPartField;
/** Which summarizer's retried attempt starts now. */
export type SummarizationRetryAttemptStart = (
	| { source: "compaction"; reason: CompactionReason }
	| { source: "branchSummary" }
) &
	SummaryPartField;
/** A retried summary call ended. */
export type SummarizationRetryFinished = { success: boolean; attempt: number; finalError?: string } & SummaryPartField;

/**
 * The session's steering / follow-up lists after a change, and what changed: a text `queued` on
 * `queue`, the next queued text `delivered` (its user message started), both lists `cleared`, or
 * a text whose delivery a dispose cut short `restored` to its list. Counts, not the lists: the
 * machine keeps nothing of it, and `text` is the session's shortened copy (absent for `cleared`).
 */
export interface QueueChange {
	steering: number;
	followUp: number;
	change: "queued" | "delivered" | "cleared" | "restored";
	queue?: "steering" | "followUp";
	text?: string;
}

/**
 * An entry the session appended to its log (`ENTRY_WRITTEN`), as traces show it: its id in the
 * session file, its `type` (`message`, `context_edit`, `compaction`, …), a message's `role` and an
 * assistant message's `stopReason`, and the entry a `context_edit` (or `label`) applies to
 * (`targetId`).
 */
export interface EntryWritten {
	entryId: string;
	entryType: string;
	role?: string;
	stopReason?: string;
	targetId?: string;
	/** A `context_edit` that takes its target out of the model context (`true`) or replaces it (`false`). */
	omits?: boolean;
}

/** The `part` field of a summarization retry report, when it has one. */
function partOf(report: SummaryPartField): SummaryPartField {
	return report.part !== undefined ? { part: report.part } : {};
}

/** What the abort signal is for (`preflight`: the pre-send or dispatch compaction a preflight may be running). */
export type AbortTarget = "run" | "compaction" | "boundary" | "branch_summary" | "preflight" | "settled";

/** Typed events the machine emits (listen with `actor.on(type, handler)`). */
export type PromptOperationEmitted =
	| { type: "preflight_requested"; input: PreflightInput }
	| { type: "run_requested"; input: RunInput }
	| { type: "before_settle_requested"; input: BeforeSettleInput }
	| { type: "settle_requested"; input: SettleInput }
	| { type: "preflight_result"; requestId: string; disposition: PreflightOutcome["disposition"]; error?: unknown }
	| { type: "prompt_deferred"; requestId: string }
	| { type: "operation_started"; operationId: number; requestId: string }
	| {
			type: "operation_settled";
			operationId: number;
			requestId: string;
			aborted: boolean;
			stall?: OperationStall;
			runFailure?: { error: unknown };
	  }
	| { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
	| { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string }
	| ({ type: "summarization_retry_scheduled" } & SummarizationRetryScheduled)
	| ({ type: "summarization_retry_attempt_start" } & SummarizationRetryAttemptStart)
	| ({ type: "summarization_retry_finished" } & SummarizationRetryFinished)
	| ({ type: "queue_changed" } & QueueChange)
	| { type: "overflow_recovery_failed"; kind: "overflow" | "length"; errorMessage: string }
	| { type: "abort_requested"; target: AbortTarget }
	| {
			type: "manual_compaction_done";
			requestId: string;
			output?: CompactionOutput;
			error?: unknown;
			/** A deferred compaction, cancelled before it started (`abortCompaction()`, or `abort()` when it waited on what that ends). */
			cancelled?: true;
			/** Not joined: a manual compaction with other instructions (payload) runs; nothing was done for this request. */
			refused?: "other_instructions";
	  }
	| { type: "request_compaction_done"; output?: CompactionOutput; error?: unknown }
	/** The answer to `PREFLIGHT_DISPATCH_END` (the preflight goes on); also sent when no one asked yet. */
	| { type: "preflight_dispatch_released" }
	| {
			type: "tree_navigation_done";
			requestId: string;
			output?: NavigateTreeOutput;
			error?: unknown;
			/** Not taken: an operation is running (`streaming`), or a compaction or navigation is (`compacting`). */
			refused?: "streaming" | "compacting";
	  };

/** Per-operation data (one started prompt, from `operation_started` to `operation_settled`). */
export interface OperationInfo {
	id: number;
	requestId: string;
	/** Runs started so far in this operation. */
	runCount: number;
	/**
	 * Input queued while the `agent_before_settle` boundary ran (`beforeSettle.working`): the
	 * boundary's answer looked at the queues before it, so this operation runs it rather than
	 * settling past it. Here, not a context field: one more context field made every `assign` of
	 * the machine dearer (about 3 µs per turn in the session bench).
	 */
	queuedDuringBoundary?: true;
	/**
	 * The retry settings `agent_end{willRetry: true}` was decided with, while that announcement
	 * stands (`retryAnnouncement` not `none`): a settings change after it (`retry.enabled` off,
	 * `maxRetries` lowered) applies from the next failure on, as one during the backoff does, so the
	 * announced retry still comes. Here, not a context field: see {@link PromptOperationContext}.
	 */
	announcedRetry?: RetrySettings;
}

/**
 * Machine context. Small and bounded: never the transcript. At most 19 keys: XState copies the
 * context with `Object.assign({}, context, update)` on every assign, and V8 (Node 20) makes such a
 * copy with 20 or more properties a dictionary-mode object (every read a hash lookup, every copy
 * slower), and every later copy stays one. A new field goes into a nested object (as
 * `operation.announcedRetry`, `preflightCompactions.dispatch`) or replaces one; no field is
 * optional (one an assign adds later is a 20th key on that path only). The model test
 * (test/machines/prompt-operation.model.test.ts) checks the count on every edge of the graph.
 */
export interface PromptOperationContext {
	retry: RetrySettings;
	/** Retries made in the current retry sequence (reset by success, give-up, cancel, settle). */
	retryAttempt: number;
	/** Backoff of the current (or last) retry; the floor for the next one in the same sequence. */
	retryDelayMs: number;
	/** An overflow recovery was made for the current request (once per failing request). */
	overflowRecoveryAttempted: boolean;
	/**
	 * The current run's `agent_end` said `willRetry: true` (`announced`), and `abortRetry()` came
	 * after that (`cancelled`); or it said `willRetry: false` after a failed answer (`declined`: no
	 * retry of this run). Reset whenever a run starts and when the operation settles.
	 */
	retryAnnouncement: RetryAnnouncement;
	abortRequested: boolean;
	/** The request in `preflight` (then the operation's request). */
	request: PromptRequest | undefined;
	operation: OperationInfo | undefined;
	/** Started operations so far (operation ids are 1-based). */
	operationCount: number;
	/** Why the next / current run starts. */
	runCause: RunCause;
	lastOutcome: RunOutcome | undefined;
	/** Set when the operation stopped running because a run made no progress (settles with it). */
	stall: OperationStall | undefined;
	/** What the run threw (`RUN_FAILED`): the operation settles and fails the caller of `prompt()` with it. */
	runFailure: { error: unknown } | undefined;
	compaction:
		| {
				reason: CompactionReason;
				willRetry: boolean;
				requestId?: string;
				payload?: unknown;
				/** A manual compaction's other callers, answered with its outcome ({@link DeferredCompaction.sharedWith}). */
				sharedWith?: string[];
		  }
		| undefined;
	/** The tree navigation in progress (`branchSummary`, or spawned by an extension command during `preflight`). */
	treeNavigation: { requestId: string; payload?: unknown } | undefined;
	/** The compactions running beside `preflight` (each absent when it does not run). */
	preflightCompactions: PreflightCompactions;
	/** Prompts received in `preflight` / `settling`, re-issued in order once idle. */
	deferredPrompts: PromptRequest[];
	/**
	 * The manual compaction waiting to start: asked for while the machine was busy (`COMPACT` aborts
	 * what runs, `COMPACT_WHEN_SETTLED` waits for the operation to settle), started once idle, before
	 * the deferred prompts.
	 */
	deferredCompaction: DeferredCompaction | undefined;
	/**
	 * Input still in its hooks that may yet be queued for this operation: `busyPreflight` children
	 * (prompts that arrived while busy) and `steer()` / `followUp()` calls (`QUEUE_INPUT_STARTED` …
	 * `QUEUE_INPUT_FINISHED`).
	 */
	busyPreflightsInFlight: number;
}

/**
 * The compactions that run beside `preflight` rather than in a state of their own (so that
 * `preflight` stays a leaf path): one context field for both, which keeps the context at 19 keys
 * ({@link PromptOperationContext}).
 */
export interface PreflightCompactions {
	/** Why the preflight is compacting before it sends the prompt, while it does. */
	preSend?: PreSendCompactionReason;
	/**
	 * The `ctx.compact()` the preflight's own dispatch asked for, running now in the
	 * `dispatchCompaction` child (its caller and those that joined it).
	 */
	dispatch?: { requestId: string; payload?: unknown; sharedWith?: string[] };
}

/**
 * A manual compaction the machine holds until it is idle (`context.deferredCompaction`): one at a
 * time; a later request joins it (its callers all get the one compaction's outcome).
 */
export interface DeferredCompaction {
	/** The request whose payload the compaction runs with. */
	requestId: string;
	payload?: unknown;
	/** Earlier (or later `ctx.compact()`) requests answered with the same outcome, in order. */
	sharedWith?: string[];
	/**
	 * Asked for while an operation (or a navigation) ran — `compact()` aborting it, or `ctx.compact()`
	 * waiting for it: `abort()` cancels it too. Absent: asked for while `agent_settled` handlers ran,
	 * after the operation was over; only `abortCompaction()` cancels it.
	 */
	cancelOnAbort?: true;
}

/**
 * Whether the current run's `agent_end` announced a retry, and whether `abortRetry()` cancelled it;
 * `declined`: it said `willRetry: false` after a failed answer.
 */
export type RetryAnnouncement = "none" | "announced" | "cancelled" | "declined";

/** Machine input. */
export interface PromptOperationInput {
	retry?: Partial<RetrySettings>;
}

function notProvided(name: string): never {
	throw new Error(
		`The prompt-operation actor "${name}" is not provided: pass it with promptOperationMachine.provide({ actors: { ${name} } }).`,
	);
}

function needsOverflowRetry(outcome: RunOutcome | undefined): boolean {
	if (!outcome) return false;
	return (
		outcome.errorClass === "length_overflow" || (outcome.errorClass === "overflow" && outcome.stopReason !== "stop")
	);
}

function nextRetryPlan(context: PromptOperationContext): RetryPlan {
	const options: PlanRetryOptions = {};
	if (context.lastOutcome?.requestedDelayMs !== undefined)
		options.requestedDelayMs = context.lastOutcome.requestedDelayMs;
	if (context.retryAttempt > 0) options.floorMs = context.retryDelayMs;
	return planRetry(retrySettingsOf(context), context.retryAttempt + 1, options);
}

/** The retry settings the post-run decision uses: the announced retry's ({@link OperationInfo.announcedRetry}), else the current ones. */
function retrySettingsOf(context: PromptOperationContext): RetrySettings {
	const announced = context.operation?.announcedRetry;
	return context.retryAnnouncement !== "none" && announced ? announced : context.retry;
}

/**
 * The run request for entering `running`. The preflight's `runPayload` is read from the event that
 * started the operation (`PREFLIGHT_DONE`), so it never sits in the context.
 */
function runInputOf(context: PromptOperationContext, event: PromptOperationEvent): RunInput {
	const operation = context.operation;
	const input: RunInput = {
		operationId: operation?.id ?? 0,
		requestId: operation?.requestId ?? "",
		mode: context.runCause === "prompt" ? "prompt" : "continue",
		cause: context.runCause,
		runIndex: operation?.runCount ?? 1,
		retryAttempt: context.runCause === "retry" ? context.retryAttempt : 0,
	};
	if (
		context.runCause === "prompt" &&
		event.type === "PREFLIGHT_DONE" &&
		event.output.disposition === "started" &&
		event.output.runPayload !== undefined
	) {
		input.payload = event.output.runPayload;
	}
	return input;
}

/** Input of the `compact` actor, from the compaction the context records. */
function compactionInputOf(context: PromptOperationContext): CompactionInput {
	const compaction = context.compaction ?? { reason: "threshold" as const, willRetry: false };
	const input: CompactionInput = { reason: compaction.reason, willRetry: compaction.willRetry };
	if (context.operation) input.operationId = context.operation.id;
	if (compaction.requestId !== undefined) input.requestId = compaction.requestId;
	if (compaction.payload !== undefined) input.payload = compaction.payload;
	return input;
}

function settleInputOf(context: PromptOperationContext): SettleInput {
	const input: SettleInput = {
		operationId: context.operation?.id ?? 0,
		requestId: context.operation?.requestId ?? "",
		aborted: context.abortRequested,
	};
	if (context.lastOutcome?.stopReason === "error" && context.lastOutcome.errorMessage !== undefined) {
		input.finalError = context.lastOutcome.errorMessage;
	}
	return input;
}

function runOutcomeLabel(outcome: RunOutcome | undefined): BeforeSettleInput["outcome"] {
	if (outcome?.aborted || outcome?.stopReason === "aborted") return "aborted";
	if (outcome?.stopReason === "error") return "error";
	return "completed";
}

// ---------------------------------------------------------------------------------------------
// The machine

/**
 * A `compact()` / `ctx.compact()` with other instructions than the compaction waiting to start
 * (`context.deferredCompaction`): refused as for a running one, and nothing else of it happens
 * (what runs is not aborted for a compaction that will not follow it).
 */
const refuseOtherThanWaiting = {
	guard: "differsFromWaitingCompaction",
	actions: "refuseCompactionWithOtherInstructions",
} as const;

/**
 * `COMPACT` and `COMPACT_WHEN_SETTLED` in `idle` (nothing runs, so there is nothing to wait for):
 * the compaction starts at once; while a command's navigation still summarizes, that is aborted and
 * the compaction starts when it has returned.
 */
const compactWhenIdle = [
	{ guard: "noTreeNavigationInFlight", target: "compacting", actions: "setManualCompaction" },
	refuseOtherThanWaiting,
	{
		actions: [
			{ type: "deferCompaction", params: { cancelOnAbort: true } },
			{ type: "signalAbort", params: { target: "branch_summary" } },
		],
	},
] as const;

/**
 * `COMPACT` in `preflight`, and `COMPACT_WHEN_SETTLED` not from the preflight's own dispatch: aborts
 * the prompt as `ABORT` does, and the compaction starts once the preflight has returned (the
 * operation, if it started, settled).
 */
const abortPreflightThenCompact = [
	refuseOtherThanWaiting,
	{
		guard: "treeNavigationInFlight",
		actions: [
			"markAbortRequested",
			{ type: "signalAbort", params: { target: "preflight" } },
			{ type: "signalAbort", params: { target: "branch_summary" } },
			{ type: "deferCompaction", params: { cancelOnAbort: true } },
		],
	},
	{
		actions: [
			"markAbortRequested",
			{ type: "signalAbort", params: { target: "preflight" } },
			{ type: "deferCompaction", params: { cancelOnAbort: true } },
		],
	},
] as const;

/** `abort()` while the operation runs: it ends, and a compaction `compact()` deferred to its end is dropped. */
const abortOperation = ["markAbortRequested", "cancelDeferredCompactionOnAbort"] as const;
/** `beforeSettle`: input queued while the boundary ran continues the operation (cause `queued`). */
const queuedDuringBoundaryRuns = {
	guard: "queuedDuringBoundary",
	target: "running",
	actions: { type: "setRunCause", params: { cause: "queued" } },
} as const;

/**
 * `compact()` while the operation runs: abort what runs, compact once the operation has settled
 * (the compaction is dropped if `abort()` follows).
 */
const abortThenCompact = ["markAbortRequested", { type: "deferCompaction", params: { cancelOnAbort: true } }] as const;

/**
 * The `working` step of a compaction (threshold before a routed request, or `compacting`):
 * `abort()`, `abortCompaction()` and `compact()` abort it; `aborting` waits for its
 * `compaction_end`. `compact()` aborts an automatic compaction and compacts once it has ended.
 */
const abortWorkingCompaction = {
	ABORT: { target: "aborting", actions: abortOperation },
	ABORT_COMPACTION: { target: "aborting", actions: "cancelDeferredCompaction" },
	COMPACT: [refuseOtherThanWaiting, { target: "aborting", actions: abortThenCompact }],
} as const;

/**
 * `compact()` during a manual compaction joins it (pi#4203): one summary, one entry, every caller
 * answered with it. Cancelling the first would fail its caller for no reason of its own.
 */
const joinRunningManualCompaction = { guard: "joinsManualCompaction", actions: "joinManualCompaction" } as const;

/**
 * A `compact()` / `ctx.compact()` with other instructions than the running manual compaction's: its
 * summary would not follow them, so the caller is refused (it may wait, or cancel and ask again).
 */
const refuseOtherInstructions = {
	guard: "isManualCompaction",
	actions: "refuseCompactionWithOtherInstructions",
} as const;

/**
 * A request may join a compaction running with `running`'s payload: it gave no instructions, or the
 * same ones (payloads are plain data: compared by their JSON).
 */
function sameCompactionRequest(running: { payload?: unknown }, event: { payload?: unknown }): boolean {
	return event.payload === undefined || JSON.stringify(event.payload) === JSON.stringify(running.payload);
}

/**
 * The end of a threshold compaction before a routed request (`params` carries its output or
 * error): the run goes on, or ends if `abort()` came meanwhile.
 */
function afterRequestCompaction<P>(params: P) {
	const actions = [{ type: "announceRequestCompactionDone", params }, "clearCompaction"] as const;
	return [
		{ guard: "abortRequested", target: "#promptOperation.running.aborting", actions },
		{ target: "#promptOperation.running.working", actions },
	] as const;
}

/**
 * The prompt-operation statechart (see the module doc for the full contract).
 *
 * @example
 * ```ts
 * import { createActor } from "xstate";
 * // The steps (preflight, run, compaction, …) a host implements, as AgentSession does:
 * declare const actors: NonNullable<Parameters<typeof promptOperationMachine.provide>[0]["actors"]>;
 * const actor = createActor(promptOperationMachine.provide({ actors }), { input: { retry: { maxRetries: 2 } } });
 * actor.on("operation_settled", (e) => console.log("settled", e.operationId));
 * actor.start();
 * actor.send({ type: "PROMPT", request: { requestId: "r1", payload: { text: "hi" } } });
 * ```
 */
export const promptOperationMachine = setup({
	types: {} as {
		context: PromptOperationContext;
		events: PromptOperationEvent;
		input: PromptOperationInput | undefined;
		emitted: PromptOperationEmitted;
	},
	actors: {
		busyPreflight: fromPromise<BusyPreflightOutcome, BusyPreflightInput>(async () => notProvided("busyPreflight")),
		compact: fromPromise<CompactionOutput, CompactionInput>(async () => notProvided("compact")),
		navigateTree: fromPromise<NavigateTreeOutput, NavigateTreeInput>(async () => notProvided("navigateTree")),
	},
	guards: {
		abortRequested: ({ context }) => context.abortRequested,
		// The hot path reads the answer from the event itself: a `params` mapper would be one more
		// closure call and object per evaluation, on every prompt.
		preflightStarted: ({ event }) => event.type === "PREFLIGHT_DONE" && event.output.disposition === "started",
		preflightStartedAfterAbort: ({ context, event }) =>
			event.type === "PREFLIGHT_DONE" && event.output.disposition === "started" && context.abortRequested,
		/** Retryable error, retries enabled, attempts left, and the provider's delay (if any) within the cap. */
		canRetry: ({ context }) =>
			context.retryAnnouncement !== "declined" &&
			retrySettingsOf(context).enabled &&
			context.lastOutcome?.errorClass === "retryable" &&
			nextRetryPlan(context).kind === "retry",
		/** The current run's `agent_end` said `willRetry: true` (and no `abortRetry()` came yet). */
		retryAnnounced: ({ context }) => context.retryAnnouncement === "announced",
		/** `abortRetry()` came between `agent_end{willRetry: true}` and the backoff. */
		announcedRetryCancelled: ({ context }) => context.retryAnnouncement === "cancelled",
		canRecoverOverflow: ({ context }) => needsOverflowRetry(context.lastOutcome) && !context.overflowRecoveryAttempted,
		overflowRecoveryFailed: ({ context }) => needsOverflowRetry(context.lastOutcome),
		/** A successful answer whose input exceeded the window: compact, never re-run. */
		completedOverWindow: ({ context }) =>
			context.lastOutcome?.errorClass === "overflow" && context.lastOutcome.stopReason === "stop",
		overThreshold: ({ context }) => context.lastOutcome?.overThreshold === true,
		hasQueuedMessages: ({ context }) => context.lastOutcome?.hasQueuedMessages === true,
		/**
		 * Messages are still queued after a run that added nothing: running again would see the same
		 * transcript and the same queue, and loop in microtasks forever (no timer, no abort could run).
		 */
		queuedRunStalled: ({ context }) =>
			context.lastOutcome?.hasQueuedMessages === true && context.lastOutcome.madeProgress === false,
		/** C.4 success detection: the retried request's first answer that is neither an error nor aborted. */
		retrySucceeded: ({ context, event }) =>
			event.type === "ASSISTANT_MESSAGE_END" &&
			event.stopReason !== "error" &&
			event.stopReason !== "aborted" &&
			context.retryAttempt > 0,
		/**
		 * The retried request was aborted before it answered: the retry ends cancelled, as an abort in
		 * its backoff does. pi 0.73.1 reports it as a success (DELIBERATE_ABORTED_RETRY_CANCELLED).
		 */
		retryAborted: ({ context, event }) =>
			context.retryAttempt > 0 && event.type === "ASSISTANT_MESSAGE_END" && event.stopReason === "aborted",
		isManualCompaction: ({ context }) => context.compaction?.reason === "manual",
		/** A manual compaction runs, and this request may share it ({@link sameCompactionRequest}). */
		joinsManualCompaction: ({ context, event }) =>
			context.compaction?.reason === "manual" &&
			(event.type === "COMPACT" || event.type === "COMPACT_WHEN_SETTLED") &&
			sameCompactionRequest(context.compaction, event),
		/** Overflow recovery compacted: re-run the request (a cancelled or failed compaction never re-runs). */
		compactedForRetry: ({ context }, params: { output: CompactionOutput }) =>
			params.output.compacted && params.output.abortedAfterSave !== true && context.compaction?.willRetry === true,
		compactionFoundQueuedMessages: (_, params: { output: CompactionOutput }) => params.output.continue,
		boundaryContinues: (_, params: { output: BeforeSettleOutput }) => params.output.continue,
		/** The boundary asks to continue again, but the continuation it asked for last added nothing. */
		boundaryContinuationStalled: ({ context }, params: { output: BeforeSettleOutput }) =>
			params.output.continue && context.runCause === "boundary" && context.lastOutcome?.madeProgress === false,
		/** No extension listens to `agent_before_settle`: nothing to ask. */
		beforeSettleSkipped: ({ context }) => context.lastOutcome?.beforeSettleBoundary === false,
		beforeSettleSkippedAwaitingInput: ({ context }) =>
			context.lastOutcome?.beforeSettleBoundary === false && context.busyPreflightsInFlight > 0,
		/** A prompt that arrived while busy is still in its input hooks: it may yet be queued for this operation. */
		awaitingBusyInput: ({ context }) => context.busyPreflightsInFlight > 0,
		queuedDuringBoundary: ({ context }) => context.operation?.queuedDuringBoundary === true,
		noBusyInputLeft: ({ context }) => context.busyPreflightsInFlight === 0,
		queueInputQueued: ({ event }) => event.type === "QUEUE_INPUT_FINISHED" && event.queued,
		busyPreflightQueued: ({ event }) =>
			event.type.startsWith("xstate.done.actor.busyPreflight.") &&
			"output" in event &&
			(event.output as BusyPreflightOutcome | undefined)?.disposition === "queued",
		treeNavigationInFlight: ({ context }) => context.treeNavigation !== undefined,
		noTreeNavigationInFlight: ({ context }) => context.treeNavigation === undefined,
		/** Deferred prompts wait for a tree navigation an extension command started (and did not await). */
		canTakeDeferredPrompt: ({ context }) => context.deferredPrompts.length > 0 && context.treeNavigation === undefined,
		promptWaitsForManualCompaction: ({ context, event }) =>
			event.type === "PROMPT" && event.request.whenIdle === true && context.compaction?.reason === "manual",
		canTakeDeferredCompaction: ({ context }) =>
			context.deferredCompaction !== undefined && context.treeNavigation === undefined,
		compactionDeferred: ({ context }) => context.deferredCompaction !== undefined,
		/** A compaction waits to start and this request may not share it ({@link sameCompactionRequest}). */
		differsFromWaitingCompaction: ({ context, event }) =>
			(event.type === "COMPACT" || event.type === "COMPACT_WHEN_SETTLED") &&
			context.deferredCompaction !== undefined &&
			!sameCompactionRequest(context.deferredCompaction, event),
		/** A compaction waits on what `abort()` ends ({@link DeferredCompaction.cancelOnAbort}). */
		compactionCancelledByAbort: ({ context }) => context.deferredCompaction?.cancelOnAbort === true,
		operationActive: ({ context }) => context.operation !== undefined,
		navigationFromCommand: ({ event }) => event.type === "NAVIGATE_TREE" && event.fromCommand === true,
		/**
		 * `ctx.compact()` from the preflight's own dispatch, which the preflight waits for after it
		 * (`PREFLIGHT_DISPATCH_END`): not from a pre-send compaction's hooks, not after an `abort()`.
		 */
		compactionFromDispatch: ({ context, event }) =>
			event.type === "COMPACT_WHEN_SETTLED" &&
			event.fromDispatch === true &&
			context.preflightCompactions.preSend === undefined &&
			!context.abortRequested,
		abortedDispatchCompaction: ({ context, event }) =>
			event.type === "COMPACT_WHEN_SETTLED" &&
			event.fromDispatch === true &&
			context.preflightCompactions.preSend === undefined &&
			context.abortRequested,
		dispatchCompactionRunning: ({ context }) => context.preflightCompactions.dispatch !== undefined,
		commandNavigationFree: ({ context, event }) =>
			event.type === "NAVIGATE_TREE" && event.fromCommand === true && context.treeNavigation === undefined,
	},
	delays: {
		/** The backoff computed by `scheduleRetry` (on the actor's clock). */
		retryDelay: ({ context }) => context.retryDelayMs,
	},
	actions: {
		requestPreflight: emit(({ context }) => ({
			type: "preflight_requested" as const,
			input: { request: context.request ?? { requestId: "" } },
		})),
		requestRun: emit(({ context, event }) => ({ type: "run_requested" as const, input: runInputOf(context, event) })),
		requestBeforeSettle: enqueueActions(({ enqueue, context }) => {
			// A new boundary: what was queued during an earlier one has run.
			if (context.operation?.queuedDuringBoundary) {
				const { queuedDuringBoundary: _ran, ...operation } = context.operation;
				enqueue.assign({ operation });
			}
			if (context.lastOutcome?.beforeSettleBoundary === false) return;
			enqueue.emit({
				type: "before_settle_requested",
				input: {
					operationId: context.operation?.id ?? 0,
					requestId: context.operation?.requestId ?? "",
					outcome: runOutcomeLabel(context.lastOutcome),
				},
			});
		}),
		requestSettle: emit(({ context }) => ({ type: "settle_requested" as const, input: settleInputOf(context) })),
		acceptPrompt: assign(({ event }) => {
			if (event.type !== "PROMPT") return {};
			return { request: event.request, abortRequested: false };
		}),
		deferPrompt: enqueueActions(({ enqueue, context, event }) => {
			if (event.type !== "PROMPT") return;
			enqueue.assign({ deferredPrompts: [...context.deferredPrompts, event.request] });
			enqueue.emit({ type: "prompt_deferred", requestId: event.request.requestId });
		}),
		takeDeferredPrompt: assign(({ context }) => ({
			request: context.deferredPrompts[0],
			deferredPrompts: context.deferredPrompts.slice(1),
			abortRequested: false,
		})),
		countQueueInput: assign(({ context }) => ({ busyPreflightsInFlight: context.busyPreflightsInFlight + 1 })),
		noteQueuedDuringBoundary: assign(({ context }) =>
			context.operation ? { operation: { ...context.operation, queuedDuringBoundary: true } } : {},
		),
		uncountQueueInput: assign(({ context }) => ({
			busyPreflightsInFlight: Math.max(0, context.busyPreflightsInFlight - 1),
		})),
		spawnBusyPreflight: enqueueActions(({ enqueue, context, event }, params: { phase: BusyPhase }) => {
			if (event.type !== "PROMPT") return;
			const input: BusyPreflightInput = { request: event.request, phase: params.phase };
			if (params.phase === "compacting" && context.compaction) input.compactionReason = context.compaction.reason;
			enqueue.assign({ busyPreflightsInFlight: context.busyPreflightsInFlight + 1 });
			enqueue.spawnChild("busyPreflight", { id: `busyPreflight.${event.request.requestId}`, input });
		}),
		announceBusyPreflightResult: enqueueActions(({ enqueue, context, event }) => {
			enqueue.assign({ busyPreflightsInFlight: Math.max(0, context.busyPreflightsInFlight - 1) });
			const actorId = event.type.replace(/^xstate\.(done|error)\.actor\./, "");
			const requestId = actorId.slice("busyPreflight.".length);
			if (event.type.startsWith("xstate.done.actor.") && "output" in event) {
				const output = event.output as BusyPreflightOutcome;
				enqueue.emit(
					output.disposition === "rejected"
						? { type: "preflight_result", requestId, disposition: "rejected", error: output.error }
						: { type: "preflight_result", requestId, disposition: output.disposition },
				);
			} else if ("error" in event) {
				enqueue.emit({ type: "preflight_result", requestId, disposition: "rejected", error: event.error });
			}
			enqueue.stopChild(actorId);
		}),
		/** Only on `PREFLIGHT_DONE` (reads its `output`). */
		announcePreflightResult: emit(({ context, event }) => {
			const outcome = (event as Extract<PromptOperationEvent, { type: "PREFLIGHT_DONE" }>).output;
			return outcome.disposition === "rejected"
				? {
						type: "preflight_result" as const,
						requestId: context.request?.requestId ?? "",
						disposition: "rejected" as const,
						error: outcome.error,
					}
				: {
						type: "preflight_result" as const,
						requestId: context.request?.requestId ?? "",
						disposition: outcome.disposition,
					};
		}),
		announcePreflightFailure: emit(({ context }, params: { error: unknown }) => ({
			type: "preflight_result" as const,
			requestId: context.request?.requestId ?? "",
			disposition: "rejected" as const,
			error: params.error,
		})),
		clearRequest: assign({ request: undefined, abortRequested: false }),
		startOperation: assign(({ context }) => {
			const id = context.operationCount + 1;
			// Its first run starts with it (→ `running`), unless it was aborted during preflight (→ `settling`).
			const runCount = context.abortRequested ? 0 : 1;
			const operation: OperationInfo = { id, requestId: context.request?.requestId ?? "", runCount };
			return {
				operationCount: id,
				operation,
				runCause: "prompt" as RunCause,
				retryAttempt: 0,
				retryDelayMs: 0,
				overflowRecoveryAttempted: false,
				retryAnnouncement: "none" as RetryAnnouncement,
				lastOutcome: undefined,
				stall: undefined,
				runFailure: undefined,
			};
		}),
		announceOperationStarted: emit(({ context }) => ({
			type: "operation_started" as const,
			operationId: context.operation?.id ?? 0,
			requestId: context.operation?.requestId ?? "",
		})),
		/**
		 * A later run of the operation starts (every transition into `running` other than the first
		 * carries it): its cause, and it counts. One assign with the cause, not a second one on entry.
		 */
		setRunCause: assign(({ context }, params: { cause: RunCause }) => {
			if (!context.operation) return { runCause: params.cause, retryAnnouncement: "none" as RetryAnnouncement };
			// The new run's announcement is its own: the last run's settings go with the last one's.
			const { announcedRetry: _last, ...operation } = context.operation;
			return {
				runCause: params.cause,
				retryAnnouncement: "none" as RetryAnnouncement,
				operation: { ...operation, runCount: operation.runCount + 1 },
			};
		}),
		recordOutcome: assign(({ event }) => (event.type === "RUN_DONE" ? { lastOutcome: event.output } : {})),
		recordRunFailure: assign((_, params: { error: unknown }) => ({
			runFailure: { error: params.error },
			lastOutcome: {
				stopReason: "error" as StopReason,
				errorClass: "fatal" as RunErrorClass,
				errorMessage: params.error instanceof Error ? params.error.message : String(params.error),
				overThreshold: false,
				hasQueuedMessages: false,
				aborted: false,
			},
		})),
		/** The operation stops running: it settles next and `operation_settled` carries the stall. */
		recordStall: assign(({ context }, params: { reason: OperationStall["reason"] }) => ({
			stall: {
				reason: params.reason,
				runCause: context.runCause,
				runIndex: context.operation?.runCount ?? 0,
			},
		})),
		markAbortRequested: assign({ abortRequested: true }),
		signalAbort: emit((_, params: { target: AbortTarget }) => ({
			type: "abort_requested" as const,
			target: params.target,
		})),
		resetOverflowRecovery: assign({ overflowRecoveryAttempted: false }),
		/** A non-error, non-length assistant message ends the failing request. */
		noteAssistantMessageEnd: assign(({ event }) => {
			if (event.type !== "ASSISTANT_MESSAGE_END") return {};
			return event.stopReason === "error" || event.stopReason === "length" ? {} : { overflowRecoveryAttempted: false };
		}),
		announceRetrySuccess: emit(({ context }) => ({
			type: "auto_retry_end" as const,
			success: true,
			attempt: context.retryAttempt,
		})),
		resetRetry: assign({ retryAttempt: 0, retryDelayMs: 0 }),
		noteRetryAnnounced: assign(({ context }) =>
			context.operation
				? {
						retryAnnouncement: "announced" as RetryAnnouncement,
						operation: { ...context.operation, announcedRetry: context.retry },
					}
				: { retryAnnouncement: "announced" as RetryAnnouncement },
		),
		cancelAnnouncedRetry: assign({ retryAnnouncement: "cancelled" as RetryAnnouncement }),
		noteRetryDeclined: assign({ retryAnnouncement: "declined" as RetryAnnouncement }),
		scheduleRetry: assign(({ context }) => {
			const plan = nextRetryPlan(context);
			return {
				retryAttempt: context.retryAttempt + 1,
				retryDelayMs: plan.kind === "retry" ? plan.delayMs : context.retryDelayMs,
			};
		}),
		announceRetryStart: emit(({ context }) => ({
			type: "auto_retry_start" as const,
			attempt: context.retryAttempt,
			maxAttempts: retrySettingsOf(context).maxRetries,
			delayMs: context.retryDelayMs,
			errorMessage: context.lastOutcome?.errorMessage || "Unknown error",
		})),
		announceRetryCancelled: emit(({ context }) => ({
			type: "auto_retry_end" as const,
			success: false,
			attempt: context.retryAttempt,
			finalError: RETRY_CANCELLED_MESSAGE,
		})),
		/** An abort ends a retry sequence in flight as cancelled. */
		finishCancelledRetry: enqueueActions(({ enqueue, context }) => {
			if (context.retryAttempt === 0) return;
			enqueue.emit({
				type: "auto_retry_end",
				success: false,
				attempt: context.retryAttempt,
				finalError: RETRY_CANCELLED_MESSAGE,
			});
			enqueue.assign({ retryAttempt: 0, retryDelayMs: 0 });
		}),
		/**
		 * Leaving `postRun` without retrying ends a retry sequence in flight — with the
		 * error if the last run failed (exhausted, gave up, or a different error), else as a success
		 * (fallback when the bridge did not report the successful `message_end`).
		 */
		concludeRetrySequence: enqueueActions(({ enqueue, context }) => {
			if (context.retryAttempt === 0) return;
			const outcome = context.lastOutcome;
			const failed = outcome?.stopReason === "error";
			enqueue.emit(
				failed
					? {
							type: "auto_retry_end",
							success: false,
							attempt: context.retryAttempt,
							finalError: outcome?.errorMessage || "Unknown error",
						}
					: { type: "auto_retry_end", success: true, attempt: context.retryAttempt },
			);
			enqueue.assign({ retryAttempt: 0, retryDelayMs: 0 });
		}),
		/** A summary request failed transiently; the summarizer waits `delayMs` (on the actor's clock) before the next attempt. */
		announceSummarizationRetryScheduled: emit(({ event }) => {
			const report = event as Extract<PromptOperationEvent, { type: "SUMMARIZATION_RETRY_SCHEDULED" }>;
			return {
				type: "summarization_retry_scheduled" as const,
				attempt: report.attempt,
				maxAttempts: report.maxAttempts,
				delayMs: report.delayMs,
				errorMessage: report.errorMessage,
				...partOf(report),
			};
		}),
		announceSummarizationRetryAttempt: emit(({ event }) => {
			const report = event as Extract<PromptOperationEvent, { type: "SUMMARIZATION_RETRY_ATTEMPT_START" }>;
			return report.source === "compaction"
				? {
						type: "summarization_retry_attempt_start" as const,
						source: "compaction" as const,
						reason: report.reason,
						...partOf(report),
					}
				: { type: "summarization_retry_attempt_start" as const, source: "branchSummary" as const };
		}),
		announceSummarizationRetryFinished: emit(({ event }) => {
			const report = event as Extract<PromptOperationEvent, { type: "SUMMARIZATION_RETRY_FINISHED" }>;
			const finished: Extract<PromptOperationEmitted, { type: "summarization_retry_finished" }> = {
				type: "summarization_retry_finished",
				success: report.success,
				attempt: report.attempt,
			};
			if (report.finalError !== undefined) finished.finalError = report.finalError;
			return { ...finished, ...partOf(report) };
		}),
		/** The session's queues changed: echoed for inspection only (no state, no context). */
		announceQueueChange: emit(({ event }) => {
			const report = event as Extract<PromptOperationEvent, { type: "QUEUE_CHANGED" }>;
			const change: Extract<PromptOperationEmitted, { type: "queue_changed" }> = {
				type: "queue_changed",
				steering: report.steering,
				followUp: report.followUp,
				change: report.change,
			};
			if (report.queue !== undefined) change.queue = report.queue;
			if (report.text !== undefined) change.text = report.text;
			return change;
		}),
		markOverflowRecovery: assign({ overflowRecoveryAttempted: true }),
		announceOverflowRecoveryFailed: emit(({ context }) =>
			context.lastOutcome?.errorClass === "length_overflow"
				? {
						type: "overflow_recovery_failed" as const,
						kind: "length" as const,
						errorMessage: LENGTH_RECOVERY_FAILED_MESSAGE,
					}
				: {
						type: "overflow_recovery_failed" as const,
						kind: "overflow" as const,
						errorMessage: OVERFLOW_RECOVERY_FAILED_MESSAGE,
					},
		),
		setCompaction: assign((_, params: { reason: CompactionReason; willRetry: boolean }) => ({
			compaction: { reason: params.reason, willRetry: params.willRetry },
		})),
		setManualCompaction: assign(({ event }) => {
			if (event.type !== "COMPACT" && event.type !== "COMPACT_WHEN_SETTLED") return {};
			const compaction: PromptOperationContext["compaction"] = {
				reason: "manual",
				willRetry: false,
				requestId: event.requestId,
			};
			if (event.payload !== undefined) compaction.payload = event.payload;
			return { compaction, abortRequested: false };
		}),
		clearCompaction: assign({ compaction: undefined }),
		/** A `compact()` while a manual compaction runs: answered with that compaction's outcome. */
		joinManualCompaction: assign(({ context, event }) => {
			if ((event.type !== "COMPACT" && event.type !== "COMPACT_WHEN_SETTLED") || !context.compaction) return {};
			const compaction = context.compaction;
			return { compaction: { ...compaction, sharedWith: [...(compaction.sharedWith ?? []), event.requestId] } };
		}),
		/** A `compact()` whose instructions differ from the running compaction's: answered, refused. */
		refuseCompactionWithOtherInstructions: emit(({ event }) => ({
			type: "manual_compaction_done" as const,
			requestId: event.type === "COMPACT" || event.type === "COMPACT_WHEN_SETTLED" ? event.requestId : "",
			refused: "other_instructions" as const,
		})),
		/**
		 * Holds a manual compaction until idle. One at a time: a later request joins the waiting one
		 * with its instructions (one with other instructions was refused before: `refuseOtherThanWaiting`),
		 * and every caller is answered with the outcome of the one compaction.
		 */
		deferCompaction: assign(({ context, event }, params: { cancelOnAbort: boolean }) => {
			if (event.type !== "COMPACT" && event.type !== "COMPACT_WHEN_SETTLED") return {};
			const waiting = context.deferredCompaction;
			if (waiting) {
				const joined: DeferredCompaction = { ...waiting, sharedWith: [...(waiting.sharedWith ?? []), event.requestId] };
				if (params.cancelOnAbort) joined.cancelOnAbort = true;
				return { deferredCompaction: joined };
			}
			const deferred: DeferredCompaction = { requestId: event.requestId };
			if (event.payload !== undefined) deferred.payload = event.payload;
			if (params.cancelOnAbort) deferred.cancelOnAbort = true;
			return { deferredCompaction: deferred };
		}),
		takeDeferredCompaction: assign(({ context }) => {
			const deferred = context.deferredCompaction;
			if (!deferred) return {};
			const compaction: PromptOperationContext["compaction"] = {
				reason: "manual",
				willRetry: false,
				requestId: deferred.requestId,
			};
			if (deferred.payload !== undefined) compaction.payload = deferred.payload;
			if (deferred.sharedWith !== undefined) compaction.sharedWith = deferred.sharedWith;
			return { compaction, deferredCompaction: undefined, abortRequested: false };
		}),
		/** `abortCompaction()`: the waiting compaction never starts; each of its callers is answered, cancelled. */
		cancelDeferredCompaction: enqueueActions(({ enqueue, context }) => {
			const deferred = context.deferredCompaction;
			if (!deferred) return;
			enqueue.assign({ deferredCompaction: undefined });
			for (const requestId of [...(deferred.sharedWith ?? []), deferred.requestId]) {
				enqueue.emit({ type: "manual_compaction_done", requestId, cancelled: true });
			}
		}),
		/** `abort()`: cancels the waiting compaction when it waited on what `abort()` ends ({@link DeferredCompaction.cancelOnAbort}). */
		cancelDeferredCompactionOnAbort: enqueueActions(({ enqueue, context }) => {
			const deferred = context.deferredCompaction;
			if (!deferred?.cancelOnAbort) return;
			enqueue.assign({ deferredCompaction: undefined });
			for (const requestId of [...(deferred.sharedWith ?? []), deferred.requestId]) {
				enqueue.emit({ type: "manual_compaction_done", requestId, cancelled: true });
			}
		}),
		/** Answers `REQUEST_NEEDS_COMPACTION`: the run's request preparation goes on (the route stands). */
		announceRequestCompactionDone: emit(
			(_, params: { output?: CompactionOutput; error?: unknown }) =>
				({ type: "request_compaction_done" as const, ...params }) as PromptOperationEmitted,
		),
		/** Answers the manual compaction's caller, and every request that joined it while it waited. */
		announceManualCompactionDone: enqueueActions(
			({ enqueue, context }, params: { output?: CompactionOutput; error?: unknown }) => {
				const compaction = context.compaction;
				for (const requestId of [...(compaction?.sharedWith ?? []), compaction?.requestId ?? ""]) {
					enqueue.emit({ type: "manual_compaction_done", requestId, ...params } as PromptOperationEmitted);
				}
			},
		),
		setTreeNavigation: assign(({ event }) => {
			if (event.type !== "NAVIGATE_TREE") return {};
			const treeNavigation: NonNullable<PromptOperationContext["treeNavigation"]> = { requestId: event.requestId };
			if (event.payload !== undefined) treeNavigation.payload = event.payload;
			return { treeNavigation, abortRequested: false };
		}),
		announceTreeNavigationDone: emit(
			({ context }, params: { output?: NavigateTreeOutput; error?: unknown }) =>
				({
					type: "tree_navigation_done" as const,
					requestId: context.treeNavigation?.requestId ?? "",
					...params,
				}) as PromptOperationEmitted,
		),
		clearTreeNavigation: assign({ treeNavigation: undefined, abortRequested: false }),
		/** NAVIGATE_TREE from an extension command while its prompt is in `preflight`: run it beside the preflight. */
		spawnTreeNavigation: enqueueActions(({ enqueue, event }) => {
			if (event.type !== "NAVIGATE_TREE") return;
			const treeNavigation: NonNullable<PromptOperationContext["treeNavigation"]> = { requestId: event.requestId };
			if (event.payload !== undefined) treeNavigation.payload = event.payload;
			enqueue.assign({ treeNavigation });
			const input: NavigateTreeInput = { requestId: event.requestId };
			if (event.payload !== undefined) input.payload = event.payload;
			enqueue.spawnChild("navigateTree", { id: "navigateTree", input });
		}),
		/** Answers a `NAVIGATE_TREE` the current state does not take: its caller is refused with `reason`. */
		refuseTreeNavigation: emit(({ event }, params: { reason: "streaming" | "compacting" }) => ({
			type: "tree_navigation_done" as const,
			requestId: event.type === "NAVIGATE_TREE" ? event.requestId : "",
			refused: params.reason,
		})),
		/** A spawned navigation ended: unlike {@link clearTreeNavigation}, the operation's abort flag is kept. */
		clearSpawnedTreeNavigation: assign({ treeNavigation: undefined }),
		setPreSendCompaction: assign(({ context, event }) =>
			event.type === "PRE_SEND_COMPACTION_START"
				? { preflightCompactions: { ...context.preflightCompactions, preSend: event.reason } }
				: {},
		),
		clearPreSendCompaction: assign(({ context }) => {
			const { preSend: _ended, ...rest } = context.preflightCompactions;
			return { preflightCompactions: rest };
		}),
		/**
		 * `ctx.compact()` from the preflight's dispatch: runs now, beside it (a manual compaction);
		 * later ones join it. The preflight goes on only once it has ended (`releaseDispatch`).
		 */
		startDispatchCompaction: enqueueActions(({ enqueue, context, event }) => {
			if (event.type !== "COMPACT_WHEN_SETTLED") return;
			const running = context.preflightCompactions.dispatch;
			if (running && !sameCompactionRequest(running, event)) {
				enqueue.emit({ type: "manual_compaction_done", requestId: event.requestId, refused: "other_instructions" });
				return;
			}
			if (running) {
				const dispatch = { ...running, sharedWith: [...(running.sharedWith ?? []), event.requestId] };
				enqueue.assign({ preflightCompactions: { ...context.preflightCompactions, dispatch } });
				return;
			}
			const dispatch: NonNullable<PreflightCompactions["dispatch"]> = { requestId: event.requestId };
			const input: CompactionInput = { reason: "manual", willRetry: false, requestId: event.requestId };
			if (event.payload !== undefined) {
				dispatch.payload = event.payload;
				input.payload = event.payload;
			}
			enqueue.assign({ preflightCompactions: { ...context.preflightCompactions, dispatch } });
			enqueue.spawnChild("compact", { id: "dispatchCompaction", input });
		}),
		/** The dispatch compaction ended: every caller gets its outcome, and the preflight goes on. */
		finishDispatchCompaction: enqueueActions(
			({ enqueue, context }, params: { output?: CompactionOutput; error?: unknown }) => {
				const { dispatch: running, ...rest } = context.preflightCompactions;
				enqueue.assign({ preflightCompactions: rest });
				for (const requestId of [...(running?.sharedWith ?? []), running?.requestId ?? ""]) {
					enqueue.emit({ type: "manual_compaction_done", requestId, ...params } as PromptOperationEmitted);
				}
				enqueue.emit({ type: "preflight_dispatch_released" });
			},
		),
		/** A `ctx.compact()` from the dispatch of a preflight `abort()` already stopped: cancelled at once. */
		refuseDispatchCompaction: emit(({ event }) => ({
			type: "manual_compaction_done" as const,
			requestId: event.type === "COMPACT_WHEN_SETTLED" ? event.requestId : "",
			cancelled: true as const,
		})),
		releaseDispatch: emit({ type: "preflight_dispatch_released" as const }),
		announceOperationSettled: emit(({ context }) => {
			const settled: Extract<PromptOperationEmitted, { type: "operation_settled" }> = {
				type: "operation_settled",
				operationId: context.operation?.id ?? 0,
				requestId: context.operation?.requestId ?? "",
				aborted: context.abortRequested,
			};
			if (context.stall) settled.stall = context.stall;
			if (context.runFailure) settled.runFailure = context.runFailure;
			return settled;
		}),
		clearOperation: assign({
			operation: undefined,
			request: undefined,
			lastOutcome: undefined,
			stall: undefined,
			runFailure: undefined,
			compaction: undefined,
			abortRequested: false,
			retryAttempt: 0,
			retryDelayMs: 0,
			retryAnnouncement: "none",
		}),
		updateRetrySettings: assign(({ context, event }) => {
			if (event.type !== "UPDATE_RETRY_SETTINGS") return {};
			return { retry: { ...context.retry, ...event.retry } };
		}),
	},
}).createMachine({
	id: PROMPT_OPERATION_MACHINE_ID,
	description: "One AgentSession's lifecycle: what the session is doing right now.",
	context: ({ input }) => ({
		retry: { ...DEFAULT_RETRY_SETTINGS, ...(input?.retry ?? {}) },
		retryAttempt: 0,
		retryDelayMs: 0,
		overflowRecoveryAttempted: false,
		retryAnnouncement: "none",
		abortRequested: false,
		request: undefined,
		operation: undefined,
		operationCount: 0,
		runCause: "prompt",
		lastOutcome: undefined,
		stall: undefined,
		runFailure: undefined,
		compaction: undefined,
		treeNavigation: undefined,
		preflightCompactions: {},
		deferredPrompts: [],
		deferredCompaction: undefined,
		busyPreflightsInFlight: 0,
	}),
	initial: "idle",
	on: {
		UPDATE_RETRY_SETTINGS: { actions: "updateRetrySettings" },
		// Summary retries, in whichever state the summarizer runs (`compacting`, `branchSummary`, or
		// `preflight` / `idle` for a pre-send compaction or a command's tree navigation): targetless,
		// so the state (and its abort routing) stays as it is; the emits are the public events.
		SUMMARIZATION_RETRY_SCHEDULED: { actions: "announceSummarizationRetryScheduled" },
		SUMMARIZATION_RETRY_ATTEMPT_START: { actions: "announceSummarizationRetryAttempt" },
		SUMMARIZATION_RETRY_FINISHED: { actions: "announceSummarizationRetryFinished" },
		// Steering / follow-up queue changes: targetless like the summary retries, any state.
		QUEUE_CHANGED: { actions: "announceQueueChange" },
		// abort() / abortCompaction() where the state has nothing of its own to abort (or to say about
		// it): the waiting manual compaction is cancelled all the same, so it never starts after them.
		ABORT: { guard: "compactionCancelledByAbort", actions: "cancelDeferredCompactionOnAbort" },
		ABORT_COMPACTION: { guard: "compactionDeferred", actions: "cancelDeferredCompaction" },
		// A navigation a state does not take (idle and preflight take theirs) is answered, refused.
		NAVIGATE_TREE: [
			{ guard: "operationActive", actions: { type: "refuseTreeNavigation", params: { reason: "streaming" } } },
			{ actions: { type: "refuseTreeNavigation", params: { reason: "compacting" } } },
		],
		// A steer() / followUp() in its input hooks: counted like a busy prompt (awaitingInput waits for it).
		QUEUE_INPUT_STARTED: { actions: "countQueueInput" },
		QUEUE_INPUT_FINISHED: { actions: "uncountQueueInput" },
		"xstate.done.actor.busyPreflight.*": { actions: "announceBusyPreflightResult" },
		"xstate.error.actor.busyPreflight.*": { actions: "announceBusyPreflightResult" },
		// A navigation spawned during `preflight` (the invoked one in `branchSummary` is handled there).
		"xstate.done.actor.navigateTree": {
			actions: [
				{ type: "announceTreeNavigationDone", params: ({ event }) => ({ output: event.output }) },
				"clearSpawnedTreeNavigation",
			],
		},
		"xstate.error.actor.navigateTree": {
			actions: [
				{ type: "announceTreeNavigationDone", params: ({ event }) => ({ error: event.error }) },
				"clearSpawnedTreeNavigation",
			],
		},
		// The compaction a preflight's dispatch asked for (spawned in `preflight`).
		"xstate.done.actor.dispatchCompaction": {
			actions: { type: "finishDispatchCompaction", params: ({ event }) => ({ output: event.output }) },
		},
		"xstate.error.actor.dispatchCompaction": {
			actions: { type: "finishDispatchCompaction", params: ({ event }) => ({ error: event.error }) },
		},
		ABORT_BRANCH_SUMMARY: {
			guard: "treeNavigationInFlight",
			actions: { type: "signalAbort", params: { target: "branch_summary" } },
		},
	},
	states: {
		idle: {
			description:
				"Nothing started. A deferred compaction starts from here, then deferred prompts are re-issued, in order.",
			always: [
				{ guard: "canTakeDeferredCompaction", target: "compacting", actions: "takeDeferredCompaction" },
				{ guard: "canTakeDeferredPrompt", target: "preflight", actions: "takeDeferredPrompt" },
			],
			on: {
				PROMPT: [
					{
						// A command started a tree navigation and returned without awaiting it.
						guard: "treeNavigationInFlight",
						actions: { type: "spawnBusyPreflight", params: { phase: "branchSummary" } },
					},
					{ target: "preflight", actions: "acceptPrompt" },
				],
				// compact() and ctx.compact() alike: nothing runs.
				COMPACT: compactWhenIdle,
				COMPACT_WHEN_SETTLED: compactWhenIdle,
				NAVIGATE_TREE: { guard: "noTreeNavigationInFlight", target: "branchSummary", actions: "setTreeNavigation" },
				// `abort()` also stops the branch summary of a navigation a command started and did not await.
				ABORT: {
					guard: "treeNavigationInFlight",
					actions: [{ type: "signalAbort", params: { target: "branch_summary" } }, "cancelDeferredCompactionOnAbort"],
				},
			},
		},
		preflight: {
			description: "Command, input hook, expansion, model/auth checks, pre-send compaction, before_agent_start.",
			entry: "requestPreflight",
			on: {
				PRE_SEND_COMPACTION_START: { actions: "setPreSendCompaction" },
				PRE_SEND_COMPACTION_END: { actions: "clearPreSendCompaction" },
				// The dispatch returned: the preflight goes on now, or once its ctx.compact() has ended.
				PREFLIGHT_DISPATCH_END: { guard: not("dispatchCompactionRunning"), actions: "releaseDispatch" },
				PREFLIGHT_DONE: [
					{
						// Aborted while preflighting: the operation started, so it settles once, without a run.
						guard: "preflightStartedAfterAbort",
						target: "settling",
						actions: ["startOperation", "announcePreflightResult", "announceOperationStarted"],
					},
					{
						guard: "preflightStarted",
						target: "running",
						actions: ["startOperation", "announcePreflightResult", "announceOperationStarted"],
					},
					{
						target: "idle",
						actions: ["announcePreflightResult", "clearRequest"],
					},
				],
				PREFLIGHT_FAILED: {
					target: "idle",
					actions: [
						{ type: "announcePreflightFailure", params: ({ event }) => ({ error: event.error }) },
						"clearRequest",
					],
				},
				PROMPT: { actions: "deferPrompt" },
				ABORT: [
					{
						guard: "treeNavigationInFlight",
						actions: [
							"markAbortRequested",
							{ type: "signalAbort", params: { target: "preflight" } },
							{ type: "signalAbort", params: { target: "branch_summary" } },
							"cancelDeferredCompactionOnAbort",
						],
					},
					{
						actions: [
							"markAbortRequested",
							{ type: "signalAbort", params: { target: "preflight" } },
							"cancelDeferredCompactionOnAbort",
						],
					},
				],
				// compact() (or ctx.compact() from a command): aborts the prompt, compacts once it returned.
				COMPACT: abortPreflightThenCompact,
				COMPACT_WHEN_SETTLED: [
					// From the preflight's own dispatch (pi#7154): held until it settles, it would wait
					// for the dispatch that waits for it. It runs now; the preflight waits for it.
					{ guard: "compactionFromDispatch", actions: "startDispatchCompaction" },
					{ guard: "abortedDispatchCompaction", actions: "refuseDispatchCompaction" },
					...abortPreflightThenCompact,
				],
				// From an extension command (C.13 through `ctx.navigateTree()`): runs beside the command.
				// Not from a command: the prompt is on its way, as if streaming. (Otherwise the root refuses it.)
				NAVIGATE_TREE: [
					{ guard: "commandNavigationFree", actions: "spawnTreeNavigation" },
					{
						guard: not("navigationFromCommand"),
						actions: { type: "refuseTreeNavigation", params: { reason: "streaming" } },
					},
				],
			},
		},
		running: {
			description: "One agent run: agent.prompt(messages) or agent.continue().",
			// Every transition into `running` counts the run in its own assign (startOperation, setRunCause).
			entry: "requestRun",
			initial: "working",
			states: {
				working: {
					on: {
						ABORT: { target: "aborting", actions: abortOperation },
						// compact() while streaming: abort the run, compact once it has ended (the operation
						// settles first, as after abort()). One decision: no window where the run has ended
						// and the compaction is not yet asked for, for a prompt to take.
						COMPACT: [refuseOtherThanWaiting, { target: "aborting", actions: abortThenCompact }],
						// agent_end comes while working (an aborted run never announces a retry).
						RETRY_ANNOUNCED: { actions: "noteRetryAnnounced" },
						// agent_end said no retry: a setting turned on after it does not retry this run.
						RETRY_DECLINED: { actions: "noteRetryDeclined" },
						// Before agent_end announced a retry there is none to cancel (pi ignores it too).
						ABORT_RETRY: { guard: "retryAnnounced", actions: "cancelAnnouncedRetry" },
						// pi 1.6: the request a virtual model routed is over that model's threshold.
						REQUEST_NEEDS_COMPACTION: {
							target: "compacting",
							actions: { type: "setCompaction", params: { reason: "threshold", willRetry: false } },
						},
					},
				},
				aborting: {
					description: "Agent aborted; waiting for the run to end so the partial message is persisted.",
					entry: { type: "signalAbort", params: { target: "run" } },
				},
				compacting: {
					description:
						"Threshold compaction before a routed request (pi 1.6): the run waits in its request preparation, then sends on the same route.",
					invoke: {
						id: "compaction",
						src: "compact",
						input: ({ context }) => compactionInputOf(context),
						onDone: afterRequestCompaction(({ event }: { event: { output: CompactionOutput } }) => ({
							output: event.output,
						})),
						onError: afterRequestCompaction(({ event }: { event: { error: unknown } }) => ({ error: event.error })),
					},
					initial: "working",
					states: {
						working: {
							on: abortWorkingCompaction,
						},
						aborting: {
							description: "Compaction aborted; waiting for it to report compaction_end before the request goes on.",
							entry: { type: "signalAbort", params: { target: "compaction" } },
							// After abortCompaction(), abort() still ends the run once the compaction has ended.
							on: {
								ABORT: { actions: abortOperation },
								COMPACT: [refuseOtherThanWaiting, { actions: abortThenCompact }],
							},
						},
					},
					on: {
						PROMPT: { actions: { type: "spawnBusyPreflight", params: { phase: "compacting" } } },
					},
				},
			},
			on: {
				RUN_DONE: {
					target: "postRun",
					actions: "recordOutcome",
				},
				RUN_FAILED: {
					target: "settling",
					actions: [
						{ type: "recordRunFailure", params: ({ event }) => ({ error: event.error }) },
						"concludeRetrySequence",
					],
				},
				PROMPT: { actions: { type: "spawnBusyPreflight", params: { phase: "running" } } },
				// running.aborting: the run is being aborted already; the compaction waits for it.
				COMPACT: [refuseOtherThanWaiting, { actions: { type: "deferCompaction", params: { cancelOnAbort: true } } }],
				// ctx.compact() while the operation runs (UniPi#30): not aborted, compacted once settled.
				COMPACT_WHEN_SETTLED: [
					refuseOtherThanWaiting,
					{ actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },
				],
				USER_MESSAGE_START: { actions: "resetOverflowRecovery" },
				ASSISTANT_MESSAGE_END: [
					{
						guard: "retrySucceeded",
						actions: ["announceRetrySuccess", "resetRetry", "noteAssistantMessageEnd"],
					},
					{
						guard: "retryAborted",
						actions: ["announceRetryCancelled", "resetRetry", "noteAssistantMessageEnd"],
					},
					{ actions: "noteAssistantMessageEnd" },
				],
			},
		},
		postRun: {
			description: "Decision after every run (behavior C.3), in this order.",
			always: [
				{ guard: "abortRequested", target: "settling", actions: "finishCancelledRetry" },
				{ guard: "canRetry", target: "retrying", actions: "scheduleRetry" },
				{
					guard: "canRecoverOverflow",
					target: "compacting",
					actions: [
						"concludeRetrySequence",
						"markOverflowRecovery",
						{ type: "setCompaction", params: { reason: "overflow", willRetry: true } },
					],
				},
				{
					guard: "overflowRecoveryFailed",
					target: "beforeSettle",
					actions: ["concludeRetrySequence", "announceOverflowRecoveryFailed"],
				},
				{
					guard: "completedOverWindow",
					target: "compacting",
					actions: [
						"concludeRetrySequence",
						{ type: "setCompaction", params: { reason: "overflow", willRetry: false } },
					],
				},
				{
					guard: "overThreshold",
					target: "compacting",
					actions: [
						"concludeRetrySequence",
						{ type: "setCompaction", params: { reason: "threshold", willRetry: false } },
					],
				},
				{
					guard: "queuedRunStalled",
					target: "settling",
					actions: ["concludeRetrySequence", { type: "recordStall", params: { reason: "queued_messages" } }],
				},
				{
					guard: "hasQueuedMessages",
					target: "running",
					actions: ["concludeRetrySequence", { type: "setRunCause", params: { cause: "queued" } }],
				},
				{ target: "beforeSettle", actions: "concludeRetrySequence" },
			],
		},
		retrying: {
			description: "Backoff before agent.continue(); the failed attempt is omitted from context.",
			entry: "announceRetryStart",
			// abortRetry() right after agent_end{willRetry}: cancelled at the backoff's first instant.
			always: {
				guard: "announcedRetryCancelled",
				target: "settling",
				actions: ["announceRetryCancelled", "resetRetry"],
			},
			after: {
				retryDelay: { target: "running", actions: { type: "setRunCause", params: { cause: "retry" } } },
			},
			on: {
				PROMPT: { actions: { type: "spawnBusyPreflight", params: { phase: "retrying" } } },
				ABORT: {
					target: "settling",
					actions: ["markAbortRequested", "announceRetryCancelled", "resetRetry", "cancelDeferredCompactionOnAbort"],
				},
				COMPACT: [
					refuseOtherThanWaiting,
					{
						target: "settling",
						actions: [
							"markAbortRequested",
							"announceRetryCancelled",
							"resetRetry",
							{ type: "deferCompaction", params: { cancelOnAbort: true } },
						],
					},
				],
				COMPACT_WHEN_SETTLED: [
					refuseOtherThanWaiting,
					{ actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },
				],
				ABORT_RETRY: { target: "settling", actions: ["announceRetryCancelled", "resetRetry"] },
			},
		},
		compacting: {
			description: "Compaction (manual | threshold | overflow, with willRetry).",
			invoke: {
				id: "compaction",
				src: "compact",
				input: ({ context }) => compactionInputOf(context),
				onDone: [
					{
						guard: "isManualCompaction",
						target: "idle",
						actions: [
							{ type: "announceManualCompactionDone", params: ({ event }) => ({ output: event.output }) },
							"clearCompaction",
							"clearRequest",
						],
					},
					{ guard: "abortRequested", target: "settling", actions: "clearCompaction" },
					{
						guard: { type: "compactedForRetry", params: ({ event }) => ({ output: event.output }) },
						target: "running",
						actions: ["clearCompaction", { type: "setRunCause", params: { cause: "compaction" } }],
					},
					{
						guard: { type: "compactionFoundQueuedMessages", params: ({ event }) => ({ output: event.output }) },
						target: "running",
						actions: ["clearCompaction", { type: "setRunCause", params: { cause: "queued" } }],
					},
					{ target: "beforeSettle", actions: "clearCompaction" },
				],
				onError: [
					{
						guard: "isManualCompaction",
						target: "idle",
						actions: [
							{ type: "announceManualCompactionDone", params: ({ event }) => ({ error: event.error }) },
							"clearCompaction",
							"clearRequest",
						],
					},
					{ guard: "abortRequested", target: "settling", actions: "clearCompaction" },
					{ target: "beforeSettle", actions: "clearCompaction" },
				],
			},
			initial: "working",
			states: {
				working: {
					on: {
						...abortWorkingCompaction,
						COMPACT: [joinRunningManualCompaction, refuseOtherInstructions, ...abortWorkingCompaction.COMPACT],
						// ctx.compact(): during an operation's compaction it waits for the operation to
						// settle; otherwise the compaction is a manual one, and it joins it as compact() does.
						COMPACT_WHEN_SETTLED: [
							refuseOtherThanWaiting,
							{ guard: "operationActive", actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },
							joinRunningManualCompaction,
							{ actions: "refuseCompactionWithOtherInstructions" },
						],
					},
				},
				aborting: {
					description: "Compaction aborted; waiting for it to report compaction_end.",
					entry: { type: "signalAbort", params: { target: "compaction" } },
					// After abortCompaction(), abort() still ends the operation: queued messages must not continue it.
					on: {
						ABORT: { actions: abortOperation },
						COMPACT: [refuseOtherThanWaiting, { actions: abortThenCompact }],
						COMPACT_WHEN_SETTLED: [
							refuseOtherThanWaiting,
							{ guard: "operationActive", actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },
							{ actions: abortThenCompact },
						],
					},
				},
			},
			on: {
				PROMPT: [
					// An extension's send from a manual compaction's session_compact: runs once idle (pi#9647).
					{ guard: "promptWaitsForManualCompaction", actions: "deferPrompt" },
					{ actions: { type: "spawnBusyPreflight", params: { phase: "compacting" } } },
				],
			},
		},
		beforeSettle: {
			description: "The agent_before_settle boundary: extensions may commit drafts and ask to continue.",
			entry: "requestBeforeSettle",
			initial: "working",
			states: {
				working: {
					always: [
						{ guard: "beforeSettleSkippedAwaitingInput", target: "awaitingInput" },
						{ guard: "beforeSettleSkipped", target: "#promptOperation.settling" },
					],
					on: {
						// Queued after the boundary's look at the queues, before its answer arrives: noted,
						// so BEFORE_SETTLE_DONE runs it (it was settling past it: a follow-up stranded).
						QUEUE_INPUT_FINISHED: [
							{ guard: "queueInputQueued", actions: ["uncountQueueInput", "noteQueuedDuringBoundary"] },
							{ actions: "uncountQueueInput" },
						],
						"xstate.done.actor.busyPreflight.*": [
							{ guard: "busyPreflightQueued", actions: ["announceBusyPreflightResult", "noteQueuedDuringBoundary"] },
							{ actions: "announceBusyPreflightResult" },
						],
						ABORT: { target: "aborting", actions: abortOperation },
						COMPACT: [refuseOtherThanWaiting, { target: "aborting", actions: abortThenCompact }],
					},
				},
				aborting: {
					description: "Abort flagged during the boundary; waiting for the handlers to return.",
					entry: { type: "signalAbort", params: { target: "boundary" } },
				},
				awaitingInput: {
					description:
						"About to settle while a prompt that arrived busy is still in its input hooks: queued → run it now, else settle.",
					always: { guard: "noBusyInputLeft", target: "#promptOperation.settling" },
					on: {
						"xstate.done.actor.busyPreflight.*": [
							{
								guard: "busyPreflightQueued",
								target: "#promptOperation.running",
								actions: ["announceBusyPreflightResult", { type: "setRunCause", params: { cause: "queued" } }],
							},
							{ actions: "announceBusyPreflightResult" },
						],
						QUEUE_INPUT_FINISHED: [
							{
								guard: "queueInputQueued",
								target: "#promptOperation.running",
								actions: ["uncountQueueInput", { type: "setRunCause", params: { cause: "queued" } }],
							},
							{ actions: "uncountQueueInput" },
						],
						ABORT: { target: "#promptOperation.settling", actions: abortOperation },
						COMPACT: [refuseOtherThanWaiting, { target: "#promptOperation.settling", actions: abortThenCompact }],
						// The boundary was answered (or skipped) before this state: nothing to answer here.
						BEFORE_SETTLE_DONE: {},
						BEFORE_SETTLE_FAILED: {},
					},
				},
			},
			on: {
				BEFORE_SETTLE_DONE: [
					{ guard: "abortRequested", target: "settling" },
					// Before the stall check: input queued meanwhile is progress, a stall would strand it.
					queuedDuringBoundaryRuns,
					{
						guard: { type: "boundaryContinuationStalled", params: ({ event }) => ({ output: event.output }) },
						target: "settling",
						actions: { type: "recordStall", params: { reason: "boundary_continuation" } },
					},
					{
						guard: { type: "boundaryContinues", params: ({ event }) => ({ output: event.output }) },
						target: "running",
						actions: { type: "setRunCause", params: { cause: "boundary" } },
					},
					{ guard: "awaitingBusyInput", target: ".awaitingInput" },
					{ target: "settling" },
				],
				BEFORE_SETTLE_FAILED: [
					{ guard: "abortRequested", target: "settling" },
					queuedDuringBoundaryRuns,
					{ guard: "awaitingBusyInput", target: ".awaitingInput" },
					{ target: "settling" },
				],
				PROMPT: { actions: { type: "spawnBusyPreflight", params: { phase: "beforeSettle" } } },
				// beforeSettle.aborting: the boundary is being aborted already.
				COMPACT: [refuseOtherThanWaiting, { actions: { type: "deferCompaction", params: { cancelOnAbort: true } } }],
				COMPACT_WHEN_SETTLED: [
					refuseOtherThanWaiting,
					{ actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },
				],
			},
		},
		settling: {
			description: "Flush pending messages, clear per-run options, await agent_settled handlers (once).",
			entry: "requestSettle",
			on: {
				SETTLE_DONE: { target: "idle", actions: ["announceOperationSettled", "clearOperation"] },
				SETTLE_FAILED: { target: "idle", actions: ["announceOperationSettled", "clearOperation"] },
				PROMPT: { actions: "deferPrompt" },
				// From an agent_settled handler (pi-powerline-footer#174): the run is over, nothing to
				// abort; the compaction starts once the dispatch has ended.
				COMPACT: [refuseOtherThanWaiting, { actions: { type: "deferCompaction", params: { cancelOnAbort: false } } }],
				COMPACT_WHEN_SETTLED: [
					refuseOtherThanWaiting,
					{ actions: { type: "deferCompaction", params: { cancelOnAbort: false } } },
				],
				// The run is over, but an agent_settled handler may still hold work (pi-agents#139): tell it.
				ABORT: { actions: [{ type: "signalAbort", params: { target: "settled" } }, "cancelDeferredCompactionOnAbort"] },
			},
		},
		branchSummary: {
			description: "Tree navigation with an optional branch summary (counts as compacting).",
			invoke: {
				id: "navigateTree",
				src: "navigateTree",
				input: ({ context }) => {
					const input: NavigateTreeInput = { requestId: context.treeNavigation?.requestId ?? "" };
					if (context.treeNavigation?.payload !== undefined) input.payload = context.treeNavigation.payload;
					return input;
				},
				onDone: {
					target: "idle",
					actions: [
						{ type: "announceTreeNavigationDone", params: ({ event }) => ({ output: event.output }) },
						"clearTreeNavigation",
					],
				},
				onError: {
					target: "idle",
					actions: [
						{ type: "announceTreeNavigationDone", params: ({ event }) => ({ error: event.error }) },
						"clearTreeNavigation",
					],
				},
			},
			initial: "working",
			states: {
				working: {
					on: {
						ABORT: { target: "aborting", actions: "cancelDeferredCompactionOnAbort" },
						ABORT_BRANCH_SUMMARY: { target: "aborting" },
						// compact() aborts the branch summary and compacts once the navigation has returned.
						// Nothing waits here (idle starts a held compaction before any navigation).
						COMPACT: { target: "aborting", actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },
						COMPACT_WHEN_SETTLED: {
							target: "aborting",
							actions: { type: "deferCompaction", params: { cancelOnAbort: true } },
						},
					},
				},
				aborting: {
					description: "Branch summary aborted; waiting for the navigation to return.",
					entry: { type: "signalAbort", params: { target: "branch_summary" } },
				},
			},
			on: {
				PROMPT: { actions: { type: "spawnBusyPreflight", params: { phase: "branchSummary" } } },
				COMPACT: [refuseOtherThanWaiting, { actions: { type: "deferCompaction", params: { cancelOnAbort: true } } }],
				COMPACT_WHEN_SETTLED: [
					refuseOtherThanWaiting,
					{ actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },
				],
			},
		},
	},
});

// ---------------------------------------------------------------------------------------------
// Selectors (DESIGN §2: the session's flags are derived from the machine, never kept separately)

/** A snapshot of the prompt-operation machine. */
export type PromptOperationSnapshot = SnapshotFrom<typeof promptOperationMachine>;
/** A running prompt-operation actor. */
export type PromptOperationActor = ActorRefFrom<typeof promptOperationMachine>;

/**
 * The dotted paths of a machine's state value type: `{ running: "working" | "aborting" }` gives
 * `"running.working" | "running.aborting"`.
 *
 * @example
 * ```ts
 * const path: StateValuePath<"idle" | { running: "working" }> = "running.working";
 * ```
 */
export type StateValuePath<V> = V extends string
	? V
	: { [K in keyof V & string]: `${K}.${StateValuePath<V[K]>}` }[keyof V & string];

/**
 * Every state `session.lifecycle` can name (`"idle"`, `"running.working"`, `"compacting.working"`,
 * …), derived from the machine, so a host's `switch` on it is checked against the real states.
 *
 * @example
 * ```ts
 * const busy = (state: PromptOperationStatePath) => state !== "idle";
 * busy(session.lifecycle);
 * ```
 */
export type PromptOperationStatePath = StateValuePath<PromptOperationSnapshot["value"]>;

/** An operation has started and has not settled yet (`running` … `settling`). */
export function isOperationActive(snapshot: PromptOperationSnapshot): boolean {
	return snapshot.context.operation !== undefined;
}

/**
 * `session.isStreaming`: an operation is active and its `agent_settled` dispatch has not begun —
 * false in `settling`, so `isIdle()` seen from an `agent_settled` handler is true, as in pi.
 */
export function isStreaming(snapshot: PromptOperationSnapshot): boolean {
	return isOperationActive(snapshot) && !snapshot.matches("settling");
}

/** `session.isRetrying`: waiting out a retry backoff. */
export function isRetrying(snapshot: PromptOperationSnapshot): boolean {
	return snapshot.matches("retrying");
}

/**
 * A retry run follows the run that just ended: announced at its `agent_end{willRetry: true}`, through
 * the backoff, until the retry starts (or is cancelled).
 */
export function retryFollows(snapshot: PromptOperationSnapshot): boolean {
	return snapshot.context.retryAnnouncement === "announced";
}

/**
 * `session.isCompacting`: any compaction (manual, automatic, before a prompt is sent, or before a
 * routed request) or a tree navigation (branch summary) is running.
 */
export function isCompacting(snapshot: PromptOperationSnapshot): boolean {
	return (
		snapshot.matches("compacting") ||
		snapshot.matches({ running: "compacting" }) ||
		snapshot.context.preflightCompactions.preSend !== undefined ||
		snapshot.context.preflightCompactions.dispatch !== undefined ||
		snapshot.context.treeNavigation !== undefined
	);
}

/**
 * `session.lifecycle`: the current state as a dotted path, e.g. `"idle"`, `"running.aborting"`.
 *
 * @example
 * ```ts
 * declare const actor: PromptOperationActor;
 * lifecycleState(actor.getSnapshot()); // "retrying"
 * ```
 */
export function lifecycleState(snapshot: PromptOperationSnapshot): PromptOperationStatePath {
	// stateValuePath flattens the value exactly as the type does.
	return stateValuePath(snapshot.value) as PromptOperationStatePath;
}

function stateValuePath(value: unknown): string {
	if (typeof value === "string") return value;
	if (value && typeof value === "object") {
		const [key, child] = Object.entries(value as Record<string, unknown>)[0] ?? [];
		if (key === undefined) return "";
		const rest = stateValuePath(child);
		return rest ? `${key}.${rest}` : key;
	}
	return "";
}
