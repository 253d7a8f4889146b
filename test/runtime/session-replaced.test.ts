/**
 * `runtime.onSessionReplaced(listener)`: the public hook for session replacement, through the
 * public API on real session files — which calls fire it (new, switch, fork, clone, import), with
 * what, when (after the host's rebind, before withSession and before the call resolves), and which
 * do not (cancelled, failed, rolled back); listener errors; unsubscribing. Also `runtime.trace()`.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import type { StateChangeEvent } from "../../src/inspect/lifecycle-inspector.js";
import { formatLifecycleEvent, formatTrace } from "../../src/inspect/trace.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime, SessionReplacedEvent } from "../../src/runtime/runtime.js";
import {
	assertUsable,
	fauxModelRuntime,
	loggingFactory,
	REPLACEMENT_STATES,
	type RecordingFactory,
	recordingFactory,
	startRuntime,
	userEntryId,
	writeClosedSession,
} from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let log: string[];
let rec: RecordingFactory;

function setup(extra: ((pi: ExtensionAPI) => void)[] = []) {
	rec = loggingFactory(t.faux, log, extra);
}

async function start(cwd = t.ws.alpha): Promise<AgentSessionRuntime> {
	t.runtime = await startRuntime(rec.factory, t.ws, cwd);
	return t.runtime;
}

function writeSession(cwd: string, text: string): Promise<string> {
	return writeClosedSession(rec, t.ws, t.faux, log, cwd, text);
}

async function say(r: AgentSessionRuntime, text: string): Promise<void> {
	t.faux.setResponses([fauxAssistantMessage(`answer to ${text}`)]);
	await r.session.prompt(text);
}

beforeEach(() => {
	log = [];
	setup();
});

describe("onSessionReplaced", () => {
	it("new, fork, clone, switch, import: once each, in order, with the previous and the new session and the reason", async () => {
		const target = await writeSession(t.ws.beta, "beta work");
		const r = await start();
		await say(r, "first");
		await say(r, "second");
		const seen: (SessionReplacedEvent & { current: unknown; previousFile: string | undefined })[] = [];
		r.onSessionReplaced((event) =>
			seen.push({ ...event, current: r.session, previousFile: event.previous.sessionFile }),
		);
		const sessions = [r.session];

		await r.newSession();
		sessions.push(r.session);
		await say(r, "third");
		expect((await r.fork(userEntryId(r.session, "third"))).selectedText).toBe("third");
		sessions.push(r.session);
		await say(r, "fourth");
		// pi's /clone and RPC `clone`: a fork of the current leaf, at it.
		await r.fork(r.session.sessionManager.getLeafId()!, { position: "at" });
		sessions.push(r.session);
		// A fork "at" another entry than the leaf is a fork, not a clone.
		await r.fork(userEntryId(r.session, "fourth"), { position: "at" });
		sessions.push(r.session);
		await r.switchSession(target);
		sessions.push(r.session);
		expect(r.cwd).toBe(t.ws.beta);
		await r.importFromJsonl(target);
		sessions.push(r.session);

		expect(seen.map((event) => event.reason)).toEqual(["new", "fork", "clone", "fork", "switch", "import"]);
		seen.forEach((event, i) => {
			expect(event.previous).toBe(sessions[i]);
			expect(event.session).toBe(sessions[i + 1]);
			// Delivered with the new session already in the slot.
			expect(event.current).toBe(event.session);
			expect(event.session).not.toBe(event.previous);
		});
		expect(seen[0]?.previousFile).toBe(sessions[0]?.sessionFile);
		expect(new Set(sessions).size).toBe(sessions.length);
		await assertUsable(r.session, t.faux);
	});

	it("the previous session, replaced mid-prompt, is disposed and no longer streaming", async () => {
		const r = await start();
		await say(r, "first");
		const previous = r.session;
		let seen: { isDisposed: boolean; isStreaming: boolean; isIdle: boolean } | undefined;
		r.onSessionReplaced((event) => {
			seen = {
				isDisposed: event.previous.isDisposed,
				isStreaming: event.previous.isStreaming,
				isIdle: event.previous.isIdle,
			};
		});
		t.faux.setResponses([fauxAssistantMessage("never sent")]);
		const started = new Promise<void>((resolve) => previous.subscribe((e) => e.type === "agent_start" && resolve()));
		const prompt = previous.prompt("second");
		await started;
		expect(previous.isStreaming).toBe(true);
		await r.newSession();
		await expect(prompt).rejects.toMatchObject({ code: "SESSION_CLOSED" });
		expect(seen).toEqual({ isDisposed: true, isStreaming: false, isIdle: true });
		expect(r.session.isDisposed).toBe(false);
	});

	it("comes after the host's rebind (session_start delivered) and before withSession and the call's result", async () => {
		const r = await start();
		await say(r, "first");
		r.setRebindSession(async (session) => {
			log.push("host rebind");
			await session.bindExtensions();
		});
		let answered: Promise<void> | undefined;
		r.onSessionReplaced(({ session, previous, reason }) => {
			log.push(`replaced ${reason}`);
			expect(previous.messages.length).toBeGreaterThan(0);
			// The new session is usable from inside the listener: a prompt started here is answered.
			t.faux.setResponses([fauxAssistantMessage("from the listener")]);
			answered = session.prompt("prompted by the listener");
		});
		log.length = 0;
		await r.newSession({ withSession: async () => void log.push("withSession") }).then(() => log.push("resolved"));
		expect(log).toEqual([
			"#1 session_before_switch new target=-",
			expect.stringMatching(/^#1 session_shutdown new target=/),
			"host rebind",
			expect.stringMatching(/^#2 session_start new prev=/),
			"replaced new",
			"withSession",
			"resolved",
		]);
		await answered;
		expect(r.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "from the listener" }] });
	});

	it("a throwing (or rejecting) listener is skipped: the switch completes and later listeners are called", async () => {
		const target = await writeSession(t.ws.beta, "beta work");
		const r = await start();
		const calls: string[] = [];
		r.onSessionReplaced(() => {
			calls.push("throws");
			throw new Error("listener bug");
		});
		r.onSessionReplaced(async () => {
			calls.push("rejects");
			throw new Error("async listener bug");
		});
		r.onSessionReplaced(({ reason }) => calls.push(`after ${reason}`));
		expect(await r.switchSession(target)).toEqual({ cancelled: false });
		expect(calls).toEqual(["throws", "rejects", "after switch"]);
		expect(r.cwd).toBe(t.ws.beta);
		expect(r.lifecycle).toBe("active");
		await assertUsable(r.session, t.faux);
		expect(await r.newSession()).toEqual({ cancelled: false });
		expect(calls).toHaveLength(6);
	});

	it("unsubscribe stops the calls (twice is harmless; the others go on)", async () => {
		const r = await start();
		const first: string[] = [];
		const second: string[] = [];
		const off = r.onSessionReplaced(({ reason }) => first.push(reason));
		r.onSessionReplaced(({ reason }) => second.push(reason));
		await r.newSession();
		off();
		off();
		await r.newSession();
		expect(first).toEqual(["new"]);
		expect(second).toEqual(["new", "new"]);
	});

	it("a listener that unsubscribes itself during the call is called once", async () => {
		const r = await start();
		const calls: string[] = [];
		const off = r.onSessionReplaced(({ reason }) => {
			calls.push(reason);
			off();
		});
		await r.newSession();
		await r.newSession();
		expect(calls).toEqual(["new"]);
	});

	it("nothing for a cancelled switch or fork (session_before_switch / session_before_fork cancel)", async () => {
		setup([
			(pi) => pi.on("session_before_switch", () => ({ cancel: true })),
			(pi) => pi.on("session_before_fork", () => ({ cancel: true })),
		]);
		const target = await writeSession(t.ws.beta, "beta work");
		const r = await start();
		await say(r, "first");
		const before = r.session;
		const seen: string[] = [];
		r.onSessionReplaced(({ reason }) => seen.push(reason));
		expect(await r.newSession()).toEqual({ cancelled: true });
		expect(await r.switchSession(target)).toEqual({ cancelled: true });
		expect(await r.fork(userEntryId(r.session, "first"))).toEqual({ cancelled: true });
		expect(seen).toEqual([]);
		expect(r.session).toBe(before);
	});

	it("nothing for a replacement that fails before the commit or rolls back; the old session stays current", async () => {
		const r = await start();
		const before = r.session;
		const seen: string[] = [];
		r.onSessionReplaced(({ reason }) => seen.push(reason));
		rec.failNext(new Error("factory failed"));
		await expect(r.newSession()).rejects.toThrow("factory failed");
		await expect(r.fork("no-such-entry")).rejects.toThrow();
		// The host's beforeSessionInvalidate throws after session_shutdown: rolled back.
		r.setBeforeSessionInvalidate(() => {
			throw new Error("invalidate failed");
		});
		await expect(r.newSession()).rejects.toThrow("invalidate failed");
		expect(seen).toEqual([]);
		expect(r.session).toBe(before);
		await assertUsable(r.session, t.faux);
		r.setBeforeSessionInvalidate(undefined);
		await r.newSession();
		expect(seen).toEqual(["new"]);
	});

	it("still called when the host's rebind fails after the commit (the call rejects, the new session is current)", async () => {
		const r = await start();
		const old = r.session;
		const seen: SessionReplacedEvent[] = [];
		r.onSessionReplaced((event) => seen.push(event));
		r.setRebindSession(() => {
			throw new Error("rebind failed");
		});
		await expect(r.newSession()).rejects.toThrow("rebind failed");
		expect(seen).toHaveLength(1);
		expect(seen[0]?.previous).toBe(old);
		expect(seen[0]?.session).toBe(r.session);
	});
});

describe("runtime.trace()", () => {
	it("records the runtime machine's switch interleaved with each session's operations", async () => {
		const r = await start();
		const trace = r.trace();
		await say(r, "first");
		await r.newSession();
		await say(r, "second");
		trace.stop();
		const recorded = trace.toJSON();
		expect(recorded.machines).toEqual(["runtime", "promptOperation"]);
		const line = recorded.events.map((event) =>
			event.kind === "state"
				? `${event.machine} ${event.to}`
				: event.kind === "event"
					? `${event.machine} ${event.type}`
					: "",
		);
		const prompts = line.flatMap((text, i) => (text === "promptOperation PROMPT" ? [i] : []));
		const newRequest = line.indexOf("runtime NEW");
		const rebinding = line.indexOf("runtime rebinding");
		const backToActive = line.indexOf("runtime active", rebinding);
		const secondAttach = recorded.events.findIndex(
			(event, i) => i > 1 && event.kind === "state" && event.machine === "promptOperation" && event.from === null,
		);
		expect(prompts).toHaveLength(2);
		expect(prompts[0]).toBeLessThan(newRequest);
		expect(newRequest).toBeLessThan(rebinding);
		expect(rebinding).toBeLessThan(secondAttach);
		expect(secondAttach).toBeLessThan(backToActive);
		expect(backToActive).toBeLessThan(prompts[1]!);
		const runtimePath = recorded.events
			.filter((event): event is StateChangeEvent => event.kind === "state" && event.machine === "runtime")
			.map((event) => event.to);
		expect(runtimePath).toEqual(REPLACEMENT_STATES);
		// Stopped: nothing more is recorded.
		const count = trace.events.length;
		await r.newSession();
		expect(trace.events).toHaveLength(count);
	});

	it("records what the new session runs while the host's rebind starts it (session_start), not only from the rebind's end on", async () => {
		const r = await start();
		// A host (or a session_start handler) that prompts the new session as it binds it.
		r.setRebindSession(async (session) => {
			await session.bindExtensions();
			t.faux.setResponses([fauxAssistantMessage("hello")]);
			await session.prompt("greet");
		});
		const trace = r.trace();
		await r.newSession();
		trace.stop();
		const line = trace
			.toJSON()
			.events.map((event) =>
				event.kind === "state"
					? `${event.machine} ${event.to}`
					: event.kind === "event"
						? `${event.machine} ${event.type}`
						: "",
			);
		const rebinding = line.indexOf("runtime rebinding");
		const prompt = line.indexOf("promptOperation PROMPT", rebinding);
		expect(rebinding).toBeGreaterThan(-1);
		expect(prompt).toBeGreaterThan(rebinding);
		// The whole operation is there, up to its settling, before the runtime is back to active.
		expect(line.indexOf("promptOperation settling", prompt)).toBeGreaterThan(prompt);
		expect(line.indexOf("runtime active", prompt)).toBeGreaterThan(line.indexOf("promptOperation settling", prompt));
		expect(r.session.messages.map((message) => message.role)).toContain("assistant");
	});

	it("/new while a retry waits (simulated clock): one timeline, and the old session's backoff ends visibly", async () => {
		const clock = new SimulatedClock();
		clock.set(0);
		rec = recordingFactory({ modelRuntime: () => fauxModelRuntime(t.faux), clock });
		const r = await start();
		const trace = r.trace();
		t.faux.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "529 overloaded_error" })]);
		const first = r.session;
		const prompt = first.prompt("hi");
		await new Promise<void>((resolve) => {
			const off = first.subscribe((event) => {
				if (event.type === "auto_retry_start") resolve(off());
			});
		});
		clock.increment(500); // part of the 2 s backoff
		await r.newSession();
		await expect(prompt).rejects.toMatchObject({ code: "SESSION_CLOSED" });
		trace.stop();
		const events = trace.toJSON().events;
		// The runtime's steps are timed on the sessions' clock: no time runs backwards in the trace.
		const times = events.map((event) => event.at);
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expect(formatTrace(trace)).not.toMatch(/\+-/);
		expect(events.find((event) => event.machine === "runtime" && event.kind === "event")).toMatchObject({
			type: "NEW",
			at: 500,
		});
		// The replaced session's last words: the runtime aborts the backoff, the operation settles
		// (auto_retry_end, operation_settled: its host hears the end), then the actor stops, idle.
		const lines = events.filter((event) => event.machine === "promptOperation").map((e) => formatLifecycleEvent(e));
		const scheduled = lines.findIndex((line) => /delay {3}retryDelay 2000ms scheduled in retrying/.test(line));
		const stopped = lines.findIndex((line) => line.includes("promptOperation stopped"));
		expect(lines.slice(scheduled + 1, stopped + 1)).toEqual([
			// The failed attempt leaves the context as the backoff starts.
			expect.stringMatching(/^\+0ms {5}event {3}ENTRY_WRITTEN context_edit \w+ \(omits \w+\)$/),
			"+500ms   event   ABORT",
			"+500ms   delay   retryDelay cancelled in retrying",
			"+500ms   state   retrying → settling (ABORT) abort requested",
			"+500ms   emit    auto_retry_end failed on attempt 1: Retry cancelled",
			expect.stringMatching(/^\+500ms {3}emit {4}settle_requested .*"aborted":true/),
			"+500ms   event   SETTLE_DONE",
			"+500ms   state   settling → idle (SETTLE_DONE)",
			expect.stringMatching(/^\+500ms {3}emit {4}operation_settled .*"aborted":true/),
			"+500ms   actor   promptOperation stopped in idle (the actor itself)",
		]);
		const stop = events.find((event) => event.kind === "actor" && event.root);
		expect(stop).toMatchObject({ machine: "promptOperation", phase: "stopped", state: "idle" });
		expect(events.indexOf(stop!)).toBeLessThan(
			events.findIndex((event) => event.machine === "runtime" && event.kind === "state" && event.to === "rebinding"),
		);
	});
});
