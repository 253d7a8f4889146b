/**
 * Tracks which structural events of a run were emitted, so a run that fails part-way can be
 * closed with a well-formed event sequence (a synthesized failure message).
 */
import { errorMessage } from "../errors.js";
import { type AgentMessage, type AssistantMessage, emptyUsage, type Model } from "../llm/types.js";
import type { AgentEvent } from "./types.js";

/** Observes a run's events; {@link RunTracker.failureEvents} closes it after an error. */
export class RunTracker {
	agentStarted = false;
	agentEnded = false;
	turnOpen = false;
	/** A message between its `message_start` and `message_end` (latest streamed partial). */
	openMessage: AgentMessage | undefined;

	observe(event: AgentEvent): void {
		switch (event.type) {
			case "agent_start":
				this.agentStarted = true;
				break;
			case "agent_end":
				this.agentEnded = true;
				break;
			case "turn_start":
				this.turnOpen = true;
				break;
			case "turn_end":
				this.turnOpen = false;
				break;
			case "message_start":
			case "message_update":
				this.openMessage = event.message;
				break;
			case "message_end":
				this.openMessage = undefined;
				break;
		}
	}

	/**
	 * The events that end a failed run: missing `agent_start`/`turn_start`, a `message_end` for a
	 * message left open, then the failure assistant message (`message_start`, `message_end`),
	 * `turn_end` without tool results and `agent_end [failure]`. An assistant message left open
	 * becomes the failure message itself, keeping its partial content. Returns `undefined` when
	 * `agent_end` was already emitted (nothing can follow it).
	 */
	failureEvents(
		error: unknown,
		model: Model,
		aborted: boolean,
	): { events: AgentEvent[]; failure: AssistantMessage } | undefined {
		if (this.agentEnded) return undefined;
		const events: AgentEvent[] = [];
		if (!this.agentStarted) events.push({ type: "agent_start" });
		const stopReason = aborted ? "aborted" : "error";
		const text = errorMessage(error);
		const open = this.openMessage;
		let failure: AssistantMessage;
		if (open?.role === "assistant") {
			failure = { ...open, stopReason, errorMessage: text };
			events.push({ type: "message_end", message: failure });
		} else {
			if (open) events.push({ type: "message_end", message: open });
			if (!this.turnOpen) events.push({ type: "turn_start" });
			failure = {
				role: "assistant",
				content: [{ type: "text", text: "" }],
				api: model.api,
				provider: model.provider,
				model: model.id,
				usage: emptyUsage(),
				stopReason,
				errorMessage: text,
				timestamp: Date.now(),
			};
			events.push({ type: "message_start", message: failure }, { type: "message_end", message: failure });
		}
		events.push({ type: "turn_end", message: failure, toolResults: [] }, { type: "agent_end", messages: [failure] });
		return { events, failure };
	}
}
