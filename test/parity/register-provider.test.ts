/**
 * Differential: what `pi.registerProvider` / `pi.unregisterProvider` change, run as the same inline
 * extension on pi 0.73.1's `createAgentSession` and on Settle's (see peers.ts), observed as a user
 * does: the model list, `ctx.modelRegistry` answers, and the requests a local OpenAI-compatible
 * server receives (path, key, headers). Each peer has pi-ai's model catalogue; requests go to
 * `groq`'s models (api `openai-completions`), re-pointed at the server with an override-only config.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as piAi from "@mariozechner/pi-ai";
import { getOAuthProvider, resetOAuthProviders } from "@mariozechner/pi-ai/oauth";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionCommandContext } from "../../src/extensions/types.js";
import { onBothPeers, type Peer } from "./peers.js";

const GROQ_MODEL = "openai/gpt-oss-120b";
const GROQ_BASE_URL = "https://api.groq.com/openai/v1";

/** pi-ai's own OpenAI chat-completions stream, taken before any test registers another for its api. */
const builtInChat = piAi.getApiProvider("openai-completions")!.streamSimple;

/** A `streamSimple` wrapping pi-ai's chat-completions stream that marks its requests with `x-tap`. */
function tapStream(tag: string) {
	return ((model: never, context: never, options?: { headers?: Record<string, string> }) =>
		builtInChat(model, context, { ...options, headers: { ...options?.headers, "x-tap": tag } })) as never;
}

/** Records every request (path, key, `x-tap`, `x-proxy`) and streams the reply "pong". */
async function pongServer() {
	const seen: { url?: string; authorization?: string; tap?: string; proxy?: string }[] = [];
	const server = createServer((request, response) => {
		const entry: (typeof seen)[number] = { url: request.url };
		if (request.headers.authorization) entry.authorization = request.headers.authorization;
		if (request.headers["x-tap"]) entry.tap = request.headers["x-tap"] as string;
		if (request.headers["x-proxy"]) entry.proxy = request.headers["x-proxy"] as string;
		seen.push(entry);
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
	const baseUrl = `http://127.0.0.1:${port}/proxy/v1`;
	/** The requests since the last call. */
	const take = () => seen.splice(0);
	return { baseUrl, take, close: () => server.close() };
}

/** A free text-only model for `registerProvider({ models })` (with its own `headers`, if given). */
function textModel(id: string, name: string, headers?: Record<string, string>) {
	return {
		id,
		name,
		reasoning: false,
		input: ["text" as const],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 128_000,
		maxTokens: 16_384,
		...(headers ? { headers } : {}),
	};
}

/** Each peer's way of giving a provider a key at runtime (pi's `--api-key`). */
function setRuntimeKey(peer: Peer, provider: string, key: string): void {
	const session = peer.session as unknown as {
		modelRegistry?: { authStorage: { setRuntimeApiKey(p: string, k: string): void } };
		modelRuntime?: { setApiKey(p: string, k: string): void };
	};
	if (peer.name === "pi") session.modelRegistry?.authStorage.setRuntimeApiKey(provider, key);
	else session.modelRuntime?.setApiKey(provider, key);
}

/**
 * pinned: pi labels a runtime key with its CLI flag (`label: "--api-key"`); Settle has no such flag
 * (its runtime keys come from code), so it gives no label. Everything else is compared as is.
 */
function withoutCliLabel<T>(value: T): T {
	return JSON.parse(JSON.stringify(value).replaceAll(',"label":"--api-key"', "")) as T;
}

/** The last message's role, text and stop reason. */
function lastReply(peer: Peer) {
	const last = peer.session.messages.at(-1) as { role: string; content: unknown; stopReason: string };
	return [last.role, last.content, last.stopReason];
}

/** `/use <provider> <model>`: selects a model through the extension API. */
function useCommand(api: ExtensionAPI, log: unknown[]): void {
	api.registerCommand("use", {
		description: "select a model",
		handler: async (args, ctx) => {
			const [provider, id] = args.trim().split(/\s+/) as [string, string];
			const model = ctx.modelRegistry.find(provider, id);
			log.push(["use", `${provider}/${id}`, model ? await api.setModel(model) : "no such model"]);
		},
	});
}

/** What the registry says about one provider: its model ids and base URLs, name and auth. */
function describeProvider(ctx: ExtensionCommandContext, provider: string) {
	const registry = ctx.modelRegistry;
	const models = registry.getAll().filter((model) => model.provider === provider);
	const groqModel = registry.find("groq", GROQ_MODEL);
	const status = registry.getProviderAuthStatus?.(provider);
	return {
		provider,
		models: models.map((model) => `${model.id} @ ${model.baseUrl}`).slice(0, 3),
		count: models.length,
		...(provider === "groq" ? { [GROQ_MODEL]: groqModel ? groqModel.baseUrl : "absent" } : {}),
		name: registry.getProviderDisplayName?.(provider),
		// pi labels a runtime key "--api-key", its CLI flag; Settle's runtime keys come from code.
		status: status && JSON.parse(JSON.stringify(status)),
		available: models.length > 0 && registry.hasConfiguredAuth(models[0]!),
	};
}

/** Providers in the order the registry lists their models. */
function providerOrder(ctx: ExtensionCommandContext): string[] {
	return [...new Set(ctx.modelRegistry.getAll().map((model) => model.provider))];
}

let previousGroqKey: string | undefined;
beforeEach(() => {
	// pi reads GROQ_API_KEY; Settle's peer reads no environment keys: keep both without one.
	previousGroqKey = process.env.GROQ_API_KEY;
	delete process.env.GROQ_API_KEY;
});
afterEach(() => {
	if (previousGroqKey !== undefined) process.env.GROQ_API_KEY = previousGroqKey;
	// pi's registerProvider changes pi-ai's process-wide api registry: put back pi-ai's built-ins.
	piAi.resetApiProviders();
	resetOAuthProviders();
});

describe("parity: pi.registerProvider with { api, streamSimple } and no models", () => {
	it("serves every model of that api until unregistered; unregistering a name never registered changes nothing", async () => {
		const server = await pongServer();
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		try {
			const { pi, settle } = await onBothPeers(
				(name) => ({
					modelCatalog: true,
					extensions: [
						(api: ExtensionAPI) => {
							const log = logs[name]!;
							api.registerProvider("groq", { baseUrl: server.baseUrl });
							api.registerProvider("tap", { api: "openai-completions", streamSimple: tapStream("tapped") });
							useCommand(api, log);
							api.registerCommand("drop", {
								description: "unregisters a provider",
								handler: async (args, ctx) => {
									api.unregisterProvider(args.trim());
									log.push([
										"drop",
										args.trim(),
										describeProvider(ctx, "groq"),
										describeProvider(ctx, "anthropic").count,
									]);
								},
							});
						},
					],
				}),
				async (peer) => {
					setRuntimeKey(peer, "groq", "groq-key");
					await peer.prompt(`/use groq ${GROQ_MODEL}`);
					await peer.prompt("one");
					await peer.quiesce();
					const first = { reply: lastReply(peer), requests: server.take() };
					// Never registered with registerProvider: pi leaves the built-in provider alone.
					await peer.prompt("/drop anthropic");
					await peer.prompt("/drop tap");
					await peer.prompt("two");
					await peer.quiesce();
					const second = { reply: lastReply(peer), requests: server.take() };
					return { first, second, log: logs[peer.name] };
				},
			);
			expect(pi.first).toEqual({
				reply: ["assistant", [{ type: "text", text: "pong" }], "stop"],
				requests: [{ url: "/proxy/v1/chat/completions", authorization: "Bearer groq-key", tap: "tapped" }],
			});
			// Without the tap, the groq override still applies (pi re-applies the remaining configs).
			expect(pi.second.requests).toEqual([{ url: "/proxy/v1/chat/completions", authorization: "Bearer groq-key" }]);
			const anthropicModels = piAi.getModels("anthropic").length;
			expect(pi.log).toContainEqual(["drop", "anthropic", expect.objectContaining({ name: "Groq" }), anthropicModels]);
			expect(withoutCliLabel(settle)).toEqual(withoutCliLabel(pi));
		} finally {
			server.close();
		}
	});
});

describe("parity: pi.registerProvider apiKey, repeats and unregistering", () => {
	it("an override's apiKey is the key when no runtime key exists, with pi's auth status", async () => {
		const server = await pongServer();
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		const previous = process.env.SETTLE_PARITY_GROQ_PROXY_KEY;
		process.env.SETTLE_PARITY_GROQ_PROXY_KEY = "key-from-env";
		try {
			const { pi, settle } = await onBothPeers(
				(name) => ({
					modelCatalog: true,
					extensions: [
						(api: ExtensionAPI) => {
							const log = logs[name]!;
							api.registerProvider("groq", { baseUrl: server.baseUrl, apiKey: "sk-override" });
							// Only an apiKey: no model changes, but the provider now has credentials.
							api.registerProvider("cerebras", { apiKey: "SETTLE_PARITY_GROQ_PROXY_KEY" });
							api.registerProvider("mistral", { apiKey: "!print-key" });
							useCommand(api, log);
							api.registerCommand("look", {
								description: "reads the registry",
								handler: async (_args, ctx) => {
									log.push(
										["groq", describeProvider(ctx, "groq"), await ctx.modelRegistry.getApiKeyForProvider?.("groq")],
										[
											"cerebras",
											describeProvider(ctx, "cerebras"),
											await ctx.modelRegistry.getApiKeyForProvider?.("cerebras"),
										],
										["mistral", describeProvider(ctx, "mistral")],
									);
								},
							});
						},
					],
				}),
				async (peer) => {
					await peer.prompt("/look");
					await peer.prompt(`/use groq ${GROQ_MODEL}`);
					await peer.prompt("one");
					await peer.quiesce();
					const withConfigKey = server.take();
					// A runtime key wins over the config's.
					setRuntimeKey(peer, "groq", "runtime-key");
					await peer.prompt("two");
					await peer.quiesce();
					const withRuntimeKey = server.take();
					await peer.prompt("/look");
					return { withConfigKey, withRuntimeKey, reply: lastReply(peer), log: logs[peer.name] };
				},
			);
			expect(pi.withConfigKey).toEqual([{ url: "/proxy/v1/chat/completions", authorization: "Bearer sk-override" }]);
			expect(pi.withRuntimeKey).toEqual([{ url: "/proxy/v1/chat/completions", authorization: "Bearer runtime-key" }]);
			expect(pi.log?.slice(0, 3)).toEqual([
				[
					"groq",
					expect.objectContaining({ status: { configured: true, source: "models_json_key" }, available: true }),
					"sk-override",
				],
				[
					"cerebras",
					expect.objectContaining({
						status: { configured: true, source: "environment", label: "SETTLE_PARITY_GROQ_PROXY_KEY" },
						available: true,
					}),
					"key-from-env",
				],
				[
					"mistral",
					expect.objectContaining({ status: { configured: true, source: "models_json_command" }, available: true }),
				],
			]);
			expect(withoutCliLabel(settle)).toEqual(withoutCliLabel(pi));
		} finally {
			server.close();
			if (previous === undefined) delete process.env.SETTLE_PARITY_GROQ_PROXY_KEY;
			else process.env.SETTLE_PARITY_GROQ_PROXY_KEY = previous;
		}
	});

	it("repeats merge (the name stays); a full registration over a built-in is undone by unregistering", async () => {
		const server = await pongServer();
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		// Each product lists the catalogue in its own provider order; within one, unregistering puts groq back in place.
		const orders: Record<string, string[][]> = { pi: [], settle: [] };
		const proxyModel = textModel("proxy-model", "Proxy Model");
		try {
			const { pi, settle } = await onBothPeers(
				(name) => ({
					modelCatalog: true,
					extensions: [
						(api: ExtensionAPI) => {
							const log = logs[name]!;
							api.registerProvider("groq", {
								name: "Groq Proxy",
								baseUrl: server.baseUrl,
								headers: { "x-proxy": "1" },
							});
							useCommand(api, log);
							api.registerCommand("look", {
								description: "reads the registry",
								handler: async (_args, ctx) => {
									log.push(describeProvider(ctx, "groq"));
									orders[name]?.push(providerOrder(ctx));
								},
							});
							api.registerCommand("replace", {
								description: "registers groq with its own models",
								handler: async (_args, ctx) => {
									api.registerProvider("groq", {
										api: "openai-completions",
										baseUrl: server.baseUrl,
										apiKey: "replaced-key",
										streamSimple: tapStream("replaced"),
										models: [proxyModel],
									});
									log.push(describeProvider(ctx, "groq"));
								},
							});
							api.registerCommand("drop", {
								description: "unregisters groq",
								handler: async (_args, ctx) => {
									api.unregisterProvider("groq");
									log.push(describeProvider(ctx, "groq"));
									orders[name]?.push(providerOrder(ctx));
								},
							});
						},
					],
				}),
				async (peer) => {
					await peer.prompt("/look");
					await peer.prompt("/replace");
					await peer.prompt("/use groq proxy-model");
					await peer.prompt("one");
					await peer.quiesce();
					const replaced = { reply: lastReply(peer), requests: server.take() };
					await peer.prompt("/drop");
					return { replaced, log: logs[peer.name] };
				},
			);
			expect(pi.log).toEqual([
				expect.objectContaining({ name: "Groq Proxy", [GROQ_MODEL]: server.baseUrl }),
				// Merged with the first config: still "Groq Proxy".
				{
					provider: "groq",
					models: [`proxy-model @ ${server.baseUrl}`],
					count: 1,
					[GROQ_MODEL]: "absent",
					name: "Groq Proxy",
					status: { configured: true, source: "models_json_key" },
					available: true,
				},
				["use", "groq/proxy-model", true],
				// The built-in groq is back, with its own URL, name and (no) key.
				expect.objectContaining({
					[GROQ_MODEL]: GROQ_BASE_URL,
					name: "Groq",
					status: { configured: false },
					available: false,
				}),
			]);
			expect(pi.replaced.requests).toEqual([
				{ url: "/proxy/v1/chat/completions", authorization: "Bearer replaced-key", tap: "replaced" },
			]);
			expect(settle).toEqual(pi);
			expect(orders.pi?.[1]).toEqual(orders.pi?.[0]);
			expect(orders.settle?.[1]).toEqual(orders.settle?.[0]);
		} finally {
			server.close();
		}
	});
});

describe("parity: pi.registerProvider with oauth (pinned: Settle has no /login)", () => {
	it("the oauth name is the display name on both; pi also lists the provider for /login and keeps its models unavailable until then", async () => {
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		const oauth = {
			name: "Acme SSO",
			login: async () => ({ refresh: "r", access: "a", expires: 0 }),
			refreshToken: async (credentials: unknown) => credentials,
			getApiKey: () => "from-oauth",
		};
		const model = textModel("acme-1", "Acme 1");
		const { pi, settle } = await onBothPeers(
			(name) => ({
				extensions: [
					(api: ExtensionAPI) => {
						api.registerProvider("acme-sso", { oauth } as never);
						api.registerProvider("acme-models", {
							api: "acme-api",
							baseUrl: "http://localhost:1",
							oauth: { ...oauth, name: "Acme Models" },
							streamSimple: tapStream("never") as never,
							models: [model],
						} as never);
						api.registerCommand("look", {
							description: "reads the registry",
							handler: async (_args, ctx) => {
								const registry = ctx.modelRegistry;
								const acme = registry.find("acme-models", "acme-1");
								logs[name]?.push(
									registry.getProviderDisplayName?.("acme-sso"),
									registry.getProviderDisplayName?.("acme-models"),
									registry.getAll().filter((m) => m.provider === "acme-sso").length,
									acme?.id,
									acme ? registry.isUsingOAuth?.(acme) : "no model",
									acme ? registry.hasConfiguredAuth(acme) : "no model",
								);
							},
						});
					},
				],
			}),
			async (peer) => {
				await peer.prompt("/look");
				const loginProvider = getOAuthProvider("acme-sso")?.name;
				// pi-ai's login registry is process-wide: empty it before the next peer runs.
				resetOAuthProviders();
				return { log: logs[peer.name], loginProvider };
			},
		);
		expect(pi).toEqual({
			log: ["Acme SSO", "Acme Models", 0, "acme-1", false, false],
			loginProvider: "Acme SSO",
		});
		// pinned: pi registers the oauth object with pi-ai's login registry (the provider is listed by
		// /login); Settle uses API keys and has no /login, so it keeps only the name.
		// pinned: pi's oauth models are unavailable until /login stores credentials; Settle, which cannot
		// log in, lets them run without a key (the extension's streamSimple gets none).
		expect(settle).toEqual({
			log: ["Acme SSO", "Acme Models", 0, "acme-1", false, true],
			loginProvider: undefined,
		});
	});
});

describe("parity: pi.registerProvider with models and no streamSimple", () => {
	it("the models stream through what serves their api (pi-ai's chat-completions client here)", async () => {
		const server = await pongServer();
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		const model = textModel("local-1", "Local 1");
		try {
			const { pi, settle } = await onBothPeers(
				(name) => ({
					modelCatalog: true,
					extensions: [
						(api: ExtensionAPI) => {
							const log = logs[name]!;
							api.registerProvider("local", {
								api: "openai-completions",
								baseUrl: server.baseUrl,
								apiKey: "local-key",
								models: [model],
							});
							useCommand(api, log);
							api.registerCommand("nobody", {
								description: "registers models of an api nothing serves",
								handler: async () => {
									try {
										api.registerProvider("nobody", {
											api: "nobody-api",
											baseUrl: server.baseUrl,
											apiKey: "k",
											models: [model],
										});
										log.push("accepted");
									} catch (error) {
										log.push((error as Error).message);
									}
								},
							});
						},
					],
				}),
				async (peer) => {
					await peer.prompt("/use local local-1");
					await peer.prompt("one");
					await peer.quiesce();
					const reply = lastReply(peer);
					await peer.prompt("/nobody");
					return { reply, requests: server.take(), log: logs[peer.name] };
				},
			);
			expect(pi).toEqual({
				reply: ["assistant", [{ type: "text", text: "pong" }], "stop"],
				requests: [{ url: "/proxy/v1/chat/completions", authorization: "Bearer local-key" }],
				log: [["use", "local/local-1", true], "accepted"],
			});
			// pinned: pi accepts models of an api nothing serves (a request then fails with "No API
			// provider registered for api: nobody-api"); Settle refuses them when they are registered.
			expect(settle).toEqual({
				...pi,
				log: [
					["use", "local/local-1", true],
					'Provider "nobody" needs a `streamSimple` function to be registered with Settle\'s model runtime: nothing serves api "nobody-api".',
				],
			});
		} finally {
			server.close();
		}
	});
});

describe("parity: pi.registerProvider authHeader, runtime keys and header precedence", () => {
	const model = (id: string, headers?: Record<string, string>) => textModel(id, id, headers);
	/** pi-ai's chat stream, marking each request with the `Authorization` its options carry (`x-tap`). */
	const mirrorAuthorization = ((m: never, context: never, options?: { headers?: Record<string, string> }) =>
		builtInChat(m, context, {
			...options,
			headers: { ...options?.headers, "x-tap": options?.headers?.Authorization ?? "none" },
		})) as never;

	it("authHeader adds the key as a bearer header; per-model headers win over an override's, as pi resolves them per request", async () => {
		const server = await pongServer();
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		try {
			const { pi, settle } = await onBothPeers(
				(name) => ({
					extensions: [
						(api: ExtensionAPI) => {
							const log = logs[name]!;
							api.registerProvider("acme", {
								api: "openai-completions",
								baseUrl: server.baseUrl,
								apiKey: "acme-key",
								authHeader: true,
								headers: { "x-proxy": "provider" },
								streamSimple: mirrorAuthorization,
								models: [model("m1", { "x-proxy": "model" }), model("m2")],
							});
							useCommand(api, log);
							api.registerCommand("override", {
								description: "re-configures acme's requests",
								handler: async (_args, ctx) => {
									const m1 = () => ctx.modelRegistry.find("acme", "m1")!;
									log.push(await ctx.modelRegistry.getApiKeyAndHeaders?.(m1()));
									api.registerProvider("acme", { apiKey: "other-key", headers: { "x-proxy": "override" } });
									log.push(await ctx.modelRegistry.getApiKeyAndHeaders?.(m1()));
								},
							});
						},
					],
				}),
				async (peer) => {
					const requests: unknown[] = [];
					for (const step of ["m1", "m2", "override", "m1", "m2"]) {
						if (step === "override") {
							await peer.prompt("/override");
							continue;
						}
						await peer.prompt(`/use acme ${step}`);
						await peer.prompt(step);
						await peer.quiesce();
						requests.push(...server.take());
					}
					return { requests, reply: lastReply(peer), log: logs[peer.name] };
				},
			);
			const url = "/proxy/v1/chat/completions";
			expect(pi.requests).toEqual([
				{ url, authorization: "Bearer acme-key", tap: "Bearer acme-key", proxy: "model" },
				{ url, authorization: "Bearer acme-key", tap: "Bearer acme-key", proxy: "provider" },
				// The override replaced the request config: no authHeader now; m1's own header still wins.
				{ url, authorization: "Bearer other-key", tap: "none", proxy: "model" },
				{ url, authorization: "Bearer other-key", tap: "none", proxy: "override" },
			]);
			expect(pi.log?.filter((entry) => !Array.isArray(entry))).toEqual([
				{ ok: true, apiKey: "acme-key", headers: { "x-proxy": "model", Authorization: "Bearer acme-key" } },
				{ ok: true, apiKey: "other-key", headers: { "x-proxy": "model" } },
			]);
			expect(settle).toEqual(pi);
		} finally {
			server.close();
		}
	});

	it("runtime keys outlive an extension's full registration of the provider: set before it or while it is registered", async () => {
		const server = await pongServer();
		const logs: Record<string, unknown[]> = { pi: [], settle: [] };
		try {
			const { pi, settle } = await onBothPeers(
				(name) => ({
					modelCatalog: true,
					extensions: [
						(api: ExtensionAPI) => {
							const log = logs[name]!;
							useCommand(api, log);
							api.registerCommand("replace", {
								description: "registers groq with its own models",
								handler: async () => {
									api.registerProvider("groq", {
										api: "openai-completions",
										baseUrl: server.baseUrl,
										apiKey: "replaced-key",
										models: [model("proxy-model")],
									});
								},
							});
							api.registerCommand("drop", {
								description: "unregisters groq, then points the built-in one at the server",
								handler: async (_args, ctx) => {
									api.unregisterProvider("groq");
									api.registerProvider("groq", { baseUrl: server.baseUrl });
									log.push(describeProvider(ctx, "groq").available);
								},
							});
						},
					],
				}),
				async (peer) => {
					// A key set before the registration applies to the extension's models too (it beats the config's).
					setRuntimeKey(peer, "groq", "early-key");
					await peer.prompt("/replace");
					await peer.prompt("/use groq proxy-model");
					await peer.prompt("one");
					await peer.quiesce();
					setRuntimeKey(peer, "groq", "runtime-key");
					await peer.prompt("two");
					await peer.quiesce();
					const replaced = server.take();
					await peer.prompt("/drop");
					await peer.prompt(`/use groq ${GROQ_MODEL}`);
					await peer.prompt("three");
					await peer.quiesce();
					return { replaced, restored: server.take(), reply: lastReply(peer), log: logs[peer.name] };
				},
			);
			const url = "/proxy/v1/chat/completions";
			const request = { url, authorization: "Bearer runtime-key" };
			expect(pi).toEqual({
				replaced: [{ url, authorization: "Bearer early-key" }, request],
				restored: [request],
				reply: ["assistant", [{ type: "text", text: "pong" }], "stop"],
				log: [["use", "groq/proxy-model", true], true, ["use", `groq/${GROQ_MODEL}`, true]],
			});
			expect(settle).toEqual(pi);
		} finally {
			server.close();
		}
	});
});
