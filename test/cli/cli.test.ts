/**
 * The `settle` command as a user runs it: a real child process (the bundle of the current sources,
 * as published: `cliCommand()`; one case compares it with the sources through tsx), real files, the faux model for offline runs. Print, JSON events, the RPC protocol
 * round trip (prompt, fork, switch, new), bad flags with pi's messages and exit codes, extension
 * flags, resuming, the demo and the diagrams.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { builtPackage } from "../package/helpers.js";
import { CLI_FROM_SOURCES, cliCommand, ROOT, RpcClient, runSettle } from "./helpers.js";

let dir: string;
let agentDir: string;
let project: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-cli-"));
	agentDir = join(dir, "agent");
	project = join(dir, "project");
	mkdirSync(project);
	writeFileSync(join(project, "AGENTS.md"), "# Project\n\nBe brief.\n");
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

/** `settle <args>`; `sources`: through tsx from src/ (else the bundle of the sources, `cliCommand()`). */
function settle(args: string[], options: { input?: string; cwd?: string; sources?: boolean } = {}) {
	return runSettle(args, {
		cwd: options.cwd ?? project,
		agentDir,
		...(options.input ? { input: options.input } : {}),
		...(options.sources ? { command: CLI_FROM_SOURCES } : {}),
	});
}

function jsonLines(text: string): Record<string, unknown>[] {
	return text
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

function script(steps: unknown[]): string {
	const path = join(dir, `script-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(path, JSON.stringify(steps));
	return path;
}

function sessionFiles(): string[] {
	const found: string[] = [];
	const walk = (current: string) => {
		if (!existsSync(current)) return;
		for (const entry of readdirSync(current, { withFileTypes: true })) {
			if (entry.isDirectory()) walk(join(current, entry.name));
			else if (entry.name.endsWith(".jsonl")) found.push(join(current, entry.name));
		}
	};
	walk(agentDir);
	return found;
}

describe("settle -p (print)", () => {
	it("prints the final answer of the faux model (echo) and exits 0", () => {
		const run = settle(["--faux", "-p", "hello there"]);
		expect(run).toEqual({ code: 0, stdout: "hello there\n", stderr: "" });
		expect(sessionFiles()).toHaveLength(1);
	});

	it("replays a faux script: a real bash tool call runs in --cwd, then the answer", () => {
		const steps = script([{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, "listed it"]);
		const run = settle(["--faux-script", steps, "--cwd", project, "-p", "where?"], { cwd: dir });
		expect(run.stdout).toBe("listed it\n");
		expect(run.code).toBe(0);
		const json = settle(["--faux-script", steps, "--cwd", project, "--json", "where?"], { cwd: dir });
		const end = jsonLines(json.stdout).find((event) => event.type === "tool_execution_end") as {
			result: { content: { text: string }[] };
		};
		expect(end.result.content[0]!.text.trim()).toBe(project);
	});

	it("an error answer goes to stderr with exit 1 (a refused key: exit 4)", () => {
		// What pi-ai reports for Anthropic's HTTP 401: the status first, then the response body.
		const REFUSED_KEY = '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}';
		const run = settle([
			"--faux-script",
			script([{ stopReason: "error", errorMessage: "400 invalid_request_error: messages.1: empty text" }]),
			"-p",
			"hi",
		]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe("400 invalid_request_error: messages.1: empty text\n");
		const refused = settle(["--faux-script", script([{ stopReason: "error", errorMessage: REFUSED_KEY }]), "-p", "hi"]);
		expect(refused).toMatchObject({ code: 4, stdout: "", stderr: `${REFUSED_KEY}\n` });
	});

	it("a real provider without a key: exit 4, and the way out on the command line (environment or auth.json)", () => {
		const run = runSettle(["--model", "anthropic/claude-sonnet-4-5", "-p", "hi"], {
			cwd: project,
			agentDir,
			env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_OAUTH_TOKEN: undefined },
		});
		expect(run.code).toBe(4);
		expect(run.stderr).toContain("No API key found for anthropic.");
		expect(run.stderr).toContain("ANTHROPIC_API_KEY");
		expect(run.stderr).toContain(join(agentDir, "auth.json"));
		// The SDK's advice (register the provider with the model runtime) means nothing to a CLI user.
		expect(run.stderr).not.toContain("registerProvider");
		expect(run.stdout).toBe("");
	});

	it("reads the prompt from piped stdin; without any prompt it is a usage error (exit 2)", () => {
		expect(settle(["--faux"], { input: "from stdin" }).stdout).toBe("from stdin\n");
		const none = settle(["--faux"]);
		expect(none.code).toBe(2);
		expect(none.stderr).toContain("Error: no prompt.");
	});

	it("--continue resumes the project's latest session; --no-session writes nothing", () => {
		const first = jsonLines(settle(["--faux", "--json", "first"]).stdout)[0]!;
		const second = jsonLines(settle(["--faux", "--continue", "--json", "second"]).stdout);
		expect(second[0]).toMatchObject({ type: "session", id: first.id, cwd: project });
		const contexts = second.filter((event) => event.type === "agent_end");
		expect(JSON.stringify(contexts)).toContain("second");
		expect(sessionFiles()).toHaveLength(1);
		rmSync(agentDir, { recursive: true });
		expect(settle(["--faux", "--no-session", "-p", "ephemeral"]).stdout).toBe("ephemeral\n");
		expect(sessionFiles()).toEqual([]);
	});

	it("a session whose directory is gone: exit 3 with the reason and the way out (--cwd)", () => {
		const moved = join(dir, "gone");
		cpSync(project, moved, { recursive: true });
		settle(["--faux", "-p", "first"], { cwd: moved });
		const [file] = sessionFiles();
		rmSync(moved, { recursive: true });
		const run = settle(["--faux", "--session", file!, "-p", "again"]);
		expect(run.code).toBe(3);
		expect(run.stderr).toContain(`Stored session working directory does not exist: ${moved}`);
		expect(run.stderr).toContain("Pass --cwd <dir>");
		const rescued = settle(["--faux", "--session", file!, "--cwd", project, "-p", "again"]);
		expect(rescued).toMatchObject({ code: 0, stdout: "again\n" });
	});
});

describe("settle --json", () => {
	it("prints the session header, then every event as a JSON line, ending with agent_settled", () => {
		const run = settle(["--faux", "--json", "hi"]);
		expect(run.code).toBe(0);
		const lines = jsonLines(run.stdout);
		expect(lines[0]).toMatchObject({ type: "session", version: 3, cwd: project });
		const types = lines.slice(1).map((event) => event.type);
		expect(types[0]).toBe("agent_start");
		expect(types.at(-1)).toBe("agent_settled");
		expect(types).toContain("message_update");
		expect(types.filter((type) => type === "agent_end")).toHaveLength(1);
	});
});

describe("bad command lines (exit 2, pi's messages)", () => {
	it.each([
		[["-p", "x", "--nope"], "Error: Unknown option: --nope"],
		[["-p", "x", "--a", "--b=1"], "Error: Unknown options: --a, --b"],
		[["-p", "x", "-z"], "Error: Unknown option: -z"],
		[
			["-p", "x", "--thinking", "huge"],
			'Error: Invalid thinking level "huge". Valid values: off, minimal, low, medium, high, xhigh',
		],
		[["-p", "x", "--model"], "Error: Option --model requires a value"],
		[["-p", "x", "--model", "nope/x"], "Error: Model not found: nope/x."],
		[
			["-p", "x", "--continue", "--no-session"],
			"Error: Use only one of --session <file>, --continue, --resume and --no-session.",
		],
		[
			["-p", "x", "--cwd", "/definitely/not/here"],
			"Error: --cwd: /definitely/not/here does not exist. Pass the project's directory (or leave --cwd out",
		],
		[
			["-p", "x", "--cwd", process.execPath],
			`Error: --cwd: ${process.execPath} is not a directory. Pass the project's`,
		],
	])("settle --faux %j", (args, message) => {
		const run = settle(["--faux", ...args]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(message);
	});

	it("two options asking for different modes are refused before anything runs (--rpc --json sent the piped RPC commands to the model as a prompt)", () => {
		const run = settle(["--faux", "--rpc", "--json"], { input: '{"id":"1","type":"get_state"}\n' });
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("Error: --rpc and --json ask for different modes: give one");
		expect(sessionFiles()).toEqual([]);
		// The same rule for every spelling; only --mode repeated keeps pi's rule (the last one wins).
		const refused = (argv: string[]) => parseArgs(argv).diagnostics.some((d) => d.message.includes("different modes"));
		expect(refused(["--json", "--rpc"])).toBe(true);
		expect(refused(["-i", "--json"])).toBe(true);
		expect(refused(["--mode", "json", "--rpc"])).toBe(true);
		expect(refused(["--interactive", "--mode", "rpc"])).toBe(true);
		expect(refused(["--mode", "json", "--mode", "rpc"])).toBe(false);
		expect(parseArgs(["--mode", "json", "--mode", "rpc"]).mode).toBe("rpc");
		expect(refused(["--json", "--mode", "json", "--json", "-p", "x"])).toBe(false);
	});

	it("an empty --agent-dir is refused (it made the project the global folder: its extensions/ ran untrusted, sessions were written into it)", () => {
		mkdirSync(join(project, "extensions"));
		writeFileSync(
			join(project, "extensions", "untrusted.ts"),
			"export default function (pi: any) { pi.on('session_start', (_e: unknown, ctx: any) => ctx.ui.notify('project code ran')); }\n",
		);
		const run = settle(["--faux", "--agent-dir", "", "-p", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("Error: Option --agent-dir got an empty value (an unset shell variable?)");
		expect(run.stderr).not.toContain("project code ran");
		expect(readdirSync(project).sort()).toEqual(["AGENTS.md", "extensions"]);
		// The other path options Settle adds: an empty one would have meant the current directory too.
		for (const option of ["--cwd", "--faux-script", "--agent-dir"]) {
			expect(parseArgs(["-p", "hi", option, " "]).diagnostics.map((d) => d.message)).toEqual([
				expect.stringContaining(`Option ${option} got an empty value`),
			]);
		}
	});

	it("run from a folder that was deleted: says so and how to go on (it said only `Error: ENOENT: no such file or directory, uv_cwd`)", () => {
		const gone = join(dir, "gone");
		mkdirSync(gone);
		const run = spawnSync(
			"sh",
			[
				"-c",
				'cd "$1" && rmdir "$1" && shift && exec "$@"',
				"sh",
				gone,
				process.execPath,
				...cliCommand(),
				"--faux",
				"-p",
				"hi",
			],
			{ encoding: "utf8", env: { ...process.env, SETTLE_AGENT_DIR: agentDir } },
		);
		expect(run.stderr).toBe(
			"Error: The current directory no longer exists (deleted or moved): cd into the project again, or give it with --cwd <dir>.\n",
		);
		expect(run.stdout).toBe("");
		expect(run.status).toBe(1);
	});

	it("extension flags: registered ones are applied (a boolean flag gives back the argument it took)", () => {
		const extension = join(dir, "flags.ts");
		writeFileSync(
			extension,
			`export default function (pi: any) {
	pi.registerFlag("plan", { type: "boolean", description: "plan first" });
	pi.registerFlag("persona", { type: "string" });
	pi.on("session_start", (_e: unknown, ctx: any) => ctx.ui.notify(\`plan=\${pi.getFlag("plan")} persona=\${pi.getFlag("persona")}\`));
}
`,
		);
		const ok = settle(["--faux", "-e", extension, "--persona", "pirate", "--plan", "do it"]);
		expect(ok.stdout).toBe("do it\n");
		expect(ok.stderr).toContain("[info] flags.ts: plan=true persona=pirate");
		expect(ok.code).toBe(0);
		const noValue = settle(["--faux", "-e", extension, "-p", "x", "--persona"]);
		expect(noValue.code).toBe(2);
		expect(noValue.stderr).toContain('Error: Extension flag "--persona" requires a value');
	});

	it("--approve trusts the project (its extensions run); without it they are skipped with a warning", () => {
		mkdirSync(join(project, ".settle", "extensions"), { recursive: true });
		writeFileSync(
			join(project, ".settle", "extensions", "hello.ts"),
			"export default function (pi: any) { pi.on('session_start', (_e: unknown, ctx: any) => ctx.ui.notify('project extension ran')); }\n",
		);
		const untrusted = settle(["--faux", "-p", "hi"]);
		expect(untrusted.code).toBe(0);
		expect(untrusted.stderr).toContain("so its extensions were not loaded (.settle/extensions/hello.ts).");
		expect(untrusted.stderr).toContain("Run settle with --approve to trust it for this run"); // what the next line does
		expect(untrusted.stderr).not.toContain("project extension ran");
		const trusted = settle(["--faux", "--approve", "-p", "hi"]);
		expect(trusted.stderr).toContain("[info] hello.ts: project extension ran");
		expect(trusted.stderr).not.toContain("Warning");
		expect(settle(["--faux", "--no-approve", "-p", "hi"]).stderr).not.toContain("project extension ran");
	});

	it("--tools is an allowlist: a tool outside it is not there for the model", () => {
		const steps = script([{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, "done"]);
		const events = jsonLines(settle(["--faux-script", steps, "--tools", "read", "--json", "x"]).stdout);
		const end = events.find((event) => event.type === "tool_execution_end") as { isError: boolean; result: unknown };
		expect(end.isError).toBe(true);
		expect(JSON.stringify(end.result)).toContain("bash");
		const request = events.find(
			(event) => event.type === "message_end" && JSON.stringify(event).includes('"kind":"baseline"'),
		);
		expect(JSON.stringify(request)).toContain('"active":["read"]');
	});

	it("--help and --version", () => {
		const help = settle(["--help"]);
		expect(help.code).toBe(0);
		expect(help.stdout).toContain('settle -p "<prompt>"');
		expect(help.stdout).toContain("Exit codes: 0 ok, 1 failed");
		expect(settle(["--version"]).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
	});
});

describe("settle --rpc", () => {
	it("round trip: prompt with events, get_state, fork, switch_session, new_session, errors; exits on EOF", async () => {
		const rpc = new RpcClient(["--faux"], { cwd: project, agentDir });
		const settled = rpc.next((line) => line.type === "agent_settled");
		expect(await rpc.request({ id: "1", type: "prompt", message: "first question" })).toEqual({
			id: "1",
			type: "response",
			command: "prompt",
			success: true,
			data: { disposition: "started" },
		});
		await settled;
		const texts = rpc.lines.filter((line) => line.type === "message_end").map((line) => JSON.stringify(line.message));
		expect(texts.some((text) => text.includes('"role":"assistant"') && text.includes("first question"))).toBe(true);

		const state = (await rpc.request({ id: "2", type: "get_state" })).data as Record<string, unknown>;
		expect(state).toMatchObject({ isStreaming: false, cwd: project, lifecycle: "idle" });
		const firstFile = state.sessionFile as string;
		expect(existsSync(firstFile)).toBe(true);

		const forkable = (await rpc.request({ id: "3", type: "get_fork_messages" })).data as {
			messages: { entryId: string; text: string }[];
		};
		expect(forkable.messages.map((m) => m.text)).toEqual(["first question"]);
		expect(await rpc.request({ id: "4", type: "fork", entryId: forkable.messages[0]!.entryId })).toMatchObject({
			success: true,
			data: { text: "first question", cancelled: false },
		});
		const forked = (await rpc.request({ id: "5", type: "get_state" })).data as Record<string, unknown>;
		expect(forked.sessionFile).not.toBe(firstFile);
		expect(forked.messageCount).toBe(0);

		expect(await rpc.request({ id: "6", type: "switch_session", sessionPath: firstFile })).toMatchObject({
			success: true,
			data: { cancelled: false },
		});
		const back = (await rpc.request({ id: "7", type: "get_messages" })).data as { messages: { role: string }[] };
		expect(back.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant"]);

		expect(await rpc.request({ id: "8", type: "new_session" })).toMatchObject({
			success: true,
			data: { cancelled: false },
		});
		const fresh = (await rpc.request({ id: "9", type: "get_state" })).data as Record<string, unknown>;
		expect(fresh.sessionId).not.toBe(state.sessionId);

		// Events now come from the new session.
		const settledAgain = rpc.next((line) => line.type === "agent_settled");
		await rpc.request({ id: "10", type: "prompt", message: "in the new session" });
		await settledAgain;
		expect(await rpc.request({ id: "11", type: "get_last_assistant_text" })).toMatchObject({
			data: { text: "in the new session" },
		});

		expect(await rpc.request({ id: "s1", type: "steer", message: "later" })).toMatchObject({ success: true });
		expect(
			((await rpc.request({ id: "s2", type: "get_state" })).data as { pendingMessageCount: number })
				.pendingMessageCount,
		).toBe(1);
		expect(await rpc.request({ id: "s3", type: "abort" })).toMatchObject({ success: true });
		expect(await rpc.request({ id: "s4", type: "compact" })).toMatchObject({
			success: false,
			error: "Nothing to compact (session too small)",
		});

		expect(await rpc.request({ id: "12", type: "fork", entryId: "nope" })).toEqual({
			id: "12",
			type: "response",
			command: "fork",
			success: false,
			error: "Invalid entry ID for forking",
		});
		const unknown = rpc.next((line) => line.type === "response" && line.command === "bogus");
		rpc.child.stdin.write(`${JSON.stringify({ type: "bogus" })}\n`);
		expect(await unknown).toMatchObject({ success: false, error: "Unknown command: bogus" });

		rpc.child.stdin.end();
		expect(await rpc.exited).toBe(0);
		expect(rpc.stderr).toBe("");
	});
});

describe("bin/settle.js", () => {
	it("says how to build when dist/ is missing", () => {
		mkdirSync(join(dir, "pkg", "bin"), { recursive: true });
		cpSync(join(ROOT, "bin", "settle.js"), join(dir, "pkg", "bin", "settle.js"));
		writeFileSync(join(dir, "pkg", "package.json"), JSON.stringify({ type: "module" }));
		const missing = spawnSync(process.execPath, [join(dir, "pkg", "bin", "settle.js"), "--help"], { encoding: "utf8" });
		expect(missing.status).toBe(1);
		expect(missing.stderr).toContain("the package is not built (dist/cli.js is missing). Run `npm run build` first");
	});

	// A hang guard only: a build, four bundle runs and three runs from the sources (tsx) took 9.7 s in a
	// loaded full run on 2 cores and 22 s in another, too near vitest's default 30 s (now a copy of the
	// bundle, four bundle runs and two from the sources).
	it("runs the bundled CLI (scripts/build.mjs): the same output and exit codes as the sources", {
		timeout: 120_000,
	}, () => {
		const pkg = builtPackage("test/cli");
		try {
			const bin = (args: string[]) => {
				const result = spawnSync(process.execPath, [pkg.bin, ...args], {
					cwd: project,
					input: "",
					encoding: "utf8",
					env: { ...process.env, SETTLE_AGENT_DIR: agentDir },
				});
				return { code: result.status, stdout: result.stdout, stderr: result.stderr };
			};
			expect(bin(["--faux", "-p", "hello there"])).toEqual({ code: 0, stdout: "hello there\n", stderr: "" });
			const steps = script([{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, "listed it"]);
			const sources = { sources: true };
			expect(bin(["--faux-script", steps, "-p", "where?"])).toEqual(
				settle(["--faux-script", steps, "-p", "where?"], sources),
			);
			const usage = bin(["--faux", "--thinking", "loud", "hi"]);
			expect(usage.code).toBe(2);
			expect(usage).toEqual(settle(["--faux", "--thinking", "loud", "hi"], sources));
			// What the sources print (main.ts reads the version from the package.json named settle above it),
			// without a third tsx child (~1.4 s of CPU) to print it.
			const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
			expect(bin(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
		} finally {
			pkg.remove();
		}
	});
});

describe("settle demo / viz", () => {
	it("demo runs offline and shows the lifecycle, a fork and a resume into another project", () => {
		const run = settle(["demo"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("postRun → retrying");
		expect(run.stdout).toContain('forked; selected text: "What do my notes say?"');
		expect(run.stdout).toMatch(/AGENTS\.md says lib: true/);
		expect(run.stdout).toContain(
			"runtime: active → beforeSwitch → opening → creating → settlingCurrent → shuttingDown",
		);
	});

	it("viz writes the diagrams of both machines", () => {
		const out = join(dir, "viz");
		const run = settle(["viz", out]);
		expect(run.code).toBe(0);
		const files = readdirSync(out);
		expect(files).toEqual(expect.arrayContaining(["runtime.mmd", "runtime.svg", "prompt-operation.svg"]));
	});
});
