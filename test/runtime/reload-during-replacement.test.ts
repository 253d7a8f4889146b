/**
 * A reload and a replacement of the same session at once. Found by this round's interleaving
 * property: a `newSession()` during `reload()` told the OLD extensions `session_shutdown` a second
 * time (`reload`, then `new`), while the extensions the reload loaded got `session_start` and were
 * disposed without ever hearing `session_shutdown` (their cleanup never ran). The runtime machine's
 * `settlingCurrent` now waits for the reload, which the teardown cuts off at its next step (nothing
 * is loaded for a session going away: `reload()` rejects with `SESSION_CLOSED`), and `reload()` is
 * refused (`BUSY`) once the runtime replaces the session.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider } from "../../src/llm/faux.js";
import { fauxModelRuntime, recordingFactory, startRuntime } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let log: string[];
let generation: number;
let releaseReloadShutdown: () => void;

/** Logs per extension generation (g1, g2, …); its reload shutdown waits until the test releases it. */
function generations(pi: ExtensionAPI) {
	const g = `g${++generation}`;
	pi.on("session_start", (event) => void log.push(`${g} session_start ${event.reason}`));
	pi.on("session_shutdown", async (event) => {
		if (event.reason === "reload") await new Promise<void>((resolve) => (releaseReloadShutdown = resolve));
		log.push(`${g} session_shutdown ${event.reason}`);
	});
}

const settleMicrotasks = async (rounds = 20) => {
	for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

beforeEach(() => {
	log = [];
	generation = 0;
});

describe("reload() and a runtime replacement of the same session", () => {
	it("the replacement waits for the reload (settlingCurrent), which stops after its session_shutdown: every extension generation hears session_shutdown exactly once", async () => {
		const faux = createFauxProvider();
		const rec = recordingFactory({
			modelRuntime: () => fauxModelRuntime(faux),
			resourceLoaderOptions: { extensionFactories: [generations], noExtensions: true },
		});
		t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
		const old = t.runtime.session;
		const reloading = old.reload().catch((error: unknown) => error);
		await settleMicrotasks();
		const replacing = t.runtime.newSession();
		await settleMicrotasks();
		expect(t.runtime.lifecycle).toBe("settlingCurrent");
		expect(log).toEqual(["g1 session_start startup"]);
		// Being replaced: a further reload is refused, as input is.
		const refused = await old.reload().catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(SettleError);
		expect(refused).toMatchObject({ code: "BUSY", details: { sessionReplacement: true } });

		releaseReloadShutdown();
		expect(await reloading).toMatchObject({ code: "SESSION_CLOSED" });
		await replacing;
		expect(log).toEqual([
			"g1 session_start startup",
			"g1 session_shutdown reload",
			// g2 is the new session's (built before the old one is torn down); the reload, cut off after
			// its session_shutdown, loaded no generation for the session being replaced.
			"g2 session_start new",
		]);
		expect(old.isDisposed).toBe(true);
	});

	it("reload() of a session whose runtime has begun replacing it, with no reload before, is refused with BUSY and loads nothing; once an extension cancels the replacement, reload() runs", async () => {
		let releaseSwitch: (cancel: boolean) => void = () => {};
		const switching = (pi: ExtensionAPI) => {
			generations(pi);
			pi.on(
				"session_before_switch",
				() => new Promise<{ cancel: boolean }>((resolve) => (releaseSwitch = (cancel) => resolve({ cancel }))),
			);
		};
		const faux = createFauxProvider();
		const rec = recordingFactory({
			modelRuntime: () => fauxModelRuntime(faux),
			resourceLoaderOptions: { extensionFactories: [switching], noExtensions: true },
		});
		t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
		const old = t.runtime.session;
		const replacing = t.runtime.newSession();
		await settleMicrotasks();
		const refused = await old.reload().catch((error: unknown) => error);
		expect(refused).toMatchObject({ code: "BUSY", details: { sessionReplacement: true } });
		expect(log).toEqual(["g1 session_start startup"]);

		releaseSwitch(true);
		expect(await replacing).toMatchObject({ cancelled: true });
		const reloaded = old.reload();
		await settleMicrotasks();
		releaseReloadShutdown();
		await reloaded;
		expect(log).toEqual(["g1 session_start startup", "g1 session_shutdown reload", "g2 session_start reload"]);
	});
});
