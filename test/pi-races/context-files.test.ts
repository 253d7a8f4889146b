/**
 * pi#8116, pi#4436, pi#5648: the same `AGENTS.md` reached by two paths was sent twice. A project
 * `AGENTS.md` kept as a symlink to the global one (a dotfiles setup), or pi started inside an agent
 * folder that is itself a symlink (`stow`), put the same rules into the system prompt twice: tokens
 * spent on every request, and the instructions shown twice in an export. What those users should
 * see: one copy of a file, however many paths lead to it; two distinct files with the same text are
 * both kept (they are two layers). Driven through the public runtime on real files and symlinks.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// pi 0.73.1's own collector, for the side-by-side check (the module alone, not pi's package index).
import { loadProjectContextFiles as piLoadProjectContextFiles } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/resource-loader.js";
import { loadSkillsFromDir as piLoadSkillsFromDir } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/skills.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { runtimePerTest, startRuntimeWithEmptyHome, type Workspace } from "../runtime/helpers.js";

const perTest = runtimePerTest();

function timesIn(text: string, needle: string): number {
	return text.split(needle).length - 1;
}

async function firstSystemPrompt(workspace: Workspace, cwd: string, agentDir = workspace.agentDir): Promise<string> {
	const faux = createFauxProvider();
	const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, { ...workspace, agentDir }, cwd));
	faux.setResponses([fauxAssistantMessage("ok")]);
	await runtime.session.prompt("hi");
	return faux.requests[0]!.systemPrompt ?? "";
}

describe("pi#8116: a context file reached by two paths is sent twice", () => {
	it("pi#8116, pi#4436: a project AGENTS.md that is a symlink to the global AGENTS.md: the rules reach the model once", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "AGENTS.md"), "- Always answer in haiku (RULE-8116).\n");
		const project = join(ws.root, "dotfiles-project");
		mkdirSync(project, { recursive: true });
		symlinkSync(join(ws.agentDir, "AGENTS.md"), join(project, "AGENTS.md"));
		const sent = await firstSystemPrompt(ws, project);
		expect(timesIn(sent, "RULE-8116")).toBe(1);
	});

	it("pi#5648: started inside the agent folder, reached through a symlink (stow): the global AGENTS.md reaches the model once", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "AGENTS.md"), "- Prefer tabs (RULE-5648).\n");
		const linkedAgentDir = join(ws.root, "linked-agent");
		symlinkSync(ws.agentDir, linkedAgentDir);
		// The agent folder is named by its link; the process runs in the real folder (what `cd` through a link gives `process.cwd()`).
		const sent = await firstSystemPrompt(ws, ws.agentDir, linkedAgentDir);
		expect(timesIn(sent, "RULE-5648")).toBe(1);
	});

	it("pi#8116: two distinct files with the same text (global and project) both stay: they are two layers", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "AGENTS.md"), "- Run the linter (RULE-LAYER).\n");
		const project = join(ws.root, "copied-project");
		mkdirSync(project, { recursive: true });
		writeFileSync(join(project, "AGENTS.md"), "- Run the linter (RULE-LAYER).\n");
		const sent = await firstSystemPrompt(ws, project);
		expect(timesIn(sent, "RULE-LAYER")).toBe(2);
	});

	it("pi#8116 (pi-peer): pi 0.73.1's loadProjectContextFiles lists the symlinked AGENTS.md twice on the same layout", () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "AGENTS.md"), "- Always answer in haiku (RULE-8116).\n");
		const project = join(ws.root, "dotfiles-project");
		mkdirSync(project, { recursive: true });
		symlinkSync(join(ws.agentDir, "AGENTS.md"), join(project, "AGENTS.md"));
		const files = piLoadProjectContextFiles({ cwd: project, agentDir: ws.agentDir }) as { content: string }[];
		expect(files.filter((file) => file.content.includes("RULE-8116"))).toHaveLength(2);
	});
});

/** UTF-16 with its byte order mark, as Windows PowerShell 5's `>` and Notepad's "Unicode" save text. */
function utf16(text: string, order: "le" | "be"): Buffer {
	const le = Buffer.from(`\uFEFF${text}`, "utf16le");
	return order === "le" ? le : Buffer.from(le.map((_, index) => le[index ^ 1]!));
}

describe("code_puppy#778: an AGENTS.md saved as UTF-16 reached the model as NUL-interleaved bytes", () => {
	it("code_puppy#778: UTF-16 LE and BE context files, and a UTF-8 one with a byte order mark, reach the model as their text", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "AGENTS.md"), utf16("- Answer in French (RULE-778-LE, é).\n", "le"));
		const project = join(ws.root, "windows-project");
		mkdirSync(join(project, "src"), { recursive: true });
		writeFileSync(join(project, "AGENTS.md"), utf16("- Use tabs (RULE-778-BE, ü).\n", "be"));
		writeFileSync(join(project, "src", "AGENTS.md"), "\uFEFF- Test first (RULE-778-BOM).\n");
		const sent = await firstSystemPrompt(ws, join(project, "src"));
		expect(sent).toContain("- Answer in French (RULE-778-LE, é).");
		expect(sent).toContain("- Use tabs (RULE-778-BE, ü).");
		expect(sent).toContain("\n- Test first (RULE-778-BOM).");
		for (const stray of ["\u0000", "\uFFFD", "\uFEFF"]) expect(sent).not.toContain(stray);
	});

	// Found by the resources differential once its files carried marks: the check that tells a skill
	// from a README beside the skills read the file as UTF-8, saw no front matter and skipped it.
	it("code_puppy#778: a skill saved as UTF-16 directly in the skills folder is offered to the model", async () => {
		const ws = perTest.workspace();
		mkdirSync(join(ws.agentDir, "skills"), { recursive: true });
		writeFileSync(
			join(ws.agentDir, "skills", "review.md"),
			utf16("---\ndescription: Reviews a change (SKILL-778-BE).\n---\nRead the diff.\n", "be"),
		);
		const project = join(ws.root, "windows-project");
		mkdirSync(project, { recursive: true });
		const sent = await firstSystemPrompt(ws, project);
		expect(sent).toContain("Reviews a change (SKILL-778-BE).");
		expect(perTest.current.session.resourceLoader.getSkills().diagnostics).toEqual([]);
	});

	it("code_puppy#778: a prompt template saved as UTF-16 expands to its text", async () => {
		const ws = perTest.workspace();
		const project = join(ws.root, "windows-project");
		mkdirSync(join(project, ".pi", "prompts"), { recursive: true });
		writeFileSync(
			join(project, ".pi", "prompts", "review.md"),
			utf16("---\ndescription: Review the change\n---\nReview $1 carefully (TEMPLATE-778).\n", "le"),
		);
		const faux = createFauxProvider();
		const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, ws, project));
		faux.setResponses([fauxAssistantMessage("ok")]);
		await runtime.session.prompt("/review main.ts");
		const user = JSON.stringify(faux.requests[0]!.messages.at(-1));
		expect(user).toContain("Review main.ts carefully (TEMPLATE-778).");
		expect(runtime.session.resourceLoader.getPrompts().prompts.find((p) => p.name === "review")?.description).toBe(
			"Review the change",
		);
	});
});

describe("codex#13918: a SKILL.md saved as UTF-8 with a byte order mark was skipped (missing YAML frontmatter)", () => {
	it("codex#13918: a skill with a UTF-8 mark and CRLF lines is offered to the model; SYSTEM.md in UTF-16 LE and APPEND_SYSTEM.md with a UTF-8 mark reach it as their text", async () => {
		const ws = perTest.workspace();
		const project = join(ws.root, "windows-project");
		mkdirSync(join(project, ".pi", "skills", "example-skill"), { recursive: true });
		writeFileSync(
			join(project, ".pi", "skills", "example-skill", "SKILL.md"),
			"\uFEFF---\r\nname: example-skill\r\ndescription: Example description (SKILL-13918).\r\n---\r\n\r\n# PURPOSE\r\n",
		);
		writeFileSync(join(project, ".pi", "SYSTEM.md"), utf16("You are a build bot (SYSTEM-13918).\r\n", "le"));
		writeFileSync(join(project, ".pi", "APPEND_SYSTEM.md"), "\uFEFFAnswer briefly (APPEND-13918).\r\n");
		const sent = await firstSystemPrompt(ws, project);
		expect(sent.startsWith("You are a build bot (SYSTEM-13918).")).toBe(true);
		expect(sent).toContain("\nAnswer briefly (APPEND-13918).");
		expect(sent).toContain("Example description (SKILL-13918).");
		for (const stray of ["\u0000", "\uFFFD", "\uFEFF"]) expect(sent).not.toContain(stray);
		expect(perTest.current.session.resourceLoader.getSkills().diagnostics).toEqual([]);
	});

	it("codex#13918 (pi-peer): pi 0.73.1's loadSkillsFromDir skips the same SKILL.md: 'description is required'", () => {
		const ws = perTest.workspace();
		const dir = join(ws.root, "skills");
		mkdirSync(join(dir, "example-skill"), { recursive: true });
		writeFileSync(
			join(dir, "example-skill", "SKILL.md"),
			"\uFEFF---\r\nname: example-skill\r\ndescription: Example description.\r\n---\r\n",
		);
		const loaded = piLoadSkillsFromDir({ dir, source: "user" });
		expect(loaded.skills).toEqual([]);
		expect(loaded.diagnostics.map((d) => d.message)).toEqual(["description is required"]);
	});
});
