/**
 * What happens when a host's listener (`session.subscribe`, `runtime.onSessionReplaced`, an
 * inspection observer or its `onEnd`) throws or its promise rejects: the listener is skipped and
 * the session goes on, and the failure is reported as a Node process warning — a
 * {@link SettleError} with code `LISTENER` and the listener's error as `cause` — so it is never
 * silent (Node prints it on stderr unless `--no-warnings`) and never an uncaught exception or an
 * unhandled rejection. Only a listener's first failure is reported: one that throws on every
 * streamed token would otherwise bury stderr.
 */
import { errorMessage, SettleError } from "./errors.js";

/** Where a listener was registered, as the warning names it. */
export type ListenerSource =
	| "session.subscribe"
	| "runtime.onSessionReplaced"
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

const reported = new WeakSet<object>();

/**
 * Reports `error` thrown (or rejected) by `listener`, once per listener. Never throws.
 *
 * @example
 * ```ts
 * process.on("warning", (warning) => {
 *   if (warning instanceof SettleError && warning.code === "LISTENER") console.error(warning.cause);
 * });
 * ```
 */
export function reportListenerError(source: ListenerSource, listener: object, error: unknown): void {
	try {
		if (reported.has(listener)) return;
		reported.add(listener);
		const warning = new SettleError(
			"LISTENER",
			`${/^[aeiou]/.test(source) ? "An" : "A"} ${source} listener failed: ${errorMessage(error)}. It was skipped (the session goes on); fix the listener. Further failures of this listener are not reported.`,
			{ cause: error, details: { source } },
		);
		process.emitWarning(warning);
	} catch {
		// Reporting must never break the session either.
	}
}

/**
 * Calls `listener(event)`: a throw, or a rejection of the promise it returns, is reported by
 * {@link reportListenerError} and goes no further.
 */
export function callListener<E>(source: ListenerSource, listener: (event: E) => unknown, event: E): void {
	try {
		const result: unknown = listener(event);
		if (result instanceof Promise) result.catch((error: unknown) => reportListenerError(source, listener, error));
	} catch (error) {
		reportListenerError(source, listener, error);
	}
}
