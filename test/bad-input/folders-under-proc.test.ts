/**
 * Regression: every writer that makes missing folders used Node's recursive `mkdir`, which never
 * returns (100% CPU, sync and async) under /proc or /sys — saving credentials or a setting, the
 * write tool, `settle --export`, `settle trace -o`. They all go through `makeFolders` /
 * `makeFoldersAsync` now and fail at once with an error naming the folder. Each check runs in a
 * child process with a time limit: a regression spins and is killed, failing the test instead of
 * hanging the suite.
 */
import { spawnSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeFoldersAsync } from "../../src/store/folders.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { runSettle, useCliProject } from "../cli/helpers.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/**
 * The writers' child imports the bundled package (test/cli/cli-bundle.ts) under plain `node`:
 * through tsx it spent ~0.8 s of CPU loading the sources. `SETTLE_TEST_CLI=sources` keeps them.
 */
const FROM_SOURCES = process.env.SETTLE_TEST_CLI === "sources";
/** A folder whose parent (/proc) says writable but refuses every new entry. */
const PROC = `/proc/settle-no-such-${process.pid}`;
const hasProc = existsSync("/proc/self");
const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const src = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, "src", path)).href);

/** Runs each SDK writer against `base` in a child process; the outcome of each, by name. */
function sdkWritersIn(base: string): { signal: NodeJS.Signals | null; outcomes: Record<string, unknown> | string } {
	const dir = mkdtempSync(join(tmpdir(), "settle-proc-writers-"));
	dirs.push(dir);
	const program = join(dir, "writers.mjs");
	const imports = FROM_SOURCES
		? `import { AuthStorage } from ${src("runtime/auth-storage.ts")};
import { SettingsManager } from ${src("settings/settings-manager.ts")};
import { createWriteToolDefinition } from ${src("tools/write.ts")};
import { exportSessionToHtml } from ${src("export/index.ts")};
import { SessionManager } from ${src("store/session-manager.ts")};`
		: `import { AuthStorage, SettingsManager, createWriteToolDefinition, exportSessionToHtml, SessionManager } from ${JSON.stringify(pathToFileURL(join(dirname(cliBundle()), "index.js")).href)};`;
	writeFileSync(
		program,
		`${imports}
const base = ${JSON.stringify(base)};
function started() {
	const manager = SessionManager.create("/work", ${JSON.stringify(join(dir, "sessions"))});
	manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
	return manager;
}
const writers = {
	auth: () => AuthStorage.create(base + "/agent/auth.json").set("anthropic", "sk-test"),
	settings: () => SettingsManager.create(${JSON.stringify(dir)}, base + "/agent").setDefaultModel("m"),
	writeTool: () => createWriteToolDefinition(${JSON.stringify(dir)}).execute("c1", { path: base + "/w/new.txt", content: "x" }),
	exportHtml: () => exportSessionToHtml(started(), { outputPath: base + "/pages/page.html" }),
};
const outcomes = {};
for (const [name, write] of Object.entries(writers)) {
	try {
		await write();
		outcomes[name] = { ok: true };
	} catch (error) {
		outcomes[name] = { name: error.name, code: error.code, message: error.message, details: error.details };
	}
}
console.log(JSON.stringify(outcomes));
`,
	);
	const run = spawnSync(process.execPath, FROM_SOURCES ? ["--import", "tsx", program] : [program], {
		cwd: ROOT,
		encoding: "utf8",
		// About a second; a regression spins until killed.
		timeout: 20_000,
		killSignal: "SIGKILL",
	});
	const last = run.stdout.trim().split("\n").pop() ?? "";
	return { signal: run.signal, outcomes: last === "" ? run.stderr : JSON.parse(last) };
}

const enoent = (level: string) => `ENOENT: no such file or directory, mkdir '${level}'`;

describe("regression: SDK writers making a folder under /proc", () => {
	it.skipIf(!hasProc)(
		"credentials, settings, the write tool and the HTML export throw IO naming the folder at once",
		() => {
			const run = sdkWritersIn(`${PROC}/x`);
			expect(run.signal).toBeNull();
			expect(run.outcomes).toEqual({
				auth: {
					name: "SettleError",
					code: "IO",
					message: `Cannot save credentials: cannot create ${PROC}/x/agent: ${enoent(PROC)}. Point SETTLE_AGENT_DIR (or the path given to AuthStorage.create) at a writable folder.`,
					details: { path: `${PROC}/x/agent/auth.json` },
				},
				settings: {
					name: "SettleError",
					code: "IO",
					message: `Cannot save setting "defaultModel": cannot create ${PROC}/x/agent: ${enoent(PROC)}. Make that folder creatable, or point SETTLE_AGENT_DIR at a writable folder.`,
					details: { path: `${PROC}/x/agent/settings.json` },
				},
				writeTool: {
					name: "SettleError",
					code: "IO",
					message: `Cannot write ${PROC}/x/w/new.txt: cannot create the folder ${PROC}/x/w (${enoent(PROC)}). Write somewhere else.`,
				},
				exportHtml: {
					name: "SettleError",
					code: "IO",
					message: `Cannot write the HTML export to ${PROC}/x/pages/page.html: ${enoent(PROC)}. Choose a writable path.`,
					details: { path: `${PROC}/x/pages/page.html` },
				},
			});
		},
	);

	it("the same child makes missing folders elsewhere (the harness itself works)", () => {
		const base = mkdtempSync(join(tmpdir(), "settle-proc-writers-ok-"));
		dirs.push(base);
		const run = sdkWritersIn(join(base, "x"));
		expect(run.outcomes).toEqual({
			auth: { ok: true },
			settings: { ok: true },
			writeTool: { ok: true },
			exportHtml: { ok: true },
		});
		expect(JSON.parse(readFileSync(join(base, "x", "agent", "auth.json"), "utf8"))).toEqual({
			anthropic: { type: "api_key", key: "sk-test" },
		});
		// Credentials' folder is private, as Node's mkdir with mode 0o700 made it.
		expect(statSync(join(base, "x", "agent")).mode & 0o777).toBe(0o700);
		expect(readFileSync(join(base, "x", "w", "new.txt"), "utf8")).toBe("x");
		expect(existsSync(join(base, "x", "pages", "page.html"))).toBe(true);
	});
});

describe("regression: CLI outputs under /proc", () => {
	const cli = useCliProject("settle-proc-cli-");
	const settle = (args: string[]) => runSettle(args, { cwd: cli.project, agentDir: cli.agentDir, timeoutMs: 20_000 });

	/** One faux run: its session file and its trace. */
	function recorded(): { session: string; trace: string } {
		const sessions = join(cli.dir, "sessions");
		const trace = join(cli.dir, "run.trace.json");
		expect(settle(["--faux", "--session-dir", sessions, "--trace", trace, "-p", "hi"]).code).toBe(0);
		const [file] = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
		return { session: join(sessions, file!), trace };
	}

	it.skipIf(!hasProc)(
		"settle --export <s> <out> and settle trace <t> -o <out> fail at once with one line naming the folder",
		() => {
			const { session, trace } = recorded();
			expect(settle(["--export", session, `${PROC}/pages/page.html`])).toEqual({
				code: 1,
				stdout: "",
				stderr: `Error: Cannot write the HTML export to ${PROC}/pages/page.html: ${enoent(PROC)}. Choose a writable path.\n`,
			});
			expect(settle(["trace", trace, "-o", `${PROC}/views/run.html`])).toEqual({
				code: 2,
				stdout: "",
				stderr: `Error: Could not write the trace viewer to ${PROC}/views/run.html: ${enoent(PROC)}\n`,
			});
		},
	);
});

describe("makeFoldersAsync", () => {
	it("makes every missing level; an existing folder is fine; a file in the path or at the end is ENOTDIR", async () => {
		const dir = mkdtempSync(join(tmpdir(), "settle-make-folders-async-"));
		dirs.push(dir);
		const deep = join(dir, "a", "b", "c");
		await makeFoldersAsync(deep);
		expect(existsSync(deep)).toBe(true);
		await makeFoldersAsync(deep);
		writeFileSync(join(dir, "file"), "");
		await expect(makeFoldersAsync(join(dir, "file", "sub"))).rejects.toThrow(/ENOTDIR/);
		await expect(makeFoldersAsync(join(dir, "file"))).rejects.toThrow(/^ENOTDIR: not a directory, mkdir '.*file'$/);
	});

	it.skipIf(!hasProc)(
		"under /proc: ENOENT for the first level, at once (Node's recursive mkdir never settles there)",
		async () => {
			await expect(makeFoldersAsync(`${PROC}/a/b`)).rejects.toMatchObject({ code: "ENOENT", path: PROC });
		},
	);

	it("mode: every level made gets it; existing levels keep theirs", async () => {
		const dir = mkdtempSync(join(tmpdir(), "settle-make-folders-mode-"));
		dirs.push(dir);
		mkdirSync(join(dir, "e"));
		chmodSync(join(dir, "e"), 0o755);
		await makeFoldersAsync(join(dir, "e", "a", "b"), { mode: 0o700 });
		expect(statSync(join(dir, "e", "a")).mode & 0o777).toBe(0o700);
		expect(statSync(join(dir, "e", "a", "b")).mode & 0o777).toBe(0o700);
		expect(statSync(join(dir, "e")).mode & 0o777).toBe(0o755);
	});
});

describe("no recursive mkdir left in src/", () => {
	it("every mkdir call in src makes one level (recursive ones spin forever under /proc on Node 20)", () => {
		const offenders: string[] = [];
		const walk = (folder: string) => {
			for (const entry of readdirSync(folder, { withFileTypes: true })) {
				const path = join(folder, entry.name);
				if (entry.isDirectory()) walk(path);
				else if (entry.name.endsWith(".ts")) {
					// Code only: the comments explaining why mention the recursive call.
					const text = readFileSync(path, "utf8")
						.replace(/\/\*[\s\S]*?\*\//g, "")
						.replace(/^\s*\/\/.*$/gm, "");
					// A call's arguments, one level of nested parentheses deep (`dirname(x)`), over several lines.
					for (const match of text.matchAll(/\bmkdir(?:Sync)?\s*\(((?:[^()]|\([^()]*\))*)\)/g)) {
						if (/\brecursive\b/.test(match[1]!)) offenders.push(`${path.slice(ROOT.length)}: ${match[0]}`);
					}
				}
			}
		};
		walk(join(ROOT, "src"));
		expect(offenders).toEqual([]);
	});
});
