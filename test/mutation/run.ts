/**
 * Runs the mutation audit of `catalog.ts`: for each mutant, applies it, runs its tests with
 * `vitest --bail=1`, and writes the file's original bytes back (also on Ctrl-C). Prints one line
 * per mutant and a JSON summary; exits 1 when a non-equivalent mutant survives, an "equivalent"
 * one is killed, a run hits the time limit (`timed out`: no test was seen failing, so it is not a
 * kill), or a mutant no longer applies.
 *
 * Usage: `npx tsx test/mutation/run.ts [ids…]` (all mutants without ids). Slow: one vitest run per
 * mutant (about 5–80 s each on two cores). Not part of `npm test`.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyEdits, MUTANTS, type Mutant } from "./catalog.js";
import { emptySummary, isUnexpected, type MutantStatus, statusOfRun, tally } from "./outcome.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/**
 * A mutant that makes a run loop forever starves vitest's own timeouts: stop the run from outside
 * (reported as `timed out`, not killed).
 */
const RUN_TIMEOUT_SECONDS = 300;

function runMutant(mutant: Mutant): { status: MutantStatus; failed: string[]; signal?: string } {
	const path = join(ROOT, mutant.file);
	const original = readFileSync(path);
	const mutated = applyEdits(original.toString("utf8"), mutant);
	if (mutated === undefined) return { status: "stale", failed: [] };
	const restore = () => writeFileSync(path, original);
	process.once("SIGINT", restore);
	try {
		writeFileSync(path, mutated);
		const run = spawnSync(
			"timeout",
			[String(RUN_TIMEOUT_SECONDS), "npx", "vitest", "run", ...mutant.tests, "--bail=1"],
			{ cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20 },
		);
		// biome-ignore lint/suspicious/noControlCharactersInRegex: strips the reporter's colours
		const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.replace(/\x1b\[[0-9;]*m/g, "");
		const failed = [...new Set(output.split("\n").filter((line) => /^\s*FAIL\s/.test(line)))].map((line) =>
			line.trim().replace(/^FAIL\s+/, ""),
		);
		const status = statusOfRun(run.status);
		return status === "ended by signal" ? { status, failed, signal: run.signal ?? "a signal" } : { status, failed };
	} finally {
		restore();
		process.removeListener("SIGINT", restore);
	}
}

function main(): void {
	const ids = process.argv.slice(2);
	const selected = ids.length === 0 ? MUTANTS : MUTANTS.filter((mutant) => ids.includes(mutant.id));
	const unknown = ids.filter((id) => !MUTANTS.some((mutant) => mutant.id === id));
	if (unknown.length > 0) throw new Error(`Unknown mutant ids: ${unknown.join(", ")} (see test/mutation/catalog.ts)`);
	const summary = emptySummary(selected.length);
	for (const mutant of selected) {
		const { status, failed, signal } = runMutant(mutant);
		tally(summary, mutant, status);
		const unexpected = isUnexpected(status, mutant);
		const by =
			status === "timed out"
				? `stopped after ${RUN_TIMEOUT_SECONDS} s with no failing test seen`
				: status === "ended by signal"
					? `the run died of ${signal} with no failing test seen`
					: (failed[0] ?? (mutant.equivalent !== undefined ? `equivalent: ${mutant.equivalent}` : ""));
		console.log(`${unexpected ? "!!" : "ok"} ${mutant.id} ${status} ${mutant.file} — ${mutant.description} — ${by}`);
	}
	console.log(JSON.stringify(summary));
	process.exitCode = summary.unexpected.length > 0 ? 1 : 0;
}

main();
