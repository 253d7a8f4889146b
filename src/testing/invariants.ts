/**
 * Checkers for invariants of agent event streams, for property tests.
 */

import type { AgentEvent } from "../agent/types.js";
import type { AgentMessage } from "../llm/types.js";

/**
 * Lists every way `events` (one run, as an Agent listener saw it) breaks the event protocol;
 * returns `[]` when the run is well formed:
 * - exactly one `agent_start` (first) and one `agent_end` (last);
 * - turns don't nest, every `turn_start` is closed by a `turn_end`, message and tool events
 *   happen inside a turn;
 * - every `message_start` is closed by its `message_end` before another message starts;
 *   `message_update` only for the open assistant message;
 * - every `tool_execution_start` has one `tool_execution_end`, before the turn ends and before
 *   the tool result message for that call;
 * - `turn_end` comes after its tool results and carries them (same objects, same order) and the
 *   turn's last assistant message;
 * - every message in `agent_end.messages` had a `message_end`.
 *
 * @example
 * ```ts
 * const events: AgentEvent[] = [];
 * agent.subscribe((event) => void events.push(event));
 * await agent.prompt("hi");
 * expect(agentEventViolations(events)).toEqual([]);
 * ```
 */
export function agentEventViolations(events: readonly AgentEvent[]): string[] {
	const problems: string[] = [];
	if (events.length === 0) return ["no events"];
	if (events[0]!.type !== "agent_start") problems.push(`first event is ${events[0]!.type}, not agent_start`);
	if (events[events.length - 1]!.type !== "agent_end") {
		problems.push(`last event is ${events[events.length - 1]!.type}, not agent_end`);
	}
	let turnOpen = false;
	let openMessage: AgentMessage | undefined;
	const openTools = new Set<string>();
	const endedTools = new Set<string>();
	const ended = new Set<AgentMessage>();
	let turnToolResults: AgentMessage[] = [];
	let turnAssistant: AgentMessage | undefined;
	let agentStarts = 0;
	let agentEnds = 0;

	events.forEach((event, index) => {
		const at = `#${index} ${event.type}`;
		if (agentEnds > 0) problems.push(`${at}: after agent_end`);
		const needsTurn = event.type.startsWith("message_") || event.type.startsWith("tool_execution_");
		if (needsTurn && !turnOpen) problems.push(`${at}: outside a turn`);
		switch (event.type) {
			case "agent_start":
				agentStarts++;
				if (agentStarts > 1) problems.push(`${at}: second agent_start`);
				break;
			case "agent_end":
				agentEnds++;
				if (turnOpen) problems.push(`${at}: turn still open`);
				if (openMessage) problems.push(`${at}: message still open`);
				for (const message of event.messages) {
					if (!ended.has(message)) problems.push(`${at}: carries a ${message.role} message that had no message_end`);
				}
				break;
			case "turn_start":
				if (turnOpen) problems.push(`${at}: previous turn not ended`);
				turnOpen = true;
				turnToolResults = [];
				turnAssistant = undefined;
				break;
			case "turn_end": {
				if (!turnOpen) problems.push(`${at}: no open turn`);
				if (openMessage) problems.push(`${at}: message still open`);
				if (openTools.size > 0) problems.push(`${at}: tool calls still running: ${[...openTools].join(", ")}`);
				if (event.message !== turnAssistant) problems.push(`${at}: message is not the turn's last assistant message`);
				const same =
					event.toolResults.length === turnToolResults.length &&
					event.toolResults.every((result, position) => result === turnToolResults[position]);
				if (!same) problems.push(`${at}: toolResults differ from the tool result messages of the turn`);
				turnOpen = false;
				break;
			}
			case "message_start":
				if (openMessage) problems.push(`${at}: previous ${openMessage.role} message not ended`);
				openMessage = event.message;
				break;
			case "message_update":
				if (openMessage?.role !== "assistant") problems.push(`${at}: no open assistant message`);
				break;
			case "message_end":
				if (!openMessage) problems.push(`${at}: no open message`);
				else if (openMessage.role !== event.message.role) problems.push(`${at}: role differs from its message_start`);
				openMessage = undefined;
				ended.add(event.message);
				if (event.message.role === "assistant") {
					turnAssistant = event.message;
					turnToolResults = [];
				}
				if (event.message.role === "toolResult") {
					if (!endedTools.has(event.message.toolCallId)) {
						problems.push(`${at}: tool result before tool_execution_end of ${event.message.toolCallId}`);
					}
					turnToolResults.push(event.message);
				}
				break;
			case "tool_execution_start":
				if (openTools.has(event.toolCallId)) problems.push(`${at}: ${event.toolCallId} started twice`);
				openTools.add(event.toolCallId);
				break;
			case "tool_execution_update":
				if (!openTools.has(event.toolCallId)) problems.push(`${at}: ${event.toolCallId} is not running`);
				break;
			case "tool_execution_end":
				if (!openTools.delete(event.toolCallId)) problems.push(`${at}: ${event.toolCallId} was not started`);
				endedTools.add(event.toolCallId);
				break;
		}
	});
	return problems;
}
