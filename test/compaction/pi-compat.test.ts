/**
 * Compatibility with pi 0.73.1 on a real session (pi's own test fixture, with two earlier
 * compactions): pi's SessionManager migrates it, then pi's and Settle's functions run on the same
 * branch entries.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	convertToLlm as piConvertToLlm,
	estimateTokens as piEstimateTokens,
	serializeConversation as piSerializeConversation,
	SessionManager,
} from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	estimateContextTokens as piEstimateContextTokens,
	prepareCompaction as piPrepareCompaction,
} from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js";
import { computeFileLists } from "../../src/compaction/file-operations.js";
import { prepareCompaction } from "../../src/compaction/prepare.js";
import { serializeConversation } from "../../src/compaction/serialize.js";
import { DEFAULT_COMPACTION_SETTINGS } from "../../src/compaction/types.js";
import { estimateContextTokens, estimateMessageTokens } from "../../src/llm/tokens.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { convertToLlm } from "../../src/session/convert-to-llm.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { settleToolResultCuts } from "./pi-differential.compare.js";

let dir: string;
let branch: SessionEntry[];
let messages: AgentMessage[];

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-pi-compat-"));
	const file = join(dir, "session.jsonl");
	copyFileSync(new URL("../fixtures/store/before-compaction.jsonl", import.meta.url), file);
	const manager = SessionManager.open(file, dir);
	branch = manager.getBranch() as unknown as SessionEntry[];
	messages = branch.flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("pi 0.73.1 compatibility on a real session", () => {
	it("has the shape this test relies on", () => {
		expect(branch.filter((entry) => entry.type === "compaction")).toHaveLength(2);
		expect(messages.length).toBeGreaterThan(900);
	});

	it("estimates every message like pi", () => {
		for (const message of messages) expect(estimateMessageTokens(message)).toBe(piEstimateTokens(message as never));
		expect(estimateContextTokens(messages)).toEqual(piEstimateContextTokens(messages as never));
	});

	it("converts and serializes the conversation exactly like pi", () => {
		expect(convertToLlm(messages)).toEqual(piConvertToLlm(messages as never));
		// DELIBERATE_TOOL_RESULT_TAIL (pi-differential.compare.ts): a long tool result keeps its end.
		expect(serializeConversation(messages)).toBe(
			settleToolResultCuts(piSerializeConversation(piConvertToLlm(messages as never)), messages),
		);
	});

	it.each([2_000, 8_000, 20_000, 60_000])("prepares a compaction like pi (keepRecentTokens %d)", (keepRecentTokens) => {
		const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens };
		const ours = prepareCompaction(branch, settings)!;
		const pi = piPrepareCompaction(branch as never, settings)!;
		expect(ours.previousSummary).toBe(pi.previousSummary);
		expect(ours.tokensBefore).toBe(pi.tokensBefore);

		const index = (id: string) => branch.findIndex((entry) => entry.id === id);
		const keptTokens = (id: string) =>
			branch
				.slice(index(id))
				.reduce((sum, e) => sum + (e.type === "message" ? estimateMessageTokens(e.message) : 0), 0);
		if (ours.firstKeptEntryId === pi.firstKeptEntryId) {
			expect(ours.messagesToSummarize).toEqual(pi.messagesToSummarize);
			expect(ours.turnPrefixMessages).toEqual(pi.turnPrefixMessages);
			// pi flags a cut at a bash execution as a split turn with an empty prefix (and then ignores it); we don't.
			expect(ours.isSplitTurn).toBe(pi.isSplitTurn && pi.turnPrefixMessages.length > 0);
			expect(computeFileLists(ours.fileOps)).toEqual(computeFileLists(pi.fileOps));
		} else {
			// Documented divergence: pi cut after the budget was reached and kept too little; we cut earlier.
			expect(index(ours.firstKeptEntryId)).toBeLessThan(index(pi.firstKeptEntryId));
			expect(keptTokens(pi.firstKeptEntryId)).toBeLessThan(keepRecentTokens);
		}
		expect(keptTokens(ours.firstKeptEntryId)).toBeGreaterThanOrEqual(keepRecentTokens);
	});
});
