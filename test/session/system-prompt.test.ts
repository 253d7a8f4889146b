import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import type { Skill } from "../../src/resources/types.js";
import type { SystemMessage } from "../../src/session/messages.js";
import {
	buildSystemPrompt,
	buildSystemPromptSections,
	DEFAULT_SYSTEM_PREAMBLE,
	diffSystemPrompt,
	renderSystemPrompt,
	type SystemPromptOptions,
	SystemPromptTracker,
	systemPromptFromTranscript,
	systemPromptOptionsFromResources,
} from "../../src/session/system-prompt.js";
import { atTime, copyFixture, LAST_MINUTE_OF_DAY, tempDir } from "../settings/helpers.js";

const NOW = LAST_MINUTE_OF_DAY;

function skill(name: string, disableModelInvocation = false): Skill {
	const filePath = `/skills/${name}/SKILL.md`;
	return {
		name,
		description: `${name} description`,
		filePath,
		baseDir: `/skills/${name}`,
		sourceInfo: { path: filePath, source: "local", scope: "project", origin: "top-level" },
		disableModelInvocation,
	};
}

const full: SystemPromptOptions = {
	cwd: "/work/repo",
	selectedTools: ["read", "bash", "grep", "custom"],
	toolSnippets: { read: "Read file contents", bash: "Run a shell\n  command", custom: "  " },
	promptGuidelines: ["Use custom carefully.", " Use custom carefully. ", "", "Read before editing."],
	skills: [skill("code-review"), skill("hidden", true)],
	contextFiles: [
		{ path: "/home/me/.settle/agent/AGENTS.md", content: "Global rules.\n" },
		{ path: "/work/repo/AGENTS.md", content: "Repo rules.\n\n" },
	],
	appendSystemPrompt: ["Appended one.\n", "", "Appended two."],
	now: NOW,
};

describe("buildSystemPromptSections", () => {
	it("builds every section in order", () => {
		const sections = buildSystemPromptSections(full);
		expect(sections.map((section) => section.id)).toEqual([
			"preamble",
			"tools",
			"guidelines",
			"skills",
			"project_context",
			"addendum",
			"cwd",
			"date",
		]);
		const text = Object.fromEntries(sections.map((section) => [section.id, section.text]));
		expect(text.preamble).toBe(DEFAULT_SYSTEM_PREAMBLE);
		// Only tools with a (normalized, non-empty) snippet are listed, in active order.
		expect(text.tools).toBe("- read: Read file contents\n- bash: Run a shell command");
		expect(text.guidelines).toBe(
			[
				"- Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)",
				"- Use custom carefully.",
				"- Read before editing.",
				"- Be concise in your responses",
				"- Show file paths clearly when working with files",
			].join("\n"),
		);
		expect(text.skills).toContain("<name>code-review</name>");
		expect(text.skills).not.toContain("hidden");
		expect(text.project_context).toBe(
			"Project-specific instructions and guidelines:\n\n## /home/me/.settle/agent/AGENTS.md\n\nGlobal rules.\n\n## /work/repo/AGENTS.md\n\nRepo rules.",
		);
		expect(text.addendum).toBe("Appended one.\n\nAppended two.");
		expect(text.cwd).toBe("Current working directory: /work/repo");
		expect(text.date).toBe("Current date: 2025-01-31");
	});

	it("renders the preamble plain and the other sections as tags", () => {
		const prompt = buildSystemPrompt({
			cwd: "C:\\repo",
			customPrompt: "  Be brief.  ",
			selectedTools: ["bash"],
			now: () => NOW,
		});
		expect(prompt).toBe(
			[
				"Be brief.",
				"<tools>\n(none)\n</tools>",
				"<guidelines>\n- Use bash for file operations like ls, rg, find\n- Be concise in your responses\n- Show file paths clearly when working with files\n</guidelines>",
				"<cwd>\nCurrent working directory: C:/repo\n</cwd>",
				"<date>\nCurrent date: 2025-01-31\n</date>",
			].join("\n\n"),
		);
	});

	it("lists skills only when the read tool is active", () => {
		const ids = (options: Partial<SystemPromptOptions>) =>
			buildSystemPromptSections({ ...full, ...options }).map((section) => section.id);
		expect(ids({ selectedTools: ["bash"] })).not.toContain("skills");
		expect(ids({ skills: [skill("only-hidden", true)] })).not.toContain("skills");
		expect(ids({ selectedTools: undefined })).toContain("skills");
	});

	it("adds extra sections in id order before cwd and rejects invalid ids", () => {
		const sections = buildSystemPromptSections({
			...full,
			sections: { plan_mode: "Plan only.", a_note: " ", beta: "B" },
		});
		expect(sections.map((section) => section.id).slice(-4)).toEqual(["beta", "plan_mode", "cwd", "date"]);
		for (const id of ["tools", "Plan", "9lives", "with-dash"]) {
			expect(() => buildSystemPromptSections({ cwd: "/", sections: { [id]: "x" } })).toThrow(SettleError);
		}
		expect(() => buildSystemPromptSections({ cwd: "/", sections: { preamble: "x" } })).toThrow(
			'Invalid system prompt section name "preamble"',
		);
	});

	it("can leave the date out", () => {
		const ids = buildSystemPromptSections({ cwd: "/", includeDate: false }).map((section) => section.id);
		expect(ids.at(-1)).toBe("cwd");
	});

	it("lists a multi-line tool snippet on one line", () => {
		const prompt = buildSystemPrompt({
			cwd: "/",
			includeDate: false,
			selectedTools: ["deploy"],
			toolSnippets: { deploy: " Deploy the\n\tcurrent  branch " },
		});
		expect(prompt).toContain("- deploy: Deploy the current branch");
	});

	it("carries every piece of guidance pi 0.73's prompt gives for the same options", async () => {
		const pi = (await import(
			pathToFileURL(resolve("node_modules/@mariozechner/pi-coding-agent/dist/core/system-prompt.js")).href
		)) as { buildSystemPrompt(options: object): string };
		const options = {
			...full,
			toolSnippets: { read: "Read file contents", bash: "Run a shell command" },
			appendSystemPrompt: "Appended.",
		};
		// pi reads the clock: stopped at Settle's `now`, both prompts are of the same day.
		const piPrompt = atTime(NOW, () => pi.buildSystemPrompt(options));
		const ours = Object.fromEntries(buildSystemPromptSections(options).map((section) => [section.id, section.text]));
		for (const id of ["tools", "guidelines", "skills", "addendum", "cwd", "date"]) expect(piPrompt).toContain(ours[id]);
		expect(ours.date).toBe("Current date: 2025-01-31");
		for (const file of full.contextFiles!) expect(piPrompt).toContain(`## ${file.path}\n\n${file.content.trimEnd()}`);
	});
});

describe("systemPromptOptionsFromResources", () => {
	it("takes the custom prompt, appended prompts, skills, context files and tool prompts from a loader", async () => {
		const cwd = copyFixture("custom-prompt");
		const loader = new DefaultResourceLoader({ cwd, agentDir: copyFixture("_agent"), homeDir: tempDir() });
		await loader.reload();
		const options = systemPromptOptionsFromResources({
			cwd,
			resources: loader,
			tools: [
				{ name: "read", promptSnippet: "Read\nfiles", promptGuidelines: ["Read first.", " Read first."] },
				{ name: "write" },
			],
			now: NOW,
		});
		expect(options).toMatchObject({
			customPrompt: "You are a release engineer.\n",
			selectedTools: ["read", "write"],
			toolSnippets: { read: "Read files" },
			promptGuidelines: ["Read first."],
			// One string, as pi's (each appended text trimmed, joined by blank lines; absent when none).
			appendSystemPrompt: "Never push on Fridays.",
		});
		const prompt = buildSystemPrompt(options);
		expect(prompt.startsWith("You are a release engineer.\n\n<tools>\n- read: Read files\n</tools>")).toBe(true);
		expect(prompt).toContain("<name>global-skill</name>");
		expect(prompt).toContain(`## ${join(loader.agentDir, "AGENTS.md")}`);
		expect(prompt).toContain("<addendum>\nNever push on Fridays.\n</addendum>");
	});

	it("works with the in-memory test loader", () => {
		const loader = createTestResourceLoader({
			skills: [skill("x")],
			agentsFiles: [{ path: "/v/AGENTS.md", content: "v" }],
		});
		const options = systemPromptOptionsFromResources({ cwd: "/v", resources: loader, tools: [{ name: "read" }] });
		expect(options.customPrompt).toBeUndefined();
		expect(buildSystemPromptSections(options).map((section) => section.id)).toContain("skills");
	});
});

describe("diffSystemPrompt", () => {
	const base = buildSystemPromptSections({ ...full, includeDate: false });

	it("records a baseline when there is no previous prompt", () => {
		expect(diffSystemPrompt(undefined, base, undefined, ["read", "bash"], { timestamp: 5 })).toEqual({
			role: "system",
			kind: "baseline",
			content: renderSystemPrompt(base),
			sections: base,
			tools: { active: ["read", "bash"], added: ["read", "bash"] },
			timestamp: 5,
		});
	});

	it("returns nothing when neither sections nor tools changed", () => {
		expect(
			diffSystemPrompt(base, buildSystemPromptSections({ ...full, includeDate: false }), ["a"], ["a"]),
		).toBeUndefined();
	});

	it("records only the changed sections; a removed section has empty text", () => {
		const next = buildSystemPromptSections({
			...full,
			includeDate: false,
			contextFiles: [],
			appendSystemPrompt: "Changed.",
		});
		const message = diffSystemPrompt(base, next, ["read"], ["read"], { timestamp: 9 });
		expect(message).toEqual({
			role: "system",
			kind: "patch",
			content: renderSystemPrompt(next),
			sections: [
				{ id: "addendum", text: "Changed." },
				{ id: "project_context", text: "" },
			],
			tools: { active: ["read"] },
			timestamp: 9,
		});
	});

	it("records tools added and removed, and an order change alone", () => {
		const patch = diffSystemPrompt(base, base, ["read", "bash"], ["bash", "edit"], { timestamp: 1 });
		expect(patch).toMatchObject({
			kind: "patch",
			sections: [],
			tools: { active: ["bash", "edit"], added: ["edit"], removed: ["read"] },
		});
		expect(diffSystemPrompt(base, base, ["a", "b"], ["b", "a"])?.tools).toEqual({ active: ["b", "a"] });
	});
});

describe("systemPromptFromTranscript", () => {
	const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 0 });

	it("returns undefined without system messages", () => {
		expect(systemPromptFromTranscript([user("hi")])).toBeUndefined();
	});

	it("replays baseline and patches across other messages", () => {
		const first = buildSystemPromptSections({ ...full, now: NOW });
		const second = buildSystemPromptSections({ ...full, now: new Date(2025, 1, 1), sections: { plan_mode: "Plan." } });
		const third = buildSystemPromptSections({ ...full, now: new Date(2025, 1, 1), contextFiles: [] });
		const baseline = diffSystemPrompt(undefined, first, undefined, ["read"])!;
		const patch1 = diffSystemPrompt(first, second, ["read"], ["read", "bash"])!;
		const patch2 = diffSystemPrompt(second, third, ["read", "bash"], ["bash"])!;
		const transcript: AgentMessage[] = [baseline, user("a"), patch1, user("b"), patch2, user("c")];
		const replayed = systemPromptFromTranscript(transcript)!;
		expect(replayed.prompt).toBe(renderSystemPrompt(third));
		expect(replayed.sections).toEqual(third);
		expect(renderSystemPrompt(replayed.sections)).toBe(replayed.prompt);
		expect(replayed.tools).toEqual(["bash"]);
		expect(replayed.message).toBe(patch2);
		// The prompt in effect at an earlier request: replay the prefix.
		expect(systemPromptFromTranscript(transcript.slice(0, 4))!.prompt).toBe(renderSystemPrompt(second));
		// A JSON round trip (session file) replays the same.
		expect(systemPromptFromTranscript(JSON.parse(JSON.stringify(transcript)))!.sections).toEqual(third);
	});

	it("restarts at the last baseline and accepts a content-only system message", () => {
		const sections = buildSystemPromptSections({ cwd: "/x", now: NOW });
		const plain: SystemMessage = { role: "system", content: "Exact prompt.", timestamp: 1 };
		const replayed = systemPromptFromTranscript([diffSystemPrompt(undefined, sections, undefined, [])!, plain])!;
		expect(replayed).toEqual({ prompt: "Exact prompt.", sections: [], tools: [], message: plain });
		// The next change from there is a patch carrying every section.
		const next = diffSystemPrompt(replayed.sections, sections, replayed.tools, [])!;
		expect(next.kind).toBe("patch");
		expect(next.sections).toEqual(sections);
	});
});

describe("SystemPromptTracker", () => {
	it("emits a baseline, then patches only on change, starting from a transcript", () => {
		const a = buildSystemPromptSections({ cwd: "/a", now: NOW });
		const b = buildSystemPromptSections({ cwd: "/b", now: NOW });
		const fresh = SystemPromptTracker.fromTranscript([]);
		expect(fresh.current()).toBeUndefined();
		const baseline = fresh.next(a, ["read"], { timestamp: 1 })!;
		expect(baseline.kind).toBe("baseline");
		expect(fresh.next(a, ["read"])).toBeUndefined();
		const patch = fresh.next(b, ["read"], { timestamp: 2 })!;
		expect(patch.sections).toEqual([{ id: "cwd", text: "Current working directory: /b" }]);
		expect(fresh.current()).toEqual({ sections: b, tools: ["read"] });

		const resumed = SystemPromptTracker.fromTranscript([baseline, patch]);
		expect(resumed.next(b, ["read"])).toBeUndefined();
		expect(resumed.next(b, [])!.tools).toEqual({ active: [], removed: ["read"] });
	});
});
