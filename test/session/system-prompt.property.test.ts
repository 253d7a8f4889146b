import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/llm/types.js";
import type { SystemMessage } from "../../src/session/messages.js";
import {
	buildSystemPromptSections,
	diffSystemPrompt,
	renderSystemPrompt,
	type SystemPromptOptions,
	systemPromptFromTranscript,
} from "../../src/session/system-prompt.js";

const toolNames = ["read", "bash", "edit", "write", "grep", "find", "ls", "custom"];
const word = fc.constantFrom("alpha", "beta", "gamma", "line\nbreak", "  padded  ", "");

/** One state of everything the prompt depends on. */
const promptState = fc.record({
	customPrompt: fc.option(word, { nil: undefined }),
	tools: fc.uniqueArray(fc.constantFrom(...toolNames), { maxLength: 5 }),
	snippets: fc.dictionary(fc.constantFrom(...toolNames), word, { maxKeys: 4 }),
	guidelines: fc.array(word, { maxLength: 3 }),
	append: fc.array(word, { maxLength: 2 }),
	context: fc.array(fc.record({ path: fc.constantFrom("/a/AGENTS.md", "/b/CLAUDE.md"), content: word }), {
		maxLength: 2,
	}),
	extra: fc.dictionary(fc.constantFrom("plan_mode", "notes", "zeta"), word, { maxKeys: 2 }),
	day: fc.integer({ min: 1, max: 3 }),
	cwd: fc.constantFrom("/repo", "/other"),
});

type State = typeof promptState extends fc.Arbitrary<infer T> ? T : never;

function options(state: State): SystemPromptOptions {
	return {
		cwd: state.cwd,
		...(state.customPrompt !== undefined ? { customPrompt: state.customPrompt } : {}),
		selectedTools: state.tools,
		toolSnippets: state.snippets,
		promptGuidelines: state.guidelines,
		appendSystemPrompt: state.append,
		contextFiles: state.context,
		sections: state.extra,
		now: new Date(2025, 5, state.day),
	};
}

describe("system prompt transcript properties", () => {
	it("replaying the recorded system messages always yields the prompt and tools in effect", () => {
		fc.assert(
			fc.property(fc.array(fc.tuple(promptState, fc.nat(2)), { minLength: 1, maxLength: 12 }), (steps) => {
				const transcript: AgentMessage[] = [];
				let expectedSections: ReturnType<typeof buildSystemPromptSections> | undefined;
				let expectedTools: string[] | undefined;
				let systemCount = 0;
				for (const [state, chatter] of steps) {
					const sections = buildSystemPromptSections(options(state));
					// What a resumed session does: diff against what the transcript says is in effect.
					const current = systemPromptFromTranscript(transcript);
					const message = diffSystemPrompt(current?.sections, sections, current?.tools, state.tools, { timestamp: 0 });
					const unchanged =
						expectedSections !== undefined &&
						JSON.stringify(expectedSections) === JSON.stringify(sections) &&
						JSON.stringify(expectedTools) === JSON.stringify(state.tools);
					expect(message === undefined).toBe(unchanged);
					if (message) {
						expect(message.kind).toBe(systemCount === 0 ? "baseline" : "patch");
						expect(message.content).toBe(renderSystemPrompt(sections));
						// A patch carries only sections whose text changed (removed ones as "").
						const before = new Map((current?.sections ?? []).map((section) => [section.id, section.text]));
						if (message.kind === "patch") {
							for (const section of message.sections ?? []) expect(before.get(section.id) ?? "").not.toBe(section.text);
						}
						transcript.push(message);
						systemCount++;
					}
					for (let index = 0; index < chatter; index++) transcript.push({ role: "user", content: "x", timestamp: 0 });
					expectedSections = sections;
					expectedTools = [...state.tools];

					const replayed = systemPromptFromTranscript(transcript)!;
					expect(replayed.sections).toEqual(sections);
					expect(replayed.prompt).toBe(renderSystemPrompt(sections));
					expect(renderSystemPrompt(replayed.sections)).toBe(replayed.prompt);
					expect(replayed.tools).toEqual(state.tools);
				}
				// Exactly one baseline.
				const systems = transcript.filter((message): message is SystemMessage => message.role === "system");
				expect(systems.filter((message) => message.kind === "baseline")).toHaveLength(1);
			}),
			{ numRuns: 200 },
		);
	});
});
