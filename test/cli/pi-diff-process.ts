/**
 * The process half of the CLI differential: `settle` and pi 0.73.1's own CLI (test/cli/pi-diff-peer.mjs,
 * pi's `main` on pi-ai's faux model) as real child processes in the same project folder, each with
 * its own agent dir and a clean environment (no API keys, a temp HOME), and the normalizations the
 * comparison applies to their outputs. Each normalization names the difference it takes out.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { type CliRun, cliCommand, ROOT, trackChild } from "./helpers.js";

const PI_PEER = join(ROOT, "test/cli/pi-diff-peer.mjs");
const PI_CLI = join(ROOT, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");

/** Folders of one comparison: the shared project, a HOME, and one agent dir per CLI. */
export interface DiffDirs {
	project: string;
	home: string;
	piAgent: string;
	settleAgent: string;
}

/** Makes the folders under `root`; pi's settings select the faux model the peer registers. */
export function makeDiffDirs(root: string): DiffDirs {
	const dirs = {
		project: join(root, "project"),
		home: join(root, "home"),
		piAgent: join(root, "pi-agent"),
		settleAgent: join(root, "settle-agent"),
	};
	for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dirs.piAgent, "settings.json"),
		JSON.stringify({ defaultProvider: "faux", defaultModel: "faux-1" }),
	);
	return dirs;
}

/** For a test file's top level: fresh {@link makeDiffDirs} folders under a temp dir named `prefix…` per test, removed after it. */
export function useDiffDirs(prefix: string): DiffDirs {
	let root = "";
	let dirs: DiffDirs | undefined;
	beforeEach(() => {
		root = mkdtempSync(join(tmpdir(), prefix));
		dirs = makeDiffDirs(root);
	});
	afterEach(() => rmSync(root, { recursive: true, force: true }));
	const current = (): DiffDirs => {
		if (!dirs) throw new Error("useDiffDirs' folders exist only inside a test");
		return dirs;
	};
	return {
		get project() {
			return current().project;
		},
		get home() {
			return current().home;
		},
		get piAgent() {
			return current().piAgent;
		},
		get settleAgent() {
			return current().settleAgent;
		},
	};
}

/** Writes `text` to `relativePath` under both CLIs' agent dirs (a template, a skill). */
export function writeInBothAgents(dirs: DiffDirs, relativePath: string, text: string): void {
	for (const agent of [dirs.piAgent, dirs.settleAgent]) {
		const file = join(agent, relativePath);
		mkdirSync(join(file, ".."), { recursive: true });
		writeFileSync(file, text);
	}
}

/** The environment both CLIs get: nothing from the developer's (no keys, no ~/.pi or ~/.settle). */
function cleanEnv(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
	return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", ...extra };
}

function run(argv: string[], cwd: string, env: NodeJS.ProcessEnv, input: string, timeoutMs: number): Promise<CliRun> {
	const child = spawn(process.execPath, argv, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk) => {
		stdout += String(chunk);
	});
	child.stderr.on("data", (chunk) => {
		stderr += String(chunk);
	});
	child.stdin.on("error", () => {});
	child.stdin.end(input);
	const closed = trackChild(child);
	const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
	return closed
		.then((code) => ({ code, stdout, stderr }))
		.finally(() => {
			clearTimeout(timer);
			// A child still running (the test failed before it ended) must not outlive the test.
			if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
		});
}

/** `settle <args>` with a faux script (its steps, then echo). */
export function runSettleCli(
	dirs: DiffDirs,
	args: string[],
	options: { script?: string; input?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
	const model = options.script ? ["--faux-script", options.script] : ["--faux"];
	return run(
		[...cliCommand(), ...model, ...args],
		dirs.project,
		cleanEnv(dirs.home, { SETTLE_AGENT_DIR: dirs.settleAgent }),
		options.input ?? "",
		options.timeoutMs ?? 60_000,
	);
}

/** pi 0.73.1's CLI with `<args>` and the same faux script. */
export function runPiCli(
	dirs: DiffDirs,
	args: string[],
	options: { script?: string; input?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
	return runPi(PI_PEER, dirs, args, options);
}

/**
 * pi 0.73.1's own `cli.js` (not the faux peer: its model catalogue and `piAgent`'s models.json) with
 * `<args>`, offline, in the same clean environment: for what pi itself answers to a user's flags.
 */
export function runPiOwnCli(dirs: Pick<DiffDirs, "project" | "home" | "piAgent">, args: string[]): Promise<CliRun> {
	return runPi(PI_CLI, dirs, args, {});
}

function runPi(
	program: string,
	dirs: Pick<DiffDirs, "project" | "home" | "piAgent">,
	args: string[],
	options: { script?: string; input?: string; timeoutMs?: number },
): Promise<CliRun> {
	return run(
		[program, ...args],
		dirs.project,
		cleanEnv(dirs.home, {
			PI_CODING_AGENT_DIR: dirs.piAgent,
			PI_OFFLINE: "1",
			PI_SKIP_VERSION_CHECK: "1",
			...(options.script ? { PI_DIFF_SCRIPT: options.script } : {}),
		}),
		options.input ?? "",
		options.timeoutMs ?? 60_000,
	);
}

// ---- normalization ------------------------------------------------------------------------------

type Json = Record<string, unknown>;

/** Replaces each distinct id by `<kind#n>` in order of first appearance (ids are random on both sides). */
class IdNames {
	private readonly names = new Map<string, string>();
	name(kind: string, id: unknown): unknown {
		if (typeof id !== "string") return id;
		let name = this.names.get(id);
		if (!name) {
			name = `<${kind}#${this.names.size}>`;
			this.names.set(id, name);
		}
		return name;
	}
}

const isSystem = (message: unknown) => (message as Json | undefined)?.role === "system";

/**
 * A message with its run-dependent values taken out: timestamps, tool-call ids (random), and usage
 * (named "usage": the faux models estimate tokens from the request, and Settle's system prompt is
 * its own text, branding included, so the counts differ).
 */
function normalizeMessage(message: unknown, ids: IdNames): unknown {
	if (!message || typeof message !== "object") return message;
	const { timestamp: _timestamp, usage: _usage, responseId: _responseId, ...rest } = message as Json;
	const out: Json = { ...rest };
	if (typeof out.toolCallId === "string") out.toolCallId = ids.name("call", out.toolCallId);
	if (Array.isArray(out.content)) {
		out.content = out.content.map((part: Json) =>
			part.type === "toolCall" ? { ...part, id: ids.name("call", part.id) } : part,
		);
	}
	return out;
}

/**
 * `--mode json` output as comparable events. Taken out (named):
 * - "settle boundary": Settle's `agent_settled` event (DESIGN: the settle boundary pi lacks).
 * - "system messages": Settle records its system prompt as a transcript `system` message (DESIGN,
 *   README "Transcript"); pi keeps it out of the transcript. Their events and entries are dropped.
 * - "chunking": both faux models stream text in random chunk sizes, so a run of `message_update`
 *   events becomes one `{type: "message_update"}`.
 * - "tool updates": a running bash command's output arrives in timing-dependent chunks, so a run
 *   of `tool_execution_update` events becomes one `{type, toolCallId, toolName}`. (Inside them pi
 *   0.73.1 sends `partialResult.details: {}`, Settle no `details`: noticed, left to the tools area.)
 * - "willRetry": Settle's `agent_end` carries `willRetry` (spec B.2, from pi's newer sources);
 *   pi 0.73.1's does not yet (spec section I, version drift). Same for its `aborted` (newer pi).
 * - ids, timestamps, usage (see {@link normalizeMessage}); tool results' `details` stay compared.
 */
export function normalizeJsonEvents(stdout: string): Json[] {
	const ids = new IdNames();
	const out: Json[] = [];
	for (const line of stdout.split("\n")) {
		if (!line) continue;
		const event = JSON.parse(line) as Json;
		if (event.type === "agent_settled") continue;
		if (event.type === "session") {
			out.push({ ...event, id: ids.name("session", event.id), timestamp: "<time>" });
			continue;
		}
		if ((event.type === "message_start" || event.type === "message_end") && isSystem(event.message)) continue;
		if (event.type === "message_update") {
			if (out.at(-1)?.type !== "message_update") out.push({ type: "message_update" });
			continue;
		}
		if (event.type === "tool_execution_update") {
			const toolCallId = ids.name("call", event.toolCallId);
			const last = out.at(-1);
			if (last?.type !== "tool_execution_update" || last.toolCallId !== toolCallId) {
				out.push({ type: event.type, toolCallId, toolName: event.toolName });
			}
			continue;
		}
		const normalized: Json = { ...event };
		if (event.type === "agent_end") {
			delete normalized.willRetry;
			delete normalized.aborted;
		}
		if ("message" in normalized) normalized.message = normalizeMessage(normalized.message, ids);
		if (Array.isArray(normalized.messages)) {
			normalized.messages = normalized.messages.filter((m) => !isSystem(m)).map((m) => normalizeMessage(m, ids));
		}
		if (Array.isArray(normalized.toolResults)) {
			normalized.toolResults = normalized.toolResults.map((m) => normalizeMessage(m, ids));
		}
		if (typeof normalized.toolCallId === "string") normalized.toolCallId = ids.name("call", normalized.toolCallId);
		out.push(normalized);
	}
	return out;
}

/** The session files under an agent dir's `sessions/` (any project folder), oldest name first. */
export function sessionFiles(agentDir: string): string[] {
	const root = join(agentDir, "sessions");
	if (!existsSync(root)) return [];
	const files: string[] = [];
	for (const folder of readdirSync(root)) {
		for (const name of readdirSync(join(root, folder)))
			if (name.endsWith(".jsonl")) files.push(join(root, folder, name));
	}
	return files.sort();
}

/**
 * A session file as comparable entries: ids and parent ids renamed in order, timestamps and usage
 * out, and Settle's transcript `system` message entries ("system messages") dropped, their
 * children re-parented to the dropped entry's parent.
 */
export function normalizeSessionFile(path: string): Json[] {
	const ids = new IdNames();
	const replacedParent = new Map<unknown, unknown>();
	const out: Json[] = [];
	for (const line of readFileSync(path, "utf8").split("\n")) {
		if (!line) continue;
		const entry = JSON.parse(line) as Json;
		if (entry.type === "session") {
			out.push({ ...entry, id: ids.name("session", entry.id), timestamp: "<time>" });
			continue;
		}
		const parentId = replacedParent.has(entry.parentId) ? replacedParent.get(entry.parentId) : entry.parentId;
		if (entry.type === "message" && isSystem(entry.message)) {
			replacedParent.set(entry.id, parentId);
			continue;
		}
		const normalized: Json = {
			...entry,
			id: ids.name("entry", entry.id),
			parentId: ids.name("entry", parentId),
			timestamp: "<time>",
		};
		if ("message" in normalized) normalized.message = normalizeMessage(normalized.message, ids);
		out.push(normalized);
	}
	return out;
}

// ---- running both ------------------------------------------------------------------------------

/** A 1×1 PNG. */
export const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
	"base64",
);

let runIndex = 0;
/** Fresh folders for one comparison, with the files `@` arguments and the read tool use. */
export function freshDirs(root: string): DiffDirs {
	const dirs = makeDiffDirs(join(root, `run-${runIndex++}`));
	writeFileSync(join(dirs.project, "a.txt"), "alpha\nbeta\n");
	writeFileSync(join(dirs.project, "empty.txt"), "");
	writeFileSync(join(dirs.project, "img.png"), PNG);
	return dirs;
}

export function writeScript(dirs: DiffDirs, steps: unknown[]): string {
	const path = join(dirs.project, "..", "script.json");
	writeFileSync(path, JSON.stringify(steps));
	return path;
}

export type Side = "pi" | "settle";

/** Both CLIs at the same time, on the same arguments (or each on its own: ids differ per side). */
export async function runBoth(
	dirs: DiffDirs,
	args: string[] | ((side: Side) => string[]),
	options: { script?: string; input?: string } = {},
): Promise<{ pi: CliRun; settle: CliRun }> {
	const argsOf = typeof args === "function" ? args : () => args;
	const [pi, settle] = await Promise.all([
		runPiCli(dirs, argsOf("pi"), options),
		runSettleCli(dirs, argsOf("settle"), options),
	]);
	return { pi, settle };
}
