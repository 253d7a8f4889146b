import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { execCommand } from "../../src/extensions/exec.js";
import { createExtensionHarness } from "../../src/extensions/testing.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { tempDir } from "./helpers.js";

const node = process.execPath;

describe.skipIf(process.platform === "win32")("pi.exec runs a real child process", () => {
	it("collects stdout, stderr and the exit code, in the session cwd by default", async () => {
		const cwd = tempDir();
		writeFileSync(join(cwd, "marker.txt"), "here");
		let api: ExtensionAPI | undefined;
		await createExtensionHarness({
			cwd,
			factories: [
				(pi) => {
					api = pi;
				},
			],
		});
		const script =
			"process.stdout.write(require('fs').readFileSync('marker.txt','utf8')); console.error('warn: ü'); process.exit(3)";
		expect(await api!.exec(node, ["-e", script])).toEqual({
			stdout: "here",
			stderr: "warn: ü\n",
			code: 3,
			killed: false,
		});
		const other = tempDir();
		writeFileSync(join(other, "marker.txt"), "there");
		expect((await api!.exec(node, ["-e", script], { cwd: other })).stdout).toBe("there");
	});

	it("passes arguments without a shell", async () => {
		const result = await execCommand(
			node,
			["-e", "console.log(JSON.stringify(process.argv.slice(1)))", "a b", "$HOME", "*"],
			tempDir(),
		);
		expect(JSON.parse(result.stdout)).toEqual(["a b", "$HOME", "*"]);
		expect(result.code).toBe(0);
	});

	it("terminates a process that outlives its timeout", async () => {
		const result = await execCommand(node, ["-e", "setTimeout(() => {}, 60000)"], tempDir(), { timeout: 300 });
		expect(result).toEqual({ stdout: "", stderr: "", code: 143, killed: true });
	});

	it("terminates on abort, including processes the command started", async () => {
		const dir = tempDir();
		const pidFile = join(dir, "child.pid");
		const controller = new AbortController();
		const script = `
			const { spawn } = require("child_process");
			const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
			// The pid file appears only once "ready" is in the pipe (console.log to a pipe is asynchronous).
			process.stdout.write("ready\\n", () => require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(child.pid)));
			setTimeout(() => {}, 60000);
		`;
		const running = execCommand(node, ["-e", script], dir, { signal: controller.signal });
		const grandchild = await waitForFile(pidFile, running);
		controller.abort();
		const result = await running;
		expect(result).toMatchObject({ stdout: "ready\n", code: 143, killed: true });
		expect(await waitUntilGone(Number(grandchild))).toBe(true);
	});

	it("does not start a command whose signal is already aborted", async () => {
		const dir = tempDir();
		const controller = new AbortController();
		controller.abort();
		const result = await execCommand(node, ["-e", "require('fs').writeFileSync('ran', '')"], dir, {
			signal: controller.signal,
		});
		expect(result).toEqual({ stdout: "", stderr: "", code: 1, killed: true });
		expect(existsSync(join(dir, "ran"))).toBe(false);
	});

	it("resolves (never rejects) when the program or the cwd does not exist", async () => {
		const missing = await execCommand("settle-no-such-program", [], tempDir());
		expect(missing.code).toBe(1);
		expect(missing.killed).toBe(false);
		expect(missing.stderr).toContain("ENOENT");
		const gone = join(tempDir(), "gone");
		expect(await execCommand(node, ["-v"], gone)).toEqual({
			stdout: "",
			stderr: `Working directory does not exist: ${gone}`,
			code: 1,
			killed: false,
		});
	});
});

/** Polls for a file the command writes; fails with the command's output if it ends first. */
async function waitForFile(path: string, running: Promise<{ stdout: string; stderr: string }>): Promise<string> {
	let ended: { stdout: string; stderr: string } | undefined;
	running.then((result) => {
		ended = result;
	});
	for (;;) {
		const text = existsSync(path) ? readFileSync(path, "utf-8") : "";
		if (text) return text;
		if (ended) throw new Error(`The command ended before writing ${path}: ${ended.stdout}${ended.stderr}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

/** Polls until the process is gone (a zombie counts as gone); false after 5 s. */
async function waitUntilGone(pid: number): Promise<boolean> {
	const deadline = Date.now() + 5000;
	while (Date.now() < deadline) {
		if (!isRunning(pid)) return true;
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return false;
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	if (process.platform !== "linux") return true;
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf-8");
		const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
		return state !== "Z" && state !== "X";
	} catch {
		return false;
	}
}
