/**
 * Model cycling: the next model among the scoped models that have auth, else
 * among all available models, wrapping around. Pure; the session applies the choice.
 */
import type { ScopedModel } from "../extensions/types.js";
import { sameModel } from "../llm/model-runtime.js";
import type { Model, ThinkingLevel } from "../llm/types.js";

/** Which way {@link AgentSession.cycleModel} moves through the candidates. */
export type CycleDirection = "forward" | "backward";

/** What `cycleModel()` switched to. */
export interface ModelCycleResult {
	model: Model;
	/** The thinking level after the switch (clamped to the model). */
	thinkingLevel: ThinkingLevel;
	/** The model came from the scoped models. */
	isScoped: boolean;
}

/** The candidate `cycleModel()` should switch to. */
export interface CycleChoice {
	model: Model;
	/** The scoped model's own thinking level, when it has one. */
	thinkingLevel?: ThinkingLevel;
	isScoped: boolean;
}

/**
 * The next candidate after `current`: scoped models (those `hasAuth` accepts) when any are
 * scoped, else `available`. Undefined when there is none, or only the current model. A current
 * model that is not a candidate counts as the first one (pi's rule), unless that one is the only one
 * (pi#9580: then it is the next). Must not throw.
 *
 * @example
 * ```ts
 * const [a, b, c] = modelRuntime.getAvailable();
 * nextCycleModel({ scoped: [], available: [a!, b!, c!], current: c, direction: "forward", hasAuth: () => true }); // { model: a, isScoped: false }
 * ```
 */
export function nextCycleModel(input: {
	scoped: readonly ScopedModel[];
	available: readonly Model[];
	current: Model | undefined;
	direction: CycleDirection;
	hasAuth: (model: Model) => boolean;
}): CycleChoice | undefined {
	const isScoped = input.scoped.length > 0;
	const candidates: { model: Model; thinkingLevel?: ThinkingLevel }[] = isScoped
		? input.scoped.filter((scoped) => input.hasAuth(scoped.model))
		: input.available.map((model) => ({ model }));
	const found = candidates.findIndex((candidate) => sameModel(candidate.model, input.current));
	// pi#9580: a scope of one model that is not the current one is still somewhere to go.
	if (candidates.length === 0 || (candidates.length === 1 && found === 0)) return undefined;
	const index = found === -1 ? 0 : found;
	const length = candidates.length;
	const next = candidates[input.direction === "forward" ? (index + 1) % length : (index - 1 + length) % length]!;
	const choice: CycleChoice = { model: next.model, isScoped };
	if (next.thinkingLevel !== undefined) choice.thinkingLevel = next.thinkingLevel;
	return choice;
}
