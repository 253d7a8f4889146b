/**
 * Reports about processes a bash command leaves in the background, replayed with real child
 * processes (real bash, real `node` servers, a real `settle -p`):
 * - opencode#47350 (and its duplicate opencode#48414), anthropic-sdk-go#390: a background process
 *   that holds the tool's stdout without writing to it (`sleep 3 &`), or that left the process group
 *   (`setsid`), kept the call from ever returning; opencode#20902 and pi#1189 (`nohup … &`,
 *   `(… &)`) the same.
 * - opencode#20403: after a bash call hit its timeout, the dev server an earlier call had started
 *   in the background was dead too: localhost no longer answered.
 * - claude-code#82433, claude-code#79902: a call that hit its timeout left its `&` busy loops and the
 *   rest of its pipeline running under init for hours.
 * - claude-code#45717: a bash call's timeout (and a command signalling its own process group) took
 *   the agent down with it: the pane died with status 143.
 * - OpenHands/software-agent-sdk#3120: a timed-out command got SIGKILL before any SIGTERM, so its
 *   `trap 'cleanup' EXIT` never ran and left its PID files and temp folders behind.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { isProcessRunning } from "../tools/helpers.js";
import { type DiskSession, diskSessionsPerTest } from "./disk-harness.js";
import { markedProcesses, markersPerTest } from "./processes.js";

const cli = useCliProject("settle-pi-races-background-");
const { session } = diskSessionsPerTest();
const marker = markersPerTest();

/** The `tool_execution_end` event of call `id`, as JSON text with its error flag. */
function callEnd(s: DiskSession, id: string): { isError: boolean; text: string } {
	const end = s.events.find((e) => e.type === "tool_execution_end" && e.toolCallId === id) as
		| { isError: boolean; result: { content: { text?: string }[] } }
		| undefined;
	if (!end) throw new Error(`no result for ${id}`);
	return { isError: end.isError, text: end.result.content.map((c) => c.text ?? "").join("") };
}

/** GET http://127.0.0.1:<port>/ : the status code, or the connection error's code. */
function get(port: number): Promise<number | string> {
	return new Promise((resolve) => {
		const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
		req.end();
	});
}

describe("opencode#47350 / anthropic-sdk-go#390 / opencode#20902 / pi#1189: a quiet background process holding the tool's output", () => {
	it("opencode#47350: `sleep &` writing nothing, a `setsid` holder outside the process group, `nohup … &`, `(… &)` and `& disown`: each call returns with its `OK`, and each holder runs on as asked", async () => {
		const mark = marker();
		const s = await session();
		const holders = ["sleep 300 &", "setsid sleep 300 &", "nohup sleep 300 &", "(sleep 300 &);", "sleep 300 & disown;"];
		// None redirects stdout or stderr: every holder keeps both of the call's pipes open.
		s.provider.answer(
			...holders.map((holder, i) => s.provider.bashCallReply(`export ${mark}=1; ${holder} echo OK-${i}`, `call-${i}`)),
			"all started",
		);
		await s.session.prompt("start the jobs in the background");
		for (const [i] of holders.entries()) expect(callEnd(s, `call-${i}`)).toEqual({ isError: false, text: `OK-${i}\n` });
		expect(s.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(s.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "all started" }] });
		// All five sleeps still run (the test ends them): the calls returned while the pipes were held.
		expect(markedProcesses(mark)).toHaveLength(holders.length);
	});
});

describe("opencode#20403: a later call's timeout does not kill the dev server an earlier call started", () => {
	it("opencode#20403: a server started with `&` in one call still answers on localhost after the next call timed out and the one after it was aborted", async () => {
		const mark = marker();
		const s = await session();
		const portFile = join(s.dir, "port");
		const server = `require("http").createServer((q, r) => r.end("ok")).listen(0, "127.0.0.1", function () { require("fs").writeFileSync(${JSON.stringify(portFile)}, String(this.address().port)); })`;
		const start = `export ${mark}=1; node -e '${server}' & until [ -s ${portFile} ]; do sleep 0.05; done; echo "listening on $(cat ${portFile})"`;
		s.provider.answer(
			s.provider.bashCallReply(start, "call-start"),
			s.provider.bashCallReply("sleep 30", "call-slow", { timeout: 0.5 }),
			"the tests timed out",
		);
		await s.session.prompt("start the dev server, then run the slow tests");
		expect(callEnd(s, "call-start")).toMatchObject({ isError: false });
		expect(callEnd(s, "call-slow")).toEqual({ isError: true, text: "Command timed out after 0.5 seconds" });
		const port = Number(readFileSync(portFile, "utf8"));
		expect(await get(port)).toBe(200);

		// An aborted call leaves it running too.
		s.provider.answer(s.provider.bashCallReply("echo ready; sleep 30", "call-abort"));
		const done = s.session.prompt("run them again");
		await new Promise<void>((resolve) => {
			const stop = s.session.subscribe((event) => {
				if (event.type === "tool_execution_update" && JSON.stringify(event.partialResult).includes("ready")) {
					stop();
					resolve();
				}
			});
		});
		await s.session.abort();
		await done;
		expect(callEnd(s, "call-abort")).toMatchObject({
			isError: true,
			text: expect.stringMatching(/^ready\n+Command aborted$/),
		});
		expect(await get(port)).toBe(200);
		expect(markedProcesses(mark)).toHaveLength(1);
	});
});

describe("claude-code#82433 / claude-code#79902: a timed-out call's background loops and pipeline", () => {
	it("claude-code#82433: the tool's timeout ends the `&` loops the command meant to `kill $(jobs -p)` at its end, and every process of its pipeline; none is left under init", async () => {
		const mark = marker();
		const s = await session();
		const pids = join(s.dir, "pids");
		writeFileSync(pids, "");
		// Each process writes its own pid once it runs (`exec` keeps it), so the test knows what to look for.
		const record = `echo $$ >> ${pids}`;
		const command = [
			`export ${mark}=1`,
			`for c in 1 2 3; do sh -c '${record}; while :; do sleep 0.05; done' & done`,
			"BUSY=$(jobs -p)",
			`until [ $(wc -l < ${pids}) -ge 3 ]; do sleep 0.05; done`,
			`sh -c '${record}; exec cat /dev/zero' | sh -c '${record}; exec grep -c needle'`,
			"kill $BUSY",
		].join("\n");
		s.provider.answer(s.provider.bashCallReply(command, "call-t", { timeout: 1 }), "the suite timed out");
		await s.session.prompt("run the suite under load");
		expect(callEnd(s, "call-t")).toEqual({ isError: true, text: "Command timed out after 1 second" });
		const started = readFileSync(pids, "utf8").trim().split("\n").map(Number);
		expect(started).toHaveLength(5);
		expect(started.filter(isProcessRunning)).toEqual([]);
		expect(markedProcesses(mark)).toEqual([]);
		expect(s.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "the suite timed out" }] });
	});
});

describe("claude-code#45717: a command's timeout or its own signals do not reach settle", () => {
	it("claude-code#45717: in a real `settle -p`, a call that hits its timeout and a command sending SIGTERM to its own process group (`kill 0`) each end as error results; settle answers and exits 0", async () => {
		const mark = marker();
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: `export ${mark}=1; sleep 300`, timeout: 1 } }] },
				{ toolCalls: [{ name: "bash", arguments: { command: `export ${mark}=1; sleep 300 & kill -TERM 0; wait` } }] },
				"the checks were cut short",
			]),
		);
		const args = ["--faux-script", script, "--tools", "bash", "--no-session", "--mode", "json", "-p", "make check"];
		// In a session of its own, as from a terminal: a signal that reached settle's group would not reach the test's.
		const run = await runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir, wrapper: ["setsid"] });
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const events = run.stdout
			.trim()
			.split("\n")
			.map(
				(line) => JSON.parse(line) as { type: string; isError?: boolean; result?: { content: { text?: string }[] } },
			);
		const results = events
			.filter((e) => e.type === "tool_execution_end")
			.map((e) => ({ isError: e.isError, text: e.result?.content.map((c) => c.text ?? "").join("") }));
		expect(results).toEqual([
			{ isError: true, text: "Command timed out after 1 second" },
			{ isError: true, text: "(no output)\n\nCommand exited with code 143" },
		]);
		expect(JSON.stringify(events.filter((e) => e.type === "agent_end"))).toContain("the checks were cut short");
		expect(markedProcesses(mark)).toEqual([]);
	});
});

describe("OpenHands/software-agent-sdk#3120: a timed-out command's cleanup trap", () => {
	it("OpenHands/software-agent-sdk#3120: at the tool's timeout the command's `trap … EXIT` runs: its lock file is removed and its word is in the result, before `Command timed out`; nothing of it is left", async () => {
		const mark = marker();
		const s = await session();
		const lock = join(s.dir, "build.lock");
		const command = `export ${mark}=1; trap 'rm -f ${lock}; echo "cleaned up"' EXIT; touch ${lock}; echo started; sleep 300`;
		s.provider.answer(s.provider.bashCallReply(command, "call-trap", { timeout: 1 }), "the build timed out");
		await s.session.prompt("build it");
		// bash may first report its `sleep` as "Terminated" (a line of its own, whichever of the two it sees first).
		expect(callEnd(s, "call-trap")).toEqual({
			isError: true,
			text: expect.stringMatching(/^started\n(?:.*Terminated.*\n)?cleaned up\n+Command timed out after 1 second$/),
		});
		expect(existsSync(lock)).toBe(false);
		expect(markedProcesses(mark)).toEqual([]);
		expect(s.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "the build timed out" }] });
	});

	it("OpenHands/software-agent-sdk#3120: a trap that never ends, and a process that ignores SIGTERM, still end with the call: SIGKILL follows", async () => {
		const mark = marker();
		const s = await session();
		const command = `export ${mark}=1; sh -c 'trap "" TERM; exec sleep 300' & trap 'echo stuck; sleep 300' EXIT; echo started; sleep 300`;
		s.provider.answer(s.provider.bashCallReply(command, "call-stuck", { timeout: 0.5 }), "the build timed out");
		await s.session.prompt("build it");
		expect(callEnd(s, "call-stuck")).toEqual({
			isError: true,
			text: expect.stringMatching(/^started\n(?:.*Terminated.*\n)?stuck\n+Command timed out after 0.5 seconds$/),
		});
		expect(markedProcesses(mark)).toEqual([]);
	});
});
