/**
 * `h.transcript()`: a harness's recorded events as one short line each — what a failed property
 * needs to see of the run (the order of messages, tool calls, retries, settles and the actions
 * that fired) without printing whole event objects.
 */
import type { AgentMessage } from "../llm/types.js";
import type { AgentSessionEvent } from "../session/events.js";
import { describeAction, type FiredAction } from "./actions.js";
import { AGENT_EVENT_TYPES } from "./session-invariants.js";

const MAX_TEXT = 60;

function short(text: string): string {
	return JSON.stringify(text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.flatMap((block: { type?: string; text?: unknown }) =>
			block?.type === "text" && typeof block.text === "string" ? [block.text] : [],
		)
		.join("\n");
}

function describeMessage(message: AgentMessage): string {
	switch (message.role) {
		case "user":
			return `user ${short(textOf(message.content))}`;
		case "assistant": {
			const parts = message.content.map((block) => {
				if (block.type === "toolCall") return `${block.name}(${block.id}) ${JSON.stringify(block.arguments)}`;
				if (block.type === "thinking") return `thinking ${short(block.thinking)}`;
				return short(block.text);
			});
			const stop = message.stopReason === "stop" ? "" : ` [${message.stopReason}]`;
			const error = message.errorMessage === undefined ? "" : ` ${short(message.errorMessage)}`;
			return `assistant ${parts.join(", ") || "(empty)"}${stop}${error}`;
		}
		case "toolResult":
			return `toolResult ${message.toolName}(${message.toolCallId})${message.isError ? " error" : ""} ${short(textOf(message.content))}`;
		case "custom":
			return `custom ${message.customType}`;
		default:
			return message.role;
	}
}

function describeEvent(event: AgentSessionEvent): string {
	switch (event.type) {
		case "message_start":
		case "message_end":
			return `${event.type} ${describeMessage(event.message)}`;
		case "tool_execution_start":
			return `tool_execution_start ${event.toolName}(${event.toolCallId}) ${JSON.stringify(event.args)}`;
		case "tool_execution_end":
			return `tool_execution_end ${event.toolName}(${event.toolCallId})${event.isError ? ` error ${short(textOf(event.result.content))}` : ""}`;
		case "agent_end":
			return `agent_end${event.willRetry ? " willRetry" : ""}${event.aborted ? " aborted" : ""}`;
		case "auto_retry_start":
			return `auto_retry_start attempt ${event.attempt}/${event.maxAttempts} in ${event.delayMs} ms: ${short(event.errorMessage)}`;
		case "auto_retry_end":
			return `auto_retry_end attempt ${event.attempt} ${event.success ? "success" : `failed ${short(event.finalError ?? "")}`}`;
		case "agent_settled":
			return `agent_settled${event.errorMessage === undefined ? "" : ` ${short(event.errorMessage)}`}`;
		case "queue_update":
			return `queue_update steering ${JSON.stringify(event.steering)} followUp ${JSON.stringify(event.followUp)}`;
		case "entry_appended":
			return `entry_appended ${event.entry.type}`;
		case "compaction_start":
			return `compaction_start ${event.reason}`;
		case "compaction_end":
			return `compaction_end ${event.reason}${event.aborted ? " aborted" : ""}${event.willRetry ? " willRetry" : ""}${event.errorMessage === undefined ? "" : ` ${short(event.errorMessage)}`}`;
		default:
			return event.type;
	}
}

/**
 * One line per event: `#<index> [run <n> #<index in the run>] <event> <what it carries>`; the run
 * numbers are those `sessionEventViolations` names (`run 1: #3 turn_end: …`), the first index the
 * one `applyActionsOnEvents` counts (`at event 14`). Consecutive `message_update`s fold into one
 * line; each fired action is marked on the line of the event it fired at.
 */
export function formatTranscript(
	events: readonly AgentSessionEvent[],
	fired: readonly FiredAction[] = [],
	firstActionEvent = 0,
): string {
	const actionsAt = new Map<number, string[]>();
	for (const record of fired) {
		const index = firstActionEvent + record.eventIndex;
		const marks = actionsAt.get(index) ?? [];
		marks.push(`${describeAction(record.action)}${record.error === undefined ? "" : " (rejected)"}`);
		actionsAt.set(index, marks);
	}
	const lines: string[] = [];
	let runs = 0;
	let inRun = -1;
	let updates: { first: number; firstInRun: number; count: number } | undefined;
	const flush = () => {
		if (!updates) return;
		const { first, firstInRun, count } = updates;
		const last = first + count - 1;
		lines.push(
			count === 1
				? `#${first} [run ${runs} #${firstInRun}] message_update`
				: `#${first}-#${last} [run ${runs} #${firstInRun}-#${firstInRun + count - 1}] message_update ×${count}`,
		);
		updates = undefined;
	};
	events.forEach((event, index) => {
		const agentEvent = AGENT_EVENT_TYPES.has(event.type);
		if (event.type === "agent_start") {
			runs++;
			inRun = 0;
		}
		const runIndex = agentEvent && inRun >= 0 ? inRun++ : undefined;
		const marks = actionsAt.get(index);
		if (event.type === "message_update" && runIndex !== undefined && !marks) {
			if (updates && updates.first + updates.count === index) updates.count++;
			else {
				flush();
				updates = { first: index, firstInRun: runIndex, count: 1 };
			}
			return;
		}
		flush();
		const run = runIndex === undefined ? "" : ` [run ${runs} #${runIndex}]`;
		const fired = marks ? `  <- ${marks.join(", ")}` : "";
		lines.push(`#${index}${run} ${describeEvent(event)}${fired}`);
		if (event.type === "agent_end") inRun = -1;
	});
	flush();
	return lines.join("\n");
}
