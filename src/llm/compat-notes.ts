/**
 * What an OpenAI-compatible server's refusal of a request field needs besides its text: the
 * models.json `compat` setting that stops pi-ai sending that field. Servers word it their own way
 * ("developer is not one of […]", `Unknown name "store"`, "Unrecognized request argument supplied:
 * reasoning_effort"), none of them names the setting, and users were left with a 400 on every
 * prompt (pi#5117, pi#4891). The request itself is never changed: the user decides.
 */
import { shownUrl } from "./connection-failures.js";
import type { Model } from "./types.js";

interface RefusedField {
	/** Finds the field in the refusal's text (with a "use X instead" clause taken out). */
	pattern: RegExp;
	/** What else the text must say for the field to be the refused one. */
	context?: RegExp;
	/** How the server words the refusal, when not as {@link REFUSAL} does (a field it requires). */
	refusal?: RegExp;
	/** What pi-ai sent, as the user would recognize it. */
	sent: string;
	/** The `compat` entry that stops it. */
	compat: string;
}

/** A refusal about a message's role ("developer" can be a word of the server's own prose). */
const ROLE = /\brole\b|variant|not one of|input should be/i;

const DEVELOPER: RefusedField = {
	pattern: /\bdeveloper\b/i,
	context: ROLE,
	sent: `the "developer" role pi-ai gives a reasoning model's system prompt`,
	compat: `"supportsDeveloperRole": false`,
};
const STORE: RefusedField = {
	pattern: /["'`]store\\?["'`]|:\s*store\b/,
	sent: `"store": false`,
	compat: `"supportsStore": false`,
};

// Most specific first: the first field found is the one named.
const COMPLETIONS_FIELDS: readonly RefusedField[] = [
	DEVELOPER,
	{
		pattern: /\bstream_options\b/,
		sent: `"stream_options" (usage in the stream)`,
		compat: `"supportsUsageInStreaming": false`,
	},
	{ pattern: /\breasoning_effort\b/, sent: `"reasoning_effort"`, compat: `"supportsReasoningEffort": false` },
	{
		pattern: /\bmax_completion_tokens\b/,
		sent: `the output cap as "max_completion_tokens"`,
		compat: `"maxTokensField": "max_tokens"`,
	},
	{
		pattern: /\bmax_tokens\b/,
		sent: `the output cap as "max_tokens"`,
		compat: `"maxTokensField": "max_completion_tokens"`,
	},
	STORE,
	{ pattern: /["'`.]strict\b/, sent: `"strict" in each tool`, compat: `"supportsStrictMode": false` },
	{
		// Mistral's templates: a tool result is answered before the next user message (pi-neuralwatt#12).
		pattern: /\brole ['"`]?user['"`]? after role ['"`]?tool\b/i,
		sent: "a user message right after tool results",
		compat: `"requiresAssistantAfterToolResult": true`,
	},
	{
		// Mistral's templates, also behind vLLM, take 9 letters or digits as a call's id (llxprt-code#760).
		pattern: /\btool call id was\b[^\n]*\blength of 9\b/i,
		refusal: /\bmust be\b/i,
		sent: "tool call ids another model wrote (Mistral's templates take 9 letters or digits)",
		compat: `"requiresMistralToolIds": true`,
	},
	{
		// Gemini's OpenAI endpoint and proxies to it match a result to its call by name (gcli2api#200).
		pattern: /\btool messages?\b[^\n.]*\bname\b/i,
		refusal: /\bmust have\b|\bmissing\b|\brequired\b/i,
		sent: `tool results without the tool's "name"`,
		compat: `"requiresToolResultName": true`,
	},
];

/** Words a server refuses a field or a role with (a value out of range is another matter). */
const REFUSAL =
	/unsupported|not supported|unrecogni[sz]ed|unknown|not one of|cannot find field|extra[ _]?(?:inputs?|forbidden|fields?)|not permitted|not allowed|unexpected|invalid (?:role|param|field|argument)|input should be/i;
/** "… Use 'max_completion_tokens' instead.": the field named there is the cure, not the refused one. */
const USE_INSTEAD = /\buse\s+['"`]?\w+['"`]?\s+instead\b/gi;

/**
 * The note for a 400 / 422 from an `openai-completions` or `openai-responses` model that refuses a
 * field pi-ai sent (or one it left out, a tool result's `name`), naming the models.json setting that stops it; undefined for any other failure
 * (a value out of range, another API, another status).
 *
 * @example
 * ```ts
 * const note = compatOptionNote(
 * 	"400 developer is not one of ['system', 'assistant', 'user', 'tool', 'function'] - 'messages.[0].role'",
 * 	400,
 * 	{ ...model, api: "openai-completions", provider: "kilo", id: "qwen-3.5-plus" },
 * );
 * expect(note).toContain(`"compat": {"supportsDeveloperRole": false}`);
 * ```
 */
export function compatOptionNote(text: string, status: number | undefined, model: Model): string | undefined {
	if (status !== 400 && status !== 422) return undefined;
	if (model.api !== "openai-completions" && model.api !== "openai-responses") return undefined;
	const refused = text.replace(USE_INSTEAD, "");
	const where = `${model.provider}/${model.id}`;
	if (model.api === "openai-responses") {
		// pi-ai's Responses client sends both always; only the Chat Completions client has settings for them.
		const field = isRefused(DEVELOPER, refused) ? `the "developer" role` : isRefused(STORE, refused) ? `"store"` : "";
		if (!field) return undefined;
		return `${where} refused ${field}, which pi-ai's "openai-responses" client always sends. If the server speaks Chat Completions, set "api": "openai-completions" for ${model.provider} in models.json (its "compat" then controls the role and "store").`;
	}
	const field = COMPLETIONS_FIELDS.find((f) => isRefused(f, refused));
	if (!field) return undefined;
	return `${where} refused ${field.sent}. To change that, set "compat": {${field.compat}} for ${model.provider} in models.json (on the provider or on the model; in "modelOverrides" for a built-in provider's model).`;
}

function isRefused(field: RefusedField, text: string): boolean {
	return field.pattern.test(text) && (field.refusal ?? REFUSAL).test(text) && (field.context?.test(text) ?? true);
}

/** The request field an output cap is sent in, by API (a refusal must name one of them). */
const OUTPUT_CAP_FIELD = /\bmax_(?:completion_|output_)?tokens\b|\bmaxOutputTokens\b/;
/** How servers word the largest cap they take: OpenAI, Novita, Volcengine, Anthropic. */
const OUTPUT_CAP_LIMITS: readonly RegExp[] = [
	/\bat most (\d+)/i,
	/\bbetween -?\d+ and (\d+)/i,
	/(?:<=|less than or equal to|maximum(?: value)? (?:is|of)) ?(\d+)/i,
	/> ?(\d+), which is the maximum/i,
];

/**
 * The note for a 400 / 422 that refuses the output cap as over what the server takes ("max_tokens
 * is too large: 32000. This model supports at most 16384", "must be between 0 and 4096"): the
 * cap comes from the model's `maxTokens` (at most 32000 a request), which the user sets lower in
 * models.json. Users saw the refusal alone on every prompt (opencode#1735, cline#8337).
 * `requested` is the cap the request asked for (0 when unknown); undefined for any other refusal,
 * or a limit at or over `requested`.
 *
 * @example
 * ```ts
 * outputCapRefusedNote("400 max_tokens is too large: 32000. This model supports at most 16384 completion tokens", 400, model, 32000);
 * // '… Set "maxTokens": 16384 for coder in models.json …'
 * ```
 */
export function outputCapRefusedNote(
	text: string,
	status: number | undefined,
	model: Model,
	requested: number,
): string | undefined {
	if ((status !== 400 && status !== 422) || !OUTPUT_CAP_FIELD.test(text)) return undefined;
	const limit = OUTPUT_CAP_LIMITS.map((pattern) => Number(pattern.exec(text)?.[1])).find((n) => n > 0);
	if (limit === undefined || (requested > 0 && limit >= requested)) return undefined;
	const asked = requested > 0 ? `asked for up to ${requested} tokens of answer` : "asked for more tokens of answer";
	const own = model.maxTokens > 0 ? ` (its "maxTokens" is ${model.maxTokens})` : "";
	return `${model.provider}/${model.id} ${asked}${own}; the server takes at most ${limit}. Set "maxTokens": ${limit} for ${model.id} in models.json ("modelOverrides" for a built-in provider's model).`;
}

/** An API path a `baseUrl` was given with, which pi-ai's clients append themselves. */
const ENDPOINT_PATH = /\/(?:chat\/completions|responses)\/*$/;

/**
 * For an `openai-completions` / `openai-responses` model whose `baseUrl` is a server's address
 * alone (`http://localhost:1234`) and whose endpoint the server does not serve: the `baseUrl` with
 * `/v1` (pi#9099). Undefined for another API or a `baseUrl` with a path. Internal.
 */
export function missingV1Note(model: Model): string | undefined {
	if (model.api !== "openai-completions" && model.api !== "openai-responses") return undefined;
	if (!NO_PATH.test(model.baseUrl)) return undefined;
	const base = shownUrl(model.baseUrl);
	const endpoint = model.api === "openai-responses" ? "/responses" : "/chat/completions";
	const fix = hasPrivateParts(model.baseUrl)
		? `add /v1 to the path of the "baseUrl" of ${model.provider} in models.json`
		: `set "baseUrl": "${base}/v1" for ${model.provider} in models.json`;
	return `The server has no ${endpoint} at ${base}: OpenAI-compatible servers (Ollama, vLLM, LM Studio, OpenAI) serve it under /v1. If this one does, ${fix}.`;
}

/**
 * A user, password or query in `url`: a note shows the URL without them ({@link shownUrl}), since
 * notes reach session files, logs and exports, so it cannot give the whole value to set.
 */
function hasPrivateParts(url: string): boolean {
	try {
		const parsed = new URL(url);
		return parsed.username !== "" || parsed.password !== "" || parsed.search !== "";
	} catch {
		return false;
	}
}

/** A `baseUrl` that is a server's address alone (`http://localhost:11434`, maybe with a slash). */
const NO_PATH = /^https?:\/\/[^/?#]+\/*$/;

/**
 * A 404's text as servers word a path they have no route for: Ollama's "404 page not found",
 * FastAPI's `{"detail":"Not Found"}`, an HTML "404 Not Found", OpenAI's "Invalid URL", LM Studio's
 * "Unexpected endpoint", Express's "Cannot POST", or no body. Not a missing model's or deployment's.
 */
const UNKNOWN_PATH = /not found|invalid url|unexpected endpoint|cannot post|no route|\(no body\)/i;

/**
 * For a 404 (`text`) from an `openai-completions` / `openai-responses` model whose `baseUrl` has a
 * path of its own (`http://host:1234/api`): the URL requested, and to check that path; `/v1` is
 * suggested only when the path does not already end with it. Undefined for a text that speaks of a
 * model or reads as no unknown path. `answered` is how the server answered (LM Studio's is a 200).
 */
function basePathNote(model: Model, text: string, answered = "404"): string | undefined {
	if (/model/i.test(text) || !UNKNOWN_PATH.test(text)) return undefined;
	let path: string;
	try {
		path = new URL(model.baseUrl).pathname.replace(/\/+$/, "");
	} catch {
		return undefined;
	}
	if (!path) return undefined;
	const base = shownUrl(model.baseUrl).replace(/\/+$/, "");
	const endpoint = model.api === "openai-responses" ? "/responses" : "/chat/completions";
	const v1 = /\/v1$/i.test(path)
		? ""
		: " (OpenAI-compatible servers such as Ollama, vLLM and LM Studio serve it under /v1)";
	return `The request went to ${base}${endpoint} and the server answered ${answered}: it serves no ${endpoint} under the path ${path} of the "baseUrl" of ${model.provider}. Check that path in models.json${v1}.`;
}

/**
 * For a 200 whose body is an error object (`message`, LM Studio's "Unexpected endpoint or method.")
 * from an `openai-completions` / `openai-responses` model: the baseUrl with `/v1` when it has no
 * path (pi#9099), else the URL requested and to check the baseUrl's path, as for a 404. Internal.
 */
export function servedErrorPathNote(model: Model, message: string): string | undefined {
	if (model.api !== "openai-completions" && model.api !== "openai-responses") return undefined;
	return missingV1Note(model) ?? basePathNote(model, message, "200 with that error");
}

/**
 * The note for a 404 from an `openai-completions` / `openai-responses` model whose `baseUrl` already
 * ends with the endpoint's path (`…/v1/chat/completions`, copied from a server's docs): the client
 * appends it again, so the request went to `…/chat/completions/chat/completions` (opencodex#1582).
 * Also for a `baseUrl` with no path at all (`http://host:port`, pi#9099) when the 404's `text` does
 * not speak of a model: Ollama, vLLM and OpenAI serve the API under `/v1` only, and their answer for
 * another path ("404 page not found", `{"detail":"Not Found"}`, "Invalid URL") never says "model",
 * while their answer for a model they lack always does. For a `baseUrl` with another path
 * (`http://host:port/api`), when the 404 reads as a path with no route: the URL requested and to
 * check that path. Undefined for any other 404.
 *
 * @example
 * ```ts
 * const note = endpointPathNote(404, { ...model, api: "openai-completions", provider: "gateway", baseUrl: "https://llm.example.com/v1/chat/completions" });
 * expect(note).toContain(`"baseUrl": "https://llm.example.com/v1"`);
 * ```
 */
export function endpointPathNote(status: number | undefined, model: Model, text = ""): string | undefined {
	if (status !== 404 || (model.api !== "openai-completions" && model.api !== "openai-responses")) return undefined;
	const path = ENDPOINT_PATH.exec(model.baseUrl);
	if (!path) return /model/i.test(text) ? undefined : (missingV1Note(model) ?? basePathNote(model, text));
	const endpoint = path[0].replace(/\/+$/, "");
	const fix = hasPrivateParts(model.baseUrl)
		? `take ${endpoint} off its end in models.json`
		: `set "baseUrl": "${model.baseUrl.slice(0, path.index)}" in models.json`;
	return `The "baseUrl" of ${model.provider} (${shownUrl(model.baseUrl)}) ends with ${endpoint}, which pi-ai adds to it itself: ${fix}.`;
}
