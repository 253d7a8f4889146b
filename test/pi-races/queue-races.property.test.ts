/**
 * The pi queue/compaction/retry races (pi#6820, pi#5886, pi#6728, senpi#917, prime-agent#444) with
 * the interleaving left to `fc.scheduler`: every extension handler on the path — the `input` hook
 * (pi#5886's trigger), `session_before_compact`, `turn_end`, `agent_end`, `agent_before_settle` —
 * waits on the scheduler, and messages are queued at scheduled moments through every entry point
 * the reports used: `steer()` / `followUp()`, `prompt(…, { streamingBehavior })` (the chat),
 * `sendUserMessage(…, { deliverAs })`, an extension command that hands over with
 * `pi.sendUserMessage(…, { deliverAs: "followUp" })` (pi#6728), and an `agent_end` handler's
 * follow-up. The model answers may fail transiently first (a retry on the SimulatedClock), overflow
 * (compact and retry), and cross the compaction threshold. Checked once everything resolved:
 *
 * - exactly one `agent_settled` per started operation; the session ends idle, not compacting;
 * - no queued message is lost or delivered twice (`queueViolations`), and one sent while an
 *   operation was streaming (however long its input hooks take) is never left listed once the
 *   session rests: that operation delivered it;
 * - the session file's order is the `message_end` order, and reopening it gives the live context;
 * - no extension error.
 *
 * `SETTLE_RACES_RUNS` sets the number of runs (default 60), `SETTLE_RACES_SCALE=10` multiplies them
 * for a deeper search; the time limit grows with the runs, so a long hunt (`SETTLE_RACES_RUNS=1500`)
 * is not cut short. `SETTLE_RACES_SEED=<seed>` (with `SETTLE_RACES_PATH=<path>`) replays a failure.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { createHarness, type HarnessWithClock } from "../../src/testing/harness.js";
import { queueViolations } from "../../src/testing/queue-invariants.js";
import {
	type Answer,
	BIG_ANSWER,
	comparable,
	errorReply,
	OVERLOADED,
	overflowReply,
	reopenedContext,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	textOf,
	tick,
} from "./helpers.js";

const scale = Math.max(1, Number(process.env.SETTLE_RACES_SCALE ?? 1) || 1);
const replay = {
	...(process.env.SETTLE_RACES_SEED === undefined ? {} : { seed: Number(process.env.SETTLE_RACES_SEED) }),
	...(process.env.SETTLE_RACES_PATH ? { path: process.env.SETTLE_RACES_PATH } : {}),
};
const RUNS = Number(process.env.SETTLE_RACES_RUNS ?? 60) * scale;
/** 60 s by default; a second per run beyond that, so a long hunt is not cut short. */
const TIME_LIMIT_MS = Math.max(60_000, RUNS * 1_000);
vi.setConfig({ testTimeout: TIME_LIMIT_MS });

type QueueKind =
	| "steer"
	| "followUp"
	| "promptSteer"
	| "promptFollowUp"
	| "sendUserSteer"
	| "sendUserFollowUp"
	| "handoffCommand";
const queueKindArb = fc.constantFrom<QueueKind>(
	"steer",
	"followUp",
	"promptSteer",
	"promptFollowUp",
	"sendUserSteer",
	"sendUserFollowUp",
	"handoffCommand",
);

/** When a message is sent: the first such public event of the operation under test. */
const triggerArb = fc.constantFrom(
	"agent_start",
	"message_start",
	"message_end",
	"turn_end",
	"agent_end",
	"auto_retry_start",
	"compaction_start",
	"compaction_end",
);

/** The first reply to the operation under test: fine, a transient failure (retried), or an overflow. */
const firstReplyArb = fc.constantFrom<"big" | "transient" | "overflow">("big", "transient", "overflow");

describe("pi queue / compaction / retry races under random interleavings", () => {
	it("no queued message is lost or delivered twice; one agent_settled per operation; log order = event order", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				firstReplyArb,
				fc.array(fc.record({ kind: queueKindArb, trigger: triggerArb }), { minLength: 1, maxLength: 4 }),
				fc.boolean(),
				fc.integer({ min: 0, max: 2 }),
				fc.boolean(),
				// Event-loop turns let pass before each scheduled release, so unscheduled work (the model's
				// stream, the compaction's summary request) can run ahead of a pending handler.
				fc.array(fc.constantFrom(0, 0, 1, 5, 30, 300), { minLength: 1, maxLength: 8 }),
				async (s, firstReply, actions, agentEndFollowUp, maxRetries, beforeSettleHandler, pauses) => {
					let agentEndSent = false;
					let underTest = false;
					const h: HarnessWithClock = await createHarness({
						...SMALL_WINDOW,
						persistence: "disk",
						simulatedClock: true,
						settings: { ...THRESHOLD_SETTINGS, retry: { maxRetries, baseDelayMs: 10 } },
						extensionFactories: [
							(pi: ExtensionAPI) => {
								pi.on("input", async (event) => {
									await s.schedule(Promise.resolve(), `input ${event.text}`);
									return { action: "continue" };
								});
								pi.on("session_before_compact", async (event) => {
									await s.schedule(Promise.resolve(), `session_before_compact ${event.reason}`);
									return undefined;
								});
								pi.on("turn_end", async () => {
									await s.schedule(Promise.resolve(), "turn_end");
								});
								pi.on("agent_end", async () => {
									await s.schedule(Promise.resolve(), "agent_end");
									if (agentEndFollowUp && underTest && !agentEndSent) {
										agentEndSent = true;
										pi.sendUserMessage("agent_end heartbeat", { deliverAs: "followUp" });
									}
								});
								// Optional: with no handler the boundary is skipped, the narrowest settle window.
								if (beforeSettleHandler) {
									pi.on("agent_before_settle", async () => {
										await s.schedule(Promise.resolve(), "agent_before_settle");
										return undefined;
									});
								}
								pi.registerCommand("handoff", {
									description: "Hands the work over",
									handler: async (args) => {
										pi.sendUserMessage(`handoff ${args}`, { deliverAs: "followUp" });
									},
								});
							},
						],
					});
					try {
						const first: Answer =
							firstReply === "big"
								? fauxAssistantMessage(BIG_ANSWER)
								: firstReply === "transient"
									? errorReply(OVERLOADED)
									: overflowReply();
						const answers: Answer[] = [fauxAssistantMessage("short"), first];
						for (let i = 0; i < 24; i++) answers.push(fauxAssistantMessage(i === 0 ? BIG_ANSWER : `answer ${i}`));
						script(h, answers);
						// Setup, outside the schedule: a first exchange, so the next one can cross the threshold.
						const setup = h.session.prompt("setup");
						const setupDeadline = performance.now() + 20_000;
						while ((s.count() > 0 || h.session.lifecycle !== "idle") && performance.now() < setupDeadline) {
							if (s.count() > 0) await s.waitAll();
							else await tick();
						}
						await setup;
						h.events.length = 0;
						underTest = true;

						// Texts sent while an operation was streaming (the call, not the queueing: input hooks
						// may finish later): that operation must deliver them.
						const sentWhileStreaming = new Set<string>();
						let started = 0;
						let settled = 0;
						h.session.subscribe((event) => {
							if (event.type === "agent_settled") settled++;
						});
						const pending: Promise<unknown>[] = [];
						let outstanding = 0;
						const track = (promise: Promise<unknown>) => {
							outstanding++;
							const settledPromise = promise.catch((error: unknown) => error).finally(() => outstanding--);
							pending.push(settledPromise);
							return settledPromise;
						};
						const send = (kind: QueueKind, index: number) => {
							const text = `${kind} ${index}`;
							if (h.session.isStreaming) sentWhileStreaming.add(kind === "handoffCommand" ? `handoff ${index}` : text);
							const counted = {
								preflightResult: (disposition: string) => {
									if (disposition === "started") started++;
								},
							};
							switch (kind) {
								case "steer":
									return track(h.session.steer(text));
								case "followUp":
									return track(h.session.followUp(text));
								case "promptSteer":
									return track(h.session.prompt(text, { streamingBehavior: "steer", ...counted }));
								case "promptFollowUp":
									return track(h.session.prompt(text, { streamingBehavior: "followUp", ...counted }));
								case "sendUserSteer":
									return track(h.session.sendUserMessage(text, { deliverAs: "steer" }));
								case "sendUserFollowUp":
									return track(h.session.sendUserMessage(text, { deliverAs: "followUp" }));
								case "handoffCommand":
									return track(h.session.prompt(`/handoff ${index}`, { streamingBehavior: "steer", ...counted }));
							}
						};
						// Each message is sent at the first occurrence of its trigger (the moments the reports name).
						const unsent = actions.map((action, index) => ({ ...action, index }));
						h.session.subscribe((event) => {
							for (const action of unsent.filter((candidate) => candidate.trigger === event.type)) {
								unsent.splice(unsent.indexOf(action), 1);
								void send(action.kind, action.index);
							}
						});
						track(
							h.session.prompt("under test", {
								preflightResult: (disposition) => {
									if (disposition === "started") started++;
								},
							}),
						);
						const deadline = performance.now() + 20_000;
						let released = 0;
						const quiet = () => outstanding === 0 && h.session.lifecycle === "idle" && s.count() === 0;
						while (!quiet() && performance.now() < deadline) {
							if (s.count() > 0) {
								for (let i = pauses[released++ % pauses.length]!; i > 0; i--) await tick();
								if (s.count() > 0) await s.waitOne();
							} else {
								await tick();
								if (h.session.isRetrying) h.clock.increment(h.session.snapshot.context.retryDelayMs);
							}
						}
						const finished = quiet();
						const outcomes = await Promise.all(pending);
						expect(finished, "every prompt and queue call resolved").toBe(true);
						expect(
							outcomes.filter((outcome) => outcome instanceof Error).map((error) => (error as Error).message),
						).toEqual([]);
						expect(h.extensionErrors).toEqual([]);

						// One agent_settled per operation: each closes a stretch that started a run, none is left
						// open, and there are at least as many as the prompts that reported "started".
						expect(h.session.lifecycle).toBe("idle");
						expect(h.session.isCompacting).toBe(false);
						let open = false;
						for (const event of h.events) {
							if (event.type === "agent_start") open = true;
							if (event.type !== "agent_settled") continue;
							expect(open, "an agent_settled without a run since the last one").toBe(true);
							open = false;
						}
						expect(open, "a run that never settled").toBe(false);
						expect(settled).toBeGreaterThanOrEqual(started);

						// Nothing lost or delivered twice; nothing queued while streaming left behind.
						expect(queueViolations(h)).toEqual([]);
						const stillListed = [...h.session.getSteeringMessages(), ...h.session.getFollowUpMessages()];
						expect(stillListed.filter((text) => sentWhileStreaming.has(text))).toEqual([]);
						const persisted = h.sessionManager
							.getEntries()
							.flatMap((entry) => (entry.type === "message" ? [textOf(entry.message)] : []))
							.filter((text): text is string => text !== undefined);
						for (const text of new Set(persisted)) {
							expect(
								persisted.filter((other) => other === text),
								text,
							).toHaveLength(1);
						}

						// Persisted order = event order; the reopened file = the live context.
						const logged = h.sessionManager
							.getEntries()
							.flatMap((entry): AgentMessage[] => (entry.type === "message" ? [entry.message] : []));
						const ended = h.eventsOfType("message_end").map((event) => event.message);
						expect(logged.slice(-ended.length)).toEqual(ended.filter((message) => message.role !== "custom"));
						expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
					} finally {
						h.cleanup();
					}
				},
			),
			{ numRuns: RUNS, endOnFailure: true, ...replay },
		);
	});
});
