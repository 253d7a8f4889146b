/**
 * The awaited event bridge: the session's Agent listener. The Agent
 * awaits it for every event, so its loop cannot move on until the event is fully handled:
 *
 * 1. queue display update (a user `message_start` leaves the steering / follow-up lists);
 * 2. extension handlers, awaited (a `message_end` handler may return a same-role replacement);
 * 3. synchronous public listeners (`agent_end` gains `willRetry` and `aborted`);
 * 4. persistence at `message_end` (custom → custom_message entry; system/user/assistant/toolResult
 *    → message entry);
 * 5. bookkeeping: the last assistant message and the turn's tool results for the post-run
 *    decision, the machine's lifecycle events (`USER_MESSAGE_START`, `ASSISTANT_MESSAGE_END` —
 *    sent only when they change something), pending custom messages flushed at `turn_end`.
 *
 * Consequences (tested as invariants): listeners see agent state that already reflects the event;
 * a replacement is what listeners, state and the log all see; a tool call starts only after the
 * assistant message that asked for it is persisted; the next model call starts only after every
 * tool result of the turn is persisted. Without extension handlers the bridge returns
 * synchronously and allocates nothing per event.
 */
import type { AgentEvent, AgentEventResult, AgentListener } from "../agent/types.js";
import type { RunnerEmitEvent } from "../extensions/types.js";
import type { AgentMessage } from "../llm/types.js";
import type { SessionInternals } from "./internals.js";
import { lastAnswerFailed, willRetry } from "./run-outcome.js";

type MessageEndEvent = Extract<AgentEvent, { type: "message_end" }>;

/** Creates the session's Agent listener. */
export function createEventBridge(s: SessionInternals): AgentListener {
	return (event) => {
		// Decided once, before any handler runs: extensions and listeners get the same answer even when a
		// handler changes the retry settings (that change applies from the next failure on).
		let retrying = false;
		if (event.type === "message_start") {
			if (event.message.role === "user") onUserMessageStart(s, event.message);
		} else if (event.type === "turn_start") {
			s.transcript.startTurn();
		} else if (event.type === "agent_start") {
			s.scratch.turnIndex = 0;
			s.scratch.lastAssistant = undefined;
			s.scratch.runEnded = false;
		} else if (event.type === "agent_end") {
			// Before the extensions' agent_end handlers: what they send finds the run over.
			s.scratch.runEnded = true;
			retrying = announceRetryDecision(s, event.messages);
		}
		const runner = s.runner();
		if (event.type === "message_end") {
			if (!runner.hasHandlers("message_end")) return finishMessageEnd(s, event, undefined);
			return runner
				.emitMessageEnd({ type: "message_end", message: event.message })
				.then((replacement) => finishMessageEnd(s, event, replacement));
		}
		// The extension `turn_end` is the boundary, already dispatched from `finishTurn`.
		if (event.type !== "turn_end" && runner.hasHandlers(event.type)) {
			return runner.emit(extensionEvent(s, event, retrying)).then(() => finishEvent(s, event, retrying));
		}
		finishEvent(s, event, retrying);
		return undefined;
	};
}

function onUserMessageStart(s: SessionInternals, message: AgentMessage): void {
	s.queues.onUserMessageStart(message);
	// C.10 step 1: a new user message resets overflow recovery (only matters once it was attempted).
	if (s.snapshot().context.overflowRecoveryAttempted) s.send({ type: "USER_MESSAGE_START" });
}

/**
 * `agent_end.willRetry`, told to the machine at once: from here on abortRetry() cancels the retry it
 * announces (not only its backoff), and a declined one stays declined whatever a handler turns on.
 */
function announceRetryDecision(s: SessionInternals, messages: readonly AgentMessage[]): boolean {
	const retrying = willRetry(s, messages);
	if (retrying) s.send({ type: "RETRY_ANNOUNCED" });
	else if (lastAnswerFailed(s, messages)) s.send({ type: "RETRY_DECLINED" });
	return retrying;
}

function extensionEvent(s: SessionInternals, event: AgentEvent, retrying: boolean): RunnerEmitEvent {
	switch (event.type) {
		case "agent_start":
			return { type: "agent_start" };
		case "agent_end":
			return {
				type: "agent_end",
				messages: event.messages,
				aborted: endedByAbort(event.messages),
				willRetry: retrying,
			};
		case "turn_start":
			return { type: "turn_start", turnIndex: s.scratch.turnIndex, timestamp: Date.now() };
		default:
			return event as RunnerEmitEvent;
	}
}

/** Newer pi's `agent_end.aborted`: the run's last answer was cut by an abort. */
function endedByAbort(messages: readonly AgentMessage[]): boolean {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i]!;
		if (message.role === "assistant") return message.stopReason === "aborted";
	}
	return false;
}

function finishEvent(s: SessionInternals, event: AgentEvent, retrying: boolean): void {
	switch (event.type) {
		case "agent_end": {
			// A literal, not `{ ...event }`: that spread was most of this function's time (profiled).
			s.events.emit({
				type: "agent_end",
				messages: event.messages,
				// An extension's abort() in its agent_end handler cancels the announced retry.
				willRetry: retrying && !s.snapshot().context.abortRequested,
				aborted: endedByAbort(event.messages),
			});
			return;
		}
		case "turn_end":
			s.scratch.turnToolResults = event.toolResults;
			s.events.emit(event);
			s.scratch.turnIndex++;
			// C.7: custom messages sent while streaming join the transcript between turns.
			s.queues.flushPendingCustom();
			return;
		default:
			s.events.emit(event);
	}
}

function finishMessageEnd(
	s: SessionInternals,
	event: MessageEndEvent,
	replacement: AgentMessage | undefined,
): AgentEventResult {
	let forwarded = event;
	if (replacement && replacement !== event.message) {
		// Replace it in the live transcript now, so listeners already see the final message there.
		const messages = s.agent.state.messages;
		if (messages[messages.length - 1] === event.message) messages[messages.length - 1] = replacement;
		forwarded = { type: "message_end", message: replacement };
	}
	const message = forwarded.message;
	s.scratch.runMessageCount++;
	// Persisted below whatever the listeners do (a dispose included): its delivery is complete.
	if (message.role === "user") s.queues.onUserMessageEnd();
	s.events.emit(forwarded);
	if (message.role === "toolResult" && s.scratch.answeredAtDispose?.has(message.toolCallId)) return undefined;
	s.transcript.persist(message);
	if (message.role === "system") {
		s.agent.state.systemPrompt = message.content;
		if (message === s.scratch.promptSystemMessage) s.scratch.promptSystemMessage = undefined;
	} else if (message.role === "assistant") {
		s.scratch.lastAssistant = message;
		// Retry success (C.4) and the end of a failing request (C.5) are the machine's to see.
		const context = s.snapshot().context;
		const ends = message.stopReason !== "error" && message.stopReason !== "length";
		if (context.retryAttempt > 0 || (context.overflowRecoveryAttempted && ends)) {
			s.send({ type: "ASSISTANT_MESSAGE_END", stopReason: message.stopReason });
		}
	}
	return forwarded === event ? undefined : { message };
}
