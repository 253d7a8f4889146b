/**
 * Model-based testing helpers: traverse a machine with `xstate/graph` (bounded serialization,
 * concrete events per state), then replay paths on LIVE actors with fake actors and a
 * SimulatedClock, recording which transition definitions actually fired (from XState's microstep
 * inspection events).
 */
import type { AnyStateMachine, EventObject, InspectionEvent } from "xstate";
import { getAdjacencyMap, type StatePath } from "xstate/graph";
import type { Harness } from "./harness.js";
import { pathOf } from "./harness.js";

// biome-ignore lint/suspicious/noExplicitAny: graph snapshots of any machine
export type AnySnapshot = any;

export interface ModelSpec {
	machine: AnyStateMachine;
	input?: unknown;
	/** Concrete events by type (event types a state handles but not listed here are sent bare). */
	events: readonly EventObject[];
	/**
	 * Whether to try `event` in `snapshot` (default: every event the state handles). Keeps an event
	 * that only matters at one point of a real run from multiplying every vertex of the graph.
	 */
	offer?: (snapshot: AnySnapshot, event: EventObject) => boolean;
	/** Bounded serialization: only what guards depend on. */
	serialize: (snapshot: AnySnapshot) => string;
	/** Creates a started live harness. */
	harness: () => Harness<{ type: string }>;
}

/**
 * The events to try in a state: for every event descriptor the active state nodes handle, the
 * concrete events of that type from `catalog`, or the bare `{ type }` when there are none.
 */
export function eventsFor(snapshot: AnySnapshot, catalog: readonly EventObject[]): EventObject[] {
	if (snapshot.status !== "active") return []; // a final state accepts nothing
	const descriptors: string[] = [];
	for (const node of snapshot._nodes as AnySnapshot[]) {
		for (const type of (node.transitions as Map<string, unknown>).keys()) {
			if (!descriptors.includes(type)) descriptors.push(type);
		}
	}
	return descriptors.flatMap((type) => {
		const matching = catalog.filter((event) => event.type === type);
		return matching.length ? matching : [{ type }];
	});
}

function traversalOptions(spec: ModelSpec) {
	return {
		input: spec.input,
		events: (snapshot: AnySnapshot) => {
			const events = eventsFor(snapshot, spec.events);
			const offer = spec.offer;
			return offer ? events.filter((event) => offer(snapshot, event)) : events;
		},
		serializeState: (snapshot: AnySnapshot) => spec.serialize(snapshot),
		limit: 200_000,
	};
}

/** The reachable state graph: serialized vertex → { snapshot, transitions by serialized event }. */
export function adjacency(spec: ModelSpec) {
	return getAdjacencyMap(spec.machine, traversalOptions(spec) as never) as Record<
		string,
		{ state: AnySnapshot; transitions: Record<string, { event: EventObject; state: AnySnapshot }> }
	>;
}

/**
 * Shortest path to every reachable vertex, keyed by serialized vertex. Computed from `adj` (default:
 * a new traversal) with xstate/graph's `getShortestPaths` algorithm — the same paths, step for step —
 * without that function's own second traversal: a traversal of the prompt-operation graph costs
 * seconds of CPU, and a model test that already holds the adjacency map need not pay it again.
 */
export function shortestPaths(
	spec: ModelSpec,
	adj: ReturnType<typeof adjacency> = adjacency(spec),
): Map<string, StatePath<AnySnapshot, EventObject>> {
	// getAdjacencyMap records the initial snapshot (getShortestPaths' default `fromState`) first.
	const [start] = Object.keys(adj);
	if (start === undefined) throw new Error("empty adjacency map");
	// As in getShortestPaths: each vertex keeps its first-found predecessor of least weight, visited in
	// insertion order (breadth first), and the snapshot last seen for a serialization.
	const weights = new Map<string, { weight: number; from?: string; event?: EventObject }>([[start, { weight: 0 }]]);
	const snapshots = new Map<string, AnySnapshot>([[start, adj[start]?.state]]);
	const unvisited = new Set([start]);
	const visited = new Set<string>();
	for (const vertex of unvisited) {
		const { weight } = weights.get(vertex) as { weight: number };
		for (const { state: next, event } of Object.values(adj[vertex]?.transitions ?? {})) {
			const nextVertex = spec.serialize(next);
			snapshots.set(nextVertex, next);
			const known = weights.get(nextVertex);
			if (!known || known.weight > weight + 1) weights.set(nextVertex, { weight: weight + 1, from: vertex, event });
			if (!visited.has(nextVertex)) unvisited.add(nextVertex);
		}
		visited.add(vertex);
		unvisited.delete(vertex);
	}
	// Each path's steps: its predecessor's steps plus the predecessor's vertex and the event from it
	// (predecessors come first in `weights`' order), then shaped as xstate/graph returns them.
	const stepsOf = new Map<string, { state: AnySnapshot; event: EventObject }[]>();
	const paths = new Map<string, StatePath<AnySnapshot, EventObject>>();
	for (const [vertex, { weight, from, event }] of weights) {
		const state = snapshots.get(vertex);
		const steps =
			from === undefined
				? []
				: [...(stepsOf.get(from) ?? []), { state: snapshots.get(from), event: event as EventObject }];
		stepsOf.set(vertex, steps);
		paths.set(vertex, { state, steps: initialized(state, steps), weight });
	}
	return paths;
}

/** xstate/graph's path shape: each step holds the event that led INTO its state, `xstate.init` first. */
function initialized(
	state: AnySnapshot,
	steps: { state: AnySnapshot; event: EventObject }[],
): { state: AnySnapshot; event: EventObject }[] {
	if (steps.length === 0) return [{ state, event: { type: "xstate.init" } }];
	return [
		...steps.map((step, i) => ({ state: step.state, event: i === 0 ? { type: "xstate.init" } : steps[i - 1]!.event })),
		{ state, event: steps[steps.length - 1]!.event },
	];
}

/**
 * Vertices from which no vertex matching `home` can be reached (dead ends), by a backwards
 * breadth-first search over the adjacency map.
 */
export function verticesThatCannotReach(
	spec: ModelSpec,
	adj: ReturnType<typeof adjacency>,
	home: (snapshot: AnySnapshot) => boolean,
): string[] {
	const predecessors = new Map<string, Set<string>>();
	for (const [from, value] of Object.entries(adj)) {
		for (const { state } of Object.values(value.transitions)) {
			const to = spec.serialize(state);
			let set = predecessors.get(to);
			if (!set) {
				set = new Set();
				predecessors.set(to, set);
			}
			set.add(from);
		}
	}
	const reached = new Set(Object.keys(adj).filter((key) => home(adj[key]?.state)));
	const queue = [...reached];
	while (queue.length) {
		const key = queue.shift() as string;
		for (const previous of predecessors.get(key) ?? []) {
			if (!reached.has(previous)) {
				reached.add(previous);
				queue.push(previous);
			}
		}
	}
	return Object.keys(adj).filter((key) => !reached.has(key));
}

/** Key of a transition definition: `<source id>|<event type>|<index among the candidates>`. */
export function transitionKey(t: {
	source: { id: string; always?: unknown[]; transitions: Map<string, unknown[]> };
	eventType: string;
}): string {
	const list = t.eventType === "" ? (t.source.always ?? []) : (t.source.transitions.get(t.eventType) ?? []);
	return `${t.source.id}|${t.eventType}|${list.indexOf(t)}`;
}

/** Every transition definition of a machine, as keys. */
export function allTransitionKeys(machine: AnyStateMachine): string[] {
	const keys: string[] = [];
	const walk = (node: AnySnapshot) => {
		(node.always ?? []).forEach((_: unknown, i: number) => {
			keys.push(`${node.id}||${i}`);
		});
		for (const [eventType, list] of node.transitions as Map<string, unknown[]>) {
			list.forEach((_, i) => {
				keys.push(`${node.id}|${eventType}|${i}`);
			});
		}
		for (const child of Object.values(node.states)) walk(child);
	};
	walk(machine.root);
	return keys;
}

/** Transition keys that fired in a harness so far (from `@xstate.microstep` of the root actor). */
export function firedTransitions(inspection: readonly InspectionEvent[], rootSessionId: string): string[] {
	const keys: string[] = [];
	for (const event of inspection) {
		if (event.type !== "@xstate.microstep") continue;
		if ((event.actorRef as unknown as { sessionId: string }).sessionId !== rootSessionId) continue;
		for (const t of (event as unknown as { _transitions: Parameters<typeof transitionKey>[0][] })._transitions) {
			keys.push(transitionKey(t));
		}
	}
	return keys;
}

let uniqueCounter = 0;

/** Applies one traversal event to a live harness: resolves/rejects fakes, advances the clock, or sends it. */
export async function applyEvent(h: Harness<{ type: string }>, event: EventObject & Record<string, unknown>) {
	const type = event.type;
	if (type === "xstate.init") return; // the path's first step: the actor is already started
	if (type.startsWith("xstate.done.actor.") || type.startsWith("xstate.error.actor.")) {
		const done = type.startsWith("xstate.done.actor.");
		const id = type.slice(done ? "xstate.done.actor.".length : "xstate.error.actor.".length);
		if (id.endsWith(".*")) {
			// Wildcard handlers (spawned children): resolve a pending spawned child if there is one.
			const prefix = id.slice(0, -1);
			const pending = [...h.fakes.invocations].reverse().find((i) => !i.settled && i.id.startsWith(prefix));
			if (pending) {
				if (done) pending.resolve(event.output ?? { disposition: "queued" });
				else pending.reject(new Error("fake spawned failure"));
				await flushAll();
			} else {
				await h.send(event);
			}
			return;
		}
		if (!h.fakes.pending(id)) {
			// A completion handled in every state (a spawned child's) with no such child running: deliver it bare.
			await h.send(event);
			return;
		}
		if (done) await h.resolve(id, event.output);
		else await h.reject(id, event.error ?? new Error(`fake ${id} failure`));
		return;
	}
	const answer = /^(PREFLIGHT|RUN|BEFORE_SETTLE|SETTLE)_(DONE|FAILED)$/.exec(type);
	if (answer) {
		// The machine's answers to its requests settle the fake invocation recorded for the request.
		const src = { PREFLIGHT: "preflight", RUN: "run", BEFORE_SETTLE: "beforeSettle", SETTLE: "settle" }[answer[1]!]!;
		if (!h.fakes.pending(src)) {
			// An answer a state ignores (its request was answered before): deliver it bare.
			await h.send(event);
			return;
		}
		if (answer[2] === "DONE") await h.resolve(src, event.output);
		else await h.reject(src, event.error ?? new Error(`fake ${src} failure`));
		return;
	}
	if (type.startsWith("xstate.after.")) {
		const raise = [...h.inspection]
			.reverse()
			.find(
				(e) =>
					e.type === "@xstate.action" &&
					e.action.type === "xstate.raise" &&
					(e.action.params as { event?: { type?: string } })?.event?.type === type,
			) as { action: { params: { delay: number } } } | undefined;
		if (!raise) throw new Error(`no timer scheduled for ${type}`);
		await h.advance(raise.action.params.delay);
		return;
	}
	if (type === "PROMPT") {
		const request = (event as unknown as { request: { requestId: string } }).request;
		await h.send({ ...event, request: { ...request, requestId: `${request.requestId}-${++uniqueCounter}` } });
		return;
	}
	await h.send(event);
}

function flushAll(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Replays `steps` on a fresh live actor, checking after each step that the live state equals the
 * traversal's. Returns the harness (for further assertions) and the transitions that fired.
 */
export async function replay(spec: ModelSpec, steps: readonly { event: EventObject; state: AnySnapshot }[]) {
	const h = spec.harness();
	let beforeLast = { inspection: 0, emitted: 0 };
	for (const [index, step] of steps.entries()) {
		if (index === steps.length - 1) beforeLast = { inspection: h.inspection.length, emitted: h.emitted.length };
		await applyEvent(h, step.event as EventObject & Record<string, unknown>);
		const live = pathOf(h.actor.getSnapshot().value);
		const expected = pathOf(step.state.value);
		if (live !== expected) {
			throw new Error(
				`live actor diverged from the model at step ${index} (${step.event.type}): live ${live}, model ${expected}`,
			);
		}
	}
	return {
		h,
		fired: firedTransitions(h.inspection, h.actor.sessionId),
		/** Transitions the last step fired, and what the machine emitted during it. */
		lastStep: {
			fired: firedTransitions(h.inspection.slice(beforeLast.inspection), h.actor.sessionId),
			emitted: h.emitted.slice(beforeLast.emitted) as { type: string; [key: string]: unknown }[],
		},
	};
}
