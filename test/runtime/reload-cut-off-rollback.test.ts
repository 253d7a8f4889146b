/**
 * A reload cut off by a replacement (the reload machine's `cutOff`) after its new extensions were
 * loaded or bound, where the replacement then fails in `invalidating` (the host's
 * `beforeSessionInvalidate` throws) and rolls back: the old session is current again and the host
 * rebinds it. It must go on with live extensions that heard `session_start`, and the next command
 * must reach them. The bug (cut off after loading): the reload had already shut down and invalidated
 * the old extensions and the teardown dropped the ones it loaded, so the rolled-back session kept
 * the stale old set: it heard `session_start` again on a stale `pi`, and every command ran on it.
 * Now the loaded set is kept until the teardown decides: a rollback installs it (the host's rebind
 * starts it), a commit or dispose drops it unheard. And `reload()` follows the session: it resolves
 * once the rolled-back session's reloaded extensions are started (it rejected `SESSION_CLOSED` on a
 * live session), rejects `BUSY` when the reload was cut off before loading anything (the session
 * kept its extensions), and rejects `SESSION_CLOSED` when the replacement commits. A rollback that
 * comes while the reload still runs its step (the settle bound ran out) lets it go on to its end,
 * without the host's rebind starting the old, already shut-down extensions again.
 * Timed on the session's SimulatedClock.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import { STALE_EXTENSION_CONTEXT_MESSAGE } from "../../src/extensions/messages.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import type { ReloadOptions } from "../../src/session/reload.js";
import { disposeOnClock, settleMicrotasks } from "./helpers.js";
import { ExtensionGenerations } from "./reload-generations.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let clock: SimulatedClock;
let gens: ExtensionGenerations;

/** A runtime whose host's invalidate callback throws: every replacement rolls back. */
async function start(): Promise<AgentSessionRuntime> {
	t.runtime = await gens.start(t.ws, clock);
	t.runtime.setBeforeSessionInvalidate(() => {
		throw new Error("invalidate failed");
	});
	return t.runtime;
}

/** Disposes the runtime (the host's invalidate callback works again). */
async function disposeRuntime(r: AgentSessionRuntime): Promise<void> {
	r.setBeforeSessionInvalidate(undefined);
	await r.dispose();
}

/**
 * How `reload()` ended: rejected (the error), or resolved (what the reload's extensions, `g2`, had
 * heard by then).
 */
function outcome(reloading: Promise<void>): Promise<unknown> {
	return reloading.then(
		() => ({ resolvedAfter: [...(gens.heard.get("g2") ?? [])] }),
		(error: unknown) => error,
	);
}

/**
 * `reload(options)` on the runtime's session, then `newSession()` while it runs: the replacement
 * waits for it in `settlingCurrent`.
 */
async function reloadThenReplace(
	r: AgentSessionRuntime,
	options?: ReloadOptions,
): Promise<{ reloading: Promise<unknown>; replacing: Promise<unknown> }> {
	const reloading = outcome(r.session.reload(options));
	await settleMicrotasks();
	const replacing = r.newSession().catch((error: unknown) => error);
	await settleMicrotasks();
	expect(r.lifecycle).toBe("settlingCurrent");
	return { reloading, replacing };
}

beforeEach(() => {
	clock = new SimulatedClock();
	clock.set(0);
	gens = new ExtensionGenerations();
});
afterEach(async () => {
	t.runtime?.setBeforeSessionInvalidate(undefined);
	// On the simulated clock, before useRuntimeWorkspace's teardown removes the workspace.
	await disposeOnClock(t.runtime, clock);
	t.runtime = undefined;
});

describe("a reload cut off by a replacement that then rolls back", () => {
	it("a reload cut off after loading, then a replacement that rolls back: the session kept its stale old extensions and reload() rejected SESSION_CLOSED — now it goes on with the reloaded ones, started and live, and reload() resolves", async () => {
		let releaseLoad!: () => void;
		gens.slowFactory.set("g2", new Promise<void>((resolve) => (releaseLoad = resolve)));
		let releaseStart!: () => void;
		gens.slowStart.set("g2", new Promise<void>((resolve) => (releaseStart = resolve)));
		const r = await start();
		const old = r.session;
		let settled = false;
		const reloading = outcome(old.reload()).finally(() => (settled = true));
		await settleMicrotasks();
		expect([...gens.heard.keys()]).toEqual(["g1", "g2"]);
		const replacing = r.newSession().catch((error: unknown) => error);
		await settleMicrotasks();
		expect(r.lifecycle).toBe("settlingCurrent");
		// The reload's factories finish within the settle bound: it is cut off after loading.
		releaseLoad();
		await settleMicrotasks();
		// The rollback's rebind waits on g2's session_start handler: reload() is not over yet.
		expect(r.lifecycle).toBe("rollingBack");
		expect(settled).toBe(false);
		releaseStart();
		await settleMicrotasks();
		expect(await replacing).toMatchObject({ message: "invalidate failed" });
		// The session lives on with the reloaded extensions: reload() completed, once they were started.
		expect(await reloading).toEqual({ resolvedAfter: ["session_start startup"] });
		expect(r.session).toBe(old);
		expect(r.lifecycle).toBe("active");
		// g1 was shut down by the reload and stays so; g2, the reload's, is the session's now and was
		// started by the host's rebind; g3, the failed replacement's, never heard of a session.
		// Shut down for the reload, then stale: nothing more (the rollback's rebind started them again).
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload"]);
		expect(gens.heard.get("g2")).toEqual(["session_start startup"]);
		expect(gens.heard.get("g3")).toEqual([]);
		expect(() => gens.apis.get("g1")!.getActiveTools()).toThrow(STALE_EXTENSION_CONTEXT_MESSAGE);
		expect(await gens.whoami(r)).toEqual({ g2: ["whoami: live"] });
		await disposeRuntime(r);
		expect(gens.heard.get("g2")).toEqual(["session_start startup", "whoami: live", "session_shutdown quit"]);
		// Shut down for the reload, then stale: nothing more (the rollback's rebind started them again).
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload"]);
	});

	it("a reload cut off after loading, then a replacement that commits: the extensions it loaded never hear of a session, their pi is stale", async () => {
		let releaseLoad!: () => void;
		gens.slowFactory.set("g2", new Promise<void>((resolve) => (releaseLoad = resolve)));
		const r = await start();
		r.setBeforeSessionInvalidate(undefined);
		const old = r.session;
		const reloading = old.reload().catch((error: unknown) => error);
		await settleMicrotasks();
		const replacing = r.newSession();
		await settleMicrotasks();
		releaseLoad();
		await settleMicrotasks();
		expect(await replacing).toEqual({ cancelled: false });
		expect(await reloading).toMatchObject({ code: "SESSION_CLOSED" });
		expect(old.isDisposed).toBe(true);
		expect(gens.heard.get("g2")).toEqual([]);
		expect(() => gens.apis.get("g2")!.getActiveTools()).toThrow(STALE_EXTENSION_CONTEXT_MESSAGE);
		expect(gens.heard.get("g3")).toEqual(["session_start new"]);
		expect(await gens.whoami(r)).toEqual({ g3: ["whoami: live"] });
	});

	it("a reload cut off after binding, then a replacement that rolls back: the reloaded extensions it installed hear the teardown's session_shutdown, then session_start again, and stay live; reload() rejected SESSION_CLOSED — now it resolves once they are started", async () => {
		const r = await start();
		const old = r.session;
		let releaseStart!: () => void;
		const started = new Promise<void>((resolve) => (releaseStart = resolve));
		const { reloading, replacing } = await reloadThenReplace(r, { beforeSessionStart: () => started });
		releaseStart();
		await settleMicrotasks();
		expect(await replacing).toMatchObject({ message: "invalidate failed" });
		expect(await reloading).toEqual({ resolvedAfter: ["session_shutdown new", "session_start startup"] });
		expect(r.session).toBe(old);
		// Shut down for the reload, then stale: nothing more (the rollback's rebind started them again).
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload"]);
		expect(gens.heard.get("g2")).toEqual(["session_shutdown new", "session_start startup"]);
		expect(await gens.whoami(r)).toEqual({ g2: ["whoami: live"] });
	});

	it("a reload cut off after its session_shutdown, then a replacement that rolls back: reload() rejected SESSION_CLOSED on a live session — now BUSY (nothing was reloaded), the old extensions are started again, and reload() again works", async () => {
		let releaseShutdown!: () => void;
		gens.slowShutdown.set("g1", new Promise<void>((resolve) => (releaseShutdown = resolve)));
		const r = await start();
		const old = r.session;
		const { reloading, replacing } = await reloadThenReplace(r);
		// g2 is the replacement's (created before the old session is torn down); the reload loaded none.
		expect([...gens.heard.keys()]).toEqual(["g1", "g2"]);
		releaseShutdown();
		await settleMicrotasks();
		expect(await replacing).toMatchObject({ message: "invalidate failed" });
		expect(await reloading).toMatchObject({ code: "BUSY", message: expect.stringContaining("Call reload() again") });
		expect(r.session).toBe(old);
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload", "session_start startup"]);
		expect(await gens.whoami(r)).toEqual({ g1: ["whoami: live"] });
		await old.reload();
		expect(gens.heard.get("g3")).toEqual(["session_start reload"]);
		expect(await gens.whoami(r)).toEqual({ g3: ["whoami: live"] });
	});

	it("a replacement that stops waiting for a slow reload and rolls back before its loading ends: the session kept its stale old extensions and reload() rejected SESSION_CLOSED — now the reload goes on to its end: resolved, the reloaded extensions started and live; and the old extensions, shut down for the reload, are not started again by the host's rebind (they heard a session_start no session_shutdown followed)", async () => {
		let releaseLoad!: () => void;
		gens.slowFactory.set("g2", new Promise<void>((resolve) => (releaseLoad = resolve)));
		const r = await start();
		const old = r.session;
		const { reloading, replacing } = await reloadThenReplace(r);
		// The settle bound runs out while the reload's factories still run: the teardown goes on, fails, rolls back.
		clock.increment(2_000);
		await settleMicrotasks();
		expect(await replacing).toMatchObject({ message: "invalidate failed" });
		expect(r.lifecycle).toBe("active");
		releaseLoad();
		await settleMicrotasks();
		expect(await reloading).toEqual({ resolvedAfter: ["session_start reload"] });
		expect(r.session).toBe(old);
		expect(() => gens.apis.get("g1")!.getActiveTools()).toThrow(STALE_EXTENSION_CONTEXT_MESSAGE);
		expect(await gens.whoami(r)).toEqual({ g2: ["whoami: live"] });
		await disposeRuntime(r);
		expect(gens.heard.get("g2")).toEqual(["session_start reload", "whoami: live", "session_shutdown quit"]);
		// Shut down for the reload, then stale: nothing more (the rollback's rebind started them again).
		expect(gens.heard.get("g1")).toEqual(["session_start startup", "session_shutdown reload"]);
	});
});

describe("a teardown the rollback overtook while a reload held it", () => {
	it("the replacement rolls back before the reload's loading ends: once the reload ends, the teardown's step left behind does not cancel the user's shell command running on the live session (it did: cancelled, as if the session were going)", async () => {
		let releaseLoad!: () => void;
		gens.slowFactory.set("g2", new Promise<void>((resolve) => (releaseLoad = resolve)));
		const r = await start();
		const old = r.session;
		const { reloading, replacing } = await reloadThenReplace(r);
		clock.increment(2_000); // the settle bound runs out: the teardown goes on, fails, rolls back
		await settleMicrotasks();
		expect(await replacing).toMatchObject({ message: "invalidate failed" });
		expect(r.lifecycle).toBe("active");
		let printed!: () => void;
		const started = new Promise<void>((resolve) => (printed = resolve));
		const command = old.executeBash("echo started; sleep 1; echo finished", (chunk) => {
			if (chunk.includes("started")) printed();
		});
		await started;
		releaseLoad();
		await reloading;
		expect(await command).toMatchObject({ cancelled: false, exitCode: 0, output: "started\nfinished\n" });
	});
});
