/**
 * pi#7201 (also prime-agent#1549): the newest turn's tool results alone hold more than
 * `keepRecentTokens`. pi's cut-point search walks back until the budget is reached — inside the
 * trailing tool results, where no cut may fall — then looks only forward for a valid cut; finding
 * none it kept its default, the first message, so `prepareCompaction` had nothing to summarize and
 * the compaction the context needed was skipped ("Nothing to compact"), although older history was
 * there. What the user should see: the older history is summarized; the turn that called the tools
 * is cut at its assistant message (the call and its results kept together), and the retried request
 * carries the call followed by its results.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { orphanToolMessages } from "./disk-harness.js";
import { dumpLog, overflowReply, script, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Roles of a request's messages, with tool-call ids for calls and results. */
function shape(context: Context): string[] {
	return context.messages.map((message) => {
		if (message.role === "toolResult") return `toolResult(${message.toolCallId})`;
		if (message.role === "assistant") {
			const calls = message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
			return calls.length > 0 ? `assistant(${calls.join(",")})` : "assistant";
		}
		return message.role;
	});
}

describe("pi#7201: compaction skipped when the trailing tool results exceed keepRecentTokens", () => {
	it("pi#7201: a request after two big tool results overflows: the earlier turns are summarized, the call and its results kept, the retry answered", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [dumpLog],
			settings: { compaction: { keepRecentTokens: 4000 } },
		});
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage("The build is configured."),
			fauxAssistantMessage(
				[
					fauxToolCall("dump_log", { name: "a" }, { id: "call-a" }),
					fauxToolCall("dump_log", { name: "b" }, { id: "call-b" }),
				],
				{ stopReason: "toolUse" },
			),
			// The request carrying both results overflows; compacted, it is retried.
			overflowReply(),
			fauxAssistantMessage("Both logs show the same failure."),
		]);
		await h.session.prompt("configure the build");
		await h.session.prompt("read both build logs");

		const ends = h.eventsOfType("compaction_end");
		expect(ends.map((event) => [event.reason, event.errorMessage, event.result !== undefined])).toEqual([
			["overflow", undefined, true],
		]);
		// The cut is at the assistant message that called the tools (the turn split there).
		const entries = h.session.sessionManager.getEntries();
		const compaction = entries.find((entry) => entry.type === "compaction") as { firstKeptEntryId: string };
		const kept = entries.find((entry) => entry.id === compaction.firstKeptEntryId);
		expect(kept).toMatchObject({ type: "message", message: { role: "assistant", stopReason: "toolUse" } });
		// The older history went into the summary.
		expect(summaryRequests.length).toBeGreaterThan(0);
		expect(JSON.stringify(summaryRequests.map((request) => request.messages))).toContain("configure the build");
		// The retried request: the summary, then the call followed at once by both results.
		const retried = answerRequests.at(-1)!;
		expect(userTexts(retried).join("\n")).not.toContain("configure the build");
		expect(shape(retried).slice(-3)).toEqual(["assistant(call-a,call-b)", "toolResult(call-a)", "toolResult(call-b)"]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(orphanToolMessages(h.session.sessionManager.getSessionFile()!)).toEqual({
			callsWithoutResult: [],
			resultsWithoutCall: [],
		});
	});
});
