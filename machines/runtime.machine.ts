/**
 * The runtime machine: the AgentSessionRuntime's current-session slot and session replacement
 * (session replacement as pi does it). Pure: no I/O, no imports from `src/` other than types.
 *
 * ## How the AgentSessionRuntime runs it
 * ```ts
 * const actor = createActor(runtimeMachine.provide({ actors: { checkBeforeSwitch, openTarget, createSession,
 *   settleCurrent, shutdownCurrent, invalidateCurrent, disposeCurrent, rebindSession, runWithSession, rollBack } }),
 *   { input: { shutdownTimeoutMs }, clock }); // the session's bound and clock (real timers by default)
 * actor.on("session_committed", (e) => runtime.installSession(e.created));
 * actor.start();
 * actor.send({ type: "SWITCH", requestId: "q1", sessionFile, cwdOverride });
 * ```
 * Check `actor.getSnapshot().can(event)` before sending NEW / SWITCH / FORK / IMPORT: a replacement
 * in progress does not accept another (reject the call with a `BUSY` error). `DISPOSE` is accepted
 * at any time; during a replacement it runs right after it.
 *
 * ## Order (the new session is created before the old one is shut down)
 * `active → beforeSwitch → opening → creating → settlingCurrent → shuttingDown → invalidating →
 * disposing → rebinding → withSession → active`. The new services and AgentSession are CREATED (for the
 * target's cwd, not yet bound to the host) BEFORE the old session is shut down. Invariant 10 says a
 * replacement either completes or leaves the old session intact and usable; a disposed session
 * cannot be brought back, so everything that can fail for ordinary reasons (missing file, missing
 * cwd, bad settings, a throwing extension factory, disk errors) must happen while the old session
 * is still untouched. Extensions still observe pi's order: `session_before_switch` →
 * `session_shutdown` (old) → `session_start` (new, when the host rebinds), because a created but
 * unbound session emits nothing. The commit point is `disposing`:
 * - failure in `beforeSwitch`, `opening`, `creating` → `active`, nothing torn down (`createSession`
 *   must dispose whatever it half-built before rejecting);
 * - `settlingCurrent` cannot fail the replacement: an error there is reported (`teardown_error`)
 *   and teardown goes on (the run was told to abort: there is no keeping it);
 * - failure in `shuttingDown` / `invalidating` → `rollingBack` (dispose the prepared session; the
 *   old one was told `session_shutdown`, so the host rebinds it) → `active` with the old session;
 * - from `disposing` on there is no way back: dispose errors are swallowed and a failing
 *   `rebindSession` / `withSession` is reported on `replacement_completed.error`, with the new
 *   session installed.
 * `DISPOSE`: `settlingCurrent(quit) → shuttingDown → invalidating → disposing → disposed` (final);
 * failures on this path never stop it.
 *
 * ## Two bounded waits, one after the other (pi-desktop#46, then pi#9811)
 * Teardown reads: abort the run → wait for it to settle at most `settleTimeoutMs` → emit
 * `session_shutdown` → wait for its handlers at most `shutdownTimeoutMs` → invalidate, dispose,
 * rebind. They are separate delays because they wait for different owners and a user tunes them
 * for different reasons: `settleTimeout` is the grace of the session's own run (its aborted answer
 * and every tool call's result reach the file before it is released; an `agent_end` handler that
 * never resolves cannot hold it longer), `shutdownTimeout` is the extensions' cleanup budget. One
 * shared timer (as before) let a slow-to-settle run eat the handlers' budget, and
 * `shutdownTimeoutMs: 0` abandoned the run unsaved. The longest teardown before the commit point is
 * therefore `settleTimeoutMs + shutdownTimeoutMs` (2 s + 10 s by default).
 *
 * ### Waiting for the run to settle
 * `settlingCurrent` runs `settleCurrent` (stop a `reload()` in progress at its next step — the
 * reload machine's `TEARDOWN`: nothing more is loaded or started for the session going away — and
 * abort what the session runs; resolve when both have settled, at once when nothing runs) for at most `settleTimeoutMs` (input, default
 * {@link DEFAULT_SETTLE_TIMEOUT_MS}; `Infinity`: no bound). When it runs out the machine emits
 * `settle_timed_out {reason, timeoutMs}` and goes on to `shuttingDown`.
 *
 * ### Waiting for `session_shutdown`
 * `shuttingDown` lasts at most the current session's `shutdownTimeoutMs` (input, default
 * {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}; after a replacement the new session's, from
 * {@link CreatedSession}; `Infinity`: no bound). When it runs out the machine emits
 * `shutdown_timed_out {reason, timeoutMs}` — report the handlers still running, naming their
 * extensions — and goes on to `invalidating` as if the handlers had returned: the replacement or
 * dispose completes (the abandoned handler is not stopped; its context is stale once disposed).
 *
 * ## Actors (input → output); all placeholders throw "not provided"
 * | actor | input | output |
 * |---|---|---|
 * | `checkBeforeSwitch` | {@link ReplacementInput} | {@link BeforeSwitchOutput} — `session_before_switch` / `session_before_fork` |
 * | `openTarget` | {@link ReplacementInput} | {@link OpenedTarget} — open the target SessionManager, validate its cwd, fork's branch |
 * | `createSession` | {@link CreateSessionInput} | {@link CreatedSession} — services for the TARGET cwd + new AgentSession (+ `setup`), unbound |
 * | `settleCurrent` | {@link TeardownInput} | void — stop a reload in progress at its next step, abort the old session's run and its user shell commands; resolve once all settled (their ends recorded) |
 * | `shutdownCurrent` | {@link TeardownInput} | void — `session_shutdown{reason, targetSessionFile}` on the old runner |
 * | `invalidateCurrent` | {@link TeardownInput} | void — host `beforeSessionInvalidate()` |
 * | `disposeCurrent` | {@link TeardownInput} | void — old `session.dispose()` (contexts become stale) |
 * | `rebindSession` | {@link FinishInput} | void — host `rebindSession(newSession)` |
 * | `runWithSession` | {@link FinishInput} | void — the caller's `withSession(newSession.createReplacedSessionContext())` |
 * | `rollBack` | {@link RollBackInput} | void — dispose the prepared session; rebind the old one if it was told to shut down |
 *
 * ## Emitted events ({@link RuntimeEmitted})
 * `replacement_started`, `replacement_cancelled`, `replacement_failed {phase, error, rolledBack}`,
 * `settle_timed_out {reason, timeoutMs}`, `shutdown_timed_out {reason, timeoutMs}`, `teardown_error {phase, error}`
 * (the old session is in place), `session_committed {created}` (install the new session in the
 * slot now: the old one is disposed), `replacement_completed {selectedText?, error?}`,
 * `runtime_disposed`.
 * @module
 */
import { type ActorRefFrom, assign, emit, enqueueActions, fromPromise, type SnapshotFrom, setup } from "xstate";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, isShutdownBounded, shutdownTimeoutDelay } from "./runtime-reload.machine.js";

/** The machine's id. */
export const RUNTIME_MACHINE_ID = "runtime";

/**
 * How long (ms) a teardown waits by default for the aborted run of the session it tears down to
 * settle (its end persisted) before `session_shutdown` is emitted anyway.
 */
export const DEFAULT_SETTLE_TIMEOUT_MS = 2_000;

/** Caller's follow-up with the fresh session context (its type belongs to the runtime layer). */
export type WithSessionCallback = (replacedSessionContext: unknown) => unknown;
/** `newSession({ setup })`: prepares the new SessionManager before the session is built. */
export type NewSessionSetup = (sessionManager: unknown) => unknown;

/** One replacement request, as the runtime hands it to the machine. */
export type ReplacementRequest =
	| {
			kind: "new";
			requestId: string;
			parentSession?: string;
			setup?: NewSessionSetup;
			withSession?: WithSessionCallback;
	  }
	| {
			kind: "switch";
			requestId: string;
			sessionFile: string;
			cwdOverride?: string;
			sessionDir?: string;
			createIfMissing?: boolean;
			withSession?: WithSessionCallback;
	  }
	| {
			kind: "fork";
			requestId: string;
			entryId: string;
			position: "before" | "at";
			withSession?: WithSessionCallback;
	  }
	| { kind: "import"; requestId: string; inputPath: string; cwdOverride?: string };

/** Events the runtime sends. */
export type RuntimeEvent =
	| {
			type: "NEW";
			requestId: string;
			parentSession?: string;
			setup?: NewSessionSetup;
			withSession?: WithSessionCallback;
	  }
	| {
			type: "SWITCH";
			requestId: string;
			sessionFile: string;
			cwdOverride?: string;
			/** The folder new sessions started from the opened one go to (default: the file's folder). */
			sessionDir?: string;
			/** Start a new session when `sessionFile` does not exist (pi); otherwise opening fails. */
			createIfMissing?: boolean;
			withSession?: WithSessionCallback;
	  }
	| { type: "FORK"; requestId: string; entryId: string; position?: "before" | "at"; withSession?: WithSessionCallback }
	| { type: "IMPORT"; requestId: string; inputPath: string; cwdOverride?: string }
	| { type: "DISPOSE" };

/** `session_shutdown` reason: `switch` and `import` are `resume`. */
export type ShutdownReason = "new" | "resume" | "fork" | "quit";

/** States a replacement can fail in. */
export type ReplacementPhase =
	| "beforeSwitch"
	| "opening"
	| "creating"
	| "settlingCurrent"
	| "shuttingDown"
	| "invalidating"
	| "disposing"
	| "rebinding"
	| "withSession";

/** Input of `checkBeforeSwitch` and `openTarget`. */
export interface ReplacementInput {
	request: ReplacementRequest;
}

/** Output of `checkBeforeSwitch`: an extension cancelled (then nothing changes). */
export interface BeforeSwitchOutput {
	cancelled: boolean;
}

/** Output of `openTarget`: the opened target, validated. */
export interface OpenedTarget {
	/** The target session file (undefined for an in-memory session). */
	sessionFile?: string;
	/** The cwd the new services are built for (the target's, or the override). */
	cwd: string;
	/** Fork "before": the user message text. */
	selectedText?: string;
	/** The opened SessionManager (opaque to the machine). */
	handle: unknown;
}

/** Input of `createSession`. */
export interface CreateSessionInput {
	request: ReplacementRequest;
	target: OpenedTarget;
}

/** Output of `createSession`: services + AgentSession for the target (opaque to the machine). */
export interface CreatedSession {
	handle: unknown;
	/** The new session's own bound on `session_shutdown` (its teardown's, once it is current). */
	shutdownTimeoutMs?: number;
}

/** Input of a runtime actor (optional). */
export interface RuntimeMachineInput {
	/** How long the current session's `session_shutdown` handlers are waited for; `Infinity`: no limit. */
	shutdownTimeoutMs?: number;
	/**
	 * How long the current session's aborted run is waited for to settle before `session_shutdown`
	 * (default {@link DEFAULT_SETTLE_TIMEOUT_MS}); `Infinity`: no limit.
	 */
	settleTimeoutMs?: number;
}

/** Input of the teardown actors (old session). */
export interface TeardownInput {
	reason: ShutdownReason;
	/** The file the runtime switches to (`session_shutdown`'s `targetSessionFile`). */
	targetSessionFile?: string;
}

/** Input of `rebindSession` and `runWithSession`. */
export interface FinishInput {
	request: ReplacementRequest;
	created: CreatedSession;
}

/** Input of `rollBack`. */
export interface RollBackInput {
	request: ReplacementRequest;
	created: CreatedSession | undefined;
	failedPhase: ReplacementPhase;
	error: unknown;
	/** `session_shutdown` was (at least partly) delivered to the old session's extensions. */
	shutdownAnnounced: boolean;
}

/** Typed events the machine emits. */
export type RuntimeEmitted =
	| { type: "replacement_started"; requestId: string; kind: ReplacementRequest["kind"] }
	| { type: "replacement_cancelled"; requestId: string }
	| { type: "replacement_failed"; requestId: string; phase: ReplacementPhase; error: unknown; rolledBack: boolean }
	| { type: "session_committed"; requestId: string; created: CreatedSession }
	| { type: "replacement_completed"; requestId: string; selectedText?: string; error?: unknown }
	| { type: "teardown_error"; phase: ReplacementPhase; error: unknown }
	/** The wait for the old session's aborted run to settle ran out: `session_shutdown` is emitted anyway. */
	| { type: "settle_timed_out"; reason: ShutdownReason; timeoutMs: number }
	/** The bounded wait for `session_shutdown` ran out: report the handlers still running; teardown goes on. */
	| { type: "shutdown_timed_out"; reason: ShutdownReason; timeoutMs: number }
	| { type: "runtime_disposed" };

/** Machine context: the replacement in progress (never session data). */
export interface RuntimeContext {
	request: ReplacementRequest | undefined;
	target: OpenedTarget | undefined;
	created: CreatedSession | undefined;
	teardownReason: ShutdownReason | undefined;
	failure: { phase: ReplacementPhase; error: unknown } | undefined;
	/** A failure after the commit point (reported on `replacement_completed`). */
	lateError: unknown;
	disposeRequested: boolean;
	completedReplacements: number;
	/** The current session's bound on its `session_shutdown` handlers (ms; `Infinity`: none). */
	shutdownTimeoutMs: number;
	/** The bound on the current session's aborted run settling before `session_shutdown` (ms; `Infinity`: none). */
	settleTimeoutMs: number;
}

function notProvided(name: string): never {
	throw new Error(
		`The runtime actor "${name}" is not provided: pass it with runtimeMachine.provide({ actors: { ${name} } }).`,
	);
}

function requestFromEvent(event: RuntimeEvent): ReplacementRequest | undefined {
	switch (event.type) {
		case "NEW": {
			const request: ReplacementRequest = { kind: "new", requestId: event.requestId };
			if (event.parentSession !== undefined) request.parentSession = event.parentSession;
			if (event.setup) request.setup = event.setup;
			if (event.withSession) request.withSession = event.withSession;
			return request;
		}
		case "SWITCH": {
			const request: ReplacementRequest = {
				kind: "switch",
				requestId: event.requestId,
				sessionFile: event.sessionFile,
			};
			if (event.cwdOverride !== undefined) request.cwdOverride = event.cwdOverride;
			if (event.sessionDir !== undefined) request.sessionDir = event.sessionDir;
			if (event.createIfMissing) request.createIfMissing = true;
			if (event.withSession) request.withSession = event.withSession;
			return request;
		}
		case "FORK": {
			const request: ReplacementRequest = {
				kind: "fork",
				requestId: event.requestId,
				entryId: event.entryId,
				position: event.position ?? "before",
			};
			if (event.withSession) request.withSession = event.withSession;
			return request;
		}
		case "IMPORT": {
			const request: ReplacementRequest = { kind: "import", requestId: event.requestId, inputPath: event.inputPath };
			if (event.cwdOverride !== undefined) request.cwdOverride = event.cwdOverride;
			return request;
		}
		default:
			return undefined;
	}
}

/** `session_shutdown` reason for a request kind. */
export function shutdownReasonFor(kind: ReplacementRequest["kind"]): ShutdownReason {
	return kind === "new" ? "new" : kind === "fork" ? "fork" : "resume";
}

function teardownInput(context: RuntimeContext): TeardownInput {
	const input: TeardownInput = { reason: context.teardownReason ?? "quit" };
	if (context.target?.sessionFile !== undefined) input.targetSessionFile = context.target.sessionFile;
	return input;
}

function finishInput(context: RuntimeContext): FinishInput {
	if (!context.request || !context.created) {
		throw new Error("runtime machine: finishing a replacement without a request and a created session");
	}
	return { request: context.request, created: context.created };
}

/** An actor's error as the failure of `phase`: the params of `recordFailure` and `reportTeardownError`. */
function failureIn(phase: ReplacementPhase) {
	return ({ event }: { event: { error: unknown } }) => ({ phase, error: event.error });
}

/** A step before the teardown failed: report it; nothing was torn down, the old session stays. */
function failedBeforeTeardown(phase: ReplacementPhase) {
	return {
		target: "active",
		actions: [
			{ type: "recordFailure", params: failureIn(phase) },
			{ type: "announceFailed", params: { rolledBack: false } },
			"clearRequest",
		],
	} as const;
}

/** A teardown step before the commit point failed: a dispose reports it and goes on to `next`, a replacement rolls back. */
function teardownStepFailed(phase: ReplacementPhase, next: "invalidating" | "disposing") {
	return [
		{ guard: "isQuitting", target: next, actions: { type: "reportTeardownError", params: failureIn(phase) } },
		{ target: "rollingBack", actions: { type: "recordFailure", params: failureIn(phase) } },
	] as const;
}

/** A step after the commit point failed: the replacement completes with the error on `replacement_completed`. */
const COMPLETED_WITH_LATE_ERROR = {
	target: "active",
	actions: [
		{ type: "recordLateError", params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) },
		"finishReplacement",
	],
} as const;

/**
 * The runtime statechart (see the module doc for the full contract).
 *
 * @example
 * ```ts
 * import { createActor } from "xstate";
 * // The steps (open, create, shut down, rebind, …) a host implements, as AgentSessionRuntime does:
 * declare const actors: NonNullable<Parameters<typeof runtimeMachine.provide>[0]["actors"]>;
 * const actor = createActor(runtimeMachine.provide({ actors }), { input: { shutdownTimeoutMs: 10_000 } });
 * actor.on("replacement_completed", (e) => console.log("switched", e.requestId));
 * actor.start();
 * actor.send({ type: "NEW", requestId: "n1" });
 * ```
 */
export const runtimeMachine = setup({
	types: {} as {
		context: RuntimeContext;
		events: RuntimeEvent;
		emitted: RuntimeEmitted;
		input: RuntimeMachineInput | undefined;
	},
	actors: {
		checkBeforeSwitch: fromPromise<BeforeSwitchOutput, ReplacementInput>(async () => notProvided("checkBeforeSwitch")),
		openTarget: fromPromise<OpenedTarget, ReplacementInput>(async () => notProvided("openTarget")),
		createSession: fromPromise<CreatedSession, CreateSessionInput>(async () => notProvided("createSession")),
		settleCurrent: fromPromise<void, TeardownInput>(async () => notProvided("settleCurrent")),
		shutdownCurrent: fromPromise<void, TeardownInput>(async () => notProvided("shutdownCurrent")),
		invalidateCurrent: fromPromise<void, TeardownInput>(async () => notProvided("invalidateCurrent")),
		disposeCurrent: fromPromise<void, TeardownInput>(async () => notProvided("disposeCurrent")),
		rebindSession: fromPromise<void, FinishInput>(async () => notProvided("rebindSession")),
		runWithSession: fromPromise<void, FinishInput>(async () => notProvided("runWithSession")),
		rollBack: fromPromise<void, RollBackInput>(async () => notProvided("rollBack")),
	},
	guards: {
		disposeRequested: ({ context }) => context.disposeRequested,
		cancelled: (_, params: { output: BeforeSwitchOutput }) => params.output.cancelled,
		isQuitting: ({ context }) => context.teardownReason === "quit",
		hasWithSession: ({ context }) => context.request !== undefined && "withSession" in context.request,
		shutdownBounded: ({ context }) => isShutdownBounded(context.shutdownTimeoutMs),
		settleBounded: ({ context }) => isShutdownBounded(context.settleTimeoutMs),
	},
	delays: {
		/** The current session's `settleTimeoutMs`, on the actor's clock. */
		settleTimeout: ({ context }) => shutdownTimeoutDelay(context.settleTimeoutMs),
		/** The current session's `shutdownTimeoutMs`, on the actor's clock. */
		shutdownTimeout: ({ context }) => shutdownTimeoutDelay(context.shutdownTimeoutMs),
	},
	actions: {
		acceptRequest: assign(({ event }) => ({
			request: requestFromEvent(event),
			target: undefined,
			created: undefined,
			failure: undefined,
			lateError: undefined,
			teardownReason: undefined,
		})),
		announceStarted: emit(({ context }) => ({
			type: "replacement_started" as const,
			requestId: context.request?.requestId ?? "",
			kind: context.request?.kind ?? "new",
		})),
		announceCancelled: emit(({ context }) => ({
			type: "replacement_cancelled" as const,
			requestId: context.request?.requestId ?? "",
		})),
		recordFailure: assign((_, params: { phase: ReplacementPhase; error: unknown }) => ({
			failure: { phase: params.phase, error: params.error },
		})),
		announceFailed: emit(({ context }, params: { rolledBack: boolean }) => ({
			type: "replacement_failed" as const,
			requestId: context.request?.requestId ?? "",
			phase: context.failure?.phase ?? "opening",
			error: context.failure?.error,
			rolledBack: params.rolledBack,
		})),
		storeTarget: assign((_, params: { target: OpenedTarget }) => ({ target: params.target })),
		storeCreated: assign(({ context }, params: { created: CreatedSession }) => ({
			created: params.created,
			teardownReason: context.request ? shutdownReasonFor(context.request.kind) : "quit",
		})),
		beginQuit: assign({ teardownReason: "quit" as const, disposeRequested: false }),
		markDisposeRequested: assign({ disposeRequested: true }),
		reportSettleTimedOut: emit(({ context }) => ({
			type: "settle_timed_out" as const,
			reason: context.teardownReason ?? "quit",
			timeoutMs: context.settleTimeoutMs,
		})),
		reportShutdownTimedOut: emit(({ context }) => ({
			type: "shutdown_timed_out" as const,
			reason: context.teardownReason ?? "quit",
			timeoutMs: context.shutdownTimeoutMs,
		})),
		reportTeardownError: emit((_, params: { phase: ReplacementPhase; error: unknown }) => ({
			type: "teardown_error" as const,
			phase: params.phase,
			error: params.error,
		})),
		announceCommitted: emit(({ context }) => ({
			type: "session_committed" as const,
			requestId: context.request?.requestId ?? "",
			created: context.created ?? { handle: undefined },
		})),
		recordLateError: assign((_, params: { error: unknown }) => ({ lateError: params.error })),
		/** Emit `replacement_completed` (with a late error, if any) and clear the request. */
		finishReplacement: enqueueActions(({ enqueue, context }) => {
			const event: RuntimeEmitted = { type: "replacement_completed", requestId: context.request?.requestId ?? "" };
			if (context.target?.selectedText !== undefined) event.selectedText = context.target.selectedText;
			if (context.lateError !== undefined) event.error = context.lateError;
			enqueue.emit(event);
			enqueue.assign({
				completedReplacements: context.completedReplacements + 1,
				// The new session is current: its own bound applies to its teardown.
				shutdownTimeoutMs: context.created?.shutdownTimeoutMs ?? context.shutdownTimeoutMs,
				request: undefined,
				target: undefined,
				created: undefined,
				teardownReason: undefined,
				failure: undefined,
				lateError: undefined,
			});
		}),
		clearRequest: assign({
			request: undefined,
			target: undefined,
			created: undefined,
			teardownReason: undefined,
			failure: undefined,
			lateError: undefined,
		}),
		announceDisposed: emit({ type: "runtime_disposed" as const }),
	},
}).createMachine({
	id: RUNTIME_MACHINE_ID,
	description: "The AgentSessionRuntime's current-session slot: replacement and disposal.",
	context: ({ input }) => ({
		request: undefined,
		target: undefined,
		created: undefined,
		teardownReason: undefined,
		failure: undefined,
		lateError: undefined,
		disposeRequested: false,
		completedReplacements: 0,
		shutdownTimeoutMs: input?.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
		settleTimeoutMs: input?.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS,
	}),
	initial: "active",
	on: {
		DISPOSE: { actions: "markDisposeRequested" },
	},
	states: {
		active: {
			description: "A session is current and usable.",
			always: { guard: "disposeRequested", target: "settlingCurrent", actions: "beginQuit" },
			on: {
				NEW: { target: "beforeSwitch", actions: ["acceptRequest", "announceStarted"] },
				SWITCH: { target: "beforeSwitch", actions: ["acceptRequest", "announceStarted"] },
				FORK: { target: "beforeSwitch", actions: ["acceptRequest", "announceStarted"] },
				IMPORT: { target: "beforeSwitch", actions: ["acceptRequest", "announceStarted"] },
				DISPOSE: { target: "settlingCurrent", actions: "beginQuit" },
			},
		},
		beforeSwitch: {
			description: "session_before_switch / session_before_fork: an extension may cancel.",
			invoke: {
				id: "checkBeforeSwitch",
				src: "checkBeforeSwitch",
				input: ({ context }) => ({ request: requireRequest(context) }),
				onDone: [
					{
						guard: { type: "cancelled", params: ({ event }) => ({ output: event.output }) },
						target: "active",
						actions: ["announceCancelled", "clearRequest"],
					},
					{ target: "opening" },
				],
				onError: failedBeforeTeardown("beforeSwitch"),
			},
		},
		opening: {
			description: "Open the target and validate its cwd; the current session is untouched.",
			invoke: {
				id: "openTarget",
				src: "openTarget",
				input: ({ context }) => ({ request: requireRequest(context) }),
				onDone: {
					target: "creating",
					actions: { type: "storeTarget", params: ({ event }) => ({ target: event.output }) },
				},
				onError: failedBeforeTeardown("opening"),
			},
		},
		creating: {
			description: "Services for the TARGET cwd + the new AgentSession, not bound yet.",
			invoke: {
				id: "createSession",
				src: "createSession",
				input: ({ context }) => {
					if (!context.target) throw new Error("runtime machine: creating without an opened target");
					return { request: requireRequest(context), target: context.target };
				},
				onDone: {
					target: "settlingCurrent",
					actions: { type: "storeCreated", params: ({ event }) => ({ created: event.output }) },
				},
				onError: failedBeforeTeardown("creating"),
			},
		},
		settlingCurrent: {
			description:
				"Stop a reload in progress at its next step, abort the old session's run and cancel its user shell commands; wait for all to settle (the run's end and the commands' results saved in the old file) at most settleTimeoutMs, then session_shutdown anyway.",
			// pi-desktop#46: the run's end reaches the file before it is released; a handler that never
			// resolves (agent_end, a tool ignoring the abort) cannot hold the teardown.
			after: {
				settleTimeout: { guard: "settleBounded", target: "shuttingDown", actions: "reportSettleTimedOut" },
			},
			invoke: {
				id: "settleCurrent",
				src: "settleCurrent",
				input: ({ context }) => teardownInput(context),
				onDone: { target: "shuttingDown" },
				onError: {
					target: "shuttingDown",
					actions: { type: "reportTeardownError", params: failureIn("settlingCurrent") },
				},
			},
		},
		shuttingDown: {
			description:
				"session_shutdown to the old session's extensions, waited for at most shutdownTimeoutMs (then reported, and teardown goes on).",
			// pi#9811: a handler that never returns must not hold the replacement (or dispose) forever.
			after: {
				shutdownTimeout: { guard: "shutdownBounded", target: "invalidating", actions: "reportShutdownTimedOut" },
			},
			invoke: {
				id: "shutdownCurrent",
				src: "shutdownCurrent",
				input: ({ context }) => teardownInput(context),
				onDone: { target: "invalidating" },
				onError: teardownStepFailed("shuttingDown", "invalidating"),
			},
		},
		invalidating: {
			description: "Host beforeSessionInvalidate(); old extension contexts are still valid here.",
			invoke: {
				id: "invalidateCurrent",
				src: "invalidateCurrent",
				input: ({ context }) => teardownInput(context),
				onDone: { target: "disposing" },
				onError: teardownStepFailed("invalidating", "disposing"),
			},
		},
		disposing: {
			description: "Old session.dispose(): commit point, its extension contexts become stale.",
			invoke: {
				id: "disposeCurrent",
				src: "disposeCurrent",
				input: ({ context }) => teardownInput(context),
				onDone: [
					{ guard: "isQuitting", target: "disposed" },
					{ target: "rebinding", actions: "announceCommitted" },
				],
				onError: [
					{
						guard: "isQuitting",
						target: "disposed",
						actions: { type: "reportTeardownError", params: failureIn("disposing") },
					},
					{
						target: "rebinding",
						actions: [{ type: "reportTeardownError", params: failureIn("disposing") }, "announceCommitted"],
					},
				],
			},
		},
		rebinding: {
			description: "Host rebindSession(new): binds extensions, session_start for the new session.",
			invoke: {
				id: "rebindSession",
				src: "rebindSession",
				input: ({ context }) => finishInput(context),
				onDone: [
					{ guard: "hasWithSession", target: "withSession" },
					{ target: "active", actions: "finishReplacement" },
				],
				onError: COMPLETED_WITH_LATE_ERROR,
			},
		},
		withSession: {
			description: "The caller's withSession(ctx) with a fresh context of the new session.",
			invoke: {
				id: "runWithSession",
				src: "runWithSession",
				input: ({ context }) => finishInput(context),
				onDone: { target: "active", actions: "finishReplacement" },
				onError: COMPLETED_WITH_LATE_ERROR,
			},
		},
		rollingBack: {
			description: "Teardown failed before the commit point: drop the new session, keep the old one.",
			invoke: {
				id: "rollBack",
				src: "rollBack",
				input: ({ context }) => ({
					request: requireRequest(context),
					created: context.created,
					failedPhase: context.failure?.phase ?? "shuttingDown",
					error: context.failure?.error,
					shutdownAnnounced: true,
				}),
				onDone: {
					target: "active",
					actions: [{ type: "announceFailed", params: { rolledBack: true } }, "clearRequest"],
				},
				onError: {
					target: "active",
					actions: [{ type: "announceFailed", params: { rolledBack: true } }, "clearRequest"],
				},
			},
		},
		disposed: {
			description: "The runtime is disposed; nothing is accepted any more.",
			type: "final",
			entry: "announceDisposed",
		},
	},
});

function requireRequest(context: RuntimeContext): ReplacementRequest {
	if (!context.request) throw new Error("runtime machine: no replacement request in progress");
	return context.request;
}

/** A snapshot of the runtime machine. */
export type RuntimeSnapshot = SnapshotFrom<typeof runtimeMachine>;

/**
 * Every state `runtime.lifecycle` can name (`"active"`, `"beforeSwitch"`, …, `"disposed"`),
 * derived from the machine.
 *
 * @example
 * ```ts
 * const replacing = (state: RuntimeStatePath) => state !== "active" && state !== "disposed";
 * replacing(runtime.lifecycle);
 * ```
 */
export type RuntimeStatePath = RuntimeSnapshot["value"];
/** A running runtime actor. */
export type RuntimeActor = ActorRefFrom<typeof runtimeMachine>;

/** A replacement (or disposal) is in progress: the slot must not be used for a new request. */
export function isReplacing(snapshot: RuntimeSnapshot): boolean {
	return !snapshot.matches("active") && !snapshot.matches("disposed");
}
