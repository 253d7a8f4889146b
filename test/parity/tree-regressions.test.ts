/**
 * Regressions the tree / replacement differential found, each pinned on both peers (pi 0.73.1 and
 * Settle) with the runtime peers of tree-peers.ts.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { onBothRuntimes } from "./tree-peers.js";

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
});
