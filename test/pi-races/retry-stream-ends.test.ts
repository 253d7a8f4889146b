/**
 * Retry reports about how an OpenAI-compatible stream ends, replayed over HTTP: pi-ai's own OpenAI
 * client talks to a local server that streams as the provider did (`test/llm/wire`), through a whole
 * session from `createAgentSession`, its JSONL on disk.
 *
 * pi#9002: OpenRouter closes a stream with the non-standard `finish_reason: "error"` when the
 * upstream dies after streaming started; pi-ai maps it to `Provider finish_reason: error`, which
 * matched none of the retry patterns: the turn died on the first attempt. What the user should see:
 * the request retried after a backoff, and the answer. A `content_filter` finish (a refusal) is not
 * transient and must still end the turn at once.
 *
 * pi#2892: a connection that opened, then closed before any token ("request ended without sending
 * any chunks"), matched none of pi's retry patterns; pi#5793: later pi's "Stream ended without
 * finish_reason" (a proxy's early EOF) was not retried either. Replayed against a real `settle -p`
 * child process on a scripted model whose first answer ends in that text. What the user should see:
 * one retry after a backoff, then the answer, exit 0.
 *
 * pi#9627: a Cloudflare-proxied gateway answered 520 with no body ("520 status code (no body)");
 * pi's retry pattern listed 500-504 and 524 (added for pi#6239, the same shape) but not 520: the turn
 * ended on the first attempt, and the very next request succeeded. Replayed with the OpenAI and
 * Anthropic clients against a local server answering 520 / 524 with an empty body. What the user
 * should see: a retry after a backoff, and the answer.
 */
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatEvents, chatReply } from "../llm/wire/openai.js";
import { type SseEvent, sse, text } from "../llm/wire/server.js";
import { lastAssistant, useWireSession, type WireApi } from "../llm/wire/session.js";
import { runJsonScript } from "./helpers.js";

const wireSession = useWireSession();

/** A completion that streams `text`, then ends with `finishReason` (any string the provider sends). */
function endsWith(text: string, finishReason: string) {
	const events: SseEvent[] = chatEvents([{ type: "text", text }]).map((event) => {
		const data = event.data as { choices?: { finish_reason?: string | null }[] };
		const choice = data.choices?.[0];
		if (choice?.finish_reason !== "stop") return event;
		return { data: { ...data, choices: [{ ...choice, finish_reason: finishReason }] } };
	});
	return sse(events);
}

describe('pi#9002: OpenRouter\'s finish_reason "error" (upstream died mid-stream) is never retried', () => {
	it('pi#9002: "Provider finish_reason: error" is retried after a backoff; the answer is saved, the cut attempt is not in the context', async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(endsWith("Here is the synop", "error"), chatReply([{ type: "text", text: "The whole answer." }]));
		await w.session.prompt("summarize the file");

		expect(w.server.requests).toHaveLength(2);
		expect(w.eventsOf("auto_retry_start")).toEqual([
			expect.objectContaining({ attempt: 1, errorMessage: "Provider finish_reason: error" }),
		]);
		expect(w.eventsOf("auto_retry_end")).toEqual([expect.objectContaining({ success: true, attempt: 1 })]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "The whole answer." }],
		});
		// The retried request carries the user's prompt once and not the cut answer.
		const sent = w.server.requests[1]!.body.messages as { role: string }[];
		expect(sent.map((m) => m.role)).toEqual(["developer", "user"]);
	});

	it('pi#9002: a "content_filter" finish (a refusal) is not retried: one request, the turn ends with the error', async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(endsWith("I can", "content_filter"), chatReply([{ type: "text", text: "never sent" }]));
		await w.session.prompt("summarize the file");

		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "error",
			errorMessage: expect.stringContaining(`content filter stopped this answer (finish_reason "content_filter")`),
		});
	});
});

describe("pi#2892 / pi#5793: a stream that ended before any chunk, or without a finish_reason, is not retried", () => {
	const cli = useCliProject("settle-pi-races-retry-ends-");
	for (const [report, errorMessage] of [
		["pi#2892", "request ended without sending any chunks"],
		["pi#5793", "Stream ended without finish_reason"],
	] as const) {
		it(`${report}: "${errorMessage}" is retried once after a backoff and \`settle -p\` answers (exit 0)`, () => {
			// A short backoff: the test waits for the retry, it does not time it.
			const { code, events, stderr } = runJsonScript(
				cli,
				[{ stopReason: "error", errorMessage }, "Answered after the retry."],
				{ baseDelayMs: 1 },
			);
			expect(stderr).toBe("");
			expect(code).toBe(0);
			expect(events.filter((event) => event.type === "auto_retry_start")).toEqual([
				expect.objectContaining({ attempt: 1, errorMessage }),
			]);
			expect(events.filter((event) => event.type === "auto_retry_end")).toEqual([
				expect.objectContaining({ success: true, attempt: 1 }),
			]);
			const ends = events.filter((event) => event.type === "agent_end");
			expect(JSON.stringify(ends.at(-1))).toContain("Answered after the retry.");
		});
	}
});

/** A bare `status` (no body), then an answer: one retry after a backoff, and the answer is the session's. */
async function expectRetriedOnceAfterEmptyStatus(api: WireApi, status: number): Promise<void> {
	const w = await wireSession({ api, settings: { defaultThinkingLevel: "off" } });
	const answer = [{ type: "text" as const, text: "answered after the gateway blip" }];
	w.server.reply(text(status, ""), api === "openai-completions" ? chatReply(answer) : anthropicReply(answer));
	await w.session.prompt("hello");

	expect(w.server.requests).toHaveLength(2);
	expect(w.eventsOf("auto_retry_start")).toEqual([
		expect.objectContaining({ attempt: 1, errorMessage: expect.stringContaining(`${status} status code (no body)`) }),
	]);
	expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: answer });
}

describe("pi#9627 / pi#6239: a Cloudflare 520 or 524 with no body ends the turn on the first attempt", () => {
	for (const api of ["openai-completions", "anthropic-messages"] as const satisfies readonly WireApi[]) {
		for (const [report, status] of [
			["pi#9627", 520],
			["pi#6239", 524],
		] as const) {
			it(`${report}: ${api}: an empty-bodied ${status} is retried after a backoff; the answer arrives`, () =>
				expectRetriedOnceAfterEmptyStatus(api, status));
		}
	}
});

describe("an empty-bodied 408, or Cloudflare's 521 / 523 (origin down, unreachable), ended the turn on the first attempt", () => {
	for (const api of ["openai-completions", "anthropic-messages"] as const satisfies readonly WireApi[]) {
		for (const status of [408, 521, 523] as const) {
			it(`${api}: ${status} is retried after a backoff, as 520 and 524 are; the answer arrives (pi 0.73.1 gives up)`, () =>
				expectRetriedOnceAfterEmptyStatus(api, status));
		}
	}
	it("a 526 (the origin's certificate is invalid) is not retried: it fails the same way every time", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(text(526, ""));
		await w.session.prompt("hello");
		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "error" });
	});
});
