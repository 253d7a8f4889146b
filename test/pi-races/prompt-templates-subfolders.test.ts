/**
 * pi-claude-marketplace#140, oh-my-pi#1307: Claude Code names a command by its folder
 * (`commands/opsx/apply.md` is `/opsx:apply`), and tools such as OpenSpec install theirs that way.
 * Put in pi's prompts folder, which is read one level deep, those templates were passed over without
 * a word: nothing listed them, and the user could not tell why `/opsx:apply` was unknown. What that
 * user should see: the templates directly in the folder load as before, and a warning at start-up
 * names the sub-folder's files and the two ways to load them; a sub-folder listed in `prompts` in
 * settings.json loads and warns nothing. Replayed against real `settle -p` processes on the faux
 * model, which echoes the prompt it got.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-template-subfolders-");

function writeTemplates(): string {
	const prompts = join(cli.agentDir, "prompts");
	mkdirSync(join(prompts, "opsx"), { recursive: true });
	writeFileSync(join(prompts, "review.md"), "REVIEW-TEMPLATE $ARGUMENTS");
	writeFileSync(join(prompts, "opsx", "apply.md"), "---\ndescription: Apply a change\n---\nAPPLY-TEMPLATE $ARGUMENTS");
	writeFileSync(join(prompts, "opsx", "archive.md"), "ARCHIVE-TEMPLATE $ARGUMENTS");
	return prompts;
}

describe("pi-claude-marketplace#140: prompt templates in a sub-folder of the prompts folder", () => {
	it("pi-claude-marketplace#140, oh-my-pi#1307: prompts/opsx/apply.md: settle -p warns naming the sub-folder's files and how to load them; prompts/review.md still expands", () => {
		const prompts = writeTemplates();

		const run = cli.settle(["--faux", "--no-session", "-p", "/review src/a.ts"]);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain("REVIEW-TEMPLATE src/a.ts");
		expect(run.stderr.split("\n").filter((line) => line.startsWith("Warning:"))).toEqual([
			`Warning: prompt templates in a sub-folder are not loaded (opsx/apply.md, opsx/archive.md): only the .md files directly in ${prompts} are templates. Move them there (opsx/apply.md as opsx-apply.md, typed /opsx-apply), or list the sub-folder in "prompts" in settings.json. (${join(prompts, "opsx")})`,
		]);
	});

	it("pi-claude-marketplace#140: the sub-folder listed in `prompts` in settings.json: its templates load, and nothing is warned", () => {
		writeTemplates();
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ prompts: ["prompts/opsx"] }));

		const run = cli.settle(["--faux", "--no-session", "-p", "/apply add-login"]);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain("APPLY-TEMPLATE add-login");
		expect(run.stderr).toBe("");
	});

	it("pi-claude-marketplace#140: the sub-folder given with --prompt-template: its templates load, and nothing is warned", () => {
		const prompts = writeTemplates();

		const run = cli.settle([
			"--faux",
			"--no-session",
			"--prompt-template",
			join(prompts, "opsx"),
			"-p",
			"/archive add-login",
		]);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain("ARCHIVE-TEMPLATE add-login");
		expect(run.stderr).toBe("");
	});
});
