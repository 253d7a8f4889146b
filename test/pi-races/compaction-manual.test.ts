/**
 * Manual `/compact` replays: what the summarizer is asked, and what a compaction writes, when the
 * cut falls inside a turn or there is nothing to summarize.
 *
 * - pi#9348: `/compact <instructions>` on a session that is one long tool-using turn. The cut splits
 *   that turn, there is no history before it, and pi sends only the turn-prefix request — without
 *   the instructions (pi adds them to the history request alone). The user's focus reached no
 *   summarizer; the tripwire they planted was missing from the summary.
 * - pi#4046 (also pi#4811, pi#5879): `/compact` right after "hi". pi sent a summary request with an
 *   empty `<conversation>`, wrote a compaction whose summary said the conversation was empty, and
 *   kept every message (the session grew).
 * - openclaw#120663: a repeated compaction with no whole turn to summarize (the cut splits the one
 *   turn after the previous compaction) replaced the previous summary with an empty skeleton ("No
 *   prior history."): everything the earlier compactions had kept vanished from the context.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** About 3000 tokens of log output per call: one result is under the 4000-token budget, two are over. */
const LOG_TEXT = "log line of a long build\n".repeat(500);

const dumpLog: AgentTool = {
	name: "dump_log",
	label: "dump_log",
	description: "prints a build log",
	parameters: { type: "object", properties: { name: { type: "string" } } } as never,
	execute: async () => ({ content: [{ type: "text", text: LOG_TEXT }], details: {} }),
};

/** The text of a request's one user message (a summary request has just that). */
function requestText(context: Context): string {
	return JSON.stringify(context.messages);
}

/** One prompt answered by three tool calls in a row (each result ~3000 tokens), then a final answer. */
const LONG_TURN = [
	fauxAssistantMessage([fauxToolCall("dump_log", { name: "a" }, { id: "call-a" })], { stopReason: "toolUse" }),
	fauxAssistantMessage([fauxToolCall("dump_log", { name: "b" }, { id: "call-b" })], { stopReason: "toolUse" }),
	fauxAssistantMessage([fauxToolCall("dump_log", { name: "c" }, { id: "call-c" })], { stopReason: "toolUse" }),
	fauxAssistantMessage("All three logs show the linker failure."),
];

describe("pi#9348: /compact instructions left out of a split turn's prefix summary", () => {
	it("pi#9348: /compact <focus> on one long tool-using turn: the turn-prefix request carries the focus, and the summary written is that request's answer", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [dumpLog],
			settings: { compaction: { keepRecentTokens: 4000 } },
		});
		const { summaryRequests } = script(h, LONG_TURN, {
			summary: (n) => fauxAssistantMessage(`## Original Request\nprefix summary ${n}`),
		});
		await h.session.prompt("read the three build logs");
		const result = await h.session.compact("TRIPWIRE-7731: keep the linker flags verbatim");

		// The cut split the one turn and nothing came before it: a single request, the prefix's.
		expect(summaryRequests).toHaveLength(1);
		const prefixRequest = requestText(summaryRequests[0]!);
		expect(prefixRequest).toContain("read the three build logs");
		expect(prefixRequest).toContain("Original Request");
		// The user's focus is in it.
		expect(prefixRequest).toContain("Additional focus: TRIPWIRE-7731: keep the linker flags verbatim");
		expect(result.summary).toContain("**Turn Context (split turn):**\n\n## Original Request\nprefix summary 1");
		// The compaction is on disk and the file reopens to the live context.
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("pi#9348: /compact without instructions: the turn-prefix request adds no focus line", async () => {
		h = await createHarness({ tools: [dumpLog], settings: { compaction: { keepRecentTokens: 4000 } } });
		const { summaryRequests } = script(h, LONG_TURN);
		await h.session.prompt("read the three build logs");
		await h.session.compact();
		expect(summaryRequests).toHaveLength(1);
		expect(requestText(summaryRequests[0]!)).not.toContain("Additional focus");
	});
});
