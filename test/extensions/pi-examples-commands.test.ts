/**
 * Differential: pi 0.73.1's example extensions that add commands, tools and UI status, run unchanged
 * on pi's `createAgentSession` and on Settle's with the same scripted faux model and scripted UI
 * (see pi-examples-peers.ts). Each test compares what a user observes on both.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { eventPayloads, observe } from "../parity/normalize.js";
import { onBothWithExamples, runCommands } from "./pi-examples-peers.js";

describe("pi examples, differential: commands and tools", () => {
	it("hello.ts: the model calls the hello tool (defineTool from pi-compat)", async () => {
		const { pi, settle } = await onBothWithExamples(["hello.ts"], {}, async ({ peer, ui }) => {
			peer.script([{ toolCalls: [{ id: "c1", name: "hello", args: { name: "Ada" } }] }, { text: "Greeted." }]);
			await peer.prompt("greet Ada");
			await peer.quiesce();
			return {
				...observe(peer),
				tools: eventPayloads(peer.recorded, ["tool_execution_end"]),
				ui: ui.log,
			};
		});
		expect(pi.requests[0]?.tools).toContain("hello");
		expect(pi.tools).toEqual([
			{
				type: "tool_execution_end",
				toolCallId: "c1",
				toolName: "hello",
				result: [{ type: "text", text: "Hello, Ada!" }],
				isError: false,
			},
		]);
		expect(settle).toEqual(pi);
	});

	it("bookmark.ts: /bookmark labels the last assistant message, /unbookmark removes it", async () => {
		const { pi, settle } = await onBothWithExamples(["bookmark.ts"], {}, async ({ peer, ui }) => {
			await runCommands(peer, "/bookmark early", "/unbookmark");
			peer.script([{ text: "An answer." }]);
			await peer.prompt("question");
			await runCommands(peer, "/bookmark keep", "/unbookmark", "/unbookmark", "/bookmark final");
			await peer.quiesce();
			const entries = peer.fileEntries();
			const assistantId = entries.find(
				(e) => e.type === "message" && (e.message as { role: string }).role === "assistant",
			)?.id;
			return {
				...observe(peer),
				labels: entries
					.filter((e) => e.type === "label")
					.map((e) => ({ target: e.targetId === assistantId ? "<assistant>" : e.targetId, label: e.label })),
				ui: ui.log,
			};
		});
		expect(pi.labels).toEqual([
			{ target: "<assistant>", label: "keep" },
			{ target: "<assistant>", label: undefined },
			{ target: "<assistant>", label: "final" },
		]);
		expect(pi.ui).toEqual([
			["notify", "No assistant message to bookmark", "warning"],
			["notify", "No bookmarked entry found", "warning"],
			["notify", "Bookmarked as: keep", "info"],
			["notify", "Removed bookmark: keep", "info"],
			["notify", "No bookmarked entry found", "warning"],
			["notify", "Bookmarked as: final", "info"],
		]);
		expect(settle).toEqual(pi);
	});

	it("commands.ts: /commands lists extension commands in a select and shows the chosen one's path", async () => {
		const { pi, settle } = await onBothWithExamples(
			["commands.ts", "bookmark.ts"],
			{ answers: ["/bookmark - Bookmark last message (usage: /bookmark [label])", true, undefined] },
			async ({ peer, ui }) => {
				await runCommands(peer, "/commands", "/commands prompt", "/commands");
				return {
					...observe(peer),
					ui: ui.log.map((call) => call.map((a) => (typeof a === "string" ? a.replace(peer.dirs.root, "<root>") : a))),
				};
			},
		);
		expect(pi.ui[0]?.[0]).toBe("select");
		expect(pi.ui).toContainEqual(["notify", "No prompt commands found", "info"]);
		expect(settle).toEqual(pi);
	});

	it("pirate.ts: /pirate appends pirate instructions to the system prompt of the next runs", async () => {
		// Peers run one after the other: the probe (an inline extension loaded after the example) logs
		// whether each run's system prompt is in pirate mode, for the peer running now.
		let pirateRuns: boolean[] = [];
		const probe = (api: ExtensionAPI) =>
			api.on("agent_start", (_event, ctx) => void pirateRuns.push(ctx.getSystemPrompt().includes("PIRATE MODE")));
		const { pi, settle } = await onBothWithExamples(
			["pirate.ts", "system-prompt-header.ts"],
			{ extensions: [probe] },
			async ({ peer, ui }) => {
				pirateRuns = [];
				peer.script([{ text: "Plain." }, { text: "Arrr." }, { text: "Plain again." }]);
				await peer.prompt("hello");
				await runCommands(peer, "/pirate");
				await peer.prompt("hello again");
				await runCommands(peer, "/pirate");
				await peer.prompt("and again");
				await peer.quiesce();
				// A copy: the harness then disposes the session, and Settle's `session.dispose()` tells the
				// extensions `session_shutdown` (pi-web#546; pi 0.73.1's does not), whose handler in
				// system-prompt-header.ts clears the status: a deliberate difference, after the compared run.
				return { ...observe(peer), ui: [...ui.log], pirateRuns };
			},
		);
		expect(pi.pirateRuns).toEqual([false, true, false]);
		expect(pi.ui).toEqual([
			["setStatus", "system-prompt", "System: <n> chars"],
			["notify", "Arrr! Pirate mode enabled!", "info"],
			["setStatus", "system-prompt", "System: <n> chars"],
			["notify", "Pirate mode disabled", "info"],
			["setStatus", "system-prompt", "System: <n> chars"],
		]);
		expect(settle).toEqual(pi);
	});
});

describe("pi examples, differential: terminal side effects", () => {
	it("notify.ts: each agent_end writes an OSC 777 desktop notification to stdout", async () => {
		const { pi, settle } = await onBothWithExamples(["notify.ts"], {}, async ({ peer }) => {
			peer.script([{ text: "One." }, { text: "Two." }]);
			// What the terminal receives: the escape sequences written to this process's stdout.
			const written: string[] = [];
			const write = process.stdout.write;
			process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
				if (String(chunk).startsWith("\x1b]")) {
					written.push(String(chunk));
					return true;
				}
				return write.call(process.stdout, chunk, ...rest);
			}) as typeof process.stdout.write;
			try {
				await peer.prompt("first");
				await peer.prompt("second");
				await peer.quiesce();
			} finally {
				process.stdout.write = write;
			}
			return { ...observe(peer), written };
		});
		expect(pi.written).toEqual(["\x1b]777;notify;Pi;Ready for input\x07", "\x1b]777;notify;Pi;Ready for input\x07"]);
		expect(settle).toEqual(pi);
	});
});
