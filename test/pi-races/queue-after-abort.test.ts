/**
 * pilish#323: a follow-up sent between Stop and the run's end (pi still winding down) was accepted
 * with "Message queued (will send when Pi is ready)", then dropped when the stopped run ended: not
 * sent, not in the transcript. Replayed on a real disk session with the real `bash` tool: what the
 * user should see is the message kept, listed as pending, and delivered once (and saved once) by
 * the next run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, persistedUserTexts, reopenedContext, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("pilish#323: a message queued after Stop is promised, then dropped", () => {
	it("pilish#323: a follow-up sent after abort() while the aborted run winds down stays queued and listed, and the next prompt's run delivers it once", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 30" }, { id: "call-1" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("answered the new prompt"),
			fauxAssistantMessage("answered the follow-up"),
		]);
		const started = harness.nextEvent("tool_execution_start");
		const running = harness.session.prompt("run the long job");
		await started;

		const stopping = harness.session.abort();
		// Sent while the stopped run still winds down (the `sleep` is being killed).
		expect(harness.session.isIdle).toBe(false);
		const queued = harness.session.followUp("when you are ready: summarize the logs");
		await stopping;
		await running;
		expect(await queued).toBe("queued");

		// Kept and shown as pending: nothing sent it, nothing dropped it.
		expect(harness.session.isIdle).toBe(true);
		expect(harness.session.pendingMessageCount).toBe(1);
		expect(harness.session.getFollowUpMessages()).toEqual(["when you are ready: summarize the logs"]);
		expect(answerRequests).toHaveLength(1);

		await harness.session.prompt("start over");
		expect(harness.session.pendingMessageCount).toBe(0);
		expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual([
			"run the long job",
			"start over",
			"when you are ready: summarize the logs",
		]);
		const file = harness.session.sessionFile!;
		expect(timesPersisted(file, "when you are ready: summarize the logs")).toBe(1);
		expect(persistedUserTexts(file)).toEqual([
			"run the long job",
			"start over",
			"when you are ready: summarize the logs",
		]);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});
