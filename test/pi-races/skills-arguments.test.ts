/**
 * A skill written for Claude Code, whose SKILL.md places what the user typed with `$ARGUMENTS`
 * (`Log $ARGUMENTS to Jira`). Replayed with real `settle` processes on the faux model, which echoes
 * the prompt it got.
 *
 * claude-code#46922: `/jira-worklog 1h MM-3293` sent the model the literal `$ARGUMENTS`, so it fell
 * back to asking the user for what they had typed. oh-my-openagent#640: the skill invoked without
 * arguments left `<user-request>$ARGUMENTS</user-request>` in the prompt and the model ignored the
 * skill's instructions. What the user should see: the arguments in the places the skill names (not
 * repeated below it), nothing where none were typed, and shell code in the body (`$1`, `$@`, `$HOME`)
 * left as written (claude-code#94709: a skill's `$1` rewritten from the arguments broke its script).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-skills-arguments-");

/** Writes `<agentDir>/skills/<name>/SKILL.md`; returns the skill's folder. */
function writeSkill(name: string, body: string): string {
	const dir = join(cli.agentDir, "skills", name);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: Test skill ${name}\n---\n${body}`);
	return dir;
}

function block(name: string, dir: string, body: string): string {
	return `<skill name="${name}" location="${join(dir, "SKILL.md")}">\nReferences are relative to ${dir}.\n\n${body}\n</skill>`;
}

describe("claude-code#46922: `$ARGUMENTS` in a skill's body", () => {
	it("claude-code#46922: `/skill:jira-worklog 1h MM-3293` puts the arguments where the skill says `$ARGUMENTS`, once; `$ARGUMENTS[1]` is the second word; shell `$1`, `$@` stay", () => {
		const dir = writeSkill(
			"jira-worklog",
			'1. Parse $ARGUMENTS into time and issue.\n2. Issue: $ARGUMENTS[1].\n3. Run `log.sh "$1" "$@" $HOME`.\n',
		);
		const run = cli.settle(["--faux", "--no-session", "-p", "/skill:jira-worklog 1h MM-3293"]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toBe(
			`${block("jira-worklog", dir, '1. Parse 1h MM-3293 into time and issue.\n2. Issue: MM-3293.\n3. Run `log.sh "$1" "$@" $HOME`.')}\n`,
		);
	});

	it("oh-my-openagent#640: the skill invoked without arguments: `$ARGUMENTS` is empty, an `ARGUMENTS:-` default is used; a skill without the placeholder still gets its arguments below", () => {
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the skill's own placeholder, not a template literal
		const dir = writeSkill("review", "<user-request>$ARGUMENTS</user-request>\nScope: ${ARGUMENTS:-the whole diff}.\n");
		const bare = cli.settle(["--faux", "--no-session", "-p", "/skill:review"]);
		expect(bare).toMatchObject({ code: 0, stderr: "" });
		expect(bare.stdout).toBe(`${block("review", dir, "<user-request></user-request>\nScope: the whole diff.")}\n`);

		const plainDir = writeSkill("plain", "Check the build.\n");
		const plain = cli.settle(["--faux", "--no-session", "-p", "/skill:plain src/a.ts"]);
		expect(plain.stdout).toBe(`${block("plain", plainDir, "Check the build.")}\n\nsrc/a.ts\n`);
	});

	it("opencode#9831: a skill writing `\\$ARGUMENTS` (or `\\$ARGUMENTS[1]`, or with a `:-` default) keeps it as written, the backslash dropped, as a prompt template does; one whose placeholders are all so written gets its arguments below", () => {
		const dir = writeSkill(
			"meta",
			// biome-ignore lint/suspicious/noTemplateCurlyInString: the skill's own placeholder, not a template literal
			"Name it $ARGUMENTS[0]. Tell the user \\$ARGUMENTS, \\$ARGUMENTS[1] and \\${ARGUMENTS:-x} exist; shell `\\$1` stays.\n",
		);
		const run = cli.settle(["--faux", "--no-session", "-p", "/skill:meta deploy now"]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toBe(
			// biome-ignore lint/suspicious/noTemplateCurlyInString: the skill's own placeholder, kept as written
			`${block("meta", dir, "Name it deploy. Tell the user $ARGUMENTS, $ARGUMENTS[1] and ${ARGUMENTS:-x} exist; shell `\\$1` stays.")}\n`,
		);

		const escapedDir = writeSkill("explain", "Explain \\$ARGUMENTS.\n");
		const escaped = cli.settle(["--faux", "--no-session", "-p", "/skill:explain briefly"]);
		expect(escaped.stdout).toBe(`${block("explain", escapedDir, "Explain $ARGUMENTS.")}\n\nbriefly\n`);
	});
});
