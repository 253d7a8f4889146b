/**
 * openclaw-memory-libravdb#317, bounty-challenge#5648: a grep tool running the model's regex on the
 * main thread with a backtracking engine (`(a+)+$` on a line of a's) held the CPU and the event loop
 * for as long as the match took, and nothing, the user's abort included, could stop it. pi 0.73.1's
 * rg cannot backtrack; Settle's grep uses JavaScript regexes, which can. What the user should see:
 * Esc stops such a search at once.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("openclaw-memory-libravdb#317: a backtracking grep pattern freezes the agent", () => {
	it("openclaw-memory-libravdb#317: Esc pressed a second into a grep `(a+)+$` backtracking over a line of 28 a's (seconds of work) stops it: the result is `Operation aborted` and the session is idle", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep"] });
		const harness = h;
		// Seconds of backtracking per line on the thread that runs the match.
		writeFileSync(join(harness.tempDir, "backtrack.txt"), `${"a".repeat(28)}b\n`);
		// The user presses Esc a moment into the search: the stimulus, not a wait for something to happen.
		let escPressed: ReturnType<typeof setTimeout> | undefined;
		harness.session.subscribe((event) => {
			if (event.type === "tool_execution_start" && event.toolName === "grep") {
				escPressed = setTimeout(() => void harness.session.abort(), 1000);
			}
		});
		script(harness, [
			fauxAssistantMessage([fauxToolCall("grep", { pattern: "(a+)+$", path: "backtrack.txt" }, { id: "g1" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("never asked"),
		]);
		await harness.session.prompt("search for it");
		clearTimeout(escPressed);
		const results = harness.session.messages.flatMap((message) =>
			message.role === "toolResult"
				? [
						{
							tool: message.toolName,
							isError: message.isError,
							text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
						},
					]
				: [],
		);
		expect(results).toEqual([{ tool: "grep", isError: true, text: "Operation aborted" }]);
		expect(harness.session.isIdle).toBe(true);
	});
});
