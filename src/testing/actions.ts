/**
 * Random user actions (steer, follow-up, abort, abortRetry, clearQueue) keyed to points of a run —
 * "at the 2nd `tool_execution_start`", "at event 14" — and a runner that fires each one from an
 * event listener when the run gets there. Actions scheduled up front almost never land inside a
 * tool or a retry backoff; keyed to events, they do.
 */
import fc from "fast-check";
import type { AgentSessionEvent, AgentSessionEventType } from "../session/events.js";
import type { Harness } from "./harness.js";

/** What a {@link SessionAction} does to the session. */
export type SessionActionKind = "steer" | "followUp" | "abort" | "abortRetry" | "clearQueue";

/** When a {@link SessionAction} fires: at the `occurrence`-th (0-based) event of a type, or at the `eventIndex`-th event overall. */
export type SessionActionTrigger = { event: AgentSessionEventType; occurrence: number } | { eventIndex: number };

/**
 * One action and when it fires. fast-check prints it in one line, e.g.
 * `abort() at tool_execution_start#0` or `steer("steer 1") at event 14`.
 */
export interface SessionAction {
	kind: SessionActionKind;
	/** The text of a steer / follow-up: unique per action list (`steer 1`, `followUp 2`), so queue accounting can tell them apart. */
	text?: string;
	at: SessionActionTrigger;
}

/** Options of {@link sessionActionsArbitrary}. */
export interface SessionActionsOptions {
	/** Kinds to draw from (default steer, followUp, abort, abortRetry). */
	kinds?: readonly SessionActionKind[];
	/** Event types actions are keyed to (default: the points of a run where something is in flight, see {@link DEFAULT_ACTION_EVENTS}). */
	events?: readonly AgentSessionEventType[];
	/** Highest occurrence of an event type an action waits for (default 2: the 1st, 2nd or 3rd). */
	maxOccurrence?: number;
	/** Highest overall event index an action waits for (default 40). */
	maxEventIndex?: number;
	/**
	 * How often a trigger is an overall event index rather than an event type, against 3 for event
	 * types (default 1; 0: event types only, so every action lands on one of `events`).
	 */
	eventIndexWeight?: number;
	/** Number of actions (default 1–4). */
	minLength?: number;
	maxLength?: number;
}

/** The event types actions are keyed to by default. */
export const DEFAULT_ACTION_EVENTS: readonly AgentSessionEventType[] = [
	"turn_start",
	"message_start",
	"message_update",
	"message_end",
	"tool_execution_start",
	"tool_execution_end",
	"turn_end",
	"agent_end",
	"auto_retry_start",
	"agent_settled",
];

const DEFAULT_KINDS: readonly SessionActionKind[] = ["steer", "followUp", "abort", "abortRetry"];

/** The one-line form of an action (`abort() at tool_execution_start#0`). */
export function describeAction(action: SessionAction): string {
	const at = "event" in action.at ? `${action.at.event}#${action.at.occurrence}` : `event ${action.at.eventIndex}`;
	const argument = action.text === undefined ? "" : JSON.stringify(action.text);
	return `${action.kind}(${argument}) at ${at}`;
}

function printable(action: SessionAction): SessionAction {
	Object.defineProperty(action, fc.toStringMethod, { value: () => describeAction(action), enumerable: false });
	return action;
}

/**
 * A random list of session actions, each keyed to a point of the run. Run them with
 * {@link applyActionsOnEvents}; an action whose point never comes does not fire.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 *
 * await fc.assert(
 *   fc.asyncProperty(fauxScriptArbitrary(), sessionActionsArbitrary(), async (script, actions) => {
 *     const h = await createHarness({ simulatedClock: true });
 *     h.setResponses(script.map((step) => step.message));
 *     const run = applyActionsOnEvents(h, actions);
 *     await h.settle(h.session.prompt("go"));
 *     await run.done();
 *     await h.settle(h.session.waitForIdle());
 *     expect(harnessViolations(h)).toEqual([]);
 *     h.cleanup();
 *   }),
 *   { numRuns: 10, seed: 1 },
 * );
 * ```
 */
export function sessionActionsArbitrary(options: SessionActionsOptions = {}): fc.Arbitrary<SessionAction[]> {
	const kinds = options.kinds ?? DEFAULT_KINDS;
	const events = options.events ?? DEFAULT_ACTION_EVENTS;
	const byType = fc.record({
		event: fc.constantFrom(...events),
		occurrence: fc.nat({ max: options.maxOccurrence ?? 2 }),
	});
	const indexWeight = options.eventIndexWeight ?? 1;
	const trigger: fc.Arbitrary<SessionActionTrigger> =
		indexWeight <= 0
			? byType
			: fc.oneof(
					{ weight: 3, arbitrary: byType },
					{ weight: indexWeight, arbitrary: fc.record({ eventIndex: fc.nat({ max: options.maxEventIndex ?? 40 }) }) },
				);
	return fc
		.array(fc.tuple(fc.constantFrom(...kinds), trigger), {
			minLength: options.minLength ?? 1,
			maxLength: options.maxLength ?? 4,
		})
		.map((drawn) =>
			drawn.map(([kind, at], index) =>
				printable(kind === "steer" || kind === "followUp" ? { kind, text: `${kind} ${index}`, at } : { kind, at }),
			),
		);
}

/** An action that fired, and what the run was doing at that moment. */
export interface FiredAction {
	action: SessionAction;
	/** The overall index (0-based) and type of the event it fired at. */
	eventIndex: number;
	event: AgentSessionEventType;
	/** Tool calls between `tool_execution_start` and `tool_execution_end` then. */
	toolsRunning: number;
	/** True between `auto_retry_start` and the retried run's `agent_start` (or `auto_retry_end`): a backoff. */
	inRetryBackoff: boolean;
	/** Set once the call settled, if it rejected (e.g. a steer refused). */
	error?: unknown;
}

/** What {@link applyActionsOnEvents} returns. */
export interface ActionRun {
	/** The actions fired so far, in firing order. */
	readonly fired: readonly FiredAction[];
	/** The actions whose point has not come (yet). */
	pending(): SessionAction[];
	/** Stops listening and waits for every fired call (a steer's promise, an abort's) to settle; rejections land in `error`. */
	done(): Promise<void>;
}

/**
 * Fires each of `actions` from a session listener at the event it is keyed to, in list order when
 * several share one: `steer` / `followUp` queue their text, `abort()` aborts (during a tool, a
 * backoff, a compaction…), `abortRetry()` cancels an announced retry, `clearQueue()` drops what is
 * queued (recorded in `h.clearedQueue`). Counting starts with the first event after this call.
 *
 * @example
 * ```ts
 * const h = await createHarness({ simulatedClock: true });
 * h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }), fauxAssistantMessage("ok")]);
 * const run = applyActionsOnEvents(h, [{ kind: "steer", text: "use tabs", at: { event: "auto_retry_start", occurrence: 0 } }]);
 * await h.settle(h.session.prompt("hi"));
 * await run.done();
 * run.fired[0]?.inRetryBackoff; // true: the steer was queued during the backoff
 * h.cleanup();
 * ```
 */
export function applyActionsOnEvents(
	harness: Pick<Harness, "session"> & Partial<Pick<Harness, "events">>,
	actions: readonly SessionAction[],
): ActionRun {
	const { session } = harness;
	const firstEvent = harness.events?.length ?? 0;
	const waiting = new Set(actions.keys());
	const occurrences = new Map<AgentSessionEventType, number>();
	const fired: FiredAction[] = [];
	const calls: Promise<void>[] = [];
	const running = new Set<string>();
	let eventIndex = 0;
	let inRetryBackoff = false;
	const fire = (action: SessionAction, event: AgentSessionEvent, index: number) => {
		const record: FiredAction = {
			action,
			eventIndex: index,
			event: event.type,
			toolsRunning: running.size,
			inRetryBackoff,
		};
		fired.push(record);
		const call = async () => {
			if (action.kind === "steer") await session.steer(action.text ?? "steer");
			else if (action.kind === "followUp") await session.followUp(action.text ?? "followUp");
			else if (action.kind === "abort") await session.abort();
			else if (action.kind === "abortRetry") session.abortRetry();
			else session.clearQueue();
		};
		calls.push(
			call().catch((error: unknown) => {
				record.error = error;
			}),
		);
	};
	const unsubscribe = session.subscribe((event) => {
		const index = eventIndex++;
		const occurrence = occurrences.get(event.type) ?? 0;
		occurrences.set(event.type, occurrence + 1);
		if (event.type === "tool_execution_start") running.add(event.toolCallId);
		else if (event.type === "tool_execution_end") running.delete(event.toolCallId);
		else if (event.type === "auto_retry_start") inRetryBackoff = true;
		else if (event.type === "agent_start" || event.type === "auto_retry_end") inRetryBackoff = false;
		for (const actionIndex of [...waiting]) {
			const action = actions[actionIndex]!;
			const due =
				"event" in action.at
					? action.at.event === event.type && action.at.occurrence === occurrence
					: action.at.eventIndex === index;
			if (!due) continue;
			waiting.delete(actionIndex);
			fire(action, event, index);
		}
	});
	const actionRun: ActionRun = {
		fired,
		pending: () => [...waiting].map((index) => actions[index]!),
		async done() {
			unsubscribe();
			await Promise.all(calls);
		},
	};
	actionRunStarts.set(actionRun, firstEvent);
	return actionRun;
}

/** Where each {@link ActionRun}'s counting starts in its harness's `events`, for `h.transcript(run)`. */
const actionRunStarts = new WeakMap<ActionRun, number>();

/** The index in `h.events` of the event `run` counts as 0 (0 for a run made without the harness's events). */
export function actionRunStart(run: ActionRun): number {
	return actionRunStarts.get(run) ?? 0;
}
