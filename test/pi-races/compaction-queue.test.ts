/**
 * pi race reports about messages typed or sent while a compaction runs, replayed against Settle
 * through its public API: a real session on the scripted faux model, the session file on disk.
 * Each test names the report and states what the user sees: the message is delivered exactly once,
 * in order, in the same operation, persisted; the session settles once; `isCompacting` and
 * `isIdle` say the truth; nothing fails. And `compact()` during a run whose last answer is over the
 * threshold (pi#7253): the compaction the user asked for runs, and only it.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	BIG_ANSWER,
	comparable,
	fileEntries,
	gate,
	overflowReply,
	persistedRoles,
	persistedUserTexts,
	reopenedContext,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	timesPersisted,
	userTexts,
} from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** A session whose second prompt crosses the compaction threshold; compaction waits for `hold`. */
async function thresholdSession(hold: Promise<void>, more: ((pi: ExtensionAPI) => void)[] = []) {
	h = await createHarness({
		...SMALL_WINDOW,
		persistence: "disk",
		settings: THRESHOLD_SETTINGS,
		extensionFactories: [
			(pi: ExtensionAPI) => {
				pi.on("session_before_compact", async () => {
					await hold;
					return undefined;
				});
			},
			...more,
		],
	});
	return h;
}

/**
 * Scripts `short`, {@link BIG_ANSWER} and `third`, answers prompt `a`, sends `b` (whose answer
 * crosses the threshold) and waits for its compaction to start. `beforeSecond` runs between.
 */
async function compactingAfterSecondPrompt(third: string, beforeSecond?: () => void) {
	const { answerRequests } = script(h, [
		fauxAssistantMessage("short"),
		fauxAssistantMessage(BIG_ANSWER),
		fauxAssistantMessage(third),
	]);
	await h.session.prompt("a");
	beforeSecond?.();
	const second = h.session.prompt("b");
	await h.nextEvent("compaction_start");
	return { answerRequests, second };
}

describe("pi#6820: queued message dropped after threshold auto-compaction (“Agent is already processing”)", () => {
	it("pi#6820: a message typed during threshold compaction is delivered when compaction ends", async () => {
		const compaction = gate();
		await thresholdSession(compaction.promise);
		const { answerRequests, second } = await compactingAfterSecondPrompt("answer to the typed message");
		expect(h.session.isCompacting).toBe(true);
		expect(h.session.isIdle).toBe(false);
		// What the chat sends for a line typed while busy (settle -i passes its streamingBehavior).
		let accepted: string | undefined;
		const typed = h.session.prompt("typed during compaction", {
			streamingBehavior: "steer",
			preflightResult: (disposition) => {
				accepted = disposition;
			},
		});
		await typed;
		expect(accepted).toBe("queued");
		expect(h.session.getSteeringMessages()).toEqual(["typed during compaction"]);
		compaction.release();
		await second;

		expect(h.eventsOfType("compaction_end")[0]).toMatchObject({
			reason: "threshold",
			aborted: false,
			willRetry: false,
		});
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(h.session.isIdle).toBe(true);
		expect(h.session.isCompacting).toBe(false);
		expect(h.session.pendingMessageCount).toBe(0);
		// Delivered in the same operation, after the compaction, once; the model answered it.
		expect(answerRequests).toHaveLength(3);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("typed during compaction");
		const file = h.session.sessionFile!;
		expect(timesPersisted(file, "typed during compaction")).toBe(1);
		expect(persistedUserTexts(file)).toEqual(["a", "b", "typed during compaction"]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "answer to the typed message" }] });
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(h.extensionErrors).toEqual([]);
	});

	it("pi#6820: a custom message sent without triggerTurn during threshold compaction is answered when compaction ends (pi steers it and continues), not left unanswered", async () => {
		const compaction = gate();
		await thresholdSession(compaction.promise);
		const { answerRequests, second } = await compactingAfterSecondPrompt("answer to the note");
		await h.session.sendCustomMessage({ customType: "ci", content: "CI is red", display: true });
		compaction.release();
		await second;

		expect(h.eventsOfType("compaction_end")[0]).toMatchObject({ reason: "threshold", aborted: false });
		expect(answerRequests).toHaveLength(3);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("CI is red");
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "answer to the note" }] });
		expect(persistedRoles(h.session.sessionFile!).slice(-2)).toEqual(["custom:ci", "assistant"]);
		expect(persistedRoles(h.session.sessionFile!).filter((role) => role === "custom:ci")).toHaveLength(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(h.session.isIdle).toBe(true);
		expect(h.extensionErrors).toEqual([]);
	});

	it("pi#6820: a prompt without streamingBehavior during compaction is refused with a typed BUSY, never half-queued", async () => {
		const compaction = gate();
		await thresholdSession(compaction.promise);
		const { second } = await compactingAfterSecondPrompt("unused");
		const refused = await h.session.prompt("no behavior").then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(refused).toBeInstanceOf(SettleError);
		expect(refused).toMatchObject({ code: "BUSY", message: expect.stringMatching(/^Agent is already processing\./) });
		expect(h.session.pendingMessageCount).toBe(0);
		compaction.release();
		await second;
		expect(persistedUserTexts(h.session.sessionFile!)).toEqual(["a", "b"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});
});

describe("pi#5886: a message typed during threshold compaction with an async input hook stays in the steering queue", () => {
	/** The comment's only extension: an input hook that yields once. */
	const yieldingInputHook = (pi: ExtensionAPI) => {
		pi.on("input", async () => {
			await Promise.resolve();
			return { action: "continue" };
		});
	};

	it("pi#5886: steered with prompt(…, { streamingBehavior }), compaction ending while the hook runs: delivered, not stuck", async () => {
		const compaction = gate();
		await thresholdSession(compaction.promise, [yieldingInputHook]);
		const { answerRequests, second } = await compactingAfterSecondPrompt("answered");
		const typed = h.session.prompt("typed while compacting", { streamingBehavior: "steer" });
		// Compaction ends while the input hook is still awaiting (the report's ordering).
		compaction.release();
		await Promise.all([typed, second]);
		expect(h.session.getSteeringMessages()).toEqual([]);
		expect(h.session.isIdle).toBe(true);
		expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual(["a", "b", "typed while compacting"]);
		expect(timesPersisted(h.session.sessionFile!, "typed while compacting")).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});

	for (const kind of ["steer", "followUp"] as const) {
		it(`pi#5886: session.${kind}() during threshold compaction, its input hook still running when the operation would settle: delivered in the same operation`, async () => {
			const compaction = gate();
			const inputHook = gate();
			await thresholdSession(compaction.promise, [
				(pi: ExtensionAPI) => {
					pi.on("input", async (event) => {
						if (event.text === `${kind} text`) await inputHook.promise;
						return { action: "continue" };
					});
				},
			]);
			let settled = 0;
			const states: string[] = [];
			const { answerRequests, second } = await compactingAfterSecondPrompt("answered", () => {
				h.session.subscribe((event) => {
					if (event.type === "agent_settled") settled++;
				});
				// The hook returns exactly when the operation decides how to end (pi checked its queue then).
				h.session.inspect((event) => {
					if (event.kind !== "state") return;
					states.push(event.to);
					if (event.to === "beforeSettle.awaitingInput" || event.to === "settling") inputHook.release();
				});
			});
			const queued = kind === "steer" ? h.session.steer(`${kind} text`) : h.session.followUp(`${kind} text`);
			compaction.release();
			const [result] = await Promise.all([queued, second]);
			expect(result).toBe("queued");
			// Before the fix the operation settled first: the message stayed listed with nothing running.
			expect({
				steering: h.session.getSteeringMessages(),
				followUp: h.session.getFollowUpMessages(),
			}).toEqual({ steering: [], followUp: [] });
			expect(states).toContain("beforeSettle.awaitingInput");
			expect(settled).toBe(1);
			expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual(["a", "b", `${kind} text`]);
			expect(timesPersisted(h.session.sessionFile!, `${kind} text`)).toBe(1);
			expect(h.session.isIdle).toBe(true);
		});
	}
});

describe("pi#6728: compaction queue flush races with the resumed agent and rejects a queued message", () => {
	it('pi#6728: an extension command\'s sendUserMessage(…, { deliverAs: "followUp" }) during compaction is delivered once', async () => {
		const compaction = gate();
		await thresholdSession(compaction.promise, [
			(pi: ExtensionAPI) => {
				pi.registerCommand("handoff", {
					description: "Hands the work over",
					handler: async (args) => {
						pi.sendUserMessage(`handoff: ${args}`, { deliverAs: "followUp" });
					},
				});
			},
		]);
		const { answerRequests, second } = await compactingAfterSecondPrompt("took the handoff");
		// The user runs the command while compaction runs (the chat passes its streamingBehavior).
		await h.session.prompt("/handoff the plan", { streamingBehavior: "steer" });
		compaction.release();
		await second;
		await h.session.waitForIdle();
		expect(h.extensionErrors).toEqual([]);
		expect(h.session.pendingMessageCount).toBe(0);
		expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual(["a", "b", "handoff: the plan"]);
		expect(timesPersisted(h.session.sessionFile!, "handoff: the plan")).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});
});

describe("atomic#1280: stall after auto-compaction; overflow retry and a compaction_end listener starting work", () => {
	it("atomic#1280: a follow-up queued from compaction_end{willRetry} reaches the retried request, which has no trailing overflow error", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		const { answerRequests } = script(h, [
			fauxAssistantMessage("first"),
			overflowReply(),
			fauxAssistantMessage("retried answer"),
			fauxAssistantMessage("answer to the follow-up"),
		]);
		await h.session.prompt("one");
		const queued: Promise<unknown>[] = [];
		h.session.subscribe((event) => {
			if (event.type === "compaction_end" && event.willRetry) {
				queued.push(h.session.prompt("flushed at compaction_end", { streamingBehavior: "followUp" }));
			}
		});
		await h.session.prompt("two");
		await Promise.all(queued);
		expect(queued).toHaveLength(1);
		expect(answerRequests).toHaveLength(4);
		// The retried request: the compacted context plus "two", without the overflow error.
		const retried = answerRequests[2]!;
		expect(retried.messages.at(-1)).toMatchObject({ role: "user" });
		expect(retried.messages.some((message) => message.role === "assistant" && message.stopReason === "error")).toBe(
			false,
		);
		expect(userTexts(answerRequests[3]!).at(-1)).toBe("flushed at compaction_end");
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(timesPersisted(h.session.sessionFile!, "flushed at compaction_end")).toBe(1);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "answer to the follow-up" }] });
	});
});

describe("pi-herdr-agents#47: forced compaction exits auto-exit subagents before continuation", () => {
	it("pi-herdr-agents#47: agent_settled comes once, after compaction and the continuation, never on an intermediate error", async () => {
		// An auto-exit subagent: it reads the last assistant message at agent_settled and shuts down.
		const seenAtSettle: { stopReason: string | undefined; compactions: number; lifecycle: string }[] = [];
		h = await createHarness({
			...SMALL_WINDOW,
			persistence: "disk",
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					let compactions = 0;
					pi.on("session_compact", () => {
						compactions++;
					});
					pi.on("agent_settled", (_event, ctx) => {
						const last = ctx.sessionManager
							.getBranch()
							.flatMap((entry) =>
								entry.type === "message" && entry.message.role === "assistant" ? [entry.message] : [],
							)
							.at(-1);
						seenAtSettle.push({ stopReason: last?.stopReason, compactions, lifecycle: String(ctx.isIdle()) });
					});
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("short"),
			// An overflow first (recovered by compacting and retrying), then an answer over the threshold
			// (threshold compaction), then the follow-up queued meanwhile.
			overflowReply(),
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("follow-up done"),
		]);
		await h.session.prompt("a");
		let followedUp = false;
		h.session.subscribe((event) => {
			if (event.type === "compaction_start" && event.reason === "threshold" && !followedUp) {
				followedUp = true;
				void h.session.followUp("then continue");
			}
		});
		await h.session.prompt("b");
		expect(
			h
				.eventsOfType("compaction_end")
				.map((event) => [event.reason, event.willRetry])
				.slice(0, 2),
		).toEqual([
			["overflow", true],
			["threshold", false],
		]);
		expect(answerRequests).toHaveLength(4);
		expect(seenAtSettle).toEqual([
			{ stopReason: "stop", compactions: 0, lifecycle: "true" },
			{ stopReason: "stop", compactions: h.eventsOfType("compaction_end").length, lifecycle: "true" },
		]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		// agent_settled is the last event of the operation: nothing of it comes after.
		expect(h.events.at(-1)?.type).toBe("agent_settled");
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "follow-up done" }] });
	});
});

describe("pi#6447: message queue stuck after auto-compaction — steering messages never delivered", () => {
	it('pi#6447: a steer typed while overflow recovery compacts ("critical overflow handled") is delivered once in the same operation, not left listed', async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		const { answerRequests } = script(h, [
			fauxAssistantMessage("first"),
			overflowReply(),
			fauxAssistantMessage("retried answer"),
			fauxAssistantMessage("answer to the steer"),
		]);
		await h.session.prompt("one");
		const steered: Promise<unknown>[] = [];
		h.session.subscribe((event) => {
			if (event.type === "compaction_start" && event.reason === "overflow") {
				// What the chat does with a line typed while the session works.
				steered.push(h.session.steer("Continue with D3 and after that with D4"));
			}
		});
		await h.session.prompt("two");
		await Promise.all(steered);
		expect(steered).toHaveLength(1);
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({ reason: "overflow", willRetry: true });
		// Delivered in the same operation: a request carries it, the queue is empty, the session idle.
		expect(
			answerRequests.filter((request) => userTexts(request).includes("Continue with D3 and after that with D4")),
		).not.toHaveLength(0);
		expect(h.session.getSteeringMessages()).toEqual([]);
		expect(h.session.pendingMessageCount).toBe(0);
		expect(timesPersisted(h.session.sessionFile!, "Continue with D3 and after that with D4")).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(h.session.isIdle).toBe(true);
	});
});

describe("pi#7086: manual compact during overflow-recovery auto-compaction silently loses the retried turn", () => {
	it("pi#7086 / pi#5242: compact() while overflow recovery summarizes ends that recovery (compaction_end aborted) and completes; nothing runs unsaved afterwards, the file equals the live context, and the next prompt is answered from the manual summary", async () => {
		const inHook = gate();
		const releaseHook = gate();
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					// Stands in for a slow summary (the report's 15 s sleep): overflow recovery waits here.
					pi.on("session_before_compact", async (event) => {
						if (event.reason !== "overflow") return;
						inHook.release();
						await releaseHook.promise;
					});
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("first"),
			fauxAssistantMessage("second"),
			overflowReply(),
			fauxAssistantMessage("answer after the manual compaction"),
		]);
		await harness.session.prompt("one");
		await harness.session.prompt("two");
		const third = harness.session.prompt("three").then(
			() => "resolved",
			(error: unknown) => (error instanceof SettleError ? error.code : String(error)),
		);
		await inHook.promise;
		const manual = harness.session.compact().then(
			() => "resolved",
			(error: unknown) => (error instanceof SettleError ? error.code : String(error)),
		);
		releaseHook.release();
		expect(await manual).toBe("resolved");
		expect(await third).toBe("resolved");
		await harness.session.waitForIdle();
		expect(harness.eventsOfType("compaction_end").map((event) => [event.reason, event.aborted])).toEqual([
			["overflow", true],
			["manual", false],
		]);
		// pi#5242: the paused recovery, resumed after the second compaction began, fails with no
		// "Cannot read properties of undefined (reading 'signal')": neither compaction reports an error.
		expect(harness.eventsOfType("compaction_end").map((event) => event.errorMessage)).toEqual([undefined, undefined]);
		// The recovery's retry never ran behind the manual compaction's back: no request since "three".
		expect(answerRequests).toHaveLength(3);
		expect(harness.eventsOfType("agent_settled")).toHaveLength(3);
		expect(harness.session.isIdle).toBe(true);
		const file = harness.session.sessionFile!;
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		expect(harness.session.messages.map((message) => message.role)).toContain("compactionSummary");
		await harness.session.prompt("four");
		expect(answerRequests).toHaveLength(4);
		expect(JSON.stringify(answerRequests[3]!.messages)).toContain("## Goal");
		expect(userTexts(answerRequests[3]!).at(-1)).toBe("four");
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});

/** An answer over the threshold of {@link THRESHOLD_SETTINGS} on {@link SMALL_WINDOW} (8000 - 4000 tokens), under the window. */
const OVER_THRESHOLD = BIG_ANSWER.repeat(3).slice(0, 18_000);

describe("pi#7253 (fixed by pi#7370): /compact during an active multi-turn response runs an automatic compaction first, then fails “Already compacted”", () => {
	it("pi#7253: compact() while a tool runs after an answer over the threshold: the run stops, one compaction runs — the manual one, with the user's instructions — and compact() returns its result (no automatic compaction first, no “Already compacted”)", async () => {
		const toolStarted = gate();
		const aborted: boolean[] = [];
		const slowRead: AgentTool = {
			name: "read_notes",
			label: "read_notes",
			description: "Reads the notes",
			parameters: { type: "object" },
			// A long tool that honours abort: the report's multi-turn response is mid-batch.
			execute: (_id, _args, signal) =>
				new Promise((resolve) => {
					toolStarted.release();
					signal?.addEventListener("abort", () => {
						aborted.push(true);
						resolve({ content: [{ type: "text", text: "stopped" }], details: {} });
					});
				}),
		};
		h = await createHarness({
			...SMALL_WINDOW,
			persistence: "disk",
			settings: THRESHOLD_SETTINGS,
			tools: [slowRead],
		});
		const harness = h;
		const { answerRequests, summaryRequests } = script(harness, [
			fauxAssistantMessage("short"),
			// The turn whose usage is over the threshold asks for a tool: the run goes on.
			fauxAssistantMessage([{ type: "text", text: OVER_THRESHOLD }, fauxToolCall("read_notes", {})], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("not reached: the run was stopped"),
			fauxAssistantMessage("answered from the summary"),
		]);
		await harness.session.prompt("a");
		const running = harness.session.prompt("b");
		await toolStarted.promise;
		// The race's precondition: the answer before the tool is over the threshold (8000 - 4000).
		expect(harness.session.getContextUsage()!.tokens).toBeGreaterThan(4000);
		const compacted = await harness.session.compact("keep the plan");
		await running;
		await harness.session.waitForIdle();
		expect(aborted).toEqual([true]);
		// One compaction, the one the user asked for, with their instructions; it summarized the branch.
		expect(harness.eventsOfType("compaction_start").map((event) => event.reason)).toEqual(["manual"]);
		expect(
			harness.eventsOfType("compaction_end").map((event) => [event.reason, event.aborted, event.errorMessage]),
		).toEqual([["manual", false, undefined]]);
		// (Its requests: the history's summary and, the cut falling inside a turn, that turn's prefix.)
		expect(summaryRequests.length).toBeGreaterThan(0);
		expect(summaryRequests.some((request) => JSON.stringify(request.messages).includes("keep the plan"))).toBe(true);
		expect(compacted.summary).toContain("## Goal");
		// The stopped run made no further request; it settled once, before the compaction.
		expect(answerRequests).toHaveLength(2);
		expect(harness.eventsOfType("agent_settled")).toHaveLength(2);
		const file = harness.session.sessionFile!;
		expect(fileEntries(file).filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		// The next prompt runs on the compacted context.
		await harness.session.prompt("c");
		expect(answerRequests).toHaveLength(3);
		expect(JSON.stringify(answerRequests[2]!.messages)).toContain("## Goal");
		expect(harness.session.isIdle).toBe(true);
	});
});
