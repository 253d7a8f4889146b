/**
 * The reload machine (pi#9811): model-based (every state reachable, a final state reachable from
 * every state, every transition fired on a live actor) and the bounded wait a user observes.
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

	it("reaches every state, and a final state from every state", () => {
		const reached = new Set(Object.values(adj).map((v) => JSON.stringify(v.state.value)));
		expect([...reached].sort()).toEqual(['"failed"', '"rebuilding"', '"reloaded"', '"shuttingDown"']);
		expect(verticesThatCannotReach(spec, adj, (s) => s.status === "done")).toEqual([]);
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

describe("reload machine: the bounded wait for session_shutdown", () => {
	it("a handler still running at the bound is reported once; the rebuild runs and the reload ends reloaded", async () => {
		const h = reloadHarness({ shutdownTimeoutMs: 3_000 });
		await h.advance(2_999);
		expect(h.state()).toBe("shuttingDown");
		expect(h.fakes.count("rebuild")).toBe(0);
		await h.advance(1);
		expect(h.emitted).toEqual([{ type: "shutdown_timed_out", timeoutMs: 3_000 }]);
		expect(h.state()).toBe("rebuilding");
		// The abandoned handler finishing late changes nothing.
		await h.resolve("shutdownExtensions", undefined);
		await h.resolve("rebuild", undefined);
		expect(h.actor.getSnapshot().output).toEqual({ shutdownTimedOut: true });
	});

	it("handlers that return in time: no report, and a rebuild failure is the reload's error", async () => {
		const h = reloadHarness();
		await h.resolve("shutdownExtensions", undefined);
		await h.advance(60_000);
		expect(h.emitted).toEqual([]);
		const error = new Error("settings.json is not valid JSON");
		await h.reject("rebuild", error);
		expect(h.state()).toBe("failed");
		expect(h.actor.getSnapshot().output).toEqual({ shutdownTimedOut: false, error });
	});

	it("Infinity never times out: the reload waits for the handlers as pi does", async () => {
		const h = reloadHarness({ shutdownTimeoutMs: Number.POSITIVE_INFINITY });
		await h.advance(365 * 24 * 3_600_000);
		expect(h.state()).toBe("shuttingDown");
		expect(h.emitted).toEqual([]);
		await h.resolve("shutdownExtensions", undefined);
		expect(h.state()).toBe("rebuilding");
	});
});
