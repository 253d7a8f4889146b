/**
 * Marks code running inside the session's own dispatch (the pipeline's extension commands and
 * `input` / `before_agent_start` handlers, and the `agent_settled` dispatch), so `waitForIdle()`
 * called from there resolves at once instead of waiting for itself (pi behaves the same: the
 * operation is not active while those run).
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<true>();

/** Runs `work` (and everything it awaits) inside the session's dispatch. */
export function withinSessionDispatch<T>(work: () => Promise<T>): Promise<T> {
	return scope.run(true, work);
}

/** True when called (directly or through awaits) from inside {@link withinSessionDispatch}. */
export function insideSessionDispatch(): boolean {
	return scope.getStore() === true;
}
