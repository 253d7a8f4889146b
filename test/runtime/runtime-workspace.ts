/**
 * The set-up most runtime tests share: a fresh workspace and faux provider before each test, and
 * after it the test's runtime disposed and the workspace removed.
 */
import { afterEach, beforeEach } from "vitest";
import { createFauxProvider, type FauxProvider } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { createWorkspace, type Workspace } from "./helpers.js";

/** One test's workspace, faux provider and runtime (see {@link useRuntimeWorkspace}). */
export interface RuntimeWorkspace {
	/** This test's workspace (`projects/alpha`, `projects/beta`, an agent dir), made before it. */
	readonly ws: Workspace;
	/** This test's faux provider, made before it. */
	readonly faux: FauxProvider;
	/** The runtime the test started: disposed after the test (before the workspace is removed). */
	runtime: AgentSessionRuntime | undefined;
}

/**
 * Registers the per-test workspace of a runtime test file: call it once, at the file's top level
 * (its hooks are the file's own, like `useCliProject`'s). A hook the file registers after it runs
 * after its `beforeEach` and before its `afterEach` (so the file's own set-up can use `ws` and
 * `faux`, and its own teardown runs while the runtime is still there).
 *
 * @example
 * ```ts
 * const t = useRuntimeWorkspace();
 * it("starts", async () => {
 *   t.runtime = await startRuntime(loggingFactory(t.faux, []).factory, t.ws, t.ws.alpha);
 * });
 * ```
 */
export function useRuntimeWorkspace(): RuntimeWorkspace {
	let current: { ws: Workspace; faux: FauxProvider } | undefined;
	const state: RuntimeWorkspace = {
		get ws() {
			if (!current) throw new Error("useRuntimeWorkspace: the workspace exists only while a test runs");
			return current.ws;
		},
		get faux() {
			if (!current) throw new Error("useRuntimeWorkspace: the faux provider exists only while a test runs");
			return current.faux;
		},
		runtime: undefined,
	};
	beforeEach(() => {
		current = { ws: createWorkspace(), faux: createFauxProvider() };
	});
	afterEach(async () => {
		const runtime = state.runtime;
		state.runtime = undefined;
		try {
			await runtime?.dispose();
		} finally {
			current?.ws.cleanup();
			current = undefined;
		}
	});
	return state;
}
