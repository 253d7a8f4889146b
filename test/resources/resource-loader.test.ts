import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { expandSkillCommand } from "../../src/resources/skills.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { copyFixture, tempDir, writeTree } from "../settings/helpers.js";

async function loaded(options: ConstructorParameters<typeof DefaultResourceLoader>[0]) {
	const loader = new DefaultResourceLoader({ homeDir: join(tempDir(), "home"), ...options });
	await loader.reload();
	return loader;
}

describe("DefaultResourceLoader: a project with a global agent folder", () => {
	it("puts project resources before global ones; the project's wins a name collision", async () => {
		const cwd = copyFixture("basic");
		const agentDir = copyFixture("_agent");
		const loader = await loaded({ cwd, agentDir });

		const { skills, diagnostics } = loader.getSkills();
		expect(skills.map((skill) => [skill.name, skill.sourceInfo.scope])).toEqual([
			["code-review", "project"],
			["internal-tool", "project"],
			["deploy", "project"],
			["global-skill", "user"],
		]);
		expect(diagnostics).toEqual([
			{
				type: "collision",
				message: 'name "code-review" collision',
				path: join(agentDir, "skills", "code-review", "SKILL.md"),
				collision: {
					resourceType: "skill",
					name: "code-review",
					winnerPath: join(cwd, ".settle", "skills", "code-review", "SKILL.md"),
					loserPath: join(agentDir, "skills", "code-review", "SKILL.md"),
				},
			},
		]);

		const prompts = loader.getPrompts();
		expect(prompts.prompts.map((prompt) => [prompt.name, prompt.sourceInfo.scope])).toEqual([
			["commit", "project"],
			["review", "project"],
			["global-prompt", "user"],
		]);
		expect(prompts.diagnostics.map((d) => d.message)).toEqual(['name "/review" collision']);

		expect(loader.getAgentsFiles().agentsFiles.map((file) => file.path)).toEqual([
			join(agentDir, "AGENTS.md"),
			join(cwd, "AGENTS.md"),
		]);
		expect(loader.getSystemPrompt()).toBeUndefined();
		expect(loader.getAppendSystemPrompt()).toEqual([]);
		// Skills found by the loader expand with /skill:name.
		expect(expandSkillCommand("/skill:global-skill go", skills).text).toContain("Do the global thing.\n</skill>\n\ngo");
	});

	it("no* options turn off discovered resources, option paths still load", async () => {
		const cwd = copyFixture("basic");
		const agentDir = copyFixture("_agent");
		const loader = await loaded({
			cwd,
			agentDir,
			noSkills: true,
			noPromptTemplates: true,
			noContextFiles: true,
			additionalSkillPaths: [join(agentDir, "skills", "global-skill"), "missing-skills"],
			additionalPromptTemplatePaths: [join(agentDir, "prompts", "global-prompt.md"), "missing.md"],
		});
		// As pi: an explicit path to a file discovery reaches keeps the discovered source info, even with noSkills.
		expect(loader.getSkills().skills.map((skill) => [skill.name, skill.sourceInfo.scope])).toEqual([
			["global-skill", "user"],
		]);
		expect(loader.getSkills().diagnostics).toEqual([
			{ type: "error", message: "Skill path does not exist", path: join(cwd, "missing-skills") },
		]);
		expect(loader.getPrompts().prompts.map((prompt) => prompt.name)).toEqual(["global-prompt"]);
		expect(loader.getPrompts().diagnostics).toEqual([
			{ type: "error", message: "Prompt template path does not exist", path: join(cwd, "missing.md") },
		]);
		expect(loader.getAgentsFiles().agentsFiles).toEqual([]);
	});
});

describe("DefaultResourceLoader: system prompt files", () => {
	it("reads SYSTEM.md and APPEND_SYSTEM.md from the project folder", async () => {
		const loader = await loaded({ cwd: copyFixture("custom-prompt"), agentDir: join(tempDir(), "agent") });
		expect(loader.getSystemPrompt()).toBe("You are a release engineer.\n");
		expect(loader.getAppendSystemPrompt()).toEqual(["Never push on Fridays.\n"]);
	});

	it("falls back to the agent folder's files, and options replace discovery", async () => {
		const agentDir = tempDir();
		writeTree(agentDir, { "SYSTEM.md": "Global base.", "APPEND_SYSTEM.md": "Global append." });
		const cwd = copyFixture("basic");
		expect((await loaded({ cwd, agentDir })).getSystemPrompt()).toBe("Global base.");
		expect((await loaded({ cwd, agentDir })).getAppendSystemPrompt()).toEqual(["Global append."]);

		const promptFile = join(tempDir(), "prompt.md");
		writeFileSync(promptFile, "From a file.");
		const withOptions = await loaded({
			cwd,
			agentDir,
			systemPrompt: "Inline base.",
			appendSystemPrompt: [promptFile, "Inline append."],
		});
		expect(withOptions.getSystemPrompt()).toBe("Inline base.");
		expect(withOptions.getAppendSystemPrompt()).toEqual(["From a file.", "Inline append."]);
	});
});

describe("DefaultResourceLoader: a pi project (.pi/ and no .settle/)", () => {
	it("reads skills, prompts, extensions, SYSTEM.md and settings from .pi/", async () => {
		const cwd = copyFixture("pi-only");
		const loader = await loaded({ cwd, agentDir: join(tempDir(), "agent"), trustProject: true });
		expect(loader.getProjectConfigDir()).toBe(join(cwd, ".pi"));
		expect(loader.getSkills().skills.map((skill) => skill.name)).toEqual(["pi-skill"]);
		expect(loader.getPrompts().prompts.map((prompt) => prompt.name)).toEqual(["pi-prompt"]);
		expect(loader.getExtensions().extensions.map((extension) => extension.path)).toEqual([
			join(cwd, ".pi", "extensions", "pi-ext", "ext.ts"),
		]);
		expect(loader.getSystemPrompt()).toBe("You are the pi project's assistant.\n");
		expect(loader.getAgentsFiles().agentsFiles.map((file) => file.path)).toEqual([join(cwd, "AGENTS.md")]);
		expect(loader.settingsManager.getDefaultModel()).toBe("pi-project-model");
	});

	it("ignores .pi/ once the project has a .settle/ folder", async () => {
		const cwd = copyFixture("pi-only");
		mkdirSync(join(cwd, ".settle"));
		const loader = await loaded({ cwd, agentDir: join(tempDir(), "agent"), trustProject: true });
		expect(loader.getSkills().skills).toEqual([]);
		expect(loader.getExtensions().extensions).toEqual([]);
		expect(loader.getSystemPrompt()).toBeUndefined();
	});

	it("regression: says so when .settle/ hides a .pi/ folder's configuration (it went silently)", async () => {
		const cwd = copyFixture("pi-only");
		mkdirSync(join(cwd, ".settle"));
		const loader = await loaded({ cwd, agentDir: join(tempDir(), "agent"), trustProject: true });
		const piDir = join(cwd, ".pi");
		const settleDir = join(cwd, ".settle");
		expect(loader.getAgentsFiles().diagnostics).toEqual([
			{
				type: "warning",
				message: `Ignored ${piDir} (settings.json, extensions, skills, prompts, SYSTEM.md): this project also has ${settleDir}, and Settle reads only one project folder. Move what you need into ${settleDir}, or remove ${settleDir} to use ${piDir}.`,
				path: piDir,
			},
		]);
		// A pi project on its own, or one whose .pi/ holds nothing Settle reads, gets no warning.
		rmSync(settleDir, { recursive: true });
		expect((await loaded({ cwd, agentDir: join(tempDir(), "agent") })).getAgentsFiles().diagnostics).toEqual([]);
		const empty = tempDir();
		mkdirSync(join(empty, ".settle"));
		mkdirSync(join(empty, ".pi", "sessions"), { recursive: true });
		expect((await loaded({ cwd: empty, agentDir: join(tempDir(), "agent") })).getAgentsFiles().diagnostics).toEqual([]);
	});
});

describe("DefaultResourceLoader: settings entries", () => {
	it("loads paths listed in settings (relative to the settings folder) and applies ! exclusions", async () => {
		const root = tempDir();
		const cwd = join(root, "project");
		writeTree(root, {
			"shared/skills/shared-skill/SKILL.md": "---\ndescription: From a shared folder.\n---\nShared.\n",
			"shared/prompts/nested/deep.md": "Deep template $1\n",
			"project/.settle/skills/excluded/SKILL.md": "---\ndescription: Excluded by settings.\n---\nNo.\n",
			"project/.settle/skills/kept/SKILL.md": "---\ndescription: Kept.\n---\nYes.\n",
			"project/.settle/settings.json": JSON.stringify({
				skills: ["../../shared/skills", "!excluded", "../no-such-folder"],
				prompts: ["../../shared/prompts"],
				packages: ["npm:some-pi-package"],
			}),
		});
		const loader = await loaded({ cwd, agentDir: join(root, "agent") });
		expect(loader.getSkills().skills.map((skill) => skill.name)).toEqual(["shared-skill", "kept"]);
		// Folders listed in settings are searched recursively for templates.
		expect(loader.getPrompts().prompts.map((prompt) => prompt.name)).toEqual(["deep"]);
		expect(loader.getDiagnostics()).toContainEqual({
			type: "warning",
			message: `skills path "../no-such-folder" in ${join(cwd, ".settle", "settings.json")} does not exist (resolved to ${join(cwd, "no-such-folder")}). Fix or remove the entry.`,
			path: join(cwd, "no-such-folder"),
		});
		// The project is not trusted here, so its packages are not read (test/resources/packages-loading.test.ts).
		expect(loader.getDiagnostics().map((d) => d.message)).toContainEqual(
			expect.stringMatching(
				/^Ignored "packages" in .*settings\.json: this setting runs code and the project is not trusted\./,
			),
		);
	});

	it("finds .agents/skills folders from cwd up to the git root, and in the home folder", async () => {
		const root = tempDir();
		const home = join(root, "home");
		writeTree(root, {
			"repo/.git/HEAD": "ref: refs/heads/main\n",
			"repo/.agents/skills/repo-skill/SKILL.md": "---\ndescription: At the repo root.\n---\nRepo.\n",
			"repo/.agents/skills/root-file.md": "---\ndescription: Not a skill in .agents mode.\n---\n",
			"repo/pkg/.agents/skills/pkg-skill/SKILL.md": "---\ndescription: In the package.\n---\nPkg.\n",
			".agents/skills/above-git-root/SKILL.md": "---\ndescription: Above the git root: not used.\n---\n",
			"home/.agents/skills/home-skill/SKILL.md": "---\ndescription: In the home folder.\n---\nHome.\n",
		});
		const loader = new DefaultResourceLoader({
			cwd: join(root, "repo", "pkg"),
			agentDir: join(root, "agent"),
			homeDir: home,
		});
		await loader.reload();
		expect(loader.getSkills().skills.map((skill) => [skill.name, skill.sourceInfo.scope])).toEqual([
			["pkg-skill", "project"],
			["repo-skill", "project"],
			["home-skill", "user"],
		]);
	});
});

describe("DefaultResourceLoader: reload, snapshots, extendResources", () => {
	it("reload re-reads everything and leaves previously returned snapshots untouched", async () => {
		const cwd = copyFixture("basic");
		const agentDir = join(tempDir(), "agent");
		const loader = await loaded({ cwd, agentDir });
		const before = loader.getSkills().skills;
		writeTree(cwd, {
			".settle/skills/new-skill/SKILL.md": "---\ndescription: Added later.\n---\nNew.\n",
			"AGENTS.md": "changed\n",
			".settle/settings.json": '{ "defaultModel": "after-reload" }',
		});
		rmSync(join(cwd, ".settle", "prompts", "commit.md"));
		expect(loader.getSkills().skills.map((skill) => skill.name)).not.toContain("new-skill");
		await loader.reload();
		expect(loader.getSkills().skills.map((skill) => skill.name)).toContain("new-skill");
		expect(loader.getPrompts().prompts.map((prompt) => prompt.name)).toEqual(["review"]);
		expect(loader.getAgentsFiles().agentsFiles.at(-1)!.content).toBe("changed\n");
		expect(loader.settingsManager.getDefaultModel()).toBe("after-reload");
		expect(before.map((skill) => skill.name)).toEqual(["code-review", "internal-tool", "deploy"]);
	});

	it("concurrent reloads run one after the other; the last one's files win", async () => {
		const cwd = copyFixture("basic");
		const loader = new DefaultResourceLoader({ cwd, agentDir: join(tempDir(), "agent") });
		const events: string[] = [];
		let releaseFirst!: () => void;
		const firstHeld = new Promise<void>((resolve) => {
			releaseFirst = resolve;
		});
		const original = loader.settingsManager.reload.bind(loader.settingsManager);
		let calls = 0;
		loader.settingsManager.reload = async () => {
			const call = ++calls;
			events.push(`start ${call}`);
			if (call === 1) await firstHeld;
			await original();
			events.push(`end ${call}`);
		};
		const first = loader.reload();
		const second = loader.reload();
		await Promise.resolve();
		writeTree(cwd, { ".settle/skills/late/SKILL.md": "---\ndescription: Late.\n---\n" });
		releaseFirst();
		await Promise.all([first, second]);
		expect(events).toEqual(["start 1", "end 1", "start 2", "end 2"]);
		expect(loader.getSkills().skills.map((skill) => skill.name)).toContain("late");
	});

	it("extendResources adds skills and templates after the existing ones", async () => {
		const cwd = copyFixture("basic");
		const extra = tempDir();
		writeTree(extra, {
			"skills/extra-skill/SKILL.md": "---\ndescription: From an extension.\n---\nExtra.\n",
			"skills/code-review/SKILL.md": "---\ndescription: Loses to the project's.\n---\n",
			"prompts/extra.md": "Extra $1\n",
		});
		const loader = await loaded({ cwd, agentDir: join(tempDir(), "agent") });
		const before = loader.getSkills().skills;
		loader.extendResources({
			skillPaths: [{ path: join(extra, "skills"), metadata: { source: "my-extension" } }],
			promptPaths: [join(extra, "prompts", "extra.md")],
			themePaths: ["ignored.json"],
		});
		const { skills, diagnostics } = loader.getSkills();
		expect(skills.map((skill) => skill.name)).toEqual(["code-review", "internal-tool", "deploy", "extra-skill"]);
		expect(skills.at(-1)!.sourceInfo).toMatchObject({ source: "my-extension", scope: "temporary" });
		expect(diagnostics.map((d) => d.message)).toEqual(['name "code-review" collision']);
		expect(loader.getPrompts().prompts.map((prompt) => prompt.name)).toEqual(["commit", "review", "extra"]);
		expect(before).toHaveLength(3);
	});

	it("extendResources keeps what discovery said of the skill and template paths: a --skill / --prompt-template path that does not exist is still reported after an extension adds its own", async () => {
		const cwd = copyFixture("basic");
		const extra = tempDir();
		writeTree(extra, {
			"skills/extra-skill/SKILL.md": "---\ndescription: From an extension.\n---\nExtra.\n",
			"prompts/extra.md": "Extra $1\n",
		});
		const loader = await loaded({
			cwd,
			agentDir: join(tempDir(), "agent"),
			additionalSkillPaths: ["no-such-skills"],
			additionalPromptTemplatePaths: ["no-such-prompts"],
		});
		const reported = () => [
			...loader.getSkills().diagnostics.map((d) => d.message),
			...loader.getPrompts().diagnostics.map((d) => d.message),
		];
		expect(reported()).toEqual(["Skill path does not exist", "Prompt template path does not exist"]);
		loader.extendResources({ skillPaths: [join(extra, "skills")], promptPaths: [join(extra, "prompts")] });
		expect(loader.getSkills().skills.map((skill) => skill.name)).toContain("extra-skill");
		expect(reported()).toEqual(["Skill path does not exist", "Prompt template path does not exist"]);
	});
});

describe("DefaultResourceLoader: diagnostics and settings", () => {
	it("gathers every problem in getDiagnostics, including settings files", async () => {
		const cwd = copyFixture("invalid-settings");
		writeTree(cwd, { ".settle/skills/no-desc/SKILL.md": "---\nname: no-desc\n---\n" });
		const loader = await loaded({ cwd, agentDir: join(tempDir(), "agent") });
		const messages = loader.getDiagnostics().map((d) => d.message);
		expect(messages.filter((m) => m.startsWith("Invalid setting"))).toHaveLength(3);
		expect(messages).toContain("description is required");
	});

	it("reloads the settings manager it was given", async () => {
		const root = tempDir();
		const cwd = join(root, "project");
		mkdirSync(cwd);
		const settings = SettingsManager.create(cwd, join(root, "agent"));
		const loader = new DefaultResourceLoader({ cwd, agentDir: join(root, "agent"), settingsManager: settings });
		writeTree(root, { "agent/settings.json": '{ "steeringMode": "all" }' });
		expect(settings.getSteeringMode()).toBe("one-at-a-time");
		await loader.reload();
		expect(settings.getSteeringMode()).toBe("all");
	});
});

describe("createTestResourceLoader", () => {
	it("serves in-memory resources and inline extensions", async () => {
		const factory = () => {};
		const loader = createTestResourceLoader({
			extensionFactories: [factory],
			agentsFiles: [{ path: "/virtual/AGENTS.md", content: "rules" }],
			systemPrompt: "Base.",
		});
		await loader.reload();
		expect(loader.reloadCount).toBe(1);
		expect(loader.getExtensions().extensions).toEqual([
			{ path: "<inline:1>", resolvedPath: "<inline:1>", source: "inline", factory },
		]);
		expect(loader.getSkills()).toEqual({ skills: [], diagnostics: [] });
		expect(loader.getAgentsFiles().agentsFiles).toHaveLength(1);
		expect(loader.getSystemPrompt()).toBe("Base.");
		loader.set({ systemPrompt: undefined, appendSystemPrompt: ["More."] });
		expect(loader.getSystemPrompt()).toBeUndefined();
		expect(loader.getAppendSystemPrompt()).toEqual(["More."]);
	});

	it("extendResources reads real skill and template files", () => {
		const dir = copyFixture("basic");
		const loader = createTestResourceLoader();
		loader.extendResources({
			skillPaths: [join(dir, ".settle", "skills")],
			promptPaths: [join(dir, ".settle", "prompts")],
		});
		expect(loader.getSkills().skills.map((skill) => skill.name)).toEqual(["code-review", "internal-tool", "deploy"]);
		expect(loader.getPrompts().prompts.map((prompt) => prompt.name)).toEqual(["commit", "review"]);
	});
});
