/**
 * Every AgentSessionRuntime runs the same runtime machine definition: creating a runtime builds no
 * XState state nodes. (A machine built per runtime cost each runtime — a host may run one per
 * client — its 12 state nodes and XState's per-node caches, and grew XState's module-wide cache
 * table, a WeakMap keyed by state node.) Each runtime's steps still act on that runtime.
 */
import v8 from "node:v8";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateNode } from "xstate";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { createWorkspace, recordingFactory, startRuntime, type Workspace } from "../runtime/helpers.js";
import { HEAP_SNAPSHOT_TEST_TIMEOUT_MS } from "./heap-census.js";
import { forceGc } from "./helpers.js";

let ws: Workspace;
beforeEach(() => {
	ws = createWorkspace();
});
afterEach(() => {
	ws.cleanup();
});

/**
 * Live StateNode objects after a full GC: V8 counts them by prototype (v8.queryObjects) in a fraction
 * of the time a heap snapshot of the worker takes (2 of them were ~7 s of this file's 12 s).
 */
function liveStateNodes(): number {
	return v8.queryObjects(StateNode, { format: "count" });
}

/** A runtime in `cwd` that has already replaced its first session once (every runtime step has run). */
async function replacedOnce(cwd: string): Promise<{ runtime: AgentSessionRuntime; first: string }> {
	const { factory } = recordingFactory({ resourceLoaderOptions: { noExtensions: true } });
	const runtime = await startRuntime(factory, ws, cwd);
	const first = runtime.session.sessionId;
	expect(await runtime.newSession()).toEqual({ cancelled: false });
	return { runtime, first };
}

describe("the runtime machine", () => {
	it("is shared: live runtimes, each after a replacement, add no XState state node", {
		timeout: HEAP_SNAPSHOT_TEST_TIMEOUT_MS,
	}, async () => {
		const held = [await replacedOnce(ws.alpha)];
		await forceGc();
		const before = liveStateNodes();
		for (let i = 0; i < 6; i++) held.push(await replacedOnce(i % 2 === 0 ? ws.beta : ws.alpha));
		await forceGc();
		const after = liveStateNodes();
		expect(after - before).toBe(0);
		// Each runtime's steps replaced its own session, in its own project.
		const sessionIds = new Set<string>();
		for (const [i, { runtime, first }] of held.entries()) {
			expect(runtime.lifecycle).toBe("active");
			expect(runtime.cwd).toBe(i % 2 === 1 ? ws.beta : ws.alpha);
			expect(runtime.session.sessionId).not.toBe(first);
			sessionIds.add(runtime.session.sessionId);
		}
		expect(sessionIds.size).toBe(held.length);
		for (const { runtime } of held) await runtime.dispose();
		for (const { runtime } of held) expect(runtime.lifecycle).toBe("disposed");
	});
});
