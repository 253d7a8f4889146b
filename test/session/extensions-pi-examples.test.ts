/**
 * pi 0.73.1's published example extensions, UNCHANGED (read from node_modules), loaded from disk
 * by DefaultResourceLoader and running in a live AgentSession on the faux provider, with the real
 * built-in tools acting on a real project folder. No UI is bound (`hasUI` is false), as in pi's
 * print mode.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { ToolResultMessage } from "../../src/llm/types.js";
import { type LiveProject, openProject, PI_EXAMPLES } from "./env-helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
});

async function openWithExample(name: string): Promise<LiveProject> {
	p = await openProject({ loader: { additionalExtensionPaths: [join(PI_EXAMPLES, name)] } });
	expect(p.session.extensionLoadErrors).toEqual([]);
	expect(p.session.extensionRunner.getExtensionPaths()).toEqual([join(PI_EXAMPLES, name)]);
	return p;
}

function toolResultsOf(p: LiveProject): ToolResultMessage[] {
	return p.session.messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

describe("permission-gate.ts in a live session", () => {
	it("blocks a scripted rm -rf; the model sees the reason; a safe command runs", async () => {
		p = await openWithExample("permission-gate.ts");
		mkdirSync(join(p.cwd, "build"));
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("bash", { command: "rm -rf build" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("bash", { command: "echo safe && ls" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("The build folder is still there."),
		]);
		await p.session.prompt("clean the build folder");
		expect(existsSync(join(p.cwd, "build"))).toBe(true);
		const [blocked, safe] = toolResultsOf(p);
		expect(blocked).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "Dangerous command blocked (no UI for confirmation)" }],
		});
		expect(p.faux.requests[1]!.messages.at(-1)).toMatchObject({
			role: "toolResult",
			content: [{ type: "text", text: "Dangerous command blocked (no UI for confirmation)" }],
		});
		expect(safe).toMatchObject({ isError: false, content: [{ type: "text", text: "safe\nbuild\n" }] });
	});
});

describe("protected-paths.ts in a live session", () => {
	it("blocks a write to .env (the model sees why) and lets other writes through", async () => {
		p = await openWithExample("protected-paths.ts");
		p.faux.setResponses([
			fauxAssistantMessage(
				[
					fauxToolCall("write", { path: ".env", content: "SECRET=1" }),
					fauxToolCall("write", { path: "notes.txt", content: "hello" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("Wrote the notes; .env is protected."),
		]);
		await p.session.prompt("save the secret and the notes");
		expect(existsSync(join(p.cwd, ".env"))).toBe(false);
		expect(readFileSync(join(p.cwd, "notes.txt"), "utf8")).toBe("hello");
		const [env, notes] = toolResultsOf(p);
		expect(env).toMatchObject({ isError: true, content: [{ type: "text", text: 'Path ".env" is protected' }] });
		expect(notes).toMatchObject({ isError: false });
		expect(p.faux.requests[1]!.messages.filter((message) => message.role === "toolResult")).toHaveLength(2);
	});
});

describe("input-transform.ts in a live session", () => {
	it("rewrites ?quick prompts before the model sees them and answers ping itself", async () => {
		p = await openWithExample("input-transform.ts");
		p.faux.setResponses([fauxAssistantMessage("A typed superset of JavaScript.")]);
		await p.session.prompt("?quick What is TypeScript?");
		expect(p.faux.requests[0]!.messages.at(-1)).toMatchObject({
			role: "user",
			content: [{ type: "text", text: "Respond briefly in 1-2 sentences: What is TypeScript?" }],
		});
		let disposition = "";
		await p.session.prompt("ping", { preflightResult: (value) => (disposition = value) });
		expect(disposition).toBe("handled");
		expect(p.faux.callCount).toBe(1);
	});
});

describe("dynamic-tools.ts in a live session", () => {
	it("registers a tool at session start that the model then calls; a command adds another one", async () => {
		p = await openWithExample("dynamic-tools.ts");
		expect(p.session.getActiveToolNames()).toContain("echo_session");
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("echo_session", { message: "hello" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("echoed"),
			fauxAssistantMessage([fauxToolCall("shout", { message: "HEY" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("shouted"),
		]);
		await p.session.prompt("echo hello");
		expect(p.faux.requests[0]!.tools?.map((tool) => tool.name)).toContain("echo_session");
		expect(p.faux.requests[0]!.systemPrompt).toContain(
			"- echo_session: Echo back user-provided text with [session] prefix",
		);
		expect(toolResultsOf(p)[0]).toMatchObject({ content: [{ type: "text", text: "[session] hello" }], isError: false });

		await p.session.prompt("/add-echo-tool shout");
		await p.session.prompt("shout it");
		expect(p.faux.requests[2]!.tools?.map((tool) => tool.name)).toContain("shout");
		expect(toolResultsOf(p)[1]).toMatchObject({ content: [{ type: "text", text: "[shout] HEY" }], isError: false });
		expect(p.errors).toEqual([]);
	});
});
