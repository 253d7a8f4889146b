/**
 * pi#9071: an extension that registers tools under built-in names (`@ff-labs/pi-fff`'s override
 * mode: its own `grep` and `find`) had its registration accepted, yet the built-in definitions
 * stayed in effect — `getAllTools()`, the agent's tools and the request the model got all held the
 * built-ins. What the user should see: the extension's `grep` / `find`, once each, in the request
 * the model gets and in the calls it makes.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { type FauxResponseStep, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** pi-fff in override mode: `grep` and `find` under the built-in names, answering from its index. */
function registerFffTools(pi: ExtensionAPI): void {
	for (const name of ["grep", "find"]) {
		pi.registerTool({
			name,
			label: name,
			description: `FFF-powered ${name}`,
			parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
			execute: async () => ({ content: [{ type: "text", text: `fff ${name}` }], details: {} }),
		});
	}
}

describe("pi#9071: an extension tool registered under a built-in's name never replaces it", () => {
	it("pi#9071: the extension's grep and find (not the built-ins) are in getAllTools, in the request the model gets (once each), and answer its calls", async () => {
		h = await createHarness({ tools: ["read", "grep", "find"], extensionFactories: [registerFffTools] });
		const sent: NonNullable<Context["tools"]>[] = [];
		const callBoth: FauxResponseStep = (context) => {
			sent.push(context.tools ?? []);
			return fauxAssistantMessage(
				[fauxToolCall("grep", { pattern: "TODO" }), fauxToolCall("find", { pattern: "*.ts" })],
				{ stopReason: "toolUse" },
			);
		};
		h.setResponses([callBoth, fauxAssistantMessage("done")]);
		await h.session.prompt("search");

		const descriptions = Object.fromEntries(h.session.getAllTools().map((tool) => [tool.name, tool.description]));
		expect(descriptions.grep).toBe("FFF-powered grep");
		expect(descriptions.find).toBe("FFF-powered find");
		expect(sent).toHaveLength(1);
		const names = sent[0]!.map((tool) => tool.name);
		expect(names.filter((name) => name === "grep")).toHaveLength(1);
		expect(names.filter((name) => name === "find")).toHaveLength(1);
		expect(sent[0]!.find((tool) => tool.name === "grep")?.description).toBe("FFF-powered grep");
		expect(sent[0]!.find((tool) => tool.name === "find")?.description).toBe("FFF-powered find");
		const results = h.session.messages.flatMap((message) =>
			message.role === "toolResult"
				? [`${message.toolName}: ${message.content.map((part) => (part.type === "text" ? part.text : "")).join("")}`]
				: [],
		);
		expect(results).toEqual(["grep: fff grep", "find: fff find"]);
	});
});
