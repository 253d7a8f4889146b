/**
 * Reports about the first prompt after a compaction, replayed against Settle through its public
 * API on a real session file: an extension appends a note once a threshold compaction is done, and
 * the next prompt compacts again at once because the check reads the usage of an answer the
 * compaction already summarized (pi#1860). What the user should see: the prompt runs on the
 * compacted context; a compaction only when the context is over the threshold again.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	BIG_ANSWER,
	comparable,
	fileEntries,
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
