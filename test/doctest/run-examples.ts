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
