/**
 * Skill discovery reports, replayed against a real `settle` process on the faux model (which echoes
 * the expanded `/skill:` prompt).
 *
 * pi#7805 (pi#5613, surf-cli#177, context-mode#447): a skills folder named in `settings.skills` (the
 * docs' way to share `~/.claude/skills`), or the agent's own skills folder, often is a repository
 * with a `README.md`, `AGENTS.md` or `CLAUDE.md` beside the skill folders. pi 0.73.1 reads every
 * `.md` directly in such a folder as a skill, so each start printed "description is required" for
 * the documentation. What the user should see: the skills, and no warning for files without front
 * matter; a root `.md` with front matter is still a skill, and still warned about when broken.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-skills-discovery-");

function write(path: string, text: string): void {
	mkdirSync(join(path, ".."), { recursive: true });
	writeFileSync(path, text);
}

describe("pi#7805: documentation beside the skills is not a skill", () => {
	it("pi#7805: settings.skills names a skills repository with README.md, AGENTS.md and CLAUDE.md at its root, the agent's skills folder has a README.md: settle -p warns about none, /skill:my-skill expands", () => {
		const repo = join(cli.dir, "skills-repo");
		write(join(repo, "README.md"), "# My skills\n\nClone this next to your dotfiles.\n");
		write(join(repo, "AGENTS.md"), "Keep every skill under 200 lines.\n");
		write(join(repo, "CLAUDE.md"), "See AGENTS.md\n");
		write(
			join(repo, "my-skill", "SKILL.md"),
			"---\nname: my-skill\ndescription: Says the word\n---\nThe word is XYZZY.\n",
		);
		write(join(cli.agentDir, "skills", "README.md"), "Skills installed by hand.\n");
		write(join(cli.agentDir, "settings.json"), JSON.stringify({ skills: [repo] }));

		const run = runSettle(["--faux", "-p", "/skill:my-skill say it"], { cwd: cli.project, agentDir: cli.agentDir });

		expect(run.code).toBe(0);
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain(`<skill name="my-skill" location="${join(repo, "my-skill", "SKILL.md")}">`);
		expect(run.stdout).toContain("The word is XYZZY.");
	});

	it("pi#7805: a root .md with front matter is still read as a skill: one without a description is warned about, by name", () => {
		const skills = join(cli.agentDir, "skills");
		write(join(skills, "README.md"), "# Notes\n");
		write(join(skills, "draft.md"), "---\nname: skills\n---\nNot finished.\n");

		const run = runSettle(["--faux", "-p", "hello"], { cwd: cli.project, agentDir: cli.agentDir });

		expect(run.code).toBe(0);
		expect(run.stderr).toContain(`description is required (${join(skills, "draft.md")})`);
		expect(run.stderr).not.toContain("README.md");
	});
});
