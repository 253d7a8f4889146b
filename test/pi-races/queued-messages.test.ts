/**
 * Reports about messages queued while the agent works, replayed through the SDK on a real disk
 * session and the scripted faux model:
 *
 * - vscode#298324: several steering messages sent while a tool ran: only the first was sent, the
 *   chat then waited for ever for the rest. With `steeringMode: "all"` (and images on some of
 *   them) every steer should reach the model in the one request after the tool, in send order.
 * - minga#675, archive#176: a steer sent just as the agent finished (its last answer streamed, the
 *   run not yet ended) stayed in the queue for good, or the run exited without it. It should be
 *   answered by one more turn of the same operation, saved once.
 * - openclaw#117810: `/compact` deleted the follow-ups already accepted as queued, with no word.
 *   A follow-up kept after Stop should survive a manual compaction and reach the next run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context, ImageContent } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { encodeImage } from "../tools/image-resize-helpers.js";
import {
	blockingTool,
	comparable,
	fileEntries,
	gate,
	gatedTool,
	persistedUserTexts,
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

/** The images of a request's user messages, per message (text-only messages give 0). */
function imagesPerUserMessage(context: Context): number[] {
	return context.messages
		.filter((message) => message.role === "user")
		.map((message) =>
			typeof message.content === "string" ? 0 : message.content.filter((block) => block.type === "image").length,
		);
}

function png(seed: number): ImageContent {
	return { type: "image", data: encodeImage("png", 24, 24, seed).toString("base64"), mimeType: "image/png" };
}

describe("vscode#298324: several steers while a tool runs, only the first sent", () => {
	it('vscode#298324: three steers (two with images) sent while a tool runs, steeringMode "all": the one request after the tool carries all three in order, nothing is left waiting', async () => {
		const toolStarted = gate();
		const toolDone = gate();
		h = await createHarness({
			persistence: "disk",
			tools: [gatedTool(toolStarted.release, toolDone.promise)],
		});
		const harness = h;
		harness.session.setSteeringMode("all");
		const { answerRequests } = script(harness, [
			fauxAssistantMessage([fauxToolCall("run_tests", {}, { id: "call-1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("fixed the three things"),
		]);
		const running = harness.session.prompt("run the tests");
		await toolStarted.promise;
		const sent = [
			harness.session.steer("also check the linter"),
			harness.session.steer("this screenshot shows the failure", [png(1)]),
			harness.session.steer("and this one, after the fix", [png(2)]),
		];
		expect(await Promise.all(sent)).toEqual(["queued", "queued", "queued"]);
		expect(harness.session.getSteeringMessages()).toHaveLength(3);
		toolDone.release();
		await running;

		// Two requests: the prompt's, and the one after the tool result with every steer in it.
		expect(answerRequests).toHaveLength(2);
		const after = answerRequests[1]!;
		const last = after.messages.at(-4);
		expect(last?.role).toBe("toolResult");
		expect(userTexts(after).slice(1)).toEqual([
			"also check the linter",
			expect.stringMatching(/^this screenshot shows the failure/),
			expect.stringMatching(/^and this one, after the fix/),
		]);
		expect(imagesPerUserMessage(after)).toEqual([0, 0, 1, 1]);
		expect(harness.session.pendingMessageCount).toBe(0);
		expect(harness.session.getSteeringMessages()).toEqual([]);
		expect(harness.session.isIdle).toBe(true);

		const file = harness.session.sessionFile!;
		expect(persistedUserTexts(file).map((text) => text.split("\n")[0])).toEqual([
			"run the tests",
			"also check the linter",
			"this screenshot shows the failure",
			"and this one, after the fix",
		]);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});

describe("minga#675, archive#176: a steer sent as the agent finishes", () => {
	it.each([
		["message_end", "its last answer has streamed"],
		["agent_end", "the agent loop has ended, the operation not yet settled"],
	] as const)(
		"minga#675 / archive#176: a steer sent on %s (%s) is answered by one more turn of the same operation and saved once",
		async (when, _moment) => {
			h = await createHarness({ persistence: "disk" });
			const harness = h;
			const { answerRequests } = script(harness, [
				fauxAssistantMessage("all done"),
				fauxAssistantMessage("added the changelog entry"),
			]);
			let steered: Promise<string> | undefined;
			let settled = 0;
			harness.session.subscribe((event) => {
				const now =
					when === "message_end"
						? event.type === "message_end" && event.message.role === "assistant"
						: event.type === "agent_end";
				if (now && !steered) {
					steered = harness.session.steer("wait, also add a changelog entry");
				}
				if (event.type === "agent_settled") settled++;
			});
			await harness.session.prompt("bump the version");
			expect(await steered).toBe("queued");

			expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual([
				"bump the version",
				"wait, also add a changelog entry",
			]);
			expect(settled).toBe(1);
			expect(harness.session.pendingMessageCount).toBe(0);
			expect(harness.session.isIdle).toBe(true);
			const file = harness.session.sessionFile!;
			expect(timesPersisted(file, "wait, also add a changelog entry")).toBe(1);
			expect(persistedUserTexts(file)).toEqual(["bump the version", "wait, also add a changelog entry"]);
			expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		},
	);
});

describe("openclaw#117810: /compact deletes the queued follow-ups", () => {
	it("openclaw#117810: a follow-up kept queued after Stop survives compact(): still listed, then delivered once by the next prompt's run, after the summary", async () => {
		const toolStarted = gate();
		h = await createHarness({
			persistence: "disk",
			tools: [blockingTool(toolStarted.release)],
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		const harness = h;
		const { answerRequests, summaryRequests } = script(harness, [
			fauxAssistantMessage("the build is green"),
			fauxAssistantMessage([fauxToolCall("wait_for_ci", {}, { id: "call-1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("answered the new prompt"),
			fauxAssistantMessage("answered the follow-up"),
		]);
		await harness.session.prompt("check the build");
		const running = harness.session.prompt("wait for CI");
		await toolStarted.promise;
		const stopping = harness.session.abort();
		const queued = harness.session.followUp("then deploy to staging");
		await stopping;
		await running;
		expect(await queued).toBe("queued");
		expect(harness.session.getFollowUpMessages()).toEqual(["then deploy to staging"]);

		await harness.session.compact();
		expect(summaryRequests.length).toBeGreaterThan(0);
		expect(fileEntries(harness.session.sessionFile!).filter((entry) => entry.type === "compaction")).toHaveLength(1);
		// Not deleted, not sent by the compaction.
		expect(harness.session.getFollowUpMessages()).toEqual(["then deploy to staging"]);
		expect(harness.session.pendingMessageCount).toBe(1);
		expect(answerRequests).toHaveLength(2);

		await harness.session.prompt("status?");
		expect(harness.session.pendingMessageCount).toBe(0);
		expect(answerRequests.slice(2).map((request) => userTexts(request).at(-1))).toEqual([
			"status?",
			"then deploy to staging",
		]);
		const file = harness.session.sessionFile!;
		expect(timesPersisted(file, "then deploy to staging")).toBe(1);
		expect(persistedUserTexts(file)).toEqual(["check the build", "wait for CI", "status?", "then deploy to staging"]);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});
