/**
 * A checker for the run/settle protocol of session event streams (what `session.subscribe` and
 * `createHarness().events` record), for property tests of a whole session: runs, retries,
 * compactions and `agent_settled` across any number of prompts.
 */

import { RETRY_CANCELLED_MESSAGE } from "../../machines/prompt-operation.machine.js";
import type { AgentEvent } from "../agent/types.js";
import type { AgentSessionEvent } from "../session/events.js";
import { agentEventViolations } from "./invariants.js";

/** The agent loop's own event types (the rest of a session's events are the product layer's). */
export const AGENT_EVENT_TYPES: ReadonlySet<string> = new Set([
	"agent_start",
	"agent_end",
	"turn_start",
	"turn_end",
	"message_start",
	"message_update",
	"message_end",
	"tool_execution_start",
	"tool_execution_update",
	"tool_execution_end",
]);

/**
 * Lists every way `events` (a session's stream, from its first event) breaks the run/settle
 * protocol; returns `[]` when it is well formed:
 * - every run (`agent_start` … `agent_end`) is well formed by {@link agentEventViolations}, runs
 *   don't overlap, and agent events only happen inside a run;
 * - `agent_end{willRetry: true}` is followed by `auto_retry_start` before anything else starts, and
 *   `willRetry: false` never is; it may settle instead only as an abort that lands before the
 *   backoff begins does it (nothing else starts, and a retry sequence already open ends with
 *   `auto_retry_end{finalError: "Retry cancelled"}`), since `willRetry` is decided at `agent_end`
 *   (an `abortRetry()` there still gets its `auto_retry_start`, then that `auto_retry_end`, as in a backoff);
 * - retry attempts count 1, 2, … up to `maxAttempts`, and each sequence ends with one
 *   `auto_retry_end` carrying the last attempt;
 * - `compaction_start` / `compaction_end` pair up (same reason), never inside a run, and a
 *   compaction that says `willRetry` is followed by a run; a `compaction_end` alone only reports
 *   a recovery that gave up (no result, no `willRetry`, an `errorMessage`), as pi does;
 * - summarization retries (compaction and branch summary calls) happen outside runs: each
 *   `summarization_retry_scheduled` (attempt 1 opens a retried call, attempt n + 1 follows the
 *   call's attempt n, never above `maxAttempts`) is followed by a `summarization_retry_attempt_start`
 *   or — an abort during the backoff — the call's `summarization_retry_finished`; every retried call
 *   ends with one `summarization_retry_finished` before its `compaction_end`, `agent_settled` or
 *   the end of the stream; each call's attempts count 1, 2, … (a split turn's two calls interleave:
 *   their events carry `part`, and each is checked on its own);
 * - outside runs the only messages are custom messages sent to an idle session (`sendCustomMessage`
 *   without `triggerTurn`: a `message_start` and its `message_end`, appended at once);
 * - `agent_settled` comes with no run, retry or compaction open, and the stream does not end
 *   with an operation that has not settled.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 *
 * const [script] = fc.sample(fauxScriptArbitrary(), 1);
 * const h = await createHarness({ simulatedClock: true });
 * h.setResponses(script!.map((step) => step.message));
 * await h.settle(h.session.prompt("go"));
 * console.log(sessionEventViolations(h.events)); // []
 * ```
 */
export function sessionEventViolations(events: readonly AgentSessionEvent[]): string[] {
	const problems: string[] = [];
	let run: AgentEvent[] | undefined;
	let runs = 0;
	let retryAttempt = 0;
	let retryMax = 0;
	let compaction: string | undefined;
	let expectRetry: boolean | undefined;
	// After agent_end{willRetry:true}: a retry sequence was open then, and whether it ended as cancelled.
	let promisedInSequence = false;
	let retryCancelled = false;
	let expectRunAfterCompaction = false;
	let unsettled = false;
	// Retried summarization calls waiting out a backoff / running a retried attempt.
	/** Retried summarization calls in flight, by `part` (a split turn's two run at once; others have none). */
	const summaryCalls = new Map<string, { attempt: number; attempting: boolean }>();
	const summaryOpen = () => summaryCalls.size;

	// A custom message sent to an idle session is appended at once: message_start + message_end, no run.
	let idleCustomEnd = -1;
	events.forEach((event, index) => {
		const at = `#${index} ${event.type}`;
		if (index === idleCustomEnd) return;
		if (!run && event.type === "message_start" && event.message.role === "custom") {
			const next = events[index + 1];
			if (next?.type === "message_end" && next.message === event.message) {
				idleCustomEnd = index + 1;
				return;
			}
		}
		// What agent_end{willRetry} promised about the next thing that starts or settles.
		if (
			expectRetry !== undefined &&
			["agent_start", "auto_retry_start", "compaction_start", "agent_settled"].includes(event.type)
		) {
			// An abort between agent_end and the backoff cancels the promised retry: the operation settles.
			const cancelledByAbort = event.type === "agent_settled" && (!promisedInSequence || retryCancelled);
			if (expectRetry && event.type !== "auto_retry_start" && !cancelledByAbort)
				problems.push(`${at}: agent_end said willRetry, no retry came`);
			if (!expectRetry && event.type === "auto_retry_start") problems.push(`${at}: agent_end said no retry`);
			expectRetry = undefined;
		}
		if (AGENT_EVENT_TYPES.has(event.type)) {
			unsettled = true;
			if (event.type === "agent_start") {
				if (run) problems.push(`${at}: a run is already open`);
				if (compaction) problems.push(`${at}: during compaction (${compaction})`);
				run = [];
				runs++;
				expectRunAfterCompaction = false;
			}
			if (!run) {
				problems.push(`${at}: outside a run`);
				return;
			}
			run.push(event as AgentEvent);
			if (event.type === "agent_end") {
				for (const problem of agentEventViolations(run)) problems.push(`run ${runs}: ${problem}`);
				run = undefined;
				expectRetry = event.willRetry;
				promisedInSequence = retryAttempt > 0;
				retryCancelled = false;
			}
			return;
		}
		switch (event.type) {
			case "auto_retry_start":
				unsettled = true;
				if (run) problems.push(`${at}: inside a run`);
				if (event.attempt !== retryAttempt + 1) {
					problems.push(`${at}: attempt ${event.attempt}, expected ${retryAttempt + 1}`);
				}
				if (retryAttempt > 0 && event.maxAttempts !== retryMax) problems.push(`${at}: maxAttempts changed`);
				if (event.attempt > event.maxAttempts) problems.push(`${at}: attempt ${event.attempt} > ${event.maxAttempts}`);
				retryAttempt = event.attempt;
				retryMax = event.maxAttempts;
				break;
			case "auto_retry_end":
				if (expectRetry) retryCancelled = event.finalError === RETRY_CANCELLED_MESSAGE;
				if (retryAttempt === 0) problems.push(`${at}: no retry to end`);
				else if (event.attempt !== retryAttempt)
					problems.push(`${at}: attempt ${event.attempt}, expected ${retryAttempt}`);
				retryAttempt = 0;
				break;
			case "summarization_retry_scheduled":
				if (run) problems.push(`${at}: inside a run`);
				if (event.attempt > event.maxAttempts) problems.push(`${at}: attempt ${event.attempt} > ${event.maxAttempts}`);
				{
					const key = event.part ?? "";
					const call = summaryCalls.get(key);
					if (event.attempt === 1) {
						if (call) problems.push(`${at}: attempt 1 while a retried call${partName(key)} is open`);
					} else if (!call?.attempting) {
						problems.push(`${at}: attempt ${event.attempt} without a retried attempt${partName(key)} running`);
						break;
					} else if (event.attempt !== call.attempt + 1) {
						problems.push(`${at}: attempt ${event.attempt}, expected ${call.attempt + 1}${partName(key)}`);
					}
					summaryCalls.set(key, { attempt: event.attempt, attempting: false });
				}
				break;
			case "summarization_retry_attempt_start": {
				if (run) problems.push(`${at}: inside a run`);
				const key = event.source === "compaction" ? (event.part ?? "") : "";
				const call = summaryCalls.get(key);
				if (!call || call.attempting) problems.push(`${at}: no retry${partName(key)} scheduled`);
				else call.attempting = true;
				break;
			}
			case "summarization_retry_finished": {
				// A retried attempt ends it, or (an abort) the backoff does.
				const key = event.part ?? "";
				if (!summaryCalls.delete(key)) problems.push(`${at}: no retried summarization${partName(key)} to finish`);
				break;
			}
			case "compaction_start":
				if (run) problems.push(`${at}: inside a run`);
				if (compaction) problems.push(`${at}: compaction (${compaction}) already open`);
				compaction = event.reason;
				break;
			case "compaction_end":
				if (!compaction) {
					// Without a start, it reports a recovery that gave up (pi's protocol): no result, no re-run, a reason.
					if (event.result || event.willRetry || !event.errorMessage) problems.push(`${at}: no compaction to end`);
				} else if (event.reason !== compaction) {
					problems.push(`${at}: reason ${event.reason}, started as ${compaction}`);
				}
				if (summaryOpen() > 0) problems.push(`${at}: a summarization retry never finished`);
				summaryCalls.clear();
				compaction = undefined;
				expectRunAfterCompaction = event.willRetry;
				break;
			case "agent_settled":
				if (run) problems.push(`${at}: a run is still open`);
				if (retryAttempt > 0) problems.push(`${at}: retry attempt ${retryAttempt} never ended`);
				if (compaction) problems.push(`${at}: compaction (${compaction}) still open`);
				if (expectRunAfterCompaction) problems.push(`${at}: compaction said willRetry, no run came`);
				if (summaryOpen() > 0) problems.push(`${at}: a summarization retry never finished`);
				summaryCalls.clear();
				run = undefined;
				retryAttempt = 0;
				compaction = undefined;
				expectRunAfterCompaction = false;
				unsettled = false;
				break;
		}
	});
	if (unsettled) problems.push("the stream ends before agent_settled");
	if (summaryOpen() > 0) problems.push("the stream ends with a summarization retry that never finished");
	return problems;
}

/** ` (history)` / ` (turnPrefix)` after a problem about one of a split turn's two summary calls. */
function partName(key: string): string {
	return key === "" ? "" : ` (${key})`;
}
