/**
 * Runs every benchmark, each in its own process (so one bench's heap and JIT state never colour
 * another's), and prints one JSON document: `{ node, machine, results: { <name>: <its JSON> } }`.
 *
 *   npm run bench                 all benchmarks
 *   npm run bench -- agent store  only the named ones
 *
 * Each benchmark prints a single JSON document on stdout (progress goes to stderr) with ratios
 * against a baseline measured in the same run; nothing here is a pass/fail gate.
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Name → script, in the order they run. */
const BENCHMARKS: Record<string, string> = {
	agent: "agent.ts",
	store: "session-store.ts",
	session: "session.ts",
	"cold-start": "cold-start.ts",
	lifetime: "lifetime.ts",
	export: "export.ts",
	scale: "scale.ts",
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
	console.error(`Unknown benchmark(s): ${unknown.join(", ")}. Known: ${Object.keys(BENCHMARKS).join(", ")}.`);
	process.exit(2);
}
const selected = requested.length > 0 ? requested : Object.keys(BENCHMARKS);

const results: Record<string, unknown> = {};
let failed = false;
for (const name of selected) {
	const script = join(HERE, BENCHMARKS[name]!);
	process.stderr.write(`[bench] ${name}: ${script}\n`);
	const run = spawnSync(process.execPath, ["--import", "tsx", script], {
		cwd: join(HERE, ".."),
		encoding: "utf8",
		stdio: ["ignore", "pipe", "inherit"],
		maxBuffer: 64 * 1024 * 1024,
	});
	if (run.status !== 0) {
		failed = true;
		results[name] = { error: `exited with ${run.status ?? run.signal}` };
		continue;
	}
	try {
		results[name] = JSON.parse(run.stdout);
	} catch {
		failed = true;
		results[name] = { error: "did not print JSON", stdout: run.stdout.slice(0, 2000) };
	}
}

console.log(
	JSON.stringify(
		{
			node: process.version,
			machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((x) => Number(x.toFixed(2))) },
			results,
		},
		null,
		2,
	),
);
process.exit(failed ? 1 : 0);
