/**
 * Model-based tests of the prompt-operation machine with xstate/graph: every reachable state can
 * get back to idle (invariant 9), and replaying every edge of the state graph on a live actor with
 * fake actors fires every transition of the machine — in particular every branch out of postRun,
 * retrying, compacting (incl. abort and extension cancel) and beforeSettle.
 */

import { beforeAll, describe, expect, it } from "vitest";
import type { EventObject } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { adjacency, allTransitionKeys, replay, shortestPaths, verticesThatCannotReach } from "./graph-harness.js";
import { promptModel } from "./models.js";

const spec = promptModel;

describe("prompt-operation machine (xstate/graph)", () => {
	let adj: ReturnType<typeof adjacency>;
	let paths: ReturnType<typeof shortestPaths>;
	beforeAll(() => {
		adj = adjacency(spec);
		paths = shortestPaths(spec);
	});

	it("reaches every state node", () => {
		const reached = new Set(Object.values(adj).map((v) => JSON.stringify(v.state.value)));
		for (const expected of [
			"idle",
			"preflight",
			{ running: "working" },
			{ running: "aborting" },
			"retrying",
			{ compacting: "working" },
			{ compacting: "aborting" },
			{ beforeSettle: "working" },
			{ beforeSettle: "aborting" },
			"settling",
			"awaitingInput",
			{ branchSummary: "working" },
			{ branchSummary: "aborting" },
		]) {
			expect(reached, JSON.stringify(expected)).toContain(JSON.stringify(expected));
		}
		expect(Object.keys(adj).length).toBeGreaterThan(40);
	});

	it("has no dead ends: idle is reachable from every reachable state (invariant 9)", () => {
		expect(verticesThatCannotReach(spec, adj, (s) => s.value === "idle")).toEqual([]);
		expect(Object.values(adj).filter((v) => v.state.status !== "active")).toEqual([]);
	});

	it("idle with no operation is reachable from every state using only answers, actor completions and timers", () => {
		// Without any user event (no PROMPT, no ABORT…): the machine never waits on the user to settle.
		const completionAdj = adjacencyFrom(
			adj,
			(e) => e.type.startsWith("xstate.") || /^(PREFLIGHT|RUN|BEFORE_SETTLE|SETTLE)_(DONE|FAILED)$/.test(e.type),
		);
		expect(verticesThatCannotReach(spec, completionAdj, (s) => s.value === "idle")).toEqual([]);
	});

	it("replaying every edge on a live actor with fake actors fires every transition of the machine", async () => {
		const fired = new Set<string>();
		let edges = 0;
		for (const [vertex, value] of Object.entries(adj)) {
			const path = paths.get(vertex);
			expect(path, `no path to ${vertex}`).toBeDefined();
			if (!path) continue;
			for (const { event, state } of Object.values(value.transitions)) {
				const { fired: keys } = await replay(spec, [...path.steps, { event, state }]);
				for (const key of keys) fired.add(key);
				edges++;
			}
		}
		const all = allTransitionKeys(promptOperationMachine);
		expect(all.filter((key) => !fired.has(key))).toEqual([]);
		const required = ["postRun", "retrying", "compacting", "beforeSettle"].flatMap((state) =>
			all.filter((key) => key.startsWith(`promptOperation.${state}`)),
		);
		// postRun's 8 ordered branches, retrying's 3 (+ busy prompt), compacting (incl. abort and
		// ABORT_COMPACTION, done/error branches) and beforeSettle (incl. abort).
		expect(required.length).toBeGreaterThanOrEqual(30);
		expect(required.every((key) => fired.has(key))).toBe(true);
		expect(edges).toBeGreaterThan(200);
	});
});

/** Restricts an adjacency map to edges whose event passes `keep`. */
function adjacencyFrom(adj: ReturnType<typeof adjacency>, keep: (event: EventObject) => boolean) {
	const out: ReturnType<typeof adjacency> = {};
	for (const [key, value] of Object.entries(adj)) {
		out[key] = {
			state: value.state,
			transitions: Object.fromEntries(Object.entries(value.transitions).filter(([, t]) => keep(t.event))),
		};
	}
	return out;
}
