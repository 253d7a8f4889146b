/**
 * Reports about aborts, replayed against Settle through its public API on a real session file: a
 * follow-up or steer sent after `abort()` was called but before the aborted run ended (gsd-2#1439),
 * and an abort an extension's confirmation asks for from `tool_call` (`ctx.abort()`) on the first
 * call of a batch (pi#4276). What the user should see: the message is neither dropped nor answered
 * by the run being stopped, it waits and the next prompt delivers it once; after an abort nothing
 * more of the batch is confirmed or run.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { orphanToolMessages } from "./disk-harness.js";
import { comparable, gate, persistedRoles, reopenedContext, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("gsd-2#1439: messages typed during or right after an abort are silently dropped", () => {
	for (const how of ["followUp", "steer"] as const) {
		it(`gsd-2#1439: a ${how}() sent after abort() was called, while the aborted tool still runs, is kept and delivered once by the next prompt`, async () => {
			const toolStarted = gate();
			const slow: AgentTool = {
				name: "slow",
				label: "Slow",
				description: "Runs until aborted",
				parameters: { type: "object" },
				execute: (_id, _params, signal) =>
					new Promise((resolve) => {
						toolStarted.release();
						signal?.addEventListener("abort", () =>
							resolve({ content: [{ type: "text", text: "stopped" }], details: {} }),
						);
					}),
			};
			h = await createHarness({ persistence: "disk", tools: [slow] });
			const harness = h;
			const { answerRequests, answersLeft } = script(harness, [
				fauxAssistantMessage([fauxToolCall("slow", {})], { stopReason: "toolUse" }),
				fauxAssistantMessage("answered the next prompt"),
				fauxAssistantMessage("answered the follow-up"),
			]);
			const running = harness.session.prompt("long task");
			await toolStarted.promise;
			const aborting = harness.session.abort();
			// The user types right after Esc, before the abort has finished.
			await harness.session[how]("typed right after esc");
			await aborting;
			await running;
			// The stopped run asked the model nothing more.
			expect(answerRequests).toHaveLength(1);
			expect(harness.session.isIdle).toBe(true);
			const file = harness.session.sessionFile!;
			if (how === "followUp") {
				// Still listed, waiting for the next run.
				expect(harness.session.getFollowUpMessages()).toEqual(["typed right after esc"]);
				expect(timesPersisted(file, "typed right after esc")).toBe(0);
			} else {
				// Taken at the tool boundary the abort stopped at: saved after the tool's result, unanswered.
				expect(harness.session.getSteeringMessages()).toEqual([]);
				expect(timesPersisted(file, "typed right after esc")).toBe(1);
			}
			await harness.session.prompt("next");
			// The next operation's requests carry it exactly once; nothing is left queued.
			const last = answerRequests.at(-1)!;
			expect(userTexts(last).filter((text) => text === "typed right after esc")).toHaveLength(1);
			expect(answerRequests.slice(1).every((request) => userTexts(request).includes("next"))).toBe(true);
			expect(answersLeft()).toBe(how === "followUp" ? 0 : 1);
			expect(harness.session.pendingMessageCount).toBe(0);
			expect(harness.eventsOfType("agent_settled")).toHaveLength(2);
			expect(timesPersisted(file, "typed right after esc")).toBe(1);
			expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		});
	}
});

describe("pi#4276: ctx.abort() during a tool_call confirmation continues pending tool calls", () => {
	const seen: string[] = [];
	const edit = (name: string): AgentTool => ({
		name,
		label: name,
		description: `edits ${name}`,
		parameters: { type: "object" },
		execute: async () => {
			seen.push(`${name} ran`);
			return { content: [{ type: "text", text: `${name} edited` }], details: {} };
		},
	});

	it("pi#4276: 'Abort run' from the first call's tool_call confirmation: the second call is neither confirmed nor run, each call gets an aborted result, no model request follows, one agent_settled", async () => {
		seen.length = 0;
		h = await createHarness({
			persistence: "disk",
			tools: [edit("first"), edit("second")],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					// The report's confirmation: without a UI (or on "Abort run") it aborts the run and blocks.
					pi.on("tool_call", (event, ctx) => {
						seen.push(`confirm ${event.toolName}`);
						if (event.toolName !== "first") return undefined;
						ctx.abort();
						return { block: true, reason: "Aborted by user" };
					});
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage([fauxToolCall("first", {}), fauxToolCall("second", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("not asked"),
		]);
		await harness.session.prompt("edit both");
		expect(seen).toEqual(["confirm first"]);
		expect(answerRequests).toHaveLength(1);
		expect(harness.eventsOfType("agent_settled")).toHaveLength(1);
		expect(harness.session.isIdle).toBe(true);
		const ends = harness.eventsOfType("tool_execution_end");
		expect(ends.map((end) => [end.toolName, end.isError])).toEqual([
			["first", true],
			["second", true],
		]);
		const file = harness.session.sessionFile!;
		expect(persistedRoles(file)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});

	it("pi#4276: the reason the confirmation blocked with ('Aborted by user') is the blocked call's result — in its event, the transcript and the file (pi 0.73.1 keeps it); the call after it says Operation aborted", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [edit("first"), edit("second")],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("tool_call", (event, ctx) => {
						if (event.toolName !== "first") return undefined;
						ctx.abort();
						return { block: true, reason: "Aborted by user" };
					});
				},
			],
		});
		const harness = h;
		script(harness, [
			fauxAssistantMessage([fauxToolCall("first", {}), fauxToolCall("second", {})], { stopReason: "toolUse" }),
		]);
		await harness.session.prompt("edit both");
		const resultText = (result: unknown) =>
			(result as { content: { type: string; text?: string }[] }).content.map((block) => block.text).join("");
		expect(harness.eventsOfType("tool_execution_end").map((end) => [end.toolName, resultText(end.result)])).toEqual([
			["first", "Aborted by user"],
			["second", "Operation aborted"],
		]);
		const toolResults = (messages: readonly unknown[]) =>
			messages.flatMap((message) => {
				const m = message as { role: string; toolName?: string; isError?: boolean };
				return m.role === "toolResult" ? [[m.toolName, resultText(m), m.isError]] : [];
			});
		const expected = [
			["first", "Aborted by user", true],
			["second", "Operation aborted", true],
		];
		expect(toolResults(harness.session.messages)).toEqual(expected);
		expect(toolResults(reopenedContext(harness.session.sessionFile!))).toEqual(expected);
	});
});
