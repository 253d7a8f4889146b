/**
 * `settle` in CI jobs and shell scripts, as a platform engineer runs it: `--json` piped into a
 * reader that parses every line (`| jq`), or one that stops early (`| head -1`), exit codes a script
 * branches on. Real child processes from the bundle of the current sources, the scripted model.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { cliCommand, trackChild, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-ci-");

/** A faux script whose one reply is a long text answer (`lines` lines of about 110 characters). */
function longAnswerScript(lines: number): string {
	const file = join(cli.dir, "long.json");
	const text = Array.from({ length: lines }, (_, index) => `line ${index} ${"x".repeat(100)}`).join("\n");
	writeFileSync(file, JSON.stringify([text]));
	return file;
}

/** `node [nodeArgs] settle <args>` in the project, `input` on stdin (then closed), stderr collected. */
function start(args: string[], nodeArgs: string[] = [], input = "") {
	const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [...nodeArgs, ...cliCommand(), ...args], {
		cwd: cli.project,
		env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
	});
	child.stdin.end(input);
	let stderr = "";
	child.stderr.on("data", (chunk) => {
		stderr += String(chunk);
	});
	const exited = trackChild(child).then((code) => ({ code, stderr }));
	return { child, exited };
}

/** Every line of every session file under `dir` parses as JSON (the file ends on a whole entry). */
function sessionLines(dir: string): unknown[] {
	const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
	expect(files).toHaveLength(1);
	const text = readFileSync(join(dir, files[0]!), "utf8");
	expect(text.endsWith("\n")).toBe(true);
	return text
		.trimEnd()
		.split("\n")
		.map((line) => JSON.parse(line) as unknown);
}

describe("settle --json in a pipeline", () => {
	it("regression: `| head -1` during a long answer went unnoticed (exit 0 after buffering the whole stream, or out of memory); now exit 141 at once, the session file whole", async () => {
		const sessions = join(cli.dir, "sessions");
		const { child, exited } = start([
			"--faux-script",
			longAnswerScript(1000),
			"--json",
			"--session-dir",
			sessions,
			"go",
		]);
		const lines = createInterface({ input: child.stdout });
		const first = await new Promise<string>((resolve) => lines.once("line", resolve));
		expect(JSON.parse(first)).toMatchObject({ type: "session", version: 3 });
		// What `head -1` does: read one line, close the pipe.
		lines.close();
		child.stdout.destroy();
		const { code, stderr } = await exited;
		expect({ code, stderr }).toEqual({ code: 141, stderr: "" });
		const entries = sessionLines(sessions) as { type: string; message?: { role: string; stopReason?: string } }[];
		expect(entries[0]).toMatchObject({ type: "session" });
		expect(entries.at(-1)).toMatchObject({ type: "message", message: { role: "assistant", stopReason: "aborted" } });
	});

	for (const mode of ["--json", "--rpc"] as const) {
		it(`regression: a 40 KB answer's events (each message_update carries the whole partial answer) piled up in memory and crashed ${mode} in a 64 MB heap; now each line is read as it comes`, async () => {
			const args = mode === "--json" ? ["--json", "go"] : ["--rpc"];
			const input = mode === "--json" ? "" : `${JSON.stringify({ id: "1", type: "prompt", message: "go" })}\n`;
			const { child, exited } = start(
				["--faux-script", longAnswerScript(400), "--no-session", ...args],
				["--max-old-space-size=64"],
				input,
			);
			const types: string[] = [];
			let notJson = 0;
			const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
			lines.on("line", (line) => {
				try {
					types.push((JSON.parse(line) as { type: string }).type);
				} catch {
					notJson++;
				}
			});
			const { code, stderr } = await exited;
			expect({ code, stderr, notJson }).toEqual({ code: 0, stderr: "", notJson: 0 });
			expect(types[0]).toBe(mode === "--json" ? "session" : "response");
			expect(types.at(-1)).toBe("agent_settled");
			expect(types.filter((type) => type === "message_update").length).toBeGreaterThan(1000);
		});
	}
});
