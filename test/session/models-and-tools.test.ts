/**
 * The model runtime behind the session (A.11, C.1 steps 7–8), model and thinking changes (C.12),
 * and the tool / prompt loadout (F.1): changes recorded as `system` messages before the next request.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { clampThinkingLevel, InMemoryModelRuntime, supportedThinkingLevels } from "../../src/llm/model-runtime.js";
import type { SystemMessage } from "../../src/session/messages.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness;
afterEach(() => h?.cleanup());

const noop = (name: string): AgentTool => ({
	name,
	label: name,
	description: `The ${name} tool`,
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text", text: `${name} ran` }], details: {} }),
});

describe("InMemoryModelRuntime", () => {
	it("serves registered models by provider and id, with auth and keys per provider", async () => {
		const faux = createFauxProvider({ models: [{ id: "a" }, { id: "b", reasoning: true }] });
		const runtime = new InMemoryModelRuntime();
		const unregister = runtime.registerFauxProvider(faux, { apiKey: null });
		expect(runtime.getAll().map((model) => model.id)).toEqual(["a", "b"]);
		expect(runtime.hasConfiguredAuth("faux")).toBe(false);
		expect(runtime.getAvailable()).toEqual([]);
		runtime.setApiKey("faux", () => "short-lived");
		expect(runtime.hasConfiguredAuth("faux")).toBe(true);
		expect(await runtime.getApiKey("faux")).toBe("short-lived");
		expect(runtime.getModel("faux", "b")?.reasoning).toBe(true);
		expect(runtime.getStreamFn(faux.api)).toBe(faux.streamFn);
		unregister();
		expect(runtime.getAll()).toEqual([]);
		const reply = await (await runtime.stream(faux.models[0]!, { messages: [] })).result();
		// Its provider is gone: the error names the unregistration (tau#694), not a missing wire API.
		expect(reply).toMatchObject({
			stopReason: "error",
			errorMessage: expect.stringContaining('its provider "faux" was unregistered'),
		});
	});

	it("clamps thinking levels like pi-ai", () => {
		const plain = { reasoning: false };
		const reasoning = { reasoning: true, thinkingLevelMap: { minimal: null } };
		expect(supportedThinkingLevels(plain)).toEqual(["off"]);
		expect(supportedThinkingLevels(reasoning)).toEqual(["off", "low", "medium", "high"]);
		expect(clampThinkingLevel(plain, "high")).toBe("off");
		expect(clampThinkingLevel(reasoning, "minimal")).toBe("low");
		expect(clampThinkingLevel(reasoning, "xhigh")).toBe("high");
	});
});

describe("setModel and setThinkingLevel", () => {
	it("records model_change, clamps thinking, tells extensions; refuses a model without auth", async () => {
		const selected: string[] = [];
		h = await createHarness({
			faux: { models: [{ id: "fast" }, { id: "deep", reasoning: true }] },
			thinkingLevel: "off",
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("model_select", (event) => void selected.push(`${event.previousModel?.id}->${event.model.id}`)),
			],
		});
		await h.session.setModel(h.getModel("deep")!);
		expect(h.session.model?.id).toBe("deep");
		expect(selected).toEqual(["fast->deep"]);
		h.session.setThinkingLevel("high");
		expect(h.session.thinkingLevel).toBe("high");
		expect(h.eventsOfType("thinking_level_changed").map((event) => event.level)).toContain("high");
		await h.session.setModel(h.getModel("fast")!);
		expect(h.session.thinkingLevel).toBe("off");
		const types = h.sessionManager.getEntries().map((entry) => entry.type);
		expect(types.filter((type) => type === "model_change")).toHaveLength(3);
		expect(h.settingsManager.getDefaultModel()).toBe("fast");

		const other = createFauxProvider({ provider: "other", api: "other-api" });
		h.modelRuntime.registerFauxProvider(other, { apiKey: null });
		await expect(h.session.setModel(other.getModel()!)).rejects.toThrow("No API key for other/faux-1");
		expect(h.session.model?.id).toBe("fast");
	});
});

describe("tool loadout", () => {
	it("setActiveToolsByName takes effect on the next request and is recorded as a system patch", async () => {
		h = await createHarness({ tools: [noop("alpha"), noop("beta")] });
		expect(h.session.getActiveToolNames()).toEqual(["alpha", "beta"]);
		const toolsSeen: string[][] = [];
		const record = (context: { tools?: { name: string }[] }) => {
			toolsSeen.push((context.tools ?? []).map((tool) => tool.name));
			return fauxAssistantMessage("ok");
		};
		h.setResponses([record, record]);
		await h.session.prompt("one");
		h.session.setActiveToolsByName(["beta", "unknown"]);
		expect(h.session.getActiveToolNames()).toEqual(["beta"]);
		await h.session.prompt("two");
		expect(toolsSeen).toEqual([["alpha", "beta"], ["beta"]]);
		const systems = h.session.messages.filter((message): message is SystemMessage => message.role === "system");
		expect(systems.map((message) => message.kind)).toEqual(["baseline", "patch"]);
		expect(systems[1]?.tools).toEqual({ active: ["beta"], removed: ["alpha"] });
	});

	it("a tool change mid-operation is recorded before the next turn's model call", async () => {
		h = await createHarness({
			tools: [noop("alpha"), noop("beta")],
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("tool_execution_end", () => {
						pi.setActiveTools(["beta"]);
					}),
			],
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("alpha", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("go");
		expect(h.session.messages.map((message) => message.role)).toEqual([
			"system",
			"user",
			"assistant",
			"toolResult",
			"system",
			"assistant",
		]);
		expect(h.faux.requests[1]?.tools?.map((tool) => tool.name)).toEqual(["beta"]);
	});

	it("SDK tools win over extension and built-in tools of the same name; the allowlist filters all sources", async () => {
		h = await createHarness({
			customTools: [
				{
					name: "read",
					label: "SDK read",
					description: "sdk read",
					parameters: { type: "object", properties: {} },
					execute: async () => ({ content: [{ type: "text", text: "from sdk" }], details: {} }),
				},
			],
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.registerTool({
						name: "read",
						label: "ext read",
						description: "ext read",
						parameters: { type: "object", properties: {} },
						execute: async () => ({ content: [{ type: "text", text: "from extension" }], details: {} }),
					}),
			],
			allowedToolNames: ["read", "ls"],
		});
		expect(h.session.getAllTools().map((tool) => `${tool.name}:${tool.sourceInfo.source}`)).toEqual([
			"read:sdk",
			"ls:builtin",
		]);
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("read", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await h.session.prompt("read");
		expect(h.session.messages.find((message) => message.role === "toolResult")).toMatchObject({
			content: [{ type: "text", text: "from sdk" }],
		});
	});

	it("a reopened session restores the active tools recorded in its transcript", async () => {
		h = await createHarness({ persistence: "disk", tools: [noop("alpha"), noop("beta")] });
		h.session.setActiveToolsByName(["beta"]);
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.session.prompt("one");
		const file = h.session.sessionFile!;
		h.session.dispose();
		h.sessionManager.close();
		const reopened = SessionManager.open(file);
		const again = await createHarness({ sessionManager: reopened, tools: [noop("alpha"), noop("beta")] });
		try {
			expect(again.session.getActiveToolNames()).toEqual(["beta"]);
			expect(again.session.messages.map((message) => message.role)).toEqual(["system", "user", "assistant"]);
		} finally {
			again.cleanup();
		}
	});
});
