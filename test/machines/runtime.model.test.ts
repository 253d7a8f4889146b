/**
 * Model-based tests of the runtime machine with xstate/graph: every transition fires when the state
 * graph's edges are replayed on a live actor; `active` is reachable from everywhere (except the final
 * `disposed`); and along every simple path the machine-level half of invariant 10 holds: a
 * replacement either completes (commit, then completion) or leaves the old session untouched (never
 * disposed, prepared session rolled back).
 */

import { beforeAll, describe, expect, it } from "vitest";
import type { EventObject } from "xstate";
import { getSimplePaths, type StatePath } from "xstate/graph";
import { type RuntimeEmitted, runtimeMachine } from "../../machines/runtime.machine.js";
import * as graph from "./graph-harness.js";
import type { Invocation } from "./harness.js";
import { RUNTIME_EVENTS, runtimeModel } from "./models.js";

const spec = runtimeModel;
const EVENTS = RUNTIME_EVENTS;

describe("runtime machine (xstate/graph)", () => {
	let adj: ReturnType<typeof graph.adjacency>;
	beforeAll(() => {
		adj = graph.adjacency(spec);
	});

	it("reaches every state, and active (or the final disposed) from every state", () => {
		const reached = new Set(Object.values(adj).map((v) => v.state.value));
		expect([...reached].sort()).toEqual(
			[
				"active",
				"beforeSwitch",
				"opening",
				"creating",
				"settlingCurrent",
				"shuttingDown",
				"invalidating",
				"disposing",
				"rebinding",
				"withSession",
				"rollingBack",
				"disposed",
			].sort(),
		);
		expect(graph.verticesThatCannotReach(spec, adj, (s) => s.value === "active" || s.value === "disposed")).toEqual([]);
		// Only `disposed` is final, and it is reachable from every state (DISPOSE is accepted everywhere).
		expect(graph.verticesThatCannotReach(spec, adj, (s) => s.value === "disposed")).toEqual([]);
		const finals = Object.values(adj).filter((v) => v.state.status === "done");
		expect(finals.every((v) => v.state.value === "disposed")).toBe(true);
	});

	it("replaying every edge on a live actor fires every transition of the machine", async () => {
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
		expect(graph.allTransitionKeys(runtimeMachine).filter((key) => !fired.has(key))).toEqual([]);
	});

	it("along every simple path a replacement completes or leaves the old session untouched", async () => {
		// DISPOSE is accepted in every state; allowing it everywhere gives ~21 000 simple paths. Here it is
		// tried when idle and in one mid-replacement state (the edge replay above covers the rest).
		const paths = getSimplePaths(runtimeMachine, {
			events: (s: graph.AnySnapshot) => graph.eventsFor(s, EVENTS),
			// settlingCurrent's three ways out (settled, failed, timed out) all lead to shuttingDown and change
			// nothing a later step reads: the paths take the settled one (the edge replay fires the others).
			filterEvents: (s: graph.AnySnapshot, e: EventObject) =>
				(e.type !== "DISPOSE" || ["active", "opening"].includes(s.value)) &&
				(s.value !== "settlingCurrent" || e.type === "xstate.done.actor.settleCurrent"),
			serializeState: spec.serialize,
		} as never) as StatePath<graph.AnySnapshot, EventObject>[];
		expect(paths.length).toBeGreaterThan(100);
		let checkedReplacements = 0;
		for (const path of paths) {
			const { h } = await graph.replay(spec, path.steps);
			const problems = checkReplacements(h.emitted as RuntimeEmitted[], h.fakes.invocations, h.state());
			expect(problems, path.steps.map((s) => s.event.type).join(" → ")).toEqual([]);
			checkedReplacements += h.emitted.filter((e) => e.type === "replacement_started").length;
		}
		expect(checkedReplacements).toBeGreaterThan(100);
	});
});

/**
 * Splits the recorded emitted events and actor invocations per replacement and checks invariant 10
 * at the machine level. Returns human-readable problems (empty when all is well).
 */
function checkReplacements(emitted: RuntimeEmitted[], invocations: Invocation[], finalState: string): string[] {
	const problems: string[] = [];
	const starts = emitted.filter((e) => e.type === "replacement_started");
	for (const start of starts) {
		const id = start.requestId;
		const mine = emitted.filter((e) => "requestId" in e && e.requestId === id && e !== start);
		const outcomes = mine.filter((e) =>
			["replacement_cancelled", "replacement_failed", "replacement_completed"].includes(e.type),
		);
		const committed = mine.filter((e) => e.type === "session_committed");
		const isLast = start === starts.at(-1);
		if (outcomes.length > 1) problems.push(`${id}: ${outcomes.length} outcomes`);
		if (outcomes.length === 0 && !(isLast && finalState !== "active")) problems.push(`${id}: no outcome`);
		const outcome = outcomes[0];
		if (committed.length > 1) problems.push(`${id}: committed twice`);
		if (outcome?.type === "replacement_completed" && committed.length !== 1)
			problems.push(`${id}: completed uncommitted`);
		if (outcome && outcome.type !== "replacement_completed" && committed.length) {
			problems.push(`${id}: ${outcome.type} after the old session was disposed`);
		}
	}
	// The old session is disposed only by a committed replacement or by the final quit.
	const disposals = invocations.filter((i) => i.src === "disposeCurrent");
	const commits = emitted.filter((e) => e.type === "session_committed").length;
	const quits = disposals.filter((i) => (i.input as { reason: string }).reason === "quit").length;
	if (disposals.length - quits > commits + (finalState === "disposing" ? 1 : 0)) {
		problems.push("an old session was disposed without a commit");
	}
	if (quits > 1) problems.push("disposed twice on quit");
	// pi-desktop#46: every session_shutdown comes right after the old run was settled (or given up on).
	invocations.forEach((invocation, index) => {
		if (invocation.src !== "shutdownCurrent") return;
		const before = invocations[index - 1];
		if (before?.src !== "settleCurrent" || JSON.stringify(before.input) !== JSON.stringify(invocation.input)) {
			problems.push("session_shutdown without settling the old run first");
		}
	});
	return problems;
}
