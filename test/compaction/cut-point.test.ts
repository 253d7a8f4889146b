import { describe, expect, it } from "vitest";
import { findCutPoint, isValidCutPoint } from "../../src/compaction/cut-point.js";
import { call, EntryLog } from "./builders.js";

/** 4 characters per token: a text of `tokens` tokens. */
const t = (tokens: number) => "x".repeat(tokens * 4);

describe("findCutPoint", () => {
	it("keeps at least keepRecentTokens, cutting at a turn boundary when one is there", () => {
		const log = new EntryLog();
		log.user(t(100));
		log.assistant(t(100));
		log.user(t(50));
		log.assistant(t(60));
		expect(findCutPoint(log.entries, 0, 4, 100)).toEqual({
			firstKeptEntryIndex: 2,
			turnStartIndex: -1,
			isSplitTurn: false,
		});
	});

	it("never cuts at a tool result: moves back to the calling assistant message", () => {
		const log = new EntryLog();
		log.user(t(10));
		log.assistant("", [call("c1", "read", { path: "a.ts" })]); // 1
		log.toolResult("c1", "read", t(500)); // 2: the budget is reached here
		log.assistant(t(10)); // 3
		const cut = findCutPoint(log.entries, 0, 4, 200);
		expect(cut.firstKeptEntryIndex).toBe(1);
		expect(cut).toMatchObject({ isSplitTurn: true, turnStartIndex: 0 });
	});

	it("marks a cut inside a turn as split, pointing at the turn's user message", () => {
		const log = new EntryLog();
		log.user(t(10)); // 0
		log.assistant(t(10)); // 1
		log.user(t(10)); // 2 turn start
		log.assistant("", [call("c1", "bash", { command: "ls" })]); // 3
		log.toolResult("c1", "bash", t(10)); // 4
		log.assistant(t(300)); // 5
		expect(findCutPoint(log.entries, 0, 6, 300)).toEqual({
			firstKeptEntryIndex: 5,
			turnStartIndex: 2,
			isSplitTurn: true,
		});
	});

	it("moves the cut back over entries that carry no message", () => {
		const log = new EntryLog();
		log.user(t(100)); // 0
		log.assistant(t(100)); // 1
		log.add({ type: "thinking_level_change", thinkingLevel: "high" }); // 2
		log.add({ type: "label", targetId: "e000", label: "start" }); // 3
		log.user(t(300)); // 4
		expect(findCutPoint(log.entries, 0, 5, 300)).toEqual({
			firstKeptEntryIndex: 2,
			turnStartIndex: -1,
			isSplitTurn: false,
		});
	});

	it("keeps everything from the first valid cut point when the range is smaller than the budget", () => {
		const log = new EntryLog();
		log.add({ type: "model_change", provider: "faux", modelId: "m" });
		log.user(t(10));
		log.assistant(t(10));
		expect(findCutPoint(log.entries, 0, 3, 20_000)).toEqual({
			firstKeptEntryIndex: 0,
			turnStartIndex: -1,
			isSplitTurn: false,
		});
	});

	it("treats bash executions, custom messages and summaries as turn starts", () => {
		const log = new EntryLog();
		log.user(t(100));
		log.assistant(t(100));
		log.message({
			role: "bashExecution",
			command: "ls",
			output: t(300),
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 1,
		});
		expect(findCutPoint(log.entries, 0, 3, 300)).toEqual({
			firstKeptEntryIndex: 2,
			turnStartIndex: -1,
			isSplitTurn: false,
		});
		log.add({ type: "custom_message", customType: "note", content: t(400), display: true });
		expect(findCutPoint(log.entries, 0, 4, 400)).toEqual({
			firstKeptEntryIndex: 3,
			turnStartIndex: -1,
			isSplitTurn: false,
		});
	});

	it("knows which entries are valid cut points", () => {
		const log = new EntryLog();
		const valid = [
			log.user("u"),
			log.assistant("a"),
			log.add({ type: "custom_message", customType: "c", content: "c", display: false }),
			log.add({ type: "branch_summary", fromId: "root", summary: "s" }),
			log.message({ role: "custom", customType: "c", content: "c", display: false, timestamp: 1 }),
		];
		const invalid = [
			log.toolResult("c", "read", "r"),
			log.message({ role: "system", content: "prompt", timestamp: 1 }),
			log.add({ type: "compaction", summary: "s", firstKeptEntryId: "e000", tokensBefore: 1 }),
			log.add({ type: "label", targetId: "e000", label: "l" }),
			log.add({ type: "context_edit", targetId: "e000", replacement: null }),
		];
		for (const entry of valid) expect(isValidCutPoint(entry)).toBe(true);
		for (const entry of invalid) expect(isValidCutPoint(entry)).toBe(false);
	});
});
