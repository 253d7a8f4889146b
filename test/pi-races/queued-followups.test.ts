/**
 * Reports about follow-ups queued while the agent works, replayed through the SDK on a real disk
 * session and the scripted faux model:
 *
 * - openclaw#34041: messages sent quickly while the agent was busy were queued, then delivered
 *   twice once it was free: the agent answered each twice. Each follow-up should reach the model
 *   once (never twice in one request), get one answer, and be saved once, in either follow-up mode.
 * - pneuma-skills#76: a message with images sent while the agent was busy was queued; when it was
 *   dequeued and sent, the images were missing. The request that delivers it, and the session file,
 *   should carry its image, whichever call queued it, also when an abort kept it for the next prompt.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage, Context, ImageContent } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { encodeImage } from "../tools/image-resize-helpers.js";
import {
	comparable,
	fileEntries,
	gate,
	gatedTool,
	persistedUserTexts,
	reopenedContext,
	script,
	userTexts,
} from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

function png(seed: number): ImageContent {
	return { type: "image", data: encodeImage("png", 24, 24, seed).toString("base64"), mimeType: "image/png" };
}

/** The images of a message's content (0 for a string or another role). */
function imagesOf(message: AgentMessage | undefined): ImageContent[] {
	if (message?.role !== "user" || typeof message.content === "string") return [];
	return message.content.filter((block): block is ImageContent => block.type === "image");
}

/** Per user message of a request: its text and how many images it carries. */
function userMessages(context: Context): [string, number][] {
	const texts = userTexts(context);
	return context.messages
		.filter((message) => message.role === "user")
		.map((message, index) => [texts[index]!.split("\n")[0]!, imagesOf(message).length]);
}

/** A disk session whose first answer calls the gated tool; resolves once the tool runs. */
async function whileToolRuns(answers: number) {
	const started = gate();
	const finish = gate();
	h = await createHarness({ persistence: "disk", tools: [gatedTool(started.release, finish.promise)] });
	const harness = h;
	const { answerRequests } = script(harness, [
		fauxAssistantMessage([fauxToolCall("run_tests", {}, { id: "call-1" })], { stopReason: "toolUse" }),
		...Array.from({ length: answers }, (_, index) => fauxAssistantMessage(`answer ${index + 1}`)),
	]);
	const running = harness.session.prompt("run the tests");
	await started.promise;
	return { harness, answerRequests, running, finishTool: finish.release };
}

describe("openclaw#34041: queued messages delivered twice", () => {
	it.each([
		[
			"one-at-a-time",
			[
				["run the tests"],
				["run the tests"],
				["run the tests", "fix a"],
				["run the tests", "fix a", "fix b"],
				["run the tests", "fix a", "fix b", "fix c"],
			],
		],
		["all", [["run the tests"], ["run the tests"], ["run the tests", "fix a", "fix b", "fix c"]]],
	] as const)(
		"openclaw#34041: three follow-ups sent quickly while a tool runs (followUpMode %s): each reaches the model once, is answered once and saved once; the next prompt does not send them again",
		async (mode, requests) => {
			const { harness, answerRequests, running, finishTool } = await whileToolRuns(6);
			harness.session.setFollowUpMode(mode);
			const sent = ["fix a", "fix b", "fix c"].map((text) => harness.session.followUp(text));
			expect(await Promise.all(sent)).toEqual(["queued", "queued", "queued"]);
			finishTool();
			await running;
			expect(answerRequests.map(userTexts)).toEqual(requests);
			// One answer per request: the prompt's two, then one per follow-up request.
			const answers = harness.session.messages.filter((message) => message.role === "assistant");
			expect(answers).toHaveLength(requests.length);
			expect(harness.session.pendingMessageCount).toBe(0);

			await harness.session.prompt("anything else?");
			expect(userTexts(answerRequests.at(-1)!)).toEqual(["run the tests", "fix a", "fix b", "fix c", "anything else?"]);
			const file = harness.session.sessionFile!;
			expect(persistedUserTexts(file)).toEqual(["run the tests", "fix a", "fix b", "fix c", "anything else?"]);
			expect(harness.eventsOfType("agent_settled")).toHaveLength(2);
			expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		},
	);
});

describe("pneuma-skills#76: a queued message loses its images when it is sent", () => {
	it.each(["followUp()", "prompt() with streamingBehavior", "sendUserMessage(…, { deliverAs })"] as const)(
		"pneuma-skills#76: a follow-up with an image queued with %s while a tool runs: the request that delivers it and the session file carry the image",
		async (how) => {
			const { harness, answerRequests, running, finishTool } = await whileToolRuns(2);
			const image = png(7);
			if (how === "followUp()") await harness.session.followUp("this screenshot shows the bug", [image]);
			else if (how.startsWith("prompt"))
				await harness.session.prompt("this screenshot shows the bug", {
					streamingBehavior: "followUp",
					images: [image],
				});
			else
				await harness.session.sendUserMessage([{ type: "text", text: "this screenshot shows the bug" }, image], {
					deliverAs: "followUp",
				});
			expect(harness.session.getFollowUpMessages()).toEqual(["this screenshot shows the bug"]);
			finishTool();
			await running;

			expect(answerRequests.map(userMessages)).toEqual([
				[["run the tests", 0]],
				[["run the tests", 0]],
				[
					["run the tests", 0],
					["this screenshot shows the bug", 1],
				],
			]);
			const delivered = answerRequests[2]!.messages.filter((message) => message.role === "user").at(-1);
			expect(imagesOf(delivered)[0]).toEqual(image);
			const file = harness.session.sessionFile!;
			const saved = fileEntries(file).filter((entry) => entry.message?.role === "user");
			expect(saved.map((entry) => imagesOf(entry.message))).toEqual([[], [image]]);
			expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		},
	);

	it("pneuma-skills#76: a follow-up with an image kept queued by an abort is delivered with its image by the next prompt's run", async () => {
		const { harness, answerRequests, running, finishTool } = await whileToolRuns(2);
		const image = png(8);
		await harness.session.followUp("compare with this screenshot", [image]);
		await harness.session.abort();
		await running;
		finishTool();
		expect(harness.session.getFollowUpMessages()).toEqual(["compare with this screenshot"]);

		await harness.session.prompt("go on");
		expect(answerRequests.slice(1).map(userMessages)).toEqual([
			[
				["run the tests", 0],
				["go on", 0],
			],
			[
				["run the tests", 0],
				["go on", 0],
				["compare with this screenshot", 1],
			],
		]);
		const file = harness.session.sessionFile!;
		const saved = fileEntries(file).filter((entry) => entry.message?.role === "user");
		expect(saved.map((entry) => imagesOf(entry.message))).toEqual([[], [], [image]]);
		expect(harness.session.pendingMessageCount).toBe(0);
	});
});
