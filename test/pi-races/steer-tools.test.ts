/**
 * pi's reports about a steer that arrives while the model is answering with tool calls, replayed on
 * a real disk session with the real `bash` and `write` tools. pi#2289: a steer sent right after the
 * prompt made pi skip the answer's tool calls ("Skipped due to queued user message"), the write the
 * model had already produced never done. What the user should see: every tool call of the answer
 * runs; the steer reaches the model once, after the tool results, in the next request.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const LOREM = "Lorem ipsum dolor sit amet.\n\nConsectetur adipiscing elit.";

describe("pi#2289: a steer skips the tool calls the model already produced", () => {
	it("pi#2289: a steer sent while the model answers with echo and write tool calls: both run, the file is written, and the steer follows the results in the next request", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash", "write"] });
		const harness = h;
		let steered: Promise<string> | undefined;
		const { answerRequests } = script(harness, [
			() => {
				// The steer lands while this answer is being produced, before any tool starts.
				steered = harness.session.steer("also say hi");
				return fauxAssistantMessage(
					[
						fauxToolCall("bash", { command: `printf '%s' ${JSON.stringify(LOREM)}` }, { id: "call-echo" }),
						fauxToolCall("write", { path: "lorem.txt", content: LOREM }, { id: "call-write" }),
					],
					{ stopReason: "toolUse" },
				);
			},
			fauxAssistantMessage("done, and hi"),
		]);
		await harness.session.prompt("run an echo command with two paragraphs of lorem ipsum, then save them");
		expect(await steered).toBe("queued");

		const results = harness.session.messages.filter((message) => message.role === "toolResult");
		expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
			["call-echo", false],
			["call-write", false],
		]);
		expect(JSON.stringify(results[0]!.content)).toContain("Consectetur adipiscing elit.");
		expect(JSON.stringify(results)).not.toMatch(/Skipped/i);
		expect(readFileSync(join(harness.tempDir, "lorem.txt"), "utf8")).toBe(LOREM);

		expect(answerRequests).toHaveLength(2);
		const second = answerRequests[1] as Context;
		expect(userTexts(second)).toEqual([
			"run an echo command with two paragraphs of lorem ipsum, then save them",
			"also say hi",
		]);
		expect(second.messages.slice(-3).map((message) => message.role)).toEqual(["toolResult", "toolResult", "user"]);
		expect(timesPersisted(harness.session.sessionFile!, "also say hi")).toBe(1);
		expect(reopenedContext(harness.session.sessionFile!).map(comparable)).toEqual(
			harness.session.messages.map(comparable),
		);
	});
});
