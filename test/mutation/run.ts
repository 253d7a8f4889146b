/**
 * Runs the mutation audit of `catalog.ts`: for each mutant, applies it, runs its tests with
 * `vitest --bail=1`, and writes the file's original bytes back (also on Ctrl-C). Prints one line
 * per mutant and a JSON summary; exits 1 when a non-equivalent mutant survives, an "equivalent"
 * one is killed, or a mutant no longer applies.
 *
 * Usage: `npx tsx test/mutation/run.ts [ids…]` (all mutants without ids). Slow: one vitest run per
 * mutant (about 5–80 s each on two cores). Not part of `npm test`.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyEdits, MUTANTS, type Mutant } from "./catalog.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** A mutant that makes a run loop forever starves vitest's own timeouts: stop the run from outside. */
const RUN_TIMEOUT_SECONDS = 300;

type Status = "killed" | "killed (timeout)" | "survived" | "stale";

function runMutant(mutant: Mutant): { status: Status; failed: string[] } {
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
		if (run.status === 0) return { status: "survived", failed };
		return { status: run.status === 124 ? "killed (timeout)" : "killed", failed };
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
	const summary = {
		mutants: selected.length,
		killed: 0,
		survived: 0,
		equivalent: 0,
		stale: 0,
		unexpected: [] as string[],
	};
	for (const mutant of selected) {
		const { status, failed } = runMutant(mutant);
		const expectedToSurvive = mutant.equivalent !== undefined;
		if (status === "stale") summary.stale++;
		else if (status === "survived") summary.survived++;
		else summary.killed++;
		if (expectedToSurvive) summary.equivalent++;
		const unexpected = status === "stale" || (status === "survived") !== expectedToSurvive;
		if (unexpected) summary.unexpected.push(mutant.id);
		const by = failed[0] ?? (expectedToSurvive ? `equivalent: ${mutant.equivalent}` : "");
		console.log(`${unexpected ? "!!" : "ok"} ${mutant.id} ${status} ${mutant.file} — ${mutant.description} — ${by}`);
	}
	console.log(JSON.stringify(summary));
	process.exitCode = summary.unexpected.length > 0 ? 1 : 0;
}

main();
