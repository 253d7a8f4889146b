/**
 * The reload machine: one `session.reload()` (pi's `/reload`) as an explicit lifecycle. Pure: no
 * I/O, no timers of its own (the bounded wait runs on the actor's clock), no imports from `src/`.
 *
 * `shuttingDown → rebuilding → reloaded | failed`:
 * - `shuttingDown` runs `shutdownExtensions` (`session_shutdown {reason: "reload"}` to the old
 *   extensions) for at most `shutdownTimeoutMs` (pi#9811: a handler that never returns froze
 *   `/reload` for good). When the wait runs out the machine emits `shutdown_timed_out` — the
 *   session reports each handler still running through the extension error path, naming its
 *   extension — and the reload goes on without it. A `shutdownExtensions` failure fails the reload
 *   before anything was rebuilt.
 * - `rebuilding` runs `rebuild` (invalidate the old runner, re-read settings and resources, load
 *   and bind the new extensions, `session_start {reason: "reload"}`): its failure is the reload's.
 *
 * The same bounded wait ({@link shutdownTimeoutDelay}) bounds the runtime machine's `shuttingDown`.
 *
 * @example
 * ```ts
 * import { createActor, fromPromise, toPromise } from "xstate";
 * const actor = createActor(
 *   reloadMachine.provide({
 *     actors: { shutdownExtensions: fromPromise(async () => {}), rebuild: fromPromise(async () => {}) },
 *   }),
 *   { input: { shutdownTimeoutMs: DEFAULT_SHUTDOWN_TIMEOUT_MS } },
 * );
 * actor.on("shutdown_timed_out", ({ timeoutMs }) => console.warn(`session_shutdown still running after ${timeoutMs} ms`));
 * const { error } = await toPromise(actor.start());
 * ```
 * @module
 */
import { assign, enqueueActions, fromPromise, setup } from "xstate";

/** How long (ms) `session_shutdown` handlers are waited for by default: reload, replacement and dispose. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** The longest delay a timer can take (Node runs a longer one after 1 ms). */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

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

/** What a finished reload actor outputs. */
export interface ReloadMachineOutput {
	/** The wait for `session_shutdown` handlers ran out (they were reported, the reload went on). */
	shutdownTimedOut: boolean;
	/** Why the reload failed (`shutdownExtensions` or `rebuild` threw); undefined when it reloaded. */
	error?: unknown;
}

/** What the machine emits: the wait for the old extensions' `session_shutdown` handlers ran out. */
export type ReloadEmitted = { type: "shutdown_timed_out"; timeoutMs: number };

interface ReloadContext {
	shutdownTimeoutMs: number;
	shutdownTimedOut: boolean;
	error: unknown;
}

function notProvided(name: string): never {
	throw new Error(
		`The reload actor "${name}" is not provided: pass it with reloadMachine.provide({ actors: { ${name} } }).`,
	);
}

/** The reload statechart (see the module doc). */
export const reloadMachine = setup({
	types: {} as {
		context: ReloadContext;
		input: ReloadMachineInput;
		output: ReloadMachineOutput;
		emitted: ReloadEmitted;
	},
	actors: {
		shutdownExtensions: fromPromise<void, void>(async () => notProvided("shutdownExtensions")),
		rebuild: fromPromise<void, void>(async () => notProvided("rebuild")),
	},
	guards: {
		shutdownBounded: ({ context }) => isShutdownBounded(context.shutdownTimeoutMs),
	},
	delays: {
		/** `shutdownTimeoutMs`, on the actor's clock. */
		shutdownTimeout: ({ context }) => shutdownTimeoutDelay(context.shutdownTimeoutMs),
	},
	actions: {
		reportShutdownTimedOut: enqueueActions(({ enqueue, context }) => {
			enqueue.assign({ shutdownTimedOut: true });
			enqueue.emit({ type: "shutdown_timed_out", timeoutMs: context.shutdownTimeoutMs });
		}),
		recordError: assign((_, params: { error: unknown }) => ({ error: params.error })),
	},
}).createMachine({
	id: "reload",
	description: "One session.reload(): the old extensions' session_shutdown (bounded), then the rebuild.",
	context: ({ input }) => ({ shutdownTimeoutMs: input.shutdownTimeoutMs, shutdownTimedOut: false, error: undefined }),
	initial: "shuttingDown",
	states: {
		shuttingDown: {
			description: "session_shutdown {reason: reload} to the old extensions, waited for at most shutdownTimeoutMs.",
			invoke: {
				id: "shutdownExtensions",
				src: "shutdownExtensions",
				onDone: { target: "rebuilding" },
				onError: {
					target: "failed",
					actions: { type: "recordError", params: ({ event }) => ({ error: event.error }) },
				},
			},
			after: {
				shutdownTimeout: { guard: "shutdownBounded", target: "rebuilding", actions: "reportShutdownTimedOut" },
			},
		},
		rebuilding: {
			description: "Invalidate the old extensions, reload settings and resources, bind the new extensions.",
			invoke: {
				id: "rebuild",
				src: "rebuild",
				onDone: { target: "reloaded" },
				onError: {
					target: "failed",
					actions: { type: "recordError", params: ({ event }) => ({ error: event.error }) },
				},
			},
		},
		reloaded: { type: "final" },
		failed: { type: "final" },
	},
	output: ({ context }) =>
		context.error === undefined
			? { shutdownTimedOut: context.shutdownTimedOut }
			: { shutdownTimedOut: context.shutdownTimedOut, error: context.error },
});
