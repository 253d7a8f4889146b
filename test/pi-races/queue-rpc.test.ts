/**
 * pi's reports about aborts, steers and stdin in the RPC and print modes, replayed against real
 * `settle` child processes on the scripted faux model and a real disk session with the real tools.
 *
 * - pi#8091: over RPC, `abort_bash` did not stop the `sleep` the MODEL ran with its bash tool;
 *   `abort` did. pi answered no-action: `abort_bash` cancels the client's own `bash` command.
 * - pi#8587: an embedder that touched `process.stdin` before the CLI's entry ran (`resume()`, or
 *   a destroyed stdin) left `pi -p` and `pi --mode rpc` exiting 0 without a word: the line reader
 *   waited for an `end` that had already come, or never would.
 * - pi#1883 / oh-my-pi#4752: a steer sent while the first tool of an answer's batch runs let that
 *   tool run but skipped the others ("Skipped due to queued user message"), or replaced a tool's
 *   finished result with the skip placeholder.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { RpcClient, runSettle, useCliProject } from "../cli/helpers.js";
import { script, userTexts } from "./helpers.js";

const cli = useCliProject("settle-pi-races-queue-rpc-");

function scriptFile(name: string, steps: unknown[]): string {
	const file = join(cli.dir, `${name}.json`);
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

/** A bash command that prints `started`, waits until `file` exists, then prints `released`. */
const waitFor = (file: string) => `echo started; until [ -e '${file}' ]; do sleep 0.05; done; echo released`;

describe("pi#8091: RPC abort_bash does not stop the bash the model runs", () => {
	it("pi#8091: settle --rpc: abort_bash while the model's bash tool runs is answered and leaves the tool alone (it finishes with its output); abort stops it", async () => {
		const go = join(cli.dir, "abort-bash-go");
		const never = join(cli.dir, "abort-bash-never");
		const file = scriptFile("abort-bash", [
			{ toolCalls: [{ name: "bash", arguments: { command: waitFor(go) }, id: "call-1" }] },
			"the tool finished",
			{ toolCalls: [{ name: "bash", arguments: { command: waitFor(never) }, id: "call-2" }] },
		]);
		const client = new RpcClient(["--faux-script", file, "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });

		// abort_bash cancels the client's own `bash` commands, not the model's tool (as pi).
		let started = client.next((line) => line.type === "tool_execution_start");
		let settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p1", type: "prompt", message: "wait for go" })).toMatchObject({
			success: true,
		});
		await started;
		expect(await client.request({ id: "ab", type: "abort_bash" })).toMatchObject({ success: true });
		expect(await client.request({ id: "s1", type: "get_state" })).toMatchObject({ data: { isStreaming: true } });
		writeFileSync(go, "");
		await settled;
		const firstEnd = client.lines.find((line) => line.type === "tool_execution_end") as Record<string, unknown>;
		expect(firstEnd).toMatchObject({ toolCallId: "call-1", isError: false });
		expect(JSON.stringify(firstEnd.result)).toContain("started\\nreleased");

		// abort is what stops it: the run ends although the file never appears.
		started = client.next((line) => line.type === "tool_execution_start" && line.toolCallId === "call-2");
		settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p2", type: "prompt", message: "wait forever" })).toMatchObject({
			success: true,
		});
		await started;
		expect(await client.request({ id: "a", type: "abort" })).toMatchObject({ success: true });
		await settled;
		const secondEnd = client.lines.find(
			(line) => line.type === "tool_execution_end" && line.toolCallId === "call-2",
		) as Record<string, unknown>;
		expect(secondEnd).toMatchObject({ isError: true });
		expect(JSON.stringify(secondEnd.result)).not.toContain("released");
		expect(await client.request({ id: "s2", type: "get_state" })).toMatchObject({ data: { isStreaming: false } });
		expect(await client.end()).toBe(0);
	});
});

/** An embedder of the CLI (as bin/settle.js): does `before` to process.stdin, then runs `runCli`. */
function embedder(name: string, before: string): string {
	const file = join(cli.dir, `${name}.mjs`);
	writeFileSync(
		file,
		`${before}\nconst { runCli } = await import(${JSON.stringify(cliBundle())});\nawait runCli(process.argv.slice(2));\n`,
	);
	return file;
}

/** Reads stdin to its end with nobody listening, as a wrapper that called `process.stdin.resume()`. */
const CONSUMED = `process.stdin.resume();\nawait new Promise((done) => process.stdin.once("end", done));`;
const DESTROYED = "process.stdin.destroy();";
const DESTROYED_MESSAGE = (reads: string) =>
	`Error: stdin was closed before settle could read ${reads}: something else in this process destroyed it. Start settle as its own process, or leave process.stdin untouched before calling runCli.\n`;

describe("pi#8587: -p and --mode rpc exit 0 silently when stdin was consumed before the CLI entry runs", () => {
	const run = (wrapper: string, args: string[]) =>
		runSettle(["--faux", "--no-session", ...args], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			command: [wrapper],
			timeoutMs: 30_000,
		});

	it("pi#8587: settle --rpc after stdin was read to its end by someone else: no commands, exit 0 (it said the run waits on a promise that never settles, exit 1)", () => {
		expect(run(embedder("consumed", CONSUMED), ["--rpc"])).toEqual({ code: 0, stdout: "", stderr: "" });
	});

	it("pi#8587: settle -p after stdin was read to its end by someone else: the prompt is answered, exit 0", () => {
		expect(run(embedder("consumed-p", CONSUMED), ["-p", "hello"])).toEqual({
			code: 0,
			stdout: "hello\n",
			stderr: "",
		});
	});

	it("pi#8587: a destroyed stdin: settle -p and settle --rpc exit 1 and say what happened and what to do (it was `Premature close`, or a stall)", () => {
		const wrapper = embedder("destroyed", DESTROYED);
		expect(run(wrapper, ["-p"])).toEqual({ code: 1, stdout: "", stderr: DESTROYED_MESSAGE("the piped prompt") });
		expect(run(wrapper, ["--rpc"])).toEqual({ code: 1, stdout: "", stderr: DESTROYED_MESSAGE("RPC commands") });
	});
});

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("pi#1883, oh-my-pi#4752: a steer sent while a tool runs skips the batch's other tool calls", () => {
	it("pi#1883, oh-my-pi#4752: a steer sent while the first of two tool calls runs: both run with their real results (no skip placeholder), the file is written, the steer follows the results", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash", "write"] });
		const harness = h;
		const go = join(harness.tempDir, "go");
		let steered: Promise<string> | undefined;
		const unsubscribe = harness.session.subscribe((event) => {
			if (event.type === "tool_execution_start" && event.toolCallId === "call-wait") {
				// The first tool is running: steer, then let it finish.
				steered = harness.session.steer("stop and say hi");
				void steered.then(() => writeFileSync(go, ""));
			}
		});
		const { answerRequests } = script(harness, [
			fauxAssistantMessage(
				[
					fauxToolCall("bash", { command: waitFor(go) }, { id: "call-wait" }),
					fauxToolCall("write", { path: "notes.txt", content: "kept" }, { id: "call-write" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("hi"),
		]);
		await harness.session.prompt("wait, then write the notes");
		unsubscribe();
		expect(await steered).toBe("queued");

		const results = harness.session.messages.filter((message) => message.role === "toolResult");
		expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
			["call-wait", false],
			["call-write", false],
		]);
		expect(JSON.stringify(results[0]!.content)).toContain("started\\nreleased");
		expect(JSON.stringify(results)).not.toMatch(/Skipped/i);
		expect(readFileSync(join(harness.tempDir, "notes.txt"), "utf8")).toBe("kept");
		expect(answerRequests).toHaveLength(2);
		const second = answerRequests[1] as Context;
		expect(userTexts(second)).toEqual(["wait, then write the notes", "stop and say hi"]);
		expect(second.messages.slice(-3).map((message) => message.role)).toEqual(["toolResult", "toolResult", "user"]);
	});
});

describe("an RPC follow_up sent while the session is idle", () => {
	it("settle --rpc: follow_up while idle starts no run: answered queued, listed by queue_update and get_state; the next prompt's run answers the prompt, then the follow-up, in one operation (as pi 0.73.1's RPC mode)", async () => {
		const file = scriptFile("idle-follow-up", ["answered the prompt", "answered the follow-up"]);
		const client = new RpcClient(["--faux-script", file, "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });

		const listed = client.next((line) => line.type === "queue_update");
		expect(await client.request({ id: "f1", type: "follow_up", message: "also this" })).toMatchObject({
			success: true,
			data: { disposition: "queued" },
		});
		expect(await listed).toMatchObject({ steering: [], followUp: ["also this"] });
		expect(await client.request({ id: "s1", type: "get_state" })).toMatchObject({
			data: { isStreaming: false, pendingMessageCount: 1 },
		});

		await client.promptAndSettle("the prompt", "p1");
		const { data } = (await client.request({ id: "m1", type: "get_messages" })) as {
			data: { messages: { role: string; content: unknown }[] };
		};
		const texts = data.messages
			.filter((message) => message.role !== "system")
			.map((message) => {
				const content = message.content;
				const text =
					typeof content === "string"
						? content
						: (content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("");
				return `${message.role}: ${text}`;
			});
		expect(texts).toEqual([
			"user: the prompt",
			"assistant: answered the prompt",
			"user: also this",
			"assistant: answered the follow-up",
		]);
		expect(client.lines.filter((line) => line.type === "agent_settled")).toHaveLength(1);
		expect(await client.request({ id: "s2", type: "get_state" })).toMatchObject({
			data: { isStreaming: false, pendingMessageCount: 0 },
		});
		expect(await client.end()).toBe(0);
	});
});

describe("hermes-webui#4533, openclaw#35191: a queue shown for one session outlives it", () => {
	it("hermes-webui#4533: settle --rpc: new_session while a steer and a follow-up wait ends the stream's queue too: the last queue_update lists nothing, as get_state says, and the new session never gets them", async () => {
		const go = join(cli.dir, "replaced-queue-go");
		const file = scriptFile("replaced-queue", [
			{ toolCalls: [{ name: "bash", arguments: { command: waitFor(go) }, id: "call-1" }] },
			"answered in the new session",
		]);
		const client = new RpcClient(["--faux-script", file], { cwd: cli.project, agentDir: cli.agentDir });
		const started = client.next((line) => line.type === "tool_execution_start");
		expect(await client.request({ id: "p1", type: "prompt", message: "wait for go" })).toMatchObject({ success: true });
		await started;
		expect(await client.request({ id: "st", type: "steer", message: "steer of the old session" })).toMatchObject({
			data: { disposition: "queued" },
		});
		expect(
			await client.request({ id: "fu", type: "follow_up", message: "follow-up of the old session" }),
		).toMatchObject({ data: { disposition: "queued" } });
		expect(await client.request({ id: "n", type: "new_session" })).toMatchObject({ success: true });
		// What a client showing the queue from the stream last read: the new session's lists.
		const lastQueue = client.lines.filter((line) => line.type === "queue_update").at(-1);
		expect(lastQueue).toEqual({ type: "queue_update", steering: [], followUp: [] });
		const state = (await client.request({ id: "s", type: "get_state" })) as {
			data: { pendingMessageCount: number; sessionFile: string };
		};
		expect(state.data.pendingMessageCount).toBe(0);
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p2", type: "prompt", message: "hello new session" })).toMatchObject({
			success: true,
		});
		await settled;
		const saved = readFileSync(state.data.sessionFile, "utf8");
		expect(saved).toContain("hello new session");
		expect(saved).not.toContain("of the old session");
		expect(await client.end()).toBe(0);
	});
});
