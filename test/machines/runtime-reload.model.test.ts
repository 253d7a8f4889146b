/**
 * The reload machine (pi#9811): model-based (every state reachable, idle or the final state reachable
 * from every state, every transition fired on a live actor), the bounded wait a user observes, what
 * happens to prompts and reloads that arrive during a reload, and where a teardown cuts a reload off.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { getShortestPaths } from "xstate/graph";
import { reloadMachine } from "../../machines/runtime-reload.machine.js";
import * as graph from "./graph-harness.js";
import { reloadHarness } from "./harness.js";
import { reloadModel } from "./models.js";

const spec = reloadModel;

describe("reload machine (xstate/graph)", () => {
	let adj: ReturnType<typeof graph.adjacency>;
	beforeAll(() => {
		adj = graph.adjacency(spec);
	});

	it("reaches every state, and the final disposed from every state", () => {
		const reached = new Set(Object.values(adj).map((v) => JSON.stringify(v.state.value)));
		expect([...reached].sort()).toEqual([
			'"disposed"',
			'"idle"',
			'{"reloading":"binding"}',
			'{"reloading":"loading"}',
			'{"reloading":"shuttingDown"}',
			'{"reloading":"starting"}',
		]);
		expect(graph.verticesThatCannotReach(spec, adj, (s) => s.status === "done")).toEqual([]);
		// Every reload comes back to idle (or ends disposed): none can hang the session.
		expect(graph.verticesThatCannotReach(spec, adj, (s) => s.value === "idle" || s.status === "done")).toEqual([]);
	});

	it("shortestPaths from the adjacency map gives xstate/graph's getShortestPaths paths, step for step", () => {
		// The model tests take their paths from the traversal they hold instead of traversing again.
		const theirs = getShortestPaths(spec.machine, {
			input: spec.input,
			events: (s: unknown) => graph.eventsFor(s, spec.events),
			serializeState: spec.serialize,
		} as never) as { state: unknown; steps: { state: { value: unknown }; event: unknown }[] }[];
		const shape = (steps: { state: { value: unknown }; event: unknown }[]) =>
			steps.map((step) => ({ event: step.event, value: step.state.value }));
		const ours = graph.shortestPaths(spec, adj);
		expect([...ours.keys()]).toEqual(theirs.map((path) => spec.serialize(path.state)));
		for (const path of theirs) expect(shape(ours.get(spec.serialize(path.state))!.steps)).toEqual(shape(path.steps));
	});

	it("replaying every edge on a live actor fires every transition, the bounded wait's included", async () => {
		const paths = graph.shortestPaths(spec, adj);
		const fired = new Set<string>();
		for (const [vertex, value] of Object.entries(adj)) {
			const path = paths.get(vertex);
			if (!path) throw new Error(`no path to ${vertex}`);
			for (const { event, state } of Object.values(value.transitions)) {
				const { fired: keys } = await graph.replay(spec, [...path.steps, { event, state }]);
				for (const key of keys) fired.add(key);
			}
		}
		const all = graph.allTransitionKeys(reloadMachine);
		expect(all.some((key) => key.includes("xstate.after.shutdownTimeout"))).toBe(true);
		expect(all.filter((key) => !fired.has(key))).toEqual([]);
	});
});

type H = ReturnType<typeof reloadHarness>;
/** The steps after session_shutdown, in order. */
const REBUILD_STEPS = ["loadExtensions", "bindExtensions", "startExtensions"] as const;
/** Runs the steps after session_shutdown to their end; `failAt` rejects that one instead. */
const rebuild = async (h: H, failAt?: { step: (typeof REBUILD_STEPS)[number]; error: unknown }) => {
	for (const step of REBUILD_STEPS) {
		if (step === failAt?.step) return h.reject(step, failAt.error);
		await h.resolve(step, undefined);
	}
};
const reload = (h: H, requestId: string, busy = false) => h.send({ type: "RELOAD", requestId, busy });
const hold = (h: H, promptId: string) => {
	// The session holds a prompt only where the machine accepts it.
	expect(h.actor.getSnapshot().can({ type: "HOLD_PROMPT", promptId } as never)).toBe(true);
	return h.send({ type: "HOLD_PROMPT", promptId });
};

describe("reload machine: the bounded wait for session_shutdown", () => {
	it("a handler still running at the bound is reported once; the steps after it run and the reload ends reloaded", async () => {
		const h = reloadHarness({ shutdownTimeoutMs: 3_000 });
		await reload(h, "r1");
		await h.advance(2_999);
		expect(h.state()).toBe("reloading.shuttingDown");
		expect(h.fakes.count("loadExtensions")).toBe(0);
		await h.advance(1);
		expect(h.emitted).toEqual([{ type: "shutdown_timed_out", requestId: "r1", timeoutMs: 3_000 }]);
		expect(h.state()).toBe("reloading.loading");
		// The abandoned handler finishing late changes nothing.
		await h.resolve("shutdownExtensions", undefined);
		await rebuild(h);
		expect(h.emittedOf("reload_finished")).toEqual([
			{ type: "reload_finished", requestId: "r1", shutdownTimedOut: true },
		]);
		expect(h.state()).toBe("idle");
	});

	it("handlers that return in time: no report, and a failing step is the reload's error (the steps after it do not run)", async () => {
		const h = reloadHarness();
		await reload(h, "r1");
		await h.resolve("shutdownExtensions", undefined);
		await h.advance(60_000);
		expect(h.emitted).toEqual([]);
		const error = new Error("settings.json is not valid JSON");
		await rebuild(h, { step: "loadExtensions", error });
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("bindExtensions")).toBe(0);
		expect(h.emitted).toEqual([{ type: "reload_finished", requestId: "r1", shutdownTimedOut: false, error }]);
	});

	it("Infinity never times out: the reload waits for the handlers as pi does", async () => {
		const h = reloadHarness({ shutdownTimeoutMs: Number.POSITIVE_INFINITY });
		await reload(h, "r1");
		await h.advance(365 * 24 * 3_600_000);
		expect(h.state()).toBe("reloading.shuttingDown");
		expect(h.emitted).toEqual([]);
		await h.resolve("shutdownExtensions", undefined);
		expect(h.state()).toBe("reloading.loading");
	});
});

describe("reload machine: prompts and reloads that arrive during a reload", () => {
	it("a prompt during a reload is held and released once the reload has reloaded; idle holds nothing", async () => {
		const h = reloadHarness();
		expect(h.actor.getSnapshot().can({ type: "HOLD_PROMPT", promptId: "p0" } as never)).toBe(false);
		await reload(h, "r1");
		await hold(h, "p1");
		await h.resolve("shutdownExtensions", undefined);
		await hold(h, "p2");
		expect(h.emittedOf("prompts_released")).toEqual([]);
		await rebuild(h);
		expect(h.emitted.map((e) => e.type)).toEqual(["reload_finished", "prompts_released"]);
		expect(h.emittedOf("prompts_released")).toEqual([{ type: "prompts_released", promptIds: ["p1", "p2"] }]);
		expect(h.actor.getSnapshot().can({ type: "HOLD_PROMPT", promptId: "p3" } as never)).toBe(false);
	});

	it("a reload that fails refuses the prompts held for it with its error; later prompts are not held", async () => {
		const h = reloadHarness();
		await reload(h, "r1");
		await hold(h, "p1");
		await h.resolve("shutdownExtensions", undefined);
		const error = new Error("beforeSessionStart failed");
		await rebuild(h, { step: "bindExtensions", error });
		expect(h.emittedOf("prompts_refused")).toEqual([
			{ type: "prompts_refused", promptIds: ["p1"], reason: "reload_failed", error },
		]);
		expect(h.emittedOf("prompts_released")).toEqual([]);
		expect(h.state()).toBe("idle");
	});

	it("overlapping reloads run one after the other, each to its end; held prompts wait for the last", async () => {
		const h = reloadHarness();
		await reload(h, "r1");
		await hold(h, "p1");
		await reload(h, "r2");
		await h.resolve("shutdownExtensions", undefined);
		await rebuild(h);
		// r2 starts only now, with its own shutdown (never two at once).
		expect(h.state()).toBe("reloading.shuttingDown");
		expect(h.fakes.inputs("shutdownExtensions")).toEqual([{ requestId: "r1" }, { requestId: "r2" }]);
		expect(h.emittedOf("prompts_released")).toEqual([]);
		await h.resolve("shutdownExtensions", undefined);
		await rebuild(h);
		expect(h.emittedOf("reload_finished").map((e) => e.requestId)).toEqual(["r1", "r2"]);
		expect(h.emittedOf("prompts_released")).toEqual([{ type: "prompts_released", promptIds: ["p1"] }]);
	});

	it("a reload while the session is busy is refused at once; one queued behind a reload is not", async () => {
		const h = reloadHarness();
		await reload(h, "r1", true);
		expect(h.emitted).toEqual([{ type: "reload_refused", requestId: "r1" }]);
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("shutdownExtensions")).toBe(0);
	});

	it("dispose refuses the held prompts and cancels the queued reloads at once; the running reload stops after its step, then the actor is done", async () => {
		const h = reloadHarness();
		await reload(h, "r1");
		await hold(h, "p1");
		await reload(h, "r2");
		await h.send({ type: "DISPOSE" });
		expect(h.emittedOf("prompts_refused")).toEqual([
			{ type: "prompts_refused", promptIds: ["p1"], reason: "disposed" },
		]);
		expect(h.emittedOf("reloads_cancelled")).toEqual([{ type: "reloads_cancelled", requestIds: ["r2"] }]);
		await h.resolve("shutdownExtensions", undefined);
		expect(h.emittedOf("reload_finished")).toEqual([
			{ type: "reload_finished", requestId: "r1", shutdownTimedOut: false, cutOff: "shuttingDown" },
		]);
		expect(h.fakes.count("loadExtensions")).toBe(0);
		expect(h.state()).toBe("disposed");
		expect(h.actor.getSnapshot().status).toBe("done");
	});
});

describe("reload machine: a teardown cuts the reload off at its next step", () => {
	/** Runs a reload to `step` (pending), then a teardown. */
	const tearDownDuring = async (step: "shutdownExtensions" | (typeof REBUILD_STEPS)[number]) => {
		const h = reloadHarness();
		await reload(h, "r1");
		for (const done of ["shutdownExtensions", ...REBUILD_STEPS] as const) {
			if (done === step) break;
			await h.resolve(done, undefined);
		}
		await hold(h, "p1");
		await h.send({ type: "TEARDOWN" });
		return h;
	};

	for (const [step, state, after] of [
		["shutdownExtensions", "shuttingDown", "shuttingDown"],
		["loadExtensions", "loading", "loading"],
		["bindExtensions", "binding", "binding"],
	] as const) {
		it(`during ${state}: the step finishes, the steps after it never start, the reload ends cut off after ${after}`, async () => {
			const h = await tearDownDuring(step);
			// Held prompts end at once (the session is going away); the step running is not stopped.
			expect(h.emittedOf("prompts_refused")).toEqual([
				{ type: "prompts_refused", promptIds: ["p1"], reason: "disposed" },
			]);
			expect(h.state()).toBe(`reloading.${state}`);
			await h.resolve(step, undefined);
			expect(h.emittedOf("reload_finished")).toEqual([
				{ type: "reload_finished", requestId: "r1", shutdownTimedOut: false, cutOff: after },
			]);
			const later = REBUILD_STEPS.slice(REBUILD_STEPS.indexOf(step as never) + 1);
			for (const next of later) expect(h.fakes.count(next), next).toBe(0);
			// Not disposed: the runtime may roll its replacement back and keep the session, which reloads again.
			expect(h.state()).toBe("idle");
			await reload(h, "r2");
			expect(h.state()).toBe("reloading.shuttingDown");
		});
	}

	it("during a stuck session_shutdown: the bound still ends the wait, reported, and the reload ends there", async () => {
		const h = await tearDownDuring("shutdownExtensions");
		await h.advance(10_000);
		expect(h.emittedOf("shutdown_timed_out")).toHaveLength(1);
		expect(h.emittedOf("reload_finished")).toEqual([
			{ type: "reload_finished", requestId: "r1", shutdownTimedOut: true, cutOff: "shuttingDown" },
		]);
		expect(h.fakes.count("loadExtensions")).toBe(0);
		expect(h.state()).toBe("idle");
	});

	it("during starting: nothing is left to skip, the reload ends reloaded; a failing step is still the reload's error", async () => {
		const h = await tearDownDuring("startExtensions");
		await h.resolve("startExtensions", undefined);
		expect(h.emittedOf("reload_finished")).toEqual([
			{ type: "reload_finished", requestId: "r1", shutdownTimedOut: false },
		]);
		const failing = await (async () => {
			const f = reloadHarness();
			await reload(f, "r1");
			await f.resolve("shutdownExtensions", undefined);
			await f.resolve("loadExtensions", undefined);
			await f.send({ type: "TEARDOWN" });
			const error = new Error("beforeSessionStart failed");
			await f.reject("bindExtensions", error);
			return { f, error };
		})();
		expect(failing.f.emittedOf("reload_finished")).toEqual([
			{ type: "reload_finished", requestId: "r1", shutdownTimedOut: false, error: failing.error },
		]);
	});

	it("a teardown while no reload runs changes nothing", async () => {
		const h = reloadHarness();
		await h.send({ type: "TEARDOWN" });
		expect(h.state()).toBe("idle");
		expect(h.emitted).toEqual([]);
		await reload(h, "r1");
		await h.resolve("shutdownExtensions", undefined);
		await rebuild(h);
		expect(h.emittedOf("reload_finished")).toEqual([
			{ type: "reload_finished", requestId: "r1", shutdownTimedOut: false },
		]);
	});
});
