/**
 * gsd-2#3971 (also gsd-2#5147): an extension's `session_before_compact` returned `{ cancel: true }`
 * for the compaction that overflow recovery started (GSD's hook did so whenever its auto-mode was
 * active). The bundled pi ended that compaction with `willRetry: false` and returned: no error, no
 * retry, nothing queued went on, and the host waited forever for the unit to end — a "silent
 * session death". What the user should see: the operation ends once, with an error that names the
 * overflow and the cancelled compaction (or, when a follow-up was queued, with that follow-up
 * answered); the session is idle and the next prompt runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, overflowReply, recoveryLabels, reopenedContext, script, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** A session whose `session_before_compact` handler cancels every compaction while `cancelling()`. */
async function cancellingSession(cancelling: () => boolean): Promise<Harness> {
	return createHarness({
		persistence: "disk",
		settings: { compaction: { keepRecentTokens: 1 } },
		extensionFactories: [
			(pi: ExtensionAPI) => void pi.on("session_before_compact", () => (cancelling() ? { cancel: true } : undefined)),
		],
	});
}

describe("gsd-2#3971: an extension cancels the overflow recovery's compaction", () => {
	it("gsd-2#3971: overflow, session_before_compact cancels: one agent_settled naming the overflow and the cancel, nothing compacted, idle, the next prompt answered", async () => {
		let cancel = true;
		h = await cancellingSession(() => cancel);
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage("first answer"),
			overflowReply(),
			fauxAssistantMessage("answered after the cancel"),
		]);
		await h.session.prompt("first");
		const from = h.events.length;
		await h.session.prompt("second, which overflows");

		const labels = recoveryLabels(h.events.slice(from));
		expect(labels).toContain("compaction_start(overflow)");
		expect(labels).toContain("compaction_end(overflow,none,aborted=true,willRetry=false)");
		expect(labels.filter((label) => label === "agent_settled")).toHaveLength(1);
		expect(labels.at(-1)).toBe("agent_settled");
		const settled = h.eventsOfType("agent_settled").at(-1)!;
		expect(settled.errorMessage).toMatch(/context is too long for the model .* its compaction was cancelled/);
		expect(summaryRequests).toEqual([]);
		expect(h.session.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.isIdle).toBe(true);

		cancel = false;
		await h.session.prompt("third");
		expect(userTexts(answerRequests.at(-1)!)).toEqual(["first", "third"]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("gsd-2#3971: a follow-up queued during the overflowing request is delivered and answered after the cancel, in the same operation", async () => {
		h = await cancellingSession(() => true);
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage("first answer"),
			() => {
				void h!.session.followUp("next unit: run the tests");
				return overflowReply()();
			},
			fauxAssistantMessage("the tests pass"),
		]);
		await h.session.prompt("first");
		const from = h.events.length;
		await h.session.prompt("second, which overflows");

		const labels = recoveryLabels(h.events.slice(from));
		expect(labels).toContain("compaction_end(overflow,none,aborted=true,willRetry=false)");
		expect(labels.filter((label) => label === "agent_settled")).toHaveLength(1);
		expect(labels.at(-1)).toBe("agent_settled");
		expect(summaryRequests).toEqual([]);
		expect(userTexts(answerRequests.at(-1)!)).toEqual(["first", "next unit: run the tests"]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(h.session.isIdle).toBe(true);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
