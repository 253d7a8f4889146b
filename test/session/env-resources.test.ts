/**
 * Resources on disk reaching a live session (issue 6): fixture projects copied into temp folders,
 * read by SettingsManager and DefaultResourceLoader, driven through the public AgentSession API
 * on the faux provider. What the model receives is checked on the faux provider's recorded requests.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context, UserMessage } from "../../src/llm/types.js";
import type { SystemMessage } from "../../src/session/messages.js";
import { type LiveProject, openProject } from "./env-helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
});

function userText(context: Context | { messages: Context["messages"] }, index = 0): string {
	const users = context.messages.filter((message): message is UserMessage => message.role === "user");
	const content = users[index]?.content;
	if (typeof content === "string") return content;
	return (content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("");
}

describe("a .settle/ project (fixture live-app)", () => {
	it("puts AGENTS.md, APPEND_SYSTEM.md, the skills and the extension tool's prompt text into the first request", async () => {
		p = await openProject({ fixture: "live-app" });
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("hello");
		const request = p.faux.requests[0]!;
		const prompt = request.systemPrompt ?? "";
		expect(prompt).toContain(
			`## ${join(p.cwd, "AGENTS.md")}\n\n# Live app\n\nRun \`npm test\` before you call a change done.`,
		);
		expect(prompt).toContain("<addendum>\nAnswer in British English.\n</addendum>");
		expect(prompt).toContain("<name>deploy</name>");
		expect(prompt).toContain(`<location>${join(p.cwd, ".settle/skills/deploy/SKILL.md")}</location>`);
		expect(prompt).toContain("- query_ticket: Look up a ticket of the issue tracker by id");
		expect(prompt).toContain("- Use query_ticket before you change code for a ticket.");
		expect(prompt).toContain(`Current working directory: ${p.cwd}`);
		expect(request.tools?.map((tool) => tool.name)).toEqual(["read", "bash", "edit", "write", "query_ticket"]);
		// The transcript records exactly that prompt as its baseline.
		const baseline = p.session.messages[0] as SystemMessage;
		expect(baseline).toMatchObject({ role: "system", kind: "baseline", content: prompt });
		expect(baseline.tools?.active).toEqual(["read", "bash", "edit", "write", "query_ticket"]);
		expect(p.session.getAllTools().find((tool) => tool.name === "query_ticket")?.sourceInfo).toMatchObject({
			path: join(p.cwd, ".settle/extensions/tickets.ts"),
			scope: "project",
		});
		expect(p.loader.getDiagnostics()).toEqual([]);
	});

	it("expands /skill:deploy with its arguments before the model sees the text", async () => {
		p = await openProject({ fixture: "live-app" });
		p.faux.setResponses([fauxAssistantMessage("deploying")]);
		await p.session.prompt("/skill:deploy staging please");
		const skillFile = join(p.cwd, ".settle/skills/deploy/SKILL.md");
		expect(userText(p.faux.requests[0]!)).toBe(
			`<skill name="deploy" location="${skillFile}">\nReferences are relative to ${join(p.cwd, ".settle/skills/deploy")}.\n\n# Deploy\n\n1. Read references/runbook.md.\n2. Run ./scripts/deploy.sh with the environment name.\n</skill>\n\nstaging please`,
		);
		// The transcript keeps what the model saw.
		expect(userText({ messages: p.session.messages as Context["messages"] })).toContain('<skill name="deploy"');
	});

	it("expands a prompt template with positional arguments", async () => {
		p = await openProject({ fixture: "live-app" });
		p.faux.setResponses([fauxAssistantMessage("fixed")]);
		await p.session.prompt("/fix 42 src/login.ts check Safari first");
		expect(userText(p.faux.requests[0]!)).toBe("Fix issue 42 in src/login.ts. Notes: check Safari first");
		expect(p.session.promptTemplates.map((template) => [template.name, template.description])).toEqual([
			["fix", "Fix an issue in a file"],
		]);
	});

	it("runs the project's command, which prompts; the model calls the project's tool with the flag's default", async () => {
		p = await openProject({ fixture: "live-app" });
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("query_ticket", { id: "7" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("It is a Safari bug."),
		]);
		await p.session.prompt("/ticket 7");
		await p.session.waitForIdle();
		expect(userText(p.faux.requests[0]!)).toBe("Work on ticket 7");
		const toolResult = p.faux.requests[1]!.messages.find((message) => message.role === "toolResult");
		expect(toolResult).toMatchObject({
			toolName: "query_ticket",
			content: [{ type: "text", text: "T-7: login fails on Safari" }],
		});
		expect(p.session.getLastAssistantText()).toBe("It is a Safari bug.");
		expect(p.errors).toEqual([]);
	});

	it("applies the project's settings (followUpMode)", async () => {
		p = await openProject({ fixture: "live-app" });
		expect(p.session.followUpMode).toBe("all");
		expect(p.session.steeringMode).toBe("one-at-a-time");
	});

	it("puts the global agent folder's AGENTS.md before the project's", async () => {
		p = await openProject({ fixture: "live-app", agentFiles: { "AGENTS.md": "Global rule: be brief." } });
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("hi");
		const prompt = p.faux.requests[0]!.systemPrompt ?? "";
		expect(prompt.indexOf("Global rule: be brief.")).toBeGreaterThan(-1);
		expect(prompt.indexOf("Global rule: be brief.")).toBeLessThan(prompt.indexOf("# Live app"));
	});
});

describe("a pi project with only .pi/ (fixture live-pi)", () => {
	it("reads SYSTEM.md, AGENTS.md, skills, templates, settings and an unchanged pi extension from .pi/", async () => {
		p = await openProject({ fixture: "live-pi" });
		expect(p.session.steeringMode).toBe("all");
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("word_count", { text: "one two three" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("3"),
			fauxAssistantMessage("released"),
			fauxAssistantMessage("explained"),
		]);
		await p.session.prompt("How many words?");
		const prompt = p.faux.requests[0]!.systemPrompt ?? "";
		expect(prompt.startsWith("You are the pi project's assistant.")).toBe(true);
		expect(prompt).toContain("Prefer small commits.");
		expect(prompt).toContain("<name>release</name>");
		expect(prompt).toContain("- word_count: Count the words of a text");
		const toolResult = p.faux.requests[1]!.messages.find((message) => message.role === "toolResult");
		expect(toolResult).toMatchObject({ content: [{ type: "text", text: "3 words" }] });

		await p.session.prompt("/skill:release v2.0.0");
		expect(userText(p.faux.requests[2]!, 1)).toContain(
			`<skill name="release" location="${join(p.cwd, ".pi/skills/release/SKILL.md")}">`,
		);
		expect(userText(p.faux.requests[2]!, 1).endsWith("\n\nv2.0.0")).toBe(true);
		await p.session.prompt("/explain README.md");
		expect(userText(p.faux.requests[3]!, 2)).toBe("Explain README.md to a new team member.");
		expect(p.loader.getProjectConfigDir()).toBe(join(p.cwd, ".pi"));
		expect(p.errors).toEqual([]);
	});
});
