/**
 * testkituser audit: `createHarness`'s tool options were named like `AgentSession`'s config
 * (`tools` = replacement tool objects, `allowedToolNames`, `excludedToolNames`), while a user
 * coming from `createAgentSession` writes `tools: ["read"]`, `excludeTools`, `noTools`. Those did
 * not type-check, and in plain JavaScript `tools: ["read"]` registered a tool named `undefined`
 * and dropped the built-ins. The harness now takes `createAgentSession`'s names too (tool names in
 * `tools`, `excludeTools`, `noTools`); tool objects in `tools` still replace the built-ins.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import {
	createHarness,
	fauxAssistantMessage,
	fauxToolCall,
	type Harness,
	harnessViolations,
} from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/types.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const lookup = defineTool({
	name: "lookup",
	label: "Lookup",
	description: "Look a key up",
	parameters: Type.Object({ key: Type.String() }),
	execute: async (_id, { key }) => ({ content: [{ type: "text", text: `value of ${key}` }], details: {} }),
});

const requestedTools = (harness: Harness) =>
	harness.faux.requests.map((request) => (request.tools ?? []).map((tool) => tool.name).sort());

describe("createHarness takes createAgentSession's tool option names (testkituser)", () => {
	it("tools: names are the allowlist and the active set, excludeTools removes some; the model calls read on a real file", async () => {
		h = await createHarness({ tools: ["read", "bash", "lookup"], excludeTools: ["bash"], customTools: [lookup] });
		writeFileSync(join(h.tempDir, "notes.txt"), "hello from disk\n");
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" }, { id: "r1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("lookup", { key: "k" }, { id: "l1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("read it");
		expect(h.session.getActiveToolNames().sort()).toEqual(["lookup", "read"]);
		expect(requestedTools(h)[0]).toEqual(["lookup", "read"]);
		const results = h.session.messages.filter((message) => message.role === "toolResult");
		expect(results.map((result) => [result.toolName, result.isError])).toEqual([
			["read", false],
			["lookup", false],
		]);
		expect(JSON.stringify(results[0]?.content)).toContain("hello from disk");
		expect(JSON.stringify(results[1]?.content)).toContain("value of k");
		expect(harnessViolations(h)).toEqual([]);
	});

	it('noTools: "all" sends the model no tools; noTools: "builtin" keeps only the custom tools', async () => {
		h = await createHarness({ noTools: "all", customTools: [lookup] });
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.session.prompt("hi");
		expect(requestedTools(h)).toEqual([[]]);
		h.cleanup();
		h = await createHarness({ noTools: "builtin", customTools: [lookup] });
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.session.prompt("hi");
		expect(requestedTools(h)).toEqual([["lookup"]]);
	});

	it("tools: tool objects still replace the built-ins (pi's harness option)", async () => {
		const only: AgentTool = {
			name: "only",
			label: "Only",
			description: "The only tool",
			parameters: { type: "object" },
			execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {} }),
		};
		h = await createHarness({ tools: [only] });
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.session.prompt("hi");
		expect(requestedTools(h)).toEqual([["only"]]);
	});
});
