/**
 * 2389-research/tracker#539: the context size was read from `input_tokens` alone. Under prompt
 * caching Anthropic reports the cached prefix in `cache_read_input_tokens` and only the uncached
 * tail in `input_tokens`, so a nearly full context read as about 1%: no warning, no compaction,
 * until the provider refused the request. pi#6353 asked pi to drop the cache fields from the
 * context count (the reporter took `input_tokens` to include them). What the user should see: the
 * context counts input, cache reads and cache writes once each, and a context over the threshold
 * compacts although almost all of it was a cache hit.
 */
import { describe, expect, it } from "vitest";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

describe("tracker#539, pi#6353: a context that is mostly cache reads", () => {
	it("tracker#539: on a 200k Anthropic model an answer reporting 300 input, 182,000 cache-read and 1,500 cache-write tokens is 183,900 context tokens, over the 183,616 threshold: the session compacts", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { contextWindow: 200_000 },
			settings: { compaction: { enabled: true, reserveTokens: 16_384, keepRecentTokens: 50 } },
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "first answer" }], {
				usage: { input: 40, output: 10, cacheWrite: 100_000, cacheRead: 0 },
			}),
			anthropicReply([{ type: "text", text: "second answer" }], {
				usage: { input: 300, output: 100, cacheWrite: 1_500, cacheRead: 182_000 },
			}),
			anthropicReply([{ type: "text", text: "## Goal\nkeep going" }], {
				usage: { input: 2_000, output: 20, cacheWrite: 0, cacheRead: 0 },
			}),
		);
		await w.session.prompt("first question");
		expect(w.session.getContextUsage()?.tokens).toBe(100_050);
		await w.session.prompt(`second question ${"x".repeat(400)}`);

		const ends = w.events.filter((event) => event.type === "compaction_end");
		expect(ends).toEqual([expect.objectContaining({ reason: "threshold", aborted: false })]);
		expect((ends[0] as { errorMessage?: string }).errorMessage).toBeUndefined();
		const [end] = ends as { result?: { tokensBefore: number; summary: string } }[];
		// input + output + cache reads + cache writes, each once; input alone (300) would never compact.
		expect(end!.result).toMatchObject({ tokensBefore: 183_900, summary: "## Goal\nkeep going" });
		expect(w.server.requests).toHaveLength(3);
	});
});
