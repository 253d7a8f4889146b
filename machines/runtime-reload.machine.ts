/**
 * The reload machine: a session's `reload()` calls (pi's `/reload`) and the prompts that arrive
 * meanwhile, as an explicit lifecycle. One actor per session, started at its first `reload()`.
 * Pure: no I/O, no timers of its own (the bounded wait runs on the actor's clock), no imports from
 * `src/`.
 *
 * `idle ─RELOAD→ reloading(shuttingDown → loading → binding → starting → reloaded | failed | cutOff) ─→ idle | reloading | disposed`:
 * - `RELOAD {requestId, busy}` in `idle`: refused (`reload_refused`) when an operation or a
 *   compaction runs (`busy`), otherwise the reload starts. During a reload another `RELOAD` is
 *   queued and runs right after it: overlapping `reload()` calls run one after the other, each to
 *   its own end (`reload_finished`), never interleaved.
 * - `shuttingDown` runs `shutdownExtensions` (`session_shutdown {reason: "reload"}` to the old
 *   extensions) for at most `shutdownTimeoutMs` (pi#9811: a handler that never returns froze
 *   `/reload` for good). When the wait runs out the machine emits `shutdown_timed_out` — the
 *   session reports each handler still running through the extension error path, naming its
 *   extension — and the reload goes on without it. A `shutdownExtensions` failure fails the reload
 *   before anything was rebuilt.
 * - then three steps, each an invoked actor whose failure is the reload's: `loading` runs
 *   `loadExtensions` (invalidate the old runner, re-read settings and resources, run the extension
 *   factories), `binding` runs `bindExtensions` (install the new runner, the tools, the host's
 *   `beforeSessionStart`), `starting` runs `startExtensions` (`session_start` and
 *   `resources_discover {reason: "reload"}`).
 * - Prompts: a prompt that arrives while a reload runs is HELD (`HOLD_PROMPT {promptId}`, accepted
 *   only in `reloading`: `snapshot.can()` tells the session whether to hold it) and runs against
 *   the rebuilt session — `prompts_released` (in arrival order) once the last queued reload has
 *   reloaded. When a reload FAILS the prompts held so far are refused (`prompts_refused {reason:
 *   "reload_failed"}`): they were sent to run after that reload, and the session is not what their
 *   sender waited for (a half-rebuilt extension runtime may lack the tool that guarded it, pi#8311);
 *   a prompt sent after the failure runs on the session as it is.
 * - `TEARDOWN` (its runtime started tearing the session down: a replacement or dispose) and
 *   `DISPOSE` (the session was disposed): held prompts are refused (`reason: "disposed"`) and
 *   queued reloads cancelled (`reloads_cancelled`) at once, and the reload in progress is CUT OFF
 *   at its next step: the step running finishes (a step is not stopped half-way), then the reload
 *   ends in `cutOff` (`reload_finished {cutOff: <the last step run>}`) instead of going on. So
 *   nothing is loaded, installed or started for a session that is going away: the extensions it
 *   loaded and did not install never hear of the session; the ones it installed are the ones the
 *   teardown tells `session_shutdown` (once: the old ones, told by the reload's `shuttingDown`,
 *   are not told again). After `DISPOSE` the actor is done; after `TEARDOWN` it is idle (a runtime
 *   whose replacement rolls back keeps the session).
 * - `TEARDOWN_ROLLED_BACK` (that teardown failed and rolled back: the session lives on) while the
 *   reload still runs its step (the teardown stopped waiting for it): the reload is no longer cut
 *   off, it goes on to its end as if no teardown had come (what `TEARDOWN` refused stays refused).
 *
 * The same bounded wait ({@link shutdownTimeoutDelay}) bounds the runtime machine's `shuttingDown`.
 *
 * @example
 * ```ts
 * import { createActor, fromPromise } from "xstate";
 * const actor = createActor(
 *   reloadMachine.provide({
 *     actors: {
 *       shutdownExtensions: fromPromise(async () => {}),
 *       loadExtensions: fromPromise(async () => {}),
 *       bindExtensions: fromPromise(async () => {}),
 *       startExtensions: fromPromise(async () => {}),
 *     },
 *   }),
 *   { input: { shutdownTimeoutMs: DEFAULT_SHUTDOWN_TIMEOUT_MS } },
 * );
 * actor.on("reload_finished", ({ requestId, error }) => console.log(requestId, error ?? "reloaded"));
 * actor.on("prompts_released", ({ promptIds }) => console.log("run now:", promptIds));
 * actor.start();
 * actor.send({ type: "RELOAD", requestId: "r1", busy: false });
 * if (actor.getSnapshot().can({ type: "HOLD_PROMPT", promptId: "p1" })) actor.send({ type: "HOLD_PROMPT", promptId: "p1" });
 * ```
 * @module
 */
import { and, assign, emit, enqueueActions, fromPromise, type SnapshotFrom, setup } from "xstate";

/** How long (ms) `session_shutdown` handlers are waited for by default: reload, replacement and dispose. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** The longest delay a timer can take (Node runs a longer one after 1 ms). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * The bounded wait's delay for a configured `shutdownTimeoutMs`: `Infinity` (wait as long as the
 * handlers take, as pi does) schedules the longest timer, which {@link isShutdownBounded} ignores.
 */
export function shutdownTimeoutDelay(timeoutMs: number): number {
	return Math.min(Math.max(0, timeoutMs), MAX_TIMER_DELAY_MS);
}

/** The wait for `session_shutdown` handlers is bounded (`shutdownTimeoutMs` is finite). */
export function isShutdownBounded(timeoutMs: number): boolean {
	return Number.isFinite(timeoutMs);
}

/** Input of a reload actor. */
export interface ReloadMachineInput {
	/** How long `session_shutdown` handlers are waited for; `Infinity`: as long as they take. */
	shutdownTimeoutMs: number;
}

/** Input of the steps: which `reload()` call they serve. */
export interface ReloadStepInput {
	requestId: string;
}

/** Events the session sends. */
export type ReloadEvent =
	/** A `reload()` call; `busy`: an operation or a compaction runs now. */
	| { type: "RELOAD"; requestId: string; busy: boolean }
	/** A prompt (or message) that arrived during a reload: it waits for the reload. */
	| { type: "HOLD_PROMPT"; promptId: string }
	/** Its runtime started tearing the session down (a replacement, or dispose): the reload stops at its next step. */
	| { type: "TEARDOWN" }
	/** That teardown rolled back (the session lives on): a reload still running goes on to its end. */
	| { type: "TEARDOWN_ROLLED_BACK" }
	/** The session was disposed. */
	| { type: "DISPOSE" };

/** The steps after which a reload can be cut off (the last one it ran). */
export type ReloadStep = "shuttingDown" | "loading" | "binding";

/** What the machine emits. */
export type ReloadEmitted =
	/** The wait for the old extensions' `session_shutdown` handlers ran out; the reload goes on. */
	| { type: "shutdown_timed_out"; requestId: string; timeoutMs: number }
	/**
	 * A `reload()` ended: reloaded (no `error`, no `cutOff`), failed (`error`), or cut off by a
	 * teardown after `cutOff` (the steps after it did not run).
	 */
	| { type: "reload_finished"; requestId: string; shutdownTimedOut: boolean; error?: unknown; cutOff?: ReloadStep }
	/** A `reload()` refused at once: an operation or a compaction runs. */
	| { type: "reload_refused"; requestId: string }
	/** Queued `reload()` calls that will not run: the session was disposed. */
	| { type: "reloads_cancelled"; requestIds: string[] }
	/** Held prompts to run now, in this order, against the reloaded session. */
	| { type: "prompts_released"; promptIds: string[] }
	/** Held prompts that will not run: their reload failed (`error`), or the session was disposed. */
	| { type: "prompts_refused"; promptIds: string[]; reason: "reload_failed" | "disposed"; error?: unknown };

/** Reload machine context: the reload in progress, queued reloads, held prompts (ids only). */
export interface ReloadContext {
	shutdownTimeoutMs: number;
	/** The reload in progress. */
	requestId: string | undefined;
	shutdownTimedOut: boolean;
	error: unknown;
	/** `reload()` calls waiting for the one in progress, in call order. */
	queuedReloads: string[];
	/** Prompts waiting for the reloads, in arrival order. */
	heldPrompts: string[];
	disposed: boolean;
	/** A teardown started ({@link ReloadEvent} `TEARDOWN`): the reload in progress stops at its next step. */
	tearingDown?: boolean;
	/** The step after which the reload in progress was cut off. */
	cutOffAfter?: ReloadStep;
}

function notProvided(name: string): never {
	throw new Error(
		`The reload actor "${name}" is not provided: pass it with reloadMachine.provide({ actors: { ${name} } }).`,
	);
}

function stepInput(context: ReloadContext): ReloadStepInput {
	return { requestId: context.requestId ?? "" };
}

/** The reload statechart (see the module doc). */
export const reloadMachine = setup({
	types: {} as {
		context: ReloadContext;
		input: ReloadMachineInput;
		events: ReloadEvent;
		emitted: ReloadEmitted;
	},
	actors: {
		shutdownExtensions: fromPromise<void, ReloadStepInput>(async () => notProvided("shutdownExtensions")),
		loadExtensions: fromPromise<void, ReloadStepInput>(async () => notProvided("loadExtensions")),
		bindExtensions: fromPromise<void, ReloadStepInput>(async () => notProvided("bindExtensions")),
		startExtensions: fromPromise<void, ReloadStepInput>(async () => notProvided("startExtensions")),
	},
	guards: {
		shutdownBounded: ({ context }) => isShutdownBounded(context.shutdownTimeoutMs),
		sessionBusy: (_, params: { busy: boolean }) => params.busy,
		disposed: ({ context }) => context.disposed,
		/** Disposed, or being torn down: nothing more is started for this session. */
		stopping: ({ context }) => context.disposed || context.tearingDown === true,
		hasQueuedReload: ({ context }) => context.queuedReloads.length > 0,
	},
	delays: {
		/** `shutdownTimeoutMs`, on the actor's clock. */
		shutdownTimeout: ({ context }) => shutdownTimeoutDelay(context.shutdownTimeoutMs),
	},
	actions: {
		startReload: assign((_, params: { requestId: string }) => ({
			requestId: params.requestId,
			shutdownTimedOut: false,
			error: undefined,
			tearingDown: undefined,
			cutOffAfter: undefined,
		})),
		startNextReload: assign(({ context }) => ({
			requestId: context.queuedReloads[0],
			queuedReloads: context.queuedReloads.slice(1),
			shutdownTimedOut: false,
			error: undefined,
			cutOffAfter: undefined,
		})),
		refuseReload: emit((_, params: { requestId: string }) => ({
			type: "reload_refused" as const,
			requestId: params.requestId,
		})),
		queueReload: assign(({ context }, params: { requestId: string }) => ({
			queuedReloads: [...context.queuedReloads, params.requestId],
		})),
		/** After DISPOSE nothing waits: a prompt or reload arriving then ends at once. */
		refuseDisposedPrompt: emit((_, params: { promptId: string }) => ({
			type: "prompts_refused" as const,
			promptIds: [params.promptId],
			reason: "disposed" as const,
		})),
		cancelDisposedReload: emit((_, params: { requestId: string }) => ({
			type: "reloads_cancelled" as const,
			requestIds: [params.requestId],
		})),
		holdPrompt: assign(({ context }, params: { promptId: string }) => ({
			heldPrompts: [...context.heldPrompts, params.promptId],
		})),
		reportShutdownTimedOut: enqueueActions(({ enqueue, context }) => {
			enqueue.assign({ shutdownTimedOut: true });
			enqueue.emit({
				type: "shutdown_timed_out",
				requestId: context.requestId ?? "",
				timeoutMs: context.shutdownTimeoutMs,
			});
		}),
		recordError: assign((_, params: { error: unknown }) => ({ error: params.error })),
		recordCutOff: assign((_, params: { after: ReloadStep }) => ({ cutOffAfter: params.after })),
		resumeAfterRolledBackTeardown: assign({ tearingDown: undefined }),
		announceFinished: emit(({ context }) => {
			const event: ReloadEmitted = {
				type: "reload_finished",
				requestId: context.requestId ?? "",
				shutdownTimedOut: context.shutdownTimedOut,
			};
			if (context.error !== undefined) event.error = context.error;
			if (context.cutOffAfter !== undefined) event.cutOff = context.cutOffAfter;
			return event;
		}),
		/** The held prompts were waiting for a reload that failed: they do not run. */
		refuseHeldPromptsAfterFailure: enqueueActions(({ enqueue, context }) => {
			if (context.heldPrompts.length === 0) return;
			enqueue.emit({
				type: "prompts_refused",
				promptIds: context.heldPrompts,
				reason: "reload_failed",
				error: context.error,
			});
			enqueue.assign({ heldPrompts: [] });
		}),
		releaseHeldPrompts: enqueueActions(({ enqueue, context }) => {
			enqueue.assign({ requestId: undefined });
			if (context.heldPrompts.length === 0) return;
			enqueue.emit({ type: "prompts_released", promptIds: context.heldPrompts });
			enqueue.assign({ heldPrompts: [] });
		}),
		/** Dispose or teardown: held prompts and queued reloads end at once; the reload in progress stops at its next step. */
		dropWaiting: enqueueActions(({ enqueue, context }, params: { disposed: boolean }) => {
			enqueue.assign(
				params.disposed
					? { disposed: true, heldPrompts: [], queuedReloads: [] }
					: { tearingDown: true, heldPrompts: [], queuedReloads: [] },
			);
			if (context.heldPrompts.length > 0) {
				enqueue.emit({ type: "prompts_refused", promptIds: context.heldPrompts, reason: "disposed" });
			}
			if (context.queuedReloads.length > 0) {
				enqueue.emit({ type: "reloads_cancelled", requestIds: context.queuedReloads });
			}
		}),
	},
}).createMachine({
	id: "reload",
	description:
		"A session's reload() calls, one at a time (session_shutdown bounded, then load, bind, start; cut off between steps by a teardown), and the prompts that wait for them.",
	context: ({ input }) => ({
		shutdownTimeoutMs: input.shutdownTimeoutMs,
		requestId: undefined,
		shutdownTimedOut: false,
		error: undefined,
		queuedReloads: [],
		heldPrompts: [],
		disposed: false,
	}),
	initial: "idle",
	states: {
		idle: {
			description: "No reload runs: prompts run at once.",
			on: {
				RELOAD: [
					{
						guard: { type: "sessionBusy", params: ({ event }) => ({ busy: event.busy }) },
						actions: { type: "refuseReload", params: ({ event }) => ({ requestId: event.requestId }) },
					},
					{
						target: "reloading",
						actions: { type: "startReload", params: ({ event }) => ({ requestId: event.requestId }) },
					},
				],
				DISPOSE: { target: "disposed" },
			},
		},
		reloading: {
			description: "One reload runs; prompts arriving now are held, further reloads queued.",
			initial: "shuttingDown",
			on: {
				HOLD_PROMPT: [
					{
						guard: "stopping",
						actions: { type: "refuseDisposedPrompt", params: ({ event }) => ({ promptId: event.promptId }) },
					},
					{ actions: { type: "holdPrompt", params: ({ event }) => ({ promptId: event.promptId }) } },
				],
				RELOAD: [
					{
						guard: "stopping",
						actions: { type: "cancelDisposedReload", params: ({ event }) => ({ requestId: event.requestId }) },
					},
					{ actions: { type: "queueReload", params: ({ event }) => ({ requestId: event.requestId }) } },
				],
				TEARDOWN: { actions: { type: "dropWaiting", params: { disposed: false } } },
				TEARDOWN_ROLLED_BACK: { actions: "resumeAfterRolledBackTeardown" },
				DISPOSE: { actions: { type: "dropWaiting", params: { disposed: true } } },
			},
			states: {
				shuttingDown: {
					description: "session_shutdown {reason: reload} to the old extensions, waited for at most shutdownTimeoutMs.",
					invoke: {
						id: "shutdownExtensions",
						src: "shutdownExtensions",
						input: ({ context }) => stepInput(context),
						onDone: [
							{
								guard: "stopping",
								target: "cutOff",
								actions: { type: "recordCutOff", params: { after: "shuttingDown" } },
							},
							{ target: "loading" },
						],
						onError: {
							target: "failed",
							actions: { type: "recordError", params: ({ event }) => ({ error: event.error }) },
						},
					},
					after: {
						shutdownTimeout: [
							{
								guard: and(["shutdownBounded", "stopping"]),
								target: "cutOff",
								actions: ["reportShutdownTimedOut", { type: "recordCutOff", params: { after: "shuttingDown" } }],
							},
							{ guard: "shutdownBounded", target: "loading", actions: "reportShutdownTimedOut" },
						],
					},
				},
				loading: {
					description: "Invalidate the old extensions, reload settings and resources, run the extension factories.",
					invoke: {
						id: "loadExtensions",
						src: "loadExtensions",
						input: ({ context }) => stepInput(context),
						onDone: [
							{ guard: "stopping", target: "cutOff", actions: { type: "recordCutOff", params: { after: "loading" } } },
							{ target: "binding" },
						],
						onError: {
							target: "failed",
							actions: { type: "recordError", params: ({ event }) => ({ error: event.error }) },
						},
					},
				},
				binding: {
					description: "Install the new extensions and their tools; the host's beforeSessionStart.",
					invoke: {
						id: "bindExtensions",
						src: "bindExtensions",
						input: ({ context }) => stepInput(context),
						onDone: [
							{ guard: "stopping", target: "cutOff", actions: { type: "recordCutOff", params: { after: "binding" } } },
							{ target: "starting" },
						],
						onError: {
							target: "failed",
							actions: { type: "recordError", params: ({ event }) => ({ error: event.error }) },
						},
					},
				},
				starting: {
					description: "session_start and resources_discover {reason: reload} to the new extensions.",
					invoke: {
						id: "startExtensions",
						src: "startExtensions",
						input: ({ context }) => stepInput(context),
						onDone: { target: "reloaded" },
						onError: {
							target: "failed",
							actions: { type: "recordError", params: ({ event }) => ({ error: event.error }) },
						},
					},
				},
				reloaded: { type: "final", entry: "announceFinished" },
				cutOff: {
					description: "A teardown overtook the reload: the steps after cutOffAfter did not run.",
					type: "final",
					entry: "announceFinished",
				},
				failed: {
					description: "The prompts held so far are refused: the session is not what they waited for.",
					type: "final",
					entry: ["announceFinished", "refuseHeldPromptsAfterFailure"],
				},
			},
			onDone: [
				{ guard: "disposed", target: "disposed" },
				{ guard: "hasQueuedReload", target: "reloading", reenter: true, actions: "startNextReload" },
				{ target: "idle", actions: "releaseHeldPrompts" },
			],
		},
		disposed: {
			description: "The session is disposed: nothing more is accepted.",
			type: "final",
		},
	},
});

/** A snapshot of the reload machine. */
export type ReloadSnapshot = SnapshotFrom<typeof reloadMachine>;
