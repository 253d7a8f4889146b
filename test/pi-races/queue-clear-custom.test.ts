/**
 * pi#9886: `clearQueue()` silently destroyed the custom messages an extension had queued with
 * `sendMessage(…, { deliverAs: "steer" | "followUp" })` during a run: they were neither returned
 * (it returns the user's queued texts, for the editor) nor delivered, and no event said so. A host
 * whose "edit the queued messages" is clear + re-send lost them. The user's texts are the user's to
 * take back; an extension's message (a CI result, a mesh envelope) should stay queued and reach the
 * model, in this run or, after an abort, in the next prompt's. Replayed through the SDK on a real
 * disk session with an extension that sends the message from its `tool_call` hook.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	comparable,
	gate,
	gatedTool,
	persistedRoles,
	reopenedContext,
	script,
	timesPersisted,
	userTexts,
} from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

async function ciMessageQueued(deliverAs: "steer" | "followUp") {
	const started = gate();
	const finish = gate();
	h = await createHarness({
		persistence: "disk",
		tools: [gatedTool(started.release, finish.promise)],
		extensionFactories: [
			(pi: ExtensionAPI) =>
				pi.on("tool_call", () => {
					pi.sendMessage({ customType: "ci", content: "CI: build 42 failed", display: true }, { deliverAs });
				}),
		],
	});
	const harness = h;
	const { answerRequests } = script(harness, [
		fauxAssistantMessage([fauxToolCall("run_tests", {}, { id: "call-1" })], { stopReason: "toolUse" }),
		fauxAssistantMessage("answer 1"),
		fauxAssistantMessage("answer 2"),
		fauxAssistantMessage("answer 3"),
	]);
	const running = harness.session.prompt("run the tests");
	await started.promise;
	await harness.session.followUp("then update the docs");
	return { harness, answerRequests, running, finishTool: finish.release };
}

describe("pi#9886: clearQueue() silently destroys the custom messages extensions queued", () => {
	it.each(["steer", "followUp"] as const)(
		"pi#9886: a custom message an extension queued with deliverAs %s survives clearQueue(): it returns only the user's text, and the run delivers the custom message once",
		async (deliverAs) => {
			const { harness, answerRequests, running, finishTool } = await ciMessageQueued(deliverAs);
			expect(harness.session.clearQueue()).toEqual({ steering: [], followUp: ["then update the docs"] });
			finishTool();
			await running;

			// A steer joins the request after the tool result; a follow-up gets its own once the run would stop.
			expect(answerRequests.map((request) => userTexts(request))).toEqual(
				deliverAs === "steer"
					? [["run the tests"], ["run the tests", "CI: build 42 failed"]]
					: [["run the tests"], ["run the tests"], ["run the tests", "CI: build 42 failed"]],
			);
			const file = harness.session.sessionFile!;
			expect(persistedRoles(file)).toEqual(
				deliverAs === "steer"
					? ["user", "assistant", "toolResult", "custom:ci", "assistant"]
					: ["user", "assistant", "toolResult", "assistant", "custom:ci", "assistant"],
			);
			expect(timesPersisted(file, "then update the docs")).toBe(0);
			expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		},
	);

	it("pi#9886: clearQueue() then abort (Esc, RPC clear_queue + abort): the extension's custom message stays queued and the next prompt's run delivers it once", async () => {
		const { harness, answerRequests, running, finishTool } = await ciMessageQueued("followUp");
		expect(harness.session.clearQueue()).toEqual({ steering: [], followUp: ["then update the docs"] });
		await harness.session.abort();
		await running;
		finishTool();

		await harness.session.prompt("fix the build");
		const texts = answerRequests.map((request) => userTexts(request).slice(1));
		expect(texts.at(-1)).toEqual(["fix the build", "CI: build 42 failed"]);
		expect(texts.flat().filter((text) => text === "CI: build 42 failed")).toHaveLength(1);
		const file = harness.session.sessionFile!;
		expect(persistedRoles(file).filter((role) => role === "custom:ci")).toHaveLength(1);
		expect(timesPersisted(file, "then update the docs")).toBe(0);
		expect(harness.session.pendingMessageCount).toBe(0);
	});
});
