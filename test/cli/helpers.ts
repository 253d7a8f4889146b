/**
 * Runs the `settle` command as a user would: a real child process, started from the bundle of the
 * current sources (`cliCommand()`, see cli-bundle.ts) or from the sources through tsx.
 */
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach } from "vitest";
import { cliBundle } from "./cli-bundle.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** `node` arguments that start the CLI from its TypeScript sources. */
export const CLI_FROM_SOURCES = [
	"--import",
	pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href,
	join(ROOT, "src/cli/main.ts"),
];

/**
 * `node` arguments that start the `settle` command for tests that start it many times: the bundle
 * of the current sources, as published (built once per content of the sources, cli-bundle.ts);
 * `SETTLE_TEST_CLI=sources` in the environment starts {@link CLI_FROM_SOURCES} instead.
 */
export function cliCommand(): readonly string[] {
	return process.env.SETTLE_TEST_CLI === "sources" ? CLI_FROM_SOURCES : [cliBundle()];
}

export interface CliRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

/**
 * Runs `settle <args>` in `cwd` with `SETTLE_AGENT_DIR=agentDir`, stdin `input` (default empty).
 * `timeoutMs` kills a run that hangs (code null) instead of hanging the test file. `command`: the
 * `node` arguments that start it (default {@link cliCommand}; {@link CLI_FROM_SOURCES} for tsx).
 */
export function runSettle(
	args: string[],
	options: {
		cwd: string;
		agentDir: string;
		/** Bytes as they are (a Buffer), or text written as UTF-8. */
		input?: string | Buffer;
		timeoutMs?: number;
		env?: Record<string, string | undefined>;
		command?: readonly string[];
	},
): CliRun {
	const result = spawnSync(process.execPath, [...(options.command ?? cliCommand()), ...args], {
		cwd: options.cwd,
		input: options.input ?? "",
		encoding: "utf8",
		...(options.timeoutMs ? { timeout: options.timeoutMs, killSignal: "SIGKILL" as const } : {}),
		env: { ...process.env, ...options.env, SETTLE_AGENT_DIR: options.agentDir },
	});
	return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * {@link runSettle} without blocking the event loop: for runs that talk to a server in the test's own
 * process (a local provider). Stdin is closed; the child is tracked ({@link trackChild}).
 */
export async function runSettleAsync(
	args: string[],
	options: { cwd: string; agentDir: string; env?: Record<string, string | undefined>; wrapper?: string[] },
): Promise<CliRun> {
	// `wrapper` runs node under another program (e.g. `setpriv …` dropping root's override of file modes).
	const [program, ...rest] = [...(options.wrapper ?? []), process.execPath, ...cliCommand(), ...args] as [
		string,
		...string[],
	];
	const child = spawn(program, rest, {
		cwd: options.cwd,
		env: { ...process.env, ...options.env, SETTLE_AGENT_DIR: options.agentDir },
		stdio: ["ignore", "pipe", "pipe"],
	});
	// Decoded as a stream: a character split across two chunks stays whole.
	child.stdout.setEncoding("utf8");
	child.stderr.setEncoding("utf8");
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk: string) => {
		stdout += chunk;
	});
	child.stderr.on("data", (chunk: string) => {
		stderr += chunk;
	});
	const code = await trackChild(child);
	return { code, stdout, stderr };
}

/**
 * `settle <args>` as {@link runSettleAsync}, sent `signal` once `stream` has printed `text` (a
 * terminal's Ctrl+C, a supervisor's SIGTERM). `guardMs` only guards against a hang: a hung run is
 * SIGKILLed, its code null.
 */
export async function signalSettleWhen(
	args: string[],
	options: {
		cwd: string;
		agentDir: string;
		stream: "stdout" | "stderr";
		text: string;
		signal: NodeJS.Signals;
		guardMs: number;
	},
): Promise<CliRun> {
	const child = spawn(process.execPath, [...cliCommand(), ...args], {
		cwd: options.cwd,
		env: { ...process.env, SETTLE_AGENT_DIR: options.agentDir },
		stdio: ["ignore", "pipe", "pipe"],
	});
	const closed = trackChild(child);
	const guard = setTimeout(() => child.kill("SIGKILL"), options.guardMs);
	child.stdout.setEncoding("utf8");
	child.stderr.setEncoding("utf8");
	const output = { stdout: "", stderr: "" };
	let signalled = false;
	for (const stream of ["stdout", "stderr"] as const) {
		child[stream].on("data", (chunk: string) => {
			output[stream] += chunk;
			if (!signalled && stream === options.stream && output[stream].includes(options.text)) {
				signalled = true;
				child.kill(options.signal);
			}
		});
	}
	const code = await closed.finally(() => clearTimeout(guard));
	return { code, ...output };
}

/**
 * `settle <args>` whose stdout reader is busy: stdout is read only once stderr has printed
 * `readAfter` (never, without it), so what settle writes meanwhile waits in a full pipe.
 * `signal.name` is sent once stderr has printed `signal.after`; `input` is written to stdin, left open. `env`
 * replaces the environment (SETTLE_AGENT_DIR added). `guardMs` only guards against a hang.
 */
export async function runSettleStalledReader(
	args: string[],
	options: {
		cwd: string;
		agentDir: string;
		readAfter?: string;
		signal?: { name: NodeJS.Signals; after: string };
		input?: string;
		env?: Record<string, string | undefined>;
		guardMs: number;
	},
): Promise<CliRun> {
	const child = spawn(process.execPath, [...cliCommand(), ...args], {
		cwd: options.cwd,
		env: { ...(options.env ?? process.env), SETTLE_AGENT_DIR: options.agentDir },
		stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
	});
	const closed = trackChild(child);
	const guard = setTimeout(() => child.kill("SIGKILL"), options.guardMs);
	if (options.input !== undefined) child.stdin!.write(options.input);
	child.stdout!.pause();
	const chunks: Buffer[] = [];
	let stderr = "";
	let signalled = false;
	child.stderr!.setEncoding("utf8");
	child.stderr!.on("data", (chunk: string) => {
		stderr += chunk;
		if (options.signal && !signalled && stderr.includes(options.signal.after)) {
			signalled = true;
			child.kill(options.signal.name);
		}
		if (options.readAfter !== undefined && stderr.includes(options.readAfter) && child.stdout!.isPaused()) {
			child.stdout!.on("data", (data: Buffer) => chunks.push(data));
			child.stdout!.resume();
		}
	});
	const code = await closed.finally(() => clearTimeout(guard));
	return { code, stdout: Buffer.concat(chunks).toString("utf8"), stderr };
}

/** Children a test started that have not closed yet (see {@link trackChild}). */
const liveChildren = new Map<ChildProcess, Promise<void>>();

/**
 * Resolves once `child` has exited AND its stdout/stderr are read to the end (`close`): `exit` can
 * come before the last output lines, which a test would then miss. The child is also registered so
 * that {@link useCliProject}'s cleanup stops it if the test ended (failed) while it still ran.
 */
export function trackChild(child: ChildProcess): Promise<number | null> {
	const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	liveChildren.set(
		child,
		closed.then(() => {
			liveChildren.delete(child);
		}),
	);
	return closed;
}

/**
 * Stops every tracked child still running and waits until each has closed: SIGTERM first (settle
 * then stops its running shell commands, which SIGKILL would orphan), SIGKILL after 5 s.
 */
async function stopLiveChildren(): Promise<void> {
	const left = [...liveChildren.entries()];
	for (const [child] of left) child.kill("SIGTERM");
	await Promise.all(
		left.map(([child, closed]) => {
			const force = setTimeout(() => child.kill("SIGKILL"), 5000);
			return closed.finally(() => clearTimeout(force));
		}),
	);
}

/** A scratch `project` folder and `agentDir` under one temp `dir`, made before and removed after each test. */
export interface CliProject {
	readonly dir: string;
	readonly agentDir: string;
	readonly project: string;
	/** `settle <args>` run in the project with its agent dir. */
	settle(args: string[], input?: string): CliRun;
}

/** Registers the per-test scratch folders of a CLI test file (call at module level). */
export function useCliProject(prefix: string): CliProject {
	const paths = { dir: "", agentDir: "", project: "" };
	beforeEach(() => {
		paths.dir = mkdtempSync(join(tmpdir(), prefix));
		paths.agentDir = join(paths.dir, "agent");
		paths.project = join(paths.dir, "project");
		mkdirSync(paths.project);
	});
	afterEach(async () => {
		// A child left running by a failed test would keep writing into the folder removed next.
		await stopLiveChildren();
		rmSync(paths.dir, { recursive: true, force: true });
	});
	return {
		get dir() {
			return paths.dir;
		},
		get agentDir() {
			return paths.agentDir;
		},
		get project() {
			return paths.project;
		},
		settle: (args, input) => runSettle(args, { cwd: paths.project, agentDir: paths.agentDir, input }),
	};
}

/**
 * Writes `<agentDir>/models.json` with one provider, `local`, speaking OpenAI chat completions at
 * `baseUrl` (a wire server's `${url}/v1`) with the key `local-key` and one model `coder`;
 * `fields` replace any of the provider's fields (apiKey, headers, compat, models…).
 */
export function writeLocalProvider(agentDir: string, baseUrl: string, fields: Record<string, unknown> = {}): void {
	const local = { baseUrl, api: "openai-completions", apiKey: "local-key", models: [{ id: "coder" }], ...fields };
	writeModelsJson(agentDir, { local });
}

/** Writes `<agentDir>/models.json` declaring `providers` (name to provider config), making `agentDir` if needed. */
export function writeModelsJson(agentDir: string, providers: Record<string, unknown>): void {
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers }));
}

/**
 * Writes `<agentDir>/settings.json` for retry tests: a 1 ms backoff and no retries inside the
 * provider's client, so every retry is Settle's and shows in its events; `retry` adds to it.
 */
export function writeFastRetrySettings(agentDir: string, retry: Record<string, unknown> = {}): void {
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(
		join(agentDir, "settings.json"),
		JSON.stringify({ retry: { baseDelayMs: 1, provider: { maxRetries: 0 }, ...retry } }),
	);
}

/** The base system prompts (`kind: "baseline"`) in JSON lines (events or session entries), in order. */
export function baselinePrompts(jsonl: string): string[] {
	const prompts: string[] = [];
	for (const line of jsonl.split("\n")) {
		if (!line.startsWith("{")) continue;
		const value = JSON.parse(line) as { message?: { role?: string; kind?: string; content?: string } };
		const message = value.message;
		if (message?.role === "system" && message.kind === "baseline" && typeof message.content === "string") {
			prompts.push(message.content);
		}
	}
	return prompts;
}

/** A running `settle --rpc <args>` (a real child process): send commands, wait for lines. */
export class RpcClient {
	readonly lines: Record<string, unknown>[] = [];
	private readonly waiters: {
		match: (line: Record<string, unknown>) => boolean;
		resolve: (line: Record<string, unknown>) => void;
	}[] = [];
	readonly child: ChildProcessWithoutNullStreams;
	/** The exit code, once the process has ended and all its output lines were read. */
	readonly exited: Promise<number | null>;
	stderr = "";

	/**
	 * `command` replaces `settle --rpc` (node arguments: another RPC server, e.g. pi's); `wrapper`
	 * runs node under another program (e.g. `setpriv …` dropping root's override of file modes).
	 */
	constructor(
		args: string[],
		options: {
			cwd: string;
			agentDir: string;
			command?: string[];
			env?: Record<string, string | undefined>;
			wrapper?: string[];
		},
	) {
		const argv = [process.execPath, ...(options.command ?? [...cliCommand(), "--rpc", ...args])];
		const [program, ...rest] = [...(options.wrapper ?? []), ...argv] as [string, ...string[]];
		this.child = spawn(program, rest, {
			cwd: options.cwd,
			env: { ...process.env, ...options.env, SETTLE_AGENT_DIR: options.agentDir },
		});
		this.child.stderr.on("data", (chunk) => {
			this.stderr += String(chunk);
		});
		createInterface({ input: this.child.stdout }).on("line", (text) => {
			const line = JSON.parse(text) as Record<string, unknown>;
			this.lines.push(line);
			for (const waiter of [...this.waiters]) {
				if (!waiter.match(line)) continue;
				this.waiters.splice(this.waiters.indexOf(waiter), 1);
				waiter.resolve(line);
			}
		});
		this.exited = trackChild(this.child);
	}

	/** Resolves with the first line (from now on) that matches. */
	next(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
		return new Promise((resolve) => this.waiters.push({ match, resolve }));
	}

	/** Sends a command (or any JSON value) as one line. */
	send(command: unknown): void {
		this.child.stdin.write(`${JSON.stringify(command)}\n`);
	}

	/** Sends a command and resolves with its response. */
	request(command: Record<string, unknown>): Promise<Record<string, unknown>> {
		const response = this.next((line) => line.type === "response" && line.id === command.id);
		this.send(command);
		return response;
	}

	/** Sends a `prompt` and resolves once its operation has settled; throws when the prompt is refused. */
	async promptAndSettle(message: string, id?: string): Promise<void> {
		const settled = this.next((line) => line.type === "agent_settled");
		const response = await this.request({ ...(id === undefined ? {} : { id }), type: "prompt", message });
		if (response.success !== true)
			throw new Error(`prompt ${JSON.stringify(message)} refused: ${JSON.stringify(response)}`);
		await settled;
	}

	/** Closes stdin (the server ends once the session is idle) and resolves with the exit code. */
	end(): Promise<number | null> {
		this.child.stdin.end();
		return this.exited;
	}
}
