/**
 * pi#2608: the second compaction lost what the first one kept. pi's `prepareCompaction` started its
 * span after the previous compaction entry, but the messages that compaction kept sit before it in
 * the branch: they were neither summarized by the second compaction nor kept by it, and their
 * content vanished from the context. What the user should see: after two compactions every earlier
 * message is either in a summary request or still in the context.
 *
 * docker-agent#2646: with a summary already in the session, the next compaction's kept-tail
 * boundary was mapped too early, into what the first summary had replaced: summarized history came
 * back into the context. What the user should see: each message summarized once, never back.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** About 1100 tokens: one such prompt alone is over the 1000-token budget, so a cut lands at it. */
const padding = (word: string) => `${word} ${"detail ".repeat(640)}`;

describe("pi#2608: messages kept by the first compaction are lost by the second", () => {
	it("pi#2608: compact, prompt, compact again: the turn the first compaction kept goes into the second summary, and the context holds the summary and the newest turn", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1000 } } });
		const { summaryRequests } = script(h, [
			fauxAssistantMessage("answer alpha"),
			fauxAssistantMessage("answer bravo"),
			fauxAssistantMessage("answer charlie"),
		]);
		await h.session.prompt(padding("ALPHA-PROMPT"));
		await h.session.prompt(padding("BRAVO-PROMPT"));
		await h.session.compact();
		// The first compaction summarized the alpha turn and kept the bravo turn.
		const afterFirst = JSON.stringify(h.session.messages);
		expect(afterFirst).toContain("BRAVO-PROMPT");
		expect(afterFirst).not.toContain("ALPHA-PROMPT");

		await h.session.prompt(padding("CHARLIE-PROMPT"));
		await h.session.compact();
		expect(h.eventsOfType("compaction_end").map((event) => [event.errorMessage, event.result !== undefined])).toEqual([
			[undefined, true],
			[undefined, true],
		]);
		// The bravo turn went into the second summary request…
		const second = JSON.stringify(summaryRequests.at(-1)!.messages);
		expect(second).toContain("BRAVO-PROMPT");
		expect(second).toContain("answer bravo");
		// docker-agent#2646: the alpha turn reaches it only through the previous summary, never again as messages.
		expect(second).toContain("<previous-summary>");
		expect(second).not.toContain("ALPHA-PROMPT");
		// …and the context is the new summary and the charlie turn.
		const roles = h.session.messages.map((message) => message.role);
		expect(roles).toEqual(["system", "compactionSummary", "user", "assistant"]);
		expect(JSON.stringify(h.session.messages)).toContain("CHARLIE-PROMPT");
		// docker-agent#2646: neither summarized turn comes back.
		expect(JSON.stringify(h.session.messages)).not.toMatch(/ALPHA-PROMPT|BRAVO-PROMPT|answer alpha|answer bravo/);
	});
});
