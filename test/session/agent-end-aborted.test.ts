/**
 * `agent_end.aborted` (spec B, newer pi): true when the run ended through an abort (its last answer
 * is `aborted`), false after a normal answer or a provider error — on the public event and on the
 * one extensions get.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { abortAtThirdUpdate, SLOW_ANSWER, SLOW_STREAM, toolUntilAbort } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** `agent_end.aborted` as public listeners and an extension saw it, run by run. */
async function observed(setup: (seen: { extension: unknown[] }) => Promise<Harness>) {
	const seen = { extension: [] as unknown[] };
	h = await setup(seen);
	return {
		public: () => h.eventsOfType("agent_end").map((event) => event.aborted),
		extension: () => seen.extension,
	};
}

const recordAgentEnd = (seen: { extension: unknown[] }) => (pi: ExtensionAPI) =>
	pi.on("agent_end", (event) => void seen.extension.push(event.aborted));

describe("agent_end.aborted", () => {
	it("false after an answer and after a provider error (retry off), true after abort() mid-stream", async () => {
		const runs = await observed((seen) =>
			createHarness({
				settings: { retry: { enabled: false } },
				faux: SLOW_STREAM,
				extensionFactories: [recordAgentEnd(seen)],
			}),
		);
		h.setResponses([
			fauxAssistantMessage("ok"),
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid_api_key" }),
			fauxAssistantMessage(SLOW_ANSWER),
		]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		const abort = abortAtThirdUpdate(h.session);
		await h.session.prompt("three");
		await abort.aborting();
		expect(runs.public()).toEqual([false, false, true]);
		expect(runs.extension()).toEqual([false, false, true]);
	});

	it("true when the abort stops a running tool (the run's last answer is the aborted one after it)", async () => {
		const { tool: slow, started } = toolUntilAbort();
		const runs = await observed((seen) => createHarness({ tools: [slow], extensionFactories: [recordAgentEnd(seen)] }));
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("slow", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("never"),
		]);
		const prompt = h.session.prompt("go");
		await started;
		await h.session.abort();
		await prompt;
		expect(runs.public()).toEqual([true]);
		expect(runs.extension()).toEqual([true]);
	});
});
