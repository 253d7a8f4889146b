/**
 * An SDK user who creates a faux provider and passes its model, but forgets to register the
 * provider with the model runtime, gets NO_AUTH at the first prompt. The message names the call
 * that fixes it on the object they hold (`modelRuntime`, not the session runtime), and that call
 * does fix it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

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

async function rejection(promise: Promise<unknown>): Promise<SettleError> {
	const error = await promise.then(
		() => undefined,
		(caught: unknown) => caught,
	);
	expect(error).toBeInstanceOf(SettleError);
	return error as SettleError;
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
