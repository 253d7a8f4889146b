/**
 * pi#9654: `read` loaded the whole file before taking the lines asked for, so one line of a large
 * log cost the file's size in memory (about twice it, as text) and time, and a file over Node's
 * 2 GiB `readFile` limit could not be read at all. Settle's `read` reads in chunks and stops once it
 * has the lines it shows (and their count, up to 64 MB).
 */
import { spawnSync } from "node:child_process";
import { truncate, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createReadToolDefinition, type ReadOperations } from "../../src/tools/read.js";
import { run, tempProject, text } from "./helpers.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;
const MiB = 1024 * 1024;

/** `path` in `cwd`: 2000 text lines, then zeros up to `size` bytes without writing them (a sparse file). */
async function largeLog(cwd: string, path: string, size: number): Promise<void> {
	const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1} of the log`);
	await writeFile(join(cwd, path), `${lines.join("\n")}\n`);
	await truncate(join(cwd, path), size);
}

const firstLines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1} of the log`).join("\n");

describe("pi#9654: read takes the lines it shows, not the whole file", () => {
	it("pi#9654: the first 50 lines of a 200 MB file come back while the process's peak memory grows by less than 64 MiB", async () => {
		const cwd = await tempProject({ "small.txt": "warm-up\n" });
		await largeLog(cwd, "big.log", 200 * MiB);
		// A fresh process: its peak resident size is this read's, not an earlier test's.
		const child = spawnSync(
			process.execPath,
			["--import", tsx, join(here, "read-large-file-child.ts"), cwd, "big.log", "50"],
			{ encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" },
		);
		expect(child.stderr).toBe("");
		expect(child.status).toBe(0);
		const { text: output, peakGrowthKiB } = JSON.parse(child.stdout) as { text: string; peakGrowthKiB: number };
		expect(peakGrowthKiB * 1024).toBeLessThan(64 * MiB);
		expect(output).toBe(
			`${firstLines(50)}\n\n[At least 1951 more lines in file (not counted past the first 64.0MB). Use offset=51 to continue.]`,
		);
	}, 90_000);

	it("pi#9654: a 5 GB file, over Node's 2 GiB readFile limit, shows its first 2000 lines and says its line count is a lower bound", async () => {
		const cwd = await tempProject();
		await largeLog(cwd, "huge.log", 5 * 1024 * MiB);
		const result = await run<{ lineCountIncomplete?: true; truncation: { outputLines: number } }>(
			createReadToolDefinition(cwd),
			{ path: "huge.log" },
		);
		expect(text(result)).toBe(
			`${firstLines(2000)}\n\n[Showing lines 1-2000 of at least 2001 (lines not counted past the first 64.0MB). Use offset=2001 to continue.]`,
		);
		expect(result.details).toMatchObject({ lineCountIncomplete: true, truncation: { outputLines: 2000 } });
	});
});

/** `bytes` in chunks of the given sizes (in turn) through one buffer that is scribbled over after each chunk. */
function reusedBufferChunks(bytes: Buffer, sizes: number[]): AsyncIterable<Uint8Array> {
	return (async function* () {
		const reused = Buffer.alloc(Math.max(1, ...sizes));
		let at = 0;
		for (let i = 0; at < bytes.length; i++) {
			const size = Math.min(sizes[i % sizes.length] ?? 1, bytes.length - at);
			bytes.copy(reused, 0, at, at + size);
			at += size;
			yield reused.subarray(0, size);
			reused.fill(0x2a); // a reader that kept a view instead of a copy now sees "*"
		}
	})();
}

/** A text file around read's caps (2000 lines, 50 KB): many short lines, or a few long ones, some multi-byte. */
const textAroundCaps = fc
	.record({
		lines: fc.integer({ min: 0, max: 2100 }),
		width: fc.integer({ min: 0, max: 30 }),
		longLine: fc.option(fc.record({ at: fc.nat({ max: 2100 }), size: fc.integer({ min: 40_000, max: 70_000 }) })),
		unit: fc.constantFrom("a", "é", "😀", "\r"),
		finalBreak: fc.boolean(),
	})
	.map(({ lines, width, longLine, unit, finalBreak }) => {
		const all = Array.from({ length: lines }, (_, i) =>
			longLine && i === longLine.at % Math.max(1, lines) ? "x".repeat(longLine.size) : `${i}${unit.repeat(width)}`,
		);
		return Buffer.from(`${all.join("\n")}${finalBreak && lines > 0 ? "\n" : ""}`);
	});

describe("read in chunks", () => {
	it("gives the same text, details and errors whatever the chunk boundaries, as reading the file whole", async () => {
		const outcome = (promise: Promise<unknown>) =>
			promise.then(
				(result) => result,
				(error: Error) => ({ error: error.message }),
			);
		await fc.assert(
			fc.asyncProperty(
				textAroundCaps,
				fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 5 }),
				fc.option(fc.integer({ min: -1, max: 2200 })),
				fc.option(fc.integer({ min: 0, max: 2200 })),
				async (bytes, sizes, offset, limit) => {
					const whole: ReadOperations = { readFile: async () => bytes, access: async () => {} };
					const chunked: ReadOperations = { ...whole, readChunks: () => reusedBufferChunks(bytes, sizes) };
					const params = {
						path: "f.txt",
						...(offset === null ? {} : { offset }),
						...(limit === null ? {} : { limit }),
					};
					const expected = await outcome(run(createReadToolDefinition("/", { operations: whole }), params));
					const actual = await outcome(run(createReadToolDefinition("/", { operations: chunked }), params));
					expect(actual).toEqual(expected);
				},
			),
			{ numRuns: 60 },
		);
	});
});
