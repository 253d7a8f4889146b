/**
 * A skills folder with a symlink back into itself. AgentTeams#262: an OpenClaw worker's start-up
 * script ran `ln -sf ~/skills ~/.agents/skills` on every restart; the second run put
 * `~/skills/skills -> ~/skills` inside the folder, and the skills scan failed on ELOOP. With two
 * such links (opencode#42216's cyclic links, another agent's scan) a walk that follows every link
 * doubles at each level until the path is 40 links deep: start-up never ends, no output, no error.
 * Settle's scan (pi's rules: links followed) had it: `settle -p` never answered. What the user
 * should see: the answer, with each skill loaded once from the path first found. Replayed against a
 * real `settle` process on the faux model, which echoes the expanded `/skill:` prompt.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-skills-");

/** A guard against the hang only (the run takes about a second); a hung run is killed, its code null. */
const HANG_GUARD_MS = 30_000;

describe("AgentTeams#262: a skills folder with symlinks back into itself", () => {
	it("AgentTeams#262, opencode#42216: skills/skills -> skills and skills/tools/back -> skills: settle -p answers, /skill:demo expands the one skill", () => {
		const skills = join(cli.agentDir, "skills");
		mkdirSync(join(skills, "tools", "demo"), { recursive: true });
		writeFileSync(
			join(skills, "tools", "demo", "SKILL.md"),
			"---\nname: demo\ndescription: Says the magic word\n---\nThe magic word is PLUGH.\n",
		);
		symlinkSync(skills, join(skills, "skills"));
		symlinkSync(skills, join(skills, "tools", "back"));

		const run = runSettle(["--faux", "-p", "/skill:demo say it"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(run.code).toBe(0);
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain(`<skill name="demo" location="${join(skills, "tools", "demo", "SKILL.md")}">`);
		expect(run.stdout).toContain("The magic word is PLUGH.");
		expect(run.stdout.split("<skill ").length - 1).toBe(1);
	});
});
