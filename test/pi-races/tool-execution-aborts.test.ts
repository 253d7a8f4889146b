/**
 * pi's reports about tools that hang, get aborted or time out, replayed against Settle with real
 * child processes (a real `settle --rpc` process with an extension file, or the SDK with the real
 * bash tool and its processes).
 *
 * - pi#9709, pi#2716: Esc during a running tool killed pi with `uncaughtException: AbortError`: an
 *   abort listener rethrew `signal.reason`, whose stack is the abort's own (Agent.abort), so no
 *   extension could be blamed and the process died.
 * - oh-my-pi#8798: five parallel calls, two answered, three never settle: Esc hung and quitting
 *   timed out; only `kill -9` helped.
 * - prime-agent#346 (review of its abort race): an aborted call that ignores its signal was given up
 *   while it kept running, and the sequential batch then started the next call, so two tools ran at
 *   once and side effects went on after Ctrl+C.
 * - pi#6787: a `timeout` bash call whose command leaves a `setsid` descendant writing to the
 *   inherited stdout never returned: each write re-armed the wait for the pipes to close.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/index.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/testing/index.js";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { diskSession, diskSessionsPerTest, fileMessages, orphanToolMessages } from "./disk-harness.js";
import { comparable, reopenedContext } from "./helpers.js";
import { markersPerTest } from "./processes.js";

const cli = useCliProject("settle-pi-races-tool-aborts-");
const { open } = diskSessionsPerTest();
const marker = markersPerTest();

/** `settle --rpc` in the CLI project on the faux script `steps`, with the extension file `source`. */
function rpcWithExtension(source: string, steps: unknown[]): RpcClient {
	const extension = join(cli.dir, "tools.ts");
	writeFileSync(extension, source);
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify(steps));
	return new RpcClient(["--faux-script", script, "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
}

/** `awaited`, or a failure naming the exit code and stderr as soon as the process ends first. */
function whileAlive<T>(client: RpcClient, awaited: Promise<T>): Promise<T> {
	const died = client.exited.then((code) => {
		throw new Error(`settle exited with ${code} first: ${client.stderr}`);
	});
	return Promise.race([awaited, died]);
}

type ToolEnd = { toolCallId: string; isError: boolean; result: { content: { text?: string }[] } };
const endText = (end: ToolEnd) => end.result.content.map((part) => part.text ?? "").join("");

describe("pi#9709, pi#2716: Esc during a running tool exits pi with uncaughtException: AbortError", () => {
	it("pi#9709: settle --rpc: an extension tool whose abort listener rethrows signal.reason is aborted; the process lives on, the call has a result, and the next prompt is answered", async () => {
		// The report's root-cause repro, inside a tool: the listener throws the run's abort reason.
		const client = rpcWithExtension(
			`export default function (pi) {
	pi.registerTool({
		name: "download",
		label: "download",
		description: "downloads a large file",
		parameters: { type: "object", properties: {} },
		execute: (_id, _params, signal) =>
			new Promise((resolve) => {
				signal.addEventListener("abort", () => { throw signal.reason; });
				signal.addEventListener("abort", () => resolve({ content: [{ type: "text", text: "download stopped" }], details: {} }));
			}),
	});
}
`,
			[{ toolCalls: [{ name: "download", arguments: {} }] }, "answered after the abort"],
		);
		const started = client.next((line) => line.type === "tool_execution_start");
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p1", type: "prompt", message: "download the dataset" })).toMatchObject({
			success: true,
		});
		await started;
		expect(await client.request({ id: "a", type: "abort" })).toMatchObject({ success: true });
		await whileAlive(client, settled);
		const end = client.lines.find((line) => line.type === "tool_execution_end") as ToolEnd;
		expect(endText(end)).toBe("download stopped");

		// Still alive: the next prompt is answered, and the session ends normally.
		const again = client.next((line) => line.type === "agent_settled");
		expect(
			await whileAlive(client, client.request({ id: "p2", type: "prompt", message: "what happened?" })),
		).toMatchObject({ success: true });
		await whileAlive(client, again);
		const state = (await client.request({ id: "s", type: "get_state" })) as {
			data: { isStreaming: boolean; sessionFile: string };
		};
		expect(state.data.isStreaming).toBe(false);
		expect(client.lines.filter((line) => line.type === "agent_end").at(-1)).toMatchObject({
			messages: expect.arrayContaining([
				expect.objectContaining({ role: "assistant", content: [{ type: "text", text: "answered after the abort" }] }),
			]),
		});
		expect(await client.end()).toBe(0);
		expect(client.stderr).not.toContain("AbortError");
		expect(orphanToolMessages(state.data.sessionFile)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
	});
});

describe("oh-my-pi#8798: a tool call whose promise never settles wedges the turn permanently; Esc and quit both hang", () => {
	it("oh-my-pi#8798: settle --rpc: five parallel calls, three never settle: abort ends the run with the two real results and three error results, the next prompt is answered, and closing stdin exits 0", async () => {
		// web_search answers "a" and "b"; "c", "d" and "e" never settle and ignore the signal.
		const client = rpcWithExtension(
			`export default function (pi) {
	pi.registerTool({
		name: "web_search",
		label: "web_search",
		description: "searches the web",
		parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
		execute: (_id, params) =>
			params.q === "a" || params.q === "b"
				? Promise.resolve({ content: [{ type: "text", text: "found " + params.q }], details: {} })
				: new Promise(() => {}),
	});
}
`,
			[
				{ toolCalls: ["a", "b", "c", "d", "e"].map((q) => ({ name: "web_search", arguments: { q } })) },
				"answered after the abort",
			],
		);
		let ended = 0;
		const answered = client.next((line) => line.type === "tool_execution_end" && ++ended === 2);
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p1", type: "prompt", message: "search five things" })).toMatchObject({
			success: true,
		});
		// Both answered calls have ended: only the three hung ones are left.
		await answered;
		expect(await client.request({ id: "a", type: "abort" })).toMatchObject({ success: true });
		await whileAlive(client, settled);
		const ends = client.lines.filter((line) => line.type === "tool_execution_end") as ToolEnd[];
		expect(ends.filter((end) => !end.isError).map(endText)).toEqual(["found a", "found b"]);
		expect(ends.filter((end) => end.isError)).toHaveLength(3);

		const again = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p2", type: "prompt", message: "and now?" })).toMatchObject({ success: true });
		await again;
		const state = (await client.request({ id: "s", type: "get_state" })) as {
			data: { isStreaming: boolean; sessionFile: string };
		};
		expect(state.data.isStreaming).toBe(false);
		// Quitting does not hang on the three promises that never settle.
		expect(await client.end()).toBe(0);
		expect(orphanToolMessages(state.data.sessionFile)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
	});
});

describe("pi#6787: enforce bash timeout when detached descendants keep stdio active", () => {
	it("pi#6787: a bash call with `timeout` whose command leaves a setsid descendant printing to the inherited stdout returns at its timeout with the output so far; the turn goes on", async () => {
		const mark = marker();
		const s = await diskSession();
		open.push(s);
		// The descendant starts a session of its own (escapes the kill) and writes every 20 ms, forever.
		const command = `export ${mark}=1; setsid sh -c 'while :; do echo tick; sleep 0.02; done' & sleep 60`;
		s.provider.answer(
			{
				...fauxAssistantMessage([fauxToolCall("bash", { command, timeout: 0.5 }, { id: "call-t" })], {
					stopReason: "toolUse",
				}),
				api: s.provider.model.api,
				provider: s.provider.model.provider,
				model: s.provider.model.id,
			},
			"the watcher timed out",
		);
		await s.session.prompt("run the watcher for a bit");
		const end = s.events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "call-t", isError: true });
		expect(JSON.stringify(end)).toContain("tick");
		expect(JSON.stringify(end)).toContain("Command timed out after 0.5 seconds");
		// The descendant left the command's session, so the kill missed it; once the call stopped reading,
		// its next write hits a closed pipe (the test's cleanup ends it in any case).
		expect(s.session.messages.at(-1)).toMatchObject({
			role: "assistant",
			content: [{ text: "the watcher timed out" }],
		});
		expect(s.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(s.session.isStreaming).toBe(false);
	});
});

describe("prime-agent#346: sequential tools run after abort", () => {
	it("prime-agent#346: abort while a sequential call ignores its signal: after the grace it gets an error, the next call of the batch never starts, and its late result reaches neither the events nor the file", async () => {
		let deployStarted!: () => void;
		const started = new Promise<void>((resolve) => (deployStarted = resolve));
		let finishDeploy!: () => void;
		const deployDone = new Promise<void>((resolve) => (finishDeploy = resolve));
		let notifyRuns = 0;
		// deploy ignores its signal and returns only when the test lets it (after the abort settled).
		const deploy: AgentTool = {
			name: "deploy",
			label: "Deploy",
			description: "deploys the release",
			executionMode: "sequential",
			parameters: { type: "object", properties: {} } as never,
			execute: async () => {
				deployStarted();
				await deployDone;
				return { content: [{ type: "text", text: "deployed late" }], details: {} };
			},
		};
		const notify: AgentTool = {
			name: "notify",
			label: "Notify",
			description: "tells the team",
			parameters: { type: "object", properties: {} } as never,
			execute: async () => {
				notifyRuns++;
				return { content: [{ type: "text", text: "team notified" }], details: {} };
			},
		};
		const s = await diskSession({ customTools: [deploy, notify] });
		open.push(s);
		s.provider.answer(
			s.provider.toolCallReply(
				fauxToolCall("deploy", {}, { id: "call-deploy" }),
				fauxToolCall("notify", {}, { id: "call-notify" }),
			),
		);
		const done = s.session.prompt("deploy, then tell the team");
		await started;
		const aborted = s.session.abort();
		s.clock.increment(1000);
		await aborted;
		await done;
		expect(notifyRuns).toBe(0);
		const ends = () => s.events.filter((e) => e.type === "tool_execution_end");
		expect(ends().map((e) => [e.toolCallId, e.isError])).toEqual([
			["call-deploy", true],
			["call-notify", true],
		]);
		expect(s.events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(s.session.isStreaming).toBe(false);
		const file = s.session.sessionFile!;
		const saved = readFileSync(file, "utf8");

		// The abandoned call returns now: nothing of it is reported or written, and nothing else runs.
		finishDeploy();
		for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
		expect(ends()).toHaveLength(2);
		expect(readFileSync(file, "utf8")).toBe(saved);
		expect(notifyRuns).toBe(0);

		// The next prompt sees one result per call and none of the late text.
		s.provider.answer("the deploy was interrupted");
		await s.session.prompt("what happened?");
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		expect(fileMessages(file).filter((m) => m.role === "toolResult")).toHaveLength(2);
		expect(JSON.stringify(s.session.messages)).not.toContain("deployed late");
		expect(reopenedContext(file).map(comparable)).toEqual(s.session.messages.map(comparable));
	});
});
