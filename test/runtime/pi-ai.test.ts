/**
 * Real providers through pi-ai 0.73.1: the catalogue, keys from auth.json and the environment,
 * pi's default models, and a whole session served by pi-ai's OWN faux provider registered in
 * pi-ai's registry — so every request goes through pi-ai's real `streamSimple` dispatch, offline.
 * Also: the file-mode and corrupt-file rules of auth.json, the "not installed" error, and that
 * nothing on the faux path ever imports pi-ai.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as piAi from "@mariozechner/pi-ai";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	createPiAiModelRuntime,
	loadPiAi,
	PI_DEFAULT_MODEL_PER_PROVIDER,
	type PiAiModelRuntime,
} from "../../src/llm/pi-ai.js";
import type { Model, ToolResultMessage } from "../../src/llm/types.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { createAgentSessionServices } from "../../src/runtime/services.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let dir: string;
const cleanups: (() => void)[] = [];

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-pi-ai-"));
});

afterEach(() => {
	for (const cleanup of cleanups.splice(0).reverse()) cleanup();
	rmSync(dir, { recursive: true, force: true });
});

async function session(modelRuntime: PiAiModelRuntime, model?: Model): Promise<AgentSession> {
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		modelRuntime,
		settingsManager: SettingsManager.inMemory(),
		sessionManager: SessionManager.inMemory(dir),
		...(model ? { model } : {}),
	});
	cleanups.push(() => session.dispose());
	return session;
}

describe("pi-ai model runtime", () => {
	it("serves pi-ai's catalogue; models are available only with a key (auth.json first, then the environment)", async () => {
		const none = await createPiAiModelRuntime({ useEnvironment: false });
		expect(none.getModel("anthropic", "claude-opus-4-7")?.api).toBe("anthropic-messages");
		expect(none.getAll().length).toBe(piAi.getProviders().reduce((n, p) => n + piAi.getModels(p as never).length, 0));
		expect(none.getAvailable()).toEqual([]);
		const stored = await createPiAiModelRuntime({
			useEnvironment: false,
			credentials: AuthStorage.inMemory({ anthropic: "sk-stored" }),
		});
		expect(new Set(stored.getAvailable().map((model) => model.provider))).toEqual(new Set(["anthropic"]));
		expect(await stored.getApiKey("anthropic")).toBe("sk-stored");
		expect(stored.getAuthSource("anthropic")).toBe("stored");
		// pi's default model for the provider is the one a new session starts with.
		expect(stored.getDefaultModelId("anthropic")).toBe(PI_DEFAULT_MODEL_PER_PROVIDER.anthropic);
		expect((await session(stored)).model?.id).toBe(PI_DEFAULT_MODEL_PER_PROVIDER.anthropic);

		const previous = process.env.GROQ_API_KEY;
		process.env.GROQ_API_KEY = "gsk-env";
		cleanups.push(() => {
			if (previous === undefined) delete process.env.GROQ_API_KEY;
			else process.env.GROQ_API_KEY = previous;
		});
		const fromEnv = await createPiAiModelRuntime({ credentials: AuthStorage.inMemory({}) });
		expect(fromEnv.hasConfiguredAuth("groq")).toBe(true);
		expect(fromEnv.getAuthSource("groq")).toBe("environment");
		expect(await fromEnv.getApiKey("groq")).toBe("gsk-env");
	});

	it("getAuthStatus answers as pi 0.73.1's ModelRegistry.getProviderAuthStatus (stored, runtime before environment, environment with its variable, none)", async () => {
		for (const [name, value] of [
			["GROQ_API_KEY", "gsk-env"],
			["CEREBRAS_API_KEY", "csk-env"],
		] as const) {
			const previous = process.env[name];
			process.env[name] = value;
			cleanups.push(() => {
				if (previous === undefined) delete process.env[name];
				else process.env[name] = previous;
			});
		}
		const settle = await createPiAiModelRuntime({ credentials: AuthStorage.inMemory({ anthropic: "sk-stored" }) });
		settle.setApiKey("openai", "sk-runtime");
		settle.setApiKey("cerebras", "csk-runtime");
		const piAuth = pi.AuthStorage.inMemory({ anthropic: { type: "api_key", key: "sk-stored" } });
		piAuth.setRuntimeApiKey("openai", "sk-runtime");
		piAuth.setRuntimeApiKey("cerebras", "csk-runtime");
		const piRegistry = pi.ModelRegistry.inMemory(piAuth);
		for (const provider of ["anthropic", "groq", "openai", "cerebras", "mistral", "no-such-provider"]) {
			const expected = piRegistry.getProviderAuthStatus(provider);
			// pi names its CLI flag as the label of a runtime key; Settle's runtime keys come from code.
			if (expected.source === "runtime") delete expected.label;
			expect({ provider, status: settle.getAuthStatus(provider) }).toEqual({ provider, status: expected });
		}
	});

	it("a session served by pi-ai's own faux provider through pi-ai's streamSimple, with the key from auth.json", async () => {
		const registration = piAi.registerFauxProvider({ provider: "pi-faux" });
		cleanups.push(() => registration.unregister());
		const authPath = join(dir, "auth.json");
		AuthStorage.create(authPath).set("pi-faux", "key-from-auth-file");
		const runtime = await createPiAiModelRuntime({ credentials: AuthStorage.create(authPath), useEnvironment: false });
		runtime.registerPiAiProvider("pi-faux", registration.models as Model[]);
		const model = runtime.getModel("pi-faux", registration.getModel().id)!;
		expect(runtime.hasConfiguredAuth("pi-faux")).toBe(true);

		const seenKeys: (string | undefined)[] = [];
		registration.setResponses([
			(_context, options) => {
				seenKeys.push(options?.apiKey);
				return piAi.fauxAssistantMessage([piAi.fauxToolCall("bash", { command: "pwd" })], { stopReason: "toolUse" });
			},
			(context, options) => {
				seenKeys.push(options?.apiKey);
				const result = context.messages.findLast((m) => m.role === "toolResult") as ToolResultMessage | undefined;
				const text = result?.content[0]?.type === "text" ? result.content[0].text.trim() : "?";
				return piAi.fauxAssistantMessage(`pi-ai says the cwd is ${text}`);
			},
		]);
		const s = await session(runtime, model);
		const deltas: string[] = [];
		s.subscribe((event) => {
			if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
				deltas.push(event.assistantMessageEvent.delta);
			}
		});
		await s.prompt("where are we?");
		const last = s.messages.at(-1)!;
		expect(last).toMatchObject({ role: "assistant", stopReason: "stop", provider: "pi-faux", api: registration.api });
		expect(last.role === "assistant" && last.content[0]).toEqual({
			type: "text",
			text: `pi-ai says the cwd is ${dir}`,
		});
		expect(deltas.join("")).toBe(`pi-ai says the cwd is ${dir}`);
		expect(seenKeys).toEqual(["key-from-auth-file", "key-from-auth-file"]);
		expect(registration.getPendingResponseCount()).toBe(0);
	});

	it("a model whose wire API pi-ai does not serve ends the run with pi-ai's error, not an exception", async () => {
		const runtime = await createPiAiModelRuntime({ useEnvironment: false });
		const model = { ...runtime.getModel("anthropic", "claude-opus-4-7")!, provider: "local", api: "no-such-api" };
		runtime.registerPiAiProvider("local", [model], { requiresAuth: false });
		const s = await session(runtime, runtime.getModel("local", model.id));
		await s.prompt("hi");
		expect(s.messages.at(-1)).toMatchObject({
			role: "assistant",
			stopReason: "error",
			errorMessage: "No API provider registered for api: no-such-api",
		});
	});

	it("without pi-ai: a MISSING_DEPENDENCY error that says to npm install it", async () => {
		const error = await loadPiAi(() => import("@mariozechner/pi-ai-not-installed" as string)).catch((e: unknown) => e);
		expect(error).toMatchObject({ code: "MISSING_DEPENDENCY" });
		expect((error as Error).message).toContain("npm install @mariozechner/pi-ai");
	});
});

describe("auth.json", () => {
	it("is written in pi's format with mode 0600, and env-var names resolve", () => {
		const path = join(dir, "agent", "auth.json");
		const auth = AuthStorage.create(path);
		auth.set("anthropic", "sk-ant-1");
		auth.set("openai", "SETTLE_TEST_OPENAI_KEY");
		expect(statSync(path).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
			anthropic: { type: "api_key", key: "sk-ant-1" },
			openai: { type: "api_key", key: "SETTLE_TEST_OPENAI_KEY" },
		});
		process.env.SETTLE_TEST_OPENAI_KEY = "sk-from-env";
		cleanups.push(() => delete process.env.SETTLE_TEST_OPENAI_KEY);
		const reread = AuthStorage.create(path);
		expect(reread.getApiKey("anthropic")).toBe("sk-ant-1");
		expect(reread.getApiKey("openai")).toBe("sk-from-env");
		reread.remove("anthropic");
		expect(AuthStorage.create(path).list()).toEqual(["openai"]);
		expect(statSync(path).mode & 0o777).toBe(0o600);
	});

	it("a corrupt file is a typed error naming it, is never overwritten, and services report it", async () => {
		const path = join(dir, "auth.json");
		writeFileSync(path, '{"anthropic": {"type": "api_key", "key": "sk-');
		const before = readFileSync(path);
		const auth = AuthStorage.create(path);
		expect(auth.getError()).toMatchObject({ code: "INVALID_SETTINGS" });
		expect(auth.getError()?.message).toContain(`Cannot read credentials from ${path}`);
		expect(auth.getApiKey("anthropic")).toBeUndefined();
		expect(() => auth.set("openai", "sk-x")).toThrow(/never overwrites a file it cannot parse/);
		expect(readFileSync(path).equals(before)).toBe(true);
		const services = await createAgentSessionServices({
			cwd: dir,
			agentDir: dir,
			settingsManager: SettingsManager.inMemory(),
		});
		expect(services.diagnostics).toContainEqual(
			expect.objectContaining({ type: "error", source: "credentials", path, message: auth.getError()?.message }),
		);
	});

	it("regression: a wrong-typed credential is reported where it is, not later as a missing key", async () => {
		const path = join(dir, "auth.json");
		writeFileSync(
			path,
			JSON.stringify({
				anthropic: { type: "api_key", key: 42 },
				openai: { type: "apikey", key: "sk-x" },
				google: "",
				mistral: { type: "api_key", key: "sk-ok" },
				github: { type: "oauth", refresh: "r" },
			}),
		);
		const auth = AuthStorage.create(path);
		expect(auth.getError()).toBeUndefined();
		expect(auth.getWarnings()).toEqual([
			`${path}: the credential of "anthropic" is not usable ("key" must be a string, got number). Write { "type": "api_key", "key": "<the key or the name of an environment variable>" }.`,
			`${path}: the credential of "openai" is not usable ("type" must be "api_key", got "apikey"). Write { "type": "api_key", "key": "<the key or the name of an environment variable>" }.`,
			`${path}: the credential of "google" is not usable (the key is empty). Write { "type": "api_key", "key": "<the key or the name of an environment variable>" }.`,
		]);
		expect(auth.getApiKey("mistral")).toBe("sk-ok");
		const services = await createAgentSessionServices({
			cwd: dir,
			agentDir: dir,
			settingsManager: SettingsManager.inMemory(),
		});
		const credentialWarnings = services.diagnostics.filter((d) => d.source === "credentials");
		expect(credentialWarnings.map((d) => [d.type, d.message])).toEqual(auth.getWarnings().map((m) => ["warning", m]));
	});
});

describe("lazy loading", () => {
	it("nothing on the faux path imports pi-ai; without it, services warn and the CLI says how to install it", () => {
		const script = join(dir, "lazy.mts");
		writeFileSync(
			script,
			`import { main } from ${JSON.stringify(join(ROOT, "src/cli/main.ts"))};
import { createAgentSessionServices } from ${JSON.stringify(join(ROOT, "src/runtime/index.ts"))};
const faux = await main(["--faux", "-p", "lazy ok"]);
const services = await createAgentSessionServices({ cwd: process.cwd() });
console.log(JSON.stringify(services.diagnostics.filter((d) => d.source === "models").map((d) => d.message)));
const real = await main(["-p", "hi"]);
console.log("codes", faux, real);
`,
		);
		const run = spawnSync(
			process.execPath,
			[
				"--import",
				pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href,
				"--import",
				pathToFileURL(join(ROOT, "test/fixtures/runtime/no-pi-ai/register.mjs")).href,
				script,
			],
			{ cwd: dir, encoding: "utf8", env: { ...process.env, SETTLE_AGENT_DIR: join(dir, "agent") } },
		);
		const lines = run.stdout.trim().split("\n");
		expect(lines[0]).toBe("lazy ok");
		expect(JSON.parse(lines[1]!)[0]).toContain("npm install @mariozechner/pi-ai");
		// 4: no model has a key (settle --help, "Exit codes").
		expect(lines[2]).toBe("codes 0 4");
		expect(run.stderr).toContain("npm install @mariozechner/pi-ai");
		expect(run.stderr).toContain("No models available.");
	});
});
