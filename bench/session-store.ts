/**
 * Session store benchmark: open + buildSessionContext on large session files, Settle vs pi 0.73.1.
 *
 *   npx tsx bench/session-store.ts            prints one JSON document (progress goes to stderr)
 *
 * Files: 10,000 and 100,000 messages in the shape of pi's own open-jsonl benchmark (user,
 * assistant with text + tool call, tool result with 1,000 chars, assistant text; plus a model and a
 * thinking-level change), written by Settle in a temp dir. Settle and pi open the same 10k file.
 * Everything measured runs in child processes on plain `node` (bench/peers/session-child.mjs):
 * Settle's store is compiled to JS first, pi 0.73.1 is imported from its own install in
 * bench/peers/pi-0.73.1 (set up with `npm ci` from the committed lockfile when missing).
 *
 * Three methods, each reported with wall time and CPU time (user+system, all threads: less
 * sensitive to a busy machine):
 * - cold: every rep is a fresh process doing one open + buildSessionContext (what a resume costs);
 *   peak RSS is that process's maxRSS;
 * - warm: one process per implementation, warm-up runs, then reps each after a full GC;
 * - inProcess: pi's bench.mjs method (its open-jsonl case): the process first builds a 10k-message
 *   session with the same SessionManager and keeps it, then opens the file `reps` times. Reported
 *   once more for pi loaded from its package entry, as pi's bench.mjs does (reference only: the
 *   comparisons above load pi's session-manager module alone, like Settle's store).
 * Reps alternate Settle and pi so machine load hits both alike. Also: append cost on a fresh
 * session vs on the opened 100k session (append must not grow with the session).
 *
 * Env: REPS (default 9), WARM_REPS (7), WARMUPS (2), BIG (messages in the big file, 100000).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compileForNode } from "../test/crash/compile-store.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const PEER_DIR = join(HERE, "peers", "pi-0.73.1");
const CHILD = join(HERE, "peers", "session-child.mjs");
const REPS = Number(process.env.REPS ?? 9);
const WARM_REPS = Number(process.env.WARM_REPS ?? 7);
const WARMUPS = Number(process.env.WARMUPS ?? 2);
const SMALL = 10_000;
const BIG = Number(process.env.BIG ?? 100_000);

const log = (message: string) => process.stderr.write(`[session-store bench] ${message}\n`);
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

function median(xs: number[]): number {
	const s = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const stats = (xs: number[]) => ({
	median: r1(median(xs)),
	min: r1(Math.min(...xs)),
	max: r1(Math.max(...xs)),
	n: xs.length,
});

/**
 * pi 0.73.1 in its own folder; installed from the committed lockfile when missing. Returns the
 * URLs of its session-manager module (what the comparisons use: the store alone, as for Settle)
 * and of its package entry (what pi's own bench.mjs imports).
 */
function ensurePeer(): { module: string; packageEntry: string } {
	const entry = join(
		PEER_DIR,
		"node_modules",
		"@mariozechner",
		"pi-coding-agent",
		"dist",
		"core",
		"session-manager.js",
	);
	if (!existsSync(entry)) {
		log(`installing pi 0.73.1 into ${PEER_DIR} (npm ci)`);
		const npm = process.platform === "win32" ? "npm.cmd" : "npm";
		const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: PEER_DIR, stdio: ["ignore", 2, 2] });
		if (result.status !== 0 || !existsSync(entry)) throw new Error(`npm ci in ${PEER_DIR} failed`);
	}
	const packageEntry = join(PEER_DIR, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "index.js");
	return { module: pathToFileURL(entry).href, packageEntry: pathToFileURL(packageEntry).href };
}

function child<T>(args: string[], nodeFlags: string[] = []): T {
	const result = spawnSync(process.execPath, [...nodeFlags, CHILD, ...args], { encoding: "utf8", maxBuffer: 16 << 20 });
	if (result.status !== 0) throw new Error(`benchmark child ${args[0]} failed: ${result.stderr || result.stdout}`);
	return JSON.parse(result.stdout.trim().split("\n").pop()!) as T;
}

interface Run {
	openMs: number;
	buildMs: number;
	totalMs: number;
	cpuMs: number;
	messages: number;
	entries: number;
}
interface ColdRun extends Run {
	rssBeforeMiB: number;
	peakRssMiB: number;
}
interface MultiRun {
	runs: Run[];
	peakRssMiB: number;
}

function summarize(runs: Run[]) {
	return {
		totalMs: stats(runs.map((r) => r.totalMs)),
		cpuMs: stats(runs.map((r) => r.cpuMs)),
		openMs: stats(runs.map((r) => r.openMs)),
		buildSessionContextMs: stats(runs.map((r) => r.buildMs)),
	};
}

function summarizeCold(runs: ColdRun[]) {
	return {
		...summarize(runs),
		peakRssMiB: stats(runs.map((r) => r.peakRssMiB)),
		rssBeforeOpenMiB: stats(runs.map((r) => r.rssBeforeMiB)),
		messages: runs[0]!.messages,
		entries: runs[0]!.entries,
	};
}

const ratio = (a: number, b: number) => r3(a / b);
const medianOf = (runs: Run[], key: "totalMs" | "cpuMs") => median(runs.map((r) => r[key]));

function main() {
	const loadStart = loadavg().map(r1);
	const peer = ensurePeer();
	const pi = peer.module;
	const outDir = join(HERE, ".out", "store");
	rmSync(outDir, { recursive: true, force: true });
	const settle = pathToFileURL(compileForNode("src/store/session-manager.ts", outDir)).href;
	const dir = mkdtempSync(join(tmpdir(), "settle-bench-store-"));
	try {
		log(`generating ${SMALL} and ${BIG} message files in ${dir}`);
		for (const sub of ["small", "big", "fresh", "inprocess-settle", "inprocess-pi", "inprocess-pi-package"]) {
			mkdirSync(join(dir, sub));
		}
		type Generated = { file: string; ms: number; usPerAppend: number };
		const small = child<Generated>(["generate", settle, join(dir, "small"), String(SMALL)]);
		const big = child<Generated>(["generate", settle, join(dir, "big"), String(BIG)]);

		log(`cold: ${REPS} fresh processes per implementation (10k) and for Settle on 100k`);
		const cold = { settle10k: [] as ColdRun[], pi10k: [] as ColdRun[], settle100k: [] as ColdRun[] };
		for (let rep = 0; rep < REPS; rep++) {
			const order = rep % 2 === 0 ? [settle, pi] : [pi, settle];
			for (const impl of order) {
				(impl === settle ? cold.settle10k : cold.pi10k).push(child<ColdRun>(["cold", impl, small.file]));
			}
			cold.settle100k.push(child<ColdRun>(["cold", settle, big.file]));
		}
		for (const run of [...cold.settle10k, ...cold.pi10k]) {
			if (run.messages !== SMALL) throw new Error(`context has ${run.messages} messages, expected ${SMALL}`);
		}

		log(`warm: ${WARMUPS} warm-ups + ${WARM_REPS} reps after a full GC, one process per implementation`);
		const warmArgs = [String(WARMUPS), String(WARM_REPS)];
		const warmSettle = child<MultiRun>(["warm", settle, small.file, ...warmArgs], ["--expose-gc"]);
		const warmPi = child<MultiRun>(["warm", pi, small.file, ...warmArgs], ["--expose-gc"]);
		const warmSettleBig = child<MultiRun>(["warm", settle, big.file, "1", "3"], ["--expose-gc"]);

		log("inProcess: pi's bench.mjs method (10k session built and kept in the process, then 5 opens)");
		const inSettle = child<MultiRun>(["inprocess", settle, small.file, join(dir, "inprocess-settle"), "5"]);
		const inPi = child<MultiRun>(["inprocess", pi, small.file, join(dir, "inprocess-pi"), "5"]);
		// Reference only: exactly pi's open-jsonl case, with pi loaded from its package entry (the
		// whole SDK in the heap), which is where pi's published ~295 ms / ~300 MiB figures come from.
		const inPiPackage = child<MultiRun>([
			"inprocess",
			peer.packageEntry,
			small.file,
			join(dir, "inprocess-pi-package"),
			"5",
		]);

		log("append cost: fresh file-backed session vs the opened 100k session");
		const append = child<{ freshSessionUs: number; openedFileUs: number; appendPlusBuildSessionContextUs: number }>([
			"append",
			settle,
			big.file,
			"2000",
			join(dir, "fresh"),
		]);

		const s10 = summarizeCold(cold.settle10k);
		const p10 = summarizeCold(cold.pi10k);
		const s100 = summarizeCold(cold.settle100k);
		const ratios = {
			cold: {
				timeSettleOverPi: ratio(s10.totalMs.median, p10.totalMs.median),
				cpuSettleOverPi: ratio(s10.cpuMs.median, p10.cpuMs.median),
				peakRssSettleOverPi: ratio(s10.peakRssMiB.median, p10.peakRssMiB.median),
				time100kOver10k: ratio(s100.totalMs.median, s10.totalMs.median),
				cpu100kOver10k: ratio(s100.cpuMs.median, s10.cpuMs.median),
			},
			warm: {
				timeSettleOverPi: ratio(medianOf(warmSettle.runs, "totalMs"), medianOf(warmPi.runs, "totalMs")),
				cpuSettleOverPi: ratio(medianOf(warmSettle.runs, "cpuMs"), medianOf(warmPi.runs, "cpuMs")),
				peakRssSettleOverPi: ratio(warmSettle.peakRssMiB, warmPi.peakRssMiB),
				time100kOver10k: ratio(medianOf(warmSettleBig.runs, "totalMs"), medianOf(warmSettle.runs, "totalMs")),
			},
			inProcess: {
				timeSettleOverPi: ratio(medianOf(inSettle.runs, "totalMs"), medianOf(inPi.runs, "totalMs")),
				cpuSettleOverPi: ratio(medianOf(inSettle.runs, "cpuMs"), medianOf(inPi.runs, "cpuMs")),
				peakRssSettleOverPi: ratio(inSettle.peakRssMiB, inPi.peakRssMiB),
				timeSettleOverPiPackageEntry: ratio(medianOf(inSettle.runs, "totalMs"), medianOf(inPiPackage.runs, "totalMs")),
				peakRssSettleOverPiPackageEntry: ratio(inSettle.peakRssMiB, inPiPackage.peakRssMiB),
			},
			appendOn100kOverFresh: ratio(append.openedFileUs, append.freshSessionUs),
		};
		const report = {
			benchmark: "session-store: open + buildSessionContext",
			node: process.version,
			platform: `${process.platform}-${process.arch}`,
			cpus: cpus().length,
			loadavg: { start: loadStart, end: loadavg().map(r1) },
			files: {
				"10k": { messages: SMALL, entries: SMALL + 2, bytes: statSync(small.file).size },
				"100k": { messages: BIG, entries: BIG + 2, bytes: statSync(big.file).size },
			},
			settle: {
				cold10k: s10,
				cold100k: s100,
				warm10k: { ...summarize(warmSettle.runs), peakRssMiB: warmSettle.peakRssMiB },
				warm100k: { ...summarize(warmSettleBig.runs), peakRssMiB: warmSettleBig.peakRssMiB },
				inProcess10k: { ...summarize(inSettle.runs), peakRssMiB: inSettle.peakRssMiB },
				appendUs: {
					generate10k: r3(small.usPerAppend),
					generate100k: r3(big.usPerAppend),
					freshSession: r3(append.freshSessionUs),
					opened100kSession: r3(append.openedFileUs),
					appendPlusBuildSessionContextOn100k: r3(append.appendPlusBuildSessionContextUs),
				},
			},
			pi: {
				version: "0.73.1",
				cold10k: p10,
				warm10k: { ...summarize(warmPi.runs), peakRssMiB: warmPi.peakRssMiB },
				inProcess10k: { ...summarize(inPi.runs), peakRssMiB: inPi.peakRssMiB },
				inProcess10kFromPackageEntry: { ...summarize(inPiPackage.runs), peakRssMiB: inPiPackage.peakRssMiB },
			},
			ratios,
			targets: { timeSettleOverPi: 0.3, peakRssSettleOverPi: "< 1", bigOverSmall: 12 },
		};
		process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

main();
