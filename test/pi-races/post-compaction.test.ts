/**
 * Reports about the first prompt after a compaction, replayed against Settle through its public
 * API on a real session file: an extension appends a note once a threshold compaction is done, and
 * the next prompt compacts again at once because the check reads the usage of an answer the
 * compaction already summarized (pi#1860). What the user should see: the prompt runs on the
 * compacted context; a compaction only when the context is over the threshold again. And a turn cut
 * off by a full context (`stopReason: "length"`, almost no output) in a tool loop: the session
 * compacted, then stopped and handed control back, the work unfinished (pi#3612, pi#7020); it
 * should compact and go on with the turn. opencode#13838: compaction put a question ("What did we do
 * so far?") in the context as a user message; the model took it for a request and answered it.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	BIG_ANSWER,
	comparable,
	fileEntries,
	recoveryLabels,
	reopenedContext,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	userTexts,
} from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("pi#1860: auto-compaction retriggers on the first prompt after a compaction (stale assistant usage)", () => {
	it("pi#1860: a note an extension appends after a threshold compaction does not make the next prompt compact again", async () => {
		let api!: ExtensionAPI;
		h = await createHarness({
			persistence: "disk",
			...SMALL_WINDOW,
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
				},
			],
		});
		const harness = h;
		const { answerRequests, summaryRequests } = script(harness, [
			fauxAssistantMessage("noted"),
			fauxAssistantMessage("answered the next prompt"),
		]);
		// A long first prompt: its answer's usage is over the threshold, so the operation compacts after it.
		await harness.session.prompt(`read this log: ${BIG_ANSWER}`);
		expect(harness.eventsOfType("compaction_start")).toMatchObject([{ reason: "threshold" }]);
		expect(summaryRequests).toHaveLength(1);
		// The report's session-lifecycle extension: a recovery note, saved after the compaction entry.
		api.sendMessage({ customType: "recovery", content: "session recovery payload", display: false });
		const file = harness.session.sessionFile!;
		expect(
			fileEntries(file)
				.map((entry) => entry.type)
				.slice(-2),
		).toEqual(["compaction", "custom_message"]);

		await harness.session.prompt("what next?");
		// No second compaction: the stale usage of the summarized answer is not read as the context's size.
		expect(harness.eventsOfType("compaction_start")).toHaveLength(1);
		expect(summaryRequests).toHaveLength(1);
		expect(answerRequests).toHaveLength(2);
		expect(userTexts(answerRequests[1]!).slice(-2)).toEqual(["session recovery payload", "what next?"]);
		expect(harness.eventsOfType("agent_settled")).toHaveLength(2);
		expect(fileEntries(file).filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});

describe("pi#3612 / pi#7020: after a length stop caused by a full context, the session compacts and hands control back", () => {
	it("pi#7020: a tool loop's answer cut off at once by the full window (stopReason length, no output): the session compacts (overflow) and continues the turn, without a new user message; the answer arrives, one agent_settled, and the file reopens to the live context", async () => {
		const readPart: AgentTool = {
			name: "read_part",
			label: "read_part",
			description: "reads one part of the codebase",
			parameters: { type: "object" },
			// About 5000 tokens: the next request fills most of the 8000-token window.
			execute: async () => ({ content: [{ type: "text", text: "x".repeat(20_000) }], details: {} }),
		};
		h = await createHarness({
			persistence: "disk",
			...SMALL_WINDOW,
			tools: [readPart],
			settings: { compaction: { reserveTokens: 2000, keepRecentTokens: 1 } },
		});
		const harness = h;
		const { answerRequests, summaryRequests } = script(harness, [
			fauxAssistantMessage([fauxToolCall("read_part", {})], { stopReason: "toolUse" }),
			// The report's cut-off answer: nothing visible, stopped by the length limit.
			fauxAssistantMessage("", { stopReason: "length" }),
			fauxAssistantMessage("the poem about the architecture"),
		]);
		await harness.session.prompt("summarize the architecture for poets");
		const labels = recoveryLabels(harness.events);
		expect(labels).toContain("compaction_start(overflow)");
		expect(labels.find((label) => label.startsWith("compaction_end(overflow"))).toMatch(/willRetry=true/);
		expect(summaryRequests.length).toBeGreaterThanOrEqual(1);
		// The turn went on from the tool result: no user message was needed to get the answer.
		expect(answerRequests).toHaveLength(3);
		const asked = userTexts(answerRequests[2]!).filter(
			(text) =>
				!text.includes("compacted into the following summary") && text !== "summarize the architecture for poets",
		);
		expect(asked).toEqual([]);
		expect(answerRequests[2]!.messages.at(-1)).toMatchObject({ role: "toolResult" });
		const assistants = harness.session.messages.filter((message) => message.role === "assistant");
		expect(assistants.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "the poem about the architecture" }],
		});
		expect(assistants.some((message) => message.stopReason === "length")).toBe(false);
		expect(harness.eventsOfType("agent_settled")).toHaveLength(1);
		const file = harness.session.sessionFile!;
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});

describe("opencode#13838: a synthetic question after the summary taken for the user's request", () => {
	it("opencode#13838: neither a threshold compaction nor /compact asks the model anything; the next request holds the summary as framed context, then the user's own prompts only", async () => {
		h = await createHarness({ ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS });
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage("read it"),
			fauxAssistantMessage("answered the next prompt"),
			fauxAssistantMessage("answered after /compact"),
		]);
		await h.session.prompt(`read this log: ${BIG_ANSWER}`);
		expect(h.eventsOfType("compaction_end")).toMatchObject([{ reason: "threshold", willRetry: false }]);
		// The compaction sent its summary request and no turn of its own.
		expect(summaryRequests).toHaveLength(1);
		expect(answerRequests).toHaveLength(1);

		const framed = (n: number) =>
			expect.stringMatching(
				new RegExp(
					`^The conversation history before this point was compacted into the following summary:\\n\\n<summary>\\n[\\s\\S]*summary ${n}[\\s\\S]*</summary>`,
				),
			);
		await h.session.prompt("what next?");
		expect(answerRequests).toHaveLength(2);
		expect(answerRequests[1]!.messages[0]!.role).toBe("user");
		expect(userTexts(answerRequests[1]!)).toEqual([framed(1), "what next?"]);

		await h.session.compact();
		expect(answerRequests).toHaveLength(2);
		await h.session.prompt("and then?");
		expect(userTexts(answerRequests[2]!)).toEqual([framed(2), "and then?"]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});
