/**
 * A `DefaultResourceLoader` handed to `createAgentSession` without `await loader.reload()` held
 * nothing, so its extensions silently did not run (a tool_call guard let every call through).
 * createAgentSession now reloads a loader that was never loaded, and only such a loader.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExtensionFactory } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { defineTool } from "../../src/tools/types.js";

let dir: string;
const sessions: AgentSession[] = [];
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-unloaded-"));
});
afterEach(() => {
	for (const session of sessions.splice(0)) session.dispose();
	rmSync(dir, { recursive: true, force: true });
});

const deploy = defineTool({
	name: "deploy",
	label: "Deploy",
	description: "Deploy to an environment",
	parameters: Type.Object({ env: Type.String() }),
	execute: async (_id, { env }) => ({ content: [{ type: "text", text: `deployed to ${env}` }], details: {} }),
});

const guard: ExtensionFactory = (pi) => {
	pi.on("tool_call", (event) =>
		event.toolName === "deploy" && event.input.env === "prod"
			? { block: true, reason: "prod needs a human" }
			: undefined,
	);
};

class CountingLoader extends DefaultResourceLoader {
	reloads = 0;
	override reload(): Promise<void> {
		this.reloads++;
		return super.reload();
	}
}

async function deployToProd(loader: DefaultResourceLoader): Promise<{ isError: boolean; text: string }> {
	const faux = createFauxProvider();
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: join(dir, "agent"),
		modelRuntime,
		settingsManager: loader.settingsManager,
		resourceLoader: loader,
		sessionManager: SessionManager.inMemory(dir),
		customTools: [deploy],
	});
	sessions.push(session);
	await session.bindExtensions();
	let result = { isError: false, text: "" };
	session.subscribe((event) => {
		if (event.type !== "tool_execution_end") return;
		const first = event.result.content[0];
		result = { isError: event.isError, text: first?.type === "text" ? first.text : "" };
	});
	faux.setResponses([
		fauxAssistantMessage([fauxToolCall("deploy", { env: "prod" })], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await session.prompt("deploy");
	return result;
}

function loader(): CountingLoader {
	return new CountingLoader({
		cwd: dir,
		agentDir: join(dir, "agent"),
		settingsManager: SettingsManager.inMemory(),
		extensionFactories: [guard],
	});
}

describe("createAgentSession with a DefaultResourceLoader", () => {
	it("that was never reloaded: reloads it, so its extension blocks the call", async () => {
		const unloaded = loader();
		expect(unloaded.isLoaded()).toBe(false);
		const result = await deployToProd(unloaded);
		expect(unloaded.isLoaded()).toBe(true);
		expect(unloaded.reloads).toBe(1);
		expect(result).toEqual({ isError: true, text: "prod needs a human" });
	});

	it("that was reloaded: uses it as it is, without a second reload", async () => {
		const loaded = loader();
		await loaded.reload();
		expect(loaded.isLoaded()).toBe(true);
		const result = await deployToProd(loaded);
		expect(loaded.reloads).toBe(1);
		expect(result).toEqual({ isError: true, text: "prod needs a human" });
	});
});
