/**
 * Virtual models (pi 1.6 docs/virtual-models.md): a selected model whose router picks the physical
 * model and thinking level of every request. Through the public API on the faux provider.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI, ExtensionContextActions, ExtensionRuntimeActions } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import type { AssistantMessage, Model } from "../../src/llm/types.js";
import {
	type ModelRouteRequest,
	VIRTUAL_MODEL_API,
	VIRTUAL_MODEL_STATE_ENTRY,
	type VirtualModelDefinition,
} from "../../src/llm/virtual-models.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { AgentSession } from "../../src/session/agent-session.js";
import { modelRegistryView } from "../../src/session/model-registry-view.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { runnerWith, withoutStacks } from "../extensions/helpers.js";
import { OVERFLOW_TEXT, overflowReply, script } from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const MODELS = [
	{ id: "small", contextWindow: 100_000, maxTokens: 100 },
	{ id: "big", reasoning: true, contextWindow: 500_000, maxTokens: 4_000 },
];

/** The text of the latest user message of a route request. */
function lastUserText(request: ModelRouteRequest): string {
	for (let i = request.messages.length - 1; i >= 0; i--) {
		const message = request.messages[i]!;
		if (message.role !== "user") continue;
		return typeof message.content === "string"
			? message.content
			: message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
	}
	return "";
}

/** `router/auto`: "hard" prompts go to `big` at the selected level, others to `small`. */
function ruleRouter(
	runtime: InMemoryModelRuntime,
	seen: ModelRouteRequest[],
	overrides: Partial<VirtualModelDefinition> = {},
): VirtualModelDefinition {
	return {
		provider: "router",
		id: "auto",
		name: "Auto",
		thinkingLevels: ["low", "high"],
		route(request) {
			seen.push(request);
			const hard = lastUserText(request).includes("hard");
			return { model: runtime.getModel("faux", hard ? "big" : "small")!, thinkingLevel: request.thinkingLevel };
		},
		...overrides,
	};
}

function assistants(session: AgentSession): AssistantMessage[] {
	return session.messages.filter((message): message is AssistantMessage => message.role === "assistant");
}

describe("InMemoryModelRuntime.registerVirtualModel", () => {
	it("lists virtual models with their provider, available per the provider's credentials", () => {
		const runtime = new InMemoryModelRuntime();
		runtime.registerFauxProvider(createFauxProvider({ models: MODELS }), { apiKey: null });
		const route = () => ({ model: runtime.getModel("faux", "small")!, thinkingLevel: "off" as const });
		runtime.registerVirtualModel({ provider: "faux", id: "auto", name: "Faux auto", route });
		runtime.registerVirtualModel({ provider: "router", id: "auto", name: "Auto", route, contextWindow: 9_000 });
		expect(runtime.getAll().map((model) => `${model.provider}/${model.id}`)).toEqual([
			"faux/small",
			"faux/big",
			"faux/auto",
			"router/auto",
		]);
		// faux has no key: its virtual model is unavailable; a provider of only virtual models always is.
		expect(runtime.getAvailable().map((model) => `${model.provider}/${model.id}`)).toEqual(["router/auto"]);
		runtime.setApiKey("faux", "key");
		expect(runtime.getAvailable()).toHaveLength(4);
		const auto = runtime.getModel("router", "auto")!;
		expect(auto).toMatchObject({ api: VIRTUAL_MODEL_API, reasoning: false, contextWindow: 9_000, maxTokens: 0 });
		expect(auto.input).toEqual(["text", "image"]);
		// unregisterProvider leaves virtual models; unregisterVirtualModel removes them.
		runtime.unregisterProvider("faux");
		expect(runtime.getModel("faux", "auto")).toBeDefined();
		runtime.unregisterVirtualModel("faux", "auto");
		expect(runtime.getModel("faux", "auto")).toBeUndefined();
	});

	it("refuses an empty id and the id of a physical model (pi's texts); re-registering replaces", () => {
		const runtime = new InMemoryModelRuntime();
		runtime.registerFauxProvider(createFauxProvider({ models: MODELS }));
		const route = () => ({ model: runtime.getModel("faux", "small")!, thinkingLevel: "off" as const });
		expect(() => runtime.registerVirtualModel({ provider: "faux", id: "big", name: "x", route })).toThrow(
			new SettleError("INVALID_ARGUMENT", "Virtual model faux/big conflicts with a physical model."),
		);
		expect(() => runtime.registerVirtualModel({ provider: " ", id: "a", name: "x", route })).toThrow(
			"Virtual model provider and id must not be empty.",
		);
		runtime.registerVirtualModel({ provider: "router", id: "auto", name: "One", route });
		const unregister = runtime.registerVirtualModel({ provider: "router", id: "auto", name: "Two", route });
		expect(
			runtime
				.getAll()
				.filter((model) => model.provider === "router")
				.map((model) => model.name),
		).toEqual(["Two"]);
		unregister();
		expect(runtime.getModel("router", "auto")).toBeUndefined();
	});

	it("routes a direct stream call (reason direct), capping maxTokens to the routed model", async () => {
		const faux = createFauxProvider({ models: MODELS });
		const runtime = new InMemoryModelRuntime();
		runtime.registerFauxProvider(faux);
		const seen: ModelRouteRequest[] = [];
		runtime.registerVirtualModel(ruleRouter(runtime, seen));
		faux.setResponses([fauxAssistantMessage("summary")]);
		const auto = runtime.getModel("router", "auto")!;
		const reply = await (
			await runtime.stream(
				auto,
				{ messages: [{ role: "user", content: "hard", timestamp: 0 }] },
				{ reasoning: "high", maxTokens: 1_000_000 },
			)
		).result();
		expect(seen[0]).toMatchObject({ reason: "direct", thinkingLevel: "high" });
		expect(faux.requests[0]).toMatchObject({ model: { id: "big" }, options: { maxTokens: 4_000, reasoning: "high" } });
		expect(reply.model).toBe("big");
	});
});

describe("a session with a virtual model selected", () => {
	async function routedHarness(seen: ModelRouteRequest[], overrides: Partial<VirtualModelDefinition> = {}) {
		h = await createHarness({ models: MODELS, tools: [echoTool], persistence: "disk" });
		h.modelRuntime.registerVirtualModel(ruleRouter(h.modelRuntime, seen, overrides));
		await h.session.setModel(h.modelRuntime.getModel("router", "auto")!, { persist: false });
		return h;
	}

	it("routes every request by the rule; providers get physical models and messages name them", async () => {
		const seen: ModelRouteRequest[] = [];
		await routedHarness(seen);
		expect(h.session.thinkingLevel).toBe("high"); // medium is not offered: clamped to the next higher
		expect(h.session.routedModel).toBeUndefined();
		h.setResponses([fauxAssistantMessage("quick"), fauxAssistantMessage("deep")]);
		await h.session.prompt("easy one");
		await h.session.prompt("a hard one");
		expect(h.faux.requests.map((request) => request.model.id)).toEqual(["small", "big"]);
		// small cannot reason: the routed "high" is clamped to "off" (no reasoning option sent).
		expect(h.faux.requests[0]!.options.reasoning).toBeUndefined();
		expect(h.faux.requests[1]!.options.reasoning).toBe("high");
		expect(assistants(h.session).map((m) => [m.provider, m.model, m.thinkingLevel])).toEqual([
			["faux", "small", "off"],
			["faux", "big", "high"],
		]);
		expect(h.session.model).toMatchObject({ provider: "router", id: "auto" });
		expect(h.session.routedModel).toEqual({ model: h.getModel("big"), thinkingLevel: "high" });
		expect(seen.map((request) => request.reason)).toEqual(["user", "user"]);
		expect(seen[0]!.previous).toBeUndefined();
		expect(seen[1]!.previous).toEqual({ model: h.getModel("small"), thinkingLevel: "off" });
		expect(seen[1]!.model).toMatchObject({ provider: "router", id: "auto" });
	});

	it("routes tool follow-ups as continuation", async () => {
		const seen: ModelRouteRequest[] = [];
		await routedHarness(seen, {
			route(request) {
				seen.push(request);
				if (request.reason === "continuation" && request.previous) {
					return { model: request.previous.model, thinkingLevel: request.previous.thinkingLevel ?? "off" };
				}
				return { model: h.getModel("big")!, thinkingLevel: "low" };
			},
		});
		h.setResponses([
			fauxAssistantMessage(fauxToolCall("echo", {}), { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("use the tool");
		expect(seen.map((request) => request.reason)).toEqual(["user", "continuation"]);
		expect(h.faux.requests.map((request) => [request.model.id, request.options.reasoning])).toEqual([
			["big", "low"],
			["big", "low"],
		]);
	});

	it("clamps the routed thinking level to the routed model", async () => {
		await routedHarness([], {
			route: (request) => ({
				model: h.getModel(lastUserText(request) === "big" ? "big" : "small")!,
				thinkingLevel: "xhigh",
			}),
		});
		h.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		await h.session.prompt("big");
		await h.session.prompt("small");
		// big reasons but does not name xhigh: the next lower level; small cannot reason: off.
		expect(assistants(h.session).map((m) => m.thinkingLevel)).toEqual(["high", "off"]);
	});

	it.each([
		[
			"throws",
			(): never => {
				throw new Error("classifier down");
			},
			"classifier down",
		],
		[
			"returns a virtual model",
			() => ({ model: h.modelRuntime.getModel("router", "auto")!, thinkingLevel: "off" as const }),
			"Virtual model router/auto routed to router/auto, which is not a physical model.",
		],
		[
			"returns a model without credentials",
			() => ({ model: h.modelRuntime.getModel("keyless", "k1")!, thinkingLevel: "off" as const }),
			"Virtual model router/auto routed to keyless/k1, which has no credentials.",
		],
	])("ends the request with an error response when the router %s (not retried)", async (_, route, text) => {
		await routedHarness([], { route });
		h.modelRuntime.registerFauxProvider(createFauxProvider({ provider: "keyless", models: [{ id: "k1" }] }), {
			apiKey: null,
		});
		await h.session.prompt("hi");
		expect(h.faux.requests).toHaveLength(0);
		const [failure] = assistants(h.session);
		expect(failure).toMatchObject({ provider: "router", model: "auto", stopReason: "error", errorMessage: text });
		expect(h.eventsOfType("auto_retry_start")).toHaveLength(0);
		expect(h.session.routedModel).toBeUndefined();
	});

	it("retries a failed response with reason retry and the failed request", async () => {
		const seen: ModelRouteRequest[] = [];
		h = await createHarness({ models: MODELS, simulatedClock: true });
		h.modelRuntime.registerVirtualModel({
			...ruleRouter(h.modelRuntime, seen),
			route(request) {
				seen.push(request);
				// After an overloaded small model, switch to big.
				const failedSmall = request.failed?.model.id === "small";
				return { model: h.getModel(failedSmall ? "big" : "small")!, thinkingLevel: "low" };
			},
		});
		await h.session.setModel(h.modelRuntime.getModel("router", "auto")!, { persist: false });
		h.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
			fauxAssistantMessage("ok"),
		]);
		await h.settle(h.session.prompt("hi"));
		expect(seen.map((request) => request.reason)).toEqual(["user", "retry"]);
		expect(seen[1]!.failed).toMatchObject({
			model: { id: "small" },
			thinkingLevel: "off",
			message: { stopReason: "error", errorMessage: "503 Service Unavailable" },
		});
		expect(h.faux.requests.map((request) => request.model.id)).toEqual(["small", "big"]);
		expect(h.session.routedModel?.model.id).toBe("big");
	});

	it("retries a routing failure whose text is retryable, without `failed`", async () => {
		const seen: ModelRouteRequest[] = [];
		h = await createHarness({ models: MODELS, simulatedClock: true });
		h.modelRuntime.registerVirtualModel({
			...ruleRouter(h.modelRuntime, seen),
			route(request) {
				seen.push(request);
				if (seen.length === 1) throw new Error("503 Service Unavailable");
				return { model: h.getModel("small")!, thinkingLevel: "off" };
			},
		});
		await h.session.setModel(h.modelRuntime.getModel("router", "auto")!, { persist: false });
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.settle(h.session.prompt("hi"));
		expect(seen.map((request) => request.reason)).toEqual(["user", "retry"]);
		expect(seen[1]!.failed).toBeUndefined();
		expect(assistants(h.session).at(-1)).toMatchObject({ model: "small", stopReason: "stop" });
	});

	it("stores router state on the branch as pi.virtual-model-state entries (entry_appended)", async () => {
		const states: unknown[] = [];
		await routedHarness([], {
			route(request) {
				states.push(request.state);
				const state = request.state as { phase: string } | undefined;
				// plan → build once, then keep the same object (no new entry).
				const next = state === undefined ? { phase: "plan" } : state.phase === "plan" ? { phase: "build" } : state;
				return { model: h.getModel("small")!, thinkingLevel: "off", state: next };
			},
		});
		h.setResponses([
			fauxAssistantMessage("1"),
			fauxAssistantMessage("2"),
			fauxAssistantMessage("3"),
			fauxAssistantMessage("4"),
		]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		await h.session.prompt("c");
		await h.session.prompt("d");
		// The kept state comes back although no entry was appended for it since.
		expect(states).toEqual([undefined, { phase: "plan" }, { phase: "build" }, { phase: "build" }]);
		const entries = h.sessionManager
			.getBranch()
			.filter((entry) => entry.type === "custom" && entry.customType === VIRTUAL_MODEL_STATE_ENTRY);
		expect(entries.map((entry) => (entry as { data: unknown }).data)).toEqual([
			{ provider: "router", modelId: "auto", state: { phase: "plan" } },
			{ provider: "router", modelId: "auto", state: { phase: "build" } },
		]);
		const announced = h.eventsOfType("entry_appended").filter((event) => event.entry.type === "custom");
		expect(announced.map((event) => event.entry.id)).toEqual(entries.map((entry) => entry.id));
	});

	it("router state follows the session tree: after navigating back, the branch's own state", async () => {
		const states: unknown[] = [];
		await routedHarness([], {
			route(request) {
				states.push(request.state);
				const count = ((request.state as { n: number } | undefined)?.n ?? 0) + 1;
				return { model: h.getModel("small")!, thinkingLevel: "off", state: { n: count } };
			},
		});
		h.setResponses([
			fauxAssistantMessage("1"),
			fauxAssistantMessage("2"),
			fauxAssistantMessage("3"),
			fauxAssistantMessage("4"),
		]);
		await h.session.prompt("a");
		const firstAnswer = h.sessionManager.getLeafId()!;
		await h.session.prompt("b");
		await h.session.prompt("c");
		await h.session.navigateTree(firstAnswer);
		await h.session.prompt("d");
		// a: none; b: 1; c: 2; d branches after a's answer, where the state was 1.
		expect(states).toEqual([undefined, { n: 1 }, { n: 2 }, { n: 1 }]);
	});

	it("reports context usage with the limits of the model that answered last, else the declared ones", async () => {
		await routedHarness([], { contextWindow: 7_000 });
		expect(h.session.getContextUsage()?.contextWindow).toBe(7_000);
		h.setResponses([fauxAssistantMessage("quick"), fauxAssistantMessage("deep")]);
		await h.session.prompt("easy");
		expect(h.session.getContextUsage()?.contextWindow).toBe(100_000);
		await h.session.prompt("hard");
		expect(h.session.getContextUsage()?.contextWindow).toBe(500_000);
	});
});

describe("compaction under a virtual selection", () => {
	it("checks the compaction threshold against the physical model that answered, not the virtual one", async () => {
		h = await createHarness({
			models: [...MODELS, { id: "tiny", contextWindow: 2_000 }],
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		// The virtual model declares no window (0: unknown), so only tiny's can put the context over the threshold.
		h.modelRuntime.registerVirtualModel({
			provider: "router",
			id: "auto",
			name: "Auto",
			route: (request) => ({ model: h.getModel(request.reason === "direct" ? "big" : "tiny")!, thinkingLevel: "off" }),
		});
		await h.session.setModel(h.modelRuntime.getModel("router", "auto")!, { persist: false });
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_start").map((event) => event.reason)).toContain("threshold");
	});

	it("routes the summary request (direct) and the request after an overflow (retry, with the failed one)", async () => {
		const seen: ModelRouteRequest[] = [];
		h = await createHarness({ models: MODELS, persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		h.modelRuntime.registerVirtualModel({
			...ruleRouter(h.modelRuntime, seen),
			route(request) {
				seen.push(request);
				// Summaries and the retry after small overflowed go to big.
				const toBig = request.reason === "direct" || request.failed?.model.id === "small";
				return { model: h.getModel(toBig ? "big" : "small")!, thinkingLevel: "low" };
			},
		});
		await h.session.setModel(h.modelRuntime.getModel("router", "auto")!, { persist: false });
		const { summaryRequests } = script(h, [
			fauxAssistantMessage("warm-up"),
			overflowReply(),
			fauxAssistantMessage("recovered"),
		]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(seen.map((request) => request.reason)).toEqual(["user", "user", "direct", "retry"]);
		expect(seen[3]!.failed).toMatchObject({ model: { id: "small" }, message: { errorMessage: OVERFLOW_TEXT } });
		expect(summaryRequests).toHaveLength(1);
		// Every provider request went to a physical model: small, small (overflow), big (summary), big (retry).
		expect(h.faux.requests.map((request) => request.model.id)).toEqual(["small", "small", "big", "big"]);
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "overflow", willRetry: true, aborted: false }),
		]);
		expect(h.session.messages.at(-1)).toMatchObject({ model: "big", content: [{ text: "recovered" }] });
	});
});

describe("resuming a session with a virtual selection", () => {
	async function writeSession(): Promise<string> {
		h = await createHarness({ models: MODELS, persistence: "disk" });
		h.modelRuntime.registerVirtualModel(ruleRouter(h.modelRuntime, []));
		await h.session.setModel(h.modelRuntime.getModel("router", "auto")!, { persist: false });
		h.setResponses([fauxAssistantMessage("deep")]);
		await h.session.prompt("hard");
		return h.session.sessionFile!;
	}

	async function resume(file: string, withVirtual: boolean): Promise<AgentSession> {
		const runtime = new InMemoryModelRuntime();
		runtime.registerFauxProvider(createFauxProvider({ models: MODELS }));
		if (withVirtual) runtime.registerVirtualModel(ruleRouter(runtime, []));
		return AgentSession.create({
			sessionManager: SessionManager.open(file),
			settingsManager: SettingsManager.inMemory({}),
			resourceLoader: createTestResourceLoader({ systemPrompt: "x" }),
			modelRuntime: runtime,
		});
	}

	it("records the selection in model_change and restores it; falls back when unregistered", async () => {
		const file = await writeSession();
		const lines = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; provider?: string; modelId?: string; message?: Model });
		expect(lines.filter((line) => line.type === "model_change").at(-1)).toMatchObject({
			provider: "router",
			modelId: "auto",
		});
		expect(lines.at(-1)).toMatchObject({ type: "message", message: { provider: "faux", model: "big" } });
		h.session.dispose();
		h.sessionManager.close();

		const restored = await resume(file, true);
		expect(restored.model).toMatchObject({ provider: "router", id: "auto" });
		expect(restored.routedModel?.model.id).toBe("big");
		restored.dispose();
		restored.sessionManager.close();

		const fallback = await resume(file, false);
		expect(fallback.model).toMatchObject({ provider: "faux", id: "big" });
		expect(fallback.routedModel).toBeUndefined();
		fallback.dispose();
		fallback.sessionManager.close();
	});
});

describe("pi.registerVirtualModel", () => {
	it("registers from an extension (queued until bind), routes with ctx, unregisters, and a reload re-registers", async () => {
		const contexts: string[] = [];
		let api: ExtensionAPI | undefined;
		h = await createHarness({
			models: MODELS,
			extensionFactories: [
				(pi) => {
					api = pi;
					pi.registerVirtualModel({
						provider: "router",
						id: "auto",
						name: "Auto",
						route: (_request, ctx) => {
							contexts.push(`${ctx.model?.provider}/${ctx.model?.id}`);
							return { model: ctx.modelRegistry.find("faux", "small")!, thinkingLevel: "off" };
						},
					});
				},
			],
		});
		const auto = h.modelRuntime.getModel("router", "auto");
		expect(auto?.api).toBe(VIRTUAL_MODEL_API);
		expect(h.extensionErrors).toEqual([]);
		await h.session.setModel(auto!, { persist: false });
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.session.prompt("hi");
		expect(contexts).toEqual(["router/auto"]);
		expect(h.faux.requests[0]!.model.id).toBe("small");

		api!.unregisterVirtualModel("router", "auto");
		expect(h.modelRuntime.getModel("router", "auto")).toBeUndefined();
		await h.session.reload();
		expect(h.modelRuntime.getModel("router", "auto")?.name).toBe("Auto");
	});

	it("reports a queued registration that fails at bind as register_virtual_model; later ones throw to the caller", async () => {
		const runtime = new InMemoryModelRuntime();
		runtime.registerFauxProvider(createFauxProvider({ models: MODELS }));
		const clash = {
			provider: "faux",
			id: "small",
			name: "Clash",
			route: (): never => {
				throw new Error("unused");
			},
		};
		let api: ExtensionAPI | undefined;
		const { runner, errors } = await runnerWith((pi) => {
			api = pi;
			pi.registerVirtualModel(clash);
			pi.registerVirtualModel({ ...clash, id: "dropped" });
			pi.unregisterVirtualModel("faux", "dropped");
		});
		runner.bindCore({} as ExtensionRuntimeActions, {} as ExtensionContextActions, modelRegistryView(runtime));
		expect(withoutStacks(errors)).toEqual([
			{
				extensionPath: "<inline:1>",
				event: "register_virtual_model",
				error: "Virtual model faux/small conflicts with a physical model.",
			},
		]);
		expect(runtime.getModel("faux", "dropped")).toBeUndefined();
		expect(() => api!.registerVirtualModel(clash)).toThrow("conflicts with a physical model");
	});
});

describe("property: routed requests", () => {
	it("every provider request carries a physical model, and each response names the model that served it", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(fc.constantFrom("small", "big"), { minLength: 1, maxLength: 8 }), async (choices) => {
				h?.cleanup();
				h = await createHarness({ models: MODELS });
				let call = 0;
				h.modelRuntime.registerVirtualModel({
					provider: "router",
					id: "auto",
					name: "Auto",
					thinkingLevels: ["off", "high"],
					route: () => ({ model: h.getModel(choices[call++]!)!, thinkingLevel: "high" }),
				});
				await h.session.setModel(h.modelRuntime.getModel("router", "auto")!, { persist: false });
				h.setResponses(choices.map((_, i) => fauxAssistantMessage(`r${i}`)));
				for (let i = 0; i < choices.length; i++) await h.session.prompt(`p${i}`);
				expect(h.faux.requests.every((request) => request.model.api !== VIRTUAL_MODEL_API)).toBe(true);
				expect(h.faux.requests.map((request) => request.model.id)).toEqual(choices);
				expect(assistants(h.session).map((message) => message.model)).toEqual(choices);
				expect(h.session.routedModel?.model.id).toBe(choices.at(-1));
				expect(h.session.model?.id).toBe("auto");
			}),
			{ numRuns: 15 },
		);
	});
});

const echoTool: AgentTool = {
	name: "echo",
	label: "echo",
	description: "Echoes",
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text", text: "echoed" }], details: {} }),
};
