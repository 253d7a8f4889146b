/**
 * The system prompt and tool loadout in the transcript (transcript-system model, behavior I.1,
 * F.1): every change becomes a persisted `system` message (a baseline, then patches), so a
 * reopened session file shows exactly which prompt and tools each request saw. A forced
 * `before_agent_start` prompt applies to its operation only and is never persisted. A resumed
 * session restores the recorded tools.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { SystemMessage } from "../../src/session/messages.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";
import { type LiveProject, openProject, replayRequests } from "./env-helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
});

const plainTool = (name: string, run?: () => void): AnyToolDefinition => ({
	name,
	label: name,
	description: `The ${name} tool`,
	promptSnippet: `Use ${name} for ${name} things`,
	parameters: { type: "object", properties: {} },
	execute: async () => {
		run?.();
		return { content: [{ type: "text", text: `${name} ran` }], details: {} };
	},
});

describe("the system prompt in the transcript", () => {
	it("a reopened session file replays the exact prompt and tools of every request", async () => {
		let api: ExtensionAPI | undefined;
		const extension = (pi: ExtensionAPI) => {
			api = pi;
			pi.registerTool(
				plainTool("alpha", () => pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "write"))),
			);
			let continueOnce = false;
			pi.on("before_agent_start", (event) => {
				continueOnce = event.prompt.includes("after reload");
				if (event.prompt.includes("note")) event.systemPromptOptions.appendSystemPrompt = ["Operation note."];
				if (event.prompt.includes("pirate")) return { systemPrompt: "You are a pirate." };
				return undefined;
			});
			pi.on("agent_before_settle", () => {
				if (!continueOnce) return undefined;
				continueOnce = false;
				pi.setActiveTools(["read", "alpha"]);
				return {
					entries: [{ type: "custom_message", customType: "todo", content: "Also check the docs.", display: true }],
					continue: true,
				};
			});
			pi.registerCommand("more-tools", { handler: async () => pi.registerTool(plainTool("gamma")) });
		};
		p = await openProject({ files: { "AGENTS.md": "Version one." }, extensionFactories: [extension] });
		const reply = (text: string) => fauxAssistantMessage(text);

		// 1: baseline; alpha deactivates write mid-operation → a patch before the second request.
		p.faux.setResponses([fauxAssistantMessage([fauxToolCall("alpha", {})], { stopReason: "toolUse" }), reply("1")]);
		await p.session.prompt("one");
		// 2: the host changes tools between operations.
		p.session.setActiveToolsByName(["read", "bash", "edit", "write", "alpha"]);
		p.faux.setResponses([reply("2")]);
		await p.session.prompt("two");
		// 3: before_agent_start changes this operation's prompt options; 4: back to the loadout's own prompt.
		p.faux.setResponses([reply("3"), reply("4")]);
		await p.session.prompt("with a note");
		await p.session.prompt("plain again");
		// 5: a forced prompt (never persisted).
		p.faux.setResponses([reply("5")]);
		await p.session.prompt("talk like a pirate");
		// 6: a reload after AGENTS.md changed.
		p.write("AGENTS.md", "Version two.");
		await p.session.reload();
		// 7: agent_before_settle changes tools and continues: the continuation's request is recorded too.
		p.faux.setResponses([reply("6"), reply("7"), reply("8")]);
		expect(p.session.getActiveToolNames()).toEqual(["read", "bash", "edit", "write", "alpha"]);
		await p.session.prompt("after reload");
		// 8: a tool registered at run time becomes active.
		await p.session.prompt("/more-tools");
		await p.session.prompt("with gamma");
		expect(api).toBeDefined();
		expect(p.errors).toEqual([]);

		const file = p.session.sessionFile!;
		const replays = replayRequests(file, p.faux.requests);
		expect(replays).toHaveLength(p.faux.requests.length);
		expect(replays).toHaveLength(9);
		const forced = 5;
		for (const replay of replays) {
			if (replay.request === forced) continue;
			expect(replay.replayedPrompt, `request ${replay.request}`).toBe(replay.sentPrompt);
			expect(replay.replayedTools, `request ${replay.request}`).toEqual(replay.sentTools);
		}
		expect(replays[forced]!.sentPrompt).toBe("You are a pirate.");
		expect(replays[forced]!.replayedPrompt).toBe(replays[4]!.sentPrompt);
		expect(readFileSync(file, "utf8")).not.toContain("pirate.");

		// What changed, request by request.
		expect(replays[1]!.sentTools).toEqual(["read", "bash", "edit", "alpha"]);
		expect(replays[3]!.sentPrompt).toContain("Operation note.");
		expect(replays[4]!.sentPrompt).not.toContain("Operation note.");
		expect(replays[6]!.sentPrompt).toContain("Version two.");
		expect(replays[7]!.sentTools).toEqual(["read", "alpha"]);
		expect(replays[8]!.sentTools).toEqual(["read", "alpha", "gamma"]);
		const systems = p.session.messages.filter((message): message is SystemMessage => message.role === "system");
		expect(systems[0]!.kind).toBe("baseline");
		expect(systems.slice(1).every((message) => message.kind === "patch")).toBe(true);
		expect(systems.at(-1)!.tools).toEqual({ active: ["read", "alpha", "gamma"], added: ["gamma"] });
	});

	it("records nothing when neither the prompt nor the tools changed", async () => {
		p = await openProject({ files: { "AGENTS.md": "Stable." } });
		p.faux.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		await p.session.prompt("one");
		p.session.setActiveToolsByName(["read", "bash", "edit", "write"]);
		await p.session.prompt("two");
		expect(p.session.messages.map((message) => message.role)).toEqual([
			"system",
			"user",
			"assistant",
			"user",
			"assistant",
		]);
	});

	it("a resumed session restores the recorded tools, its prompt, and activates extension tools installed since", async () => {
		p = await openProject({
			files: {
				".settle/extensions/first.ts": `export default function (pi: any) {
	pi.registerTool({ name: "first_tool", label: "first", description: "first", parameters: { type: "object", properties: {} },
		async execute() { return { content: [{ type: "text", text: "first" }], details: {} }; } });
}`,
			},
		});
		p.session.setActiveToolsByName(["read", "first_tool"]);
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("one");
		const prompt = p.faux.requests[0]!.systemPrompt;
		p.write(
			".settle/extensions/second.ts",
			`export default function (pi: any) {
	pi.registerTool({ name: "second_tool", label: "second", description: "second", parameters: { type: "object", properties: {} },
		async execute() { return { content: [{ type: "text", text: "second" }], details: {} }; } });
}`,
		);
		p = await p.reopen();
		expect(p.session.getActiveToolNames()).toEqual(["read", "first_tool", "second_tool"]);
		expect(p.session.messages[0]).toMatchObject({ role: "system", content: prompt });

		// Deactivating an extension tool survives the next resume.
		p.session.setActiveToolsByName(["read", "second_tool"]);
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("two");
		p = await p.reopen();
		expect(p.session.getActiveToolNames()).toEqual(["read", "second_tool"]);
		// Explicit tools from the host win over the recorded ones.
		p = await p.reopen({ session: { initialActiveToolNames: ["bash"] } });
		expect(p.session.getActiveToolNames()).toEqual(["bash", "first_tool", "second_tool"]);
	});
});

describe("the tool registry (F.1)", () => {
	it("built-in < extension < SDK by final name; exclusions and the allowlist apply to every source", async () => {
		const extensionRead = (pi: ExtensionAPI) =>
			pi.registerTool({ ...plainTool("read"), description: "extension read" } as never);
		const extensionLs = (pi: ExtensionAPI) =>
			pi.registerTool({ ...plainTool("ls"), description: "extension ls" } as never);
		p = await openProject({
			extensionFactories: [extensionRead, extensionLs],
			session: { customTools: [{ ...plainTool("read"), description: "sdk read" }], excludedToolNames: ["bash"] },
		});
		const tools = p.session.getAllTools();
		expect(tools.map((tool) => `${tool.name}:${tool.sourceInfo.source}:${tool.description}`)).toEqual([
			"read:sdk:sdk read",
			"edit:builtin:" + tools.find((tool) => tool.name === "edit")!.description,
			"write:builtin:" + tools.find((tool) => tool.name === "write")!.description,
			"grep:builtin:" + tools.find((tool) => tool.name === "grep")!.description,
			"find:builtin:" + tools.find((tool) => tool.name === "find")!.description,
			"ls:inline:extension ls",
		]);
		expect(p.session.getActiveToolNames()).toEqual(["read", "edit", "write", "ls"]);
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("read", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await p.session.prompt("read it");
		expect(p.faux.requests[1]!.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "read ran" }] });
		p.cleanup();

		// An allowlist filters extension tools too (pi regression 2835), and activates all it allows.
		p = await openProject({ extensionFactories: [extensionLs], session: { allowedToolNames: ["read", "ls"] } });
		expect(p.session.getAllTools().map((tool) => tool.name)).toEqual(["read", "ls"]);
		expect(p.session.getActiveToolNames()).toEqual(["read", "ls"]);
	});

	it("noTools: 'all' (an empty allowlist) leaves no tools; 'builtin' (no initial tools) keeps extension tools active", async () => {
		const extensionTool = (pi: ExtensionAPI) => pi.registerTool(plainTool("deploy") as never);
		p = await openProject({ extensionFactories: [extensionTool], session: { allowedToolNames: [] } });
		expect(p.session.getAllTools()).toEqual([]);
		p.faux.setResponses([fauxAssistantMessage("no tools")]);
		await p.session.prompt("hi");
		expect(p.faux.requests[0]!.tools ?? []).toEqual([]);
		p.cleanup();

		p = await openProject({ extensionFactories: [extensionTool], session: { initialActiveToolNames: [] } });
		expect(p.session.getActiveToolNames()).toEqual(["deploy"]);
		expect(p.session.getAllTools().length).toBeGreaterThan(1);
	});

	it("setActiveToolsByName changes the tools and the prompt of the next request together", async () => {
		p = await openProject();
		p.faux.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		await p.session.prompt("one");
		expect(p.faux.requests[0]!.systemPrompt).toContain("- bash:");
		p.session.setActiveToolsByName(["read", "grep", "nonexistent"]);
		expect(p.session.getActiveToolNames()).toEqual(["read", "grep"]);
		expect(p.session.systemPrompt).toContain("- grep:");
		expect(p.session.systemPrompt).not.toContain("- bash:");
		await p.session.prompt("two");
		expect(p.faux.requests[1]!.tools?.map((tool) => tool.name)).toEqual(["read", "grep"]);
		expect(p.faux.requests[1]!.systemPrompt).toBe(p.session.systemPrompt);
	});
});
