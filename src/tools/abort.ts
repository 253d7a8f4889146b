/** Abort helpers shared by the tools: every tool rejects with `Operation aborted` when its signal fires. */
import { SettleError } from "../errors.js";

export const OPERATION_ABORTED = "Operation aborted";

export function abortedError(): SettleError {
	return new SettleError("ABORTED", OPERATION_ABORTED);
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw abortedError();
}

/**
 * Settles with `work`, or rejects with `Operation aborted` as soon as `signal` fires. `work` itself
 * keeps running (it should watch the signal and stop at its next safe point); its late rejection is
 * swallowed so it never becomes an unhandled rejection.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
	if (!signal) return work;
	if (signal.aborted) {
		work.catch(() => {});
		return Promise.reject(abortedError());
	}
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => {
			work.catch(() => {});
			reject(abortedError());
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
