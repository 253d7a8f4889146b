/**
 * Project trust end to end in a live session: an untrusted project's extensions are listed with a
 * diagnostic and never imported or run (its code-running settings are ignored too); the project is
 * trusted by the SDK option (`trustProject`), a remembered decision (`<agentDir>/trust.json`), or
 * the global `defaultProjectTrust: "always"`; a decision made later takes effect on reload.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { ProjectTrustStore } from "../../src/settings/trust.js";
import { type LiveProject, openProject } from "./env-helpers.js";

const g = globalThis as unknown as { __settleTrustSeen?: boolean[] };

/** A project extension with a tool (it leaves a file when imported), and a global one reporting ctx.isProjectTrusted(). */
const PROJECT_EXTENSION = `
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");
writeFileSync(join(projectRoot, "deploy.imported"), "imported");
export default function (pi: any) {
	pi.registerTool({ name: "deploy", label: "deploy", description: "Deploy", parameters: { type: "object", properties: {} },
		async execute() { return { content: [{ type: "text", text: "deployed" }], details: {} }; } });
}
`;
const GLOBAL_EXTENSION = `
export default function (pi: any) {
	pi.on("session_start", (_event: any, ctx: any) => {
		((globalThis as any).__settleTrustSeen ??= []).push(ctx.isProjectTrusted());
	});
}
`;
const projectFiles = {
	".settle/extensions/deploy.ts": PROJECT_EXTENSION,
	".settle/settings.json": JSON.stringify({ shellCommandPrefix: "export FROM_PROJECT=1" }),
};
const agentFiles = { "extensions/trust-probe.ts": GLOBAL_EXTENSION };

let p: LiveProject | undefined;
beforeEach(() => {
	g.__settleTrustSeen = [];
});
afterEach(() => {
	p?.cleanup();
	p = undefined;
	delete g.__settleTrustSeen;
});

const sideEffects = (cwd: string) => readdirSync(cwd).filter((name) => name.endsWith(".imported"));

describe("an untrusted project", () => {
	it("lists its extensions with a diagnostic, never runs them, ignores its code-running settings; global ones still run", async () => {
		p = await openProject({ files: projectFiles, agentFiles, trustProject: null });
		expect(p.loader.isProjectTrusted()).toBe(false);
		expect(sideEffects(p.cwd)).toEqual([]);
		expect(p.loader.getExtensions().skipped).toEqual([
			{ path: join(p.cwd, ".settle/extensions/deploy.ts"), source: "project", reason: "untrusted-project" },
		]);
		const messages = p.loader.getDiagnostics().map((diagnostic) => diagnostic.message);
		expect(messages).toEqual(
			expect.arrayContaining([
				expect.stringContaining(`Project extension not loaded: ${join(p.cwd, ".settle/extensions/deploy.ts")}`),
				expect.stringContaining('Ignored "shellCommandPrefix"'),
			]),
		);
		expect(messages.find((message) => message.startsWith("Project extension not loaded"))).toContain(
			"in the SDK, pass trustProject: true to the resource loader (new DefaultResourceLoader({ cwd, agentDir, trustProject: true }), or resourceLoaderOptions: { trustProject: true } of createAgentSessionServices / createAgentSessionRuntimeFactory)",
		);
		expect(p.session.getAllTools().map((tool) => tool.name)).not.toContain("deploy");
		expect(g.__settleTrustSeen).toEqual([false]);

		// The model cannot reach the project's tool, and bash runs without the project's prefix.
		p.faux.setResponses([
			fauxAssistantMessage(
				[fauxToolCall("deploy", {}), fauxToolCall("bash", { command: 'echo "prefix:$FROM_PROJECT"' })],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("ok"),
		]);
		await p.session.prompt("deploy");
		const results = p.faux.requests[1]!.messages.filter((message) => message.role === "toolResult");
		expect(results[0]).toMatchObject({ isError: true, content: [{ type: "text", text: "Tool deploy not found" }] });
		expect(results[1]).toMatchObject({ content: [{ type: "text", text: "prefix:\n" }] });
	});

	it("a trust decision remembered later takes effect on reload", async () => {
		p = await openProject({ files: projectFiles, agentFiles, trustProject: null });
		expect(p.session.getAllTools().map((tool) => tool.name)).not.toContain("deploy");
		new ProjectTrustStore(p.agentDir).set(p.cwd, true);
		await p.session.reload();
		expect(p.loader.isProjectTrusted()).toBe(true);
		expect(p.session.getActiveToolNames()).toContain("deploy");
		expect(existsSync(join(p.cwd, "deploy.imported"))).toBe(true);
		expect(g.__settleTrustSeen).toEqual([false, true]);
	});
});

describe("a trusted project", () => {
	it("runs its extensions and settings when the SDK option trusts it", async () => {
		p = await openProject({ files: projectFiles, agentFiles, trustProject: true });
		expect(p.session.getActiveToolNames()).toContain("deploy");
		expect(g.__settleTrustSeen).toEqual([true]);
		p.faux.setResponses([
			fauxAssistantMessage(
				[fauxToolCall("deploy", {}), fauxToolCall("bash", { command: 'echo "prefix:$FROM_PROJECT"' })],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("ok"),
		]);
		await p.session.prompt("deploy");
		const results = p.faux.requests[1]!.messages.filter((message) => message.role === "toolResult");
		expect(results[0]).toMatchObject({ isError: false, content: [{ type: "text", text: "deployed" }] });
		expect(results[1]).toMatchObject({ content: [{ type: "text", text: "prefix:1\n" }] });
	});

	it("is trusted by the global defaultProjectTrust setting; the SDK option false still wins", async () => {
		p = await openProject({
			files: projectFiles,
			agentFiles: { ...agentFiles, "settings.json": JSON.stringify({ defaultProjectTrust: "always" }) },
			trustProject: null,
		});
		expect(p.session.getActiveToolNames()).toContain("deploy");
		p.cleanup();

		p = await openProject({
			files: projectFiles,
			agentFiles: { ...agentFiles, "settings.json": JSON.stringify({ defaultProjectTrust: "always" }) },
			trustProject: false,
		});
		expect(p.session.getAllTools().map((tool) => tool.name)).not.toContain("deploy");
		expect(sideEffects(p.cwd)).toEqual([]);
	});
});
