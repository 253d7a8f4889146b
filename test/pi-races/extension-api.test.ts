/**
 * Reports about what an extension can call and receive, replayed against Settle through the SDK
 * harness on the faux model (inline extension factories, a real session file on disk).
 *
 * pi#9761: an extension tool whose `execute` returns an object without `content` (`{ output:
 * "done" }`) crashed pi's TUI. What that user should see: the call ends as an error result that
 * says what `execute` returned and what it must return — not an empty success, which silently drops
 * the tool's output from what the model sees.
 */
import { afterEach, describe, expect, it } from "vitest";
import { TOOL_RESULT_SHAPE } from "../../src/agent/tool-result-check.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { ToolResultMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { fileEntries, script } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const call = (name: string, args: Record<string, unknown> = {}) =>
	fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" });

const textOfResult = (message: ToolResultMessage) =>
	message.content.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("pi#9761: an extension tool returning an object without content", () => {
	it("pi#9761: execute resolving to { output } ends the call with an error naming the stray field; the model and the file get that error, the session goes on", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerTool({
						name: "my_tool",
						label: "My tool",
						description: "returns a non-conforming result object",
						parameters: { type: "object", properties: {} },
						// What a JavaScript extension can return: jiti loads it without a type check.
						execute: async () => ({ output: "done" }) as never,
					});
					pi.registerTool({
						name: "quiet_tool",
						label: "Quiet tool",
						description: "returns details only: an empty result",
						parameters: { type: "object", properties: {} },
						execute: async () => ({ details: { ran: true } }) as never,
					});
				},
			],
		});
		script(h, [call("my_tool"), call("quiet_tool"), fauxAssistantMessage("after the tools")]);
		await h.session.prompt("use my_tool");

		const expected = `Tool my_tool returned a result without content (it has "output" instead): ${TOOL_RESULT_SHAPE}`;
		const ends = h.eventsOfType("tool_execution_end");
		expect(ends.map((end) => [end.toolName, end.isError])).toEqual([
			["my_tool", true],
			["quiet_tool", false],
		]);
		expect(ends[0]!.result.content).toEqual([{ type: "text", text: expected }]);
		// The model is told; a result of the other fields alone stays an empty success.
		const sent = h.faux.requests[1]!.messages.filter(
			(message): message is ToolResultMessage => message.role === "toolResult",
		);
		expect(sent.map((message) => [message.isError, textOfResult(message)])).toEqual([[true, expected]]);
		const saved = fileEntries(h.session.sessionFile!).flatMap((entry) =>
			entry.type === "message" && entry.message?.role === "toolResult" ? [entry.message as ToolResultMessage] : [],
		);
		expect(saved.map((message) => [message.toolName, message.isError, textOfResult(message)])).toEqual([
			["my_tool", true, expected],
			["quiet_tool", false, ""],
		]);
		const last = h.session.messages.at(-1);
		expect(last).toMatchObject({ role: "assistant", stopReason: "stop", content: [{ text: "after the tools" }] });
	});
});
