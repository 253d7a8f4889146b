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
 *
 * pi#2472: with HOME a symlink (`/home/me -> /mnt/disk/home/me`), a session started in a project
 * under home has its cwd by the real path (the kernel's), so the walk up for `.agents/skills` met
 * `/mnt/disk/home/me/.agents/skills`, which the check "is this the user's ~/.agents/skills?"
 * compared by spelling, not by folder: the user's skills counted as the project's, won over the
 * agent folder's, and pi printed skill conflicts that did not appear with HOME spelled as the real
 * path. What the user should see: the same skill whichever way HOME is spelled.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
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

describe("pi#2472: HOME is a symlink and the project is under it", () => {
	it("pi#2472: settle -p in ~/work with HOME a symlink to the real home: /skill:demo expands the agent folder's skill, as with HOME spelled as the real path; the ~/.agents/skills one is the user's, warned about as the loser", () => {
		const realHome = join(cli.dir, "disk", "home", "me");
		const linkHome = join(cli.dir, "home-me");
		mkdirSync(realHome, { recursive: true });
		symlinkSync(realHome, linkHome);
		const work = join(realHome, "work");
		mkdirSync(work);
		const agentSkill = join(cli.agentDir, "skills", "demo", "SKILL.md");
		write(agentSkill, "---\nname: demo\ndescription: From the agent folder\n---\nAGENT-FOLDER copy.\n");
		write(
			join(realHome, ".agents", "skills", "demo", "SKILL.md"),
			"---\nname: demo\ndescription: From ~/.agents\n---\nHOME-AGENTS copy.\n",
		);

		const runs = [realHome, linkHome].map((home) =>
			runSettle(["--faux", "-p", "/skill:demo go"], { cwd: work, agentDir: cli.agentDir, env: { HOME: home } }),
		);

		for (const [index, run] of runs.entries()) {
			const home = index === 0 ? realHome : linkHome;
			expect(run.code).toBe(0);
			expect(run.stdout).toContain(`<skill name="demo" location="${agentSkill}">`);
			expect(run.stdout).toContain("AGENT-FOLDER copy.");
			expect(run.stdout).not.toContain("HOME-AGENTS copy.");
			// The loser named by the home's own spelling: the user's ~/.agents/skills, not a project folder.
			expect(run.stderr).toContain(join(home, ".agents", "skills", "demo", "SKILL.md"));
		}
	});
});
