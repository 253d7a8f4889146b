/**
 * What the randomized differential compares: each peer's observation with the documented
 * differences taken out, and the checks that discard runs whose outcome differs by design.
 */

import type { Observation } from "./differential.js";
import { OVERFLOW_ERROR, RETRYABLE_ERROR, type Scenario } from "./differential-scenarios.js";

/**
 * Whether pi 0.73.1 ran a compaction with nothing to summarize. On an overflow with nothing to cut,
 * pi sends an empty conversation to the summarizer, writes a compaction, keeps the failed request in
 * context and emits extra `compaction_end` events; Settle (README "An overflow recovery", behavior
 * C.5 `prepareCompaction` returns nothing) emits no compaction events and ends the request with the
 * overflow error. Such runs are discarded: the outcomes differ by design, and pi's is broken.
 */
export function piCompactedNothing(pi: Observation, settle: Observation): boolean {
	// Only when everything before pi's first compaction agrees: an earlier divergence is still reported.
	const before = pi.file.slice(0, pi.file.indexOf("compaction"));
	if (settle.file.slice(0, before.length).join(",") !== before.join(",")) return false;
	return pi.requests.some(
		(request) => request.system === "summarizer" && /<conversation>\s*<\/conversation>/.test(request.messages[0] ?? ""),
	);
}

/**
 * The ordinals of `compaction_end` events that repeat an overflow recovery failure: a second
 * "recovery failed" with no `compaction_start` since the first. pi 0.73.1 bug "recovery failure
 * reported twice" (pinned in divergences.test.ts): its attempted-flag outlives the operation and the
 * failed request stays in its context, so the next prompt's pre-send check (behavior C.1 step 9)
 * reports the same failure again before that prompt starts. Settle reports it once, at the end of
 * the operation that failed (behavior C.5 "already attempted in this operation").
 */
export function repeatedRecoveryFailures(observation: Observation): Set<number> {
	const repeats = new Set<number>();
	let ordinal = -1;
	let previousFailed = false;
	for (const payload of observation.payloads as { type?: string; errorMessage?: unknown }[]) {
		if (payload.type === "compaction_start") previousFailed = false;
		if (payload.type !== "compaction_end") continue;
		ordinal++;
		const failed = typeof payload.errorMessage === "string" && RECOVERY_FAILED.test(payload.errorMessage);
		if (failed && previousFailed) repeats.add(ordinal);
		previousFailed = failed;
	}
	return repeats;
}

const RECOVERY_FAILED = /^Context overflow recovery failed after one compact-and-retry attempt\./;

/** The observation without the `compaction_end` events {@link repeatedRecoveryFailures} names. */
function withoutRepeatedRecoveryFailures(observation: Observation): Observation {
	const repeats = repeatedRecoveryFailures(observation);
	if (repeats.size === 0) return observation;
	const keep = () => {
		let ordinal = -1;
		return (type: string | undefined) => type !== "compaction_end" || !repeats.has(++ordinal);
	};
	const keepEvent = keep();
	const keepPayload = keep();
	return {
		...observation,
		events: observation.events.filter((token) => keepEvent(token)),
		payloads: observation.payloads.filter((payload) => keepPayload((payload as { type?: string }).type)),
	};
}

/**
 * DELIBERATE_ABORTED_RETRY_CANCELLED: a retried request aborted before it answered ends the retry
 * as cancelled in Settle, `auto_retry_end{success: false, attempt, finalError: "Retry cancelled"}`
 * (what an abort in the backoff reports), at the same point; pi 0.73.1 reports
 * `{success: true, attempt}` there (its C.4 success detection takes any non-error answer, the aborted
 * one included), so a host shows "retry succeeded" after the user stopped it. This rewrites pi's
 * form into Settle's: an `auto_retry_end{success: true}` right after an aborted assistant
 * `message_end` (`payloads` as {@link observeAll} records them).
 */
export function abortedRetriesCancelled<T>(payloads: readonly T[]): T[] {
	let lastStopReason: unknown;
	return payloads.map((payload) => {
		const p = payload as {
			type?: string;
			success?: unknown;
			attempt?: unknown;
			message?: { role?: string; stopReason?: unknown };
		};
		if (p.type === "message_end" && p.message?.role === "assistant") lastStopReason = p.message.stopReason;
		if (p.type === "auto_retry_end" && p.success === true && lastStopReason === "aborted") {
			return { type: "auto_retry_end", success: false, attempt: p.attempt, finalError: "Retry cancelled" } as T;
		}
		return payload;
	});
}

/** `input` hook entries for texts given to steer()/followUp(); see {@link comparable}. */
export const QUEUED_INPUT_LOG = /^input (steered|followed up|idle follow-up|idle steer \d+|nudge from \S+) /;

/**
 * One peer's observation with the documented differences taken out; the test checks each one
 * holds before it is taken out:
 * - `edits`: Settle persists a `context_edit` omitting each failed attempt (behavior C.4 step 5 / C.5,
 *   I.5); pi 0.73.1 writes none.
 * - `events`, `payloads`: pi 0.73.1's repeated overflow recovery failure (see
 *   {@link repeatedRecoveryFailures}).
 * - `payloads`: pi 0.73.1's `auto_retry_end{success: true}` for an aborted retried request
 *   ({@link abortedRetriesCancelled}, DELIBERATE_ABORTED_RETRY_CANCELLED).
 * - `extensionLog`: Settle runs the `input` hook for steer()/followUp() texts (behavior C.1 "Related
 *   entry points", doc version); pi 0.73.1's steer()/followUp() skip it. The generated queued texts
 *   never match a transforming rule, so only the log differs.
 * - `requests`: the `message_end` hook's `[checked] ` mark is taken out of the requests. pi 0.73.1
 *   applies a `message_end` replacement from its event queue, which its loop does not await
 *   (behavior C.10): when the queue lags (tool updates), the next request is built before the
 *   replacement lands. Settle's bridge is awaited. The replaced message is still compared in the
 *   events, the file and the final state.
 * - Texts: each peer's temp dir reads `<root>`, and the `read` tool's missing-file error is compared by
 *   kind: Settle says `File not found: <path>` (src/tools/fs-errors.ts, an actionable message), pi
 *   0.73.1 passes Node's `ENOENT: no such file or directory, access '<path>'` through.
 * - `requests` and `state.messages`: a failed attempt that was retried (or whose retry was
 *   cancelled) or that overflowed is taken out. Settle persists its omission (`context_edit`, behavior C.4 step 5, I.5);
 *   pi 0.73.1 only drops it from agent state, so it comes back into pi's context when a compaction
 *   rebuilds the context from the file.
 */
export function comparable(raw: Observation): Omit<Observation, "edits" | "cuts"> {
	const observation = withoutRepeatedRecoveryFailures(scrubbed(raw));
	const { edits: _edits, cuts: _cuts, ...rest } = observation;
	return {
		...rest,
		payloads: abortedRetriesCancelled(observation.payloads),
		extensionLog: observation.extensionLog.filter((line) => !QUEUED_INPUT_LOG.test(line)),
		requests: observation.requests.map((request) => ({
			...request,
			messages: request.messages
				.filter(
					(message) =>
						message !== `assistant:  (error: ${RETRYABLE_ERROR})` &&
						message !== `assistant:  (error: ${OVERFLOW_ERROR})`,
				)
				.map((message) => message.replaceAll("[checked] ", "")),
		})),
		state: {
			...observation.state,
			messages: observation.state.messages.filter((message) => !isFailedAttempt(message)),
		},
		// Settle's reader honours the `context_edit` omissions in Settle's files; pi's files have none.
		reopenedBySettle: observation.reopenedBySettle.filter((message) => !isFailedAttempt(message)),
	};
}

function scrubbed(observation: Observation): Observation {
	const json = JSON.stringify(observation)
		.replace(/\/[^"']*?settle-parity-[A-Za-z0-9]+/g, "<root>")
		.replace(/ENOENT: no such file or directory, access '([^']*)'/g, "file not found: $1")
		.replace(/File not found: /g, "file not found: ");
	return JSON.parse(json) as Observation;
}

/** A failed request Settle omits from context: a retried or overflowing error (behavior C.4/C.5, I.5). */
function isFailedAttempt(message: unknown): boolean {
	const m = message as { role?: string; stopReason?: string; errorMessage?: string };
	return (
		m.role === "assistant" &&
		m.stopReason === "error" &&
		(m.errorMessage === RETRYABLE_ERROR || m.errorMessage === OVERFLOW_ERROR)
	);
}

/**
 * Whether the first compaction cut differs while the session files agree up to that compaction.
 * Settle's cut point deliberately differs from pi 0.73.1's (src/compaction/cut-point.ts): it cuts at
 * the nearest valid point at or before the crossing entry, so at least `keepRecentTokens` are kept
 * (pi cuts after it and can keep less), and counts `custom_message` entries (pi skips them when
 * adding up tokens); so one may find nothing to compact where the other compacts. Everything after
 * the first such compaction differs by design; runs where it happens are discarded. A divergence
 * before that compaction is still reported.
 */
export function cutDiffersByDesign(pi: Observation, settle: Observation): boolean {
	const k = pi.cuts.findIndex((cut, i) => cut !== settle.cuts[i]);
	if (k === -1 && pi.cuts.length === settle.cuts.length) return false;
	const at = k === -1 ? pi.cuts.length : k;
	/** The file up to its `at`-th compaction entry, or undefined without one. */
	const prefix = (observation: Observation) => {
		let seen = -1;
		const end = observation.file.findIndex((shape) => shape === "compaction" && ++seen === at);
		return end === -1 ? undefined : observation.file.slice(0, end);
	};
	const [a, b] = [prefix(pi), prefix(settle)];
	if (a && b) return a.join(",") === b.join(",");
	// One compacted where the other found nothing to compact: the other's file must start the same.
	const [compacted, other] = a ? [a, settle.file] : [b ?? [], pi.file];
	return other.slice(0, compacted.length).join(",") === compacted.join(",");
}

/**
 * Whether pi 0.73.1 dropped the previous compaction's summary. When a split-turn compaction has no
 * history before the turn (everything since the previous compaction is the turn's prefix), pi writes
 * "No prior history." where the previous summary was (a pi bug: the earlier summary is lost); Settle
 * carries the previous summary forward (src/compaction/summarize.ts). Runs where this happens with
 * identical session files are discarded: all later context differs by that text.
 */
export function piDroppedPreviousSummary(pi: Observation, settle: Observation): boolean {
	const dropped = (observation: Observation) =>
		observation.state.messages.some(
			(message) =>
				(message as { role?: string }).role === "compactionSummary" &&
				String((message as { summary?: unknown }).summary).startsWith("No prior history.\n\n---"),
		);
	return pi.cuts.length > 1 && dropped(pi) && !dropped(settle) && pi.file.join(",") === settle.file.join(",");
}

/**
 * Whether Settle left out a request that overflowed with nothing to compact, its prompt included,
 * and went on, while both files agree up to that failed answer. Settle takes the unanswered request
 * out of the context (`context_edit`s) and runs what was queued meanwhile (README "An overflow
 * recovery"); pi 0.73.1 keeps the request in the context and leaves the queued messages unsent.
 * Everything after differs by design; such runs are discarded. A divergence before is still reported.
 */
export function settleOmittedOverflowedRequest(pi: Observation, settle: Observation): boolean {
	if (!settle.edits.some((edit) => /^omit (message:user|custom_message:)/.test(edit))) return false;
	let agreed = 0;
	while (agreed < pi.file.length && pi.file[agreed] === settle.file[agreed]) agreed++;
	if (pi.file[agreed - 1] !== "message:assistant(error)") return false;
	const isMessage = (shape: string) => shape.startsWith("message:") || shape.startsWith("custom_message:");
	const failed = pi.fileMessages[pi.file.slice(0, agreed).filter(isMessage).length - 1] as
		| { errorMessage?: unknown }
		| undefined;
	return failed?.errorMessage === OVERFLOW_ERROR;
}

/**
 * Whether `clearQueue()` may meet a custom message an extension queued during a run: pi 0.73.1
 * destroys it (neither returned nor delivered), Settle keeps it queued and delivers it (pi#9886).
 * Everything after differs by design; such scenarios are discarded.
 */
export function clearMayMeetQueuedCustom(scenario: Scenario): boolean {
	const queuesCustom = scenario.steps.some((step) =>
		step.actions.some((action) => action.kind === "custom" && action.deliverAs !== "nextTurn"),
	);
	const clears =
		scenario.actions.some((action) => action.kind === "clearQueue") ||
		scenario.steps.some((step) => step.actions.some((action) => action.kind === "clearQueue"));
	return queuesCustom && clears;
}
