/**
 * Claude Code's documented custom command front matter `argument-hint: [pr-number] [priority]
 * [assignee]`: YAML reads `[pr-number]` as a list, then refuses the text after it, so the whole
 * front matter failed. vercel-labs/skills#1525: such a `SKILL.md` silently dropped from discovery;
 * forge-council#8: Codex skipped five skills ("did not find expected key"). pi 0.73.1 drops the
 * template and the skill without a word; Settle dropped them with a warning. What the user should
 * see: the command and the skill load, as Claude Code loads them. Replayed with the real `settle`
 * CLI and pi 0.73.1's (`pi-peer`) on the faux model, which echoes the prompt it got.
 */
import { describe, expect, it } from "vitest";
import { runPiCli, runSettleCli, useDiffDirs, writeInBothAgents } from "../cli/pi-diff-process.js";

const dirs = useDiffDirs("settle-pi-races-bracket-hints-");

describe("vercel-labs/skills#1525: an unquoted `argument-hint: [a] [b]` in front matter", () => {
	it("vercel-labs/skills#1525: Claude Code's `/review-pr 456 high alice` template expands with its arguments, nothing on stderr; pi 0.73.1 sends the text as typed", async () => {
		writeInBothAgents(
			dirs,
			"prompts/review-pr.md",
			"---\nargument-hint: [pr-number] [priority] [assignee]\ndescription: Review pull request\n---\nReview PR #$1 with priority $2 and assign to $3.\n",
		);
		const prompt = "/review-pr 456 high alice";

		const settle = await runSettleCli(dirs, ["--no-session", "-p", prompt]);
		expect(settle.stderr).toBe("");
		expect(settle.stdout).toBe("Review PR #456 with priority high and assign to alice.\n");

		const pi = await runPiCli(dirs, ["--no-session", "-p", prompt]);
		expect(pi.stdout).toBe(`${prompt}\n`);
	});

	it("forge-council#8: a skill with `argument-hint: [topic] [with security|with docs]` is offered and `/skill:council pricing` expands it", async () => {
		writeInBothAgents(
			dirs,
			"skills/council/SKILL.md",
			"---\nname: council\ndescription: Convene a council to debate a topic\nargument-hint: [topic] [with security|with docs]\n---\nDebate $ARGUMENTS in three rounds.\n",
		);
		const settle = await runSettleCli(dirs, ["--no-session", "-p", "/skill:council pricing"]);
		expect(settle.stderr).toBe("");
		expect(settle.stdout).toContain('<skill name="council" location=');
		expect(settle.stdout).toContain("Debate pricing in three rounds.\n</skill>");

		const pi = await runPiCli(dirs, ["--no-session", "-p", "/skill:council pricing"]);
		expect(pi.stdout).toBe("/skill:council pricing\n");
	});

	it("vercel-labs/skills#1525: a list left open (`argument-hint: [file`) is still refused, with the warning naming the file", async () => {
		writeInBothAgents(dirs, "prompts/open.md", "---\nargument-hint: [file\ndescription: Open\n---\nOpen $1.\n");
		const settle = await runSettleCli(dirs, ["--no-session", "-p", "/open a.ts"]);
		expect(settle.stdout).toBe("/open a.ts\n");
		expect(settle.stderr).toMatch(
			/^Warning: invalid YAML front matter: .*the template is not loaded until then\. \(.*open\.md\)$/m,
		);
	});
});
