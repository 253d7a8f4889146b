/**
 * C.12 "optional persist to settings": `setModel`, `cycleModel` and `setThinkingLevel` take
 * `{ persist: false }` (Settle's option; pi always persists). The session file still records each
 * change and extensions still hear of it; only the settings' defaults stay as they were.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness;
afterEach(() => h?.cleanup());

function recordedChanges(harness: Harness): string[] {
	return harness.sessionManager.getEntries().flatMap((entry) => {
		if (entry.type === "model_change") return [`model_change ${entry.modelId}`];
		if (entry.type === "thinking_level_change") return [`thinking_level_change ${entry.thinkingLevel}`];
		return [];
	});
}

describe("persist: false on model and thinking changes (C.12)", () => {
	it("records the change and tells extensions, but leaves the default model and thinking level in settings alone", async () => {
		const heard: string[] = [];
		h = await createHarness({
			faux: { models: [{ id: "fast" }, { id: "deep", reasoning: true }] },
			thinkingLevel: "off",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("model_select", (event) => void heard.push(`${event.source} ${event.model.id}`));
					pi.on("thinking_level_select", (event) => void heard.push(`level ${event.level}`));
				},
			],
		});
		h.settingsManager.setDefaultModelAndProvider("faux", "elsewhere");
		h.settingsManager.setDefaultThinkingLevel("low");
		const before = recordedChanges(h).length;

		await h.session.setModel(h.getModel("deep")!, { persist: false });
		h.session.setThinkingLevel("high", { persist: false });
		await h.session.cycleModel("forward", { persist: false });
		await new Promise<void>((resolve) => setImmediate(resolve));

		expect(h.session.model?.id).toBe("fast");
		expect(recordedChanges(h).slice(before)).toEqual([
			"model_change deep",
			// From a model without reasoning the switch starts at the settings' default level.
			"thinking_level_change low",
			"thinking_level_change high",
			"model_change fast",
			"thinking_level_change off",
		]);
		expect(heard).toEqual(["level low", "set deep", "level high", "level off", "cycle fast"]);
		expect(h.settingsManager.getDefaultModel()).toBe("elsewhere");
		expect(h.settingsManager.getDefaultThinkingLevel()).toBe("low");

		// Without the option the same calls persist, as pi's do.
		await h.session.setModel(h.getModel("deep")!);
		h.session.setThinkingLevel("medium");
		expect(h.settingsManager.getDefaultModel()).toBe("deep");
		expect(h.settingsManager.getDefaultThinkingLevel()).toBe("medium");
	});
});
