/**
 * Reasoning items that can come back on the next OpenAI Responses request. pi-ai 0.73.1 sends
 * `store: false` (OpenAI keeps nothing) and asks for `reasoning.encrypted_content` only when a
 * reasoning effort is set. At thinking `off`, a model that reasons anyway (a `thinkingLevelMap.off`
 * of `"minimal"`, a gateway model that always thinks) answered with reasoning items that carry only
 * their id; pi-ai sent them back by id, and OpenAI, having stored nothing, refused the request after
 * every tool call: 404 "Item with id 'rs_…' not found" (pi#5059). A session file written before
 * (by pi, or by Settle without this) still holds such items: sent by id, they are refused on every
 * later turn of the resumed session (oh-my-pi#41), so they are left out of the request. An answer
 * cut while it reasoned (`incomplete` at `max_output_tokens`) holds a reasoning item and nothing
 * after it; OpenAI refuses that item on every later request: 400 "Item 'rs_…' of type 'reasoning'
 * was provided without its required following item" (continue#8933), so it is left out too.
 */
import type { Model, StreamOptions } from "./types.js";

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/**
 * `options` for pi-ai whose `onPayload` asks a reasoning model's stateless (`store: false`)
 * Responses request for the reasoning's encrypted content, whatever the thinking level, so each
 * reasoning item the model returns can be replayed on the next request, and leaves out of a
 * stateless Responses or Codex request each reasoning item without encrypted content (OpenAI
 * cannot find it by id), and from any Responses or Codex request each reasoning item that no call
 * or answer of its turn follows; the session keeps them. The caller's own `onPayload` then runs.
 * Other wire APIs are left as they are.
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
	if (model.api !== "openai-responses" && model.api !== "openai-codex-responses") return options;
	const asksForEncrypted = model.api === "openai-responses" && model.reasoning;
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		const params = payload as { store?: unknown; include?: unknown; input?: unknown } | null;
		if (params && params.store === false) {
			const include = Array.isArray(params.include) ? (params.include as unknown[]) : [];
			if (asksForEncrypted && !include.includes(ENCRYPTED_REASONING))
				params.include = [...include, ENCRYPTED_REASONING];
			if (Array.isArray(params.input)) params.input = withoutUnresolvableReasoning(params.input);
		}
		if (params && Array.isArray(params.input)) params.input = withoutUnfollowedReasoning(params.input);
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { ...options, onPayload };
}

type InputItem = { type?: unknown; role?: unknown; id?: unknown; encrypted_content?: unknown };

/**
 * The input without reasoning items that carry no encrypted content: under `store: false` OpenAI
 * answers 404 for each. The calls and messages of the same turn go on without their item ids, as
 * pi-ai sends another model's calls, so nothing pairs them with the reasoning left out.
 */
function withoutUnresolvableReasoning(input: unknown[]): unknown[] {
	const kept: unknown[] = [];
	let orphaned = false;
	for (const value of input) {
		const item = (value ?? {}) as InputItem;
		if (item.type === "reasoning") {
			orphaned = typeof item.encrypted_content !== "string" || item.encrypted_content === "";
			if (!orphaned) kept.push(value);
			continue;
		}
		const turnOutput = item.type === "function_call" || (item.type === "message" && item.role === "assistant");
		if (!turnOutput) orphaned = false;
		if (orphaned && turnOutput && item.id !== undefined) {
			const { id: _id, ...rest } = item;
			kept.push(rest);
		} else kept.push(value);
	}
	return kept;
}

/**
 * The input without reasoning items that no call or assistant message follows (reasoning items in
 * a row count as one): OpenAI refuses such an item, which an answer cut mid-reasoning leaves.
 */
function withoutUnfollowedReasoning(input: unknown[]): unknown[] {
	const kept: unknown[] = [];
	let followed = false;
	for (let at = input.length - 1; at >= 0; at--) {
		const item = (input[at] ?? {}) as InputItem;
		if (item.type !== "reasoning") {
			followed = item.type === "function_call" || (item.type === "message" && item.role === "assistant");
		} else if (!followed) continue;
		kept.push(input[at]);
	}
	return kept.length === input.length ? input : kept.reverse();
}
