/**
 * Cold start: process start → a created session, and RSS after the imports, Settle vs pi 0.73.1
 * in the same run (issue 4 "Benchmark"). Each rep is a fresh `node` process; Settle runs compiled
 * to plain JavaScript (no TypeScript loader in the measurement), pi from its published package.
 * Reps alternate between the two. Prints one JSON document.
 *
 *   npx tsx bench/cold-start.ts        (REPS=7 overrides)
 *
 * Targets: Settle ≤ 0.2× pi's time to a created session and ≤ 0.4× pi's RSS after import.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileForNode } from "../test/crash/compile-store.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPS = Number(process.env.REPS ?? 7);

interface Sample {
	importsDoneMs: number;
	sessionCreatedMs: number;
	rssAfterImportMiB: number;
	rssAfterCreateMiB: number;
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

function run(script: string): Sample {
	const child = spawnSync(process.execPath, [script], { encoding: "utf8", maxBuffer: 16 << 20 });
	if (child.status !== 0) throw new Error(`${script} failed: ${(child.stderr || child.stdout).slice(-2000)}`);
	return JSON.parse(child.stdout.trim().split("\n").pop()!) as Sample;
}

function summarize(samples: Sample[]) {
	return {
		processStartToImportsDoneMs: round1(median(samples.map((s) => s.importsDoneMs))),
		processStartToSessionCreatedMs: round1(median(samples.map((s) => s.sessionCreatedMs))),
		rssAfterImportMiB: round1(median(samples.map((s) => s.rssAfterImportMiB))),
		rssAfterCreateMiB: round1(median(samples.map((s) => s.rssAfterCreateMiB))),
		createdMsPerRep: samples.map((s) => round1(s.sessionCreatedMs)),
	};
}

const outDir = join(HERE, ".out", `cold-start-${process.pid}`);
mkdirSync(outDir, { recursive: true });
try {
	const settleChild = compileForNode("bench/cold-start/settle-child.ts", outDir);
	const piChild = join(HERE, "cold-start", "pi-child.mjs");
	const settle: Sample[] = [];
	const pi: Sample[] = [];
	run(settleChild); // warm the file cache for both before measuring
	run(piChild);
	for (let rep = 0; rep < REPS; rep++) {
		process.stderr.write(`[cold-start bench] rep ${rep + 1}/${REPS}\n`);
		settle.push(run(settleChild));
		pi.push(run(piChild));
	}
	const s = summarize(settle);
	const p = summarize(pi);
	const timeRatio = round1((s.processStartToSessionCreatedMs / p.processStartToSessionCreatedMs) * 1000) / 1000;
	const rssRatio = round1((s.rssAfterImportMiB / p.rssAfterImportMiB) * 1000) / 1000;
	console.log(
		JSON.stringify(
			{
				benchmark: "cold start: process start → created session; RSS after import",
				config: { reps: REPS, node: process.version, cpus: cpus().length },
				settle: s,
				pi: { name: "pi 0.73.1 (@mariozechner/pi-coding-agent)", ...p },
				ratios: { sessionCreatedTime: timeRatio, rssAfterImport: rssRatio },
				targets: {
					sessionCreatedTime: 0.2,
					rssAfterImport: 0.4,
					met: { time: timeRatio <= 0.2, rss: rssRatio <= 0.4 },
				},
			},
			null,
			2,
		),
	);
} finally {
	rmSync(outDir, { recursive: true, force: true });
}
