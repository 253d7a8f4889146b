/**
 * Randomized differential of tree navigation, forking and runtime replacement against pi 0.73.1:
 * each generated scenario (tree-scenarios.ts) runs on pi's AgentSessionRuntime and on Settle's, and
 * what a user observes (tree-play.ts) must be equal after the named differences are taken out
 * (tree-compare.ts). Replay a failure with `TREE_SEED=<seed> npx vitest run
 * test/parity/tree-differential.property.test.ts` (`TREE_RUNS` sets the number of runs; the time
 * limit grows with it, so a long hunt like `TREE_RUNS=500` is not cut short).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	compactionDiffersByDesign,
	comparableTreeRun,
	coverageOf,
	crossOpenDifferences,
	namedDifferencesHold,
} from "./tree-compare.js";
import { onBothRuntimes } from "./tree-peers.js";
import { normalizeRun, observeFiles, playTree, type TreeHolder, treePeerOptions } from "./tree-play.js";
import { TREE_EXAMPLES, treeScenarioArb } from "./tree-scenarios.js";

const RUNS = Number(process.env.TREE_RUNS ?? 60);
/** 60 s by default; a second per run for a longer hunt. */
const TIME_LIMIT_MS = Math.max(60_000, RUNS * 1_000);
const SEED = process.env.TREE_SEED === undefined ? undefined : Number(process.env.TREE_SEED);

const COVERAGE = [
	"command fork",
	"command navigateTree",
	"command newSession",
	"command newSessionWith",
	"command switchSession",
	"compacted",
	"editorText",
	"fork",
	"fork cancelled",
	"import cancelled",
	"import cwdOverride",
	"import elsewhere",
	"import failed",
	"import missing cwd",
	"import own",
	"import pi-made",
	"import settle-made",
	"navigate aborted",
	"navigate cancelled",
	"navigate failed",
	"navigate summarized",
	"navigate summarized by extension",
	"navigate to compaction",
	"navigate to custom_message",
	"newSession",
	"newSession cancelled",
	"newSession setup",
	"resume writes later",
	"setup failed via command",
	"setup failed via runtime",
	"switch",
	"switch cancelled",
	"withSession",
	"withSession after fork",
	"withSession after switch",
];

describe("parity: randomized tree / fork / replacement differential against pi 0.73.1", () => {
	it(
		"a random sequence of navigations, forks and replacements is observed the same on both peers",
		async () => {
			const covered = new Set<string>();
			await fc.assert(
				fc.asyncProperty(treeScenarioArb, async (scenario) => {
					const holders: Record<string, TreeHolder> = { pi: { log: [] }, settle: { log: [] } };
					const runs = await onBothRuntimes(
						(name) => treePeerOptions(scenario, holders[name] as TreeHolder),
						async (peer) => {
							const holder = holders[peer.name] as TreeHolder;
							const played = await playTree(scenario, peer, holder);
							return normalizeRun({
								...played,
								disk: observeFiles(peer, played.files, played.strayCopies),
								log: holder.log,
								requests: peer.requests,
								root: peer.dirs.root,
								memoryFiles: played.files,
							});
						},
					);
					fc.pre(!compactionDiffersByDesign(runs.pi, runs.settle));
					for (const tag of coverageOf(runs.pi)) covered.add(tag);
					expect(namedDifferencesHold(runs.pi, "pi")).toEqual([]);
					expect(namedDifferencesHold(runs.settle, "settle")).toEqual([]);
					// Each product's files read alike by pi's SessionManager and Settle's.
					expect(crossOpenDifferences(runs.pi)).toEqual([]);
					expect(crossOpenDifferences(runs.settle)).toEqual([]);
					expect(comparableTreeRun(runs.settle)).toEqual(comparableTreeRun(runs.pi));
				}),
				{
					numRuns: RUNS,
					examples: TREE_EXAMPLES.map((example) => [example]),
					...(SEED !== undefined ? { seed: SEED } : {}),
					endOnFailure: true,
				},
			);
			// The paths the comparison is about were taken (TREE_EXAMPLES take each of them): not a vacuous pass.
			expect([...covered].sort()).toEqual([...COVERAGE].sort());
		},
		TIME_LIMIT_MS,
	);
});
