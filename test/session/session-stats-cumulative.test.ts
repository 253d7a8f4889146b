/**
 * `getSessionStats().cumulative`: the tokens and cost of every model call in the session file,
 * all branches (gsd-2#1423, pi-web#557: a session's cost dropped after a compaction because the
 * stats summed the current context only). The context-scoped `tokens` and `cost` keep pi 0.73.1's
 * values; `cumulative` never goes down after a compaction, a `/tree` navigation or a branch, and a
 * reopened file gives the same totals.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { Usage } from "../../src/llm/types.js";
import type { UsageTotals } from "../../src/session/session-stats.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { billedInFile, settleStatsOf } from "./session-stats.helpers.js";

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(() => {
	h?.cleanup();
	h = undefined;
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function usage(input: number, output: number, cost: number): Usage {
	return {
		input,
		output,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: input + output,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
	};
}

/** The cumulative totals of `file` opened again from disk (read-only: the live session holds the lock). */
function reopened(file: string): UsageTotals {
	const sm = SessionManager.open(file, { readOnly: true });
	try {
		return sm.getCumulativeUsage();
	} finally {
		sm.close();
	}
}

const summary = () => fauxAssistantMessage("## Goal\nearlier work");

describe("cumulative session usage (gsd-2#1423)", () => {
	it("gsd-2#1423: a compaction leaves the cumulative totals as they were (plus the summary call); the next turn adds to them", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		h.setResponses([
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
			summary(),
			fauxAssistantMessage("three"),
		]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const before = h.session.getSessionStats();
		expect(before.cumulative.tokens.total).toBeGreaterThan(0);
		expect(before.cumulative).toEqual(billedInFile(h.session.sessionFile!));

		await h.session.compact();
		const after = h.session.getSessionStats();
		const compaction = h.sessionManager.getEntries().find((entry) => entry.type === "compaction")!;
		const summaryTokens = compaction.type === "compaction" ? (compaction.usage?.totalTokens ?? 0) : 0;
		// pi 0.73.1's context-scoped tokens drop (the first answer was compacted away)…
		expect(after.tokens.total).toBeLessThan(before.tokens.total + summaryTokens);
		// …the money spent does not: what was spent before, plus the summary call.
		expect(after.cumulative.tokens.total).toBe(before.cumulative.tokens.total + summaryTokens);
		expect(after.cumulative).toEqual(billedInFile(h.session.sessionFile!));

		await h.session.prompt("c");
		const next = h.session.getSessionStats();
		expect(next.cumulative.tokens.total).toBeGreaterThan(after.cumulative.tokens.total);
		expect(next.cumulative).toEqual(billedInFile(h.session.sessionFile!));
		// Reopened from disk: the same totals, computed from the entries.
		expect(reopened(h.session.sessionFile!)).toEqual(next.cumulative);
	});

	it("gsd-2#1423: the cost of compacted-away answers stays in cumulative.cost, also after a reopen", async () => {
		const dir = mkdtempSync(join(tmpdir(), "settle-stats-cumulative-"));
		dirs.push(dir);
		const sm = SessionManager.create(dir, join(dir, "sessions"));
		sm.appendMessage({ role: "user", content: "first", timestamp: 1 });
		sm.appendMessage({ ...fauxAssistantMessage("one"), usage: usage(1000, 100, 0.5) });
		const kept = sm.appendMessage({ role: "user", content: "second", timestamp: 2 });
		sm.appendMessage({ ...fauxAssistantMessage("two"), usage: usage(2000, 200, 0.25) });
		sm.appendCompaction("summary", kept, 3000, undefined, false, usage(3000, 50, 0.125));
		sm.appendMessage({ role: "user", content: "third", timestamp: 3 });
		sm.appendMessage({ ...fauxAssistantMessage("three"), usage: usage(500, 10, 0.0625) });
		const file = sm.getSessionFile()!;
		sm.close();

		const stats = await settleStatsOf(file);
		// pi 0.73.1's scope: the answers in the context and the summary call.
		expect(stats.cost).toBe(0.25 + 0.125 + 0.0625);
		expect(stats.cumulative).toEqual({
			tokens: { input: 6500, output: 360, cacheRead: 0, cacheWrite: 0, total: 6860 },
			cost: 0.5 + 0.25 + 0.125 + 0.0625,
		});
	});

	it("gsd-2#1423: the turns of a branch /tree navigation left stay counted", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two"), fauxAssistantMessage("other")]);
		await h.session.prompt("a");
		const firstAnswer = h.sessionManager.getLeafId()!;
		await h.session.prompt("b");
		const before = h.session.getSessionStats();

		await h.session.navigateTree(firstAnswer);
		const navigated = h.session.getSessionStats();
		expect(navigated.tokens.total).toBeLessThan(before.tokens.total);
		expect(navigated.cumulative).toEqual(before.cumulative);

		await h.session.prompt("c");
		const branched = h.session.getSessionStats();
		expect(branched.cumulative.tokens.total).toBeGreaterThan(before.cumulative.tokens.total);
		// Every answer in the file, the abandoned "two" included.
		expect(branched.cumulative).toEqual(billedInFile(h.session.sessionFile!));
		expect(branched.cumulative.tokens.total).toBeGreaterThan(branched.tokens.total);
		expect(reopened(h.session.sessionFile!)).toEqual(branched.cumulative);
	});

	it("a fork's cumulative totals start at what its copied entries cost (as pi's footer sum); its own calls add to them only", () => {
		const dir = mkdtempSync(join(tmpdir(), "settle-stats-cumulative-"));
		dirs.push(dir);
		const sm = SessionManager.create(dir, join(dir, "sessions"));
		sm.appendMessage({ role: "user", content: "first", timestamp: 1 });
		sm.appendMessage({ ...fauxAssistantMessage("one"), usage: usage(1000, 100, 0.5) });
		const parentFile = sm.getSessionFile()!;
		sm.close();

		const fork = SessionManager.forkFrom(parentFile, dir, { sessionDir: join(dir, "sessions") });
		expect(fork.getCumulativeUsage().cost).toBe(0.5);
		fork.appendMessage({ role: "user", content: "second", timestamp: 2 });
		fork.appendMessage({ ...fauxAssistantMessage("two"), usage: usage(2000, 200, 0.25) });
		const forkFile = fork.getSessionFile()!;
		fork.close();
		expect(reopened(forkFile).cost).toBe(0.75);
		expect(reopened(parentFile).cost).toBe(0.5);
	});
});
