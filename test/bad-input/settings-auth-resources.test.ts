/**
 * Corrupt or wrong configuration through the public API: settings files (f), auth.json (h), prompt
 * templates and skills with broken frontmatter (j). Each problem names the file (and key); what
 * is valid still applies; a file Settle cannot parse is never overwritten.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { createAgentSessionServices } from "../../src/runtime/services.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { ProjectTrustStore } from "../../src/settings/trust.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createWorkspace, expectSettleError, thrown, type Workspace } from "./helpers.js";

let ws: Workspace;
let globalFile: string;
let projectFile: string;

beforeEach(() => {
	ws = createWorkspace();
	globalFile = join(ws.agentDir, "settings.json");
	projectFile = join(ws.project, ".settle", "settings.json");
	mkdirSync(join(ws.project, ".settle"));
});

afterEach(() => {
	ws.cleanup();
});

describe("settings files (f)", () => {
	it("corrupt global JSON: an error naming the file; project settings still apply; a setter refuses and the file keeps its bytes", () => {
		writeFileSync(globalFile, '{ "defaultThinkingLevel": "high", }');
		writeFileSync(projectFile, JSON.stringify({ compaction: { keepRecentTokens: 1234 } }));
		const settings = SettingsManager.create(ws.project, ws.agentDir);
		const [problem, ...more] = settings.getErrors();
		expect(more).toEqual([]);
		expect(problem).toMatchObject({ type: "error", scope: "global", path: globalFile });
		expect(problem!.message).toContain(globalFile);
		expect(problem!.message).toContain("Fix the file");
		expect(problem!.error.code).toBe("INVALID_SETTINGS");
		expect(settings.getCompactionKeepRecentTokens()).toBe(1234);
		expectSettleError(
			thrown(() => settings.setDefaultThinkingLevel("low")),
			"INVALID_SETTINGS",
			globalFile,
		);
		expect(readFileSync(globalFile, "utf8")).toBe('{ "defaultThinkingLevel": "high", }');
	});

	it("corrupt project JSON: an error naming the file; global settings still apply; the project file keeps its bytes", () => {
		writeFileSync(globalFile, JSON.stringify({ defaultThinkingLevel: "high" }));
		writeFileSync(projectFile, "{ not json");
		const settings = SettingsManager.create(ws.project, ws.agentDir);
		expect(settings.getErrors()).toEqual([
			expect.objectContaining({ type: "error", scope: "project", path: projectFile }),
		]);
		expect(settings.getErrors()[0]!.message).toContain(projectFile);
		expect(settings.getDefaultThinkingLevel()).toBe("high");
		expectSettleError(
			thrown(() => settings.setProjectExtensionPaths(["ext.ts"])),
			"INVALID_SETTINGS",
			projectFile,
		);
		expect(readFileSync(projectFile, "utf8")).toBe("{ not json");
	});

	it("a value of the wrong type: an error naming the file and the key; the rest of the file applies; writing keeps the other keys", () => {
		writeFileSync(
			globalFile,
			JSON.stringify({ compaction: { enabled: "yes", keepRecentTokens: 999 }, defaultThinkingLevel: "low" }),
		);
		const settings = SettingsManager.create(ws.project, ws.agentDir);
		expect(settings.getErrors()).toEqual([
			expect.objectContaining({ type: "error", scope: "global", path: globalFile, key: "compaction.enabled" }),
		]);
		const { message } = settings.getErrors()[0]!;
		expect(message).toContain('"compaction.enabled"');
		expect(message).toContain(globalFile);
		expect(message).toContain('got "yes"');
		expect(settings.getCompactionEnabled()).toBe(true);
		expect(settings.getCompactionKeepRecentTokens()).toBe(999);
		expect(settings.getDefaultThinkingLevel()).toBe("low");
		settings.setDefaultThinkingLevel("high");
		expect(JSON.parse(readFileSync(globalFile, "utf8"))).toEqual({
			compaction: { enabled: "yes", keepRecentTokens: 999 },
			defaultThinkingLevel: "high",
		});
	});

	it("unknown keys are kept as written (extensions and newer versions own them), never reported as errors nor dropped on write", () => {
		writeFileSync(globalFile, JSON.stringify({ myExtension: { color: "teal" }, futureKey: [1, 2] }));
		const settings = SettingsManager.create(ws.project, ws.agentDir);
		expect(settings.getErrors()).toEqual([]);
		settings.setDefaultThinkingLevel("high");
		expect(JSON.parse(readFileSync(globalFile, "utf8"))).toEqual({
			myExtension: { color: "teal" },
			futureKey: [1, 2],
			defaultThinkingLevel: "high",
		});
	});

	it("createAgentSessionServices reports both files' problems as settings diagnostics naming each file", async () => {
		writeFileSync(globalFile, "[1, 2");
		writeFileSync(projectFile, JSON.stringify({ retry: { maxRetries: "many" } }));
		const services = await createAgentSessionServices({
			cwd: ws.project,
			agentDir: ws.agentDir,
			modelRuntime: ws.modelRuntime,
		});
		const settings = services.diagnostics.filter((d) => d.source === "settings");
		expect(settings.map((d) => d.path)).toEqual([globalFile, projectFile]);
		expect(settings[1]!.message).toContain('"retry.maxRetries"');
		expect(readFileSync(globalFile, "utf8")).toBe("[1, 2");
	});
});

describe("configuration files kept in a dotfiles folder (symlinked)", () => {
	it("regression: saving settings, credentials and trust wrote a regular file over the link (the linked file never changed) and reset 0600 to 0644", () => {
		const dotfiles = join(ws.root, "dotfiles");
		mkdirSync(dotfiles);
		for (const name of ["settings.json", "auth.json", "trust.json"]) {
			writeFileSync(join(dotfiles, name), "{}\n");
			chmodSync(join(dotfiles, name), 0o600);
			symlinkSync(join(dotfiles, name), join(ws.agentDir, name));
		}
		SettingsManager.create(ws.project, ws.agentDir).setDefaultModel("model-from-settle");
		AuthStorage.create(join(ws.agentDir, "auth.json")).set("anthropic", "sk-ant-1");
		new ProjectTrustStore(ws.agentDir).set(ws.project, true);
		for (const name of ["settings.json", "auth.json", "trust.json"]) {
			expect(lstatSync(join(ws.agentDir, name)).isSymbolicLink()).toBe(true);
			expect(statSync(join(dotfiles, name)).mode & 0o777).toBe(0o600);
		}
		expect(JSON.parse(readFileSync(join(dotfiles, "settings.json"), "utf8"))).toEqual({
			defaultModel: "model-from-settle",
		});
		expect(JSON.parse(readFileSync(join(dotfiles, "auth.json"), "utf8"))).toEqual({
			anthropic: { type: "api_key", key: "sk-ant-1" },
		});
		expect(Object.values(JSON.parse(readFileSync(join(dotfiles, "trust.json"), "utf8")))).toEqual([true]);
	});

	it("regression: a link to a file not created yet gets the file at its target (the link was replaced)", () => {
		const dotfiles = join(ws.root, "dotfiles");
		mkdirSync(dotfiles);
		symlinkSync(join(dotfiles, "settings.json"), join(ws.agentDir, "settings.json"));
		SettingsManager.create(ws.project, ws.agentDir).setFollowUpMode("all");
		expect(lstatSync(join(ws.agentDir, "settings.json")).isSymbolicLink()).toBe(true);
		expect(JSON.parse(readFileSync(join(dotfiles, "settings.json"), "utf8"))).toEqual({ followUpMode: "all" });
	});
});

describe("auth.json (h)", () => {
	it("corrupt: INVALID_SETTINGS naming the file and the way out; set() refuses and the bytes stay; services report it", async () => {
		const file = join(ws.agentDir, "auth.json");
		writeFileSync(file, '{"anthropic": {"type": "api_key", "key": "sk-1"');
		const auth = AuthStorage.create(file);
		expectSettleError(auth.getError(), "INVALID_SETTINGS", file, "fix or delete it");
		expect(auth.getApiKey("anthropic")).toBeUndefined();
		expectSettleError(
			thrown(() => auth.set("openai", "sk-2")),
			"INVALID_SETTINGS",
			file,
		);
		expect(readFileSync(file, "utf8")).toBe('{"anthropic": {"type": "api_key", "key": "sk-1"');
		const services = await createAgentSessionServices({ cwd: ws.project, agentDir: ws.agentDir, authStorage: auth });
		expect(services.diagnostics).toContainEqual(
			expect.objectContaining({ type: "error", source: "credentials", path: file }),
		);
	});

	it("regression: createAgentSession collected a corrupt auth.json and corrupt settings into a list it never returned — now result.diagnostics", async () => {
		writeFileSync(join(ws.agentDir, "auth.json"), "{ not json");
		writeFileSync(projectFile, '{"retry": ');
		const { session, diagnostics } = await createAgentSession({
			cwd: ws.project,
			agentDir: ws.agentDir,
			sessionManager: SessionManager.inMemory(ws.project),
		});
		try {
			expect(diagnostics).toContainEqual(
				expect.objectContaining({ type: "error", source: "credentials", path: join(ws.agentDir, "auth.json") }),
			);
			expect(diagnostics).toContainEqual(
				expect.objectContaining({ type: "error", source: "settings", path: projectFile }),
			);
			expect(readFileSync(projectFile, "utf8")).toBe('{"retry": ');
		} finally {
			session.dispose();
		}
	});

	it("a clean project: createAgentSession reports no diagnostics", async () => {
		const { session, diagnostics } = await createAgentSession({
			cwd: ws.project,
			agentDir: ws.agentDir,
			sessionManager: SessionManager.inMemory(ws.project),
		});
		session.dispose();
		expect(diagnostics).toEqual([]);
	});
});

describe("prompt templates and skills with broken frontmatter (j)", () => {
	it("regression: broken skills and templates were skipped silently by services (and the CLI) — now warnings naming the file", async () => {
		const prompts = join(ws.project, ".settle", "prompts");
		const skills = join(ws.project, ".settle", "skills");
		mkdirSync(prompts);
		mkdirSync(join(skills, "broken"), { recursive: true });
		mkdirSync(join(skills, "fine"), { recursive: true });
		writeFileSync(join(prompts, "broken.md"), "---\ndescription: [unclosed\n---\nBody $1\n");
		writeFileSync(join(prompts, "fine.md"), "---\ndescription: works\n---\nFine $1\n");
		writeFileSync(join(skills, "broken", "SKILL.md"), "---\nname: broken\ndescription: : :\n  - x\n---\nUse it.\n");
		writeFileSync(join(skills, "fine", "SKILL.md"), "---\nname: fine\ndescription: A fine skill.\n---\nUse it.\n");
		const services = await createAgentSessionServices({
			cwd: ws.project,
			agentDir: ws.agentDir,
			modelRuntime: ws.modelRuntime,
			resourceLoaderOptions: { trustProject: true },
		});
		const loader = services.resourceLoader;
		expect(loader.getPrompts().prompts.map((p) => p.name)).toEqual(["fine"]);
		expect(loader.getSkills().skills.map((s) => s.name)).toEqual(["fine"]);
		const brokenTemplate = join(prompts, "broken.md");
		const brokenSkill = join(skills, "broken", "SKILL.md");
		expect(loader.getPrompts().diagnostics).toContainEqual(
			expect.objectContaining({ path: brokenTemplate, message: expect.stringContaining("Fix the YAML") }),
		);
		expect(loader.getSkills().diagnostics).toContainEqual(
			expect.objectContaining({ path: brokenSkill, message: expect.stringContaining("Fix the YAML") }),
		);
		const reported = services.diagnostics.filter((d) => d.source === "resources");
		expect(reported.map((d) => d.path).sort()).toEqual([brokenTemplate, brokenSkill].sort());
		for (const d of reported) {
			expect(d.type).toBe("warning");
			expect(d.message).toContain(d.path);
		}
	});
});
