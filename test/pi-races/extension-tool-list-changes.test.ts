/**
 * copilot-cli#3125, claude-code#66869: a tool server changed its tool list in the middle of a turn
 * (a tool call made it add one tool and drop another, then it announced `tools/list_changed`); the
 * loop went on with the old list: the new tool was not callable, the dropped one was still
 * advertised, until the next user message (or a reconnect). In Settle the bridge is an extension: its
 * running tool calls `pi.registerTool()` for the new tool and `pi.setActiveTools()` without the
 * dropped one. What the user should see: the run's next request offers the new tool and no longer
 * the dropped one (nor its line in the system prompt); a call the model still makes to the dropped
 * tool gets an error result naming it, without running it, and the run goes on.
 *
 * oh-my-pi#9446: goal mode turned on during a session activated its `goal` tool by name
 * (`setActiveToolsByName([...previous, "goal"])`) before any `goal` tool was registered: the name was
 * dropped silently and the model, told to call `goal`, got "No such tool". What the user should see
 * when an extension activates a name first and registers the tool right after (or the other way
 * round): the next request offers the tool and the call runs.
 *
 * Driven through the SDK harness on the faux model, the requests it received asserted.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

function textTool(pi: ExtensionAPI, name: string, text: string, onRun?: () => void): void {
	pi.registerTool({
		name,
		label: name,
		description: `The ${name} tool`,
		promptSnippet: `${name}: one line about it`,
		parameters: { type: "object", properties: {} },
		execute: async () => {
			onRun?.();
			return { content: [{ type: "text", text }], details: {} };
		},
	});
}

const call = (name: string) => fauxAssistantMessage([fauxToolCall(name, {})], { stopReason: "toolUse" });

describe("copilot-cli#3125, claude-code#66869: a tool list changed mid-turn", () => {
	it("copilot-cli#3125: a running tool adds one tool and drops another: the run's next request offers the new one only, and a stale call to the dropped one is refused without running", async () => {
		const ran: string[] = [];
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					textTool(pi, "old_search", "old results", () => ran.push("old_search"));
					textTool(pi, "refresh_server", "list changed", () => {
						textTool(pi, "new_search", "new results", () => ran.push("new_search"));
						pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "old_search"));
					});
				},
			],
		});
		const toolsOf = (i: number) => h.faux.requests[i]!.tools?.map((tool) => tool.name) ?? [];
		script(h, [call("refresh_server"), call("old_search"), call("new_search"), fauxAssistantMessage("done")]);
		await h.session.prompt("refresh, then search");

		expect(toolsOf(0)).toContain("old_search");
		expect(toolsOf(0)).not.toContain("new_search");
		for (const i of [1, 2, 3]) {
			expect(toolsOf(i)).toContain("new_search");
			expect(toolsOf(i)).not.toContain("old_search");
		}
		expect(h.faux.requests[0]!.systemPrompt).toContain("old_search: one line about it");
		expect(h.faux.requests[1]!.systemPrompt).not.toContain("old_search: one line about it");
		expect(h.faux.requests[1]!.systemPrompt).toContain("new_search: one line about it");
		expect(ran).toEqual(["new_search"]);
		const results = toolResultTexts(h);
		expect(results[0]).toEqual({ isError: false, text: "list changed" });
		expect(results[1]!.isError).toBe(true);
		expect(results[1]!.text).toContain("old_search");
		expect(results[2]).toEqual({ isError: false, text: "new results" });
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});

describe("oh-my-pi#9446: a tool activated by name before it is registered", () => {
	it("oh-my-pi#9446: a command that activates `goal` then registers it, or registers then activates, offers it in the next request and the call runs", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerCommand("goal-on", {
						description: "turns goal mode on: activate by name first, register after",
						handler: async () => {
							pi.setActiveTools([...pi.getActiveTools(), "goal"]);
							textTool(pi, "goal", "goal set");
						},
					});
					pi.registerCommand("plan-on", {
						description: "register first, activate after",
						handler: async () => {
							textTool(pi, "plan", "plan set");
							pi.setActiveTools([...pi.getActiveTools(), "plan"]);
						},
					});
				},
			],
		});
		const toolsOf = (i: number) => h.faux.requests[i]!.tools?.map((tool) => tool.name) ?? [];
		await h.session.prompt("/goal-on");
		await h.session.prompt("/plan-on");
		script(h, [call("goal"), call("plan"), fauxAssistantMessage("done")]);
		await h.session.prompt("set the goal and the plan");
		expect(toolsOf(0)).toEqual(expect.arrayContaining(["goal", "plan"]));
		expect(toolResultTexts(h)).toEqual([
			{ isError: false, text: "goal set" },
			{ isError: false, text: "plan set" },
		]);
		expect(h.session.getActiveToolNames()).toEqual(expect.arrayContaining(["goal", "plan"]));
	});
});
