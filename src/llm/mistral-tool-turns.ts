/**
 * An assistant turn between tool results and a user message in Mistral requests. Mistral's API
 * refuses a user message right after tool results, "Unexpected role 'user' after role 'tool'", on
 * every later request (zed#37021); pi-ai 0.73.1's Mistral client sends a steer delivered after tool
 * results, or the prompt after a turn that ended at them, that way. Its Chat Completions client
 * bridges the two with the text below for `requiresAssistantAfterToolResult`, which it never sets
 * for a Mistral model reached that way (it gives those Mistral's 9-character ids); this does the same.
 */
import { requiresMistralToolIds } from "./tool-call-ids.js";
import type { Model, StreamOptions } from "./types.js";

/** pi-ai's own bridge text (openai-completions, `requiresAssistantAfterToolResult`). */
const BRIDGE = "I have processed the tool results.";

type PayloadMessage = { role?: unknown };

/**
 * `options` for pi-ai so that a request to Mistral (`mistral-conversations`, or a Mistral model over
 * `openai-completions`, see `needsBridge`) holds an assistant message between
 * tool results and a user message that follows them, before anyone else sees the payload
 * (`onPayload`, whose own hook then runs). Other wire APIs are left as they are; the session's
 * messages are never changed.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * const options = mistralToolTurnsOptions(model, {});
 * // [… tool "v22.11.0", user "also check npm"] goes as [… tool, assistant "I have processed the tool results.", user]
 * ```
 */
export function mistralToolTurnsOptions(model: Model, options: StreamOptions | undefined): StreamOptions | undefined {
	if (!needsBridge(model)) return options;
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		bridgeToolResults(payload);
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { ...options, onPayload };
}

/**
 * Mistral's API, or a Mistral model over Chat Completions (a gateway, La Plateforme's OpenAI-compatible
 * route: the models that take Mistral's tool call ids), unless its compat says it takes a user
 * message after tool results (`requiresAssistantAfterToolResult: false`).
 */
function needsBridge(model: Model): boolean {
	if (model.api === "mistral-conversations") return true;
	if (model.api !== "openai-completions" || !requiresMistralToolIds(model)) return false;
	return model.compat?.requiresAssistantAfterToolResult !== false;
}

function bridgeToolResults(payload: unknown): void {
	const holder = payload as { messages?: unknown } | null;
	if (!Array.isArray(holder?.messages)) return;
	const bridged: unknown[] = [];
	for (const message of holder.messages as PayloadMessage[]) {
		const previous = bridged.at(-1) as PayloadMessage | undefined;
		if (message?.role === "user" && previous?.role === "tool") bridged.push({ role: "assistant", content: BRIDGE });
		bridged.push(message);
	}
	holder.messages = bridged;
}
