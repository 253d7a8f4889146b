/**
 * pi's SDK quick start (docs/sdk.md) written against Settle: `AuthStorage.create()` without a
 * path, `createAgentSession({ authStorage, sessionManager })`, and pi's `models.json` in the
 * agent folder, over real HTTP to a local OpenAI-compatible endpoint.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import {
	AuthStorage,
	createAgentSession,
	DefaultResourceLoader,
	getPiAgentDir,
	InMemoryModelRuntime,
	noModelsAvailableMessage,
	SessionManager,
	SettleError,
} from "../../src/index.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

let dir: string;
let agentDir: string;
const server = useWireServer(() => chatReply([{ type: "text", text: "from the local model" }]));

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-pi-sdk-"));
	agentDir = join(dir, "agent");
	mkdirSync(join(dir, "project"));
	mkdirSync(agentDir);
});
afterEach(() => {
	vi.unstubAllEnvs();
	rmSync(dir, { recursive: true, force: true });
});

function writeModelsJson(providers: unknown) {
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers }));
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProvider: "local", defaultModel: "m1" }));
}

const local = () => ({
	baseUrl: `${server.url}/v1`,
	api: "openai-completions",
	apiKey: "key-from-models-json",
	models: [{ id: "m1", reasoning: true, thinkingLevelMap: { high: "max" }, compat: { supportsDeveloperRole: false } }],
});

describe("pi's SDK quick start on Settle", () => {
	test("AuthStorage.create() reads auth.json of the default agent folder", () => {
		writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: "sk-1" } }));
		vi.stubEnv("SETTLE_AGENT_DIR", agentDir);
		const auth = AuthStorage.create();
		expect(auth.path).toBe(join(agentDir, "auth.json"));
		expect(auth.getApiKey("anthropic")).toBe("sk-1");
	});

	test("createAgentSession({ authStorage }) uses its key for a models.json provider the settings name", async () => {
		writeModelsJson({ local: local() });
		const { session, diagnostics, modelFallbackMessage } = await createAgentSession({
			cwd: join(dir, "project"),
			agentDir,
			authStorage: AuthStorage.inMemory({ local: "key-from-auth-storage" }),
			sessionManager: SessionManager.inMemory(),
		});
		expect(diagnostics).toEqual([]);
		expect(modelFallbackMessage).toBeUndefined();
		expect(session.model).toMatchObject({ provider: "local", id: "m1", name: "m1", contextWindow: 128_000 });
		// pi's parseModels keeps these: pi-ai reads them per request.
		expect(session.model?.thinkingLevelMap).toEqual({ high: "max" });
		expect(session.model?.compat).toEqual({ supportsDeveloperRole: false });
		await session.prompt("hi");
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "from the local model" }] });
		// A stored key wins over models.json's, as in pi.
		expect(server.requests[0]?.headers.authorization).toBe("Bearer key-from-auth-storage");
		expect(server.requests[0]?.body.messages[0].role).toBe("system");
		session.dispose();
	});

	test("models.json's own apiKey is used without a stored key; a provider-level compat reaches every model", async () => {
		writeModelsJson({ local: { ...local(), compat: { supportsDeveloperRole: false }, models: [{ id: "m1" }] } });
		const { session } = await createAgentSession({
			cwd: join(dir, "project"),
			agentDir,
			authStorage: AuthStorage.inMemory(),
			sessionManager: SessionManager.inMemory(),
		});
		expect(session.model?.compat).toEqual({ supportsDeveloperRole: false });
		await session.prompt("hi");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer key-from-models-json");
		session.dispose();
	});

	test("models.json as pi reads it: // comments and trailing commas; routing compat merged; a !command key warned", async () => {
		const url = `${server.url}/v1`;
		writeFileSync(
			join(agentDir, "models.json"),
			`{
  // my local server, "// not a comment" inside a string stays
  "providers": {
    "local": {
      "baseUrl": "${url}", "api": "openai-completions", "apiKey": "k", // trailing comment
      "compat": { "openRouterRouting": { "only": ["a"] }, "supportsStore": false },
      "models": [{ "id": "m1", "name": "M1 // local", "compat": { "openRouterRouting": { "order": ["b"] } }, },],
    },
    "vault": { "baseUrl": "${url}", "api": "openai-completions", "apiKey": "!op read op://x", "models": [{ "id": "v1" }] },
  },
}`,
		);
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProvider: "local", defaultModel: "m1" }));
		const { session, diagnostics } = await createAgentSession({
			cwd: join(dir, "project"),
			agentDir,
			authStorage: AuthStorage.inMemory(),
			sessionManager: SessionManager.inMemory(),
		});
		expect(session.model?.compat).toEqual({
			openRouterRouting: { only: ["a"], order: ["b"] },
			supportsStore: false,
		});
		expect(session.model?.name).toBe("M1 // local");
		expect(diagnostics.map((d) => d.message)).toEqual([
			`${join(agentDir, "models.json")}: provider "vault": Settle does not run the "apiKey" command (!op read op://x); put the key in auth.json ({"vault": {"type": "api_key", "key": "…"}}) or in an environment variable named by "apiKey".`,
		]);
		session.dispose();
	});

	test("a broken models.json is a diagnostic naming the file; the rest of the session starts", async () => {
		writeFileSync(join(agentDir, "models.json"), "{ not json");
		const { session, diagnostics } = await createAgentSession({
			cwd: join(dir, "project"),
			agentDir,
			authStorage: AuthStorage.inMemory(),
			sessionManager: SessionManager.inMemory(),
		});
		expect(diagnostics).toHaveLength(1);
		expect(diagnostics[0]).toMatchObject({ type: "warning", source: "models", path: join(agentDir, "models.json") });
		expect(diagnostics[0]?.message).toContain(`${join(agentDir, "models.json")} was not read (`);
		session.dispose();
	});

	test("ctx.modelRegistry.refresh() reads models.json again, as pi's: new models, a broken file in getError(), extensions' providers kept", async () => {
		writeModelsJson({ local: local() });
		type Seen = { error: string | undefined; local: string[]; ext: string[] };
		const seen: Seen[] = [];
		const project = join(dir, "project");
		const { session } = await createAgentSession({
			cwd: project,
			agentDir,
			authStorage: AuthStorage.inMemory(),
			sessionManager: SessionManager.inMemory(),
			resourceLoader: new DefaultResourceLoader({
				cwd: project,
				agentDir,
				noExtensions: true,
				extensionFactories: [
					(pi) => {
						pi.registerProvider("ext", {
							baseUrl: `${server.url}/v1`,
							api: "openai-completions",
							apiKey: "ext-key",
							models: [{ id: "e1", name: "e1" }],
						});
						pi.registerCommand("models-refresh", {
							handler: async (_args, ctx) => {
								ctx.modelRegistry.refresh?.();
								const ids = (provider: string) =>
									ctx.modelRegistry
										.getAll()
										.filter((model) => model.provider === provider)
										.map((model) => model.id);
								seen.push({ error: ctx.modelRegistry.getError?.(), local: ids("local"), ext: ids("ext") });
							},
						});
					},
				],
			}),
		});
		// A model added to the file is there after refresh(), and a request reaches it.
		writeModelsJson({ local: { ...local(), models: [{ id: "m1" }, { id: "m2" }] } });
		await session.prompt("/models-refresh");
		expect(seen.at(-1)).toEqual({ error: undefined, local: ["m1", "m2"], ext: ["e1"] });
		const m2 = session.modelRuntime.getModel("local", "m2");
		expect(m2).toBeDefined();
		await session.setModel(m2!);
		await session.prompt("hi");
		expect(server.requests.at(-1)?.body.model).toBe("m2");
		expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer key-from-models-json");

		// Now unreadable: getError() names the file as at startup; unlike pi, its last good read stays
		// (the file is most often being saved), and so do the extension's providers.
		writeFileSync(join(agentDir, "models.json"), "{ not json");
		await session.prompt("/models-refresh");
		expect(seen.at(-1)?.error).toContain(`${join(agentDir, "models.json")} was not read (`);
		expect(seen.at(-1)).toMatchObject({ local: ["m1", "m2"], ext: ["e1"] });

		// Fixed again: no error, the file's providers are back.
		writeModelsJson({ local: local() });
		await session.prompt("/models-refresh");
		expect(seen.at(-1)).toEqual({ error: undefined, local: ["m1"], ext: ["e1"] });
		session.dispose();
	});

	test("regression: refresh() took back an extension's registration under a models.json provider's name; it stays on top of the file's, as in pi", async () => {
		writeModelsJson({ local: local() });
		const project = join(dir, "project");
		const { session } = await createAgentSession({
			cwd: project,
			agentDir,
			authStorage: AuthStorage.inMemory(),
			sessionManager: SessionManager.inMemory(),
			resourceLoader: new DefaultResourceLoader({
				cwd: project,
				agentDir,
				noExtensions: true,
				extensionFactories: [
					(pi) => {
						// The file's provider re-pointed through the team's proxy.
						pi.registerProvider("local", { baseUrl: `${server.url}/team-proxy/v1` });
						pi.registerCommand("models-refresh", { handler: async (_args, ctx) => ctx.modelRegistry.refresh?.() });
					},
				],
			}),
		});
		await session.setModel(session.modelRuntime.getModel("local", "m1")!);
		await session.prompt("before");
		expect(server.requests.at(-1)?.path).toBe("/team-proxy/v1/chat/completions");

		// The file changes and is read again: its new model is there, and still goes through the proxy.
		writeModelsJson({ local: { ...local(), models: [{ id: "m1" }, { id: "m2" }] } });
		await session.prompt("/models-refresh");
		await session.setModel(session.modelRuntime.getModel("local", "m2")!);
		await session.prompt("after");
		expect(server.requests.at(-1)?.body.model).toBe("m2");
		expect(server.requests.at(-1)?.path).toBe("/team-proxy/v1/chat/completions");
		expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer key-from-models-json");
		session.dispose();
	});

	test("ctx.modelRegistry.getError() names a models.json that was not read, as pi's does", async () => {
		const errors: (string | undefined)[] = [];
		const open = () =>
			createAgentSession({
				cwd: join(dir, "project"),
				agentDir,
				authStorage: AuthStorage.inMemory(),
				sessionManager: SessionManager.inMemory(),
				resourceLoader: new DefaultResourceLoader({
					cwd: join(dir, "project"),
					agentDir,
					noExtensions: true,
					extensionFactories: [
						(pi) =>
							pi.registerCommand("models-error", {
								handler: async (_args, ctx) => void errors.push(ctx.modelRegistry.getError?.()),
							}),
					],
				}),
			});
		writeFileSync(join(agentDir, "models.json"), "{ not json");
		const broken = await open();
		await broken.session.prompt("/models-error");
		expect(errors).toEqual([broken.diagnostics[0]?.message]);
		expect(errors[0]).toContain(`${join(agentDir, "models.json")} was not read (`);
		broken.session.dispose();
		writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: [] }));
		const wrongShape = await open();
		await wrongShape.session.prompt("/models-error");
		expect(errors[1]).toBe(
			`${join(agentDir, "models.json")}: "providers" must be an object of provider configs; nothing applied.`,
		);
		wrongShape.session.dispose();
		writeModelsJson({ local: local() });
		const fine = await open();
		await fine.session.prompt("/models-error");
		expect(errors[2]).toBeUndefined();
		expect(errors).toHaveLength(3);
		fine.session.dispose();
	});

	test("authStorage together with a modelRuntime is refused: the runtime holds its own keys", async () => {
		const attempt = createAgentSession({
			cwd: join(dir, "project"),
			agentDir,
			authStorage: AuthStorage.inMemory(),
			modelRuntime: new InMemoryModelRuntime(),
			sessionManager: SessionManager.inMemory(),
		});
		await expect(attempt).rejects.toThrow(SettleError);
		await expect(attempt).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
	});

	test("no models, no agentDir chosen, pi's keys in ~/.pi/agent: the fallback message names them and the way to use them", async () => {
		const piAgent = join(dir, ".pi", "agent");
		mkdirSync(piAgent, { recursive: true });
		writeFileSync(join(piAgent, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: "sk-1" } }));
		vi.stubEnv("HOME", dir);
		vi.stubEnv("SETTLE_AGENT_DIR", "");
		vi.stubEnv("PI_CODING_AGENT_DIR", "");
		expect(getPiAgentDir()).toBe(piAgent);
		const options = { cwd: join(dir, "project"), sessionManager: SessionManager.inMemory() };
		const unchosen = await createAgentSession({ ...options, modelRuntime: new InMemoryModelRuntime() });
		expect(unchosen.modelFallbackMessage).toBe(
			`${noModelsAvailableMessage(join(dir, ".settle", "agent"))} pi's auth.json in ${piAgent} is not read: to use it, set SETTLE_AGENT_DIR=${piAgent} (in code: agentDir: getPiAgentDir()).`,
		);
		unchosen.session.dispose();
		// An agentDir chosen in code is the user's decision: no note.
		const chosen = await createAgentSession({ ...options, agentDir, modelRuntime: new InMemoryModelRuntime() });
		expect(chosen.modelFallbackMessage).toBe(noModelsAvailableMessage(agentDir));
		chosen.session.dispose();
		// pi's own variable moves pi's folder, as in pi (a leading ~ expanded).
		vi.stubEnv("PI_CODING_AGENT_DIR", "~/elsewhere");
		expect(getPiAgentDir()).toBe(join(dir, "elsewhere"));
	});
});
