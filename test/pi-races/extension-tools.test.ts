/**
 * pi#1720: a tool an extension registers after start-up — from `session_start`, a command, or a
 * running tool (an MCP bridge that connects lazily) — was added to the extension's own map but
 * never reached the model: the session built its tool registry once. What that user should see: the
 * tool in the next request, active, and a call to it run by the extension's `execute`, in the same
 * run when a tool registered it. pi-code#61: an MCP bridge re-registers its tools in place when the
 * server announces `list_changed`; the new description, schema and `execute` should replace the old
 * ones, without a conflict. Driven through the SDK harness on the faux model.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

function textTool(pi: ExtensionAPI, name: string, text: string, onRun?: () => void): void {
	pi.registerTool({
		name,
		label: name,
		description: `The ${name} tool`,
		parameters: { type: "object", properties: {} },
		execute: async () => {
			onRun?.();
			return { content: [{ type: "text", text }], details: {} };
		},
	});
}

function toolResults(harness: Harness): string[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [message.content.map((part) => (part.type === "text" ? part.text : "")).join("")]
			: [],
	);
}

const call = (name: string) => fauxAssistantMessage([fauxToolCall(name, {})], { stopReason: "toolUse" });

describe("pi#1720: a tool registered after start-up never reaches the model", () => {
	it("pi#1720: tools registered from session_start, from a command and from a running tool are in the next request and run when called", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_start", () => textTool(pi, "echo_session", "from session_start"));
					pi.registerCommand("add-tool", {
						description: "registers command_tool",
						handler: async () => textTool(pi, "command_tool", "from a command"),
					});
					textTool(pi, "connect_bridge", "bridge connected", () => textTool(pi, "bridge_tool", "from the bridge"));
				},
			],
		});
		const toolsOf = (i: number) => h.faux.requests[i]!.tools?.map((tool) => tool.name) ?? [];

		script(h, [call("echo_session"), fauxAssistantMessage("one")]);
		await h.session.prompt("use echo_session");
		expect(toolsOf(0)).toContain("echo_session");
		expect(toolResults(h)).toEqual(["from session_start"]);

		await h.session.prompt("/add-tool");
		script(h, [call("command_tool"), fauxAssistantMessage("two")]);
		await h.session.prompt("use command_tool");
		expect(toolsOf(2)).toContain("command_tool");
		expect(toolsOf(1)).not.toContain("command_tool");

		// The bridge registers its tool while the run goes on: the run's next request carries it.
		script(h, [call("connect_bridge"), call("bridge_tool"), fauxAssistantMessage("three")]);
		await h.session.prompt("connect, then use the bridge");
		expect(toolsOf(4)).not.toContain("bridge_tool");
		expect(toolsOf(5)).toContain("bridge_tool");
		expect(toolResults(h)).toEqual(["from session_start", "from a command", "bridge connected", "from the bridge"]);
		expect(h.session.getActiveToolNames()).toEqual(
			expect.arrayContaining(["echo_session", "command_tool", "connect_bridge", "bridge_tool"]),
		);
	});

	it("pi-code#61: the same extension registers a tool name again (an MCP list_changed refresh): the next request carries the new description and schema, a call runs the new execute, no conflict", async () => {
		const register = (pi: ExtensionAPI, version: string) =>
			pi.registerTool({
				name: "mcp_search",
				label: "mcp_search",
				description: `search ${version}`,
				parameters: { type: "object", properties: { [`query_${version}`]: { type: "string" } } },
				execute: async () => ({ content: [{ type: "text", text: `ran ${version}` }], details: {} }),
			});
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					register(pi, "v1");
					pi.registerCommand("refresh", { description: "list_changed", handler: async () => register(pi, "v2") });
				},
			],
		});
		const searchTool = (i: number) => h.faux.requests[i]!.tools?.filter((tool) => tool.name === "mcp_search");
		script(h, [fauxAssistantMessage("one"), call("mcp_search"), fauxAssistantMessage("two")]);
		await h.session.prompt("one");
		expect(searchTool(0)).toMatchObject([{ description: "search v1" }]);
		await h.session.prompt("/refresh");
		await h.session.prompt("two");
		expect(searchTool(1)).toMatchObject([
			{ description: "search v2", parameters: { properties: { query_v2: { type: "string" } } } },
		]);
		expect(Object.keys(searchTool(1)![0]!.parameters.properties as object)).toEqual(["query_v2"]);
		expect(toolResults(h)).toEqual(["ran v2"]);
		expect(h.extensionErrors).toEqual([]);
	});
});
