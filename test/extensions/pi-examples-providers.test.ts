/**
 * Differential: pi 0.73.1's example extensions that register a provider with its own stream
 * function, run unchanged on pi's `createAgentSession` and Settle's (see pi-examples-peers.ts),
 * each talking to a local HTTP server that speaks the provider's wire format
 * (test/llm/wire/server.ts). A probe command points the provider's models at the server with
 * `registerProvider(name, { baseUrl })`, as a user's own extension or models.json override would.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { type RecordedRequest, startWireServer } from "../llm/wire/server.js";
import { observe } from "../parity/normalize.js";
import { onBothWithExamples } from "./pi-examples-peers.js";

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
});
