/**
 * Cold start, Settle vs pi 0.73.1 in the same run (issue 4 "Benchmark"): time from process start to
 * the end of the imports, to a created session and to a first prompt settled (one `read` tool call,
 * then a text reply), and RSS after each. Every rep is a fresh `node` process; reps alternate
 * between the variants. Prints one JSON document.
 *
 *   npx tsx bench/cold-start.ts        (REPS=7 overrides)
 *
 * Variants:
 * - settle: the package as `npm run build` makes it (run once first: the bundled `dist/`),
 *   imported as `settle` by package name;
 * - pi: pi 0.73.1 from its published package;
 * - floors: `node` importing nothing; `node` loading only xstate (Settle's one runtime dependency
 *   needed to create a session) with `require`, as the bundle loads it — what no change inside
 *   Settle can go below; and with `import` (xstate's ESM entry is a CommonJS wrapper), for scale.
 *
 * `cpuToSessionCreatedMs` (user + system CPU of the process, all threads, until the session exists)
 * is reported next to wall time because it moves less when the machine is busy.
 *
 * Targets: Settle ≤ 0.2× pi's time to a created session and ≤ 0.4× pi's RSS after import.
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPS = Number(process.env.REPS ?? 7);

interface Sample {
	importsDoneMs: number;
	rssAfterImportMiB: number;
	sessionCreatedMs?: number;
	firstPromptSettledMs?: number;
	cpuToSessionCreatedMs?: number;
	rssAfterCreateMiB?: number;
	rssAfterFirstPromptMiB?: number;
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

function run(script: string): Sample {
	const child = spawnSync(process.execPath, [script], { encoding: "utf8", maxBuffer: 16 << 20 });
	if (child.status !== 0) throw new Error(`${script} failed: ${(child.stderr || child.stdout).slice(-2000)}`);
	return JSON.parse(child.stdout.trim().split("\n").pop()!) as Sample;
}

function summarize(samples: Sample[]) {
	const med = (pick: (s: Sample) => number | undefined) => {
		const values = samples.map(pick).filter((v): v is number => v !== undefined);
		return values.length > 0 ? round1(median(values)) : undefined;
	};
	return {
		processStartToImportsDoneMs: med((s) => s.importsDoneMs),
		processStartToSessionCreatedMs: med((s) => s.sessionCreatedMs),
		processStartToFirstPromptSettledMs: med((s) => s.firstPromptSettledMs),
		cpuToSessionCreatedMs: med((s) => s.cpuToSessionCreatedMs),
		rssAfterImportMiB: med((s) => s.rssAfterImportMiB),
		rssAfterCreateMiB: med((s) => s.rssAfterCreateMiB),
		rssAfterFirstPromptMiB: med((s) => s.rssAfterFirstPromptMiB),
		createdMsPerRep: samples.some((s) => s.sessionCreatedMs !== undefined)
			? samples.map((s) => round1(s.sessionCreatedMs ?? Number.NaN))
			: undefined,
	};
}

/** `npm run build` (bundle and declarations into dist/), timed. */
function buildPackage(): number {
	const started = performance.now();
	const npm = process.platform === "win32" ? "npm.cmd" : "npm";
	const build = spawnSync(npm, ["run", "build"], {
		cwd: join(HERE, ".."),
		encoding: "utf8",
		shell: process.platform === "win32",
	});
	if (build.status !== 0) throw new Error(`npm run build failed:\n${(build.stderr || build.stdout).slice(-2000)}`);
	return Math.round(performance.now() - started);
}

const buildMs = buildPackage();
const variants: Record<string, string> = {
	settle: join(HERE, "cold-start", "settle-child.mjs"),
	pi: join(HERE, "cold-start", "pi-child.mjs"),
	nodeEmpty: join(HERE, "cold-start", "node-child.mjs"),
	nodeRequireXstate: join(HERE, "cold-start", "xstate-require-child.mjs"),
	nodeImportXstate: join(HERE, "cold-start", "xstate-import-child.mjs"),
};
const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (const script of Object.values(variants)) run(script); // warm the file cache before measuring
for (let rep = 0; rep < REPS; rep++) {
	process.stderr.write(`[cold-start bench] rep ${rep + 1}/${REPS}\n`);
	for (const [name, script] of Object.entries(variants)) samples[name]!.push(run(script));
}
const s = summarize(samples.settle!);
const p = summarize(samples.pi!);
const floor = (name: string) => {
	const summary = summarize(samples[name]!);
	return {
		processStartToImportsDoneMs: summary.processStartToImportsDoneMs,
		rssAfterImportMiB: summary.rssAfterImportMiB,
	};
};
const floorXstate = floor("nodeRequireXstate");
const ratios = {
	sessionCreatedTime: ratio(s.processStartToSessionCreatedMs!, p.processStartToSessionCreatedMs!),
	rssAfterImport: ratio(s.rssAfterImportMiB!, p.rssAfterImportMiB!),
	firstPromptSettledTime: ratio(s.processStartToFirstPromptSettledMs!, p.processStartToFirstPromptSettledMs!),
	sessionCreatedCpu: ratio(s.cpuToSessionCreatedMs!, p.cpuToSessionCreatedMs!),
};
console.log(
	JSON.stringify(
		{
			benchmark: "cold start: process start → imports done → created session → first prompt settled; RSS",
			config: {
				reps: REPS,
				node: process.version,
				cpus: cpus().length,
				loadavg1m: round1(loadavg()[0]!),
				settleBuild: { command: "npm run build", ms: buildMs },
			},
			settle: s,
			pi: { name: "pi 0.73.1 (@mariozechner/pi-coding-agent)", ...p },
			floors: {
				nodeEmpty: floor("nodeEmpty"),
				nodeRequireXstate: floorXstate,
				nodeImportXstate: floor("nodeImportXstate"),
				settleAboveRequireXstate: {
					importsMs: round1(s.processStartToImportsDoneMs! - floorXstate.processStartToImportsDoneMs!),
					rssAfterImportMiB: round1(s.rssAfterImportMiB! - floorXstate.rssAfterImportMiB!),
				},
			},
			ratios,
			targets: {
				sessionCreatedTime: 0.2,
				rssAfterImport: 0.4,
				met: { time: ratios.sessionCreatedTime <= 0.2, rss: ratios.rssAfterImport <= 0.4 },
			},
		},
		null,
		2,
	),
);
