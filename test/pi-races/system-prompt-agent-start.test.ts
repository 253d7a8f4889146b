/**
 * Reports about the system prompt a `before_agent_start` chain produces, replayed against Settle.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
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

/**
 * pi-langfuse#12: a tracer read `ctx.getSystemPrompt()` while later handlers could still change the
 * prompt; its fix reads it in `agent_start`. In Settle a handler may also change one operation's
 * prompt through `event.systemPromptOptions`, and `ctx.getSystemPrompt()` returned the loadout's own
 * prompt without that change, so the tracer still recorded a prompt the model never got.
 */
describe("pi-langfuse#12: ctx.getSystemPrompt() during an operation is the prompt its requests carry", () => {
	it("after before_agent_start changed the prompt options or returned a prompt", async () => {
		const recorded: string[] = [];
		const tracer = (pi: ExtensionAPI) => {
			pi.on("agent_start", (_event, ctx) => {
				recorded.push(ctx.getSystemPrompt());
			});
			pi.on("turn_start", (_event, ctx) => {
				recorded.push(ctx.getSystemPrompt());
			});
		};
		const shaper = (pi: ExtensionAPI) => {
			pi.registerTool({ ...ghostTool, name: "probe", promptSnippet: "Probe things" });
			pi.on("before_agent_start", (event) => {
				if (event.prompt.includes("note")) event.systemPromptOptions.appendSystemPrompt = ["OPERATION NOTE"];
				if (event.prompt.includes("force")) return { systemPrompt: `${event.systemPrompt}\n\nFORCED` };
				return undefined;
			});
		};
		p = await openProject({ extensionFactories: [tracer, shaper] });
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("probe", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("noted"),
			fauxAssistantMessage("forced"),
			fauxAssistantMessage("plain"),
		]);
		await p.session.prompt("with a note");
		// Settled: the note was that operation's only; the next request's prompt does not have it.
		expect(p.session.systemPrompt).not.toContain("OPERATION NOTE");
		await p.session.prompt("force it");
		await p.session.prompt("plain again");
		expect(p.errors).toEqual([]);
		const sent = p.faux.requests.map((request) => request.systemPrompt);
		expect(sent).toHaveLength(4);
		expect(sent[0]).toContain("OPERATION NOTE");
		expect(sent[1]).toContain("OPERATION NOTE");
		expect(sent[2]).toContain("FORCED");
		expect(sent[3]).not.toContain("OPERATION NOTE");
		// agent_start + turn_start of each request: what the tracer saw is what was sent.
		expect(recorded).toEqual([sent[0], sent[0], sent[1], sent[2], sent[2], sent[3], sent[3]]);
		expect(p.session.systemPrompt).toBe(sent[3]);
	});
});

/**
 * oh-my-pi#8058: a pi extension's `before_agent_start` handler got no `event.systemPromptOptions`
 * and a stub `event.systemPrompt`, so `return { systemPrompt: event.systemPrompt + block }` (pi's
 * documented way to append) replaced the whole prompt: persona and AGENTS.md gone.
 */
describe("oh-my-pi#8058: before_agent_start gets the live prompt and its options, on every start", () => {
	it("an extension file appending pi-style keeps AGENTS.md and the tools, for a prompt and a triggered message", async () => {
		p = await openProject({
			files: {
				"AGENTS.md": "AGENTS-MARKER: answer in haiku.",
				".settle/extensions/append.ts": `export default function (pi) {
	pi.on("before_agent_start", (event) => {
		const options = event.systemPromptOptions;
		if (!options) throw new Error("systemPromptOptions is missing");
		const files = (options.contextFiles ?? []).map((file) => file.content).join("|");
		const block = "OPTIONS cwd=" + options.cwd + " tools=" + (options.selectedTools ?? []).join(",") + " files=" + files;
		return { systemPrompt: event.systemPrompt + "\\n\\n" + block };
	});
	pi.registerCommand("wake", { handler: async () => pi.sendMessage({ customType: "wake", content: "wake up", display: true }, { triggerTurn: true }) });
}
`,
			},
		});
		p.faux.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await p.session.prompt("first");
		await p.session.prompt("/wake");
		await p.session.waitForIdle();
		expect(p.errors).toEqual([]);
		expect(p.faux.requests).toHaveLength(2);
		for (const request of p.faux.requests) {
			const prompt = request.systemPrompt ?? "";
			expect(prompt).toContain("You are an expert coding assistant");
			expect(prompt.match(/AGENTS-MARKER/g)).toHaveLength(2);
			expect(prompt).toContain(`OPTIONS cwd=${p.cwd} tools=read,bash,edit,write files=AGENTS-MARKER`);
		}
	});
});
