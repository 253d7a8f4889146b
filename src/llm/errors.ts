/**
 * The one place that decides what a failed (or suspicious) assistant response means for recovery:
 * context overflow (compact, then maybe retry), a truncated response caused by a full context,
 * a transient provider failure (retry with backoff), or a fatal error (settle with the error).
 *
 * Everything here is pure string/number inspection of an {@link AssistantMessage}; no I/O.
 */

import { geminiStopRetryable } from "./gemini-stop.js";
import type { AssistantMessage, Model } from "./types.js";

/**
 * Error texts providers send when the request does not fit the model's context window
 * (pi's, plus the two texts pi-ai 0.73.1 added: Anthropic `request_too_large` and
 * Ollama's explicit overflow). Matched case-insensitively against `errorMessage`.
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
	/prompt is too long/i, // Anthropic, Bedrock-Claude
	/input length and `?max_tokens`? exceed context limit/i, // Anthropic: input + max_tokens > window (HTTP 400)
	/request_too_large/i, // Anthropic HTTP 413 (byte size)
	/input is too long for requested model/i, // Amazon Bedrock
	/exceeds the context window/i, // OpenAI completions and responses
	/input token count.*exceeds the maximum/i, // Google Gemini
	/maximum prompt length is \d+/i, // xAI
	/reduce the length of the messages/i, // Groq, OpenAI
	/maximum context length is \d+ tokens/i, // OpenRouter, OpenAI
	// vLLM when input + max_tokens pass the window: "You passed 99073 input tokens and requested 32000 output
	// tokens. However, the model's context length is only 131072 tokens, …" (opencode#17746).
	/context length is only [\d,]+ tokens/i,
	// vLLM and other OpenAI-compatible servers: "Input length (265330) exceeds model's maximum context
	// length (262144)." and "… of 8192 tokens" (pi#5677: taken for a plain failure, never compacted).
	/exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))/i,
	/exceeds the maximum allowed input length of [\d,]+ tokens/i, // GLM behind LiteLLM (Switchyard#314)
	/prompt \u8d85\u957f/i, // "prompt 超长"; Zhipu (bigmodel.cn) error 1261 (octo-agent#2124)
	// DashScope (Qwen): "Range of input length should be [1, 129024]"; its `max_tokens` range is not one.
	/range of input length should be \[/i, // (opencode#45834)
	// SGLang, the input alone over the window: "The input (263000 tokens) is longer than the model's context length (262144 tokens)."
	/is longer than the model'?s context length/i, // (openclaw#129352)
	// oMLX (MLX server), in a `{"detail": …}` body: "Prompt too long: 32799 tokens exceeds max context window of 32768 tokens"
	/exceeds (?:the )?max(?:imum)? context window of [\d,]+/i, // (omlx#26)
	/exceeds the limit of \d+/i, // GitHub Copilot
	/exceeds the available context size/i, // llama.cpp
	/greater than the context length/i, // LM Studio
	/context window exceeds limit/i, // MiniMax
	/exceeded model token limit/i, // Kimi
	// Kimi's request size cap, reached before its 1M-token window: "total message size 2100954 exceeds limit 2097152" (kimi-code#1862).
	/total message size \d+ exceeds limit \d+/i,
	// Kimi Code, as a 401 `authentication_error`: "k3-256k supports only 256K context." (kimi-code#2613).
	/supports only \d+k? context\b/i,
	/too large for model with \d+ maximum context length/i, // Mistral
	/model_context_window_exceeded/i, // z.ai
	/prompt too long; exceeded (?:max )?context length/i, // Ollama
	/context[_ ]length[_ ]exceeded/i, // generic
	/too many tokens/i, // generic
	/token limit exceeded/i, // generic
	/^4(?:00|13)\s*(?:status code)?\s*\(no body\)/i, // Cerebras
];

/**
 * Throttling texts that also contain an overflow phrase (Bedrock: "Throttling error: Too many
 * tokens, please wait…"). A match here means "not an overflow", whatever else the text says.
 */
const NOT_OVERFLOW_PATTERNS: readonly RegExp[] = [
	/^(?:throttling error|service unavailable):/i,
	/throttl/i,
	/rate.?limit/i,
	/too many requests/i,
];

/**
 * Anthropic's refusal of a request over 200k tokens to a 1M-context model without the plan for it:
 * a 429 typed `rate_limit_error`, yet no wait lets it through (opencode retried it forever,
 * hermes-agent#4747). Compacting below the plan's window does: an overflow, whatever its type says.
 */
const LONG_CONTEXT_PLAN_REFUSAL = /extra usage is required for long context/i;

/**
 * Account-level failures: waiting seconds will not fix them. Checked before the transient
 * patterns because these texts often carry a transient-looking status (`429 You exceeded your
 * current quota…`).
 */
const PERMANENT_PATTERNS: readonly RegExp[] = [
	/insufficient_quota/i,
	/quota exceeded/i,
	/exceeded your current quota/i,
	// "Your token-plan 1-week quota has been exhausted. The quota will reset at 07-27 …" (qwen-code#7841:
	// retried as a rate limit for its 429). Not Google's transient "Resource has been exhausted (e.g. check quota)".
	/quota[ _](?:has been |is )?exhausted/i,
	// Kimi's 429 "Your quota will reset at 09-18 15:39:00 UTC." and its weekly window ("You've reached
	// your weekly (7-day) usage limit. Your quota will reset when the current 7-day window ends."):
	// hours or days away, each retry the same 429. Moonshot's spent balance is typed exceeded_current_quota_error.
	/quota will reset (?:at|when)\b/i,
	/reached your (?:daily|weekly|monthly)\b[^.]{0,24}usage limit/i,
	/exceeded_current_quota_error/i,
	// OpenRouter's daily cap on free models ("Rate limit exceeded: free-models-per-day-high-balance."):
	// it resets at midnight UTC, each retry the same 429 (openclaude#1542: "Retrying in 26 seconds… (attempt 5/10)").
	/\bfree-models-per-day\b/i,
	/billing/i,
	/credits are required/i,
	/credit balance is too low/i,
	/out of credits/i,
	/payment required/i,
	/usage.?limit.?(?:has.?been.?)?reached/i,
	/hit your (?:\w+ )?usage limit/i,
	/invalid.?api.?key/i,
	/invalid x-api-key/i,
	/incorrect api key/i,
	/api key not valid/i,
	/authentication_error/i,
	/permission_denied/i,
];

/**
 * Google reports per-minute rate limits with the same "exceeded your current quota" text as
 * real quota exhaustion; the quota id tells them apart. A gateway's RPM limiter says "requests per
 * minute quota exhausted". A per-minute or per-second quota clears on its own.
 */
const PER_MINUTE_QUOTA = /PerMinute|\bper[ -](?:minute|second)\b/i;

/**
 * Transient failures worth retrying: overload, rate limits, 5xx, network and timeouts.
 * Status codes need word boundaries so request ids like `req_011C5003…` don't match.
 */
const TRANSIENT_PATTERNS: readonly RegExp[] = [
	/overloaded/i,
	/rate.?limit/i,
	/too many requests/i,
	/throttl/i,
	/resource.?exhausted/i,
	// 408 (the server gave up waiting for the request), Cloudflare's 521/523 (origin down or
	// unreachable) pass on a later attempt; pi 0.73.1 retries none of them.
	/\b(?:408|429|500|502|503|504|520|521|522|523|524|529)\b/,
	/service.?unavailable/i,
	/temporarily unavailable/i,
	/server.?error/i,
	/internal.?error/i,
	/provider.?returned.?error/i,
	// OpenRouter ends a stream `finish_reason: "error"` when the upstream dies after streaming
	// started; pi-ai words it "Provider finish_reason: error" (pi#9002: the turn died, unretried).
	// Whole value only: `content_filter` is a refusal and stays final.
	/\bfinish_reason: error$/i,
	/network.?error/i,
	/connection.?(?:error|refused|lost|reset)/i,
	/websocket.?(?:closed|error)/i,
	/other side closed/i,
	/fetch failed/i,
	/upstream.?connect/i,
	/reset before headers/i,
	/socket hang up/i,
	// ESOCKETTIMEDOUT: the `request` library's idle-socket timeout, passed on by older Node gateways.
	/\b(?:ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|ESOCKETTIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\b/,
	/getaddrinfo/i,
	/\bUND_ERR_[A-Z_]+\b/,
	/ended without/i,
	// A stream cut before its final event (pi-ai: "Anthropic stream ended before message_stop"); pi issue #4433.
	/stream ended before/i,
	/http2 request did not get a response/i,
	// An HTTP/2 body cut mid-stream, as Rust proxies (hyper / h2) word it: "Stream error: h2 protocol
	// error: error reading a body from connection" (pi-msg#80: 19 runs a day failed at once, unretried).
	/\bh2 protocol error\b/i,
	/error reading a body from connection/i,
	// Gateways' words for a failed attempt at the model behind them: "upstream_error: Upstream
	// request failed" (oh-my-pi#2056), "fail to touch upstream" (pi#9585). Both pass on a retry.
	/upstream request failed/i,
	/fail(?:ed)? to touch upstream/i,
	// A request cut by something other than the session's own abort (that one ends `stopReason:
	// "aborted"`): the SDK's or fetch's bare abort sentinel on an `error` stop (oh-my-pi#5375: the
	// turn died with "Request was aborted", no retry). Whole message only.
	/^(?:request|(?:the|this) operation) was aborted\.?$/i,
	// Bedrock's mid-stream fault that AWS documents as "An error occurred while streaming the response.
	// Retry your request." (pi-ai's prefix, or the SDK's name): no pattern read its text (oh-my-pi#12449).
	/^model stream error:/i,
	/\bModelStreamErrorException\b/,
	// Groq's own status for its flex tier at capacity, "You can try again later" (laravel/ai#925):
	// leading only, as the status pi-ai's clients put first; a 498 inside a request id is no status.
	/^498\b/,
	// xAI's Grok in an accepted stream: "The model is currently at capacity due to high demand" (opengeni#1643).
	/\bcurrently at capacity\b/i,
	// Codex's busy-hours failure, "We're currently experiencing high demand, which may cause temporary
	// errors." (code `server_is_overloaded`, which pi-ai's Codex client drops; codex#6761).
	/experiencing (?:unusually )?high demand/i,
	// openai-codex's whole answer to a request that succeeds when sent again (pi#8138).
	/^sorry, something went wrong\.?$/i,
	// An Anthropic answer that stopped `tool_use` without a call (pi#9681; anthropic-stop-details.ts).
	/stop_reason tool_use but holds no tool call/,
	/terminated/i,
	/you can retry your request/i,
	/try your request again/i,
	/retry delay/i,
];

/**
 * Timeouts in the words providers and HTTP stacks use ("Request timed out.", "timeout of 60000ms
 * exceeded", "upstream request timeout", "504 Gateway Timeout", undici's "Headers Timeout Error",
 * a `timeout_error` type): whole words outside quoted names, so a refusal naming bash's `'timeout'`
 * parameter or a `timeoutMs` field is not one.
 */
const TIMEOUT_PATTERNS: readonly RegExp[] = [
	/(?<![\w'`]|\\")timed? ?out(?:_error)?(?![\w'`]|\\")/i,
	/\b\w*Timeout(?:Exception|Error)\b/, // ModelTimeoutException, APIConnectionTimeoutError, TimeoutError
	/\bdeadline.?exceeded\b/i, // gRPC / Google DEADLINE_EXCEEDED, Go's "context deadline exceeded"
	// httpx / requests exception names: a gateway passes on `ReadTimeout` alone, as its str() is empty.
	/\b(?:Read|Connect|Write|Pool)Timeout\b/,
	// An error code, as a Responses `response.failed` carries it ("request_timeout: no message").
	/(?<![\w'`]|\\")(?:upstream_)?request_timeout(?![\w'`]|\\")/i,
];

/**
 * A body cut before its end, as Node streams ("Premature close", `ERR_STREAM_PREMATURE_CLOSE`, often
 * through node-fetch: "Invalid response body while trying to fetch …: Premature close") and Java
 * clients ("Premature end of chunk coded message body") word it, passed on by gateways
 * (Roo-Code#2822: a fatal error while timeouts were retried). A refusal naming one is not.
 */
const CUT_BODY_PATTERNS: readonly RegExp[] = [/\bpremature[ _](?:close|end)\b/i];

/**
 * A 4xx status that refuses the request as sent (408 Request Timeout and 429 are not refusals):
 * leading, or as a JSON body's `"code"` (Gemini's errors carry no status prefix), or pi-ai's prefix
 * for Bedrock's 400 `ValidationException`.
 */
const REFUSAL_STATUS =
	/^4(?:0[0-79]|1\d|2[0-8]|[3-9]\d)\b|"code":\s*4(?:0[0-79]|1\d|2[0-8]|[3-9]\d)\b|^Validation error: /;

/** What a finished assistant response means for recovery. */
export type AssistantErrorClass =
	/** Context overflow (an overflow error text, or a successful answer whose input exceeded the window). */
	| "overflow"
	/** A `length` stop caused by a full context rather than by the output cap. */
	| "length_overflow"
	/** A transient provider failure: retry with backoff. */
	| "retryable"
	/** An error that retrying or compacting will not fix. */
	| "fatal"
	/** Nothing to recover from (a normal answer, or a user abort). */
	| "none";

/**
 * The output cap pi-ai's `streamSimple` asks for when the caller sets no `maxTokens`:
 * `min(model.maxTokens, 32000)` (pi-ai 0.73.1 `buildBaseOptions`).
 */
export const PI_AI_DEFAULT_MAX_TOKENS = 32_000;

/**
 * The `maxTokens` a request asks for by default: `min(model.maxTokens, 32000)`, or 0 when the model
 * has none. Must not throw.
 *
 * @example
 * ```ts
 * defaultRequestedMaxTokens({ maxTokens: 64000 }); // 32000
 * defaultRequestedMaxTokens({ maxTokens: 8192 }); // 8192
 * ```
 */
export function defaultRequestedMaxTokens(model: Pick<Model, "maxTokens">): number {
	return model.maxTokens > 0 ? Math.min(model.maxTokens, PI_AI_DEFAULT_MAX_TOKENS) : 0;
}

/** Options for {@link isRecoverableLength} and {@link classifyAssistantError}. */
export interface LengthCheckOptions {
	/**
	 * The `maxTokens` the request actually asked for. Defaults to {@link defaultRequestedMaxTokens}
	 * (what pi-ai asks for when nothing is set). Pass it when the request set its own cap; an answer
	 * that used the whole cap was cut by the output limit, not by a full context.
	 */
	requestedMaxTokens?: number;
}

/**
 * Whether the response overflowed the context window: an error whose text is a known overflow
 * text (and not a throttling text), a successful `stop` answer whose `input + cacheRead` exceeded
 * `contextWindow` (providers that accept overflow silently), or a `length` stop with no output and
 * an input that filled the window (providers that truncate the input silently).
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * declare const message: AssistantMessage; // the response that just ended
 * if (isContextOverflow(message, model.contextWindow)) await session.compact();
 * ```
 */
export function isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean {
	if (message.stopReason === "error" && message.errorMessage && isOverflowErrorText(message.errorMessage)) {
		return true;
	}
	if (contextWindow !== undefined && contextWindow > 0) {
		const input = inputTokens(message);
		if (message.stopReason === "stop" && input > contextWindow) return true;
		if (message.stopReason === "length" && (message.usage?.output ?? 0) === 0 && input >= contextWindow * 0.99) {
			return true;
		}
	}
	return false;
}

/**
 * Whether an error text is a context-overflow text (and not a throttling text that mentions tokens).
 *
 * @example
 * ```ts
 * isOverflowErrorText("prompt is too long: 213462 tokens > 200000 maximum"); // true
 * ```
 */
export function isOverflowErrorText(errorMessage: string): boolean {
	if (LONG_CONTEXT_PLAN_REFUSAL.test(errorMessage)) return true;
	if (NOT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(errorMessage))) return false;
	return OVERFLOW_PATTERNS.some((pattern) => pattern.test(errorMessage));
}

/**
 * Whether a `length` stop was caused by the context window rather than by the output cap: the
 * answer ended with fewer output tokens than the request allowed, and the reported input plus that
 * cap did not fit `model.contextWindow` (only then can the window have cut the answer short). Such
 * a response is recovered like an overflow (compact once, then continue). A length stop whose input
 * and cap fit the window is not (pi#9793: a gateway's usage left out the reasoning, and the answer
 * cut at the cap looked like one cut by a full context at 11% of the window): compacting would drop
 * history without giving the answer more room. Without reported input (usage 0) the cap alone decides.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * declare const message: AssistantMessage; // a response with stopReason "length"
 * isRecoverableLength(message, model, { requestedMaxTokens: 32000 });
 * ```
 */
export function isRecoverableLength(
	message: AssistantMessage,
	model: Model,
	options: LengthCheckOptions = {},
): boolean {
	if (message.stopReason !== "length") return false;
	// Not model.maxTokens: pi-ai asks for at most 32000, so a 64k model's answer that used all 32000
	// hit the output cap (wire test "bug: an answer that used all of pi-ai's default max_tokens…").
	const cap = options.requestedMaxTokens ?? defaultRequestedMaxTokens(model);
	const output = message.usage?.output ?? 0;
	if (cap > 0 && output < cap) {
		const input = inputTokens(message);
		const window = model.contextWindow;
		if (input === 0 || !(window > 0) || input + cap > window) return true;
	}
	// Silent input truncation: the window is full and nothing could be generated.
	return isContextOverflow(message, model.contextWindow);
}

/**
 * Whether the response is a transient provider failure worth retrying: stopReason `error`, an
 * `errorMessage`, not a context overflow (that goes to compaction), not a quota, billing or
 * credential failure, and a text that matches overload, rate limit, 5xx, network or timeout.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * declare const failed: AssistantMessage; // stopReason "error"
 * isRetryableError(failed); // true for `529 {"type":"error","error":{"type":"overloaded_error",…}}`
 * ```
 */
export function isRetryableError(message: AssistantMessage): boolean {
	if (message.stopReason !== "error" || !message.errorMessage) return false;
	if (isContextOverflow(message)) return false;
	return isTransientErrorText(message.errorMessage);
}

/**
 * Whether an error text describes a transient failure (quota, billing and credential texts never do).
 *
 * @example
 * ```ts
 * isTransientErrorText("429 You exceeded your current quota"); // false
 * ```
 */
export function isTransientErrorText(errorMessage: string): boolean {
	// A Gemini non-answer is decided by its finish reason, not by the free text Gemini adds to it.
	const geminiStop = geminiStopRetryable(errorMessage);
	if (geminiStop !== undefined) return geminiStop;
	if (isAccountFailureText(errorMessage)) return false;
	// DashScope words a refused parameter "InternalError.Algo.InvalidParameter": the same request fails again.
	if (/\bInvalidParameter\b/.test(errorMessage)) return false;
	// OpenRouter words every upstream refusal "400 Provider returned error"; the upstream's own
	// `invalid_request_error` under it refuses the request itself (pi#5117): it fails again as sent.
	if (/^4(?:00|22)\b/.test(errorMessage) && /\binvalid_(?:request|parameter)_error\b/.test(errorMessage)) return false;
	if (TRANSIENT_PATTERNS.some((pattern) => pattern.test(errorMessage))) return true;
	// A refusal that names a timeout (a schema error on a `timeout` parameter) or a cut body fails again as sent.
	if (REFUSAL_STATUS.test(errorMessage)) return false;
	const matches = (pattern: RegExp) => pattern.test(errorMessage);
	return TIMEOUT_PATTERNS.some(matches) || CUT_BODY_PATTERNS.some(matches);
}

/**
 * Whether an error text is an account-level failure waiting will not fix: a spent quota or credit,
 * billing, a refused key (a per-minute Google quota is not one).
 *
 * @example
 * ```ts
 * isAccountFailureText('429 {"error":{"code":"insufficient_quota"}}'); // true
 * ```
 */
export function isAccountFailureText(errorMessage: string): boolean {
	return PERMANENT_PATTERNS.some((pattern) => pattern.test(errorMessage)) && !PER_MINUTE_QUOTA.test(errorMessage);
}

/**
 * Classifies a finished assistant response for the post-run decision.
 *
 * - `"overflow"`: context overflow. For `stopReason: "error"` recover with compact-then-continue;
 *   for `stopReason: "stop"` (a complete answer whose input exceeded the window) compact but never
 *   re-run the answer (`willRetry = message.stopReason !== "stop"`).
 * - `"length_overflow"`: a `length` stop the window cut short ({@link isRecoverableLength}); recover like an error overflow.
 * - `"retryable"`, `"fatal"`: errors that are not overflows.
 * - `"none"`: a normal answer, a `length` stop at the cap, a `toolUse` stop, or a user abort.
 *
 * Overflow is only trusted when the message came from `model` (same provider and id): an overflow
 * produced by a smaller, previous model is `"fatal"` for the current one.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * declare const lastAssistant: AssistantMessage;
 * switch (classifyAssistantError(lastAssistant, model)) {
 *   case "retryable": console.log(planRetry(settingsManager.getRetrySettings(), 1)); break;
 *   case "overflow": case "length_overflow": await session.compact(); break;
 * }
 * ```
 */
export function classifyAssistantError(
	message: AssistantMessage,
	model: Model,
	options: LengthCheckOptions = {},
): AssistantErrorClass {
	const sameModel = message.provider === model.provider && message.model === model.id;
	switch (message.stopReason) {
		case "error":
			if (!message.errorMessage) return "fatal";
			if (isOverflowErrorText(message.errorMessage)) return sameModel ? "overflow" : "fatal";
			return isTransientErrorText(message.errorMessage) ? "retryable" : "fatal";
		case "stop":
			return sameModel && isContextOverflow(message, model.contextWindow) ? "overflow" : "none";
		case "length":
			return sameModel && isRecoverableLength(message, model, options) ? "length_overflow" : "none";
		default:
			return "none";
	}
}

const UNIT_MS: Record<string, number> = {
	ms: 1,
	millisecond: 1,
	milliseconds: 1,
	s: 1000,
	sec: 1000,
	secs: 1000,
	second: 1000,
	seconds: 1000,
	m: 60_000,
	min: 60_000,
	mins: 60_000,
	minute: 60_000,
	minutes: 60_000,
	h: 3_600_000,
	hr: 3_600_000,
	hrs: 3_600_000,
	hour: 3_600_000,
	hours: 3_600_000,
};

const UNIT = "(?:milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)";
/** `23s`, `1.5 seconds`, `6m0s`, `1h2m3.5s`, `250ms`, `587 hours 33 minutes` (Copilot's). */
const DURATION_ONE = `\\d+(?:\\.\\d+)?\\s*${UNIT}(?![a-z])`;
const DURATION = `${DURATION_ONE}(?:\\s*${DURATION_ONE})*`;
const DURATION_PART = new RegExp(`(\\d+(?:\\.\\d+)?)\\s*(${UNIT})(?![a-z])`, "gi");

/** Phrases that announce a provider-requested wait, each followed by a duration with units. */
const REQUESTED_DELAY_PATTERNS: readonly RegExp[] = [
	// pi-ai, when the provider asks for more than its cap: "Server requested 3600s retry delay (max: 60s). …"
	new RegExp(`server requested\\s+(${DURATION})\\s+retry delay`, "gi"),
	// Google: "Please retry in 23.398547744s."; Codex: "Try again in ~158 min."; OpenAI: "Please try again in 4.224s."
	new RegExp(`(?:retry|try again) in\\s+~?\\s*(${DURATION})`, "gi"),
	// "retry after 2 seconds", "quota will reset after 5h", "resets in 30s"
	new RegExp(`(?:retry|reset|resets) (?:after|in)\\s+~?\\s*(${DURATION})`, "gi"),
	// GitHub Copilot: "Please wait 17 seconds before trying again." (vscode-copilot-release#1847)
	new RegExp(`please wait\\s+~?\\s*(${DURATION})\\s+before`, "gi"),
	// Google RetryInfo: "retryDelay": "30s" (JSON or JS object notation)
	new RegExp(`retryDelay"?\\s*[:=]\\s*"?(${DURATION})`, "gi"),
];

/**
 * Header dumps (`retry-after-ms: 1500`, `Retry-After: 30` in seconds) and the same wait as an
 * error body's snake_case field (`"retry_after_ms": 1500`, `"retry_after": 30`,
 * `"retry_after_seconds": 59` — Cerebras, pi#7134).
 */
const RETRY_AFTER_MS_HEADER = /retry[-_]after[-_]ms"?\s*[:=]\s*"?(\d+(?:\.\d+)?)/gi;
const RETRY_AFTER_HEADER = /retry[-_]after(?:_seconds)?"?\s*[:=]\s*"?(\d+(?:\.\d+)?)/gi;

/**
 * Extracts the wait a provider asked for from an error text, in milliseconds (rounded up).
 *
 * Recognises pi-ai's over-cap report (`Server requested 3600s retry delay (max: 60s). …`),
 * `Retry-After` / `retry-after-ms` header values (seconds / milliseconds) and their snake_case body
 * fields (`retry_after`, `retry_after_seconds`, `retry_after_ms`), Google's
 * `Please retry in 23.4s` and `"retryDelay": "30s"`, OpenAI's `Please try again in 4.2s`, GitHub
 * Copilot's `Please wait 17 seconds before trying again` (and `587 hours 33 minutes`),
 * `retry after 2 seconds`, and compound durations such as `6m0s` or `1h2m3s`. When the text
 * names several delays, the longest wins. Returns `undefined` when it names none.
 * HTTP-date `Retry-After` values are not recognised.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * parseRequestedRetryDelayMs("Please retry in 23s"); // 23000
 * parseRequestedRetryDelayMs("fetch failed"); // undefined
 * ```
 */
export function parseRequestedRetryDelayMs(errorMessage: string | undefined): number | undefined {
	if (!errorMessage) return undefined;
	let longest: number | undefined;
	const consider = (ms: number) => {
		if (Number.isFinite(ms) && ms >= 0 && (longest === undefined || ms > longest)) longest = ms;
	};
	for (const pattern of REQUESTED_DELAY_PATTERNS) {
		for (const match of errorMessage.matchAll(pattern)) consider(durationToMs(match[1]!));
	}
	for (const match of errorMessage.matchAll(RETRY_AFTER_MS_HEADER)) consider(Number(match[1]));
	for (const match of errorMessage.matchAll(RETRY_AFTER_HEADER)) consider(Number(match[1]) * 1000);
	return longest === undefined ? undefined : Math.ceil(longest);
}

/** A wait a refused response's headers asked for, and the header that said it. */
export interface HeaderRetryDelay {
	/** The header's name, lower case (`retry-after`, `retry-after-ms`, `x-ratelimit-reset-tokens`). */
	header: string;
	delayMs: number;
}

const WHOLE_DURATION = new RegExp(`^\\s*${DURATION}\\s*$`, "i");

/** `Retry-After` delay-seconds (a fraction tolerated); `-3` or `1,5` is no delay (mastra#23778). */
const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
// RFC 9110's three HTTP-date forms, all GMT: IMF-fixdate, RFC 850 (two-digit year), asctime. Real
// servers also send a one-digit day and `UTC` for `GMT` (the same instant): read those too.
const IMF_FIXDATE = /^[a-z]{3}, (\d{1,2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) (?:GMT|UTC)$/i;
const RFC_850 = /^[a-z]{6,9}, (\d{1,2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) (?:GMT|UTC)$/i;
const ASCTIME = /^[a-z]{3} ([a-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;

/**
 * An HTTP-date's instant (epoch ms), NaN for anything else. Not `Date.parse`: it reads a zoneless
 * asctime date in the local time zone (hours off far from UTC) and `-3` or `1,5` as a year in 2001
 * (pi#9571, mastra#23778).
 */
function httpDateMs(text: string, now: number): number {
	let parts: [day: string, month: string, year: number, hour: string, minute: string, second: string] | undefined;
	const imf = IMF_FIXDATE.exec(text);
	if (imf) parts = [imf[1]!, imf[2]!, Number(imf[3]), imf[4]!, imf[5]!, imf[6]!];
	const rfc850 = RFC_850.exec(text);
	if (rfc850) {
		// A two-digit year more than 50 years ahead is the last century's (RFC 9110 §5.6.7).
		let year = 2000 + Number(rfc850[3]);
		if (year > new Date(now).getUTCFullYear() + 50) year -= 100;
		parts = [rfc850[1]!, rfc850[2]!, year, rfc850[4]!, rfc850[5]!, rfc850[6]!];
	}
	const asctime = ASCTIME.exec(text);
	if (asctime) parts = [asctime[2]!, asctime[1]!, Number(asctime[6]), asctime[3]!, asctime[4]!, asctime[5]!];
	if (!parts) return Number.NaN;
	const [day, month, year, hour, minute, second] = parts;
	const monthIndex = MONTHS.indexOf(month.toLowerCase());
	if (monthIndex < 0) return Number.NaN;
	return Date.UTC(year, monthIndex, Number(day), Number(hour), Number(minute), Number(second));
}

/**
 * The wait a refused provider response asks for in its headers (the clients drop headers from the
 * error text, pi#9595): `retry-after-ms`, then `Retry-After` in seconds or as an HTTP date (from
 * `now`), then, on a 429 only, the `x-ratelimit-reset-requests` / `-tokens` duration (`6m0s`) of a
 * bucket whose `x-ratelimit-remaining-*` is 0 (the longer one when both are), else a spent limiter's
 * `x-ratelimit-reset` instant (epoch ms or s; `x-ratelimit-remaining: 0`), in whole seconds from
 * `now`; before those, an Anthropic subscription's `anthropic-ratelimit-unified-reset` (epoch s)
 * when its `anthropic-ratelimit-unified-status` is `rejected`. Undefined for an accepted response or none of these. Must not throw.
 *
 * @example
 * ```ts
 * requestedRetryDelayFromHeaders(429, new Headers({ "retry-after": "30" }), Date.now()); // { header: "retry-after", delayMs: 30000 }
 * ```
 */
export function requestedRetryDelayFromHeaders(
	status: number,
	headers: { get(name: string): string | null },
	now: number,
): HeaderRetryDelay | undefined {
	if (status < 400) return undefined;
	const ms = Number(headers.get("retry-after-ms")?.trim() || Number.NaN);
	if (Number.isFinite(ms) && ms >= 0) return { header: "retry-after-ms", delayMs: Math.ceil(ms) };
	const retryAfter = headers.get("retry-after")?.trim();
	if (retryAfter) {
		if (DELAY_SECONDS.test(retryAfter)) return { header: "retry-after", delayMs: Math.ceil(Number(retryAfter) * 1000) };
		const date = httpDateMs(retryAfter, now);
		if (Number.isFinite(date)) return { header: "retry-after", delayMs: Math.max(0, Math.ceil(date - now)) };
	}
	if (status !== 429) return undefined;
	// An Anthropic subscription's spent window (5-hour, weekly) reopens at this epoch (s); it may send no Retry-After.
	const unifiedReset = epochMs(headers.get("anthropic-ratelimit-unified-reset")?.trim());
	if (headers.get("anthropic-ratelimit-unified-status")?.trim() === "rejected" && unifiedReset !== undefined) {
		const delayMs = Math.max(0, Math.ceil((unifiedReset - now) / 1000) * 1000);
		return { header: "anthropic-ratelimit-unified-reset", delayMs };
	}
	let longest: HeaderRetryDelay | undefined;
	for (const bucket of ["requests", "tokens"]) {
		const reset = headers.get(`x-ratelimit-reset-${bucket}`);
		if (headers.get(`x-ratelimit-remaining-${bucket}`)?.trim() !== "0" || !reset || !WHOLE_DURATION.test(reset))
			continue;
		const delayMs = Math.ceil(durationToMs(reset));
		if (!longest || delayMs > longest.delayMs) longest = { header: `x-ratelimit-reset-${bucket}`, delayMs };
	}
	if (longest || headers.get("x-ratelimit-remaining")?.trim() !== "0") return longest;
	const resetAt = epochMs(headers.get("x-ratelimit-reset")?.trim());
	// Whole seconds, rounded up: the limiter's window is over only once its instant has passed.
	if (resetAt !== undefined)
		return { header: "x-ratelimit-reset", delayMs: Math.max(0, Math.ceil((resetAt - now) / 1000) * 1000) };
	return undefined;
}

/**
 * An `X-RateLimit-Reset` instant: 13 digits are epoch milliseconds (OpenRouter's), 10 epoch
 * seconds. Anything else (a count of seconds, a duration) is not read as one.
 */
function epochMs(text: string | undefined): number | undefined {
	if (!text) return undefined;
	if (/^\d{13}$/.test(text)) return Number(text);
	if (/^\d{10}$/.test(text)) return Number(text) * 1000;
	return undefined;
}

/**
 * The wait a refused response's JSON body asks for in the limiter headers it carries: OpenRouter
 * puts them in `error.metadata.headers` (`X-RateLimit-Remaining: "0"`, `X-RateLimit-Reset` in epoch
 * ms), not on the response, so neither the clients nor {@link requestedRetryDelayFromHeaders} see
 * them (TranslateBooksWithLLMs#125: blind 2 s retries inside a one-minute window). Read as those
 * headers are; undefined for anything else. Must not throw.
 *
 * @example
 * ```ts
 * const body = '{"error":{"code":429,"metadata":{"headers":{"X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1741305600000"}}}}';
 * requestedRetryDelayFromBody(429, body, 1741305570000); // { header: "x-ratelimit-reset", delayMs: 30000 }
 * ```
 */
export function requestedRetryDelayFromBody(status: number, body: string, now: number): HeaderRetryDelay | undefined {
	if (status !== 429 || !/x-ratelimit-reset/i.test(body)) return undefined;
	let carried: unknown;
	try {
		carried = (JSON.parse(body) as { error?: { metadata?: { headers?: unknown } } } | null)?.error?.metadata?.headers;
	} catch {
		return undefined;
	}
	if (typeof carried !== "object" || carried === null) return undefined;
	const values = new Map<string, string>();
	for (const [name, value] of Object.entries(carried)) {
		if (typeof value === "string" || typeof value === "number") values.set(name.toLowerCase(), String(value));
	}
	return requestedRetryDelayFromHeaders(status, { get: (name) => values.get(name) ?? null }, now);
}

/**
 * `errorMessage` with the wait a response's header asked for, worded so that
 * {@link parseRequestedRetryDelayMs} reads it back and the user sees why the retry waits.
 *
 * @example
 * ```ts
 * withHeaderRetryDelay("429 Rate limit reached", { header: "retry-after", delayMs: 30000 });
 * // "429 Rate limit reached (the response's retry-after header: retry in 30s)"
 * ```
 */
export function withHeaderRetryDelay(errorMessage: string, delay: HeaderRetryDelay): string {
	const wait = delay.delayMs % 1000 === 0 ? `${delay.delayMs / 1000}s` : `${delay.delayMs}ms`;
	return `${errorMessage} (the response's ${delay.header} header: retry in ${wait})`;
}

function durationToMs(text: string): number {
	let total = 0;
	for (const part of text.matchAll(DURATION_PART)) {
		total += Number(part[1]) * (UNIT_MS[part[2]!.toLowerCase()] ?? Number.NaN);
	}
	return total;
}

function inputTokens(message: AssistantMessage): number {
	return (message.usage?.input ?? 0) + (message.usage?.cacheRead ?? 0);
}
