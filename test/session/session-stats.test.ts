/**
 * `session.getSessionStats()` through the public API on real session files: cache-warming refreshes
 * and summarizer calls are counted (pi 1.6), the context's messages as pi 0.73.1 counts them, the
 * same numbers after the file is opened again, and the same numbers as pi 0.73.1 itself computes
 * for the sessions it wrote.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AssistantMessage, Usage } from "../../src/llm/types.js";
import type { SessionStats } from "../../src/session/session-stats.js";
import type { SessionEntry, UsageEntry } from "../../src/store/entries.js";
import {
	drainMicrotasks,
	PROMPT_TOKENS,
	usage,
	WARM_DELAY_MS,
	warmModel,
	warmSession,
} from "./cache-warming-helpers.js";
import { comparable, piStatsOf, settleStatsOf, twoCopies } from "./session-stats.helpers.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/store/", import.meta.url));

type Env = Awaited<ReturnType<typeof warmSession>>;
const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "settle-stats-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/** A refresh's usage: the prompt read from the cache and one output token, at Sonnet-like prices. */
const WARM_USAGE: Usage = usage({
	cacheRead: PROMPT_TOKENS,
	output: 1,
	totalTokens: PROMPT_TOKENS + 1,
	cost: { input: 0, output: 0.000015, cacheRead: 0.3, cacheWrite: 0, total: 0.300015 },
});

async function warmingSession(): Promise<Env> {
	const env = await warmSession({
		persistence: "disk",
		// Compaction keeps only the newest turn.
		settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
		answerWarm: (_request, model): AssistantMessage => ({
			...fauxAssistantMessage("", { stopReason: "length" }),
			api: model.api,
			provider: model.provider,
			model: model.id,
			usage: WARM_USAGE,
		}),
	});
	cleanups.push(() => env.cleanup());
	return env;
}

/** Advances to the next refresh and waits for its usage entry. */
async function warmOnce(env: Env): Promise<UsageEntry> {
	const appended = env.nextEvent("entry_appended");
	env.clock.increment(WARM_DELAY_MS);
	const { entry } = await appended;
	expect(entry).toMatchObject({ type: "usage", kind: "cache_warm" });
	return entry as UsageEntry;
}

/** Token and cost totals of `usages`, summed in order. */
function totals(usages: Usage[]): Pick<SessionStats, "tokens" | "cost"> {
	const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	let cost = 0;
	for (const u of usages) {
		tokens.input += u.input;
		tokens.output += u.output;
		tokens.cacheRead += u.cacheRead;
		tokens.cacheWrite += u.cacheWrite;
		cost += u.cost.total;
	}
	tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
	return { tokens, cost };
}

function assistantUsages(env: Env): Usage[] {
	return env.session.messages.filter((m): m is AssistantMessage => m.role === "assistant").map((m) => m.usage);
}

function sideUsages(entries: SessionEntry[]): Usage[] {
	const out: Usage[] = [];
	for (const entry of entries)
		if ((entry.type === "usage" || entry.type === "compaction" || entry.type === "branch_summary") && entry.usage)
			out.push(entry.usage);
	return out;
}

describe("getSessionStats: cache-warming refreshes", () => {
	it("each refresh's tokens and cost are added to the totals; the message counts are the context's", async () => {
		const env = await warmingSession();
		await env.session.prompt("hello");
		const before = env.session.getSessionStats();
		expect(before).toMatchObject({ userMessages: 1, assistantMessages: 1, toolCalls: 0, toolResults: 0, cost: 0 });
		expect(before.tokens).toEqual({
			input: 10,
			output: 5,
			cacheRead: 0,
			cacheWrite: PROMPT_TOKENS,
			total: PROMPT_TOKENS + 15,
		});

		await warmOnce(env);
		await warmOnce(env);
		const after = env.session.getSessionStats();
		// Refreshes are not messages: the counts stay (tokens, cost and their split by model grow).
		const counts = (stats: typeof before) => ({
			...stats,
			tokens: undefined,
			cost: undefined,
			byModel: undefined,
			cumulative: undefined,
		});
		expect(counts(after)).toEqual(counts(before));
		// Nothing left the context: the cumulative totals are the same numbers.
		expect(after.cumulative).toEqual({ tokens: after.tokens, cost: after.cost });
		expect(after.tokens).toEqual({
			input: 10,
			output: 5 + 2,
			cacheRead: 2 * PROMPT_TOKENS,
			cacheWrite: PROMPT_TOKENS,
			total: 3 * PROMPT_TOKENS + 17,
		});
		expect(after.cost).toBe(0.300015 + 0.300015);
	});

	it("after a compaction the refreshes and the summary call still count; the compacted-away answers do not (pi 0.73.1)", async () => {
		const env = await warmingSession();
		await env.session.prompt("first");
		const firstWarm = await warmOnce(env);
		await env.session.prompt("second");
		await env.session.compact();
		await drainMicrotasks();
		const entries = env.sessionManager.getEntries();
		const compaction = entries.find((entry) => entry.type === "compaction");
		expect(compaction?.usage, "the summary call's usage is recorded").toBeDefined();
		// Only the second answer is left in the context (its prompt went into the summary: a split turn).
		const stats = env.session.getSessionStats();
		expect(stats).toMatchObject({ userMessages: 0, assistantMessages: 1 });
		expect(assistantUsages(env)).toHaveLength(1);
		expect({ tokens: stats.tokens, cost: stats.cost }).toEqual(
			totals([...assistantUsages(env), firstWarm.usage, compaction!.usage!]),
		);
	});

	it("reopening the file gives the same stats", async () => {
		const env = await warmingSession();
		await env.session.prompt("first");
		await warmOnce(env);
		await env.session.prompt("second");
		await warmOnce(env);
		await env.session.compact();
		await env.session.prompt("third");
		await warmOnce(env);
		const live = env.session.getSessionStats();
		expect(sideUsages(env.sessionManager.getEntries())).toHaveLength(4);
		const file = env.sessionManager.getSessionFile()!;
		env.session.dispose();
		env.sessionManager.close();
		const reopened = await settleStatsOf(file, warmModel("warm-1"));
		expect(reopened).toEqual(live);
	});
});

describe("getSessionStats beside pi 0.73.1 on sessions pi wrote", () => {
	/** Gives every assistant answer a distinct cost (pi's faux records 0), so that cost is compared too. */
	function withCosts(file: string, out: string): void {
		let n = 0;
		const lines = readFileSync(file, "utf8")
			.split("\n")
			.filter((line) => line.trim() !== "")
			.map((line) => {
				const entry = JSON.parse(line);
				const message = entry.type === "message" ? entry.message : entry.role ? entry : undefined;
				if (message?.role === "assistant" && message.usage) {
					n++;
					message.usage.cost = { ...message.usage.cost, total: n * 0.0137 + 1 / (n + 3) };
				}
				return JSON.stringify(entry);
			});
		writeFileSync(out, `${lines.join("\n")}\n`);
	}

	it.each([
		["pi-full", "a tool call, a manual compaction, a branch summary, labels, model changes, a custom message"],
		["pi-branches", "plain branches"],
		["before-compaction", "an old-format file with a compaction"],
		["large-session", "a long old-format file"],
	])("%s (%s): the same counts, tokens and cost", async (name) => {
		const dir = tempDir();
		const costed = join(dir, `${name}.costed.jsonl`);
		withCosts(join(FIXTURES, `${name}.jsonl`), costed);
		const copies = twoCopies(costed, dir, name);
		const [piStats, settleStats] = [await piStatsOf(copies.pi), await settleStatsOf(copies.settle)];
		expect(piStats.assistantMessages, "the fixture has answers").toBeGreaterThan(0);
		expect(piStats.cost, "costs were written").toBeGreaterThan(0);
		expect(comparable(settleStats)).toEqual(comparable(piStats));
	});
});
