/**
 * The lifecycle of a retried-then-compacted request, read from `session.inspect()` alone: state
 * names, run causes, attempt numbers, backoff delays (scheduled on the actor clock), compaction
 * reasons — no session events, no log. What a user debugging a stuck request would look at.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { settleWithClock } from "./helpers.js";
import { errorReply, overflowReply, script } from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** One line per step of the inspection stream, built from the stream's own fields only. */
function story(events: readonly LifecycleInspectionEvent[]): string[] {
	const lines: string[] = [];
	for (const event of events) {
		switch (event.kind) {
			case "state": {
				const d = event.details;
				const facts: string[] = [];
				if (event.to.startsWith("running")) facts.push(`run ${d.runIndex} cause=${d.runCause}`);
				if (event.to === "retrying") facts.push(`attempt ${d.retryAttempt}/${d.maxRetries} delay=${d.retryDelayMs}`);
				if (event.to.startsWith("compacting")) facts.push(`reason=${d.compactionReason} willRetry=${d.willRetry}`);
				lines.push(facts.length ? `${event.to} (${facts.join(", ")})` : event.to);
				break;
			}
			case "delay":
				lines.push(
					`  timer ${event.delay} ${event.phase}${event.ms !== undefined ? ` ${event.ms}ms` : ""} at t=${event.at}`,
				);
				break;
			case "emitted":
				if (
					event.type === "auto_retry_start" ||
					event.type === "auto_retry_end" ||
					event.type === "overflow_recovery_failed"
				) {
					lines.push(`  ${event.type} ${JSON.stringify(event.payload)}`);
				}
				break;
			default:
				break;
		}
	}
	return lines;
}

describe("session.inspect()", () => {
	it("tells the whole story of a request that was retried, then recovered from an overflow", async () => {
		h = await createHarness({
			simulatedClock: true,
			settings: { retry: { baseDelayMs: 250, maxRetries: 2 }, compaction: { keepRecentTokens: 1 } },
		});
		script(h, [
			fauxAssistantMessage("warm-up"),
			errorReply("503 Service Unavailable"),
			overflowReply(),
			fauxAssistantMessage("finally"),
		]);
		await h.session.prompt("warm up");
		const events: LifecycleInspectionEvent[] = [];
		const subscription = h.session.inspect((event) => events.push(event));
		await settleWithClock(h, h.session.prompt("do the thing"));
		subscription.unsubscribe();

		expect(story(events)).toEqual([
			"idle",
			"preflight",
			"running.working (run 1 cause=prompt)",
			"postRun",
			"retrying (attempt 1/2 delay=250)",
			'  auto_retry_start {"attempt":1,"maxAttempts":2,"delayMs":250,"errorMessage":"503 Service Unavailable"}',
			"  timer retryDelay scheduled 250ms at t=0",
			"  timer retryDelay fired at t=250",
			"running.working (run 2 cause=retry)",
			"postRun",
			// Effects are reported after the step that caused them: leaving postRun for compaction ends the retry sequence.
			"compacting.working (reason=overflow willRetry=true)",
			'  auto_retry_end {"success":false,"attempt":1,"finalError":"prompt is too long: 213462 tokens > 200000 maximum"}',
			"running.working (run 3 cause=compaction)",
			"postRun",
			"beforeSettle.working",
			"settling",
			"idle",
		]);
		// The run requests carry the same facts for tools that only read requests.
		const runs = events.flatMap((event) =>
			event.kind === "emitted" && event.type === "run_requested"
				? [(event.payload as { input: { cause: string; retryAttempt: number; mode: string } }).input]
				: [],
		);
		expect(runs.map((run) => [run.mode, run.cause, run.retryAttempt])).toEqual([
			["prompt", "prompt", 0],
			["continue", "retry", 1],
			["continue", "compaction", 0],
		]);
		const compactionActor = events.filter((event) => event.kind === "actor" && event.id === "compaction");
		expect(compactionActor.map((event) => (event.kind === "actor" ? event.phase : ""))).toEqual(["invoked", "done"]);
	});
});
