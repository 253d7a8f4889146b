/**
 * `getSessionStats()` on random session files (answers with random usage and stop reasons, tool
 * results with and without a nested call's usage, `usage` entries, compactions and branch summaries
 * with and without usage, custom messages, branches), written through `SessionManager` to disk and
 * opened again. The reference is independent of Settle's code: pi 0.73.1's own `getSessionStats()`
 * on a copy of the file (the context's counts and answers), plus the tool results' usage in pi's
 * context, plus every out-of-conversation usage read straight from the JSONL lines (pi 1.6).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { StopReason, Usage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { comparable, piStatsOf, settleStatsOf } from "./session-stats.helpers.js";

const root = mkdtempSync(join(tmpdir(), "settle-stats-property-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const usageArb: fc.Arbitrary<Usage> = fc
	.record({
		input: fc.nat(5000),
		output: fc.nat(5000),
		cacheRead: fc.nat(50_000),
		cacheWrite: fc.nat(50_000),
		total: fc.double({ min: 0, max: 3, noNaN: true }),
	})
	.map(({ total, ...tokens }) => ({
		...tokens,
		totalTokens: tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
	}));

type Op =
	| { kind: "user" }
	| { kind: "assistant"; usage: Usage; stopReason: StopReason; toolCalls: number }
	| { kind: "toolResult"; usage: Usage | undefined }
	| { kind: "usage"; usage: Usage }
	| { kind: "compaction"; at: number; usage: Usage | undefined }
	| { kind: "branch"; at: number }
	| { kind: "branchSummary"; at: number; usage: Usage | undefined }
	| { kind: "custom" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
	{ arbitrary: fc.constant({ kind: "user" as const }), weight: 3 },
	{
		arbitrary: fc.record({
			kind: fc.constant("assistant" as const),
			usage: usageArb,
			stopReason: fc.constantFrom<StopReason>("stop", "toolUse", "length", "error", "aborted"),
			toolCalls: fc.nat(2),
		}),
		weight: 3,
	},
	{
		arbitrary: fc.record({ kind: fc.constant("toolResult" as const), usage: fc.option(usageArb, { nil: undefined }) }),
		weight: 2,
	},
	{ arbitrary: fc.record({ kind: fc.constant("usage" as const), usage: usageArb }), weight: 2 },
	{
		arbitrary: fc.record({
			kind: fc.constant("compaction" as const),
			at: fc.nat(),
			usage: fc.option(usageArb, { nil: undefined }),
		}),
		weight: 1,
	},
	{ arbitrary: fc.record({ kind: fc.constant("branch" as const), at: fc.nat() }), weight: 1 },
	{
		arbitrary: fc.record({
			kind: fc.constant("branchSummary" as const),
			at: fc.nat(),
			usage: fc.option(usageArb, { nil: undefined }),
		}),
		weight: 1,
	},
	{ arbitrary: fc.constant({ kind: "custom" as const }), weight: 1 },
);

/** Writes the session the ops describe; starts with an exchange so that the file is written. */
function writeSession(dir: string, ops: Op[]): string {
	const sm = SessionManager.create(dir, dir);
	let n = 0;
	const user = () => sm.appendMessage({ role: "user", content: `question ${++n}`, timestamp: n });
	const onBranch = (at: number) => {
		const branch = sm.getBranch().filter((entry) => entry.type === "message");
		return branch[at % branch.length]!.id;
	};
	user();
	sm.appendMessage(fauxAssistantMessage("first answer"));
	for (const op of ops) {
		switch (op.kind) {
			case "user":
				user();
				break;
			case "assistant": {
				const calls = Array.from({ length: op.toolCalls }, (_, i) => fauxToolCall("read", { path: `f${i}` }));
				const message = fauxAssistantMessage([...calls], { stopReason: op.stopReason });
				sm.appendMessage({ ...message, usage: op.usage, timestamp: ++n });
				break;
			}
			case "toolResult":
				sm.appendMessage({
					role: "toolResult",
					toolCallId: `call-${++n}`,
					toolName: "read",
					content: [{ type: "text", text: "contents" }],
					isError: false,
					timestamp: n,
					...(op.usage ? { usage: op.usage } : {}),
				});
				break;
			case "usage":
				sm.appendUsage("cache_warm", "warm", "warm-1", op.usage);
				break;
			case "compaction":
				sm.appendCompaction("summary", onBranch(op.at), 1000, undefined, false, op.usage);
				break;
			case "branch":
				sm.branch(onBranch(op.at));
				break;
			case "branchSummary":
				sm.branchWithSummary(onBranch(op.at), "branch summary", undefined, false, op.usage);
				break;
			case "custom":
				sm.appendCustomMessageEntry("note", "a note", true);
				break;
		}
	}
	const file = sm.getSessionFile()!;
	sm.close();
	return file;
}

/** pi 1.6's out-of-conversation usage, read from the raw lines: usage entries, summaries' calls. */
function sideUsagesOf(file: string): Usage[] {
	const out: Usage[] = [];
	for (const line of readFileSync(file, "utf8").split("\n")) {
		if (!line.trim()) continue;
		const entry = JSON.parse(line);
		if (["usage", "compaction", "branch_summary"].includes(entry.type) && entry.usage) out.push(entry.usage);
	}
	return out;
}

/** The tool results' nested usage in pi 0.73.1's context for the file (pi's stats ignore it). */
function toolResultUsagesOf(file: string): Usage[] {
	const messages = pi.SessionManager.open(file).buildSessionContext().messages as { role: string; usage?: Usage }[];
	return messages.filter((m) => m.role === "toolResult" && m.usage).map((m) => m.usage!);
}

let run = 0;
describe("getSessionStats on random session files", () => {
	it("= pi 0.73.1's stats of the context + tool results' usage + every out-of-conversation usage in the file", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(opArb, { maxLength: 25 }), async (ops) => {
				const dir = join(root, `run-${run++}`);
				const file = writeSession(dir, ops);
				const piCopy = join(dir, "pi-copy.jsonl");
				copyFileSync(file, piCopy);
				const extra = [...toolResultUsagesOf(file), ...sideUsagesOf(file)];
				const reference = comparable(await piStatsOf(piCopy));
				for (const u of extra) {
					reference.tokens.input += u.input;
					reference.tokens.output += u.output;
					reference.tokens.cacheRead += u.cacheRead;
					reference.tokens.cacheWrite += u.cacheWrite;
					reference.tokens.total += u.input + u.output + u.cacheRead + u.cacheWrite;
					reference.cost += u.cost.total;
				}
				const stats = comparable(await settleStatsOf(file));
				// Float sums in another order: cost compared to 1e-9.
				expect(stats.cost).toBeCloseTo(reference.cost, 9);
				expect({ ...stats, cost: 0 }).toEqual({ ...reference, cost: 0 });
				// Opened again: the same.
				expect(comparable(await settleStatsOf(file))).toEqual(stats);
			}),
			{ numRuns: 100 },
		);
	}, 120_000);
});
