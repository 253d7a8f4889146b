/**
 * Differential: pi 0.73.1's example extensions that register tools, rewrite input, compact or stop
 * the session, run unchanged on pi's `createAgentSession` and Settle's (see pi-examples-peers.ts),
 * with real bash and real files.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { eventPayloads, observe } from "../parity/normalize.js";
import { onBothWithExamples, runCommands } from "./pi-examples-peers.js";

describe("pi examples, differential: tools and input", () => {
	it("structured-output.ts: a terminating tool result ends the run without another model request", async () => {
		const { pi, settle } = await onBothWithExamples(["structured-output.ts"], {}, async ({ peer }) => {
			peer.script([
				{
					toolCalls: [
						{
							id: "s1",
							name: "structured_output",
							args: { headline: "Plan", summary: "Do it.", actionItems: ["one", "two"] },
						},
					],
				},
				{ text: "Never asked for." },
			]);
			await peer.prompt("summarize as structured output");
			await peer.quiesce();
			return { ...observe(peer), tools: eventPayloads(peer.recorded, ["tool_execution_end"]) };
		});
		expect(pi.requests).toHaveLength(1);
		expect(pi.tools).toEqual([
			{
				type: "tool_execution_end",
				toolCallId: "s1",
				toolName: "structured_output",
				result: [{ type: "text", text: "Saved structured output: Plan" }],
				isError: false,
			},
		]);
		expect(settle).toEqual(pi);
	});

	it("inline-bash.ts: !{command} in a prompt is replaced by the real command's output", async () => {
		const { pi, settle } = await onBothWithExamples(["inline-bash.ts"], {}, async ({ peer, ui }) => {
			peer.script([{ text: "Seen." }, { text: "Seen too." }]);
			await peer.prompt("files: !{printf 'a b'} and !{echo oops >&2; exit 3}");
			await peer.prompt("!ls stays a plain prompt");
			await peer.quiesce();
			return { ...observe(peer), ui: ui.log };
		});
		expect(pi.requests.map((r) => r.messages.at(-1))).toEqual([
			"user: files: a b and oops",
			"user: !ls stays a plain prompt",
		]);
		expect(pi.ui).toEqual([
			[
				"notify",
				'Expanded 2 inline command(s):\n!{printf \'a b\'} -> "a b"\n!{echo oops >&2; exit 3} (exit code 3) -> "oops"',
				"info",
			],
		]);
		expect(settle).toEqual(pi);
	});

	it("claude-rules.ts: rule files found at session start are listed in the system prompt", async () => {
		let rulesInPrompt: boolean[] = [];
		const probe = (api: ExtensionAPI) =>
			api.on(
				"agent_start",
				(_event, ctx) => void rulesInPrompt.push(ctx.getSystemPrompt().includes("- .claude/rules/style/naming.md")),
			);
		const { pi, settle } = await onBothWithExamples(
			["claude-rules.ts"],
			{
				extensions: [probe],
				setup: (dirs) => {
					mkdirSync(join(dirs.cwd, ".claude", "rules", "style"), { recursive: true });
					writeFileSync(join(dirs.cwd, ".claude", "rules", "style", "naming.md"), "# Naming\n");
					writeFileSync(join(dirs.cwd, ".claude", "rules", "notes.txt"), "not a rule\n");
				},
			},
			async ({ peer, ui }) => {
				rulesInPrompt = [];
				peer.script([{ text: "Ok." }]);
				await peer.prompt("work");
				await peer.quiesce();
				return { ...observe(peer), ui: ui.log, rulesInPrompt };
			},
		);
		expect(pi.rulesInPrompt).toEqual([true]);
		expect(pi.ui).toEqual([["notify", "Found 1 rule(s) in .claude/rules/", "info"]]);
		expect(settle).toEqual(pi);
	});

	it("shutdown-command.ts: /quit and the exit tools call the host's shutdown handler", async () => {
		let shutdowns: string[] = [];
		const { pi, settle } = await onBothWithExamples(
			["shutdown-command.ts"],
			{ shutdownHandler: () => void shutdowns.push("shutdown") },
			async ({ peer }) => {
				shutdowns = [];
				peer.script([
					{ toolCalls: [{ id: "d1", name: "deploy_and_exit", args: { environment: "staging" } }] },
					{ text: "Deployed." },
				]);
				await peer.prompt("deploy");
				await peer.quiesce();
				const afterTool = shutdowns.length;
				await runCommands(peer, "/quit");
				return {
					...observe(peer),
					tools: eventPayloads(peer.recorded, ["tool_execution_update", "tool_execution_end"]),
					afterTool,
					shutdowns: shutdowns.length,
				};
			},
		);
		expect(pi.tools.filter((t) => t.type === "tool_execution_update")).toHaveLength(2);
		expect(pi.shutdowns).toBeGreaterThan(pi.afterTool);
		expect(settle).toEqual(pi);
	});

	it("trigger-compact.ts: /trigger-compact compacts with the given instructions and reports completion", async () => {
		const settings = { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 } };
		const { pi, settle } = await onBothWithExamples(["trigger-compact.ts"], { settings }, async ({ peer, ui }) => {
			peer.script([
				{ text: "First answer, long enough to be worth summarizing." },
				{ text: "Second answer." },
				{ text: "The summary." },
				{ text: "The turn prefix summary." },
			]);
			await peer.prompt("first");
			await peer.prompt("second");
			await runCommands(peer, "/trigger-compact keep the names");
			await peer.quiesce();
			// ctx.compact() is fire-and-forget: wait for its completion notice.
			for (
				let i = 0;
				i < 100 && !ui.log.some((c) => String(c[1]).startsWith("Compaction ") && c[1] !== "Compaction started");
				i++
			)
				await new Promise<void>((resolve) => setImmediate(resolve));
			const observed = observe(peer);
			const resolved = observed.events.indexOf("<<prompt resolved: /trigger-compact keep the names>>");
			return {
				...observed,
				// ctx.compact() is fire-and-forget: where the command's prompt() resolves among the
				// compaction's events is timing, pinned below, not compared.
				events: observed.events.filter((_, i) => i !== resolved),
				commandResolvedBefore: observed.events[resolved + 1],
				compaction: eventPayloads(peer.recorded, ["compaction_start", "compaction_end"]),
				ui: ui.log,
			};
		});
		// pi 0.73.1 emits compaction_start after one `await this.abort()` on an idle agent, before the
		// command's prompt() resolves; Settle runs the compaction inside the command's operation, so
		// the prompt resolves after compaction_end. Both run it to the end with the same result.
		expect(pi.commandResolvedBefore).toBe("compaction_end");
		expect(settle.commandResolvedBefore).toBeUndefined();
		settle.commandResolvedBefore = pi.commandResolvedBefore;
		expect(pi.ui).toEqual([
			["notify", "Compaction started", "info"],
			["notify", "Compaction completed", "info"],
		]);
		expect(pi.requests.slice(2).map((r) => r.system)).toEqual(["summarizer", "summarizer"]);
		expect(pi.requests[2]?.messages.at(-1)).toContain("Additional focus: keep the names");
		expect(settle).toEqual(pi);
	});
});
