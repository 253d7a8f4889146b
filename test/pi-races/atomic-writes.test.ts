/**
 * `write` and `edit` replace a file while other processes use it. claude-code#14517: the tools
 * truncated the file, then wrote it, so a dev server's watcher (or `cat` in a parallel bash call)
 * saw a truncated file ("Unexpected eof") and kept it until the file was touched again; a write
 * cut short (a full disk, a kill) left the file truncated too. What the user should see: a reader
 * sees the old content or the new, never a part; a failed write leaves the file as it was and no
 * temp file; the file keeps its mode and its links, and a read-only file stays refused.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditToolDefinition } from "../../src/tools/edit.js";
import { createWriteToolDefinition } from "../../src/tools/write.js";
import { ROOT, trackChild } from "../cli/helpers.js";
import { writeProtect } from "./helpers.js";

let cwd: string;
beforeEach(() => {
	cwd = mkdtempSync(join(tmpdir(), "settle-atomic-writes-"));
});
afterEach(() => {
	rmSync(cwd, { recursive: true, force: true });
});

async function write(path: string, content: string): Promise<string> {
	const result = await createWriteToolDefinition(cwd).execute("w", { path, content }, undefined, undefined, undefined);
	return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** The message of a tool call that must fail. */
async function failure(run: Promise<unknown>): Promise<string> {
	try {
		await run;
	} catch (error) {
		return (error as Error).message;
	}
	throw new Error("the call succeeded");
}

/** Version `n` of the watched file: 40,000 equal lines naming `n` (about 1.6 MB). */
function version(n: number): string {
	return `version ${String(n).padStart(4, "0")} of the generated bundle\n`.repeat(40_000);
}

/**
 * A separate process that reads `file` in a tight loop until `stop` exists, checking each read is
 * one whole version; prints "ready" after its first read, then a JSON summary when it stops.
 */
const READER = `
const { existsSync, readFileSync } = require("node:fs");
const [file, stop] = process.argv.slice(1);
let reads = 0;
const partial = [];
const versions = new Set();
while (!existsSync(stop)) {
	const text = readFileSync(file, "utf8");
	reads++;
	const line = text.slice(0, text.indexOf("\\n") + 1);
	if (line === "" || text !== line.repeat(40000)) partial.push(text.length);
	else versions.add(line);
	if (reads === 1) process.stdout.write("ready\\n");
}
process.stdout.write(JSON.stringify({ reads, partial: partial.length, firstPartialLengths: partial.slice(0, 3), versions: versions.size }) + "\\n");
`;

describe("claude-code#14517: write truncates the file in place, so a concurrent reader sees a half-written file", () => {
	it("claude-code#14517: a reader process looping over bundle.js during 60 writes of 1.6 MB sees only whole versions, several of them", async () => {
		writeFileSync(join(cwd, "bundle.js"), version(0));
		const stop = join(cwd, "stop-reading");
		const reader = spawn(process.execPath, ["-e", READER, join(cwd, "bundle.js"), stop], {
			stdio: ["ignore", "pipe", "inherit"],
		});
		const closed = trackChild(reader);
		let output = "";
		reader.stdout.setEncoding("utf8");
		reader.stdout.on("data", (chunk: string) => {
			output += chunk;
		});
		while (!output.includes("ready\n")) await once(reader.stdout, "data");
		for (let n = 1; n <= 60; n++) {
			expect(await write("bundle.js", version(n))).toBe(`Successfully wrote ${version(n).length} bytes to bundle.js`);
		}
		writeFileSync(stop, "");
		expect(await closed).toBe(0);
		const summary = JSON.parse(output.split("\n")[1]!) as { reads: number; partial: number; versions: number };
		expect(summary).toMatchObject({ partial: 0 });
		expect(summary.versions).toBeGreaterThan(1); // the reads overlapped the writes
		expect(readFileSync(join(cwd, "bundle.js"), "utf8")).toBe(version(60));
		expect(readdirSync(cwd).sort()).toEqual(["bundle.js", "stop-reading"]);
	});

	it("claude-code#14517: a write cut short by the file-size limit (a full disk) fails saying the limit was hit, that notes.md is left as it was and what to do; no temp file beside it", () => {
		writeFileSync(join(cwd, "notes.md"), "# Notes\nkept\n");
		const script = join(cwd, "..", `${cwd.split("/").at(-1)}-write.mjs`);
		writeFileSync(
			script,
			`import { createWriteToolDefinition } from ${JSON.stringify(pathToFileURL(join(ROOT, "src/tools/write.ts")).href)};
try {
	await createWriteToolDefinition(process.argv[2]).execute("w", { path: "notes.md", content: "x".repeat(1024 * 1024) });
	console.log(JSON.stringify({ written: true }));
} catch (error) {
	console.log(JSON.stringify({ code: error.code, message: error.message }));
}
`,
		);
		try {
			// `ulimit -f 256`: no file of this process may grow past 256 KiB; the 1 MiB content cannot be written.
			const loader = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
			const run = spawnSync(
				"bash",
				["-c", 'ulimit -f 256 && exec "$0" "$@"', process.execPath, "--import", loader, script, cwd],
				{ encoding: "utf8" },
			);
			expect(run.stderr).toBe("");
			expect(JSON.parse(run.stdout)).toEqual({
				code: "IO",
				message: `Cannot write ${join(cwd, "notes.md")}: the file would pass the file-size limit (EFBIG). Nothing was changed: the file is left as it was. Write it in smaller parts, or raise the limit (ulimit -f) before starting settle.`,
			});
		} finally {
			rmSync(script, { force: true });
		}
		expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("# Notes\nkept\n");
		expect(readdirSync(cwd)).toEqual(["notes.md"]);
	});

	it("claude-code#14517: write and edit replace a 0775 script whole and keep its mode; no temp file is left beside it", async () => {
		writeFileSync(join(cwd, "run.sh"), "#!/bin/sh\necho one\n");
		chmodSync(join(cwd, "run.sh"), 0o775);
		await write("run.sh", "#!/bin/sh\necho two\n");
		await createEditToolDefinition(cwd).execute(
			"e",
			{ path: "run.sh", edits: [{ oldText: "two", newText: "three" }] },
			undefined,
			undefined,
			undefined,
		);
		expect(statSync(join(cwd, "run.sh")).mode & 0o7777).toBe(0o775);
		expect(spawnSync("./run.sh", { cwd, encoding: "utf8" }).stdout).toBe("three\n");
		expect(readdirSync(cwd)).toEqual(["run.sh"]);
	});

	it("claude-code#14517: a write-protected file is still refused (Permission denied), keeps its bytes, and no temp file is made", async () => {
		writeFileSync(join(cwd, "locked.txt"), "locked\n");
		const undo = writeProtect(join(cwd, "locked.txt"));
		try {
			expect(await failure(write("locked.txt", "changed\n"))).toBe(
				`Permission denied: ${join(cwd, "locked.txt")}. Nothing was changed. Check the file's permissions (ls -l) or ask the user to change them, or pick a path you can write to.`,
			);
			expect(readFileSync(join(cwd, "locked.txt"), "utf8")).toBe("locked\n");
			expect(readdirSync(cwd)).toEqual(["locked.txt"]);
		} finally {
			undo();
		}
	});

	it("claude-code#14517: a writable file in a write-protected folder (no temp file can be made there) is still written, in place", async () => {
		const folder = join(cwd, "vendor");
		spawnSync("mkdir", [folder]);
		writeFileSync(join(folder, "config.json"), "{}\n");
		const undo = writeProtect(folder);
		try {
			expect(await write("vendor/config.json", '{ "on": true }\n')).toBe(
				"Successfully wrote 15 bytes to vendor/config.json",
			);
			expect(readFileSync(join(folder, "config.json"), "utf8")).toBe('{ "on": true }\n');
			expect(readdirSync(folder)).toEqual(["config.json"]);
		} finally {
			undo();
		}
	});

	it("claude-code#14517: a file with a second hard link is written in place, so both names show the new content", async () => {
		writeFileSync(join(cwd, "a.txt"), "old\n");
		linkSync(join(cwd, "a.txt"), join(cwd, "b.txt"));
		await write("a.txt", "new\n");
		expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("new\n");
		expect(statSync(join(cwd, "a.txt")).nlink).toBe(2);
		expect(readdirSync(cwd).sort()).toEqual(["a.txt", "b.txt"]);
	});
});
