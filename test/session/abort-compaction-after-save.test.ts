/**
 * `abortCompaction()` while an overflow recovery's `session_compact` handlers run: the compaction
 * entry is saved already, so it stays, and `compaction_end` says `willRetry: false`. What the
 * session does next must agree with that event: no retried request.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, tick } from "./helpers.js";
import { gate, overflowReply, script } from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

describe("abortCompaction() during an overflow recovery's session_compact", () => {
	it("keeps the saved compaction and sends no retry, as its compaction_end{willRetry: false} says", async () => {
		const handlerGate = gate();
		let inHandler = false;
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_compact", async () => {
						inHandler = true;
						await handlerGate.promise;
					});
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("first"),
			overflowReply(),
			fauxAssistantMessage("retried"),
		]);
		await h.session.prompt("one");
		h.events.length = 0;
		const second = h.session.prompt("two");
		while (!inHandler) await tick();
		h.session.abortCompaction();
		handlerGate.release();
		await second;
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "overflow", aborted: false, willRetry: false }),
		]);
		expect(h.sessionManager.getEntries().filter((entry) => entry.type === "compaction")).toHaveLength(1);
		// The listener was told nothing follows: nothing does.
		expect(answerRequests).toHaveLength(2);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
