/**
 * oh-my-pi#1785: a `write` of a page over 1,000 lines outgrew the model's output cap; the provider
 * cut the stream mid-`content` and reported `finish_reason: "length"`, the half-string arguments
 * were repaired into a shorter `content`, and the write ran: the target file was replaced by its
 * first part, and the same happened on every retry. Replayed over a local OpenAI chat-completions
 * server through pi-ai's own client, on a real file. Settle refuses such a call twice over: for the
 * `length` stop, and for arguments that are not complete JSON (pi#6284).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import { type SseEvent, sse } from "../llm/wire/server.js";
import { lastAssistant, useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

/** A chat-completion chunk with `choices`, as the API streams it. */
function chunk(choices: unknown[], extra: Record<string, unknown> = {}): SseEvent {
	return {
		data: {
			id: "chatcmpl-WireTest",
			object: "chat.completion.chunk",
			created: 1_764_000_000,
			model: "gpt-wire-1",
			choices,
			...extra,
		},
	};
}

/**
 * A `write` call whose JSON arguments stream in 4 KB pieces and stop after `sentChars` characters,
 * mid-`content`: then `finish_reason: "length"` with the whole output budget used, as a provider
 * ends an answer at its output cap.
 */
function writeCutAtOutputCap(path: string, content: string, sentChars: number): SseEvent[] {
	const delta = (value: Record<string, unknown>) =>
		chunk([{ index: 0, delta: value, logprobs: null, finish_reason: null }]);
	const argumentsText = JSON.stringify({ path, content }).slice(0, sentChars);
	const pieces: SseEvent[] = [];
	for (let at = 0; at < argumentsText.length; at += 4096) {
		pieces.push(delta({ tool_calls: [{ index: 0, function: { arguments: argumentsText.slice(at, at + 4096) } }] }));
	}
	return [
		delta({ role: "assistant", content: "", refusal: null }),
		delta({
			tool_calls: [{ index: 0, id: "call_write_page", type: "function", function: { name: "write", arguments: "" } }],
		}),
		...pieces,
		chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "length" }]),
		chunk([], { usage: { prompt_tokens: 2_000, completion_tokens: 8_192, total_tokens: 10_192 } }),
		{ data: "[DONE]" },
	];
}

const lines = (count: number, label: string) =>
	Array.from({ length: count }, (_, index) => `  <Row id={${index + 1}} label="${label} ${index + 1}" />`).join("\n") +
	"\n";

describe("oh-my-pi#1785: a write cut off by the output cap runs with the truncated content", () => {
	it("oh-my-pi#1785: a 1,020-line write cut at the output cap is not run: page.tsx keeps its bytes, the model is told to re-issue the call, and its complete write lands", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		const page = join(w.dir, "page.tsx");
		const before = lines(600, "old");
		writeFileSync(page, before);
		const after = lines(1_020, "new");
		w.server.reply(
			sse(writeCutAtOutputCap("page.tsx", after, Math.floor(after.length * 0.8))),
			chatReply(
				[{ type: "tool_call", id: "call_write_again", name: "write", arguments: { path: "page.tsx", content: after } }],
				{
					finishReason: "tool_calls",
				},
			),
			chatReply([{ type: "text", text: "The page is written." }]),
		);
		await w.session.prompt("implement the page in page.tsx");

		const results = w.session.messages.filter((message) => message.role === "toolResult");
		expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
			["call_write_page", true],
			["call_write_again", false],
		]);
		expect(results[0]?.content).toEqual([
			{
				type: "text",
				text: expect.stringContaining('Tool call "write" was not executed: the response hit the output token limit'),
			},
		]);
		// The model was asked again with that result, then wrote the whole page.
		const second = w.server.requests[1]!.body.messages as { role: string; content: unknown }[];
		expect(second.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("Re-issue the tool call") });
		expect(readFileSync(page, "utf8")).toBe(after);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "The page is written." }] });
	});

	it("oh-my-pi#1785: with no second try (the model gives up), page.tsx keeps its bytes: the cut call is neither run for its length stop nor for its unfinished JSON", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		const page = join(w.dir, "page.tsx");
		const before = lines(600, "old");
		writeFileSync(page, before);
		const after = lines(1_020, "new");
		w.server.reply(
			sse(writeCutAtOutputCap("page.tsx", after, Math.floor(after.length / 2))),
			chatReply([{ type: "text", text: "The page is too long to write in one call." }]),
		);
		await w.session.prompt("implement the page in page.tsx");
		expect(readFileSync(page, "utf8")).toBe(before);
		// The saved call keeps what arrived; nothing in the file says it ran.
		const saved = w.entries().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
		expect(saved.filter((message) => message.role === "toolResult")).toEqual([
			expect.objectContaining({ toolCallId: "call_write_page", isError: true }),
		]);
	});
});
