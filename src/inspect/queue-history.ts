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
	return pairQueuedMessages(events, fallbackMachine);
}

/**
 * What of `event` {@link queueHistory} reads; undefined when nothing. The live inspector sends just
 * this with each event (not every event whole: a slow page is dropped by bytes), and its page runs
 * the same pairing on it.
 *
 * @example
 * ```ts
 * const trace = session.trace();
 * await session.prompt("fix the test");
 * trace.stop();
 * const inputs = trace.events.flatMap((event: LifecycleInspectionEvent) => queueHistoryInput(event) ?? []);
 * queueHistory(inputs); // the same fates as queueHistory(trace.events), other indices
 * ```
 */
export function queueHistoryInput(event: LifecycleInspectionEvent): LifecycleInspectionEvent | undefined {
	if (event.kind === "emitted" && event.type === "queue_changed") return event;
	if (event.kind !== "state") return undefined;
	const { runIndex, runCause } = event.details;
	const { seq, at, machine, from, to, trigger } = event;
	return {
		kind: "state",
		seq,
		at,
		machine,
		from,
		to,
		value: null,
		entered: [],
		exited: [],
		trigger,
		details: {
			...(runIndex !== undefined ? { runIndex } : {}),
			...(runCause !== undefined ? { runCause } : {}),
		},
	};
}

/**
 * The pairing rule itself. Self-contained — no name from outside it, no named inner function — because
 * the live inspector page runs this very function: {@link QUEUE_HISTORY_JS} ships its source.
 */
function pairQueuedMessages(
	events: readonly LifecycleInspectionEvent[],
	fallbackMachine: string | undefined,
): QueuedMessage[] {
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
		const payload = event.payload;
		if (!payload || typeof payload !== "object" || Array.isArray(payload)) return;
		const { change: kind, queue, text } = payload as { [key: string]: JsonValue };
		const change = {
			change: kind,
			queue: queue === "steering" || queue === "followUp" ? (queue as QueuedMessage["queue"]) : undefined,
			text: typeof text === "string" ? text : undefined,
		};
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

/**
 * How the viewers word one queued message (times relative to `origin`): where it was queued, and its
 * fate. `live`: the session goes on, so a pending message is not yet delivered rather than never.
 * Self-contained: the live page runs it too ({@link QUEUE_HISTORY_JS}).
 */
export function queuedMessageText(
	message: QueuedMessage,
	origin: number,
	live = false,
): { queued: string; fate: string } {
	const where = (p: TracePoint) =>
		`+${Math.round(p.at - origin)}ms in ${p.run !== undefined ? `run ${p.run}` : (p.state ?? "?")}`;
	const what = `${message.queue === "steering" ? "steer" : "follow-up"} ${JSON.stringify(message.text)}`;
	const restored = message.restored ? `, put back ${where(message.restored)}` : "";
	const fate =
		message.fate === "pending" || !message.settled
			? live
				? `pending${restored}: still queued`
				: `never delivered${restored}: still queued when ${message.machine}'s part of the trace ends`
			: `${message.fate} ${where(message.settled)}`;
	return { queued: `${what} queued ${where(message.queued)}`, fate };
}

/** The panel's heading: `Queued messages: 3 (2 delivered, 1 never delivered)`. Self-contained, as above. */
export function queueSummaryText(messages: readonly QueuedMessage[], live = false): string {
	const count = (fate: QueuedMessage["fate"]) => messages.filter((m) => m.fate === fate).length;
	const parts = [`${count("delivered")} delivered`];
	if (count("cleared")) parts.push(`${count("cleared")} cleared`);
	if (count("pending")) parts.push(`${count("pending")} ${live ? "pending" : "never delivered"}`);
	return `Queued messages: ${messages.length} (${parts.join(", ")})`;
}

/**
 * The same three functions as page script, for the live inspector page (a constant: its hash is
 * pinned in the page's CSP): `pairQueuedMessages(events, fallbackMachine)`, `queuedMessageText` and
 * `queueSummaryText`. One pairing rule for the offline viewer, `queueHistory` and the live page.
 */
export const QUEUE_HISTORY_JS = `const pairQueuedMessages = (${pairQueuedMessages.toString()});
const queuedMessageText = (${queuedMessageText.toString()});
const queueSummaryText = (${queueSummaryText.toString()});
`;
