/**
 * openclaw#69480, hermes-agent#72449: a large `AGENTS.md` was cut at a fixed size (12,000 characters
 * in OpenClaw, 20,000 in Hermes) with no word to the user or the model: the rules at the end of the
 * file (escalation, security, pitfalls) silently stopped reaching the model. What that user should
 * see: the whole file, its last line included, in the system prompt, however long it is (as pi
 * 0.73.1 sends it). Driven through the public runtime on real files.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { runtimePerTest, startRuntimeWithEmptyHome } from "../runtime/helpers.js";

const perTest = runtimePerTest();

describe("openclaw#69480: a large AGENTS.md cut silently", () => {
	it("openclaw#69480, hermes-agent#72449: a 60,000-character AGENTS.md reaches the model whole, its last rule included", async () => {
		const ws = perTest.workspace();
		const filler = Array.from({ length: 1500 }, (_, i) => `- Rule ${i}: keep module ${i} documented.`).join("\n");
		const rules = `# Project rules\n${filler}\n- ESCALATION-RULE-LAST: page the on-call owner before any production change.\n`;
		expect(rules.length).toBeGreaterThan(60_000);
		writeFileSync(join(ws.alpha, "AGENTS.md"), rules);
		const faux = createFauxProvider();
		const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, ws, ws.alpha));
		faux.setResponses([fauxAssistantMessage("ok")]);
		await runtime.session.prompt("What must happen before a production change?");
		const sent = faux.requests[0]!.systemPrompt ?? "";
		expect(sent).toContain(rules.trim());
		expect(runtime.session.resourceLoader.getAgentsFiles().diagnostics ?? []).toEqual([]);
	});
});
