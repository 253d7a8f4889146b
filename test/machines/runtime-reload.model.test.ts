/**
 * The reload machine (pi#9811): model-based (every state reachable, idle or the final state reachable
 * from every state, every transition fired on a live actor), the bounded wait a user observes, and
 * what happens to prompts and reloads that arrive during a reload.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { reloadMachine } from "../../machines/runtime-reload.machine.js";
import { adjacency, allTransitionKeys, replay, shortestPaths, verticesThatCannotReach } from "./graph-harness.js";
import { reloadHarness } from "./harness.js";
import { reloadModel } from "./models.js";

const spec = reloadModel;

describe("reload machine (xstate/graph)", () => {
	let adj: ReturnType<typeof adjacency>;
	beforeAll(() => {
		adj = adjacency(spec);
	});

	it("reaches every state, and the final disposed from every state", () => {
		const reached = new Set(Object.values(adj).map((v) => JSON.stringify(v.state.value)));
		expect([...reached].sort()).toEqual([
			'"disposed"',
			'"idle"',
			'{"reloading":"rebuilding"}',
			'{"reloading":"shuttingDown"}',
		]);
		expect(verticesThatCannotReach(spec, adj, (s) => s.status === "done")).toEqual([]);
		// Every reload comes back to idle (or ends disposed): none can hang the session.
		expect(verticesThatCannotReach(spec, adj, (s) => s.value === "idle" || s.status === "done")).toEqual([]);
	});

	it("replaying every edge on a live actor fires every transition, the bounded wait's included", async () => {
		const paths = shortestPaths(spec);
		const fired = new Set<string>();
		for (const [vertex, value] of Object.entries(adj)) {
			const path = paths.get(vertex);
			if (!path) throw new Error(`no path to ${vertex}`);
			for (const { event, state } of Object.values(value.transitions)) {
				const { fired: keys } = await replay(spec, [...path.steps, { event, state }]);
				for (const key of keys) fired.add(key);
			}
		}
		const all = allTransitionKeys(reloadMachine);
		expect(all.some((key) => key.includes("xstate.after.shutdownTimeout"))).toBe(true);
		expect(all.filter((key) => !fired.has(key))).toEqual([]);
	});
});

type H = ReturnType<typeof reloadHarness>;
const reload = (h: H, requestId: string, busy = false) => h.send({ type: "RELOAD", requestId, busy });
const hold = (h: H, promptId: string) => {
	// The session holds a prompt only where the machine accepts it.
	expect(h.actor.getSnapshot().can({ type: "HOLD_PROMPT", promptId } as never)).toBe(true);
	return h.send({ type: "HOLD_PROMPT", promptId });
};

describe("reload machine: the bounded wait for session_shutdown", () => {
	it("a handler still running at the bound is reported once; the rebuild runs and the reload ends reloaded", async () => {
		const h = reloadHarness({ shutdownTimeoutMs: 3_000 });
		await reload(h, "r1");
		await h.advance(2_999);
		expect(h.state()).toBe("reloading.shuttingDown");
		expect(h.fakes.count("rebuild")).toBe(0);
		await h.advance(1);
		expect(h.emitted).toEqual([{ type: "shutdown_timed_out", requestId: "r1", timeoutMs: 3_000 }]);
		expect(h.state()).toBe("reloading.rebuilding");
		// The abandoned handler finishing late changes nothing.
		await h.resolve("shutdownExtensions", undefined);
		await h.resolve("rebuild", undefined);
		expect(h.emittedOf("reload_finished")).toEqual([
			{ type: "reload_finished", requestId: "r1", shutdownTimedOut: true },
		]);
		expect(h.state()).toBe("idle");
	});

	it("handlers that return in time: no report, and a rebuild failure is the reload's error", async () => {
		const h = reloadHarness();
		await reload(h, "r1");
		await h.resolve("shutdownExtensions", undefined);
		await h.advance(60_000);
		expect(h.emitted).toEqual([]);
		const error = new Error("settings.json is not valid JSON");
		await h.reject("rebuild", error);
		expect(h.state()).toBe("idle");
		expect(h.emitted).toEqual([{ type: "reload_finished", requestId: "r1", shutdownTimedOut: false, error }]);
	});

	it("Infinity never times out: the reload waits for the handlers as pi does", async () => {
		const h = reloadHarness({ shutdownTimeoutMs: Number.POSITIVE_INFINITY });
		await reload(h, "r1");
		await h.advance(365 * 24 * 3_600_000);
		expect(h.state()).toBe("reloading.shuttingDown");
		expect(h.emitted).toEqual([]);
		await h.resolve("shutdownExtensions", undefined);
		expect(h.state()).toBe("reloading.rebuilding");
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
		await h.resolve("rebuild", undefined);
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
		await h.reject("rebuild", error);
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
		await h.resolve("rebuild", undefined);
		// r2 starts only now, with its own shutdown (never two at once).
		expect(h.state()).toBe("reloading.shuttingDown");
		expect(h.fakes.inputs("shutdownExtensions")).toEqual([{ requestId: "r1" }, { requestId: "r2" }]);
		expect(h.emittedOf("prompts_released")).toEqual([]);
		await h.resolve("shutdownExtensions", undefined);
		await h.resolve("rebuild", undefined);
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

	it("dispose refuses the held prompts and cancels the queued reloads at once; the running reload ends, then the actor is done", async () => {
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
		await h.resolve("rebuild", undefined);
		expect(h.emittedOf("reload_finished").map((e) => e.requestId)).toEqual(["r1"]);
		expect(h.state()).toBe("disposed");
		expect(h.actor.getSnapshot().status).toBe("done");
	});
});
