/**
 * Typed lifecycle inspection: turns XState's raw inspection events for one actor (and its direct
 * children) into {@link LifecycleInspectionEvent}s — states entered, events received, actors
 * invoked / done / stopped, delays scheduled with their milliseconds, events the machine emitted
 * (`auto_retry_start`, …) — each with JSON-safe data, so a trace can be saved and read later.
 *
 * The AgentSession exposes it as `session.inspect(observer)` (= {@link inspectActor} on its
 * prompt-operation actor).
 *
 * Transient states (`postRun`) and the trigger of each step come from XState's `@xstate.microstep`
 * inspection events and their `_transitions` field (typed in XState's declarations but underscored);
 * the tests pin that behaviour for the installed XState.
 */
import type { AnyActorRef, InspectionEvent } from "xstate";
import {
	type CompactionReason,
	PROMPT_OPERATION_MACHINE_ID,
	type RunCause,
} from "../../machines/prompt-operation.machine.js";
import type { ReplacementRequest, ShutdownReason } from "../../machines/runtime.machine.js";
import {
	callListener,
	type InspectionListenerSource,
	type ListenerOwner,
	reportListenerError,
} from "../listener-errors.js";
import { guardLabel, triggerLabel } from "./machine-model.js";

/**
 * `RUNTIME_MACHINE_ID` of machines/runtime.machine.ts, spelled out: importing it would load and build the
 * runtime machine whenever a session is inspected (or Settle imported); the runtime test in
 * test/inspect/lifecycle-inspector.test.ts fails if they differ.
 */
const RUNTIME_MACHINE_ID = "runtime";

/** A JSON value (what traces store). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Domain data read from the machine context at each state change. For the prompt-operation
 * machine: `operationId`, `runIndex`, `runCause`, `retryAttempt`, `maxRetries`, `retryDelayMs`,
 * `compactionReason`, `willRetry`, `abortRequested`, `overflowRecoveryAttempted`,
 * `deferredPrompts`; for the runtime machine: `requestId`, `kind`, `teardownReason`.
 */
export type LifecycleDetails = { [key: string]: JsonValue };

/**
 * The built-in `details` of the prompt-operation machine's state changes (`session.inspect`): each
 * key is there when the context has it (`operationId`, `runIndex`, `runCause` while an operation
 * runs; `compactionReason`, `willRetry` while it compacts). A custom `details` option replaces them,
 * so a stream with one is typed {@link LifecycleDetails}.
 *
 * @example
 * ```ts
 * session.inspect((e) => {
 *   if (e.kind === "state" && e.details.runCause === "retry") console.log("retry", e.details.retryAttempt);
 * });
 * ```
 */
export type PromptOperationDetails = {
	operationId?: number;
	/** 1-based run of the operation. */
	runIndex?: number;
	runCause?: RunCause;
	retryAttempt?: number;
	maxRetries?: number;
	retryDelayMs?: number;
	compactionReason?: CompactionReason;
	willRetry?: boolean;
	abortRequested?: boolean;
	overflowRecoveryAttempted?: boolean;
	/** How many prompts wait for the operation to end. */
	deferredPrompts?: number;
};

/**
 * The built-in `details` of the runtime machine's state changes (`runtime.inspect`): the
 * replacement in progress (`requestId`, `kind`) and why the session is torn down.
 *
 * @example
 * ```ts
 * runtime.inspect((e) => {
 *   if (e.kind === "state" && e.details.kind === "fork") console.log("forking", e.details.requestId);
 * });
 * ```
 */
export type RuntimeDetails = {
	requestId?: string;
	kind?: ReplacementRequest["kind"];
	teardownReason?: ShutdownReason;
};

/** Inspector options that keep the built-in `details` (no `details` function), so the stream's details are typed. */
export type BuiltInDetailsOptions = Omit<LifecycleInspectorOptions, "details"> & { details?: undefined };

interface LifecycleEventBase {
	/** 1-based position in this inspector's stream. */
	seq: number;
	/** Time from the inspector's clock (ms). */
	at: number;
	/** Machine id of the inspected actor, e.g. `promptOperation`. */
	machine: string;
}

/**
 * The machine moved to another state (one event per microstep, so transient states like `postRun`
 * show). `State` is the machine's state path type: `session.inspect` gives
 * `StateChangeEvent<PromptOperationStatePath>`, `runtime.inspect` `StateChangeEvent<RuntimeStatePath>`,
 * so comparing `from` / `to` with a state the machine does not have is a type error.
 *
 * @example
 * ```ts
 * session.inspect((e) => {
 *   if (e.kind === "state" && e.to === "retrying") console.log("retrying after", e.from); // "retry" would not compile
 * });
 * ```
 */
export interface StateChangeEvent<State extends string = string, Details extends LifecycleDetails = LifecycleDetails>
	extends LifecycleEventBase {
	kind: "state";
	/** Previous state path (`running.working`), `null` for the first one seen. */
	from: State | null;
	/** New state path. */
	to: State;
	/** The XState state value. */
	value: JsonValue;
	/** State paths entered / exited, outermost first. */
	entered: string[];
	exited: string[];
	/** What caused it: `PROMPT`, `always`, `after retryDelay`, `done(run)`, `inspect` (current state when attached). */
	trigger: string;
	/**
	 * The transition taken, as the diagram labels it: the state that defines it, its rank among the
	 * candidates for the trigger there (the diagram's `(n)`; the first whose guard holds wins) and
	 * its guard, e.g. `{ source: "postRun", priority: 2, guard: "canRetry" }` for a failed run that
	 * is retried. Absent for `inspect` / `start`, and in traces saved before Settle recorded it.
	 */
	transition?: TakenTransition;
	/** Domain data of the machine's context: {@link PromptOperationDetails}, {@link RuntimeDetails}, or a custom `details` option's. */
	details: Details;
}

/**
 * The transition behind a {@link StateChangeEvent} (`transition`): which decision sent the machine
 * there. The diagrams label the same transition `always (2) [canRetry]`.
 *
 * @example
 * ```ts
 * session.inspect((e) => {
 *   // "retrying [canRetry]", "compacting.working [canRecoverOverflow]", "beforeSettle.working [no guard]"
 *   if (e.kind === "state" && e.from === "postRun") console.log(`${e.to} [${e.transition?.guard ?? "no guard"}]`);
 * });
 * ```
 */
export interface TakenTransition {
	/** Path of the state whose transition fired (`postRun`, `running` for a `RUN_DONE` handled by `running`). */
	source: string;
	/** 1-based rank among the source's candidates for the trigger, when there are several. */
	priority?: number;
	/** Its guard's name (`canRetry`); absent for an unguarded one (the fallback after the guarded ones). */
	guard?: string;
}

/** An event the machine received from outside (timer and actor-completion events show as `delay` / `actor`). */
export interface EventReceivedEvent extends LifecycleEventBase {
	kind: "event";
	type: string;
	/** The event's other fields, JSON-safe and size-bounded. */
	payload?: JsonValue;
}

/**
 * An invoked or spawned child actor started, finished, failed or was stopped — or, with `root: true`,
 * the inspected actor itself was stopped (a disposed or replaced session, a disposed runtime): its
 * last event, after a `delay … cancelled` for each timer still pending (a retry backoff that will
 * never fire) and a `stopped` for each child still running.
 */
export interface ActorLifecycleEvent extends LifecycleEventBase {
	kind: "actor";
	phase: "invoked" | "done" | "error" | "stopped";
	/** Child id, e.g. `run`, `compaction`, `busyPreflight.r2`; the machine id for the inspected actor. */
	id: string;
	/** Implementation name, e.g. `run`, `compact`; the machine id for the inspected actor. */
	src: string;
	/** The inspected actor itself (only with phase `stopped`). */
	root?: true;
	/** With `root`: the state path it was stopped in, e.g. `retrying`. */
	state?: string;
	output?: JsonValue;
	error?: string;
}

/** A delayed transition was scheduled, cancelled (state left early) or fired. */
export interface DelayEvent extends LifecycleEventBase {
	kind: "delay";
	phase: "scheduled" | "cancelled" | "fired";
	/** Delay name (`retryDelay`) or its literal ms. */
	delay: string;
	/** Milliseconds (known when scheduled). */
	ms?: number;
	/** State path that owns the timer. */
	state: string;
}

/** A typed event the machine emitted (`auto_retry_start`, `operation_settled`, …). */
export interface EmittedEvent extends LifecycleEventBase {
	kind: "emitted";
	type: string;
	payload?: JsonValue;
}

/** One entry of the typed inspection stream; `State` types the state changes' `from` / `to` ({@link StateChangeEvent}). */
export type LifecycleInspectionEvent<
	State extends string = string,
	Details extends LifecycleDetails = LifecycleDetails,
> = StateChangeEvent<State, Details> | EventReceivedEvent | ActorLifecycleEvent | DelayEvent | EmittedEvent;

/**
 * Receives the stream. One that throws (or whose promise rejects) is skipped for that event and the
 * stream goes on — inspection never breaks the actor — and its first failure is reported as a
 * process warning (`SettleError` code `LISTENER`, the error as `cause`).
 */
export type LifecycleObserver<State extends string = string, Details extends LifecycleDetails = LifecycleDetails> = (
	event: LifecycleInspectionEvent<State, Details>,
) => void;

/** Options for {@link createLifecycleInspector} and {@link inspectActor}. */
export interface LifecycleInspectorOptions {
	/** Clock for `at`; default `Date.now` (pass `() => clock.now()` with a `SimulatedClock`). */
	now?: () => number;
	/** Domain details for state changes; default: built-in ones for Settle's machines, `{}` otherwise. */
	details?: (machineId: string, context: unknown) => LifecycleDetails;
	/**
	 * `session.inspect()` / `runtime.inspect()` only: called once when the stream ends because the
	 * session or runtime was disposed (not when you unsubscribe), after its last event. If it throws or
	 * rejects, the dispose goes on and the error is reported as a `LISTENER` process warning.
	 */
	onEnd?: () => void;
}

interface SnapshotLike {
	value?: unknown;
	context?: unknown;
	status?: string;
	output?: unknown;
	error?: unknown;
	machine?: { id?: string };
}

interface ActorLike {
	id: string;
	sessionId: string;
	src?: unknown;
	logic?: { id?: unknown };
	getSnapshot(): unknown;
	system: { inspect(observer: (event: InspectionEvent) => void): { unsubscribe(): void } };
}

const INTERNAL_EVENT = /^xstate\.(init|stop|after\.|done\.actor\.|error\.actor\.|snapshot\.)/;

/**
 * Creates an XState inspection callback that forwards typed lifecycle events of one root actor
 * (the first root actor it sees, or the one given by {@link inspectActor}) to `observer`. Use it as
 * `createActor(machine, { inspect })` or `actor.system.inspect(inspector)`.
 *
 * @example
 * ```ts
 * import { createActor, createMachine } from "xstate";
 *
 * const machine = createMachine({ initial: "idle", states: { idle: { on: { GO: "busy" } }, busy: {} } });
 * const start = Date.now();
 * const actor = createActor(machine, { inspect: createLifecycleInspector((e) => console.log(formatLifecycleEvent(e, start))) });
 * actor.start();
 * actor.send({ type: "GO" });
 * ```
 */
export function createLifecycleInspector(
	observer: LifecycleObserver,
	options: LifecycleInspectorOptions = {},
): (event: InspectionEvent) => void {
	return new LifecycleTranslator("createLifecycleInspector", observer, options).handle;
}

/**
 * Attaches a typed lifecycle observer to a running actor: first a `state` event for the current
 * state (trigger `inspect`), then everything that happens. Returns an unsubscribe handle.
 *
 * @example
 * ```ts
 * import { createActor, createMachine } from "xstate";
 *
 * const machine = createMachine({ initial: "idle", states: { idle: { on: { GO: "busy" } }, busy: {} } });
 * const trace: LifecycleInspectionEvent[] = [];
 * const actor = createActor(machine).start();
 * const subscription = inspectActor(actor, (e) => trace.push(e));
 * actor.send({ type: "GO" });
 * subscription.unsubscribe();
 * ```
 */
export function inspectActor(
	actor: AnyActorRef,
	observer: LifecycleObserver,
	options: LifecycleInspectorOptions = {},
): { unsubscribe(): void } {
	return inspectActorAs("inspectActor", actor, observer, options);
}

/** {@link inspectActor}, with the API the host called (and the session) named in an observer's `LISTENER` warning. */
export function inspectActorAs(
	source: InspectionListenerSource,
	actor: AnyActorRef,
	observer: LifecycleObserver,
	options: LifecycleInspectorOptions = {},
	owner?: ListenerOwner,
): { unsubscribe(): void } {
	const ref = actor as unknown as ActorLike;
	const translator = new LifecycleTranslator(source, observer, options, ref, owner);
	return ref.system.inspect(translator.handle);
}

class LifecycleTranslator {
	readonly handle: (event: InspectionEvent) => void;
	private seq = 0;
	private rootSessionId: string | undefined;
	private machine = "";
	private statePath: string | null = null;
	private activePaths: string[] = [];
	/** Children invoked and not finished yet (a finished one is forgotten: the map must not grow per operation). */
	private readonly children = new Map<string, { id: string; src: string }>();
	private readonly timers = new Map<string, { delay: string; state: string }>();
	private stopped = false;
	/** Effects of the microstep in progress (entry actions, emits, new children), reported after its state change. */
	private pending: DistributiveOmit<LifecycleInspectionEvent, "seq" | "at" | "machine">[] = [];
	private readonly now: () => number;
	private readonly details: (machineId: string, context: unknown) => LifecycleDetails;

	constructor(
		private readonly source: InspectionListenerSource,
		private readonly observer: LifecycleObserver,
		options: LifecycleInspectorOptions,
		root?: ActorLike,
		private readonly owner?: ListenerOwner,
	) {
		this.now = options.now ?? Date.now;
		this.details = options.details ?? defaultDetails;
		this.handle = (event) => {
			try {
				this.translate(event);
			} catch {
				// Inspection must never break the inspected actor.
			}
		};
		if (root) {
			this.rootSessionId = root.sessionId;
			this.machine = machineIdOf(root);
			this.stateChange(root.getSnapshot() as SnapshotLike, "inspect");
		}
	}

	private later(event: DistributiveOmit<LifecycleInspectionEvent, "seq" | "at" | "machine">): void {
		this.pending.push(event);
	}

	private flush(): void {
		const pending = this.pending;
		this.pending = [];
		for (const event of pending) this.emit(event);
	}

	private emit(event: DistributiveOmit<LifecycleInspectionEvent, "seq" | "at" | "machine">): void {
		const full = { seq: ++this.seq, at: this.now(), machine: this.machine, ...event } as LifecycleInspectionEvent;
		// An observer's error is its own problem (reported once); the stream goes on.
		callListener(this.source, this.observer, full, this.owner);
	}

	private translate(event: InspectionEvent): void {
		const ref = event.actorRef as unknown as ActorLike;
		if (this.rootSessionId === undefined) {
			if (event.rootId !== ref.sessionId) return;
			this.rootSessionId = ref.sessionId;
			this.machine = machineIdOf(ref);
		}
		if (event.rootId !== this.rootSessionId) return;
		const isRoot = ref.sessionId === this.rootSessionId;

		switch (event.type) {
			case "@xstate.microstep":
				if (isRoot && (event.snapshot as SnapshotLike).status === "stopped") {
					this.rootStopped();
					return;
				}
				if (isRoot) {
					const transitions = (event as { _transitions?: TransitionLike[] })._transitions ?? [];
					const eventType = transitions[0]?.eventType ?? event.event.type;
					this.stateChange(event.snapshot as SnapshotLike, triggerLabel(eventType), takenTransition(transitions[0]));
					this.flush();
				}
				return;
			case "@xstate.snapshot":
				if (isRoot && (event.snapshot as SnapshotLike).status === "stopped") {
					this.rootStopped();
					return;
				}
				if (isRoot) {
					// The first snapshot of an actor created with `inspect` is its initial state.
					if (this.statePath === null) this.stateChange(event.snapshot as SnapshotLike, "start");
					this.flush();
					return;
				}
				this.childSnapshot(ref, event.snapshot as SnapshotLike);
				return;
			case "@xstate.event":
				if (isRoot) {
					this.flush();
					this.rootEvent(event.event as { type: string; [key: string]: unknown });
				}
				return;
			case "@xstate.actor":
				if (!isRoot) this.childCreated(ref);
				return;
			case "@xstate.action":
				if (isRoot) this.rootAction(event.action);
				return;
			default:
				return;
		}
	}

	/**
	 * XState stops a root actor without cancelling its timers: a reader of the trace would see a
	 * retry backoff that never ends. Say what the stop ended, once. The root's own children were
	 * reported by their `xstate.stopChild`; what is still known here are grandchildren (actors of a
	 * child machine, stopped by that child's actions, which are not the root's). Settle's machines
	 * have none (their children are promise actors); other machines given to the inspector may.
	 */
	private rootStopped(): void {
		if (this.stopped) return;
		this.stopped = true;
		this.flush();
		for (const timer of this.timers.values()) {
			this.emit({ kind: "delay", phase: "cancelled", delay: timer.delay, state: timer.state });
		}
		this.timers.clear();
		for (const child of this.children.values())
			this.emit({ kind: "actor", phase: "stopped", id: child.id, src: child.src });
		this.children.clear();
		this.emit({
			kind: "actor",
			phase: "stopped",
			id: this.machine,
			src: this.machine,
			root: true,
			...(this.statePath !== null ? { state: this.statePath } : {}),
		});
	}

	private stateChange(snapshot: SnapshotLike, trigger: string, transition?: TakenTransition): void {
		if (!snapshot || snapshot.value === undefined) return;
		const path = stateValuePath(snapshot.value);
		if (path === this.statePath) return;
		const active = activeStatePaths(snapshot.value);
		const entered = active.filter((p) => !this.activePaths.includes(p));
		const exited = this.activePaths.filter((p) => !active.includes(p)).reverse();
		const from = this.statePath;
		this.statePath = path;
		this.activePaths = active;
		this.emit({
			kind: "state",
			from,
			to: path,
			value: toJsonValue(snapshot.value),
			entered,
			exited,
			trigger,
			...(transition ? { transition } : {}),
			details: this.detailsOf(snapshot.context),
		});
	}

	/**
	 * The host's `details` for a state change; one that throws is reported once (a `LISTENER`
	 * warning) and the state change still goes out, with no details.
	 */
	private detailsOf(context: unknown): LifecycleDetails {
		try {
			return this.details(this.machine, context);
		} catch (error) {
			reportListenerError(`${this.source} details`, this.details, error, this.owner);
			return {};
		}
	}

	private rootEvent(event: { type: string; [key: string]: unknown }): void {
		if (event.type.startsWith("xstate.after.")) {
			const timer = this.timers.get(event.type);
			if (timer) {
				this.timers.delete(event.type);
				this.emit({ kind: "delay", phase: "fired", delay: timer.delay, state: timer.state });
			}
			return;
		}
		if (INTERNAL_EVENT.test(event.type)) return;
		const { type, ...rest } = event;
		const received: DistributiveOmit<EventReceivedEvent, "seq" | "at" | "machine"> = { kind: "event", type };
		if (Object.keys(rest).length) received.payload = toJsonValue(rest);
		this.emit(received);
	}

	private rootAction(action: { type: string; params: unknown }): void {
		const params = action.params as Record<string, unknown> | undefined;
		switch (action.type) {
			case "xstate.emit": {
				const emitted = (params?.event ?? {}) as { type?: string; [key: string]: unknown };
				const { type, ...rest } = emitted;
				const event: DistributiveOmit<EmittedEvent, "seq" | "at" | "machine"> = {
					kind: "emitted",
					type: String(type ?? "unknown"),
				};
				if (Object.keys(rest).length) event.payload = toJsonValue(rest);
				this.later(event);
				return;
			}
			case "xstate.raise": {
				const raised = params?.event as { type?: string } | undefined;
				const ms = params?.delay;
				if (!raised?.type?.startsWith("xstate.after.") || typeof ms !== "number") return;
				const { delay, state } = parseAfterEvent(raised.type, this.machine);
				this.timers.set(raised.type, { delay, state });
				this.later({ kind: "delay", phase: "scheduled", delay, ms, state });
				return;
			}
			case "xstate.cancel": {
				const sendId = params?.sendId;
				if (typeof sendId !== "string") return;
				const timer = this.timers.get(sendId);
				if (!timer) return;
				this.timers.delete(sendId);
				this.emit({ kind: "delay", phase: "cancelled", delay: timer.delay, state: timer.state });
				return;
			}
			case "xstate.stopChild": {
				// A finished child is stopped by its parent before XState reports its final snapshot.
				const child = params as unknown as ActorLike | undefined;
				if (!child) return;
				const snapshot = child.getSnapshot() as SnapshotLike | undefined;
				if (snapshot?.status === "done" || snapshot?.status === "error") this.childSnapshot(child, snapshot);
				const known = this.children.get(child.sessionId);
				if (!known) return;
				this.children.delete(child.sessionId);
				this.emit({ kind: "actor", phase: "stopped", id: known.id, src: known.src });
				return;
			}
			default:
				return;
		}
	}

	private childCreated(ref: ActorLike): void {
		if (this.children.has(ref.sessionId)) return;
		const src = typeof ref.src === "string" ? ref.src : "(inline)";
		this.children.set(ref.sessionId, { id: ref.id, src });
		this.later({ kind: "actor", phase: "invoked", id: ref.id, src });
	}

	private childSnapshot(ref: ActorLike, snapshot: SnapshotLike): void {
		const known = this.children.get(ref.sessionId);
		if (!known) return;
		if (snapshot.status === "done") {
			this.children.delete(ref.sessionId);
			const event: DistributiveOmit<ActorLifecycleEvent, "seq" | "at" | "machine"> = {
				kind: "actor",
				phase: "done",
				id: known.id,
				src: known.src,
			};
			if (snapshot.output !== undefined) event.output = toJsonValue(snapshot.output);
			this.emit(event);
		} else if (snapshot.status === "error") {
			this.children.delete(ref.sessionId);
			this.emit({ kind: "actor", phase: "error", id: known.id, src: known.src, error: errorText(snapshot.error) });
		}
	}
}

/** What the inspector reads of XState's transition definitions (`_transitions` of a microstep). */
interface TransitionLike {
	eventType?: string;
	guard?: unknown;
	source?: {
		path?: string[];
		always?: readonly unknown[];
		transitions?: { get(eventType: string): readonly unknown[] | undefined };
	};
}

/**
 * The state that defines `t`, its rank among that state's candidates for the same trigger (as the
 * diagrams number them) and its guard — why this path and not the one below it.
 */
function takenTransition(t: TransitionLike | undefined): TakenTransition | undefined {
	const path = t?.source?.path;
	if (!t || !Array.isArray(path)) return undefined;
	const taken: TakenTransition = { source: path.join(".") };
	const candidates = t.eventType === "" ? t.source?.always : t.source?.transitions?.get(t.eventType ?? "");
	if (candidates && candidates.length > 1) {
		const index = candidates.indexOf(t);
		if (index >= 0) taken.priority = index + 1;
	}
	const guard = guardLabel(t.guard);
	if (guard !== undefined) taken.guard = guard;
	return taken;
}

function machineIdOf(ref: ActorLike): string {
	return typeof ref.logic?.id === "string" ? ref.logic.id : ref.id;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** `xstate.after.<delay>.<state id>` → delay name and the owning state's path. */
function parseAfterEvent(type: string, machineId: string): { delay: string; state: string } {
	const rest = type.slice("xstate.after.".length);
	const dot = rest.indexOf(".");
	const delay = dot < 0 ? rest : rest.slice(0, dot);
	const stateId = dot < 0 ? "" : rest.slice(dot + 1);
	const state = stateId.startsWith(`${machineId}.`) ? stateId.slice(machineId.length + 1) : stateId;
	return { delay, state };
}

/**
 * An XState state value as a dotted path: `{running: "aborting"}` → `running.aborting`; parallel
 * regions are joined by commas (`a.x,b.y`); "" for anything that is not a state value. Never throws.
 *
 * @example
 * ```ts
 * stateValuePath("idle"); // "idle"
 * stateValuePath({ running: "aborting" }); // "running.aborting"
 * stateValuePath({ running: { working: "streaming" } }); // "running.working.streaming"
 * ```
 */
export function stateValuePath(value: unknown): string {
	if (typeof value === "string") return value;
	if (value && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>);
		return entries
			.map(([key, child]) => {
				const rest = stateValuePath(child);
				return rest ? `${key}.${rest}` : key;
			})
			.join(",");
	}
	return "";
}

/** Every active state path, outermost first: `{running: "aborting"}` → `["running", "running.aborting"]`. */
function activeStatePaths(value: unknown, prefix = ""): string[] {
	if (typeof value === "string") return [prefix ? `${prefix}.${value}` : value];
	if (value && typeof value === "object") {
		const out: string[] = [];
		for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
			const path = prefix ? `${prefix}.${key}` : key;
			out.push(path, ...activeStatePaths(child, path));
		}
		return out;
	}
	return [];
}

function defaultDetails(machineId: string, context: unknown): LifecycleDetails {
	if (!context || typeof context !== "object") return {};
	const c = context as Record<string, unknown>;
	const out: LifecycleDetails = {};
	const put = (key: string, value: unknown) => {
		if (value !== undefined) out[key] = toJsonValue(value);
	};
	if (machineId === PROMPT_OPERATION_MACHINE_ID) {
		const operation = c.operation as { id?: number; runCount?: number } | undefined;
		const retry = c.retry as { maxRetries?: number } | undefined;
		const compaction = c.compaction as { reason?: string; willRetry?: boolean } | undefined;
		put("operationId", operation?.id);
		put("runIndex", operation?.runCount);
		put("runCause", operation ? c.runCause : undefined);
		put("retryAttempt", c.retryAttempt);
		put("maxRetries", retry?.maxRetries);
		put("retryDelayMs", c.retryDelayMs);
		put("compactionReason", compaction?.reason);
		put("willRetry", compaction?.willRetry);
		put("abortRequested", c.abortRequested);
		put("overflowRecoveryAttempted", c.overflowRecoveryAttempted);
		put("deferredPrompts", Array.isArray(c.deferredPrompts) ? c.deferredPrompts.length : undefined);
		return out;
	}
	if (machineId === RUNTIME_MACHINE_ID) {
		const request = c.request as { requestId?: string; kind?: string } | undefined;
		put("requestId", request?.requestId);
		put("kind", request?.kind);
		put("teardownReason", c.teardownReason);
		return out;
	}
	return out;
}

const MAX_DEPTH = 5;
const MAX_STRING = 400;
const MAX_ITEMS = 40;

/**
 * Converts anything into a bounded JSON value: functions become `"[function]"`, errors
 * `{name, message}`, class instances `"[ClassName]"`, long strings and arrays are cut
 * (`…(+N)`), depth is limited. Never throws.
 *
 * @example
 * ```ts
 * toJsonValue({ retry: () => {}, error: new TypeError("bad"), at: new Date(0), skipped: undefined });
 * // { retry: "[function]", error: { name: "TypeError", message: "bad" }, at: "[Date]" }
 * toJsonValue(Number.NaN); // "NaN"
 * ```
 */
export function toJsonValue(value: unknown, depth = 0): JsonValue {
	if (value === null || value === undefined) return null;
	switch (typeof value) {
		case "boolean":
			return value;
		case "number":
			return Number.isFinite(value) ? value : String(value);
		case "string":
			return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…(+${value.length - MAX_STRING})` : value;
		case "bigint":
			return value.toString();
		case "function":
			return "[function]";
		case "symbol":
			return value.toString();
		default:
			break;
	}
	if (value instanceof Error) return { name: value.name, message: value.message };
	if (depth >= MAX_DEPTH) return "[…]";
	if (Array.isArray(value)) {
		const items = value.slice(0, MAX_ITEMS).map((item) => toJsonValue(item, depth + 1));
		if (value.length > MAX_ITEMS) items.push(`…(+${value.length - MAX_ITEMS})`);
		return items;
	}
	const proto = Object.getPrototypeOf(value);
	if (proto !== Object.prototype && proto !== null) {
		return `[${(value as object).constructor?.name ?? "object"}]`;
	}
	const out: { [key: string]: JsonValue } = {};
	let count = 0;
	for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
		if (item === undefined) continue;
		if (count++ >= MAX_ITEMS) {
			out["…"] = `+${Object.keys(value as object).length - MAX_ITEMS}`;
			break;
		}
		out[key] = toJsonValue(item, depth + 1);
	}
	return out;
}

function errorText(error: unknown): string {
	if (error instanceof Error) return error.message;
	return typeof error === "string" ? error : JSON.stringify(toJsonValue(error));
}
