/**
 * pi#1649, pi#3243: an MCP-style bridge extension connects to its server asynchronously (a child
 * process over stdio) and calls `pi.registerTool()` once the server lists its tools — from an awaited
 * `session_start` handler. In pi the tools were in the extension's state (`/mcp` listed them) but a
 * call failed "Tool … not found" until `/reload`: the session had taken its tool set before
 * `session_start` ran. lean-ctx#172: the same bridge started without awaiting (fire-and-forget from
 * the factory), so its tools arrived while the first request was already on its way. What the user
 * should see: tools registered in an awaited `session_start` are in the first request and a call runs
 * through the child; tools arriving while a request streams are in the run's next request and run.
 *
 * Replayed with a real `settle -p`, a real extension file, a real child process as the tool server,
 * and a local OpenAI-compatible server reached through pi-ai's client (the request bodies it received
 * are what is asserted).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import type { RecordedRequest, Reply } from "../llm/wire/server.js";
import { useWireServer } from "../llm/wire/server.js";

/** The tool server: answers `tools/list` (once `gate` exists, when given) and `tools/call`, one JSON line each. */
const TOOL_SERVER = `
const { existsSync } = require("node:fs");
const gate = process.argv[2];
const send = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
function list() {
	if (gate && !existsSync(gate)) return void setTimeout(list, 10);
	send({ tools: [{ name: "mcp_echo", description: "Echoes text back", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] });
}
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
	const message = JSON.parse(line);
	if (message.method === "tools/list") list();
	else send({ text: "echo from pid " + process.pid + ": " + message.arguments.text });
});
`;

/** A bridge extension: spawns the tool server and registers what it lists; `awaited` picks where it connects. */
function bridgeExtension(server: string, log: string, gate: string | undefined, awaited: boolean): string {
	return `import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

export default function (pi) {
	let child;
	const pending = [];
	const request = (message) =>
		new Promise((resolve) => {
			pending.push(resolve);
			child.stdin.write(JSON.stringify(message) + "\\n");
		});
	async function connect() {
		child = spawn(process.execPath, [${JSON.stringify(server)}${gate ? `, ${JSON.stringify(gate)}` : ""}], { stdio: ["pipe", "pipe", "inherit"] });
		createInterface({ input: child.stdout }).on("line", (line) => pending.shift()?.(JSON.parse(line)));
		const { tools } = await request({ method: "tools/list" });
		for (const tool of tools) {
			pi.registerTool({
				name: tool.name,
				label: tool.name,
				description: tool.description,
				parameters: tool.inputSchema,
				execute: async (_id, params) => {
					const answer = await request({ method: "tools/call", name: tool.name, arguments: params });
					return { content: [{ type: "text", text: answer.text }], details: {} };
				},
			});
		}
		appendFileSync(${JSON.stringify(log)}, "registered\\n");
	}
	${awaited ? `pi.on("session_start", async () => { await connect(); });` : "connect();"}
	pi.on("session_shutdown", () => child?.kill());
}
`;
}

const toolNames = (request: RecordedRequest | undefined) =>
	((request?.body ?? {}) as { tools?: { function: { name: string } }[] }).tools?.map((tool) => tool.function.name) ??
	[];

const toolResultTexts = (request: RecordedRequest | undefined) =>
	(((request?.body ?? {}) as { messages?: { role: string; content: unknown }[] }).messages ?? [])
		.filter((message) => message.role === "tool")
		.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)));

describe("pi#1649, pi#3243, lean-ctx#172: a bridge's tools registered asynchronously", () => {
	const cli = useCliProject("settle-bridge-tools-");
	const server = useWireServer();

	it("pi#1649, pi#3243: tools registered after an awaited connect in session_start are in the first request, and the model's call runs through the child", async () => {
		writeLocalProvider(cli.agentDir, server.url);
		const toolServer = join(cli.dir, "tool-server.cjs");
		writeFileSync(toolServer, TOOL_SERVER);
		const log = join(cli.dir, "bridge.log");
		const extension = join(cli.dir, "bridge.mjs");
		writeFileSync(extension, bridgeExtension(toolServer, log, undefined, true));
		server.reply(
			chatReply([{ type: "tool_call", id: "call_1", name: "mcp_echo", arguments: { text: "hello" } }]),
			chatReply([{ type: "text", text: "done" }]),
		);
		const run = await runSettleAsync(["--no-session", "-e", extension, "--model", "local/coder", "-p", "echo hello"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.stderr).not.toMatch(/not found/i);
		expect(run.stdout).toBe("done\n");
		expect(run.code).toBe(0);
		expect(toolNames(server.requests[0])).toContain("mcp_echo");
		expect(toolResultTexts(server.requests[1])).toEqual([expect.stringMatching(/^echo from pid \d+: hello$/)]);
	});

	it("lean-ctx#172: a bridge started without awaiting registers while the first request streams: the run's next request offers the tool and its call runs", async () => {
		writeLocalProvider(cli.agentDir, server.url);
		const toolServer = join(cli.dir, "tool-server.cjs");
		writeFileSync(toolServer, TOOL_SERVER);
		const log = join(cli.dir, "bridge.log");
		const gate = join(cli.dir, "gate");
		const extension = join(cli.dir, "bridge.mjs");
		writeFileSync(extension, bridgeExtension(toolServer, log, gate, false));
		writeFileSync(join(cli.project, "notes.txt"), "some notes\n");
		// The first request is answered only once the bridge has registered, which it can do only after
		// this request arrived: the registration lands while the request streams.
		const afterRegistration =
			(reply: Reply): Reply =>
			(request, res, req) => {
				writeFileSync(gate, "");
				const wait = () => {
					if (existsSync(log) && readFileSync(log, "utf8").includes("registered")) reply(request, res, req);
					else setTimeout(wait, 10);
				};
				wait();
			};
		server.reply(
			afterRegistration(
				chatReply([{ type: "tool_call", id: "call_1", name: "read", arguments: { path: "notes.txt" } }]),
			),
			chatReply([{ type: "tool_call", id: "call_2", name: "mcp_echo", arguments: { text: "late" } }]),
			chatReply([{ type: "text", text: "done" }]),
		);
		const run = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "local/coder", "-p", "read, then echo"],
			{
				cwd: cli.project,
				agentDir: cli.agentDir,
			},
		);
		expect(run.stderr).not.toMatch(/not found/i);
		expect(run.stdout).toBe("done\n");
		expect(run.code).toBe(0);
		expect(toolNames(server.requests[0])).not.toContain("mcp_echo");
		expect(toolNames(server.requests[1])).toContain("mcp_echo");
		expect(toolResultTexts(server.requests[2])).toEqual([
			expect.stringContaining("some notes"),
			expect.stringMatching(/^echo from pid \d+: late$/),
		]);
	});
});
