/**
 * pi#9592: `/new` silently reset the model the user had picked with `/model` to the startup default
 * (the settings' default, or the first model available), with nothing printed: the next answers
 * came from, and were billed to, a model the user had switched away from. What that user should
 * see: the new session on the model they picked, and the thinking level with it. Driven through the
 * public runtime (`newSession()`, pi's `/new`) on real settings and session files.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import {
	createWorkspace,
	fauxModelRuntime,
	recordingFactory,
	startRuntime,
	type Workspace,
} from "../runtime/helpers.js";

let ws: Workspace | undefined;
let runtime: AgentSessionRuntime | undefined;
afterEach(async () => {
	await runtime?.dispose();
	runtime = undefined;
	ws?.cleanup();
	ws = undefined;
});

describe("pi#9592: /new resets the model picked with /model to the startup default", () => {
	it("pi#9592: started without --model, setModel(deep) and a thinking level, then newSession(): the new session runs on deep at that level", async () => {
		ws = createWorkspace();
		const home = join(ws.root, "home");
		mkdirSync(home, { recursive: true });
		const faux = createFauxProvider({ models: [{ id: "fast" }, { id: "deep", reasoning: true }] });
		const { factory } = recordingFactory({
			modelRuntime: () => fauxModelRuntime(faux),
			resourceLoaderOptions: { noExtensions: true, trustProject: true, homeDir: home },
		});
		runtime = await startRuntime(factory, ws, ws.alpha);
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
