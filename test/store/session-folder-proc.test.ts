/**
 * Regression: a session folder under /proc (or /sys) hung the SDK at 100% CPU — the store makes
 * its folder at the first persisted message, and Node 20's recursive `mkdirSync` never returns
 * there. The store now makes it one level at a time and throws the `IO` SettleError it gives for
 * any session folder it cannot make. Run in a child process with a time limit: a regression makes
 * the child spin, which is killed and fails the test instead of hanging the suite.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeFolders } from "../../src/store/folders.js";
import { cliBundle } from "../cli/cli-bundle.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/**
 * The child imports the bundled package (test/cli/cli-bundle.ts) under plain `node`: through tsx it
 * spent ~0.8 s of CPU loading the store's sources. `SETTLE_TEST_CLI=sources` keeps the sources.
 */
const FROM_SOURCES = process.env.SETTLE_TEST_CLI === "sources";
const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What the first message does to a session created (or opened) in `folder`, in a child process. */
function firstMessageIn(folder: string): { code: number | null; signal: NodeJS.Signals | null; outcomes: unknown } {
	const dir = mkdtempSync(join(tmpdir(), "settle-proc-folder-"));
	dirs.push(dir);
	const program = join(dir, FROM_SOURCES ? "first-message.ts" : "first-message.mjs");
	const store = pathToFileURL(
		FROM_SOURCES ? join(ROOT, "src/store/session-manager.ts") : join(dirname(cliBundle()), "index.js"),
	).href;
	writeFileSync(
		program,
		`import { SessionManager } from ${JSON.stringify(store)};
const folder = ${JSON.stringify(folder)};
const outcomes = [];
for (const start of [() => SessionManager.create("/work", folder), () => SessionManager.open(folder + "/s.jsonl")]) {
	try {
		start().appendMessage({ role: "user", content: "hi", timestamp: 1 });
		outcomes.push({ ok: true });
	} catch (error) {
		outcomes.push({ name: error.name, code: error.code, message: error.message, details: error.details });
	}
}
console.log(JSON.stringify(outcomes));
`,
	);
	const run = spawnSync(process.execPath, FROM_SOURCES ? ["--import", "tsx", program] : [program], {
		cwd: ROOT,
		encoding: "utf8",
		// It exits in about a second; the regression spins until killed.
		timeout: 20_000,
		killSignal: "SIGKILL",
	});
	const last = run.stdout.trim().split("\n").pop() ?? "";
	return { code: run.status, signal: run.signal, outcomes: last === "" ? run.stderr : JSON.parse(last) };
}

describe("regression: a session folder under /proc", () => {
	it.skipIf(!existsSync("/proc/self"))(
		"SessionManager.create and .open throw IO naming the folder at the first message instead of spinning",
		() => {
			const folder = `/proc/settle-no-such-${process.pid}/sessions`;
			const run = firstMessageIn(folder);
			expect(run.signal).toBeNull();
			expect(run.code).toBe(0);
			const expected = {
				name: "SettleError",
				code: "IO",
				message: `Cannot create the session folder ${folder}: ENOENT: no such file or directory, mkdir '/proc/settle-no-such-${process.pid}'. Point sessionDir (settings), SETTLE_AGENT_DIR or the agentDir you passed in code at a writable folder.`,
				details: { path: folder },
			};
			expect(run.outcomes).toEqual([expected, expected]);
		},
	);

	it("the same child makes a missing folder elsewhere (the harness itself works)", () => {
		const dir = mkdtempSync(join(tmpdir(), "settle-proc-folder-"));
		dirs.push(dir);
		const run = firstMessageIn(join(dir, "a", "b", "sessions"));
		expect(run.outcomes).toEqual([{ ok: true }, { ok: true }]);
	});
});

describe("makeFolders", () => {
	it("makes every missing level; an existing folder is fine; a file in the path or at the end is ENOTDIR", () => {
		const dir = mkdtempSync(join(tmpdir(), "settle-make-folders-"));
		dirs.push(dir);
		const deep = join(dir, "a", "b", "c");
		makeFolders(deep);
		expect(existsSync(deep)).toBe(true);
		makeFolders(deep);
		makeFolders(join(dir, "a"));
		writeFileSync(join(dir, "file"), "");
		expect(() => makeFolders(join(dir, "file", "sessions"))).toThrow(/ENOTDIR/);
		expect(() => makeFolders(join(dir, "file"))).toThrow(/^ENOTDIR: not a directory, mkdir '.*file'$/);
		mkdirSync(join(dir, "x"));
		makeFolders(join(dir, "x", "y"));
		expect(existsSync(join(dir, "x", "y"))).toBe(true);
	});
});
