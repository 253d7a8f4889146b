/**
 * Differential: pi 0.73.1's example extensions whose tools, commands and messages pi shows with
 * its own terminal components (renderers, `ctx.ui.custom`), run unchanged on pi's
 * `createAgentSession` and Settle's (see pi-examples-peers.ts): what they do besides drawing —
 * tool results, files, messages, the answers of their non-terminal paths.
 */
import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventPayloads, observe } from "../parity/normalize.js";
import { type PiSearchEnvironment, setUpPiSearchEnvironment } from "../tools/pi-differential-search-env.js";
import type * as Peers from "./pi-examples-peers.js";

// pi's find passes --no-require-git, which the installed fd 8.6 rejects (a pi bug pinned in
// test/tools/pi-differential-search-pins.test.ts): pi's tools-manager gets the fd shim of the
// search differential, and rg sorts by path, so find and grep answer alike on both. pi reads its
// tools folder when it is first imported: the peers (and pi with them) are imported after that.
let search: PiSearchEnvironment;
let onBothWithExamples: typeof Peers.onBothWithExamples;
beforeAll(async () => {
	search = setUpPiSearchEnvironment();
	({ onBothWithExamples } = await import("./pi-examples-peers.js"));
});
afterAll(() => search.dispose());

describe("pi examples, differential: rendered elsewhere", () => {
	it("minimal-mode.ts: its seven re-registered built-in tools still act on the session's folder", async () => {
		const { pi, settle } = await onBothWithExamples(["minimal-mode.ts"], {}, async ({ peer }) => {
			writeFileSync(join(peer.dirs.cwd, "notes.txt"), "alpha\nbeta\n");
			peer.script([
				{
					toolCalls: [
						{ id: "r", name: "read", args: { path: "notes.txt" } },
						{ id: "w", name: "write", args: { path: "sub/new.txt", content: "fresh beta\n" } },
					],
				},
				{
					toolCalls: [
						{ id: "e", name: "edit", args: { path: "notes.txt", edits: [{ oldText: "beta", newText: "gamma" }] } },
					],
				},
				{ toolCalls: [{ id: "b", name: "bash", args: { command: "cat notes.txt sub/new.txt" } }] },
				{
					toolCalls: [
						{ id: "f", name: "find", args: { pattern: "*.txt" } },
						{ id: "g", name: "grep", args: { pattern: "beta" } },
						{ id: "l", name: "ls", args: {} },
					],
				},
				{ text: "Done." },
			]);
			await peer.prompt("use every tool");
			await peer.quiesce();
			// Tools of one batch run at once: the order they finish in is the processes' speed; and how
			// many chunks (tool_execution_update) bash's output arrives in is the pipe's timing.
			const tools = eventPayloads(peer.recorded, ["tool_execution_end"]) as { toolCallId: string }[];
			const observed = observe(peer);
			const events = observed.events.filter(
				(event, i, all) => event !== "tool_execution_update" || all[i - 1] !== event,
			);
			return { ...observed, events, tools: tools.sort((a, b) => a.toolCallId.localeCompare(b.toolCallId)) };
		});
		expect(settle.requests.at(-1)?.messages.slice(-7)).toEqual([
			"toolResult edit: Successfully replaced 1 block(s) in notes.txt.",
			'assistant: [call bash {"command":"cat notes.txt sub/new.txt"}] (toolUse)',
			"toolResult bash: alpha\ngamma\nfresh beta\n",
			'assistant: [call find {"pattern":"*.txt"}] [call grep {"pattern":"beta"}] [call ls {}] (toolUse)',
			"toolResult find: notes.txt\nsub/new.txt",
			"toolResult grep: sub/new.txt:1: fresh beta",
			"toolResult ls: notes.txt\nsub/",
		]);
		expect(settle).toEqual(pi);
	});

	it("message-renderer.ts: /status adds a custom message (level in details) the model sees on the next prompt", async () => {
		const { pi, settle } = await onBothWithExamples(["message-renderer.ts"], {}, async ({ peer }) => {
			peer.script([{ text: "Noted." }]);
			for (const command of ["/status build green", "/status warn disk at 91%", "/status error"]) {
				await peer.session.prompt(command);
			}
			await peer.prompt("what happened?");
			await peer.quiesce();
			const custom = peer
				.fileEntries()
				.filter((entry) => entry.type === "custom_message")
				.map(({ customType, content, display, details }) => ({
					customType,
					content,
					display,
					level: (details as { level: string }).level,
				}));
			// The example stamps each message's details with Date.now().
			return JSON.parse(JSON.stringify({ ...observe(peer), custom }), (key, value) =>
				key === "timestamp" ? "<time>" : value,
			) as ReturnType<typeof observe> & { custom: unknown[] };
		});
		expect(pi.custom).toEqual([
			{ customType: "status-update", content: "build green", display: true, level: "info" },
			{ customType: "status-update", content: "disk at 91%", display: true, level: "warn" },
			{ customType: "status-update", content: "Status update", display: true, level: "error" },
		]);
		expect(pi.requests[0]?.messages).toEqual([
			"user: build green",
			"user: disk at 91%",
			"user: Status update",
			"user: what happened?",
		]);
		expect(settle).toEqual(pi);
	});

	it("question.ts: without a UI, with no options, and when the user dismisses the picker", async () => {
		const script = [
			{
				toolCalls: [
					{ id: "q1", name: "question", args: { question: "Which DB?", options: [{ label: "Postgres" }] } },
					{ id: "q2", name: "question", args: { question: "Anything?", options: [] } },
				],
			},
			{ text: "Ok." },
		];
		const run = (headless: boolean) =>
			onBothWithExamples(["question.ts"], { headless }, async ({ peer, ui }) => {
				peer.script(script);
				await peer.prompt("ask me");
				await peer.quiesce();
				const results = eventPayloads(peer.recorded, ["tool_execution_end"]) as { toolCallId: string }[];
				return {
					results: results.sort((a, b) => a.toolCallId.localeCompare(b.toolCallId)),
					details: peer.fileEntries().flatMap((entry) => {
						const message = entry.message as { role?: string; details?: unknown } | undefined;
						return message?.role === "toolResult" ? [message.details] : [];
					}),
					ui: ui.log,
				};
			});
		const headless = await run(true);
		const withUI = await run(false);
		expect(headless.pi.details).toEqual([
			{ question: "Which DB?", options: ["Postgres"], answer: null },
			{ question: "Anything?", options: [], answer: null },
		]);
		expect(withUI.pi.ui).toEqual([["custom", "<component>"]]);
		const texts = (results: unknown[]) =>
			results.map((r) => (r as { result: { text: string }[] }).result.map((block) => block.text).join(""));
		expect(texts(headless.pi.results)).toEqual([
			"Error: UI not available (running in non-interactive mode)",
			"Error: UI not available (running in non-interactive mode)",
		]);
		expect(texts(withUI.pi.results)).toEqual(["User cancelled the selection", "Error: No options provided"]);
		expect(headless.settle).toEqual(headless.pi);
		expect(withUI.settle).toEqual(withUI.pi);
	});

	it("summarize.ts: nothing to summarize, then no key for openai/gpt-5.2 (the summary shows in pi's TUI)", async () => {
		const saved = process.env.OPENAI_API_KEY;
		delete process.env.OPENAI_API_KEY;
		try {
			const { pi, settle } = await onBothWithExamples(
				["summarize.ts"],
				{ modelCatalog: true },
				async ({ peer, ui }) => {
					await peer.session.prompt("/summarize");
					peer.script([{ text: "A reply." }]);
					await peer.prompt("hello");
					await peer.quiesce();
					await peer.session.prompt("/summarize");
					return ui.log;
				},
			);
			expect(pi).toEqual([
				["notify", "No conversation text found", "warning"],
				["notify", "Preparing summary...", "info"],
				["notify", "No API key for openai/gpt-5.2", "warning"],
			]);
			expect(settle).toEqual(pi);
		} finally {
			if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
		}
	});

	it("built-in-tool-renderer.ts: its read/bash/edit/write delegate to the built-ins made for process.cwd()", async () => {
		const { pi, settle } = await onBothWithExamples(["built-in-tool-renderer.ts"], {}, async ({ peer }) => {
			// The example builds its tools for process.cwd() (this repository): absolute paths keep
			// every file it touches in the session's temp folder.
			const file = join(peer.dirs.cwd, "notes.txt");
			peer.script([
				{ toolCalls: [{ id: "w", name: "write", args: { path: file, content: "alpha\nbeta\n" } }] },
				{
					toolCalls: [{ id: "e", name: "edit", args: { path: file, edits: [{ oldText: "beta", newText: "gamma" }] } }],
				},
				{ toolCalls: [{ id: "r", name: "read", args: { path: file, offset: 2 } }] },
				{ toolCalls: [{ id: "b", name: "bash", args: { command: 'basename "$PWD"' } }] },
				{ text: "Done." },
			]);
			await peer.prompt("use the tools");
			await peer.quiesce();
			const tools = eventPayloads(peer.recorded, ["tool_execution_end"]);
			return JSON.parse(JSON.stringify({ tools, requests: peer.requests }).replaceAll(peer.dirs.cwd, "<cwd>"));
		});
		expect(pi.requests.at(-1).messages.filter((m: string) => m.startsWith("toolResult"))).toEqual([
			"toolResult write: Successfully wrote 11 bytes to <cwd>/notes.txt",
			"toolResult edit: Successfully replaced 1 block(s) in <cwd>/notes.txt.",
			"toolResult read: gamma\n",
			`toolResult bash: ${basename(process.cwd())}\n`,
		]);
		expect(settle).toEqual(pi);
	});
});
