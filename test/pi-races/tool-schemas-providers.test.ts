/**
 * Reports about tool schemas and tool lists that providers refuse, replayed against the real
 * `settle` command (child processes) with extension files and a local endpoint
 * (test/llm/wire/server.ts) that refuses a request the way the report's provider did: pi-ai's own
 * clients send the requests.
 *
 * jan#7017, fast-agent#143: an MCP server's tool without arguments declared its input schema as a
 * bare `{ "type": "object" }`; OpenAI refused every request carrying it with 400 `Invalid schema for
 * function '…': In context=(), object schema missing properties.` What the user should see: the
 * session answering and the tool running when the model calls it.
 *
 * openpi#49: an extension built an array's items with TypeBox's `Type.Enum`, which gives
 * `{ "enum": [...] }` without a `type`; Kimi refused every request with 400 `… is not a valid
 * moonshot flavored json schema, details: <At path 'properties.groups.items': type is not defined>`.
 * What the user should see: the session answering, the tool's arguments still checked against its
 * enum.
 *
 * pi-mcp-adapter#289: an MCP adapter passed plain schema objects to TypeBox 1.3's `Type.Optional`,
 * which stamped an enumerable `"~optional": true` on them; Gemini (behind an OpenAI-compatible
 * gateway) refused every request with 400 `Unknown name "~optional" … Cannot find field.` What the
 * user should see: the session answering and the tool getting its optional argument.
 *
 * pi#8071: an extension tool's `Type.Optional(Type.Literal("isolated"))` parameter was said to reach
 * the model as required over an OpenAI-compatible adapter, so the model had to send it. What the
 * user should see: only the required field listed as required, and a call without the optional one
 * reaching the tool without it.
 *
 * claude-code#10687, vscode#276110: a tool offered twice (an MCP tool beside a built-in of its
 * name, or re-added by a mode switch) made Anthropic refuse every request with 400 `tools: Tool
 * names must be unique.` What the user should see: each active tool offered once, however often an
 * extension adds it to the active set.
 *
 * pi#5907, vercel/ai#13448: an extension took `read` out of the active set, yet a small model still
 * called it (it assumes the tool exists); in the AI SDK a tool disabled for a later step still ran
 * when the model called it. What the user should see: a tool out of the active set is not offered,
 * and a call to it runs nothing and answers the model with an error.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { type RecordedRequest, type Reply, useWireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

const cli = useCliProject("settle-pi-races-tool-schemas-providers-");
/** Answers a request the provider would refuse with its refusal, else the next scripted reply. */
let refuse: (request: RecordedRequest) => Reply | undefined = () => undefined;
const server = useWireServer((request, next) => refuse(request) ?? next());
beforeEach(() => {
	refuse = () => undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies are read field by field
type Json = any;

/** Chat-completions tools of a request: `{ name, parameters }`. */
function chatTools(request: RecordedRequest): { name: string; parameters: Json }[] {
	return ((request.body.tools ?? []) as Json[]).map((tool) => tool.function);
}

/** The path of the first schema node under `schema` with an `enum` but no `type` (Kimi's check). */
function untypedEnum(schema: Json, path = ""): string | undefined {
	if (typeof schema !== "object" || schema === null) return undefined;
	if (Array.isArray(schema.enum) && schema.type === undefined) return path || "<root>";
	for (const [key, value] of Object.entries(schema)) {
		const found = untypedEnum(value, path ? `${path}.${key}` : key);
		if (found) return found;
	}
	return undefined;
}

/** Text of the `tool` messages of a chat-completions request, in order. */
function toolMessages(request: RecordedRequest | undefined): string[] {
	return ((request?.body.messages ?? []) as Json[]).filter((m) => m.role === "tool").map((m) => String(m.content));
}

describe("jan#7017, fast-agent#143: a tool whose parameters are a bare { type: object }", () => {
	it("jan#7017: settle -p over the OpenAI wire: the request is accepted (properties: {} sent), the model's call runs and the answer is printed", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const bridge = writeExtension(
			cli.dir,
			"aws-knowledge.mjs",
			`pi.registerTool({
	name: "aws___list_regions",
	label: "List regions",
	description: "Lists the AWS regions",
	parameters: { type: "object" },
	execute: async () => ({ content: [{ type: "text", text: "eu-central-1, us-east-1" }], details: {} }),
});`,
		);
		refuse = (request) => {
			const bare = chatTools(request).find(
				(tool) => tool.parameters?.type === "object" && tool.parameters.properties === undefined,
			);
			if (!bare) return undefined;
			return openAiError(
				400,
				`Invalid schema for function '${bare.name}': In context=(), object schema missing properties.`,
				"invalid_request_error",
				"invalid_function_parameters",
			);
		};
		server.reply(
			chatReply([{ type: "tool_call", id: "call_regions", name: "aws___list_regions", arguments: {} }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "Yes, eu-central-1 is available." }]),
		);

		const run = await runSettleAsync(
			["--no-session", "-e", bridge, "--model", "local/coder", "-p", "is lambda available in eu-central-1?"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);

		expect(run.stderr).not.toContain("object schema missing properties");
		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe("Yes, eu-central-1 is available.");
		expect(server.requests).toHaveLength(2);
		const sent = chatTools(server.requests[0]!).find((tool) => tool.name === "aws___list_regions");
		expect(sent?.parameters).toEqual({ type: "object", properties: {} });
		expect(toolMessages(server.requests[1])).toEqual(["eu-central-1, us-east-1"]);
	});
});

describe("openpi#49: an enum without a type (TypeBox's Type.Enum) in an extension tool's schema", () => {
	it("openpi#49: settle -p over a Kimi-like endpoint: the enum is sent with type string, the request is accepted, a call outside the enum is refused to the model and a call inside it runs", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const openpi = writeExtension(
			cli.dir,
			"openpi-capabilities.mjs",
			`pi.registerTool({
	name: "openpi_load_tools",
	label: "Load tools",
	description: "Loads capability groups",
	parameters: {
		type: "object",
		properties: {
			groups: { type: "array", items: { enum: ["search", "delegate", "workflow", "background", "session"] } },
		},
		required: ["groups"],
	},
	execute: async (_id, params) => ({ content: [{ type: "text", text: "loaded " + params.groups.join(",") }], details: {} }),
});`,
		);
		refuse = (request) => {
			for (const tool of chatTools(request)) {
				const at = untypedEnum(tool.parameters);
				if (!at) continue;
				return openAiError(
					400,
					`Invalid request: tools.function.parameters is not a valid moonshot flavored json schema, details: <At path '${at}': type is not defined>`,
					"invalid_request_error",
				);
			}
			return undefined;
		};
		server.reply(
			chatReply(
				[{ type: "tool_call", id: "call_bad", name: "openpi_load_tools", arguments: { groups: ["searching"] } }],
				{
					finishReason: "tool_calls",
				},
			),
			chatReply(
				[{ type: "tool_call", id: "call_good", name: "openpi_load_tools", arguments: { groups: ["search"] } }],
				{
					finishReason: "tool_calls",
				},
			),
			chatReply([{ type: "text", text: "Search is loaded." }]),
		);

		const run = await runSettleAsync(
			["--no-session", "-e", openpi, "--model", "local/coder", "-p", "load the search tools"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);

		expect(run.stderr).not.toContain("type is not defined");
		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe("Search is loaded.");
		expect(server.requests).toHaveLength(3);
		const sent = chatTools(server.requests[0]!).find((tool) => tool.name === "openpi_load_tools");
		expect(sent?.parameters.properties.groups.items).toEqual({
			type: "string",
			enum: ["search", "delegate", "workflow", "background", "session"],
		});
		const [refused, loaded] = toolMessages(server.requests[2]);
		expect(refused).toContain("groups");
		expect(refused).not.toContain("loaded");
		expect(loaded).toBe("loaded search");
	});
});

/** The path and name of the first key starting with `~` under `schema` (TypeBox markers), if any. */
function typeboxMarker(schema: Json, path = ""): { at: string; name: string } | undefined {
	if (typeof schema !== "object" || schema === null) return undefined;
	for (const [key, value] of Object.entries(schema)) {
		if (key.startsWith("~")) return { at: path || "<root>", name: key };
		const found = typeboxMarker(value, path ? `${path}.${key}` : key);
		if (found) return found;
	}
	return undefined;
}

describe("pi-mcp-adapter#289: a TypeBox marker left in an extension tool's schema", () => {
	it("pi-mcp-adapter#289: settle -p over a Gemini-like endpoint: the ~optional marker is not sent, the request is accepted and the call runs with its optional argument", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// What TypeBox 1.3's Type.Optional({ type: "number", minimum: 1 }) built: the marker enumerable.
		const adapter = writeExtension(
			cli.dir,
			"mcp-adapter.mjs",
			`pi.registerTool({
	name: "mcp",
	label: "MCP",
	description: "Calls an MCP server tool",
	parameters: {
		type: "object",
		properties: {
			tool: { type: "string" },
			timeoutMs: { type: "number", minimum: 1, description: "Timeout", "~optional": true },
		},
		required: ["tool"],
	},
	execute: async (_id, params) => ({ content: [{ type: "text", text: params.tool + " in " + params.timeoutMs + " ms" }], details: {} }),
});`,
		);
		refuse = (request) => {
			for (const [index, tool] of chatTools(request).entries()) {
				const marker = typeboxMarker(tool.parameters);
				if (!marker) continue;
				return openAiError(
					400,
					`Invalid JSON payload received. Unknown name "${marker.name}" at 'tools[${index}].function_declarations[0].parameters.${marker.at}': Cannot find field.`,
					"INVALID_ARGUMENT",
				);
			}
			return undefined;
		};
		server.reply(
			chatReply([{ type: "tool_call", id: "call_mcp", name: "mcp", arguments: { tool: "ping", timeoutMs: 500 } }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "The server answered." }]),
		);

		const run = await runSettleAsync(["--no-session", "-e", adapter, "--model", "local/coder", "-p", "ping it"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stderr).not.toContain("Unknown name");
		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe("The server answered.");
		expect(server.requests).toHaveLength(2);
		const sent = chatTools(server.requests[0]!).find((tool) => tool.name === "mcp");
		expect(sent?.parameters.properties.timeoutMs).toEqual({ type: "number", minimum: 1, description: "Timeout" });
		expect(sent?.parameters.required).toEqual(["tool"]);
		expect(toolMessages(server.requests[1])).toEqual(["ping in 500 ms"]);
	});
});

describe("pi#8071: an optional literal parameter of an extension tool", () => {
	it("pi#8071: settle -p over the OpenAI wire: only the required field is sent as required, and a call without the optional one reaches the tool without it", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// Type.Object({ query: Type.String(), mode: Type.Optional(Type.Literal("isolated")) }), as TypeBox 1.4 builds it.
		const search = writeExtension(
			cli.dir,
			"search.mjs",
			`pi.registerTool({
	name: "search_docs",
	label: "Search docs",
	description: "Searches the docs",
	parameters: {
		type: "object",
		required: ["query"],
		properties: { query: { type: "string" }, mode: { type: "string", const: "isolated" } },
	},
	execute: async (_id, params) => ({ content: [{ type: "text", text: "mode " + String(params.mode) + ", keys " + Object.keys(params).join(",") }], details: {} }),
});`,
		);
		server.reply(
			chatReply([{ type: "tool_call", id: "call_search", name: "search_docs", arguments: { query: "hooks" } }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "Found it." }]),
		);

		const run = await runSettleAsync(["--no-session", "-e", search, "--model", "local/coder", "-p", "find hooks"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe("Found it.");
		const sent = chatTools(server.requests[0]!).find((tool) => tool.name === "search_docs");
		expect(sent?.parameters.required).toEqual(["query"]);
		expect(toolMessages(server.requests[1])).toEqual(["mode undefined, keys query"]);
	});
});

describe("claude-code#10687, vscode#276110: a tool added to the active set twice", () => {
	it("claude-code#10687: settle -p over the Anthropic wire: an extension re-adding its tool at every turn gets it offered once per request, and the run answers", async () => {
		writeLocalProvider(cli.agentDir, server.url, { api: "anthropic-messages" });
		const memory = writeExtension(
			cli.dir,
			"memory.mjs",
			`pi.registerTool({
	name: "memory",
	label: "Memory",
	description: "Reads a note",
	parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
	execute: async () => ({ content: [{ type: "text", text: "note: ship on Friday" }], details: {} }),
});
pi.on("turn_start", () => {
	pi.setActiveTools([...pi.getActiveTools(), "memory", "read", "memory"]);
});`,
		);
		refuse = (request) => {
			const names = ((request.body.tools ?? []) as { name: string }[]).map((tool) => tool.name);
			return new Set(names).size === names.length
				? undefined
				: anthropicError(400, "invalid_request_error", "tools: Tool names must be unique.");
		};
		server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_memory", name: "memory", input: { key: "release" } }], {
				stopReason: "tool_use",
			}),
			anthropicReply([{ type: "text", text: "The release ships on Friday." }]),
		);

		const run = await runSettleAsync(
			["--no-session", "-e", memory, "--model", "local/coder", "-p", "when do we ship?"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);

		expect(run.stderr).not.toContain("Tool names must be unique");
		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe("The release ships on Friday.");
		expect(server.requests).toHaveLength(2);
		for (const request of server.requests) {
			const names = (request.body.tools as { name: string }[]).map((tool) => tool.name);
			expect(names.filter((name) => name === "memory")).toHaveLength(1);
			expect(names.filter((name) => name === "read")).toHaveLength(1);
		}
	});
});

describe("pi#5907, vercel/ai#13448: the model calls a tool an extension took out of the active set", () => {
	it("pi#5907: settle -p over the OpenAI wire: read hidden at session_start and deploy hidden after its first run are not offered, and the model's calls to them run nothing and get an error result", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(join(cli.project, "huge.log"), "SECRET-LOG-LINE\n");
		const ran = join(cli.dir, "deploys.txt");
		const gate = join(cli.dir, "block-direct.mjs");
		writeFileSync(
			gate,
			`import { appendFileSync } from "node:fs";
export default function (pi) {
pi.registerTool({
	name: "deploy",
	label: "Deploy",
	description: "Deploys once",
	parameters: { type: "object", properties: {} },
	execute: async () => {
		appendFileSync(${JSON.stringify(ran)}, "deployed\\n");
		return { content: [{ type: "text", text: "deployed" }], details: {} };
	},
});
pi.on("session_start", () => {
	pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "read"));
});
pi.on("tool_result", (event) => {
	if (event.toolName === "deploy") pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "deploy"));
});
}
`,
		);
		server.reply(
			chatReply(
				[
					{ type: "tool_call", id: "call_read", name: "read", arguments: { path: "huge.log" } },
					{ type: "tool_call", id: "call_deploy", name: "deploy", arguments: {} },
				],
				{ finishReason: "tool_calls" },
			),
			chatReply([{ type: "tool_call", id: "call_again", name: "deploy", arguments: {} }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "Deployed once." }]),
		);

		const run = await runSettleAsync(["--no-session", "-e", gate, "--model", "local/coder", "-p", "deploy"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe("Deployed once.");
		expect(server.requests).toHaveLength(3);
		const offered = server.requests.map((request) => chatTools(request).map((tool) => tool.name));
		expect(offered[0]).toContain("deploy");
		expect(offered.flat()).not.toContain("read");
		expect(offered[1]).not.toContain("deploy");
		expect(readFileSync(ran, "utf8")).toBe("deployed\n");
		expect(toolMessages(server.requests[1])).toEqual(["Tool read not found", "deployed"]);
		expect(toolMessages(server.requests[2])).toEqual(["Tool read not found", "deployed", "Tool deploy not found"]);
		for (const request of server.requests) expect(JSON.stringify(request.body)).not.toContain("SECRET-LOG-LINE");
	});
});
