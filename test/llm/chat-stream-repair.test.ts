/**
 * `repairedChatStream` on event-stream bytes as servers write them: the tool-call indexes a
 * client reads after it, with the body cut at every byte boundary a network may cut it.
 */
import { describe, expect, it } from "vitest";
import { repairedChatStream } from "../../src/llm/chat-stream-repair.js";

type Call = { index?: number; id?: string; function?: { name?: string; arguments?: string } };

const line = (calls: Call[]) =>
	`data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: calls } }] })}\n\n`;

/** The body through the repair, cut into pieces of `size` bytes: the text read back, and its calls' (index, id). */
async function indexesRead(body: string, size = body.length): Promise<{ text: string; calls: Call[] }> {
	const bytes = new TextEncoder().encode(body);
	const source = new ReadableStream<Uint8Array>({
		start(controller) {
			for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.slice(at, at + size));
			controller.close();
		},
	});
	const text = await new Response(repairedChatStream(source)).text();
	const calls = text
		.split("\n")
		.filter((l) => l.startsWith("data: {"))
		.flatMap(
			(l) =>
				(JSON.parse(l.slice(6)) as { choices?: { delta: { tool_calls?: Call[] } }[] }).choices?.[0]?.delta.tool_calls ??
				[],
		)
		.map(({ index, id }) => ({ index, ...(id ? { id } : {}) }));
	return { text, calls };
}

/** The data of each event in the repaired text, in order. */
const events = ({ text }: { text: string }) =>
	text
		.split("\n")
		.filter((l) => l.startsWith("data: "))
		.map((l) => l.slice(6));
const UNFINISHED = '{"error":{"message":"Stream ended without finish_reason","type":"stream_truncated"}}';

describe("repairedChatStream", () => {
	it("ollama#15457: calls with distinct ids at index 0 get 0, 1, 2, at any cut of the bytes", async () => {
		const body = [
			line([{ index: 0, id: "call_a", function: { name: "write", arguments: '{"path":"a"}' } }]),
			line([{ index: 0, id: "call_b", function: { name: "write", arguments: '{"path":"b"}' } }]),
			line([{ index: 0, id: "call_c", function: { name: "write", arguments: '{"path":"c"}' } }]),
			"data: [DONE]\n\n",
		].join("");
		for (const size of [body.length, 7, 1]) {
			expect((await indexesRead(body, size)).calls).toEqual([
				{ index: 0, id: "call_a" },
				{ index: 1, id: "call_b" },
				{ index: 2, id: "call_c" },
			]);
		}
	});

	it("a delta without an id at a reused index continues the call that took it last", async () => {
		const body = [
			line([{ index: 0, id: "call_a", function: { name: "bash", arguments: "" } }]),
			line([{ index: 0, function: { arguments: '{"command":"ls"}' } }]),
			line([{ index: 0, id: "call_b", function: { name: "bash", arguments: "" } }]),
			line([{ index: 0, function: { arguments: '{"command":"pwd"}' } }]),
		].join("");
		expect((await indexesRead(body)).calls).toEqual([
			{ index: 0, id: "call_a" },
			{ index: 0 },
			{ index: 1, id: "call_b" },
			{ index: 1 },
		]);
	});

	it("LangBot#2261: a call that starts without an id gets a call_ id of its own; its later deltas continue it without one", async () => {
		const body = [
			line([{ index: 0, function: { name: "bash", arguments: '{"command":' } }]),
			line([{ index: 0, function: { arguments: '"ls"}' } }]),
			line([{ index: 1, id: "", function: { name: "bash", arguments: '{"command":"pwd"}' } }]),
		].join("");
		const { calls } = await indexesRead(body);
		expect(calls).toMatchObject([{ index: 0 }, { index: 0 }, { index: 1 }]);
		expect(calls[0]!.id).toMatch(/^call_[a-f0-9]{24}$/);
		expect(calls[1]!.id).toBeUndefined();
		expect(calls[2]!.id).toMatch(/^call_[a-f0-9]{24}$/);
		expect(calls[2]!.id).not.toBe(calls[0]!.id);
	});

	it("ollama#15457 without ids: a name after complete arguments at index 0 starts a new call; a name before they are complete does not", async () => {
		const body = [
			line([{ index: 0, function: { name: "write", arguments: '{"path":"a"}' } }]),
			line([{ index: 0, function: { name: "write", arguments: '{"path":"b"}' } }]),
			line([{ index: 0, function: { name: "bash", arguments: '{"command":' } }]),
			line([{ index: 0, function: { name: "bash", arguments: '"ls"}' } }]),
		].join("");
		for (const size of [body.length, 9]) {
			const { calls } = await indexesRead(body, size);
			expect(calls.map((c) => c.index)).toEqual([0, 1, 2, 2]);
			expect(calls.map((c) => c.id?.slice(0, 5))).toEqual(["call_", "call_", "call_", undefined]);
			expect(new Set(calls.map((c) => c.id)).size).toBe(4);
		}
	});

	it("a server that repeats a call's id on each delta keeps that call at one index", async () => {
		const body = [
			line([{ index: 0, id: "call_a", function: { name: "bash", arguments: '{"command":' } }]),
			line([{ index: 0, id: "call_b", function: { name: "bash", arguments: '{"command":' } }]),
			line([{ index: 0, id: "call_b", function: { arguments: '"pwd"}' } }]),
		].join("");
		expect((await indexesRead(body)).calls).toEqual([
			{ index: 0, id: "call_a" },
			{ index: 1, id: "call_b" },
			{ index: 1, id: "call_b" },
		]);
	});

	it("lemonade#2826: a bare error body, with or without its last newline, becomes a data event; other bare objects stay", async () => {
		const error =
			'{"error":{"code":400,"message":"request (6009 tokens) exceeds the available context size (4096 tokens)"}}';
		for (const body of [error, `${error}\n`]) {
			for (const size of [body.length, 3]) {
				expect(events(await indexesRead(body, size))).toEqual([error, UNFINISHED]);
			}
		}
		const partial = '{"choices":[{"index":0,"delta":{"content":"partial"}}]}';
		expect(events(await indexesRead(`data: ${partial}\n\n${error}`, 4))).toEqual([partial, error, UNFINISHED]);
		const notAnError = '{"status":"loading model"}\n';
		expect((await indexesRead(notAnError)).text).toBe(`${notAnError}\n\ndata: ${UNFINISHED}\n\n`);
	});

	it("pi#8496: a stream closed with neither a finish_reason nor [DONE] ends with the error event; either one alone is a finished stream", async () => {
		const text = (content: string, finish: string | null) =>
			`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
		const cut = text("The answer is", null);
		for (const size of [cut.length, 5]) expect(events(await indexesRead(cut, size)).at(-1)).toBe(UNFINISHED);
		expect(events(await indexesRead(""))).toEqual([UNFINISHED]);
		// llama-cpp-python writes JSON with a space after each colon.
		const spaced = `${text("Done.", null)}data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n`;
		for (const body of [text("Done.", null) + text("", "stop"), spaced, `${text("Done.", null)}data: [DONE]\n\n`]) {
			for (const size of [body.length, 2]) expect((await indexesRead(body, size)).text).toBe(body);
		}
	});

	it("pi#8496: a last data line cut before its end is left out (the client printed it and failed on its JSON); one only missing its newline is kept", async () => {
		const first = '{"choices":[{"index":0,"delta":{"content":"The answer"},"finish_reason":null}]}';
		const cut = `data: ${first}\n\ndata: {"choices":[{"index":0,"delta":{"cont`;
		for (const size of [cut.length, 3]) expect(events(await indexesRead(cut, size))).toEqual([first, UNFINISHED]);
		const last = '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
		for (const body of [`data: ${first}\n\ndata: ${last}`, `data: ${first}\n\ndata:[DONE]`]) {
			expect((await indexesRead(body, 4)).text).toBe(body);
		}
	});

	it("a well-numbered stream and text lines come out byte for byte as they went in", async () => {
		const body = [
			'data: {"choices":[{"index":0,"delta":{"content":"tool_calls are next"}}]}\n\n',
			": keep-alive\n\n",
			line([
				{ index: 0, id: "call_a", function: { name: "bash", arguments: "" } },
				{ index: 1, id: "call_b", function: { name: "bash", arguments: "" } },
			]),
			line([{ index: 1, function: { arguments: "{}" } }]),
			"data: [DONE]\n\n",
		].join("");
		expect((await indexesRead(body, 5)).text).toBe(body);
	});
});
