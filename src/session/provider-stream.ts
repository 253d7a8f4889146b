/**
 * The session Agent's stream function: the model runtime's stream plus what
 * pi adds around every provider request.
 */
import { notAStream } from "../agent/agent-loop.js";
import type { LoopTimers } from "../agent/types.js";
import type { ExtensionRunner } from "../extensions/runner.js";
import { type AnthropicStop, refusalText, watchedAnthropicStop } from "../llm/anthropic-stop-details.js";
import { repairedChatStream } from "../llm/chat-stream-repair.js";
import { compatOptionNote, endpointPathNote, outputCapRefusedNote, servedErrorPathNote } from "../llm/compat-notes.js";
import {
	connectionFailureText,
	htmlRefusalText,
	servedErrorMessage,
	servedErrorText,
	servedPageText,
} from "../llm/connection-failures.js";
import { contentFilterText } from "../llm/content-filter-stop.js";
import { proxyFailureMark, proxyFailureSince, proxyInUse } from "../llm/env-proxy.js";
import {
	defaultRequestedMaxTokens,
	type HeaderRetryDelay,
	isAccountFailureText,
	parseRequestedRetryDelayMs,
	requestedRetryDelayFromBody,
	requestedRetryDelayFromHeaders,
	withHeaderRetryDelay,
} from "../llm/errors.js";
import { streamFromMessage } from "../llm/event-stream.js";
import { type GeminiStop, geminiStopText, watchedGeminiStop } from "../llm/gemini-stop.js";
import type { ProviderAuthStatus } from "../llm/model-runtime.js";
import { apiKeyEnvVars, awsCredentialsRefusedNote, inferenceProfileNote } from "../llm/provider-env.js";
import { RESPONSE_LISTENER, type ResponseListener, type ResponseListenerOption } from "../llm/response-activity.js";
import { completedIncompleteStream } from "../llm/responses-incomplete.js";
import {
	type AssistantMessage,
	type AssistantMessageEvent,
	type AssistantMessageEventStream,
	type Context,
	emptyAssistantMessage,
	type Model,
	type StreamFn,
	type StreamOptions,
} from "../llm/types.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import { streamWithIdleTimeout } from "./stream-idle.js";

/**
 * Wraps `stream` with the provider transport settings (`retry.provider.timeoutMs`, `maxRetries`,
 * `maxRetryDelayMs`: the provider SDK's own timeout and retries; `streamIdleTimeoutMs`: the longest
 * silence on an open response stream, timed on `timers`, see {@link streamWithIdleTimeout}) and the extension hook
 * `before_provider_headers`. Both are read at every request, so a changed setting or a reloaded
 * extension applies to the next one; options the request already carries win. Without
 * `before_provider_headers` handlers nothing is awaited.
 *
 * Only for the Agent the session creates, whose loop builds a fresh options object per request:
 * the settings are filled into that object, not into a copy (a copy per model call was ~0.8 µs
 * per turn, 6% of a session's turn). A caller passing its own object sees it completed.
 * `onRequest`, when given, sees every request exactly as it goes to `stream` (the cache warmer).
 * `keySource`, when given, says where a provider's key comes from: a 401 or 403 then names it
 * ({@link refusedKeyNote}). `rereadKey`, when given, reads a provider's key again: a request refused
 * as unauthorized before anything streamed is sent once more when the key now read differs (a
 * helper rotated auth.json between the read and the request; databricks/unity-gateway#451).
 * `providerModelIds`, when given, lists a provider's model ids: Bedrock's refusal of a base model id
 * then names its inference profile ids ({@link inferenceProfileNote}).
 *
 * @example
 * ```ts
 * agent.streamFn = providerStreamFn(modelRuntime.stream, settingsManager, () => runner);
 * ```
 */
export function providerStreamFn(
	stream: StreamFn,
	settings: SettingsManager,
	runner: () => ExtensionRunner,
	onRequest?: (model: Model, context: Context, options: StreamOptions) => void,
	timers?: LoopTimers,
	keySource?: (provider: string) => ProviderAuthStatus | undefined,
	rereadKey?: (provider: string) => Promise<string | undefined>,
	providerModelIds?: (provider: string) => readonly string[],
): StreamFn {
	const base = stream;
	// Built once: a wrapper per request is work on every turn (the idle timeout, opt-in, is per request).
	const refusing = withRefusalDetails(base, keySource, rereadKey, providerModelIds);
	return (model, context, options) => {
		if (proxyInUse()) return withProxyFailuresExplained(unproxied, model, context, options);
		return unproxied(model, context, options);
	};
	function unproxied(model: Model, context: Context, options: StreamOptions | undefined): ReturnType<StreamFn> {
		const provider = settings.getProviderRetrySettings();
		// A silent open stream ends as a retryable error after `streamIdleTimeoutMs` (opt-in; pi#8331).
		const idleMs = provider.streamIdleTimeoutMs;
		const stream = idleMs
			? withRefusalDetails(streamWithIdleTimeout(base, idleMs, timers), keySource, rereadKey, providerModelIds)
			: refusing;
		const request: StreamOptions = options ?? {};
		if (request.timeoutMs === undefined && provider.timeoutMs !== undefined) request.timeoutMs = provider.timeoutMs;
		if (request.maxRetries === undefined && provider.maxRetries !== undefined) request.maxRetries = provider.maxRetries;
		if (request.maxRetryDelayMs === undefined) request.maxRetryDelayMs = provider.maxRetryDelayMs;
		const extensions = runner();
		if (!extensions.hasHandlers("before_provider_headers")) {
			onRequest?.(model, context, request);
			return stream(model, context, request);
		}
		return extensions.emitBeforeProviderHeaders({ ...options?.headers }, { model }).then((headers) => {
			request.headers = headers;
			onRequest?.(model, context, request);
			return stream(model, context, request);
		});
	}
}

/**
 * `stream`, its failures completed with what the provider clients drop from a refused response:
 * the wait its headers ask for ({@link withHeaderRetryDelay}; the retry ignored `Retry-After`,
 * pi#9595) and, when the client reports "<status> status code (no body)" for a body it could not
 * place (`{"detail": …}`, not `{"error": …}`), that body (pi#6749: the server's reason was lost, and
 * a 400 read as a context overflow). A wait of 0, or a text that names its own wait, is left as it
 * is. Only the last response counts: a 429 the client's own retry got past is not the reason a
 * later failure of the stream happened. A 401 or 403 also says where the refused key came from
 * (codewhale#2665: a stale key that shadowed the intended one could not be found). With
 * `rereadKey`, a request refused for its key is first sent once more when the key read now differs.
 */
function withRefusalDetails(
	stream: StreamFn,
	keySource: ((provider: string) => ProviderAuthStatus | undefined) | undefined,
	rereadKey?: (provider: string) => Promise<string | undefined>,
	providerModelIds?: (provider: string) => readonly string[],
): StreamFn {
	return (model, context, options) => {
		let asked: HeaderRetryDelay | undefined;
		let refusedBody: Promise<string> | undefined;
		let refusedStatus: number | undefined;
		// Why the last attempt got no response at all (the clients keep only "Connection error.").
		let unreached: unknown;
		// The last attempt's connection dropped after its headers, while its JSON body was read.
		let cutBody = false;
		// An HTML page served as the answer (the clients read it as an empty stream).
		let servedPage: string | undefined;
		// An error served under 200 as one JSON object (LM Studio's for a path it has no route for).
		let servedError: string | undefined;
		// Why an Anthropic stream stopped: pi-ai words a refusal "An unknown error occurred" (pi#5591).
		let stop: AnthropicStop = {};
		// Why a Gemini stream stopped: pi-ai words MALFORMED_FUNCTION_CALL "An unknown error occurred".
		let geminiStop: GeminiStop = {};
		const proxyMark = proxyFailureMark();
		// A body read that fails (the connection dropped after the headers, before the first body byte
		// or mid-body) is a network failure: retried, the address named, not an empty answer.
		const bodyRead = async <T>(read: Promise<T>): Promise<T> => {
			try {
				return await read;
			} catch (error) {
				cutBody = true;
				unreached = error;
				throw error;
			}
		};
		const note: ResponseListener = async (response: Response): Promise<Response | undefined> => {
			asked = requestedRetryDelayFromHeaders(response.status, response.headers, Date.now());
			cutBody = false;
			refusedStatus = response.ok ? undefined : response.status;
			refusedBody = response.ok
				? undefined
				: response
						.clone()
						.text()
						.catch(() => "");
			let replaced: Response | undefined;
			if (response.ok && response.body && /\btext\/html\b/i.test(response.headers.get("content-type") ?? "")) {
				const peeked = await bodyRead(peekedBody(response.body));
				if (!/^\s*[^<\s]/.test(peeked.start)) {
					servedPage = await new Response(peeked.body).text().catch(() => "");
					// Failed before the client reads it: its error is then the bare "Connection error." rewritten below.
					throw new Error(`${response.status}: an HTML page, not the API's answer`);
				}
				// Not markup: an answer stream a gateway labelled text/html, read on as it comes.
				const { status, statusText, headers } = response;
				replaced = new Response(peeked.body, { status, statusText, headers });
				response = replaced;
			} else if (
				response.ok &&
				response.body &&
				/\bapplication\/json\b/i.test(response.headers.get("content-type") ?? "")
			) {
				const peeked = await bodyRead(peekedBody(response.body));
				const { status, statusText, headers } = response;
				// One JSON document, not a stream: read whole (an event stream or a JSON array reads on as it comes).
				let document: string | undefined;
				if (peeked.start.trimStart().startsWith("{")) document = await bodyRead(new Response(peeked.body).text());
				servedError = document === undefined ? undefined : servedErrorMessage(document);
				if (servedError !== undefined) throw new Error(`${response.status}: an error, not the API's answer`);
				replaced = new Response(document ?? peeked.body, { status, statusText, headers });
				response = replaced;
			}
			if (!refusedBody) {
				stop = {};
				geminiStop = {};
				// A stream cut mid-answer reaches the client as undici's bare "terminated": keep its cause.
				if (response.body) {
					const { status, statusText, headers } = response;
					response = new Response(failureKeptBody(response.body, bodyRead), { status, statusText, headers });
					replaced = response;
				}
				return (
					repairedStream(model, response) ??
					watchedStopStream(model, response, stop) ??
					watchedGeminiStream(model, response, geminiStop) ??
					replaced
				);
			}
			// A spent quota or a refused key fails the same on the client's own retries (codex#6340),
			// and the clients sleep any Retry-After, hours included (lobehub#13572): a wait over the
			// cap is the session's to refuse. `x-should-retry: false` tells the OpenAI and Anthropic clients.
			const body = await refusedBody;
			// OpenRouter's limiter headers ride in the body, where the clients never look.
			const bodyAsked =
				asked === undefined ? requestedRetryDelayFromBody(response.status, body, Date.now()) : undefined;
			asked ??= bodyAsked;
			// 0 turns the cap off (pi-ai's documented meaning).
			const cap = options?.maxRetryDelayMs ?? 0;
			// The client's own reading counts too: it sleeps `Retry-After: 5, 5` (a proxy's doubled header)
			// or an ISO date's leading year as seconds, which requestedRetryDelayFromHeaders reads as no wait.
			const clientWait = clientRetryWaitMs(response.headers, Date.now());
			const overCap = cap > 0 && ((asked !== undefined && asked.delayMs > cap) || clientWait > cap);
			// A wait said only in the body (Copilot's "Please wait 17 seconds before trying again", OpenRouter's
			// reset): the clients retry on their own backoff, blind to it; the session's retry reads and waits it.
			const waitInText =
				bodyAsked !== undefined || (asked === undefined && parseRequestedRetryDelayMs(body) !== undefined);
			if (!overCap && !waitInText && !isAccountFailureText(`${response.status} ${body}`)) return undefined;
			const headers = new Headers(response.headers);
			headers.set("x-should-retry", "false");
			return new Response(body, { status: response.status, statusText: response.statusText, headers });
		};
		note.failed = (error) => {
			unreached = error;
			cutBody = false;
		};
		// Read where the HTTP requests are made (pi-ai's clients); other stream functions make none.
		const request: StreamOptions & ResponseListenerOption = options ?? {};
		request[RESPONSE_LISTENER] = note;
		// Once only: the second request's refusal is reported, whatever the key source says then.
		let again: Promise<EventStream | undefined> | undefined;
		const sendAgain =
			rereadKey &&
			(() =>
				(again ??= (async () => {
					const forKey =
						refusedStatus === 401 ||
						(refusedStatus === 403 && refusedBody !== undefined && AUTH_REFUSAL.test(await refusedBody));
					if (!forKey) return undefined;
					const key = await rereadKey(model.provider).catch(() => undefined);
					if (!key || key === request.apiKey) return undefined;
					request.apiKey = key;
					return started(() => stream(model, context, request), model);
				})()));
		return rewritingErrors(
			() => stream(model, context, request),
			model,
			async (event) => {
				if (event.reason !== "error") return event;
				let text = event.error.errorMessage ?? "";
				text = refusalText(stop) ?? geminiStopText(geminiStop) ?? contentFilterText(text) ?? text;
				const unplaced = NO_BODY.exec(text);
				// The client read the whole body before saying it had none, so the copy is complete.
				const body = unplaced && refusedBody ? (await refusedBody).trim() : "";
				if (unplaced && body) text = `${unplaced[1]} ${body.slice(0, REFUSED_BODY_MAX_CHARS)}`;
				// A gateway's HTML page says what went wrong in its title, not in its markup (codex#9110).
				text = htmlRefusalText(text, model.baseUrl) ?? text;
				// The address and the cause of a connection that failed; a proxy's failure is the proxy's to explain.
				if (servedPage !== undefined && BARE_CONNECTION_ERROR.test(text)) {
					text = servedPageText(servedPage, model.provider, model.baseUrl);
				} else if (servedError !== undefined && BARE_CONNECTION_ERROR.test(text)) {
					text = servedErrorText(servedError, model.provider, model.baseUrl);
					const pathNote = servedErrorPathNote(model, servedError);
					if (pathNote) text = `${text}\n\n${pathNote}`;
				} else if (
					unreached !== undefined &&
					(BARE_CONNECTION_ERROR.test(text) || (cutBody && CUT_STREAM.test(text))) &&
					!proxyFailureSince(proxyMark)
				) {
					text = connectionFailureText(unreached, model.provider, model.baseUrl, cutBody) ?? text;
				}
				// A wait the text names is the provider's precise one (OpenAI rounds its header up to seconds).
				if (asked?.delayMs && parseRequestedRetryDelayMs(text) === undefined) text = withHeaderRetryDelay(text, asked);
				// A key a header cannot carry fails in the client before anything is sent (OpenBot#470).
				const unsendable = keySource && unsendableKeyNote(model.provider, request.apiKey, keySource(model.provider));
				if (unsendable) text = `${text}\n\n${unsendable}`;
				// The AWS SDK makes Bedrock's requests itself (no response is seen above): its text tells the refusal.
				const awsNote = model.api === "bedrock-converse-stream" ? awsCredentialsRefusedNote(text) : undefined;
				if (awsNote) text = `${text}\n\n${awsNote}`;
				const profileNote =
					model.api === "bedrock-converse-stream" && providerModelIds
						? inferenceProfileNote(text, model.provider, model.id, providerModelIds(model.provider))
						: undefined;
				if (profileNote) text = `${text}\n\n${profileNote}`;
				const budgetNote = refusedStatus === 400 ? thinkingBudgetNote(text, model, request.reasoning) : undefined;
				if (budgetNote) text = `${text}\n\n${budgetNote}`;
				const offNote = refusedStatus === 400 ? reasoningMandatoryNote(text, model, request.reasoning) : undefined;
				if (offNote) text = `${text}\n\n${offNote}`;
				// A field an OpenAI-compatible server refuses is named with the models.json setting that stops it (pi#5117).
				// A cap over the server's limit is a value to lower, not a field to stop sending (opencode#1735).
				const requested = request.maxTokens ?? defaultRequestedMaxTokens(model);
				const capNote = outputCapRefusedNote(text, refusedStatus, model, requested);
				const compatNote = capNote ?? compatOptionNote(text, refusedStatus, model);
				if (compatNote) text = `${text}\n\n${compatNote}`;
				const pathNote = endpointPathNote(refusedStatus, model, text);
				if (pathNote) text = `${text}\n\n${pathNote}`;
				// A region refusal is no key problem: "replace the key" would send the user after a good one (continue#11449).
				const regionNote = refusedStatus === 403 ? refusedRegionNote(model.provider, text) : undefined;
				if (regionNote) text = `${text}\n\n${regionNote}`;
				else if ((refusedStatus === 401 || refusedStatus === 403) && keySource) {
					const keyNote = refusedKeyNote(model.provider, refusedStatus, keySource(model.provider));
					if (keyNote) text = `${text}\n\n${keyNote}`;
				}
				return text === event.error.errorMessage ? event : { ...event, error: { ...event.error, errorMessage: text } };
			},
			sendAgain,
		);
	};
}

/**
 * What a 403 from `provider` needs when it refuses the network's country or region (OpenAI's
 * `unsupported_country_region_territory`, also relayed by gateways): the key is not the cause, so
 * no key note; where the requests could come from instead. Undefined for any other 403.
 *
 * @example
 * ```ts
 * refusedRegionNote("openai", "403 Country, region, or territory not supported");
 * // "openai refuses requests from the country or region this machine's network is in; the key is not the cause, so replacing it will not help. Send the requests through a network in a supported region (an HTTPS_PROXY there) or use another provider."
 * ```
 */
export function refusedRegionNote(provider: string, errorText: string): string | undefined {
	if (!/unsupported_country_region_territory|country, region,? or territory not supported/i.test(errorText)) {
		return undefined;
	}
	return `${provider} refuses requests from the country or region this machine's network is in; the key is not the cause, so replacing it will not help. Send the requests through a network in a supported region (an HTTPS_PROXY there) or use another provider.`;
}

/**
 * What a 401 or 403 from `provider` needs besides the provider's text: which of its key sources the
 * refused key came from, what comes before it (a stale key there shadows the others), and what to
 * change. Undefined when the source is unknown.
 *
 * @example
 * ```ts
 * refusedKeyNote("openai", 401, { configured: false, source: "environment", label: "OPENAI_API_KEY" });
 * // "openai answered 401 to the key in the environment variable OPENAI_API_KEY (auth.json has none for openai): replace OPENAI_API_KEY, or unset it to use another key."
 * ```
 */
export function refusedKeyNote(
	provider: string,
	status: number,
	key: ProviderAuthStatus | undefined,
): string | undefined {
	const answered = `${provider} answered ${status} to`;
	const vars = apiKeyEnvVars(provider)?.join(" or ") ?? "the environment";
	switch (key?.source) {
		case "runtime":
			return `${answered} the key given with --api-key (apiKey in code), which comes before auth.json and the environment: give a valid key.`;
		case "stored":
			return `${answered} the key stored for ${provider} in auth.json, which comes before ${vars} and models.json: replace or remove its "${provider}" entry in auth.json.`;
		case "environment": {
			const name = key.label ?? vars;
			return `${answered} the key in the environment variable ${name} (auth.json has none for ${provider}): replace ${name}, or unset it to use another key.`;
		}
		case "models_json_key":
			return `${answered} the "apiKey" of ${provider} in models.json (or an extension's registerProvider); auth.json and ${vars} have none: replace that apiKey.`;
		case "models_json_command":
			return `${answered} the key printed by the "apiKey" command of ${provider}; auth.json and ${vars} have none: fix that command.`;
		default:
			return undefined;
	}
}

/**
 * What a request failed on when `provider`'s key holds a character an HTTP header cannot carry (a
 * line break inside a key pasted from a wrapped terminal line, a NUL, a typographic character):
 * fetch refuses the header before anything is sent, and its own text ("… is an invalid header
 * value") names neither the key nor where it is written. The note names the character and its
 * place, never the key. Undefined for a key that can be sent (leading and trailing whitespace is
 * trimmed by fetch).
 *
 * @example
 * ```ts
 * unsendableKeyNote("openai", "sk-abc\ndef", { configured: true, source: "stored" });
 * // 'The key for openai (auth.json\'s "openai" entry) holds a line break (character 7 of 10): a request header cannot carry it, so nothing was sent. Write the key on one line there.'
 * ```
 */
export function unsendableKeyNote(
	provider: string,
	key: string | undefined,
	source: ProviderAuthStatus | undefined,
): string | undefined {
	if (!key) return undefined;
	const trimmed = key.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
	const at = trimmed.search(/[\r\n\0]|[^\0-\u00ff]/u);
	if (at < 0) return undefined;
	const char = trimmed.codePointAt(at) ?? 0;
	const what =
		char === 0x0a
			? "a line break"
			: char === 0x0d
				? "a carriage return"
				: char === 0
					? "a NUL character"
					: `the character U+${char.toString(16).toUpperCase().padStart(4, "0")}`;
	const where = keyPlace(provider, source);
	const length = [...trimmed].length;
	const position = [...trimmed.slice(0, at)].length + 1;
	const fix = char === 0x0a || char === 0x0d ? "Write the key on one line there." : "Copy the key again there.";
	return `The key for ${provider}${where ? ` (${where})` : ""} holds ${what} (character ${position} of ${length}): a request header cannot carry it, so nothing was sent. ${fix}`;
}

/** Where `provider`'s key is written, as a user would look for it; undefined when unknown. */
function keyPlace(provider: string, source: ProviderAuthStatus | undefined): string | undefined {
	switch (source?.source) {
		case "runtime":
			return "given with --api-key (apiKey in code)";
		case "stored":
			return `auth.json's "${provider}" entry`;
		case "environment":
			return `the environment variable ${source.label ?? apiKeyEnvVars(provider)?.join(" or ") ?? "of the provider"}`;
		case "models_json_key":
			return `the "apiKey" of ${provider} in models.json`;
		case "models_json_command":
			return `printed by the "apiKey" command of ${provider}`;
		default:
			return undefined;
	}
}

/**
 * What Anthropic's refusal of a thinking budget needs besides its text, when the model's
 * `maxTokens` caused it: pi-ai fits the budget under that cap, so a cap below 2048 leaves less than
 * the 1024-token minimum budget plus room for an answer, and every turn with thinking is refused
 * ("`max_tokens` must be greater than `thinking.budget_tokens`", agent-afk#951). Undefined when the
 * text is about something else or the cap is large enough.
 *
 * @example
 * ```ts
 * thinkingBudgetNote("400 `max_tokens` must be greater than `thinking.budget_tokens`.", model, "high");
 * ```
 */
export function thinkingBudgetNote(text: string, model: Model, reasoning: string | undefined): string | undefined {
	if (!reasoning || !/budget_tokens/.test(text)) return undefined;
	if (!(model.maxTokens > 0) || model.maxTokens >= MIN_THINKING_MAX_TOKENS) return undefined;
	return `The "maxTokens" of ${model.provider}/${model.id} (${model.maxTokens}) is too small for thinking: Anthropic needs a thinking budget of at least 1024 tokens and max_tokens above it. Raise it to ${MIN_THINKING_MAX_TOKENS} or more in models.json ("modelOverrides" for a built-in provider's model), or turn thinking off (--thinking off).`;
}

/**
 * What a refusal of thinking `off` needs besides its text: a model that always reasons (DeepSeek
 * R1, Gemini 3 Flash on OpenRouter) refuses pi-ai's `reasoning: { effort: "none" }` ("Reasoning is
 * mandatory for this endpoint and cannot be disabled"), on every prompt, and the catalog offers
 * `off` for it (rakazo#114). Undefined with thinking on, for a model that does not reason, or for
 * another text.
 *
 * @example
 * ```ts
 * reasoningMandatoryNote("400 Reasoning is mandatory for this endpoint and cannot be disabled.", model, undefined);
 * ```
 */
export function reasoningMandatoryNote(text: string, model: Model, reasoning: string | undefined): string | undefined {
	if (reasoning || !model.reasoning || !REASONING_MANDATORY.test(text)) return undefined;
	return `${model.provider}/${model.id} always reasons and refused thinking off. Pick a thinking level (--thinking minimal, /thinking minimal), or set "thinkingLevelMap": {"off": null} for it in models.json ("modelOverrides" for a built-in provider's model), so off is not offered and its lowest level applies.`;
}

/** How OpenRouter and the gateways before such models word it. */
const REASONING_MANDATORY = /reasoning is (?:mandatory|required)|(?:reasoning|thinking)\b[^\n.]*\bcannot be disabled/i;

/** The smallest cap for which pi-ai's budget (cap − 1024) meets Anthropic's 1024-token minimum. */
const MIN_THINKING_MAX_TOKENS = 2048;

/** A 403 body that refuses the credentials, not the action (a 403 for a forbidden model is not retried). */
const AUTH_REFUSAL = /invalid[ _-]?(?:api[ _-]?key|token|auth)|expired|unauthori[sz]ed|authenticat|credential/i;

/** The OpenAI client's text for an error body without an `error` field (or none at all). */
const NO_BODY = /^([1-5]\d\d) status code \(no body\)$/;
/** A proxy's HTML error page is long; the start says what went wrong. */
const REFUSED_BODY_MAX_CHARS = 2000;

// The provider clients word every failed connection "Connection error."; through a proxy that
// turned the request away, the user needs to hear it was the proxy (dub#1452).
const BARE_CONNECTION_ERROR = /^(?:connection error\.?|fetch failed)$/i;

/** undici's whole text for a response body whose connection closed while it was read. */
const CUT_STREAM = /^terminated$/i;

/** `body`, each read passed through `read` (which records why a read failed). */
function failureKeptBody(
	body: ReadableStream<Uint8Array>,
	read: <T>(chunk: Promise<T>) => Promise<T>,
): ReadableStream<Uint8Array> {
	const reader = body.getReader();
	return new ReadableStream<Uint8Array>({
		async pull(controller) {
			const chunk = await read(reader.read()).catch((error: unknown) => ({ error }));
			if ("error" in chunk) controller.error(chunk.error);
			else if (chunk.done) controller.close();
			else controller.enqueue(chunk.value);
		},
		cancel: (reason) => reader.cancel(reason),
	});
}

/**
 * The start of `body` (read up to its first non-blank character) and a stream of all its bytes,
 * those read included, to read on from.
 */
async function peekedBody(
	body: ReadableStream<Uint8Array>,
): Promise<{ start: string; body: ReadableStream<Uint8Array> }> {
	const reader = body.getReader();
	const decoder = new TextDecoder();
	const read: Uint8Array[] = [];
	let start = "";
	let done = false;
	while (!done && !start.trim()) {
		const next = await reader.read();
		if (next.done) done = true;
		else {
			read.push(next.value);
			start += decoder.decode(next.value, { stream: true });
		}
	}
	const rest = new ReadableStream<Uint8Array>({
		start(controller) {
			for (const chunk of read) controller.enqueue(chunk);
			if (done) controller.close();
		},
		async pull(controller) {
			const next = await reader.read();
			if (next.done) controller.close();
			else controller.enqueue(next.value);
		},
		cancel: (reason) => reader.cancel(reason),
	});
	return { start, body: rest };
}

/** Media types are case-insensitive: `Text/Event-Stream; charset=UTF-8` is a stream too. */
function isEventStreamResponse(response: Response): boolean {
	return /event-stream/i.test(response.headers.get("content-type") ?? "");
}

/**
 * An OpenAI Chat Completions stream with the wire repairs of {@link repairedChatStream}; a Responses
 * stream whose `response.incomplete` pi-ai reads ({@link completedIncompleteStream}).
 */
function repairedStream(model: Model, response: Response): Response | undefined {
	const repair =
		model.api === "openai-completions"
			? repairedChatStream
			: model.api === "openai-responses" || model.api === "azure-openai-responses"
				? completedIncompleteStream
				: undefined;
	if (!repair || !response.body || !isEventStreamResponse(response)) return undefined;
	const { status, statusText, headers } = response;
	return new Response(repair(response.body), { status, statusText, headers });
}

/** An Anthropic Messages stream whose `message_delta` stop reason and details fill `seen`. */
function watchedStopStream(model: Model, response: Response, seen: AnthropicStop): Response | undefined {
	if (model.api !== "anthropic-messages" || !response.body) return undefined;
	if (!isEventStreamResponse(response)) return undefined;
	const { status, statusText, headers } = response;
	return new Response(watchedAnthropicStop(response.body, seen), { status, statusText, headers });
}

/**
 * The wait the OpenAI and Anthropic clients sleep before their own retry, read as they read it
 * (openai 6.26.0, @anthropic-ai/sdk 0.91.1 `retryRequest`): `retry-after-ms` by parseFloat, and
 * when that is absent, NaN or 0, `Retry-After` by parseFloat, else `Date.parse`. NaN when neither.
 */
function clientRetryWaitMs(headers: Headers, now: number): number {
	const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
	if (ms) return ms;
	const retryAfter = headers.get("retry-after");
	if (!retryAfter) return Number.NaN;
	const seconds = Number.parseFloat(retryAfter);
	return Number.isNaN(seconds) ? Date.parse(retryAfter) - now : seconds * 1000;
}

/** A Gemini stream whose finish reason and message fill `seen`. */
function watchedGeminiStream(model: Model, response: Response, seen: GeminiStop): Response | undefined {
	if ((model.api !== "google-generative-ai" && model.api !== "google-vertex") || !response.body) return undefined;
	if (!isEventStreamResponse(response)) return undefined;
	const { status, statusText, headers } = response;
	return new Response(watchedGeminiStop(response.body, seen), { status, statusText, headers });
}

/** One request of `stream` whose bare connection error, when the proxy caused it, says so and what to do. */
function withProxyFailuresExplained(
	stream: StreamFn,
	model: Model,
	context: Context,
	options: StreamOptions | undefined,
): ReturnType<StreamFn> {
	const mark = proxyFailureMark();
	return rewritingErrors(
		() => stream(model, context, options),
		model,
		(event) => {
			if (!BARE_CONNECTION_ERROR.test(event.error.errorMessage ?? "")) return event;
			const refusal = proxyFailureSince(mark);
			return refusal ? { ...event, error: { ...event.error, errorMessage: refusal } } : event;
		},
	);
}

type ErrorEvent = Extract<AssistantMessageEvent, { type: "error" }>;
type EventStream = AssistantMessageEventStream;

/**
 * `start()`'s stream with its `error` event (a thrown or rejected start, or garbage instead of a
 * stream, included) passed through `rewrite`. Every other event is the inner stream's own, handed
 * on as the consumer pulls it: this runs on every model call, and re-streaming each event through a
 * second stream cost ~6 µs per turn (a quarter of a session's turn).
 */
function rewritingErrors(
	start: () => ReturnType<StreamFn>,
	model: Model,
	rewrite: (event: ErrorEvent) => ErrorEvent | Promise<ErrorEvent>,
	resend?: () => Promise<EventStream | undefined>,
): ReturnType<StreamFn> {
	const failed = (error: unknown) =>
		new RewrittenErrors(
			streamFromMessage(emptyAssistantMessage(model, "error", error instanceof Error ? error.message : String(error))),
			rewrite,
		);
	const checked = (inner: EventStream) =>
		// Garbage from a provider's stream function is named as the agent loop names it, not "not async iterable".
		isEventStream(inner) ? new RewrittenErrors(inner, rewrite, resend) : failed(notAStream(model, inner));
	let started: ReturnType<StreamFn>;
	try {
		started = start();
	} catch (error) {
		return failed(error);
	}
	return started instanceof Promise ? started.then(checked, failed) : checked(started);
}

function isEventStream(inner: EventStream | undefined): inner is EventStream {
	return typeof inner?.[Symbol.asyncIterator] === "function" && typeof inner.result === "function";
}

/** `start()`'s stream, a throw or garbage in its place made an error stream (as the agent loop names it). */
async function started(start: () => ReturnType<StreamFn>, model: Model): Promise<EventStream> {
	try {
		const inner = await start();
		if (isEventStream(inner)) return inner;
		return streamFromMessage(emptyAssistantMessage(model, "error", notAStream(model, inner).message));
	} catch (error) {
		return streamFromMessage(
			emptyAssistantMessage(model, "error", error instanceof Error ? error.message : String(error)),
		);
	}
}

/**
 * A stream whose `error` event and error result are rewritten once; every other event passes as it
 * is. With `resend`, a first event (or result) that is an error is first offered to it: a stream it
 * answers with (the request sent again with a key rotated since) takes the refused one's place, so
 * nothing of the refusal is shown or recorded. Checked in the error path only: no work per request.
 */
class RewrittenErrors implements EventStream {
	private rewritten: Promise<ErrorEvent> | undefined;
	/** Whether {@link inner} is already the stream `resend` gave. */
	private resent = false;

	constructor(
		private inner: EventStream,
		private readonly rewrite: (event: ErrorEvent) => ErrorEvent | Promise<ErrorEvent>,
		private readonly resend?: () => Promise<EventStream | undefined>,
	) {}

	[Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
		let events = this.inner[Symbol.asyncIterator]();
		let first = true;
		const next = (): Promise<IteratorResult<AssistantMessageEvent>> =>
			events.next().then((step) => {
				if (step.done || step.value.type !== "error") {
					first = false;
					return step;
				}
				const error = step.value;
				if (!first || this.resend === undefined || this.resent) return this.rewrittenStep(error);
				first = false;
				return this.resend().then((second) => {
					if (!second || this.resent) return this.rewrittenStep(error);
					this.resent = true;
					void events.return?.();
					this.inner = second;
					events = second[Symbol.asyncIterator]();
					return next();
				});
			});
		return {
			next,
			return: async (value?: unknown) => {
				await events.return?.(value);
				return { done: true, value: undefined };
			},
		};
	}

	result(): Promise<AssistantMessage> {
		return this.inner.result().then((message) => {
			const reason = message.stopReason;
			if (reason !== "error" && reason !== "aborted") return message;
			const rewritten = () => this.rewriteOnce({ type: "error", reason, error: message }).then((event) => event.error);
			if (reason !== "error" || this.resend === undefined || this.resent) return rewritten();
			return this.resend().then((second) => {
				if (!second || this.resent) return rewritten();
				this.resent = true;
				this.inner = second;
				return this.result();
			});
		});
	}

	private rewrittenStep(error: ErrorEvent): Promise<IteratorResult<AssistantMessageEvent>> {
		return this.rewriteOnce(error).then((value) => ({ done: false, value }));
	}

	/** The event and the result agree: whichever is asked first is rewritten, once. */
	private rewriteOnce(event: ErrorEvent): Promise<ErrorEvent> {
		this.rewritten ??= Promise.resolve(this.rewrite(event));
		return this.rewritten;
	}
}
