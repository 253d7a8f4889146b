/**
 * pi#2562, openclaw#103930: the context estimate counted every character as a quarter of a token,
 * but tokenizers encode a Chinese, Japanese or Korean character as about one. On a CJK session the
 * kept tail (`keepRecentTokens`) held three to four times its budget, the compaction freed little,
 * and the session went back over the threshold at once. What the user should see: a compaction of
 * a Chinese session keeps about `keepRecentTokens` of it, as it does for an English one.
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

/** 600 Chinese characters (about 600 tokens) tagged with an ASCII marker. */
const chinese = (tag: string) => `${tag} ${"请帮我检查这个函数的错误处理逻辑".repeat(40)}`;

describe("pi#2562, openclaw#103930: a CJK session compacted keeps about keepRecentTokens", () => {
	it("pi#2562: four Chinese prompts of ~600 tokens each, keepRecentTokens 1000: /compact summarizes the first ones and keeps at most two", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1000 } } });
		const { summaryRequests } = script(h, [
			fauxAssistantMessage("好的 one"),
			fauxAssistantMessage("好的 two"),
			fauxAssistantMessage("好的 three"),
			fauxAssistantMessage("好的 four"),
		]);
		for (const tag of ["P-ONE", "P-TWO", "P-THREE", "P-FOUR"]) await h.session.prompt(chinese(tag));
		await h.session.compact();

		const end = h.eventsOfType("compaction_end").at(-1)!;
		expect(end.errorMessage).toBeUndefined();
		const kept = JSON.stringify(h.session.messages);
		// The newest prompt stays; with chars/4 all four (~2400 real tokens) fit the 1000-token budget.
		expect(kept).toContain("P-FOUR");
		expect(kept).not.toContain("P-TWO");
		expect(kept).not.toContain("P-ONE");
		const summarized = JSON.stringify(summaryRequests.at(-1)!.messages);
		expect(summarized).toContain("P-ONE");
		expect(summarized).toContain("P-TWO");
	});
});
