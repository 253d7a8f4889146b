/**
 * Differential: pi 0.73.1's example extensions that register a provider with its own stream
 * function, run unchanged on pi's `createAgentSession` and Settle's (see pi-examples-peers.ts),
 * each talking to a local HTTP server that speaks the provider's wire format
 * (test/llm/wire/server.ts). A probe command points the provider's models at the server with
 * `registerProvider(name, { baseUrl })`, as a user's own extension or models.json override would.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, startWireServer } from "../llm/wire/server.js";
import { eventPayloads, observe } from "../parity/normalize.js";
import { onBothWithExamples } from "./pi-examples-peers.js";

const PI_CLI = fileURLToPath(new URL("../../node_modules/@mariozechner/pi-coding-agent/dist/cli.js", import.meta.url));

/** Two project agents in `<cwd>/.pi/agents` on the children's local model, without tools. */
function writeAgents(cwd: string): void {
	const dir = join(cwd, ".pi", "agents");
	mkdirSync(dir, { recursive: true });
	for (const [name, role] of [
		["scout", "You find code."],
		["planner", "You plan changes."],
	]) {
		writeFileSync(
			join(dir, `${name}.md`),
			`---\nname: ${name}\ndescription: ${role}\nmodel: local/m1\ntools: read\n---\n\n${role}\n`,
		);
	}
}

/** `/use-local <provider> <model> <url>`: points the provider at `url` and switches to the model. */
function useLocal(api: ExtensionAPI): void {
	api.registerCommand("use-local", {
		description: "point a provider at a local server",
		handler: async (args, ctx) => {
			const [provider, id, url] = args.trim().split(/\s+/) as [string, string, string];
			api.registerProvider(provider, { baseUrl: url });
			const model = ctx.modelRegistry.find(provider, id);
			if (!model) throw new Error(`no model ${provider}/${id}`);
			ctx.ui.notify(`model ok: ${await api.setModel(model)} at ${model.baseUrl === url ? "local" : model.baseUrl}`);
		},
	});
}

/**
 * A request without its `host` (each peer has its own server) and length, with the system prompt and the
 * tools' descriptions reduced to a mark: each product writes its own (compared in test/parity).
 */
function comparable(request: RecordedRequest) {
	const { host: _host, "content-length": _length, ...headers } = request.headers;
	const body = { ...request.body };
	if (Array.isArray(body.system)) {
		body.system = body.system.map((block: { text: string }) => ({ ...block, text: "<system prompt>" }));
	}
	if (Array.isArray(body.tools)) {
		body.tools = body.tools.map((tool: { description: string }) => ({ ...tool, description: "<description>" }));
	}
	return { method: request.method, path: request.path, headers, body };
}

describe("pi examples, differential: providers on a local server", () => {
	it("custom-provider-anthropic: a prompt and a tool call stream through its own Anthropic SDK client", async () => {
		const { pi, settle } = await onBothWithExamples(
			["custom-provider-anthropic"],
			{ extensions: [useLocal] },
			async ({ peer, ui }) => {
				const server = await startWireServer();
				try {
					server.reply(
						anthropicReply([{ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "echo wired" } }], {
							stopReason: "tool_use",
						}),
						anthropicReply([{ type: "text", text: "The command printed wired." }]),
					);
					await peer.session.prompt(`/use-local custom-anthropic claude-sonnet-4-5 ${server.url}`);
					await peer.prompt("run echo wired");
					await peer.quiesce();
					return { ...observe(peer), ui: ui.log, server: server.requests.map(comparable) };
				} finally {
					await server.close();
				}
			},
		);
		expect(pi.ui).toEqual([["notify", "model ok: true at local"]]);
		expect(pi.server.map((r) => [r.path, r.headers["x-api-key"], r.body.model, r.body.messages.length])).toEqual([
			["/v1/messages", "CUSTOM_ANTHROPIC_API_KEY", "claude-sonnet-4-5", 1],
			["/v1/messages", "CUSTOM_ANTHROPIC_API_KEY", "claude-sonnet-4-5", 3],
		]);
		expect(pi.server[1]?.body.messages[2].content[0]).toMatchObject({
			type: "tool_result",
			tool_use_id: "toolu_1",
			content: "wired\n",
		});
		expect(pi.messages.at(-1)).toEqual({
			role: "assistant",
			content: [{ type: "text", text: "The command printed wired." }],
			stopReason: "stop",
		});
		expect(settle).toEqual(pi);
	});

	it("subagent: a chain of two project agents runs real pi child processes against a local server", async () => {
		// The example starts its children as `process.execPath process.argv[1] …` (its own CLI): under
		// vitest, argv[1] is the worker, so it points at pi's CLI; the children read models.json from
		// PI_CODING_AGENT_DIR and talk to this peer's OpenAI-format server.
		const childAgentDir = mkdtempSync(join(tmpdir(), "settle-subagent-children-"));
		const saved = { argv1: process.argv[1], dir: process.env.PI_CODING_AGENT_DIR, offline: process.env.PI_OFFLINE };
		process.argv[1] = PI_CLI;
		process.env.PI_CODING_AGENT_DIR = childAgentDir;
		process.env.PI_OFFLINE = "1";
		try {
			const { pi, settle } = await onBothWithExamples(
				// As its README installs it: index.ts as the extension (the folder: see the next test).
				["subagent/index.ts"],
				{ answers: [true], setup: (dirs) => writeAgents(dirs.cwd) },
				async ({ peer, ui }) => {
					const server = await startWireServer();
					try {
						writeFileSync(
							join(childAgentDir, "models.json"),
							JSON.stringify({
								providers: {
									local: {
										baseUrl: `${server.url}/v1`,
										api: "openai-completions",
										apiKey: "local-key",
										models: [{ id: "m1", name: "Local" }],
									},
								},
							}),
						);
						server.reply(
							chatReply([{ type: "text", text: "Found: src/a.ts" }]),
							chatReply([{ type: "text", text: "Plan: edit src/a.ts" }]),
						);
						peer.script([
							{
								toolCalls: [
									{
										id: "s1",
										name: "subagent",
										args: {
											agentScope: "project",
											chain: [
												{ agent: "scout", task: "find the parser" },
												{ agent: "planner", task: "plan from: {previous}" },
											],
										},
									},
								],
							},
							{ text: "Chained." },
						]);
						await peer.prompt("scout then plan");
						await peer.quiesce();
						const [end] = eventPayloads(peer.recorded, ["tool_execution_end"]) as {
							result: unknown;
							isError: boolean;
						}[];
						const details = (
							peer.session.messages.find((m) => (m as { role: string }).role === "toolResult") as {
								details?: { mode: string; results: { agent: string; task: string; exitCode: number }[] };
							}
						).details;
						return {
							end,
							mode: details?.mode,
							steps: (details?.results ?? []).map(({ agent, task, exitCode }) => ({ agent, task, exitCode })),
							ui: ui.log.map((call) =>
								call.map((arg) => (typeof arg === "string" ? arg.replace(/Source: .*/, "Source: <dir>") : arg)),
							),
							served: server.requests.map((r) => [r.body.model, r.body.messages.at(-1)?.content]),
						};
					} finally {
						await server.close();
					}
				},
			);
			expect(pi.end).toMatchObject({ result: [{ type: "text", text: "Plan: edit src/a.ts" }], isError: false });
			expect(pi.mode).toBe("chain");
			expect(pi.steps).toEqual([
				{ agent: "scout", task: "find the parser", exitCode: 0 },
				{ agent: "planner", task: "plan from: Found: src/a.ts", exitCode: 0 },
			]);
			expect(pi.served).toEqual([
				["m1", [{ type: "text", text: "Task: find the parser" }]],
				["m1", [{ type: "text", text: "Task: plan from: Found: src/a.ts" }]],
			]);
			expect(pi.ui).toEqual([
				[
					"confirm",
					"Run project-local agents?",
					"Agents: scout, planner\nSource: <dir>\n\nProject agents are repo-controlled. Only continue for trusted repositories.",
				],
			]);
			expect(settle).toEqual(pi);
		} finally {
			process.argv[1] = saved.argv1 as string;
			for (const [key, value] of [
				["PI_CODING_AGENT_DIR", saved.dir],
				["PI_OFFLINE", saved.offline],
			] as const) {
				if (value === undefined) delete process.env[key];
				else process.env[key] = value;
			}
			rmSync(childAgentDir, { recursive: true, force: true });
		}
	}, 60_000); // four pi CLI children start one after another (~2.5 s each here)

	it("subagent (the folder): pi reads it as a pi package (it has prompts/), so no tool; Settle loads its index.ts", async () => {
		const { pi, settle } = await onBothWithExamples(["subagent"], {}, async ({ peer }) => {
			peer.script([{ text: "Hi." }]);
			await peer.prompt("hello");
			return peer.requests[0]?.tools.includes("subagent");
		});
		// Deliberate: an -e folder is an extension folder in Settle, not a package (README); without a manifest it is
		// its index.ts. pi 0.73.1 takes a folder with extensions/, skills/, prompts/ or themes/ for a
		// package and loads only those folders' files, silently skipping the index.ts next to them.
		expect(pi).toBe(false);
		expect(settle).toBe(true);
	});
});
