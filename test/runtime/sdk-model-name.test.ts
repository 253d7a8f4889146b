/**
 * `createAgentSession({ model: "provider/id" })`: the SDK takes a model by name, as
 * `createAgentSessionRuntimeFactory({ model })` and `settle --model` do — looked up with the same
 * `findModel` (after extensions registered their providers), with the same typed `NOT_FOUND` for
 * an unknown one, thrown before any session file exists.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
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
	dir = mkdtempSync(join(tmpdir(), "settle-sdk-model-name-"));
	agentDir = join(dir, "agent");
	mkdirSync(agentDir);
	faux = createFauxProvider({
		models: [{ id: "faux-1" }, { id: "faux-2" }, { id: "thinker", reasoning: true }],
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
