import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isTurnStart, isValidCutPoint } from "../../src/compaction/cut-point.js";
import { messageFromEntry } from "../../src/compaction/entry-messages.js";
import { prepareCompaction } from "../../src/compaction/prepare.js";
import { DEFAULT_COMPACTION_SETTINGS } from "../../src/compaction/types.js";
import { estimateContextTokens, estimateMessageTokens } from "../../src/llm/tokens.js";
import type { AgentMessage } from "../../src/llm/types.js";
import type { CompactionEntry, SessionEntry } from "../../src/store/entries.js";
import { call, EntryLog } from "./builders.js";

type Opening = { kind: "user" | "bash" | "custom_message"; tokens: number };
type Step = { toolCalls: number[]; textTokens: number; usage: number };
type Turn = { opening: Opening; steps: Step[]; finalTokens: number | null };
type Noise = "thinking_level_change" | "label" | "custom" | null;

const tokensArb = fc.integer({ min: 0, max: 400 });
const turnArb: fc.Arbitrary<Turn> = fc.record({
	opening: fc.record({
		kind: fc.constantFrom<Opening["kind"]>("user", "user", "bash", "custom_message"),
		tokens: tokensArb,
	}),
	steps: fc.array(
		fc.record({
			toolCalls: fc.array(tokensArb, { minLength: 1, maxLength: 3 }),
			textTokens: fc.integer({ min: 0, max: 60 }),
			usage: fc.integer({ min: 0, max: 50_000 }),
		}),
		{ maxLength: 4 },
	),
	finalTokens: fc.option(tokensArb, { nil: null }),
});
const noiseArb = fc.constantFrom<Noise>(null, null, null, "thinking_level_change", "label", "custom");

const x = (tokens: number) => "x".repeat(tokens * 4);

function appendTurns(log: EntryLog, turns: Turn[], noise: Noise[]): void {
	let n = 0;
	const maybeNoise = () => {
		const kind = noise[n++ % Math.max(noise.length, 1)] ?? null;
		if (kind === "thinking_level_change") log.add({ type: "thinking_level_change", thinkingLevel: "low" });
		else if (kind === "label") log.add({ type: "label", targetId: log.entries[0]?.id ?? "none", label: "l" });
		else if (kind === "custom") log.add({ type: "custom", customType: "state", data: { n } });
	};
	for (const turn of turns) {
		maybeNoise();
		if (turn.opening.kind === "user") log.user(x(turn.opening.tokens));
		else if (turn.opening.kind === "bash") {
			log.message({
				role: "bashExecution",
				command: "make",
				output: x(turn.opening.tokens),
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: 1,
			});
		} else log.add({ type: "custom_message", customType: "note", content: x(turn.opening.tokens), display: true });
		for (const step of turn.steps) {
			const calls = step.toolCalls.map((_, i) =>
				call(`c${log.entries.length}-${i}`, i % 2 ? "read" : "edit", { path: `f${i}.ts` }),
			);
			log.assistant(x(step.textTokens), calls, step.usage);
			calls.forEach((toolCall, i) => {
				maybeNoise();
				log.toolResult(toolCall.id, toolCall.name, x(step.toolCalls[i]!));
			});
		}
		if (turn.finalTokens !== null) log.assistant(x(turn.finalTokens));
	}
}

const scenarioArb = fc.record({
	before: fc.array(turnArb, { minLength: 1, maxLength: 8 }),
	after: fc.array(turnArb, { maxLength: 8 }),
	withPreviousCompaction: fc.boolean(),
	previousKeep: fc.integer({ min: 1, max: 2000 }),
	keepRecentTokens: fc.integer({ min: 1, max: 3000 }),
	noise: fc.array(noiseArb, { maxLength: 10 }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/** Builds a branch, optionally with a compaction in the middle made by prepareCompaction itself. */
function buildBranch(scenario: Scenario): SessionEntry[] {
	const log = new EntryLog();
	appendTurns(log, scenario.before, scenario.noise);
	if (scenario.withPreviousCompaction) {
		const earlier = prepareCompaction(log.entries, {
			...DEFAULT_COMPACTION_SETTINGS,
			keepRecentTokens: scenario.previousKeep,
		});
		if (earlier) {
			log.add({
				type: "compaction",
				summary: `summary of ${earlier.messagesToSummarize.length} messages`,
				firstKeptEntryId: earlier.firstKeptEntryId,
				tokensBefore: earlier.tokensBefore,
				details: { readFiles: ["prev-read.ts"], modifiedFiles: [] },
			});
		}
	}
	appendTurns(log, scenario.after, scenario.noise);
	return log.entries;
}

function spanOf(entries: SessionEntry[]): { start: number; previous?: CompactionEntry } {
	const index = entries.findLastIndex((entry) => entry.type === "compaction");
	if (index === -1) return { start: 0 };
	const previous = entries[index] as CompactionEntry;
	return { start: entries.findIndex((entry) => entry.id === previous.firstKeptEntryId), previous };
}

const messagesOf = (entries: SessionEntry[]): AgentMessage[] =>
	entries.flatMap((entry) =>
		entry.type === "compaction" ? [] : [messageFromEntry(entry)].filter((m) => m !== undefined),
	);
const tokensOf = (messages: AgentMessage[]) =>
	messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);

describe("prepareCompaction properties", () => {
	it("cut, partition, budget, split turns and tokensBefore hold on random branches", () => {
		fc.assert(
			fc.property(scenarioArb, (scenario) => {
				const entries = buildBranch(scenario);
				const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: scenario.keepRecentTokens };
				const preparation = prepareCompaction(entries, settings);
				const { start, previous } = spanOf(entries);
				const span = entries.slice(start);
				const firstValid = span.findIndex(isValidCutPoint);
				const suffixTokens = (index: number) => tokensOf(messagesOf(span.slice(index)));
				// A cut that would keep the budget and still leave something to summarize.
				const betterCutExists = span.some(
					(entry, i) => i > firstValid && isValidCutPoint(entry) && suffixTokens(i) >= settings.keepRecentTokens,
				);

				if (!preparation) {
					expect(entries.at(-1)!.type === "compaction" || !betterCutExists).toBe(true);
					return;
				}
				expect(betterCutExists).toBe(true);
				const cutIndex = span.findIndex((entry) => entry.id === preparation.firstKeptEntryId);
				expect(cutIndex).toBeGreaterThan(0);
				const cutEntry = span[cutIndex]!;

				// Never cut at a tool result, and no kept tool result loses its call.
				expect(cutEntry.type === "message" && cutEntry.message.role === "toolResult").toBe(false);
				const kept = messagesOf(span.slice(cutIndex));
				const keptCalls = new Set(
					kept.flatMap((m) =>
						m.role === "assistant" ? m.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : [])) : [],
					),
				);
				for (const message of kept)
					if (message.role === "toolResult") expect(keptCalls.has(message.toolCallId)).toBe(true);

				// Summarized + turn prefix + kept partition the span, in order.
				expect([...preparation.messagesToSummarize, ...preparation.turnPrefixMessages, ...kept]).toEqual(
					messagesOf(span),
				);

				// The kept span holds the budget, and no later cut would.
				expect(tokensOf(kept)).toBeGreaterThanOrEqual(settings.keepRecentTokens);
				const anchor = span.findIndex((entry, i) => i >= cutIndex && isValidCutPoint(entry));
				expect(
					span.some((entry, i) => i > anchor && isValidCutPoint(entry) && suffixTokens(i) >= settings.keepRecentTokens),
				).toBe(false);

				// Split turns: the prefix starts at the turn's opening message and holds no other turn start.
				if (preparation.isSplitTurn) {
					expect(isTurnStart(span[anchor]!)).toBe(false);
					const openingIndex = span.findLastIndex((entry, i) => i < cutIndex && isTurnStart(entry));
					expect(preparation.turnPrefixMessages[0]).toEqual(messageFromEntry(span[openingIndex]!));
					expect(preparation.turnPrefixMessages).toEqual(messagesOf(span.slice(openingIndex, cutIndex)));
				} else {
					expect(preparation.turnPrefixMessages).toEqual([]);
					const openingBefore = span.findLastIndex((entry, i) => i < cutIndex && isTurnStart(entry));
					expect(isTurnStart(span[anchor]!) || openingBefore === -1).toBe(true);
				}

				// tokensBefore is the estimate of the context as it stands.
				const context = [...(previous ? [messageFromEntry(previous)!] : []), ...messagesOf(span)];
				expect(preparation.tokensBefore).toBe(estimateContextTokens(context).tokens);
				expect(preparation.previousSummary).toBe(previous?.summary);
				if (previous) expect(preparation.fileOps.read.has("prev-read.ts")).toBe(true);
			}),
			{ numRuns: 400 },
		);
	});
});
