/**
 * A skills folder with a symlink back into itself. AgentTeams#262: an OpenClaw worker's start-up
 * script ran `ln -sf ~/skills ~/.agents/skills` on every restart; the second run put
 * `~/skills/skills -> ~/skills` inside the folder, and the skills scan failed on ELOOP. With two
 * such links (opencode#42216's cyclic links, another agent's scan) a walk that follows every link
 * doubles at each level until the path is 40 links deep: start-up never ends, no output, no error.
 * Settle's scan (pi's rules: links followed) had it: `settle -p` never answered. What the user
 * should see: the answer, with each skill loaded once from the path first found. Replayed against a
 * real `settle` process on the faux model, which echoes the expanded `/skill:` prompt.
 *
 * Skills linked in from elsewhere. codex#31592, codex#22506 (Nix / Home Manager installs): a
 * `SKILL.md` that is itself a symlink was skipped; maka#4096, craft-agents-oss#744 (a dotfiles repo
 * linked into `~/.agents/skills`): a symlinked skill folder was skipped, `Dirent.isDirectory()` being
 * false for a link; no skill, no diagnostic. What the user should see: both offered to the model and
 * expanded by `/skill:`, and a link whose target is gone ignored without a word.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baselinePrompts, runSettle, useCliProject } from "../cli/helpers.js";

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

describe("codex#31592, maka#4096: skills linked into the skills folder", () => {
	it("codex#31592, codex#22506, maka#4096: a symlinked skill folder and a symlinked SKILL.md are in the system prompt and expand with /skill:; a dangling link is ignored quietly", () => {
		const shared = join(cli.dir, "dotfiles", "skills");
		const skills = join(cli.agentDir, "skills");
		mkdirSync(join(shared, "wrap-up"), { recursive: true });
		writeFileSync(
			join(shared, "wrap-up", "SKILL.md"),
			"---\nname: wrap-up\ndescription: Ends the day\n---\nWRAP-UP BODY\n",
		);
		mkdirSync(join(shared, "usage-status"), { recursive: true });
		writeFileSync(
			join(shared, "usage-status", "SKILL.md"),
			"---\nname: usage-status\ndescription: Reports usage\n---\nUSAGE-STATUS BODY\n",
		);
		mkdirSync(join(skills, "usage-status"), { recursive: true });
		symlinkSync(join(shared, "wrap-up"), join(skills, "wrap-up"));
		symlinkSync(join(shared, "usage-status", "SKILL.md"), join(skills, "usage-status", "SKILL.md"));
		symlinkSync(join(shared, "removed"), join(skills, "removed"));
		const settle = (args: string[]) =>
			runSettle(["--faux", "--no-session", ...args], { cwd: cli.project, agentDir: cli.agentDir });

		const run = settle(["--mode", "json", "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		const [systemPrompt] = baselinePrompts(run.stdout);
		expect(systemPrompt).toContain(
			`<name>wrap-up</name>\n    <description>Ends the day</description>\n    <location>${join(skills, "wrap-up", "SKILL.md")}</location>`,
		);
		expect(systemPrompt).toContain(
			`<name>usage-status</name>\n    <description>Reports usage</description>\n    <location>${join(skills, "usage-status", "SKILL.md")}</location>`,
		);
		expect(settle(["-p", "/skill:wrap-up now"]).stdout).toContain("WRAP-UP BODY");
		expect(settle(["-p", "/skill:usage-status now"]).stdout).toContain("USAGE-STATUS BODY");
	});
});
