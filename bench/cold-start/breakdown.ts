/**
 * Where Settle's import time and RSS go: the package entry compiled one module per file (the layout
 * before `dist/` became a bundle, see scripts/build.mjs; per file, each folder's cost shows) is
 * imported in fresh `node` processes one module group at a time — Node built-ins, xstate, then
 * Settle's folders in dependency order — and each group's added wall time, CPU time and RSS is
 * reported (medians over REPS). Groups are cumulative: a group only pays for what earlier groups
 * did not load. Also reports the RSS after the whole import when V8's optimizing compiler is off
 * (`--no-opt`): Node's ESM loader runs its URL and path helpers for every module and import edge,
 * they get hot, and the first TurboFan compilation touches megabytes of compiler code and memory.
 * A diagnostic, not a benchmark with targets.
 *
 *   npx tsx bench/cold-start/breakdown.ts        (REPS=9 overrides)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compileForNode } from "../../test/crash/compile-store.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPS = Number(process.env.REPS ?? 9);

/** Group name → modules (repository paths of the TypeScript sources, or bare specifiers). */
const GROUPS: [string, string[]][] = [
	[
		"node built-ins",
		[
			"node:fs",
			"node:fs/promises",
			"node:path",
			"node:os",
			"node:url",
			"node:crypto",
			"node:child_process",
			"node:buffer",
			"node:module",
			"node:stream/promises",
			"node:timers/promises",
		],
	],
	["xstate", ["xstate"]],
	["machines", ["machines/prompt-operation.machine.ts"]],
	["errors + llm", ["src/errors.ts", "src/llm/faux.ts", "src/llm/model-runtime.ts", "src/llm/validation.ts"]],
	["store", ["src/store/index.ts"]],
	["settings", ["src/settings/index.ts"]],
	["tools", ["src/tools/index.ts"]],
	["agent", ["src/agent/agent.ts"]],
	["extensions", ["src/extensions/index.ts"]],
	["resources", ["src/resources/index.ts"]],
	["compaction", ["src/compaction/index.ts"]],
	["session", ["src/session/agent-session.ts"]],
	["index (the rest)", ["src/index.ts"]],
];

interface ChildRun {
	start: { atMs: number; rssMiB: number };
	steps: { step: string; ms: number; cpuMs: number; rssMiB: number }[];
	end: { atMs: number; rssMiB: number };
}

const outDir = join(HERE, "..", ".out", `breakdown-${process.pid}`);
mkdirSync(outDir, { recursive: true });
try {
	const args: string[] = [];
	for (const [name, modules] of GROUPS) {
		for (const [i, module] of modules.entries()) {
			const url = module.endsWith(".ts") ? pathToFileURL(compileForNode(module, outDir)).href : module;
			args.push(`${name}${modules.length > 1 ? `#${i}` : ""}=${url}`);
		}
	}
	const child = join(HERE, "breakdown-child.mjs");
	const runChild = (flags: string[]) => {
		const run = spawnSync(process.execPath, [...flags, child, ...args], { encoding: "utf8" });
		if (run.status !== 0) throw new Error(run.stderr);
		return JSON.parse(run.stdout) as ChildRun;
	};
	const runs: ChildRun[] = [];
	runChild([]); // warm the file cache
	const withoutOptimizer: number[] = [];
	for (let rep = 0; rep < REPS; rep++) {
		runs.push(runChild([]));
		withoutOptimizer.push(runChild(["--no-opt"]).end.rssMiB);
	}
	const median = (values: number[]) => {
		const sorted = [...values].sort((a, b) => a - b);
		return Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10;
	};
	const groups = GROUPS.map(([name]) => {
		const perRun = runs.map((run) => run.steps.filter((step) => step.step.split("#")[0] === name));
		const sum = (pick: (s: { ms: number; cpuMs: number; rssMiB: number }) => number) =>
			median(perRun.map((steps) => steps.reduce((total, step) => total + pick(step), 0)));
		return { group: name, ms: sum((s) => s.ms), cpuMs: sum((s) => s.cpuMs), rssMiB: sum((s) => s.rssMiB) };
	});
	console.log(
		JSON.stringify(
			{
				diagnostic: "import breakdown of Settle's compiled entry by module group (cumulative, medians)",
				reps: REPS,
				node: process.version,
				processStartMs: median(runs.map((run) => run.start.atMs)),
				rssAtStartMiB: median(runs.map((run) => run.start.rssMiB)),
				groups,
				rssAfterImportMiB: median(runs.map((run) => run.end.rssMiB)),
				rssAfterImportWithoutOptimizingCompilerMiB: median(withoutOptimizer),
			},
			null,
			2,
		),
	);
} finally {
	rmSync(outDir, { recursive: true, force: true });
}
