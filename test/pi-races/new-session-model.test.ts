import { describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { runtimePerTest, startRuntimeWithEmptyHome } from "../runtime/helpers.js";

const perTest = runtimePerTest();

describe("pi#9592: /new resets the model picked with /model to the startup default", () => {
	it("pi#9592: started without --model, setModel(deep) and a thinking level, then newSession(): the new session runs on deep at that level", async () => {
		const ws = perTest.workspace();
		const faux = createFauxProvider({ models: [{ id: "fast" }, { id: "deep", reasoning: true }] });
		const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, ws, ws.alpha));
		expect(runtime.session.model?.id).toBe("fast");
		await runtime.session.setModel(faux.getModel("deep")!);
		runtime.session.setThinkingLevel("high");

		const { cancelled } = await runtime.newSession();
		expect(cancelled).toBe(false);
		expect(runtime.session.model?.id).toBe("deep");
		expect(runtime.session.thinkingLevel).toBe("high");
		faux.setResponses([fauxAssistantMessage("from deep")]);
		await runtime.session.prompt("which model?");
		expect(faux.requests.at(-1)?.model).toMatchObject({ id: "deep" });
	});
});
