/**
 * Per-request routing of a virtual selection (pi 1.6 `AgentSession._installAgentRequestProjection`):
 * before every model request of the agent loop the selected virtual model's router picks the
 * physical model and thinking level; new router state is stored on the branch first. The selection
 * stays in agent state; only the request uses the routed model.
 */
import type { AgentContext } from "../agent/types.js";
import { SettleError } from "../errors.js";
import type { ModelRuntime } from "../llm/model-runtime.js";
import type { AgentMessage, AssistantMessage, Model, ThinkingLevel } from "../llm/types.js";
import {
	findLatestResponse,
	isVirtualModel,
	type ModelRouteReason,
	type ResolvedModelRoute,
	type ResolveModelOptions,
	VIRTUAL_MODEL_STATE_ENTRY,
	type VirtualModelStateData,
} from "../llm/virtual-models.js";
import type { SessionManager } from "../store/session-manager.js";
import { convertToLlm } from "./convert-to-llm.js";

/** Physical model and thinking level a virtual selection was last answered with ({@link AgentSession.routedModel}). */
export interface RoutedModel {
	model: Model;
	thinkingLevel?: ThinkingLevel;
}

/** What the router needs of its session. */
export interface RequestRouterHost {
	readonly sessionManager: SessionManager;
	readonly modelRuntime: ModelRuntime;
	/** Emits `entry_appended` for an entry appended outside `message_end`. */
	announce(entryId: string): void;
}

/** Routes the agent loop's requests while a virtual model is selected. */
export class RequestRouter {
	/** The failed response the next request retries (pi's `_failedResponse`). */
	private failed: AssistantMessage | undefined;
	/** The router state found at `leafId` for one virtual model, so the next lookup walks only newer entries. */
	private stateCache: { key: string; leafId: string; state: unknown } | undefined;

	constructor(private readonly host: RequestRouterHost) {}

	/** An automatic retry of `message` follows: the next request is routed with reason `retry`. */
	noteRetry(message: AssistantMessage): void {
		this.failed = message;
	}

	/** The operation settled: no retry is pending any more. */
	clearRetry(): void {
		this.failed = undefined;
	}

	/**
	 * Routes one request of `model` (virtual). Rejects when routing fails: the agent run then ends
	 * with an error response naming the virtual model, which the retry policy treats like any other.
	 */
	async route(
		model: Model,
		thinkingLevel: ThinkingLevel,
		context: AgentContext,
		signal: AbortSignal | undefined,
	): Promise<ResolvedModelRoute> {
		const failed = this.failed;
		this.failed = undefined;
		const { sessionManager, modelRuntime } = this.host;
		if (!modelRuntime.resolveModel) {
			throw new SettleError("PROVIDER", `Virtual model ${model.provider}/${model.id} is not registered.`);
		}
		const state = this.branchState(model);
		const options: ResolveModelOptions = { reason: routeReason(context.messages, failed), thinkingLevel };
		if (signal) options.signal = signal;
		if (failed) options.failed = failed;
		if (state !== undefined) options.state = state;
		const route = await modelRuntime.resolveModel(model, convertToLlm(context.messages), options);
		// Stored before the request is sent, and kept when it fails (pi). Same object: no change.
		if (route.state !== undefined && route.state !== state) {
			const data: VirtualModelStateData = { provider: model.provider, modelId: model.id, state: route.state };
			this.host.announce(sessionManager.appendCustomEntry(VIRTUAL_MODEL_STATE_ENTRY, data));
		}
		return route;
	}

	/**
	 * The router state on the current branch (pi's `getVirtualModelState`): walks back from the leaf
	 * to the latest state entry of this model, or to the leaf of the previous lookup, whose answer
	 * still holds below it. Per request that is the few entries appended since; after tree
	 * navigation to another branch, the whole branch once.
	 */
	private branchState(model: Model): unknown {
		const { sessionManager } = this.host;
		const key = `${model.provider}\0${model.id}`;
		const cache = this.stateCache?.key === key ? this.stateCache : undefined;
		const leafId = sessionManager.getLeafId();
		let state: unknown;
		let found = false;
		for (let id = leafId; id !== null; ) {
			if (id === cache?.leafId) {
				state = cache.state;
				found = true;
				break;
			}
			const entry = sessionManager.getEntry(id);
			if (!entry) break;
			if (entry.type === "custom" && entry.customType === VIRTUAL_MODEL_STATE_ENTRY) {
				const data = entry.data as Partial<VirtualModelStateData> | undefined;
				if (data?.provider === model.provider && data.modelId === model.id) {
					state = data.state;
					found = true;
					break;
				}
			}
			id = entry.parentId;
		}
		if (!found) state = undefined;
		if (leafId !== null) this.stateCache = { key, leafId, state };
		return state;
	}
}

/**
 * `retry` after a failed request; `user` when a message the user wrote follows the last response
 * (extension messages may come with it); else `continuation`.
 */
function routeReason(messages: readonly AgentMessage[], failed: AssistantMessage | undefined): ModelRouteReason {
	if (failed) return "retry";
	for (let i = messages.length - 1; i >= 0; i--) {
		const role = (messages[i] as AgentMessage).role;
		if (role === "assistant") return "continuation";
		if (role === "user") return "user";
	}
	return "continuation";
}

/**
 * Under a virtual selection, the physical model and thinking level of the latest successful
 * response in `messages`; else undefined (pi's `routedModel`). Walks back only to that response.
 *
 * @example
 * ```ts
 * routedModelOf(session.model, session.messages, modelRuntime); // { model: small, thinkingLevel: "low" }
 * ```
 */
export function routedModelOf(
	selected: Model | undefined,
	messages: readonly AgentMessage[],
	runtime: ModelRuntime,
): RoutedModel | undefined {
	if (!selected || !isVirtualModel(selected)) return undefined;
	const latest = findLatestResponse(messages);
	const model = latest && physicalModel(runtime, latest.provider, latest.model);
	if (!model) return undefined;
	return latest.thinkingLevel === undefined ? { model } : { model, thinkingLevel: latest.thinkingLevel };
}

/** The runtime's model when it is physical. */
export function physicalModel(runtime: ModelRuntime, provider: string, modelId: string): Model | undefined {
	if (runtime.getPhysicalModel) return runtime.getPhysicalModel(provider, modelId);
	const model = runtime.getModel(provider, modelId);
	return model && !isVirtualModel(model) ? model : undefined;
}
