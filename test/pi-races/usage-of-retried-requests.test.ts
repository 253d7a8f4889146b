/**
 * Reports about the money a failed, retried request cost, replayed on a real session file written
 * against a local Anthropic Messages endpoint (test/llm/wire/server.ts) through pi-ai's client.
 *
 * sjnims/cc-plugin-eval#330: a request that failed after the provider had started answering
 * (billed: its prompt was read) was retried, and only the attempt that succeeded was counted: the retries looked free, the totals short of what the provider
 * charged. What the user should see: the failed attempt's tokens and cost in what the session has
 * spent (`cumulative`, `/session`'s `spent:`), in a reopened file and in the exported page's
 * totals, while the context's own figures count the answer that stayed.
 */
import { describe, expect, it } from "vitest";
import { exportStats } from "../../src/export/index.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { anthropicEvents, anthropicReply } from "../llm/wire/anthropic.js";
import { sse } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

describe("cc-plugin-eval#330: a failed attempt's tokens are spent too", () => {
	it("cc-plugin-eval#330: 12,000 prompt tokens read, the stream cut by an overloaded_error, retried and answered: spent, reopened and exported totals count both attempts; the context's cost the answer", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		const usage = { input: 2_000, output: 40, cacheRead: 10_000, cacheWrite: 0 };
		// The first attempt: message_start (the prompt read and billed), some text, then the API's overload.
		const cut = anthropicEvents([{ type: "text", text: "Starting the review of" }], { usage }).slice(0, -2);
		w.server.reply(
			sse([
				...cut,
				{ event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
			]),
			anthropicReply([{ type: "text", text: "The review is done." }], { usage }),
		);
		await w.session.prompt("review the diff");

		expect(w.eventsOf("auto_retry_start")).toHaveLength(1);
		expect(w.server.requests).toHaveLength(2);
		// Dollars per million tokens (wireModel): input 3, output 15, cache read 0.3.
		// The cut attempt billed its prompt and the one output token message_start reported.
		const failed = { input: 2_000, output: 1, cacheRead: 10_000 };
		const priced = (u: { input: number; output: number; cacheRead: number }) =>
			(u.input * 3 + u.output * 15 + u.cacheRead * 0.3) / 1e6;
		const spent = priced(failed) + priced(usage);
		const spentTokens = 12_001 + 12_040;

		const stats = w.session.getSessionStats();
		expect(stats.cumulative.tokens).toEqual({
			input: 4_000,
			output: 41,
			cacheRead: 20_000,
			cacheWrite: 0,
			total: spentTokens,
		});
		expect(stats.cumulative.cost).toBeCloseTo(spent, 12);
		// The context holds the answer that stayed, so its figures count that one call.
		expect(stats.tokens.total).toBe(12_040);
		expect(stats.cost).toBeCloseTo(priced(usage), 12);

		const reopened = SessionManager.open(w.session.sessionFile!, { readOnly: true });
		expect(reopened.getCumulativeUsage().tokens.total).toBe(spentTokens);
		expect(reopened.getCumulativeUsage().cost).toBeCloseTo(spent, 12);

		const page = exportStats(reopened.getEntries());
		expect(page).toMatchObject({ input: 4_000, output: 41, cacheRead: 20_000, cacheWrite: 0 });
		expect(page.cost).toBeCloseTo(spent, 12);
	});
});
