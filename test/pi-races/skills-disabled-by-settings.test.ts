/**
 * claude-code#66496: a skill turned off in the settings (`skillOverrides: "off"`) left the model's
 * list, but typing its command still ran it. Settle's way to turn a skill off is a `skills` filter
 * in settings.json (`"!hello-user"`). What that user should see: the skill in neither the system
 * prompt nor the commands, and `/skill:hello-user` running nothing: `settle -i` refuses it without
 * a model call, `settle -p` sends no skill body. Replayed against real `settle` processes on the
 * faux model, which echoes the prompt it got.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-skills-disabled-");

function writeDisabledSkill(): void {
	const folder = join(cli.agentDir, "skills", "hello-user");
	mkdirSync(folder, { recursive: true });
	writeFileSync(
		join(folder, "SKILL.md"),
		"---\nname: hello-user\ndescription: Greets the user\n---\nHELLO-USER-BODY\n",
	);
	writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ skills: ["!hello-user"] }));
}

describe("claude-code#66496: a skill turned off in the settings", () => {
	it('claude-code#66496: skills: ["!hello-user"]: settle -i and settle -p refuse /skill:hello-user without a model call, naming the filter', async () => {
		writeDisabledSkill();
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const said = await chat.say("/skill:hello-user hi");
		expect(said.split("\n").slice(0, -1)).toEqual([
			"/skill:hello-user hi",
			`Error: /skill:hello-user is not loaded: its skill ${join(cli.agentDir, "skills", "hello-user", "SKILL.md")} is switched off by the "skills" filter in ${join(cli.agentDir, "settings.json")}. Change that filter to load it, then /reload.`,
		]);
		chat.send("/quit");
		expect(await chat.exited).toBe(0);

		const run = cli.settle(["--faux", "--no-session", "-p", "/skill:hello-user hi"]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(
			`/skill:hello-user is not loaded: its skill ${join(cli.agentDir, "skills", "hello-user", "SKILL.md")} is switched off by the "skills" filter in ${join(cli.agentDir, "settings.json")}. Change that filter to load it. Nothing was sent to the model.`,
		);
	});
});
