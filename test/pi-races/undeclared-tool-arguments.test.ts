/**
 * claude-code#82414: a call carrying an argument the tool does not declare (a hallucinated
 * `line_limit` for `limit`), to a tool whose schema says `additionalProperties: false`: the
 * argument was dropped and the tool ran with its defaults, a "success" that ignored what the model
 * asked for. chrome-devtools-mcp#1940: clients that did refuse it said "must NOT have additional
 * properties", naming no argument; the model guessed which one, again and again.
 *
 * Replayed with a real `settle -p` against a local Chat Completions server and an extension tool
 * loaded from a file, as its users load one.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, startWireServer, type WireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

const cli = useCliProject("settle-undeclared-arguments-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** A `tail` tool with one optional argument and no others allowed, answering with what it got. */
const TAIL_TOOL = `
pi.registerTool({
	name: "tail",
	label: "tail",
	description: "The last lines of the log",
	parameters: { type: "object", properties: { limit: { type: "integer" } }, additionalProperties: false },
	execute: async (_id, args) => ({ content: [{ type: "text", text: "ran with " + JSON.stringify(args) }], details: {} }),
});`;

type Sent = { role: string; content?: unknown };
const toolTexts = (request: RecordedRequest) =>
	(request.body as { messages: Sent[] }).messages.filter((m) => m.role === "tool").map((m) => String(m.content));

describe("claude-code#82414 / chrome-devtools-mcp#1940: an argument the tool does not declare", () => {
	it("claude-code#82414: the call is refused, not run with defaults; the error names `line_limit`; the model's corrected call runs", async () => {
		server = await startWireServer();
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const extension = writeExtension(cli.dir, "tail.mjs", TAIL_TOOL);
		server.reply(
			chatReply([{ type: "tool_call", id: "call_t1", name: "tail", arguments: { line_limit: 5 } }], {
				model: "coder",
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "tool_call", id: "call_t2", name: "tail", arguments: { limit: 5 } }], {
				model: "coder",
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "Five lines read." }], { model: "coder" }),
		);
		const run = await runSettleAsync(
			["--session-dir", join(cli.dir, "sessions"), "--model", "local/coder", "-e", extension, "-p", "tail the log"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Five lines read.\n");
		const [refused] = toolTexts(server.requests[1]!);
		expect(refused).toContain('Validation failed for tool "tail"');
		expect(refused).toContain("  - root: must not have additional properties (line_limit)");
		expect(toolTexts(server.requests[2]!)[1]).toBe('ran with {"limit":5}');
	});
});
