/**
 * A skill whose `description` is prose holding a colon, unquoted, as Claude Code's skills are
 * written (`Produces a structured brainstorm: goals, risks.`). YAML reads `: ` as a nested mapping
 * and refuses the front matter. Replayed with the real `settle` CLI and pi 0.73.1's own CLI side by
 * side (`pi-peer`), offline on the faux model, which echoes the prompt it got.
 *
 * Proma#1299 (on pi's runtime): the official pdf skill, installed and switched on, silently left out
 * of the session's skills. omnigent#6125, gsd-2#4593, BuilderIO/skills#38: the same for other
 * skills, while Claude Code, which they were written for, loads them. pi 0.73.1 drops the skill
 * without a word, so `/skill:brainstorm` goes to the model as typed. What the user should see: the
 * skill, loaded with its description as written. Settle reads such a value as text; front matter
 * that is broken otherwise (`[unclosed`) is still refused with a warning.
 *
 * context-labs/whip#107, hax#44: a description written as a YAML folded block (`description: >-`)
 * reached the model as the literal `>-` (or not at all), so the skill never triggered.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPiCli, runSettleCli, useDiffDirs, writeInBothAgents } from "../cli/pi-diff-process.js";

const dirs = useDiffDirs("settle-pi-races-skill-colons-");

const BRAINSTORM =
	"---\nname: brainstorm\ndescription: Produces a structured brainstorm: goals, constraints, risks. Use before design changes.\n---\nBRAINSTORM BODY\n";

describe("Proma#1299: a skill whose description holds an unquoted colon", () => {
	it("Proma#1299, omnigent#6125, gsd-2#4593: `/skill:brainstorm go` expands the skill, listed to the model with its description as written; pi 0.73.1 drops it silently and sends the text as typed", async () => {
		writeInBothAgents(dirs, "skills/brainstorm/SKILL.md", BRAINSTORM);
		const prompt = "/skill:brainstorm go";

		const settle = await runSettleCli(dirs, ["--no-session", "-p", prompt]);
		expect(settle).toMatchObject({ code: 0, stderr: "" });
		expect(settle.stdout).toContain(
			`<skill name="brainstorm" location="${join(dirs.settleAgent, "skills", "brainstorm", "SKILL.md")}">`,
		);
		expect(settle.stdout).toContain("BRAINSTORM BODY\n</skill>\n\ngo");

		const listed = await runSettleCli(dirs, ["--no-session", "--mode", "json", "-p", "hi"]);
		expect(listed.code, listed.stderr).toBe(0);
		expect(listed.stdout).toContain(
			"<description>Produces a structured brainstorm: goals, constraints, risks. Use before design changes.</description>",
		);

		const pi = await runPiCli(dirs, ["--no-session", "-p", prompt]);
		expect(pi.code, pi.stderr).toBe(0);
		expect(pi.stdout).toBe("/skill:brainstorm go\n");
		expect(pi.stderr).not.toContain("brainstorm");
	});

	it("BuilderIO/skills#38: a prompt template's description with a colon loads too; front matter broken otherwise is still refused, with the warning", async () => {
		writeInBothAgents(dirs, "prompts/review.md", "---\ndescription: Review code: bugs first\n---\nReview $1.\n");
		writeInBothAgents(
			dirs,
			"skills/broken/SKILL.md",
			"---\nname: broken\ndescription: [unclosed: list\n---\nBROKEN BODY\n",
		);

		const review = await runSettleCli(dirs, ["--no-session", "-p", "/review a.ts"]);
		expect(review.stdout).toBe("Review a.ts.\n");

		// Not loaded, so `/skill:broken` is refused rather than sent as typed (skills-unknown-name.test.ts).
		const broken = await runSettleCli(dirs, ["--no-session", "-p", "/skill:broken"]);
		expect(broken.code).toBe(1);
		expect(broken.stdout).toBe("");
		expect(broken.stderr).toContain("/skill:broken names no loaded skill.");
		expect(broken.stderr).toContain("invalid YAML front matter");
		expect(broken.stderr).toContain("Fix the YAML between the --- lines; the skill is not loaded until then.");
	});

	it("Proma#1299: a description that ends with its colon (`Use it when the user asks:`) loads too, as written", async () => {
		writeInBothAgents(
			dirs,
			"skills/release/SKILL.md",
			"---\nname: release\ndescription: Walks through a release. Use it when the user asks:\n---\nRELEASE BODY\n",
		);
		const listed = await runSettleCli(dirs, ["--no-session", "--mode", "json", "-p", "hi"]);
		expect(listed).toMatchObject({ code: 0, stderr: "" });
		expect(listed.stdout).toContain("<description>Walks through a release. Use it when the user asks:</description>");
	});

	it("context-labs/whip#107, hax#44: a description written as a folded block (`description: >-`, as Claude Code's tooling writes long ones) is listed as its folded text, not `>-`", async () => {
		writeInBothAgents(
			dirs,
			"skills/dev-loop/SKILL.md",
			"---\nname: dev-loop\ndescription: >-\n  Explicit-invocation working loop: never\n  auto-triggers.\n---\nLOOP BODY\n",
		);
		const listed = await runSettleCli(dirs, ["--no-session", "--mode", "json", "-p", "hi"]);
		expect(listed).toMatchObject({ code: 0, stderr: "" });
		expect(listed.stdout).toContain(
			"<description>Explicit-invocation working loop: never auto-triggers.</description>",
		);
	});
});
