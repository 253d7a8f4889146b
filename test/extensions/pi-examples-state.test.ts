/**
 * Differential: pi 0.73.1's example extensions that keep state in the session, shape the system
 * prompt or the provider payload, or wrap built-in tools, run unchanged on pi's `createAgentSession`
 * and Settle's (see pi-examples-peers.ts), with real files and real child processes.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { eventPayloads, eventSequence, fileShape, observe } from "../parity/normalize.js";
import { createPeer } from "../parity/peers.js";
import { EXAMPLES, onBothWithExamples } from "./pi-examples-peers.js";

/** An inline extension logging the system prompt of each run from `marker` on (null without it). */
function systemPromptProbe(marker: string, log: () => (string | null)[]) {
	return (api: ExtensionAPI) =>
		api.on("agent_start", (_event, ctx) => {
			const prompt = ctx.getSystemPrompt();
			const at = prompt.indexOf(marker);
			log().push(at === -1 ? null : prompt.slice(at));
		});
}

/**
 * provider-payload.ts's log as tokens: `[status] headers` lines as they are, each pretty-printed
 * payload (from a `{` line to a `}` line; its texts may hold blank lines) as the roles it sends.
 */
function payloadLog(log: string): string[] {
	const out: string[] = [];
	const lines = log.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i]!;
		if (/^\[\d+\] /.test(line)) out.push(line);
		if (line !== "{") continue;
		const end = lines.indexOf("}", i);
		const payload = JSON.parse(lines.slice(i, end + 1).join("\n")) as { messages: { role: string }[] };
		out.push(`payload: ${payload.messages.map((m) => m.role).join(" ")}`);
		i = end;
	}
	return out;
}

describe("pi examples, differential: state, prompts and payloads", () => {
	it("todo.ts: the todo tool keeps its list, and a reopened session rebuilds it from tool results", async () => {
		const { pi, settle } = await onBothWithExamples(["todo.ts"], {}, async ({ peer }) => {
			peer.script([
				{
					toolCalls: [
						{ id: "t1", name: "todo", args: { action: "add", text: "write tests" } },
						{ id: "t2", name: "todo", args: { action: "add", text: "ship" } },
						{ id: "t3", name: "todo", args: { action: "toggle", id: 1 } },
						{ id: "t4", name: "todo", args: { action: "toggle", id: 9 } },
					],
				},
				{ text: "Listed." },
			]);
			await peer.prompt("plan");
			await peer.quiesce();
			const first = {
				...observe(peer),
				// pi 0.73.1 may resolve prompt() before its queued agent_end reaches listeners (peers.ts drainEvents).
				events: eventSequence(peer.recorded, { marks: false }),
				tools: eventPayloads(peer.recorded, ["tool_execution_end"]),
			};
			// A copy: Settle's first session still holds its file's write lock.
			const file = join(peer.dirs.root, "reopened.jsonl");
			copyFileSync(peer.session.sessionFile!, file);
			const reopened = await createPeer(
				peer.name,
				{ openFile: file, extensionPaths: [join(EXAMPLES, "todo.ts")] },
				{ ...peer.dirs },
			);
			reopened.script([{ toolCalls: [{ id: "t5", name: "todo", args: { action: "list" } }] }, { text: "Done." }]);
			await reopened.prompt("what is left?");
			await reopened.quiesce();
			const second = eventPayloads(reopened.recorded, ["tool_execution_end"]);
			reopened.session.dispose();
			return { first, second };
		});
		expect(pi.second).toEqual([
			{
				type: "tool_execution_end",
				toolCallId: "t5",
				toolName: "todo",
				result: [{ type: "text", text: "[x] #1: write tests\n[ ] #2: ship" }],
				isError: false,
			},
		]);
		expect(settle).toEqual(pi);
	});

	it("truncated-tool.ts: rg output past 2000 lines is truncated and saved to a temp file", async () => {
		const { pi, settle } = await onBothWithExamples(
			["truncated-tool.ts"],
			{ setup: (dirs) => writeFileSync(join(dirs.cwd, "big.txt"), "needle\n".repeat(2500)) },
			async ({ peer }) => {
				peer.script([
					{
						toolCalls: [
							{ id: "r1", name: "rg", args: { pattern: "needle" } },
							{ id: "r2", name: "rg", args: { pattern: "haystack" } },
						],
					},
					{ text: "Found." },
				]);
				await peer.prompt("search");
				await peer.quiesce();
				const ends = peer.recorded.flatMap((r) =>
					r.kind === "event" && r.event.type === "tool_execution_end" ? [r.event] : [],
				);
				const r1 = ends.find((end) => end.toolCallId === "r1")?.result as
					| { details?: { fullOutputPath?: string } }
					| undefined;
				const saved = r1?.details?.fullOutputPath;
				const savedText = saved && existsSync(saved) ? readFileSync(saved, "utf8") : undefined;
				if (saved) rmSync(dirname(saved), { recursive: true, force: true });
				// Both calls run in parallel: compare them in call order.
				const tools = eventPayloads(peer.recorded, ["tool_execution_end"]).sort((a, b) =>
					String(a.toolCallId).localeCompare(String(b.toolCallId)),
				);
				const observed = { ...observe(peer), tools, savedLines: savedText?.split("\n").length };
				return JSON.parse(
					JSON.stringify(observed).replace(/\/[^"\s]*pi-rg-[^/]+\/output\.txt/g, "<saved>"),
				) as typeof observed;
			},
		);
		const first = JSON.stringify(pi.tools[0]);
		expect(first).toContain("[Output truncated: showing 2000 of 2501 lines");
		expect(first).toContain("Full output saved to: <saved>]");
		expect(pi.savedLines).toBe(2501);
		expect(pi.tools[1]?.result).toEqual([{ type: "text", text: "No matches found" }]);
		expect(settle).toEqual(pi);
	});

	it("prompt-customizer.ts: tool guidance follows the active tools in the system prompt", async () => {
		let prompts: (string | null)[] = [];
		const { pi, settle } = await onBothWithExamples(
			["prompt-customizer.ts"],
			{ extensions: [systemPromptProbe("## Tool Guidance", () => prompts)] },
			async ({ peer }) => {
				prompts = [];
				peer.script([{ text: "Ok." }]);
				await peer.prompt("hi");
				await peer.quiesce();
				return { ...observe(peer), prompts };
			},
		);
		expect(pi.prompts[0]).toContain("• Use the `read` tool");
		expect(pi.prompts[0]).toContain("## Extension-Added Context");
		expect(settle).toEqual(pi);
	});

	it("provider-payload.ts: each provider request's payload is appended to .pi/provider-payload.log", async () => {
		const previous = process.cwd();
		const { pi, settle } = await onBothWithExamples(
			["provider-payload.ts"],
			{
				payloadHook: true,
				// The example logs under process.cwd(), read when its factory runs.
				setup: (dirs) => {
					process.chdir(dirs.cwd);
					writeFileSync(join(dirs.cwd, ".keep"), "");
				},
			},
			async ({ peer }) => {
				try {
					mkdirSync(join(peer.dirs.cwd, ".pi"), { recursive: true });
					peer.script([{ text: "One." }, { text: "Two." }]);
					await peer.prompt("first");
					await peer.prompt("second");
					await peer.quiesce();
					const log = readFileSync(join(peer.dirs.cwd, ".pi", "provider-payload.log"), "utf8");
					return { ...observe(peer), log: payloadLog(log) };
				} finally {
					process.chdir(previous);
				}
			},
		);
		expect(pi.log).toEqual(["[200] {}", "payload: user", "[200] {}", "payload: user assistant user"]);
		expect(settle).toEqual(pi);
	});

	it("bash-spawn-hook.ts: the replacement bash tool runs commands through the spawn hook", async () => {
		const previous = process.cwd();
		const { pi, settle } = await onBothWithExamples(
			["bash-spawn-hook.ts"],
			{ setup: (dirs) => process.chdir(dirs.cwd) },
			async ({ peer }) => {
				try {
					peer.script([
						{ toolCalls: [{ id: "b1", name: "bash", args: { command: "echo hook=$PI_SPAWN_HOOK; pwd" } }] },
						{ text: "Ran." },
					]);
					await peer.prompt("run");
					await peer.quiesce();
					const observed = {
						...observe(peer),
						// How a real child's stdout is split into update chunks is the OS's timing.
						events: eventSequence(peer.recorded).filter((token) => token !== "tool_execution_update"),
						tools: eventPayloads(peer.recorded, ["tool_execution_end"]),
					};
					return JSON.parse(JSON.stringify(observed).replaceAll(peer.dirs.cwd, "<cwd>")) as typeof observed;
				} finally {
					process.chdir(previous);
				}
			},
		);
		expect(JSON.stringify(pi.tools)).toContain("hook=1\\n<cwd>\\n");
		expect(settle).toEqual(pi);
	});

	// With a Google key in the environment, pi's peer would call Gemini over the network.
	it.skipIf(process.env.GEMINI_API_KEY)(
		"custom-compaction.ts: without a Gemini key it says so and the default compaction runs",
		async () => {
			const settings = { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 } };
			const { pi, settle } = await onBothWithExamples(
				["custom-compaction.ts"],
				{ settings, modelCatalog: true },
				async ({ peer, ui }) => {
					peer.script([
						{ text: "First answer." },
						{ text: "Second answer." },
						{ text: "Summary." },
						{ text: "Prefix." },
					]);
					await peer.prompt("first");
					await peer.prompt("second");
					await peer.session.compact();
					await peer.quiesce();
					return { ...observe(peer), file: fileShape(peer.fileEntries()), ui: ui.log };
				},
			);
			expect(pi.ui).toEqual([
				["notify", "Custom compaction extension triggered", "info"],
				["notify", "No API key for google, using default compaction", "warning"],
			]);
			expect(pi.file).toContain("compaction");
			expect(settle).toEqual(pi);
		},
	);
});
