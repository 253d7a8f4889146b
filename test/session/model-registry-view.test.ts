/**
 * `ctx.modelRegistry.getApiKeyAndHeaders` answers as pi 0.73.1's `ModelRegistry` does: a provider
 * without a key is `ok` without `apiKey` (extensions written for pi, like its custom-compaction
 * example, test `!auth.apiKey` for that), a configured key is returned, model headers come along.
 */
import { describe, expect, it } from "vitest";
import { createFauxProvider } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { modelRegistryView } from "../../src/session/model-registry-view.js";

describe("modelRegistryView().getApiKeyAndHeaders", () => {
	it("is ok without apiKey when the provider has no key, and returns the key and model headers otherwise", async () => {
		const runtime = new InMemoryModelRuntime();
		const keyless = createFauxProvider({ provider: "keyless" });
		const keyed = createFauxProvider({ provider: "keyed" });
		runtime.registerFauxProvider(keyless, { apiKey: null });
		runtime.registerFauxProvider(keyed, { apiKey: "sk-test" });
		const registry = modelRegistryView(runtime);
		const keylessModel = registry.find("keyless", keyless.getModel()!.id)!;
		expect(await registry.getApiKeyAndHeaders?.(keylessModel)).toEqual({ ok: true });
		expect(await registry.getApiKeyAndHeaders?.({ ...keylessModel, headers: { "x-team": "a" } })).toEqual({
			ok: true,
			headers: { "x-team": "a" },
		});
		expect(await registry.getApiKeyAndHeaders?.(registry.find("keyed", keyed.getModel()!.id)!)).toEqual({
			ok: true,
			apiKey: "sk-test",
		});
	});
});
