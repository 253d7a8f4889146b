/**
 * `getSessionStats().byModel` on random session files: answers of several providers and models
 * (some naming the `responseModel` that served them), tool results with a nested call's usage,
 * `usage` entries, compactions and branch summaries with and without usage, branches. Written to
 * disk through `SessionManager` and opened with a fresh `AgentSession`.
 *
 * The reference is independent of Settle's code and follows pi 1.6's `getUsageCostBreakdown`
 * grouping: the answers and tool results of the context as pi 0.73.1's own `SessionManager` builds
 * it (the scope of Settle's message totals), plus the out-of-conversation usage read straight from
 * the JSONL lines. Invariants: the groups add up to `tokens` and `cost`, keys are unique, no group
 * is empty, most expensive first.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Usage } from "../../src/llm/types.js";
import type { ModelUsageStats } from "../../src/session/session-stats.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { settleStatsOf } from "./session-stats.helpers.js";

const root = mkdtempSync(join(tmpdir(), "settle-stats-by-model-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const usageArb: fc.Arbitrary<Usage> = fc
	.record({
		input: fc.nat(5000),
		output: fc.nat(5000),
		cacheRead: fc.nat(50_000),
		cacheWrite: fc.nat(50_000),
		// Zero often: groups with tokens but no cost, and empty groups, must be handled.
		total: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 3, noNaN: true })),
		empty: fc.boolean(),
	})
	.map(({ total, empty, ...tokens }) => {
		const counts = empty ? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } : tokens;
		const cost = empty ? 0 : total;
		return {
			...counts,
			totalTokens: counts.input + counts.output + counts.cacheRead + counts.cacheWrite,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
		};
	});

const providerArb = fc.constantFrom("anthropic", "openai");
const modelArb = fc.constantFrom("m1", "m2", "m3");

type Op =
	| { kind: "user" }
	| { kind: "assistant"; provider: string; model: string; responseModel: string | undefined; usage: Usage }
	| { kind: "toolResult"; usage: Usage | undefined }
	| { kind: "usage"; provider: string; model: string; usage: Usage }
	| { kind: "compaction"; at: number; usage: Usage | undefined }
	| { kind: "branch"; at: number }
	| { kind: "branchSummary"; at: number; usage: Usage | undefined };

const opArb: fc.Arbitrary<Op> = fc.oneof(
	{ arbitrary: fc.constant({ kind: "user" as const }), weight: 2 },
	{
		arbitrary: fc.record({
			kind: fc.constant("assistant" as const),
			provider: providerArb,
			model: modelArb,
			responseModel: fc.option(fc.constantFrom("m1", "m1-2025"), { nil: undefined }),
			usage: usageArb,
		}),
		weight: 4,
	},
	{
		arbitrary: fc.record({ kind: fc.constant("toolResult" as const), usage: fc.option(usageArb, { nil: undefined }) }),
		weight: 1,
	},
	{
		arbitrary: fc.record({
			kind: fc.constant("usage" as const),
			provider: providerArb,
			model: modelArb,
			usage: usageArb,
		}),
		weight: 2,
	},
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
);

/** Writes the session the ops describe; starts with an exchange so that the file is written. */
function writeSession(dir: string, ops: Op[]): string {
	const sm = SessionManager.create(dir, dir);
	let n = 0;
	const onBranch = (at: number) => {
		const branch = sm.getBranch().filter((entry) => entry.type === "message");
		return branch[at % branch.length]!.id;
	};
	sm.appendMessage({ role: "user", content: "question 0", timestamp: 0 });
	sm.appendMessage(fauxAssistantMessage("first answer"));
	for (const op of ops) {
		switch (op.kind) {
			case "user":
				sm.appendMessage({ role: "user", content: `question ${++n}`, timestamp: n });
				break;
			case "assistant": {
				const message = fauxAssistantMessage([fauxToolCall("read", { path: "f" })], { stopReason: "toolUse" });
				sm.appendMessage({
					...message,
					provider: op.provider,
					model: op.model,
					...(op.responseModel ? { responseModel: op.responseModel } : {}),
					usage: op.usage,
					timestamp: ++n,
				});
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
				sm.appendUsage("cache_warm", op.provider, op.model, op.usage);
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
		}
	}
	const file = sm.getSessionFile()!;
	sm.close();
	return file;
}

/** pi 1.6's grouping over pi 0.73.1's context and the file's out-of-conversation lines. */
function referenceOf(file: string): Map<string, ModelUsageStats> {
	const groups = new Map<string, ModelUsageStats>();
	const add = (key: string, usage: Usage) => {
		const group = groups.get(key) ?? {
			key,
			tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			cost: 0,
		};
		group.tokens.input += usage.input;
		group.tokens.output += usage.output;
		group.tokens.cacheRead += usage.cacheRead;
		group.tokens.cacheWrite += usage.cacheWrite;
		group.tokens.total += usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
		group.cost += usage.cost.total;
		groups.set(key, group);
	};
	type Message = { role: string; provider?: string; model?: string; responseModel?: string; usage?: Usage };
	for (const message of pi.SessionManager.open(file).buildSessionContext().messages as Message[]) {
		if (message.role === "assistant")
			add(`${message.provider}/${message.responseModel ?? message.model}`, message.usage!);
		else if (message.role === "toolResult" && message.usage) add("Tools/summaries", message.usage);
	}
	for (const line of readFileSync(file, "utf8").split("\n")) {
		if (!line.trim()) continue;
		const entry = JSON.parse(line);
		if (entry.type === "usage") add(`${entry.provider}/${entry.model}`, entry.usage);
		else if ((entry.type === "compaction" || entry.type === "branch_summary") && entry.usage) {
			add("Tools/summaries", entry.usage);
		}
	}
	for (const [key, group] of groups) if (group.cost === 0 && group.tokens.total === 0) groups.delete(key);
	return groups;
}

let run = 0;
describe("getSessionStats().byModel on random session files", () => {
	it("= pi 1.6's per-model grouping of what the totals count; adds up to tokens and cost; most expensive first", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(opArb, { maxLength: 25 }), async (ops) => {
				const file = writeSession(join(root, `run-${run++}`), ops);
				const stats = await settleStatsOf(file);
				const reference = referenceOf(file);
				expect(stats.byModel.map((group) => group.key).sort()).toEqual([...reference.keys()].sort());
				for (const group of stats.byModel) {
					const expected = reference.get(group.key)!;
					expect(group.tokens).toEqual(expected.tokens);
					// Float sums in another order: cost compared to 1e-9.
					expect(group.cost).toBeCloseTo(expected.cost, 9);
					expect(group.cost > 0 || group.tokens.total > 0).toBe(true);
				}
				for (let index = 1; index < stats.byModel.length; index++) {
					expect(stats.byModel[index - 1]!.cost).toBeGreaterThanOrEqual(stats.byModel[index]!.cost);
				}
				const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
				let cost = 0;
				for (const group of stats.byModel) {
					for (const key of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[key] += group.tokens[key];
					cost += group.cost;
				}
				expect(tokens).toEqual(stats.tokens);
				expect(cost).toBeCloseTo(stats.cost, 9);
			}),
			{ numRuns: 100 },
		);
	}, 120_000);
});
