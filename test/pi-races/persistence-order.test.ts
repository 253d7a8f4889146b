/**
 * Reports about the order in which a turn's messages reach the session file while extension
 * handlers are slow, replayed against Settle through its public API on a real session file: an
 * async `message_end` handler let a tool result be written before the assistant message that called
 * it, and the resumed session was refused "unexpected tool_use_id found in tool_result blocks"
 * (pi#1717); a `tool_call` handler of the next call in a batch ran before the previous call's result
 * was in the session (pi#2113). What the user should see: the file in the order of the conversation,
 * every result after its call, each handler seeing the results before it, and the file reopening to
 * the live context.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { orphanToolMessages } from "./disk-harness.js";
import { comparable, persistedRoles, reopenedContext, script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Yields to the event loop `turns` times (a slow handler: a database write, a network call). */
async function slowly(turns: number): Promise<void> {
	for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function lookupTool(name: string, executionMode?: "sequential"): AgentTool {
	return {
		name,
		label: name,
		description: `looks up ${name}`,
		parameters: { type: "object" },
		...(executionMode ? { executionMode } : {}),
		execute: async () => ({ content: [{ type: "text", text: `${name} found` }], details: {} }),
	};
}

describe("pi#1717 / pi#2113: a turn's messages persisted out of order while extension handlers are slow", () => {
	for (const mode of ["parallel", "sequential"] as const) {
		it(`pi#1717: with a slow async message_end handler, a ${mode} batch of two calls is written assistant, result, result, assistant; the file reopens to the live context`, async () => {
			const ended: string[] = [];
			h = await createHarness({
				persistence: "disk",
				tools: [lookupTool("first", mode === "sequential" ? "sequential" : undefined), lookupTool("second")],
				extensionFactories: [
					(pi: ExtensionAPI) => {
						pi.on("message_end", async (event) => {
							// The report's session-logger: slowest on the assistant message that calls the tools.
							await slowly(event.message.role === "assistant" ? 50 : 5);
							if (event.message.role !== "system") ended.push(event.message.role);
						});
					},
				],
			});
			const harness = h;
			script(harness, [
				fauxAssistantMessage([fauxToolCall("first", {}), fauxToolCall("second", {})], { stopReason: "toolUse" }),
				fauxAssistantMessage("both found"),
			]);
			await harness.session.prompt("look both up");
			const file = harness.session.sessionFile!;
			expect(persistedRoles(file)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
			expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
			// Each handler had finished before the next message was delivered.
			expect(ended).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
			expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		});
	}

	it("pi#2113: in a sequential batch, the second call's tool_call handler sees the first call's result in the session, after a slow message_end handler", async () => {
		const seen: { call: string; resultsBefore: string[] }[] = [];
		h = await createHarness({
			persistence: "disk",
			tools: [lookupTool("first", "sequential"), lookupTool("second")],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("message_end", async () => {
						await slowly(20);
					});
					pi.on("tool_call", (event, ctx) => {
						const resultsBefore = ctx.sessionManager.getBranch().flatMap((entry) => {
							if (entry.type !== "message" || entry.message.role !== "toolResult") return [];
							return [entry.message.toolName];
						});
						seen.push({ call: event.toolName, resultsBefore });
						return undefined;
					});
				},
			],
		});
		const harness = h;
		script(harness, [
			fauxAssistantMessage([fauxToolCall("first", {}), fauxToolCall("second", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("both found"),
		]);
		await harness.session.prompt("look both up");
		expect(seen).toEqual([
			{ call: "first", resultsBefore: [] },
			{ call: "second", resultsBefore: ["first"] },
		]);
		expect(persistedRoles(harness.session.sessionFile!)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"toolResult",
			"assistant",
		]);
	});
});
