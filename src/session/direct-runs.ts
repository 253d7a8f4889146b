/**
 * A session's Agent runs only when the session starts it. A host calling `session.agent.prompt()`
 * or `session.agent.continue()` itself would run the model past the session's machine: no retry,
 * compaction or `agent_settled`, the session saying idle and refusing prompts meanwhile (pi#8401).
 */
import type { Agent } from "../agent/agent.js";
import { SettleError } from "../errors.js";
import { directAgentRun } from "./texts.js";

/** Agents whose session is about to start a run: the next `prompt()` / `continue()` call passes. */
const allowed = new WeakSet<Agent>();

/**
 * Makes `agent.prompt()` / `agent.continue()` reject (`INVALID_ARGUMENT`, starting nothing) unless
 * {@link allowSessionRun} was called just before.
 */
export function refuseDirectRuns(agent: Agent): void {
	const prompt = agent.prompt.bind(agent);
	const resume = agent.continue.bind(agent);
	agent.prompt = (...args: Parameters<Agent["prompt"]>) =>
		allowed.delete(agent)
			? prompt(...args)
			: Promise.reject(new SettleError("INVALID_ARGUMENT", directAgentRun("prompt")));
	agent.continue = () =>
		allowed.delete(agent) ? resume() : Promise.reject(new SettleError("INVALID_ARGUMENT", directAgentRun("continue")));
}

/**
 * The session starts a run now: its next `agent.prompt()` / `agent.continue()` call passes.
 */
export function allowSessionRun(agent: Agent): void {
	allowed.add(agent);
}
