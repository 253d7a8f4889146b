import { describe, expect, it } from "vitest";
import { createActor, createMachine, fromPromise, SimulatedClock } from "xstate";
import {
	createLifecycleInspector,
	inspectActor,
	type LifecycleInspectionEvent,
	type StateChangeEvent,
	toJsonValue,
} from "../../src/inspect/lifecycle-inspector.js";
import { createTraceRecorder, formatLifecycleEvent, formatTrace } from "../../src/inspect/trace.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness } from "../../src/testing/harness.js";
import { flush, outcome, overflowError, promptHarness, retryable, runtimeHarness } from "../machines/harness.js";
import { sampleMachine } from "./sample-machine.js";

const states = (events: LifecycleInspectionEvent[]) => events.filter((e): e is StateChangeEvent => e.kind === "state");

describe("lifecycle inspection of the prompt-operation machine", () => {
	it("makes a retried-then-compacted request readable from the stream alone", async () => {
		const h = promptHarness();
		const recorder = createTraceRecorder();
		inspectActor(h.actor, recorder.observer, { now: () => h.clock.now() });
		await h.send({ type: "PROMPT", request: { requestId: "r1" } });
		await h.resolve("preflight", { disposition: "started" });
		await h.resolve("run", retryable("503 Service Unavailable"));
		await h.advance(2000);
		await h.resolve("run", overflowError());
		await h.resolve("compaction", { compacted: true, continue: false });
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: false });
		await h.resolve("settle");

		const events = recorder.events;
		expect(states(events).map((e) => `${e.to} (${e.trigger})`)).toEqual([
			"idle (inspect)",
			"preflight (PROMPT)",
			"running.working (PREFLIGHT_DONE)",
			"postRun (RUN_DONE)",
			"retrying (always)",
			"running.working (after retryDelay)",
			"postRun (RUN_DONE)",
			"compacting.working (always)",
			"running.working (done(compaction))",
			"postRun (RUN_DONE)",
			"beforeSettle.working (always)",
			"settling (BEFORE_SETTLE_DONE)",
			"idle (SETTLE_DONE)",
		]);
		// Which decision sent the machine each way: the transition's source, rank and guard, as the diagram labels it.
		expect(states(events)[0]?.transition).toBeUndefined();
		expect(states(events).find((e) => e.to === "postRun")?.transition).toEqual({ source: "running" });
		expect(
			states(events)
				.filter((e) => e.from === "postRun")
				.map((e) => [e.to, e.transition]),
		).toEqual([
			["retrying", { source: "postRun", priority: 2, guard: "canRetry" }],
			["compacting.working", { source: "postRun", priority: 3, guard: "canRecoverOverflow" }],
			["beforeSettle.working", { source: "postRun", priority: 9 }],
		]);
		expect(states(events).find((e) => e.from === "compacting.working")?.transition).toEqual({
			source: "compacting",
			priority: 3,
			guard: "compactedForRetry",
		});
		const retrying = states(events).find((e) => e.to === "retrying");
		expect(retrying?.details).toMatchObject({ operationId: 1, retryAttempt: 1, maxRetries: 3, retryDelayMs: 2000 });
		expect(retrying?.at).toBe(0);
		const compacting = states(events).find((e) => e.to === "compacting.working");
		expect(compacting?.details).toMatchObject({ compactionReason: "overflow", willRetry: true });
		expect(compacting?.at).toBe(2000);
		expect(
			states(events)
				.filter((e) => e.to === "running.working")
				.map((e) => [e.details.runIndex, e.details.runCause]),
		).toEqual([
			[1, "prompt"],
			[2, "retry"],
			[3, "compaction"],
		]);
		expect(events.filter((e) => e.kind === "delay")).toMatchObject([
			{ phase: "scheduled", delay: "retryDelay", ms: 2000, state: "retrying", at: 0 },
			{ phase: "fired", delay: "retryDelay", state: "retrying", at: 2000 },
		]);
		expect(events.filter((e) => e.kind === "emitted").map((e) => e.type)).toEqual([
			"preflight_requested",
			"preflight_result",
			"operation_started",
			"run_requested",
			"auto_retry_start",
			"run_requested",
			"auto_retry_end",
			"run_requested",
			"before_settle_requested",
			"settle_requested",
			"operation_settled",
		]);
		expect(events.find((e) => e.kind === "emitted" && e.type === "auto_retry_start")).toMatchObject({
			payload: { attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "503 Service Unavailable" },
		});
		expect(
			events.filter((e) => e.kind === "actor" && e.phase === "done").map((e) => (e.kind === "actor" ? e.id : "")),
		).toEqual(["compaction"]);
		// The session's answers to the machine's requests are received events.
		expect(events.filter((e) => e.kind === "event").map((e) => e.type)).toEqual([
			"PROMPT",
			"PREFLIGHT_DONE",
			"RUN_DONE",
			"RUN_DONE",
			"RUN_DONE",
			"BEFORE_SETTLE_DONE",
			"SETTLE_DONE",
		]);
		// Effects of a transition come right after the state change that caused them.
		const retryIndex = events.findIndex((e) => e.kind === "state" && e.to === "retrying");
		expect(events[retryIndex + 1]).toMatchObject({ kind: "emitted", type: "auto_retry_start" });
		expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));

		const text = formatTrace(recorder.toJSON());
		expect(text).toContain("postRun → retrying (always (2) [canRetry]) attempt 1/3, delay 2000ms");
		expect(text).toContain("delay   retryDelay 2000ms scheduled in retrying");
		expect(text).toContain(
			"+2000ms  state   postRun → compacting.working (always (3) [canRecoverOverflow]) reason overflow, willRetry",
		);
		expect(text).toContain("retrying → running.working (after retryDelay) run 2 (retry)");
		// A trace survives JSON.
		expect(JSON.parse(JSON.stringify(recorder))).toEqual(recorder.toJSON());
	});

	it("reports received events with JSON-safe payloads, cancelled timers and aborts", async () => {
		const h = promptHarness();
		const events: LifecycleInspectionEvent[] = [];
		inspectActor(h.actor, (e) => events.push(e));
		await h.send({ type: "PROMPT", request: { requestId: "r1", payload: { onChunk: () => undefined, text: "x" } } });
		await h.resolve("preflight", { disposition: "started" });
		await h.resolve("run", retryable());
		await h.send({ type: "ABORT" });
		expect(events.find((e) => e.kind === "event" && e.type === "PROMPT")).toMatchObject({
			payload: { request: { requestId: "r1", payload: { onChunk: "[function]", text: "x" } } },
		});
		expect(events.filter((e) => e.kind === "delay").map((e) => (e.kind === "delay" ? e.phase : ""))).toEqual([
			"scheduled",
			"cancelled",
		]);
		expect(events.find((e) => e.kind === "event" && e.type === "ABORT")).toBeDefined();
		const abortState = states(events).find((e) => e.to === "settling");
		expect(abortState?.details.abortRequested).toBe(true);
		expect(abortState?.trigger).toBe("ABORT");
		expect(events.some((e) => e.kind === "event" && e.type.startsWith("xstate."))).toBe(false);
	});

	it("reports spawned busy preflights as child actors", async () => {
		const h = promptHarness();
		const events: LifecycleInspectionEvent[] = [];
		inspectActor(h.actor, (e) => events.push(e));
		await h.send({ type: "PROMPT", request: { requestId: "r1" } });
		await h.resolve("preflight", { disposition: "started" });
		await h.send({ type: "PROMPT", request: { requestId: "r2" } });
		await h.resolve("busyPreflight.r2", { disposition: "queued" });
		expect(events.filter((e) => e.kind === "actor" && e.id === "busyPreflight.r2")).toMatchObject([
			{ phase: "invoked", src: "busyPreflight" },
			{ phase: "done", output: { disposition: "queued" } },
		]);
	});

	it("stops reporting after unsubscribe, and a throwing observer never breaks the actor", async () => {
		const h = promptHarness();
		let count = 0;
		const subscription = inspectActor(h.actor, () => {
			count++;
			throw new Error("observer bug");
		});
		await h.send({ type: "PROMPT", request: { requestId: "r1" } });
		expect(h.state()).toBe("preflight");
		expect(count).toBeGreaterThan(1);
		subscription.unsubscribe();
		const before = count;
		await h.resolve("preflight", { disposition: "handled" });
		expect(count).toBe(before);
		expect(h.state()).toBe("idle");
		expect(h.actor.getSnapshot().status).toBe("active");
	});
});

describe("lifecycle inspection of a session disposed mid-operation", () => {
	it("a session disposed during a retry's backoff: its trace ends with the backoff cancelled, then the actor stopped in retrying", async () => {
		// dispose() stops the actor without an ABORT (unlike a runtime's /new): XState cancels no
		// timer then, so only the inspector can say that the backoff will never fire.
		const h = await createHarness({ simulatedClock: true });
		try {
			h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "529 overloaded" })]);
			const trace = h.session.trace();
			const prompt = h.session.prompt("deploy it").catch((error: unknown) => error);
			await h.nextEvent("auto_retry_start");
			h.session.dispose();
			await expect(prompt).resolves.toMatchObject({ code: "SESSION_CLOSED" });
			trace.stop();
			const lines = trace.toJSON().events.map((event) => formatLifecycleEvent(event));
			const scheduled = lines.findIndex((line) => /delay {3}retryDelay 2000ms scheduled in retrying/.test(line));
			expect(scheduled).toBeGreaterThanOrEqual(0);
			expect(lines.slice(scheduled + 1).filter((line) => !/ENTRY_WRITTEN/.test(line))).toEqual([
				"+0ms     delay   retryDelay cancelled in retrying",
				"+0ms     actor   promptOperation stopped in retrying (the actor itself)",
			]);
		} finally {
			await h.cleanup();
		}
	});

	it("a session disposed while it compacts: its trace ends with the compaction stopped, then the actor stopped in compacting.working", async () => {
		const h = await createHarness({
			simulatedClock: true,
			settings: { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 } },
		});
		try {
			h.setResponses([fauxAssistantMessage("The build uses esbuild.")]);
			await h.session.prompt("What does the build use?");
			let summaryRequested!: () => void;
			const summarizing = new Promise<void>((resolve) => {
				summaryRequested = resolve;
			});
			// The summary request never answers until the session has gone.
			let answer!: (message: ReturnType<typeof fauxAssistantMessage>) => void;
			h.setResponses([
				() => {
					summaryRequested();
					return new Promise((resolve) => {
						answer = resolve;
					});
				},
			]);
			const trace = h.session.trace();
			const compaction = h.session.compact().catch((error: unknown) => error);
			await summarizing;
			h.session.dispose();
			answer(fauxAssistantMessage("## Goal\nsummary"));
			await expect(compaction).resolves.toMatchObject({ code: "SESSION_CLOSED" });
			trace.stop();
			const lines = trace.toJSON().events.map((event) => formatLifecycleEvent(event));
			// Each once: XState's stop of the root reports the child's stop, the inspector the root's.
			expect(lines).toEqual([
				"+0ms     state   ∅ → idle (inspect)",
				'+0ms     event   COMPACT {"requestId":"c2"}',
				"+0ms     state   idle → compacting.working (COMPACT (1) [noTreeNavigationInFlight]) reason manual",
				"+0ms     actor   compaction invoked",
				"+0ms     actor   compaction stopped",
				"+0ms     actor   promptOperation stopped in compacting.working (the actor itself)",
			]);
		} finally {
			await h.cleanup();
		}
	});
});

describe("lifecycle inspection of other machines", () => {
	it("works as the inspect option of createActor, from the initial state", async () => {
		const clock = new SimulatedClock();
		const events: LifecycleInspectionEvent[] = [];
		const actor = createActor(sampleMachine, { clock, inspect: createLifecycleInspector((e) => events.push(e)) });
		actor.start();
		actor.send({ type: "GO" });
		await flush();
		clock.increment(500);
		actor.send({ type: "STOP" });
		expect(states(events).map((e) => [e.from, e.to, e.trigger])).toEqual([
			[null, "off", "start"],
			["off", "on.warming", "GO"],
			["on.warming", "on.hot", "after wait"],
			["on.hot", "off", "STOP"],
		]);
		expect(states(events)[1]?.entered).toEqual(["on", "on.warming"]);
		expect(states(events)[3]?.exited).toEqual(["on.hot", "on"]);
		expect(events.every((e) => e.machine === "sample")).toBe(true);
		expect(events.filter((e) => e.kind === "actor")).toMatchObject([
			{ phase: "invoked", id: "warmer", src: "warmUp" },
			{ phase: "done", id: "warmer", output: "warm" },
		]);
	});

	it("reports an invoked actor stopped before it finished", async () => {
		const events: LifecycleInspectionEvent[] = [];
		const actor = createActor(sampleMachine, { inspect: createLifecycleInspector((e) => events.push(e)) });
		actor.start();
		actor.send({ type: "GO" });
		actor.send({ type: "STOP" }); // before warmUp's promise resolves
		await flush();
		expect(events.filter((e) => e.kind === "actor").map((e) => (e.kind === "actor" ? e.phase : ""))).toEqual([
			"invoked",
			"stopped",
		]);
	});

	it("a root stopped while its invoked machine's own invoked actor runs: the trace says the grandchild stopped once, and the child", async () => {
		// No Settle machine has a grandchild (their children are all promise actors), but the inspector
		// takes any machine; XState reports only the root's own children stopping (xstate.stopChild).
		const never = fromPromise(() => new Promise<never>(() => {}));
		const child = createMachine({
			id: "child",
			initial: "working",
			states: { working: { invoke: { id: "fetch", src: never } } },
		});
		const root = createMachine({
			id: "root",
			initial: "busy",
			states: { busy: { invoke: { id: "worker", src: child } } },
		});
		const events: LifecycleInspectionEvent[] = [];
		const actor = createActor(root, { inspect: createLifecycleInspector((e) => events.push(e)) });
		actor.start();
		await flush();
		actor.stop();
		await flush();
		expect(
			events.flatMap((e) =>
				e.kind === "actor" ? [`${e.phase} ${e.id}${"root" in e && e.root ? " (root)" : ""}`] : [],
			),
		).toEqual(["invoked worker", "invoked fetch", "stopped worker", "stopped fetch", "stopped root (root)"]);
	});

	it("adds the replacement request to runtime state changes", async () => {
		const h = runtimeHarness();
		const events: LifecycleInspectionEvent[] = [];
		inspectActor(h.actor, (e) => events.push(e));
		await h.send({ type: "FORK", requestId: "f1", entryId: "e3" });
		expect(states(events).at(-1)).toMatchObject({
			to: "beforeSwitch",
			machine: "runtime",
			details: { requestId: "f1", kind: "fork" },
		});
		expect(events.find((e) => e.kind === "event")).toMatchObject({
			type: "FORK",
			payload: { requestId: "f1", entryId: "e3" },
		});
	});
});

describe("toJsonValue", () => {
	it("bounds and sanitises anything", () => {
		class Session {}
		const circular: Record<string, unknown> = { name: "loop" };
		circular.self = circular;
		const value = toJsonValue({
			fn: () => 1,
			error: new TypeError("bad"),
			instance: new Session(),
			long: "x".repeat(500),
			list: Array.from({ length: 50 }, (_, i) => i),
			nan: Number.NaN,
			big: 10n,
			missing: undefined,
			circular,
		}) as Record<string, unknown>;
		expect(value.fn).toBe("[function]");
		expect(value.error).toEqual({ name: "TypeError", message: "bad" });
		expect(value.instance).toBe("[Session]");
		expect(value.long).toBe(`${"x".repeat(400)}…(+100)`);
		expect((value.list as unknown[]).length).toBe(41);
		expect((value.list as unknown[])[40]).toBe("…(+10)");
		expect(value.nan).toBe("NaN");
		expect(value.big).toBe("10");
		expect("missing" in value).toBe(false);
		expect(JSON.stringify(value)).toContain("[…]");
	});
});
