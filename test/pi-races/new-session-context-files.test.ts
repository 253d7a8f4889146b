/**
 * oh-my-pi#8663, oh-my-pi#9273: `AGENTS.md` was read once per process; `/new` (and `/clear`)
 * started a fresh session with the copy read at startup, so rules edited on disk never reached the
 * model until the process was restarted ("What magic token do your project rules contain?" kept
 * answering MAGIC-ALPHA after the file said MAGIC-BRAVO). What that user should see: the new
 * session's first request carries the file as it is on disk now. Driven through the public runtime
 * (`createAgentSessionRuntime` + `createAgentSessionRuntimeFactory`, pi's `/new`), on real files.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { runtimePerTest, startRuntimeWithEmptyHome } from "../runtime/helpers.js";

const perTest = runtimePerTest();

describe("oh-my-pi#8663: /new serves the AGENTS.md read at startup", () => {
	it("oh-my-pi#8663, oh-my-pi#9273: AGENTS.md edited on disk, then newSession(): the new session's request carries the new rules, not the old", async () => {
		const ws = perTest.workspace();
		const rules = join(ws.alpha, "AGENTS.md");
		writeFileSync(rules, "- The project magic token is MAGIC-ALPHA.\n");
		const faux = createFauxProvider();
		const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, ws, ws.alpha));
		faux.setResponses([fauxAssistantMessage("MAGIC-ALPHA"), fauxAssistantMessage("MAGIC-BRAVO")]);
		await runtime.session.prompt("What magic token do your project rules contain?");
		expect(faux.requests[0]!.systemPrompt).toContain("MAGIC-ALPHA");

		writeFileSync(rules, "- The project magic token is MAGIC-BRAVO.\n");
		const { cancelled } = await runtime.newSession();
		expect(cancelled).toBe(false);
		await runtime.session.prompt("What magic token do your project rules contain?");
		const sent = faux.requests[1]!.systemPrompt ?? "";
		expect(sent).toContain("MAGIC-BRAVO");
		expect(sent).not.toContain("MAGIC-ALPHA");
	});
});
