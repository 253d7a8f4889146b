/**
 * Tool calls a model makes oddly, replayed with real `settle -p` processes against a local server
 * speaking OpenAI Chat Completions as Ollama does (each call whole in one chunk), the provider
 * declared in `models.json` as its users declare it.
 *
 * - pi#5816, nanocoder#3: a model (gpt-oss) calls a tool that does not exist (`search`). nanocoder
 *   crashed; pi answered "Tool search not found". What the user should see: the model told, the
 *   other calls of the answer run, the loop going on to the model's next answer.
 * - autogen#4878, CLIProxyAPI#866: Gemini's OpenAI-compatible endpoint (or a proxy in front of it)
 *   ends a tool-calling answer `finish_reason: "stop"`, the call's `id` an empty string: agents that
 *   waited for `tool_calls` stopped there, the tool never ran.
 * - qwen-code#288, cline#10518: a model writes a call's arguments as JSON that does not parse
 *   (Python quotes: `"paths": ['app.py', …]`): "Failed to parse final tool call arguments", the
 *   run failed. What the user should see: that call not run (nothing written from half-read
 *   arguments), the model told why, its sibling call run, the loop going on.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, type SseEvent, sse, startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-odd-tool-calls-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function start(): Promise<WireServer> {
	server = await startWireServer();
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	return server;
}

function settle(args: string[]) {
	return runSettleAsync(["--session-dir", join(cli.dir, "sessions"), "--model", "local/coder", ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): SseEvent {
	return {
		data: {
			id: "chatcmpl-odd",
			object: "chat.completion.chunk",
			created: 1_775_700_000,
			model: "coder",
			choices: [{ index: 0, delta: { role: "assistant", content: "", ...delta }, finish_reason: finishReason }],
		},
	};
}

/** An answer of whole tool calls, each `[name, raw argument text]`, as Ollama streams them. */
function calls(...list: [name: string, args: string][]) {
	return sse([
		chunk({
			tool_calls: list.map(([name, args], index) => ({
				index,
				id: `call_odd_${index}`,
				type: "function",
				function: { name, arguments: args },
			})),
		}),
		chunk({}, "tool_calls"),
		{ data: "[DONE]" },
	]);
}

type Sent = { role: string; content?: unknown; tool_call_id?: string };
const toolMessages = (request: RecordedRequest) =>
	(request.body as { messages: Sent[] }).messages
		.filter((m) => m.role === "tool")
		.map((m) => ({ id: m.tool_call_id, content: m.content }));

describe("pi#5816 / nanocoder#3: a call to a tool that does not exist", () => {
	it("pi#5816: `search` is answered 'Tool search not found', the bash call beside it runs, both results in call order; the next answer is printed, exit 0", async () => {
		const wire = await start();
		wire.reply(
			calls(["search", JSON.stringify({ query: "TODO" })], ["bash", JSON.stringify({ command: "echo found-it" })]),
			chatReply([{ type: "text", text: "Used bash instead." }], { model: "coder" }),
		);
		const run = await settle(["-p", "find the TODOs"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Used bash instead.\n");
		expect(run.code).toBe(0);
		expect(toolMessages(wire.requests[1]!)).toEqual([
			{ id: "call_odd_0", content: "Tool search not found" },
			{ id: "call_odd_1", content: "found-it\n" },
		]);
	});
});

describe("qwen-code#288 / cline#10518: arguments that are not JSON", () => {
	it("qwen-code#288: a write whose arguments use Python quotes is not run and the model is told why; the bash call beside it runs; the next answer is printed", async () => {
		const wire = await start();
		wire.reply(
			calls(["write", `{"path": 'notes.txt', "content": 'hello'}`], ["bash", JSON.stringify({ command: "echo ok" })]),
			chatReply([{ type: "text", text: "Rewrote the call." }], { model: "coder" }),
		);
		const run = await settle(["-p", "save a note"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Rewrote the call.\n");
		expect(run.code).toBe(0);
		expect(existsSync(join(cli.project, "notes.txt"))).toBe(false);
		const [write, bash] = toolMessages(wire.requests[1]!);
		expect(write).toMatchObject({ id: "call_odd_0" });
		expect(write!.content).toMatch(/^Tool call "write" was not executed: its streamed arguments are not valid JSON/);
		expect(bash).toEqual({ id: "call_odd_1", content: "ok\n" });
	});
});

describe("autogen#4878 / CLIProxyAPI#866: Gemini's OpenAI endpoint: a call with an empty id, finished stop", () => {
	it("autogen#4878: the call runs; its result goes back under the id the call is replayed with (not empty); the next answer is printed", async () => {
		const wire = await start();
		wire.reply(
			sse([
				chunk({
					tool_calls: [
						{
							index: 0,
							id: "",
							type: "function",
							function: { name: "bash", arguments: '{"command":"echo searched"}' },
						},
					],
				}),
				chunk({}, "stop"),
				{ data: "[DONE]" },
			]),
			chatReply([{ type: "text", text: "Searched." }], { model: "coder" }),
		);
		const run = await settle(["-p", "search for AutoGen"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Searched.\n");
		expect(run.code).toBe(0);
		const messages = (wire.requests[1]!.body as { messages: (Sent & { tool_calls?: { id: string }[] })[] }).messages;
		const callId = messages.find((m) => m.role === "assistant")?.tool_calls?.[0]?.id;
		expect(callId).toBeTruthy();
		expect(toolMessages(wire.requests[1]!)).toEqual([{ id: callId, content: "searched\n" }]);
	});
});
