/**
 * gentle-ai#678, qwen-code#1512: a `SKILL.md` saved with Windows line endings (CRLF: Notepad, or a
 * checkout with `core.autocrlf=true`) did not match a front matter reader written for `---\n`: the
 * skill fell back to its folder name with no description, or was not loaded at all, and nothing
 * said why. What that user should see: the skill offered to the model under its own name and
 * description, and `/skill:name` sending its body without carriage returns, exactly as for the same
 * file with LF endings; a CRLF prompt template likewise. Replayed against a real `settle -p`
 * process on the faux model, which echoes the prompt it got.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-skills-crlf-");

describe("gentle-ai#678: a SKILL.md with CRLF line endings", () => {
	it("gentle-ai#678, qwen-code#1512: skills/release-checks/SKILL.md in CRLF: /skill:release-checks expands its body, no carriage return reaches the model, nothing is warned", () => {
		const folder = join(cli.agentDir, "skills", "release-checks");
		mkdirSync(folder, { recursive: true });
		const lf = "---\nname: release-checks\ndescription: Checks before a release\n---\nRUN-THE-CHECKS first\nthen tag\n";
		writeFileSync(join(folder, "SKILL.md"), lf.replaceAll("\n", "\r\n"));

		const run = cli.settle(["--faux", "--no-session", "-p", "/skill:release-checks v2.1"]);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain("RUN-THE-CHECKS first\nthen tag");
		expect(run.stdout).toContain("v2.1");
		expect(run.stdout).not.toContain("\r");
		expect(run.stderr).not.toContain("Warning:");
	});

	it("qwen-code#1512: a CRLF prompt template: its front matter is read, `$1` is the argument, no carriage return reaches the model", () => {
		const prompts = join(cli.agentDir, "prompts");
		mkdirSync(prompts, { recursive: true });
		writeFileSync(join(prompts, "tag.md"), "---\r\ndescription: Tag a release\r\n---\r\nTAG-RELEASE $1\r\nnow\r\n");

		const run = cli.settle(["--faux", "--no-session", "-p", "/tag v2.1"]);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain("TAG-RELEASE v2.1\nnow");
		expect(run.stdout).not.toContain("description:");
		expect(run.stdout).not.toContain("\r");
	});
});
