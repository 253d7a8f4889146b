/**
 * `sourceInfo.baseDir` of skills and prompt templates, pi 0.73.1's rule case by case. Each case
 * states the expected folder and, for the `.pi/` layout, checks pi's own loader says the same;
 * the `.settle/` layout gets the same rule with Settle's folder. (`skill.baseDir`, the folder the
 * `<skill>` block's "References are relative to …" names, stays the skill's folder throughout.)
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
	DefaultResourceLoader as PiResourceLoader,
	SettingsManager as PiSettingsManager,
} from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import type { PromptTemplate, Skill } from "../../src/resources/types.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { tempDir, writeTree } from "../settings/helpers.js";
import { keepHome } from "./keep-home.js";

const skill = (name: string) => `---\nname: ${name}\ndescription: Does ${name}.\n---\nbody`;

/** The tree, with the project folder named `configDir` (`.pi` or `.settle`). */
function project(configDir: string) {
	const base = tempDir("settle-basedir-");
	const agentDir = join(base, "agent");
	const home = join(base, "home");
	const cwd = join(base, "repo", "app");
	writeTree(base, {
		"repo/.git/HEAD": "ref: refs/heads/main\n",
		"agent/skills/agent-skill/SKILL.md": skill("agent-skill"),
		"agent/prompts/agent-prompt.md": "agent",
		"agent/prompts/deeper/agent-deep.md": "agent, below the folder discovery reads",
		"home/.agents/skills/home-skill/SKILL.md": skill("home-skill"),
		[`repo/app/${configDir}/skills/project-skill/SKILL.md`]: skill("project-skill"),
		[`repo/app/${configDir}/prompts/project-prompt.md`]: "project",
		[`repo/app/${configDir}/settings.json`]: JSON.stringify({ skills: ["../../shared"], prompts: ["../../shared"] }),
		"repo/.agents/skills/agents-skill/SKILL.md": skill("agents-skill"),
		"repo/shared/listed-skill/SKILL.md": skill("listed-skill"),
		"repo/shared/listed-prompt.md": "listed",
		"cli/cli-skill/SKILL.md": skill("cli-skill"),
		"cli/cli-root-skill.md": skill("cli-root-skill"),
		"cli/prompts/cli-prompt.md": "cli",
	});
	mkdirSync(home, { recursive: true });
	const options = {
		cwd,
		agentDir,
		additionalSkillPaths: [join(base, "cli")],
		additionalPromptTemplatePaths: [join(base, "cli", "prompts"), join(agentDir, "prompts", "deeper", "agent-deep.md")],
	};
	return { base, agentDir, home, cwd, options };
}

function baseDirs(items: readonly (Skill | PromptTemplate)[]): Record<string, string | undefined> {
	return Object.fromEntries(items.map((item) => [item.name, item.sourceInfo.baseDir]));
}

describe("sourceInfo.baseDir (pi 0.73.1's rule)", () => {
	keepHome();

	for (const configDir of [".pi", ".settle"]) {
		it(`names the configuration folder for discovered resources, none for settings entries, the file's folder for explicit paths (${configDir}/)`, async () => {
			const { base, agentDir, home, cwd, options } = project(configDir);
			const settle = new DefaultResourceLoader({
				...options,
				homeDir: home,
				settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted: true }),
				trustProject: true,
			});
			await settle.reload();
			const projectDir = join(cwd, configDir);
			const expectedSkills = {
				// settings entry: no baseDir
				"listed-skill": undefined,
				// project root: the project's own folder, and `.agents/skills` up to the git root
				"project-skill": projectDir,
				"agents-skill": projectDir,
				// agent root: the agent folder, and `~/.agents/skills`
				"agent-skill": agentDir,
				"home-skill": agentDir,
				// explicit path: the skill's own folder
				"cli-skill": join(base, "cli", "cli-skill"),
				"cli-root-skill": join(base, "cli"),
			};
			const expectedPrompts = {
				"listed-prompt": undefined,
				"project-prompt": projectDir,
				"agent-prompt": agentDir,
				// explicit path: the template's folder, or the agent's `prompts/` when inside it
				"cli-prompt": join(base, "cli", "prompts"),
				"agent-deep": join(agentDir, "prompts"),
			};
			expect(baseDirs(settle.getSkills().skills)).toEqual(expectedSkills);
			expect(baseDirs(settle.getPrompts().prompts)).toEqual(expectedPrompts);
			// `skill.baseDir` (what the <skill> block points references at) is the skill's folder, always.
			for (const s of settle.getSkills().skills) expect(s.baseDir).toBe(join(s.filePath, ".."));

			if (configDir === ".pi") {
				process.env.HOME = home;
				const pi = new PiResourceLoader({ ...options, settingsManager: PiSettingsManager.create(cwd, agentDir) });
				await pi.reload();
				expect(baseDirs(pi.getSkills().skills as Skill[])).toEqual(expectedSkills);
				expect(baseDirs(pi.getPrompts().prompts as PromptTemplate[])).toEqual(expectedPrompts);
				expect(settle.getSkills().skills.map((s) => s.sourceInfo)).toEqual(
					pi.getSkills().skills.map((s) => s.sourceInfo),
				);
				expect(settle.getPrompts().prompts.map((p) => p.sourceInfo)).toEqual(
					pi.getPrompts().prompts.map((p) => p.sourceInfo),
				);
			}
		});
	}

	it("an explicit path to a discovered file keeps the discovered baseDir, even with discovery off (as pi)", async () => {
		const { agentDir, home, cwd } = project(".settle");
		const settle = new DefaultResourceLoader({
			cwd,
			agentDir,
			homeDir: home,
			noSkills: true,
			noPromptTemplates: true,
			additionalSkillPaths: [join(agentDir, "skills", "agent-skill")],
			additionalPromptTemplatePaths: [join(agentDir, "prompts", "agent-prompt.md")],
		});
		await settle.reload();
		expect(settle.getSkills().skills.map((s) => [s.name, s.sourceInfo.source, s.sourceInfo.baseDir])).toEqual([
			["agent-skill", "auto", agentDir],
		]);
		expect(settle.getPrompts().prompts.map((p) => [p.name, p.sourceInfo.source, p.sourceInfo.baseDir])).toEqual([
			["agent-prompt", "auto", agentDir],
		]);
	});

	it("a path an extension adds has the baseDir the extension gave, or none", async () => {
		const { base, agentDir, home, cwd } = project(".settle");
		const settle = new DefaultResourceLoader({ cwd, agentDir, homeDir: home, noSkills: true });
		await settle.reload();
		settle.extendResources({
			skillPaths: [
				{ path: join(base, "cli", "cli-skill"), metadata: { source: "ext", baseDir: "/given" } },
				join(base, "cli", "cli-root-skill.md"),
			],
		});
		expect(baseDirs(settle.getSkills().skills)).toEqual({ "cli-skill": "/given", "cli-root-skill": undefined });
	});
});
