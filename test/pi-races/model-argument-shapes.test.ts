/**
 * mastra#17655: models (Groq-hosted Llama and Kimi, OpenAI strict mode) fill every declared
 * argument of a tool call, sending `null` for the optional ones they mean to leave out; validation
 * refused the call ("expected string, received null") or ran it with a made-up value.
 * oh-my-pi#3241: a model that sends an array argument as JSON text (`"[{\"op\":…}]"`): the todo
 * tool refused it ("was string"), and the model retried the same call.
 *
 * Replayed with a real `settle -p` against a local Chat Completions server, with an extension tool
 * loaded from a file (plain JSON Schema, as TypeBox builds it) and the built-in `read`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, startWireServer, type WireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

const cli = useCliProject("settle-argument-shapes-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** A tool of `name` with `parameters`, answering with the arguments it got. */
const echoTool = (name: string, parameters: object) => `
pi.registerTool({
	name: ${JSON.stringify(name)},
	label: ${JSON.stringify(name)},
	description: "Answers with its arguments",
	parameters: ${JSON.stringify(parameters)},
	execute: async (_id, args) => ({ content: [{ type: "text", text: "ran with " + JSON.stringify(args) }], details: {} }),
});`;

type Sent = { role: string; content?: unknown };
const toolTexts = (request: RecordedRequest) =>
	(request.body as { messages: Sent[] }).messages.filter((m) => m.role === "tool").map((m) => String(m.content));

async function runCalls(extension: string, calls: { id: string; name: string; arguments: Record<string, unknown> }[]) {
	server = await startWireServer();
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	server.reply(
		chatReply(
			calls.map((call) => ({ type: "tool_call" as const, ...call })),
			{ model: "coder", finishReason: "tool_calls" },
		),
		chatReply([{ type: "text", text: "Done." }], { model: "coder" }),
	);
	const run = await runSettleAsync(
		["--session-dir", join(cli.dir, "sessions"), "--model", "local/coder", "-e", extension, "-p", "go"],
		{ cwd: cli.project, agentDir: cli.agentDir },
	);
	expect(run.stderr).toBe("");
	expect(run.stdout).toBe("Done.\n");
	expect(server.requests).toHaveLength(2);
	return toolTexts(server.requests[1]!);
}

describe("mastra#17655: a model sends null for the optional arguments it leaves out", () => {
	it("mastra#17655: an extension tool runs as if they were not sent (an enum, a number, a boolean), and `read` with offset/limit null reads the file", async () => {
		writeFileSync(join(cli.project, "notes.txt"), "first line\nsecond line\n");
		const extension = writeExtension(
			cli.dir,
			"search.mjs",
			echoTool("search", {
				type: "object",
				properties: {
					query: { type: "string" },
					limit: { type: "number" },
					mode: { type: "string", enum: ["fast", "deep"] },
					scope: { anyOf: [{ const: "repo" }, { const: "file" }] },
					exact: { type: "boolean" },
					cursor: { type: ["string", "null"] },
				},
				required: ["query"],
			}),
		);
		const [search, read] = await runCalls(extension, [
			{
				id: "call_s",
				name: "search",
				arguments: { query: "TODO", limit: null, mode: null, scope: null, exact: null, cursor: null },
			},
			{ id: "call_r", name: "read", arguments: { path: "notes.txt", offset: null, limit: null } },
		]);
		// `cursor` takes null: it is kept as sent.
		expect(search).toBe('ran with {"query":"TODO","cursor":null}');
		expect(read).toBe("first line\nsecond line\n");
	});
});

describe("oh-my-pi#3241: a model sends an array or object argument as JSON text", () => {
	it("oh-my-pi#3241: the tool runs with the array and object the text encodes; a string argument holding JSON stays a string", async () => {
		const extension = writeExtension(
			cli.dir,
			"todo.mjs",
			echoTool("todo", {
				type: "object",
				properties: {
					ops: {
						type: "array",
						items: {
							type: "object",
							properties: { op: { type: "string" }, text: { type: "string" } },
							required: ["op"],
						},
					},
					options: { type: "object", properties: { notify: { type: "boolean" } } },
					note: { type: "string" },
				},
				required: ["ops"],
			}),
		);
		const [todo] = await runCalls(extension, [
			{
				id: "call_t",
				name: "todo",
				arguments: {
					ops: ' [{"op":"add","text":"write tests"}]',
					options: '{"notify":true}',
					note: '["kept as text"]',
				},
			},
		]);
		expect(todo).toBe(
			'ran with {"ops":[{"op":"add","text":"write tests"}],"options":{"notify":true},"note":"[\\"kept as text\\"]"}',
		);
	});
});
