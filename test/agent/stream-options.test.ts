import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/agent/agent-loop.js";
import { instantStreamFn } from "../../src/llm/event-stream.js";
import type { StreamOptions } from "../../src/llm/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/testing/index.js";
import { user } from "./helpers.js";

describe("stream options", () => {
	it("every stream option of the loop config reaches the stream function", async () => {
		// `Required` makes this list fail to compile when StreamOptions gains a key the loop must forward.
		const all: Required<Omit<StreamOptions, "signal">> = {
			temperature: 0.3,
			maxTokens: 123,
			apiKey: "key-from-config",
			transport: "sse",
			cacheRetention: "long",
			sessionId: "session-1",
			onPayload: () => undefined,
			onResponse: () => undefined,
			headers: { "x-test": "1" },
			timeoutMs: 4567,
			maxRetries: 2,
			maxRetryDelayMs: 890,
			metadata: { user: "u" },
			reasoning: "high",
			thinkingBudgets: { low: 10 },
		};
		const seen: (StreamOptions | undefined)[] = [];
		const model = createFauxProvider().getModel()!;
		const streamFn = instantStreamFn((_model, _context, options) => {
			seen.push(options);
			return fauxAssistantMessage("ok");
		});
		const controller = new AbortController();
		await runAgentLoop(
			[user("hi")],
			{ systemPrompt: "", messages: [] },
			{ model, streamFn, ...all },
			() => undefined,
			controller.signal,
		);
		expect(seen).toEqual([{ ...all, signal: controller.signal }]);
	});

	it("the thinking level and a key from getApiKey take precedence over the config's", async () => {
		const seen: (StreamOptions | undefined)[] = [];
		const model = createFauxProvider().getModel()!;
		const streamFn = instantStreamFn((_model, _context, options) => {
			seen.push(options);
			return fauxAssistantMessage("ok");
		});
		await runAgentLoop(
			[user("hi")],
			{ systemPrompt: "", messages: [] },
			{ model, streamFn, apiKey: "config", reasoning: "low", thinkingLevel: "medium", getApiKey: () => "resolved" },
			() => undefined,
		);
		expect(seen).toEqual([{ apiKey: "resolved", reasoning: "medium" }]);
	});
});
