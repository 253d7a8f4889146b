/**
 * Regression tests of the lost aborts the abort-at-every-await sweep found: each aborts at the
 * exact window (an extension hook held open by a gate, or the same tick as the call) and checks
 * that nothing is started after the abort.
 */
import { Type } from "@sinclair/typebox";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { tick } from "./helpers.js";
import { BIG_ANSWER, gate, overflowReply, SMALL_WINDOW, script, THRESHOLD_SETTINGS } from "./recovery-helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** A hook held open until released; `entered` resolves when it runs. */
function heldHook() {
	const held = gate();
	let enter!: () => void;
	const entered = new Promise<void>((resolve) => {
		enter = resolve;
	});
	const hook = async () => {
		enter();
		await held.promise;
		return undefined;
	};
	return { hook, entered, release: held.release };
}

describe("lost aborts", () => {
	it("regression: abort() while an input hook ran still ran the pre-send compaction and before_agent_start", async () => {
		const input = heldHook();
		let beforeAgentStart = 0;
		let inputs = 0;
		h = await createHarness({
			settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
			extensionFactories: [
				(pi) => {
					pi.on("input", async () => (++inputs < 3 ? undefined : input.hook()));
					pi.on("before_agent_start", () => {
						beforeAgentStart++;
						return undefined;
					});
				},
			],
		});
		const { summaryRequests, answerRequests } = script(h, [fauxAssistantMessage("first"), overflowReply()]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		h.session.setAutoCompactionEnabled(true);
		beforeAgentStart = 0;
		h.events.length = 0;
		// The overflow left in the context makes the next prompt compact before it is sent.
		const third = h.session.prompt("three");
		await input.entered;
		const aborted = h.session.abort();
		input.release();
		await aborted;
		await third;
		expect(summaryRequests).toEqual([]);
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(beforeAgentStart).toBe(0);
		expect(answerRequests).toHaveLength(2);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("regression: dispose() while an input hook ran still ran the pre-send compaction (its entry was written after dispose)", async () => {
		const input = heldHook();
		let inputs = 0;
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
			extensionFactories: [(pi) => pi.on("input", async () => (++inputs < 3 ? undefined : input.hook()))],
		});
		const { summaryRequests } = script(h, [fauxAssistantMessage("first"), overflowReply()]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		h.session.setAutoCompactionEnabled(true);
		await import("../../src/compaction/index.js");
		const third = h.session.prompt("three").catch((error: { code?: string }) => error.code);
		await input.entered;
		h.session.dispose();
		input.release();
		expect(await third).toBe("SESSION_CLOSED");
		// The preflight goes on after dispose() until its next check. With the summarizer's modules
		// loaded (above), a compaction started there would have asked for its summary within these turns.
		for (let i = 0; i < 10; i++) await tick();
		expect(summaryRequests).toEqual([]);
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
	});

	it("regression: abort() after abortCompaction() during a threshold compaction was lost: a queued follow-up still ran", async () => {
		const beforeCompact = heldHook();
		h = await createHarness({
			...SMALL_WINDOW,
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [(pi) => pi.on("session_before_compact", () => beforeCompact.hook())],
		});
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("follow-up answer"),
		]);
		await h.session.prompt("a");
		h.events.length = 0;
		// The big answer puts the context over the threshold: the compaction starts after the run.
		const prompting = h.session.prompt("b");
		await beforeCompact.entered;
		await h.session.followUp("later");
		h.session.abortCompaction();
		const aborted = h.session.abort();
		beforeCompact.release();
		await aborted;
		await prompting;
		expect(summaryRequests).toEqual([]);
		expect(answerRequests).toHaveLength(2);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
		// Aborting ends the operation; the follow-up stays queued, as after any abort.
		expect(h.session.pendingMessageCount).toBe(1);
	});

	it("regression: compact() then abortCompaction() in the same tick was lost while compact() awaited its own abort", async () => {
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		const { summaryRequests } = script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacting = h.session.compact();
		h.session.abortCompaction();
		await expect(compacting).rejects.toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		expect(summaryRequests).toEqual([]);
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("regression: compact() then abort() in the same tick was lost (the compaction ran after the abort)", async () => {
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		const { summaryRequests } = script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacting = h.session.compact();
		await h.session.abort();
		await expect(compacting).rejects.toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		expect(summaryRequests).toEqual([]);
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
	});

	it("regression: abort() while a context hook ran still sent the model request", async () => {
		const context = heldHook();
		h = await createHarness({ extensionFactories: [(pi) => pi.on("context", context.hook)] });
		const { answerRequests } = script(h, [fauxAssistantMessage("never")]);
		const prompting = h.session.prompt("hi");
		await context.entered;
		const aborted = h.session.abort();
		context.release();
		await aborted;
		await prompting;
		expect(answerRequests).toEqual([]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("regression: abort() while a sibling's tool_execution_start hook ran still started the prepared tool", async () => {
		const started: string[] = [];
		const probe = (name: string): AgentTool => ({
			name,
			label: name,
			description: `Probe ${name}`,
			parameters: Type.Object({}),
			execute: async () => {
				started.push(name);
				return { content: [{ type: "text", text: `${name} done` }], details: {} };
			},
		});
		const second = heldHook();
		h = await createHarness({
			tools: [probe("one"), probe("two")],
			extensionFactories: [
				(pi) => pi.on("tool_execution_start", async (event) => (event.toolName === "two" ? second.hook() : undefined)),
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("one", {}), fauxToolCall("two", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("never"),
		]);
		const prompting = h.session.prompt("use both");
		await second.entered;
		const aborted = h.session.abort();
		second.release();
		await aborted;
		await prompting;
		expect(started).toEqual([]);
		const results = h.session.messages.filter((message) => message.role === "toolResult");
		expect(results.map((message) => message.content)).toEqual([
			[{ type: "text", text: "Operation aborted" }],
			[{ type: "text", text: "Operation aborted" }],
		]);
		expect(answerRequests).toHaveLength(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});
});
