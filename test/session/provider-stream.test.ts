/** The session's provider transport settings reach every model request (behavior A.5 step 6). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionRunner } from "../../src/extensions/runner.js";
import { instantStreamFn } from "../../src/llm/event-stream.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import type { Model, StreamFn, StreamOptions } from "../../src/llm/types.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { AgentSession } from "../../src/session/agent-session.js";
import { providerStreamFn } from "../../src/session/provider-stream.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function sessionCapturing(settings: Parameters<typeof SettingsManager.inMemory>[0]) {
	const base = createFauxProvider().getModel()!;
	const model: Model = { ...base, api: "capture", provider: "capture" };
	const seen: (StreamOptions | undefined)[] = [];
	const answer = instantStreamFn((requestModel) => ({
		...fauxAssistantMessage("ok"),
		api: requestModel.api,
		provider: requestModel.provider,
		model: requestModel.id,
	}));
	const streamFn: StreamFn = (m, context, options) => {
		seen.push(options && { ...options });
		return answer(m, context, options);
	};
	const dir = mkdtempSync(join(tmpdir(), "settle-provider-stream-"));
	dirs.push(dir);
	const session = await AgentSession.create({
		sessionManager: SessionManager.inMemory(dir),
		settingsManager: SettingsManager.inMemory(settings),
		resourceLoader: createTestResourceLoader(),
		modelRuntime: new InMemoryModelRuntime([{ provider: "capture", models: [model], streamFn, requiresAuth: false }]),
		cwd: dir,
		model,
		thinkingLevel: "off",
	});
	return { session, seen };
}

describe("provider transport settings", () => {
	it("every request carries retry.provider's timeout, retries and delay cap, read per request", async () => {
		const { session, seen } = await sessionCapturing({
			retry: { provider: { timeoutMs: 1234, maxRetries: 2, maxRetryDelayMs: 5000 } },
		});
		await session.prompt("one");
		expect(seen).toHaveLength(1);
		expect(seen[0]).toMatchObject({ timeoutMs: 1234, maxRetries: 2, maxRetryDelayMs: 5000 });
		session.settingsManager.applyOverrides({ retry: { provider: { timeoutMs: 99 } } });
		await session.prompt("two");
		expect(seen[1]).toMatchObject({ timeoutMs: 99 });
		session.dispose();
	});

	it("without settings only the delay cap is set (pi's 60 s default)", async () => {
		const { session, seen } = await sessionCapturing({});
		await session.prompt("one");
		expect(seen[0]?.maxRetryDelayMs).toBe(60000);
		expect(seen[0]).not.toHaveProperty("timeoutMs");
		expect(seen[0]).not.toHaveProperty("maxRetries");
		session.dispose();
	});

	it("options the request already carries win over the settings", async () => {
		const settings = SettingsManager.inMemory({
			retry: { provider: { timeoutMs: 1234, maxRetries: 2, maxRetryDelayMs: 5000 } },
		});
		let received: StreamOptions | undefined;
		const wrapped = providerStreamFn(
			(_model, _context, options) => {
				received = options;
				return instantStreamFn(() => fauxAssistantMessage("ok"))(_model, _context, options);
			},
			settings,
			// No extension handles before_provider_headers.
			() => ({ hasHandlers: () => false }) as unknown as ExtensionRunner,
		);
		const model = createFauxProvider().getModel()!;
		await wrapped(model, { messages: [] }, { timeoutMs: 7, maxRetries: 0, maxRetryDelayMs: 1 });
		expect(received).toMatchObject({ timeoutMs: 7, maxRetries: 0, maxRetryDelayMs: 1 });
		await wrapped(model, { messages: [] }, undefined);
		expect(received).toMatchObject({ timeoutMs: 1234, maxRetries: 2, maxRetryDelayMs: 5000 });
	});
});
