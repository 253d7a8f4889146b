/**
 * LLM message, model and stream types.
 *
 * These are structurally identical to `@mariozechner/pi-ai` 0.73 and to the messages
 * stored in pi's session files, so pi-ai stream functions and pi session files plug in
 * without conversion.
 */

/** Wire API a model is served through (`anthropic-messages`, `openai-responses`, `faux:…`). */
export type Api = string;
/** Provider id (`anthropic`, `openai`, `faux`, …). */
export type Provider = string;

/** Reasoning effort requested from a model. `off` disables reasoning. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** A text block of a message. */
export interface TextContent {
	type: "text";
	text: string;
	textSignature?: string;
}

/** A reasoning block of an assistant message. */
export interface ThinkingContent {
	type: "thinking";
	thinking: string;
	thinkingSignature?: string;
	/** True when the provider redacted the thinking; the opaque payload is in `thinkingSignature`. */
	redacted?: boolean;
}

/** An image block (user messages and tool results). */
export interface ImageContent {
	type: "image";
	/** Base64 data without a `data:` prefix. */
	data: string;
	mimeType: string;
}

/** A tool call requested by the model, part of an assistant message's content. */
export interface ToolCall {
	type: "toolCall";
	id: string;
	name: string;
	// biome-ignore lint/suspicious/noExplicitAny: tool arguments are arbitrary JSON chosen by the model
	arguments: Record<string, any>;
	thoughtSignature?: string;
}

/** Token counts of one model response, and their cost in USD. */
export interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: {
		input: number;
		output: number;
		cacheRead: number;
		cacheWrite: number;
		total: number;
	};
}

/** Why a response ended: a final answer, the output token limit, tool calls to run, an error, or an abort. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** A message from the user. */
export interface UserMessage {
	role: "user";
	content: string | (TextContent | ImageContent)[];
	timestamp: number;
}

/** A model response: content blocks, the model that produced it, usage and stop reason. */
export interface AssistantMessage {
	role: "assistant";
	content: (TextContent | ThinkingContent | ToolCall)[];
	api: Api;
	provider: Provider;
	model: string;
	responseModel?: string;
	responseId?: string;
	/**
	 * Thinking level the request was sent with. Set (as pi 1.6 does) on responses to requests a
	 * virtual model routed; virtual-model routing reads it back as `previous.thinkingLevel`.
	 */
	thinkingLevel?: ThinkingLevel;
	usage: Usage;
	stopReason: StopReason;
	errorMessage?: string;
	timestamp: number;
}

/** The result of one tool call, sent to the model in the next request. */
// biome-ignore lint/suspicious/noExplicitAny: details are tool-defined
export interface ToolResultMessage<TDetails = any> {
	role: "toolResult";
	toolCallId: string;
	toolName: string;
	content: (TextContent | ImageContent)[];
	details?: TDetails;
	/** Usage of a nested model call made by the tool, if any. */
	usage?: Usage;
	isError: boolean;
	timestamp: number;
}

/** A message a model understands. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * Extension point for application message roles, added by declaration merging.
 *
 * @example
 * ```ts
 * declare module "settle" {
 *   interface CustomAgentMessages {
 *     notification: { role: "notification"; text: string; timestamp: number };
 *   }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface CustomAgentMessages {}

/** Any message the agent transcript can hold: LLM messages plus declared custom roles. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

/** A JSON Schema object (TypeBox schemas are JSON Schema objects too). */
export type JsonSchema = Record<string, unknown>;

/** A tool as the model sees it. `parameters` is a JSON Schema (TypeBox or plain). */
export interface Tool<TParameters extends JsonSchema = JsonSchema> {
	name: string;
	description: string;
	parameters: TParameters;
}

/** What one model request receives. */
export interface Context {
	systemPrompt?: string;
	messages: Message[];
	tools?: Tool[];
}

/** Price of a model's tokens. */
export interface ModelCost {
	/** USD per million tokens. */
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
}

/** Description of a model: who serves it and what it can take. */
export interface Model<TApi extends Api = Api> {
	id: string;
	name: string;
	api: TApi;
	provider: Provider;
	baseUrl: string;
	reasoning: boolean;
	/** Provider value per thinking level; `null` marks a level unsupported. */
	thinkingLevelMap?: Partial<Record<ThinkingLevel, string | null>>;
	input: ("text" | "image")[];
	cost: ModelCost;
	contextWindow: number;
	maxTokens: number;
	headers?: Record<string, string>;
	compat?: Record<string, unknown>;
	/**
	 * Best-effort prompt cache lifetime in seconds per retention tier (pi's `promptCache`). Cache
	 * warming only keeps a tier with a known lifetime warm; leave it unset to never warm this model.
	 */
	promptCache?: { short?: number; long?: number };
}

/** HTTP status and headers of a provider response (`onResponse` of the stream options). */
export interface ProviderResponse {
	status: number;
	headers: Record<string, string>;
}

/** How a provider streams (pi-ai's `transport` option); `auto` lets the provider choose. */
export type Transport = "sse" | "websocket" | "websocket-cached" | "auto";

/** Options for one stream call (pi-ai `SimpleStreamOptions`). */
export interface StreamOptions {
	temperature?: number;
	maxTokens?: number;
	signal?: AbortSignal;
	apiKey?: string;
	transport?: Transport;
	cacheRetention?: "none" | "short" | "long";
	sessionId?: string;
	onPayload?: (payload: unknown, model: Model) => unknown | undefined | Promise<unknown | undefined>;
	onResponse?: (response: ProviderResponse, model: Model) => void | Promise<void>;
	headers?: Record<string, string>;
	timeoutMs?: number;
	maxRetries?: number;
	maxRetryDelayMs?: number;
	metadata?: Record<string, unknown>;
	reasoning?: Exclude<ThinkingLevel, "off">;
	thinkingBudgets?: Partial<Record<"minimal" | "low" | "medium" | "high", number>>;
}

/**
 * Stream protocol of one assistant response: `start`, then block events, then exactly one
 * terminal `done` (stop | length | toolUse) or `error` (error | aborted).
 */
export type AssistantMessageEvent =
	| { type: "start"; partial: AssistantMessage }
	| { type: "text_start"; contentIndex: number; partial: AssistantMessage }
	| { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
	| { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
	| { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
	| { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
	| { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
	| { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
	| { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
	| { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
	| { type: "done"; reason: "stop" | "length" | "toolUse"; message: AssistantMessage }
	| { type: "error"; reason: "error" | "aborted"; error: AssistantMessage };

/** The stream a provider returns: async-iterable events plus the final message. */
export interface AssistantMessageEventStream extends AsyncIterable<AssistantMessageEvent> {
	result(): Promise<AssistantMessage>;
}

/**
 * A provider stream function (pi-ai `streamSimple` shape).
 *
 * Contract: must not throw for request/model failures; encode them as an `error` event whose
 * message has `stopReason: "error"` (or `"aborted"`) and an `errorMessage`. The agent loop still
 * turns a throw or a rejected promise into a failure message, so a broken provider never hangs a run.
 */
export type StreamFn = (
	model: Model,
	context: Context,
	options?: StreamOptions,
) => AssistantMessageEventStream | Promise<AssistantMessageEventStream>;

/**
 * An assistant message from `model` with no content: the start of a reply, or — given a stop reason
 * and an `errorMessage` — the failure a broken provider or a missing stream function reports.
 *
 * @example
 * ```ts
 * const failure = emptyAssistantMessage(model, "error", "Connection refused");
 * ```
 */
export function emptyAssistantMessage(
	model: Pick<Model, "api" | "provider" | "id">,
	stopReason: StopReason = "stop",
	errorMessage?: string,
): AssistantMessage {
	const message: AssistantMessage = {
		role: "assistant",
		content: [],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: emptyUsage(),
		stopReason,
		timestamp: Date.now(),
	};
	if (errorMessage !== undefined) message.errorMessage = errorMessage;
	return message;
}

/**
 * A usage record with every count zero.
 *
 * @example
 * ```ts
 * const usage = emptyUsage(); // { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { …, total: 0 } }
 * ```
 */
export function emptyUsage(): Usage {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}
