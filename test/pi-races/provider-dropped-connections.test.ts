/**
 * Provider connections that misbehave under a whole session, replayed over HTTP: pi-ai's own
 * OpenAI client talks to a local server (`test/llm/wire`) that accepts a request and never answers,
 * or cuts the connection mid-answer; the session's JSONL is on disk.
 *
 * pi#2658: Escape during a request still waiting for the server's response had no effect: the
 * spinner went on and the request could not be cancelled. What the user should see: abort settles
 * at once, the connection is closed, and the session answers the next prompt.
 *
 * jcode#620: with a stream idle timeout set, a request whose server accepted the connection but
 * never sent a byte (a proxy blackholing the response) hung forever: the timeout covered only a
 * stream that stalled after it started. What the user should see: the same timeout cuts it, and
 * the retry answers.
 *
 * web-to-app#748, nanobot#4038: a connection dropped after part of the answer (text, half a tool
 * call) was retried from scratch while the cut attempt's text and pending tool call were kept: the
 * answer doubled, and a phantom tool call ran. What the user should see: one retry; the cut call never
 * runs; the retry's request holds no trace of the cut attempt; the answer is the retry's alone.
 *
 * jcode#976, ante#187: a stream idle timer reset only by content treated a provider's SSE
 * keep-alives (`: keepalive` comments sent through a long prefill) as silence: it cut live streams
 * and resent the prompt, whose prefill then timed out the same way. Settle's
 * `retry.provider.streamIdleTimeoutMs` did the same (it timed pi-ai's events, and keep-alives make
 * none). What the user should see: keep-alives keep the request alive; the answer arrives once.
 *
 * hermes-agent#87292: a slow local model was cut by the stall watchdog while it was still sending.
 * Settle's idle timer waited for whole events, so an event dripping in slower than the limit was
 * silence to it. What the user should see: a slow stream is not a stall; only silence is.
 */
import { existsSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/index.js";
import { SimulatedClock } from "../../src/testing/index.js";
import { anthropicEvents } from "../llm/wire/anthropic.js";
import { chatEvents, chatPartial, chatReply } from "../llm/wire/openai.js";
import { encodeSse, noHeaders, type SseEvent } from "../llm/wire/server.js";
import { lastAssistant, useWireSession, type WireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

/** The roles and stop reasons of the session file's messages, in file order. */
function fileMessages(session: WireSession) {
	return session
		.entries()
		.flatMap((entry) => (entry.type === "message" && entry.message.role !== "system" ? [entry.message] : []));
}

/** The context the session file reopens to, as roles. */
function reopenedRoles(session: WireSession): string[] {
	const reopened = SessionManager.open(session.session.sessionFile!, undefined, undefined, { readOnly: true });
	return reopened.buildSessionContext().messages.map((message) => message.role);
}

describe("pi#2658: abort had no effect while the request waited for the server's response", () => {
	it("pi#2658: abort while no response header has come closes the connection and settles; the next prompt is answered", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(noHeaders(), chatReply([{ type: "text", text: "answered the second prompt" }]));
		const first = w.session.prompt("summarize the repo");
		await w.server.waitForRequests(1);
		expect(w.session.isStreaming).toBe(true);

		await w.session.abort();
		await first;
		// The server sees the client give up the request it never answered.
		await w.server.waitForClientClose(1);
		expect(w.session.isIdle).toBe(true);
		expect(w.eventsOf("agent_settled")).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(fileMessages(w).map((m) => [m.role, m.role === "assistant" ? m.stopReason : undefined])).toEqual([
			["user", undefined],
			["assistant", "aborted"],
		]);

		await w.session.prompt("try again");
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "answered the second prompt" }],
		});
		expect(w.server.requests).toHaveLength(2);
		expect(reopenedRoles(w)).toEqual(w.session.messages.map((m) => m.role));
	});
});

describe("jcode#620: a stream idle timeout did not cover a request that never got a response byte", () => {
	it("jcode#620: with retry.provider.streamIdleTimeoutMs, a server that never answers headers is cut at the limit and the retry answers", async () => {
		const clock = new SimulatedClock();
		const w = await wireSession({
			api: "openai-completions",
			clock,
			settings: { defaultThinkingLevel: "off", retry: { baseDelayMs: 1, provider: { streamIdleTimeoutMs: 60_000 } } },
		});
		w.server.reply(noHeaders(), chatReply([{ type: "text", text: "answered on the retry" }]));
		const done = w.session.prompt("hello");
		await w.server.waitForRequests(1);
		clock.increment(59_999);
		expect(w.server.closedByClient).toEqual([]);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);

		const retrying = new Promise<void>((started) =>
			w.session.subscribe((event) => {
				if (event.type === "auto_retry_start") started();
			}),
		);
		clock.increment(1);
		await retrying;
		await w.server.waitForClientClose(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([
			expect.objectContaining({ attempt: 1, errorMessage: expect.stringMatching(/stream idle timeout.*60000 ms/) }),
		]);
		const delayMs = w.eventsOf("auto_retry_start")[0]!.delayMs;
		clock.increment(delayMs);
		await done;

		expect(w.server.requests).toHaveLength(2);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "answered on the retry" }],
		});
		expect(w.eventsOf("agent_settled")).toHaveLength(1);
		expect(reopenedRoles(w)).toEqual(w.session.messages.map((m) => m.role));
	});
});

describe("web-to-app#748 / nanobot#4038: a retry after a dropped connection doubled the text and ran a phantom tool call", () => {
	it("web-to-app#748: a connection reset mid tool call is retried once; the cut write never runs and the answer is not doubled", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		const cutParts = [
			{ type: "text" as const, text: "I will write the file now." },
			{
				type: "tool_call" as const,
				id: "call_cut",
				name: "write",
				arguments: { path: "notes.txt", content: "written by the attempt that was cut" },
			},
		];
		// The role chunk, the text's two halves, the call's start and the first half of its arguments; then a reset.
		w.server.reply(chatPartial(cutParts, 5, "cut"), chatReply([{ type: "text", text: "Here is the whole answer." }]));
		await w.session.prompt("write notes.txt");

		expect(w.server.requests).toHaveLength(2);
		expect(w.eventsOf("auto_retry_start")).toEqual([expect.objectContaining({ attempt: 1 })]);
		expect(w.eventsOf("auto_retry_end")).toEqual([expect.objectContaining({ success: true, attempt: 1 })]);
		expect(w.eventsOf("tool_execution_start")).toEqual([]);
		expect(existsSync(join(w.dir, "notes.txt"))).toBe(false);
		// The retried request is the first one again: no cut text, no call without a result.
		expect(w.server.requests[1]!.body.messages).toEqual(w.server.requests[0]!.body.messages);
		expect(lastAssistant(w).content).toEqual([{ type: "text", text: "Here is the whole answer." }]);
		expect(w.session.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
		expect(JSON.stringify(w.session.messages)).not.toContain("I will write the file now.");
		// The file reopens to the same context: the cut attempt stays out of it.
		expect(reopenedRoles(w)).toEqual(["system", "user", "assistant"]);
	});
});

/** A simulated clock that says when a timer of a given length is set (the idle watchdog re-arming). */
class ObservedClock extends SimulatedClock {
	private readonly waiting: { ms: number; set: () => void }[] = [];
	override setTimeout(fn: (...args: unknown[]) => void, ms: number): number {
		const id = super.setTimeout(fn, ms);
		for (const waiter of this.waiting.filter((w) => w.ms === ms)) {
			this.waiting.splice(this.waiting.indexOf(waiter), 1);
			waiter.set();
		}
		return id as number;
	}
	/** Resolves when the next timer of `ms` is set. */
	nextTimer(ms: number): Promise<void> {
		return new Promise((set) => this.waiting.push({ ms, set }));
	}
}

/** Writes each piece 50 s (on `clock`) after the last, once the idle watchdog has re-armed on the one before. */
async function writeEvery50s(clock: ObservedClock, response: ServerResponse, pieces: readonly string[]): Promise<void> {
	for (const piece of pieces) {
		const rearmed = clock.nextTimer(60_000);
		clock.increment(50_000);
		response.write(piece);
		await rearmed;
	}
}

/**
 * Answers the next request with `events`' first `sent` and holds the response open, prompts
 * `text`, and resolves once the first text delta has arrived: the held response, and the prompt.
 */
async function heldStream(
	session: WireSession,
	events: readonly SseEvent[],
	sent: number,
	text: string,
	contentType = "text/event-stream",
): Promise<{ response: ServerResponse; done: Promise<void> }> {
	let response!: ServerResponse;
	session.server.reply((_request, res) => {
		response = res;
		res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
		res.write(encodeSse(events.slice(0, sent)));
	});
	const firstDelta = new Promise<void>((seen) =>
		session.session.subscribe((event) => {
			if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") seen();
		}),
	);
	const done = session.session.prompt(text);
	await firstDelta;
	return { response, done };
}

describe("jcode#976 / ante#187: SSE keep-alives did not count as activity: live streams were cut as idle", () => {
	it("jcode#976: keep-alive comments through 150 s of a 60 s idle limit keep the request; the answer arrives once, unretried", async () => {
		const clock = new ObservedClock();
		const w = await wireSession({
			api: "openai-completions",
			clock,
			settings: { defaultThinkingLevel: "off", retry: { baseDelayMs: 1, provider: { streamIdleTimeoutMs: 60_000 } } },
		});
		const events = chatEvents([{ type: "text", text: "Here is the plan, after a long prefill." }]);
		const { response, done } = await heldStream(w, events, 2, "plan the migration");
		// The model goes quiet; the server sends a keep-alive comment every 50 s.
		await writeEvery50s(clock, response, [": keepalive\n\n", ": keepalive\n\n", ": keepalive\n\n"]);
		response.end(encodeSse(events.slice(2)));
		await done;

		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(1);
		expect(w.server.closedByClient).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "Here is the plan, after a long prefill." }],
		});
		expect(fileMessages(w).map((m) => m.role)).toEqual(["user", "assistant"]);
	});

	it("the same with the media type in capitals (Text/Event-Stream; charset=UTF-8): keep-alives still count, nothing is retried", async () => {
		const clock = new ObservedClock();
		const w = await wireSession({
			api: "openai-completions",
			clock,
			settings: { defaultThinkingLevel: "off", retry: { baseDelayMs: 1, provider: { streamIdleTimeoutMs: 60_000 } } },
		});
		const events = chatEvents([{ type: "text", text: "Here is the plan." }]);
		const { response, done } = await heldStream(w, events, 2, "plan", "Text/Event-Stream; charset=UTF-8");
		await writeEvery50s(clock, response, [": keepalive\n\n", ": keepalive\n\n", ": keepalive\n\n"]);
		response.end(encodeSse(events.slice(2)));
		await done;

		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "Here is the plan." }],
		});
	});
});

describe("hermes-agent#87292: a slow stream was cut by the stall watchdog while it was still sending", () => {
	it("hermes-agent#87292: Anthropic pings, then an event dripping in 16-byte pieces 50 s apart, are not a stall at a 60 s limit", async () => {
		const clock = new ObservedClock();
		const w = await wireSession({
			api: "anthropic-messages",
			clock,
			settings: { defaultThinkingLevel: "off", retry: { baseDelayMs: 1, provider: { streamIdleTimeoutMs: 60_000 } } },
		});
		const text = "A slow local model answers, one piece at a time.";
		// message_start, ping, content_block_start, the first half of the text; then the second half, and the end.
		const events = anthropicEvents([{ type: "text", text }]);
		const { response, done } = await heldStream(w, events, 4, "explain the build");
		const ping = encodeSse([{ event: "ping", data: { type: "ping" } }]);
		const slowEvent = encodeSse([events[4]!]);
		const pieces = [ping, ping];
		for (let at = 0; at < slowEvent.length; at += 16) pieces.push(slowEvent.slice(at, at + 16));
		expect(pieces.length * 50_000).toBeGreaterThan(5 * 60_000);
		await writeEvery50s(clock, response, pieces);
		response.end(encodeSse(events.slice(5)));
		await done;

		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text }] });
	});

	it("hermes-agent#87292: an OpenAI Chat Completions chunk dripping in 16-byte pieces 50 s apart is not a stall at a 60 s limit", async () => {
		const clock = new ObservedClock();
		const w = await wireSession({
			api: "openai-completions",
			clock,
			settings: { retry: { baseDelayMs: 1, provider: { streamIdleTimeoutMs: 60_000 } } },
		});
		const text = "A slow local model answers, one piece at a time.";
		// The role chunk and the text's first half; then the second half's chunk in pieces, and the end.
		const events = chatEvents([{ type: "text", text }]);
		const { response, done } = await heldStream(w, events, 2, "explain the build");
		const slowChunk = encodeSse([events[2]!]);
		const pieces: string[] = [];
		for (let at = 0; at < slowChunk.length; at += 16) pieces.push(slowChunk.slice(at, at + 16));
		expect(pieces.length * 50_000).toBeGreaterThan(2 * 60_000);
		await writeEvery50s(clock, response, pieces);
		response.end(encodeSse(events.slice(3)));
		await done;

		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text }] });
	});
});
