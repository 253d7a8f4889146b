/**
 * `compact()` while a run streams: "abort the run, then compact" is one decision of the
 * prompt-operation machine (COMPACT held in `context.deferredCompaction` from the call on), not an
 * abort followed by a second request once the session looks idle. Before, a prompt that landed
 * between the abort and that second request (the chat sending the next message as the aborted one
 * resolved, an `agent_settled` handler's message) took the idle slot and `compact()` failed with
 * `BUSY` "Cannot compact now". Here slow extension handlers (`message_end`, `agent_end`,
 * `agent_settled`, `session_before_compact`) and the calls that interfere (prompts, steers,
 * follow-ups, a second `compact()`, `abort()`) land wherever `fc.scheduler` puts them, on a real
 * session file. What the user sees: the compaction happens exactly once, before anything sent after
 * the call, or (after `abort()`) `compact()` rejects with `ABORTED`; never `BUSY`, never a stuck
 * session.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI, ExtensionEventName } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { createHarness } from "../../src/testing/harness.js";
import { harnessViolations } from "../../src/testing/harness-invariants.js";
import { tick } from "./helpers.js";
import { errorReply, OVERFLOW_TEXT, script } from "./recovery-helpers.js";

/** A tool that runs until its run is aborted: the run streams as long as the test needs. */
const waitsForAbort = (started: () => void): AgentTool => ({
	name: "wait",
	label: "Wait",
	description: "Waits until aborted",
	parameters: { type: "object" },
	execute: async (_id, _params, signal) => {
		started();
		await new Promise<void>((resolve) => {
			if (signal?.aborted) resolve();
			signal?.addEventListener("abort", () => resolve());
		});
		return { content: [{ type: "text", text: "stopped" }], details: {} };
	},
});

const SLOW_EVENTS: ExtensionEventName[] = ["message_end", "agent_end", "agent_settled", "session_before_compact"];

type Interference = "prompt" | "promptFollowUp" | "steer" | "followUp" | "compact" | "abort" | "nextPromptOnResolve";

const compactionEntries = (h: { sessionManager: { getEntries(): { type: string }[] } }) =>
	h.sessionManager.getEntries().filter((entry) => entry.type === "compaction").length;

describe("compact() while a run streams (one machine decision: abort, then compact)", () => {
	it("regression: the next prompt sent as the aborted one resolves no longer makes compact() fail with BUSY; the compaction comes first", async () => {
		let toolStarted!: () => void;
		const started = new Promise<void>((resolve) => (toolStarted = resolve));
		const h = await createHarness({
			persistence: "disk",
			tools: [waitsForAbort(() => toolStarted())],
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		try {
			script(h, [
				fauxAssistantMessage("earlier answer"),
				fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
				fauxAssistantMessage("next answer"),
			]);
			await h.session.prompt("earlier");
			// A chat that sends the next message as soon as the previous prompt() resolves.
			let next: Promise<unknown> | undefined;
			const run = h.session.prompt("long task").then(() => {
				next = h.session.prompt("next").then(
					() => "answered",
					(error: unknown) => error,
				);
			});
			await started;
			const compacted = await h.session.compact().then(
				(result) => result,
				(error: unknown) => error,
			);
			await run;
			expect(compacted).not.toBeInstanceOf(Error);
			expect(compacted).toMatchObject({ summary: expect.stringContaining("summary") });
			expect(compactionEntries(h)).toBe(1);
			// The prompt sent meanwhile met the manual compaction: refused with a typed error (pi's rule), nothing lost.
			const outcome = await next;
			expect(outcome).toBeInstanceOf(SettleError);
			expect(outcome).toMatchObject({ code: "BUSY" });
			await h.session.waitForIdle();
			expect(h.session.lifecycle).toBe("idle");
			expect(harnessViolations(h)).toEqual([]);
		} finally {
			h.cleanup();
		}
	});

	it("compact() from an agent_settled handler is held until the dispatch ends, then answered once; abort() meanwhile keeps it (the run is over)", async () => {
		let compacted: Promise<unknown> | undefined;
		let session: { compact(): Promise<unknown>; abort(): Promise<void> } | undefined;
		let handlerDone = false;
		const h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("agent_settled", async () => {
						if (compacted || !session) return;
						compacted = session.compact().then(
							(result) => ({ result, handlerDoneFirst: handlerDone }),
							(error: unknown) => error,
						);
						void session.abort();
						await tick();
						handlerDone = true;
					});
				},
			],
		});
		try {
			script(h, [fauxAssistantMessage("earlier answer"), fauxAssistantMessage("second answer")]);
			await h.session.prompt("earlier");
			session = h.session;
			await h.session.prompt("second");
			expect(compacted, "the agent_settled handler called compact()").toBeDefined();
			const outcome = await compacted;
			expect(outcome).not.toBeInstanceOf(Error);
			expect(outcome).toMatchObject({
				result: { summary: expect.stringContaining("summary") },
				handlerDoneFirst: true,
			});
			expect(compactionEntries(h)).toBe(1);
			await h.session.waitForIdle();
			expect(harnessViolations(h)).toEqual([]);
		} finally {
			h.cleanup();
		}
	});

	it("regression: compact() from session_compact of an overflow recovery ends the operation, and compaction_end no longer says willRetry (seed -759387691)", async () => {
		let session: { compact(): Promise<unknown> } | undefined;
		let manual: Promise<unknown> | undefined;
		const h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_compact", async (event) => {
						if (event.reason !== "overflow" || manual || !session) return;
						manual = session.compact().then(
							(result) => result,
							(error: unknown) => error,
						);
						await tick();
					});
				},
			],
		});
		try {
			script(h, [fauxAssistantMessage("earlier answer"), errorReply(OVERFLOW_TEXT), fauxAssistantMessage("retried")]);
			await h.session.prompt("earlier");
			session = h.session;
			await h.session.prompt("too long");
			expect(manual, "the session_compact handler called compact()").toBeDefined();
			await manual;
			await h.session.waitForIdle();
			const ends = h.events.filter((event) => event.type === "compaction_end");
			expect(ends[0]).toMatchObject({ reason: "overflow", aborted: false, willRetry: false });
			const retried = h.events.some(
				(event) =>
					event.type === "message_end" &&
					event.message.role === "assistant" &&
					event.message.stopReason === "stop" &&
					JSON.stringify(event.message.content).includes("retried"),
			);
			expect(retried, "compact() ended the operation: the overflowed request is not retried").toBe(false);
			expect(harnessViolations(h)).toEqual([]);
		} finally {
			h.cleanup();
		}
	});

	it("compacts exactly once or rejects with ABORTED (never BUSY, never stuck), whatever lands between the abort and the compaction", async () => {
		const interferenceArb = fc.constantFrom<Interference>(
			"prompt",
			"promptFollowUp",
			"steer",
			"followUp",
			"compact",
			"abort",
			"nextPromptOnResolve",
		);
		const reached = { heldWhileSettling: 0, promptDeferredBehindCompaction: 0 };
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				fc.array(interferenceArb, { maxLength: 4 }),
				fc.boolean(),
				async (s, interferences, sendFromSettled) => {
					let armed = false;
					// compact() as the run streams (its tool runs until aborted); the handlers wait on the
					// scheduler, so nothing here may await outside the loop below.
					let onToolStart = () => {};
					const h = await createHarness({
						persistence: "disk",
						tools: [waitsForAbort(() => onToolStart())],
						settings: { compaction: { keepRecentTokens: 1 } },
						extensionFactories: [
							(pi: ExtensionAPI) => {
								for (const type of SLOW_EVENTS) {
									pi.on(type as "agent_end", async () => {
										if (armed) await s.schedule(Promise.resolve(), type);
									});
								}
								// An extension's message from agent_settled: deferred there, re-issued once idle.
								pi.on("agent_settled", () => {
									if (!armed || !sendFromSettled) return;
									sendFromSettled = false;
									pi.sendUserMessage("from agent_settled");
								});
							},
						],
					});
					try {
						script(h, [
							fauxAssistantMessage("earlier answer"),
							fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
							...Array.from({ length: 8 }, (_, i) => fauxAssistantMessage(`answer ${i}`)),
						] as AssistantMessage[]);
						await h.session.prompt("earlier");
						armed = true;
						let calls = 0;
						let resolved = 0;
						const track = <T>(promise: Promise<T>) => {
							calls++;
							return promise.finally(() => resolved++);
						};
						const compactOutcomes: unknown[] = [];
						const compact = () =>
							track(
								h.session.compact().then(
									(result) => result,
									(error: unknown) => error,
								),
							).then((outcome) => {
								compactOutcomes.push(outcome);
							});
						let aborted = false;
						onToolStart = () => void compact();
						const run = track(h.session.prompt("long task").catch((error: unknown) => error));
						// The chat's next message as the aborted run settles (what once took the idle slot and made
						// compact() fail BUSY), sent in every run that gets there: the reach does not hang on where
						// the scheduler puts the prompts below.
						let promptedWhileHeld = false;
						h.session.subscribe((event) => {
							if (event.type !== "agent_settled" || h.session.snapshot.context.deferredCompaction === undefined) return;
							reached.heldWhileSettling++;
							if (promptedWhileHeld) return;
							promptedWhileHeld = true;
							reached.promptDeferredBehindCompaction++;
							void track(h.session.prompt("sent as the run settles").catch(() => undefined));
						});
						interferences.forEach((kind, index) => {
							const text = `${kind}-${index}`;
							if (kind === "nextPromptOnResolve") {
								void run.then(() => track(h.session.prompt(text).catch(() => undefined)));
								calls++;
								resolved++;
								return;
							}
							void track(
								s.schedule(Promise.resolve(), text).then(async () => {
									if (h.session.snapshot.context.deferredCompaction !== undefined && kind.startsWith("prompt"))
										reached.promptDeferredBehindCompaction++;
									switch (kind) {
										case "prompt":
											return h.session.prompt(text).catch(() => undefined);
										case "promptFollowUp":
											return h.session.prompt(text, { streamingBehavior: "followUp" }).catch(() => undefined);
										case "steer":
											return h.session.steer(text);
										case "followUp":
											return h.session.followUp(text);
										case "compact":
											return compact();
										case "abort":
											aborted = true;
											return h.session.abort();
									}
								}),
							);
						});
						// Bounded by wall time only to catch a hang.
						const deadline = performance.now() + 20_000;
						while (
							!(resolved === calls && h.session.lifecycle === "idle" && s.count() === 0) &&
							performance.now() < deadline
						) {
							if (s.count() > 0) await s.waitOne();
							else await tick();
						}
						expect(resolved, "every prompt, compact() and abort() resolved (nothing stuck)").toBe(calls);
						// Only an abort() can cancel the held compaction before the run settles.
						if (!interferences.includes("abort")) expect(promptedWhileHeld, "a prompt was sent while held").toBe(true);
						await h.session.waitForIdle();
						expect(h.session.lifecycle).toBe("idle");
						expect(h.session.snapshot.context.deferredCompaction).toBeUndefined();
						expect(harnessViolations(h)).toEqual([]);
						const results = compactOutcomes.filter((outcome) => !(outcome instanceof Error));
						const errors = compactOutcomes.filter((outcome): outcome is Error => outcome instanceof Error);
						for (const error of errors) {
							// Typed, and never "not possible now": cancelled by abort(), or nothing left to
							// compact for a compact() that came after the first compaction.
							expect(error, String(error)).toBeInstanceOf(SettleError);
							expect((error as SettleError).code, error.message).not.toBe("BUSY");
							expect(error.message).toMatch(/^(Compaction cancelled|Already compacted|Nothing to compact)/);
							if (error.message.startsWith("Compaction cancelled")) expect(aborted).toBe(true);
						}
						// Exactly once: every compact() answered by a compaction got one that was written,
						// and calls that were held together share one (the same summary).
						const summaries = new Set(results.map((result) => (result as { summary: string }).summary));
						expect(compactionEntries(h)).toBe(summaries.size);
						const manualEnds = h.eventsOfType("compaction_end").filter((e) => e.reason === "manual" && e.result);
						expect(manualEnds).toHaveLength(summaries.size);
						if (!aborted) expect(results.length, "without abort() the first compact() compacts").toBeGreaterThan(0);
					} finally {
						h.cleanup();
					}
				},
			),
			{ numRuns: 80 },
		);
		// The property is only as good as its reach: a compaction was held while agent_settled ran,
		// and a prompt was sent while one was held.
		expect(reached.heldWhileSettling).toBeGreaterThan(0);
		expect(reached.promptDeferredBehindCompaction).toBeGreaterThan(0);
	}, 120_000);
});
