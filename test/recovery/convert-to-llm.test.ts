import { convertToLlm as piConvertToLlm } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { AgentMessage, UserMessage } from "../../src/llm/types.js";
import {
	bashExecutionToText,
	convertMessageToLlm,
	convertToLlm,
	IMAGE_BLOCKED_TEXT,
	pairToolResults,
} from "../../src/session/convert-to-llm.js";
import type { BashExecutionMessage } from "../../src/session/messages.js";
import { assistant } from "./helpers.js";

/** A real 1×1 PNG: data that is no image is left out of requests. */
const image = {
	type: "image" as const,
	data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
	mimeType: "image/png",
};

function bash(partial: Partial<BashExecutionMessage> = {}): BashExecutionMessage {
	return {
		role: "bashExecution",
		command: "npm test",
		output: "ok",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: 5,
		...partial,
	};
}

const textOf = (message: AgentMessage) =>
	((convertMessageToLlm(message) as UserMessage).content as { text: string }[])[0]!.text;

describe("bashExecution → user text (C.7)", () => {
	it("fences the output", () => {
		expect(bashExecutionToText(bash())).toBe("Ran `npm test`\n```\nok\n```");
	});

	it("says (no output) for empty output", () => {
		expect(bashExecutionToText(bash({ output: "" }))).toBe("Ran `npm test`\n(no output)");
	});

	it("reports cancellation instead of the exit code", () => {
		expect(bashExecutionToText(bash({ cancelled: true, exitCode: 130 }))).toBe(
			"Ran `npm test`\n```\nok\n```\n\n(command cancelled)",
		);
	});

	it("a command holding backticks gets a longer inline fence, as markdown reads it: a single backtick closed early on `` echo `date` ``", () => {
		expect(bashExecutionToText(bash({ command: "echo `date`" }))).toBe("Ran `` echo `date` ``\n```\nok\n```");
		expect(bashExecutionToText(bash({ command: "echo `date` ``x``" }))).toBe(
			"Ran ``` echo `date` ``x`` ```\n```\nok\n```",
		);
		expect(bashExecutionToText(bash({ command: "a ` b" }))).toBe("Ran ``a ` b``\n```\nok\n```");
	});

	it("a command stopped by its timeout tells the model it timed out, not that it was cancelled", () => {
		expect(bashExecutionToText(bash({ cancelled: true, exitCode: undefined, timedOutAfter: 5 }))).toBe(
			"Ran `npm test`\n```\nok\n```\n\nCommand timed out after 5 seconds",
		);
		expect(bashExecutionToText(bash({ cancelled: true, exitCode: undefined, timedOutAfter: 1 }))).toMatch(
			/\n\nCommand timed out after 1 second$/,
		);
	});

	it("reports a non-zero exit code", () => {
		expect(bashExecutionToText(bash({ exitCode: 2 }))).toBe(
			"Ran `npm test`\n```\nok\n```\n\nCommand exited with code 2",
		);
		expect(bashExecutionToText(bash({ exitCode: undefined }))).toBe("Ran `npm test`\n```\nok\n```");
	});

	it("adds the truncation note: naming the full-output file, or saying none was saved (antirez/ds4#680)", () => {
		expect(bashExecutionToText(bash({ truncated: true, fullOutputPath: "/tmp/out.log", exitCode: 1 }))).toBe(
			"Ran `npm test`\n```\nok\n```\n\nCommand exited with code 1\n\n[Output truncated. Full output: /tmp/out.log]",
		);
		expect(bashExecutionToText(bash({ truncated: true }))).toBe(
			"Ran `npm test`\n```\nok\n```\n\n[Output truncated: only its end is shown. The full output could not be saved.]",
		);
	});

	it("is a user message with the execution's timestamp, dropped when excluded from context", () => {
		expect(convertMessageToLlm(bash())).toEqual({
			role: "user",
			content: [{ type: "text", text: "Ran `npm test`\n```\nok\n```" }],
			timestamp: 5,
		});
		expect(convertMessageToLlm(bash({ excludeFromContext: true }))).toBeUndefined();
	});
});

describe("summaries → user messages with the D.2 wrappers", () => {
	it("wraps a compaction summary", () => {
		expect(textOf({ role: "compactionSummary", summary: "S", tokensBefore: 10, timestamp: 1 })).toBe(
			"The conversation history before this point was compacted into the following summary:\n\n<summary>\nS\n</summary>",
		);
	});

	it("wraps a branch summary", () => {
		expect(textOf({ role: "branchSummary", summary: "B", fromId: "abc", timestamp: 1 })).toBe(
			"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nB</summary>",
		);
	});
});

describe("convertToLlm", () => {
	const transcript: AgentMessage[] = [
		{ role: "system", content: "You are terse.", timestamp: 0 },
		{ role: "user", content: "hi", timestamp: 1 },
		assistant({ text: "hello", timestamp: 2 }),
		{
			role: "toolResult",
			toolCallId: "t",
			toolName: "read",
			content: [{ type: "text", text: "x" }],
			isError: false,
			timestamp: 3,
		},
		{ role: "custom", customType: "note", content: "remember", display: false, timestamp: 4 },
		{ role: "custom", customType: "pic", content: [{ type: "text", text: "see" }, image], display: true, timestamp: 4 },
		bash(),
		bash({ excludeFromContext: true }),
		{ role: "compactionSummary", summary: "S", tokensBefore: 10, timestamp: 6 },
		{ role: "branchSummary", summary: "B", fromId: "abc", timestamp: 7 },
	];

	it("passes user, assistant and tool results through as the same objects", () => {
		const converted = convertToLlm(transcript);
		expect(converted[0]).toBe(transcript[1]);
		expect(converted[1]).toBe(transcript[2]);
		expect(converted[2]).toBe(transcript[3]);
	});

	it("turns custom string content into one text block", () => {
		expect(convertToLlm(transcript)[3]).toEqual({
			role: "user",
			content: [{ type: "text", text: "remember" }],
			timestamp: 4,
		});
	});

	it("drops system messages and excluded bash executions", () => {
		expect(convertToLlm(transcript).map((message) => message.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"user",
			"user",
			"user",
			"user",
			"user",
		]);
	});

	it("produces exactly what pi 0.73.1 produces for the roles pi knows", () => {
		const piKnown = transcript.filter((message) => message.role !== "system");
		expect(convertToLlm(piKnown)).toEqual(piConvertToLlm(piKnown as never));
	});
});

describe("blockImages", () => {
	it("replaces images in user and tool-result content and collapses consecutive placeholders", () => {
		const message: AgentMessage = {
			role: "user",
			content: [image, image, { type: "text", text: "look" }, image],
			timestamp: 1,
		};
		expect(convertMessageToLlm(message, { blockImages: true })).toEqual({
			role: "user",
			content: [
				{ type: "text", text: IMAGE_BLOCKED_TEXT },
				{ type: "text", text: "look" },
				{ type: "text", text: IMAGE_BLOCKED_TEXT },
			],
			timestamp: 1,
		});
		const result: AgentMessage = {
			role: "toolResult",
			toolCallId: "t",
			toolName: "read",
			content: [image],
			isError: false,
			timestamp: 1,
		};
		expect(convertMessageToLlm(result, { blockImages: true })).toMatchObject({
			role: "toolResult",
			content: [{ type: "text", text: "Image reading is disabled." }],
		});
		// The original is untouched.
		expect(result.content).toEqual([image]);
	});

	it("applies to custom messages (they become user messages)", () => {
		const converted = convertMessageToLlm(
			{ role: "custom", customType: "pic", content: [image], display: true, timestamp: 1 },
			{ blockImages: true },
		);
		expect(converted).toEqual({ role: "user", content: [{ type: "text", text: IMAGE_BLOCKED_TEXT }], timestamp: 1 });
	});

	it("leaves messages without images as the same objects", () => {
		const message: AgentMessage = { role: "user", content: [{ type: "text", text: "plain" }], timestamp: 1 };
		expect(convertMessageToLlm(message, { blockImages: true })).toBe(message);
		const reply = assistant({ text: "plain" });
		expect(convertMessageToLlm(reply, { blockImages: true })).toBe(reply);
	});
});

describe("image blocks checked once per block", () => {
	it("an image block whose data an extension replaces after a request is checked again", () => {
		const block = { type: "image" as const, data: image.data, mimeType: "image/png" };
		const message: AgentMessage = { role: "user", content: [block], timestamp: 1 };
		expect(convertMessageToLlm(message)).toBe(message);
		block.data = "not base64!";
		expect(convertMessageToLlm(message)).toEqual({
			role: "user",
			content: [{ type: "text", text: "[Image omitted: its data is not base64.]" }],
			timestamp: 1,
		});
		block.data = image.data;
		expect(convertMessageToLlm(message)).toBe(message);
	});
});

describe("pairToolResults", () => {
	const call = (id: string) => ({ type: "toolCall" as const, id, name: "read", arguments: {} });
	const result = (toolCallId: string): AgentMessage => ({
		role: "toolResult",
		toolCallId,
		toolName: "read",
		content: [{ type: "text", text: `out ${toolCallId}` }],
		isError: false,
		timestamp: 2,
	});
	const convert = () => pairToolResults((messages) => convertToLlm(messages));

	it("passes on the converter's own array when a result answers an earlier answer than the last (nothing copied)", () => {
		const messages: AgentMessage[] = [
			{ role: "user", content: "go", timestamp: 1 },
			assistant({ toolCalls: [call("a")] }),
			assistant({ toolCalls: [call("b")] }),
			result("a"),
			result("b"),
		];
		let converted = convertToLlm(messages);
		const request = pairToolResults(() => converted);
		expect(request(messages)).toBe(converted);
		messages.push(assistant({ text: "done" }), result("a"));
		converted = [...converted, ...convertToLlm(messages.slice(-2))];
		expect(request(messages)).toBe(converted);
	});

	it("leaves out a result whose call comes after it or nowhere, and keeps the rest", () => {
		const messages: AgentMessage[] = [
			{ role: "user", content: "go", timestamp: 1 },
			result("b"),
			assistant({ toolCalls: [call("a"), call("b")] }),
			result("a"),
			result("c"),
			result("b"),
		];
		expect(convert()(messages)).toEqual([messages[0], messages[2], messages[3], messages[5]]);
	});
});
