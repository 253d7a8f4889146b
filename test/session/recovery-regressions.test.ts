/**
 * Regression tests for recovery bugs reported against pi (and one downstream fork), each named
 * after the report. Every one drives the public API of a real session (faux provider, JSONL on
 * disk where the log matters) and checks what a user would see.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, tick } from "./helpers.js";
import {
	BIG_ANSWER,
	gate,
	overflowReply,
	RECOVERY_FAILED,
	recoveryLabels,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	userTexts,
} from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** Waits (a bounded number of ticks) until `condition` holds; throws when it never does. */
async function until(condition: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 2000 && !condition(); i++) await tick();
	if (!condition()) throw new Error(`never happened: ${what} (lifecycle ${h.session.lifecycle})`);
}

describe("pi issue 6820: queued message dropped after threshold compaction", () => {
	it("messages queued while threshold compaction runs are delivered after it, in the same operation", async () => {
		const compaction = gate();
		h = await createHarness({
			...SMALL_WINDOW,
			persistence: "disk",
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_compact", async () => {
						await compaction.promise;
						return undefined;
					});
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("short"),
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("answer to the steer"),
			fauxAssistantMessage("answer to the follow-up"),
		]);
		await h.session.prompt("a");
		let settled = false;
		const second = h.session.prompt("b").then(() => {
			settled = true;
		});
		await until(() => h.session.isCompacting, "threshold compaction started");
		expect(h.session.lifecycle).toBe("compacting.working");
		// What pi's TUI flushed with prompt() once compaction ended; here the session queues it itself.
		await h.session.prompt("follow-up typed during compaction", { streamingBehavior: "followUp" });
		await h.session.steer("steer typed during compaction");
		expect(h.session.pendingMessageCount).toBe(2);
		compaction.release();
		await second;
		expect(settled).toBe(true);
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({ reason: "threshold", aborted: false });
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(h.session.pendingMessageCount).toBe(0);
		// Delivered to the model after the compaction, steering first, one at a time (the default modes).
		expect(answerRequests).toHaveLength(4);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("steer typed during compaction");
		expect(userTexts(answerRequests[3]!).slice(-2)).toEqual([
			"steer typed during compaction",
			"follow-up typed during compaction",
		]);
		expect(answerRequests[3]!.messages.at(-2)).toMatchObject({
			role: "assistant",
			content: [{ text: "answer to the steer" }],
		});
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "answer to the follow-up" }] });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("a compaction_end listener can queue with streamingBehavior; without it pi's rule still applies", async () => {
		h = await createHarness({ ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS });
		const { answerRequests } = script(h, [
			fauxAssistantMessage("short"),
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("a");
		const outcomes: Promise<unknown>[] = [];
		h.session.subscribe((event) => {
			if (event.type !== "compaction_end") return;
			outcomes.push(h.session.prompt("flushed at compaction_end", { streamingBehavior: "followUp" }));
			outcomes.push(
				h.session.prompt("no streamingBehavior").then(
					() => "resolved",
					(error: Error) => error.message,
				),
			);
		});
		await h.session.prompt("b");
		const [queued, unqueued] = await Promise.all(outcomes);
		expect(queued).toBeUndefined();
		expect(unqueued).toMatch(/^Agent is already processing\./);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("flushed at compaction_end");
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});
});

describe("pi issue 6728: compaction queue flush racing the resumed agent", () => {
	it("a follow-up whose input hook is still running when compaction ends is delivered, never stranded", async () => {
		const inputHook = gate();
		h = await createHarness({
			...SMALL_WINDOW,
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("input", async (event) => {
						if (event.text === "handoff") await inputHook.promise;
						return { action: "continue" };
					});
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("short"),
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("handled the handoff"),
		]);
		await h.session.prompt("a");
		// Release the hook exactly when the operation would otherwise settle (pi issue 5886's race).
		const states: string[] = [];
		h.session.inspect((event) => {
			if (event.kind !== "state") return;
			states.push(event.to);
			// (Released at `settling` too, so a session without the fix fails fast instead of hanging.)
			if (event.to === "beforeSettle.awaitingInput" || event.to === "settling") inputHook.release();
		});
		// An extension's handoff while compaction runs, as in the report: sendUserMessage(…, { deliverAs: "followUp" }).
		let handoff: Promise<void> | undefined;
		h.session.subscribe((event) => {
			if (event.type === "compaction_start" && !handoff) {
				handoff = h.session.sendUserMessage("handoff", { deliverAs: "followUp" });
			}
		});
		await h.session.prompt("b");
		await handoff;
		expect(states).toContain("beforeSettle.awaitingInput");
		expect(states.slice(states.indexOf("beforeSettle.awaitingInput"))).toEqual(
			expect.arrayContaining(["running.working", "settling", "idle"]),
		);
		expect(h.extensionErrors).toEqual([]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("handoff");
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "handled the handoff" }] });
		expect(h.session.pendingMessageCount).toBe(0);
	});
});

describe('pi issue 5463: "Cannot continue from message role: assistant" after compacting at the final turn', () => {
	it("threshold compaction after the final answer settles without continuing or failing", async () => {
		h = await createHarness({ ...SMALL_WINDOW, persistence: "disk", settings: THRESHOLD_SETTINGS });
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage("short"),
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("next"),
		]);
		const runCauses: string[] = [];
		h.session.inspect((event) => {
			if (event.kind === "emitted" && event.type === "run_requested") {
				runCauses.push(String((event.payload as { input: { cause: string } }).input.cause));
			}
		});
		await h.session.prompt("a");
		await h.session.prompt("b");
		expect(h.eventsOfType("compaction_end").map((e) => [e.reason, e.willRetry, e.result !== undefined])).toEqual([
			["threshold", false, true],
		]);
		expect(runCauses).toEqual(["prompt", "prompt"]);
		expect(answerRequests).toHaveLength(2);
		expect(summaryRequests.length).toBeGreaterThan(0);
		expect(h.session.messages.at(-1)?.role).toBe("assistant");
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		// The session is usable: the next prompt runs on the compacted context.
		await h.session.prompt("c");
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "next" }] });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("a successful answer over the window is compacted, never re-run (the silent-overflow variant)", async () => {
		// Window 8000: the second request's input (the prompt alone is ~10000 tokens) exceeds it.
		h = await createHarness({ ...SMALL_WINDOW, settings: { compaction: { reserveTokens: 0, keepRecentTokens: 1 } } });
		const { answerRequests } = script(h, [fauxAssistantMessage("ok"), fauxAssistantMessage("fine")]);
		await h.session.prompt("a");
		await h.session.prompt("x".repeat(40_000));
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "overflow", willRetry: false, aborted: false }),
		]);
		expect(answerRequests).toHaveLength(2);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(h.session.lifecycle).toBe("idle");
	});
});

describe("pi issue 9051: a message published from session_compact misses the immediate overflow retry", () => {
	it("the retried request sees what session_compact handlers published", async () => {
		const published: string[] = [];
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_compact", async (event) => {
						published.push(event.reason);
						await pi.sendMessage(
							{ customType: "workflow-state", content: "RESTORED_CONTEXT_MARKER", display: false },
							{ triggerTurn: false },
						);
					});
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("first"),
			overflowReply(),
			(context) =>
				fauxAssistantMessage(userTexts(context).includes("RESTORED_CONTEXT_MARKER") ? "saw it" : "missed it"),
		]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(published).toEqual(["overflow"]);
		expect(answerRequests).toHaveLength(3);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "saw it" }] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("downstream fork: no retry after an extension cancelled overflow compaction", () => {
	it("the cancelled request settles cleanly; a later request's overflow is still recovered and retried", async () => {
		let cancel = true;
		const failed: { reason: string; aborted: boolean; willRetry: boolean }[] = [];
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_compact", () => (cancel ? { cancel: true } : undefined));
					pi.on("session_compact_failed", (event) => {
						failed.push({ reason: event.reason, aborted: event.aborted, willRetry: event.willRetry });
					});
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("first"),
			overflowReply(),
			overflowReply(),
			fauxAssistantMessage("recovered"),
		]);
		await h.session.prompt("one");
		h.events.length = 0;
		await h.session.prompt("two");
		// Documented reading: a cancel means "do not compact"; re-sending the same oversized context
		// would overflow again, so the request ends (no retry) — but it ends: events, settle, resolve.
		// The unanswered prompt then leaves the context too (second context_edit), so "three" goes without it.
		expect(recoveryLabels(h.events).join(" ")).toBe(
			[
				"agent_start turn_start message_start(user) message_end(user) message_start(assistant,error)",
				"message_end(assistant,error) turn_end agent_end(willRetry=false) entry_appended(context_edit)",
				"compaction_start(overflow) compaction_end(overflow,none,aborted=true,willRetry=false)",
				"entry_appended(context_edit) agent_settled",
			].join(" "),
		);
		expect(failed).toEqual([{ reason: "overflow", aborted: true, willRetry: false }]);
		expect(answerRequests).toHaveLength(2);
		expect(h.session.lifecycle).toBe("idle");

		cancel = false;
		h.events.length = 0;
		await h.session.prompt("three");
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "overflow", aborted: false, willRetry: true }),
		]);
		expect(answerRequests).toHaveLength(4);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "recovered" }] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(h.session.messages.some((message) => message.role === "assistant" && message.stopReason === "error")).toBe(
			false,
		);
		expect(RECOVERY_FAILED).toMatch(/^Context overflow recovery failed/);
	});
});
