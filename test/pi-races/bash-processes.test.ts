/**
 * pi's reported bash-tool wedges, replayed against Settle with real child processes: a command
 * whose descendants ignore SIGTERM, sit in another process group (GNU `timeout` moves itself into
 * its own) and keep the output pipe open. What the user should see: abort, a runtime dispose and
 * `abortBash()` end the call at once, and no process of the command is left (checked in /proc).
 * Also oh-my-pi#865: two user commands at once (an RPC `bash` while a `!` command runs) shared one
 * abort handle, so Esc stopped only the later one and the first could no longer be cancelled;
 * claude-code#93996: a `tsc` / `vitest` run in flight when the session was cleared (`/new`) ran on
 * under init for hours; opencode#22012: a server started with `&` that keeps printing to the
 * inherited stdout (`uvicorn … &`) held the call open until its timeout.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AgentSessionEvent } from "../../src/index.js";
import {
	type DiskSession,
	diskSession,
	diskSessionsPerTest,
	eventWhere,
	manualDiskRuntime,
	orphanToolMessages,
} from "./disk-harness.js";
import { markedProcesses, markedSleepCommand, markersPerTest, wedgingCommand } from "./processes.js";

const { open } = diskSessionsPerTest();
const marker = markersPerTest();

/** A user `!` command: `ready` resolves once it has printed "ready", `result` is executeBash's. */
function userCommand(session: DiskSession["session"], command: string) {
	let sawReady!: () => void;
	const ready = new Promise<void>((resolve) => (sawReady = resolve));
	const result = session.executeBash(command, (chunk) => {
		if (chunk.includes("ready")) sawReady();
	});
	return { ready, result };
}

/** Resolves once the running bash tool has streamed `text`. */
function streamed(session: DiskSession["session"], text: string): Promise<AgentSessionEvent> {
	return eventWhere(
		session,
		(event) => event.type === "tool_execution_update" && JSON.stringify(event.partialResult).includes(text),
	);
}

describe("bash: abort and dispose end every process of the command", () => {
	it("oh-my-pi#8829 / pi#9460: abort during a command whose children ignore SIGTERM in another process group ends all of them, and the call ends with an error result", async () => {
		const mark = marker();
		const s = await diskSession();
		open.push(s);
		s.provider.answer(s.provider.bashCallReply(wedgingCommand(mark), "call-b"));
		const ready = streamed(s.session, "ready");
		const done = s.session.prompt("run the test watcher");
		await ready;
		// timeout, the trapping sh and its sleep (bash itself got the marker after it started).
		expect(markedProcesses(mark).length).toBeGreaterThanOrEqual(3);
		await s.session.abort();
		await done;
		expect(markedProcesses(mark)).toEqual([]);
		expect(s.session.isStreaming).toBe(false);
		expect(s.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		const end = s.events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "call-b", isError: true });
		expect(JSON.stringify(end)).toContain("Command aborted");
		expect(orphanToolMessages(s.session.sessionFile!)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
	});

	it("oh-my-pi#1347: the tool's own timeout ends a `timeout 60 …` chain at once, with all of its processes, and the turn goes on", async () => {
		const mark = marker();
		const s = await diskSession();
		open.push(s);
		s.provider.answer(
			s.provider.bashCallReply(wedgingCommand(mark, 60), "call-t", { timeout: 0.3 }),
			"the command timed out",
		);
		await s.session.prompt("run the model server for a minute");
		const end = s.events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "call-t", isError: true });
		expect(JSON.stringify(end)).toContain("Command timed out after 0.3 seconds");
		expect(markedProcesses(mark)).toEqual([]);
		expect(s.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(s.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
	});

	it("oh-my-pi#8829: disposing the runtime while such a command runs leaves no process of it behind", async () => {
		const mark = marker();
		const { provider, runtime } = await manualDiskRuntime();
		const session = runtime.session;
		provider.answer(provider.bashCallReply(wedgingCommand(mark), "call-d"));
		const ready = streamed(session, "ready");
		const running = session.prompt("start the daemon").catch((error: unknown) => (error as { code?: string }).code);
		await ready;
		expect(markedProcesses(mark).length).toBeGreaterThanOrEqual(3);
		const file = session.sessionFile!;
		await runtime.dispose();
		expect(markedProcesses(mark)).toEqual([]);
		expect(await running).toBe("SESSION_CLOSED");
		// The old file keeps the call's result: the session resumes without a dangling tool call.
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
	});

	it("oh-my-pi#8829: abortBash() during a user `!` command of the same kind ends all of its processes", async () => {
		const mark = marker();
		const s = await diskSession();
		open.push(s);
		const { ready, result } = userCommand(s.session, wedgingCommand(mark));
		await ready;
		expect(markedProcesses(mark).length).toBeGreaterThanOrEqual(3);
		s.session.abortBash();
		expect(await result).toMatchObject({ cancelled: true });
		expect(markedProcesses(mark)).toEqual([]);
	});

	it("pi#9460: when the command's own `timeout` gives up and a SIGTERM-ignoring descendant keeps the pipe open, the call still returns with the command's output", async () => {
		const mark = marker();
		const s = await diskSession();
		open.push(s);
		// timeout's child dies on SIGTERM; its background child ignores it and holds stdout.
		const command = `export ${mark}=1; timeout 0.2 sh -c '(trap "" TERM; exec sleep 300) & echo ready; wait'; echo "exit $?"`;
		s.provider.answer(s.provider.bashCallReply(command, "call-t"), "the build timed out");
		await s.session.prompt("run the tests with a timeout");
		const end = s.events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "call-t", isError: false });
		expect(JSON.stringify(end)).toContain("exit 124");
		expect(s.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(s.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		// A command that ended normally keeps what it left running (as `server &` would); the test cleans it up.
		expect(markedProcesses(mark).length).toBeGreaterThan(0);
	});

	it("pi#7636: a command that starts a daemon inheriting its stdout (`node -e setInterval… &`) returns once the shell is done, with its output; the session goes on", async () => {
		const mark = marker();
		const s = await diskSession();
		open.push(s);
		// The daemon never exits and keeps the tool's stdout and stderr open (no redirection).
		const command = `export ${mark}=1; node -e 'setInterval(() => {}, 1000)' & echo "started $!"; echo done`;
		s.provider.answer(s.provider.bashCallReply(command, "call-d"), "the dev server is up");
		await s.session.prompt("start the dev server");
		const end = s.events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "call-d", isError: false });
		expect(JSON.stringify(end)).toMatch(/started \d+\\ndone/);
		expect(s.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(s.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "the dev server is up" }] });
		// The daemon is still running, as the user asked (the test ends it).
		expect(markedProcesses(mark).length).toBeGreaterThan(0);
	});

	it("oh-my-pi#865: two user commands running at once (an RPC bash while a `!` command runs): abortBash() ends both, each result says cancelled and joins the transcript, and no process of either is left", async () => {
		const first = marker();
		const second = marker();
		const s = await diskSession();
		open.push(s);
		const one = userCommand(s.session, markedSleepCommand(first));
		await one.ready;
		const two = userCommand(s.session, markedSleepCommand(second));
		await two.ready;
		expect(markedProcesses(first).length).toBeGreaterThan(0);
		expect(markedProcesses(second).length).toBeGreaterThan(0);
		s.session.abortBash();
		expect(await one.result).toMatchObject({ cancelled: true });
		expect(await two.result).toMatchObject({ cancelled: true });
		expect(s.session.isBashRunning).toBe(false);
		expect(markedProcesses(first)).toEqual([]);
		expect(markedProcesses(second)).toEqual([]);
		// Both join the transcript (the file is written from the first answer on, as in pi).
		const saved = s.session.messages.filter((message) => message.role === "bashExecution");
		expect(saved).toHaveLength(2);
		expect(saved.every((message) => (message as { cancelled?: boolean }).cancelled === true)).toBe(true);
	});

	it("claude-code#93996: newSession() (`/new`) while the model's bash call and a `!` command run ends every process of both; the old file answers the call and records the `!` command as cancelled (review11), and the new session works", async () => {
		const tool = marker();
		const user = marker();
		const { provider, runtime } = await manualDiskRuntime();
		const old = runtime.session;
		provider.answer(provider.bashCallReply(wedgingCommand(tool), "call-n"));
		const toolReady = streamed(old, "ready");
		const running = old.prompt("type-check the project").catch((error: unknown) => (error as { code?: string }).code);
		await toolReady;
		const bang = userCommand(old, markedSleepCommand(user));
		const userRun = bang.result.catch((error: unknown) => (error as { code?: string }).code);
		await bang.ready;
		expect(markedProcesses(tool).length).toBeGreaterThanOrEqual(3);
		expect(markedProcesses(user).length).toBeGreaterThan(0);
		const oldFile = old.sessionFile!;
		await runtime.newSession();
		expect(markedProcesses(tool)).toEqual([]);
		expect(markedProcesses(user)).toEqual([]);
		expect(await running).toBe("SESSION_CLOSED");
		expect(await userRun).toMatchObject({ cancelled: true, output: expect.stringContaining("ready") });
		expect(orphanToolMessages(oldFile)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		const recorded = readFileSync(oldFile, "utf8")
			.split("\n")
			.filter((line) => line.includes('"bashExecution"'))
			.map((line) => JSON.parse(line).message);
		expect(recorded).toEqual([expect.objectContaining({ command: markedSleepCommand(user), cancelled: true })]);
		provider.answer("fresh start");
		await runtime.session.prompt("hello");
		expect(runtime.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "fresh start" }] });
		await runtime.dispose();
	});

	it("opencode#22012: a server started with `&` that keeps printing to the inherited stdout does not hold the call: it returns with the foreground's output and the session goes on", async () => {
		const mark = marker();
		const s = await diskSession();
		open.push(s);
		// The "server" writes a line every 10 ms to the tool's own stdout, forever (no redirection, no setsid).
		const command = `export ${mark}=1; node -e 'setInterval(() => console.log("INFO: 127.0.0.1 - GET /health 200"), 10)' & sleep 0.5; echo 'Foreground done'`;
		s.provider.answer(s.provider.bashCallReply(command, "call-u"), "the server is up");
		await s.session.prompt("start the server and check it");
		const end = s.events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "call-u", isError: false });
		expect(JSON.stringify(end)).toContain("GET /health 200");
		expect(JSON.stringify(end)).toContain("Foreground done");
		expect(s.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(s.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "the server is up" }] });
		// The server still runs, as the user asked (the test ends it): also after many more of its lines,
		// each of which killed it (EPIPE) when the call's pipe was closed behind it.
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(markedProcesses(mark).length).toBeGreaterThan(0);
	});
});
