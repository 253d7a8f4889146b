/**
 * An SDK user on a real provider without its key (default pi-ai model runtime, the variable unset)
 * is told the provider's own variable (`GROQ_API_KEY`, from src/llm/provider-env.ts).
 *
 * An SDK user who creates a faux provider and passes its model, but forgets to register the
 * provider with the model runtime, gets NO_AUTH at the first prompt. The message names the call
 * that fixes it on the object they hold (`modelRuntime`, not the session runtime), and that call
 * does fix it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createPiAiModelRuntime } from "../../src/llm/pi-ai.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession, findModel } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { rejection } from "../rejection.js";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function sessionOn(
	modelRuntime: InMemoryModelRuntime,
	model?: ReturnType<ReturnType<typeof createFauxProvider>["getModel"]>,
) {
	const cwd = mkdtempSync(join(tmpdir(), "settle-provider-hint-"));
	dirs.push(cwd);
	const { session } = await createAgentSession({
		cwd,
		agentDir: join(cwd, "agent"),
		modelRuntime,
		...(model ? { model } : {}),
		settingsManager: SettingsManager.inMemory(),
		sessionManager: SessionManager.inMemory(cwd),
	});
	return session;
}

describe("a model whose provider the model runtime does not know", () => {
	it("NO_AUTH names modelRuntime.registerFauxProvider(faux); doing that makes the prompt work", async () => {
		const faux = createFauxProvider();
		const modelRuntime = new InMemoryModelRuntime();
		const session = await sessionOn(modelRuntime, faux.getModel());
		const error = await rejection(session.prompt("hi"));
		expect(error.code).toBe("NO_AUTH");
		expect(error.message).toMatch(/^No API key found for faux\./);
		expect(error.message).toContain("`modelRuntime.registerFauxProvider(faux)`");
		expect(error.message).toContain("`modelRuntime.registerProvider(...)`");
		expect(error.message).toContain("`modelRuntime.setApiKey(provider, key)`");
		expect(error.message).not.toContain("`runtime.");

		modelRuntime.registerFauxProvider(faux);
		faux.setResponses([fauxAssistantMessage("hello")]);
		await session.prompt("hi");
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		session.dispose();
	});

	it("NO_MODEL (nothing registered at all) gives the same calls", async () => {
		const session = await sessionOn(new InMemoryModelRuntime());
		const error = await rejection(session.prompt("hi"));
		expect(error.code).toBe("NO_MODEL");
		expect(error.message).toMatch(/^No model selected\./);
		expect(error.message).toContain("`modelRuntime.registerFauxProvider(faux)`");
		session.dispose();
	});
});

// An outside SDK user who let createAgentSession build the default model runtime (pi-ai's) and has
// no key was told to "register the provider with the model runtime you gave the session" — they
// gave none. The text now names what fixes each case: a key for the default runtime, a
// registration for one of their own.
describe("no model at all, on pi-ai's model runtime without keys", () => {
	it("NO_MODEL names the keys to set, auth.json and pi-ai's install command, and still the SDK calls", async () => {
		const session = await sessionOn(await createPiAiModelRuntime({ useEnvironment: false }));
		expect(session.model).toBeUndefined();
		const error = await rejection(session.prompt("hi"));
		expect(error.code).toBe("NO_MODEL");
		expect(error.message).toMatch(/^No model selected\.\n\nWith the default model runtime /);
		expect(error.message).toContain("ANTHROPIC_API_KEY, OPENAI_API_KEY");
		expect(error.message).toContain("<agentDir>/auth.json");
		expect(error.message).toContain("`npm install @mariozechner/pi-ai@0.73.1`");
		expect(error.message).toContain("`modelRuntime.registerFauxProvider(faux)`");
		expect(error.message).not.toContain("the model runtime you gave the session");
		session.dispose();
	});
});

// `createAgentSession({ model: "local/local-1" })` with a models.json but pi-ai not installed threw
// `known providers: none (is @mariozechner/pi-ai installed?)`: a question, and the diagnostic that
// says how to install it never reached the caller (the call threw first).
describe("a model asked for by name when the model runtime knows no provider", () => {
	it("NOT_FOUND gives pi-ai's install command", () => {
		let error: unknown;
		try {
			findModel(new InMemoryModelRuntime(), "local/local-1");
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("NOT_FOUND");
		expect((error as SettleError).message).toBe(
			"Model not found: local/local-1. Use provider/id; known providers: none (real providers and models.json need @mariozechner/pi-ai: `npm install @mariozechner/pi-ai@0.73.1`).",
		);
	});
});

describe("a real provider without its key (the default model runtime, the variable unset)", () => {
	const saved: Record<string, string | undefined> = {};
	afterEach(() => {
		for (const [name, value] of Object.entries(saved)) {
			if (value === undefined) delete process.env[name];
			else process.env[name] = value;
		}
	});

	function unset(...names: string[]) {
		for (const name of names) {
			saved[name] = process.env[name];
			delete process.env[name];
		}
	}

	async function promptRejection(model: string): Promise<SettleError> {
		const cwd = mkdtempSync(join(tmpdir(), "settle-provider-hint-"));
		dirs.push(cwd);
		// No modelRuntime: createAgentSession builds pi-ai's over the agent folder's (empty) auth.json.
		const { session } = await createAgentSession({
			cwd,
			agentDir: join(cwd, "agent"),
			model,
			settingsManager: SettingsManager.inMemory(),
			sessionManager: SessionManager.inMemory(cwd),
		});
		try {
			return await rejection(session.prompt("hi"));
		} finally {
			session.dispose();
		}
	}

	it("NO_AUTH names GROQ_API_KEY and keeps details.provider; the SDK calls stay", async () => {
		unset("GROQ_API_KEY");
		const error = await promptRejection("groq/openai/gpt-oss-120b");
		expect(error.code).toBe("NO_AUTH");
		expect(error.details).toEqual({ provider: "groq" });
		expect(error.message).toMatch(/^No API key found for groq\.\n\nSet GROQ_API_KEY in the environment,/);
		expect(error.message).toContain("`modelRuntime.setApiKey(provider, key)`");
	});

	it("a provider with several variables names them all in pi-ai's order", async () => {
		unset("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY");
		const error = await promptRejection("anthropic/claude-opus-4-7");
		expect(error.details).toEqual({ provider: "anthropic" });
		expect(error.message).toContain("\n\nSet ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY in the environment,");
	});

	// An SDK user without the variable was told only of the variable and of a model runtime they never
	// made, though the README says NO_AUTH names the auth.json entry to write. It now names the entry
	// and createAgentSession's authStorage, and each fixes the session as written.
	it("NO_AUTH names the auth.json entry and authStorage; each, as written, gives the provider a key", async () => {
		unset("GROQ_API_KEY");
		const error = await promptRejection("groq/openai/gpt-oss-120b");
		const entry =
			/, or write (\{.*?\}\}) in <agentDir>\/auth\.json \(the default model runtime, pi-ai's, reads both; /.exec(
				error.message,
			)?.[1];
		expect(entry).toBe('{"groq":{"type":"api_key","key":"…"}}');
		expect(error.message).toContain('createAgentSession({ authStorage: AuthStorage.inMemory({ "groq": key }) })');
		expect(error.message).not.toContain("the model runtime you gave the session");

		const cwd = mkdtempSync(join(tmpdir(), "settle-provider-hint-"));
		dirs.push(cwd);
		const agentDir = join(cwd, "agent");
		mkdirSync(agentDir);
		writeFileSync(join(agentDir, "auth.json"), entry!.replace("…", "gsk-from-file"));
		const fromFile = await createAgentSession({
			cwd,
			agentDir,
			model: "groq/openai/gpt-oss-120b",
			settingsManager: SettingsManager.inMemory(),
			sessionManager: SessionManager.inMemory(cwd),
		});
		expect(fromFile.diagnostics).toEqual([]);
		expect(await fromFile.session.modelRuntime.getApiKey("groq")).toBe("gsk-from-file");
		fromFile.session.dispose();

		const inCode = await createAgentSession({
			cwd,
			agentDir: join(cwd, "other-agent"),
			model: "groq/openai/gpt-oss-120b",
			authStorage: AuthStorage.inMemory({ groq: "gsk-in-code" }),
			settingsManager: SettingsManager.inMemory(),
			sessionManager: SessionManager.inMemory(cwd),
		});
		expect(await inCode.session.modelRuntime.getApiKey("groq")).toBe("gsk-in-code");
		inCode.session.dispose();
	});

	it("the variable it names is the one that fixes it", async () => {
		unset("GROQ_API_KEY");
		await promptRejection("groq/openai/gpt-oss-120b");
		process.env.GROQ_API_KEY = "gsk-test";
		const cwd = mkdtempSync(join(tmpdir(), "settle-provider-hint-"));
		dirs.push(cwd);
		const { session } = await createAgentSession({
			cwd,
			agentDir: join(cwd, "agent"),
			model: "groq/openai/gpt-oss-120b",
			settingsManager: SettingsManager.inMemory(),
			sessionManager: SessionManager.inMemory(cwd),
		});
		expect(session.modelRuntime.hasConfiguredAuth("groq")).toBe(true);
		session.dispose();
	});
});
