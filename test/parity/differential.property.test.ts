/**
 * Randomized differential: each generated scenario (differential-scenarios.ts) runs on pi 0.73.1 and on
 * Settle, and everything a user observes must be equal after the documented differences are taken
 * out (`comparable`; each is checked to hold first). Runs whose outcome differs by design are
 * discarded with `fc.pre` (pi compacting nothing, a different compaction cut, an overflowed request
 * Settle leaves out before running what was queued, a `clearQueue()` that may meet an extension's
 * queued custom message), the run-time ones only when both
 * files agree up to that compaction. A failure prints the seed and the shrunk scenario; replay it
 * with `DIFF_SEED=<seed> npx vitest run test/parity/differential.property.test.ts` (`DIFF_RUNS`
 * sets the number of runs, default 100; the time limit grows with it).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PeerHolder, peerOptions, play } from "./differential.js";
import {
	clearMayMeetQueuedCustom,
	comparable,
	cutDiffersByDesign,
	piCompactedNothing,
	piDroppedPreviousSummary,
	QUEUED_INPUT_LOG,
	repeatedRecoveryFailures,
	settleOmittedOverflowedRequest,
} from "./differential-compare.js";
import { scenarioArb } from "./differential-scenarios.js";
import { onBothPeers } from "./peers.js";

const RUNS = Number(process.env.DIFF_RUNS ?? 100);
const SEED = process.env.DIFF_SEED === undefined ? undefined : Number(process.env.DIFF_SEED);
/** 120 s by default; grows with DIFF_RUNS so a long hunt is not cut short (5000 runs: 90 s on a quiet machine). */
const TIME_LIMIT_MS = Math.max(120_000, RUNS * 1_000);

describe("parity: randomized differential against pi 0.73.1", () => {
	it("a random scenario is observed the same on both peers", { timeout: TIME_LIMIT_MS }, async () => {
		await fc.assert(
			fc.asyncProperty(scenarioArb, async (scenario) => {
				fc.pre(!clearMayMeetQueuedCustom(scenario));
				const holders: Record<string, PeerHolder> = { pi: { log: [] }, settle: { log: [] } };
				const { pi, settle } = await onBothPeers(
					(name) => peerOptions(scenario, holders[name] as PeerHolder),
					(peer) => play(scenario, peer, holders[peer.name] as PeerHolder),
				);
				fc.pre(
					!piCompactedNothing(pi, settle) &&
						!cutDiffersByDesign(pi, settle) &&
						!piDroppedPreviousSummary(pi, settle) &&
						!settleOmittedOverflowedRequest(pi, settle),
				);
				expect(pi.edits).toEqual([]);
				for (const edit of settle.edits) expect(edit).toMatch(/^omit message:(assistant\(error\)|toolResult)/);
				expect(repeatedRecoveryFailures(settle)).toEqual(new Set());
				expect(pi.extensionLog.filter((line) => QUEUED_INPUT_LOG.test(line))).toEqual([]);
				expect(comparable(settle)).toEqual(comparable(pi));
			}),
			{ numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
		);
	});
});
