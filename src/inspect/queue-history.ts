/**
 * The fate of every steering / follow-up message a trace saw queued, read from the machine's
 * `queue_changed` events: when and in which state it was queued, and whether it was delivered,
 * cleared, or is still waiting when the trace ends. Pure; walks the trace once when asked (never
 * on the per-turn path).
 */
import type { JsonValue, LifecycleInspectionEvent } from "./lifecycle-inspector.js";
import type { LifecycleTrace, TraceRecorder } from "./trace.js";

/** A point of a trace: the event's index in `events`, its time and the state its machine was in. */
export interface TracePoint {
	/** Index in the trace's `events`. */
	index: number;
	/** The event's `at` (ms, the inspector's clock). */
	at: number;
	/** The machine's state path then (`retrying`, `running.working`); null before the trace saw one. */
	state: string | null;
	/** While a run is on: its 1-based index in the operation and why it runs (`2 (retry)`). */
	run?: string;
}

/** One queued message and what became of it ({@link queueHistory}). */
export interface QueuedMessage {
	/** Machine id of the session's prompt operation (`promptOperation`). */
	machine: string;
	queue: "steering" | "followUp";
	/** The session's shortened copy of the text (its first 60 characters). */
	text: string;
	queued: TracePoint;
	/**
	 * - `delivered`: its user message started (in `settled`'s run);
	 * - `cleared`: dropped by `clearQueue()`;
	 * - `pending`: still queued when the trace (or its session's part of it) ends — never delivered
	 *   while recorded: after a dispose, on the old session's `getSteeringMessages()` /
	 *   `getFollowUpMessages()`; otherwise sent with the next prompt.
	 */
	fate: "delivered" | "cleared" | "pending";
	/** Where it was delivered or cleared (absent while `pending`). */
	settled?: TracePoint;
	/** A delivery a dispose cut short and put back on its list (it is `pending` again). */
	restored?: TracePoint;
}

/**
 * Every message the trace saw queued, in the order queued, each with its fate — the answer to "what
 * was queued when, and was anything lost?". Texts pair queue → delivery first in, first out per queue
 * (as the session delivers them); a new actor of the machine (a replacing session in a `settle
 * --trace` file) starts over, and what its predecessor still held stays `pending`. Traces saved
 * before queue changes were recorded give `[]`.
 *
 * @example
 * ```ts
 * const trace = session.trace();
 * await session.prompt("fix the test");
 * trace.stop();
 * for (const message of queueHistory(trace)) {
 *   if (message.fate === "pending") console.log(`never delivered: ${message.queue} "${message.text}"`);
 * }
 * ```
 */
export function queueHistory(
	trace: LifecycleTrace | TraceRecorder | readonly LifecycleInspectionEvent[],
): QueuedMessage[] {
	const events: readonly LifecycleInspectionEvent[] = Array.isArray(trace)
		? trace
		: (trace as LifecycleTrace | TraceRecorder).events;
	const fallbackMachine = Array.isArray(trace) ? undefined : (trace as LifecycleTrace).machine;
	const out: QueuedMessage[] = [];
	/** Per machine: its state then, its open (pending) messages and its last deliveries (for `restored`). */
	const actors = new Map<
		string,
		{ state: string | null; run?: string; open: QueuedMessage[]; delivered: QueuedMessage[] }
	>();
	events.forEach((event, index) => {
		const machine = event.machine ?? fallbackMachine ?? "";
		let actor = actors.get(machine);
		if (event.kind === "state" && event.from === null) {
			// A new actor (or the recording's first look at one): its queues are its own.
			actor = undefined;
		}
		if (!actor) {
			actor = { state: null, open: [], delivered: [] };
			actors.set(machine, actor);
		}
		if (event.kind === "state") {
			actor.state = event.to;
			const { runIndex, runCause } = event.details;
			actor.run =
				event.to.startsWith("running") && typeof runIndex === "number"
					? `${runIndex}${typeof runCause === "string" ? ` (${runCause})` : ""}`
					: undefined;
			return;
		}
		if (event.kind !== "emitted" || event.type !== "queue_changed") return;
		const change = queueChangeOf(event.payload);
		if (!change) return;
		const point: TracePoint = { index, at: event.at, state: actor.state, ...(actor.run ? { run: actor.run } : {}) };
		switch (change.change) {
			case "queued": {
				if (!change.queue) return;
				const message: QueuedMessage = {
					machine,
					queue: change.queue,
					text: change.text ?? "",
					queued: point,
					fate: "pending",
				};
				out.push(message);
				actor.open.push(message);
				return;
			}
			case "delivered": {
				const inQueue = actor.open.filter((m) => m.queue === change.queue);
				const message = inQueue.find((m) => m.text === change.text) ?? inQueue[0];
				if (!message) return;
				actor.open.splice(actor.open.indexOf(message), 1);
				message.fate = "delivered";
				message.settled = point;
				actor.delivered.push(message);
				return;
			}
			case "restored": {
				const message = actor.delivered.findLast((m) => m.queue === change.queue && m.text === change.text);
				if (!message) return;
				actor.delivered.splice(actor.delivered.indexOf(message), 1);
				message.fate = "pending";
				delete message.settled;
				message.restored = point;
				actor.open.unshift(message);
				return;
			}
			case "cleared":
				for (const message of actor.open) {
					message.fate = "cleared";
					message.settled = point;
				}
				actor.open = [];
				return;
		}
	});
	return out;
}

interface QueueChangeLike {
	change: "queued" | "delivered" | "cleared" | "restored";
	queue?: "steering" | "followUp";
	text?: string;
}

function queueChangeOf(payload: JsonValue | undefined): QueueChangeLike | undefined {
	if (!payload || typeof payload !== "object" || Array.isArray(payload)) return undefined;
	const { change, queue, text } = payload as { [key: string]: JsonValue };
	if (change !== "queued" && change !== "delivered" && change !== "cleared" && change !== "restored") return undefined;
	const out: QueueChangeLike = { change };
	if (queue === "steering" || queue === "followUp") out.queue = queue;
	if (typeof text === "string") out.text = text;
	return out;
}
