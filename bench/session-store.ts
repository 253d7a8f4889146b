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
 * Three methods, each reported with wall time, CPU time (user+system, all threads: less sensitive
 * to a busy machine) and the main-thread GC pauses inside the measured window:
 * - cold: every rep is a fresh process doing one open + buildSessionContext (what a resume costs);
 *   peak RSS is that process's maxRSS. Settle is also measured opening `{ readOnly: true }` (no
 *   write lock; pi takes none): the difference is what the single-writer lock costs a fresh
 *   process, mostly loading proper-lockfile and its dependencies;
 * - warm: PROCS processes per implementation, each doing warm-up runs, then reps each after a full GC;
 * - inProcess: pi's bench.mjs method (its open-jsonl case): the process first builds a 10k-message
 *   session with the same SessionManager and keeps it, then opens the file 5 times (PROCS processes
 *   per implementation). Reported once more for pi loaded from its package entry, as pi's bench.mjs
 *   does (reference only: the comparisons load pi's session-manager module alone, like Settle's store).
 * Processes alternate between implementations in rotating order so machine load hits each alike.
 * Also: append cost on a fresh session vs on the opened 100k session (append must not grow with
 * the session), and 100k/10k with and without GC pauses (the part that is not linear is GC: at 10k
 * a warm process parses the whole file without a collection, at 100k it collects a 100 MB heap).
 *
 * bareParseFloor: the same three methods with the store replaced by the least any JSONL store must
 * do: read the file, decode it (in the chunks and pieces Settle's reader uses), split lines,
 * JSON.parse each one and keep the objects; no validation, index, lock or context. Its ratio to pi
 * is the best any store that parses every line could reach in that method; when it is above the
 * 0.3 target, the target is out of reach there for any such store. It is also run on the 100k file
 * (cold and warm): its own 100k/10k is how far from linear parsing and keeping the objects is in that
 * method (the warm 10k run fits in the heap without a collection, the 100k one cannot), the bound
 * beside Settle's 100k/10k. `summary` has one row per method.
 *
 * Env: REPS (default 9), WARM_REPS (7), WARMUPS (2), PROCS (processes per implementation for the
 * warm and inProcess methods, alternating, their runs pooled: 3), BIG (messages in the big file, 100000).
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
const PROCS = Number(process.env.PROCS ?? 3);
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

function child<T>(args: string[], nodeFlags: string[] = [], env?: NodeJS.ProcessEnv): T {
	const result = spawnSync(process.execPath, [...nodeFlags, CHILD, ...args], {
		encoding: "utf8",
		maxBuffer: 16 << 20,
		env: env ? { ...process.env, ...env } : process.env,
	});
	if (result.status !== 0) throw new Error(`benchmark child ${args[0]} failed: ${result.stderr || result.stdout}`);
	return JSON.parse(result.stdout.trim().split("\n").pop()!) as T;
}

interface Run {
	openMs: number;
	buildMs: number;
	totalMs: number;
	cpuMs: number;
	/** Main-thread GC pauses inside the measured window. */
	gcMs: number;
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

/** Runs of several processes pooled; peak RSS is the median of the processes' peaks. */
function pooled(processes: MultiRun[]): MultiRun {
	return { runs: processes.flatMap((p) => p.runs), peakRssMiB: median(processes.map((p) => p.peakRssMiB)) };
}

/** `PROCS` processes per implementation, in an order that rotates each round; results pooled per implementation. */
function rounds<K extends string>(impls: Record<K, (round: number) => MultiRun>): Record<K, MultiRun> {
	const keys = Object.keys(impls) as K[];
	const results = new Map<K, MultiRun[]>(keys.map((k) => [k, []]));
	for (let round = 0; round < PROCS; round++) {
		const order = [...keys.slice(round % keys.length), ...keys.slice(0, round % keys.length)];
		for (const key of order) results.get(key)!.push(impls[key](round));
	}
	return Object.fromEntries(keys.map((k) => [k, pooled(results.get(k)!)])) as Record<K, MultiRun>;
}

function summarize(runs: Run[]) {
	return {
		totalMs: stats(runs.map((r) => r.totalMs)),
		cpuMs: stats(runs.map((r) => r.cpuMs)),
		gcMs: stats(runs.map((r) => r.gcMs)),
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
const medianOf = (runs: Run[], key: "totalMs" | "cpuMs" | "gcMs") => median(runs.map((r) => r[key]));
/** Median time outside GC pauses. */
const medianWithoutGc = (runs: Run[]) => median(runs.map((r) => r.totalMs - r.gcMs));

function main() {
	const loadStart = loadavg().map(r1);
	const peer = ensurePeer();
	const pi = peer.module;
	const outDir = join(HERE, ".out", "store");
	rmSync(outDir, { recursive: true, force: true });
	const settle = pathToFileURL(compileForNode("src/store/session-manager.ts", outDir)).href;
	const bare = `bare:${settle.replace(/session-manager\.js$/, "session-file.js")}`;
	const dir = mkdtempSync(join(tmpdir(), "settle-bench-store-"));
	try {
		log(`generating ${SMALL} and ${BIG} message files in ${dir}`);
		for (const sub of ["small", "big", "fresh"]) mkdirSync(join(dir, sub));
		/** A fresh directory for the session an inProcess child builds and keeps. */
		const keepDir = (name: string, round: number) => {
			const path = join(dir, `inprocess-${name}-${round}`);
			mkdirSync(path);
			return path;
		};
		type Generated = { file: string; ms: number; usPerAppend: number };
		const small = child<Generated>(["generate", settle, join(dir, "small"), String(SMALL)]);
		const big = child<Generated>(["generate", settle, join(dir, "big"), String(BIG)]);

		log(
			`cold: ${REPS} fresh processes per implementation and the bare-parse floor (10k) and for Settle and the floor on 100k`,
		);
		const cold = {
			settle10k: [] as ColdRun[],
			pi10k: [] as ColdRun[],
			bare10k: [] as ColdRun[],
			settleReadOnly10k: [] as ColdRun[],
			settle100k: [] as ColdRun[],
			bare100k: [] as ColdRun[],
		};
		const coldRuns = new Map([
			[settle, cold.settle10k],
			[pi, cold.pi10k],
			[bare, cold.bare10k],
		]);
		for (let rep = 0; rep < REPS; rep++) {
			// Rotate the order so that machine load drifting during a round hits each alike.
			const impls = [settle, pi, bare];
			const order = [...impls.slice(rep % 3), ...impls.slice(0, rep % 3)];
			for (const impl of order) coldRuns.get(impl)!.push(child<ColdRun>(["cold", impl, small.file]));
			cold.settleReadOnly10k.push(child<ColdRun>(["cold", settle, small.file, "readonly"]));
			cold.settle100k.push(child<ColdRun>(["cold", settle, big.file]));
			cold.bare100k.push(child<ColdRun>(["cold", bare, big.file]));
		}
		for (const run of [...cold.settle10k, ...cold.pi10k, ...cold.bare10k, ...cold.settleReadOnly10k]) {
			if (run.messages !== SMALL) throw new Error(`context has ${run.messages} messages, expected ${SMALL}`);
		}

		log(`warm: ${PROCS} processes per implementation, each ${WARMUPS} warm-ups + ${WARM_REPS} reps after a full GC`);
		const warmArgs = [String(WARMUPS), String(WARM_REPS)];
		const warm =
			(impl: string, file = small.file) =>
			() =>
				child<MultiRun>(["warm", impl, file, ...warmArgs], ["--expose-gc"]);
		const {
			settle: warmSettle,
			pi: warmPi,
			bare: warmBare,
			settleBig: warmSettleBig,
			bareBig: warmBareBig,
		} = rounds({
			settle: warm(settle),
			pi: warm(pi),
			bare: warm(bare),
			settleBig: () => child<MultiRun>(["warm", settle, big.file, "1", "3"], ["--expose-gc"]),
			bareBig: () => child<MultiRun>(["warm", bare, big.file, "1", "3"], ["--expose-gc"]),
		});

		log(`inProcess: pi's bench.mjs method (10k session built and kept, then 5 opens), ${PROCS} processes each`);
		const inProcess = (impl: string, name: string, env?: NodeJS.ProcessEnv) => (round: number) =>
			child<MultiRun>(["inprocess", impl, small.file, keepDir(name, round), "5"], [], env);
		const {
			settle: inSettle,
			pi: inPi,
			bare: inBare,
			piPackage: inPiPackage,
		} = rounds({
			settle: inProcess(settle, "settle"),
			pi: inProcess(pi, "pi"),
			bare: inProcess(bare, "bare", { BARE_KEEP_MODULE: settle }),
			// Reference only: exactly pi's open-jsonl case, with pi loaded from its package entry (the
			// whole SDK in the heap), which is where pi's published ~295 ms / ~300 MiB figures come from.
			piPackage: inProcess(peer.packageEntry, "pi-package"),
		});

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
		const b10 = summarizeCold(cold.bare10k);
		const b100 = summarizeCold(cold.bare100k);
		const r10 = summarizeCold(cold.settleReadOnly10k);
		const ratios = {
			cold: {
				timeSettleOverPi: ratio(s10.totalMs.median, p10.totalMs.median),
				cpuSettleOverPi: ratio(s10.cpuMs.median, p10.cpuMs.median),
				peakRssSettleOverPi: ratio(s10.peakRssMiB.median, p10.peakRssMiB.median),
				time100kOver10k: ratio(s100.totalMs.median, s10.totalMs.median),
				cpu100kOver10k: ratio(s100.cpuMs.median, s10.cpuMs.median),
				time100kOver10kWithoutGc: ratio(medianWithoutGc(cold.settle100k), medianWithoutGc(cold.settle10k)),
				bareParseFloorTime100kOver10k: ratio(b100.totalMs.median, b10.totalMs.median),
				bareParseFloorOverPi: ratio(b10.totalMs.median, p10.totalMs.median),
				settleOverBareParseFloor: ratio(s10.totalMs.median, b10.totalMs.median),
				settleReadOnlyOverPi: ratio(r10.totalMs.median, p10.totalMs.median),
				settleReadOnlyOverBareParseFloor: ratio(r10.totalMs.median, b10.totalMs.median),
			},
			warm: {
				timeSettleOverPi: ratio(medianOf(warmSettle.runs, "totalMs"), medianOf(warmPi.runs, "totalMs")),
				cpuSettleOverPi: ratio(medianOf(warmSettle.runs, "cpuMs"), medianOf(warmPi.runs, "cpuMs")),
				peakRssSettleOverPi: ratio(warmSettle.peakRssMiB, warmPi.peakRssMiB),
				time100kOver10k: ratio(medianOf(warmSettleBig.runs, "totalMs"), medianOf(warmSettle.runs, "totalMs")),
				time100kOver10kWithoutGc: ratio(medianWithoutGc(warmSettleBig.runs), medianWithoutGc(warmSettle.runs)),
				bareParseFloorTime100kOver10k: ratio(medianOf(warmBareBig.runs, "totalMs"), medianOf(warmBare.runs, "totalMs")),
				bareParseFloorOverPi: ratio(medianOf(warmBare.runs, "totalMs"), medianOf(warmPi.runs, "totalMs")),
				settleOverBareParseFloor: ratio(medianOf(warmSettle.runs, "totalMs"), medianOf(warmBare.runs, "totalMs")),
			},
			inProcess: {
				timeSettleOverPi: ratio(medianOf(inSettle.runs, "totalMs"), medianOf(inPi.runs, "totalMs")),
				cpuSettleOverPi: ratio(medianOf(inSettle.runs, "cpuMs"), medianOf(inPi.runs, "cpuMs")),
				peakRssSettleOverPi: ratio(inSettle.peakRssMiB, inPi.peakRssMiB),
				timeSettleOverPiPackageEntry: ratio(medianOf(inSettle.runs, "totalMs"), medianOf(inPiPackage.runs, "totalMs")),
				peakRssSettleOverPiPackageEntry: ratio(inSettle.peakRssMiB, inPiPackage.peakRssMiB),
				bareParseFloorOverPi: ratio(medianOf(inBare.runs, "totalMs"), medianOf(inPi.runs, "totalMs")),
				settleOverBareParseFloor: ratio(medianOf(inSettle.runs, "totalMs"), medianOf(inBare.runs, "totalMs")),
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
				cold10kReadOnly: r10,
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
			bareParseFloor: {
				cold10k: b10,
				cold100k: b100,
				warm10k: { ...summarize(warmBare.runs), peakRssMiB: warmBare.peakRssMiB },
				warm100k: { ...summarize(warmBareBig.runs), peakRssMiB: warmBareBig.peakRssMiB },
				inProcess10k: { ...summarize(inBare.runs), peakRssMiB: inBare.peakRssMiB },
			},
			ratios,
			// One row per method (medians): what the targets are checked against.
			summary: {
				cold: {
					settleMs: s10.totalMs.median,
					piMs: p10.totalMs.median,
					settleOverPi: ratios.cold.timeSettleOverPi,
					bareParseFloorMs: b10.totalMs.median,
					bareParseFloorOverPi: ratios.cold.bareParseFloorOverPi,
					settleReadOnlyMs: r10.totalMs.median,
					settleReadOnlyOverPi: ratios.cold.settleReadOnlyOverPi,
					settlePeakRssMiB: s10.peakRssMiB.median,
					piPeakRssMiB: p10.peakRssMiB.median,
					time100kOver10k: ratios.cold.time100kOver10k,
					time100kOver10kWithoutGc: ratios.cold.time100kOver10kWithoutGc,
					bareParseFloorTime100kOver10k: ratios.cold.bareParseFloorTime100kOver10k,
					settleGcMs: s10.gcMs.median,
					settle100kGcMs: s100.gcMs.median,
				},
				warm: {
					settleMs: r1(medianOf(warmSettle.runs, "totalMs")),
					piMs: r1(medianOf(warmPi.runs, "totalMs")),
					settleOverPi: ratios.warm.timeSettleOverPi,
					bareParseFloorMs: r1(medianOf(warmBare.runs, "totalMs")),
					bareParseFloorOverPi: ratios.warm.bareParseFloorOverPi,
					settlePeakRssMiB: warmSettle.peakRssMiB,
					piPeakRssMiB: warmPi.peakRssMiB,
					time100kOver10k: ratios.warm.time100kOver10k,
					time100kOver10kWithoutGc: ratios.warm.time100kOver10kWithoutGc,
					bareParseFloorTime100kOver10k: ratios.warm.bareParseFloorTime100kOver10k,
					settleGcMs: r1(medianOf(warmSettle.runs, "gcMs")),
					settle100kGcMs: r1(medianOf(warmSettleBig.runs, "gcMs")),
				},
				inProcess: {
					settleMs: r1(medianOf(inSettle.runs, "totalMs")),
					piMs: r1(medianOf(inPi.runs, "totalMs")),
					settleOverPi: ratios.inProcess.timeSettleOverPi,
					bareParseFloorMs: r1(medianOf(inBare.runs, "totalMs")),
					bareParseFloorOverPi: ratios.inProcess.bareParseFloorOverPi,
					settlePeakRssMiB: inSettle.peakRssMiB,
					piPeakRssMiB: inPi.peakRssMiB,
				},
			},
			targets: { timeSettleOverPi: 0.3, peakRssSettleOverPi: "< 1", bigOverSmall: 12 },
		};
		process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

main();
