/**
 * Roo-Code#4603, replayed: Cancel pressed while the provider kept failing and the agent retried
 * (an API error loop) ended the task and the whole conversation was gone: the work of the earlier
 * turns lost. Against Settle, through its public API on a SimulatedClock and a real session file:
 * two answered prompts, then a third whose requests fail with a retryable 529; `abort()` during
 * the backoff cancels the retry, and every earlier message stays, live and in the file (reopened,
 * it equals the live context); the next prompt's request carries the whole conversation.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type HarnessWithClock } from "../../src/testing/harness.js";
import {
	comparable,
	errorReply,
	OVERLOADED,
	persistedUserTexts,
	reopenedContext,
	script,
	userTexts,
} from "./helpers.js";

let h: HarnessWithClock;
afterEach(() => h?.cleanup());

/** The role and text of each message of a request (`assistant: text`), the system prompt's aside. */
function conversation(messages: readonly { role: string; content?: unknown }[]): string[] {
	return messages.flatMap((message) => {
		const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
		const text = (content as { type: string; text?: string }[])
			.map((block) => (block.type === "text" ? block.text : ""))
			.join("");
		return message.role === "user" || message.role === "assistant" ? [`${message.role}: ${text}`] : [];
	});
}

describe("Roo-Code#4603: cancelling during an API error retry loop wiped the whole chat history", () => {
	it("Roo-Code#4603: abort() in the backoff of a failing third prompt: the retry is cancelled, the two earlier exchanges and the prompt stay (live, in the file), and the next request carries them all", async () => {
		h = await createHarness({
			persistence: "disk",
			simulatedClock: true,
			settings: { retry: { maxRetries: 5, baseDelayMs: 1000 } },
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("plan written"),
			fauxAssistantMessage("tests added"),
			errorReply(OVERLOADED),
			fauxAssistantMessage("picked up where we were"),
		]);
		await h.session.prompt("write the plan");
		await h.session.prompt("add the tests");
		const third = h.session.prompt("now refactor");
		await h.nextEvent("auto_retry_start");
		await h.session.abort();
		await third;

		expect(h.eventsOfType("auto_retry_end").at(-1)).toMatchObject({ success: false, finalError: "Retry cancelled" });
		// Only the failed attempt is gone; nothing before it.
		const kept = ["user: write the plan", "assistant: plan written", "user: add the tests", "assistant: tests added"];
		expect(conversation(h.session.messages)).toEqual([...kept, "user: now refactor"]);
		const file = h.session.sessionFile!;
		expect(persistedUserTexts(file)).toEqual(["write the plan", "add the tests", "now refactor"]);
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(h.session.isIdle).toBe(true);

		await h.session.prompt("go on");
		expect(answerRequests).toHaveLength(4);
		expect(userTexts(answerRequests[3]!)).toEqual(["write the plan", "add the tests", "now refactor", "go on"]);
		expect(conversation(answerRequests[3]!.messages)).toEqual([...kept, "user: now refactor", "user: go on"]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "picked up where we were" }] });
	});
});
