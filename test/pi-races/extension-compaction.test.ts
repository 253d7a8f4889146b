/**
 * UniPi#30 (Neuron-Mr-White/UniPi, on pi 0.84.2): an extension that compacts at a context
 * threshold calls `ctx.compact()` from its `turn_end` handler — as pi's own `trigger-compact.ts`
 * example does — and pi's compact() begins by aborting the running operation: the model's turn
 * after the tool result is lost ("Error: This operation was aborted"). What the user should see:
 * the run goes on to its answer, and the compaction follows once the operation has settled.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, fileEntries, gate, reopenedContext, script, until } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const read: AgentTool = {
	name: "read_notes",
	label: "read_notes",
	description: "Reads the notes",
	parameters: { type: "object" },
	execute: async () => ({ content: [{ type: "text", text: `notes ${"words ".repeat(40)}` }], details: {} }),
};

/** An extension compacting from the first `turn_end`, recording what its callbacks heard. */
function compactOnFirstTurnEnd(outcomes: string[]) {
	let asked = false;
	return (pi: ExtensionAPI) => {
		pi.on("turn_end", (_event, ctx) => {
			if (asked) return;
			asked = true;
			ctx.compact({
				customInstructions: "keep the notes",
				onComplete: () => outcomes.push("compacted"),
				onError: (error) => outcomes.push(`error: ${error.message}`),
			});
		});
	};
}

const SETTINGS = { compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 10 } };

describe("UniPi#30: ctx.compact() from turn_end aborts the active turn", () => {
	it("UniPi#30: the run answers after the tool result, then the compaction runs, saved after the answer", async () => {
		const outcomes: string[] = [];
		h = await createHarness({
			persistence: "disk",
			tools: [read],
			settings: SETTINGS,
			extensionFactories: [compactOnFirstTurnEnd(outcomes)],
		});
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("read_notes", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage(`The notes say ${"things ".repeat(40)}`),
		]);
		await h.session.prompt(`summarize my notes ${"please ".repeat(40)}`);
		// ctx.compact() is fire-and-forget: idle once it is over; its callback reports the end.
		await h.session.waitForIdle();
		await until(h, () => outcomes.length > 0, "the compaction's callback");
		expect(h.extensionErrors).toEqual([]);
		expect(outcomes).toEqual(["compacted"]);
		// The turn after the tool result was asked for and answered; nothing was aborted.
		expect(answerRequests).toHaveLength(2);
		expect(
			h
				.eventsOfType("message_end")
				.some((event) => event.message.role === "assistant" && event.message.stopReason === "aborted"),
		).toBe(false);
		expect(summaryRequests.length).toBeGreaterThan(0);
		// One operation, settled once; the compaction starts after it.
		const order = h.events
			.map((event) => event.type)
			.filter((type) => type === "agent_end" || type === "agent_settled" || type === "compaction_start");
		expect(order).toEqual(["agent_end", "agent_settled", "compaction_start"]);
		const saved = fileEntries(h.session.sessionFile!).flatMap((entry) =>
			entry.type === "compaction"
				? ["compaction"]
				: entry.type === "message" && entry.message!.role !== "system"
					? [entry.message!.role]
					: [],
		);
		expect(saved).toEqual(["user", "assistant", "toolResult", "assistant", "compaction"]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("UniPi#30: abort() while the requested compaction waits for the run: the run stops and the compaction never starts", async () => {
		const outcomes: string[] = [];
		h = await createHarness({
			persistence: "disk",
			tools: [read],
			settings: SETTINGS,
			extensionFactories: [compactOnFirstTurnEnd(outcomes)],
		});
		const answering = gate();
		const { summaryRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("read_notes", {})], { stopReason: "toolUse" }),
			// The answer after the tool result is still streaming when abort() comes (an answer the
			// script awaits, never given: the abort ends the request).
			(() => {
				answering.release();
				return new Promise<never>(() => {});
			}) as never,
		]);
		const done = h.session.prompt("summarize my notes");
		await answering.promise;
		await h.session.abort();
		await done;
		await h.session.waitForIdle();
		expect(outcomes).toEqual(["error: Compaction cancelled"]);
		expect(summaryRequests).toHaveLength(0);
		expect(h.eventsOfType("compaction_start")).toHaveLength(0);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.isIdle).toBe(true);
	});

	it("UniPi#30: session.compact() while the requested compaction waits for the run: other instructions are refused (BUSY) and the run goes on; without instructions the run is aborted and one compaction (the waiting one's instructions, pi#4203) answers both", async () => {
		const outcomes: string[] = [];
		const instructions: (string | undefined)[] = [];
		h = await createHarness({
			persistence: "disk",
			tools: [read],
			settings: SETTINGS,
			extensionFactories: [
				compactOnFirstTurnEnd(outcomes),
				(pi: ExtensionAPI) => {
					pi.on("session_before_compact", (event) => {
						instructions.push(event.customInstructions);
					});
				},
			],
		});
		const answering = gate();
		const { summaryRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("read_notes", {})], { stopReason: "toolUse" }),
			(() => {
				answering.release();
				return new Promise<never>(() => {});
			}) as never,
		]);
		const done = h.session.prompt(`summarize my notes ${"please ".repeat(40)}`);
		await answering.promise;
		// The machine holds the extension's compaction while the run streams (nothing aborted yet).
		expect(h.session.snapshot.context.deferredCompaction).toMatchObject({ cancelOnAbort: true });
		expect(h.session.isStreaming).toBe(true);
		await expect(h.session.compact("keep the decisions")).rejects.toMatchObject({ code: "BUSY" });
		expect(h.session.isStreaming).toBe(true);
		expect(h.eventsOfType("agent_end")).toHaveLength(0);
		const result = await h.session.compact();
		await done;
		await until(h, () => outcomes.length > 0, "the extension's callback");
		expect(outcomes).toEqual(["compacted"]);
		expect(result.summary).toEqual(expect.any(String));
		// One compaction, with the waiting one's instructions; the aborted answer settled first, once.
		expect(h.eventsOfType("compaction_start")).toHaveLength(1);
		expect(fileEntries(h.session.sessionFile!).filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(summaryRequests.length).toBeGreaterThan(0);
		expect(instructions).toEqual(["keep the notes"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		const order = h.events
			.map((event) => event.type)
			.filter((type) => type === "agent_settled" || type === "compaction_start" || type === "compaction_end");
		expect(order).toEqual(["agent_settled", "compaction_start", "compaction_end"]);
		expect(h.session.isIdle).toBe(true);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
