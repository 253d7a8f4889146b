/**
 * Summary retries in the lifecycle: a real session whose compaction (or branch summary) summary
 * request fails transiently shows, in `session.trace()` / `session.inspect()`, the summarizer's
 * reports and the machine's `summarization_retry_*` emits inside `compacting` (`branchSummary`),
 * with the attempt and the backoff — on the session's SimulatedClock, so the wait is the gap
 * between `scheduled` and `attempt_start`. The public events and the settle are as before.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { formatTrace, type LifecycleTrace } from "../../src/inspect/trace.js";
import { loadTrace, saveTrace } from "../../src/inspect/trace-file.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";

let h: Harness;
let dir: string | undefined;
afterEach(async () => {
	h?.cleanup();
	if (dir) await rm(dir, { recursive: true, force: true });
	dir = undefined;
});

const UNAVAILABLE = "503 Service Unavailable";
const failure = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: UNAVAILABLE });

/** A session one long prompt away from a threshold compaction (window 5000 − reserve 4000). */
async function nearThreshold(baseDelayMs: number): Promise<Harness> {
	h = await createHarness({
		persistence: "disk",
		simulatedClock: true,
		faux: { models: [{ id: "small", contextWindow: 5000 }] },
		settings: { compaction: { reserveTokens: 4000, keepRecentTokens: 20 }, retry: { baseDelayMs } },
	});
	h.setResponses([fauxAssistantMessage("answer a")]);
	await h.session.prompt("a");
	h.events.length = 0;
	return h;
}

/** `state:<to>`, `event:<TYPE>`, `emit:<type>`; actors, delays and requests left out. */
function steps(events: readonly LifecycleInspectionEvent[]): string[] {
	return events.flatMap((event) => {
		if (event.kind === "state") return [`state:${event.to}`];
		if (event.kind === "event" && event.type.startsWith("SUMMARIZATION_RETRY")) return [`event:${event.type}`];
		if (event.kind === "emitted" && /^(summarization_retry|abort_requested)/.test(event.type)) {
			return [`emit:${event.type}`];
		}
		return [];
	});
}

const emitted = (trace: LifecycleTrace, type: string) =>
	trace.events.filter((event) => event.kind === "emitted" && event.type === type);

describe("summary retries in session.trace()", () => {
	it("a failed-then-successful threshold summary shows inside compacting, with its attempt and backoff; the trace round-trips", async () => {
		await nearThreshold(50);
		h.setResponses([fauxAssistantMessage("ok"), failure(), fauxAssistantMessage("## Goal\ncompacted")]);
		const trace = h.session.trace();
		await h.settle(h.session.prompt(`b ${"y".repeat(4400)}`));
		trace.stop();
		const saved = trace.toJSON();
		const shown = steps(saved.events);
		const from = shown.indexOf("state:compacting.working");
		expect(shown.slice(from, from + 8)).toEqual([
			"state:compacting.working",
			"event:SUMMARIZATION_RETRY_SCHEDULED",
			"emit:summarization_retry_scheduled",
			"event:SUMMARIZATION_RETRY_ATTEMPT_START",
			"emit:summarization_retry_attempt_start",
			"event:SUMMARIZATION_RETRY_FINISHED",
			"emit:summarization_retry_finished",
			"state:beforeSettle.working",
		]);
		const [scheduled] = emitted(saved, "summarization_retry_scheduled");
		const [attempt] = emitted(saved, "summarization_retry_attempt_start");
		expect(scheduled).toMatchObject({
			machine: "promptOperation",
			payload: { attempt: 1, maxAttempts: 3, delayMs: 50, errorMessage: UNAVAILABLE },
		});
		expect(attempt).toMatchObject({ payload: { source: "compaction", reason: "threshold" } });
		expect(emitted(saved, "summarization_retry_finished")[0]).toMatchObject({ payload: { success: true, attempt: 1 } });
		// The backoff on the session's clock: the next attempt starts delayMs after it was scheduled.
		expect(attempt!.at - scheduled!.at).toBe(50);
		// The public events are pi's, unchanged; one agent_settled.
		expect(h.events.filter((event) => event.type.startsWith("summarization_retry"))).toEqual([
			{ type: "summarization_retry_scheduled", attempt: 1, maxAttempts: 3, delayMs: 50, errorMessage: UNAVAILABLE },
			{ type: "summarization_retry_attempt_start", source: "compaction", reason: "threshold" },
			{ type: "summarization_retry_finished" },
		]);
		expect(sessionEventViolations(h.events)).toEqual([]);

		dir = await mkdtemp(join(tmpdir(), "settle-summary-trace-"));
		const path = join(dir, "compaction.trace.json");
		await saveTrace(path, trace);
		const loaded = await loadTrace(path);
		expect(loaded).toEqual(saved);
		const text = formatTrace(loaded);
		expect(text).toMatch(/emit {4}summarization_retry_scheduled attempt 1\/3, delay 50ms: 503 Service Unavailable/);
		expect(text).toMatch(/emit {4}summarization_retry_attempt_start compaction \(threshold\)/);
		expect(text).toMatch(/emit {4}summarization_retry_finished succeeded after 1 retry/);
	});

	it("abort() during the backoff: compacting.aborting, the retried call finishes at once as failed, one settle", async () => {
		await nearThreshold(60_000);
		h.setResponses([fauxAssistantMessage("ok"), failure()]);
		h.session.subscribe((event) => {
			if (event.type === "summarization_retry_scheduled") void h.session.abort();
		});
		const trace = h.session.trace();
		await h.session.prompt(`b ${"y".repeat(4400)}`);
		trace.stop();
		const saved = trace.toJSON();
		const shown = steps(saved.events);
		const from = shown.indexOf("state:compacting.working");
		expect(shown.slice(from)).toEqual([
			"state:compacting.working",
			"event:SUMMARIZATION_RETRY_SCHEDULED",
			"emit:summarization_retry_scheduled",
			"state:compacting.aborting",
			"emit:abort_requested",
			"event:SUMMARIZATION_RETRY_FINISHED",
			"emit:summarization_retry_finished",
			"state:settling",
			"state:idle",
		]);
		const [scheduled] = emitted(saved, "summarization_retry_scheduled");
		const [finished] = emitted(saved, "summarization_retry_finished");
		expect(finished).toMatchObject({ payload: { success: false, attempt: 1, finalError: UNAVAILABLE } });
		// Nothing waited out the 60 s backoff.
		expect(finished!.at).toBe(scheduled!.at);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.eventsOfType("compaction_end")).toMatchObject([{ aborted: true }]);
		expect(sessionEventViolations(h.events)).toEqual([]);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("a branch summary's retry shows inside branchSummary", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 100 } } });
		h.setResponses([fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")]);
		await h.session.prompt("question one");
		await h.session.prompt("question two");
		const target = h.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "assistant")!;
		h.appendResponses([failure, () => fauxAssistantMessage("what the branch did")]);
		const trace = h.session.trace();
		await h.settle(h.session.navigateTree(target.id, { summarize: true }));
		trace.stop();
		const saved = trace.toJSON();
		expect(steps(saved.events).filter((step) => !step.startsWith("event:"))).toEqual([
			"state:idle",
			"state:branchSummary.working",
			"emit:summarization_retry_scheduled",
			"emit:summarization_retry_attempt_start",
			"emit:summarization_retry_finished",
			"state:idle",
		]);
		expect(formatTrace(saved)).toMatch(/emit {4}summarization_retry_attempt_start branch summary/);
	});
});
