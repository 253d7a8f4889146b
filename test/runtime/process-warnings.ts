/**
 * Captures the process warnings (`LISTENER` reports) and unhandled rejections a test causes:
 * registers its listeners before each test and removes them after. With `routeListenerErrors`,
 * `LISTENER` reports reach it through `setListenerErrorHandler` (as a host with its own logging
 * gets them) instead of as process warnings, which Node also prints on stderr; every other
 * warning is still captured as a process warning.
 */
import { afterEach, beforeEach } from "vitest";
import type { SettleError } from "../../src/errors.js";
import { setListenerErrorHandler } from "../../src/listener-errors.js";

export function captureProcessWarnings(options: { routeListenerErrors?: boolean } = {}) {
	let warnings: SettleError[] = [];
	let unhandled: unknown[] = [];
	let waiters: (() => void)[] = [];
	const onWarning = (warning: Error) => {
		warnings.push(warning as SettleError);
		for (const wake of waiters.splice(0)) wake();
	};
	const onUnhandled = (reason: unknown) => void unhandled.push(reason);
	let restoreHandler: (() => void) | undefined;
	beforeEach(() => {
		warnings = [];
		unhandled = [];
		waiters = [];
		process.on("warning", onWarning);
		process.on("unhandledRejection", onUnhandled);
		if (options.routeListenerErrors) restoreHandler = setListenerErrorHandler(onWarning);
	});
	afterEach(() => {
		process.off("warning", onWarning);
		process.off("unhandledRejection", onUnhandled);
		restoreHandler?.();
		restoreHandler = undefined;
	});
	return {
		get warnings() {
			return warnings;
		},
		get unhandled() {
			return unhandled;
		},
		/** Resolves once `count` warnings have been emitted (Node emits them on the next tick). */
		async until(count: number): Promise<SettleError[]> {
			while (warnings.length < count) await new Promise<void>((wake) => waiters.push(wake));
			return warnings;
		},
		/** Lets every warning already emitted (`process.nextTick`) and rejection already settled arrive. */
		drained: () => new Promise((resolve) => setImmediate(resolve)),
	};
}
