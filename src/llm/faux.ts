/**
 * The scripted ("faux") model provider: answers each request with the next queued response,
 * streamed in small chunks like a real provider. Offline, deterministic in content, and the way
 * every test in Settle drives a model.
 */
import { errorMessage } from "../errors.js";
import { AssistantMessageEventStream } from "./event-stream.js";
import {
	type AssistantMessage,
	type Context,
	emptyAssistantMessage,
	emptyUsage,
	type Message,
	type Model,
	type ModelCost,
	type StreamFn,
	type StreamOptions,
	type TextContent,
	type ThinkingContent,
	type Tool,
	type ToolCall,
	type Usage,
} from "./types.js";

const DEFAULT_API = "faux";
const DEFAULT_PROVIDER = "faux";
const DEFAULT_MODEL_ID = "faux-1";
const DEFAULT_MODEL_NAME = "Faux Model";
const DEFAULT_BASE_URL = "http://localhost:0";
const ZERO_COST: ModelCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** Mutable counters a response factory receives. */
export interface FauxState {
	/** Number of stream calls so far, including the current one. */
	callCount: number;
}

/**
 * Builds the reply to one request. Receives the request exactly as the provider got it
 * (messages after `convertToLlm`, system prompt, tools), so it can assert on it or answer from it.
 */
export type FauxResponseFactory = (
	context: Context,
	options: StreamOptions | undefined,
	state: FauxState,
	model: Model,
) => AssistantMessage | Promise<AssistantMessage>;

/** One scripted reply: a message, or a factory called when the request arrives. */
export type FauxResponseStep = AssistantMessage | FauxResponseFactory;

/** A model the faux provider serves; every field but `id` has a default. */
export interface FauxModelDefinition {
	id: string;
	name?: string;
	reasoning?: boolean;
	input?: ("text" | "image")[];
	cost?: ModelCost;
	contextWindow?: number;
	maxTokens?: number;
	thinkingLevelMap?: Model["thinkingLevelMap"];
	compat?: Record<string, unknown>;
	/** Prompt cache lifetimes in seconds (makes the model eligible for cache warming). */
	promptCache?: Model["promptCache"];
}

/** Options of {@link createFauxProvider}: ids, models and streaming pace. */
export interface FauxProviderOptions {
	/** Wire API id stamped on models and replies (default `faux`). */
	api?: string;
	/** Provider id (default `faux`). */
	provider?: string;
	/** Models to serve (default one model, `faux-1`). */
	models?: FauxModelDefinition[];
	/** Real pacing: chunks are delayed by their token count / this rate. Default: one microtask per chunk. */
	tokensPerSecond?: number;
	/** Tokens per chunk, each token 4 characters (default 3–5). */
	tokenSize?: { min?: number; max?: number };
	/**
	 * Seed of the chunk sizes (default 1). Sizes come from a small PRNG owned by the provider, so
	 * the same script streams the same chunks on every run and a property test's seed replays it
	 * exactly; pi-ai's faux draws them with `Math.random`.
	 */
	seed?: number;
}

/** What one stream call received, recorded as a snapshot at call time. */
export interface FauxRequest {
	model: Model;
	systemPrompt?: string;
	/** Copy of the request's messages (after `convertToLlm`). */
	messages: Message[];
	tools?: Tool[];
	/** Stream options without the abort signal. */
	options: Omit<StreamOptions, "signal">;
}

/** A faux provider: models, a stream function and its response queue. See {@link createFauxProvider}. */
export interface FauxProvider {
	readonly api: string;
	readonly provider: string;
	readonly models: Model[];
	/**
	 * The first model: a faux provider always serves at least one, so this is never `undefined`
	 * (as pi-ai's faux `getModel()`), and `createAgentSession({ model: faux.getModel() })` type-checks
	 * under `exactOptionalPropertyTypes` too.
	 */
	getModel(): Model;
	/** The model with this id (the first model when `id` is undefined); `undefined` when unknown. */
	getModel(id: string | undefined): Model | undefined;
	/** Pass this to an Agent (`new Agent({ streamFn })`) or call it directly. Never throws. */
	readonly streamFn: StreamFn;
	/** Replaces the queue. */
	setResponses(steps: readonly FauxResponseStep[]): void;
	/** Adds steps to the end of the queue. */
	appendResponses(steps: readonly FauxResponseStep[]): void;
	/** Number of stream calls so far. */
	readonly callCount: number;
	/** Number of queued steps not yet taken. */
	readonly pendingResponseCount: number;
	/**
	 * Every request received, in call order, each with its whole message list: a provider kept for
	 * thousands of turns holds a number of message references that grows with the square of the turns.
	 */
	readonly requests: readonly FauxRequest[];
	/** pi-ai compatibility: `{ callCount }`, the object factories receive. */
	readonly state: FauxState;
	/** pi-ai compatibility alias of {@link FauxProvider.pendingResponseCount}. */
	getPendingResponseCount(): number;
}

/**
 * A text block.
 *
 * @example
 * ```ts
 * faux.setResponses([fauxAssistantMessage([fauxThinking("A greeting."), fauxText("Hello!")])]);
 * ```
 */
export function fauxText(text: string): TextContent {
	return { type: "text", text };
}

/**
 * A thinking block.
 *
 * @example
 * ```ts
 * faux.setResponses([fauxAssistantMessage([fauxThinking("A greeting."), fauxText("Hello!")])]);
 * ```
 */
export function fauxThinking(thinking: string): ThinkingContent {
	return { type: "thinking", thinking };
}

let toolCallCounter = 0;

/**
 * A tool-call block; the id defaults to a unique `tool:<time>:<n>`.
 *
 * @example
 * ```ts
 * fauxAssistantMessage([fauxToolCall("read", { path: "a.txt" }, { id: "call-1" })], { stopReason: "toolUse" });
 * ```
 */
export function fauxToolCall(name: string, args: Record<string, unknown>, options: { id?: string } = {}): ToolCall {
	return { type: "toolCall", id: options.id ?? `tool:${Date.now()}:${++toolCallCounter}`, name, arguments: args };
}

/** Fields of a scripted reply other than its content (default stop reason `stop`). */
export interface FauxAssistantMessageOptions {
	stopReason?: AssistantMessage["stopReason"];
	errorMessage?: string;
	responseId?: string;
	timestamp?: number;
}

/**
 * A scripted assistant reply. A string becomes one text block. `api`, `provider` and `model` are
 * overwritten with the requesting model's when the reply is served.
 *
 * Gotcha (as in pi): the timestamp is taken when this builder runs, so a reply built up front
 * is older than the prompt it answers. When the time matters, queue a factory instead:
 * `faux.setResponses([() => fauxAssistantMessage("hi")])` builds the reply when the request arrives.
 *
 * @example
 * ```ts
 * faux.setResponses([
 *   fauxAssistantMessage("Hello"),
 *   fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error" }),
 * ]);
 * ```
 */
export function fauxAssistantMessage(
	content: string | AssistantMessage["content"][number] | AssistantMessage["content"],
	options: FauxAssistantMessageOptions = {},
): AssistantMessage {
	const blocks = typeof content === "string" ? [fauxText(content)] : Array.isArray(content) ? content : [content];
	const message: Omit<AssistantMessage, "timestamp"> & { timestamp?: number } = {
		role: "assistant",
		content: blocks,
		api: DEFAULT_API,
		provider: DEFAULT_PROVIDER,
		model: DEFAULT_MODEL_ID,
		usage: emptyUsage(),
		stopReason: options.stopReason ?? "stop",
	};
	// pi-ai's key order (errorMessage, responseId, then timestamp): the same bytes in a session file.
	if (options.errorMessage !== undefined) message.errorMessage = options.errorMessage;
	if (options.responseId !== undefined) message.responseId = options.responseId;
	message.timestamp = options.timestamp ?? Date.now();
	return message as AssistantMessage;
}

/**
 * Creates a scripted model provider. Each call of `streamFn` takes the next queued step (FIFO),
 * records the request, and streams the reply: `start`, then per block `thinking_*` / `text_*` /
 * `toolcall_*` start–delta–end events in chunks of 3–5 "tokens" (4 characters each), then `done`
 * (or `error` when the scripted stop reason is `error`/`aborted`).
 *
 * - Abort is checked before `start` and before every chunk: the reply ends with
 *   `stopReason:"aborted"`, `errorMessage:"Request was aborted"` and the content streamed so far.
 * - An empty queue answers with the error `No more faux responses queued`; a throwing factory
 *   answers with an error carrying the thrown text.
 * - Usage is estimated: input ≈ ceil(chars / 4) of the serialized request, output from the reply;
 *   with `options.sessionId`, the common prefix with the previous request counts as cache read.
 * - `options.onResponse` is called with `{status: 200, headers: {}}`; `options.onPayload` with the
 *   request context (a returned object with a `messages` array replaces it for the factory).
 *
 * @example
 * ```ts
 * const faux = createFauxProvider();
 * faux.setResponses([fauxAssistantMessage("Hi!")]);
 * const agent = new Agent({ streamFn: faux.streamFn, initialState: { model: faux.getModel() } });
 * await agent.prompt("hello");
 * faux.requests[0].messages; // [{ role: "user", … }]
 * ```
 */
export function createFauxProvider(options: FauxProviderOptions = {}): FauxProvider {
	const api = options.api ?? DEFAULT_API;
	const provider = options.provider ?? DEFAULT_PROVIDER;
	const minTokens = Math.max(1, Math.min(options.tokenSize?.min ?? 3, options.tokenSize?.max ?? 5));
	const maxTokens = Math.max(minTokens, options.tokenSize?.max ?? 5);
	const tokensPerSecond = options.tokensPerSecond;
	const nextRandom = seededRandom(options.seed ?? 1);
	const definitions: FauxModelDefinition[] = options.models?.length
		? options.models
		: [{ id: DEFAULT_MODEL_ID, name: DEFAULT_MODEL_NAME }];
	const models: Model[] = definitions.map((definition) => {
		const model: Model = {
			id: definition.id,
			name: definition.name ?? definition.id,
			api,
			provider,
			baseUrl: DEFAULT_BASE_URL,
			reasoning: definition.reasoning ?? false,
			input: definition.input ?? ["text", "image"],
			cost: definition.cost ?? { ...ZERO_COST },
			contextWindow: definition.contextWindow ?? 128000,
			maxTokens: definition.maxTokens ?? 16384,
		};
		if (definition.thinkingLevelMap) model.thinkingLevelMap = definition.thinkingLevelMap;
		if (definition.compat) model.compat = definition.compat;
		if (definition.promptCache) model.promptCache = definition.promptCache;
		return model;
	});

	let queue: FauxResponseStep[] = [];
	const requests: FauxRequest[] = [];
	const state: FauxState = { callCount: 0 };
	const promptCache = new Map<string, string>();

	const streamFn: StreamFn = (model, context, streamOptions) => {
		const stream = new AssistantMessageEventStream();
		const step = queue.shift();
		state.callCount++;
		requests.push(recordRequest(model, context, streamOptions));
		queueMicrotask(() => {
			void serve(stream, step, model, context, streamOptions).catch((error: unknown) => {
				// As pi-ai's faux: a failing factory (or onResponse/onPayload) reports no usage and leaves the prompt cache alone.
				const failure = failureMessage(error, api, provider, model.id);
				stream.push({ type: "error", reason: "error", error: failure });
				stream.end(failure);
			});
		});
		return stream;
	};

	async function serve(
		stream: AssistantMessageEventStream,
		step: FauxResponseStep | undefined,
		model: Model,
		requestContext: Context,
		streamOptions: StreamOptions | undefined,
	): Promise<void> {
		await streamOptions?.onResponse?.({ status: 200, headers: {} }, model);
		let context = requestContext;
		const payload = await streamOptions?.onPayload?.(context, model);
		if (isContext(payload)) context = payload;
		if (step === undefined) {
			// The one failure pi-ai's faux estimates usage for (the request was read, nothing answered).
			const failure = withUsage(
				failureMessage("No more faux responses queued", api, provider, model.id),
				context,
				streamOptions,
			);
			stream.push({ type: "error", reason: "error", error: failure });
			stream.end(failure);
			return;
		}
		const scripted = typeof step === "function" ? await step(context, streamOptions, state, model) : step;
		const message = withUsage(
			{ ...scripted, content: scripted.content.map(cloneBlock), api, provider, model: model.id },
			context,
			streamOptions,
		);
		await streamMessage(stream, message, streamOptions?.signal);
	}

	function withUsage(message: AssistantMessage, context: Context, streamOptions: StreamOptions | undefined) {
		return { ...message, usage: estimateUsage(message, context, streamOptions, promptCache) };
	}

	async function streamMessage(stream: AssistantMessageEventStream, message: AssistantMessage, signal?: AbortSignal) {
		const partial: AssistantMessage = { ...message, content: [] };
		const abort = (): void => {
			const { timestamp: _streamed, errorMessage: _scripted, ...rest } = partial;
			// pi-ai's key order: errorMessage, then timestamp.
			const aborted: AssistantMessage = {
				...rest,
				content: partial.content.slice(),
				stopReason: "aborted",
				errorMessage: "Request was aborted",
				timestamp: Date.now(),
			};
			stream.push({ type: "error", reason: "aborted", error: aborted });
			stream.end(aborted);
		};
		const snapshot = (): AssistantMessage => ({ ...partial, content: partial.content.slice() });
		if (signal?.aborted) return abort();
		stream.push({ type: "start", partial: snapshot() });
		for (let index = 0; index < message.content.length; index++) {
			if (signal?.aborted) return abort();
			const block = message.content[index]!;
			if (block.type === "thinking" || block.type === "text") {
				const isText = block.type === "text";
				const full = isText ? block.text : block.thinking;
				let sofar = "";
				const current = (): TextContent | ThinkingContent =>
					isText ? { ...block, text: sofar } : { ...(block as ThinkingContent), thinking: sofar };
				partial.content.push(current());
				stream.push({ type: isText ? "text_start" : "thinking_start", contentIndex: index, partial: snapshot() });
				for (const chunk of chunks(full)) {
					await pace(chunk);
					if (signal?.aborted) return abort();
					sofar += chunk;
					partial.content[index] = current();
					stream.push({
						type: isText ? "text_delta" : "thinking_delta",
						contentIndex: index,
						delta: chunk,
						partial: snapshot(),
					});
				}
				partial.content[index] = block;
				stream.push({
					type: isText ? "text_end" : "thinking_end",
					contentIndex: index,
					content: full,
					partial: snapshot(),
				});
				continue;
			}
			partial.content.push({ ...block, arguments: {} });
			stream.push({ type: "toolcall_start", contentIndex: index, partial: snapshot() });
			for (const chunk of chunks(JSON.stringify(block.arguments))) {
				await pace(chunk);
				if (signal?.aborted) return abort();
				stream.push({ type: "toolcall_delta", contentIndex: index, delta: chunk, partial: snapshot() });
			}
			partial.content[index] = block;
			stream.push({ type: "toolcall_end", contentIndex: index, toolCall: block, partial: snapshot() });
		}
		if (message.stopReason === "error" || message.stopReason === "aborted") {
			stream.push({ type: "error", reason: message.stopReason, error: message });
		} else {
			stream.push({ type: "done", reason: message.stopReason, message });
		}
		stream.end(message);
	}

	function chunks(text: string): string[] {
		const result: string[] = [];
		for (let index = 0; index < text.length; ) {
			const tokens = minTokens + Math.floor(nextRandom() * (maxTokens - minTokens + 1));
			let end = index + tokens * 4;
			// Never between the halves of a surrogate pair: a chat printing each delta as it comes would
			// show an emoji past the first chunk as two "�" (pi-ai's faux cuts there).
			if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end++;
			result.push(text.slice(index, end));
			index = end;
		}
		return result.length > 0 ? result : [""];
	}

	function pace(chunk: string): Promise<void> {
		if (!tokensPerSecond || tokensPerSecond <= 0) return new Promise((resolve) => queueMicrotask(resolve));
		const delayMs = (Math.ceil(chunk.length / 4) / tokensPerSecond) * 1000;
		return new Promise((resolve) => setTimeout(resolve, delayMs));
	}

	return {
		api,
		provider,
		models,
		getModel: ((id?: string) =>
			id === undefined ? models[0]! : models.find((model) => model.id === id)) as FauxProvider["getModel"],
		streamFn,
		setResponses(steps) {
			queue = [...steps];
		},
		appendResponses(steps) {
			queue.push(...steps);
		},
		get callCount() {
			return state.callCount;
		},
		get pendingResponseCount() {
			return queue.length;
		},
		get requests() {
			return requests;
		},
		state,
		getPendingResponseCount() {
			return queue.length;
		},
	};
}

function recordRequest(model: Model, context: Context, options: StreamOptions | undefined): FauxRequest {
	const { signal: _signal, ...rest } = options ?? {};
	const request: FauxRequest = { model, messages: context.messages.slice(), options: rest };
	if (context.systemPrompt !== undefined) request.systemPrompt = context.systemPrompt;
	if (context.tools !== undefined) request.tools = context.tools.slice();
	return request;
}

function isContext(value: unknown): value is Context {
	return typeof value === "object" && value !== null && Array.isArray((value as Context).messages);
}

function cloneBlock(block: AssistantMessage["content"][number]): AssistantMessage["content"][number] {
	return block.type === "toolCall" ? { ...block, arguments: structuredClone(block.arguments) } : { ...block };
}

function failureMessage(error: unknown, api: string, provider: string, modelId: string): AssistantMessage {
	const message = emptyAssistantMessage({ api, provider, id: modelId }, "error", errorMessage(error));
	// pi-ai's createErrorMessage key order: errorMessage before timestamp.
	const { timestamp, ...rest } = message;
	return { ...rest, timestamp };
}

function estimateTokens(text: string): number {
	return Math.ceil(text.length / 4);
}

function blockText(block: AssistantMessage["content"][number]): string {
	if (block.type === "text") return block.text;
	if (block.type === "thinking") return block.thinking;
	return `${block.name}:${JSON.stringify(block.arguments)}`;
}

function messageText(message: Message): string {
	if (message.role === "assistant") return message.content.map(blockText).join("\n");
	const content = message.content;
	const text =
		typeof content === "string"
			? content
			: content
					.map((block) => (block.type === "text" ? block.text : `[image:${block.mimeType}:${block.data.length}]`))
					.join("\n");
	return message.role === "toolResult" ? `${message.toolName}\n${text}` : text;
}

function serializeContext(context: Context): string {
	const parts: string[] = [];
	if (context.systemPrompt) parts.push(`system:${context.systemPrompt}`);
	for (const message of context.messages) parts.push(`${message.role}:${messageText(message)}`);
	if (context.tools?.length) parts.push(`tools:${JSON.stringify(context.tools)}`);
	return parts.join("\n\n");
}

function estimateUsage(
	message: AssistantMessage,
	context: Context,
	options: StreamOptions | undefined,
	promptCache: Map<string, string>,
): Usage {
	const prompt = serializeContext(context);
	const promptTokens = estimateTokens(prompt);
	const output = estimateTokens(message.content.map(blockText).join("\n"));
	let input = promptTokens;
	let cacheRead = 0;
	let cacheWrite = 0;
	const sessionId = options?.sessionId;
	if (sessionId && options?.cacheRetention !== "none") {
		const previous = promptCache.get(sessionId);
		if (previous !== undefined) {
			let shared = 0;
			const limit = Math.min(previous.length, prompt.length);
			while (shared < limit && previous.charCodeAt(shared) === prompt.charCodeAt(shared)) shared++;
			cacheRead = estimateTokens(previous.slice(0, shared));
			cacheWrite = estimateTokens(prompt.slice(shared));
			input = Math.max(0, promptTokens - cacheRead);
		} else {
			cacheWrite = promptTokens;
		}
		promptCache.set(sessionId, prompt);
	}
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: input + output + cacheRead + cacheWrite,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

/** mulberry32: a tiny deterministic PRNG in [0, 1), enough for chunk sizes. */
function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function isHighSurrogate(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}
