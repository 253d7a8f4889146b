/**
 * Lifecycle traces: record the typed inspection stream into a JSON-serialisable value, read it
 * back, and print it as text. Pure (no I/O); `trace-file.ts` adds save/load.
 */
import { SettleError } from "../errors.js";
import { sliceWholeCharacters } from "../tools/truncate.js";
import type { JsonValue, LifecycleInspectionEvent, StateChangeEvent } from "./lifecycle-inspector.js";

/** Format marker of a saved trace. */
export const TRACE_FORMAT = "settle.lifecycle-trace";
/** Current trace format version. */
export const TRACE_VERSION = 1;

/**
 * A saved lifecycle trace. One trace may hold the events of several actors — e.g. `runtime.trace()`
 * and `settle --trace` record the runtime machine and each session's prompt-operation machine —
 * interleaved in the order they happened; each event names its machine, and an actor's events start
 * with a `state` event from `null` (its first state, or its state when the recording attached).
 */
export interface LifecycleTrace {
	format: typeof TRACE_FORMAT;
	version: typeof TRACE_VERSION;
	/** Machine id of the first recorded event, if any. */
	machine?: string;
	/**
	 * Every machine the events name, in order of first appearance (absent in traces saved before
	 * Settle recorded several machines into one trace, and when there are no events).
	 */
	machines?: string[];
	/** Events dropped at the front because the recorder was full. */
	dropped: number;
	events: LifecycleInspectionEvent[];
	/** A `settle --trace` file's sessions, in order: where each begins in `events` (absent in SDK traces). */
	sessions?: TraceSession[];
}

/** One session of a `settle --trace` file ({@link LifecycleTrace.sessions}). */
export interface TraceSession {
	sessionId: string;
	/** The session file; absent for `--no-session`. */
	sessionFile?: string;
	/** Index in `events` of the session's first event (0 when earlier events were dropped). */
	firstEvent: number;
}

/** Options for {@link createTraceRecorder}. */
export interface TraceRecorderOptions {
	/** Keep at most this many events (oldest dropped first); default 10 000. */
	maxEvents?: number;
}

/**
 * Records a lifecycle stream; pass `recorder.observer` to `session.inspect()` / `inspectActor()` —
 * to several of them (e.g. `runtime.inspect()` and `session.inspect()`) to record their actors into
 * one trace.
 */
export interface TraceRecorder {
	/** The observer to subscribe (bound; safe to pass around). */
	readonly observer: (event: LifecycleInspectionEvent) => void;
	/** Recorded events, oldest first (a copy). */
	readonly events: LifecycleInspectionEvent[];
	/** Events dropped because `maxEvents` was reached. */
	readonly dropped: number;
	/** The trace as a JSON-serialisable value (`JSON.stringify(recorder)` works too). */
	toJSON(): LifecycleTrace;
	/** Forgets everything recorded so far. */
	clear(): void;
}

/**
 * Creates a bounded trace recorder: O(1) per event, never more than `maxEvents` kept.
 *
 * @example
 * ```ts
 * const recorder = createTraceRecorder();
 * const subscription = session.inspect(recorder.observer);
 * await session.prompt("hello");
 * subscription.unsubscribe();
 * console.log(formatTrace(recorder.toJSON()));
 * ```
 */
export function createTraceRecorder(options: TraceRecorderOptions = {}): TraceRecorder {
	const capacity = Math.max(1, Math.floor(options.maxEvents ?? 10_000));
	let buffer: LifecycleInspectionEvent[] = [];
	let start = 0;
	let dropped = 0;
	const ordered = () => (start === 0 ? buffer.slice() : [...buffer.slice(start), ...buffer.slice(0, start)]);
	const recorder: TraceRecorder = {
		observer: (event) => {
			if (buffer.length < capacity) {
				buffer.push(event);
				return;
			}
			buffer[start] = event;
			start = (start + 1) % capacity;
			dropped++;
		},
		get events() {
			return ordered();
		},
		get dropped() {
			return dropped;
		},
		toJSON() {
			const events = ordered();
			const trace: LifecycleTrace = { format: TRACE_FORMAT, version: TRACE_VERSION, dropped, events };
			const machine = events[0]?.machine;
			if (machine !== undefined) trace.machine = machine;
			// Walks the kept events once, when the trace is saved (never per recorded event).
			const machines = [...new Set(events.map((event) => event.machine))];
			if (machines.length > 0) trace.machines = machines;
			return trace;
		},
		clear() {
			buffer = [];
			start = 0;
			dropped = 0;
		},
	};
	return recorder;
}

const KINDS = new Set(["state", "event", "actor", "delay", "emitted"]);

/**
 * Validates a parsed trace (e.g. `JSON.parse` of a saved file). Throws
 * `SettleError("INVALID_ARGUMENT")` saying what is wrong; returns the trace typed otherwise.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 *
 * await saveTrace("run.trace.json", createTraceRecorder());
 * const trace = parseTrace(JSON.parse(readFileSync("run.trace.json", "utf8")));
 * ```
 */
export function parseTrace(value: unknown): LifecycleTrace {
	const fail = (why: string): never => {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Not a Settle lifecycle trace: ${why}. Save traces with saveTrace() or JSON.stringify(recorder.toJSON()).`,
		);
	};
	if (!value || typeof value !== "object" || Array.isArray(value)) {
		return fail(`expected a JSON object, got ${Array.isArray(value) ? "an array" : JSON.stringify(value)}`);
	}
	const trace = value as Partial<LifecycleTrace>;
	if (trace.format !== TRACE_FORMAT) {
		const found = trace.format === undefined ? 'no "format" field' : `"format" ${JSON.stringify(trace.format)}`;
		return fail(`"format" must be "${TRACE_FORMAT}" (found ${found})`);
	}
	if (trace.version !== TRACE_VERSION) {
		const newer = typeof trace.version === "number" && trace.version > TRACE_VERSION;
		return fail(
			`unsupported version ${JSON.stringify(trace.version)} (this Settle reads version ${TRACE_VERSION}${newer ? "; the trace was saved by a newer Settle: open it with that version" : ""})`,
		);
	}
	if (!Array.isArray(trace.events)) return fail(`"events" must be an array`);
	if (
		trace.machines !== undefined &&
		!(Array.isArray(trace.machines) && trace.machines.every((m) => typeof m === "string"))
	) {
		return fail(`"machines" must be an array of machine ids`);
	}
	if (trace.machine !== undefined && typeof trace.machine !== "string") return fail(`"machine" must be a machine id`);
	if (
		trace.sessions !== undefined &&
		!(
			Array.isArray(trace.sessions) &&
			trace.sessions.every(
				(session) =>
					isObject(session) && typeof session.sessionId === "string" && typeof session.firstEvent === "number",
			)
		)
	) {
		return fail(`"sessions" must be an array of {sessionId, firstEvent}`);
	}
	trace.events.forEach((event, index) => {
		const e = event as Partial<LifecycleInspectionEvent> | null;
		if (!e || typeof e !== "object") fail(`event ${index} is not an object`);
		else if (typeof e.kind !== "string" || !KINDS.has(e.kind)) fail(`event ${index} has an unknown kind`);
		else if (typeof e.seq !== "number" || typeof e.at !== "number") fail(`event ${index} needs numeric "seq" and "at"`);
		else if (e.machine !== undefined && typeof e.machine !== "string")
			fail(`event ${index} has a "machine" that is not an id`);
		// What formatLifecycleEvent and the viewer read of a state change: a trace that passes renders.
		else if (e.kind === "state" && (typeof e.to !== "string" || !isObject(e.details))) {
			fail(`state event ${index} needs a "to" state name and a "details" object`);
		}
	});
	return {
		...(trace as LifecycleTrace),
		dropped: typeof trace.dropped === "number" ? trace.dropped : 0,
	};
}

/**
 * One line of text for an event, e.g.
 * `+2000ms  state   postRun → retrying (always (2) [canRetry]) attempt 1/3, delay 2000ms`.
 * The time is `event.at - origin` in ms: pass the time to count from (the first event's `at`, or
 * `Date.now()` when you start watching a session on the default clock). Without `origin` it counts
 * from 0, which suits a `SimulatedClock` but prints a live session's raw epoch milliseconds.
 *
 * @example
 * ```ts
 * const start = Date.now();
 * session.inspect((e) => console.log(formatLifecycleEvent(e, start))); // "+0ms     state   ∅ → idle (inspect)", …
 * ```
 */
export function formatLifecycleEvent(event: LifecycleInspectionEvent, origin = 0): string {
	// At least one space after the time, also past 99,999 ms (a long trace, an epoch time).
	const time = `+${Math.round(event.at - origin)}ms `.padEnd(9);
	switch (event.kind) {
		case "state": {
			const extra = stateExtras(event.to, event.details);
			return `${time}state   ${event.from ?? "∅"} → ${event.to} (${triggerText(event)})${extra ? ` ${extra}` : ""}`;
		}
		case "event": {
			const text =
				runOutcomeText(event.type, event.payload) ??
				entryText(event.type, event.payload) ??
				preSendCompactionText(event.type, event.payload);
			return `${time}event   ${event.type}${text !== undefined ? ` ${text}` : payloadText(event.payload)}`;
		}
		case "actor":
			if (event.root)
				return `${time}actor   ${event.id} stopped${event.state ? ` in ${event.state}` : ""} (the actor itself)`;
			if (event.phase === "done" && event.src === "compact") {
				const text = compactionText(event.output);
				if (text !== undefined) return `${time}actor   ${event.id} done: ${text}`;
			}
			return `${time}actor   ${event.id} ${event.phase}${event.error ? `: ${event.error}` : payloadText(event.output)}`;
		case "delay":
			return `${time}delay   ${event.delay}${event.ms !== undefined ? ` ${event.ms}ms` : ""} ${event.phase} in ${event.state}`;
		case "emitted": {
			const text = retryText(event.type, event.payload) ?? queueText(event.type, event.payload);
			return `${time}emit    ${event.type}${text !== undefined ? ` ${text}` : payloadText(event.payload)}`;
		}
	}
}

/**
 * Whether the trace views (the text of {@link formatTrace}, the trace viewer page, the live
 * inspector page) list `event`: every event but a received `QUEUE_CHANGED`. The machine echoes each
 * one at once as the emitted `queue_changed`, whose line says the same in words (and is what the
 * queue panel links to), so listing both showed every queue change twice. Traces still record both
 * (old and new trace files load alike); only the listing leaves the echo's cause out.
 */
export function shownInTraceViews(event: LifecycleInspectionEvent): boolean {
	return !(event.kind === "event" && event.type === "QUEUE_CHANGED");
}

/**
 * The whole trace as text, one event per line, times relative to the first event: a saved trace,
 * a recorder (`createTraceRecorder()`, `session.trace()`, `runtime.trace()`) or just its events.
 *
 * @example
 * ```ts
 * const recorder = createTraceRecorder();
 * session.inspect(recorder.observer);
 * await session.prompt("hi");
 * console.log(formatTrace(recorder));
 * // +0ms     state   ∅ → idle (inspect)
 * // +0ms     event   PROMPT {"request":{…}}
 * ```
 */
export function formatTrace(trace: LifecycleTrace | TraceRecorder | readonly LifecycleInspectionEvent[]): string {
	const whole = Array.isArray(trace) ? undefined : (trace as LifecycleTrace | TraceRecorder);
	const events = whole ? whole.events : (trace as readonly LifecycleInspectionEvent[]);
	const origin = events[0]?.at ?? 0;
	const lines = events.filter(shownInTraceViews).map((event) => formatLifecycleEvent(event, origin));
	if (whole && whole.dropped > 0) lines.unshift(`(${whole.dropped} earlier events dropped)`);
	return lines.join("\n");
}

/**
 * The trigger as the diagram's edge label starts: `always (2) [canRetry]` — the rank and guard of
 * the transition taken, so a reader sees which decision sent the machine there.
 */
function triggerText(event: StateChangeEvent): string {
	const t = event.transition;
	if (!t) return event.trigger;
	return `${event.trigger}${t.priority !== undefined ? ` (${t.priority})` : ""}${t.guard !== undefined ? ` [${t.guard}]` : ""}`;
}

function stateExtras(to: string, details: { [key: string]: JsonValue }): string {
	const parts: string[] = [];
	const path = to.split(".");
	const top = path[0];
	if (top === "running" && details.runIndex !== undefined) {
		parts.push(`run ${details.runIndex}${details.runCause ? ` (${details.runCause})` : ""}`);
	}
	if (top === "retrying") {
		parts.push(`attempt ${details.retryAttempt}/${details.maxRetries}, delay ${details.retryDelayMs}ms`);
	}
	// `running.compacting`: a compaction before a routed request, inside the run.
	if (path.includes("compacting") && details.compactionReason !== undefined) {
		parts.push(`reason ${details.compactionReason}${details.willRetry ? ", willRetry" : ""}`);
	}
	if (details.abortRequested === true) parts.push("abort requested");
	if (details.kind !== undefined && details.requestId !== undefined) parts.push(`${details.kind} ${details.requestId}`);
	return parts.join(", ");
}

/**
 * A turn or summary retry the machine announced, in words (the backoff and the error are what a
 * reader of a retried request or a slow compaction looks for): `attempt 1/3, delay 2000ms: 503
 * Service Unavailable`, `compaction (threshold)`, `failed after 1 retry: 503 …`. Undefined for any
 * other event.
 */
function retryText(type: string, payload: JsonValue | undefined): string | undefined {
	if (!isObject(payload)) return undefined;
	const p = payload as { [key: string]: JsonValue };
	switch (type) {
		case "auto_retry_start":
			if (typeof p.attempt !== "number") return undefined;
			return backoffText(p);
		case "auto_retry_end": {
			const attempt = typeof p.attempt === "number" ? ` on attempt ${p.attempt}` : "";
			if (p.success === true) return `succeeded${attempt}`;
			return `failed${attempt}${typeof p.finalError === "string" ? `: ${p.finalError}` : ""}`;
		}
		case "summarization_retry_scheduled":
			return backoffText(p);
		case "summarization_retry_attempt_start":
			return p.source === "compaction" ? `compaction (${p.reason})` : "branch summary";
		case "summarization_retry_finished": {
			const retries = `${p.attempt} ${p.attempt === 1 ? "retry" : "retries"}`;
			if (p.success === true) return `succeeded after ${retries}`;
			return `failed after ${retries}${typeof p.finalError === "string" ? `: ${p.finalError}` : ""}`;
		}
		default:
			return undefined;
	}
}

/**
 * A change of the session's steering / follow-up queues, in words: `queue: 1 steering, 0 follow-up
 * (steer "fix the test")`, `(delivered follow-up "…")`, `(cleared)`, `(restored steer "…")`.
 * Undefined for any other event.
 */
function queueText(type: string, payload: JsonValue | undefined): string | undefined {
	if (type !== "queue_changed" || !isObject(payload)) return undefined;
	const p = payload as { [key: string]: JsonValue };
	if (typeof p.steering !== "number" || typeof p.followUp !== "number") return undefined;
	const which = p.queue === "steering" ? "steer" : p.queue === "followUp" ? "follow-up" : undefined;
	const quoted = typeof p.text === "string" ? ` ${JSON.stringify(p.text)}` : "";
	const what =
		p.change === "queued"
			? `${which}${quoted}`
			: p.change === "cleared"
				? "cleared"
				: `${p.change}${which ? ` ${which}` : ""}${quoted}`;
	return `queue: ${p.steering} steering, ${p.followUp} follow-up (${what})`;
}

/**
 * How a run ended (`RUN_DONE`), in words: what `postRun`'s guards decide on — `error (retryable):
 * 529 overloaded`, `error (overflow): prompt is too long… · messages queued`, `stop · over
 * threshold (4830 > 4000 tokens)`. Undefined for any other event.
 */
function runOutcomeText(type: string, payload: JsonValue | undefined): string | undefined {
	if (type !== "RUN_DONE" || !isObject(payload) || !isObject((payload as { output?: JsonValue }).output))
		return undefined;
	const o = (payload as { output: { [key: string]: JsonValue } }).output;
	let text = typeof o.stopReason === "string" ? o.stopReason : "no message";
	if (typeof o.errorClass === "string" && o.errorClass !== "none") text += ` (${o.errorClass})`;
	if (typeof o.errorMessage === "string") text += `: ${o.errorMessage}`;
	const flags: string[] = [];
	if (typeof o.requestedDelayMs === "number") flags.push(`Retry-After ${o.requestedDelayMs}ms`);
	if (o.aborted === true) flags.push("aborted");
	if (o.overThreshold === true) {
		// The numbers behind the decision (traces saved before Settle recorded them have none).
		const numbers =
			typeof o.contextTokens === "number" && typeof o.thresholdTokens === "number"
				? ` (${o.contextTokens} > ${o.thresholdTokens} tokens)`
				: "";
		flags.push(`over threshold${numbers}`);
	}
	if (o.hasQueuedMessages === true) flags.push("messages queued");
	if (o.madeProgress === false) flags.push("added nothing");
	return [text, ...flags].join(" · ");
}

/**
 * The compaction a prompt's preflight runs before sending, in words: `threshold (4830 > 4000
 * tokens)` / `overflow` when it starts, what it did when it ends (as a compaction's `done` line).
 * Undefined for any other event, and for a start or end without those fields (older traces).
 */
function preSendCompactionText(type: string, payload: JsonValue | undefined): string | undefined {
	if (!isObject(payload)) return undefined;
	const p = payload as { [key: string]: JsonValue };
	if (type === "PRE_SEND_COMPACTION_START" && typeof p.reason === "string") {
		const numbers =
			typeof p.contextTokens === "number" && typeof p.thresholdTokens === "number"
				? ` (${p.contextTokens} > ${p.thresholdTokens} tokens)`
				: "";
		return `reason ${p.reason}${numbers}`;
	}
	if (type === "PRE_SEND_COMPACTION_END") return compactionText(p.output);
	return undefined;
}

/**
 * An entry the session wrote to its log (`ENTRY_WRITTEN`), in words: `message 378d9388 (assistant,
 * error)`, `context_edit 396e9a28 (omits 378d9388)`, `compaction 9904b59f`. Undefined for any other
 * event.
 */
function entryText(type: string, payload: JsonValue | undefined): string | undefined {
	if (type !== "ENTRY_WRITTEN" || !isObject(payload)) return undefined;
	const p = payload as { [key: string]: JsonValue };
	if (typeof p.entryType !== "string" || typeof p.entryId !== "string") return undefined;
	const about: string[] = [];
	if (typeof p.role === "string") about.push(p.role);
	if (typeof p.stopReason === "string" && p.stopReason !== "stop") about.push(p.stopReason);
	if (typeof p.targetId === "string") {
		const verb = p.entryType !== "context_edit" ? "on" : p.omits === true ? "omits" : "replaces";
		about.push(`${verb} ${p.targetId}`);
	}
	return `${p.entryType} ${p.entryId}${about.length > 0 ? ` (${about.join(", ")})` : ""}`;
}

/**
 * How a compaction ended, in words (the whole output is in the event): `compacted 2171 tokens to
 * ~9 (entry 9904b59f), first kept entry 274f44db · the operation continues` (tokens before, the
 * estimate after, the `compaction` entry written), `not compacted: nothing to compact`, `not
 * compacted: failed: …`, `cancelled`, `cancelled by the extension … (its session_before_compact
 * handler)`. Undefined for an output that is not a compaction's.
 */
function compactionText(output: JsonValue | undefined): string | undefined {
	if (!isObject(output) || typeof (output as { compacted?: JsonValue }).compacted !== "boolean") return undefined;
	const o = output as { [key: string]: JsonValue };
	const then = o.continue === true ? " · the operation continues" : "";
	if (o.compacted === true) {
		const result = isObject(o.result) ? (o.result as { [key: string]: JsonValue }) : {};
		const tokens = typeof result.tokensBefore === "number" ? ` ${result.tokensBefore} tokens` : "";
		const after = typeof result.estimatedTokensAfter === "number" ? ` to ~${result.estimatedTokensAfter}` : "";
		const entry = typeof o.entryId === "string" ? ` (entry ${o.entryId})` : "";
		const kept = typeof result.firstKeptEntryId === "string" ? `, first kept entry ${result.firstKeptEntryId}` : "";
		return `compacted${tokens}${after}${entry}${kept}${then}`;
	}
	// Named as agent_settled.errorMessage and compaction_end.cancelledBy name it.
	if (o.cancelled === true && typeof o.cancelledBy === "string")
		return `cancelled by the extension ${o.cancelledBy} (its session_before_compact handler)${then}`;
	if (o.cancelled === true) return `cancelled${then}`;
	const why =
		o.skipped === "nothing_to_compact"
			? ": nothing to compact (all of it is within compaction.keepRecentTokens)"
			: o.skipped === "no_model"
				? ": no model"
				: typeof o.errorMessage === "string"
					? `: failed: ${o.errorMessage}`
					: "";
	return `not compacted${why}${then}`;
}

/** A scheduled retry (of a turn or a summary): `attempt 1/3, delay 2000ms: 503 Service Unavailable`. */
function backoffText(p: { [key: string]: JsonValue }): string {
	return `attempt ${p.attempt}/${p.maxAttempts}, delay ${p.delayMs}ms: ${p.errorMessage}`;
}

function isObject(value: unknown): boolean {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function payloadText(payload: JsonValue | undefined): string {
	if (payload === undefined) return "";
	const text = JSON.stringify(payload);
	return ` ${text.length > 160 ? `${sliceWholeCharacters(text, 157)}...` : text}`;
}
