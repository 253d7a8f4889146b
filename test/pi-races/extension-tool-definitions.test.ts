/**
 * Reports about the tool definitions extensions hand to `pi.registerTool()`, replayed against the
 * real `settle` command (child processes) with extension files and a local Anthropic endpoint
 * (test/llm/wire/server.ts): pi-ai's own Anthropic client sends the requests.
 *
 * codebase-memory-mcp#1867, pi-for-excel#417: a bridge extension generated for an older extension
 * API registered its tools without `parameters` (and with `run` or `handler` instead of `execute`).
 * Registration was accepted; then every request of the session failed in pi-ai's client (`Cannot
 * read properties of undefined (reading 'properties')`), or each call failed with `tool.execute is
 * not a function`, neither naming the tool or the extension. What the user should see: the
 * registration refused at once with an error that names the tool and what to give, the session
 * still answering, and no request carrying the broken tool.
 *
 * atlas-mcp-server#14, claude-code#985: an MCP bridge registered tools named after the server's own
 * names (`atlas.project_create`, with a dot); every request of the session then failed with the
 * Anthropic API's 400 `tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`
 * until the tool was renamed. What the user should see: that registration refused with an error
 * naming the rule and a usable name, and every request carrying only names the API accepts.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { useWireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

const cli = useCliProject("settle-pi-races-extension-tool-definitions-");
const server = useWireServer();

/** models.json: one provider, `local`, speaking Anthropic Messages at the wire server. */
function useAnthropicEndpoint(): void {
	writeLocalProvider(cli.agentDir, server.url, { api: "anthropic-messages" });
}

const GOOD_TOOL = `pi.registerTool({
	name: "lookup",
	label: "Lookup",
	description: "Looks a word up",
	parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
	execute: async () => ({ content: [{ type: "text", text: "found" }], details: {} }),
});`;

/** The tool names of the `index`-th request the endpoint got. */
function requestTools(index: number): string[] {
	const tools = server.requests[index]?.body.tools as { name: string }[] | undefined;
	return (tools ?? []).map((tool) => tool.name);
}

describe("codebase-memory-mcp#1867: an extension tool registered without parameters", () => {
	it("codebase-memory-mcp#1867: settle -p -e bridge.mjs: start-up stops with one error naming the tool, the file and Type.Object({}); nothing is sent", async () => {
		useAnthropicEndpoint();
		const bridge = writeExtension(
			cli.dir,
			"legacy-bridge.mjs",
			`pi.registerTool({
	name: "search_graph",
	label: "Search graph",
	description: "Searches the code graph",
	execute: async () => ({ content: [{ type: "text", text: "graph" }], details: {} }),
});`,
		);
		server.reply(anthropicReply([{ type: "text", text: "never sent" }]));

		const run = await runSettleAsync(["--no-session", "-e", bridge, "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.code).toBe(1);
		expect(run.stderr).toContain('pi.registerTool("search_graph") needs parameters');
		expect(run.stderr).toContain("Type.Object({})");
		expect(run.stderr).toContain("legacy-bridge.mjs");
		expect(run.stderr).not.toContain("reading 'properties'");
		expect(run.stdout).toBe("");
		expect(server.requests).toHaveLength(0);
	});

	it("codebase-memory-mcp#1867: settle -p: a bridge registering from session_start gets the error there; the session answers over the Anthropic endpoint with the extensions' other tools", async () => {
		useAnthropicEndpoint();
		const bridge = writeExtension(
			cli.dir,
			"session-bridge.mjs",
			`pi.on("session_start", () => {
	pi.registerTool({
		name: "search_graph",
		label: "Search graph",
		description: "Searches the code graph",
		execute: async () => ({ content: [{ type: "text", text: "graph" }], details: {} }),
	});
});`,
		);
		const other = writeExtension(cli.dir, "lookup.mjs", GOOD_TOOL);
		server.reply(anthropicReply([{ type: "text", text: "answered over the wire" }]));

		const run = await runSettleAsync(
			["--no-session", "-e", bridge, "-e", other, "--model", "local/coder", "-p", "hi"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);

		expect(run.stderr).toContain('pi.registerTool("search_graph") needs parameters');
		expect(run.stderr).not.toContain("reading 'properties'");
		expect(run.stdout).toContain("answered over the wire");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(1);
		expect(requestTools(0)).toContain("lookup");
		expect(requestTools(0)).not.toContain("search_graph");
	});
});

describe("atlas-mcp-server#14: an extension tool whose name the Anthropic API refuses", () => {
	it("atlas-mcp-server#14: settle -p: a bridge registering atlas.project_create from session_start gets the error with a usable name; the request carries only names matching ^[a-zA-Z0-9_-]{1,64}$", async () => {
		useAnthropicEndpoint();
		const bridge = writeExtension(
			cli.dir,
			"atlas-bridge.mjs",
			`pi.on("session_start", () => {
	for (const name of ["atlas_project_list", "atlas.project_create"]) {
		pi.registerTool({
			name,
			label: name,
			description: "Atlas " + name,
			parameters: { type: "object", properties: {} },
			execute: async () => ({ content: [{ type: "text", text: name }], details: {} }),
		});
	}
});`,
		);
		server.reply(anthropicReply([{ type: "text", text: "answered over the wire" }]));

		const run = await runSettleAsync(["--no-session", "-e", bridge, "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stderr).toContain('pi.registerTool("atlas.project_create"): a tool name may hold only letters, digits');
		expect(run.stderr).toContain('"atlas_project_create"');
		expect(run.stdout).toContain("answered over the wire");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(1);
		expect(requestTools(0)).toContain("atlas_project_list");
		for (const name of requestTools(0)) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
	});
});
