/**
 * Reports about the system prompt a `before_agent_start` chain produces, replayed against Settle.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";
import { type LiveProject, openProject } from "../session/env-helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
});

const ghostTool: AnyToolDefinition = {
	name: "ghost_tool",
	label: "Ghost",
	description: "A tool that should not be offered to the model.",
	promptSnippet: "This tool should never be advertised",
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text", text: "ghost ran" }], details: {} }),
};

/** pi#9932's extension: one handler gates `ghost_tool` off, a second one (optionally) appends to the prompt. */
function gatingExtension(append: boolean) {
	return (pi: ExtensionAPI) => {
		pi.registerTool(ghostTool);
		pi.on("before_agent_start", () => {
			pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "ghost_tool"));
			return undefined;
		});
		if (append) pi.on("before_agent_start", (event) => ({ systemPrompt: `${event.systemPrompt}\n\nAppended by B.` }));
	};
}

describe("pi#9932: a tool a before_agent_start handler deactivates is not advertised in that operation's prompt", () => {
	for (const append of [true, false]) {
		it(`${append ? "with" : "without"} a later handler returning systemPrompt`, async () => {
			p = await openProject({ extensionFactories: [gatingExtension(append)] });
			p.faux.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
			await p.session.prompt("first");
			await p.session.prompt("second");
			expect(p.errors).toEqual([]);
			expect(p.faux.requests).toHaveLength(2);
			for (const request of p.faux.requests) {
				expect(request.tools?.map((tool) => tool.name)).not.toContain("ghost_tool");
				expect(request.systemPrompt).not.toContain("ghost_tool");
				expect(request.systemPrompt).not.toContain("This tool should never be advertised");
				if (append) expect(request.systemPrompt).toContain("Appended by B.");
			}
		});
	}
});
