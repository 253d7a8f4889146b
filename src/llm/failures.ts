/**
 * Why a response failed, as a typed {@link SettleError}, kept beside the failure message (never in
 * it: pi's message format has no such field, and the log stays pi's). The agent loop notes every
 * provider failure it ends a turn with ({@link providerFailure}: `NO_AUTH` when the provider refused
 * the key, else `PROVIDER`), and the Agent notes the error a listener threw to end a run (the
 * session's log: `SESSION_LOCKED`, `IO`). Hosts branch on the code, never on the text: a provider
 * whose error text merely mentions `401` or a lock is still a `PROVIDER` failure.
 */
import { SettleError } from "../errors.js";
import type { AssistantMessage } from "./types.js";

const failures = new WeakMap<AssistantMessage, SettleError>();

/** Notes why `message` (a failure message) failed. */
export function noteFailure(message: AssistantMessage, error: SettleError): void {
	failures.set(message, error);
}

/**
 * The typed error a failure message was noted with, or undefined (a success, an abort, or a message
 * read back from a log).
 *
 * @example
 * ```ts
 * const last = session.messages.at(-1);
 * if (last?.role === "assistant" && failureOf(last)?.code === "NO_AUTH") console.error("Check the API key.");
 * ```
 */
export function failureOf(message: AssistantMessage): SettleError | undefined {
	return failures.get(message);
}

/**
 * The HTTP status at the head of a provider SDK's error text, as pi-ai reports it: `401 {…}` /
 * `401 Incorrect API key provided` (Anthropic and OpenAI SDKs: `<status> <body>`), Google's
 * `{"error":{"code":400,…}}` and `got status: 400. …`. Undefined when the text does not start that
 * way: a number later in the text is the provider's prose, not the response's status.
 */
export function providerErrorStatus(errorMessage: string): number | undefined {
	const match = /^(?:got status: |\{"error":\{"code":)?([1-5]\d\d)\b/.exec(errorMessage);
	return match ? Number(match[1]) : undefined;
}

/**
 * The typed error of a provider failure: `NO_AUTH` when the provider refused the key — HTTP 401 or
 * 403, or Google's HTTP 400 `API key not valid` — else `PROVIDER`. The message is the provider's text.
 *
 * @example
 * ```ts
 * const refused = emptyAssistantMessage(model, "error", '401 {"type":"error","error":{"type":"authentication_error"}}');
 * providerFailure(refused).code; // "NO_AUTH"
 * ```
 */
export function providerFailure(message: AssistantMessage): SettleError {
	const text = message.errorMessage ?? `Request ${message.stopReason}`;
	const status = providerErrorStatus(text);
	const refused = status === 401 || status === 403 || (status === 400 && /\bapi key not valid\b/i.test(text));
	return new SettleError(refused ? "NO_AUTH" : "PROVIDER", text, {
		details: { provider: message.provider, ...(status !== undefined ? { status } : {}) },
	});
}
