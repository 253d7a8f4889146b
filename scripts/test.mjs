#!/usr/bin/env node
/**
 * `npm test`: lint, then the type check beside the test run; fails when any of them fails.
 *
 * Why beside: the test run keeps two cores busy only ~85% of its time (its files wait on child
 * processes), and the type check (~45 CPU-s, single-threaded) fits in what it leaves. Run first, it
 * cost ~50 s of wall time on a 2-core CI machine. Its output is held back until it ends, so it does
 * not interleave with the test reporter's; arguments go to `vitest run` (`npm test -- test/store`).
 */
import { spawn } from "node:child_process";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const env = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}` };
// The tests reach only servers they start themselves (the TLS ones name their own authority), and a
// machine-wide NODE_EXTRA_CA_CERTS makes every node process parse that bundle at start: ~35 ms of CPU
// each, measured with `perf stat node -e 0` (57 vs 24 ms), over the ~2,100 processes of a run.
delete env.NODE_EXTRA_CA_CERTS;

/** Runs `command`; resolves its exit code (1 when it could not start or was killed). */
function run(command, args, { capture = false } = {}) {
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd: root, env, stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit" });
		const output = [];
		if (capture) {
			child.stdout.on("data", (chunk) => output.push(chunk));
			child.stderr.on("data", (chunk) => output.push(chunk));
		}
		child.on("error", (error) => {
			output.push(Buffer.from(`${command}: ${error.message}\n`));
			resolve({ code: 1, output: Buffer.concat(output).toString() });
		});
		child.on("close", (code) => resolve({ code: code ?? 1, output: Buffer.concat(output).toString() }));
	});
}

const lint = await run("biome", ["check", "."]);
if (lint.code !== 0) process.exit(lint.code);

const typecheck = run("tsc", ["--noEmit", "-p", "tsconfig.json"], { capture: true }).then((result) => {
	// A type error is worth knowing before the tests end.
	if (result.code !== 0) process.stderr.write(`\nnpm test: the type check failed:\n${result.output}\n`);
	return result;
});
const tests = await run("vitest", ["run", ...process.argv.slice(2)]);
const checked = await typecheck;
process.stdout.write(
	checked.code === 0 ? "\nType check (tsc --noEmit): no errors.\n" : "\nType check failed (above).\n",
);
process.exit(tests.code !== 0 ? tests.code : checked.code);
