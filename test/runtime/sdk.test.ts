/**
 * createAgentSessionServices / createAgentSessionFromServices / createAgentSession (behavior A.4,
 * A.5): model and thinking priorities with pi's fallback texts, initial tools, the initial
 * entries, extension flag validation with pi's messages, provider registrations, diagnostics.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import {
	createAgentSession,
	createAgentSessionFromServices,
	findModel,
	noModelsAvailableMessage,
} from "../../src/runtime/sdk.js";
import { createAgentSessionServices } from "../../src/runtime/services.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { sessionFilesUnder } from "./helpers.js";

let dir: string;
let agentDir: string;
let faux: FauxProvider;
let modelRuntime: InMemoryModelRuntime;
const sessions: AgentSession[] = [];

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-sdk-"));
	agentDir = join(dir, "agent");
	mkdirSync(agentDir);
	faux = createFauxProvider({
		models: [
			{ id: "faux-1" },
			{ id: "faux-2" },
			{ id: "thinker", reasoning: true, thinkingLevelMap: { minimal: null } },
		],
	});
	modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
});

afterEach(() => {
	for (const session of sessions.splice(0)) session.dispose();
	rmSync(dir, { recursive: true, force: true });
});

async function create(options: Parameters<typeof createAgentSession>[0] = {}) {
	const result = await createAgentSession({
		cwd: dir,
		agentDir,
		modelRuntime,
		settingsManager: SettingsManager.inMemory(),
		sessionManager: SessionManager.inMemory(dir),
		...options,
	});
	sessions.push(result.session);
	return result;
}

/** An in-memory session that recorded `provider/modelId` and one exchange. */
function recordedSession(provider: string, modelId: string, thinking?: "high" | "low"): SessionManager {
	const manager = SessionManager.inMemory(dir);
	manager.appendModelChange(provider, modelId);
	if (thinking) manager.appendThinkingLevelChange(thinking);
	manager.appendMessage({ role: "user", content: [{ type: "text", text: "earlier" }], timestamp: 1 });
	return manager;
}

describe("model priority (A.5)", () => {
	it("explicit > the session's model > settings default > provider default > first available", async () => {
		const faux2 = faux.getModel("faux-2")!;
		expect((await create({ model: faux2, sessionManager: recordedSession("faux", "thinker") })).session.model?.id).toBe(
			"faux-2",
		);
		const restored = await create({ sessionManager: recordedSession("faux", "faux-2") });
		expect(restored.session.model?.id).toBe("faux-2");
		expect(restored.modelFallbackMessage).toBeUndefined();
		const fromSettings = await create({
			settingsManager: SettingsManager.inMemory({ defaultProvider: "faux", defaultModel: "thinker" }),
		});
		expect(fromSettings.session.model?.id).toBe("thinker");
		expect((await create()).session.model?.id).toBe("faux-1");
		const withDefault = new InMemoryModelRuntime();
		withDefault.registerProvider({
			provider: "faux",
			models: faux.models,
			streamFn: faux.streamFn,
			apiKey: "k",
			defaultModelId: "faux-2",
		});
		expect((await create({ modelRuntime: withDefault })).session.model?.id).toBe("faux-2");
	});

	it("a recorded model that is gone or has no auth: 'Could not restore model <p>/<id>. Using <p>/<id>'", async () => {
		const gone = await create({ sessionManager: recordedSession("anthropic", "claude-gone") });
		expect(gone.modelFallbackMessage).toBe("Could not restore model anthropic/claude-gone. Using faux/faux-1");
		expect(gone.session.model?.id).toBe("faux-1");
		const locked = new InMemoryModelRuntime();
		locked.registerFauxProvider(faux);
		locked.registerProvider({
			provider: "paid",
			models: [{ ...faux.getModel()!, provider: "paid", id: "p1" }],
			streamFn: faux.streamFn,
		});
		const noAuth = await create({ modelRuntime: locked, sessionManager: recordedSession("paid", "p1") });
		expect(noAuth.modelFallbackMessage).toBe("Could not restore model paid/p1. Using faux/faux-1");
	});

	it("no model at all: a clear message, thinking off, and the prompt is rejected with pi's text", async () => {
		const { session, modelFallbackMessage } = await create({ modelRuntime: new InMemoryModelRuntime() });
		expect(modelFallbackMessage).toBe(noModelsAvailableMessage(agentDir));
		expect(modelFallbackMessage).toMatch(/^No models available\. /);
		expect(session.model).toBeUndefined();
		expect(session.thinkingLevel).toBe("off");
		await expect(session.prompt("hi")).rejects.toThrow(/^No model selected\./);
	});

	it("findModel: provider/id, a unique bare id, and a NOT_FOUND naming the providers", () => {
		expect(findModel(modelRuntime, "faux/faux-2").id).toBe("faux-2");
		expect(findModel(modelRuntime, "thinker").id).toBe("thinker");
		expect(() => findModel(modelRuntime, "nope/x")).toThrow(
			"Model not found: nope/x. Use provider/id; known providers: faux.",
		);
	});
});

describe("thinking level and initial entries (A.5 steps 4, 7)", () => {
	it("explicit > the session's recorded level > settings > medium, clamped to the model", async () => {
		const thinker = faux.getModel("thinker")!;
		expect((await create({ model: thinker, thinkingLevel: "low" })).session.thinkingLevel).toBe("low");
		expect((await create({ sessionManager: recordedSession("faux", "thinker", "high") })).session.thinkingLevel).toBe(
			"high",
		);
		const settings = SettingsManager.inMemory({ defaultThinkingLevel: "low" });
		expect((await create({ model: thinker, settingsManager: settings })).session.thinkingLevel).toBe("low");
		expect((await create({ model: thinker })).session.thinkingLevel).toBe("medium");
		// Clamped: a model without reasoning is always off; minimal is not supported by "thinker" → low.
		expect((await create({ model: faux.getModel("faux-1")!, thinkingLevel: "high" })).session.thinkingLevel).toBe(
			"off",
		);
		expect((await create({ model: thinker, thinkingLevel: "minimal" })).session.thinkingLevel).toBe("low");
		expect((await create({ model: thinker, thinkingLevel: "xhigh" })).session.thinkingLevel).toBe("high");
	});

	it("a brand-new session records model_change + thinking_level_change; an old one without a level gets one", async () => {
		const fresh = await create({ model: faux.getModel("thinker")! });
		expect(fresh.session.sessionManager.getEntries().map((e) => e.type)).toEqual([
			"model_change",
			"thinking_level_change",
		]);
		const old = SessionManager.inMemory(dir);
		old.appendModelChange("faux", "thinker");
		old.appendMessage({ role: "user", content: [{ type: "text", text: "earlier" }], timestamp: 1 });
		const resumed = await create({
			sessionManager: old,
			settingsManager: SettingsManager.inMemory({ defaultThinkingLevel: "high" }),
		});
		expect(resumed.session.thinkingLevel).toBe("high");
		expect(old.getEntries().map((e) => e.type)).toEqual(["model_change", "message", "thinking_level_change"]);
		const complete = recordedSession("faux", "thinker", "low");
		const count = complete.getEntries().length;
		await create({ sessionManager: complete });
		expect(complete.getEntries()).toHaveLength(count);
	});
});

describe("initial tools (A.5 step 5)", () => {
	const extensionTool = (pi: ExtensionAPI) =>
		pi.registerTool({
			name: "ext_tool",
			label: "ext",
			description: "an extension tool",
			parameters: { type: "object", properties: {} },
			execute: async () => ({ content: [], details: {} }),
		});

	async function withExtension(options: Parameters<typeof createAgentSession>[0]) {
		const services = await createAgentSessionServices({
			cwd: dir,
			agentDir,
			modelRuntime,
			settingsManager: SettingsManager.inMemory(),
			resourceLoaderOptions: { extensionFactories: [extensionTool], noExtensions: true, noContextFiles: true },
		});
		const { session } = await createAgentSessionFromServices({
			services,
			sessionManager: SessionManager.inMemory(dir),
			...options,
		});
		sessions.push(session);
		return session;
	}

	it("defaults read, bash, edit, write (+ extension tools); tools is an allowlist; excludeTools removes", async () => {
		expect((await withExtension({})).getActiveToolNames()).toEqual(["read", "bash", "edit", "write", "ext_tool"]);
		const allow = await withExtension({ tools: ["read", "ls"] });
		expect(allow.getActiveToolNames()).toEqual(["read", "ls"]);
		expect(allow.getAllTools().map((tool) => tool.name)).toEqual(["read", "ls"]);
		expect((await withExtension({ excludeTools: ["bash"] })).getActiveToolNames()).toEqual([
			"read",
			"edit",
			"write",
			"ext_tool",
		]);
	});

	it("noTools 'all' allows nothing; 'builtin' starts without built-ins but keeps extension tools", async () => {
		const none = await withExtension({ noTools: "all" });
		expect(none.getActiveToolNames()).toEqual([]);
		expect(none.getAllTools()).toEqual([]);
		expect((await withExtension({ noTools: "builtin" })).getActiveToolNames()).toEqual(["ext_tool"]);
	});
});

describe("createAgentSessionServices (A.4)", () => {
	const flags = (pi: ExtensionAPI) => {
		pi.registerFlag("plan", { type: "boolean", description: "plan first" });
		pi.registerFlag("persona", { type: "string" });
		pi.on("session_start", (_event, ctx) =>
			ctx.ui.notify(`plan=${pi.getFlag("plan")} persona=${pi.getFlag("persona")}`),
		);
	};

	async function services(extensionFlagValues: Map<string, string | boolean>, factories = [flags]) {
		return createAgentSessionServices({
			cwd: dir,
			agentDir,
			modelRuntime,
			extensionFlagValues,
			resourceLoaderOptions: { extensionFactories: factories, noExtensions: true },
		});
	}

	it("validates extension flags with pi's messages and applies the valid ones", async () => {
		const unknown = await services(new Map([["nope", true]]));
		expect(unknown.diagnostics.filter((d) => d.source === "flags")).toEqual([
			{ type: "error", message: "Unknown option: --nope", source: "flags" },
		]);
		const several = await services(
			new Map<string, string | boolean>([
				["a", true],
				["b", "x"],
			]),
		);
		expect(several.diagnostics.map((d) => d.message)).toContain("Unknown options: --a, --b");
		const noValue = await services(new Map([["persona", true]]));
		expect(noValue.diagnostics.map((d) => d.message)).toContain('Extension flag "--persona" requires a value');
		const valid = await services(
			new Map<string, string | boolean>([
				["plan", "ignored"],
				["persona", "pirate"],
			]),
		);
		expect(valid.diagnostics).toEqual([]);
		expect(valid.extensionsResult.runtime.flagValues.get("plan")).toBe(true);
		expect(valid.extensionsResult.runtime.flagValues.get("persona")).toBe("pirate");
	});

	it("never creates a session; the first session takes the loaded extensions, a second one reloads them", async () => {
		let factoryCalls = 0;
		const counted = (pi: ExtensionAPI) => {
			factoryCalls++;
			flags(pi);
		};
		const built = await services(new Map([["persona", "pirate"]]), [counted]);
		expect(factoryCalls).toBe(1);
		expect(sessionFilesUnder(dir)).toEqual([]);
		const notes: string[] = [];
		for (let i = 0; i < 2; i++) {
			const { session } = await createAgentSessionFromServices({
				services: built,
				sessionManager: SessionManager.inMemory(dir),
			});
			sessions.push(session);
			await session.bindExtensions({
				uiContext: { ...session.extensionRunner.getUIContext(), notify: (message: string) => notes.push(message) },
			});
		}
		expect(factoryCalls).toBe(2);
		expect(notes).toEqual(["plan=undefined persona=pirate", "plan=undefined persona=pirate"]);
	});

	it("providers registered by extensions join the model runtime; a failing one is a diagnostic", async () => {
		const provider = (pi: ExtensionAPI) => {
			pi.registerProvider("ext-provider", {
				api: "ext-api",
				baseUrl: "http://localhost:1",
				apiKey: "ext-key",
				models: [{ id: "ext-1", name: "Ext 1" }],
				streamSimple: faux.streamFn as never,
			});
			pi.registerProvider("broken", { api: "x", models: [{ id: "b-1", name: "B 1" }] });
			pi.registerProvider("keyless", {
				api: "ext-api",
				baseUrl: "http://localhost:1",
				models: [{ id: "k-1", name: "K 1" }],
				streamSimple: faux.streamFn as never,
			});
		};
		const built = await services(new Map(), [provider]);
		expect(built.modelRuntime.getModel("ext-provider", "ext-1")?.api).toBe("ext-api");
		const errors = built.diagnostics.filter((d) => d.type === "error");
		expect(errors).toHaveLength(2);
		// pi's text for models without a baseUrl.
		expect(errors[0]!.message).toBe(
			'Extension "<inline:1>" error: Provider broken: "baseUrl" is required when defining models.',
		);
		// pi's text for models without a key.
		expect(errors[1]!.message).toBe(
			'Extension "<inline:1>" error: Provider keyless: "apiKey" or "oauth" is required when defining models.',
		);
		expect(built.modelRuntime.getModel("keyless", "k-1")).toBeUndefined();
		const { session } = await createAgentSessionFromServices({
			services: built,
			sessionManager: SessionManager.inMemory(dir),
			model: built.modelRuntime.getModel("ext-provider", "ext-1")!,
		});
		sessions.push(session);
		faux.setResponses([fauxAssistantMessage("served by the extension's provider")]);
		await session.prompt("hi");
		expect(faux.requests.at(-1)?.model).toMatchObject({ provider: "ext-provider", id: "ext-1" });
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});

	it("a provider's apiKey and header values name environment variables, as in pi (else they are literal)", async () => {
		const previous = process.env.SETTLE_TEST_EXT_PROVIDER_KEY;
		process.env.SETTLE_TEST_EXT_PROVIDER_KEY = "key-from-env";
		try {
			const provider = (pi: ExtensionAPI) => {
				pi.registerProvider("env-provider", {
					api: "env-api",
					baseUrl: "http://localhost:1",
					apiKey: "SETTLE_TEST_EXT_PROVIDER_KEY",
					headers: { "x-key": "SETTLE_TEST_EXT_PROVIDER_KEY", "x-plain": "plain" },
					models: [{ id: "env-1", name: "Env 1" }],
					streamSimple: faux.streamFn as never,
				});
			};
			const built = await services(new Map(), [provider]);
			const model = built.modelRuntime.getModel("env-provider", "env-1")!;
			expect(model.headers).toEqual({ "x-key": "key-from-env", "x-plain": "plain" });
			const { session } = await createAgentSessionFromServices({
				services: built,
				sessionManager: SessionManager.inMemory(dir),
				model,
			});
			sessions.push(session);
			faux.setResponses([fauxAssistantMessage("ok")]);
			await session.prompt("hi");
			expect(faux.requests.at(-1)?.options.apiKey).toBe("key-from-env");
			delete process.env.SETTLE_TEST_EXT_PROVIDER_KEY;
			faux.setResponses([fauxAssistantMessage("ok")]);
			await session.prompt("again");
			// Read per request: without the variable the name itself is the key.
			expect(faux.requests.at(-1)?.options.apiKey).toBe("SETTLE_TEST_EXT_PROVIDER_KEY");
		} finally {
			if (previous === undefined) delete process.env.SETTLE_TEST_EXT_PROVIDER_KEY;
			else process.env.SETTLE_TEST_EXT_PROVIDER_KEY = previous;
		}
	});

	it("a throwing extension factory and broken settings are diagnostics naming what to fix", async () => {
		mkdirSync(join(dir, ".settle"));
		writeFileSync(join(dir, ".settle", "settings.json"), "{ not json");
		const built = await services(new Map(), [
			() => {
				throw new Error("boom");
			},
		]);
		const messages = built.diagnostics.map((d) => `${d.source}: ${d.message}`);
		expect(messages.some((m) => m.startsWith("extensions: Failed to load extension: boom"))).toBe(true);
		expect(messages.some((m) => m.startsWith("settings: ") && m.includes(join(dir, ".settle", "settings.json")))).toBe(
			true,
		);
	});

	it("regression: settings entries that point nowhere reach the services' diagnostics (they were dropped)", async () => {
		mkdirSync(join(dir, ".settle"));
		const settingsFile = join(dir, ".settle", "settings.json");
		writeFileSync(
			settingsFile,
			JSON.stringify({ extensions: ["gone-ext.ts"], skills: ["gone-skills"], prompts: ["gone-prompts"] }),
		);
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "always" }));
		const built = await createAgentSessionServices({ cwd: dir, agentDir, modelRuntime });
		const missing = (kind: string, entry: string) =>
			`${kind} path "${entry}" in ${settingsFile} does not exist (resolved to ${join(dir, ".settle", entry)}). Fix or remove the entry.`;
		expect(built.diagnostics.map(({ type, source, message }) => ({ type, source, message }))).toEqual([
			{ type: "warning", source: "resources", message: missing("skills", "gone-skills") },
			{ type: "warning", source: "resources", message: missing("prompts", "gone-prompts") },
			{ type: "warning", source: "extensions", message: missing("extensions", "gone-ext.ts") },
		]);
	});
});

// createAgentSession({ model: "provider/id" }): taken by name as createAgentSessionRuntimeFactory({ model })
// and `settle --model` take it — the same findModel (after extensions registered their providers),
// the same typed NOT_FOUND for an unknown one, thrown before any session file exists.
/** What `fn` throws (it must throw). */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
	try {
		await fn();
	} catch (error) {
		return error;
	}
	throw new Error("expected a throw");
}

describe("createAgentSession({ model: string })", () => {
	it("provider/id picks that model over the session's recorded one, and the prompt goes to it", async () => {
		const recorded = SessionManager.inMemory(dir);
		recorded.appendModelChange("faux", "thinker");
		recorded.appendMessage({ role: "user", content: [{ type: "text", text: "earlier" }], timestamp: 1 });
		const { session, modelFallbackMessage } = await create({ model: "faux/faux-2", sessionManager: recorded });
		expect(session.model).toMatchObject({ provider: "faux", id: "faux-2" });
		expect(modelFallbackMessage).toBeUndefined();
		faux.setResponses([fauxAssistantMessage("from faux-2")]);
		await session.prompt("hi");
		expect(faux.requests.at(-1)?.model).toMatchObject({ provider: "faux", id: "faux-2" });
	});

	it("a bare id one provider serves, as findModel takes it; the thinking level is clamped to it", async () => {
		const { session } = await create({ model: "faux-1", thinkingLevel: "high" });
		expect(session.model).toMatchObject({ provider: "faux", id: "faux-1" });
		expect(session.thinkingLevel).toBe("off");
		const thinker = await create({ model: "thinker", thinkingLevel: "high" });
		expect(thinker.session.model?.id).toBe("thinker");
		expect(thinker.session.thinkingLevel).toBe("high");
	});

	it("a provider an extension registers is found by name (resolved after extensions load)", async () => {
		const provider = (pi: ExtensionAPI) => {
			pi.registerProvider("ext-provider", {
				api: "ext-api",
				baseUrl: "http://localhost:1",
				apiKey: "ext-key",
				models: [{ id: "ext-1", name: "Ext 1" }],
				streamSimple: faux.streamFn as never,
			});
		};
		const { session } = await create({
			model: "ext-provider/ext-1",
			resourceLoader: createTestResourceLoader({ extensionFactories: [provider] }),
		});
		expect(session.model).toMatchObject({ provider: "ext-provider", id: "ext-1" });
	});

	it("an unknown one: the factory's typed NOT_FOUND, word for word, and no session file is written", async () => {
		const sdkError = await thrown(() =>
			createAgentSession({
				cwd: dir,
				agentDir,
				modelRuntime,
				settingsManager: SettingsManager.inMemory(),
				model: "faux/nope",
			}),
		);
		expect(sdkError).toBeInstanceOf(SettleError);
		expect(sdkError).toMatchObject({ code: "NOT_FOUND", details: { spec: "faux/nope" } });
		expect((sdkError as Error).message).toBe(
			"Model not found: faux/nope. faux serves: faux-1, faux-2, thinker. Use provider/id; known providers: faux.",
		);
		const factory = createAgentSessionRuntimeFactory({ modelRuntime, model: "faux/nope" });
		const factoryError = await thrown(() =>
			factory({ cwd: dir, agentDir, sessionManager: SessionManager.inMemory(dir) }),
		);
		expect(factoryError).toBeInstanceOf(SettleError);
		expect((factoryError as SettleError).code).toBe((sdkError as SettleError).code);
		expect((factoryError as Error).message).toBe((sdkError as Error).message);
		expect(sessionFilesUnder(dir)).toEqual([]);
	});

	it("a Model object still works as before", async () => {
		const { session } = await create({ model: faux.getModel("faux-2")! });
		expect(session.model?.id).toBe("faux-2");
	});
});
