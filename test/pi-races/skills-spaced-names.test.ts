/**
 * A skill whose front matter name has spaces (`name: Code Review`, as plugin-dev's `Agent
 * Development` was published). Replayed with real `settle` processes on the faux model, which echoes
 * the prompt it got.
 *
 * claude-code#88814, claude-plugins-official#322: the skill was listed under its name, but typing
 * that name ran nothing: the name ended at the first space ("Unknown command: /Merge"), the rest
 * taken for arguments. pi 0.73.1 warns that the name has invalid characters and loads it; in Settle
 * (and pi) `/skill:Code Review a.ts` was an unknown command in the chat and went to the model as
 * typed with `-p`. What the user should see: the name the list shows runs the skill, the words after
 * it are its arguments; the longest such name wins, and a skill named by the first word still does.
 *
 * pi#9378: `name: skill-parent.child` gave "Error: name contains invalid characters"; the user
 * expected the skill to load. It loads (as in pi 0.73.1) and runs under its name; the warning stays.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-skill-spaced-");

function writeSkill(folder: string, name: string, body: string): string {
	const dir = join(cli.agentDir, "skills", folder);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: Skill ${name}\n---\n${body}\n`);
	return join(dir, "SKILL.md");
}

const print = (prompt: string) => cli.settle(["--faux", "--no-session", "-p", prompt]);

describe("claude-code#88814: a skill named with spaces cannot be run by its name", () => {
	it("claude-code#88814, claude-plugins-official#322: `-p '/skill:Code Review src/a.ts'` runs `Code Review` with `src/a.ts`; the longest name wins; a name no skill has is refused", () => {
		const review = writeSkill("code-review", "Code Review", "REVIEW BODY");
		const strict = writeSkill("code-review-strict", "Code Review Strict", "STRICT BODY");

		const run = print("/skill:Code Review src/a.ts");
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toBe(
			`<skill name="Code Review" location="${review}">\nReferences are relative to ${join(review, "..")}.\n\nREVIEW BODY\n</skill>\n\nsrc/a.ts\n`,
		);
		// pi's warning still says the name breaks the rules.
		expect(run.stderr).toContain("name contains invalid characters");

		expect(print("/skill:Code Review Strict").stdout).toContain(
			`<skill name="Code Review Strict" location="${strict}">`,
		);
		// No skill is `Code` or `Code Reviewer`: refused, not sent as typed (skills-unknown-name.test.ts).
		const unknown = print("/skill:Code Reviewer a");
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain("/skill:Code names no loaded skill.");
	});

	it("claude-code#88814: a skill named by the first word still wins over a longer name with spaces", () => {
		writeSkill("code-review", "Code Review", "REVIEW BODY");
		const code = writeSkill("Code", "Code", "CODE BODY");
		const run = print("/skill:Code Review a.ts");
		expect(run.stdout).toContain(`<skill name="Code" location="${code}">`);
		expect(run.stdout).toContain("CODE BODY\n</skill>\n\nReview a.ts\n");
	});

	it("claude-code#88814: in `settle -i`, `/skill:Code Review a.ts` is no unknown command: the model gets the skill", async () => {
		writeSkill("code-review", "Code Review", "REVIEW BODY");
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const said = await chat.say("/skill:Code Review a.ts", "\n>");
		expect(said).not.toContain("unknown command");
		expect(said).toContain("REVIEW BODY\n</skill>\n\na.ts\n");
		expect(await chat.end()).toBe(0);
	});

	it("in `settle -i`, `/skill:Code` with only `code` (pi's rule: names are case-sensitive) is refused naming the skill meant; with `code` and `CODE` both are named", async () => {
		writeSkill("code", "code", "CODE BODY");
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/skill:Code a.ts")).toContain(
			"Error: unknown command /skill:Code. Skill names are case-sensitive: did you mean /skill:code?",
		);
		expect(await chat.end()).toBe(0);

		writeSkill("CODE", "CODE", "LOUD BODY");
		const again = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await again.idle(0);
		expect(await again.say("/skill:Code")).toContain(
			"Error: unknown command /skill:Code. Skill names are case-sensitive: did you mean /skill:CODE or /skill:code?",
		);
		expect(await again.end()).toBe(0);
	});
});

describe("pi#9378: a skill named with a dot (`skill-parent.child`)", () => {
	it("pi#9378: the skill loads and `/skill:skill-parent.child go` expands it with `go`; the warning names the rule and the file, and stops nothing", async () => {
		const dotted = writeSkill("skill-parent.child", "skill-parent.child", "DOTTED BODY");
		const run = print("/skill:skill-parent.child go");
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toBe(
			`<skill name="skill-parent.child" location="${dotted}">\nReferences are relative to ${join(dotted, "..")}.\n\nDOTTED BODY\n</skill>\n\ngo\n`,
		);
		expect(run.stderr).toBe(
			`Warning: name contains invalid characters (must be lowercase a-z, 0-9, hyphens only) (${dotted})\n`,
		);

		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/skill:skill-parent.child go")).toContain("DOTTED BODY");
		expect(await chat.end()).toBe(0);
	});
});
