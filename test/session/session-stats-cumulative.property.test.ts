/**
 * Property (gsd-2#1423, pi-web#557): under random appends (answers, tool results, usage entries),
 * compactions, branches, branch summaries and reopens, `SessionManager.getCumulativeUsage()` never
 * goes down and always equals the billed usage of every entry in the file (read back line by line),
 * and `computeSessionStats` summing the entries gives the same totals.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { Usage } from "../../src/llm/types.js";
import { computeSessionStats, type UsageTotals } from "../../src/session/session-stats.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { billedInFile } from "./session-stats.helpers.js";

const root = mkdtempSync(join(tmpdir(), "settle-stats-cumulative-prop-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const usageArb: fc.Arbitrary<Usage> = fc
	.record({
		input: fc.nat(5000),
		output: fc.nat(5000),
		cacheRead: fc.nat(50_000),
		cacheWrite: fc.nat(50_000),
		thousandths: fc.nat(5000),
	})
	.map(({ input, output, cacheRead, cacheWrite, thousandths }) => ({
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: input + output + cacheRead + cacheWrite,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: thousandths / 1000 },
	}));

type Op =
	| { kind: "exchange"; usage: Usage }
	| { kind: "toolResult"; usage: Usage }
	| { kind: "usage"; usage: Usage }
	| { kind: "compaction"; usage: Usage }
	| { kind: "branch"; at: number }
	| { kind: "branchSummary"; at: number; usage: Usage }
	| { kind: "reopen" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
	{ weight: 4, arbitrary: usageArb.map((usage) => ({ kind: "exchange" as const, usage })) },
	usageArb.map((usage) => ({ kind: "toolResult" as const, usage })),
	usageArb.map((usage) => ({ kind: "usage" as const, usage })),
	usageArb.map((usage) => ({ kind: "compaction" as const, usage })),
	fc.nat().map((at) => ({ kind: "branch" as const, at })),
	fc.record({ at: fc.nat(), usage: usageArb }).map(({ at, usage }) => ({ kind: "branchSummary" as const, at, usage })),
	fc.constant({ kind: "reopen" as const }),
);

function notBelow(later: UsageTotals, earlier: UsageTotals): void {
	expect(later.cost).toBeGreaterThanOrEqual(earlier.cost);
	for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) {
		expect(later.tokens[key]).toBeGreaterThanOrEqual(earlier.tokens[key]);
	}
}

describe("cumulative session usage (property, gsd-2#1423)", () => {
	it("never goes down and equals the billed usage of every entry in the file", () => {
		let run = 0;
		fc.assert(
			fc.property(usageArb, fc.array(opArb, { minLength: 1, maxLength: 25 }), (first, ops) => {
				let sm = SessionManager.create(root, join(root, `run-${run++}`));
				try {
					sm.appendMessage({ role: "user", content: "start", timestamp: 1 });
					sm.appendMessage({ ...fauxAssistantMessage("ok"), usage: first });
					const file = sm.getSessionFile()!;
					let previous = sm.getCumulativeUsage();
					for (const op of ops) {
						const ids = sm.getEntries().map((entry) => entry.id);
						switch (op.kind) {
							case "exchange":
								sm.appendMessage({ role: "user", content: "next", timestamp: 2 });
								sm.appendMessage({ ...fauxAssistantMessage("answer"), usage: op.usage });
								break;
							case "toolResult":
								sm.appendMessage({
									role: "toolResult",
									toolCallId: "call-1",
									toolName: "read",
									content: [{ type: "text", text: "contents" }],
									isError: false,
									timestamp: 3,
									usage: op.usage,
								});
								break;
							case "usage":
								sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", op.usage);
								break;
							case "compaction":
								sm.appendCompaction("summary", sm.getLeafId()!, 1000, undefined, false, op.usage);
								break;
							case "branch":
								sm.branch(ids[op.at % ids.length]!);
								break;
							case "branchSummary":
								sm.branchWithSummary(ids[op.at % ids.length]!, "tried another way", undefined, false, op.usage);
								break;
							case "reopen":
								sm.close();
								sm = SessionManager.open(file);
								break;
						}
						const now = sm.getCumulativeUsage();
						notBelow(now, previous);
						expect(now).toEqual(billedInFile(file));
						expect(
							computeSessionStats([], {
								sessionId: "s",
								sessionFile: file,
								contextUsage: undefined,
								entries: sm.getEntries(),
							}).cumulative,
						).toEqual(now);
						previous = now;
					}
				} finally {
					sm.close();
				}
			}),
			{ numRuns: 60 },
		);
	});
});
