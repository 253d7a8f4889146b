/** Racing work against an AbortSignal, shared by the tools and the compaction summarizer. */
import { SettleError } from "./errors.js";

/**
 * Settles with `work`, or rejects with `SettleError("ABORTED", message)` as soon as `signal` fires.
 * `work` itself keeps running (it should watch the signal and stop at its next safe point); its late
 * rejection is swallowed so it never becomes an unhandled rejection.
 */
export function raceAbortWith<T>(work: Promise<T>, signal: AbortSignal | undefined, message: string): Promise<T> {
	if (!signal) return work;
	if (signal.aborted) {
		work.catch(() => {});
		return Promise.reject(new SettleError("ABORTED", message));
	}
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => {
			work.catch(() => {});
			reject(new SettleError("ABORTED", message));
		};
		signal.addEventListener("abort", onAbort, { once: true });
		work.then(
			(value) => {
				signal.removeEventListener("abort", onAbort);
				resolve(value);
			},
			(error: unknown) => {
				signal.removeEventListener("abort", onAbort);
				reject(error);
			},
		);
	});
}

/** The reasons of the aborts Settle itself issued (see {@link abortWithIssuedReason}). */
const issuedReasons = new WeakSet<object>();

/**
 * Aborts `controller` (when given) with a fresh `AbortError` DOMException, as a bare `abort()` would,
 * and remembers that reason: an extension's abort listener that rethrows `signal.reason`, or a
 * fetch it never awaited rejecting with it, then surfaces Settle's own abort as an uncaught error,
 * which {@link isIssuedAbortReason} recognizes so the CLI does not die of it (pi#9709, pi#2716).
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * abortWithIssuedReason(controller);
 * isIssuedAbortReason(controller.signal.reason); // true
 * ```
 */
export function abortWithIssuedReason(controller: AbortController | undefined): void {
	if (!controller || controller.signal.aborted) return;
	const reason = new DOMException("This operation was aborted", "AbortError");
	issuedReasons.add(reason);
	controller.abort(reason);
}

/**
 * Whether `error` is the reason of an abort Settle issued through {@link abortWithIssuedReason}:
 * a rethrow of it is the abort itself reaching someone's listener, not a new failure.
 *
 * @example
 * ```ts
 * process.on("uncaughtException", (error) => {
 * 	if (isIssuedAbortReason(error)) return; // our own abort, rethrown by a listener
 * 	throw error;
 * });
 * ```
 */
export function isIssuedAbortReason(error: unknown): boolean {
	return typeof error === "object" && error !== null && issuedReasons.has(error);
}

/** The reasons of aborts whose work's results will never be recorded (see {@link abortDiscardingResults}). */
const discardingReasons = new WeakSet<object>();

/**
 * Aborts `controller` as {@link abortWithIssuedReason} does (or keeps the reason it was already
 * aborted with) and marks that reason: what the aborted work returns will never be recorded (a
 * session disposed mid-run), so a tool can drop what only its result would have named, such as a
 * full-output file, instead of leaving it behind (see {@link resultsDiscarded}).
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * abortDiscardingResults(controller);
 * resultsDiscarded(controller.signal); // true
 * ```
 */
export function abortDiscardingResults(controller: AbortController | undefined): void {
	if (!controller) return;
	abortWithIssuedReason(controller);
	const reason: unknown = controller.signal.reason;
	if (typeof reason === "object" && reason !== null) discardingReasons.add(reason);
}

/**
 * Whether `signal` was aborted by {@link abortDiscardingResults} (or one following it, which keeps
 * its reason): the result of the work it stopped will never be recorded.
 *
 * @example
 * ```ts
 * if (resultsDiscarded(signal)) console.log("aborted for good: nothing will record this result");
 * ```
 */
export function resultsDiscarded(signal: AbortSignal | undefined): boolean {
	const reason: unknown = signal?.aborted ? signal.reason : undefined;
	return typeof reason === "object" && reason !== null && discardingReasons.has(reason);
}
