/**
 * HTML export benchmark: Settle's `exportSessionToHtml(file)` vs pi 0.73.1's `exportFromFile(file)`
 * on the same 10,000-message session file, in the same process, runs alternating.
 *
 *   npx tsx bench/export.ts          prints one JSON document (progress goes to stderr)
 *
 * The file has the message cycle of bench/session-store.ts (pi's open-jsonl shape: user, assistant
 * with text + tool call, tool result with 1,000 chars, assistant text; plus a model and a
 * thinking-level change), written by Settle's store through bench/peers/session-child.mjs `generate`. Measured per implementation: wall and CPU time
 * of one export (open + render + write; median of REPS after a warm-up), and the page's size. With
 * Chromium at /usr/bin/chromium (or SETTLE_CHROMIUM), also the page load: from navigation start to
 * the first frame after the page's script has run (median of LOADS fresh pages), how many message
 * elements it shows and its script errors (pi 0.73.1's page overflows the stack on a session this
 * long and shows no message: its load time is then not a render time).
 *
 * Env: REPS (default 7), LOADS (5), MESSAGES (10000).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { exportFromFile } from "../node_modules/@mariozechner/pi-coding-agent/dist/core/export-html/index.js";
import { exportSessionToHtml } from "../src/export/index.js";
import { compileForNode } from "../test/crash/compile-store.js";

const REPS = Number(process.env.REPS ?? 7);
const LOADS = Number(process.env.LOADS ?? 5);
const MESSAGES = Number(process.env.MESSAGES ?? 10_000);
const HERE = dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.SETTLE_CHROMIUM ?? "/usr/bin/chromium";
const log = (message: string) => process.stderr.write(`[export bench] ${message}\n`);
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const median = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

type Impl = "settle" | "pi";
const exporters: Record<Impl, (file: string, out: string) => Promise<unknown>> = {
	settle: (file, out) => exportSessionToHtml(file, { outputPath: out }),
	pi: (file, out) => exportFromFile(file, out),
};

async function timeExports(file: string, dir: string): Promise<Record<Impl, { wallMs: number[]; cpuMs: number[] }>> {
	const runs: Record<Impl, { wallMs: number[]; cpuMs: number[] }> = {
		settle: { wallMs: [], cpuMs: [] },
		pi: { wallMs: [], cpuMs: [] },
	};
	for (const impl of ["settle", "pi"] as Impl[]) await exporters[impl](file, join(dir, `warm-${impl}.html`));
	for (let rep = 0; rep < REPS; rep++) {
		// Alternate which goes first, so machine load hits both alike.
		const order: Impl[] = rep % 2 === 0 ? ["settle", "pi"] : ["pi", "settle"];
		for (const impl of order) {
			const cpu = process.cpuUsage();
			const t0 = performance.now();
			await exporters[impl](file, join(dir, `${impl}.html`));
			const wall = performance.now() - t0;
			const used = process.cpuUsage(cpu);
			runs[impl].wallMs.push(wall);
			runs[impl].cpuMs.push((used.user + used.system) / 1000);
		}
	}
	return runs;
}

/** What a page load showed: ms from navigation start to the first frame after its script ran. */
interface Loads {
	ms: number[];
	/** Message elements on the page after the load (pi: #messages, Settle: #entries). */
	rendered: number;
	errors: string[];
}

/** Each page loaded LOADS times in fresh tabs (after one warm-up load), alternating. */
async function pageLoads(pages: Record<Impl, string>): Promise<Record<Impl, Loads> | undefined> {
	if (!existsSync(CHROMIUM)) {
		log(`no Chromium at ${CHROMIUM}: page load not measured`);
		return undefined;
	}
	const { launchChromium } = await import("../test/inspect/chromium.js");
	const { browser, close } = await launchChromium();
	const loads: Record<Impl, Loads> = {
		settle: { ms: [], rendered: 0, errors: [] },
		pi: { ms: [], rendered: 0, errors: [] },
	};
	try {
		for (let rep = 0; rep <= LOADS; rep++) {
			for (const impl of rep % 2 === 0 ? (["settle", "pi"] as Impl[]) : (["pi", "settle"] as Impl[])) {
				const page = await browser.newPage();
				page.on("pageerror", (error) => {
					if (!loads[impl].errors.includes(error.message)) loads[impl].errors.push(error.message);
				});
				await page.goto(pathToFileURL(pages[impl]).href, { waitUntil: "load", timeout: 120_000 });
				const { ms, rendered } = await page.evaluate(
					(list) => {
						const g = globalThis as unknown as {
							requestAnimationFrame(callback: () => void): void;
							performance: { now(): number };
							document: { querySelector(selector: string): { childElementCount: number } | null };
						};
						return new Promise<{ ms: number; rendered: number }>((done) =>
							g.requestAnimationFrame(() =>
								g.requestAnimationFrame(() =>
									done({ ms: g.performance.now(), rendered: g.document.querySelector(list)?.childElementCount ?? 0 }),
								),
							),
						);
					},
					impl === "settle" ? "#entries" : "#messages",
				);
				// The first round warms the browser up.
				if (rep > 0) loads[impl].ms.push(ms);
				loads[impl].rendered = rendered;
				await page.close();
			}
		}
	} finally {
		await close();
	}
	return loads;
}

async function main() {
	const dir = mkdtempSync(join(tmpdir(), "settle-export-bench-"));
	try {
		log(`writing a ${MESSAGES}-message session in ${dir}`);
		// The file bench/session-store.ts measures, written the same way (Settle's compiled store).
		// Compiled inside the repo so that its packages resolve from node_modules.
		const store = pathToFileURL(
			compileForNode("src/store/session-manager.ts", join(HERE, ".out", "export-store")),
		).href;
		const generated = spawnSync(
			process.execPath,
			[join(HERE, "peers", "session-child.mjs"), "generate", store, join(dir, "sessions"), String(MESSAGES)],
			{ encoding: "utf8" },
		);
		if (generated.status !== 0) throw new Error(`generating the session failed:\n${generated.stderr}`);
		const { file } = JSON.parse(generated.stdout) as { file: string };
		log(`exporting ${REPS} times each`);
		const runs = await timeExports(file, dir);
		const size = { settle: statSync(join(dir, "settle.html")).size, pi: statSync(join(dir, "pi.html")).size };
		log("loading the pages in Chromium");
		const loads = await pageLoads({ settle: join(dir, "settle.html"), pi: join(dir, "pi.html") });
		const summary = (xs: number[]) => ({ median: r1(median(xs)), min: r1(Math.min(...xs)), max: r1(Math.max(...xs)) });
		const result = {
			messages: MESSAGES,
			sessionBytes: statSync(file).size,
			reps: REPS,
			export: {
				settle: { wallMs: summary(runs.settle.wallMs), cpuMs: summary(runs.settle.cpuMs), htmlBytes: size.settle },
				pi: { wallMs: summary(runs.pi.wallMs), cpuMs: summary(runs.pi.cpuMs), htmlBytes: size.pi },
			},
			pageLoad: loads
				? {
						loads: LOADS,
						settle: { ms: summary(loads.settle.ms), rendered: loads.settle.rendered, errors: loads.settle.errors },
						pi: { ms: summary(loads.pi.ms), rendered: loads.pi.rendered, errors: loads.pi.errors },
					}
				: null,
			ratios: {
				"settle/pi export wall (median)": r3(median(runs.settle.wallMs) / median(runs.pi.wallMs)),
				"settle/pi export cpu (median)": r3(median(runs.settle.cpuMs) / median(runs.pi.cpuMs)),
				"settle/pi html bytes": r3(size.settle / size.pi),
				...(loads ? { "settle/pi page load (median)": r3(median(loads.settle.ms) / median(loads.pi.ms)) } : {}),
			},
		};
		process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

await main();
