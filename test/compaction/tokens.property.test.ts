import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateContextTokens, estimateMessageTokens, validAssistantUsage } from "../../src/llm/tokens.js";
import type { AgentMessage, StopReason } from "../../src/llm/types.js";
import { assistant } from "../recovery/helpers.js";

const messageArb: fc.Arbitrary<AgentMessage> = fc.oneof(
	fc.string({ maxLength: 40 }).map((text): AgentMessage => ({ role: "user", content: text, timestamp: 1 })),
	fc
		.record({
			text: fc.string({ maxLength: 40 }),
			stopReason: fc.constantFrom<StopReason>("stop", "toolUse", "length", "error", "aborted"),
			total: fc.integer({ min: 0, max: 100_000 }),
		})
		.map(({ text, stopReason, total }) => assistant({ text, stopReason, usage: { totalTokens: total } })),
	fc.string({ maxLength: 40 }).map(
		(text): AgentMessage => ({
			role: "toolResult",
			toolCallId: "t",
			toolName: "read",
			content: [{ type: "text", text }],
			isError: false,
			timestamp: 1,
		}),
	),
);

/** Counts reads of array elements, so the test sees how far the estimate walked. */
function countingReads(messages: AgentMessage[]): { view: AgentMessage[]; reads: Set<number> } {
	const reads = new Set<number>();
	const view = new Proxy(messages, {
		get(target, property, receiver) {
			if (typeof property === "string" && /^\d+$/.test(property)) reads.add(Number(property));
			return Reflect.get(target, property, receiver);
		},
	});
	return { view, reads };
}

describe("estimateContextTokens properties", () => {
	it("walks back only to the last valid usage", () => {
		fc.assert(
			fc.property(fc.array(messageArb, { maxLength: 60 }), (messages) => {
				const { view, reads } = countingReads(messages);
				const estimate = estimateContextTokens(view);
				const lastValid = messages.findLastIndex((message) => validAssistantUsage(message) !== undefined);
				expect(estimate.lastUsageIndex).toBe(lastValid === -1 ? null : lastValid);
				// Exactly the messages from the usage source (or the start) to the end were read.
				const firstRead = Math.max(lastValid, 0);
				expect([...reads].sort((a, b) => a - b)).toEqual(
					Array.from({ length: messages.length - firstRead }, (_, offset) => firstRead + offset),
				);
			}),
			{ numRuns: 300 },
		);
	});

	it("equals usage + the estimates after it", () => {
		fc.assert(
			fc.property(fc.array(messageArb, { maxLength: 60 }), (messages) => {
				const estimate = estimateContextTokens(messages);
				const start = estimate.lastUsageIndex === null ? 0 : estimate.lastUsageIndex + 1;
				const trailing = messages.slice(start).reduce((sum, message) => sum + estimateMessageTokens(message), 0);
				expect(estimate.trailingTokens).toBe(trailing);
				expect(estimate.tokens).toBe(estimate.usageTokens + trailing);
			}),
			{ numRuns: 300 },
		);
	});
});
