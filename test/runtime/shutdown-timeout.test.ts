/**
 * pi#9811: `/reload` (and a session switch / new / fork, and dispose) hung forever when an
 * extension's `session_shutdown` handler never returned. Settle waits for the handlers at most
 * `shutdownTimeoutMs` (default 10 s, on the session's clock: a SimulatedClock here), reports each
 * handler still running through the extension error path naming its extension, and goes on.
 * `Infinity` keeps pi's wait-forever.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import type { ExtensionAPI, ExtensionError } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { type AgentSessionRuntime, createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { fauxModelRuntime, type RecordingFactory, recordingFactory } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let clock: SimulatedClock;
/** What the hanging extension saw, in order. */
let seen: string[];
/** Released by a test that lets the stuck handler finish late. */
let release: () => void;

/** Set by a test: the next agent_end handler waits forever (the aborted run never settles). */
let hangOnAgentEnd = false;

/** An extension whose session_shutdown handler waits until the test releases it (never, by default). */
function stuckOnShutdown(pi: ExtensionAPI) {
	pi.on("session_start", (event) => void seen.push(`session_start ${event.reason}`));
	pi.on("agent_end", async () => {
		if (!hangOnAgentEnd) return;
		seen.push("agent_end hangs");
		await new Promise<void>(() => {});
	});
	pi.on("session_shutdown", async (event) => {
		seen.push(`session_shutdown ${event.reason}`);
		await new Promise<void>((resolve) => (release = resolve));
		seen.push("session_shutdown returned");
	});
}

function factory(shutdownTimeoutMs?: number): RecordingFactory {
	return recordingFactory({
		modelRuntime: () => fauxModelRuntime(t.faux),
		clock,
		...(shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs } : {}),
		resourceLoaderOptions: { extensionFactories: [stuckOnShutdown], noExtensions: true },
	});
}

async function start(shutdownTimeoutMs?: number) {
	const errors: ExtensionError[] = [];
	t.runtime = await createAgentSessionRuntime(factory(shutdownTimeoutMs).factory, {
		cwd: t.ws.alpha,
		agentDir: t.ws.agentDir,
		sessionManager: SessionManager.create(t.ws.alpha, t.ws.sessionDir(t.ws.alpha)),
	});
	const bind = (session: AgentSession) => session.bindExtensions({ onError: (error) => void errors.push(error) });
	t.runtime.setRebindSession(bind);
	await bind(t.runtime.session);
	return { r: t.runtime, errors };
}
type AgentSession = AgentSessionRuntime["session"];

/** Lets the machine reach the state the stuck handler holds it in (no time passes). */
async function settleMicrotasks(rounds = 20): Promise<void> {
	for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

beforeEach(() => {
	clock = new SimulatedClock();
	clock.set(0);
	seen = [];
	hangOnAgentEnd = false;
});

afterEach(async () => {
	// A stuck handler of the current session holds this dispose too: let each one go.
	let disposed = false;
	const disposing = t.runtime?.dispose().then(() => (disposed = true));
	for (let i = 0; disposing && !disposed && i < 20; i++) {
		release?.();
		clock.increment(60_000);
		await settleMicrotasks();
	}
	await disposing;
	// useRuntimeWorkspace's teardown then removes the workspace.
	t.runtime = undefined;
});

describe("pi#9811: a session_shutdown handler that never returns", () => {
	it("runtime.newSession() waits 10 s, reports the handler naming its extension, and installs the new session", async () => {
		const { r, errors } = await start();
		const old = r.session;
		let done = false;
		const replacing = r.newSession().then((result) => {
			done = true;
			return result;
		});
		await settleMicrotasks();
		expect(r.lifecycle).toBe("shuttingDown");
		clock.increment(9_999);
		await settleMicrotasks();
		expect(done).toBe(false);
		expect(errors).toEqual([]);
		clock.increment(1);
		expect(await replacing).toEqual({ cancelled: false });
		expect(r.session).not.toBe(old);
		expect(old.isDisposed).toBe(true);
		expect(errors).toEqual([
			{
				extensionPath: "<inline:1>",
				event: "session_shutdown",
				error: expect.stringMatching(
					/^session_shutdown handler did not finish within 10000 ms; the new session went on without it/,
				),
			},
		]);
		expect(seen).toEqual(["session_start startup", "session_shutdown new", "session_start new"]);
		// The new session works.
		t.faux.setResponses([fauxAssistantMessage("fresh")]);
		await r.session.prompt("hello");
		expect(r.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});

	it("runtime.dispose() completes after the bound; the abandoned handler finishing later changes nothing", async () => {
		const { r, errors } = await start(2_000);
		const disposing = r.dispose();
		await settleMicrotasks();
		expect(r.lifecycle).toBe("shuttingDown");
		clock.increment(2_000);
		await disposing;
		expect(r.lifecycle).toBe("disposed");
		expect(errors.map((e) => e.error)).toEqual([expect.stringMatching(/within 2000 ms; the dispose went on/)]);
		release();
		await settleMicrotasks();
		expect(seen).toEqual(["session_start startup", "session_shutdown quit", "session_shutdown returned"]);
		expect(errors).toHaveLength(1);
	});

	it("session.reload() goes on after the bound: the new extensions load and get session_start", async () => {
		const { r, errors } = await start(5_000);
		let reloaded = false;
		const reloading = r.session.reload().then(() => {
			reloaded = true;
		});
		await settleMicrotasks();
		clock.increment(4_999);
		await settleMicrotasks();
		expect(reloaded).toBe(false);
		clock.increment(1);
		await reloading;
		expect(errors.map((e) => [e.event, e.error])).toEqual([
			["session_shutdown", expect.stringMatching(/within 5000 ms; the reload went on without it/)],
		]);
		expect(seen).toEqual(["session_start startup", "session_shutdown reload", "session_start reload"]);
		// A second reload is not held by the first one's abandoned handler: the new one is stuck the same way.
		const again = r.session.reload();
		await settleMicrotasks();
		clock.increment(5_000);
		await again;
		expect(errors).toHaveLength(2);
	});

	it("a prompt sent during a reload held by the stuck handler waits for the bound, then runs once on the reloaded session", async () => {
		const { r } = await start(5_000);
		t.faux.setResponses([fauxAssistantMessage("after the reload")]);
		const reloading = r.session.reload();
		let prompted = false;
		const prompting = r.session.prompt("hello").then(() => {
			prompted = true;
		});
		await settleMicrotasks();
		clock.increment(4_999);
		await settleMicrotasks();
		expect(prompted).toBe(false);
		expect(t.faux.requests).toHaveLength(0);
		clock.increment(1);
		await reloading;
		await prompting;
		expect(seen).toEqual(["session_start startup", "session_shutdown reload", "session_start reload"]);
		expect(t.faux.requests).toHaveLength(1);
	});

	it("disposing the session refuses a prompt held by a stuck reload at once (SESSION_CLOSED), without waiting for the bound", async () => {
		const { r } = await start(5_000);
		const session = r.session;
		const reloading = session.reload().catch((error: unknown) => error);
		const prompting = session.prompt("hello").catch((error: unknown) => error);
		await settleMicrotasks();
		session.dispose();
		expect(await prompting).toMatchObject({ code: "SESSION_CLOSED" });
		expect(t.faux.requests).toHaveLength(0);
		// The reload in progress ends at the bound, cut off there: nothing is loaded for the disposed session.
		clock.increment(5_000);
		expect(await reloading).toMatchObject({ code: "SESSION_CLOSED" });
		expect(seen).toEqual(["session_start startup", "session_shutdown reload"]);
	});

	it("a handler that returns in time is not reported and leaves no timer behind", async () => {
		const { r, errors } = await start();
		const reloading = r.session.reload();
		await settleMicrotasks();
		release();
		await reloading;
		clock.increment(60_000);
		await settleMicrotasks();
		expect(errors).toEqual([]);
		expect(seen).toEqual([
			"session_start startup",
			"session_shutdown reload",
			"session_shutdown returned",
			"session_start reload",
		]);
	});

	it("shutdownTimeoutMs: Infinity waits as long as the handler takes (pi's behavior)", async () => {
		const { r, errors } = await start(Number.POSITIVE_INFINITY);
		let done = false;
		const replacing = r.newSession().then(() => {
			done = true;
		});
		await settleMicrotasks();
		clock.increment(24 * 3_600_000);
		await settleMicrotasks();
		expect(done).toBe(false);
		expect(r.lifecycle).toBe("shuttingDown");
		release();
		await replacing;
		expect(errors).toEqual([]);
	});

	it("a shutdownTimeoutMs that is not a duration is refused with INVALID_ARGUMENT saying what to pass", async () => {
		for (const bad of [-1, Number.NaN]) {
			await expect(
				createAgentSession({
					cwd: t.ws.alpha,
					agentDir: t.ws.agentDir,
					sessionManager: SessionManager.inMemory(t.ws.alpha),
					modelRuntime: fauxModelRuntime(t.faux),
					shutdownTimeoutMs: bad,
				}),
			).rejects.toMatchObject({
				code: "INVALID_ARGUMENT",
				message: expect.stringContaining("shutdownTimeoutMs must be a number of milliseconds ≥ 0, or Infinity"),
			});
		}
	});
});

describe("pi-desktop#46 then pi#9811: the old run's settle and the session_shutdown handlers are two bounds, one after the other", () => {
	it("a run that never settles holds the switch 2 s (settlingCurrent), then the handlers get their own full shutdownTimeoutMs", async () => {
		const { r, errors } = await start(10_000);
		const old = r.session;
		hangOnAgentEnd = true;
		t.faux.setResponses([fauxAssistantMessage("answer")]);
		const running = old.prompt("hello").catch((error: unknown) => error);
		await settleMicrotasks();
		expect(seen).toContain("agent_end hangs");
		let done = false;
		const replacing = r.newSession().then(() => {
			done = true;
		});
		await settleMicrotasks();
		expect(r.lifecycle).toBe("settlingCurrent");
		clock.increment(1_999);
		await settleMicrotasks();
		expect(r.lifecycle).toBe("settlingCurrent");
		expect(seen).not.toContain("session_shutdown new");
		clock.increment(1);
		await settleMicrotasks();
		expect(r.lifecycle).toBe("shuttingDown");
		expect(seen).toContain("session_shutdown new");
		// The handlers' 10 s start now: the run's 2 s did not eat into them.
		clock.increment(9_999);
		await settleMicrotasks();
		expect(done).toBe(false);
		expect(r.lifecycle).toBe("shuttingDown");
		clock.increment(1);
		await replacing;
		expect(old.isDisposed).toBe(true);
		expect(errors.map((e) => e.error)).toEqual([expect.stringMatching(/within 10000 ms; the new session went on/)]);
		// The torn-down run's prompt is refused with a typed error, never left pending.
		expect(await running).toMatchObject({ code: "SESSION_CLOSED" });
	});
});
