/**
 * The Responses stream repair of `response.incomplete` (langchain#33840), whatever the chunks the
 * network cut the stream into: every split of a real stream gives the same repaired text.
 */
import { describe, expect, it } from "vitest";
import { completedIncompleteStream } from "../../src/llm/responses-incomplete.js";

const SENT = [
	"event: response.output_text.delta",
	'data: {"type":"response.output_text.delta","delta":"the response.incomplete event ends it"}',
	"",
	"event: response.incomplete",
	'data: {"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}',
	"",
	"",
].join("\n");

const REPAIRED = SENT.replace("event: response.incomplete", "event: response.completed").replace(
	'{"type":"response.incomplete","response"',
	'{"type":"response.completed","response"',
);

async function repaired(chunks: Uint8Array[]): Promise<string> {
	const body = new ReadableStream<Uint8Array>({
		start(controller) {
			for (const chunk of chunks) controller.enqueue(chunk);
			controller.close();
		},
	});
	return new Response(completedIncompleteStream(body)).text();
}

describe("completedIncompleteStream", () => {
	it("langchain#33840: renames the incomplete event and its type, leaves the text that names it, at every split point", async () => {
		const bytes = new TextEncoder().encode(SENT);
		for (let at = 0; at <= bytes.length; at++) {
			expect(await repaired([bytes.slice(0, at), bytes.slice(at)])).toBe(REPAIRED);
		}
	});

	it('langchain4j#6181: an incomplete for "content_filter" goes on as response.failed (the client throws it), at every split point', async () => {
		const sent = SENT.replace('"max_output_tokens"', '"content_filter"');
		const failed = sent
			.replace("event: response.incomplete", "event: response.failed")
			.replace('{"type":"response.incomplete","response"', '{"type":"response.failed","response"');
		const bytes = new TextEncoder().encode(sent);
		expect(await repaired([bytes])).toBe(failed);
		for (let at = 0; at <= bytes.length; at++) {
			const text = await repaired([bytes.slice(0, at), bytes.slice(at)]);
			// The client reads the data's type; a cut between the event's two lines leaves its name `completed`.
			expect(text.replace("event: response.completed", "event: response.failed")).toBe(failed);
		}
	});

	it("passes a stream without the event through byte for byte, a last line without its newline too", async () => {
		const sent = 'data: {"type":"response.completed"}\n\ndata: [DONE]';
		const bytes = new TextEncoder().encode(sent);
		expect(await repaired([bytes.slice(0, 7), bytes.slice(7)])).toBe(sent);
	});
});
