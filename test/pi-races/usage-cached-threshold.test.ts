/**
 * Reports of a compaction threshold crossed by cached tokens counted more than once, replayed
 * through pi-ai's real OpenAI and Anthropic clients against a local server sending each
 * provider's usage payload.
 *
 * anomalyco/opencode#4416: on an OpenAI Responses model (400k window) opencode summed
 * `input_tokens` and `cached_tokens`, though the cached tokens are part of `input_tokens`: a
 * 184,704-token prompt with 183,936 cached counted as about 368,000 and the session compacted
 * with half the window free. What the user should see: the context is 184,753 tokens (prompt plus
 * answer, the cached prefix once), under a threshold of 368,000 (opencode's 32,000-token output
 * reserve as `compaction.reserveTokens`): no compaction after the answer or before the next prompt.
 *
 * open-webui#28590: with llama.cpp's OpenAI-compatible server, whose final chunk carries
 * `timings.cache_n` beside `usage.prompt_tokens` (which already includes the cached prefix), the
 * check added `cache_n` again and compacted at about half the configured 70k threshold, while the
 * meter showed 39k. What the user should see: the meter and the check agree on 38,496 tokens.
 *
 * openclaw#99843: in a tool loop under Anthropic prompt caching the context was taken from cache
 * reads added up over the turn's calls (12 calls of ~150k cached: 931,132 tokens on a session set
 * to compact at 180k), so it compacted at ~164k. What the user should see: each call's usage
 * stands alone; the context is the last call's, under the threshold: nothing compacts.
 */
import { describe, expect, it } from "vitest";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatEvents } from "../llm/wire/openai.js";
import { responsesReply } from "../llm/wire/responses.js";
import { sse } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

describe("opencode#4416: an OpenAI Responses prompt that is almost all cached", () => {
	it("opencode#4416: 184,704 input tokens of which 183,936 cached, 49 output, on a 400k model with a 368,000 threshold: the context is 184,753 tokens; no compaction after the answer or before the next prompt", async () => {
		const w = await wireSession({
			api: "openai-responses",
			model: { contextWindow: 400_000, maxTokens: 128_000 },
			settings: { compaction: { enabled: true, reserveTokens: 32_000, keepRecentTokens: 50 } },
		});
		w.server.reply(
			responsesReply([{ type: "message", text: "first answer" }], { input: 184_704, output: 49, cached: 183_936 }),
			responsesReply([{ type: "message", text: "second answer" }], { input: 184_800, output: 20, cached: 184_704 }),
		);
		await w.session.prompt("first question");
		expect(w.session.getContextUsage()).toMatchObject({ tokens: 184_753, contextWindow: 400_000 });

		await w.session.prompt("second question");
		expect(w.eventsOf("compaction_start")).toEqual([]);
		// Both requests are the conversation's own: no summary request went out between them.
		expect(w.server.requests).toHaveLength(2);
		expect(JSON.stringify(w.server.requests[1]?.body)).toContain("first answer");
	});
});

describe("open-webui#28590: llama.cpp's timings.cache_n beside prompt_tokens", () => {
	it("open-webui#28590: llama-server reports prompt_tokens 38,196 with 38,153 cached (timings.cache_n 38,153, prompt_n 43), 300 completion, on a 70,000 threshold: the meter says 38,496 tokens and nothing compacts", async () => {
		const w = await wireSession({
			api: "openai-completions",
			model: { contextWindow: 100_000 },
			settings: { compaction: { enabled: true, reserveTokens: 30_000, keepRecentTokens: 50 } },
		});
		const usage = { prompt: 38_196, completion: 300, cached: 38_153 };
		const events = chatEvents([{ type: "text", text: "first answer" }], { usage });
		// llama-server's final chunk: the usage and its own timings (cache_n is part of prompt_tokens).
		const last = events.at(-2)!.data as Record<string, unknown>;
		last.timings = { cache_n: 38_153, prompt_n: 43, predicted_n: 300, prompt_ms: 61.2, predicted_ms: 5210.4 };
		w.server.reply(sse(events), sse(chatEvents([{ type: "text", text: "second answer" }], { usage })));

		await w.session.prompt("first question");
		expect(w.session.getContextUsage()).toMatchObject({ tokens: 38_496, contextWindow: 100_000 });
		await w.session.prompt("second question");
		expect(w.eventsOf("compaction_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(2);
	});
});

describe("openclaw#99843: cache reads over a tool loop's calls", () => {
	it("openclaw#99843: three bash calls and an answer, each call reporting ~150k cache-read tokens, on a 300k model compacting above 180,000: the context is the last call's 164,120 tokens; nothing compacts", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { contextWindow: 300_000 },
			settings: { compaction: { enabled: true, reserveTokens: 120_000, keepRecentTokens: 50 } },
		});
		const call = (n: number) =>
			anthropicReply([{ type: "tool_use", id: `toolu_0${n}`, name: "bash", input: { command: `echo step ${n}` } }], {
				stopReason: "tool_use",
				usage: { input: 200, output: 40, cacheRead: 150_000 + n * 4_000, cacheWrite: 1_000 },
			});
		w.server.reply(
			call(1),
			call(2),
			call(3),
			anthropicReply([{ type: "text", text: "all three steps ran" }], {
				usage: { input: 120, output: 100, cacheRead: 162_900, cacheWrite: 1_000 },
			}),
		);
		await w.session.prompt("run the three steps");

		expect(w.server.requests).toHaveLength(4);
		expect(JSON.stringify(w.server.requests[3]?.body)).toContain("step 3");
		expect(w.session.getContextUsage()?.tokens).toBe(164_120);
		expect(w.eventsOf("compaction_start")).toEqual([]);
	});
});
