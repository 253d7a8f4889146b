/**
 * Regression: a `tool_result` handler returning `content` that is not an array was applied as is.
 * The tool result message was stored with string content, and the session broke later: compaction
 * failed with `message.content.map is not a function` (found by pi-differential.property.test.ts;
 * pi 0.73.1 has the same defect). Now the field is ignored and reported to `onError`, like a
 * `context` handler's messages that are not an array.
 */
import { describe, expect, it } from "vitest";
import { createPeer } from "../parity/peers.js";
import { runnerWith, withoutStacks } from "./helpers.js";
import { programTools } from "./pi-differential-program.js";

/** The `tool_result` event of an `echo` call whose result is the text "orig". */
function echoResult() {
	return {
		type: "tool_result",
		toolName: "echo",
		toolCallId: "c1",
		input: { text: "a" },
		content: [{ type: "text", text: "orig" }],
		details: {},
		isError: false,
	} as never;
}

describe("tool_result handler returning content that is not an array", () => {
	it("is reported and ignored; later handlers and the result keep the previous content", async () => {
		const seen: unknown[] = [];
		const { runner, errors } = await runnerWith(
			(pi) => pi.on("tool_result", () => ({ content: "not a list" }) as never),
			(pi) =>
				pi.on("tool_result", (event) => {
					seen.push(event.content);
					return { details: { checked: true } };
				}),
		);
		const result = await runner.emitToolResult(echoResult());
		expect(result).toEqual({ content: [{ type: "text", text: "orig" }], details: { checked: true }, isError: false });
		expect(seen).toEqual([[{ type: "text", text: "orig" }]]);
		expect(withoutStacks(errors)).toEqual([
			{
				extensionPath: "<inline:1>",
				event: "tool_result",
				error: "A tool_result handler returned content that is not an array; it was ignored.",
			},
		]);
	});

	it("a list holding something other than content blocks ([42]) is reported and ignored (stored, appendMessage would refuse it and end the run)", async () => {
		const { runner, errors } = await runnerWith((pi) =>
			pi.on("tool_result", () => ({ content: [42, { type: "audio" }] }) as never),
		);
		const result = await runner.emitToolResult(echoResult());
		expect(result).toBeUndefined();
		expect(withoutStacks(errors)).toEqual([
			{
				extensionPath: "<inline:1>",
				event: "tool_result",
				error:
					"A tool_result handler returned content holding something other than text, image, thinking or toolCall blocks; it was ignored.",
			},
		]);
	});

	it("leaves the stored tool result intact, so a later compaction succeeds", async () => {
		const errors: string[] = [];
		const peer = await createPeer("settle", {
			customTools: programTools(),
			settings: { compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 5 } },
			extensions: [(api) => void api.on("tool_result", () => ({ content: "not a list" }) as never)],
			onError: (error) => void errors.push(error.error),
		});
		try {
			peer.script([
				{ toolCalls: [{ id: "call-1", name: "echo", args: { text: "hi" } }] },
				{ text: "answer 0" },
				{ text: "answer 1" },
				{ text: "answer 2" },
				{ text: "summary" },
			]);
			await peer.prompt("question 1");
			await peer.prompt("question 2");
			await peer.prompt("question 3");
			await expect(peer.session.compact()).resolves.toBeDefined();
			const results = peer
				.fileEntries()
				.flatMap((entry) => ((entry.message as { role?: string })?.role === "toolResult" ? [entry.message] : []));
			expect(results).toMatchObject([{ content: [{ type: "text", text: "echoed: hi" }], isError: false }]);
			expect(errors).toEqual(["A tool_result handler returned content that is not an array; it was ignored."]);
		} finally {
			peer.cleanup();
		}
	});
});
