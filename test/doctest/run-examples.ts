/**
 * Child-process runner for the runnable examples: imports each module in turn (tsx resolves
 * "settle" through the scratch tsconfig's `paths`), each in a fresh temp dir as cwd, and writes one
 * JSON line per example to the results file: `{ path, ok, error? }`. Usage:
 * `TSX_TSCONFIG_PATH=<scratch>/tsconfig.json node --import tsx run-examples.ts <results> <module>…`
 */
import { appendFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect, isDeepStrictEqual } from "node:util";

/** Plain data compares by value (class instances as their JSON); primitives compare with Object.is. */
function sameValue(actual: unknown, expected: unknown): boolean {
	if (typeof expected !== "object" || expected === null) return Object.is(actual, expected);
	return isDeepStrictEqual(JSON.parse(JSON.stringify(actual) ?? "null"), JSON.parse(JSON.stringify(expected)));
}

// The run modules call this where the example says `expr; // <literal>` (see withResultChecks).
Object.assign(globalThis, {
	__doctestExpect(actual: unknown, expected: unknown, line: number): unknown {
		if (sameValue(actual, expected)) return actual;
		const show = (value: unknown) => inspect(value, { depth: 4, breakLength: Number.POSITIVE_INFINITY });
		throw new Error(`line ${line}: the comment says ${show(expected)}, the code gives ${show(actual)}`);
	},
});

const [results, ...modules] = process.argv.slice(2);
if (!results) throw new Error("usage: run-examples.ts <results-file> <module>…");
for (const path of modules) {
	process.chdir(mkdtempSync(join(tmpdir(), "settle-doctest-")));
	try {
		await import(pathToFileURL(path).href);
		appendFileSync(results, `${JSON.stringify({ path, ok: true })}\n`);
	} catch (error) {
		const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
		appendFileSync(results, `${JSON.stringify({ path, ok: false, error: message })}\n`);
	}
}
