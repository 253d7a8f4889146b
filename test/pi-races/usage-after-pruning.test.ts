/**
 * Reports about the context size after an extension pruned the context (a `context_edit` that
 * replaces or drops an earlier message), replayed through the SDK on a real session file against a
 * local Anthropic Messages endpoint (test/llm/wire/server.ts) that reports usage on every answer.
 *
 * modelscope/ms-agent#999 (with ttttmr/pi-context#5, a pi extension, and pi#6754): after tool
 * output was pruned, the usage of the answers that had seen the original output was still taken as
 * the context's size — the meter stayed high though the context was short again, and the next
 * check called the summarizer although the pruning had brought the context below its limit. What
 * the user should see: the context measured from the last answer that predates the pruned message
 * (its usage still describes what is left), plus the estimate of everything after it, the
 * replacement included; no compaction on the stale number.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import type { Reply } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

/** 40,000 characters: about 10,000 tokens by estimate. */
const LOG = "log line ".repeat(4_445).slice(0, 40_000);
const PRUNED = "[log pruned]";

/**
 * A `fetch_log` tool whose result is {@link LOG}, and a pruner: at the end of every turn after the
 * one that fetched it, the log's result is replaced by {@link PRUNED} (once).
 */
const logPruner = logPrunerWith();

/** {@link logPruner}, with `compaction`: a compaction drafted in the same batch right after the edit. */
function logPrunerWith(compaction?: string): (pi: ExtensionAPI) => void {
	return (pi) => pruneLog(pi, compaction);
}

function pruneLog(pi: ExtensionAPI, compaction: string | undefined): void {
	let logResultId: string | undefined;
	let pruned = false;
	pi.registerTool({
		name: "fetch_log",
		label: "fetch_log",
		description: "Fetches the build log",
		parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: LOG }], details: {} }),
	});
	pi.on("turn_end", (event) => {
		if (logResultId === undefined) {
			logResultId = event.toolResultEntryIds[0];
			return;
		}
		if (pruned) return;
		pruned = true;
		const edit = { type: "context_edit" as const, targetId: logResultId, replacement: { content: PRUNED } };
		if (compaction === undefined) return { entries: [edit] };
		return {
			entries: [edit, { type: "compaction" as const, summary: compaction, firstKeptEntryId: event.messageEntryId }],
		};
	});
}

/** The call for the log (measured at 1,020 tokens before it), then the answer measured with the log in context. */
function fetchLogThenAnswer(): Reply[] {
	return [
		anthropicReply([{ type: "tool_use", id: "toolu_1", name: "fetch_log", input: {} }], {
			stopReason: "tool_use",
			usage: { input: 1_000, output: 20 },
		}),
		anthropicReply([{ type: "text", text: "the build failed" }], { usage: { input: 11_000, output: 50 } }),
	];
}

describe("modelscope/ms-agent#999, ttttmr/pi-context#5, pi#6754: the context size after pruning", () => {
	it("ms-agent#999: a tool's 40,000-character output pruned at the end of the next turn: getContextUsage() is the usage before it plus estimates (1,027 tokens), not the 11,050 the last answer measured with it", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { contextWindow: 16_000 },
			// Threshold 16,000 − 4,000 = 12,000: the stale 11,050 stays below it, so only the meter is under test here.
			settings: { compaction: { enabled: true, reserveTokens: 4_000, keepRecentTokens: 1_000 } },
			extensionFactories: [logPruner],
		});
		w.server.reply(...fetchLogThenAnswer());
		await w.session.prompt("why did the build fail?");
		expect(w.server.requests).toHaveLength(2);
		const edits = w.entries().filter((entry) => entry.type === "context_edit");
		expect(edits).toHaveLength(1);

		const usage = w.session.getContextUsage();
		// 1,020 (the tool call's usage, measured before the log) + the replacement (3) + the answer (4).
		expect(usage?.tokens).toBe(1_027);
		expect(w.session.getSessionStats().contextUsage?.tokens).toBe(usage?.tokens);
	});

	it("ms-agent#999: the same run on a 12,000-token window (threshold 10,000): no compaction after it — the pruned context is 1,027 tokens, the stale 11,050 is not taken for its size", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { contextWindow: 12_000 },
			// keepRecentTokens 1: a compaction would summarize the first exchange and keep the last.
			settings: { compaction: { enabled: true, reserveTokens: 2_000, keepRecentTokens: 1 } },
			extensionFactories: [logPruner],
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "which build?" }], { usage: { input: 900, output: 10 } }),
			...fetchLogThenAnswer(),
			anthropicReply([{ type: "text", text: "## Goal\nthe summary" }], { usage: { input: 1_000, output: 10 } }),
		);
		await w.session.prompt("why did it fail?");
		await w.session.prompt("the nightly build");
		// A compaction would have asked the summarizer: a fourth request, a compaction entry.
		expect(w.server.requests).toHaveLength(3);
		expect(w.entries().filter((entry) => entry.type === "compaction")).toEqual([]);
		expect(w.eventsOf("compaction_start")).toEqual([]);
		expect(w.session.getContextUsage()?.tokens).toBe(1_027);
	});
});

describe("ms-agent#999: a compaction's tokensBefore after pruning", () => {
	it("ms-agent#999: compact() after the 40,000-character output was pruned records tokensBefore 1,027 (what getContextUsage() says), not the 11,050 the last answer measured with the output", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { contextWindow: 16_000 },
			settings: { compaction: { enabled: true, reserveTokens: 4_000, keepRecentTokens: 1 } },
			extensionFactories: [logPruner],
		});
		w.server.reply(
			...fetchLogThenAnswer(),
			anthropicReply([{ type: "text", text: "## Goal\nthe summary" }], { usage: { input: 1_000, output: 10 } }),
		);
		await w.session.prompt("why did the build fail?");
		expect(w.session.getContextUsage()?.tokens).toBe(1_027);
		const result = await w.session.compact();
		expect(result.tokensBefore).toBe(1_027);
		const compactions = w.entries().filter((entry) => entry.type === "compaction");
		expect(compactions).toMatchObject([{ tokensBefore: 1_027 }]);
		expect(w.eventsOf("compaction_end")).toMatchObject([{ result: { tokensBefore: 1_027 } }]);
	});
});

describe("ms-agent#999: a boundary compaction's tokensBefore after pruning in the same batch", () => {
	it("ms-agent#999: a turn_end handler that prunes the 40,000-character output and compacts in one batch records tokensBefore 1,027 (the pruned context), not the 11,050 the last answer measured with the output", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { contextWindow: 16_000 },
			settings: { compaction: { enabled: true, reserveTokens: 4_000, keepRecentTokens: 1_000 } },
			extensionFactories: [logPrunerWith("the build log was fetched")],
		});
		w.server.reply(...fetchLogThenAnswer());
		await w.session.prompt("why did the build fail?");
		expect(w.server.requests).toHaveLength(2);
		const entries = w.entries();
		expect(entries.filter((entry) => entry.type === "context_edit")).toHaveLength(1);
		// 1,020 (the tool call's usage, measured before the log) + the replacement (3) + the answer (4).
		expect(entries.filter((entry) => entry.type === "compaction")).toMatchObject([{ tokensBefore: 1_027 }]);
	});
});
