/**
 * Cold start, Settle vs pi 0.73.1 in the same run (issue 4 "Benchmark"): time from process start to
 * the end of the imports, to a created session and to a first prompt settled (one `read` tool call,
 * then a text reply), and RSS after each. Every rep is a fresh `node` process; reps alternate
 * between the variants. Prints one JSON document.
 *
 *   npx tsx bench/cold-start.ts        (REPS=7 overrides)
 *
 * Variants:
 * - settle: Settle compiled to plain JavaScript one module per file, as `npm run build` ships it
 *   (no TypeScript loader in the measurement);
 * - pi: pi 0.73.1 from its published package;
 * - floors: `node` importing nothing, and `node` importing only xstate (Settle's one runtime
 *   dependency needed to create a session) — what no change inside Settle can go below;
 * - settleBundled (informational, only when esbuild is installed): the same compiled code bundled
 *   into one file with xstate loaded through `require` — what a bundled `dist/` would measure.
 *
 * `cpuToSessionCreatedMs` (user + system CPU of the process, all threads, until the session exists)
 * is reported next to wall time because it moves less when the machine is busy.
 *
 * Targets: Settle ≤ 0.2× pi's time to a created session and ≤ 0.4× pi's RSS after import.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileForNode } from "../test/crash/compile-store.js";

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

/** The part of esbuild's API used here (esbuild is optional: only for the informational variant). */
interface Bundler {
	build(options: Record<string, unknown>): Promise<unknown>;
}

/** Bundles `entry` (compiled JS) into `outFile`; false when esbuild is not installed. */
async function bundleForNode(entry: string, outFile: string): Promise<boolean> {
	const name = "esbuild";
	let bundler: Bundler;
	try {
		bundler = (await import(name)) as Bundler;
	} catch {
		return false;
	}
	await bundler.build({
		entryPoints: [entry],
		outfile: outFile,
		bundle: true,
		platform: "node",
		format: "esm",
		packages: "external",
		alias: { xstate: join(HERE, "cold-start", "xstate-require.mjs") },
		logLevel: "warning",
	});
	return true;
}

const outDir = join(HERE, ".out", `cold-start-${process.pid}`);
mkdirSync(outDir, { recursive: true });
try {
	const settleChild = compileForNode("bench/cold-start/settle-child.ts", outDir);
	const bundledChild = join(outDir, "bundled", "settle-child.mjs");
	const variants: Record<string, string> = {
		settle: settleChild,
		pi: join(HERE, "cold-start", "pi-child.mjs"),
		nodeEmpty: join(HERE, "cold-start", "node-child.mjs"),
		nodeImportXstate: join(HERE, "cold-start", "xstate-child.mjs"),
	};
	if (await bundleForNode(settleChild, bundledChild)) variants.settleBundled = bundledChild;
	const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
	for (const script of Object.values(variants)) run(script); // warm the file cache before measuring
	for (let rep = 0; rep < REPS; rep++) {
		process.stderr.write(`[cold-start bench] rep ${rep + 1}/${REPS}\n`);
		for (const [name, script] of Object.entries(variants)) samples[name]!.push(run(script));
	}
	const s = summarize(samples.settle!);
	const p = summarize(samples.pi!);
	const floorEmpty = summarize(samples.nodeEmpty!);
	const floorXstate = summarize(samples.nodeImportXstate!);
	const bundled = samples.settleBundled ? summarize(samples.settleBundled) : undefined;
	const ratiosOf = (x: ReturnType<typeof summarize>) => ({
		sessionCreatedTime: ratio(x.processStartToSessionCreatedMs!, p.processStartToSessionCreatedMs!),
		rssAfterImport: ratio(x.rssAfterImportMiB!, p.rssAfterImportMiB!),
		firstPromptSettledTime: ratio(x.processStartToFirstPromptSettledMs!, p.processStartToFirstPromptSettledMs!),
		sessionCreatedCpu: ratio(x.cpuToSessionCreatedMs!, p.cpuToSessionCreatedMs!),
	});
	const ratios = ratiosOf(s);
	console.log(
		JSON.stringify(
			{
				benchmark: "cold start: process start → imports done → created session → first prompt settled; RSS",
				config: { reps: REPS, node: process.version, cpus: cpus().length, loadavg1m: round1(loadavg()[0]!) },
				settle: s,
				pi: { name: "pi 0.73.1 (@mariozechner/pi-coding-agent)", ...p },
				floors: {
					nodeEmpty: {
						processStartToImportsDoneMs: floorEmpty.processStartToImportsDoneMs,
						rssAfterImportMiB: floorEmpty.rssAfterImportMiB,
					},
					nodeImportXstate: {
						processStartToImportsDoneMs: floorXstate.processStartToImportsDoneMs,
						rssAfterImportMiB: floorXstate.rssAfterImportMiB,
					},
					settleAboveXstate: {
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
				...(bundled
					? {
							settleBundled: {
								note: "informational: one-file bundle of the same compiled code (esbuild), xstate via require; not what dist/ ships",
								...bundled,
								ratios: ratiosOf(bundled),
							},
						}
					: {}),
			},
			null,
			2,
		),
	);
} finally {
	rmSync(outDir, { recursive: true, force: true });
}
