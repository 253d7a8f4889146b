/**
 * `session.subscribe(listener)` returns an unsubscribe function (pi's convention) and
 * `session.inspect(observer)` a `{ unsubscribe }` handle (XState's). The handle is now also callable,
 * so one cleanup (`stop()`) works for both — and `runtime.inspect` / `runtime.inspectSessions` too.
 * Calling it, or `unsubscribe()`, stops the stream; either twice is harmless. Real sessions on the
 * faux provider.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { createWorkspace, loggingFactory, startRuntime } from "../runtime/helpers.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(): Promise<Harness> {
	const h = await createHarness();
	cleanups.push(() => h.cleanup());
	h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two"), fauxAssistantMessage("three")]);
	return h;
}

describe("the handle session.inspect returns", () => {
	it("is callable like subscribe's unsubscribe function: one cleanup list stops both", async () => {
		const h = await harness();
		const seen = { events: 0, inspections: 0 };
		const stops: (() => void)[] = [
			h.session.subscribe(() => seen.events++),
			h.session.inspect(() => seen.inspections++),
		];
		await h.session.prompt("hi");
		expect(seen.events).toBeGreaterThan(0);
		expect(seen.inspections).toBeGreaterThan(0);
		for (const stop of stops) stop();
		const before = { ...seen };
		await h.session.prompt("again");
		expect(seen).toEqual(before);
	});

	it("unsubscribe() still stops it; calling it afterwards (or twice either way) is harmless", async () => {
		const h = await harness();
		let count = 0;
		const subscription = h.session.inspect(() => count++);
		expect(subscription.unsubscribe).toBe(subscription);
		subscription.unsubscribe();
		subscription();
		subscription.unsubscribe();
		const before = count;
		await h.session.prompt("hi");
		expect(count).toBe(before);
		// Another handle of the same session is unaffected, and stops when called.
		let other = 0;
		const second = h.session.inspect(() => other++);
		await h.session.prompt("again");
		expect(other).toBeGreaterThan(0);
		second();
		const stopped = other;
		await h.session.prompt("three");
		expect(other).toBe(stopped);
	});

	it("runtime.inspect and runtime.inspectSessions return the same callable handle", async () => {
		const ws = createWorkspace();
		cleanups.push(() => ws.cleanup());
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("second")]);
		const runtime = await startRuntime(loggingFactory(faux, []).factory, ws, ws.alpha);
		cleanups.push(() => runtime.dispose());
		const seen = { runtime: 0, sessions: 0 };
		const stopRuntime = runtime.inspect(() => seen.runtime++);
		const stopSessions = runtime.inspectSessions(() => seen.sessions++);
		await runtime.session.prompt("hi");
		expect(seen.runtime).toBeGreaterThan(0);
		expect(seen.sessions).toBeGreaterThan(0);
		stopRuntime();
		stopSessions();
		const before = { ...seen };
		await runtime.newSession();
		await runtime.session.prompt("again");
		expect(seen).toEqual(before);
	});
});
