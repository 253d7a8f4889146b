/**
 * pi's reported liveness bugs, replayed against Settle: a session that never settles because a
 * provider stream stalls, a tool never returns, or a stream never delivers its final message.
 * Each test drives a real session (createAgentSession, JSONL on disk, timers on a SimulatedClock)
 * and asserts what its user sees: abort resolves, exactly one agent_settled, the file reopens.
 */
import { describe, expect, it } from "vitest";
import { type AgentTool, SessionManager } from "../../src/index.js";
import { fauxToolCall } from "../../src/testing/index.js";
import {
	diskSessionsPerTest,
	fileMessages,
	hungTool,
	nextEvent,
	orphanToolMessages,
	textDelta,
} from "./disk-harness.js";
import { comparable, reopenedContext } from "./helpers.js";

const { session } = diskSessionsPerTest();

describe("liveness: a session always settles", () => {
	it("pi#8331: a provider stream that stalls mid-response can be aborted and the session settles", async () => {
		const { session: s, provider, events } = await session();
		const done = s.prompt("write the report");
		const request = await provider.next();
		const streamed = textDelta(s);
		request.beginText("Here is the first half");
		await streamed;
		// The stream stays open and sends nothing more (a blackholed connection).
		expect(s.isStreaming).toBe(true);
		await s.abort();
		await done;
		expect(s.isStreaming).toBe(false);
		expect(s.isIdle).toBe(true);
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(request.signal?.aborted).toBe(true);
		// The partial answer is kept, marked aborted, and the file reopens to the same context.
		const file = s.sessionFile!;
		const last = fileMessages(file).at(-1)!;
		expect(last).toMatchObject({ role: "assistant", stopReason: "aborted" });
		expect(JSON.stringify(last.content)).toContain("Here is the first half");
		// The session is usable again at once: a queued follow-up is not stuck behind the dead turn.
		provider.answer("second try worked");
		await s.prompt("try again");
		expect(fileMessages(file).at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
		expect(reopened.buildSessionContext().messages.map((m) => m.role)).toEqual(s.messages.map((m) => m.role));
	});

	it("pi#8331: with retry.provider.streamIdleTimeoutMs a silent stream ends as a retryable error and the retry answers", async () => {
		const {
			session: s,
			provider,
			clock,
			events,
		} = await session({
			settings: { retry: { provider: { streamIdleTimeoutMs: 180_000 }, baseDelayMs: 10 } },
		});
		const done = s.prompt("long task");
		const request = await provider.next();
		request.beginText("partial");
		await nextEvent(s, "message_update");
		// Silence just under the limit changes nothing…
		clock.increment(179_999);
		expect(s.isStreaming).toBe(true);
		expect(events.some((e) => e.type === "auto_retry_start")).toBe(false);
		// …and at the limit the request is cancelled and retried.
		provider.answer("answered on retry");
		const retry = nextEvent(s, "auto_retry_start");
		clock.increment(1);
		const started = await retry;
		expect(started.errorMessage).toMatch(/stream idle timeout.*180000 ms/);
		expect(request.signal?.aborted).toBe(true);
		clock.increment(started.delayMs);
		await done;
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(s.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		// The timed-out attempt stays in the log, and the reopened file rebuilds the live context.
		const file = s.sessionFile!;
		expect(fileMessages(file).some((m) => m.role === "assistant" && m.stopReason === "error")).toBe(true);
		const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
		expect(reopened.buildSessionContext().messages.map((m) => m.role)).toEqual(s.messages.map((m) => m.role));
	});

	it("pi#8331: events keep a slow stream alive; without the setting a silent stream is never cut", async () => {
		const watched = await session({ settings: { retry: { provider: { streamIdleTimeoutMs: 1000 } } } });
		const done = watched.session.prompt("slow");
		const request = await watched.provider.next();
		request.beginText("a");
		await nextEvent(watched.session, "message_update");
		for (let i = 0; i < 5; i++) {
			watched.clock.increment(900);
			const update = nextEvent(watched.session, "message_update");
			request.stream.push({
				type: "text_delta",
				contentIndex: 0,
				delta: "b",
				partial: { ...watched.provider.reply("a".padEnd(i + 2, "b")) },
			});
			await update;
		}
		request.finish(watched.provider.reply("abbbbbb"));
		await done;
		expect(watched.events.some((e) => e.type === "auto_retry_start")).toBe(false);

		const unwatched = await session();
		const pending = unwatched.session.prompt("slow");
		const silent = await unwatched.provider.next();
		silent.beginText("a");
		await nextEvent(unwatched.session, "message_update");
		unwatched.clock.increment(24 * 3600_000);
		expect(unwatched.session.isStreaming).toBe(true);
		expect(silent.signal?.aborted).toBe(false);
		await unwatched.session.abort();
		await pending;
	});

	it("pi#5778 / pi-web#368: abort un-wedges a tool whose execute never resolves; the call gets an error result", async () => {
		let started!: () => void;
		const toolStarted = new Promise<void>((resolve) => (started = resolve));
		const { session: s, provider, clock, events } = await session({ customTools: [hungTool(() => started())] });
		provider.answer(provider.toolCallReply(fauxToolCall("mcp_call", {}, { id: "call-1" })), "not reached");
		const done = s.prompt("use the MCP tool");
		await toolStarted;
		const aborted = s.abort();
		// A tool that honours its signal gets a grace to return; this one never does.
		clock.increment(999);
		expect(s.isStreaming).toBe(true);
		clock.increment(1);
		await aborted;
		await done;
		expect(s.isStreaming).toBe(false);
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		const end = events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "call-1", isError: true });
		expect(JSON.stringify(end)).toContain("did not stop within 1000 ms of the abort");
		// No tool call is left without a result in the file: the next request would be refused.
		const file = s.sessionFile!;
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		expect(s.agent.state.pendingToolCalls.size).toBe(0);
	});

	for (const hook of ["tool_call", "tool_result"] as const) {
		it(`pi#9910: abort un-wedges an extension's ${hook} handler that never returns; the call gets an error result naming it, one agent_settled, the session usable`, async () => {
			let entered!: () => void;
			const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
			let toolRuns = 0;
			const lookup: AgentTool = {
				name: "lookup",
				label: "Lookup",
				description: "looks something up",
				parameters: { type: "object", properties: {} } as never,
				execute: async () => {
					toolRuns++;
					return { content: [{ type: "text", text: "found it" }], details: {} };
				},
			};
			const {
				session: s,
				provider,
				clock,
				events,
			} = await session({
				customTools: [lookup],
				extensionFactories: [
					(pi) => {
						// The report's stranded confirmation: a handler whose promise never settles.
						pi.on(hook, () => {
							entered();
							return new Promise<never>(() => {});
						});
					},
				],
			});
			provider.answer(provider.toolCallReply(fauxToolCall("lookup", {}, { id: "call-h" })));
			const done = s.prompt("look it up");
			await handlerEntered;
			const aborted = s.abort();
			// The handler gets the tools' grace to notice ctx.signal; this one never does.
			clock.increment(999);
			expect(s.isStreaming).toBe(true);
			clock.increment(1);
			await aborted;
			await done;
			expect(s.isStreaming).toBe(false);
			expect(s.isIdle).toBe(true);
			expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
			// A stuck tool_call handler: the tool never ran. A stuck tool_result handler: its result is not kept.
			expect(toolRuns).toBe(hook === "tool_call" ? 0 : 1);
			const end = events.find((e) => e.type === "tool_execution_end");
			expect(end).toMatchObject({ toolCallId: "call-h", isError: true });
			expect(JSON.stringify(end)).toContain(`a ${hook} handler for the lookup tool did not return within 1000 ms`);
			expect(JSON.stringify(end)).not.toContain("found it");
			const file = s.sessionFile!;
			expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
			// The session answers the next prompt (pi 0.73.1 refuses it: "Agent is already processing").
			provider.answer("answered");
			await s.prompt("something else");
			expect(s.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
			expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(2);
		});
	}

	it("pi#7053: abort while one call of a parallel batch stalls keeps the finished siblings' real results (in the events, the transcript, the file and the next request); only the stalled call gets an error", async () => {
		let hungStarted!: () => void;
		const stalled = new Promise<void>((resolve) => (hungStarted = resolve));
		const read: AgentTool = {
			name: "read_config",
			label: "Read",
			description: "reads the config",
			parameters: { type: "object", properties: {} } as never,
			execute: async () => ({ content: [{ type: "text", text: "port=8080" }], details: {} }),
		};
		const {
			session: s,
			provider,
			clock,
			events,
		} = await session({ customTools: [read, hungTool(() => hungStarted())] });
		provider.answer(
			provider.toolCallReply(
				fauxToolCall("mcp_call", {}, { id: "call-slow" }),
				fauxToolCall("read_config", {}, { id: "call-a" }),
				fauxToolCall("read_config", {}, { id: "call-b" }),
			),
		);
		const done = s.prompt("check the config and ask the MCP server");
		await stalled;
		// The siblings finished (the user saw them done) while the MCP call hangs.
		while (events.filter((e) => e.type === "tool_execution_end").length < 2) await new Promise((r) => setImmediate(r));
		const aborted = s.abort();
		clock.increment(1000);
		await aborted;
		await done;
		const resultOf = (id: string) =>
			s.messages.find((m) => m.role === "toolResult" && m.toolCallId === id) as
				| { content: { text?: string }[]; isError: boolean }
				| undefined;
		expect(resultOf("call-a")).toMatchObject({ content: [{ text: "port=8080" }], isError: false });
		expect(resultOf("call-b")).toMatchObject({ content: [{ text: "port=8080" }], isError: false });
		expect(resultOf("call-slow")).toMatchObject({ isError: true });
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		const file = s.sessionFile!;
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		const saved = fileMessages(file).filter((m) => m.role === "toolResult");
		expect(saved.map((m) => [m.toolCallId, m.isError])).toEqual([
			["call-slow", true],
			["call-a", false],
			["call-b", false],
		]);
		expect(JSON.stringify(saved.slice(1))).toContain("port=8080");
		// The next request carries the real results, not "No result provided".
		const next = provider.next();
		const answered = s.prompt("and now?");
		const request = await next;
		request.finish(provider.reply("the port is 8080"));
		await answered;
		const sent = JSON.stringify(s.messages);
		expect(sent).not.toContain("No result provided");
		expect(sent.match(/port=8080/g)).toHaveLength(2);
		expect(reopenedContext(file).map(comparable)).toEqual(s.messages.map(comparable));
	});

	it("pi#5778: a tool that honours its abort signal keeps its own result (no grace needed)", async () => {
		let started!: () => void;
		const toolStarted = new Promise<void>((resolve) => (started = resolve));
		const polite: AgentTool = {
			name: "polite",
			label: "Polite",
			description: "stops when aborted",
			parameters: { type: "object", properties: {} } as never,
			execute: (_id, _args, signal) =>
				new Promise((resolve) => {
					signal?.addEventListener("abort", () =>
						resolve({ content: [{ type: "text", text: "stopped cleanly, 3 files done" }], details: {} }),
					);
					started();
				}),
		};
		const { session: s, provider, events } = await session({ customTools: [polite] });
		provider.answer(provider.toolCallReply(fauxToolCall("polite", {}, { id: "call-p" })));
		const done = s.prompt("go");
		await toolStarted;
		await s.abort();
		await done;
		const end = events.find((e) => e.type === "tool_execution_end");
		expect(JSON.stringify(end)).toContain("stopped cleanly, 3 files done");
	});

	it("pi#2381: a stream that ends without a final message can still be aborted", async () => {
		const { session: s, provider, events } = await session();
		const done = s.prompt("hi");
		const request = await provider.next();
		request.beginText("half");
		await nextEvent(s, "message_update");
		// The provider's iterator finishes but its result() never resolves.
		let asked!: () => void;
		const resultAsked = new Promise<void>((resolve) => (asked = resolve));
		(request.stream as unknown as { result(): Promise<never> }).result = () => {
			asked();
			return new Promise<never>(() => {});
		};
		request.stream.end(undefined as never);
		await resultAsked;
		expect(s.isStreaming).toBe(true);
		await s.abort();
		await done;
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(s.isStreaming).toBe(false);
	});

	it("pi#566: abort while the retried request streams ends it at once: the retry reports its real attempt, one agent_settled, the session usable", async () => {
		const {
			session: s,
			provider,
			clock,
			events,
		} = await session({
			settings: { retry: { maxRetries: 3, baseDelayMs: 1000 } },
		});
		const done = s.prompt("task");
		const first = await provider.next();
		const retrying = nextEvent(s, "auto_retry_start");
		first.finish({
			...provider.reply(""),
			stopReason: "error",
			errorMessage: "429 Too Many Requests: rate limit exceeded",
		});
		const started = await retrying;
		clock.increment(started.delayMs);
		const retried = await provider.next();
		const streamed = textDelta(s);
		retried.beginText("Working on it");
		await streamed;
		expect(s.isStreaming).toBe(true);
		await s.abort();
		await done;
		expect(retried.signal?.aborted).toBe(true);
		expect(s.isStreaming).toBe(false);
		expect(s.isRetrying).toBe(false);
		// The real attempt, not 0 (pi#566). `success` is pi 0.73.1's: true, the retried request did not fail.
		expect(events.filter((e) => e.type === "auto_retry_end")).toEqual([expect.objectContaining({ attempt: 1 })]);
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(fileMessages(s.sessionFile!).at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
		provider.answer("back to work");
		await s.prompt("go on");
		expect(s.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(2);
	});
});
