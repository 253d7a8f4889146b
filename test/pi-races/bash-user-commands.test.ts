/**
 * Reports about the user's own shell commands (`!cmd`, `!!cmd`, RPC `bash`, the `user_bash` hook),
 * replayed against Settle through its public API with a real shell. A `!!` command is the user's
 * alone: its output is saved in the session but never sent to the model, so nothing that decides
 * what the model gets (the context estimate, the compaction cut, the summary prompt) may count it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { BIG_ANSWER, script, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** 20,000 characters of output (~5,000 estimated tokens) from a real shell. */
const BIG_PRIVATE_COMMAND = "head -c 20000 /dev/zero | tr '\\0' p";

describe("openclaw#121147: a `!!` command's output counted as context it never is", () => {
	it("openclaw#121147: a big `!!` output neither raises the context usage nor pushes the user's last exchange out of the kept span at compaction; the summary request does not carry it", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 2_000 } } });
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("noted"),
			fauxAssistantMessage("PELICAN"),
		]);
		await h.session.prompt("old work");
		await h.session.prompt("remember the codeword PELICAN");
		const before = h.session.getContextUsage();

		const result = await h.session.executeBash(BIG_PRIVATE_COMMAND, undefined, { excludeFromContext: true });
		expect(result.output).toBe("p".repeat(20_000));
		// The user sees their output; the model's context did not grow.
		expect(h.session.getContextUsage()?.tokens).toBe(before?.tokens);

		await h.session.compact();
		expect(summaryRequests).toHaveLength(1);
		expect(JSON.stringify(summaryRequests[0]!.messages)).not.toContain("pppppppp");

		await h.session.prompt("what was the codeword?");
		const sent = userTexts(answerRequests.at(-1)!);
		// The last exchange is kept verbatim (it is well under keepRecentTokens); only the old work was summarized.
		expect(sent).toContain("remember the codeword PELICAN");
		expect(sent).not.toContain("old work");
		expect(sent.join("\n")).not.toContain("pppppppp");
	});
});
