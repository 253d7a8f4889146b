/**
 * Differential: pi 0.73.1's example extensions whose tools, commands and messages pi shows with
 * its own terminal components (renderers, `ctx.ui.custom`), run unchanged on pi's
 * `createAgentSession` and Settle's (see pi-examples-peers.ts): what they do besides drawing —
 * tool results, files, messages, the answers of their non-terminal paths.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
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
});
