/**
 * The differences the extension-API differential (pi-differential.property.test.ts) keeps out of
 * its generator, each pinned here on both peers so a change on either side shows: documented Settle
 * behaviour (the spec's doc version) where pi 0.73.1 differs, and pi 0.73.1 bugs.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { onBothPeers, type SharedExtension } from "../parity/peers.js";
import { programTools } from "./pi-differential-program.js";

function echoCall(id: string) {
	return { toolCalls: [{ id, name: "echo", args: { text: id } }] };
}

describe("extension differential: named differences with pi 0.73.1", () => {
	it("input during a run: Settle passes streamingBehavior (behavior B.3, doc version), pi 0.73.1 never does", async () => {
		const seen: Record<string, unknown[]> = { pi: [], settle: [] };
		const extension =
			(log: unknown[]): SharedExtension =>
			(api: ExtensionAPI) => {
				let sent = false;
				api.on("input", (event) => void log.push({ text: event.text, streamingBehavior: event.streamingBehavior }));
				api.on("context", () => {
					if (sent) return undefined;
					sent = true;
					api.sendUserMessage("queued from context", { deliverAs: "followUp" });
					return undefined;
				});
			};
		const { pi, settle } = await onBothPeers(
			(name) => ({ extensions: [extension(seen[name] ?? [])] }),
			async (peer) => {
				peer.script([{ text: "first" }, { text: "second" }]);
				await peer.prompt("question");
				await peer.quiesce();
				return { requests: peer.requests.map((request) => request.messages), input: seen[peer.name] };
			},
		);
		expect(settle.requests).toEqual(pi.requests);
		expect(pi.input).toEqual([
			{ text: "question", streamingBehavior: undefined },
			{ text: "queued from context", streamingBehavior: undefined },
		]);
		expect(settle.input).toEqual([
			{ text: "question", streamingBehavior: undefined },
			{ text: "queued from context", streamingBehavior: "followUp" },
		]);
	});

	it("setActiveTools during a run: Settle applies it to the next request (behavior F.1 step 6), pi 0.73.1 to the next run", async () => {
		const extension: SharedExtension = (api: ExtensionAPI) => {
			api.on("tool_result", () => {
				api.setActiveTools(["echo"]);
				return undefined;
			});
		};
		const { pi, settle } = await onBothPeers({ extensions: [extension], customTools: programTools() }, async (peer) => {
			peer.script([echoCall("call-1"), { text: "done" }, { text: "again" }]);
			await peer.prompt("first");
			await peer.prompt("second");
			await peer.quiesce();
			return peer.requests.map((request) => request.tools);
		});
		const all = ["read", "bash", "edit", "write", "echo", "fail"];
		expect(pi).toEqual([all, all, ["echo"]]);
		expect(settle).toEqual([all, ["echo"], ["echo"]]);
	});

	it("ctx.abort() in a tool_call handler: Settle answers 'Operation aborted' (behavior F.4), pi 0.73.1 runs the tool", async () => {
		const extension: SharedExtension = (api: ExtensionAPI) => {
			api.on("tool_call", (_event, ctx) => {
				ctx.abort();
				return undefined;
			});
		};
		const { pi, settle } = await onBothPeers({ extensions: [extension], customTools: programTools() }, async (peer) => {
			peer.script([echoCall("call-1"), { text: "unused" }]);
			await peer.prompt("run echo");
			await peer.quiesce();
			const results = peer.fileEntries().flatMap((entry) => {
				const message = entry.message as
					| { role?: string; content?: { text?: string }[]; isError?: boolean }
					| undefined;
				return entry.type === "message" && message?.role === "toolResult"
					? [{ text: message.content?.[0]?.text, isError: message.isError }]
					: [];
			});
			return results;
		});
		expect(pi).toEqual([{ text: "echoed: call-1", isError: false }]);
		expect(settle).toEqual([{ text: "Operation aborted", isError: true }]);
	});

	it("pi 0.73.1 bug: a compaction cut at an extension's model_change entry is summarized as a split turn with no history", async () => {
		const extension: SharedExtension = (api: ExtensionAPI) => {
			api.registerCommand("same-model", {
				description: "Sets the current model again",
				handler: async (_args, ctx) => {
					if (ctx.model) await api.setModel(ctx.model);
				},
			});
		};
		const { pi, settle } = await onBothPeers(
			{
				extensions: [extension],
				settings: { compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 5 } },
			},
			async (peer) => {
				peer.script([{ text: "answer 0" }, { text: "fallback 0" }, { text: "summary 1" }]);
				await peer.prompt("question 1");
				await peer.prompt("/same-model");
				await peer.prompt("question 2");
				await peer.session.compact();
				await peer.quiesce();
				const entries = peer.fileEntries().filter((entry) => {
					const role = (entry.message as { role?: string } | undefined)?.role;
					return role !== "system";
				});
				const compaction = entries.find((entry) => entry.type === "compaction");
				const kept = entries.find((entry) => entry.id === compaction?.firstKeptEntryId);
				return { kept: kept?.type, summary: compaction?.summary };
			},
		);
		// Both cut at the model_change entry right before the second turn's user message.
		expect(pi.kept).toBe("model_change");
		expect(settle.kept).toBe("model_change");
		expect(pi.summary).toBe("No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nsummary 1");
		expect(settle.summary).toBe("summary 1");
	});
});
