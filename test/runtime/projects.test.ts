/**
 * A resume into a DIFFERENT project rebuilds everything for that project (seed §15.2): its
 * settings, AGENTS.md, skills and extensions, and its tools run in its directory. Nothing of the
 * first project remains. Two fixture projects on disk, each with `.settle/settings.json`,
 * AGENTS.md, a skill and an extension.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { ToolResultMessage } from "../../src/llm/types.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { assertUsable, fauxModelRuntime, installFixtureLog, recordingFactory, startRuntime } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let log: string[];

beforeEach(() => {
	log = installFixtureLog();
});

function factory(trustProject: boolean) {
	return recordingFactory({
		modelRuntime: () => fauxModelRuntime(t.faux),
		resourceLoaderOptions: { trustProject },
	}).factory;
}

/** What a session took from its project. */
function projectView(session: AgentSession) {
	return {
		cwd: session.cwd,
		tools: session
			.getAllTools()
			.map((tool) => tool.name)
			.filter((name) => name.endsWith("_tool")),
		skills: session.resourceLoader.getSkills().skills.map((skill) => skill.name),
		agentsFiles: session.resourceLoader.getAgentsFiles().agentsFiles.map((file) => file.path),
		steeringMode: session.steeringMode,
		followUpMode: session.followUpMode,
		reserveTokens: session.settingsManager.getCompactionSettings().reserveTokens,
		projectSettings: session.settingsManager.getSettingsPaths().project,
	};
}

/** Runs one model turn that calls `tool` with `args`; returns the tool result text. */
async function callTool(session: AgentSession, tool: string, args: Record<string, unknown>): Promise<string> {
	t.faux.setResponses([
		fauxAssistantMessage([fauxToolCall(tool, args)], { stopReason: "toolUse" }),
		fauxAssistantMessage("ok"),
	]);
	await session.prompt(`use ${tool}`);
	const result = session.messages.findLast((m): m is ToolResultMessage => m.role === "toolResult");
	const block = result?.content[0];
	return block?.type === "text" ? block.text.trim() : "";
}

describe("resume into another project", () => {
	it("loads the target project's settings, AGENTS.md, skills and extensions, and runs its tools there", async () => {
		const make = factory(true);
		// A session of project beta, written by an earlier run.
		const beta = await startRuntime(make, t.ws, t.ws.beta);
		await assertUsable(beta.session, t.faux, "beta work");
		const betaFile = beta.session.sessionFile!;
		await beta.dispose();

		const r = await startRuntime(make, t.ws, t.ws.alpha);
		t.runtime = r;
		expect(projectView(r.session)).toEqual({
			cwd: t.ws.alpha,
			tools: ["alpha_tool"],
			skills: ["alpha-skill"],
			agentsFiles: [`${t.ws.alpha}/AGENTS.md`],
			steeringMode: "all",
			followUpMode: "one-at-a-time",
			reserveTokens: 11111,
			projectSettings: `${t.ws.alpha}/.settle/settings.json`,
		});
		expect(await callTool(r.session, "bash", { command: "pwd" })).toBe(t.ws.alpha);
		log.length = 0;

		await r.switchSession(betaFile);
		expect(r.cwd).toBe(t.ws.beta);
		expect(r.services.cwd).toBe(t.ws.beta);
		expect(projectView(r.session)).toEqual({
			cwd: t.ws.beta,
			tools: ["beta_tool"],
			skills: ["beta-skill"],
			agentsFiles: [`${t.ws.beta}/AGENTS.md`],
			steeringMode: "one-at-a-time",
			followUpMode: "all",
			reserveTokens: 22222,
			projectSettings: `${t.ws.beta}/.settle/settings.json`,
		});
		// The extensions of each project saw their own part, each in its own directory.
		expect(log).toEqual([
			`alpha:session_before_switch:resume:${t.ws.alpha}`,
			`alpha:session_shutdown:resume:${t.ws.alpha}`,
			`beta:session_start:resume:${t.ws.beta}`,
		]);
		// The history is beta's session; alpha's turn stays in alpha's file.
		expect(JSON.stringify(r.session.messages)).toContain("beta work");
		expect(JSON.stringify(r.session.messages)).not.toContain("use bash");
		// Tools run in beta, the project's own tool is beta's, and the request the model gets is beta's.
		expect(await callTool(r.session, "bash", { command: "pwd" })).toBe(t.ws.beta);
		expect(await callTool(r.session, "beta_tool", {})).toBe(`beta tool in ${t.ws.beta}`);
		const request = t.faux.requests.at(-1)!;
		expect(request.systemPrompt).toContain("beta style");
		expect(request.systemPrompt).toContain("beta-skill");
		expect(request.systemPrompt).not.toContain("alpha");
		expect(request.tools?.map((tool) => tool.name)).not.toContain("alpha_tool");
	});

	it("an untrusted target project gets its settings and AGENTS.md but not its extensions, with a warning", async () => {
		const make = factory(false);
		const beta = await startRuntime(make, t.ws, t.ws.beta);
		await assertUsable(beta.session, t.faux, "beta work");
		const betaFile = beta.session.sessionFile!;
		await beta.dispose();
		const r = await startRuntime(make, t.ws, t.ws.alpha);
		t.runtime = r;
		await r.switchSession(betaFile);
		const view = projectView(r.session);
		expect(view.tools).toEqual([]);
		expect(view.reserveTokens).toBe(22222);
		expect(view.agentsFiles).toEqual([`${t.ws.beta}/AGENTS.md`]);
		expect(r.diagnostics.some((d) => d.type === "warning" && d.message.includes("Project extension not loaded"))).toBe(
			true,
		);
		expect(log).toEqual([]);
	});
});
