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
});
