import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { eventPayloads, normalizeMessage, observe } from "./normalize.js";
import { onBothPeers, type SharedExtension } from "./peers.js";

/**
 * One inline extension, passed the same way (an extension factory) to both peers. It logs what it
 * sees, in extension-event space; Settle's transcript `system` messages (documented extra, see
 * normalize.ts) are left out of the log.
 */
function recordingExtension(log: unknown[]): SharedExtension {
	return (api: ExtensionAPI) => {
		api.on("input", (event) => {
			log.push({ on: "input", text: event.text, source: event.source });
			if (event.text.startsWith("shout:"))
				return { action: "transform", text: event.text.slice(6).trim().toUpperCase() };
			if (event.text === "swallow") return { action: "handled" };
			return undefined;
		});
		api.on("before_agent_start", (event) => {
			log.push({ on: "before_agent_start", prompt: event.prompt });
			return {
				message: {
					customType: "note",
					content: `context for ${event.prompt}`,
					display: true,
					details: { seen: event.prompt },
				},
			};
		});
		api.on("message_end", (event) => {
			const message = event.message;
			if (message.role === "system") return undefined;
			log.push({ on: "message_end", message: normalizeMessage(message) });
			if (message.role !== "assistant") return undefined;
			const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
			return { message: { ...message, content: [{ type: "text", text: `[checked] ${text}` }] } };
		});
	};
}

describe("parity: extension hooks", () => {
	it("input transform, before_agent_start message and message_end replacement act the same", async () => {
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		const { pi, settle } = await onBothPeers(
			(name) => ({ extensions: [recordingExtension(logs[name] ?? [])] }),
			async (peer) => {
				peer.script([{ text: "Loud and clear." }, { text: "Quiet." }]);
				await peer.prompt("shout: hello there");
				await peer.prompt("swallow");
				await peer.prompt("whisper");
				await peer.quiesce();
				return {
					...observe(peer),
					payloads: eventPayloads(peer.recorded, ["message_end"]),
					extensionLog: logs[peer.name],
				};
			},
		);
		expect(pi.requests[0]?.messages).toEqual(["user: HELLO THERE", "user: context for HELLO THERE"]);
		expect(pi.fileMessages).toContainEqual({
			role: "assistant",
			content: [{ type: "text", text: "[checked] Loud and clear." }],
			stopReason: "stop",
		});
		expect(pi.file).toContain("custom_message:note");
		expect(settle).toEqual(pi);
	});

	it("runs the input hook for a prompt queued while streaming and sends extension custom messages", async () => {
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		const { pi, settle } = await onBothPeers(
			(name) => ({ extensions: [recordingExtension(logs[name] ?? [])] }),
			async (peer) => {
				peer.script([
					async () => {
						await peer.drainEvents();
						await peer.prompt("shout: steer me", { streamingBehavior: "steer" });
						await peer.session.sendCustomMessage(
							{ customType: "ping", content: "custom steer", display: false },
							{ deliverAs: "steer" },
						);
						return { text: "first" };
					},
					{ text: "second" },
					{ text: "third" },
				]);
				await peer.prompt("go");
				await peer.session.sendCustomMessage({ customType: "idle", content: "appended while idle", display: true });
				await peer.quiesce();
				return {
					...observe(peer),
					queueUpdates: eventPayloads(peer.recorded, ["queue_update"]),
					// pi 0.73.1's input event has no streamingBehavior/inputId (newer fields); the log keeps text and source.
					extensionLog: logs[peer.name],
				};
			},
		);
		expect(pi.file).toContain("custom_message:idle");
		expect(settle).toEqual(pi);
	});

	it("tool_call blocks and patches calls, tool_result rewrites results, context filters the request", async () => {
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		const toolHooks =
			(log: unknown[]): SharedExtension =>
			(api: ExtensionAPI) => {
				api.on("tool_call", (event) => {
					log.push({ on: "tool_call", toolName: event.toolName, input: { ...event.input } });
					if (event.toolName === "bash") return { block: true, reason: "no shell here" };
					if (event.toolName === "read" && event.input.path === "alias.txt") event.input.path = "a.txt";
					return undefined;
				});
				api.on("tool_result", (event) => {
					log.push({ on: "tool_result", toolName: event.toolName, isError: event.isError });
					if (event.toolName !== "read") return undefined;
					const text = event.content.map((block) => (block.type === "text" ? block.text : "")).join("");
					return { content: [{ type: "text", text: `[audited] ${text}` }] };
				});
				api.on("context", (event) => {
					const kept = event.messages.filter(
						(message) => !(message.role === "user" && JSON.stringify(message.content).includes("[private]")),
					);
					log.push({ on: "context", dropped: event.messages.length - kept.length });
					return { messages: kept };
				});
			};
		const { pi, settle } = await onBothPeers(
			(name) => ({ extensions: [toolHooks(logs[name] ?? [])] }),
			async (peer) => {
				writeFileSync(join(peer.dirs.cwd, "a.txt"), "alpha\n");
				peer.script([
					{
						toolCalls: [
							{ id: "call-1", name: "read", args: { path: "alias.txt" } },
							{ id: "call-2", name: "bash", args: { command: "echo hi" } },
						],
					},
					{ text: "Done." },
					{ text: "Noted." },
				]);
				await peer.prompt("read alias.txt and run echo");
				await peer.prompt("[private] do not send this");
				await peer.quiesce();
				return {
					...observe(peer),
					tools: eventPayloads(peer.recorded, ["tool_execution_start", "tool_execution_end"]),
					extensionLog: logs[peer.name],
				};
			},
		);
		expect(pi.requests[1]?.messages).toContain("toolResult read: [audited] alpha\n");
		expect(pi.requests[1]?.messages).toContain("toolResult bash error: no shell here");
		expect(pi.requests[2]?.messages.some((message) => message.includes("[private]"))).toBe(false);
		expect(settle).toEqual(pi);
	});
});

describe("parity: ctx.modelRegistry", () => {
	it("answers getApiKeyForProvider and isUsingOAuth as pi's ModelRegistry does", async () => {
		const seen: Record<string, unknown[]> = { pi: [], settle: [] };
		const { pi, settle } = await onBothPeers(
			(name) => ({
				extensions: [
					(api: ExtensionAPI) => {
						api.registerCommand("auth", {
							description: "reads the registry",
							handler: async (_args, ctx) => {
								const registry = ctx.modelRegistry;
								seen[name]?.push(
									await registry.getApiKeyForProvider?.("faux"),
									await registry.getApiKeyForProvider?.("no-such-provider"),
									ctx.model ? registry.isUsingOAuth?.(ctx.model) : "no model",
								);
							},
						});
					},
				],
			}),
			async (peer) => {
				await peer.prompt("/auth");
				// Each peer's faux provider has its own key.
				return seen[peer.name]?.map((value) => (typeof value === "string" && value !== "" ? "<key>" : value));
			},
		);
		expect(pi).toEqual(["<key>", undefined, false]);
		expect(settle).toEqual(pi);
	});
});

describe("parity: ctx.modelRegistry display names and auth status", () => {
	it("answers getProviderDisplayName, getProviderAuthStatus, getError and refresh as pi's ModelRegistry does", async () => {
		const seen: Record<string, unknown[]> = { pi: [], settle: [] };
		const { pi, settle } = await onBothPeers(
			(name) => ({
				extensions: [
					(api: ExtensionAPI) => {
						api.registerProvider("named-llm", {
							name: "Named LLM",
							api: "named-llm-api",
							baseUrl: "http://localhost:1",
							apiKey: "named-llm-key",
							streamSimple: (() => {
								throw new Error("never called");
							}) as never,
							models: [
								{
									id: "n1",
									name: "N1",
									reasoning: false,
									input: ["text"],
									cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
									contextWindow: 1000,
									maxTokens: 100,
								},
							],
						});
						api.registerCommand("names", {
							description: "reads the registry",
							handler: async (_args, ctx) => {
								const registry = ctx.modelRegistry;
								registry.refresh?.();
								seen[name]?.push(
									...["anthropic", "openai", "openai-codex", "google", "groq", "faux", "named-llm", "nope"].map(
										(provider) => registry.getProviderDisplayName?.(provider),
									),
									registry.getProviderAuthStatus?.("nope"),
									registry.getProviderAuthStatus?.("anthropic"),
									// Both harnesses hand the faux key to the registry at runtime, not from auth.json.
									(({ configured, source }) => ({ configured, source }))(
										registry.getProviderAuthStatus?.("faux") ?? { configured: true, source: "stored" },
									),
									registry.getError?.(),
									// refresh() keeps providers extensions registered.
									registry.find("named-llm", "n1")?.id,
								);
							},
						});
					},
				],
			}),
			async (peer) => {
				await peer.prompt("/names");
				return seen[peer.name];
			},
		);
		expect(pi).toEqual([
			"Anthropic (Claude Pro/Max)",
			"OpenAI",
			"ChatGPT Plus/Pro (Codex Subscription)",
			"Google Gemini",
			"Groq",
			"faux",
			"Named LLM",
			"nope",
			{ configured: false },
			{ configured: false },
			{ configured: false, source: "runtime" },
			undefined,
			"n1",
		]);
		expect(settle).toEqual(pi);
	});
});

describe("parity: pi.registerProvider config values and ctx.modelRegistry.getApiKeyAndHeaders", () => {
	it("apiKey and header values name environment variables (else are literal); a model without a key is ok: true", async () => {
		const previous = process.env.SETTLE_PARITY_PROVIDER_KEY;
		process.env.SETTLE_PARITY_PROVIDER_KEY = "key-from-env";
		const seen: Record<string, unknown[]> = { pi: [], settle: [] };
		const model = (id: string, headers?: Record<string, string>) => ({
			id,
			name: id.toUpperCase(),
			reasoning: false,
			input: ["text" as const],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 1000,
			maxTokens: 100,
			...(headers ? { headers } : {}),
		});
		const streamSimple = (() => {
			throw new Error("never called");
		}) as never;
		try {
			const { pi, settle } = await onBothPeers(
				(name) => ({
					extensions: [
						(api: ExtensionAPI) => {
							api.registerProvider("env-llm", {
								api: "env-llm-api",
								baseUrl: "http://localhost:1",
								apiKey: "SETTLE_PARITY_PROVIDER_KEY",
								headers: { "x-team": "SETTLE_PARITY_PROVIDER_KEY", "x-plain": "plain" },
								streamSimple,
								models: [model("e1", { "x-plain": "model-level" })],
							});
							api.registerProvider("literal-llm", {
								api: "literal-llm-api",
								baseUrl: "http://localhost:1",
								apiKey: "sk-literal",
								streamSimple,
								models: [model("l1")],
							});
							api.registerCommand("keys", {
								description: "reads the registry",
								handler: async (_args, ctx) => {
									const registry = ctx.modelRegistry;
									const env = registry.find("env-llm", "e1")!;
									const literal = registry.find("literal-llm", "l1")!;
									const stranger = { ...literal, provider: "nobody", id: "x", headers: { "x-a": "1" } };
									seen[name]?.push(
										await registry.getApiKeyAndHeaders?.(env),
										await registry.getApiKeyAndHeaders?.(literal),
										await registry.getApiKeyAndHeaders?.(stranger),
										await registry.getApiKeyForProvider?.("env-llm"),
										registry.hasConfiguredAuth(env),
									);
								},
							});
						},
					],
				}),
				async (peer) => {
					await peer.prompt("/keys");
					return seen[peer.name];
				},
			);
			expect(pi).toEqual([
				{ ok: true, apiKey: "key-from-env", headers: { "x-team": "key-from-env", "x-plain": "model-level" } },
				{ ok: true, apiKey: "sk-literal" },
				{ ok: true, headers: { "x-a": "1" } },
				"key-from-env",
				true,
			]);
			expect(settle).toEqual(pi);
		} finally {
			if (previous === undefined) delete process.env.SETTLE_PARITY_PROVIDER_KEY;
			else process.env.SETTLE_PARITY_PROVIDER_KEY = previous;
		}
	});
});

/** An OpenAI-compatible endpoint on localhost: records each request, streams one reply "pong". */
async function chatCompletionsServer() {
	const seen: { method?: string; url?: string; proxy?: string; authorization?: string }[] = [];
	const server = createServer((request, response) => {
		seen.push({
			method: request.method,
			url: request.url,
			proxy: request.headers["x-proxy"] as string | undefined,
			authorization: request.headers.authorization,
		});
		request.resume();
		request.on("end", () => {
			response.writeHead(200, { "content-type": "text/event-stream" });
			const chunk = (body: unknown) => response.write(`data: ${JSON.stringify(body)}\n\n`);
			chunk({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "pong" } }] });
			chunk({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
			response.end("data: [DONE]\n\n");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return { seen, baseUrl: `http://127.0.0.1:${port}/override/v1`, close: () => server.close() };
}

describe("parity: pi.registerProvider validation and override-only configs", () => {
	it("a config with only baseUrl and headers re-points a built-in provider's models; unregistering restores them", async () => {
		const server = await chatCompletionsServer();
		const seen: Record<string, unknown[]> = { pi: [], settle: [] };
		const modelId = "openai/gpt-oss-120b";
		try {
			const { pi, settle } = await onBothPeers(
				(name) => ({
					modelCatalog: true,
					extensions: [
						(api: ExtensionAPI) => {
							api.registerProvider("groq", { baseUrl: server.baseUrl, headers: { "x-proxy": "yes" } });
							api.registerCommand("look", {
								description: "reads the registry",
								handler: async (_args, ctx) => {
									const model = ctx.modelRegistry.find("groq", modelId)!;
									seen[name]?.push(model.baseUrl, await ctx.modelRegistry.getApiKeyAndHeaders?.(model));
								},
							});
							api.registerCommand("drop", {
								description: "unregisters the override",
								handler: async (_args, ctx) => {
									api.unregisterProvider("groq");
									seen[name]?.push(ctx.modelRegistry.find("groq", modelId)?.baseUrl);
								},
							});
						},
					],
				}),
				async (peer) => {
					// Each peer's own way of giving the provider a key at runtime.
					const session = peer.session as unknown as {
						modelRegistry?: {
							authStorage: { setRuntimeApiKey(p: string, k: string): void };
							find(p: string, id: string): unknown;
						};
						modelRuntime?: { setApiKey(p: string, k: string): void; getModel(p: string, id: string): unknown };
						setModel(model: unknown): Promise<void>;
					};
					if (peer.name === "pi") session.modelRegistry?.authStorage.setRuntimeApiKey("groq", "groq-key");
					else session.modelRuntime?.setApiKey("groq", "groq-key");
					await peer.prompt("/look");
					const model =
						peer.name === "pi"
							? session.modelRegistry?.find("groq", modelId)
							: session.modelRuntime?.getModel("groq", modelId);
					await session.setModel(model);
					await peer.prompt("ping");
					await peer.quiesce();
					await peer.prompt("/drop");
					const last = peer.session.messages.at(-1) as { role: string; content: unknown; stopReason: string };
					return { seen: seen[peer.name], reply: [last.role, last.content, last.stopReason] };
				},
			);
			expect(pi).toEqual({
				seen: [
					server.baseUrl,
					{ ok: true, apiKey: "groq-key", headers: { "x-proxy": "yes" } },
					"https://api.groq.com/openai/v1",
				],
				reply: ["assistant", [{ type: "text", text: "pong" }], "stop"],
			});
			expect(settle).toEqual(pi);
			// The session's request went to the new baseUrl with the new header, on both peers.
			expect(server.seen).toEqual([
				{ method: "POST", url: "/override/v1/chat/completions", proxy: "yes", authorization: "Bearer groq-key" },
				{ method: "POST", url: "/override/v1/chat/completions", proxy: "yes", authorization: "Bearer groq-key" },
			]);
		} finally {
			server.close();
		}
	});

	it('models without "apiKey" or "oauth" are refused with pi\'s text: thrown after load, dropped when queued at load', async () => {
		const seen: Record<string, unknown[]> = { pi: [], settle: [] };
		const streamSimple = (() => {
			throw new Error("never called");
		}) as never;
		const keyless = {
			api: "keyless-api",
			baseUrl: "http://localhost:1",
			streamSimple,
			models: [
				{
					id: "k1",
					name: "K1",
					reasoning: false,
					input: ["text" as const],
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
					contextWindow: 1000,
					maxTokens: 100,
				},
			],
		};
		const { pi, settle } = await onBothPeers(
			(name) => ({
				onError: (error) => seen[name]?.push({ onError: error.error }),
				extensions: [
					(api: ExtensionAPI) => {
						api.registerProvider("keyless-at-load", keyless);
						api.registerCommand("late", {
							description: "registers after load",
							handler: async (_args, ctx) => {
								try {
									api.registerProvider("keyless-late", keyless);
									seen[name]?.push("accepted");
								} catch (error) {
									seen[name]?.push((error as Error).message);
									if (name === "settle") seen[name]?.push({ code: (error as SettleError).code });
								}
								seen[name]?.push(
									ctx.modelRegistry.find("keyless-at-load", "k1"),
									ctx.modelRegistry.find("keyless-late", "k1"),
								);
							},
						});
					},
				],
			}),
			async (peer) => {
				await peer.prompt("/late");
				return seen[peer.name]?.filter((entry) => !(typeof entry === "object" && entry !== null && "code" in entry));
			},
		);
		expect(pi).toEqual([
			'Provider keyless-late: "apiKey" or "oauth" is required when defining models.',
			undefined,
			undefined,
		]);
		expect(settle).toEqual(pi);
		expect(seen.settle).toContainEqual({ code: "EXTENSION" });
	});

	it("pi's other checks and no-op configs: same text thrown after load, same registry at load and after", async () => {
		const seen: Record<string, unknown[]> = { pi: [], settle: [] };
		const streamSimple = (() => {
			throw new Error("never called");
		}) as never;
		const models = [
			{
				id: "m1",
				name: "M1",
				reasoning: false,
				input: ["text" as const],
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
				contextWindow: 1000,
				maxTokens: 100,
			},
		];
		// Each config is registered at load ("<name>-load") and by a command ("<name>-late").
		const configs = {
			// "baseUrl" is checked before the apiKey-or-oauth rule.
			"no-base-url": { api: "c-api", streamSimple, models },
			"no-api": { baseUrl: "http://localhost:1", apiKey: "k", streamSimple, models },
			"no-api-override": { baseUrl: "http://localhost:1", streamSimple },
			"model-without-api": { baseUrl: "http://localhost:1", apiKey: "k", models },
			empty: {},
			"name-only": { name: "Only A Name" },
			"no-models": { api: "c-api", apiKey: "k", models: [] },
		};
		const look = (registry: { find(p: string, id: string): unknown; getProviderDisplayName?(p: string): string }) =>
			Object.keys(configs).flatMap((name) =>
				[`${name}-load`, `${name}-late`].map((provider) => [
					provider,
					registry.find(provider, "m1"),
					registry.getProviderDisplayName?.(provider),
				]),
			);
		const { pi, settle } = await onBothPeers(
			(name) => ({
				extensions: [
					(api: ExtensionAPI) => {
						for (const [provider, config] of Object.entries(configs)) api.registerProvider(`${provider}-load`, config);
						api.registerCommand("late", {
							description: "registers after load",
							handler: async (_args, ctx) => {
								for (const [provider, config] of Object.entries(configs)) {
									try {
										api.registerProvider(`${provider}-late`, config);
										seen[name]?.push([provider, "accepted"]);
									} catch (error) {
										seen[name]?.push([provider, (error as Error).message]);
									}
								}
								seen[name]?.push(look(ctx.modelRegistry));
							},
						});
					},
				],
			}),
			async (peer) => {
				await peer.prompt("/late");
				return seen[peer.name];
			},
		);
		expect(pi?.slice(0, -1)).toEqual([
			["no-base-url", 'Provider no-base-url-late: "baseUrl" is required when defining models.'],
			["no-api", 'Provider no-api-late: "api" is required when registering streamSimple.'],
			["no-api-override", 'Provider no-api-override-late: "api" is required when registering streamSimple.'],
			["model-without-api", 'Provider model-without-api-late, model m1: no "api" specified.'],
			["empty", "accepted"],
			["name-only", "accepted"],
			["no-models", "accepted"],
		]);
		// Nothing registered a model; only the name-only config changed a display name, at load and after.
		expect(pi?.at(-1)).toContainEqual(["name-only-load", undefined, "Only A Name"]);
		expect(pi?.at(-1)).toContainEqual(["name-only-late", undefined, "Only A Name"]);
		expect(pi?.at(-1)).toContainEqual(["empty-late", undefined, "empty-late"]);
		expect(settle).toEqual(pi);
	});
});
