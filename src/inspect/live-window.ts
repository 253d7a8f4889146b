/**
 * The live inspector's event window: every inspection event gets an id (1, 2, 3, … in arrival
 * order, across machines), the newest `maxEvents` are kept (a trace recorder's bounded window), and
 * a client that reconnects with the last id it saw gets exactly the kept events after it — plus,
 * when some it missed were dropped meanwhile, which ids those were. Pure: no I/O.
 */
import type { LifecycleInspectionEvent } from "./lifecycle-inspector.js";
import { createTraceRecorder } from "./trace.js";

/** Events the live inspector keeps, as a trace does (the oldest are dropped first). */
export const LIVE_INSPECTOR_MAX_EVENTS = 10_000;

/** One event of the live stream with its id. */
export interface LiveEvent {
	id: number;
	event: LifecycleInspectionEvent;
}

/** What a client that saw up to some id gets when it (re)connects. */
export interface LiveResume {
	/** Ids the client missed that are no longer kept (`from`..`to`, inclusive); absent when none. */
	dropped?: { from: number; to: number };
	/** The kept events after the client's id, oldest first. */
	events: LiveEvent[];
}

/** The bounded, id-numbered window of a live inspection stream. */
export interface LiveEventWindow {
	/** Adds an event; returns its id. O(1). */
	push(event: LifecycleInspectionEvent): number;
	/** The newest id given (0 before the first event). */
	readonly lastId: number;
	/** Events dropped at the front so far. */
	readonly dropped: number;
	/**
	 * What a client that has seen every id up to `lastSeen` needs (0 or undefined: it saw nothing).
	 * An id beyond {@link lastId} (a client of an earlier server) counts as nothing seen.
	 */
	since(lastSeen: number | undefined): LiveResume;
	/** The event with this id while it is kept; undefined once dropped (or never given). */
	get(id: number): LifecycleInspectionEvent | undefined;
}

/**
 * Creates an event window keeping the newest `maxEvents` (default 10 000).
 *
 * @example
 * ```ts
 * const window = createLiveEventWindow({ maxEvents: 2 });
 * session.inspect((event) => window.push(event));
 * window.since(0); // { dropped: { from: 1, to: … }, events: [the newest two] } once more arrived
 * ```
 */
export function createLiveEventWindow(options: { maxEvents?: number } = {}): LiveEventWindow {
	const recorder = createTraceRecorder({ maxEvents: options.maxEvents ?? LIVE_INSPECTOR_MAX_EVENTS });
	let lastId = 0;
	return {
		push(event) {
			recorder.observer(event);
			return ++lastId;
		},
		get lastId() {
			return lastId;
		},
		get dropped() {
			return recorder.dropped;
		},
		since(lastSeen) {
			const seen = lastSeen !== undefined && lastSeen <= lastId ? Math.max(0, Math.floor(lastSeen)) : 0;
			// The kept events are ids dropped+1 … lastId.
			const firstKept = recorder.dropped + 1;
			const resume: LiveResume = { events: [] };
			if (seen + 1 < firstKept) resume.dropped = { from: seen + 1, to: firstKept - 1 };
			if (seen >= lastId) return resume;
			const kept = recorder.events;
			const skip = Math.max(0, seen - recorder.dropped);
			resume.events = kept.slice(skip).map((event, i) => ({ id: firstKept + skip + i, event }));
			return resume;
		},
		get(id) {
			if (!Number.isSafeInteger(id) || id <= recorder.dropped || id > lastId) return undefined;
			return recorder.events[id - recorder.dropped - 1];
		},
	};
}

/**
 * Reads an SSE `Last-Event-ID` header: a decimal id (at most 15 digits), or undefined for anything
 * else (absent, empty, garbage), which resumes from the start of the window.
 *
 * @example
 * ```ts
 * parseLastEventId("42"); // 42
 * parseLastEventId("x"); // undefined
 * ```
 */
export function parseLastEventId(header: string | string[] | undefined): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
	return Number(value.trim());
}
