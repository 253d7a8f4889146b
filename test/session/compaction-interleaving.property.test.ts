/**
 * DESIGN §8 invariants 1, 4, 5, 6, 7 and 8 where compaction, retry backoff and queued messages meet,
 * on a real JSONL file. The other session properties keep these apart: session.property never
 * compacts by hand nor crosses the threshold (only overflow recovery compacts), recovery.property
 * compacts and retries on disk but one call at a time. Here a small window makes answers cross the
 * compaction threshold, overflow errors start recovery, transient errors start a retry backoff, and
 * `compact()`, `abort()`, `abortCompaction()`, `abortRetry()`, steers, follow-ups and prompts land
 * wherever `fc.scheduler` puts them: inside a summary request (every summary answer waits on the
 * scheduler), inside extension handlers (every handler, `session_before_compact` and
 * `session_compact` included, waits on it) and inside a backoff (the clock only moves when nothing
 * else can). Checked after everything settled, with `harnessViolations` (the event protocol, one
 * `agent_settled` per operation, idle, no timer left, log order, every queued text delivered once,
 * listed or cleared, the reopened file equal to the live context) plus: every call resolved,
 * `compact()` rejects only with its documented reasons, entry ids are unique, no compaction entry is
 * written after an abort that reached its compaction first, and retries and overflow recoveries
 * stay within their bounds (`checkRetriesAndOverflow`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionEventName } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { fauxStepArbitrary } from "../../src/testing/arbitraries.js";
import { createHarness } from "../../src/testing/harness.js";
import { harnessViolations } from "../../src/testing/harness-invariants.js";
import { driveScheduled, echo } from "./helpers.js";
import {
	type Answer,
	BIG_ANSWER,
	checkRetriesAndOverflow,
	errorReply,
	OVERFLOW_TEXT,
	SMALL_WINDOW,
	script,
} from "./recovery-helpers.js";

const DELAYED_EVENTS: ExtensionEventName[] = [
	"input",
	"agent_start",
	"turn_end",
	"tool_call",
	"agent_end",
	"agent_settled",
	"session_before_compact",
	"session_compact",
];

/** What compact() may reject with (its TSDoc), whatever else runs. */
const COMPACT_REJECTION =
	/^(Nothing to compact|Already compacted|Compaction cancelled|Compaction failed|Summarization failed|Turn prefix summarization failed|.*aborted)/i;

const answerArb: fc.Arbitrary<Answer> = fc.oneof(
	{
		weight: 4,
		arbitrary: fauxStepArbitrary({ kinds: ["text", "toolCalls", "length"], toolNames: ["echo"] }).map(
			(step) => step.message,
		),
	},
	{ weight: 3, arbitrary: fc.constant(0).map(() => errorReply("503 Service Unavailable")) },
	{ weight: 2, arbitrary: fc.constant(0).map(() => errorReply(OVERFLOW_TEXT)) },
	// About 3000 output tokens: the next check crosses the threshold of the 8000-token window.
	{ weight: 2, arbitrary: fc.constant(0).map(() => fauxAssistantMessage(BIG_ANSWER)) },
);
/** About 4500 output tokens: crosses the threshold after a first short exchange. */
const HUGE_ANSWER = fauxAssistantMessage("h".repeat(18_000));

type ActionKind =
	| "steer"
	| "followUp"
	| "prompt"
	| "promptSteer"
	| "compact"
	| "abort"
	| "abortCompaction"
	| "abortRetry";
/**
 * When an action is handed to the scheduler: at once, when the `nth` event of a type is emitted, or
 * when the `nth` retry backoff (turn or summary) waits on the clock; then the scheduler picks when it
 * runs, inside the compaction or backoff or after it. (Handed over at once, every action ran before
 * the first compaction or backoff; keyed to `auto_retry_start`, after the backoff: the clock may
 * move before a listener sees that event.)
 */
type Trigger = "start" | "compaction_start" | "backoff" | "summaryBackoff" | "turn_end" | "agent_end";
interface Action {
	kind: ActionKind;
	on: Trigger;
	nth: number;
}
const actionArb: fc.Arbitrary<Action> = fc.record({
	kind: fc.constantFrom<ActionKind>(
		"steer",
		"followUp",
		"prompt",
		"promptSteer",
		"compact",
		"compact",
		"abort",
		"abortCompaction",
		"abortRetry",
	),
	on: fc.constantFrom<Trigger>(
		"start",
		"compaction_start",
		"compaction_start",
		"compaction_start",
		"backoff",
		"backoff",
		"backoff",
		"summaryBackoff",
		"turn_end",
		"agent_end",
	),
	nth: fc.integer({ min: 0, max: 1 }),
});

describe("compaction, retry backoff and queued messages interleaved (DESIGN §8: 1, 4, 5, 6, 7, 8)", () => {
	it("hold whichever order the scheduler picks, on disk", async () => {
		// How often the risky moments were reached (the property is only as good as its reach).
		const reached = { abortInCompaction: 0, queuedInCompaction: 0, compactInBackoff: 0, queuedInBackoff: 0 };
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				// The first answer opens a backoff or a compaction (an easy first answer settles most runs
				// before anything interleaves; session.property covers those).
				fc
					.tuple(
						fc.constantFrom<Answer>(
							errorReply("503 Service Unavailable"),
							errorReply("503 Service Unavailable"),
							errorReply(OVERFLOW_TEXT),
							HUGE_ANSWER,
						),
						fc.array(answerArb, { maxLength: 9 }),
					)
					.map(([first, rest]) => [first, ...rest]),
				fc.array(actionArb, { minLength: 2, maxLength: 8 }),
				fc.array(fc.option(fc.boolean(), { nil: undefined }), { maxLength: 4 }),
				// An extension writes the summary (session_before_compact returns it after its wait).
				fc.boolean(),
				async (s, answers, actions, summaryFails, extensionSummarizes) => {
					let warmedUp = false;
					const h = await createHarness({
						...SMALL_WINDOW,
						persistence: "disk",
						simulatedClock: true,
						tools: [echo],
						settings: {
							retry: { baseDelayMs: 10, maxRetries: 2 },
							compaction: { reserveTokens: 4000, keepRecentTokens: 1 },
						},
						extensionFactories: [
							(pi: ExtensionAPI) => {
								for (const type of DELAYED_EVENTS) {
									pi.on(type as "agent_start", async () => {
										if (warmedUp) await s.schedule(Promise.resolve(), type);
									});
								}
								if (extensionSummarizes) {
									pi.on("session_before_compact", async (event) => {
										if (warmedUp) await s.schedule(Promise.resolve(), "extension summary");
										const { firstKeptEntryId, tokensBefore } = event.preparation;
										return { compaction: { summary: "extension summary", firstKeptEntryId, tokensBefore } };
									});
								}
							},
						],
					});
					try {
						// A first exchange, so that every compaction has something to summarize.
						script(h, [fauxAssistantMessage("warmed up"), ...answers], {
							summary: (n) =>
								s.schedule(
									Promise.resolve<AssistantMessage>(
										summaryFails[n - 1] === undefined
											? fauxAssistantMessage(`## Goal\nsummary ${n}`)
											: errorReply(summaryFails[n - 1] ? "529 overloaded_error" : "400 invalid_request_error"),
									),
									`summary ${n}`,
								),
						});
						await h.settle(h.session.prompt("warm up"));
						warmedUp = true;
						const compactErrors: string[] = [];
						// Queued while an operation streamed: with nothing stopping it (no abort, no compact()) and
						// unless it ends in an error (a failed overflow recovery, retries used up), that operation
						// delivers it, also from a compaction after its run (pi runs it next).
						const sentWhileStreaming = new Map<string, number>();
						let stopped = false;
						const endedInError: boolean[] = [];
						let lastStop: string | undefined;
						// A second overflow in one request (an error, or a length stop from a full context, after
						// the recovery's compaction) ends the operation with a failed recovery: it delivers nothing.
						let recoveryFailed = false;
						h.session.subscribe((event) => {
							if (event.type === "message_end" && event.message.role === "assistant")
								lastStop = event.message.stopReason;
							if (event.type === "compaction_end" && event.reason === "overflow" && event.errorMessage !== undefined)
								recoveryFailed = true;
							if (event.type === "agent_settled") {
								endedInError.push(lastStop === "error" || lastStop === "aborted" || recoveryFailed);
								lastStop = undefined;
								recoveryFailed = false;
							}
						});
						// Every call made, and how many have resolved (actions join as their events fire).
						let calls = 0;
						let resolved = 0;
						const track = (promise: Promise<unknown>) => {
							calls++;
							void promise.finally(() => resolved++);
						};
						track(h.session.prompt("p0").catch(() => undefined));
						const run = (action: Action, index: number) => {
							const text = `${action.kind}-${index}`;
							const queues = action.kind === "steer" || action.kind === "followUp" || action.kind === "promptSteer";
							if (queues && h.session.isStreaming) sentWhileStreaming.set(text, endedInError.length);
							if (["abort", "abortCompaction", "abortRetry", "compact"].includes(action.kind)) stopped = true;
							if (h.session.isCompacting) {
								if (action.kind === "abort" || action.kind === "abortCompaction") reached.abortInCompaction++;
								if (queues) reached.queuedInCompaction++;
							}
							if (h.session.isRetrying) {
								if (action.kind === "compact") reached.compactInBackoff++;
								if (queues) reached.queuedInBackoff++;
							}
							switch (action.kind) {
								case "steer":
									return h.session.steer(text);
								case "followUp":
									return h.session.followUp(text);
								case "prompt":
									return h.session.prompt(text).catch(() => undefined);
								case "promptSteer":
									return h.session.prompt(text, { streamingBehavior: "steer" }).catch(() => undefined);
								case "compact":
									return h.session.compact().catch((error: Error) => {
										compactErrors.push(error.message);
									});
								case "abort":
									noteCompactionAbort();
									return h.session.abort();
								case "abortCompaction":
									noteCompactionAbort();
									return h.session.abortCompaction();
								case "abortRetry":
									return h.session.abortRetry();
							}
						};
						const fire = (action: Action, index: number) =>
							track(
								s.schedule(Promise.resolve(), `${action.kind}-${index} on ${action.on}`).then(async () => {
									await run(action, index);
								}),
							);
						// A compaction aborted before its entry was written writes none (invariant 8: it checks
						// the abort before starting work, and writing its entry is work).
						const compactionEntries = () =>
							h.sessionManager.getEntries().filter((entry) => entry.type === "compaction").length;
						let abortedWith: number | undefined;
						const writtenAfterAbort: string[] = [];
						const noteCompactionAbort = () => {
							if (h.session.isCompacting && abortedWith === undefined) abortedWith = compactionEntries();
						};
						h.session.subscribe((event) => {
							if (event.type !== "compaction_end" || abortedWith === undefined) return;
							if (compactionEntries() > abortedWith) writtenAfterAbort.push(`${event.reason} compaction`);
							abortedWith = undefined;
						});
						const seen = new Map<string, number>();
						h.session.subscribe((event) => {
							const count = seen.get(event.type) ?? 0;
							seen.set(event.type, count + 1);
							actions.forEach((action, index) => {
								if (action.on === event.type && action.nth === count) fire(action, index);
							});
						});
						actions.forEach((action, index) => {
							if (action.on === "start") fire(action, index);
						});
						const finished = () => resolved === calls;
						const fireAt = (on: Trigger, nth: number) => {
							const due = actions.flatMap((action, index) => (action.on === on && action.nth === nth ? [index] : []));
							for (const index of due) fire(actions[index]!, index);
							return due.length > 0;
						};
						await driveScheduled(h, s, finished, fireAt);
						expect(finished(), "every prompt, queue call, compact() and abort resolved").toBe(true);
						await h.session.waitForIdle();
						expect(harnessViolations(h)).toEqual([]);
						expect(writtenAfterAbort, "no compaction entry written after its abort").toEqual([]);
						checkRetriesAndOverflow(h.events, { maxRetries: 2, maxAgentDelayMs: 0 });
						if (!stopped) {
							const listed = [...h.session.getSteeringMessages(), ...h.session.getFollowUpMessages()];
							const operation = (text: string) => sentWhileStreaming.get(text);
							expect(
								listed.filter((text) => operation(text) !== undefined && endedInError[operation(text)!] === false),
								"queued while streaming, left listed by an operation that ended well",
							).toEqual([]);
						}
						for (const message of compactErrors) expect(message).toMatch(COMPACT_REJECTION);
						const ids = h.sessionManager.getEntries().map((entry) => entry.id);
						expect(new Set(ids).size, "entry ids are unique").toBe(ids.length);
					} finally {
						h.cleanup();
					}
				},
			),
			{ numRuns: 100 },
		);
		// Each is about 10 to 30 in 100 runs.
		expect(
			reached.abortInCompaction + reached.queuedInCompaction,
			"an abort or a queued message landed in a compaction",
		).toBeGreaterThan(0);
		expect(
			reached.compactInBackoff + reached.queuedInBackoff,
			"a compact() or a queued message landed in a backoff",
		).toBeGreaterThan(0);
	});
});
