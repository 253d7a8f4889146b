/**
 * pi's test-harness surface (behavior H.2): the `models` option and field, and the text helpers
 * `getMessageText` / `getUserTexts` / `getAssistantTexts` (text blocks joined with newlines).
 */
import { afterEach, describe, expect, it } from "vitest";
import {
	createHarness,
	fauxAssistantMessage,
	fauxText,
	fauxThinking,
	fauxToolCall,
	getAssistantTexts,
	getMessageText,
	getUserTexts,
	type Harness,
} from "../../src/testing/index.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("createHarness: pi's helpers", () => {
	it("models: the given faux models, the first one selected, all on h.models", async () => {
		h = await createHarness({
			models: [
				{ id: "small", contextWindow: 1000 },
				{ id: "big", reasoning: true },
			],
		});
		expect(h.models.map((model) => [model.id, model.contextWindow, model.reasoning])).toEqual([
			["small", 1000, false],
			["big", 128000, true],
		]);
		expect(h.session.model?.id).toBe("small");
		expect(h.getModel("big")).toBe(h.models[1]);
	});

	it("getUserTexts / getAssistantTexts: one text per message of that role, text blocks joined with newlines", async () => {
		h = await createHarness();
		h.setResponses([
			fauxAssistantMessage([fauxThinking("hmm"), fauxText("first"), fauxText("second")]),
			fauxAssistantMessage([fauxToolCall("nothing", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("hello");
		await h.session.prompt("again", {
			images: [
				{
					type: "image",
					data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
					mimeType: "image/png",
				},
			],
		});
		expect(getUserTexts(h)).toEqual(["hello", "again"]);
		expect(getAssistantTexts(h)).toEqual(["first\nsecond", "", "done"]);
	});

	it("getMessageText: a string content as is; no content or a non-object gives an empty string", () => {
		expect(getMessageText({ role: "user", content: "plain", timestamp: 0 })).toBe("plain");
		expect(
			getMessageText({
				role: "toolResult",
				content: [
					{ type: "text", text: "a" },
					{ type: "text", text: "b" },
				],
			}),
		).toBe("a\nb");
		expect(getMessageText({ role: "custom" })).toBe("");
		expect(getMessageText(undefined)).toBe("");
	});
});
