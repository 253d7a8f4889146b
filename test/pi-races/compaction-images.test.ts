/**
 * openclaw#111856: compaction summarized the raw history, base64 images and all: a session whose
 * tool results attached generated images inline (a screenshot tool, an image generator) sent every
 * image's bytes to the summarizer, a 2M-token request for a summary, while the turns themselves
 * stayed small. What that user should see: the summarizer gets the conversation as text — an image
 * named, never its bytes — for a manual compaction and for a branch summary alike. Replayed through
 * the SDK harness on a real session file; the summarization requests are read as the faux model
 * received them.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/**
 * A 200 KB base64 payload that cannot appear by chance: a 1×1 PNG's header (data that is no image
 * is left out of requests), a marker, then filler.
 */
const IMAGE_DATA = `iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJSU1BR0VCWVRFUw${"A".repeat(200_000)}`;

function requestText(context: Context): string {
	return JSON.stringify(context.messages) + (context.systemPrompt ?? "");
}

describe("openclaw#111856: compaction sends the history's base64 images to the summarizer", () => {
	it("openclaw#111856: compact() and a summarized tree navigation after image tool results and a pasted image: the summary requests carry no image bytes", async () => {
		h = await createHarness({
			persistence: "disk",
			// Keep only the latest turn; compaction stays manual (the window is the faux default).
			settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.registerTool({
						name: "screenshot",
						label: "screenshot",
						description: "Takes a screenshot",
						parameters: { type: "object", properties: {} },
						execute: async () => ({
							content: [
								{ type: "text", text: "captured the login page" },
								{ type: "image", data: IMAGE_DATA, mimeType: "image/png" },
							],
							details: {},
						}),
					}),
			],
		});
		const harness = h;
		const { summaryRequests, answerRequests } = script(harness, [
			fauxAssistantMessage([fauxToolCall("screenshot", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("the login button is red"),
			fauxAssistantMessage("still red"),
			fauxAssistantMessage("on the other branch"),
		]);
		await harness.session.prompt("screenshot the login page");
		await harness.session.prompt("and this one?", {
			images: [{ type: "image", data: IMAGE_DATA, mimeType: "image/png" }],
		});
		// The model did get the images: the bytes were in its requests.
		expect(requestText(answerRequests.at(-1)!)).toContain(IMAGE_DATA);

		await harness.session.compact();
		const compaction = summaryRequests.map(requestText);
		expect(compaction.length).toBeGreaterThan(0);
		expect(compaction.join("\n")).toContain("captured the login page");
		for (const request of compaction) {
			expect(request).not.toContain("SU1BR0VCWVRFUw");
			expect(request.length).toBeLessThan(50_000);
		}

		// A branch summary of the abandoned path (oh-my-pi#4011's tool results included) carries no bytes either.
		await harness.session.prompt("one more");
		const firstUser = harness.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "user");
		await harness.session.navigateTree(firstUser!.id, { summarize: true });
		const branch = summaryRequests.slice(compaction.length).map(requestText);
		expect(branch).toHaveLength(1);
		expect(branch[0]).toContain("[Tool result]");
		expect(branch[0]).not.toContain("SU1BR0VCWVRFUw");
		expect(branch[0]!.length).toBeLessThan(50_000);
	});
});
