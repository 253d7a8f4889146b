/**
 * Quickstart: an offline agent session on the scripted faux provider, with one real tool call
 * that reads a real file. Prints the events as they happen.
 *
 *   npm run demo
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../src/agent/agent.js";
import type { AgentTool } from "../src/agent/types.js";
import { createFauxProvider, fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "../src/llm/faux.js";
import type { Message, ToolResultMessage } from "../src/llm/types.js";

const started = performance.now();
const dir = await mkdtemp(join(tmpdir(), "settle-quickstart-"));
const notes = join(dir, "notes.txt");
await writeFile(notes, "Settle runs agent sessions through explicit state machines.\nEvery event is awaited.\n");

// A real tool: reads a file from disk. `parameters` is JSON Schema; a TypeBox schema
// (`Type.Object({ path: Type.String() })`) works the same way.
const readTool: AgentTool<{ path: string }> = {
	name: "read",
	label: "Read file",
	description: "Read a text file",
	parameters: {
		type: "object",
		properties: { path: { type: "string", description: "Path of the file" } },
		required: ["path"],
	},
	async execute(_toolCallId, { path }) {
		const text = await readFile(path, "utf8");
		return { content: [{ type: "text", text }], details: { path, bytes: Buffer.byteLength(text) } };
	},
};

// The scripted model. Factories build each reply when the request arrives, from what it contains.
const faux = createFauxProvider();
faux.setResponses([
	() =>
		fauxAssistantMessage(
			[fauxThinking("The user wants a summary; read the file first."), fauxToolCall("read", { path: notes })],
			{
				stopReason: "toolUse",
			},
		),
	(context) => {
		const result = context.messages.findLast(
			(message: Message): message is ToolResultMessage => message.role === "toolResult",
		);
		const firstLine = result?.content[0]?.type === "text" ? result.content[0].text.split("\n")[0] : "(nothing)";
		return fauxAssistantMessage([fauxText(`The file starts with: "${firstLine}"`)]);
	},
]);

const agent = new Agent({
	streamFn: faux.streamFn,
	initialState: { model: faux.getModel(), systemPrompt: "You are a helpful assistant.", tools: [readTool] },
});

const out = (line: string) => process.stdout.write(`${line}\n`);
let turn = 0;
let streaming: "text" | "thinking" | undefined;
agent.subscribe((event) => {
	switch (event.type) {
		case "agent_start":
			out("▶ agent_start");
			break;
		case "turn_start":
			out(`  ┌ turn ${++turn}`);
			break;
		case "message_update": {
			const update = event.assistantMessageEvent;
			if (update.type === "text_start" || update.type === "thinking_start") {
				streaming = update.type === "text_start" ? "text" : "thinking";
				process.stdout.write(streaming === "text" ? "  │ assistant: " : "  │ (thinking) ");
			} else if (update.type === "text_delta" || update.type === "thinking_delta") {
				process.stdout.write(update.delta);
			} else if (update.type === "text_end" || update.type === "thinking_end") {
				process.stdout.write("\n");
				streaming = undefined;
			}
			break;
		}
		case "message_end": {
			const message = event.message;
			if (message.role === "user")
				out(
					`  │ user: ${typeof message.content === "string" ? message.content : message.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("")}`,
				);
			if (message.role === "assistant")
				out(
					`  │ (assistant done: ${message.stopReason}, ${message.usage.input} in / ${message.usage.output} out tokens)`,
				);
			if (message.role === "toolResult")
				out(`  │ tool result (${message.isError ? "error" : "ok"}): ${JSON.stringify(message.details)}`);
			break;
		}
		case "tool_execution_start":
			out(`  │ → ${event.toolName} ${JSON.stringify(event.args)}`);
			break;
		case "tool_execution_end":
			out(`  │ ← ${event.toolName} ${event.isError ? "failed" : "finished"}`);
			break;
		case "turn_end":
			out(`  └ turn_end (${event.toolResults.length} tool result${event.toolResults.length === 1 ? "" : "s"})`);
			break;
		case "agent_end":
			out(`■ agent_end: ${event.messages.length} new messages`);
			break;
	}
});

try {
	await agent.prompt("Summarize notes.txt for me.");
	out(`\nTranscript: ${agent.state.messages.map((message) => message.role).join(" → ")}`);
	out(`Model calls: ${faux.callCount}; the second request carried ${faux.requests[1]?.messages.length} messages.`);
	out(`Session finished in ${(performance.now() - started).toFixed(1)} ms.`);
	if (agent.state.errorMessage) {
		out(`Error: ${agent.state.errorMessage}`);
		process.exitCode = 1;
	}
} finally {
	await rm(dir, { recursive: true, force: true });
}
