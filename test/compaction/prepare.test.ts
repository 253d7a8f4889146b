import { describe, expect, it } from "vitest";
import { prepareCompaction } from "../../src/compaction/prepare.js";
import { DEFAULT_COMPACTION_SETTINGS } from "../../src/compaction/types.js";
import { emptyUsage } from "../../src/llm/types.js";
import { call, EntryLog } from "./builders.js";

const t = (tokens: number) => "x".repeat(tokens * 4);
const settings = (keepRecentTokens: number) => ({ ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens });

describe("prepareCompaction", () => {
	it("uses pi's default settings", () => {
		expect(DEFAULT_COMPACTION_SETTINGS).toEqual({ enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 });
	});

	it("summarizes what comes before the kept span", () => {
		const log = new EntryLog();
		const first = log.user(t(100));
		log.assistant(t(100), [], 250);
		const kept = log.user(t(50));
		log.assistant(t(60));
		const preparation = prepareCompaction(log.entries, settings(100))!;
		expect(preparation.firstKeptEntryId).toBe(kept.id);
		expect(preparation.messagesToSummarize).toEqual([
			(first as { message: unknown }).message,
			(log.entries[1] as { message: unknown }).message,
		]);
		expect(preparation.turnPrefixMessages).toEqual([]);
		expect(preparation.isSplitTurn).toBe(false);
		expect(preparation.previousSummary).toBeUndefined();
		// Usage of the assistant at index 1 (250) + estimates of the two messages after it (50 + 60).
		expect(preparation.tokensBefore).toBe(360);
	});

	it("returns undefined when the last entry is a compaction or nothing needs summarizing", () => {
		const log = new EntryLog();
		log.user(t(10));
		log.assistant(t(10));
		expect(prepareCompaction(log.entries, settings(20_000))).toBeUndefined();
		expect(prepareCompaction([], settings(1))).toBeUndefined();
		log.add({ type: "compaction", summary: "S", firstKeptEntryId: "e000", tokensBefore: 5 });
		expect(prepareCompaction(log.entries, settings(1))).toBeUndefined();
	});

	it("splits a long turn: prefix from the turn's user message, history before it", () => {
		const log = new EntryLog();
		log.user(t(10)); // 0
		log.assistant(t(10)); // 1
		const turn = log.user(t(10)); // 2
		log.assistant("", [call("c1", "read", { path: "src/a.ts" })]); // 3
		log.toolResult("c1", "read", t(10)); // 4
		const kept = log.assistant(t(300)); // 5
		const preparation = prepareCompaction(log.entries, settings(300))!;
		expect(preparation.firstKeptEntryId).toBe(kept.id);
		expect(preparation.isSplitTurn).toBe(true);
		expect(preparation.messagesToSummarize).toHaveLength(2);
		expect(preparation.turnPrefixMessages).toHaveLength(3);
		expect(preparation.turnPrefixMessages[0]).toBe((turn as { message: unknown }).message);
		expect([...preparation.fileOps.read]).toEqual(["src/a.ts"]);
	});

	it("continues from the previous compaction: its kept span, its summary, its files", () => {
		const log = new EntryLog();
		log.user(t(100)); // 0 (already summarized)
		log.assistant(t(100)); // 1
		const previouslyKept = log.user(t(100)); // 2
		log.assistant("", [call("c1", "edit", { path: "b.ts" })]); // 3
		log.toolResult("c1", "edit", "ok"); // 4
		log.add({
			type: "compaction",
			summary: "PREVIOUS",
			firstKeptEntryId: previouslyKept.id,
			tokensBefore: 400,
			details: { readFiles: ["old-read.ts"], modifiedFiles: ["old-mod.ts"] },
		}); // 5
		log.user(t(100)); // 6
		log.assistant("", [call("c2", "write", { path: "c.ts" }), call("c3", "read", { path: "b.ts" })]); // 7
		log.toolResult("c2", "write", "ok"); // 8
		log.toolResult("c3", "read", "ok"); // 9
		const kept = log.user(t(200)); // 10
		const preparation = prepareCompaction(log.entries, settings(200))!;
		expect(preparation.previousSummary).toBe("PREVIOUS");
		expect(preparation.firstKeptEntryId).toBe(kept.id);
		// From the previously kept entry on, the compaction entry itself excluded.
		expect(preparation.messagesToSummarize.map((message) => message.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"user",
			"assistant",
			"toolResult",
			"toolResult",
		]);
		expect([...preparation.fileOps.read].sort()).toEqual(["b.ts", "old-read.ts"]);
		expect([...preparation.fileOps.edited].sort()).toEqual(["b.ts", "old-mod.ts"]);
		expect([...preparation.fileOps.written]).toEqual(["c.ts"]);
	});

	it("ignores file lists of a compaction an extension made", () => {
		const log = new EntryLog();
		const kept = log.user(t(10));
		log.add({
			type: "compaction",
			summary: "EXT",
			firstKeptEntryId: kept.id,
			tokensBefore: 1,
			fromHook: true,
			details: { readFiles: ["ext.ts"], modifiedFiles: [] },
		});
		log.user(t(100));
		log.user(t(100));
		const preparation = prepareCompaction(log.entries, settings(100))!;
		expect(preparation.previousSummary).toBe("EXT");
		expect(preparation.fileOps.read.size).toBe(0);
	});

	it("applies context edits: omitted messages are neither summarized nor counted", () => {
		const log = new EntryLog();
		log.user(t(10)); // 0
		const failedEntry = log.message({
			role: "assistant",
			content: [{ type: "text", text: t(1000) }],
			api: "faux",
			provider: "faux",
			model: "test-model",
			usage: emptyUsage(),
			stopReason: "error",
			errorMessage: "prompt is too long",
			timestamp: 1,
		}); // 1
		const replaced = log.user("original"); // 2
		log.add({ type: "context_edit", targetId: failedEntry.id, replacement: null }); // 3
		log.add({ type: "context_edit", targetId: replaced.id, replacement: { content: "EDITED" } }); // 4
		log.user(t(50)); // 5
		const preparation = prepareCompaction(log.entries, settings(50))!;
		// The cut at the user message moves back over the two edit entries (they carry no message).
		expect(preparation.firstKeptEntryId).toBe(log.entries[3]!.id);
		expect(preparation.messagesToSummarize).toEqual([
			(log.entries[0] as { message: unknown }).message,
			{
				role: "user",
				content: "EDITED",
				timestamp: (replaced as { message: { timestamp: number } }).message.timestamp,
			},
		]);
		expect(preparation.tokensBefore).toBe(10 + 2 + 50);
	});

	it("counts the previous summary in tokensBefore", () => {
		const log = new EntryLog();
		const kept = log.user(t(10));
		log.add({ type: "compaction", summary: t(40), firstKeptEntryId: kept.id, tokensBefore: 1 });
		log.user(t(100));
		const preparation = prepareCompaction(log.entries, settings(100))!;
		expect(preparation.tokensBefore).toBe(40 + 10 + 100);
	});

	it("never summarizes the recorded system prompt: a span holding only it is nothing to compact", () => {
		const log = new EntryLog();
		log.add({ type: "model_change", provider: "faux", modelId: "test-model" });
		log.message({ role: "system", content: "You are a test assistant.", timestamp: 1 });
		log.user(t(100));
		log.assistant(t(100));
		// Everything but the system prompt fits in the kept span.
		expect(prepareCompaction(log.entries, settings(20_000))).toBeUndefined();

		log.message({ role: "system", content: "You are a test assistant. Tools: read.", timestamp: 2 });
		const kept = log.user(t(50));
		log.assistant(t(60));
		const preparation = prepareCompaction(log.entries, settings(100))!;
		expect(preparation.firstKeptEntryId).toBe(kept.id);
		expect(preparation.messagesToSummarize.map((message) => message.role)).toEqual(["user", "assistant"]);
	});

	it("leaves system patches out of a split turn's prefix", () => {
		const log = new EntryLog();
		log.user(t(10));
		log.assistant("", [call("c1", "read", { path: "a.ts" })]);
		log.toolResult("c1", "read", t(10));
		log.message({ role: "system", content: "patched prompt", timestamp: 3 });
		const kept = log.assistant(t(300));
		const preparation = prepareCompaction(log.entries, settings(300))!;
		expect(preparation.firstKeptEntryId).toBe(kept.id);
		expect(preparation.isSplitTurn).toBe(true);
		expect(preparation.turnPrefixMessages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
	});
});
