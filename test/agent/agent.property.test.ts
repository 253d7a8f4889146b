import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentTool } from "../../src/agent/types.js";
import type { AgentMessage, ToolResultMessage } from "../../src/llm/types.js";
import {
	agentEventViolations,
	fauxAssistantMessage,
	fauxScriptArbitrary,
	fauxToolCall,
} from "../../src/testing/index.js";
import { createTestAgent, echoTool, textResult, user } from "./helpers.js";

/** The transcript must be exactly the messages that had a message_end, in order. */
function endedMessages(events: readonly AgentEvent[]): AgentMessage[] {
	return events.flatMap((event) => (event.type === "message_end" ? [event.message] : []));
}

describe("property: event streams are well formed", () => {
	it("(a) for random scripts of text, thinking, tool calls, length stops and errors", async () => {
		await fc.assert(
			fc.asyncProperty(
				fauxScriptArbitrary({
					toolNames: ["echo", "missing"],
					toolArguments: fc.oneof(fc.record({ text: fc.string({ maxLength: 8 }) }), fc.record({ txt: fc.integer() })),
					kinds: ["text", "thinking", "toolCalls", "retryableError", "fatalError", "length"],
					maxLength: 8,
				}),
				fc.constantFrom("parallel" as const, "sequential" as const),
				fc.array(fc.constantFrom("steer", "followUp"), { maxLength: 3 }),
				async (script, toolExecution, queued) => {
					const { agent, faux, events } = createTestAgent({ toolExecution, initialState: { tools: [echoTool()] } });
					faux.setResponses(script.map((step) => step.message));
					let queuedOnce = false;
					agent.subscribe((event) => {
						if (event.type === "tool_execution_start" && !queuedOnce) {
							queuedOnce = true;
							for (const kind of queued) agent[kind](user(kind));
						}
					});
					await agent.prompt("go");
					expect(agentEventViolations(events)).toEqual([]);
					expect(agent.state.messages).toEqual(endedMessages(events));
					expect(agent.state.isStreaming).toBe(false);
					expect(agent.state.pendingToolCalls.size).toBe(0);
					expect(faux.callCount).toBeLessThanOrEqual(script.length + 1);
					const assistants = agent.state.messages.filter((message) => message.role === "assistant");
					const last = assistants.at(-1)!;
					if (last.role === "assistant" && (last.stopReason === "error" || last.stopReason === "aborted")) {
						expect(agent.state.errorMessage).toBe(last.errorMessage);
					}
				},
			),
			{ numRuns: 150 },
		);
	});
});

describe("property: tool results follow source order", () => {
	it("(b) whatever order parallel tools finish in", async () => {
		await fc.assert(
			fc.asyncProperty(fc.scheduler(), fc.integer({ min: 1, max: 6 }), async (s, count) => {
				const tool: AgentTool = echoTool({
					execute: (id) => s.schedule(Promise.resolve(textResult(id)), `finish ${id}`),
				});
				const { agent, faux, events } = createTestAgent({ initialState: { tools: [tool] } });
				const ids = Array.from({ length: count }, (_, index) => `c${index}`);
				faux.setResponses([
					fauxAssistantMessage(
						ids.map((id) => fauxToolCall("echo", { text: id }, { id })),
						{ stopReason: "toolUse" },
					),
					fauxAssistantMessage("done"),
				]);
				await s.waitFor(agent.prompt("go"));

				const results = agent.state.messages.filter(
					(message): message is ToolResultMessage => message.role === "toolResult",
				);
				expect(results.map((message) => message.toolCallId)).toEqual(ids);
				expect(results.map((message) => (message.content[0] as { text: string }).text)).toEqual(ids);
				const turnEnd = events.find((event) => event.type === "turn_end") as Extract<AgentEvent, { type: "turn_end" }>;
				expect(turnEnd.toolResults.map((message) => message.toolCallId)).toEqual(ids);
				const ends = events.flatMap((event) => (event.type === "tool_execution_end" ? [event.toolCallId] : []));
				expect([...ends].sort()).toEqual([...ids].sort());
				expect(agentEventViolations(events)).toEqual([]);
			}),
			{ numRuns: 150 },
		);
	});
});

describe("property: abort at any moment", () => {
	it("(c) ends in agent_end, not streaming, no pending tool calls, no model call after the abort", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				fc.nat({ max: 50 }),
				fauxScriptArbitrary({
					toolNames: ["echo", "careful"],
					toolArguments: fc.constant({ text: "t" }),
					maxLength: 5,
				}),
				async (s, abortAtEvent, script) => {
					// "echo" finishes when the scheduler says so; "careful" also stops on abort.
					const echo = echoTool({ execute: (id) => s.schedule(Promise.resolve(textResult(id)), `echo ${id}`) });
					const careful = echoTool({
						name: "careful",
						execute: (id, _params, signal) =>
							new Promise((resolve, reject) => {
								signal?.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
								void s.schedule(Promise.resolve(), `careful ${id}`).then(() => resolve(textResult(id)));
							}),
					});
					const { agent, faux, events } = createTestAgent({ initialState: { tools: [echo, careful] } });
					faux.setResponses(script.map((step) => step.message));
					let callsAtAbort: number | undefined;
					let eventsAtAbort = 0;
					agent.subscribe((event) => {
						if (events.length === abortAtEvent && event.type !== "agent_end") {
							callsAtAbort = faux.callCount;
							eventsAtAbort = events.length;
							agent.abort();
						}
					});
					await s.waitFor(agent.prompt("go"));

					expect(events.at(-1)?.type).toBe("agent_end");
					expect(agent.state.isStreaming).toBe(false);
					expect(agent.state.pendingToolCalls.size).toBe(0);
					expect(agentEventViolations(events)).toEqual([]);
					if (callsAtAbort !== undefined) {
						expect(faux.callCount).toBe(callsAtAbort);
						// Every assistant message started after the abort is an aborted one. (A reply whose
						// message_start carried the abort may already be complete, e.g. an instant error.)
						let startedAfterAbort = false;
						for (const event of events.slice(eventsAtAbort)) {
							if (event.type === "message_start") startedAfterAbort = event.message.role === "assistant";
							if (event.type === "message_end" && startedAfterAbort) {
								expect(event.message).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
							}
						}
					}
				},
			),
			{ numRuns: 200 },
		);
	});
});
