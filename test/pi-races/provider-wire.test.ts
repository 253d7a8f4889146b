/**
 * Reports about what goes to and comes back from providers, replayed against Settle over HTTP:
 * pi-ai's own provider clients (OpenAI and Anthropic SDKs) talk to a local server that answers as
 * the provider does (`test/llm/wire`), through a whole session from `createAgentSession`.
 *
 * pi#7134: a provider's 429 carried its cool-down in the error body (`retry_after_seconds: 59`,
 * Cerebras), and the session retried on its blind exponential schedule (2 s, 4 s, 8 s): every
 * retry landed inside the cool-down, re-paid the prompt, and the turn failed. What the user should
 * see: the session waits what the provider asked for, or, when that is longer than
 * `retry.maxAgentDelayMs`, ends at once with the provider's error instead of re-hammering it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import { json } from "../llm/wire/server.js";
import { lastAssistant, startWireSession, type WireSession } from "../llm/wire/session.js";

let w: WireSession | undefined;
afterEach(async () => {
	await w?.dispose();
	w = undefined;
});

/** A 429 whose error object names its cool-down only as a snake_case field (no message text). */
function coolDown429(seconds: number) {
	return json(429, {
		error: { type: "too_many_requests_error", code: "request_quota_exceeded", retry_after_seconds: seconds },
	});
}

describe("pi#7134: a 429 that names its cool-down in the body (retry_after_seconds)", () => {
	it("pi#7134: retry_after_seconds 59 above retry.maxAgentDelayMs: no retry inside the cool-down, the turn ends with the provider's error", async () => {
		w = await startWireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off", retry: { baseDelayMs: 1, maxAgentDelayMs: 1000 } },
		});
		w.server.reply(coolDown429(59), chatReply([{ type: "text", text: "too early" }]));
		await w.session.prompt("hello");

		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "error",
			errorMessage: expect.stringContaining('"retry_after_seconds":59'),
		});
	});

	it("pi#7134: retry_after_seconds 0.05 is waited (delayMs 50, not the 1 ms backoff), then the answer arrives", async () => {
		w = await startWireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(coolDown429(0.05), chatReply([{ type: "text", text: "after the cool-down" }]));
		await w.session.prompt("hello");

		expect(w.eventsOf("auto_retry_start").map(({ attempt, delayMs }) => ({ attempt, delayMs }))).toEqual([
			{ attempt: 1, delayMs: 50 },
		]);
		expect(w.server.requests).toHaveLength(2);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "after the cool-down" }],
		});
	});
});
