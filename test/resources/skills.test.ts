import { rmSync } from "node:fs";
import { join } from "node:path";
import {
	formatSkillsForPrompt as piFormatSkillsForPrompt,
	loadSkills as piLoadSkills,
} from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { collectSkillFiles } from "../../src/resources/discovery.js";
import {
	expandSkillCommand,
	formatSkillsForPrompt,
	loadSkillCandidates,
	parseSkillBlock,
} from "../../src/resources/skills.js";
import type { Skill } from "../../src/resources/types.js";
import { copyFixture, fixtureProject } from "../settings/helpers.js";

const info = { source: "local", scope: "project", origin: "top-level" } as const;

function loadDir(dir: string) {
	return loadSkillCandidates(collectSkillFiles(dir, "pi").map((filePath) => ({ filePath, sourceInfo: info })));
}

describe("skill validation", () => {
	const dir = join(fixtureProject("broken-skills"), ".settle", "skills");

	it("reports pi's problems per file and loads what pi loads", () => {
		const { skills, diagnostics } = loadDir(dir);
		const byFolder = (folder: string) =>
			diagnostics.filter((d) => d.path === join(dir, folder, "SKILL.md")).map((d) => d.message);
		expect(byFolder("Bad_Name")).toEqual([
			"name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
		]);
		expect(byFolder("a".repeat(65))).toEqual(["name exceeds 64 characters (65)"]);
		expect(byFolder("double--hyphen")).toEqual(["name must not contain consecutive hyphens"]);
		expect(byFolder("mismatch")).toEqual(['name "other-name" does not match parent directory "mismatch"']);
		expect(byFolder("no-description")).toEqual(["description is required"]);
		expect(byFolder("bad-frontmatter")).toEqual([
			"invalid YAML front matter: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 23. Fix the YAML between the --- lines; the skill is not loaded until then.",
		]);
		expect(byFolder("ok-skill")).toEqual([]);

		// Name problems are warnings only; no description or broken YAML means not loaded.
		expect(skills.map((skill) => skill.name).sort()).toEqual(
			["Bad_Name", "a".repeat(65), "double--hyphen", "ok-skill", "other-name", "shared"].sort(),
		);
		// Two skills named "shared": the first found (in name order, group/ before shared/) wins.
		const collision = diagnostics.find((d) => d.type === "collision");
		expect(collision).toEqual({
			type: "collision",
			message: 'name "shared" collision',
			path: join(dir, "shared", "SKILL.md"),
			collision: {
				resourceType: "skill",
				name: "shared",
				winnerPath: join(dir, "group", "shared", "SKILL.md"),
				loserPath: join(dir, "shared", "SKILL.md"),
			},
		});
		expect(diagnostics.every((d) => d.type === "warning" || d.type === "collision")).toBe(true);
	});

	it("agrees with pi 0.73 on which skills load and on every validation message", () => {
		const ours = loadDir(dir);
		const pi = piLoadSkills({ cwd: dir, agentDir: join(dir, "no-agent"), skillPaths: [dir], includeDefaults: false });
		const summary = (
			skills: readonly { name: string; filePath: string; description: string; disableModelInvocation: boolean }[],
		) =>
			skills
				.map((skill) => `${skill.name}|${skill.filePath}|${skill.description}|${skill.disableModelInvocation}`)
				.sort();
		// The collision winner depends on directory order, which pi does not sort: compare the names loaded.
		expect(new Set(ours.skills.map((skill) => skill.name))).toEqual(new Set(pi.skills.map((skill) => skill.name)));
		expect(summary(ours.skills.filter((skill) => skill.name !== "shared"))).toEqual(
			summary(pi.skills.filter((skill) => skill.name !== "shared")),
		);
		const messages = (list: { type: string; message: string; path?: string }[]) =>
			list
				.filter((d) => d.type !== "collision" && !d.path?.includes("bad-frontmatter"))
				.map((d) => `${d.type}|${d.path}|${d.message}`)
				.sort();
		expect(messages(ours.diagnostics)).toEqual(messages(pi.diagnostics));
	});

	it("reads disable-model-invocation and keeps such skills out of the prompt listing", () => {
		const skillsDir = join(fixtureProject("basic"), ".settle", "skills");
		const { skills, diagnostics } = loadDir(skillsDir);
		expect(diagnostics).toEqual([]);
		expect(skills.map((skill) => [skill.name, skill.disableModelInvocation])).toEqual([
			["code-review", false],
			["internal-tool", true],
			["deploy", false],
		]);
		const listing = formatSkillsForPrompt(skills);
		expect(listing).toContain("<name>code-review</name>");
		expect(listing).not.toContain("internal-tool");
		// XML special characters in descriptions are escaped.
		expect(listing).toContain("<description>Deploy &lt;staging&gt; &amp; &quot;prod&quot; safely</description>");
		// Same text as pi's listing (pi prefixes two newlines to append it to its prompt).
		expect(listing).toBe(piFormatSkillsForPrompt(skills as Parameters<typeof piFormatSkillsForPrompt>[0]).trimStart());
		expect(formatSkillsForPrompt(skills.filter((skill) => skill.disableModelInvocation))).toBe("");
	});
});

describe("expandSkillCommand", () => {
	const skillsDir = join(fixtureProject("basic"), ".settle", "skills");
	const skills = loadDir(skillsDir).skills;
	const file = join(skillsDir, "code-review", "SKILL.md");

	it("wraps the body exactly as behavior C.1 step 4 describes", () => {
		expect(expandSkillCommand("/skill:code-review", skills)).toEqual({
			text: `<skill name="code-review" location="${file}">\nReferences are relative to ${join(skillsDir, "code-review")}.\n\n# Code review\n\nRead references/checklist.md first.\n</skill>`,
			skill: skills[0],
		});
	});

	it("appends the arguments after a blank line, trimmed", () => {
		const { text } = expandSkillCommand("/skill:code-review   check src/a.ts  ", skills);
		expect(text.endsWith("</skill>\n\ncheck src/a.ts")).toBe(true);
		expect(parseSkillBlock(text)).toEqual({
			name: "code-review",
			location: file,
			content: `References are relative to ${join(skillsDir, "code-review")}.\n\n# Code review\n\nRead references/checklist.md first.`,
			userMessage: "check src/a.ts",
		});
	});

	it("also expands skills hidden from the model", () => {
		expect(expandSkillCommand("/skill:internal-tool", skills).text).toContain("Internal body.");
	});

	it("leaves unknown skills and other text unchanged", () => {
		expect(expandSkillCommand("/skill:nope args", skills)).toEqual({ text: "/skill:nope args" });
		expect(expandSkillCommand("please /skill:code-review", skills)).toEqual({ text: "please /skill:code-review" });
		expect(expandSkillCommand("/review x", skills)).toEqual({ text: "/review x" });
	});

	it("reports a read failure and leaves the text unchanged", () => {
		const project = copyFixture("basic");
		const dir = join(project, ".settle", "skills");
		const copied: Skill[] = loadDir(dir).skills;
		const target = join(dir, "tools", "deploy", "SKILL.md");
		rmSync(target);
		const result = expandSkillCommand("/skill:deploy now", copied);
		expect(result.text).toBe("/skill:deploy now");
		expect(result.skill?.name).toBe("deploy");
		expect(result.error?.path).toBe(target);
		expect(result.error?.message).toContain("ENOENT");
	});
});
