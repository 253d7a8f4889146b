/**
 * Early batch termination through the session (behavior F.4 / F.5): a `tool_call` handler's
 * `{block, terminate}` and a tool's own `terminate: true` end the turn without another model call
 * when every result of the batch asks for it; the blocked results are stored with their reason,
 * the operation settles, and the next prompt sends them to the model. (pi 0.73.1 has no
 * `terminate`; newer pi's rule.)
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness;
afterEach(() => h?.cleanup());

function tool(name: string, terminate = false): AgentTool {
	return {
		name,
		label: name,
		description: `The ${name} tool`,
		parameters: { type: "object", properties: {} },
		execute: async () => ({
			content: [{ type: "text", text: `${name} ran` }],
			details: {},
			...(terminate ? { terminate } : {}),
		}),
	};
}

const blockingWithTerminate = (pi: ExtensionAPI) =>
	pi.on("tool_call", (event) =>
		event.toolName === "guarded"
			? { block: true, reason: `${event.toolCallId} stops here`, terminate: true }
			: undefined,
	);

function storedResults(harness: Harness): string[] {
	return harness.sessionManager.getEntries().flatMap((entry) => {
		if (entry.type !== "message" || entry.message.role !== "toolResult") return [];
		const text = entry.message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
		return [`${entry.message.toolCallId}${entry.message.isError ? " error" : ""}: ${text}`];
	});
}

describe("early batch termination through the session (F.4, F.5)", () => {
	it("every call blocked with terminate: no further model call, results stored, and the next prompt sends them", async () => {
		h = await createHarness({ tools: [tool("guarded")], extensionFactories: [blockingWithTerminate] });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("guarded", {}, { id: "c1" }), fauxToolCall("guarded", {}, { id: "c2" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("after the next prompt"),
		]);
		await h.session.prompt("go");
		expect(h.faux.requests).toHaveLength(1);
		expect(storedResults(h)).toEqual(["c1 error: c1 stops here", "c2 error: c2 stops here"]);
		expect(h.eventsOfType("agent_end")).toHaveLength(1);
		expect(h.session.isIdle).toBe(true);

		await h.session.prompt("carry on");
		expect(h.faux.requests).toHaveLength(2);
		const sent = JSON.stringify(h.faux.requests[1]?.messages);
		expect(sent).toContain("c1 stops here");
		expect(sent).toContain("c2 stops here");
	});

	it("a batch where one result does not ask to terminate goes on to the next model call", async () => {
		h = await createHarness({ tools: [tool("guarded"), tool("plain")], extensionFactories: [blockingWithTerminate] });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("guarded", {}, { id: "c1" }), fauxToolCall("plain", {}, { id: "c2" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("went on"),
		]);
		await h.session.prompt("go");
		expect(h.faux.requests).toHaveLength(2);
		expect(storedResults(h)).toEqual(["c1 error: c1 stops here", "c2: plain ran"]);
	});

	it("a tool's own terminate ends the turn when every call of the batch returns it", async () => {
		h = await createHarness({ tools: [tool("final", true)] });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("final", {}, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("never asked"),
		]);
		await h.session.prompt("go");
		expect(h.faux.requests).toHaveLength(1);
		expect(storedResults(h)).toEqual(["c1: final ran"]);
		expect(h.session.isIdle).toBe(true);
	});
});
