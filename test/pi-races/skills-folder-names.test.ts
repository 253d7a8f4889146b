/**
 * A skill whose front matter names it otherwise than its folder (`react-best-practices/SKILL.md`
 * holding `name: vercel-react-best-practices`, as four of vercel-labs/agent-skills' skills were
 * published). Replayed with real `settle -p` processes on the faux model, which echoes the prompt.
 *
 * agent-skills#330: a runtime keyed the skill by its front matter name, the installer by its folder,
 * so the skill was listed under one name, looked up under the other, and reachable under neither.
 * agent-skills#112: Cline left such skills out; pi only warns "name … does not match parent
 * directory …". In Settle (and pi 0.73.1) `/skill:react-best-practices go`, the name the user
 * installed it under, went to the model as typed. What the user should see: the folder's name
 * reaches the skill (its block named as its front matter says) when no skill has that name and only
 * one skill lives in such a folder; a skill that has the name still wins.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-skill-folders-");

function writeSkill(folder: string, name: string, body: string): string {
	const dir = join(cli.agentDir, "skills", folder);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: Skill ${name}\n---\n${body}\n`);
	return join(dir, "SKILL.md");
}

describe("agent-skills#330: a skill named otherwise than its folder", () => {
	it("agent-skills#330, agent-skills#112: `/skill:react-best-practices go` expands the skill its folder holds, named `vercel-react-best-practices`; its own name still works", () => {
		const file = writeSkill("react-best-practices", "vercel-react-best-practices", "RULES BODY");
		const byFolder = cli.settle(["--faux", "--no-session", "-p", "/skill:react-best-practices go"]);
		expect(byFolder.code, byFolder.stderr).toBe(0);
		expect(byFolder.stdout).toContain(`<skill name="vercel-react-best-practices" location="${file}">`);
		expect(byFolder.stdout).toContain("RULES BODY\n</skill>\n\ngo\n");
		expect(byFolder.stderr).toContain('name "vercel-react-best-practices" does not match parent directory');

		const byName = cli.settle(["--faux", "--no-session", "-p", "/skill:vercel-react-best-practices go"]);
		expect(byName.stdout).toContain(`<skill name="vercel-react-best-practices" location="${file}">`);
	});

	it("agent-skills#330: a skill that has the folder's name wins over the folder's own skill", () => {
		writeSkill("deploy", "ship", "SHIP BODY");
		const named = writeSkill("release", "deploy", "DEPLOY BODY");
		const run = cli.settle(["--faux", "--no-session", "-p", "/skill:deploy now"]);
		expect(run.stdout).toContain(`<skill name="deploy" location="${named}">`);
		expect(run.stdout).toContain("DEPLOY BODY");
	});

	it("agent-skills#330: in `settle -i`, `/skill:react-best-practices go` is no unknown command: the model gets the skill", async () => {
		writeSkill("react-best-practices", "vercel-react-best-practices", "RULES BODY");
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const answer = await chat.say("/skill:react-best-practices go");
		expect(answer).not.toContain("unknown command");
		expect(answer).toContain("RULES BODY");
		expect(await chat.end()).toBe(0);
	});
});
