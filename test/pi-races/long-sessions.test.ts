/**
 * Long sessions: reports that pi (or a fork) got slower, or held more memory, the longer a session
 * or a host lived, replayed against Settle on real session files. No timing is asserted: each test
 * bounds what grows — the heap a listing or a bash call may use (a child process started with a
 * small heap), the bytes a `--json` run prints, the sessions a long-lived host still holds after
 * replacing them (a child process with `--expose-gc`), the messages a context-usage read touches;
 * and a session file longer than any string V8 can make still opens, forks and exports.
 */

import { spawnSync } from "node:child_process";
import {
	closeSync,
	fstatSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readdirSync,
	readSync,
	rmSync,
	statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage } from "../../src/index.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { readSessionHeader } from "../../src/store/discovery.js";
import { getDefaultSessionDirPath } from "../../src/store/paths.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { ROOT, runSettle, useCliProject } from "../cli/helpers.js";
import { tinyUsage } from "../fixtures/long-sessions/plain-model.js";

const FIXTURES = join(ROOT, "test/fixtures/long-sessions");

/**
 * The fixture scripts, run by plain `node`: each bundled into one ESM file whose `src/index.js`
 * import is the bundled `settle` package (test/cli/cli-bundle.ts, what npm ships). Started through
 * tsx, each child spent ~1 s of CPU loading Settle's TypeScript sources; with
 * `SETTLE_TEST_CLI=sources` (as for the `settle` children, test/cli/helpers.ts) they still are.
 */
const FROM_SOURCES = process.env.SETTLE_TEST_CLI === "sources";
const fixtureDir = mkdtempSync(join(tmpdir(), "settle-long-fixtures-"));
/** The `node` arguments that run fixture `name`. */
const fixture = (name: string): string[] =>
	FROM_SOURCES
		? ["--import", join(ROOT, "node_modules/tsx/dist/loader.mjs"), join(FIXTURES, `${name}.ts`)]
		: [join(fixtureDir, `${name}.mjs`)];
beforeAll(async () => {
	if (FROM_SOURCES) return;
	const settle = pathToFileURL(join(dirname(cliBundle()), "index.js")).href;
	const names = ["list-sessions", "replaced-sessions", "bash-tool-output", "write-huge-session", "export-branch"];
	await build({
		entryPoints: Object.fromEntries(names.map((name) => [name, join(FIXTURES, `${name}.ts`)])),
		outdir: fixtureDir,
		outExtension: { ".js": ".mjs" },
		bundle: true,
		platform: "node",
		format: "esm",
		logLevel: "error",
		plugins: [
			{
				name: "settle-bundle",
				setup(on) {
					on.onResolve({ filter: /\/src\/index\.js$/ }, () => ({ path: settle, external: true }));
				},
			},
		],
	});
}, 120_000);
afterAll(() => rmSync(fixtureDir, { recursive: true, force: true }));

const usage = tinyUsage;

function answer(text: string, timestamp: number): AssistantMessage {
	const content: AssistantMessage["content"] = [{ type: "text", text }];
	return {
		role: "assistant",
		content,
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage,
		stopReason: "stop",
		timestamp,
	};
}

/** A chain of `messages` alternating questions and answers, each about `size` characters; returns its file. */
function longChain(project: string, sessionDir: string, messages: number, size: number): string {
	const sm = SessionManager.create(project, sessionDir);
	const padding = "p".repeat(size);
	for (let i = 0; i < messages; i++) {
		if (i % 2 === 0) sm.appendMessage({ role: "user", content: `question ${i} ${padding}`, timestamp: i });
		else sm.appendMessage(answer(`answer ${i} ${padding}`, i));
	}
	sm.close();
	const [name] = readdirSync(sessionDir).filter((file) => file.endsWith(".jsonl"));
	return join(sessionDir, name!);
}

const scratch: string[] = [];
afterEach(() => {
	for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratchDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "settle-long-sessions-"));
	scratch.push(dir);
	return dir;
}

describe("pi#5044, pi#8762: listing sessions reads a whole session file into memory (OOM on one big session)", () => {
	it("pi#5044: a 120 MiB session (big tool outputs) is listed by SessionManager.list in a process whose heap is 64 MiB; its summary keeps the conversation's text, not the outputs", {
		timeout: 60_000,
	}, () => {
		const dir = scratchDir();
		const project = join(dir, "project");
		const sessions = join(dir, "sessions");
		mkdirSync(project);
		const sm = SessionManager.create(project, sessions);
		sm.appendMessage({ role: "user", content: "dump the build logs", timestamp: 1 });
		const output = "x".repeat(1 << 20);
		for (let i = 0; i < 120; i++) {
			sm.appendMessage({
				...answer("", 2 + i),
				content: [{ type: "toolCall", id: `call-${i}`, name: "bash", arguments: { command: `cat build-${i}.log` } }],
				stopReason: "toolUse",
			});
			sm.appendMessage({
				role: "toolResult",
				toolCallId: `call-${i}`,
				toolName: "bash",
				content: [{ type: "text", text: output }],
				isError: false,
				timestamp: 2 + i,
			});
		}
		sm.appendMessage(answer("the build logs show no error", 200));
		const file = sm.getSessionFile()!;
		sm.close();
		expect(statSync(file).size).toBeGreaterThan(120 * (1 << 20));

		// Read whole into one string, the file alone is twice this heap (pi's buildSessionInfo before pi#5044).
		const listed = spawnSync(
			process.execPath,
			["--max-old-space-size=64", ...fixture("list-sessions"), project, sessions],
			{ encoding: "utf8", maxBuffer: 1 << 20 },
		);
		expect(listed.stderr).toBe("");
		expect(listed.status).toBe(0);
		expect(JSON.parse(listed.stdout)).toEqual([
			{
				messageCount: 242,
				firstMessage: "dump the build logs",
				allMessagesText: "dump the build logs the build logs show no error",
			},
		]);
	});
});

describe("pi#4122, pi#4583: /resume ran out of memory on a project with many large sessions", () => {
	const cli = useCliProject("settle-long-resume-list-");

	it("pi#4122: `settle -i -r` in a process whose heap is 64 MiB lists a project's 12 sessions of 7.5 MiB of answers each (also after `all`), and starts a new session", {
		timeout: 120_000,
	}, () => {
		const sessionDir = getDefaultSessionDirPath(cli.project, cli.agentDir);
		const text = "the parser change, explained once more. ".repeat(1 << 15); // 1.25 MiB of answer per message
		for (let session = 0; session < 12; session++) {
			const sm = SessionManager.create(cli.project, sessionDir);
			sm.appendMessage({ role: "user", content: `task ${session}`, timestamp: 1000 + session });
			for (let i = 0; i < 6; i++) sm.appendMessage(answer(text, 1000 + session));
			sm.close();
		}
		const total = readdirSync(sessionDir).reduce((sum, name) => sum + statSync(join(sessionDir, name)).size, 0);
		expect(total).toBeGreaterThan(90 * (1 << 20));

		// Every answer's text kept for each listed session is more than this heap holds.
		const run = runSettle(["--faux", "-i", "-r"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			input: "all\n\n",
			env: { NODE_OPTIONS: "--max-old-space-size=64" },
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const [project, every] = run.stdout.split("Sessions of every project, newest first:");
		for (const listed of [project!, every!]) {
			for (let session = 0; session < 12; session++) expect(listed).toMatch(new RegExp(`  7 msgs  task ${session}\n`));
		}
		expect(run.stdout).toContain("Starting a new session.");
	});
});

describe("pi#8746: in --json mode agent_end carried the whole session in one line (57 MB)", () => {
	const cli = useCliProject("settle-long-json-");

	it("pi#8746: `settle --json -p --session <file>` on a 4 MB, 2,000-message session prints an agent_end with only this run's messages; all of stdout is smaller than the session", {
		timeout: 60_000,
	}, () => {
		const file = longChain(cli.project, join(cli.dir, "sessions"), 2000, 2000);
		const size = statSync(file).size;
		expect(size).toBeGreaterThan(4_000_000);

		const run = cli.settle(["--faux", "--json", "-p", "--session", file, "one more question"]);
		expect(run.code).toBe(0);
		const events = run.stdout
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line) as { type: string; messages?: AgentMessage[] });
		const ends = events.filter((event) => event.type === "agent_end");
		expect(ends).toHaveLength(1);
		const runMessages = ends[0]!.messages!.filter((message) => message.role !== "system");
		expect(runMessages.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(runMessages[0]).toMatchObject({ content: [{ type: "text", text: "one more question" }] });
		// Every line together is a fraction of the session: nothing printed carries the history.
		expect(Buffer.byteLength(run.stdout)).toBeLessThan(size / 20);
		// The run was saved to the same file, after the 2,000 messages it resumed.
		const saved = SessionManager.open(file, { readOnly: true }).buildSessionContext().messages;
		expect(saved.filter((message) => message.role !== "system")).toHaveLength(2002);
	});
});

describe("oh-my-pi#8003: a long-running host kept every finished session it had replaced", () => {
	it("oh-my-pi#8003: after ten sessions replaced by newSession() and fork(), each after a prompt that ran a tool, none of them is reachable any more (node --expose-gc)", {
		timeout: 60_000,
	}, () => {
		const dir = scratchDir();
		const run = spawnSync(process.execPath, ["--expose-gc", ...fixture("replaced-sessions"), dir, "10"], {
			encoding: "utf8",
		});
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		// The host's current session answered too (a tool call, then text): the runtime went on working.
		expect(JSON.parse(run.stdout)).toEqual({ replaced: 10, reachable: 0, currentAnswers: 2 });
	});
});

describe("oh-my-pi#2089: context accounting walked every message on each status refresh, slowing long sessions", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("oh-my-pi#2089: on a resumed 10,000-message session, getContextUsage() read at every streamed update touches at most the last answer of the history", async () => {
		const dir = scratchDir();
		const project = join(dir, "project");
		mkdirSync(project);
		const file = longChain(project, join(dir, "sessions"), 10_000, 10);
		h = await createHarness({ sessionManager: SessionManager.open(file) });
		h.faux.setResponses([fauxAssistantMessage("a status-line friendly answer, streamed in several updates")]);

		// Each message of the resumed history records whether a context-usage read touched it (the
		// request itself converts them all, as it must).
		const touched = new Set<number>();
		let reading = false;
		const history = h.session.agent.state.messages;
		expect(history).toHaveLength(10_000);
		history.forEach((message, index) => {
			history[index] = new Proxy(message, {
				get(target, key, receiver) {
					if (reading) touched.add(index);
					return Reflect.get(target, key, receiver);
				},
			});
		});

		const readings: (number | null)[] = [];
		h.session.subscribe((event) => {
			// A footer redrawing on every event, as the report's TUI did.
			reading = true;
			readings.push(h!.session.getContextUsage()?.tokens ?? null);
			reading = false;
			if (event.type === "agent_settled") readings.push(-1);
		});
		await h.session.prompt("and now?");

		expect(readings.length).toBeGreaterThan(10);
		expect(readings.every((tokens) => tokens === -1 || (typeof tokens === "number" && tokens > 0))).toBe(true);
		// Only the last answer of the history (its usage): not the 9,999 messages before it.
		expect([...touched]).toEqual([9_999]);
	});
});

describe("oh-my-pi#4078: a fast command's output was queued whole before the output cap (memory grew with the output)", () => {
	it("oh-my-pi#4078: a bash tool call printing 100 MB on one line runs in a process whose heap is 64 MiB; the result is the line's last 50 KB and names the full output, all of it on disk", {
		timeout: 60_000,
	}, () => {
		const dir = scratchDir();
		const run = spawnSync(
			process.execPath,
			["--max-old-space-size=64", ...fixture("bash-tool-output"), dir, "yes x | head -c 200000000 | tr -d '\\n'"],
			{ encoding: "utf8", maxBuffer: 1 << 22 },
		);
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		const result = JSON.parse(run.stdout) as {
			isError: boolean;
			textLength: number;
			textEnd: string;
			details: { fullOutputPath: string; truncation: { truncated: boolean } };
		};
		scratch.push(result.details.fullOutputPath);
		expect(result.isError).toBe(false);
		expect(result.details.truncation.truncated).toBe(true);
		expect(result.textLength).toBeLessThan(52_000);
		expect(result.textEnd).toContain(`(line is 95.4MB). Full output: ${result.details.fullOutputPath}]`);
		expect(statSync(result.details.fullOutputPath).size).toBe(100_000_000);
	});
});

describe("pi#5231: a session file past 512 MB could not be opened (`Cannot create a string longer than 0x1fffffe8 characters`) or forked", () => {
	const cli = useCliProject("settle-long-huge-");

	it("pi#5231: `settle -p --session <file>` continues a 545 MB session (a days-long goal, compacted) and answers, appending to that file; `settle -p --fork <file>` copies it whole into a new session and answers there; its branch exports as JSONL", {
		timeout: 120_000,
	}, () => {
		const sessions = join(cli.dir, "sessions");
		// Written in its own process: the store keeps every entry in memory.
		const written = spawnSync(process.execPath, [...fixture("write-huge-session"), cli.project, sessions, "520"], {
			encoding: "utf8",
		});
		expect(written.stderr).toBe("");
		const file = written.stdout.trim();
		const size = statSync(file).size;
		// Longer than any string V8 can make (2^29 - 24): read whole, the file cannot even be decoded.
		expect(size).toBeGreaterThan(2 ** 29);

		const run = cli.settle(["--faux", "-p", "--session", file, "and today?"]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("and today?\n");
		// The question and its answer were appended to the same file; nothing before them was rewritten.
		expect(statSync(file).size).toBeGreaterThan(size);
		const tail = readTail(file, 4096);
		expect(tail).toContain('"text":"and today?"');
		expect(tail.trimEnd().split("\n").at(-1)).toContain('"role":"assistant"');

		// Forked: every entry is written to the new file in one go (pi 0.73.1 appends them one by one).
		// Settle built that file as one string and failed with `Error: Invalid string length`.
		const forked = cli.settle(["--faux", "-p", "--fork", file, "and tomorrow?"]);
		expect(forked.stderr).toBe("");
		expect(forked.code).toBe(0);
		expect(forked.stdout).toBe("and tomorrow?\n");
		const [forkDir] = readdirSync(join(cli.agentDir, "sessions"));
		const [forkName] = readdirSync(join(cli.agentDir, "sessions", forkDir!));
		const fork = join(cli.agentDir, "sessions", forkDir!, forkName!);
		expect(statSync(fork).size).toBeGreaterThan(statSync(file).size);
		expect(readSessionHeader(fork)).toMatchObject({ type: "session", parentSession: file });
		const forkTail = readTail(fork, 4096).trimEnd().split("\n");
		expect(forkTail.at(-2)).toContain('"text":"and tomorrow?"');
		expect(forkTail.at(-1)).toContain('"role":"assistant"');
		// Less on disk at once (a CI machine's disk can be small): the export does not need the fork.
		rmSync(fork);

		// Exported as JSONL (`/export <name>.jsonl`): the branch, re-chained, was one string too.
		const out = join(cli.dir, "branch.jsonl");
		const exported = spawnSync(process.execPath, [...fixture("export-branch"), file, out], {
			encoding: "utf8",
		});
		expect(exported.stderr).toBe("");
		expect(exported.stdout).toBe(`${out}\n`);
		expect(statSync(out).size).toBeGreaterThan(2 ** 29);
		const exportTail = readTail(out, 4096).trimEnd().split("\n");
		expect(exportTail.at(-1)).toContain('"role":"assistant"');
		expect(exportTail.at(-2)).toContain('"text":"and today?"');
	});
});

/** The last `bytes` bytes of `file` as text. */
function readTail(file: string, bytes: number): string {
	const fd = openSync(file, "r");
	try {
		const size = fstatSync(fd).size;
		const buffer = Buffer.alloc(Math.min(bytes, size));
		readSync(fd, buffer, 0, buffer.length, size - buffer.length);
		return buffer.toString("utf8");
	} finally {
		closeSync(fd);
	}
}
