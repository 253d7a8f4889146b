/**
 * Reports about `/skill:` expansion and custom tools' results, replayed on a real project on disk
 * (its skills under `.settle/skills/`, a JSONL session file) through the public AgentSession API
 * on the faux provider. What the model received is read from the faux provider's requests.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context, ToolResultMessage } from "../../src/llm/types.js";
import { type LiveProject, openProject } from "../session/env-helpers.js";
import { fileEntries } from "./helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
});

const DEMO_SKILL = "---\nname: demo\ndescription: A demo skill\n---\nUse this skill.\n";

function lastUserText(context: { messages: Context["messages"] }): string {
	const users = context.messages.filter((message) => message.role === "user");
	const content = users.at(-1)?.content;
	if (typeof content === "string") return content;
	return (content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("pi#8413: /skill:name followed by a line break or a tab", () => {
	for (const [separator, label] of [
		["\n", "a line break"],
		["\t", "a tab"],
	] as const) {
		it(`pi#8413: \`/skill:demo\` then ${label} and the arguments reaches the model as the skill with those arguments, saved so`, async () => {
			p = await openProject({ files: { ".settle/skills/demo/SKILL.md": DEMO_SKILL } });
			p.faux.setResponses([fauxAssistantMessage("on it")]);
			await p.session.prompt(`/skill:demo${separator}fix the login\nthen run the tests`);
			const skillFile = join(p.cwd, ".settle/skills/demo/SKILL.md");
			const expected = `<skill name="demo" location="${skillFile}">\nReferences are relative to ${join(p.cwd, ".settle/skills/demo")}.\n\nUse this skill.\n</skill>\n\nfix the login\nthen run the tests`;
			expect(lastUserText(p.faux.requests[0]!)).toBe(expected);
			// The file holds what the model saw, and reopens to it.
			const file = p.session.sessionFile!;
			const saved = fileEntries(file).flatMap((entry) =>
				entry.message?.role === "user" ? [lastUserText({ messages: [entry.message as never] })] : [],
			);
			expect(saved).toEqual([expected]);
		});
	}

	it("pi#8413: a name no skill has, followed by a line break, is refused naming the loaded skills; nothing reaches the model", async () => {
		p = await openProject({ files: { ".settle/skills/demo/SKILL.md": DEMO_SKILL } });
		p.faux.setResponses([fauxAssistantMessage("which skill?")]);
		await expect(p.session.prompt("/skill:nope\nfix the login")).rejects.toMatchObject({
			code: "INVALID_ARGUMENT",
			message: expect.stringContaining("/skill:nope names no loaded skill. The loaded skills are /skill:demo."),
		});
		expect(p.faux.requests).toHaveLength(0);
	});
});

describe("pi#1881: a custom tool that returns { isError: true } without throwing", () => {
	it("pi#1881: tool_execution_end, the tool result sent to the model and the saved one all say it failed", async () => {
		const failing: AgentTool = {
			name: "deploy",
			label: "Deploy",
			description: "deploys the app",
			parameters: { type: "object", properties: {} } as never,
			execute: async () => ({
				content: [{ type: "text", text: "deploy refused: tests failing" }],
				details: { case: "return-iserror" },
				isError: true,
			}),
		};
		p = await openProject({ session: { customTools: [failing] } });
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("deploy", {}, { id: "call-deploy" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("The deploy failed."),
		]);
		await p.session.prompt("deploy it");

		const end = p.events.find((event) => event.type === "tool_execution_end");
		expect(end).toMatchObject({
			type: "tool_execution_end",
			toolCallId: "call-deploy",
			isError: true,
			result: { isError: true, content: [{ type: "text", text: "deploy refused: tests failing" }] },
		});
		const sent = p.faux.requests[1]!.messages.find((message) => message.role === "toolResult") as ToolResultMessage;
		expect(sent).toMatchObject({ toolCallId: "call-deploy", isError: true });
		const saved = fileEntries(p.session.sessionFile!).flatMap((entry) =>
			entry.message?.role === "toolResult" ? [entry.message as ToolResultMessage] : [],
		);
		expect(saved.map((message) => [message.toolCallId, message.isError])).toEqual([["call-deploy", true]]);
		expect(p.session.getLastAssistantText()).toBe("The deploy failed.");
	});

	it("pi#1881: a tool that returns without isError is a success everywhere", async () => {
		const working: AgentTool = {
			name: "deploy",
			label: "Deploy",
			description: "deploys the app",
			parameters: { type: "object", properties: {} } as never,
			execute: async () => ({ content: [{ type: "text", text: "deployed" }], details: {} }),
		};
		p = await openProject({ session: { customTools: [working] } });
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("deploy", {}, { id: "call-deploy" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("Deployed."),
		]);
		await p.session.prompt("deploy it");
		expect(p.events.find((event) => event.type === "tool_execution_end")).toMatchObject({ isError: false });
		const sent = p.faux.requests[1]!.messages.find((message) => message.role === "toolResult") as ToolResultMessage;
		expect(sent.isError).toBe(false);
	});
});
