/**
 * `getSessionStats().byModel`: tokens and cost per billed model (pi 1.6's `/session` breakdown), on
 * a live session that switches models mid-way. The faux provider reports no cost (as pi-ai's), so
 * an extension prices each answer at `message_end` the way a real provider's usage arrives: per
 * model, from its token counts.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage, AssistantMessage, Usage } from "../../src/llm/types.js";
import { computeSessionStats, type ModelUsageStats, UNATTRIBUTED_USAGE_KEY } from "../../src/session/session-stats.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { settleStatsOf } from "./session-stats.helpers.js";

/** Dollars per token, by model id. */
const PRICE: Record<string, number> = { fast: 0.000_001, deep: 0.000_01, "deep-2025": 0.000_02 };

/** Prices every answer from its tokens; answers of `deep` name the snapshot that served them. */
function pricing(pi: ExtensionAPI): void {
	pi.on("message_end", (event) => {
		if (event.message.role !== "assistant") return undefined;
		const answer = event.message as AssistantMessage;
		const responseModel = answer.model === "deep" ? "deep-2025" : undefined;
		const { input, output, cacheRead, cacheWrite } = answer.usage;
		const total = (input + output + cacheRead + cacheWrite) * PRICE[responseModel ?? answer.model]!;
		const usage: Usage = { ...answer.usage, cost: { ...answer.usage.cost, total } };
		return { message: { ...answer, usage, ...(responseModel ? { responseModel } : {}) } };
	});
}

let h: Harness;
afterEach(() => h?.cleanup());

function sum(groups: readonly ModelUsageStats[]) {
	const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	let cost = 0;
	for (const group of groups) {
		for (const key of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[key] += group.tokens[key];
		cost += group.cost;
	}
	return { tokens, cost };
}

/** What the context's answers of one `provider/model` key add up to. */
function answersOf(messages: readonly { role: string }[], key: string) {
	const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	let cost = 0;
	for (const message of messages) {
		if (message.role !== "assistant") continue;
		const answer = message as AssistantMessage;
		if (`${answer.provider}/${answer.responseModel ?? answer.model}` !== key) continue;
		tokens.input += answer.usage.input;
		tokens.output += answer.usage.output;
		tokens.cacheRead += answer.usage.cacheRead;
		tokens.cacheWrite += answer.usage.cacheWrite;
		cost += answer.usage.cost.total;
	}
	tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
	return { key, tokens, cost };
}

describe("getSessionStats().byModel", () => {
	it("splits a session that switched models mid-way by the model that answered, and adds up to the totals", async () => {
		h = await createHarness({
			persistence: "disk",
			models: [{ id: "fast" }, { id: "deep" }],
			extensionFactories: [pricing],
		});
		h.setResponses([fauxAssistantMessage("fast one")]);
		await h.session.prompt("first, on fast");
		await h.session.setModel(h.faux.getModel("deep")!);
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("ls", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("deep two, after a tool call"),
		]);
		await h.session.prompt("second, on deep, with a tool call");
		await h.session.setModel(h.faux.getModel("fast")!);
		h.setResponses([fauxAssistantMessage("fast three")]);
		await h.session.prompt("third, back on fast");
		// A cache-warming refresh of another model, recorded outside the conversation.
		const refresh: Usage = {
			input: 0,
			output: 1,
			cacheRead: 500,
			cacheWrite: 0,
			totalTokens: 501,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.0002 },
		};
		h.sessionManager.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", refresh);

		const stats = h.session.getSessionStats();
		const messages = h.session.messages;
		const deep = answersOf(messages, "faux/deep-2025");
		const fast = answersOf(messages, "faux/fast");
		expect(deep.tokens.total).toBeGreaterThan(0);
		expect(fast.tokens.total).toBeGreaterThan(0);
		const warm = {
			key: "anthropic/claude-sonnet-4-5",
			tokens: { input: 0, output: 1, cacheRead: 500, cacheWrite: 0, total: 501 },
			cost: 0.0002,
		};
		// Most expensive first: deep (two answers at 10×), then fast or the refresh, whichever cost more.
		const expected = [deep, fast, warm].sort((a, b) => b.cost - a.cost);
		expect(stats.byModel.map((group) => group.key)).toEqual(expected.map((group) => group.key));
		for (const [index, group] of stats.byModel.entries()) {
			expect(group.tokens).toEqual(expected[index]!.tokens);
			expect(group.cost).toBeCloseTo(expected[index]!.cost, 12);
		}
		const totals = sum(stats.byModel);
		expect(totals.tokens).toEqual(stats.tokens);
		expect(totals.cost).toBeCloseTo(stats.cost, 12);
		// The existing fields are what they were: three answers on two models plus the refresh.
		expect(stats.assistantMessages).toBe(4);
		expect(stats.tokens.total).toBe(deep.tokens.total + fast.tokens.total + 501);

		// The session file, opened again: the same split.
		const file = h.session.sessionFile!;
		h.session.dispose();
		h.sessionManager.close();
		const reopened = await settleStatsOf(file, h.faux.getModel("fast")!);
		expect(reopened.byModel).toEqual(stats.byModel);
	});

	it("puts a tool result's nested call and summarizer calls under Tools/summaries; drops empty groups", () => {
		const zero: Usage = {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		};
		const priced = (input: number, total: number): Usage => ({
			...zero,
			input,
			totalTokens: input,
			cost: { ...zero.cost, total },
		});
		const base = { id: "e", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };
		const stats = computeSessionStats(
			[
				{ role: "user", content: "q", timestamp: 1 },
				{ ...fauxAssistantMessage("a"), usage: zero },
				{
					role: "toolResult",
					toolCallId: "c1",
					toolName: "subagent",
					content: [{ type: "text", text: "done" }],
					isError: false,
					timestamp: 2,
					usage: priced(40, 0.001),
				},
				// A malformed answer from a hand-edited file: no provider, a usage that is not an object.
				{ ...fauxAssistantMessage("b"), provider: undefined, usage: "n/a" } as unknown as AgentMessage,
				{ ...fauxAssistantMessage("c"), provider: undefined, usage: priced(7, 0) } as unknown as AgentMessage,
			],
			{
				sessionId: "s",
				sessionFile: undefined,
				contextUsage: undefined,
				entries: [
					{ ...base, type: "usage", kind: "cache_warm", provider: "faux", model: "fast", usage: zero },
					{
						...base,
						type: "compaction",
						summary: "s",
						firstKeptEntryId: "e",
						tokensBefore: 10,
						usage: priced(100, 0.002),
					},
					{ ...base, type: "branch_summary", fromId: "e", summary: "b" },
				],
			},
		);
		expect(stats.byModel).toEqual([
			{
				key: UNATTRIBUTED_USAGE_KEY,
				tokens: { input: 140, output: 0, cacheRead: 0, cacheWrite: 0, total: 140 },
				cost: 0.001 + 0.002,
			},
			{ key: "unknown/faux-1", tokens: { input: 7, output: 0, cacheRead: 0, cacheWrite: 0, total: 7 }, cost: 0 },
		]);
		expect(stats.tokens.total).toBe(147);
	});
});
