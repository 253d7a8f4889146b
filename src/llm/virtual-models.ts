/**
 * Virtual models (pi 1.6 `docs/virtual-models.md`, `dist/core/virtual-models.js`): a selectable
 * model whose router picks a physical model and thinking level for every request. The selection
 * (`model_change`) names the virtual model; each assistant message names the physical model that
 * answered. This module holds the types, the catalog entry and the branch readers; routing itself
 * is {@link InMemoryModelRuntime.resolveModel}, and the session calls it before every request.
 */

import type { AgentMessage, AssistantMessage, Message, Model, ThinkingLevel } from "./types.js";

/** `api` of virtual catalog entries. A request to one fails unless it was routed first. */
export const VIRTUAL_MODEL_API = "pi-virtual";

/** `customType` of the custom entries that store router state on a session branch (pi's name). */
export const VIRTUAL_MODEL_STATE_ENTRY = "pi.virtual-model-state";

/** Data of a `pi.virtual-model-state` custom entry. */
export interface VirtualModelStateData<TState = unknown> {
	provider: string;
	modelId: string;
	state: TState;
}

/**
 * Why a request is routed:
 * - `user`: the first request after a message the user wrote (prompt, steering, follow-up)
 * - `continuation`: any other request of the agent loop (after tool results or extension messages)
 * - `retry`: an automatic retry after a failed request
 * - `direct`: a request outside the agent loop (a compaction summary, an extension's own call)
 */
export type ModelRouteReason = "user" | "continuation" | "retry" | "direct";

/** What a router is asked for one request. */
export interface ModelRouteRequest<TState = unknown> {
	/** The selected virtual model. */
	model: Model;
	/** The selected thinking level. Its meaning is up to the router. */
	thinkingLevel: ThinkingLevel;
	reason: ModelRouteReason;
	/** Physical model and thinking level of the latest successful response in `messages`. */
	previous?: { model: Model; thinkingLevel?: ThinkingLevel };
	/** For `retry`: the failed request, which `messages` no longer contains. Absent when routing itself failed. */
	failed?: { model: Model; thinkingLevel?: ThinkingLevel; message: AssistantMessage };
	/** Router state last returned on this session branch. Undefined before the first state and for `direct` requests. */
	state?: TState;
	/** The conversation of this request. */
	messages: readonly Message[];
	signal?: AbortSignal;
}

/** The physical model and thinking level of one request. */
export interface ModelRoute<TState = unknown> {
	model: Model;
	thinkingLevel: ThinkingLevel;
	/**
	 * New router state, stored on the session branch before the request is sent. `undefined` or
	 * `request.state` itself keeps the current state. Must be JSON-serializable.
	 */
	state?: TState;
}

/**
 * A virtual model as SDK code registers it with {@link InMemoryModelRuntime.registerVirtualModel}.
 *
 * @example
 * ```ts
 * const auto: VirtualModelDefinition = {
 *   provider: "router",
 *   id: "auto",
 *   name: "Auto",
 *   thinkingLevels: ["low", "high"],
 *   route: (request) => ({
 *     model: modelRuntime.getModel("faux", request.thinkingLevel === "high" ? "big" : "small")!,
 *     thinkingLevel: "medium",
 *   }),
 * };
 * ```
 */
export interface VirtualModelDefinition<TState = unknown> {
	/** Provider the model is listed under; may be a provider with physical models. */
	provider: string;
	/** Model id; must not be the id of a physical model of `provider`. */
	id: string;
	name: string;
	/** Thinking levels offered for selection. Default `["off"]`. */
	thinkingLevels?: readonly ThinkingLevel[];
	/** Limits shown before the first response; afterwards the answering model's apply. Unset: unknown (0). */
	contextWindow?: number;
	maxTokens?: number;
	/** Input types offered for selection. Default text and images. */
	input?: ("text" | "image")[];
	/** Picks the physical model (which must have credentials) and thinking level of one request. */
	route(request: ModelRouteRequest<TState>): ModelRoute<TState> | Promise<ModelRoute<TState>>;
}

/** Physical model and thinking level a router chose, after checks and clamping. */
export interface ResolvedModelRoute {
	model: Model;
	thinkingLevel: ThinkingLevel;
	state?: unknown;
}

/** Options of one routing call ({@link InMemoryModelRuntime.resolveModel}). */
export interface ResolveModelOptions {
	reason: ModelRouteReason;
	thinkingLevel: ThinkingLevel;
	signal?: AbortSignal;
	/** The failed response a retry follows (its message is no longer in `messages`). */
	failed?: AssistantMessage;
	/** Router state stored on the branch. */
	state?: unknown;
}

const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/**
 * Whether a model (or an assistant message) names a virtual model. A failed routing attempt leaves
 * the virtual model on its message.
 *
 * @example
 * ```ts
 * if (session.model && isVirtualModel(session.model)) console.log(session.routedModel?.model.id);
 * ```
 */
export function isVirtualModel(model: { api: string }): boolean {
	return model.api === VIRTUAL_MODEL_API;
}

/**
 * The latest successful response: failed and aborted requests (failed routing too) are skipped,
 * so its model is physical. Walks back only to that response.
 *
 * @example
 * ```ts
 * const latest = findLatestResponse(session.messages); // latest?.model names the model that answered
 * ```
 */
export function findLatestResponse(messages: readonly AgentMessage[]): AssistantMessage | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as AgentMessage;
		if (message.role === "assistant" && message.stopReason !== "error" && message.stopReason !== "aborted") {
			return message;
		}
	}
	return undefined;
}

/** The parts of session entries {@link getBranchSelection} and {@link getVirtualModelState} read. */
type BranchEntry =
	| { type: "model_change"; provider: string; modelId: string }
	| { type: "message"; message: AgentMessage }
	| { type: "custom"; customType: string; data?: unknown }
	| { type: string };

/**
 * The model selection a session branch records (pi's `getBranchSelection`). A virtual
 * `model_change` holds until the next `model_change`, because responses name the physical models
 * it routed to; otherwise the latest physical response wins, as without virtual models, unless the
 * catalog lacks the name it echoes and the selection before it is of its provider. A virtual
 * model that is no longer registered does not hold: the physical model that answered last does.
 *
 * @example
 * ```ts
 * const selected = getBranchSelection(sessionManager.getBranch(), (p, id) => modelRuntime.getModel(p, id));
 * ```
 */
export function getBranchSelection(
	branch: readonly BranchEntry[],
	getModel: (provider: string, modelId: string) => Model | undefined,
): { provider: string; modelId: string } | undefined {
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as BranchEntry;
		if (isModelChange(entry)) return { provider: entry.provider, modelId: entry.modelId };
		if (isMessageEntry(entry) && entry.message.role === "assistant" && !isVirtualModel(entry.message)) {
			const response = { provider: entry.message.provider, modelId: entry.message.model };
			const change = findLastModelChange(branch, i);
			const model = change && getModel(change.provider, change.modelId);
			if (change && model && isVirtualModel(model)) return change;
			// A relay may echo the upstream's name (`claude-opus-5` for `anthropic/claude-opus-5`):
			// a response the catalog does not know falls back to its provider's selection (pi#9243).
			const echoed = model && change.provider === response.provider && !getModel(response.provider, response.modelId);
			return echoed ? change : response;
		}
	}
	return undefined;
}

function findLastModelChange(
	branch: readonly BranchEntry[],
	before: number,
): { provider: string; modelId: string } | undefined {
	for (let i = before - 1; i >= 0; i--) {
		const entry = branch[i] as BranchEntry;
		if (isModelChange(entry)) return { provider: entry.provider, modelId: entry.modelId };
	}
	return undefined;
}

/**
 * The latest router state a branch stores for one virtual model (undefined when none).
 *
 * @example
 * ```ts
 * const state = getVirtualModelState(sessionManager.getBranch(), "router", "auto");
 * ```
 */
export function getVirtualModelState(branch: readonly BranchEntry[], provider: string, modelId: string): unknown {
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as BranchEntry;
		if (!isCustomEntry(entry) || entry.customType !== VIRTUAL_MODEL_STATE_ENTRY) continue;
		const data = entry.data as Partial<VirtualModelStateData> | undefined;
		if (data?.provider === provider && data.modelId === modelId) return data.state;
	}
	return undefined;
}

/**
 * The catalog entry of a virtual model: api {@link VIRTUAL_MODEL_API}, its thinking levels as the
 * only supported ones, zero cost, and unset limits as 0 (unknown).
 *
 * @example
 * ```ts
 * createVirtualModel({ provider: "router", id: "auto", name: "Auto" }).reasoning; // false: only "off"
 * ```
 */
export function createVirtualModel(definition: Omit<VirtualModelDefinition, "route">): Model {
	const levels = definition.thinkingLevels ?? ["off"];
	const thinkingLevelMap: Partial<Record<ThinkingLevel, string | null>> = {};
	for (const level of THINKING_LEVELS) thinkingLevelMap[level] = levels.includes(level) ? level : null;
	return {
		id: definition.id,
		name: definition.name,
		api: VIRTUAL_MODEL_API,
		provider: definition.provider,
		baseUrl: "",
		reasoning: levels.some((level) => level !== "off"),
		thinkingLevelMap,
		input: definition.input ?? ["text", "image"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: definition.contextWindow ?? 0,
		maxTokens: definition.maxTokens ?? 0,
	};
}

function isModelChange(entry: BranchEntry): entry is { type: "model_change"; provider: string; modelId: string } {
	return entry.type === "model_change";
}

function isMessageEntry(entry: BranchEntry): entry is { type: "message"; message: AgentMessage } {
	return entry.type === "message";
}

function isCustomEntry(entry: BranchEntry): entry is { type: "custom"; customType: string; data?: unknown } {
	return entry.type === "custom";
}
