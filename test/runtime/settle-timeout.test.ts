/**
 * The runtime's settle bound (pi-desktop#46): before a teardown (new, switch, fork, dispose) tells
 * extensions `session_shutdown`, it waits for the current session's aborted run to end and be saved
 * — at most `settleTimeoutMs` (an option of `createAgentSessionRuntime`, default 2 s, on the
 * session's clock: a SimulatedClock here). When the bound runs out, `runtime.onSettleTimedOut`
 * listeners hear it, with the old session still current, before `session_shutdown`. pi 0.73.1 has
 * no such wait (it replaces without aborting the run), so there is nothing to compare with.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { invalidSettleTimeout } from "../../src/runtime/errors.js";
import {
	type AgentSessionRuntime,
	createAgentSessionRuntime,
	type SettleTimedOutEvent,
} from "../../src/runtime/runtime.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { disposeOnClock, inlineExtensionFactory, type RecordingFactory, settleMicrotasks } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let clock: SimulatedClock;
let rec: RecordingFactory;
/** What the extension saw, in order (the listener's calls go in here too, to show the order). */
let seen: string[];
/** Set by a test: the next agent_end handler never returns (the aborted run never settles)… */
let hangOnAgentEnd: boolean;
/** …unless the test calls this. */
let endHang: (() => void) | undefined;

function extension(pi: ExtensionAPI) {
	pi.on("agent_end", async () => {
		if (!hangOnAgentEnd) return;
		hangOnAgentEnd = false;
		seen.push("agent_end hangs");
		await new Promise<void>((resolve) => (endHang = resolve));
	});
	pi.on("session_shutdown", (event) => void seen.push(`session_shutdown ${event.reason}`));
}

async function start(settleTimeoutMs?: number): Promise<{ r: AgentSessionRuntime; timedOut: SettleTimedOutEvent[] }> {
	t.runtime = await createAgentSessionRuntime(rec.factory, {
		cwd: t.ws.alpha,
		agentDir: t.ws.agentDir,
		sessionManager: SessionManager.create(t.ws.alpha, t.ws.sessionDir(t.ws.alpha)),
		...(settleTimeoutMs !== undefined ? { settleTimeoutMs } : {}),
	});
	t.runtime.setRebindSession((session) => session.bindExtensions());
	await t.runtime.session.bindExtensions();
	const timedOut: SettleTimedOutEvent[] = [];
	const r = t.runtime;
	r.onSettleTimedOut((event) => {
		timedOut.push(event);
		seen.push(`settle timed out (current: ${r.session === event.session})`);
	});
	return { r, timedOut };
}

/** Starts a run whose agent_end handler never returns; resolves once it hangs there, with the prompt's outcome. */
async function hangingRun(r: AgentSessionRuntime): Promise<{ outcome: Promise<unknown> }> {
	hangOnAgentEnd = true;
	t.faux.setResponses([fauxAssistantMessage("answer")]);
	const running = r.session.prompt("hello").catch((error: unknown) => error);
	await settleMicrotasks();
	expect(seen).toContain("agent_end hangs");
	return { outcome: running };
}

beforeEach(() => {
	clock = new SimulatedClock();
	clock.set(0);
	rec = inlineExtensionFactory(t.faux, extension, clock);
	seen = [];
	hangOnAgentEnd = false;
	endHang = undefined;
});

afterEach(async () => {
	// On the simulated clock, before useRuntimeWorkspace's teardown removes the workspace.
	await disposeOnClock(t.runtime, clock);
	t.runtime = undefined;
});

describe("createAgentSessionRuntime({ settleTimeoutMs }) and runtime.onSettleTimedOut", () => {
	it("a configured bound: newSession() waits settleTimeoutMs for the hung run, then tells the listeners (old session still current) before session_shutdown", async () => {
		const { r, timedOut } = await start(500);
		const old = r.session;
		const running = await hangingRun(r);
		const replacing = r.newSession();
		await settleMicrotasks();
		expect(r.lifecycle).toBe("settlingCurrent");
		clock.increment(499);
		await settleMicrotasks();
		expect(r.lifecycle).toBe("settlingCurrent");
		expect(timedOut).toEqual([]);
		clock.increment(1);
		expect(await replacing).toEqual({ cancelled: false });
		expect(timedOut).toEqual([{ session: old, reason: "new", timeoutMs: 500 }]);
		expect(seen).toEqual(["agent_end hangs", "settle timed out (current: true)", "session_shutdown new"]);
		expect(r.session).not.toBe(old);
		expect(await running.outcome).toMatchObject({ code: "SESSION_CLOSED" });
	});

	it("the default bound is 2 s, on dispose too (reason quit)", async () => {
		const { r, timedOut } = await start();
		const old = r.session;
		const running = await hangingRun(r);
		const disposing = r.dispose();
		await settleMicrotasks();
		clock.increment(1_999);
		await settleMicrotasks();
		expect(timedOut).toEqual([]);
		expect(r.lifecycle).toBe("settlingCurrent");
		clock.increment(1);
		await disposing;
		expect(timedOut).toEqual([{ session: old, reason: "quit", timeoutMs: 2_000 }]);
		expect(seen).toEqual(["agent_end hangs", "settle timed out (current: true)", "session_shutdown quit"]);
		expect(await running.outcome).toMatchObject({ code: "SESSION_CLOSED" });
	});

	it("a run that settles in time, or none at all, is not reported; an unsubscribed listener hears nothing", async () => {
		const { r, timedOut } = await start(500);
		t.faux.setResponses([fauxAssistantMessage("answer")]);
		await r.session.prompt("hello");
		await r.newSession();
		expect(timedOut).toEqual([]);
		const late: SettleTimedOutEvent[] = [];
		const off = r.onSettleTimedOut((event) => void late.push(event));
		off();
		await hangingRun(r);
		const replacing = r.newSession();
		await settleMicrotasks();
		clock.increment(500);
		await replacing;
		expect(timedOut).toHaveLength(1);
		expect(late).toEqual([]);
	});

	it("settleTimeoutMs: 0 does not wait for the run: the listeners hear it as soon as the teardown starts", async () => {
		const { r, timedOut } = await start(0);
		const old = r.session;
		await hangingRun(r);
		const replacing = r.newSession();
		await settleMicrotasks();
		clock.increment(0);
		await replacing;
		expect(timedOut).toEqual([{ session: old, reason: "new", timeoutMs: 0 }]);
	});

	it("settleTimeoutMs: Infinity was refused while shutdownTimeoutMs: Infinity is taken — now it waits as long as the run takes, past the longest timer, and nothing is reported", async () => {
		const { r, timedOut } = await start(Number.POSITIVE_INFINITY);
		await hangingRun(r);
		let replaced = false;
		const replacing = r.newSession().then(() => (replaced = true));
		await settleMicrotasks();
		// 30 days: past the longest delay a timer can take (2^31 - 1 ms, the one scheduled for Infinity).
		clock.increment(30 * 24 * 3_600_000);
		await settleMicrotasks();
		expect(r.lifecycle).toBe("settlingCurrent");
		expect(replaced).toBe(false);
		expect(seen).not.toContain("session_shutdown new");
		endHang?.();
		await replacing;
		expect(timedOut).toEqual([]);
		expect(seen).toEqual(["agent_end hangs", "session_shutdown new"]);
	});

	for (const invalid of [-1, Number.NaN, "500" as unknown as number]) {
		it(`settleTimeoutMs ${String(invalid)} is refused with INVALID_ARGUMENT before any session is built, and the session file is released`, async () => {
			const sessionManager = SessionManager.create(t.ws.alpha, t.ws.sessionDir(t.ws.alpha));
			const refused = await createAgentSessionRuntime(rec.factory, {
				cwd: t.ws.alpha,
				agentDir: t.ws.agentDir,
				sessionManager,
				settleTimeoutMs: invalid,
			}).catch((error: unknown) => error);
			expect(refused).toBeInstanceOf(SettleError);
			expect(refused).toMatchObject({ code: "INVALID_ARGUMENT", message: invalidSettleTimeout(invalid) });
			expect((refused as SettleError).message).toContain(
				"settleTimeoutMs must be a number of milliseconds ≥ 0, or Infinity",
			);
			expect(rec.built).toHaveLength(0);
			expect(sessionManager.isClosed()).toBe(true);
		});
	}
});
