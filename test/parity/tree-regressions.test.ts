/**
 * Regressions the tree / replacement differential found, each pinned on both peers (pi 0.73.1 and
 * Settle) with the runtime peers of tree-peers.ts.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { emptyUsage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { onBothRuntimes } from "./tree-peers.js";
import { forkSkipped, isSettleOnlyEntry } from "./tree-play.js";

describe("tree differential regressions", () => {
	it("bug command-replacing-prompt-rejected: prompt() of an extension command that replaced the session resolves", async () => {
		const runs = await onBothRuntimes(
			() => ({
				customTools: [],
				extensions: [
					(api: ExtensionAPI) =>
						api.registerCommand("fresh", {
							description: "new session",
							handler: async (_args, ctx) => {
								await ctx.newSession();
							},
						}),
				],
			}),
			async (peer) => {
				peer.script([{ text: "hello" }, { text: "again" }]);
				await peer.session.prompt("first");
				const first = peer.session;
				const outcome = await first.prompt("/fresh").then(
					() => "resolved",
					(error: Error) => `rejected: ${error.message}`,
				);
				const replaced = peer.session !== first;
				await peer.session.prompt("second");
				return {
					outcome,
					replaced,
					messages: peer.session.messages.filter((m) => (m as { role: string }).role !== "system").length,
				};
			},
		);
		expect(runs.pi).toEqual({ outcome: "resolved", replaced: true, messages: 2 });
		expect(runs.settle).toEqual(runs.pi);
	});

	it("bug empty-extension-summary-wrote-entry: an empty summary from session_before_tree writes no branch_summary", async () => {
		const runs = await onBothRuntimes(
			() => ({
				customTools: [],
				extensions: [(api: ExtensionAPI) => api.on("session_before_tree", () => ({ summary: { summary: "" } }))],
			}),
			async (peer) => {
				peer.script([{ text: "one" }, { text: "two" }]);
				await peer.session.prompt("first");
				await peer.session.prompt("second");
				const manager = peer.session.sessionManager;
				const secondUser = manager
					.getEntries()
					.filter((e) => e.type === "message" && (e.message as { role: string }).role === "user")[1];
				const result = await peer.session.navigateTree(String(secondUser!.id), { summarize: true, label: "here" });
				const last = manager.getEntries().at(-1);
				return {
					summaryEntry: result.summaryEntry,
					last: last?.type,
					labelOnTarget: last?.targetId === secondUser!.id,
					context: peer.session.messages.map((m) => (m as { role: string }).role).filter((role) => role !== "system"),
				};
			},
		);
		expect(runs.pi).toEqual({
			summaryEntry: undefined,
			last: "label",
			labelOnTarget: true,
			context: ["user", "assistant"],
		});
		expect(runs.settle).toEqual(runs.pi);
	});

	it("bug resume-empty-branch-metadata: resuming a file whose branch has no messages records model and thinking level", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script([{ text: "answer" }]);
				await peer.session.prompt("question");
				const file = peer.session.sessionFile!;
				const user = peer.session.sessionManager
					.getEntries()
					.find((e) => e.type === "message" && (e.message as { role: string }).role === "user");
				// The label is the file's last entry, so a reopened file's leaf is above the first message.
				await peer.session.navigateTree(String(user!.id), { label: "start over" });
				await peer.runtime.newSession();
				const before = peer.fileEntries(file).length;
				await peer.runtime.switchSession(file);
				return peer
					.fileEntries(file)
					.slice(before)
					.map((e) => e.type);
			},
		);
		expect(runs.pi).toEqual(["model_change", "thinking_level_change"]);
		expect(runs.settle).toEqual(runs.pi);
	});
	it("bug fork-before-root-user-skipped-on-one-peer: forking before a user message written after navigating to the first one starts an empty session on both, and the differential plays it on both", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script([{ text: "answer 2" }, { text: "after the fork" }]);
				// A file whose first entry is a user message (no model / thinking level entries above it).
				const outside = join(peer.dirs.root, "outside");
				const written = SessionManager.create(peer.dirs.cwd, outside);
				written.appendMessage({ role: "user", content: "question 1", timestamp: 1 });
				written.appendMessage({
					role: "assistant",
					content: [{ type: "text", text: "answer 1" }],
					api: "faux",
					provider: "faux",
					model: "faux-1",
					usage: emptyUsage(),
					stopReason: "stop",
					timestamp: 2,
				});
				const source = written.getSessionFile()!;
				written.close();
				await peer.runtime.importFromJsonl(source);
				const manager = peer.session.sessionManager;
				const isUser = (e: Record<string, unknown>) =>
					e.type === "message" && (e.message as { role: string }).role === "user";
				const first = manager.getEntries().find(isUser);
				// The first user message is a root: navigating to it leaves nothing above the next prompt.
				await peer.session.navigateTree(String(first!.id));
				await peer.session.prompt("question 2");
				const second = manager.getEntries().filter(isUser)[1]!;
				const above = manager.getEntry(String(second.parentId));
				const parent = peer.session.sessionFile;
				// TREE_SEED=2086226981 TREE_RUNS=47: Settle's side skipped this fork (its transcript `system`
				// entry above the message was taken for a path without an assistant message); pi's played it.
				const skipped = forkSkipped(peer.session, String(second.id), "before") ?? "played";
				const result = await peer.runtime.fork(String(second.id), { position: "before" });
				const header = peer.session.sessionManager.getHeader();
				const roles = () =>
					peer.session.messages.map((m) => (m as { role: string }).role).filter((role) => role !== "system");
				const context = roles();
				await peer.session.prompt("again");
				return {
					above: above === undefined ? "nothing" : isSettleOnlyEntry(above) ? "settle-only" : "entry",
					skipped,
					result,
					newFile: peer.session.sessionFile !== parent,
					parentKept: header?.parentSession === parent,
					cwdKept: header?.cwd === peer.dirs.cwd,
					context,
					after: roles(),
				};
			},
		);
		const played = {
			skipped: "played",
			result: { cancelled: false, selectedText: "question 2" },
			newFile: true,
			parentKept: true,
			cwdKept: true,
			context: [],
			after: ["user", "assistant"],
		};
		expect(runs.pi).toEqual({ above: "nothing", ...played });
		expect(runs.settle).toEqual({ above: "settle-only", ...played });
	});
});
