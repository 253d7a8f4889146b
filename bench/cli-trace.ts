/**
 * Cost of `settle --rpc --trace` over a long session (a standalone script, not a test):
 *
 *   npx tsx bench/cli-trace.ts [prompts]
 *
 * Runs the same RPC session (faux echo model, default 1500 prompts) without and with --trace and
 * prints JSON: per-prompt latency early vs late in each run, the traced/untraced ratios, the
 * server's resident memory at the end, and the trace's size (events kept, dropped, bytes).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CLI_TRACE_MAX_EVENTS } from "../src/cli/trace.js";

// As helpers.ts (which needs vitest): the CLI from its sources.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI_FROM_SOURCES = [
	"--import",
	pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href,
	join(ROOT, "src/cli/main.ts"),
];

const prompts = Number(process.argv[2] ?? 1500);
const WINDOW = 100;

async function session(extra: string[]): Promise<{ early: number; late: number; rssKb: number }> {
	const dir = mkdtempSync(join(tmpdir(), "settle-trace-bench-"));
	const project = join(dir, "project");
	mkdirSync(project);
	const child = spawn(process.execPath, [...CLI_FROM_SOURCES, "--rpc", "--faux", "--no-session", ...extra], {
		cwd: project,
		env: { ...process.env, SETTLE_AGENT_DIR: join(dir, "agent") },
	});
	const waiting: (() => void)[] = [];
	createInterface({ input: child.stdout }).on("line", (line) => {
		if ((JSON.parse(line) as { type: string }).type === "agent_settled") waiting.shift()?.();
	});
	const times: number[] = [];
	for (let i = 0; i < prompts; i++) {
		const settled = new Promise<void>((resolve) => waiting.push(resolve));
		const start = performance.now();
		child.stdin.write(`${JSON.stringify({ id: String(i), type: "prompt", message: `prompt ${i}` })}\n`);
		await settled;
		times.push(performance.now() - start);
	}
	const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
	const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
	const exited = new Promise((resolve) => child.on("close", resolve));
	child.stdin.end();
	await exited;
	rmSync(dir, { recursive: true, force: true });
	return { early: median(times.slice(0, WINDOW)), late: median(times.slice(-WINDOW)), rssKb };
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(3));
}

const out = mkdtempSync(join(tmpdir(), "settle-trace-bench-out-"));
const traceFile = join(out, "long.trace.json");
const plain = await session([]);
const traced = await session(["--trace", traceFile]);
const trace = JSON.parse(readFileSync(traceFile, "utf8")) as { events: unknown[]; dropped: number };
const bytes = statSync(traceFile).size;
rmSync(out, { recursive: true, force: true });
console.log(
	JSON.stringify(
		{
			prompts,
			medianPromptMs: { plain, traced },
			tracedOverPlain: {
				early: Number((traced.early / plain.early).toFixed(3)),
				late: Number((traced.late / plain.late).toFixed(3)),
				rss: Number((traced.rssKb / plain.rssKb).toFixed(3)),
			},
			lateOverEarly: {
				plain: Number((plain.late / plain.early).toFixed(3)),
				traced: Number((traced.late / traced.early).toFixed(3)),
			},
			trace: {
				maxEvents: CLI_TRACE_MAX_EVENTS,
				kept: trace.events.length,
				dropped: trace.dropped,
				eventsPerPrompt: Number(((trace.events.length + trace.dropped) / prompts).toFixed(2)),
				bytes,
				bytesPerEvent: Math.round(bytes / trace.events.length),
			},
		},
		null,
		2,
	),
);
