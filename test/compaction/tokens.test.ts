import { estimateTokens as piEstimateTokens } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	calculateContextTokens,
	compactionThresholdTokens,
	effectiveKeepRecentTokens,
	estimateContextTokens,
	estimateMessageTokens,
	shouldCompact,
} from "../../src/llm/tokens.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { assistant, usage } from "../recovery/helpers.js";

const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });

describe("calculateContextTokens", () => {
	it("prefers totalTokens, else sums the parts", () => {
		expect(calculateContextTokens(usage({ totalTokens: 42, input: 1, output: 1 }))).toBe(42);
		expect(calculateContextTokens(usage({ input: 10, output: 5, cacheRead: 3, cacheWrite: 2 }))).toBe(20);
	});
});

describe("estimateMessageTokens (chars / 4, rounded up)", () => {
	it("counts user text and 4800 characters per image", () => {
		expect(estimateMessageTokens(user("12345"))).toBe(2);
		expect(
			estimateMessageTokens({ role: "user", content: [{ type: "text", text: "abcd" }, image], timestamp: 1 }),
		).toBe(Math.ceil((4 + 4800) / 4));
	});

	it("counts assistant text, thinking, tool names and JSON arguments", () => {
		const message = assistant({
			text: "hello",
			toolCalls: [{ type: "toolCall", id: "t1", name: "read", arguments: { path: "a.ts" } }],
		});
		message.content.unshift({ type: "thinking", thinking: "hmm" });
		expect(estimateMessageTokens(message)).toBe(Math.ceil((5 + 3 + 4 + JSON.stringify({ path: "a.ts" }).length) / 4));
	});

	it("counts tool results and custom messages with images", () => {
		expect(
			estimateMessageTokens({
				role: "toolResult",
				toolCallId: "t1",
				toolName: "read",
				content: [{ type: "text", text: "12345678" }, image],
				isError: false,
				timestamp: 1,
			}),
		).toBe(2 + 1200);
		expect(
			estimateMessageTokens({ role: "custom", customType: "note", content: "123", display: true, timestamp: 1 }),
		).toBe(1);
	});

	it("counts bash command + output and summary texts", () => {
		expect(
			estimateMessageTokens({
				role: "bashExecution",
				command: "ls",
				output: "a\nb",
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: 1,
			}),
		).toBe(2);
		expect(
			estimateMessageTokens({ role: "compactionSummary", summary: "x".repeat(9), tokensBefore: 1, timestamp: 1 }),
		).toBe(3);
		expect(estimateMessageTokens({ role: "branchSummary", summary: "x".repeat(8), fromId: "a", timestamp: 1 })).toBe(2);
	});

	it("counts system messages as 0 (the prompt is inside every usage)", () => {
		expect(estimateMessageTokens({ role: "system", content: "You are helpful.", timestamp: 1 })).toBe(0);
	});

	it("counts a CJK character as about one token, Latin, accented and emoji text as chars / 4 (pi#2562)", () => {
		// DELIBERATE_CJK_COUNTED: pi 0.73.1 gives 2 for these 8 characters.
		expect(estimateMessageTokens(user("你好世界こんにちは".slice(0, 8)))).toBe(8);
		expect(estimateMessageTokens(user("안녕하세요"))).toBe(5);
		expect(estimateMessageTokens(user("ＡＢ"))).toBe(2);
		expect(estimateMessageTokens(user("日本 code"))).toBe(Math.ceil((4 + 4 + 5) / 4));
		expect(estimateMessageTokens(user("café 😀"))).toBe(piEstimateTokens(user("café 😀") as never));
		const call = assistant({ toolCalls: [{ type: "toolCall", id: "1", name: "w", arguments: { t: "中文" } }] });
		expect(estimateMessageTokens(call)).toBe(Math.ceil((1 + '{"t":""}'.length + 8) / 4));
	});

	it("counts every code unit of the wide ranges as 4 and every other as 1, whatever else the text holds", () => {
		// Edges of each wide range and their neighbours, plus Latin-1 and astral (emoji) text.
		const wide = [0x1100, 0x11ff, 0x2e80, 0x9fff, 0xa960, 0xa97f, 0xac00, 0xd7af, 0xf900, 0xfaff, 0xfe30, 0xfe4f];
		const narrow = [0x10ff, 0x1200, 0x2e7f, 0xa000, 0xa95f, 0xa980, 0xabff, 0xf8ff, 0xfb00, 0xfe2f, 0xfe50, 0xfff0];
		const unit = fc.oneof(
			fc.constantFrom(...wide, 0xff00, 0xffef).map((code) => ({ text: String.fromCharCode(code), chars: 4 })),
			fc.constantFrom(...narrow).map((code) => ({ text: String.fromCharCode(code), chars: 1 })),
			fc.constantFrom("a", "é", " ", "\n").map((text) => ({ text, chars: 1 })),
			fc.constant({ text: "😀", chars: 2 }),
		);
		fc.assert(
			fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
				const text = units.map((u) => u.text).join("");
				const chars = units.reduce((sum, u) => sum + u.chars, 0);
				expect(estimateMessageTokens(user(text))).toBe(Math.ceil(chars / 4));
			}),
		);
	});

	it("matches pi's estimate for every message kind pi counts the same way", () => {
		const messages: AgentMessage[] = [
			user("hello there"),
			assistant({ text: "ok", toolCalls: [{ type: "toolCall", id: "1", name: "bash", arguments: { command: "ls" } }] }),
			{ role: "toolResult", toolCallId: "1", toolName: "bash", content: [image], isError: false, timestamp: 1 },
			{
				role: "bashExecution",
				command: "pwd",
				output: "/x",
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: 1,
			},
		];
		for (const message of messages) expect(estimateMessageTokens(message)).toBe(piEstimateTokens(message as never));
	});
});

describe("estimateContextTokens", () => {
	it("sums estimates when no message has usage", () => {
		expect(estimateContextTokens([user("1234"), user("12345678")])).toEqual({
			tokens: 3,
			usageTokens: 0,
			trailingTokens: 3,
			lastUsageIndex: null,
		});
	});

	it("uses the last valid usage plus estimates after it", () => {
		const messages = [
			user("x".repeat(400)),
			assistant({ usage: { totalTokens: 1000 } }),
			user("x".repeat(40)),
			assistant({ usage: { totalTokens: 2000 } }),
			user("x".repeat(8)),
		];
		expect(estimateContextTokens(messages)).toEqual({
			tokens: 2002,
			usageTokens: 2000,
			trailingTokens: 2,
			lastUsageIndex: 3,
		});
	});

	it("skips aborted, error and zero-usage responses (estimating them instead)", () => {
		const messages = [
			assistant({ usage: { totalTokens: 500 } }),
			assistant({ text: "x".repeat(40), stopReason: "aborted", usage: { totalTokens: 9000 } }),
			assistant({ stopReason: "error", errorMessage: "529 overloaded", usage: { totalTokens: 9000 } }),
			assistant({ text: "x".repeat(4) }),
		];
		expect(estimateContextTokens(messages)).toEqual({
			tokens: 500 + 10 + 0 + 1,
			usageTokens: 500,
			trailingTokens: 11,
			lastUsageIndex: 0,
		});
	});
});

describe("shouldCompact", () => {
	it("is tokens > window − reserve, only when enabled", () => {
		const settings = { enabled: true, reserveTokens: 16_384 };
		expect(shouldCompact(200_000 - 16_384, 200_000, settings)).toBe(false);
		expect(shouldCompact(200_000 - 16_383, 200_000, settings)).toBe(true);
		expect(shouldCompact(500_000, 200_000, { ...settings, enabled: false })).toBe(false);
	});

	it("pi#8651: the reserve is capped at half the window: an 8192-token model with the default reserve compacts above 4096 tokens, not at every size", () => {
		const settings = { enabled: true, reserveTokens: 16_384 };
		expect(compactionThresholdTokens(8192, settings)).toBe(4096);
		expect(shouldCompact(4096, 8192, settings)).toBe(false);
		expect(shouldCompact(4097, 8192, settings)).toBe(true);
		// Windows of 32768 tokens and more keep the reserve as set.
		expect(compactionThresholdTokens(32_768, settings)).toBe(32_768 - 16_384);
	});

	it("decides against compactionThresholdTokens, the threshold traces show (one source of truth)", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 2_000_000 }),
				fc.integer({ min: 0, max: 200_000 }),
				fc.integer({ min: 0, max: 2_000_000 }),
				(contextWindow, reserveTokens, tokens) => {
					const threshold = compactionThresholdTokens(contextWindow, { reserveTokens });
					expect(threshold).toBe(contextWindow - Math.min(reserveTokens, Math.floor(contextWindow / 2)));
					expect(shouldCompact(tokens, contextWindow, { enabled: true, reserveTokens })).toBe(tokens > threshold);
				},
			),
		);
	});
});

describe("effectiveKeepRecentTokens (opencode#45368)", () => {
	it("caps the kept tail at half the threshold, so what a compaction keeps is under it", () => {
		const defaults = { reserveTokens: 16_384, keepRecentTokens: 20_000 };
		expect(effectiveKeepRecentTokens(200_000, defaults)).toBe(20_000);
		expect(effectiveKeepRecentTokens(32_768, defaults)).toBe(8192);
		expect(effectiveKeepRecentTokens(8192, defaults)).toBe(2048);
		expect(effectiveKeepRecentTokens(32_768, { ...defaults, keepRecentTokens: 1000 })).toBe(1000);
		expect(effectiveKeepRecentTokens(0, defaults)).toBe(20_000);
	});
});
