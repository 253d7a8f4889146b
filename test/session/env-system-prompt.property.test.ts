/**
 * Property: whatever happens to the prompt and the tools — changes between operations, mid-
 * operation, per-operation prompt options, reloads with edited files, boundary continuations —
 * the reopened session file replays, for every request, exactly the system prompt and tools that
 * request was sent (forced `before_agent_start` prompts excepted: they are never persisted).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";
import { openProject, replayRequests } from "./env-helpers.js";

const TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "alpha"] as const;
const toolSet = fc.subarray([...TOOL_NAMES], { minLength: 1 });

type Step =
	| { kind: "prompt" }
	| { kind: "setTools"; tools: string[] }
	| { kind: "midOperation"; tools: string[] }
	| { kind: "note" }
	| { kind: "forced" }
	| { kind: "reload"; agents: string }
	| { kind: "continue"; tools: string[] };

const step: fc.Arbitrary<Step> = fc.oneof(
	fc.constant<Step>({ kind: "prompt" }),
	toolSet.map((tools): Step => ({ kind: "setTools", tools })),
	toolSet.map((tools): Step => ({ kind: "midOperation", tools })),
	fc.constant<Step>({ kind: "note" }),
	fc.constant<Step>({ kind: "forced" }),
	fc.constantFrom("Rules A.", "Rules B.", "").map((agents): Step => ({ kind: "reload", agents })),
	toolSet.map((tools): Step => ({ kind: "continue", tools })),
);

describe("system prompt replay (property)", () => {
	it("the reopened transcript shows each request's prompt and tools", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
				let midOperationTools: string[] = [];
				let continueTools: string[] | undefined;
				const alpha: AnyToolDefinition = {
					name: "alpha",
					label: "alpha",
					description: "alpha",
					promptSnippet: "Use alpha",
					parameters: { type: "object", properties: {} },
					execute: async () => ({ content: [{ type: "text", text: "alpha" }], details: {} }),
				};
				const extension = (pi: ExtensionAPI) => {
					pi.registerTool(alpha as never);
					pi.on("tool_execution_end", () => pi.setActiveTools(midOperationTools));
					pi.on("before_agent_start", (event) => {
						if (event.prompt === "note") event.systemPromptOptions.appendSystemPrompt = ["Note for this operation."];
						if (event.prompt === "forced") return { systemPrompt: "Forced prompt." };
						return undefined;
					});
					pi.on("agent_before_settle", () => {
						if (!continueTools) return undefined;
						pi.setActiveTools(continueTools);
						continueTools = undefined;
						return {
							entries: [{ type: "custom_message", customType: "more", content: "more", display: false }],
							continue: true,
						};
					});
				};
				const p = await openProject({ files: { "AGENTS.md": "Rules." }, extensionFactories: [extension] });
				const forced = new Set<number>();
				try {
					for (const s of steps) {
						switch (s.kind) {
							case "setTools":
								p.session.setActiveToolsByName(s.tools);
								continue;
							case "reload":
								p.write("AGENTS.md", s.agents);
								await p.session.reload();
								continue;
							case "midOperation":
								midOperationTools = s.tools;
								p.faux.setResponses([
									fauxAssistantMessage([fauxToolCall("alpha", {})], { stopReason: "toolUse" }),
									fauxAssistantMessage("after tool"),
								]);
								// Without alpha active the model's call fails (Tool alpha not found); the turn still goes on.
								await p.session.prompt("mid");
								continue;
							case "continue":
								continueTools = s.tools;
								p.faux.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("continued")]);
								await p.session.prompt("continue");
								continue;
							default:
								if (s.kind === "forced") forced.add(p.faux.requests.length);
								p.faux.setResponses([fauxAssistantMessage("ok")]);
								await p.session.prompt(s.kind === "prompt" ? "plain" : s.kind);
						}
					}
					expect(p.errors).toEqual([]);
					if (p.faux.requests.length === 0) return;
					const replays = replayRequests(p.session.sessionFile ?? "", p.faux.requests);
					expect(replays).toHaveLength(p.faux.requests.length);
					for (const replay of replays) {
						if (forced.has(replay.request)) continue;
						expect(replay.replayedPrompt).toBe(replay.sentPrompt);
						expect(replay.replayedTools).toEqual(replay.sentTools);
					}
				} finally {
					p.cleanup();
				}
			}),
			{ numRuns: 25 },
		);
	});
});
