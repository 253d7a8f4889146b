/**
 * Tool call ids replayed to a model from another model's answers. OpenAI (also behind a proxy:
 * OpenRouter, LiteLLM, Copilot) refuses an id over 40 characters; pi-ai 0.73.1 shortens one only
 * for the provider named `openai`, and by cutting it, so two calls whose ids share their first 40
 * characters (Gemini's `<tool>_<time>_<n>`) went back under one id. Anthropic refuses two calls
 * under one id in a request, and some models number their calls anew in every answer (`call_0`).
 * Mistral's templates (its API, vLLM) refuse any id but 9 letters or digits; pi-ai 0.73.1 dropped
 * the `requiresMistralToolIds` compat its Chat Completions client had, so `toolu_…` went as it was.
 * The Responses APIs refuse two outputs under one `call_id` ("Duplicate function_call_output").
 * Bedrock refuses one `toolUseId` for two calls ("The toolUse blocks … contain duplicate Ids").
 */
import { loadCrypto } from "../lazy-deps.js";
import type { Context, Message, Model } from "./types.js";

/** OpenAI's limit on `tool_calls[].id` ("Expected a string with maximum length 40"). */
export const CHAT_COMPLETIONS_TOOL_CALL_ID_LIMIT = 40;

/** Anthropic's rule for `tool_use.id` (pi-ai cuts and replaces to it), unique in a request. */
const ANTHROPIC_TOOL_USE_ID_LIMIT = 64;

/** The Responses APIs' limit on `call_id` (pi-ai cuts to it). */
const RESPONSES_CALL_ID_LIMIT = 64;

/** Mistral's rule ("Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9"). */
const MISTRAL_TOOL_CALL_ID_LENGTH = 9;

/** The id a call goes under, given the ids earlier calls of the request go under. */
type IdRule = (id: string, taken: ReadonlySet<string>) => string;

/** The wire APIs pi-ai sends as OpenAI Responses requests (`call_id`, `call|item` tool call ids). */
const RESPONSES_APIS: ReadonlySet<string> = new Set([
	"openai-responses",
	"azure-openai-responses",
	"openai-codex-responses",
]);

const ID_RULES: Partial<Record<string, IdRule>> = {
	"openai-completions": chatCompletionsId,
	"anthropic-messages": anthropicId,
	// Bedrock's `toolUseId` has Anthropic's pattern and limit (pi-ai cuts and replaces to them), and
	// its Claude models refuse one id for two calls as Anthropic does.
	"bedrock-converse-stream": anthropicId,
	...Object.fromEntries([...RESPONSES_APIS].map((api) => [api, responsesId])),
};

/**
 * `context` with each tool call id another model wrote renamed where pi-ai would send it in a form
 * `model`'s API refuses, and each renamed call's result with it. A chat-completions model gets an
 * id over 40 characters as `call_` and a hash of it (two ids cut to one prefix stay two); an
 * Anthropic or Bedrock model gets an id another call of the request already has (`call_0` in every
 * answer of Grok or a local server) as `toolu_` and a hash; a Responses model gets a `call_id` another call
 * of the request already has (`bash:0` in every turn) as `call_` and a hash; a Mistral chat-completions model
 * ({@link requiresMistralToolIds}) gets 9 letters or digits. The same on every request, so a cached prefix
 * holds. Ids the same model wrote, and other wire APIs, are left as they are.
 *
 * @example
 * ```ts
 * const context: Context = { messages: session.messages.filter((m) => m.role !== "system") as Message[] };
 * const sent = replayableToolCallIds(model, context);
 * // another model's call "read_file_and_summarize_1780000000000_1" goes to GPT as "call_3f9a…" (40 characters)
 * ```
 */
export function replayableToolCallIds(model: Model, context: Context): Context {
	const rule = model.api === "openai-completions" && requiresMistralToolIds(model) ? mistralId : ID_RULES[model.api];
	if (!rule) return context;
	const taken = new Set<string>();
	// Per id as written, the ids its calls go under in call order: a repeated id's results take them in
	// turn (pi keeps repeated ids, so both results name the one id).
	let sentIds = new Map<string, string[]>();
	let changed = false;
	const messages = context.messages.map((message): Message => {
		if (message.role === "assistant") {
			sentIds = new Map();
			if (message.provider === model.provider && message.api === model.api && message.model === model.id) {
				for (const block of message.content) if (block.type === "toolCall") taken.add(callIdOf(block.id));
				return message;
			}
			let content = message.content;
			for (const [index, block] of message.content.entries()) {
				if (block.type !== "toolCall") continue;
				const id = rule(block.id, taken);
				taken.add(callIdOf(id));
				sentIds.set(block.id, [...(sentIds.get(block.id) ?? []), id]);
				if (id === block.id) continue;
				if (content === message.content) content = [...message.content];
				content[index] = { ...block, id };
			}
			if (content === message.content) return message;
			changed = true;
			return { ...message, content };
		}
		if (message.role === "toolResult") {
			const id = sentIds.get(message.toolCallId)?.shift();
			if (id === undefined || id === message.toolCallId) return message;
			changed = true;
			return { ...message, toolCallId: id };
		}
		return message;
	});
	return changed ? { ...context, messages } : context;
}

/**
 * Whether a chat-completions `model` takes Mistral's ids, as pi-ai before 0.73 decided it: the
 * model's `compat.requiresMistralToolIds` when set (a Mistral model behind vLLM or NVIDIA NIM),
 * else a provider named `mistral` or a `baseUrl` on mistral.ai. Internal.
 */
export function requiresMistralToolIds(model: Model): boolean {
	const set = model.compat?.requiresMistralToolIds;
	if (typeof set === "boolean") return set;
	return model.provider === "mistral" || model.baseUrl.includes("mistral.ai");
}

/** The id's letters and digits when they are 9 and free, else 9 of a hash of it (and its repeat). */
function mistralId(id: string, taken: ReadonlySet<string>): string {
	const kept = id.replace(/[^a-zA-Z0-9]/g, "");
	if (kept.length === MISTRAL_TOOL_CALL_ID_LENGTH && !taken.has(kept)) return kept;
	for (let repeat = 0; ; repeat++) {
		const hash = loadCrypto()
			.createHash("sha256")
			.update(repeat === 0 ? id : `${id}#${repeat}`)
			.digest("base64")
			.replace(/[^a-zA-Z0-9]/g, "");
		const candidate = hash.slice(0, MISTRAL_TOOL_CALL_ID_LENGTH);
		if (!taken.has(candidate)) return candidate;
	}
}

/** What pi-ai would send (the call id of a `call|item` pair) when that fits, else a hash of the id. */
function chatCompletionsId(id: string): string {
	const sent = id.includes("|") ? id.split("|")[0]!.replace(/[^a-zA-Z0-9_-]/g, "_") : id;
	if (sent.length <= CHAT_COMPLETIONS_TOOL_CALL_ID_LIMIT) return sent;
	const hash = loadCrypto().createHash("sha256").update(id).digest("hex");
	return `call_${hash.slice(0, CHAT_COMPLETIONS_TOOL_CALL_ID_LIMIT - 5)}`;
}

/** What pi-ai would send, unless an earlier call goes under it: then a hash of the id and its repeat. */
function anthropicId(id: string, taken: ReadonlySet<string>): string {
	const sent = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, ANTHROPIC_TOOL_USE_ID_LIMIT);
	if (!taken.has(sent)) return sent;
	for (let repeat = 1; ; repeat++) {
		const hash = loadCrypto().createHash("sha256").update(`${id}#${repeat}`).digest("hex");
		const candidate = `toolu_${hash.slice(0, 32)}`;
		if (!taken.has(candidate)) return candidate;
	}
}

/** The call id of a Responses `call|item` pair (what the APIs match outputs by), else the id. */
function callIdOf(id: string): string {
	const pipe = id.indexOf("|");
	return pipe < 0 ? id : id.slice(0, pipe);
}

/**
 * What pi-ai would send as the `call_id` (its item id kept), unless an earlier call goes under it:
 * then a hash of the id and its repeat.
 */
function responsesId(id: string, taken: ReadonlySet<string>): string {
	const item = id.slice(callIdOf(id).length);
	const sent = callIdOf(id)
		.replace(/[^a-zA-Z0-9_-]/g, "_")
		.slice(0, RESPONSES_CALL_ID_LIMIT)
		.replace(/_+$/, "");
	if (!taken.has(sent)) return `${sent}${item}`;
	for (let repeat = 1; ; repeat++) {
		const hash = loadCrypto().createHash("sha256").update(`${id}#${repeat}`).digest("hex");
		const candidate = `call_${hash.slice(0, 32)}`;
		if (!taken.has(candidate)) return `${candidate}${item}`;
	}
}

/** pi-ai's tool call id for a Responses `function_call` that came without an item `id`. */
const MISSING_ITEM_ID = "|undefined";

/**
 * `context` with each tool call id pi-ai wrote as `<call_id>|undefined` (a Responses server that
 * left out the optional item `id`) as its call id alone, its result with it, for a Responses
 * `model`: pi-ai 0.73.1 would send every such call under the item id `undefined`, and the server
 * refuses the repeat ("Duplicate item found with id undefined", pi#9057).
 */
export function withoutMissingItemIds(model: Model, context: Context): Context {
	if (!RESPONSES_APIS.has(model.api)) return context;
	const bare = (id: string) => (id.endsWith(MISSING_ITEM_ID) ? id.slice(0, -MISSING_ITEM_ID.length) : id);
	let changed = false;
	const messages = context.messages.map((message): Message => {
		if (message.role === "toolResult") {
			if (!message.toolCallId.endsWith(MISSING_ITEM_ID)) return message;
			changed = true;
			return { ...message, toolCallId: bare(message.toolCallId) };
		}
		if (message.role !== "assistant") return message;
		if (!message.content.some((block) => block.type === "toolCall" && block.id.endsWith(MISSING_ITEM_ID)))
			return message;
		changed = true;
		return {
			...message,
			content: message.content.map((block) => (block.type === "toolCall" ? { ...block, id: bare(block.id) } : block)),
		};
	});
	return changed ? { ...context, messages } : context;
}
