/**
 * Differential: pi 0.73.1's example extensions that guard or record session replacement and
 * shutdown, with real git in the session's cwd, run unchanged on pi's `createAgentSessionRuntime`
 * and Settle's (test/parity/tree-peers.ts), both binding the scripted UI of pi-examples-peers.ts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { eventPayloads, fileShape, normalizeMessages } from "../parity/normalize.js";
import { git, gitRepo, onBothRuntimesWithExamples } from "./pi-examples-runtimes.js";

describe("pi examples, differential: git and session replacement", () => {
	it("dirty-repo-guard.ts: a new session over uncommitted changes asks, and cancels on no", async () => {
		const { pi, settle } = await onBothRuntimesWithExamples(
			["dirty-repo-guard.ts"],
			{ answers: ["No, let me commit first", "Yes, proceed anyway"], setup: gitRepo },
			async (peer, ui) => {
				const clean = await peer.runtime.newSession();
				writeFileSync(join(peer.dirs.cwd, "a.txt"), "two\n");
				writeFileSync(join(peer.dirs.cwd, "b.txt"), "new\n");
				const refused = await peer.runtime.newSession();
				const accepted = await peer.runtime.newSession();
				return { results: [clean, refused, accepted], sessions: peer.sessionFiles().length, ui: ui.log };
			},
		);
		expect(pi.results).toEqual([{ cancelled: false }, { cancelled: true }, { cancelled: false }]);
		expect(pi.ui).toEqual([
			[
				"select",
				"You have 2 uncommitted file(s). new session anyway?",
				["Yes, proceed anyway", "No, let me commit first"],
			],
			["notify", "Commit your changes first", "warning"],
			[
				"select",
				"You have 2 uncommitted file(s). new session anyway?",
				["Yes, proceed anyway", "No, let me commit first"],
			],
		]);
		expect(settle).toEqual(pi);
	});

	it("confirm-destructive.ts: new session and fork ask first; a no cancels them", async () => {
		const { pi, settle } = await onBothRuntimesWithExamples(
			["confirm-destructive.ts"],
			{ answers: [false, "No, stay in current session", "Yes, create fork", true] },
			async (peer, ui) => {
				peer.script([{ text: "First." }]);
				await peer.session.prompt("hello");
				await peer.quiesce();
				const userEntry = peer.session.sessionManager
					.getEntries()
					.find((e) => e.type === "message" && (e.message as { role: string }).role === "user")!;
				const results = [
					await peer.runtime.newSession(),
					await peer.runtime.fork(String(userEntry.id)),
					await peer.runtime.fork(String(userEntry.id)),
					await peer.runtime.newSession(),
				];
				return {
					results: results.map((r) => r.cancelled),
					files: peer.sessionFiles().map((file) => fileShape(peer.fileEntries(file))),
					ui: ui.log.map((call) =>
						call.map((a) => (typeof a === "string" ? a.replace(/entry \S+\?$/, "entry <id>?") : a)),
					),
				};
			},
		);
		expect(pi.results).toEqual([true, true, false, false]);
		expect(pi.ui).toEqual([
			["confirm", "Clear session?", "This will delete all messages in the current session."],
			["notify", "Clear cancelled", "info"],
			["select", "Fork from entry <id>?", ["Yes, create fork", "No, stay in current session"]],
			["notify", "Fork cancelled", "info"],
			["select", "Fork from entry <id>?", ["Yes, create fork", "No, stay in current session"]],
			["confirm", "Clear session?", "This will delete all messages in the current session."],
		]);
		expect(settle).toEqual(pi);
	});

	it("auto-commit-on-exit.ts: shutting down commits the changes with the last reply's first line", async () => {
		const { pi, settle } = await onBothRuntimesWithExamples(
			["auto-commit-on-exit.ts"],
			{ setup: gitRepo },
			async (peer, ui) => {
				peer.script([
					{ toolCalls: [{ id: "w1", name: "write", args: { path: "b.txt", content: "written by the agent\n" } }] },
					{ text: "Added b.txt with a greeting for the whole team to enjoy today\nMore details." },
				]);
				await peer.session.prompt("add b.txt");
				await peer.quiesce();
				const cwd = peer.dirs.cwd;
				await peer.runtime.dispose();
				return {
					log: git(cwd, "log", "--format=%s", "-n", "2").trim().split("\n"),
					status: git(cwd, "status", "--porcelain"),
					b: readFileSync(join(cwd, "b.txt"), "utf8"),
					ui: ui.log,
				};
			},
		);
		expect(pi.log).toEqual(["[pi] Added b.txt with a greeting for the whole team to ...", "initial"]);
		expect(pi.status).toBe("");
		expect(settle).toEqual(pi);
	});

	it("reload-runtime.ts: the tool queues /reload-runtime as a follow-up (text to the model); the command reloads", async () => {
		const starts: string[] = [];
		const probe = (api: ExtensionAPI) => {
			api.on("session_start", (event) => void starts.push(`start ${event.reason}`));
			api.on("session_shutdown", (event) => void starts.push(`shutdown ${event.reason}`));
		};
		const { pi, settle } = await onBothRuntimesWithExamples(
			["reload-runtime.ts"],
			{ extensions: [probe] },
			async (peer, ui) => {
				peer.script([
					{ toolCalls: [{ id: "r1", name: "reload_runtime", args: {} }] },
					{ text: "Reloading." },
					{ text: "Saw the command as text." },
				]);
				await peer.session.prompt("reload please");
				await peer.quiesce();
				await peer.session.prompt("/reload-runtime");
				await peer.quiesce();
				return {
					requests: peer.requests.map((r) => r.messages.at(-1)),
					results: eventPayloads(peer.recorded, ["tool_execution_end"]),
					ui: ui.log,
					marks: peer.recorded.flatMap((r) => (r.kind === "mark" ? [r.label] : [])),
					messages: normalizeMessages(peer.session.messages),
					// From this peer's startup on (the previous peer's disposal reaches the probe late).
					starts: starts.splice(0).filter((_, i, all) => i >= all.indexOf("start startup")),
				};
			},
		);
		// The follow-up is sent to the model as text in both (pi 0.73.1's sendUserMessage runs no
		// commands); the typed /reload-runtime reloads: the extensions get shutdown, then start.
		expect(pi.requests.at(-1)).toBe("user: /reload-runtime");
		expect(pi.starts).toEqual(["start startup", "shutdown reload", "start reload"]);
		expect(pi.results).toEqual([
			{
				type: "tool_execution_end",
				toolCallId: "r1",
				toolName: "reload_runtime",
				result: [{ type: "text", text: "Queued /reload-runtime as a follow-up command." }],
				isError: false,
			},
		]);
		expect(settle).toEqual(pi);
	});
});
