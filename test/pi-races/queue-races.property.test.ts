/**
 * The pi queue/compaction/retry races (pi#6820, pi#5886, pi#6728, senpi#917, prime-agent#444) with
 * the interleaving left to `fc.scheduler`: every extension handler on the path — the `input` hook
 * (pi#5886's trigger), `session_before_compact`, `turn_end`, `agent_end`, `agent_before_settle` —
 * waits on the scheduler, and messages are queued at scheduled moments through every entry point
 * the reports used: `steer()` / `followUp()`, `prompt(…, { streamingBehavior })` (the chat),
 * `sendUserMessage(…, { deliverAs })`, an extension command that hands over with
 * `pi.sendUserMessage(…, { deliverAs: "followUp" })` (pi#6728), and an `agent_end` handler's
 * follow-up. A message may carry an image, small or with a side over 2000 px: that one is resized
 * first, the async path on which `SessionQueues.hasOpenTurn` keeps a later message of its queue
 * from overtaking it (atomic#2074, oh-my-pi#10633). The model answers may fail transiently first (a retry on the SimulatedClock), overflow
 * (compact and retry), and cross the compaction threshold. The operation may first call a tool twice (the
 * tool waits on the scheduler too), under `toolExecution` "parallel" or "sequential", and messages may
 * be sent as a tool starts or ends. Checked once everything resolved:
 *
 * - exactly one `agent_settled` per started operation; the session ends idle, not compacting;
 * - no queued message is lost or delivered twice (`queueViolations`), and one sent while an
 *   operation was streaming (however long its input hooks take) is never left listed once the
 *   session rests: that operation delivered it;
 * - each queue keeps the order its messages were sent in, whichever way they went in, listed and
 *   delivered;
 * - each image reaches the model once, with the message it was sent with: resized to 2000 px with
 *   its dimension note when it was larger, byte for byte otherwise; no request holds it twice;
 * - the session file's order is the `message_end` order, and reopening it gives the live context;
 * - every tool call in the file has its result; under "sequential" the calls ran one at a time, in order;
 * - no extension error.
 *
 * `SETTLE_RACES_RUNS` sets the number of runs (default 60), `SETTLE_RACES_SCALE=10` multiplies them
 * for a deeper search; the time limit grows with the runs, so a long hunt (`SETTLE_RACES_RUNS=1500`)
 * is not cut short. `SETTLE_RACES_SEED=<seed>` (with `SETTLE_RACES_PATH=<path>`) replays a failure.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage, ImageContent } from "../../src/llm/types.js";
import { createHarness, type HarnessWithClock } from "../../src/testing/harness.js";
import { queueViolations } from "../../src/testing/queue-invariants.js";
import { decodedSize, encodeImage } from "../tools/image-resize-helpers.js";
import { orphanToolMessages } from "./disk-harness.js";
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
	"tool_execution_start",
	"tool_execution_end",
);

/** A message's image: none, one sent as it is, or one with a side over 2000 px (resized first). */
type Attachment = "none" | "small" | "large";
const attachmentArb = fc.constantFrom<Attachment>("none", "none", "small", "large");
/** One image per action index and size, encoded once: distinct bytes, and a plain gradient keeps the PNG small. */
const IMAGES: Record<Exclude<Attachment, "none">, ImageContent[]> = {
	small: [0, 1, 2, 3].map((index) => png(encodeImage("png", 24, 24, index + 1))),
	large: [0, 1, 2, 3].map((index) => png(encodeImage("png", 20, 2100 + index, index + 1, 0))),
};
function png(bytes: Buffer): ImageContent {
	return { type: "image", data: bytes.toString("base64"), mimeType: "image/png" };
}

/** Which queue a message sent while streaming joins (the handoff command's follow-up included). */
const QUEUE_OF: Record<QueueKind, "steering" | "followUp"> = {
	steer: "steering",
	promptSteer: "steering",
	sendUserSteer: "steering",
	followUp: "followUp",
	promptFollowUp: "followUp",
	sendUserFollowUp: "followUp",
	handoffCommand: "followUp",
};

/** Whether a user message's text is `sent`, possibly followed by the notes its images left. */
function carries(text: string | undefined, sent: string): boolean {
	return text === sent || text?.startsWith(`${sent}\n\n[Image`) === true;
}

/** Whether the operation under test first calls a tool twice, and how the two calls run (`toolExecution`). */
const toolRunArb = fc.constantFrom<"none" | "parallel" | "sequential">("none", "none", "parallel", "sequential");

/** The first reply to the operation under test: fine, a transient failure (retried), or an overflow. */
const firstReplyArb = fc.constantFrom<"big" | "transient" | "overflow">("big", "transient", "overflow");

describe("pi queue / compaction / retry races under random interleavings", () => {
	it("no queued message is lost or delivered twice; one agent_settled per operation; log order = event order", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				firstReplyArb,
				fc.array(fc.record({ kind: queueKindArb, trigger: triggerArb, image: attachmentArb }), {
					minLength: 1,
					maxLength: 4,
				}),
				fc.boolean(),
				fc.integer({ min: 0, max: 2 }),
				fc.boolean(),
				// Event-loop turns let pass before each scheduled release, so unscheduled work (the model's
				// stream, the compaction's summary request) can run ahead of a pending handler.
				fc.array(fc.constantFrom(0, 0, 1, 5, 30, 300), { minLength: 1, maxLength: 8 }),
				// Mostly with an `input` hook; without one a steer() / followUp() without a large image is
				// queued at once, unless one sent before it is still being resized.
				fc.constantFrom(true, true, false),
				// Whether every message is sent at the first one's moment, back to back.
				fc.boolean(),
				toolRunArb,
				async (
					s,
					firstReply,
					generated,
					agentEndFollowUp,
					maxRetries,
					beforeSettleHandler,
					pauses,
					inputHook,
					together,
					toolRun,
				) => {
					const actions = together
						? generated.map((action) => ({ ...action, trigger: generated[0]!.trigger }))
						: generated;
					let agentEndSent = false;
					let underTest = false;
					// Per queue, the texts in the order their calls were made (the handoff's when its command
					// runs), whichever way in: steer() / followUp() queue directly, prompt() and
					// sendUserMessage() through the session's machine (seed -1274250077: a request sent from an
					// agent_start listener was listed after a steer() made right after it).
					const sentOrder: Record<"steering" | "followUp", string[]> = { steering: [], followUp: [] };
					const imageOf = (index: number): ImageContent | undefined => {
						const attachment = actions[index]?.image ?? "none";
						return attachment === "none" ? undefined : IMAGES[attachment][index];
					};
					// What the tool's calls did, in order: `start <n>` / `end <n>`.
					const toolTrace: string[] = [];
					const pause: AgentTool = {
						name: "pause",
						label: "Pause",
						description: "Waits on the scheduler",
						parameters: { type: "object" },
						execute: async (_id, params) => {
							const n = (params as { n: number }).n;
							toolTrace.push(`start ${n}`);
							await s.schedule(Promise.resolve(), `tool ${n}`);
							toolTrace.push(`end ${n}`);
							return { content: [{ type: "text", text: `paused ${n}` }], details: {} };
						},
					};
					const h: HarnessWithClock = await createHarness({
						...SMALL_WINDOW,
						persistence: "disk",
						simulatedClock: true,
						tools: [pause],
						settings: {
							...THRESHOLD_SETTINGS,
							retry: { maxRetries, baseDelayMs: 10 },
							...(toolRun === "none" ? {} : { toolExecution: toolRun }),
						},
						extensionFactories: [
							(pi: ExtensionAPI) => {
								if (inputHook) {
									pi.on("input", async (event) => {
										await s.schedule(Promise.resolve(), `input ${event.text}`);
										return { action: "continue" };
									});
								}
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
										sentOrder.followUp.push("agent_end heartbeat");
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
										const text = `handoff ${args}`;
										const image = imageOf(Number(args));
										sentOrder.followUp.push(text);
										pi.sendUserMessage(image ? [{ type: "text", text }, image] : text, { deliverAs: "followUp" });
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
						const answers: Answer[] = [fauxAssistantMessage("short")];
						if (toolRun !== "none")
							answers.push(
								fauxAssistantMessage([fauxToolCall("pause", { n: 1 }), fauxToolCall("pause", { n: 2 })], {
									stopReason: "toolUse",
								}),
							);
						answers.push(first);
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
							if (kind !== "handoffCommand") sentOrder[QUEUE_OF[kind]].push(text);
							const image = imageOf(index);
							const images = image ? { images: [image] } : {};
							const content = image ? [{ type: "text" as const, text }, image] : text;
							const counted = {
								preflightResult: (disposition: string) => {
									if (disposition === "started") started++;
								},
							};
							switch (kind) {
								case "steer":
									return track(h.session.steer(text, image && [image]));
								case "followUp":
									return track(h.session.followUp(text, image && [image]));
								case "promptSteer":
									return track(h.session.prompt(text, { streamingBehavior: "steer", ...images, ...counted }));
								case "promptFollowUp":
									return track(h.session.prompt(text, { streamingBehavior: "followUp", ...images, ...counted }));
								case "sendUserSteer":
									return track(h.session.sendUserMessage(content, { deliverAs: "steer" }));
								case "sendUserFollowUp":
									return track(h.session.sendUserMessage(content, { deliverAs: "followUp" }));
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

						// Each queue kept its send order across the ways in: in the lists, and in the log.
						const logTexts = persistedMessages(h).map(textOf);
						for (const queue of ["steering", "followUp"] as const) {
							const joined = queuedOrder(h.events, queue);
							const sent = sentOrder[queue];
							expect(
								joined.filter((text) => sent.includes(text)),
								`${queue}: listed in the order sent`,
							).toEqual(sent.filter((text) => joined.includes(text)));
							const delivered = joined.filter((text) => logTexts.some((logged) => carries(logged, text)));
							const positions = delivered.map((text) => logTexts.findIndex((logged) => carries(logged, text)));
							expect(positions, `${queue}: delivered in the order listed (${delivered.join(", ")})`).toEqual(
								[...positions].sort((a, b) => a - b),
							);
						}

						// Each image reached the model once, with its own message: resized when over 2000 px.
						for (const [index, action] of actions.entries()) {
							const image = imageOf(index);
							if (!image) continue;
							const sent = action.kind === "handoffCommand" ? `handoff ${index}` : `${action.kind} ${index}`;
							const logged = persistedMessages(h).filter((message) => carries(textOf(message), sent));
							if (logged.length === 0) continue; // still listed (a steer sent once the session rested)
							expect(logged, `${sent}: one message in the log`).toHaveLength(1);
							const blocks = imagesOf(logged[0]!);
							expect(blocks, `${sent}: its one image`).toHaveLength(1);
							if (action.image === "small") {
								expect(blocks[0]!.data, `${sent}: sent as it was`).toBe(image.data);
								expect(textOf(logged[0]!)).toBe(sent);
							} else {
								const { width, height } = decodedSize(Buffer.from(blocks[0]!.data, "base64"));
								expect(Math.max(width, height), `${sent}: resized`).toBe(2000);
								expect(textOf(logged[0]!)).toBe(
									`${sent}\n\n[Image: original 20x${2100 + index}, displayed at ${width}x${height}. Multiply coordinates by ${(20 / width).toFixed(2)} to map to original image.]`,
								);
							}
							const seen = h.faux.requests.map(
								(request) =>
									request.messages.filter(
										(message) =>
											message.role === "user" && imagesOf(message).some((block) => block.data === blocks[0]!.data),
									).length,
							);
							expect(Math.max(...seen), `${sent}: in a request, and never twice`).toBe(1);
						}

						// Persisted order = event order; the reopened file = the live context.
						const logged = persistedMessages(h);
						const ended = h.eventsOfType("message_end").map((event) => event.message);
						expect(logged.slice(-ended.length)).toEqual(ended.filter((message) => message.role !== "custom"));
						expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));

						// Every call has its result; sequential calls never overlap and keep the answer's order.
						expect(orphanToolMessages(h.session.sessionFile!)).toEqual({
							callsWithoutResult: [],
							resultsWithoutCall: [],
						});
						if (toolRun === "sequential") {
							const ran = toolTrace.filter((step) => step.startsWith("start")).map((step) => step.slice(6));
							expect(toolTrace, "one call at a time, in the answer's order").toEqual(
								ran.flatMap((n) => [`start ${n}`, `end ${n}`]),
							);
							expect(ran, "in the answer's order").toEqual([...ran].sort());
						}
					} finally {
						h.cleanup();
					}
				},
			),
			{ numRuns: RUNS, endOnFailure: true, ...replay },
		);
	});
});

/** The messages of the session log, in order. */
function persistedMessages(h: HarnessWithClock): AgentMessage[] {
	return h.sessionManager
		.getEntries()
		.flatMap((entry): AgentMessage[] => (entry.type === "message" ? [entry.message] : []));
}

/** The image blocks of a user message. */
function imagesOf(message: AgentMessage): ImageContent[] {
	if (message.role !== "user" || typeof message.content === "string") return [];
	return message.content.filter((block): block is ImageContent => block.type === "image");
}

/** A queue's texts in the order they joined its list (`queue_update` events). */
function queuedOrder(events: readonly { type: string }[], queue: "steering" | "followUp"): string[] {
	const joined: string[] = [];
	let listed: readonly string[] = [];
	for (const event of events) {
		if (event.type !== "queue_update") continue;
		const next = (event as unknown as Record<typeof queue, readonly string[]>)[queue];
		const before = [...listed];
		for (const text of next) {
			const at = before.indexOf(text);
			if (at === -1) joined.push(text);
			else before.splice(at, 1);
		}
		listed = next;
	}
	return joined;
}
