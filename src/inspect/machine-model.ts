/**
 * A neutral, deterministic description of an XState v5 machine definition (states, transitions,
 * guards, delays, actions, invocations) that the Mermaid and SVG exporters render. Reads only the
 * definition; never creates an actor.
 */
import type { AnyStateMachine } from "xstate";
import { SettleError } from "../errors.js";

/** One state of a machine. */
export interface StateModel {
	/** Full XState id, e.g. `promptOperation.running.working`. */
	id: string;
	/** Key within the parent, e.g. `working`. */
	key: string;
	/** Keys from the root, e.g. `["running", "working"]` (empty for the root). */
	path: string[];
	type: "atomic" | "compound" | "parallel" | "final" | "history";
	description?: string;
	/** Id of the initial child (compound states). */
	initial?: string;
	entry: string[];
	exit: string[];
	invokes: { id: string; src: string }[];
	children: StateModel[];
	/** Transitions whose source is this state, in definition order. */
	transitions: TransitionModel[];
}

/** One transition (one candidate of an event's transition list). */
export interface TransitionModel {
	sourceId: string;
	/** Raw XState event type (`""` for eventless `always`). */
	eventType: string;
	/** Human form: `PROMPT`, `always`, `after retryDelay`, `done(run)`, `error(run)`. */
	trigger: string;
	guard?: string;
	/** Delay name or milliseconds for `after` transitions. */
	delay?: string;
	actions: string[];
	/** Target state ids; empty for a targetless (internal) transition. */
	targets: string[];
	/** 1-based rank when several candidates share the source and event (first enabled wins). */
	priority?: number;
	reenter: boolean;
}

/** A whole machine. */
export interface MachineModel {
	id: string;
	description?: string;
	root: StateModel;
}

interface XStateNodeLike {
	id: string;
	key: string;
	path: string[];
	type: StateModel["type"];
	description?: string;
	states: Record<string, XStateNodeLike>;
	initial?: { target?: XStateNodeLike[] };
	entry: unknown[];
	exit: unknown[];
	invoke: { id: string; src: unknown }[];
	transitions: Map<string, XTransitionLike[]>;
	always?: XTransitionLike[];
}

interface XTransitionLike {
	eventType: string;
	target?: XStateNodeLike[] | undefined;
	guard?: unknown;
	actions: unknown[];
	reenter?: boolean;
	delay?: string | number;
}

/**
 * Describes a machine definition. Deterministic: states and transitions keep definition order
 * (which is meaningful: the first enabled candidate wins).
 *
 * @example
 * ```ts
 * const model = describeMachine(promptOperationMachine);
 * model.root.children.map((s) => s.key); // ["idle", "preflight", "running", …]
 * ```
 */
export function describeMachine(machine: AnyStateMachine): MachineModel {
	const root = (machine as { root?: unknown } | null | undefined)?.root as XStateNodeLike | undefined;
	if (!root || typeof root !== "object" || typeof root.id !== "string") {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Expected an XState machine (createMachine(…) or setup(…).createMachine(…)), got ${describeValue(machine)}.`,
		);
	}
	const model: MachineModel = { id: root.id, root: describeState(root) };
	if (root.description) model.description = root.description;
	return model;
}

function describeState(node: XStateNodeLike): StateModel {
	const state: StateModel = {
		id: node.id,
		key: node.key,
		path: [...node.path],
		type: node.type,
		entry: namedActions(node.entry),
		exit: namedActions(node.exit),
		invokes: node.invoke.map((invoke) => ({
			id: invoke.id,
			src: typeof invoke.src === "string" ? invoke.src : "(inline)",
		})),
		children: Object.values(node.states).map(describeState),
		transitions: [],
	};
	if (node.description) state.description = node.description;
	const initial = node.initial?.target?.[0];
	if (initial) state.initial = initial.id;
	const lists: XTransitionLike[][] = [];
	if (node.always?.length) lists.push(node.always);
	for (const list of node.transitions.values()) lists.push(list);
	for (const list of lists) {
		list.forEach((transition, index) => {
			state.transitions.push(describeTransition(node, transition, list.length > 1 ? index + 1 : undefined));
		});
	}
	return state;
}

function describeTransition(source: XStateNodeLike, t: XTransitionLike, priority: number | undefined): TransitionModel {
	const model: TransitionModel = {
		sourceId: source.id,
		eventType: t.eventType,
		trigger: triggerLabel(t.eventType),
		actions: namedActions(t.actions),
		targets: (t.target ?? []).map((target) => target.id),
		reenter: t.reenter === true,
	};
	const guard = guardLabel(t.guard);
	if (guard) model.guard = guard;
	if (t.delay !== undefined) model.delay = String(t.delay);
	if (priority !== undefined) model.priority = priority;
	return model;
}

/**
 * The human form of an XState event type: `always`, `after <delay>`, `done(<actor>)`,
 * `error(<actor>)`; other types unchanged.
 *
 * @example
 * ```ts
 * triggerLabel(""); // "always"
 * triggerLabel("xstate.after.2000.promptOperation.retrying"); // "after 2000"
 * triggerLabel("xstate.done.actor.compact"); // "done(compact)"
 * triggerLabel("RUN_DONE"); // "RUN_DONE"
 * ```
 */
export function triggerLabel(eventType: string): string {
	if (eventType === "") return "always";
	if (eventType.startsWith("xstate.after.")) {
		const [, , delay] = eventType.split(".");
		return `after ${delay}`;
	}
	if (eventType.startsWith("xstate.done.actor.")) return `done(${eventType.slice("xstate.done.actor.".length)})`;
	if (eventType.startsWith("xstate.error.actor.")) return `error(${eventType.slice("xstate.error.actor.".length)})`;
	if (eventType.startsWith("xstate.done.state.")) return `done(${eventType.slice("xstate.done.state.".length)})`;
	return eventType;
}

/**
 * `EVENT (n) [guard] / action, action` — the label both exporters put on an edge.
 *
 * @example
 * ```ts
 * const [first] = allTransitions(describeMachine(promptOperationMachine));
 * transitionLabel(first!); // "UPDATE_RETRY_SETTINGS / updateRetrySettings"
 * ```
 */
export function transitionLabel(t: TransitionModel): string {
	let label = t.trigger;
	if (t.priority !== undefined) label += ` (${t.priority})`;
	if (t.guard) label += ` [${t.guard}]`;
	if (t.actions.length) label += ` / ${t.actions.join(", ")}`;
	return label;
}

/**
 * The name of a transition's guard as the diagrams print it (`canRetry`, `not isIdle`, `a and b`);
 * undefined for a transition without a guard.
 */
export function guardLabel(guard: unknown): string | undefined {
	if (guard === undefined || guard === null) return undefined;
	if (typeof guard === "string") return guard;
	if (typeof guard === "object" && "type" in guard) return String((guard as { type: unknown }).type);
	if (typeof guard === "function") {
		const fn = guard as { type?: string; guards?: unknown[]; guard?: unknown; name?: string };
		if (fn.type === "xstate.not") return `not ${guardLabel(fn.guards?.[0] ?? fn.guard) ?? "guard"}`;
		if (fn.type === "xstate.and" || fn.type === "xstate.or") {
			const op = fn.type === "xstate.and" ? " and " : " or ";
			return (fn.guards ?? []).map((g) => guardLabel(g) ?? "guard").join(op);
		}
		return fn.type ?? (fn.name || "guard");
	}
	return "guard";
}

/** Named actions with their static params (`setRunCause(retry)`); XState's own timer bookkeeping is left out. */
function namedActions(actions: unknown[]): string[] {
	const names: string[] = [];
	for (const action of actions) {
		if (typeof action === "string") {
			names.push(action);
		} else if (typeof action === "function") {
			const type = (action as { type?: string }).type;
			if (type === "xstate.raise" || type === "xstate.cancel") continue;
			names.push(type ?? (action.name || "(inline)"));
		} else if (action && typeof action === "object" && "type" in action) {
			const { type, params } = action as { type: string; params?: unknown };
			names.push(params && typeof params === "object" ? `${type}(${staticParams(params)})` : type);
		}
	}
	return names;
}

function staticParams(params: object): string {
	return Object.values(params)
		.map((value) =>
			typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : "…",
		)
		.join(", ");
}

/**
 * All states depth-first in definition order, root first.
 *
 * @example
 * ```ts
 * const model = describeMachine(promptOperationMachine);
 * allStates(model).map((state) => state.path.join(".")); // ["", "idle", "preflight", "running", …]
 * ```
 */
export function allStates(model: MachineModel): StateModel[] {
	const out: StateModel[] = [];
	const walk = (state: StateModel) => {
		out.push(state);
		state.children.forEach(walk);
	};
	walk(model.root);
	return out;
}

/**
 * All transitions of a machine, in state then definition order.
 *
 * @example
 * ```ts
 * const model = describeMachine(promptOperationMachine);
 * const events = new Set(allTransitions(model).map((t) => t.eventType)); // every event the machine handles
 * ```
 */
export function allTransitions(model: MachineModel): TransitionModel[] {
	return allStates(model).flatMap((state) => state.transitions);
}

/** Where a transition is drawn. */
export type PlacedTransition =
	| {
			kind: "edge";
			transition: TransitionModel;
			/** The deepest state containing both ends (the diagram level the edge lives on). */
			container: StateModel;
			/** Actual source and target states. */
			source: StateModel;
			target: StateModel;
			/** Source and target lifted to direct children of `container`. */
			from: StateModel;
			to: StateModel;
	  }
	| {
			/** Targetless, a self-transition, or one into/out of its own subtree: listed inside the state. */
			kind: "internal";
			transition: TransitionModel;
			state: StateModel;
			/** Key path of the target when there is one, e.g. `aborting`. */
			targetLabel?: string;
	  };

/**
 * Decides for every transition whether it is an edge (and on which nesting level) or an internal
 * line written inside its state, in definition order.
 *
 * @example
 * ```ts
 * const placed = placeTransitions(describeMachine(promptOperationMachine));
 * for (const p of placed) if (p.kind === "edge") console.log(`${p.source.key} → ${p.target.key}: ${transitionLabel(p.transition)}`);
 * ```
 */
export function placeTransitions(model: MachineModel): PlacedTransition[] {
	const states = allStates(model);
	const byId = new Map(states.map((state) => [state.id, state]));
	const byPath = new Map(states.map((state) => [state.path.join("\u0000"), state]));
	const at = (state: StateModel, depth: number) => byPath.get(state.path.slice(0, depth).join("\u0000"));
	const placed: PlacedTransition[] = [];
	for (const transition of allTransitions(model)) {
		const source = byId.get(transition.sourceId);
		if (!source) continue;
		if (transition.targets.length === 0) {
			placed.push({ kind: "internal", transition, state: source });
			continue;
		}
		for (const targetId of transition.targets) {
			const target = byId.get(targetId);
			if (!target) continue;
			if (isAncestorOrSelf(source, target) || isAncestorOrSelf(target, source)) {
				placed.push({
					kind: "internal",
					transition,
					state: source,
					targetLabel: target.path.slice(source.path.length).join(".") || target.key,
				});
				continue;
			}
			let depth = 0;
			while (depth < source.path.length && depth < target.path.length && source.path[depth] === target.path[depth])
				depth++;
			const container = at(source, depth) ?? model.root;
			const from = at(source, depth + 1) ?? source;
			const to = at(target, depth + 1) ?? target;
			placed.push({ kind: "edge", transition, container, source, target, from, to });
		}
	}
	return placed;
}

function isAncestorOrSelf(ancestor: StateModel, state: StateModel): boolean {
	return ancestor.path.length <= state.path.length && ancestor.path.every((key, i) => state.path[i] === key);
}

/** Targetless / self transitions of a state as `EVENT [guard] / actions` lines (`→ target` when it has one). */
export function internalTransitionLines(state: StateModel, placed: readonly PlacedTransition[]): string[] {
	const out: string[] = [];
	for (const entry of placed) {
		if (entry.kind !== "internal" || entry.state !== state) continue;
		const label = transitionLabel(entry.transition);
		out.push(entry.targetLabel ? `${label} → ${entry.targetLabel}` : label);
	}
	return out;
}

/** Description (wrapped at `wrap`), invocations, entry/exit actions and internal transitions of a state. */
export function stateDetailLines(state: StateModel, placed: readonly PlacedTransition[], wrap: number): string[] {
	const details: string[] = [];
	if (state.description) details.push(...wrapText(state.description, wrap));
	for (const invoke of state.invokes) {
		details.push(invoke.id === invoke.src ? `invoke ${invoke.src}` : `invoke ${invoke.src} as ${invoke.id}`);
	}
	if (state.entry.length) details.push(`entry / ${state.entry.join(", ")}`);
	if (state.exit.length) details.push(`exit / ${state.exit.join(", ")}`);
	details.push(...internalTransitionLines(state, placed));
	return details;
}

/** Greedy word wrap; words longer than `width` stay whole. */
export function wrapText(text: string, width: number): string[] {
	const out: string[] = [];
	let line = "";
	for (const word of text.split(/\s+/).filter(Boolean)) {
		if (line && line.length + 1 + word.length > width) {
			out.push(line);
			line = word;
		} else {
			line = line ? `${line} ${word}` : word;
		}
	}
	if (line) out.push(line);
	return out;
}

function describeValue(value: unknown): string {
	if (value === null || value === undefined) return String(value);
	if (Array.isArray(value)) return "an array";
	if (typeof value === "object") return "an object without a machine root (a config? pass it to createMachine first)";
	return `a ${typeof value}`;
}

/**
 * The header comment of a generated diagram: where it comes from and, for checked-in files, the
 * command that regenerates it.
 *
 * @example
 * ```ts
 * generatedNote("toSvg", "npm run viz"); // "Generated from … (toSvg). Do not edit: run `npm run viz`."
 * ```
 */
export function generatedNote(exporter: "toSvg" | "toMermaid", regenerateCommand?: string): string {
	const origin = `Generated from the machine definition by settle/inspect (${exporter}).`;
	return regenerateCommand ? `${origin} Do not edit: run \`${regenerateCommand}\`.` : origin;
}
