/**
 * opencode#3384: a plugin's after-tool hook shortened an MCP tool's large output in place (saved it
 * to a file and put a note with the file's name in its text); for MCP tools the text the model got
 * had been taken from the result before the hook ran, so the edit never reached the model, while
 * the same edit worked for built-in tools. Replayed against Settle over HTTP (pi-ai's OpenAI client
 * to a local server, `test/llm/wire`) through a whole session from `createAgentSession`, with an
 * inline extension that registers the MCP-style tool and the `tool_result` handler. What the user
 * should see (pi 0.73.1 hands the handler the result's own content blocks): the edited text in the
 * request that carries the result to the model and in the session file, for the extension's tool
 * as for a built-in one.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireSession, type WireSession } from "../llm/wire/session.js";

let w: WireSession | undefined;
afterEach(async () => {
	await w?.dispose();
	w = undefined;
});

const LIMIT = 1000;

describe("opencode#3384: a tool_result handler that edits the result's content in place", () => {
	it("opencode#3384: an MCP-style tool's large output moved to a file: the model and the session file get the note, for it and for bash", async () => {
		w = await startWireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerTool({
						name: "docs__fetch_page",
						label: "Fetch page",
						description: "Fetches a documentation page (an MCP server's tool)",
						parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
						execute: async () => ({ content: [{ type: "text", text: "x".repeat(5000) }], details: {} }),
					});
					pi.on("tool_result", (event, ctx) => {
						const block = event.content[0];
						if (block?.type !== "text" || block.text.length < LIMIT) return;
						const file = join(ctx.cwd, `${event.toolCallId}.txt`);
						writeFileSync(file, block.text);
						block.text = `Output of ${block.text.length} characters saved to ${event.toolCallId}.txt`;
					});
				},
			],
		});
		w.server.reply(
			chatReply([
				{ type: "tool_call", id: "call_mcp", name: "docs__fetch_page", arguments: { url: "https://example.com" } },
				{ type: "tool_call", id: "call_bash", name: "bash", arguments: { command: "printf 'y%.0s' $(seq 1 3000)" } },
			]),
			chatReply([{ type: "text", text: "done" }]),
		);
		await w.session.prompt("read the page");

		const sent = (w.server.requests[1]!.body.messages as { role: string; content: string }[])
			.filter((message) => message.role === "tool")
			.map((message) => message.content);
		expect(sent).toEqual([
			"Output of 5000 characters saved to call_mcp.txt",
			"Output of 3000 characters saved to call_bash.txt",
		]);
		const saved = w
			.entries()
			.flatMap((entry) =>
				entry.type === "message" && entry.message.role === "toolResult" ? [entry.message.content] : [],
			);
		expect(saved).toEqual([
			[{ type: "text", text: "Output of 5000 characters saved to call_mcp.txt" }],
			[{ type: "text", text: "Output of 3000 characters saved to call_bash.txt" }],
		]);
		expect(readFileSync(join(w.dir, "call_mcp.txt"), "utf8")).toBe("x".repeat(5000));
	});
});
