/**
 * Differential: pi 0.73.1's example extensions that switch the session between modes (plan mode,
 * presets of model / thinking / tools / instructions) run unchanged on pi's `createAgentSession`
 * and Settle's (see pi-examples-peers.ts), answering their dialogs from the scripted UI.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { eventPayloads, fileShape, observe } from "../parity/normalize.js";
import { onBothWithExamples, runCommands } from "./pi-examples-peers.js";

describe("pi examples, differential: modes", () => {
	it("plan-mode: read-only tools and a bash allowlist while planning; executing the plan from agent_end (pi 0.73.1 strands it)", async () => {
		const { pi, settle } = await onBothWithExamples(
			["plan-mode"],
			{ answers: ["Execute the plan (track progress)"] },
			async ({ peer, ui }) => {
				peer.script([
					{
						toolCalls: [
							{ id: "p1", name: "bash", args: { command: "rm -rf src" } },
							{ id: "p2", name: "bash", args: { command: "echo looking" } },
						],
					},
					{ text: "Plan:\n1. Create the config file\n2. Write the unit tests" },
					{ text: "Created it. [DONE:1]" },
					{ text: "Tests written. [DONE:2]" },
				]);
				await runCommands(peer, "/todos", "/plan");
				await peer.prompt("plan the work");
				await peer.quiesce();
				const afterPlanning = peer.requests.length;
				await runCommands(peer, "/todos");
				await peer.prompt("continue");
				await peer.quiesce();
				return {
					afterPlanning,
					requests: peer.requests.map((r) => ({ tools: r.tools, last: r.messages.at(-1)?.split("\n")[0] })),
					tools: eventPayloads(peer.recorded, ["tool_execution_end"]),
					planState: peer
						.fileEntries()
						.filter((e) => e.customType === "plan-mode")
						.map((e) => e.data),
					customMessages: peer
						.fileEntries()
						.filter((e) => e.type === "custom_message")
						.map((e) => e.customType),
					ui: ui.log,
				};
			},
		);
		// The same up to the "what next?" answer: plan-mode tools, the blocked rm, the allowlisted echo.
		const planning = [
			{ tools: ["read", "bash", "grep", "find", "ls"], last: "user: [PLAN MODE ACTIVE]" },
			{ tools: ["read", "bash", "grep", "find", "ls"], last: "toolResult bash: looking" },
		];
		expect(pi.tools.slice(0, 2)).toEqual(settle.tools.slice(0, 2));
		expect(pi.tools.find((t) => t.toolCallId === "p1")?.isError).toBe(true);
		const select = [
			"select",
			"Plan mode - what next?",
			["Execute the plan (track progress)", "Stay in plan mode", "Refine the plan"],
		];
		expect(pi.ui.slice(0, pi.ui.findIndex((c) => c[0] === "select") + 1)).toEqual(
			settle.ui.slice(0, settle.ui.findIndex((c) => c[0] === "select") + 1),
		);
		expect(settle.ui).toContainEqual(select);
		// Choosing "Execute" sends plan-mode-execute with triggerTurn from the agent_end handler. Settle
		// runs it in the same operation (as the example means it: execution starts at once);
		// pi 0.73.1 queues it while its agent_end is still being delivered and never starts the turn,
		// so execution begins only with the user's next prompt (same cause as the followUp case in
		// test/parity/divergences.test.ts).
		expect(settle.afterPlanning).toBe(3);
		expect(settle.requests).toEqual([
			...planning,
			{ tools: ["read", "bash", "edit", "write"], last: "user: Execute the plan. Start with: Config file" },
			{ tools: ["read", "bash", "edit", "write"], last: "user: [EXECUTING PLAN - Full tool access enabled]" },
		]);
		expect(settle.customMessages).toEqual([
			"plan-mode-context",
			"plan-mode-execute",
			"plan-todo-list",
			"plan-execution-context",
			"plan-complete",
		]);
		expect(pi.afterPlanning).toBe(2);
		expect(pi.requests).toEqual([
			...planning,
			{ tools: ["read", "bash", "edit", "write"], last: "user: **Plan Steps (2):**" },
			{ tools: ["read", "bash", "edit", "write"], last: "user: Execute the plan. Start with: Config file" },
		]);
		// Both finish the plan and clear its state.
		expect(pi.planState.at(-1)).toEqual({ enabled: false, todos: [], executing: false });
		expect(settle.planState.at(-1)).toEqual(pi.planState.at(-1));
		expect(pi.ui.at(-2)).toEqual(["setStatus", "plan-mode", undefined]);
		expect(settle.ui.at(-2)).toEqual(pi.ui.at(-2));
	});

	it("preset.ts + model-status.ts: /preset switches model, thinking, tools and instructions", async () => {
		let instructed: boolean[] = [];
		const probe = (api: ExtensionAPI) =>
			api.on("agent_start", (_event, ctx) => void instructed.push(ctx.getSystemPrompt().endsWith("\n\nReview only.")));
		const presets = {
			review: {
				provider: "anthropic",
				model: "claude-sonnet-4-5",
				thinkingLevel: "high",
				tools: ["read", "grep", "no_such_tool"],
				instructions: "Review only.",
			},
			missing: { provider: "faux", model: "faux-9" },
		};
		const { pi, settle } = await onBothWithExamples(
			["preset.ts", "model-status.ts"],
			{
				modelCatalog: true,
				extensions: [probe],
				setup: (dirs) => {
					mkdirSync(join(dirs.cwd, ".pi"), { recursive: true });
					writeFileSync(join(dirs.cwd, ".pi", "presets.json"), JSON.stringify(presets));
				},
			},
			async ({ peer, ui }) => {
				instructed = [];
				peer.script([{ text: "Reviewed." }]);
				await runCommands(peer, "/preset nope", "/preset missing", "/preset review");
				await peer.prompt("review this");
				await peer.quiesce();
				return {
					...observe(peer),
					file: fileShape(peer.fileEntries()),
					presetState: peer
						.fileEntries()
						.filter((e) => e.customType === "preset-state")
						.map((e) => e.data),
					instructed,
					ui: ui.log,
				};
			},
		);
		expect(pi.requests[0]?.tools).toEqual(["read", "grep"]);
		expect(pi.instructed).toEqual([true]);
		expect(pi.presetState).toEqual([{ name: "review" }]);
		expect(pi.ui.filter((c) => c[0] === "notify")).toEqual([
			["notify", 'Unknown preset "nope". Available: review, missing', "error"],
			["notify", 'Preset "missing": Model faux/faux-9 not found', "warning"],
			["notify", 'Preset "missing" activated', "info"],
			["notify", 'Preset "review": No API key for anthropic/claude-sonnet-4-5', "warning"],
			["notify", 'Preset "review": Unknown tools: no_such_tool', "warning"],
			["notify", 'Preset "review" activated', "info"],
		]);
		expect(settle).toEqual(pi);
	});
});
