/**
 * A reload overtaken by its runtime's teardown (a replacement or dispose) while one of its steps is
 * stuck or slow past the runtime's 2 s settle bound. The bug: the teardown then told the OLD
 * extensions `session_shutdown` a second time (the reload had told them already), and a reload that
 * went on afterwards could load and start extensions that were disposed without ever hearing
 * `session_shutdown` (their cleanup never ran). Now each extension set hears `session_shutdown` at
 * most once (the teardown joins the reload's dispatch instead of repeating it), and the reload
 * machine stops the reload at its next step once the teardown started: nothing is loaded or started
 * for a session that is going away. Timed on the session's SimulatedClock.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import { SettleError } from "../../src/errors.js";
import { STALE_EXTENSION_CONTEXT_MESSAGE } from "../../src/extensions/messages.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { disposeOnClock, settleMicrotasks } from "./helpers.js";
import { ExtensionGenerations } from "./reload-generations.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let clock: SimulatedClock;
let gens: ExtensionGenerations;

/** pi#9811: a `session_shutdown` handler of instance `g` that never returns. */
function stuckOnShutdown(g: string): void {
	gens.slowShutdown.set(g, new Promise<void>(() => {}));
}

async function advance(ms: number): Promise<void> {
	clock.increment(ms);
	await settleMicrotasks();
}

/**
 * Once the runtime is disposed: each extension instance heard session_shutdown at most once, and
 * exactly once if it heard session_start.
 */
async function expectEachInstanceShutDownOnce(): Promise<void> {
	let disposed = false;
	const disposing = t.runtime?.dispose().then(() => (disposed = true));
	for (let i = 0; disposing && !disposed && i < 5; i++) await advance(60_000);
	expect(disposed, "the runtime disposed within its bounds").toBe(true);
	for (const [g, log] of gens.heard) {
		const shutdowns = log.filter((line) => line.startsWith("session_shutdown")).length;
		const started = log.some((line) => line.startsWith("session_start"));
		expect(shutdowns, `${g}: ${log.join(", ")}`).toBe(started ? 1 : Math.min(shutdowns, 1));
	}
}

async function start(): Promise<AgentSessionRuntime> {
	t.runtime = await gens.start(t.ws, clock);
	return t.runtime;
}

beforeEach(() => {
	clock = new SimulatedClock();
	clock.set(0);
	gens = new ExtensionGenerations();
});
afterEach(async () => {
	// On the simulated clock, before useRuntimeWorkspace's teardown removes the workspace.
	await disposeOnClock(t.runtime, clock);
	t.runtime = undefined;
});

describe("a reload overtaken by a replacement or dispose", () => {
	it("old extensions told session_shutdown twice when a replacement overtakes a reload whose session_shutdown handler is stuck", async () => {
		stuckOnShutdown("g1");
		const r = await start();
		const old = r.session;
		const reloading = old.reload().catch((error: unknown) => error);
		await settleMicrotasks();
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload"]);
		await advance(7_000);
		let replaced = false;
		const replacing = r.newSession().then(() => (replaced = true));
		await settleMicrotasks();
		expect(r.lifecycle).toBe("settlingCurrent");
		// The settle bound runs out (the reload is stuck in its session_shutdown wait): the teardown
		// joins the reload's dispatch, it does not tell the old extensions again.
		await advance(2_000);
		expect(r.lifecycle).toBe("shuttingDown");
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload"]);
		// The reload's own bound (10 s after it started): it gives up on the handler, and so does the
		// teardown waiting on the same dispatch. The reload stops there: nothing is loaded for a session
		// being replaced.
		await advance(1_000);
		await replacing;
		expect(replaced).toBe(true);
		const outcome = await reloading;
		expect(outcome).toBeInstanceOf(SettleError);
		expect(outcome).toMatchObject({ code: "SESSION_CLOSED" });
		expect(old.isDisposed).toBe(true);
		// g2 is the new session's; no generation was loaded by the cut-off reload.
		expect([...gens.heard.keys()]).toEqual(["g1", "g2"]);
		expect(gens.heard.get("g2")).toEqual(["session_start new"]);
		await expectEachInstanceShutDownOnce();
	});

	it("old extensions told session_shutdown twice when a replacement overtakes a reload whose new extensions load slowly", async () => {
		let releaseLoad!: () => void;
		gens.slowFactory.set("g2", new Promise<void>((resolve) => (releaseLoad = resolve)));
		const r = await start();
		const old = r.session;
		const reloading = old.reload().catch((error: unknown) => error);
		await settleMicrotasks();
		// g2 is the reload's generation, still loading.
		expect([...gens.heard.keys()]).toEqual(["g1", "g2"]);
		const replacing = r.newSession();
		await settleMicrotasks();
		expect(r.lifecycle).toBe("settlingCurrent");
		await advance(2_000);
		await replacing;
		expect(old.isDisposed).toBe(true);
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload"]);
		releaseLoad();
		await settleMicrotasks();
		expect(await reloading).toMatchObject({ code: "SESSION_CLOSED" });
		// The reload's generation was loaded but never started: it hears nothing, and its pi is stale.
		expect(gens.heard.get("g2")).toEqual([]);
		expect(() => gens.apis.get("g2")!.getActiveTools()).toThrow(STALE_EXTENSION_CONTEXT_MESSAGE);
		expect(gens.heard.get("g3")).toEqual(["session_start new"]);
		await expectEachInstanceShutDownOnce();
	});

	it("dispose while the reload's beforeSessionStart runs: the reload stops before session_start; the extensions it installed hear session_shutdown quit once", async () => {
		const r = await start();
		let releaseStart!: () => void;
		const started = new Promise<void>((resolve) => (releaseStart = resolve));
		const reloading = r.session
			.reload({
				beforeSessionStart: () => started,
			})
			.catch((error: unknown) => error);
		await settleMicrotasks();
		const disposing = r.dispose();
		await settleMicrotasks();
		// Cut off after binding: the reloaded extensions were installed, never started.
		releaseStart();
		await settleMicrotasks();
		await disposing;
		expect(await reloading).toMatchObject({ code: "SESSION_CLOSED" });
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload"]);
		expect(gens.heard.get("g2")).toEqual(["session_shutdown quit"]);
		await expectEachInstanceShutDownOnce();
	});

	it("a replacement that rolls back binds the old extensions again (session_start): the next teardown tells them session_shutdown again", async () => {
		const r = await start();
		r.setBeforeSessionInvalidate(() => {
			throw new Error("invalidate failed");
		});
		await expect(r.newSession()).rejects.toThrow("invalidate failed");
		r.setBeforeSessionInvalidate(undefined);
		let disposed = false;
		const disposing = r.dispose().then(() => (disposed = true));
		for (let i = 0; !disposed && i < 5; i++) await advance(60_000);
		await disposing;
		expect(gens.heard.get("g1")).toEqual([
			"session_start startup",
			"session_shutdown new",
			"session_start startup",
			"session_shutdown quit",
		]);
	});
});
