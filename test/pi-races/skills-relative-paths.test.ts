/**
 * A skill whose SKILL.md names its own files by relative path (`Read references/spec.md`,
 * `scripts/context.sh`), run from a project elsewhere. Replayed with real `settle` processes on the
 * faux model (which echoes the prompt it got), the skill reached by a relative `--skill` path and by
 * a relative `skills` entry in settings.json.
 *
 * pi#1136: the system prompt gave only the skill's `<location>`, nothing said what its relative
 * paths are relative to, and models ran `./scripts/context.sh` from the project root.
 * opencode#17094, anthropics/skills#1153, goose#9558: the same: "File does not exist" for
 * `references/…` resolved against the cwd. What the user should see: the model told, with an
 * absolute folder, where the skill's relative paths start, whether the model picks the skill from
 * the list or the user types `/skill:name`, however the skill's folder was named to Settle.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baselinePrompts, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-skills-relative-paths-");

/** `<dir>/kit/skills/path-test` with SKILL.md and references/spec.md; returns the skill's folder. */
function writeKit(): string {
	const skillDir = join(cli.dir, "kit", "skills", "path-test");
	mkdirSync(join(skillDir, "references"), { recursive: true });
	writeFileSync(
		join(skillDir, "SKILL.md"),
		"---\nname: path-test\ndescription: Checks the spec\n---\nRead references/spec.md, then run scripts/check.sh.\n",
	);
	writeFileSync(join(skillDir, "references", "spec.md"), "SPEC\n");
	return skillDir;
}

describe("pi#1136: relative paths inside a skill", () => {
	it("pi#1136, opencode#17094, anthropics/skills#1153: `/skill:path-test` with the skill named by `--skill ../kit/skills/path-test`: the block says its paths are relative to the skill's absolute folder", () => {
		const skillDir = writeKit();
		const run = cli.settle([
			"--faux",
			"--no-session",
			"--skill",
			"../kit/skills/path-test",
			"-p",
			"/skill:path-test check the login",
		]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toBe(
			`<skill name="path-test" location="${join(skillDir, "SKILL.md")}">\nReferences are relative to ${skillDir}.\n\nRead references/spec.md, then run scripts/check.sh.\n</skill>\n\ncheck the login\n`,
		);
	});

	it("pi#1136, goose#9558: a skill from a relative settings entry is listed with its absolute location and the rule for its relative paths", () => {
		const skillDir = writeKit();
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ skills: ["../kit/skills"] }));
		const run = cli.settle(["--faux", "--no-session", "--mode", "json", "-p", "hi"]);
		expect(run.code, run.stderr).toBe(0);
		const [systemPrompt] = baselinePrompts(run.stdout);
		expect(systemPrompt).toContain(
			"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
		);
		expect(systemPrompt).toContain(`<location>${join(skillDir, "SKILL.md")}</location>`);
	});
});
