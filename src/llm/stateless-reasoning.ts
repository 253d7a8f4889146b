/**
 * Reasoning items that can come back on the next OpenAI Responses request. pi-ai 0.73.1 sends
 * `store: false` (OpenAI keeps nothing) and asks for `reasoning.encrypted_content` only when a
 * reasoning effort is set. At thinking `off`, a model that reasons anyway (a `thinkingLevelMap.off`
 * of `"minimal"`, a gateway model that always thinks) answered with reasoning items that carry only
 * their id; pi-ai sent them back by id, and OpenAI, having stored nothing, refused the request after
 * every tool call: 404 "Item with id 'rs_…' not found" (pi#5059).
 */
import type { Model, StreamOptions } from "./types.js";

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/**
 * `options` for pi-ai whose `onPayload` asks a reasoning model's stateless (`store: false`)
 * Responses request for the reasoning's encrypted content, whatever the thinking level, so each
 * reasoning item the model returns can be replayed on the next request; the caller's own
 * `onPayload` then runs. Other wire APIs and models that cannot reason are left as they are.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * const options = requestReplayableReasoning(model, {});
 * // pi-ai's Responses request then holds include: ["reasoning.encrypted_content"]
 * ```
 */
export function requestReplayableReasoning(
	model: Model,
	options: StreamOptions | undefined,
): StreamOptions | undefined {
	if (model.api !== "openai-responses" || !model.reasoning) return options;
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		const params = payload as { store?: unknown; include?: unknown } | null;
		if (params && params.store === false) {
			const include = Array.isArray(params.include) ? (params.include as unknown[]) : [];
			if (!include.includes(ENCRYPTED_REASONING)) params.include = [...include, ENCRYPTED_REASONING];
		}
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { ...options, onPayload };
}
