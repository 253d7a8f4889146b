/** Abort helpers shared by the tools: every tool rejects with `Operation aborted` when its signal fires. */
import { raceAbortWith } from "../abort.js";
import { SettleError } from "../errors.js";

export const OPERATION_ABORTED = "Operation aborted";

export function abortedError(): SettleError {
	return new SettleError("ABORTED", OPERATION_ABORTED);
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw abortedError();
}

/** Settles with `work`, or rejects with `Operation aborted` as soon as `signal` fires (see {@link raceAbortWith}). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
	return raceAbortWith(work, signal, OPERATION_ABORTED);
}
