import { describe, expect, it } from "vitest";
import {
	AssistantMessageEventStream,
	EventStream,
	instantStreamFn,
	streamFromMessage,
} from "../../src/llm/event-stream.js";
import type { AssistantMessageEvent } from "../../src/llm/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/testing/index.js";

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
	const out: T[] = [];
	for await (const item of iterable) out.push(item);
	return out;
}

describe("EventStream", () => {
	it("delivers events pushed before and after the consumer starts, then ends", async () => {
		const stream = new EventStream<number, number>(
			(n) => n < 0,
			(n) => n,
		);
		stream.push(1);
		const consumed = collect(stream);
		stream.push(2);
		stream.push(-1);
		stream.end();
		expect(await consumed).toEqual([1, 2, -1]);
		expect(await stream.result()).toBe(-1);
	});

	it("ignores pushes after the completing event", async () => {
		const stream = new EventStream<number, number>(
			(n) => n < 0,
			(n) => n,
		);
		stream.push(-5);
		stream.push(7);
		stream.end();
		expect(await collect(stream)).toEqual([-5]);
		expect(await stream.result()).toBe(-5);
	});

	it("rejects result() when ended without a final value instead of hanging", async () => {
		const stream = new EventStream<number, number>(
			() => false,
			(n) => n,
		);
		stream.push(1);
		stream.end();
		await expect(stream.result()).rejects.toThrow("Stream ended without a final message");
		expect(await collect(stream)).toEqual([1]);
	});

	it("end(result) resolves result() even without a completing event", async () => {
		const stream = new EventStream<number, string>(
			() => false,
			() => "never",
		);
		stream.end("final");
		expect(await stream.result()).toBe("final");
	});
});

describe("AssistantMessageEventStream", () => {
	it("completes at done and at error", async () => {
		const message = fauxAssistantMessage("hi");
		const done = new AssistantMessageEventStream();
		done.push({ type: "done", reason: "stop", message });
		expect(await done.result()).toBe(message);

		const failed = fauxAssistantMessage("", { stopReason: "error", errorMessage: "boom" });
		const error = new AssistantMessageEventStream();
		error.push({ type: "error", reason: "error", error: failed });
		expect(await error.result()).toBe(failed);
	});

	it("streamFromMessage emits one terminal event matching the stop reason", async () => {
		const ok = streamFromMessage(fauxAssistantMessage("x", { stopReason: "length" }));
		expect((await collect(ok)).map((event: AssistantMessageEvent) => event.type)).toEqual(["done"]);
		const aborted = streamFromMessage(fauxAssistantMessage("", { stopReason: "aborted", errorMessage: "stop" }));
		const events = await collect(aborted);
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({ type: "error", reason: "aborted" });
	});

	it("instantStreamFn stamps the requesting model on a fixed reply", async () => {
		const model = createFauxProvider({ api: "my-api", provider: "mine" }).getModel()!;
		const stream = await instantStreamFn(fauxAssistantMessage("ok"))(model, { messages: [] });
		const message = await stream.result();
		expect(message).toMatchObject({ api: "my-api", provider: "mine", model: "faux-1", stopReason: "stop" });
	});
});
