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
