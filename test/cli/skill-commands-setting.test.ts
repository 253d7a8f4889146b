/**
 * Settings that take skills out of `settle -i`'s slash commands, replayed with real `settle`
 * processes on the faux model (it echoes the prompt it got).
 *
 * `enableSkillCommands: false` was read by nothing in Settle. In pi (interactive-mode.js) it leaves
 * the `/skill:<name>` entries out of the chat's command completion; a typed `/skill:<name>` still
 * runs, as the session expands it whatever the setting (also with `-p`). Settle has no completion:
 * its list is `/help`'s, which now leaves them out and says why.
 *
 * A skill a `skills` filter in settings switched off (`!beta`): `/skill:beta` in the chat said
 * "unknown command", as for a name no skill has. Now it names the file and the filter.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-skill-commands-setting-");

function writeSkill(name: string, body: string): string {
	const dir = join(cli.agentDir, "skills", name);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: Skill ${name}\n---\n${body}\n`);
	return join(dir, "SKILL.md");
}

function writeSettings(settings: Record<string, unknown>): string {
	const file = join(cli.agentDir, "settings.json");
	writeFileSync(file, JSON.stringify(settings));
	return file;
}

function chat(): Repl {
	return new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("enableSkillCommands: false", () => {
	it("settle -i: /help leaves the skill commands out and says which setting did; a typed /skill:<name> still runs the skill, as in pi", async () => {
		writeSkill("lint", "LINT BODY");
		writeSettings({ enableSkillCommands: false });
		const repl = chat();
		await repl.idle(0);
		const help = await repl.say("/help");
		expect(help).not.toContain("/skill:lint");
		expect(help).toContain(
			"Skill commands are not listed: enableSkillCommands is false in settings. /skill:<name> still runs a loaded skill.\n",
		);
		const ran = await repl.say("/skill:lint a.ts", "\n>");
		expect(ran).toContain("LINT BODY\n</skill>\n\na.ts\n");
		expect(await repl.end()).toBe(0);
	});

	it("settle -i: with the setting unset, /help lists the skill commands and no such line", async () => {
		writeSkill("lint", "LINT BODY");
		const repl = chat();
		await repl.idle(0);
		const help = await repl.say("/help");
		expect(help).toContain("/skill:lint");
		expect(help).not.toContain("enableSkillCommands");
		expect(await repl.end()).toBe(0);
	});

	it("settle -p: /skill:<name> is expanded whatever the setting, as pi's session does", () => {
		const lint = writeSkill("lint", "LINT BODY");
		writeSettings({ enableSkillCommands: false });
		const run = cli.settle(["--faux", "--no-session", "-p", "/skill:lint a.ts"]);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toBe(
			`<skill name="lint" location="${lint}">\nReferences are relative to ${join(lint, "..")}.\n\nLINT BODY\n</skill>\n\na.ts\n`,
		);
	});
});

describe("a skill a skills filter in settings switched off", () => {
	it("settle -i: /skill:<name> of a filtered-out skill names its file and the filter, not 'unknown command'; a name no skill has is still unknown", async () => {
		writeSkill("alpha", "ALPHA BODY");
		const beta = writeSkill("beta", "BETA BODY");
		const settings = writeSettings({ skills: ["!beta"] });
		const repl = chat();
		await repl.idle(0);
		expect(await repl.say("/skill:beta a.ts")).toContain(
			`Error: /skill:beta is not loaded: its skill ${beta} is switched off by the "skills" filter in ${settings}. Change that filter to load it, then /reload.\n`,
		);
		expect(await repl.say("/skill:gamma")).toContain(
			"Error: unknown command /skill:gamma. Type /help for the commands.\n",
		);
		expect(await repl.say("/skill:alpha", "\n>")).toContain("ALPHA BODY\n</skill>\n");
		expect(await repl.end()).toBe(0);
	});
});
