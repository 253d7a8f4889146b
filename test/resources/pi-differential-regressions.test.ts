/**
 * Regressions found by the randomized resource differential against pi 0.73.1
 * (pi-differential.property.test.ts), each checked against pi on the same tree.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
	DefaultResourceLoader as PiResourceLoader,
	SettingsManager as PiSettingsManager,
} from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { tempDir } from "../settings/helpers.js";

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
