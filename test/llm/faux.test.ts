import { afterEach, describe, expect, it, vi } from "vitest";
import type { AssistantMessageEvent, Context, StreamOptions } from "../../src/llm/types.js";
import {
	createFauxProvider,
	fauxAssistantMessage,
	fauxText,
	fauxThinking,
	fauxToolCall,
} from "../../src/testing/index.js";

const userMessage = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });

async function run(
	faux: ReturnType<typeof createFauxProvider>,
	context: Context = { messages: [userMessage("hello")] },
	options?: StreamOptions,
	modelId?: string,
) {
	const stream = await faux.streamFn(faux.getModel(modelId)!, context, options);
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return { events, message: await stream.result() };
}

afterEach(() => {
	vi.useRealTimers();
});

describe("createFauxProvider models", () => {
	it("has pi's default model", () => {
		const faux = createFauxProvider();
		expect(faux.api).toBe("faux");
		expect(faux.provider).toBe("faux");
		expect(faux.getModel()).toEqual({
			id: "faux-1",
			name: "Faux Model",
			api: "faux",
			provider: "faux",
			baseUrl: "http://localhost:0",
			reasoning: false,
			input: ["text", "image"],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 128000,
			maxTokens: 16384,
		});
	});

	it("serves extra models and finds them by id", () => {
		const faux = createFauxProvider({
			api: "faux:test",
			models: [
				{ id: "small", contextWindow: 1000 },
				{ id: "big", name: "Big", reasoning: true },
			],
		});
		expect(faux.models.map((model) => model.id)).toEqual(["small", "big"]);
		expect(faux.getModel()?.id).toBe("small");
		expect(faux.getModel("big")).toMatchObject({
			name: "Big",
			reasoning: true,
			api: "faux:test",
			contextWindow: 128000,
		});
		expect(faux.getModel("small")?.contextWindow).toBe(1000);
		expect(faux.getModel("nope")).toBeUndefined();
	});
});

describe("faux streaming", () => {
	it("streams text in chunks of 3-5 tokens of 4 characters", async () => {
		const faux = createFauxProvider();
		const text = "The quick brown fox jumps over the lazy dog, again and again and again.";
		faux.setResponses([fauxAssistantMessage(text)]);
		const { events, message } = await run(faux);
		const types = events.map((event) => event.type);
		expect(types[0]).toBe("start");
		expect(types[1]).toBe("text_start");
		expect(types.slice(-2)).toEqual(["text_end", "done"]);
		const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
		expect(deltas.join("")).toBe(text);
		for (const delta of deltas.slice(0, -1)) {
			expect(delta.length).toBeGreaterThanOrEqual(12);
			expect(delta.length).toBeLessThanOrEqual(20);
		}
		expect(message.content).toEqual([{ type: "text", text }]);
		expect(message.stopReason).toBe("stop");
	});

	it("streams thinking, text and tool calls as their own block events", async () => {
		const faux = createFauxProvider({ tokenSize: { min: 1, max: 1 } });
		const call = fauxToolCall("read", { path: "README.md" }, { id: "call-1" });
		faux.setResponses([
			fauxAssistantMessage([fauxThinking("hmm"), fauxText("reading"), call], { stopReason: "toolUse" }),
		]);
		const { events, message } = await run(faux);
		const kinds = [...new Set(events.map((event) => event.type))];
		expect(kinds).toEqual([
			"start",
			"thinking_start",
			"thinking_delta",
			"thinking_end",
			"text_start",
			"text_delta",
			"text_end",
			"toolcall_start",
			"toolcall_delta",
			"toolcall_end",
			"done",
		]);
		const toolDeltas = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.delta] : []));
		expect(toolDeltas.join("")).toBe(JSON.stringify({ path: "README.md" }));
		const end = events.find((event) => event.type === "toolcall_end");
		expect(end).toMatchObject({ contentIndex: 2, toolCall: { id: "call-1", name: "read" } });
		expect(message.stopReason).toBe("toolUse");
		expect(message.content[2]).toEqual(call);
	});

	it("stamps api, provider and model of the requesting model", async () => {
		const faux = createFauxProvider({ api: "a1", provider: "p1", models: [{ id: "m1" }, { id: "m2" }] });
		faux.setResponses([fauxAssistantMessage("x")]);
		const { message, events } = await run(faux, undefined, undefined, "m2");
		expect(message).toMatchObject({ api: "a1", provider: "p1", model: "m2" });
		expect(events[0]).toMatchObject({ type: "start", partial: { model: "m2" } });
	});

	it("ends a scripted error reply with an error event after its content", async () => {
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("partial", { stopReason: "error", errorMessage: "overloaded_error" })]);
		const { events, message } = await run(faux);
		expect(events.at(-1)).toMatchObject({ type: "error", reason: "error" });
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "overloaded_error" });
		expect(message.content).toEqual([{ type: "text", text: "partial" }]);
	});

	it("answers an empty queue with `No more faux responses queued`", async () => {
		const faux = createFauxProvider();
		const { events, message } = await run(faux);
		expect(events.map((event) => event.type)).toEqual(["error"]);
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "No more faux responses queued", content: [] });
		expect(faux.callCount).toBe(1);
	});

	it("turns a throwing factory into an error message with the thrown text", async () => {
		const faux = createFauxProvider();
		faux.setResponses([
			() => {
				throw new Error("script bug");
			},
		]);
		const { message } = await run(faux);
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "script bug" });
	});

	it("calls factories with the request, options, state and model, and awaits async ones", async () => {
		const faux = createFauxProvider();
		const seen: unknown[] = [];
		faux.setResponses([
			async (context, options, state, model) => {
				seen.push(context.systemPrompt, context.messages.length, options?.sessionId, state.callCount, model.id);
				return fauxAssistantMessage(`you said ${(context.messages[0] as { content: string }).content}`);
			},
		]);
		const { message } = await run(faux, { systemPrompt: "sys", messages: [userMessage("ping")] }, { sessionId: "s1" });
		expect(seen).toEqual(["sys", 1, "s1", 1, "faux-1"]);
		expect(message.content).toEqual([{ type: "text", text: "you said ping" }]);
	});

	it("calls onResponse with status 200", async () => {
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("x")]);
		const onResponse = vi.fn();
		await run(faux, undefined, { onResponse });
		expect(onResponse).toHaveBeenCalledWith({ status: 200, headers: {} }, faux.getModel());
	});

	it("streams the same chunks on every run (seeded chunk sizes), and `seed` picks another split", async () => {
		const text = "x".repeat(4000); // ~250 chunks: Math.random sizes would never repeat
		const chunksOf = async (seed?: number) => {
			const faux = createFauxProvider(seed === undefined ? {} : { seed });
			faux.setResponses([fauxAssistantMessage(text), fauxAssistantMessage(text)]);
			const sizes: number[] = [];
			for (let call = 0; call < 2; call++) {
				const { events } = await run(faux);
				for (const event of events) if (event.type === "text_delta") sizes.push(event.delta.length);
			}
			return sizes;
		};
		const first = await chunksOf();
		expect(first.reduce((a, b) => a + b, 0)).toBe(2 * text.length);
		expect(new Set(first).size).toBeGreaterThan(1); // still 3–5 tokens, not one fixed size
		expect(await chunksOf()).toEqual(first);
		expect(await chunksOf(1)).toEqual(first);
		expect(await chunksOf(2)).not.toEqual(first);
	});

	it("never cuts an emoji between two deltas: each text and tool call delta is whole characters", async () => {
		const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
		const text = "a👍🏽 b🎉 ccc😀d 🇩🇪 ok".repeat(3); // odd offsets: 4-character chunks land inside pairs
		const faux = createFauxProvider({ tokenSize: { min: 1, max: 1 } });
		faux.setResponses([fauxAssistantMessage([fauxText(text), fauxToolCall("echo", { text })])]);
		const { events, message } = await run(faux);
		const deltas = events.flatMap((event) =>
			event.type === "text_delta" || event.type === "toolcall_delta" ? [event.delta] : [],
		);
		expect(deltas.filter((delta) => loneSurrogate.test(delta))).toEqual([]);
		expect(message.content[0]).toEqual({ type: "text", text });
	});
});

describe("faux queue and recorded requests", () => {
	it("setResponses replaces, appendResponses appends, counters follow", async () => {
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		faux.setResponses([fauxAssistantMessage("c")]);
		faux.appendResponses([fauxAssistantMessage("d")]);
		expect(faux.pendingResponseCount).toBe(2);
		expect(faux.getPendingResponseCount()).toBe(2);
		const first = await run(faux);
		expect(first.message.content).toEqual([{ type: "text", text: "c" }]);
		expect(faux.callCount).toBe(1);
		expect(faux.state.callCount).toBe(1);
		expect(faux.pendingResponseCount).toBe(1);
	});

	it("records a snapshot of each request without the signal", async () => {
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("x")]);
		const messages = [userMessage("hello")];
		const tools = [{ name: "t", description: "d", parameters: { type: "object" } }];
		const controller = new AbortController();
		await run(
			faux,
			{ systemPrompt: "sys", messages, tools },
			{ signal: controller.signal, sessionId: "s", apiKey: "k" },
		);
		messages.push(userMessage("later"));
		expect(faux.requests).toHaveLength(1);
		const request = faux.requests[0]!;
		expect(request.messages).toHaveLength(1);
		expect(request.systemPrompt).toBe("sys");
		expect(request.tools).toEqual(tools);
		expect(request.model.id).toBe("faux-1");
		expect(request.options).toEqual({ sessionId: "s", apiKey: "k" });
	});
});

describe("faux abort", () => {
	it("aborts before start with no content and pi's text", async () => {
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("never")]);
		const controller = new AbortController();
		controller.abort();
		const { events, message } = await run(faux, undefined, { signal: controller.signal });
		expect(events.map((event) => event.type)).toEqual(["error"]);
		expect(message).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted", content: [] });
	});

	it("keeps the content streamed before the abort", async () => {
		const faux = createFauxProvider({ tokenSize: { min: 1, max: 1 } });
		const text = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(10);
		faux.setResponses([fauxAssistantMessage(text)]);
		const controller = new AbortController();
		const stream = await faux.streamFn(
			faux.getModel()!,
			{ messages: [userMessage("go")] },
			{ signal: controller.signal },
		);
		const deltas: string[] = [];
		for await (const event of stream) {
			if (event.type === "text_delta") {
				deltas.push(event.delta);
				if (deltas.length === 3) controller.abort();
			}
		}
		const message = await stream.result();
		expect(message.stopReason).toBe("aborted");
		expect(message.errorMessage).toBe("Request was aborted");
		expect(message.content).toEqual([{ type: "text", text: deltas.join("") }]);
		// The producer may run a few chunks ahead of this consumer; it still stops before the end.
		expect(deltas.join("").length).toBeLessThan(text.length);
		expect(text.startsWith(deltas.join(""))).toBe(true);
	});
});

describe("faux usage estimate", () => {
	it("estimates input from the serialized request and output from the reply", async () => {
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("Hello there")]);
		const { message } = await run(faux, { systemPrompt: "sys", messages: [userMessage("hello")] });
		// "system:sys\n\nuser:hello" is 22 characters → 6 tokens; "Hello there" is 11 → 3.
		expect(message.usage).toMatchObject({ input: 6, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 9 });
	});

	it("counts the common prefix with the previous request of a session as cache read", async () => {
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		const first = await run(faux, { messages: [userMessage("x".repeat(400))] }, { sessionId: "s" });
		// "user:" + 400 characters = 405 → 102 tokens, all written to the cache.
		expect(first.message.usage).toMatchObject({ input: 102, cacheRead: 0, cacheWrite: 102 });
		const second = await run(
			faux,
			{ messages: [userMessage("x".repeat(400)), userMessage("more")] },
			{ sessionId: "s" },
		);
		// 416 characters → 104 tokens; the first 405 are shared → 102 read, "\n\nuser:more" → 3 written.
		expect(second.message.usage).toMatchObject({ input: 2, cacheRead: 102, cacheWrite: 3 });
	});
});

describe("faux pacing", () => {
	it("with tokensPerSecond, chunks wait for real timers", async () => {
		vi.useFakeTimers();
		const faux = createFauxProvider({ tokensPerSecond: 10, tokenSize: { min: 2, max: 2 } });
		faux.setResponses([fauxAssistantMessage("12345678abcdefgh")]);
		const stream = await faux.streamFn(faux.getModel()!, { messages: [userMessage("go")] });
		const types: string[] = [];
		const consumed = (async () => {
			for await (const event of stream) types.push(event.type);
		})();
		await vi.advanceTimersByTimeAsync(0);
		expect(types).toEqual(["start", "text_start"]);
		// Each 8-character chunk is 2 tokens: 200 ms at 10 tokens/s.
		await vi.advanceTimersByTimeAsync(200);
		expect(types.filter((type) => type === "text_delta")).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(200);
		await consumed;
		expect(types.slice(-3)).toEqual(["text_delta", "text_end", "done"]);
	});
});
