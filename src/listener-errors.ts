/**
 * What happens when a host's listener (`session.subscribe`, `runtime.onSessionReplaced`, an
 * inspection observer or its `onEnd`) throws or its promise rejects: the listener is skipped and
 * the session goes on, and the failure is reported as a Node process warning — a
 * {@link SettleError} with code `LISTENER` and the listener's error as `cause` — so it is never
 * silent (Node prints it on stderr unless `--no-warnings`) and never an uncaught exception or an
 * unhandled rejection. Only a listener's first failure is reported: one that throws on every
 * streamed token would otherwise bury stderr. In a process hosting many sessions the warning names the
 * session the listener belongs to (its id and cwd, in the message and in `details`), and "first
 * failure" counts per session: one listener function shared by fifty sessions is reported once for
 * each session it fails in. A host that logs on its own (a server with many sessions) routes these
 * reports to its logger with {@link setListenerErrorHandler} instead.
 */
import { errorMessage, SettleError } from "./errors.js";

/** Where a listener was registered, as the warning names it. */
export type ListenerSource =
	| "session.subscribe"
	| "runtime.onSessionReplaced"
	| "runtime.onSettleTimedOut"
	| InspectionListenerSource
	| `${InspectionListenerSource} onEnd`
	| `${InspectionListenerSource} details`
	| "rpcClient.onEvent"
	| "rpcClient.onExtensionUIRequest"
	| "rpcClient.onStderr";

/** The inspection streams: their observer, or with ` onEnd` the callback told when the owner was disposed. */
export type InspectionListenerSource =
	| "session.inspect"
	| "runtime.inspect"
	| "runtime.inspectSessions"
	| "inspectActor"
	| "createLifecycleInspector";

/**
 * The session (or runtime) a listener was registered on, read when a failure is reported (a
 * runtime's current session changes). The function object itself identifies the owner.
 */
export type ListenerOwner = () => { sessionId: string; cwd: string };

/** Where reports go instead of `process.emitWarning` (see {@link setListenerErrorHandler}). */
let handler: ((warning: SettleError) => void) | undefined;

/**
 * Routes the `LISTENER` reports of this process to `route` instead of Node's process warnings
 * (which Node prints on stderr): a host with its own logging gets each report — a
 * {@link SettleError} with code `LISTENER`, the listener's error as `cause`, and `details`
 * naming the `source` and the session (`sessionId`, `cwd`) — and nothing is printed. Still once
 * per listener and session. A `route` that throws is skipped: that report becomes a process
 * warning after all. `undefined` goes back to process warnings. Returns a function that puts back
 * the handler that was set before.
 *
 * @example
 * ```ts
 * const restore = setListenerErrorHandler((warning) => {
 *   console.error(`[settle] session ${warning.details?.sessionId}: ${warning.message}`, warning.cause);
 * });
 * restore(); // process warnings again
 * ```
 */
export function setListenerErrorHandler(route: ((warning: SettleError) => void) | undefined): () => void {
	const previous = handler;
	handler = route;
	return () => {
		handler = previous;
	};
}

/** Listeners already reported, per owner; listeners registered on nothing in particular share one set. */
const reported = new WeakMap<object, WeakSet<object>>();
const UNOWNED = {};

function firstFailure(owner: object, listener: object): boolean {
	let seen = reported.get(owner);
	if (!seen) {
		seen = new WeakSet();
		reported.set(owner, seen);
	}
	if (seen.has(listener)) return false;
	seen.add(listener);
	return true;
}

function describeOwner(owner: ListenerOwner | undefined): { prefix: string; details: Record<string, string> } {
	if (!owner) return { prefix: "", details: {} };
	const { sessionId, cwd } = owner();
	return { prefix: `Session ${sessionId} (cwd ${cwd}): `, details: { sessionId, cwd } };
}

/**
 * Reports `error` thrown (or rejected) by `listener`, once per listener and `owner`. Never throws.
 *
 * @example
 * ```ts
 * process.on("warning", (warning) => {
 *   if (warning instanceof SettleError && warning.code === "LISTENER") console.error(warning.details?.sessionId, warning.cause);
 * });
 * ```
 */
export function reportListenerError(
	source: ListenerSource,
	listener: object,
	error: unknown,
	owner?: ListenerOwner,
): void {
	try {
		if (!firstFailure(owner ?? UNOWNED, listener)) return;
		const { prefix, details } = describeOwner(owner);
		const article = /^[aeiou]/.test(source) ? (prefix ? "an" : "An") : prefix ? "a" : "A";
		const warning = new SettleError(
			"LISTENER",
			`${prefix}${article} ${source} listener failed: ${errorMessage(error)}. It was skipped (the session goes on); fix the listener. Further failures of this listener are not reported.`,
			{ cause: error, details: { source, ...details } },
		);
		deliver(warning);
	} catch {
		// Reporting must never break the session either.
	}
}

function deliver(warning: SettleError): void {
	const route = handler;
	if (route) {
		try {
			route(warning);
			return;
		} catch {
			// The host's handler failed: the report is not lost, Node's warning says it.
		}
	}
	process.emitWarning(warning);
}

/**
 * Calls `listener(event)`: a throw, or a rejection of the promise it returns, is reported by
 * {@link reportListenerError} (naming `owner`'s session) and goes no further.
 */
export function callListener<E>(
	source: ListenerSource,
	listener: (event: E) => unknown,
	event: E,
	owner?: ListenerOwner,
): void {
	try {
		const result: unknown = listener(event);
		if (result instanceof Promise)
			result.catch((error: unknown) => reportListenerError(source, listener, error, owner));
	} catch (error) {
		reportListenerError(source, listener, error, owner);
	}
}
