/**
 * Summarization retries over random failure scripts: how many transient failures before the
 * summary answers (or a final error), retry budgets, retries disabled, and an abort at a random
 * retry event — for manual compaction, threshold compaction after a run and a branch summary.
 * Whatever happens: at most `maxRetries` retries, every scheduled retry has one attempt start
 * (unless the abort ended its backoff), one `summarization_retry_finished` per retried call, one
 * `agent_settled` per prompt, a well-formed event stream, and the session back to idle.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";

const TRANSIENT = ["503 Service Unavailable", "terminated", "429 Too Many Requests", "socket hang up"];
const FATAL = "400 invalid_request_error: bad request";

interface Case {
	operation: "manual" | "threshold" | "branch";
	maxRetries: number;
	enabled: boolean;
	failures: string[];
	final: "summary" | "fatal";
	/** Abort at the n-th summarization retry event (scheduled or attempt start), if any. */
	abortAt: { event: "summarization_retry_scheduled" | "summarization_retry_attempt_start"; index: number } | null;
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
	operation: fc.constantFrom("manual", "threshold", "branch"),
	maxRetries: fc.integer({ min: 0, max: 3 }),
	enabled: fc.boolean(),
	failures: fc.array(fc.constantFrom(...TRANSIENT), { maxLength: 5 }),
	final: fc.constantFrom("summary", "fatal"),
	abortAt: fc.option(
		fc.record({
			event: fc.constantFrom("summarization_retry_scheduled", "summarization_retry_attempt_start"),
			index: fc.integer({ min: 0, max: 3 }),
		}),
	),
});

const isSummaryRequest = (systemPrompt: string | undefined) =>
	systemPrompt?.startsWith("You are a context summarization") ?? false;

async function setUp(c: Case): Promise<Harness> {
	const h = await createHarness({
		simulatedClock: true,
		// A small window for the threshold (branch summaries need room: their budget is the window less the reserve, at most half the window).
		...(c.operation === "threshold" ? { faux: { models: [{ id: "small", contextWindow: 5000 }] } } : {}),
		settings: {
			compaction: { reserveTokens: 4000, keepRecentTokens: 20, enabled: c.operation === "threshold" },
			retry: { baseDelayMs: 1000, maxRetries: c.maxRetries, enabled: c.enabled },
		},
	});
	h.setResponses([fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")]);
	await h.session.prompt("question one");
	const summaryResponses = [
		...c.failures.map((errorMessage) => fauxAssistantMessage("", { stopReason: "error", errorMessage })),
		c.final === "summary"
			? fauxAssistantMessage("## Goal\nthe summary")
			: fauxAssistantMessage("", { stopReason: "error", errorMessage: FATAL }),
	];
	if (c.operation === "threshold") {
		// The next prompt's answer puts the context over the threshold; its compaction is what runs.
		h.appendResponses(summaryResponses);
	} else {
		await h.session.prompt(`question two ${"x".repeat(400)}`);
		h.appendResponses(summaryResponses);
	}
	h.events.length = 0;
	return h;
}

async function run(h: Harness, c: Case): Promise<void> {
	const abort = () => {
		if (c.operation === "manual") h.session.abortCompaction();
		else if (c.operation === "branch") h.session.abortBranchSummary();
		else void h.session.abort();
	};
	let seen = 0;
	if (c.abortAt) {
		const { event, index } = c.abortAt;
		h.session.subscribe((e) => {
			if (e.type === event && seen++ === index) abort();
		});
	}
	const operation: Promise<unknown> =
		c.operation === "manual"
			? h.session.compact()
			: c.operation === "branch"
				? h.session.navigateTree(
						h.sessionManager
							.getEntries()
							.find((entry) => entry.type === "message" && entry.message.role === "assistant")!.id,
						{ summarize: true },
					)
				: h.session.prompt(`question two ${"x".repeat(4400)}`);
	await h.settle(operation).catch(() => undefined);
}

describe("summarization retries over random failure scripts", () => {
	it("bounded retries, paired events, one finished per retried call, one agent_settled per prompt, idle", async () => {
		await fc.assert(
			fc.asyncProperty(caseArbitrary, async (c) => {
				const h = await setUp(c);
				try {
					await run(h, c);
					const scheduled = h.eventsOfType("summarization_retry_scheduled");
					const starts = h.eventsOfType("summarization_retry_attempt_start");
					const finished = h.eventsOfType("summarization_retry_finished");
					const budget = c.enabled ? c.maxRetries : 0;
					expect(scheduled.map((event) => event.attempt)).toEqual(scheduled.map((_, index) => index + 1));
					expect(scheduled.length).toBeLessThanOrEqual(budget);
					for (const event of scheduled) expect(event.maxAttempts).toBe(budget);
					const abortedInBackoff =
						c.abortAt?.event === "summarization_retry_scheduled" && c.abortAt.index < scheduled.length;
					expect(starts).toHaveLength(abortedInBackoff ? scheduled.length - 1 : scheduled.length);
					for (const start of starts) {
						expect(start).toEqual(
							c.operation === "branch"
								? { type: "summarization_retry_attempt_start", source: "branchSummary" }
								: { type: "summarization_retry_attempt_start", source: "compaction", reason: c.operation },
						);
					}
					expect(finished).toHaveLength(scheduled.length > 0 ? 1 : 0);
					// One request per attempt: the first and each retried one.
					const summaryRequests = h.faux.requests.filter((request) => isSummaryRequest(request.systemPrompt));
					expect(summaryRequests.length).toBe(1 + starts.length);
					// Without an abort, the script decides: the summary within the budget, else the last error.
					const aborted = c.abortAt !== null && c.abortAt.index < scheduled.length + starts.length;
					if (!aborted) {
						const retriesNeeded = c.failures.length;
						expect(scheduled).toHaveLength(Math.min(retriesNeeded, budget));
						const written = h.sessionManager
							.getEntries()
							.some((entry) => entry.type === "compaction" || entry.type === "branch_summary");
						expect(written).toBe(retriesNeeded <= budget && c.final === "summary");
					}
					expect(sessionEventViolations(h.events)).toEqual([]);
					expect(h.eventsOfType("agent_settled")).toHaveLength(c.operation === "threshold" ? 1 : 0);
					expect(h.session.lifecycle).toBe("idle");
					expect(h.session.isCompacting).toBe(false);
				} finally {
					h.cleanup();
				}
			}),
			{ numRuns: 60 },
		);
	});
});
