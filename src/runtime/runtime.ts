/**
 * AgentSessionRuntime: the host's stable "current session" slot. It runs
 * `machines/runtime.machine.ts` and replaces the whole cwd-bound runtime — services and session —
 * on new / switch (resume) / fork / import, so a session of project B never runs with project A's
 * settings, AGENTS.md, skills, extensions or working directory.
 *
 * The target (its file, its cwd, its services, its session) is prepared while the current session
 * is untouched; only then is the current one shut down and disposed (the commit point). A failure
 * before the commit leaves the current session as it was, usable (invariant 10).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createActor, fromPromise, type InspectionEvent } from "xstate";
import type { PromptOperationStatePath } from "../../machines/prompt-operation.machine.js";
import {
	type BeforeSwitchOutput,
	type CreatedSession,
	type CreateSessionInput,
	DEFAULT_SETTLE_TIMEOUT_MS,
	type FinishInput,
	isReplacing,
	type OpenedTarget,
	type ReplacementInput,
	type ReplacementRequest,
	type RollBackInput,
	type RuntimeActor,
	type RuntimeEmitted,
	type RuntimeEvent,
	type RuntimeStatePath,
	runtimeMachine,
	type ShutdownReason,
	type TeardownInput,
} from "../../machines/runtime.machine.js";
import { errorMessage, SettleError } from "../errors.js";
import type {
	ForkOptions,
	NewSessionOptions,
	ReplacedSessionContext,
	SessionStartEvent,
	SwitchSessionOptions,
} from "../extensions/types.js";
import {
	type BuiltInDetailsOptions,
	inspectActorAs,
	type LifecycleDetails,
	type LifecycleInspectionEvent,
	type LifecycleInspectorOptions,
	type LifecycleObserver,
	type PromptOperationDetails,
	type RuntimeDetails,
} from "../inspect/lifecycle-inspector.js";
import {
	type InspectionSubscription,
	InspectionSubscriptionSet,
	inspectionSubscription,
} from "../inspect/subscription-set.js";
import { createTraceRecorder, type TraceRecorderOptions } from "../inspect/trace.js";
import { callListener } from "../listener-errors.js";
import {
	type AgentSession,
	abortForTeardown,
	inspectionClockOf,
	resumeAfterRollback,
	type SessionReplacementActions,
	type SessionTrace,
	setClosedMessage,
	setClosingMessage,
	setReplacingMessage,
	teardownTimingOf,
} from "../session/agent-session.js";
import { callbackArgumentError, stringArgumentError } from "../session/input-check.js";
import { BOUNDED_WAIT_CLOCK, reportUnfinishedShutdownHandlers } from "../session/reload.js";
import {
	SESSION_BEING_REPLACED,
	SESSION_REPLACED,
	SESSION_RUNTIME_DISPOSED,
	SESSION_RUNTIME_DISPOSING,
} from "../session/texts.js";
import { getDefaultSessionDirPath } from "../store/paths.js";
import type { SessionManager } from "../store/session-manager.js";
import {
	assertSessionCwdExists,
	invalidSettleTimeout,
	REPLACEMENT_IN_PROGRESS_MESSAGE,
	RUNTIME_DISPOSED_MESSAGE,
	SessionImportFileNotFoundError,
} from "./errors.js";
import type { CreateAgentSessionResult } from "./sdk.js";
import type { AgentSessionRuntimeDiagnostic, AgentSessionServices } from "./services.js";
import {
	type CurrentSessionView,
	importDestination,
	openFork,
	openImport,
	openNewSession,
	openSessionFile,
	releaseTarget,
	type TargetHandle,
	takeOverFileWrittenMeanwhile,
} from "./targets.js";

/** What the runtime factory is asked to build (pi's `CreateAgentSessionRuntimeOptions`). */
export interface AgentSessionRuntimeTarget {
	/** The TARGET's cwd: build the services for this directory. */
	cwd: string;
	agentDir: string;
	sessionManager: SessionManager;
	sessionStartEvent?: SessionStartEvent;
}

/** What the factory returns: the session and the services it was built on. */
export interface AgentSessionRuntimeResult extends CreateAgentSessionResult {
	services: AgentSessionServices;
	diagnostics: AgentSessionRuntimeDiagnostic[];
}

/**
 * Builds services and a session for a target. Stored by the runtime and called for every
 * replacement. If it throws it must dispose whatever it built (the session manager it was given
 * is released by the runtime).
 */
export type AgentSessionRuntimeFactory = (target: AgentSessionRuntimeTarget) => Promise<AgentSessionRuntimeResult>;

/** Result of `newSession` / `switchSession` / `importFromJsonl`. */
export interface ReplacementResult {
	cancelled: boolean;
}

/** Result of `switchSession`. */
export interface SwitchResult extends ReplacementResult {
	/**
	 * `true` when no file was at the path and a new, empty session started there (`createIfMissing`).
	 * Absent when the switch opened a file, also one the previous session wrote while the switch ran
	 * (its own unwritten path, written by its `session_shutdown`): that session goes on there.
	 */
	created?: true;
}

/** Result of `fork`: also the text of the user message forked before. */
export interface ForkResult extends ReplacementResult {
	selectedText?: string;
}

/** Options of {@link AgentSessionRuntime.switchSession}. */
export interface RuntimeSwitchOptions extends SwitchSessionOptions {
	/** Open the session in this directory instead of the one it recorded (e.g. after `MissingSessionCwdError`). */
	cwdOverride?: string;
	/**
	 * The folder new sessions started from the opened one (`newSession`, forks, imports) go to.
	 * Default: the file's own folder, as in pi. `settle --cwd <link>` passes the real path's folder
	 * when it resumes a session an older Settle saved in the link-named folder (oh-my-pi#941).
	 *
	 * @example
	 * ```ts
	 * const sessionDir = "/home/me/.settle/agent/sessions/--work-a--";
	 * await runtime.switchSession("/home/me/old-sessions/2025-….jsonl", { sessionDir });
	 * await runtime.newSession(); // written to sessionDir, not to old-sessions
	 * ```
	 */
	sessionDir?: string;
	/**
	 * Start a new session at `sessionPath` when no file is there (pi's `switchSession`, its RPC
	 * `switch_session` and extensions' `ctx.switchSession` do this). Default `false`: a missing file
	 * is a `NOT_FOUND` SettleError, so a mistyped path does not silently become an empty session.
	 */
	createIfMissing?: boolean;
}

/**
 * Why the runtime replaced its session ({@link SessionReplacedEvent.reason}): the call that did it.
 * - `new`: {@link AgentSessionRuntime.newSession} (RPC `new_session`, `/new`);
 * - `switch`: {@link AgentSessionRuntime.switchSession} (resume another session file);
 * - `fork`: {@link AgentSessionRuntime.fork} from an entry;
 * - `clone`: a fork of the current leaf with `position: "at"` — a full copy of the current branch
 *   (RPC `clone`, pi's `/clone`);
 * - `import`: {@link AgentSessionRuntime.importFromJsonl}.
 */
export type SessionReplacementReason = "new" | "switch" | "fork" | "clone" | "import";

/** What {@link AgentSessionRuntime.onSessionReplaced} listeners receive. */
export interface SessionReplacedEvent {
	/**
	 * The session that was current before. It is disposed by now: read its `sessionId`,
	 * `sessionFile` or `messages`, but do not prompt it.
	 */
	previous: AgentSession;
	/** The new current session (`runtime.session`), already bound by the host's rebind callback. */
	session: AgentSession;
	reason: SessionReplacementReason;
}

/** A {@link AgentSessionRuntime.onSessionReplaced} listener. Not awaited: its return value is ignored. */
export type SessionReplacedListener = (event: SessionReplacedEvent) => void;

/**
 * What {@link AgentSessionRuntime.onSettleTimedOut} listeners receive: the runtime stopped waiting
 * for the run of the session it tears down to settle, after `timeoutMs`
 * ({@link CreateAgentSessionRuntimeOptions.settleTimeoutMs}), and went on with `session_shutdown`.
 */
export interface SettleTimedOutEvent {
	/**
	 * The session being torn down (still `runtime.session` when listeners are called). Its run was
	 * aborted but had not ended: its file may lack the run's end (the aborted answer, a tool result).
	 */
	session: AgentSession;
	/** The teardown's `session_shutdown` reason: `new`, `resume` (switch, import), `fork` (fork, clone) or `quit` (dispose). */
	reason: ShutdownReason;
	/** The bound that ran out (ms). */
	timeoutMs: number;
}

/** A {@link AgentSessionRuntime.onSettleTimedOut} listener. Not awaited: its return value is ignored. */
export type SettleTimedOutListener = (event: SettleTimedOutEvent) => void;

/** A runtime's listeners of one kind, in subscription order. */
class ListenerList<L> {
	/** Replaced, never mutated: a listener unsubscribing while they are called skips none. */
	current: readonly L[] = [];

	/** Appends `listener`; returns its unsubscribe function (a second call does nothing). */
	add(listener: L): () => void {
		this.current = [...this.current, listener];
		let active = true;
		return () => {
			if (!active) return;
			active = false;
			const index = this.current.indexOf(listener);
			if (index !== -1) this.current = [...this.current.slice(0, index), ...this.current.slice(index + 1)];
		};
	}

	clear(): void {
		this.current = [];
	}
}

/**
 * What {@link AgentSessionRuntime.inspectSessions} streams: the runtime machine's events (`machine:
 * "runtime"`, states {@link RuntimeStatePath}) and each session's (`machine: "promptOperation"`,
 * states `PromptOperationStatePath`). Check `machine` first and `from` / `to` are typed, and so are the
 * state changes' `details` (`RuntimeDetails`, `PromptOperationDetails`; `LifecycleDetails` both
 * when a custom `details` option replaces them).
 *
 * @example
 * ```ts
 * runtime.inspectSessions((e) => {
 *   if (e.kind === "state" && e.machine === "runtime" && e.to === "beforeSwitch") console.log("replacing");
 * });
 * ```
 */
export type RuntimeSessionsInspectionEvent<
	SessionDetails extends LifecycleDetails = PromptOperationDetails,
	RuntimeStateDetails extends LifecycleDetails = RuntimeDetails,
> =
	| (LifecycleInspectionEvent<RuntimeStatePath, RuntimeStateDetails> & { machine: "runtime" })
	| (LifecycleInspectionEvent<PromptOperationStatePath, SessionDetails> & { machine: "promptOperation" });

/** A recording of the runtime machine and of each session's prompt-operation machine; `stop()` ends it. */
export type RuntimeTrace = SessionTrace;

interface Created {
	result: AgentSessionRuntimeResult;
	target: TargetHandle;
	/** The shared manager's leaf when the session was built (it may move until the old one is disposed). */
	leafAtCreation: string | null;
	reason: SessionReplacementReason;
	/** The session this one replaced (set when the replacement commits). */
	previous?: AgentSession;
}

interface PendingRequest {
	resolve(result: ForkResult & SwitchResult): void;
	reject(error: unknown): void;
	reason: SessionReplacementReason;
}

/** Each runtime, by its runtime actor's system (one system per root actor). */
const runtimesBySystem = new WeakMap<object, AgentSessionRuntime>();

const SESSION_PATH_HINT = "Pass the path of a session .jsonl file (SessionManager.list(cwd) lists them).";
const CWD_OVERRIDE_HINT = "Pass the directory to run the session in, or leave it out.";
const PARENT_SESSION_HINT = "Pass the parent session's file path, or leave it out.";
const SESSION_DIR_HINT = "Pass the folder new sessions should go to, or leave it out.";

function runtimeOf(system: object): AgentSessionRuntime {
	const runtime = runtimesBySystem.get(system);
	// Unreachable: only the AgentSessionRuntime constructor creates actors of this machine.
	if (!runtime) throw new Error("Runtime-machine actor without a runtime: create it with createAgentSessionRuntime.");
	return runtime;
}

/**
 * The current-session slot of a host (CLI, RPC server, an app embedding Settle).
 *
 * @example
 * ```ts
 * declare const otherFile: string; // a session file of another project
 * const runtime = await createAgentSessionRuntime(createAgentSessionRuntimeFactory(), {
 *   cwd: process.cwd(),
 *   agentDir: getDefaultAgentDir(),
 *   sessionManager: SessionManager.create(process.cwd()),
 * });
 * runtime.setRebindSession((session) => session.bindExtensions());
 * runtime.onSessionReplaced(({ previous, session, reason }) => console.log(reason, previous.sessionId, "→", session.sessionId));
 * await runtime.session.bindExtensions();
 * await runtime.session.prompt("hi");
 * await runtime.switchSession(otherFile); // services and session now belong to that file's project
 * await runtime.dispose();
 * ```
 */
export class AgentSessionRuntime {
	/**
	 * The runtime machine with its steps, built once for every runtime: each step finds its runtime
	 * through its actor system. A machine built per runtime (`provide` per runtime) costs each
	 * runtime — a host may run one per client — its own 12 state nodes and XState's per-node caches,
	 * and grows XState's module-wide cache table. (A static field: the steps use private members.)
	 */
	private static readonly machine = runtimeMachine.provide({
		actors: {
			checkBeforeSwitch: fromPromise<BeforeSwitchOutput, ReplacementInput>(({ input, system }) =>
				runtimeOf(system).checkBeforeSwitch(input.request),
			),
			openTarget: fromPromise<OpenedTarget, ReplacementInput>(async ({ input, system }) =>
				runtimeOf(system).openTarget(input.request),
			),
			createSession: fromPromise<CreatedSession, CreateSessionInput>(({ input, system }) =>
				runtimeOf(system).createSession(input.request, input.target),
			),
			// A reload in progress stops at its next step, the run in flight and the user's shell commands end and are recorded,
			// before extensions hear session_shutdown; the machine's settleTimeout bounds the wait.
			settleCurrent: fromPromise<void, TeardownInput>(async ({ input, system }) => {
				const runtime = runtimeOf(system);
				if (input.reason === "quit") setClosingMessage(runtime.current.session, SESSION_RUNTIME_DISPOSING);
				await abortForTeardown(runtime.current.session);
			}),
			shutdownCurrent: fromPromise<void, TeardownInput>(async ({ input, system, signal }) => {
				const runtime = runtimeOf(system);
				const runner = runtime.current.session.extensionRunner;
				if (!runner.hasHandlers("session_shutdown")) return;
				// Stopped by the machine's bounded wait: the handlers after a stuck one still run (senpi#1732).
				// Extensions a reload told already are not told again: this joins the reload's dispatch.
				await runner.emitSessionShutdown(
					{
						type: "session_shutdown",
						reason: input.reason,
						...(input.targetSessionFile !== undefined ? { targetSessionFile: input.targetSessionFile } : {}),
					},
					signal,
				);
			}),
			invalidateCurrent: fromPromise<void, TeardownInput>(async ({ system }) => {
				runtimeOf(system).beforeInvalidate?.();
			}),
			disposeCurrent: fromPromise<void, TeardownInput>(async ({ input, system }) => {
				const runtime = runtimeOf(system);
				const { session } = runtime.current;
				setClosedMessage(session, input.reason === "quit" ? SESSION_RUNTIME_DISPOSED : SESSION_REPLACED);
				session.dispose();
				// The file is released unless the session taking over writes to the same manager.
				const sharedWithNext = input.reason !== "quit" && runtime.inFlight?.target.shared === true;
				if (!sharedWithNext) session.sessionManager.close();
			}),
			rebindSession: fromPromise<void, FinishInput>(async ({ input, system }) => {
				const runtime = runtimeOf(system);
				const created = input.created.handle as Created;
				const session = created.result.session;
				// The old session is disposed and its file released: the new one may take over what it wrote.
				let takeOverError: unknown;
				try {
					if (takeOverFileWrittenMeanwhile(created.target)) continueTakenOverFile(session);
				} catch (error) {
					takeOverError = error;
				}
				try {
					await runtime.rebind?.(session);
				} finally {
					// Installed whether or not the host's rebind failed: the replacement happened.
					runtime.notifySessionReplaced(created);
				}
				// Reported on the switch's promise, with the new session installed and bound.
				if (takeOverError !== undefined) throw takeOverError;
			}),
			runWithSession: fromPromise<void, FinishInput>(async ({ input }) => {
				const request = input.request;
				if (!("withSession" in request) || !request.withSession) return;
				const session = (input.created.handle as Created).result.session;
				const context: ReplacedSessionContext = session.extensionRunner.createReplacedSessionContext();
				await request.withSession(context);
			}),
			rollBack: fromPromise<void, RollBackInput>(async ({ input, system }) => {
				const runtime = runtimeOf(system);
				const created = input.created?.handle as Created | undefined;
				runtime.inFlight = undefined;
				if (created) discard(created);
				// The teardown's marks go: the old session is the current one again.
				resumeAfterRollback(runtime.current.session);
				// A reload this teardown cut off after loading left the old extensions stale: the session
				// goes on with the ones it loaded. A reload still in its step goes on and starts its own.
				const session = runtime.current.session;
				const reload = session.installCutOffReload();
				try {
					// The old session's extensions were told session_shutdown (or are new): bind them again.
					if (reload === "installed" || (input.shutdownAnnounced && reload === "none")) await runtime.rebind?.(session);
				} finally {
					// The cut-off reload() ends once its extensions are started (or rejects: none loaded).
					session.settleCutOffReload();
				}
			}),
		},
	});

	private current: AgentSessionRuntimeResult;
	private readonly factory: AgentSessionRuntimeFactory;
	private readonly actor: RuntimeActor;
	private readonly pending = new Map<string, PendingRequest>();
	private rebind: ((session: AgentSession) => unknown) | undefined;
	private beforeInvalidate: (() => void) | undefined;
	private inFlight: Created | undefined;
	/** The target of the replacement committed last, until its request settles (its `created`). */
	private committedTarget: TargetHandle | undefined;
	private requestCounter = 0;
	private disposedPromise: Promise<void> | undefined;
	private readonly replacementActions: SessionReplacementActions;
	/** Names the current session in a failing listener's `LISTENER` warning (many runtimes may share a process). */
	private readonly listenerOwner = () => ({ sessionId: this.session.sessionId, cwd: this.cwd });
	private readonly inspections = new InspectionSubscriptionSet("runtime.inspect", this.listenerOwner);
	private readonly replacedListeners = new ListenerList<SessionReplacedListener>();
	private readonly settleTimedOutListeners = new ListenerList<SettleTimedOutListener>();
	/** Internal: told the new session once it is installed, before the host's rebind starts it (inspectSessions). */
	private readonly installedListeners = new ListenerList<(session: AgentSession) => void>();

	/** Use {@link createAgentSessionRuntime}. */
	constructor(
		initial: AgentSessionRuntimeResult,
		factory: AgentSessionRuntimeFactory,
		options: { inspect?: (event: InspectionEvent) => void; settleTimeoutMs?: number } = {},
	) {
		this.current = initial;
		this.factory = factory;
		this.replacementActions = {
			newSession: (options) => this.newSession(options),
			fork: (entryId, options) => this.fork(entryId, options),
			// pi's ExtensionAPI contract: a missing file starts a new session there; its result is `{ cancelled }`.
			switchSession: (path, options) =>
				this.switchSession(path, { ...options, createIfMissing: true }).then(({ cancelled }) => ({ cancelled })),
		};
		initial.session.setReplacementActions(this.replacementActions);
		// Teardown is timed like the session (its clock, its bound on session_shutdown handlers).
		const { clock, shutdownTimeoutMs } = teardownTimingOf(initial.session);
		this.actor = createActor(AgentSessionRuntime.machine, {
			input: {
				shutdownTimeoutMs,
				...(options.settleTimeoutMs !== undefined ? { settleTimeoutMs: options.settleTimeoutMs } : {}),
			},
			clock: (clock ?? BOUNDED_WAIT_CLOCK) as never,
			...(options.inspect ? { inspect: options.inspect } : {}),
		});
		runtimesBySystem.set(this.actor.system, this);
		this.actor.on("*", (event) => this.onMachineEvent(event as RuntimeEmitted));
		this.actor.start();
	}

	// -------------------------------------------------------------------------------------------
	// State

	/** The current session (the old one until a replacement commits). */
	get session(): AgentSession {
		return this.current.session;
	}

	/** The current session's services (bound to {@link cwd}). */
	get services(): AgentSessionServices {
		return this.current.services;
	}

	/** The current project's directory (`services.cwd`). */
	get cwd(): string {
		return this.current.services.cwd;
	}

	/** Problems found building the current services and session. */
	get diagnostics(): AgentSessionRuntimeDiagnostic[] {
		return this.current.diagnostics;
	}

	/** Why the current session's model is not the one asked for (see `createAgentSession`). */
	get modelFallbackMessage(): string | undefined {
		return this.current.modelFallbackMessage;
	}

	/** The runtime machine's state: `active`, `beforeSwitch`, `opening`, …, `disposed`. */
	get lifecycle(): RuntimeStatePath {
		return this.actor.getSnapshot().value;
	}

	/**
	 * Resolves once no replacement (new, switch, fork, clone, import) is in progress — at once when
	 * none is. While one is, `runtime.session` refuses `prompt`, `steer`, `followUp`,
	 * `sendUserMessage`, `sendCustomMessage` and `executeBash` with a `BUSY` SettleError; after this resolves,
	 * `runtime.session` is the session to use (the new one, or the old one if an extension cancelled
	 * or the replacement failed). Never rejects.
	 *
	 * @example
	 * ```ts
	 * try {
	 *   await runtime.session.prompt("hi");
	 * } catch (error) {
	 *   if (!(error instanceof SettleError && error.code === "BUSY")) throw error;
	 *   await runtime.waitForReplacement();
	 *   await runtime.session.prompt("hi");
	 * }
	 * ```
	 */
	waitForReplacement(): Promise<void> {
		if (!isReplacing(this.actor.getSnapshot())) return Promise.resolve();
		return new Promise<void>((resolveWait) => {
			const subscription = this.actor.subscribe({
				next: (snapshot) => {
					if (isReplacing(snapshot)) return;
					subscription.unsubscribe();
					resolveWait();
				},
				complete: () => resolveWait(),
				error: () => resolveWait(),
			});
		});
	}

	/** Whether {@link dispose} has run (or is running). */
	get isDisposed(): boolean {
		return this.disposedPromise !== undefined;
	}

	/**
	 * Streams the runtime machine's typed inspection events (state changes, invoked steps, emitted events).
	 *
	 * @example
	 * ```ts
	 * runtime.inspect((e) => { if (e.kind === "state") console.log("runtime:", e.to); });
	 * ```
	 */
	inspect(
		observer: LifecycleObserver<RuntimeStatePath, RuntimeDetails>,
		options?: BuiltInDetailsOptions,
	): InspectionSubscription;
	/** With a custom `details` option: the state changes carry what it returns. */
	inspect(observer: LifecycleObserver<RuntimeStatePath>, options?: LifecycleInspectorOptions): InspectionSubscription;
	inspect(
		observer: LifecycleObserver<RuntimeStatePath>,
		options: LifecycleInspectorOptions = {},
	): InspectionSubscription {
		const { onEnd, ...rest } = options;
		// Timed like the current session's events (its clock may be simulated): one timeline in a trace.
		const now = rest.now ?? (() => (inspectionClockOf(this.session) ?? Date.now)());
		// Through the handle the actor system reaches the runtime and its last session: dispose() detaches it.
		// The inspector names this actor's states by their paths: RuntimeStatePath.
		return this.inspections.add(
			inspectActorAs(
				"runtime.inspect",
				this.actor,
				observer as LifecycleObserver,
				{ ...rest, now },
				this.listenerOwner,
			),
			onEnd,
		);
	}

	/**
	 * Records the runtime machine and the current session's prompt-operation machine into one bounded
	 * trace, and goes on with each session that replaces it (from its install, before the host's rebind starts it): the runtime's
	 * switch, teardown and rebind steps interleaved in time with each session's operations. Save it
	 * with `saveTrace`, view it with `renderTraceHtml` (one diagram per machine). `stop()` ends it.
	 *
	 * @example
	 * ```ts
	 * const trace = runtime.trace();
	 * await runtime.session.prompt("hi");
	 * await runtime.newSession();
	 * await runtime.session.prompt("hello again");
	 * trace.stop();
	 * await saveTrace("runtime.trace.json", trace); // settle trace runtime.trace.json
	 * ```
	 */
	trace(options: TraceRecorderOptions = {}): RuntimeTrace {
		const recorder = createTraceRecorder(options);
		const subscription = this.inspectSessions(recorder.observer);
		return Object.assign(recorder, { stop: () => subscription.unsubscribe() });
	}

	/**
	 * Streams the runtime machine's inspection events and the current session's, and goes on with
	 * each session that replaces it (from its install, before the host's rebind starts it) — what {@link trace} records and the
	 * live inspector (`serveInspector` of `settle/inspect`) shows. `options.onEnd` is called when the
	 * runtime is disposed (a replaced session's end does not end the stream). A throwing or rejecting
	 * observer or `onEnd` is skipped and reported once as a `LISTENER` process warning.
	 *
	 * @example
	 * ```ts
	 * const subscription = runtime.inspectSessions((e) => console.log(e.machine, e.kind));
	 * await runtime.session.prompt("hi"); // promptOperation state …
	 * await runtime.newSession(); // runtime state beforeSwitch …, then the new session's events
	 * subscription.unsubscribe();
	 * ```
	 */
	inspectSessions(
		observer: (event: RuntimeSessionsInspectionEvent) => void,
		options?: BuiltInDetailsOptions,
	): InspectionSubscription;
	/** With a custom `details` option: the state changes carry what it returns. */
	inspectSessions(
		observer: (event: RuntimeSessionsInspectionEvent<LifecycleDetails, LifecycleDetails>) => void,
		options?: LifecycleInspectorOptions,
	): InspectionSubscription;
	inspectSessions(
		observer: (event: RuntimeSessionsInspectionEvent<LifecycleDetails, LifecycleDetails>) => void,
		options: LifecycleInspectorOptions = {},
	): InspectionSubscription {
		const { onEnd, ...sessionOptions } = options;
		// A failing observer or onEnd is reported (once) under this method's name, not the inner streams'.
		// Each event comes from the runtime's or a session's stream, so its `machine` tells its state paths.
		const guarded: LifecycleObserver = (event) =>
			callListener("runtime.inspectSessions", observer, event as RuntimeSessionsInspectionEvent, this.listenerOwner);
		const runtimeSubscription = this.inspect(guarded, {
			...sessionOptions,
			...(onEnd
				? { onEnd: () => callListener("runtime.inspectSessions onEnd", onEnd, undefined, this.listenerOwner) }
				: {}),
		});
		let sessionSubscription = this.session.inspect(guarded, sessionOptions);
		// From its install on, before the host's rebind: what its session_start handlers run is seen.
		const off = this.installedListeners.add((session) => {
			sessionSubscription.unsubscribe();
			sessionSubscription = session.inspect(guarded, sessionOptions);
		});
		return inspectionSubscription(() => {
			off();
			runtimeSubscription.unsubscribe();
			sessionSubscription.unsubscribe();
		});
	}

	/**
	 * Calls `listener` each time a replacement (new, switch, fork, clone, import) has installed a new
	 * session: after the old one was disposed and the host's rebind callback ({@link setRebindSession})
	 * bound the new one, before the caller's `withSession` runs and before the replacing call
	 * resolves. Nothing is called for a replacement that is cancelled (`session_before_switch` /
	 * `session_before_fork`), fails or rolls back: the old session is still current then.
	 *
	 * Listeners are synchronous and called in subscription order; a throwing listener (or one whose
	 * promise rejects) is skipped, as `session.subscribe` listeners are, and never stops the
	 * replacement: its first failure is reported as a process warning, a `SettleError` with code
	 * `LISTENER` (`process.on("warning", …)`; Node prints it on stderr). Returns the unsubscribe function.
	 *
	 * @example
	 * ```ts
	 * const off = runtime.onSessionReplaced(({ previous, session, reason }) => {
	 *   console.log(`${reason}: ${previous.sessionId} → ${session.sessionId}`);
	 *   session.subscribe((event) => { if (event.type === "agent_settled") console.log("settled"); });
	 * });
	 * await runtime.newSession(); // "new: … → …"
	 * off();
	 * ```
	 */
	onSessionReplaced(listener: SessionReplacedListener): () => void {
		return this.replacedListeners.add(listener);
	}

	/**
	 * Calls `listener` each time a teardown (new, switch, fork, clone, import, dispose) stopped
	 * waiting for the current session's aborted run to settle: the run did not end within
	 * {@link CreateAgentSessionRuntimeOptions.settleTimeoutMs} (default 2 000 ms, on the session's
	 * clock), so `session_shutdown` went out while it still ran and the old file may lack its end.
	 * Called before `session_shutdown`, with the old session still current; the teardown goes on
	 * whatever the listener does. Nothing is called when the run settles in time or nothing runs.
	 * Same rules as {@link onSessionReplaced}: synchronous, in subscription order, a failing listener
	 * is skipped and reported once as a `LISTENER` warning. Returns the unsubscribe function.
	 *
	 * @example
	 * ```ts
	 * runtime.onSettleTimedOut(({ session, reason, timeoutMs }) => {
	 *   console.warn(`${reason}: ${session.sessionId}'s run did not end within ${timeoutMs} ms; its file may lack the end`);
	 * });
	 * ```
	 */
	onSettleTimedOut(listener: SettleTimedOutListener): () => void {
		return this.settleTimedOutListeners.add(listener);
	}

	/**
	 * Host callback run after a replacement committed, before `withSession` (pi's `setRebindSession`):
	 * bind the new session's extensions here (`session.bindExtensions(...)` sends `session_start`).
	 * Also run for the OLD session when a replacement rolls back after its `session_shutdown`.
	 */
	setRebindSession(rebind: ((session: AgentSession) => unknown) | undefined): void {
		this.rebind = rebind;
	}

	/**
	 * Synchronous host callback after `session_shutdown` handlers, before the old session is
	 * disposed (its extension contexts are still valid here). If it throws, the replacement rolls back.
	 */
	setBeforeSessionInvalidate(callback: (() => void) | undefined): void {
		this.beforeInvalidate = callback;
	}

	// -------------------------------------------------------------------------------------------
	// Replacements

	/**
	 * Starts a new session in the same project. `setup` may add messages to the new session
	 * manager before the session is bound; `withSession` runs with a fresh context of the new session.
	 *
	 * @example
	 * ```ts
	 * const { cancelled } = await runtime.newSession({ withSession: (ctx) => ctx.sendUserMessage("Start over") });
	 * ```
	 */
	newSession(options: NewSessionOptions = {}): Promise<ReplacementResult> {
		const method = "runtime.newSession";
		const invalid =
			stringArgumentError(method, "parentSession", options.parentSession, PARENT_SESSION_HINT, true) ??
			callbackArgumentError(method, "setup", options.setup) ??
			callbackArgumentError(method, "withSession", options.withSession);
		if (invalid) return Promise.reject(invalid);
		const event: RuntimeEvent = { type: "NEW", requestId: this.nextId("n") };
		if (options.parentSession !== undefined) event.parentSession = options.parentSession;
		if (options.setup) event.setup = options.setup as (manager: unknown) => unknown;
		if (options.withSession) event.withSession = options.withSession as (ctx: unknown) => unknown;
		return this.request(event, "new").then(({ cancelled }) => ({ cancelled }));
	}

	/**
	 * Resumes another session file, rebuilding the services for ITS cwd (or `cwdOverride`).
	 * Throws — with nothing torn down — `MissingSessionCwdError` when that directory is gone, and a
	 * `NOT_FOUND` SettleError when there is no file at `sessionPath` (a session file is written at
	 * its first message, so the path of a session that never got one is missing too);
	 * pass `createIfMissing: true` to start a new session at that path instead, as pi does.
	 *
	 * @example
	 * ```ts
	 * await runtime.switchSession("/home/me/.settle/agent/sessions/--work-b--/2025-….jsonl");
	 * runtime.cwd; // "/work/b"
	 *
	 * try {
	 *   await runtime.switchSession("/home/me/notes/sesion.jsonl"); // typo: rejects, current session kept
	 * } catch (error) {
	 *   if (error instanceof SettleError && error.code === "NOT_FOUND") console.error(error.message);
	 * }
	 * // A new session at a path you choose (in `lib`'s project):
	 * await runtime.switchSession("/home/me/notes/lib.jsonl", { createIfMissing: true, cwdOverride: "/work/lib" });
	 * ```
	 */
	switchSession(sessionPath: string, options: RuntimeSwitchOptions = {}): Promise<SwitchResult> {
		const method = "runtime.switchSession";
		const invalid =
			stringArgumentError(method, "the session path", sessionPath, SESSION_PATH_HINT) ??
			stringArgumentError(method, "cwdOverride", options.cwdOverride, CWD_OVERRIDE_HINT, true) ??
			stringArgumentError(method, "sessionDir", options.sessionDir, SESSION_DIR_HINT, true) ??
			callbackArgumentError(method, "withSession", options.withSession);
		if (invalid) return Promise.reject(invalid);
		const event: RuntimeEvent = { type: "SWITCH", requestId: this.nextId("s"), sessionFile: resolve(sessionPath) };
		if (options.cwdOverride !== undefined) event.cwdOverride = resolve(options.cwdOverride);
		if (options.sessionDir !== undefined) event.sessionDir = resolve(options.sessionDir);
		if (options.createIfMissing) event.createIfMissing = true;
		if (options.withSession) event.withSession = options.withSession as (ctx: unknown) => unknown;
		return this.request(event, "switch").then(({ cancelled, created }) =>
			created ? { cancelled, created } : { cancelled },
		);
	}

	/**
	 * Forks the session into a new one: `position: "before"` (default) a user message — the new
	 * session ends just before it and `selectedText` is its text — or `"at"` any entry, kept. Throws
	 * `InvalidForkEntryError` (pi's `Invalid entry ID for forking`, then what to pass instead)
	 * for an unknown entry, or, before, one that is not a user message.
	 *
	 * @example
	 * ```ts
	 * const [firstUserMessage] = runtime.session.sessionManager.getEntries().filter((e) => e.type === "message" && e.message.role === "user");
	 * const { selectedText } = await runtime.fork(firstUserMessage!.id); // edit selectedText and prompt again
	 * ```
	 */
	fork(entryId: string, options: ForkOptions = {}): Promise<ForkResult> {
		const position = options.position ?? "before";
		const invalid =
			(position === "before" || position === "at"
				? undefined
				: new SettleError(
						"INVALID_ARGUMENT",
						`runtime.fork: position must be "before" or "at" (got ${JSON.stringify(position)}).`,
						{ details: { method: "runtime.fork", field: "position" } },
					)) ?? callbackArgumentError("runtime.fork", "withSession", options.withSession);
		if (invalid) return Promise.reject(invalid);
		const event: RuntimeEvent = { type: "FORK", requestId: this.nextId("f"), entryId, position };
		if (options.withSession) event.withSession = options.withSession as (ctx: unknown) => unknown;
		// Copying the whole current branch is pi's /clone (and RPC `clone`).
		const isClone = position === "at" && entryId === this.current.session.sessionManager.getLeafId();
		return this.request(event, isClone ? "clone" : "fork");
	}

	/**
	 * Imports a session JSONL file: copies it into the current session dir and resumes it.
	 * Throws `SessionImportFileNotFoundError` for a missing file.
	 *
	 * @example
	 * ```ts
	 * await runtime.importFromJsonl("./shared-session.jsonl");
	 * ```
	 */
	importFromJsonl(inputPath: string, cwdOverride?: string): Promise<ReplacementResult> {
		const method = "runtime.importFromJsonl";
		const invalid =
			stringArgumentError(method, "the input path", inputPath, "Pass the path of a session .jsonl file.") ??
			stringArgumentError(method, "cwdOverride", cwdOverride, CWD_OVERRIDE_HINT, true);
		if (invalid) return Promise.reject(invalid);
		const source = resolve(inputPath);
		if (!existsSync(source)) return Promise.reject(new SessionImportFileNotFoundError(source));
		const event: RuntimeEvent = { type: "IMPORT", requestId: this.nextId("i"), inputPath: source };
		if (cwdOverride !== undefined) event.cwdOverride = resolve(cwdOverride);
		return this.request(event, "import").then(({ cancelled }) => ({ cancelled }));
	}

	/**
	 * Ends the runtime: `session_shutdown{reason:"quit"}`, `beforeSessionInvalidate`, then the
	 * session is disposed and its file released. A replacement in progress finishes first. From the
	 * call on, input on the session being disposed (`prompt`, `steer`, `followUp`, `sendUserMessage`,
	 * `sendCustomMessage`, `executeBash`) rejects at once with `SESSION_CLOSED` (its extensions' own sends are not
	 * refused, as during a replacement). When it resolves, every inspection stream (`inspect`,
	 * `inspectSessions`, a live inspector) has ended and been told so (`onEnd`). Safe to call twice;
	 * never rejects.
	 *
	 * @example
	 * ```ts
	 * process.on("SIGTERM", () => void runtime.dispose().then(() => process.exit(143)));
	 * ```
	 */
	dispose(): Promise<void> {
		if (this.disposedPromise) return this.disposedPromise;
		this.disposedPromise = new Promise<void>((resolveDisposed) => {
			const subscription = this.actor.subscribe({
				next: (snapshot) => {
					if (snapshot.status !== "done") return;
					subscription.unsubscribe();
					done();
				},
				complete: () => done(),
				error: () => done(),
			});
			const done = () => {
				this.replacedListeners.clear();
				this.settleTimedOutListeners.clear();
				this.installedListeners.clear();
				// After XState has reported the final snapshot to the inspectors (it does so after `complete`),
				// and before dispose() resolves: a host that closes its inspector once dispose() resolves
				// (settle --inspect) has had every stream ended with `onEnd` by then.
				queueMicrotask(() => {
					this.inspections.closeAll();
					resolveDisposed();
				});
			};
			// Input sent from now on is refused at once (SESSION_CLOSED), not taken and closed later. A
			// session a replacement in progress installs is marked when its quit teardown starts (settleCurrent).
			setClosingMessage(this.current.session, SESSION_RUNTIME_DISPOSING);
			this.actor.send({ type: "DISPOSE" });
			if (this.actor.getSnapshot().status === "done") done();
		});
		return this.disposedPromise;
	}

	// -------------------------------------------------------------------------------------------
	// Internals

	private nextId(prefix: string): string {
		return `${prefix}${++this.requestCounter}`;
	}

	private request(
		event: Exclude<RuntimeEvent, { type: "DISPOSE" }>,
		reason: SessionReplacementReason,
	): Promise<ForkResult & SwitchResult> {
		if (this.disposedPromise) return Promise.reject(new SettleError("SESSION_CLOSED", RUNTIME_DISPOSED_MESSAGE));
		if (!this.actor.getSnapshot().can(event)) {
			return Promise.reject(new SettleError("BUSY", REPLACEMENT_IN_PROGRESS_MESSAGE));
		}
		return new Promise<ForkResult & SwitchResult>((resolveRequest, rejectRequest) => {
			this.pending.set(event.requestId, { resolve: resolveRequest, reject: rejectRequest, reason });
			this.actor.send(event);
		});
	}

	private view(): CurrentSessionView {
		const { session, services } = this.current;
		return {
			manager: session.sessionManager,
			cwd: services.cwd,
			fallbackSessionDir:
				services.settingsManager.getSessionDir() ?? getDefaultSessionDirPath(services.cwd, services.agentDir),
		};
	}

	/** Settles the caller's promise and installs a committed session. Never throws (XState rethrows asynchronously). */
	private onMachineEvent(event: RuntimeEmitted): void {
		try {
			switch (event.type) {
				case "replacement_started":
					// From here on the current session refuses new input at once (BUSY), instead of taking a
					// prompt the replacement would end with SESSION_CLOSED.
					setReplacingMessage(this.current.session, SESSION_BEING_REPLACED);
					return;
				case "session_committed": {
					const created = event.created.handle as Created;
					this.inFlight = undefined;
					created.previous = this.current.session;
					this.current = created.result;
					this.committedTarget = created.target;
					const manager = created.target.manager;
					// The old session wrote to the shared file until it was disposed: catch up with it.
					if (created.target.shared && manager.getLeafId() !== created.leafAtCreation) {
						created.result.session.agent.state.messages = manager.buildSessionContext().messages;
					}
					for (const listener of this.installedListeners.current) listener(created.result.session);
					return;
				}
				case "replacement_cancelled":
					setReplacingMessage(this.current.session, undefined);
					this.settle(event.requestId, { cancelled: true });
					return;
				case "replacement_failed":
					// Failed or rolled back: the old session is current and usable again.
					setReplacingMessage(this.current.session, undefined);
					this.settle(event.requestId, undefined, event.error);
					return;
				case "settle_timed_out": {
					// The old session is still current (session_shutdown comes next): its host hears it.
					const timedOut: SettleTimedOutEvent = {
						session: this.current.session,
						reason: event.reason,
						timeoutMs: event.timeoutMs,
					};
					for (const listener of this.settleTimedOutListeners.current)
						callListener("runtime.onSettleTimedOut", listener, timedOut, this.listenerOwner);
					return;
				}
				case "shutdown_timed_out":
					// The old session is still current (the commit point is later): its host hears it.
					reportUnfinishedShutdownHandlers(this.current.session.extensionRunner, event.timeoutMs, event.reason);
					return;
				case "replacement_completed": {
					const result: ForkResult & SwitchResult = { cancelled: false };
					if (event.selectedText !== undefined) result.selectedText = event.selectedText;
					// Decided by the switch itself: a file its previous session wrote meanwhile was taken over.
					if (this.committedTarget?.startsNewSession) result.created = true;
					this.committedTarget = undefined;
					this.settle(event.requestId, result, event.error);
					return;
				}
				default:
					return;
			}
		} catch {
			// Nothing here may become an uncaught exception inside XState.
		}
	}

	/** Tells the {@link onSessionReplaced} listeners. Never throws: a listener's failure is its own. */
	private notifySessionReplaced(created: Created): void {
		const previous = created.previous;
		if (!previous) return;
		const event: SessionReplacedEvent = { previous, session: created.result.session, reason: created.reason };
		// As session.subscribe listeners: a failing one is skipped and reported, the replacement goes on.
		for (const listener of this.replacedListeners.current)
			callListener("runtime.onSessionReplaced", listener, event, this.listenerOwner);
	}

	private settle(requestId: string, result: (ForkResult & SwitchResult) | undefined, error?: unknown): void {
		const pending = this.pending.get(requestId);
		if (!pending) return;
		this.pending.delete(requestId);
		if (error !== undefined)
			pending.reject(error instanceof Error ? error : new SettleError("INTERNAL", errorMessage(error)));
		else pending.resolve(result ?? { cancelled: false });
	}

	private async checkBeforeSwitch(request: ReplacementRequest): Promise<{ cancelled: boolean }> {
		const runner = this.current.session.extensionRunner;
		if (request.kind === "fork") {
			if (!runner.hasHandlers("session_before_fork")) return { cancelled: false };
			const result = await runner.emit({
				type: "session_before_fork",
				entryId: request.entryId,
				position: request.position,
			});
			return { cancelled: result?.cancel === true };
		}
		if (!runner.hasHandlers("session_before_switch")) return { cancelled: false };
		let targetSessionFile: string | undefined;
		if (request.kind === "switch") targetSessionFile = request.sessionFile;
		else if (request.kind === "import") targetSessionFile = importDestination(this.view(), request.inputPath);
		const result = await runner.emit({
			type: "session_before_switch",
			reason: request.kind === "new" ? "new" : "resume",
			...(targetSessionFile !== undefined ? { targetSessionFile } : {}),
		});
		return { cancelled: result?.cancel === true };
	}

	private openTarget(request: ReplacementRequest): OpenedTarget {
		const view = this.view();
		let handle: TargetHandle;
		switch (request.kind) {
			case "new":
				handle = openNewSession(view, request.parentSession);
				break;
			case "switch":
				handle = openSessionFile(
					view,
					request.sessionFile,
					request.cwdOverride,
					request.createIfMissing === true,
					request.sessionDir,
				);
				break;
			case "fork":
				handle = openFork(view, request.entryId, request.position);
				break;
			case "import":
				handle = openImport(view, request.inputPath, request.cwdOverride);
				break;
		}
		const target: OpenedTarget = { cwd: handle.manager.getCwd(), handle };
		const file = handle.manager.getSessionFile();
		if (file !== undefined) target.sessionFile = file;
		if (handle.selectedText !== undefined) target.selectedText = handle.selectedText;
		return target;
	}

	private async createSession(request: ReplacementRequest, target: OpenedTarget): Promise<CreatedSession> {
		const handle = target.handle as TargetHandle;
		const reason = request.kind === "new" ? "new" : request.kind === "fork" ? "fork" : "resume";
		const sessionStartEvent: SessionStartEvent = { type: "session_start", reason };
		const previousSessionFile = this.current.session.sessionFile;
		if (previousSessionFile !== undefined) sessionStartEvent.previousSessionFile = previousSessionFile;
		let result: AgentSessionRuntimeResult;
		try {
			result = await this.factory({
				cwd: target.cwd,
				agentDir: this.current.services.agentDir,
				sessionManager: handle.manager,
				sessionStartEvent,
			});
		} catch (error) {
			releaseTarget(handle);
			throw error;
		}
		const created: Created = {
			result,
			target: handle,
			leafAtCreation: null,
			reason: this.pending.get(request.requestId)?.reason ?? request.kind,
		};
		try {
			if (request.kind === "new" && request.setup) {
				await request.setup(result.session.sessionManager);
				result.session.agent.state.messages = result.session.sessionManager.buildSessionContext().messages;
			}
		} catch (error) {
			discard(created);
			throw error;
		}
		created.leafAtCreation = handle.manager.getLeafId();
		result.session.setReplacementActions(this.replacementActions);
		this.inFlight = created;
		return { handle: created, shutdownTimeoutMs: teardownTimingOf(result.session).shutdownTimeoutMs };
	}
}

/**
 * A session that took over the file the old one wrote during the switch: its messages become the
 * file's. Its model and thinking level stay what the factory chose for it, and are recorded when the
 * file says otherwise (the old session had changed them), so the file tells which model answers next.
 */
function continueTakenOverFile(session: AgentSession): void {
	const manager = session.sessionManager;
	const context = manager.buildSessionContext();
	session.agent.state.messages = context.messages;
	const model = session.model;
	if (model && (context.model?.provider !== model.provider || context.model.modelId !== model.id)) {
		manager.appendModelChange(model.provider, model.id);
	}
	if (context.thinkingLevel !== session.thinkingLevel) manager.appendThinkingLevelChange(session.thinkingLevel);
}

/** Drops a prepared session that will not be installed. Must not throw. */
function discard(created: Created): void {
	try {
		created.result.session.dispose();
	} catch {
		// dispose swallows its own errors; nothing more to undo
	}
	releaseTarget(created.target);
}

/** Options of {@link createAgentSessionRuntime}. */
export interface CreateAgentSessionRuntimeOptions {
	/** The host's directory: the fallback a `MissingSessionCwdError` offers. Services are built for the session's cwd. */
	cwd: string;
	agentDir: string;
	/**
	 * The session to start with; the runtime owns it from here (it is closed on failure and on dispose).
	 * Its folder is where new, forked and cloned sessions go. `SessionManager.create(cwd)` uses the
	 * default agent dir, not {@link agentDir}: pass `SessionManager.create(cwd, getDefaultSessionDir(cwd, agentDir))`
	 * to keep sessions under your own.
	 */
	sessionManager: SessionManager;
	/** Default `{type: "session_start", reason: "startup"}`. */
	sessionStartEvent?: SessionStartEvent;
	/**
	 * How long (ms) a teardown (new, switch, fork, clone, import, dispose) waits for the current
	 * session's aborted run to end and be saved before its extensions get `session_shutdown` anyway
	 * (default 2 000 ms, on the session's clock). `0` does not wait; `Infinity` waits as long as the
	 * run takes (as `shutdownTimeoutMs: Infinity` does for the handlers: a run that never ends then
	 * holds the teardown for good). A number ≥ 0 or `Infinity`; anything else is a `SettleError`
	 * `INVALID_ARGUMENT`. When it runs
	 * out, {@link AgentSessionRuntime.onSettleTimedOut} listeners are called. pi 0.73.1 has no such
	 * wait: it replaces without aborting the run.
	 *
	 * @example
	 * ```ts
	 * const runtime = await createAgentSessionRuntime(createAgentSessionRuntimeFactory({ modelRuntime }), {
	 *   cwd,
	 *   agentDir,
	 *   sessionManager,
	 *   settleTimeoutMs: 5_000, // a long tool run gets 5 s to end after the abort
	 * });
	 * runtime.onSettleTimedOut(({ timeoutMs }) => console.warn(`the run did not end within ${timeoutMs} ms`));
	 * ```
	 */
	settleTimeoutMs?: number;
	/**
	 * XState's inspection callback for the runtime machine's actor (e.g. `@statelyai/inspect`'s
	 * `inspector.inspect`); {@link AgentSessionRuntime.inspect} gives typed events instead.
	 */
	inspect?: (event: InspectionEvent) => void;
}

/**
 * Creates the runtime with its first session (pi's `createAgentSessionRuntime`): checks that the
 * session's recorded cwd exists (`MissingSessionCwdError`) BEFORE calling the factory, then builds
 * it. Extensions get `session_start` when the host binds the session (`session.bindExtensions()`).
 *
 * @example
 * ```ts
 * const runtime = await createAgentSessionRuntime(createAgentSessionRuntimeFactory({ modelRuntime }), {
 *   cwd,
 *   agentDir,
 *   sessionManager: SessionManager.continueRecent(cwd, getDefaultSessionDir(cwd, agentDir)), // sessions under agentDir
 * });
 * if (runtime.modelFallbackMessage) console.warn(runtime.modelFallbackMessage);
 * ```
 */
export async function createAgentSessionRuntime(
	factory: AgentSessionRuntimeFactory,
	options: CreateAgentSessionRuntimeOptions,
): Promise<AgentSessionRuntime> {
	const { sessionManager } = options;
	let result: AgentSessionRuntimeResult;
	let settleTimeoutMs: number;
	try {
		settleTimeoutMs = validSettleTimeout(options.settleTimeoutMs);
		assertSessionCwdExists(sessionManager, resolve(options.cwd));
		result = await factory({
			// The session's own directory: building services for another one would mix two projects.
			cwd: sessionManager.getCwd(),
			agentDir: resolve(options.agentDir),
			sessionManager,
			sessionStartEvent: options.sessionStartEvent ?? { type: "session_start", reason: "startup" },
		});
	} catch (error) {
		sessionManager.close();
		throw error;
	}
	return new AgentSessionRuntime(result, factory, {
		settleTimeoutMs,
		...(options.inspect ? { inspect: options.inspect } : {}),
	});
}

/** A valid `settleTimeoutMs` (default 2 000 ms; `Infinity`: no bound); anything else is an `INVALID_ARGUMENT`. */
function validSettleTimeout(value: number | undefined): number {
	if (value === undefined) return DEFAULT_SETTLE_TIMEOUT_MS;
	if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
		throw new SettleError("INVALID_ARGUMENT", invalidSettleTimeout(value));
	}
	return value;
}
