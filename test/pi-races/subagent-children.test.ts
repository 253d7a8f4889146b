/**
 * Reports about sub-agents, replayed with real `settle` processes: an extension's `subagent` tool
 * runs a child `settle -p` (pi's subagent example's way, through `pi.exec` with the tool's signal),
 * both on faux scripts, both writing session files under the same agent folder.
 *
 * - pi-packages#403, openclaw#104847: Esc (or abort) stopped the parent's turn, and the sub-agent
 *   it had started kept running. Here Ctrl+C reaches the parent while the child's bash command runs.
 * - pi-subagents#95, pi-subagents#658: a child that had written its answer never exited (something
 *   it started held its pipes), and the parent waited forever; a child that hangs for good is
 *   stopped at the tool's timeout.
 * - letta-code#2104, aionrs#34: a sub-agent's output landed in the parent's JSON stream.
 * - pi-interactive-subagents#9: sub-agents' sessions in the project's folder: `-c` continued one
 *   of them instead of the user's conversation.
 * - pi-subagents#215: several sub-agents of the same kind at once: did they clobber each other?
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, runSettleAsync, trackChild, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { fileMessages, orphanToolMessages } from "./disk-harness.js";
import { sessionFilesUnder } from "./helpers.js";
import { killMarked, markedProcesses, markedSleepCommand, processMarker } from "./processes.js";

const cli = useCliProject("settle-pi-races-subagent-children-");

/** A guard against a hang only: a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

/**
 * An extension with pi's subagent example's shape: the tool runs `settle -p` on the child's faux
 * script through `pi.exec` with the tool call's signal, and returns the child's stdout.
 */
function subagentExtension(): string {
	const file = join(cli.dir, "subagent.mjs");
	const [node, ...args] = [process.execPath, ...cliCommand()];
	writeFileSync(
		file,
		`export default function (pi) {
	pi.registerTool({
		name: "subagent",
		label: "subagent",
		description: "runs a task in a child settle",
		parameters: { type: "object", properties: { task: { type: "string" }, script: { type: "string" }, mode: { type: "string" }, extension: { type: "string" }, timeout: { type: "number" } } },
		async execute(_id, params, signal) {
			const mode = params.mode ? ["--mode", params.mode] : [];
			const extension = params.extension ? ["-e", params.extension] : [];
			const run = await pi.exec(${JSON.stringify(node)}, [...${JSON.stringify(args)}, "--faux-script", params.script, ...mode, ...extension, "-p", params.task], { signal, timeout: params.timeout });
			return { content: [{ type: "text", text: run.stdout }], details: { code: run.code, killed: run.killed } };
		},
	});
}
`,
	);
	return file;
}

/** Writes a faux script `name` (steps as `--faux-script` reads them); returns its path. */
/** The events of a `--mode json` output, one per line. */
function jsonLines(output: string): Record<string, unknown>[] {
	return output
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

function script(name: string, steps: unknown[]): string {
	const file = join(cli.dir, `${name}.json`);
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

/** A parent script: one `subagent` call with `args`, then `answer`. */
function parentScript(args: Record<string, unknown>, answer = "the sub-agent is done"): string {
	return script("parent", [{ toolCalls: [{ name: "subagent", arguments: args }] }, answer]);
}

/** The session files under the agent folder other than `except`. */
function otherSessions(except: string): string[] {
	return sessionFilesUnder(cli.agentDir).filter((file) => file !== except);
}

/**
 * Starts `settle <args>` in the project and sends SIGINT once a process marked `marker` runs (the
 * sub-agent's command): its exit code. The guard only ends a hang (code null).
 */
async function interruptWhenMarked(args: string[], marker: string): Promise<number | null> {
	const parent = spawn(process.execPath, [...cliCommand(), ...args], {
		cwd: cli.project,
		env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
		stdio: "ignore",
	});
	const exited = trackChild(parent);
	const guard = setTimeout(() => parent.kill("SIGKILL"), HANG_GUARD_MS);
	while (markedProcesses(marker).length === 0 && parent.exitCode === null) {
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	parent.kill("SIGINT");
	return exited.finally(() => clearTimeout(guard));
}

/** The messages of a session file, without the system prompt entries. */
function conversation(file: string): { role: string; [key: string]: unknown }[] {
	return fileMessages(file).filter((message) => message.role !== "system");
}

describe("pi-packages#403, openclaw#104847: Esc stopped the parent's turn; the sub-agent it started kept running", () => {
	it("pi-packages#403: Ctrl+C to settle -p while its sub-agent's bash command runs: exit 130, neither the child settle nor its command left, both files answer every call", async () => {
		const marker = processMarker();
		try {
			const child = script("child", [
				{ toolCalls: [{ name: "bash", arguments: { command: markedSleepCommand(marker, 300) } }] },
				"never reached",
			]);
			const parentFile = join(cli.project, "parent.jsonl");
			const code = await interruptWhenMarked(
				[
					"--faux-script",
					parentScript({ task: "scan the repo", script: child }),
					"-e",
					subagentExtension(),
					"--session",
					parentFile,
					"-p",
					"delegate the scan",
				],
				marker,
			);
			expect(code).toBe(130);
			// Read once the parent exited, no waiting: nothing of the sub-agent outlives it.
			expect(markedProcesses(marker)).toEqual([]);
			expect(orphanToolMessages(parentFile)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
			// The parent's call is answered with what the stopped child gave (SIGTERM: 143), then the run ends aborted.
			expect(conversation(parentFile)).toMatchObject([
				{ role: "user" },
				{ role: "assistant", stopReason: "toolUse" },
				{ role: "toolResult", toolName: "subagent", details: { code: 143, killed: true } },
				{ role: "assistant", stopReason: "aborted" },
			]);
			const [childFile, ...more] = otherSessions(parentFile);
			expect(more).toEqual([]);
			expect(orphanToolMessages(childFile!)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
			// The child had time to save its own aborted call: its file reopens on an answered call.
			expect(conversation(childFile!)).toMatchObject([
				{ role: "user", content: [{ type: "text", text: "scan the repo" }] },
				{ role: "assistant", stopReason: "toolUse" },
				{
					role: "toolResult",
					toolName: "bash",
					isError: true,
					content: [{ type: "text", text: expect.stringMatching(/Command aborted$/) }],
				},
				{ role: "assistant", stopReason: "aborted" },
			]);
		} finally {
			killMarked(marker);
		}
	});
});

describe("pi-subagents#95, pi-subagents#658: a sub-agent that does not exit blocked its parent with no word", () => {
	it("pi-subagents#95: the child's extension leaves a file watcher and a timer running after its answer: the child exits, the parent gets the answer and answers", async () => {
		// pi-inspect's leak (pi-subagents#658): handles that keep a node process's event loop alive for good.
		const leak = join(cli.dir, "leak.mjs");
		writeFileSync(
			leak,
			`import { watch } from "node:fs";
export default function (pi) {
	pi.on("session_start", () => {
		watch(process.cwd(), () => {});
		setInterval(() => {}, 1000);
	});
}
`,
		);
		const child = script("child", ["found the parser in src/a.ts"]);
		const run = await runSettleAsync(
			[
				"--faux-script",
				parentScript({ task: "find the parser", script: child, extension: leak }, "the parser is in src/a.ts"),
				"-e",
				subagentExtension(),
				"--no-session",
				"-p",
				"where is the parser?",
			],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run).toMatchObject({ code: 0, stdout: "the parser is in src/a.ts\n" });
	});

	it("pi-subagents#95: the child's answer reaches the parent as the tool's result", async () => {
		const child = script("child", ["found the parser in src/a.ts"]);
		const run = await runSettleAsync(
			[
				"--faux-script",
				parentScript({ task: "find the parser", script: child }),
				"-e",
				subagentExtension(),
				"--no-session",
				"--mode",
				"json",
				"-p",
				"where is the parser?",
			],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run.code).toBe(0);
		const events = jsonLines(run.stdout);
		expect(events.find((event) => event.type === "tool_execution_end")).toMatchObject({
			toolName: "subagent",
			result: {
				content: [{ type: "text", text: "found the parser in src/a.ts\n" }],
				details: { code: 0, killed: false },
			},
		});
	});

	it("pi-subagents#658: a child whose command never ends is stopped at the tool's timeout: killed, nothing of it left, its file answers the call, the parent answers", async () => {
		const marker = processMarker();
		try {
			const child = script("child", [
				{ toolCalls: [{ name: "bash", arguments: { command: markedSleepCommand(marker, 300) } }] },
				"never reached",
			]);
			const parentFile = join(cli.project, "parent.jsonl");
			const run = await runSettleAsync(
				[
					"--faux-script",
					parentScript({ task: "review", script: child, timeout: 3000 }, "the reviewer timed out"),
					"-e",
					subagentExtension(),
					"--session",
					parentFile,
					"-p",
					"review it",
				],
				{ cwd: cli.project, agentDir: cli.agentDir },
			);
			expect(run).toMatchObject({ code: 0, stdout: "the reviewer timed out\n" });
			expect(markedProcesses(marker)).toEqual([]);
			expect(conversation(parentFile)).toMatchObject([
				{ role: "user" },
				{ role: "assistant", stopReason: "toolUse" },
				{ role: "toolResult", toolName: "subagent", details: { code: 143, killed: true } },
				{ role: "assistant", content: [{ type: "text", text: "the reviewer timed out" }] },
			]);
			const [childFile] = otherSessions(parentFile);
			expect(orphanToolMessages(childFile!)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		} finally {
			killMarked(marker);
		}
	});
});

describe("letta-code#2104, aionrs#34: a sub-agent's output landed in the parent's JSON stream", () => {
	it("letta-code#2104: settle --mode json whose sub-agent is a settle --mode json: every stdout line is the parent's, one session header, the child's events only inside the tool result", async () => {
		const child = script("child", [
			{ toolCalls: [{ name: "bash", arguments: { command: "echo from-the-child" } }] },
			"child says hi",
		]);
		const run = await runSettleAsync(
			[
				"--faux-script",
				parentScript({ task: "say hi", script: child, mode: "json" }),
				"-e",
				subagentExtension(),
				"--mode",
				"json",
				"-p",
				"delegate",
			],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run.code).toBe(0);
		const events = jsonLines(run.stdout);
		const headers = events.filter((event) => event.type === "session");
		expect(headers).toHaveLength(1);
		// One run's events: one agent_start, one agent_settled, one bash-free tool run (the child's bash stays in the child).
		expect(events.filter((event) => event.type === "agent_start")).toHaveLength(1);
		expect(events.filter((event) => event.type === "tool_execution_start").map((event) => event.toolName)).toEqual([
			"subagent",
		]);
		const end = events.find((event) => event.type === "tool_execution_end") as {
			result: { content: { text: string }[] };
		};
		const childEvents = jsonLines(end.result.content[0]!.text);
		expect(childEvents[0]).toMatchObject({ type: "session" });
		expect(childEvents[0]!.id).not.toBe(headers[0]!.id);
		expect(childEvents.at(-1)).toMatchObject({ type: "agent_settled" });
	});
});

describe("pi-interactive-subagents#9: sub-agents' sessions in the project's folder: -c continued a sub-agent", () => {
	const server = useWireServer();

	it("pi-interactive-subagents#9: after a run whose sub-agent saved its session in the same project, settle -c continues the user's conversation", async () => {
		// The parent on a real local server (its answers stamped when they stream, as every real
		// provider's are); the child on a faux script.
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const child = script("child", ["child answer"]);
		server.reply(
			chatReply(
				[{ type: "tool_call", id: "call_sub", name: "subagent", arguments: { task: "look around", script: child } }],
				{ finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "parent answer" }]),
		);
		const first = await runSettleAsync(["--model", "local/coder", "-e", subagentExtension(), "-p", "delegate"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(first).toMatchObject({ code: 0, stdout: "parent answer\n" });
		const files = sessionFilesUnder(cli.agentDir);
		expect(files).toHaveLength(2);
		const next = await runSettleAsync(["--faux", "-c", "-p", "and now?"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(next.code).toBe(0);
		const continued = files.filter((file) => readFileSync(file, "utf8").includes("and now?"));
		expect(continued).toHaveLength(1);
		expect(conversation(continued[0]!)[0]).toMatchObject({ content: [{ type: "text", text: "delegate" }] });
	});

	it("pi-interactive-subagents#9: the same with the parent on a --faux-script: its answers are stamped when served, and -c continues the parent", async () => {
		const child = script("child", ["child answer"]);
		const first = await runSettleAsync(
			[
				"--faux-script",
				parentScript({ task: "look around", script: child }, "parent answer"),
				"-e",
				subagentExtension(),
				"-p",
				"delegate",
			],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(first).toMatchObject({ code: 0, stdout: "parent answer\n" });
		const files = sessionFilesUnder(cli.agentDir);
		expect(files).toHaveLength(2);
		const parentFile = files.find((file) => readFileSync(file, "utf8").includes("parent answer"))!;
		// Each answer is stamped after the message it answers (the final one after the child's whole run).
		const stamps = conversation(parentFile).map((message) => message.timestamp as number);
		expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
		const next = await runSettleAsync(["--faux", "-c", "-p", "and now?"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(next.code).toBe(0);
		expect(readFileSync(parentFile, "utf8")).toContain("and now?");
	});

	it("pi-interactive-subagents#9: Ctrl+C while the sub-agent ran, then settle -c continues the user's conversation, not the stopped sub-agent's", async () => {
		const marker = processMarker();
		try {
			const child = script("child", [
				{ toolCalls: [{ name: "bash", arguments: { command: markedSleepCommand(marker, 300) } }] },
				"never reached",
			]);
			const code = await interruptWhenMarked(
				["--faux-script", parentScript({ task: "scan", script: child }), "-e", subagentExtension(), "-p", "delegate"],
				marker,
			);
			expect(code).toBe(130);
			const files = sessionFilesUnder(cli.agentDir);
			expect(files).toHaveLength(2);
			const next = await runSettleAsync(["--faux", "-c", "-p", "and now?"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			expect(next.code).toBe(0);
			const continued = files.filter((file) => readFileSync(file, "utf8").includes("and now?"));
			expect(continued).toHaveLength(1);
			expect(conversation(continued[0]!)[0]).toMatchObject({ content: [{ type: "text", text: "delegate" }] });
		} finally {
			killMarked(marker);
		}
	});
});

describe("pi-subagents#215: four sub-agents of the same name at once: did they clobber each other?", () => {
	it("pi-subagents#215: two sub-agents called in one answer (started together, as an answer's calls are by default) in the same project: two session files with their own ids, each with its own task and answer, the parent's results in call order", async () => {
		const first = script("first", ["calc one tested"]);
		const second = script("second", ["calc two tested"]);
		const parent = script("parent", [
			{
				toolCalls: [
					{ name: "subagent", arguments: { task: "test calc one", script: first } },
					{ name: "subagent", arguments: { task: "test calc two", script: second } },
				],
			},
			"both tested",
		]);
		const parentFile = join(cli.project, "parent.jsonl");
		const run = await runSettleAsync(
			["--faux-script", parent, "-e", subagentExtension(), "--session", parentFile, "-p", "test both calcs"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run).toMatchObject({ code: 0, stdout: "both tested\n" });
		expect(
			conversation(parentFile)
				.filter((message) => message.role === "toolResult")
				.map((message) => message.content),
		).toEqual([[{ type: "text", text: "calc one tested\n" }], [{ type: "text", text: "calc two tested\n" }]]);
		const children = otherSessions(parentFile).map((file) => ({
			id: (JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { id: string }).id,
			messages: conversation(file).map((message) => (message.content as { text: string }[])[0]!.text),
		}));
		expect(new Set(children.map((child) => child.id)).size).toBe(2);
		expect(children.map((child) => child.messages).sort()).toEqual([
			["test calc one", "calc one tested"],
			["test calc two", "calc two tested"],
		]);
	});
});
