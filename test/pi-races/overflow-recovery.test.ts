/**
 * Reports about context-overflow recovery, replayed against Settle through its public API on a real
 * session file. Once one compact-and-retry attempt failed, the "already attempted" flag stayed set
 * for the session: every later wake (a goal continuation, a background task's result sent as a
 * custom message that triggers a turn) was refused locally with "Context overflow recovery
 * failed…", no compaction tried, the model never asked again (oh-my-openagent#8411, fixed by
 * senpi#1780). What the user should see: each new operation's overflow gets its own attempt.
 * pi#6472: with `compaction.enabled: false` an overflow still compacted (the overflow path skipped
 * the setting). What the user should see: no compaction they did not ask for — the overflow is
 * reported, and `/compact` is still theirs to run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { RECOVERY_FAILED } from "../session/recovery-helpers.js";
import { comparable, overflowReply, reopenedContext, script, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** The overflow compactions' ends, as `reason/willRetry/errorMessage`. */
function compactionEnds(harness: Harness): string[] {
	return harness
		.eventsOfType("compaction_end")
		.map(
			(event) => `${event.reason}/${event.willRetry}/${event.errorMessage ?? (event.result ? "compacted" : "none")}`,
		);
}

describe("oh-my-openagent#8411 / senpi#1780: overflow recovery latched for the session after one failed attempt", () => {
	it("oh-my-openagent#8411: after a failed compact-and-retry, a custom message that triggers a turn and overflows is compacted and retried again; so is a later prompt", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage("first"),
			// The failed attempt: the request overflows, is compacted and retried, and overflows again.
			overflowReply(),
			overflowReply(),
			// The wake overflows, then (compacted) is answered.
			overflowReply(),
			(context) => fauxAssistantMessage(`resumed after ${userTexts(context).at(-1)}`),
			// A later prompt overflows too, and is recovered as well.
			overflowReply(),
			fauxAssistantMessage("answered"),
		]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(compactionEnds(h)).toEqual(["overflow/true/compacted", `overflow/false/${RECOVERY_FAILED}`]);

		h.events.length = 0;
		await h.session.sendCustomMessage(
			{ customType: "goal-continuation", content: "continue the goal", display: true },
			{ triggerTurn: true },
		);
		await h.session.waitForIdle();
		expect(compactionEnds(h)).toEqual(["overflow/true/compacted"]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "resumed after continue the goal" }] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);

		h.events.length = 0;
		await h.session.prompt("three");
		expect(compactionEnds(h)).toEqual(["overflow/true/compacted"]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "answered" }] });

		expect(summaryRequests).toHaveLength(3);
		expect(answerRequests).toHaveLength(7);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("pi#6472: compaction.enabled=false bypassed by the overflow recovery path", () => {
	it("pi#6472: with compaction disabled, an overflow is reported and nothing is compacted or retried; a manual compact() still works and the next prompt is answered", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { enabled: false, keepRecentTokens: 1 } } });
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage("first"),
			overflowReply(),
			(context) => fauxAssistantMessage(`answered ${userTexts(context).at(-1)}`),
		]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		// The overflow is the run's answer: no compaction, no retry, no summary request.
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(summaryRequests).toHaveLength(0);
		expect(answerRequests).toHaveLength(2);
		const last = h.session.messages.at(-1) as { role: string; stopReason?: string; errorMessage?: string };
		expect(last).toMatchObject({ role: "assistant", stopReason: "error" });
		expect(last.errorMessage).toMatch(/prompt is too long/);
		const file = h.session.sessionFile!;
		expect(reopenedContext(file).some((message) => message.role === "compactionSummary")).toBe(false);

		// Compaction stays available on request.
		await h.session.compact();
		expect(compactionEnds(h)).toEqual(["manual/false/compacted"]);
		await h.session.prompt("three");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(JSON.stringify(h.session.messages.at(-1))).toContain("answered three");
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
