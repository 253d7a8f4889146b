import { describe, expect, it } from "vitest";
import {
	ALREADY_COMPACTED,
	compactionFailureMessage,
	NOTHING_TO_COMPACT,
	nothingToCompactReason,
} from "../../src/compaction/texts.js";
import { contextTokensForThreshold, isBeforeCompaction, latestCompactionTime } from "../../src/compaction/threshold.js";
import { SettleError } from "../../src/errors.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { assistant } from "../recovery/helpers.js";
import { EntryLog } from "./builders.js";

const compactedAt = Date.parse("2025-01-01T00:10:00.000Z");
const user = (chars: number): AgentMessage => ({
	role: "user",
	content: "x".repeat(chars),
	timestamp: compactedAt + 5,
});

describe("latestCompactionTime / isBeforeCompaction", () => {
	it("finds the latest compaction on the branch", () => {
		const log = new EntryLog();
		log.user("a");
		expect(latestCompactionTime(log.entries)).toBeUndefined();
		log.add({ type: "compaction", summary: "1", firstKeptEntryId: "e000", tokensBefore: 1 });
		const second = log.add({ type: "compaction", summary: "2", firstKeptEntryId: "e000", tokensBefore: 1 });
		log.user("b");
		expect(latestCompactionTime(log.entries)).toBe(Date.parse(second.timestamp));
	});

	it("treats responses at or before the compaction as stale", () => {
		expect(isBeforeCompaction(assistant({ timestamp: compactedAt }), compactedAt)).toBe(true);
		expect(isBeforeCompaction(assistant({ timestamp: compactedAt + 1 }), compactedAt)).toBe(false);
		expect(isBeforeCompaction(assistant({ timestamp: 0 }), undefined)).toBe(false);
	});
});

describe("contextTokensForThreshold (C.5 step 6)", () => {
	it("uses the response's own usage when it is a fresh, successful response", () => {
		const message = assistant({ usage: { totalTokens: 150_000 }, timestamp: compactedAt + 1 });
		expect(
			contextTokensForThreshold({ message, messages: [message, user(400)], latestCompactionAt: compactedAt }),
		).toBe(150_000);
	});

	it("never compacts for a response that predates the latest compaction", () => {
		const message = assistant({ usage: { totalTokens: 190_000 }, timestamp: compactedAt });
		expect(
			contextTokensForThreshold({ message, messages: [message], latestCompactionAt: compactedAt }),
		).toBeUndefined();
	});

	it("estimates from the last valid usage for an error response", () => {
		const ok = assistant({ usage: { totalTokens: 1000 }, timestamp: compactedAt + 1 });
		const failed = assistant({ stopReason: "error", errorMessage: "529", timestamp: compactedAt + 2 });
		expect(
			contextTokensForThreshold({
				message: failed,
				messages: [ok, user(400), failed],
				latestCompactionAt: compactedAt,
			}),
		).toBe(1100);
	});

	it("refuses a stale usage source (a kept response from before the compaction)", () => {
		const kept = assistant({ usage: { totalTokens: 190_000 }, timestamp: compactedAt - 1 });
		const failed = assistant({ stopReason: "error", errorMessage: "529", timestamp: compactedAt + 2 });
		expect(
			contextTokensForThreshold({ message: failed, messages: [kept, failed], latestCompactionAt: compactedAt }),
		).toBeUndefined();
	});

	it("takes an exact staleness test over timestamps when given (same-millisecond compactions)", () => {
		const kept = assistant({ usage: { totalTokens: 190_000 }, timestamp: compactedAt });
		const fresh = assistant({ usage: { totalTokens: 150_000 }, timestamp: compactedAt });
		const isStale = (message: unknown) => message === kept;
		expect(
			contextTokensForThreshold({ message: fresh, messages: [kept, fresh], latestCompactionAt: compactedAt, isStale }),
		).toBe(150_000);
		expect(contextTokensForThreshold({ message: kept, messages: [kept], isStale })).toBeUndefined();
		const failed = assistant({ stopReason: "error", errorMessage: "529", timestamp: compactedAt });
		expect(contextTokensForThreshold({ message: failed, messages: [kept, failed], isStale })).toBeUndefined();
	});

	it("estimates when the response has no usage or the context was edited", () => {
		const noUsage = assistant({ text: "x".repeat(40), timestamp: compactedAt + 1 });
		expect(contextTokensForThreshold({ message: noUsage, messages: [user(400), noUsage] })).toBe(110);
		const withUsage = assistant({ usage: { totalTokens: 5000 }, timestamp: compactedAt + 1 });
		expect(contextTokensForThreshold({ message: withUsage, messages: [user(40)], hasContextEdits: true })).toBe(10);
	});
});

describe("compaction texts", () => {
	it("explains why there is nothing to compact", () => {
		const log = new EntryLog();
		log.user("a");
		expect(nothingToCompactReason(log.entries)).toBe(NOTHING_TO_COMPACT);
		log.add({ type: "compaction", summary: "s", firstKeptEntryId: "e000", tokensBefore: 1 });
		expect(nothingToCompactReason(log.entries)).toBe(ALREADY_COMPACTED);
		expect(nothingToCompactReason([])).toBe("Nothing to compact (session too small)");
	});

	it("words failures per reason like pi", () => {
		const error = new SettleError("PROVIDER", "Summarization failed: 529 overloaded");
		expect(compactionFailureMessage("overflow", error)).toBe(
			"Context overflow recovery failed: Summarization failed: 529 overloaded",
		);
		expect(compactionFailureMessage("threshold", error)).toBe(
			"Auto-compaction failed: Summarization failed: 529 overloaded",
		);
		expect(compactionFailureMessage("manual", "boom")).toBe("Compaction failed: boom");
	});
});
