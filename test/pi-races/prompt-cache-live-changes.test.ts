/**
 * Reports about a live session's cached prefix changing under it, replayed over the Anthropic wire
 * (pi-ai's real client, a local server recording each request body):
 * - oh-my-pi#890: an MCP server reconnecting re-registered its tools; they went to the end of the
 *   tool list and the system prompt was rebuilt, so every reconnect (each ~5 minutes) cost a full
 *   cache write (12% of 100 turns missed).
 * - wave-agent#1206, claude-code#47107: the system prompt carried workspace state that changes as
 *   the agent works (the directory after a `cd`, a `git status`): each change missed the cache.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { useWireSession, type WireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

// biome-ignore lint/suspicious/noExplicitAny: request payloads are walked field by field
type Json = any;
const bytes = (value: unknown) => JSON.stringify(value);
const systemEntries = (w: WireSession) => readFileSync(w.session.sessionFile!, "utf8").match(/"role":"system"/g) ?? [];

/** A tool as an MCP bridge builds it from the server's listing (a new object each time). */
function bridgeTool(name: string) {
	return {
		name,
		label: name,
		description: `The ${name} tool of the docs server`,
		promptSnippet: `${name} the documentation`,
		parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
		execute: async () => ({ content: [{ type: "text" as const, text: name }], details: {} }),
	};
}

describe("oh-my-pi#890: an MCP bridge re-registering its tools on reconnect", () => {
	it("the tools keep their places and the system prompt stays: the next request has the same system and tools bytes, no prompt change recorded", async () => {
		let bridge: ExtensionAPI | undefined;
		const w = await wireSession({
			api: "anthropic-messages",
			extensionFactories: [
				(pi) => {
					bridge = pi;
					for (const name of ["docs_search", "docs_fetch", "docs_list"]) pi.registerTool(bridgeTool(name));
				},
			],
		});
		w.server.reply(anthropicReply([{ type: "text", text: "one" }]), anthropicReply([{ type: "text", text: "two" }]));
		await w.session.prompt("first");
		const recorded = systemEntries(w).length;
		// The server reconnected: its first tool is registered again, from a fresh listing.
		bridge!.registerTool(bridgeTool("docs_search"));
		await w.session.prompt("second");

		const [first, second] = w.server.requests.map((request) => request.body);
		expect(first.tools.map((tool: Json) => tool.name)).toEqual([
			"read",
			"bash",
			"edit",
			"write",
			"docs_search",
			"docs_fetch",
			"docs_list",
		]);
		expect(bytes(second.tools)).toBe(bytes(first.tools));
		expect(bytes(second.system)).toBe(bytes(first.system));
		expect(systemEntries(w)).toHaveLength(recorded);
	});
});

describe("wave-agent#1206, claude-code#47107: workspace state changing during a session", () => {
	it("after the model runs `cd` into a new folder and edits AGENTS.md, the next request carries the system prompt it had, byte for byte", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		writeFileSync(join(w.dir, "AGENTS.md"), "Use tabs.\n");
		mkdirSync(join(w.dir, "sub"));
		await w.session.reload(); // the project's AGENTS.md is part of the prompt from here on
		w.server.reply(
			anthropicReply([{ type: "text", text: "ready" }]),
			anthropicReply(
				[
					{ type: "tool_use", id: "toolu_cd", name: "bash", input: { command: "cd sub && touch made.txt && pwd" } },
					{ type: "tool_use", id: "toolu_w", name: "write", input: { path: "AGENTS.md", content: "Use spaces.\n" } },
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "done" }]),
			anthropicReply([{ type: "text", text: "still here" }]),
		);
		await w.session.prompt("hello");
		const recorded = systemEntries(w).length;
		await w.session.prompt("switch the project to spaces");
		await w.session.prompt("and now?");

		const bodies = w.server.requests.map((request) => request.body);
		expect(bodies).toHaveLength(4);
		expect(readFileSync(join(w.dir, "AGENTS.md"), "utf8")).toBe("Use spaces.\n");
		expect(readFileSync(join(w.dir, "sub", "made.txt"), "utf8")).toBe("");
		expect(bodies[0].system[0].text).toContain("Use tabs.");
		expect(bodies[0].system[0].text).toContain(`Current working directory: ${w.dir}`);
		for (const body of bodies.slice(1)) expect(bytes(body.system)).toBe(bytes(bodies[0].system));
		expect(systemEntries(w)).toHaveLength(recorded);
	});
});
