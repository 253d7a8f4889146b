/**
 * Regressions found by the randomized resource differential against pi 0.73.1
 * (pi-differential.property.test.ts), each checked against pi on the same tree.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
	DefaultResourceLoader as PiResourceLoader,
	SettingsManager as PiSettingsManager,
} from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import {
	buildSystemPrompt,
	DEFAULT_SYSTEM_PREAMBLE,
	systemPromptOptionsFromResources,
} from "../../src/session/system-prompt.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { atTime, LAST_MINUTE_OF_DAY, tempDir } from "../settings/helpers.js";

// pi does not export buildSystemPrompt from its package entry; load its module file directly.
const piSystemPrompt = (await import(
	pathToFileURL(resolve("node_modules/@mariozechner/pi-coding-agent/dist/core/system-prompt.js")).href
)) as { buildSystemPrompt(options: object): string };

const savedHome = process.env.HOME;
afterEach(() => {
	process.env.HOME = savedHome;
});

function write(root: string, files: Record<string, string>): void {
	for (const [path, content] of Object.entries(files)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), content);
	}
}

async function skillNames(root: string): Promise<{ pi: string[]; settle: string[] }> {
	const cwd = join(root, "w", "a");
	const agentDir = join(root, "agent");
	const home = join(root, "home");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(home, { recursive: true });
	process.env.HOME = home; // pi reads ~/.agents/skills through $HOME
	const pi = new PiResourceLoader({ cwd, agentDir, settingsManager: PiSettingsManager.create(cwd, agentDir) });
	await pi.reload();
	const settle = new DefaultResourceLoader({
		cwd,
		agentDir,
		homeDir: home,
		settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted: true }),
	});
	await settle.reload();
	return { pi: pi.getSkills().skills.map((s) => s.name), settle: settle.getSkills().skills.map((s) => s.name) };
}

const skill = (name: string) => `---\nname: ${name}\ndescription: Does things.\n---\nbody\n`;

describe("settings filter with a trailing /** (minimatch semantics, as pi)", () => {
	it("`!**/beta/**` does not drop a .agents skill through its bare folder name", async () => {
		const root = tempDir("settle-regression-");
		write(root, {
			"w/.git/HEAD": "ref: refs/heads/main\n",
			"w/a/.pi/settings.json": JSON.stringify({ skills: ["!**/beta/**"] }),
			"w/a/.agents/skills/beta/SKILL.md": skill("beta"),
			"w/a/.pi/skills/gamma/SKILL.md": skill("gamma"),
		});
		const { pi, settle } = await skillNames(root);
		expect(pi).toEqual(["gamma", "beta"]);
		expect(settle).toEqual(pi);
	});

	it("still excludes what the same pattern matches below the settings folder", async () => {
		const root = tempDir("settle-regression-");
		write(root, {
			"w/.git/HEAD": "ref: refs/heads/main\n",
			"w/a/.pi/settings.json": JSON.stringify({ skills: ["!**/beta/**", "!skills/gamma/**"] }),
			"w/a/.pi/skills/beta/SKILL.md": skill("beta"),
			"w/a/.pi/skills/gamma/SKILL.md": skill("gamma"),
			"w/a/.pi/skills/delta/SKILL.md": skill("delta"),
		});
		const { pi, settle } = await skillNames(root);
		expect(pi).toEqual(["delta"]);
		expect(settle).toEqual(pi);
	});
});

describe("pi 0.73.1 bug, kept out of Settle: source info is keyed by path across resource kinds", () => {
	it("a template found through a `prompts` entry is `local`, even when the same file is also an auto-discovered skill", async () => {
		const root = tempDir("settle-regression-");
		write(root, {
			"w/.git/HEAD": "ref: refs/heads/main\n",
			"agent/settings.json": JSON.stringify({ prompts: ["~/.agents/skills"] }),
			"home/.agents/skills/alpha/SKILL.md": skill("alpha"),
		});
		const cwd = join(root, "w", "a");
		const agentDir = join(root, "agent");
		const home = join(root, "home");
		mkdirSync(cwd, { recursive: true });
		process.env.HOME = home;
		const pi = new PiResourceLoader({ cwd, agentDir, settingsManager: PiSettingsManager.create(cwd, agentDir) });
		await pi.reload();
		const settle = new DefaultResourceLoader({ cwd, agentDir, homeDir: home });
		await settle.reload();
		const source = (prompts: { name: string; sourceInfo: { source: string } }[]) =>
			prompts.map((prompt) => [prompt.name, prompt.sourceInfo.source]);
		expect(source(pi.getPrompts().prompts)).toEqual([["SKILL", "auto"]]);
		expect(source(settle.getPrompts().prompts)).toEqual([["SKILL", "local"]]);
	});
});

describe("a project filter that disables a file holds when the global settings list the file again (first registration decides, as pi)", () => {
	it("`!alpha` in the project keeps alpha out although the global settings list the same folder", async () => {
		const root = tempDir("settle-regression-");
		write(root, {
			"w/.git/HEAD": "ref: refs/heads/main\n",
			"agent/settings.json": JSON.stringify({ skills: ["../w/extra"] }),
			"w/a/.pi/settings.json": JSON.stringify({ skills: ["!alpha", "../../extra"] }),
			"w/extra/alpha/SKILL.md": skill("alpha"),
			"w/extra/beta/SKILL.md": skill("beta"),
		});
		const { pi, settle } = await skillNames(root);
		expect(pi).toEqual(["beta"]);
		expect(settle).toEqual(pi);
	});
});

describe("named difference: a SYSTEM.md holding only blanks", () => {
	it("is pi's whole base prompt (no tools, no guidelines); Settle treats it as absent", async () => {
		const root = tempDir("settle-regression-");
		write(root, { "w/.git/HEAD": "ref: refs/heads/main\n", "w/a/.pi/SYSTEM.md": " \n\n" });
		const cwd = join(root, "w", "a");
		const agentDir = join(root, "agent");
		mkdirSync(agentDir, { recursive: true });
		process.env.HOME = join(root, "home");
		const pi = new PiResourceLoader({ cwd, agentDir, settingsManager: PiSettingsManager.create(cwd, agentDir) });
		await pi.reload();
		const settle = new DefaultResourceLoader({ cwd, agentDir, homeDir: join(root, "home") });
		await settle.reload();
		// Both loaders hand the file's text on unchanged.
		expect(pi.getSystemPrompt()).toBe(" \n\n");
		expect(settle.getSystemPrompt()).toBe(" \n\n");
		// Both read the clock, stopped here: the same day on both sides of midnight.
		const [piPrompt, ours] = atTime(LAST_MINUTE_OF_DAY, () => [
			piSystemPrompt.buildSystemPrompt({
				cwd,
				customPrompt: pi.getSystemPrompt(),
				selectedTools: ["read"],
				toolSnippets: { read: "Read files" },
			}),
			buildSystemPrompt(
				systemPromptOptionsFromResources({
					cwd,
					resources: settle,
					tools: [{ name: "read", promptSnippet: "Read files" }],
				}),
			),
		]);
		expect(piPrompt.startsWith(" \n\n\nCurrent date: 2025-01-31\n")).toBe(true);
		expect(piPrompt).not.toContain("- read: Read files");
		expect(ours).toContain("Current date: 2025-01-31");
		expect(ours.startsWith(DEFAULT_SYSTEM_PREAMBLE)).toBe(true);
		expect(ours).toContain("- read: Read files");
	});
});
