/**
 * `settle` in CI jobs and shell scripts, as a platform engineer runs it: `--json` piped into a
 * reader that parses every line (`| jq`), or one that stops early (`| head -1`), exit codes a script
 * branches on. Real child processes from the bundle of the current sources, the scripted model.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliBundle } from "./cli-bundle.js";
import { cliCommand, runSettle, trackChild, useCliProject } from "./helpers.js";

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
		// What `head -1` does mid-answer: read up to the answer's first streamed line, close the pipe.
		// (Closing after the very first line could abort the run before the answer started, on a slow machine.)
		const seen = await new Promise<string[]>((resolve) => {
			const read: string[] = [];
			lines.on("line", (line) => {
				read.push((JSON.parse(line) as { type: string }).type);
				if (read.at(-1) === "message_update") resolve(read);
			});
		});
		expect(seen[0]).toBe("session");
		lines.close();
		child.stdout.destroy();
		const { code, stderr } = await exited;
		expect({ code, stderr }).toEqual({ code: 141, stderr: "" });
		const entries = sessionLines(sessions) as { type: string; message?: { role: string; stopReason?: string } }[];
		expect(entries[0]).toMatchObject({ type: "session" });
		expect(entries.at(-1)).toMatchObject({ type: "message", message: { role: "assistant", stopReason: "aborted" } });
	});

	for (const mode of ["--json", "--rpc"] as const) {
		it(`regression: a 40 KB answer's events (over a thousand message_update lines; under --rpc each carries the whole partial answer) piled up in memory and crashed ${mode} in a 64 MB heap; now each line is read as it comes`, async () => {
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

/** A faux script file with these steps. */
function script(steps: unknown[]): string {
	const file = join(cli.dir, `script-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

describe("exit codes a CI script branches on", () => {
	it("regression: every failure exited 1; now 1 a failed answer, 2 bad usage, 3 an unusable session file, 4 no key or a refused key", () => {
		const notes = join(cli.dir, "notes.jsonl");
		writeFileSync(notes, "shopping list\n");
		const noKeys = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_OAUTH_TOKEN: undefined };
		const run = (args: string[], env: Record<string, string | undefined> = {}) => {
			const { code, stdout, stderr } = runSettle(args, { cwd: cli.project, agentDir: cli.agentDir, env });
			return { code, stdout, firstError: stderr.split("\n")[0] };
		};
		const failedAnswer = script([{ stopReason: "error", errorMessage: "400 invalid_request_error: bad image" }]);
		const refusedKey = script([
			{
				stopReason: "error",
				errorMessage: '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
			},
		]);
		expect({
			ok: run(["--faux", "--no-session", "-p", "hi"]),
			failedAnswer: run(["--faux-script", failedAnswer, "--no-session", "-p", "hi"]),
			failedAnswerJson: run(["--faux-script", failedAnswer, "--no-session", "--json", "hi"]).code,
			usage: run(["--faux", "--bogus", "-p", "hi"]).code,
			notASession: run(["--faux", "--session", notes, "-p", "hi"]),
			folderAsSession: run(["--faux", "--session", cli.dir, "-p", "hi"]).code,
			noKey: run(["--model", "anthropic/claude-sonnet-4-5", "--no-session", "-p", "hi"], noKeys),
			noKeyJson: run(["--model", "anthropic/claude-sonnet-4-5", "--no-session", "--json", "hi"], noKeys).code,
			refusedKey: run(["--faux-script", refusedKey, "--no-session", "-p", "hi"]).code,
		}).toEqual({
			ok: { code: 0, stdout: "hi\n", firstError: "" },
			failedAnswer: { code: 1, stdout: "", firstError: "400 invalid_request_error: bad image" },
			failedAnswerJson: 1,
			usage: 2,
			notASession: { code: 3, stdout: "", firstError: expect.stringContaining(`not a valid pi session: ${notes}`) },
			folderAsSession: 3,
			noKey: { code: 4, stdout: "", firstError: "No API key found for anthropic." },
			noKeyJson: 4,
			refusedKey: 4,
		});
		expect(readFileSync(notes, "utf8")).toBe("shopping list\n");
	});

	it("regression: a second settle on a session in use exited 1 with SDK advice (manager.close(), readOnly); now exit 5 in command-line terms, and after SIGTERM the first one's file reopens", async () => {
		const session = join(cli.dir, "shared.jsonl");
		const slow = script([{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, "done"]);
		const first = start(["--faux-script", slow, "--session", session, "--json", "step 1"]);
		// The first run holds the file from the start; its tool call is a marker that it is mid-run.
		const lines = createInterface({ input: first.child.stdout });
		await new Promise<void>((resolve) =>
			lines.on("line", (line) => {
				if ((JSON.parse(line) as { type: string }).type === "tool_execution_start") resolve();
			}),
		);
		const second = runSettle(["--faux", "--session", session, "-p", "step 2"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(second.code).toBe(5);
		expect(second.stdout).toBe("");
		expect(second.stderr).toMatch(
			new RegExp(
				`^Error: Session file ${session} is in use by process ${first.child.pid} on \\S+: only one process may write a session at a time, so nothing ran\\. Run again once it has exited, carry on from what it holds in a new session \\(--fork ${session}\\), or give this run its own session \\(--no-session, or another --session\\)\\.`,
			),
		);
		expect(second.stderr).not.toMatch(/manager\.close|readOnly/);
		expect(second.stderr.trimEnd().split("\n")).toHaveLength(1);

		first.child.kill("SIGTERM");
		expect((await first.exited).code).toBe(143);
		const third = runSettle(["--faux", "--session", session, "-p", "step 3"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(third).toMatchObject({ code: 0, stdout: "step 3\n", stderr: "" });
		const roles = (sessionLines(cli.dir) as { type: string; message?: { role: string; stopReason?: string } }[])
			.filter((entry) => entry.type === "message")
			.map((entry) => `${entry.message!.role}${entry.message!.stopReason ? `:${entry.message!.stopReason}` : ""}`);
		expect(roles).toEqual([
			"system",
			"user",
			"assistant:toolUse",
			"toolResult",
			"assistant:aborted",
			"user",
			"assistant:stop",
		]);
	});
});

describe("two jobs start a new session at the same --session path", () => {
	it("regression: the second to write failed mid-run with exit 1 and the SDK's advice (manager.close(), readOnly); now exit 5 in command-line terms, before its model call", async () => {
		const session = join(cli.dir, "state.jsonl");
		const lock = `${session}.lock`;
		// Job B has opened the (missing) file and waits, before its first write, until job A holds it.
		const waiter = join(cli.dir, "wait-for-a.ts");
		writeFileSync(
			waiter,
			`import { readFileSync } from "node:fs";
// A holds the lock once its owner file (pid, host) is written inside the lock directory: the
// directory alone appears a moment earlier, and B's error could then not yet name A's process.
const ownerWritten = () => {
	try {
		return typeof JSON.parse(readFileSync(${JSON.stringify(`${lock}/owner.json`)}, "utf8")).pid === "number";
	} catch {
		return false;
	}
};
export default function (pi) {
	pi.on("before_agent_start", async () => {
		console.error("B waiting");
		await new Promise((resolve) => {
			const poll = setInterval(() => ownerWritten() && (clearInterval(poll), resolve()), 10);
		});
	});
}
`,
		);
		const markerB = join(cli.project, "b-ran");
		const b = start([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: `touch ${markerB}` } }] }, "done"]),
			"--session",
			session,
			"-e",
			waiter,
			"-p",
			"job B",
		]);
		await new Promise<void>((resolve) =>
			b.child.stderr.on("data", (chunk) => String(chunk).includes("B waiting") && resolve()),
		);
		const a = start([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, "done"]),
			"--session",
			session,
			"--json",
			"job A",
		]);
		const { code, stderr } = await b.exited;
		expect(code).toBe(5);
		expect(stderr).toContain(`Error: Session file ${session} is in use by process ${a.child.pid} on `);
		expect(stderr).toContain(
			`: only one process may write a session at a time, so this run stopped before writing to it. Run again once it has exited, carry on from what it holds in a new session (--fork ${session}), or give this run its own session (--no-session, or another --session).`,
		);
		expect(stderr).not.toMatch(/manager\.close|readOnly/);
		expect(readdirSync(cli.project)).toEqual([]);
		a.child.kill("SIGTERM");
		expect((await a.exited).code).toBe(143);
		const texts = readFileSync(session, "utf8")
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { message?: { role: string; content: unknown } })
			.filter((entry) => entry.message?.role === "user")
			.map((entry) => JSON.stringify(entry.message!.content));
		expect(texts).toEqual([JSON.stringify([{ type: "text", text: "job A" }])]);
	});
});

describe("stdout carries settle's output only", () => {
	it("regression: an extension's console.log landed between the --json lines, before the -p answer and among the --rpc lines (pi 0.73.1 sends it to stderr); now it goes to stderr", () => {
		const extension = join(cli.dir, "chatty.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	console.log("loaded");
	pi.on("agent_start", () => { console.log("agent_start seen"); process.stdout.write("raw write\\n"); });
}
`,
		);
		const run = (args: string[], input = "") =>
			runSettle(["--faux", "--no-session", "-e", extension, ...args], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				input,
			});
		const chatter = "loaded\nagent_start seen\nraw write\n";

		const print = run(["-p", "hi"]);
		expect(print).toMatchObject({ code: 0, stdout: "hi\n", stderr: chatter });

		const json = run(["--json", "hi"]);
		expect(json).toMatchObject({ code: 0, stderr: chatter });
		const types = json.stdout
			.trimEnd()
			.split("\n")
			.map((line) => (JSON.parse(line) as { type: string }).type);
		expect([types[0], types.at(-1)]).toEqual(["session", "agent_settled"]);

		const rpc = run(["--rpc"], `${JSON.stringify({ id: "1", type: "prompt", message: "hi" })}\n`);
		expect(rpc).toMatchObject({ code: 0, stderr: chatter });
		for (const line of rpc.stdout.trimEnd().split("\n")) expect(() => JSON.parse(line), line).not.toThrow();
	});
});

/**
 * `settle <args>` as a user the file modes apply to: root (these tests' usual user) without
 * CAP_DAC_OVERRIDE, through util-linux's setpriv, as test/cli/trace.test.ts does.
 */
function settleBoundByModes(args: string[], env: Record<string, string | undefined> = {}) {
	const argv = [process.execPath, ...cliCommand(), ...args];
	const command =
		process.getuid?.() === 0 ? ["setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override", ...argv] : argv;
	const result = spawnSync(command[0]!, command.slice(1), {
		cwd: cli.project,
		input: "",
		encoding: "utf8",
		env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir, ...env },
	});
	return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("read-only places", () => {
	it("regression: a read-only --session file failed with Node's bare 'EACCES: permission denied, open …' (exit 1); now exit 3 naming the session file, before the model is called", () => {
		const file = join(cli.dir, "ro.jsonl");
		expect(
			runSettle(["--faux", "--session", file, "-p", "step 1"], { cwd: cli.project, agentDir: cli.agentDir }).code,
		).toBe(0);
		const before = readFileSync(file, "utf8");
		chmodSync(file, 0o444);
		const marker = join(cli.project, "ran");
		const run = settleBoundByModes([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: `touch ${marker}` } }] }, "done"]),
			"--session",
			file,
			"--json",
			"step 2",
		]);
		const refusal = `Cannot write session file ${file}: EACCES: permission denied, open '${file}'. Nothing was changed. Make the file writable to continue this session, or start another one.`;
		// The --json stream's one line says why the run never started (opencode#27559).
		expect(run).toEqual({
			code: 3,
			stdout: `${JSON.stringify({ type: "error", message: refusal })}\n`,
			stderr: `Error: ${refusal}\n`,
		});
		expect(readdirSync(cli.project)).toEqual([]);
		expect(readFileSync(file, "utf8")).toBe(before);
		// The lock was given back: once writable, the session continues.
		chmodSync(file, 0o644);
		expect(settleBoundByModes(["--faux", "--session", file, "-p", "step 2"])).toMatchObject({
			code: 0,
			stdout: "step 2\n",
		});
	});

	it("a read-only home: the default session folder is refused before the model is called (exit 1, the way out named); --no-session runs and writes nothing there", () => {
		const home = join(cli.dir, "home");
		mkdirSync(home);
		chmodSync(home, 0o555);
		const env = { HOME: home, SETTLE_AGENT_DIR: undefined };
		const refused = settleBoundByModes(["--faux", "-p", "hi"], env);
		expect(refused).toEqual({
			code: 1,
			stdout: "",
			stderr: `Error: Cannot keep sessions in ${join(home, ".settle", "agent", "sessions", `--${cli.project.slice(1).replaceAll("/", "-")}--`)}: ${home} is not writable. Pass --session-dir <folder> (or --agent-dir <folder>), or --no-session to keep the session in memory.\n`,
		});
		expect(settleBoundByModes(["--faux", "--no-session", "-p", "hi"], env)).toEqual({
			code: 0,
			stdout: "hi\n",
			stderr: "",
		});
		expect(readdirSync(home)).toEqual([]);
	});
});

describe("no home folder", () => {
	let bundle: string | undefined;
	/**
	 * A copy of the CLI bundle with the package's runtime dependencies, where the other user can read
	 * it: the checkout itself may be private (a clean clone under `mktemp -d` is mode 0700).
	 */
	function readableBundle(): string {
		if (bundle) return join(bundle, "cli.js");
		bundle = join(cli.dir, "bundle");
		cpSync(dirname(cliBundle()), bundle, { recursive: true });
		const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
		const wanted = Object.keys(readJson(join(root, "package.json")).dependencies ?? {});
		const copied = new Set<string>();
		for (let name = wanted.pop(); name !== undefined; name = wanted.pop()) {
			if (copied.has(name)) continue;
			copied.add(name);
			const from = join(root, "node_modules", name);
			if (!existsSync(from)) continue; // not hoisted: inside the package that needs it, copied with it
			cpSync(from, join(bundle, "node_modules", name), { recursive: true, dereference: true });
			wanted.push(...Object.keys(readJson(join(from, "package.json")).dependencies ?? {}));
		}
		chmodSync(bundle, 0o755);
		return join(bundle, "cli.js");
	}

	function readJson(file: string): { dependencies?: Record<string, string> } {
		return JSON.parse(readFileSync(file, "utf8")) as { dependencies?: Record<string, string> };
	}

	/** `settle <args>` as a user with no passwd entry and no HOME (a container's `--user 12345`); root only. */
	function settleWithoutHome(args: string[], env: Record<string, string | undefined> = {}) {
		const childEnv: Record<string, string | undefined> = {
			...process.env,
			HOME: undefined,
			SETTLE_AGENT_DIR: undefined,
			...env,
		};
		const result = spawnSync(
			"setpriv",
			["--reuid=12345", "--regid=12345", "--clear-groups", process.execPath, readableBundle(), ...args],
			{ cwd: cli.project, input: "", encoding: "utf8", env: childEnv as NodeJS.ProcessEnv },
		);
		return { code: result.status, stdout: result.stdout, stderr: result.stderr };
	}

	it.runIf(process.getuid?.() === 0)(
		"regression: without HOME and a passwd entry, settle failed with 'uv_os_homedir returned ENOENT' even with SETTLE_AGENT_DIR set (pi 0.73.1 crashes with a stack trace); now SETTLE_AGENT_DIR or --agent-dir is enough, and without either the error says so",
		// A hang guard only: copying the bundle's dependencies and three runs took 2.5 s in one loaded
		// full run on 2 cores and 19 s in another, too near vitest's default 30 s.
		{ timeout: 120_000 },
		() => {
			// The user 12345 writes here.
			chmodSync(cli.dir, 0o777);
			chmodSync(cli.project, 0o777);
			const agentDir = join(cli.dir, "agent-12345");
			expect(settleWithoutHome(["--faux", "--no-session", "-p", "hi"], { SETTLE_AGENT_DIR: agentDir })).toEqual({
				code: 0,
				stdout: "hi\n",
				stderr: "",
			});
			const sessions = join(cli.dir, "sessions");
			expect(settleWithoutHome(["--faux", "--agent-dir", agentDir, "--session-dir", sessions, "-p", "hi"])).toEqual({
				code: 0,
				stdout: "hi\n",
				stderr: "",
			});
			expect(readdirSync(sessions)).toHaveLength(1);
			expect(settleWithoutHome(["--faux", "--no-session", "-p", "hi"])).toEqual({
				code: 1,
				stdout: "",
				stderr:
					"Error: There is no home folder for the agent folder ~/.settle/agent: HOME is not set and this user (uid 12345) has none. Set SETTLE_AGENT_DIR=<folder> (settle --agent-dir <folder>, agentDir in code), or HOME.\n",
			});
		},
	);
});
