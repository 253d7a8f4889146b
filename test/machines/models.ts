/**
 * The two machines as xstate/graph models: concrete events per actor outcome and a bounded
 * serialization (only what guards read), shared by the model tests.
 */
import type { EventObject } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { reloadMachine } from "../../machines/runtime-reload.machine.js";
import type { AnySnapshot, ModelSpec } from "./graph-harness.js";
import {
	fatal,
	lengthOverflow,
	outcome,
	overflowError,
	promptHarness,
	reloadHarness,
	retryable,
	runtimeHarness,
} from "./harness.js";

const RUN_OUTCOMES = [
	outcome(),
	retryable(),
	retryable("429 rate limit", { requestedDelayMs: 3_600_000 }),
	overflowError(),
	lengthOverflow(),
	outcome({ stopReason: "stop", errorClass: "overflow" }),
	outcome({ overThreshold: true }),
	outcome({ hasQueuedMessages: true }),
	// Runs that added nothing (skipped continuations): with messages left queued (a stall) or not.
	outcome({ stopReason: undefined, madeProgress: false, hasQueuedMessages: true }),
	outcome({ stopReason: undefined, madeProgress: false }),
	outcome({ beforeSettleBoundary: false }),
	fatal(),
	outcome({ stopReason: "aborted", aborted: true }),
];

export const PROMPT_EVENTS: EventObject[] = [
	{ type: "PROMPT", request: { requestId: "p" } } as EventObject,
	// An extension's send from a manual compaction's session_compact (pi#9647): deferred there.
	{ type: "PROMPT", request: { requestId: "p", whenIdle: true } } as EventObject,
	{ type: "COMPACT", requestId: "c" } as EventObject,
	// A ctx.compact(): held without aborting while an operation runs (UniPi#30), else compact().
	{ type: "COMPACT_WHEN_SETTLED", requestId: "w" } as EventObject,
	// compact() / ctx.compact() with instructions the running manual compaction was not given: refused (pi#4203).
	{ type: "COMPACT", requestId: "o", payload: { customInstructions: "other" } } as EventObject,
	{ type: "COMPACT_WHEN_SETTLED", requestId: "o", payload: { customInstructions: "other" } } as EventObject,
	// From the preflight's own command / input handler (pi#7154): runs at once in `preflight`, and
	// the preflight goes on past its dispatch only once it has ended.
	{ type: "COMPACT_WHEN_SETTLED", requestId: "d", fromDispatch: true } as EventObject,
	{ type: "PREFLIGHT_DISPATCH_END" } as EventObject,
	{ type: "xstate.done.actor.dispatchCompaction", output: { compacted: true, continue: false } } as EventObject,
	{ type: "NAVIGATE_TREE", requestId: "t" } as EventObject,
	// From an extension command (inside its prompt's preflight): spawned there, refused elsewhere.
	{ type: "NAVIGATE_TREE", requestId: "t", fromCommand: true } as EventObject,
	{ type: "ASSISTANT_MESSAGE_END", stopReason: "stop" } as EventObject,
	{ type: "ASSISTANT_MESSAGE_END", stopReason: "error" } as EventObject,
	{ type: "ASSISTANT_MESSAGE_END", stopReason: "aborted" } as EventObject,
	{ type: "UPDATE_RETRY_SETTINGS", retry: {} } as EventObject,
	// A summarizer's retry reports (targetless: every state announces them and stays).
	{
		type: "SUMMARIZATION_RETRY_SCHEDULED",
		attempt: 1,
		maxAttempts: 3,
		delayMs: 2000,
		errorMessage: "503",
	} as EventObject,
	{ type: "SUMMARIZATION_RETRY_ATTEMPT_START", source: "compaction", reason: "threshold" } as EventObject,
	{ type: "SUMMARIZATION_RETRY_ATTEMPT_START", source: "branchSummary" } as EventObject,
	{ type: "SUMMARIZATION_RETRY_FINISHED", success: false, attempt: 1, finalError: "503" } as EventObject,
	{ type: "PRE_SEND_COMPACTION_START", reason: "threshold" } as EventObject,
	// The session's queue changes (targetless everywhere; offered only in idle and retrying below).
	{ type: "QUEUE_CHANGED", steering: 1, followUp: 0, change: "queued", queue: "steering", text: "s" } as EventObject,
	...(["started", "handled", "queued"] as const).map(
		(disposition) => ({ type: "PREFLIGHT_DONE", output: { disposition } }) as EventObject,
	),
	{
		type: "PREFLIGHT_DONE",
		output: { disposition: "rejected", error: "No model selected." },
	} as EventObject,
	...RUN_OUTCOMES.map((output) => ({ type: "RUN_DONE", output }) as EventObject),
	...[
		{ compacted: true, continue: false },
		{ compacted: false, continue: false, cancelled: true },
		{ compacted: false, continue: true },
	].map((output) => ({ type: "xstate.done.actor.compaction", output }) as EventObject),
	{ type: "BEFORE_SETTLE_DONE", output: { continue: true } } as EventObject,
	{ type: "BEFORE_SETTLE_DONE", output: { continue: false } } as EventObject,
	{ type: "SETTLE_DONE" } as EventObject,
	{ type: "xstate.done.actor.navigateTree", output: { cancelled: false } } as EventObject,
	// steer() / followUp() in their input hooks (counted like busy prompts): queued or handled.
	{ type: "QUEUE_INPUT_STARTED" } as EventObject,
	{ type: "QUEUE_INPUT_FINISHED", queued: true } as EventObject,
	{ type: "QUEUE_INPUT_FINISHED", queued: false } as EventObject,
	// Busy prompts: queued (the operation must deliver it) or handled by a command / the input hook.
	...(["queued", "handled"] as const).map(
		(disposition) => ({ type: "xstate.done.actor.busyPreflight.*", output: { disposition } }) as EventObject,
	),
];

/**
 * What `boundaryContinuationStalled` depends on, only where it matters (elsewhere it would double
 * the graph): a run the boundary asked for, and in `beforeSettle` whether that run added nothing.
 */
function boundaryRunFlag(s: AnySnapshot): string | null {
	if (s.context.runCause !== "boundary") return null;
	if (s.matches("running")) return "boundary run";
	if (s.matches("beforeSettle") && s.context.lastOutcome?.madeProgress === false) return "boundary run added nothing";
	return null;
}

export const promptModel: ModelSpec = {
	machine: promptOperationMachine,
	input: { retry: { maxRetries: 2 } },
	events: PROMPT_EVENTS,
	serialize: (s: AnySnapshot) =>
		JSON.stringify([
			s.value,
			s.context.retryAttempt,
			s.context.overflowRecoveryAttempted,
			s.context.abortRequested,
			s.context.compaction?.reason ?? null,
			s.context.compaction?.willRetry ?? null,
			s.context.deferredPrompts.length > 0,
			// A compaction the machine holds until idle (compact() while busy, ctx.compact() while an
			// operation runs, or either from agent_settled), and whether abort() cancels it.
			s.context.deferredCompaction === undefined ? null : s.context.deferredCompaction.cancelOnAbort === true,
			s.context.operation !== undefined,
			s.context.treeNavigation !== undefined,
			s.context.preflightCompactions.dispatch !== undefined,
			// Whether a busy prompt is in flight, not how many: more only adds self-loops (every replayed
			// edge is checked against the live actor, so a merge that hid a difference would fail loudly).
			s.context.busyPreflightsInFlight > 0,
			boundaryRunFlag(s),
			// Input queued while the boundary ran: read only by the boundary's answer.
			s.matches("beforeSettle") ? s.context.operation?.queuedDuringBoundary === true : null,
			// Read only by ABORT_RETRY while the run works and on entering `retrying` (from that run's end).
			s.matches({ running: "working" }) ? s.context.retryAnnouncement : null,
		]),
	// agent_end{willRetry} (RETRY_ANNOUNCED, RETRY_DECLINED) and the abortRetry() after it are explored from runs
	// with nothing else in flight: deferred prompts, busy preflights and tree navigations are
	// independent of them and already explored with every other event.
	// Likewise the pre-send compaction's reports (targetless in preflight, read only by isCompacting),
	// and the queue changes.
	offer: (s, event) => {
		const nothingInFlight =
			s.context.deferredPrompts.length === 0 &&
			s.context.busyPreflightsInFlight === 0 &&
			s.context.treeNavigation === undefined;
		if (event.type === "PRE_SEND_COMPACTION_START" || event.type === "PRE_SEND_COMPACTION_END") return nothingInFlight;
		// A dispatch's ctx.compact() and the dispatch's end exist only in `preflight` (elsewhere the
		// flag changes nothing: the plain COMPACT_WHEN_SETTLED explores those states), with nothing
		// else in flight; the compaction's end only while it runs (its handler is at the root).
		if ((event as { fromDispatch?: boolean }).fromDispatch === true || event.type === "PREFLIGHT_DISPATCH_END") {
			return s.matches("preflight") && nothingInFlight && s.context.deferredCompaction === undefined;
		}
		if (event.type.endsWith(".actor.dispatchCompaction")) return s.context.preflightCompactions.dispatch !== undefined;
		// While it runs, the session sends nothing else for the preflight (it waits after the
		// dispatch); an abort or a compact() may come. The rest is explored once it has ended.
		if (s.context.preflightCompactions.dispatch !== undefined)
			return event.type === "ABORT" || event.type === "COMPACT";
		// A compaction request is explored from states with no prompt deferred or in its hooks (a
		// tree navigation may run: idle and preflight abort it), and a second one (joining the held
		// one) only in settling: prompts and aborts sent after it still meet it, and offering it
		// beside them too doubled the graph without a transition of its own (joins: unit tests).
		// Other instructions change nothing but the answer: offered only where they are refused
		// (a manual compaction runs, or one waits to start).
		if ((event as { payload?: unknown }).payload !== undefined) {
			return (
				(s.matches({ compacting: "working" }) && s.context.compaction?.reason === "manual") ||
				s.context.deferredCompaction !== undefined
			);
		}
		if (event.type === "COMPACT" || event.type === "COMPACT_WHEN_SETTLED") {
			return (
				s.context.deferredPrompts.length === 0 &&
				(s.context.busyPreflightsInFlight === 0 || s.matches({ beforeSettle: "awaitingInput" })) &&
				!s.context.overflowRecoveryAttempted &&
				s.context.retryAttempt <= 1 &&
				(s.context.deferredCompaction === undefined || s.matches("settling"))
			);
		}
		// A root-level echo that reads and writes nothing: one state with a timer and one without
		// cover it; offering it everywhere would add a self-loop replay per state.
		if (event.type === "QUEUE_CHANGED") return nothingInFlight && (s.matches("idle") || s.matches("retrying"));
		if (event.type !== "RETRY_ANNOUNCED" && event.type !== "RETRY_DECLINED" && event.type !== "ABORT_RETRY")
			return true;
		return !s.matches({ running: "working" }) || nothingInFlight;
	},
	harness: () => promptHarness({ retry: { maxRetries: 2 } }) as never,
};

const withSession = () => undefined;
export const RUNTIME_EVENTS: EventObject[] = [
	{ type: "NEW", requestId: "n" } as EventObject,
	{ type: "NEW", requestId: "n-with-session", withSession } as EventObject,
	{ type: "SWITCH", requestId: "s", sessionFile: "/sessions/b.jsonl", withSession } as EventObject,
	{ type: "FORK", requestId: "f", entryId: "e1", position: "at" } as EventObject,
	{ type: "IMPORT", requestId: "i", inputPath: "/tmp/x.jsonl" } as EventObject,
	{ type: "xstate.done.actor.checkBeforeSwitch", output: { cancelled: true } } as EventObject,
	{ type: "xstate.done.actor.checkBeforeSwitch", output: { cancelled: false } } as EventObject,
	{
		type: "xstate.done.actor.openTarget",
		output: { sessionFile: "/sessions/b.jsonl", cwd: "/projects/b", handle: "manager" },
	} as EventObject,
	{ type: "xstate.done.actor.createSession", output: { handle: "new session" } } as EventObject,
];

export const runtimeModel: ModelSpec = {
	machine: runtimeMachine,
	events: RUNTIME_EVENTS,
	serialize: (s: AnySnapshot) =>
		JSON.stringify([
			s.value,
			s.context.request?.kind ?? null,
			s.context.request !== undefined && "withSession" in s.context.request,
			s.context.teardownReason ?? null,
			s.context.disposeRequested,
		]),
	harness: () => runtimeHarness() as never,
};

/** The reload machine: reload() calls, held prompts, teardown, dispose and its steps' outcomes (the bounded wait's timer is offered by the traversal). */
export const RELOAD_EVENTS: EventObject[] = [
	{ type: "RELOAD", requestId: "r", busy: false } as EventObject,
	{ type: "RELOAD", requestId: "r-busy", busy: true } as EventObject,
	{ type: "HOLD_PROMPT", promptId: "p" } as EventObject,
	{ type: "TEARDOWN" } as EventObject,
	{ type: "TEARDOWN_ROLLED_BACK" } as EventObject,
	{ type: "DISPOSE" } as EventObject,
	...["shutdownExtensions", "loadExtensions", "bindExtensions", "startExtensions"].flatMap((step) => [
		{ type: `xstate.done.actor.${step}` } as EventObject,
		{ type: `xstate.error.actor.${step}` } as EventObject,
	]),
];

export const reloadModel: ModelSpec = {
	machine: reloadMachine,
	input: { shutdownTimeoutMs: 10_000 },
	events: RELOAD_EVENTS,
	serialize: (s: AnySnapshot) =>
		JSON.stringify([
			s.value,
			s.context.shutdownTimedOut,
			s.context.error !== undefined,
			// Whether reloads are queued and prompts held, not how many (more only adds self-loops).
			s.context.queuedReloads.length > 0,
			s.context.heldPrompts.length > 0,
			s.context.disposed,
			s.context.tearingDown === true,
			s.context.cutOffAfter ?? null,
		]),
	harness: () => reloadHarness() as never,
};
