/**
 * Model-based tests of the prompt-operation machine with xstate/graph: every reachable state can
 * get back to idle (invariant 9), and replaying every edge of the state graph on a live actor with
 * fake actors fires every transition of the machine — in particular every branch out of postRun,
 * retrying, compacting (incl. abort and extension cancel) and beforeSettle.
 */

import { beforeAll, describe, expect, it } from "vitest";
import type { EventObject } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import * as graph from "./graph-harness.js";
import { promptModel } from "./models.js";

const spec = promptModel;

describe("prompt-operation machine (xstate/graph)", () => {
	let adj: ReturnType<typeof graph.adjacency>;
	// The replay is shared by every test below (memoized): run it here, under the hook's 180 s, not in
	// whichever test comes first. Shuffled (`--sequence.shuffle`), a branch test came first and spent
	// the default 30 s timeout on it on a loaded machine. Deterministic CPU work: one traversal (1,580
	// vertices, 50,260 edges; ~4-6 s on 2 busy cores), whose paths the replay reuses, then 26,660 replays
	// (~30 s). The replay used to traverse the graph twice more (its own adjacency map and xstate's
	// getShortestPaths), about 10 s of CPU.
	beforeAll(async () => {
		adj = graph.adjacency(spec);
		await replayAll(adj);
	}, 180_000);

	it("reaches every state node", () => {
		const reached = new Set(Object.values(adj).map((v) => JSON.stringify(v.state.value)));
		for (const expected of [
			"idle",
			"preflight",
			{ running: "working" },
			{ running: "aborting" },
			{ running: { compacting: "working" } },
			{ running: { compacting: "aborting" } },
			"retrying",
			{ compacting: "working" },
			{ compacting: "aborting" },
			{ beforeSettle: "working" },
			{ beforeSettle: "aborting" },
			"settling",
			{ beforeSettle: "awaitingInput" },
			{ branchSummary: "working" },
			{ branchSummary: "aborting" },
		]) {
			expect(reached, JSON.stringify(expected)).toContain(JSON.stringify(expected));
		}
		expect(Object.keys(adj).length).toBeGreaterThan(40);
	});

	it("has no dead ends: idle is reachable from every reachable state (invariant 9)", () => {
		expect(graph.verticesThatCannotReach(spec, adj, (s) => s.value === "idle")).toEqual([]);
		expect(Object.values(adj).filter((v) => v.state.status !== "active")).toEqual([]);
	});

	it("keeps the context at 19 keys or fewer on every edge of the graph", () => {
		// XState copies the context with Object.assign({}, context, update) on every assign; from 20
		// keys on V8 (Node 20) makes that copy a dictionary-mode object, and every later transition of
		// the session pays. The key count is what can be asserted (%HasFastProperties needs a V8 flag).
		const over: string[] = [];
		for (const [vertex, { state, transitions }] of Object.entries(adj)) {
			for (const snapshot of [state, ...Object.values(transitions).map((t) => t.state)]) {
				const keys = Object.keys(snapshot.context);
				if (keys.length > 19) over.push(`${vertex}: ${keys.length} keys (${keys.join(", ")})`);
			}
		}
		expect(over.slice(0, 3)).toEqual([]);
	});

	it("idle with no operation is reachable from every state using only answers, actor completions and timers", () => {
		// Without any user event (no PROMPT, no ABORT…): the machine never waits on the user to settle.
		const completionAdj = adjacencyFrom(
			adj,
			(e) => e.type.startsWith("xstate.") || /^(PREFLIGHT|RUN|BEFORE_SETTLE|SETTLE)_(DONE|FAILED)$/.test(e.type),
		);
		expect(graph.verticesThatCannotReach(spec, completionAdj, (s) => s.value === "idle")).toEqual([]);
	});

	it("replaying every edge on a live actor with fake actors fires every transition of the machine", async () => {
		const { fired, edges } = await replayAll(adj);
		const all = graph.allTransitionKeys(promptOperationMachine);
		expect(all.filter((key) => !fired.has(key))).toEqual([]);
		const required = ["postRun", "retrying", "compacting", "beforeSettle"].flatMap((state) =>
			all.filter((key) => key.startsWith(`promptOperation.${state}`)),
		);
		// postRun's 9 ordered branches, retrying's 4, compacting's done/error branches plus abort and
		// ABORT_COMPACTION, beforeSettle (incl. abort and awaiting busy input).
		expect(required.length).toBeGreaterThanOrEqual(35);
		expect(required.every((key) => fired.has(key))).toBe(true);
		expect(edges).toBeGreaterThan(200);
	});

	describe("every branch out of postRun, retrying and compacting does what its name says", () => {
		const key = (state: string, event: string, index: number) => `promptOperation.${state}|${event}|${index}`;
		const done = "xstate.done.actor.compaction";
		const error = "xstate.error.actor.compaction";
		/** Expected next state and emitted events of each branch, as seen on the live actor that took it. */
		const branches: [string, string, (step: LastStep) => void][] = [
			["postRun: abort first", key("postRun", "", 0), (s) => expect(s.state).toBe("settling")],
			[
				"postRun: retry with attempts left",
				key("postRun", "", 1),
				(s) => {
					expect(s.state).toBe("retrying");
					expect(types(s)).toContain("auto_retry_start");
				},
			],
			[
				"postRun: overflow recovery (omit, compact, re-run)",
				key("postRun", "", 2),
				(s) => {
					expect(s.state).toBe("compacting.working");
					expect(s.compaction).toMatchObject({ reason: "overflow", willRetry: true });
				},
			],
			[
				"postRun: second overflow in a request",
				key("postRun", "", 3),
				(s) => {
					expect(s.state).toMatch(/^(beforeSettle|settling)/);
					expect(types(s)).toContain("overflow_recovery_failed");
				},
			],
			[
				"postRun: successful answer over the window",
				key("postRun", "", 4),
				(s) => expect(s.compaction).toMatchObject({ reason: "overflow", willRetry: false }),
			],
			["postRun: threshold", key("postRun", "", 5), (s) => expect(s.compaction).toMatchObject({ reason: "threshold" })],
			[
				"postRun: still queued after a run that added nothing settles with a stall",
				key("postRun", "", 6),
				(s) => {
					expect(s.state).toBe("settling");
					expect(s.stall).toMatchObject({ reason: "queued_messages" });
					expect(types(s)).not.toContain("run_requested");
				},
			],
			[
				"postRun: queued after agent_end",
				key("postRun", "", 7),
				(s) => expect(s.lastRun).toMatchObject({ mode: "continue", cause: "queued" }),
			],
			["postRun: nothing to do", key("postRun", "", 8), (s) => expect(s.state).toMatch(/^(beforeSettle|settling)/)],
			[
				"beforeSettle: input queued while the boundary ran continues the operation, before any stall check",
				key("beforeSettle", "BEFORE_SETTLE_DONE", 1),
				(s) => expect(s.lastRun).toMatchObject({ mode: "continue", cause: "queued" }),
			],
			[
				"beforeSettle: the boundary asks again after its continuation added nothing",
				key("beforeSettle", "BEFORE_SETTLE_DONE", 2),
				(s) => {
					expect(s.state).toBe("settling");
					expect(s.stall).toMatchObject({ reason: "boundary_continuation", runCause: "boundary" });
					expect(types(s)).not.toContain("run_requested");
				},
			],
			[
				"beforeSettle: a valid continue runs again",
				key("beforeSettle", "BEFORE_SETTLE_DONE", 3),
				(s) => expect(s.lastRun).toMatchObject({ mode: "continue", cause: "boundary" }),
			],
			[
				"retrying: backoff elapsed on the actor clock",
				key("retrying", "xstate.after.retryDelay.promptOperation.retrying", 0),
				(s) => expect(s.lastRun).toMatchObject({ mode: "continue", cause: "retry" }),
			],
			[
				"retrying: ABORT",
				key("retrying", "ABORT", 0),
				(s) => {
					expect(s.state).toBe("settling");
					expect(s.emitted).toContainEqual({
						type: "auto_retry_end",
						success: false,
						attempt: expect.any(Number),
						finalError: "Retry cancelled",
					});
				},
			],
			[
				"retrying: ABORT_RETRY",
				key("retrying", "ABORT_RETRY", 0),
				(s) => {
					expect(s.state).toBe("settling");
					expect(s.emitted).toContainEqual(
						expect.objectContaining({ type: "auto_retry_end", finalError: "Retry cancelled" }),
					);
				},
			],
			[
				"retrying: abortRetry() came after agent_end{willRetry}, before the backoff: cancelled at once",
				key("retrying", "", 0),
				(s) => {
					expect(s.state).toBe("settling");
					expect(types(s)).toEqual(expect.arrayContaining(["auto_retry_start", "auto_retry_end"]));
					expect(s.emitted).toContainEqual(
						expect.objectContaining({ type: "auto_retry_end", success: false, finalError: "Retry cancelled" }),
					);
					expect(types(s)).not.toContain("run_requested");
				},
			],
			["retrying: a prompt while waiting", key("retrying", "PROMPT", 0), (s) => expect(s.state).toBe("retrying")],
			[
				"compacting: manual done",
				key("compacting", done, 0),
				(s) => expect(types(s)).toContain("manual_compaction_done"),
			],
			["compacting: done after an abort", key("compacting", done, 1), (s) => expect(s.state).toBe("settling")],
			[
				"compacting: compacted for the overflow retry",
				key("compacting", done, 2),
				(s) => expect(s.lastRun).toMatchObject({ mode: "continue", cause: "compaction" }),
			],
			[
				"compacting: not compacted but messages queued",
				key("compacting", done, 3),
				(s) => expect(s.lastRun).toMatchObject({ cause: "queued" }),
			],
			[
				"compacting: cancelled by an extension (or nothing to retry) never re-runs",
				key("compacting", done, 4),
				(s) => {
					expect(s.state).toMatch(/^(beforeSettle|settling)/);
					expect(types(s)).not.toContain("run_requested");
				},
			],
			["compacting: manual failed", key("compacting", error, 0), (s) => expect(s.state).toBe("idle")],
			["compacting: failed after an abort", key("compacting", error, 1), (s) => expect(s.state).toBe("settling")],
			["compacting: failed", key("compacting", error, 2), (s) => expect(s.state).toMatch(/^(beforeSettle|settling)/)],
			[
				"compacting: ABORT",
				key("compacting.working", "ABORT", 0),
				(s) => {
					expect(s.state).toBe("compacting.aborting");
					expect(s.emitted).toContainEqual({ type: "abort_requested", target: "compaction" });
				},
			],
			[
				"compacting: ABORT_COMPACTION",
				key("compacting.working", "ABORT_COMPACTION", 0),
				(s) => expect(s.emitted).toContainEqual({ type: "abort_requested", target: "compaction" }),
			],
			// Compaction before a routed request: the run waits in its request preparation.
			[
				"running: a request over the routed model's threshold compacts inside the run",
				key("running.working", "REQUEST_NEEDS_COMPACTION", 0),
				(s) => {
					expect(s.state).toBe("running.compacting.working");
					expect(s.compaction).toEqual({ reason: "threshold", willRetry: false });
					expect(types(s)).not.toContain("run_requested");
				},
			],
			[
				"running.compacting: done after an abort aborts the run",
				key("running.compacting", done, 0),
				(s) => {
					expect(s.state).toBe("running.aborting");
					expect(types(s)).toEqual(["request_compaction_done", "abort_requested"]);
				},
			],
			[
				"running.compacting: done, the request goes on in the same run",
				key("running.compacting", done, 1),
				(s) => {
					expect(s.state).toBe("running.working");
					expect(types(s)).toEqual(["request_compaction_done"]);
				},
			],
			[
				"running.compacting: failed after an abort aborts the run",
				key("running.compacting", error, 0),
				(s) => expect(s.state).toBe("running.aborting"),
			],
			[
				"running.compacting: failed, the request still goes on",
				key("running.compacting", error, 1),
				(s) => {
					expect(s.state).toBe("running.working");
					expect(types(s)).toEqual(["request_compaction_done"]);
				},
			],
			[
				"running.compacting: ABORT",
				key("running.compacting.working", "ABORT", 0),
				(s) => {
					expect(s.state).toBe("running.compacting.aborting");
					expect(s.emitted).toEqual([{ type: "abort_requested", target: "compaction" }]);
				},
			],
			[
				"running.compacting: ABORT after ABORT_COMPACTION is not lost",
				key("running.compacting.aborting", "ABORT", 0),
				(s) => expect(s.state).toBe("running.compacting.aborting"),
			],
			// compact() while busy is one decision: abort what runs, hold the compaction until idle.
			[
				"running: COMPACT aborts the run and holds the compaction",
				key("running.working", "COMPACT", 1),
				(s) => {
					expect(s.state).toBe("running.aborting");
					expect(s.emitted).toEqual([{ type: "abort_requested", target: "run" }]);
					expect(s.deferredCompaction).toEqual({ requestId: "c", cancelOnAbort: true });
				},
			],
			[
				"running: compact() with other instructions while a compaction waits to start is refused, the run goes on (pi#4203)",
				key("running.working", "COMPACT", 0),
				(s) => {
					expect(s.state).toBe("running.working");
					expect(s.emitted).toEqual([
						{ type: "manual_compaction_done", requestId: "o", refused: "other_instructions" },
					]);
				},
			],
			[
				"running: ctx.compact() (COMPACT_WHEN_SETTLED) is held without aborting the run",
				key("running", "COMPACT_WHEN_SETTLED", 1),
				(s) => {
					expect(s.state).toMatch(/^running\./);
					expect(types(s)).not.toContain("abort_requested");
					expect(s.deferredCompaction).toMatchObject({ requestId: "w" });
				},
			],
			[
				"retrying: COMPACT cancels the backoff and settles",
				key("retrying", "COMPACT", 1),
				(s) => {
					expect(s.state).toBe("settling");
					expect(s.emitted).toContainEqual(expect.objectContaining({ type: "auto_retry_end", success: false }));
				},
			],
			[
				"compacting: COMPACT during a manual compaction joins it (pi#4203)",
				key("compacting.working", "COMPACT", 0),
				(s) => {
					expect(s.state).toBe("compacting.working");
					expect(s.emitted).not.toContainEqual({ type: "abort_requested", target: "compaction" });
					expect(s.compaction).toMatchObject({ reason: "manual", sharedWith: [expect.any(String)] });
				},
			],
			[
				"compacting: COMPACT with other instructions during a manual compaction is refused, the compaction goes on (pi#4203)",
				key("compacting.working", "COMPACT", 1),
				(s) => {
					expect(s.state).toBe("compacting.working");
					expect(s.emitted).toEqual([
						{ type: "manual_compaction_done", requestId: "o", refused: "other_instructions" },
					]);
				},
			],
			[
				"compacting: ctx.compact() with other instructions during a manual compaction is refused (pi#4203)",
				key("compacting.working", "COMPACT_WHEN_SETTLED", 3),
				(s) => {
					expect(s.state).toBe("compacting.working");
					expect(s.emitted).toEqual([
						{ type: "manual_compaction_done", requestId: "o", refused: "other_instructions" },
					]);
				},
			],
			[
				"compacting: COMPACT during an automatic compaction aborts it",
				key("compacting.working", "COMPACT", 3),
				(s) => {
					expect(s.state).toBe("compacting.aborting");
					expect(s.emitted).toContainEqual({ type: "abort_requested", target: "compaction" });
				},
			],
			[
				"idle: a held compaction starts before anything else",
				key("idle", "", 0),
				(s) => {
					expect(s.state).toBe("compacting.working");
					expect(s.compaction).toMatchObject({ reason: "manual" });
				},
			],
			[
				"abort() where nothing else is aborted still cancels a held compaction",
				"promptOperation|ABORT|0",
				(s) => {
					expect(s.emitted).toContainEqual(
						expect.objectContaining({ type: "manual_compaction_done", cancelled: true }),
					);
					expect(s.deferredCompaction).toBeUndefined();
				},
			],
			[
				"abortCompaction() cancels a held compaction",
				"promptOperation|ABORT_COMPACTION|0",
				(s) => {
					expect(s.emitted).toContainEqual(
						expect.objectContaining({ type: "manual_compaction_done", cancelled: true }),
					);
					expect(s.deferredCompaction).toBeUndefined();
				},
			],
		];

		it.each(branches)("%s", async (_name, transition, check) => {
			const { lastSteps } = await replayAll(adj);
			const step = lastSteps.get(transition);
			expect(step, `no replayed edge fired ${transition}`).toBeDefined();
			check(step!);
		});

		it("the extension-cancel branch is reached from an overflow recovery", async () => {
			const { lastSteps } = await replayAll(adj);
			const cancelled = [...lastSteps.values()].find(
				(step) =>
					step.fired.includes(key("compacting", done, 4)) &&
					(step.event as { output?: { cancelled?: boolean } }).output?.cancelled === true &&
					step.before?.willRetry === true,
			);
			expect(cancelled, "an overflow recovery whose compaction an extension cancelled").toBeDefined();
			expect(types(cancelled!)).not.toContain("run_requested");
		});
	});
});

interface LastStep {
	event: EventObject;
	fired: string[];
	emitted: { type: string; [key: string]: unknown }[];
	state: string;
	compaction: unknown;
	lastRun: unknown;
	/** The stall recorded by the step (cleared once the operation settles). */
	stall: unknown;
	/** The compaction in flight before the step (for compacting branches). */
	before: { reason?: string; willRetry?: boolean } | undefined;
	/** The compaction the machine holds until idle after the step. */
	deferredCompaction: unknown;
}

function types(step: LastStep): string[] {
	return step.emitted.map((event) => event.type);
}

let replayed: Promise<{ fired: Set<string>; edges: number; lastSteps: Map<string, LastStep> }> | undefined;

/**
 * Replays every edge of the state graph `adj` once (shortest path to its source, then the edge) on a
 * fresh live actor, and keeps — for each transition — the first edge that fired it in its last step.
 * The paths come from `adj` too: each traversal of this graph costs seconds of CPU.
 */
function replayAll(adj: ReturnType<typeof graph.adjacency>) {
	replayed ??= (async () => {
		const paths = graph.shortestPaths(spec, adj);
		const fired = new Set<string>();
		const lastSteps = new Map<string, LastStep>();
		const selfLoops = new Set<string>();
		let edges = 0;
		for (const [vertex, value] of Object.entries(adj)) {
			const path = paths.get(vertex);
			if (!path) throw new Error(`no path to ${vertex}`);
			for (const { event, state } of Object.values(value.transitions)) {
				// An edge back to its own vertex (settings updates, completions of children that are not
				// there…) is replayed once per state, event and what the guards of targetless transitions
				// read (a navigation in flight); the coverage check above catches a miss.
				if (spec.serialize(state) === vertex) {
					const navigating = value.state.context.treeNavigation !== undefined;
					const loop = `${JSON.stringify(value.state.value)} ${navigating} ${JSON.stringify(event)}`;
					if (selfLoops.has(loop)) continue;
					selfLoops.add(loop);
				}
				const { h, fired: keys, lastStep } = await graph.replay(spec, [...path.steps, { event, state }]);
				for (const k of keys) fired.add(k);
				const snapshot = h.actor.getSnapshot() as {
					context: { compaction?: unknown; stall?: unknown; deferredCompaction?: unknown };
				};
				for (const k of lastStep.fired) {
					if (lastSteps.has(k)) continue;
					lastSteps.set(k, {
						event,
						fired: lastStep.fired,
						emitted: lastStep.emitted,
						state: h.state(),
						compaction: snapshot.context.compaction,
						lastRun: h.fakes.inputs("run").at(-1),
						stall: snapshot.context.stall,
						before: value.state.context.compaction,
						deferredCompaction: snapshot.context.deferredCompaction,
					});
				}
				edges++;
			}
		}
		return { fired, edges, lastSteps };
	})();
	return replayed;
}

/** Restricts an adjacency map to edges whose event passes `keep`. */
function adjacencyFrom(adj: ReturnType<typeof graph.adjacency>, keep: (event: EventObject) => boolean) {
	const out: ReturnType<typeof graph.adjacency> = {};
	for (const [key, value] of Object.entries(adj)) {
		out[key] = {
			state: value.state,
			transitions: Object.fromEntries(Object.entries(value.transitions).filter(([, t]) => keep(t.event))),
		};
	}
	return out;
}
