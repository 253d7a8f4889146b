/**
 * The machine failing under a live session, in real child processes: the file size limit reached
 * mid-session (RLIMIT_FSIZE lowered with `prlimit`, SIGXFSZ ignored, so writes fail with EFBIG as
 * on a full disk), `--trace` / `--export` targets that cannot be written (a full device, a
 * read-only folder), and no file descriptors left (RLIMIT_NOFILE lowered) while tools run.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { cliCommand, runSettle, trackChild, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-faults-");
const CHILD = fileURLToPath(new URL("./disk-limit-child.mjs", import.meta.url));
const BIG = "x".repeat(4000);

/**
 * Root on a filesystem with the append-only attribute (ext4, xfs, btrfs; not tmpfs or overlayfs):
 * what the uncut-write regression needs. Probed once in the temp folder the tests write to.
 */
function appendOnlyFilesWork(): boolean {
	if (process.getuid?.() !== 0) return false;
	const dir = mkdtempSync(join(tmpdir(), "settle-chattr-"));
	const probe = join(dir, "probe");
	writeFileSync(probe, "");
	const works = spawnSync("chattr", ["+a", probe]).status === 0;
	if (works) spawnSync("chattr", ["-a", probe]);
	rmSync(dir, { recursive: true, force: true });
	return works;
}

/** Each line of the file parses as JSON (nothing torn), and the file opens as a session. */
function openedRoles(file: string): string[] {
	for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean))
		expect(() => JSON.parse(line)).not.toThrow();
	expect(readFileSync(file, "utf8").endsWith("\n")).toBe(true);
	const manager = SessionManager.open(file, undefined, undefined, { readOnly: true });
	expect(manager.getDiagnostics()).toEqual([]);
	const roles = manager.buildSessionContext().messages.map((message) => message.role);
	manager.close();
	return roles;
}

/** `settle <args>` in the project, with the file size limit of the process lowered to `bytes` (SIGXFSZ ignored). */
function settleWithFileSizeLimit(bytes: number, args: string[]) {
	const quoted = [process.execPath, ...cliCommand(), ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`);
	const run = spawnSync("sh", ["-c", `trap '' XFSZ; exec prlimit --fsize=${bytes} ${quoted.join(" ")}`], {
		cwd: cli.project,
		input: "",
		encoding: "utf8",
		env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
	});
	return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * disk-limit-child.mjs on session `file` (SIGXFSZ ignored): `next()` resolves with its next JSON
 * line, `limit(bytes)` sets its file size limit (`prlimit --pid`), `child.stdin` takes the prompts.
 */
async function startSdkChild(file: string) {
	const index = pathToFileURL(join(dirname(cliBundle()), "index.js")).href;
	const child = spawn(
		"sh",
		["-c", `trap '' XFSZ; exec "$0" "$@"`, process.execPath, CHILD, index, file, cli.project, cli.agentDir],
		{ cwd: cli.project, stdio: ["pipe", "pipe", "pipe"] },
	) as ChildProcessWithoutNullStreams;
	const exited = trackChild(child);
	let stderr = "";
	child.on("exit", (code, signal) => {
		stderr += `[exit ${code} ${signal}]`;
	});
	child.stderr.on("data", (chunk) => {
		stderr += chunk;
	});
	// The child's lines, read as they come; `next` waits for the next one.
	const lines: string[] = [];
	let wake: (() => void) | undefined;
	let buffer = "";
	child.stdout.setEncoding("utf8");
	child.stdout.on("data", (chunk: string) => {
		buffer += chunk;
		for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
			lines.push(buffer.slice(0, nl));
			buffer = buffer.slice(nl + 1);
		}
		wake?.();
	});
	child.on("close", () => wake?.());
	const next = async (): Promise<Record<string, unknown>> => {
		while (lines.length === 0) {
			if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the child ended: ${stderr}`);
			await new Promise<void>((resolve) => {
				wake = resolve;
			});
		}
		return JSON.parse(lines.shift()!) as Record<string, unknown>;
	};
	const { pid } = (await next()) as { pid: number };
	const limit = (bytes: string) =>
		expect(spawnSync("prlimit", ["--pid", String(pid), `--fsize=${bytes}`]).status).toBe(0);
	return { child, next, limit, exited };
}

describe("the file size limit reached mid-session (EFBIG, as a full disk)", () => {
	it("regression: settle -p exits 1 saying to free space; the file stays the conversation it saved; a new process goes on", () => {
		const file = join(cli.dir, "s.jsonl");
		expect(
			runSettle(["--faux", "--session", file, "-p", "first"], { cwd: cli.project, agentDir: cli.agentDir }).code,
		).toBe(0);
		const before = readFileSync(file, "utf8");
		const limited = settleWithFileSizeLimit(before.length + 1500, ["--faux", "--session", file, "-p", BIG]);
		expect(limited.code).toBe(1);
		expect(limited.stderr).toContain(`Could not append to session file ${file}: EFBIG`);
		expect(limited.stderr).toContain("Free disk space (or raise the file size limit: ulimit -f)");
		const text = readFileSync(file, "utf8");
		expect(text.startsWith(before)).toBe(true);
		expect(text).not.toContain(BIG);
		// The prompt that could not be saved is not in the log; the failure that says so is, after the saved answer.
		expect(openedRoles(file)).toEqual(["system", "user", "assistant", "assistant"]);
		// Space back: a new process continues from what the file holds.
		const again = runSettle(["--faux", "--session", file, "-p", "again"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(again).toMatchObject({ code: 0, stdout: "again\n" });
		expect(openedRoles(file)).toEqual(["system", "user", "assistant", "assistant", "user", "assistant"]);
	});

	it("regression: a torn last line that could not be moved aside (its copy over the limit) gave Node's bare EFBIG; now exit 3 naming the file and what to do, the file keeps every byte, no partial copy is left; with room again the line is moved aside and the session goes on", () => {
		const file = join(cli.dir, "torn.jsonl");
		expect(
			runSettle(["--faux", "--session", file, "-p", "first"], { cwd: cli.project, agentDir: cli.agentDir }).code,
		).toBe(0);
		// A crash cut an append of a big message off: its torn bytes are over the limit the copy gets.
		writeFileSync(file, `{"type":"message","id":"cut","message":{"role":"user","content":"${BIG}`, { flag: "a" });
		const before = readFileSync(file);
		const limited = settleWithFileSizeLimit(2000, ["--faux", "--session", file, "-p", "next"]);
		expect(limited.stderr).toMatch(
			new RegExp(
				`Could not move the torn last line \\(line \\d+\\) of session file ${file} aside to ${file}\\.[^ ]+\\.torn: EFBIG: file too large, write\\. ` +
					"The file was left as it was\\. Free disk space \\(or raise the file size limit: ulimit -f\\), then open it again\\.",
			),
		);
		expect(limited).toMatchObject({ code: 3, stdout: "" });
		expect(readFileSync(file).equals(before)).toBe(true);
		expect(readdirSync(cli.dir).filter((name) => name.startsWith("torn.jsonl"))).toEqual(["torn.jsonl"]);
		const again = runSettle(["--faux", "--session", file, "-p", "next"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(again).toMatchObject({ code: 0, stdout: "next\n" });
		const aside = readdirSync(cli.dir).filter((name) => name.endsWith(".torn"));
		expect(aside).toHaveLength(1);
		expect(readFileSync(join(cli.dir, aside[0]!), "utf8")).toContain(BIG);
		expect(openedRoles(file)).toEqual(["system", "user", "assistant", "user", "assistant"]);
	});

	it("regression: through the SDK the process died of SIGXFSZ (signal-exit re-raised it), the unsaved prompt stayed in the live transcript, and the next write after a cut-back one left a hole of NUL bytes; now memory is what the file holds, and the same process goes on once the limit is lifted", async () => {
		// A new session: the child creates the file (the writer's create path), then hits the limit.
		const file = join(cli.dir, "sdk.jsonl");
		const { child, next, limit, exited } = await startSdkChild(file);

		child.stdin.write("first\n");
		expect(await next()).toMatchObject({ settled: 1, transcript: ["system", "user", "assistant"] });
		limit(`${statSync(file).size + 1500}:`);
		child.stdin.write(`${BIG}\n`);
		const failed = (await next()) as {
			settled: number;
			rejected?: unknown;
			last: { stopReason: string; errorMessage: string };
			transcript: string[];
		};
		expect(failed.settled).toBe(1);
		expect(failed.rejected).toBeUndefined();
		expect(failed.last.stopReason).toBe("error");
		expect(failed.last.errorMessage).toMatch(
			/^Could not append to session file .*: EFBIG: file too large, write\. The entry was not added; the file holds the session up to the last entry saved\. Free disk space/,
		);
		expect(readFileSync(file, "utf8")).not.toContain(BIG);
		// In memory what the file holds: no unsaved prompt between the saved answer and the failure.
		expect(failed.transcript).toEqual(["system", "user", "assistant", "assistant"]);
		expect(openedRoles(file)).toEqual(failed.transcript);

		limit("unlimited");
		child.stdin.write("again\n");
		const resumed = (await next()) as { settled: number; last: { stopReason: string }; transcript: string[] };
		expect(resumed).toMatchObject({ settled: 1, last: { stopReason: "stop" } });
		expect(resumed.transcript).toEqual(["system", "user", "assistant", "assistant", "user", "assistant"]);
		child.stdin.write("exit\n");
		expect(await next()).toEqual({ closed: true });
		expect(await exited).toBe(0);
		expect(openedRoles(file)).toEqual(resumed.transcript);
	});
	it.runIf(appendOnlyFilesWork())(
		"regression: a failed write whose cut-back failed too (an append-only file: ftruncate EPERM) made the next append say another program wrote the file; now both errors say Settle's own write left the partial line, and reopening sets it aside",
		async () => {
			const file = join(cli.dir, "uncut.jsonl");
			const { child, next, limit, exited } = await startSdkChild(file);
			let saved = "";
			try {
				child.stdin.write("first\n");
				expect(await next()).toMatchObject({ settled: 1, transcript: ["system", "user", "assistant"] });
				// Append-only (chattr +a, as root): appends still go to the end, ftruncate fails with EPERM.
				expect(spawnSync("chattr", ["+a", file], { encoding: "utf8" })).toMatchObject({ status: 0, stderr: "" });
				saved = readFileSync(file, "utf8");
				limit(`${saved.length + 1500}:`);
				child.stdin.write(`${BIG}\n`);
				const failed = (await next()) as { last: { errorMessage: string } };
				expect(failed.last.errorMessage).toMatch(
					/^Could not append to session file .*: EFBIG: file too large, write\. The entry was not added; cutting its partly written line back failed too \(EPERM: operation not permitted, ftruncate\), so the file ends in part of it\. Reopen the file to continue: opening sets the partial line aside and keeps every entry before it\.$/,
				);
				limit("unlimited");
				child.stdin.write("again\n");
				const later = (await next()) as { last: { errorMessage: string } };
				expect(later.last.errorMessage).toBe(
					`Session file ${file} ends in part of an entry Settle failed to write (${saved.length + 1500} bytes, ${saved.length} saved): ` +
						"cutting it back failed (EPERM: operation not permitted, ftruncate). Nothing more is written to it, so that no entry follows the partial line: " +
						"the entry was not added. Reopen the file to continue: opening sets the partial line aside and keeps every entry before it " +
						"(or SessionManager.createBranchedSession(leafId) saves the conversation in memory to a new file).",
				);
				expect(readFileSync(file, "utf8").startsWith(saved)).toBe(true);
				child.stdin.write("exit\n");
				expect(await next()).toEqual({ closed: true });
				expect(await exited).toBe(0);
			} finally {
				spawnSync("chattr", ["-a", file]);
			}
			// What both errors say to do: reopening sets the partial line aside, the saved entries stay.
			const reopened = SessionManager.open(file);
			expect(reopened.getDiagnostics().map((d) => [d.kind, d.message.slice(0, 40)])).toEqual([
				["torn_line", "Line 7 (the last, 1500 bytes) was cut of"],
			]);
			reopened.close();
			expect(readFileSync(file, "utf8")).toBe(saved);
			expect(openedRoles(file)).toEqual(["system", "user", "assistant"]);
		},
	);
});

describe("--trace and --export targets that cannot be written", () => {
	/** A link in the test's folder to /dev/full: a full disk, on demand (the link, not /dev/full, is what a regression replaces). */
	function fullDeviceLink(name: string): string {
		expect(statSync("/dev/full").isCharacterDevice()).toBe(true);
		const link = join(cli.dir, name);
		symlinkSync("/dev/full", link);
		return link;
	}

	it("regression: --trace to a full device — the trace was renamed over the device (as root: /dev/full became a file) and the run exited 0; now exit 1 saying ENOSPC, the session file complete", () => {
		const file = join(cli.dir, "s.jsonl");
		const link = fullDeviceLink("trace.json");
		const run = runSettle(["--faux", "--session", file, "--trace", link, "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("hi\n");
		expect(run.stderr).toContain(`Error: Could not save the trace to ${link}: ENOSPC`);
		expect(run.stderr).toContain("Free some disk space, or choose a path on another disk.");
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
		expect(statSync("/dev/full").isCharacterDevice()).toBe(true);
		expect(openedRoles(file)).toEqual(["system", "user", "assistant"]);
	});

	it("regression: --export to a full device — 'Exported to:' and exit 0 (the page renamed over it); now exit 1 saying ENOSPC, the session file untouched", () => {
		const file = join(cli.dir, "s.jsonl");
		expect(
			runSettle(["--faux", "--session", file, "-p", "hi"], { cwd: cli.project, agentDir: cli.agentDir }).code,
		).toBe(0);
		const bytes = readFileSync(file, "utf8");
		const link = fullDeviceLink("page.html");
		const run = runSettle(["--export", file, link], { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(
			new RegExp(
				`^Error: Cannot write the HTML export to ${link}: ENOSPC.*Free some disk space, or choose a path on another disk\\.\\n$`,
			),
		);
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
		expect(readFileSync(file, "utf8")).toBe(bytes);
	});

	it("regression: a device target that works (/dev/null) was replaced by a regular file; now written in place", () => {
		const file = join(cli.dir, "s.jsonl");
		const link = join(cli.dir, "null.json");
		symlinkSync("/dev/null", link);
		const run = runSettle(["--faux", "--session", file, "--trace", link, "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
		const exported = runSettle(["--export", file, link], { cwd: cli.project, agentDir: cli.agentDir });
		expect(exported).toMatchObject({ code: 0, stdout: `Exported to: ${link}\n` });
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
	});

	it.runIf(process.getuid?.() === 0)(
		"a read-only folder (EACCES, as a user bound by file modes): --trace refused before the run (exit 2), --export exit 1; the session file untouched",
		() => {
			const file = join(cli.dir, "s.jsonl");
			expect(
				runSettle(["--faux", "--session", file, "-p", "hi"], { cwd: cli.project, agentDir: cli.agentDir }).code,
			).toBe(0);
			const bytes = readFileSync(file, "utf8");
			const locked = join(cli.dir, "locked");
			mkdirSync(locked);
			chmodSync(locked, 0o555);
			const bound = (args: string[]) => {
				const argv = [process.execPath, ...cliCommand(), ...args];
				const run = spawnSync("setpriv", ["--inh-caps=-dac_override", "--bounding-set=-dac_override", ...argv], {
					cwd: cli.project,
					input: "",
					encoding: "utf8",
					env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
				});
				return { code: run.status, stdout: run.stdout, stderr: run.stderr };
			};
			const trace = bound(["--faux", "--session", file, "--trace", join(locked, "t.json"), "-p", "more"]);
			expect(trace).toMatchObject({ code: 2, stdout: "" });
			expect(trace.stderr).toContain(`the folder ${locked} is not writable`);
			expect(readFileSync(file, "utf8")).toBe(bytes);
			const page = bound(["--export", file, join(locked, "p.html")]);
			expect(page.code).toBe(1);
			expect(page.stderr).toMatch(
				/^Error: Cannot write the HTML export to .*p\.html: EACCES.*Choose a writable path\.\n$/,
			);
			expect(readFileSync(file, "utf8")).toBe(bytes);
			expect(existsSync(join(locked, "p.html"))).toBe(false);
		},
	);
});

describe("no file descriptors left while tools run (EMFILE)", () => {
	it("regression: bash gave Node's bare 'spawn /bin/bash EMFILE'; now bash, read, write and edit give error tool results saying what to do (ulimit -n); the run ends, exit 0, every entry saved", () => {
		const file = join(cli.dir, "s.jsonl");
		writeFileSync(join(cli.project, "f.txt"), "content\n");
		const script = join(cli.dir, "script.json");
		// The first command lowers settle's own limit below the descriptors it holds (its parent is settle).
		writeFileSync(
			script,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: "prlimit --pid $PPID --nofile=3: && echo limited" } }] },
				{ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] },
				{ toolCalls: [{ name: "read", arguments: { path: "f.txt" } }] },
				{ toolCalls: [{ name: "write", arguments: { path: "g.txt", content: "x" } }] },
				{ toolCalls: [{ name: "edit", arguments: { path: "f.txt", edits: [{ oldText: "content", newText: "c2" }] } }] },
				"done",
			]),
		);
		const run = runSettle(["--faux-script", script, "--session", file, "-p", "go"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run).toMatchObject({ code: 0, stdout: "done\n" });
		const results = readFileSync(file, "utf8")
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line) as { message?: { role: string; isError?: boolean; content: { text: string }[] } })
			.filter((entry) => entry.message?.role === "toolResult")
			.map((entry) => ({ isError: entry.message!.isError, text: entry.message!.content[0]!.text }));
		expect(results[0]).toEqual({ isError: false, text: "limited\n" });
		expect(results.slice(1).map((result) => result.isError)).toEqual([true, true, true, true]);
		for (const result of results.slice(1)) {
			expect(result.text).toContain("EMFILE");
			expect(result.text).toContain("too many open files");
			expect(result.text).toContain("ulimit -n");
		}
		expect(readFileSync(join(cli.project, "f.txt"), "utf8")).toBe("content\n");
		expect(existsSync(join(cli.project, "g.txt"))).toBe(false);
		expect(openedRoles(file)).toEqual([
			"system",
			"user",
			...Array.from({ length: 5 }, () => ["assistant", "toolResult"]).flat(),
			"assistant",
		]);
	});
});
