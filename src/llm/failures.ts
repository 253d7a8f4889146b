/**
 * Why a response failed, as a typed {@link SettleError}, kept beside the failure message (never in
 * it: pi's message format has no such field, and the log stays pi's). The agent loop notes every
 * provider failure it ends a turn with ({@link providerFailure}: `NO_AUTH` when the provider refused
 * the key, else `PROVIDER`), and the Agent notes the error a listener threw to end a run (the
 * session's log: `SESSION_LOCKED`, `IO`). Hosts branch on the code, never on the text: a provider
 * whose error text merely mentions `401` or a lock is still a `PROVIDER` failure.
 */
import { SettleError } from "../errors.js";
import { isOverflowErrorText } from "./errors.js";
import type { AgentMessage, AssistantMessage } from "./types.js";

const failures = new WeakMap<AssistantMessage, SettleError>();

/** Notes why `message` (a failure message) failed. */
export function noteFailure(message: AssistantMessage, error: SettleError): void {
	failures.set(message, error);
}

/**
 * Why a failed assistant message failed, as a typed {@link SettleError}, or undefined (a success,
 * an abort, a failure message read back from a session file, or one built by hand). The code is
 * `NO_AUTH` when the provider refused the key (HTTP 401 / 403, Google's `API key not valid`),
 * `PROVIDER` for any other provider failure, and the code of the error that ended the run when the
 * session's log failed (`SESSION_LOCKED`, `IO`). Branch on the code, not on `errorMessage`: a
 * provider whose text merely mentions a 401 is still a `PROVIDER` failure.
 *
 * A message an extension put in place of a failure at `message_end` keeps the code while it is
 * still a failure (`stopReason: "error"`), its text being the replacement's `errorMessage`; an
 * extension that turns the failure into an answer clears it.
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
 * Carries the failure noted for `original` to the message that replaced it at `message_end`: the
 * same error while the replacement says the same, the same code and details with the
 * replacement's text when an extension reworded it, nothing once the replacement is no failure.
 * A replacement that already has one keeps it.
 */
export function carryFailure(original: AgentMessage, replacement: AgentMessage): void {
	if (original === replacement || original.role !== "assistant" || replacement.role !== "assistant") return;
	const failure = failures.get(original);
	if (!failure || replacement.stopReason !== "error" || failures.has(replacement)) return;
	const text = replacement.errorMessage ?? `Request ${replacement.stopReason}`;
	failures.set(
		replacement,
		text === failure.message
			? failure
			: new SettleError(failure.code, text, {
					cause: failure,
					...(failure.details ? { details: failure.details } : {}),
				}),
	);
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
 * 403, or Google's HTTP 400 `API key not valid` — else `PROVIDER` (a 401 whose text is a context
 * overflow too: no key would help). The message is the provider's text.
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
	// Kimi Code words its context overflow as a 401 `authentication_error` (kimi-code#2613): no key to check.
	const refused =
		(status === 401 || status === 403 || (status === 400 && /\bapi key not valid\b/i.test(text))) &&
		!isOverflowErrorText(text);
	return new SettleError(refused ? "NO_AUTH" : "PROVIDER", text, {
		details: { provider: message.provider, ...(status !== undefined ? { status } : {}) },
	});
}
