/**
 * A session file Settle wrote under a virtual selection (pi 1.6 format: `model_change` naming the
 * virtual model, `pi.virtual-model-state` custom entries, `thinkingLevel` on assistant messages)
 * opens in pi 0.73.1, which predates virtual models, and pi continues it without an error.
 */
import { copyFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { createPeer, makeTempDirs } from "./peers.js";

let h: Harness | undefined;
afterEach(() => h?.cleanup());

it("pi 0.73.1 opens and continues a Settle session file written with a virtual model", async () => {
	h = await createHarness({ models: [{ id: "faux-1" }], persistence: "disk" });
	const harness = h;
	harness.modelRuntime.registerVirtualModel({
		provider: "router",
		id: "auto",
		name: "Auto",
		route: (request) => ({
			model: harness.getModel("faux-1")!,
			thinkingLevel: "off",
			state: { routed: ((request.state as { routed: number } | undefined)?.routed ?? 0) + 1 },
		}),
	});
	await harness.session.setModel(harness.modelRuntime.getModel("router", "auto")!, { persist: false });
	harness.setResponses([fauxAssistantMessage("It says alpha.")]);
	await harness.session.prompt("what is in a.txt?");
	const file = harness.session.sessionFile!;
	const types = harness.sessionManager.getEntries().map((entry) => entry.type);
	expect(types).toContain("custom");

	const dirs = makeTempDirs();
	const copy = join(dirs.sessionDir, basename(file));
	copyFileSync(file, copy);
	const errors: unknown[] = [];
	const pi = await createPeer("pi", { openFile: copy, onError: (error) => errors.push(error) }, dirs);
	try {
		expect(pi.session.messages.at(-1)).toMatchObject({ role: "assistant", provider: "faux", model: "faux-1" });
		pi.script([{ text: "Resumed." }]);
		await pi.prompt("continue");
		await pi.quiesce();
		// pi replays the conversation (the physical model's answer included) and answers.
		expect(pi.requests[0]?.messages.join("\n")).toContain("It says alpha.");
		expect(pi.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(errors).toEqual([]);
	} finally {
		pi.cleanup();
	}
});
