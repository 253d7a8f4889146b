/**
 * An operation whose run makes no progress settles with `OPERATION_STALLED` instead of spinning
 * (DESIGN §8 invariants 1 and 9; mutant S09). Reproduced through the public extension API: a
 * `turn_end` boundary that drops every message from the model context, and an `agent_end` handler
 * that queues a follow-up. The continuation for that follow-up then has no message to continue
 * from and is skipped, while the follow-up stays queued: before the guard the machine asked for
 * the same skipped run again in microtasks, forever (100% CPU, no timer or abort could run).
 */
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { roles } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/**
 * Counts runs requested per operation from the inspection stream (synchronous, so it sees a
 * microtask loop). Past `bound` it empties the queue, which ends a livelock, so a regression fails
 * the assertions below instead of hanging the test process.
 */
function watchRuns(harness: Harness, bound = 20): { runs: number[]; brokeLoop: () => boolean } {
	const runs: number[] = [];
	let broke = false;
	harness.session.inspect((event) => {
		if (event.kind !== "emitted") return;
		if (event.type === "operation_started") runs.push(0);
		if (event.type !== "run_requested") return;
		const count = (runs[runs.length - 1] ?? 0) + 1;
		runs[runs.length - 1] = count;
		if (count > bound && !broke) {
			broke = true;
			harness.session.clearQueue();
		}
	});
	return { runs, brokeLoop: () => broke };
}

/** Drops the whole model context at the first turn_end, and queues one follow-up at the first agent_end. */
function contextDroppingExtension(pi: ExtensionAPI): void {
	let dropped = false;
	let queued = false;
	pi.on("turn_end", (event) => {
		if (dropped) return undefined;
		dropped = true;
		const messages = event.context.contextEntries.filter(
			(entry) => entry.type === "message" && entry.message.role !== "system",
		);
		return {
			entries: messages.map((entry) => ({ type: "context_edit" as const, targetId: entry.id, replacement: null })),
		};
	});
	pi.on("agent_end", () => {
		if (queued) return;
		queued = true;
		pi.sendMessage(
			{ customType: "reminder", content: "Also run the tests.", display: true },
			{ deliverAs: "followUp" },
		);
	});
}

describe("an operation that cannot make progress", () => {
	it("settles once and prompt() rejects with OPERATION_STALLED; the queued message is kept and delivered next", async () => {
		h = await createHarness({ extensionFactories: [contextDroppingExtension] });
		const watch = watchRuns(h);
		h.setResponses([
			fauxAssistantMessage("first answer"),
			fauxAssistantMessage("ok"),
			fauxAssistantMessage("tests run"),
		]);

		const failure = await h.session.prompt("start").then(
			() => undefined,
			(error: unknown) => error,
		);

		expect(watch.brokeLoop()).toBe(false);
		expect(failure).toBeInstanceOf(SettleError);
		expect(failure).toMatchObject({
			code: "OPERATION_STALLED",
			details: { reason: "queued_messages", runCause: "queued", runIndex: 2, stillQueued: true },
		});
		expect((failure as Error).message).toMatch(/run 2 added nothing to the session.*still queued/);
		// The prompt's run and the one skipped continuation; then exactly one agent_settled.
		expect(watch.runs).toEqual([2]);
		expect(h.faux.callCount).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.events.at(-1)?.type).toBe("agent_settled");
		expect(h.session.isStreaming).toBe(false);
		expect(h.session.lifecycle).toBe("idle");
		// Nothing lost: the follow-up is still queued, and the next prompt delivers it.
		expect(h.session.agent.hasQueuedMessages()).toBe(true);
		await h.session.prompt("again");
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "custom", "assistant"]);
		expect(h.session.agent.hasQueuedMessages()).toBe(false);
		expect(h.faux.callCount).toBe(3);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(watch.runs).toEqual([2, 1]);
	});

	it("an extension's own prompt that stalls reports through onError, not as an unhandled rejection", async () => {
		let send: ((text: string) => void) | undefined;
		h = await createHarness({
			extensionFactories: [
				contextDroppingExtension,
				(pi: ExtensionAPI) => {
					send = (text) => pi.sendUserMessage(text);
				},
			],
		});
		watchRuns(h);
		h.setResponses([fauxAssistantMessage("first answer")]);
		const settled = h.nextEvent("agent_settled");
		send!("from the extension");
		await settled;
		await h.session.waitForIdle();
		await new Promise((resolve) => setImmediate(resolve));
		expect(h.extensionErrors).toHaveLength(1);
		expect(h.extensionErrors[0]?.error).toMatch(/^The operation stopped: run 2 added nothing/);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("a continuation agent_before_settle keeps asking for that adds nothing settles with the stall", async () => {
		let asked = 0;
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("agent_before_settle", () => {
						asked++;
						// Bounded here too, so a regression fails the assertions instead of hanging.
						return asked > 20 ? undefined : { continue: true };
					}),
			],
		});
		const watch = watchRuns(h);
		h.setResponses([fauxAssistantMessage("answer")]);
		// A continuation that returns without running (what a broken Agent or a future change could do).
		h.session.agent.continue = async () => {};
		// The boundary's continue must be valid: give the context a message to continue from.
		h.session.subscribe((event) => {
			if (event.type === "agent_end" && asked === 0) {
				h.session.sendCustomMessage(
					{ customType: "note", content: "check again", display: false },
					{ triggerTurn: false },
				);
			}
		});
		const failure = await h.session.prompt("start").then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(failure).toMatchObject({
			code: "OPERATION_STALLED",
			details: { reason: "boundary_continuation", runCause: "boundary", runIndex: 2 },
		});
		expect(asked).toBe(2);
		expect(watch.runs).toEqual([2]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
	});
});
