/**
 * Agent-level types: tools, events and the context the loop runs on.
 * Knows nothing of sessions, JSONL, extensions or settings.
 */
import type {
	AgentMessage,
	AssistantMessage,
	AssistantMessageEvent,
	ImageContent,
	Message,
	Model,
	StreamFn,
	StreamOptions,
	TextContent,
	ThinkingLevel,
	Tool,
	ToolCall,
	ToolResultMessage,
	Usage,
} from "../llm/types.js";

/** How the tool calls of one assistant message run. */
export type ToolExecutionMode = "sequential" | "parallel";

/** Final or partial result produced by a tool. */
// biome-ignore lint/suspicious/noExplicitAny: details are tool-defined
export interface AgentToolResult<TDetails = any> {
	content: (TextContent | ImageContent)[];
	details: TDetails;
	/** Stop after this tool batch; honoured only when every result of the batch sets it. */
	terminate?: boolean;
	/** Treat the result as an error even though `execute` returned normally. */
	isError?: boolean;
	/** Usage of a nested model call the tool made; copied to the tool result message. */
	usage?: Usage;
}

/** Streams a partial result while a tool runs. */
// biome-ignore lint/suspicious/noExplicitAny: details are tool-defined
export type AgentToolUpdateCallback<TDetails = any> = (partialResult: AgentToolResult<TDetails>) => void;

/**
 * A tool the agent can execute.
 *
 * Contract: `execute` signals failure by throwing (the message becomes the error result);
 * it must honour `signal`.
 */
// biome-ignore lint/suspicious/noExplicitAny: params are validated against `parameters` at run time
export interface AgentTool<TParams = any, TDetails = any> extends Tool {
	/** Human-readable label for UIs. */
	label: string;
	/** Compatibility shim applied to raw arguments before schema validation. */
	prepareArguments?: (args: unknown) => TParams;
	execute: (
		toolCallId: string,
		params: TParams,
		signal?: AbortSignal,
		onUpdate?: AgentToolUpdateCallback<TDetails>,
	) => Promise<AgentToolResult<TDetails>>;
	/** Force sequential execution of the batch this tool is called in. */
	executionMode?: ToolExecutionMode;
}

/** Context snapshot a run works on. */
export interface AgentContext {
	systemPrompt: string;
	messages: AgentMessage[];
	tools?: AgentTool[];
}

/** Events of one agent run, in the order agentLoop emits them. */
export type AgentEvent =
	| { type: "agent_start" }
	| { type: "agent_end"; messages: AgentMessage[] }
	| { type: "turn_start" }
	| { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
	| { type: "message_start"; message: AgentMessage }
	| {
			type: "message_update";
			message: AgentMessage;
			assistantMessageEvent: AssistantMessageEvent;
	  }
	| { type: "message_end"; message: AgentMessage }
	// biome-ignore lint/suspicious/noExplicitAny: tool args are arbitrary JSON
	| { type: "tool_execution_start"; toolCallId: string; toolName: string; args: any }
	| {
			type: "tool_execution_update";
			toolCallId: string;
			toolName: string;
			// biome-ignore lint/suspicious/noExplicitAny: tool args are arbitrary JSON
			args: any;
			partialResult: AgentToolResult;
	  }
	| { type: "tool_execution_end"; toolCallId: string; toolName: string; result: AgentToolResult; isError: boolean };

/** The assistant message that requested a tool call, and that call. */
export interface ToolCallOrigin {
	assistantMessage: AssistantMessage;
	toolCall: Extract<AssistantMessage["content"][number], { type: "toolCall" }>;
}

/** How queued steering / follow-up messages are drained: one per poll, or the whole queue. */
export type QueueMode = "all" | "one-at-a-time";

/** A tool-call block of an assistant message. */
export type AgentToolCall = ToolCall;

/**
 * Passed to `beforeToolCall` / `afterToolCall`: `aborted` turns true when the loop stops waiting
 * for the hook (still running the abort's grace after the abort). What the hook does after that
 * would land in a later operation. An `AbortSignal` fits it.
 */
export interface HookAbandonment {
	readonly aborted: boolean;
}

/** Context passed to `beforeToolCall`, after the arguments were validated. */
export interface BeforeToolCallContext {
	/** The assistant message that requested the call (the final one, after `message_end` replacements). */
	assistantMessage: AssistantMessage;
	/** The raw tool-call block. */
	toolCall: AgentToolCall;
	/** Validated (and coerced) arguments; a copy, not the tool call's own object. */
	args: unknown;
	/** The context the run works on. Read it; don't mutate it. */
	context: AgentContext;
}

/**
 * Returned by `beforeToolCall`. `block` skips execution: the call gets an error result with
 * `reason` (default `Tool execution was blocked`). `terminate` marks that result for early batch
 * termination.
 */
export interface BeforeToolCallResult {
	block?: boolean;
	reason?: string;
	terminate?: boolean;
}

/** Context passed to `afterToolCall`, for every executed call (also when `execute` threw). */
export interface AfterToolCallContext {
	assistantMessage: AssistantMessage;
	toolCall: AgentToolCall;
	args: unknown;
	/** The executed result before overrides. */
	result: AgentToolResult;
	isError: boolean;
	context: AgentContext;
}

/**
 * Field-by-field override returned by `afterToolCall`: each provided field replaces the executed
 * result's field in full (no deep merge); omitted fields keep their values.
 */
export interface AfterToolCallResult {
	content?: (TextContent | ImageContent)[];
	details?: unknown;
	isError?: boolean;
	terminate?: boolean;
	usage?: Usage;
}

/** A finished turn: what `finishTurn`, `shouldStopAfterTurn` and `prepareNextTurn` receive. */
export interface AgentTurnContext {
	/** The turn's final assistant message. */
	message: AssistantMessage;
	/** Tool results of the turn, in source order. */
	toolResults: ToolResultMessage[];
	/** The run's context, with this turn's messages appended. */
	context: AgentContext;
	/** Messages this run produced so far (prompt runs include the prompt messages). */
	newMessages: AgentMessage[];
}

/**
 * What `finishTurn` decides before `turn_end` is emitted: `"end"` ends the run after this turn
 * (no steering / follow-up poll), `"continue"` asks for one more context-only model call when the
 * run would otherwise stop, `undefined` lets the loop decide.
 */
export type FinishTurnDecision = "end" | "continue" | undefined;

/** Replacement state for the next turn of a run, returned by `prepareNextTurn`. */
export interface AgentLoopTurnUpdate {
	/** Context for the rest of the run (the Agent adopts its messages array as its transcript). */
	context?: AgentContext;
	model?: Model;
	thinkingLevel?: ThinkingLevel;
	/** Messages to add before the next model call (emitted as message_start/message_end). */
	messages?: AgentMessage[];
}

/** Input of `prepareRequest`: what the next model request would use. */
export interface PrepareRequestInput {
	context: AgentContext;
	model: Model;
	thinkingLevel: ThinkingLevel;
}

/** Replacements for one model request only (the run's context is unchanged). */
export interface PrepareRequestResult {
	context?: AgentContext;
	/** The model of this request; its response records the request's `thinkingLevel` (pi 1.6 does for every response). */
	model?: Model;
	thinkingLevel?: ThinkingLevel;
}

/** What an event sink (or an Agent listener) may return: for `message_end`, a replacement message. */
// biome-ignore lint/suspicious/noConfusingVoidType: listeners usually return nothing
export type AgentEventResult = { message?: AgentMessage } | undefined | void;

/**
 * Receives every loop event and is awaited before the loop continues. For `message_end` it may
 * return `{ message }` (same role) to replace the message everywhere downstream.
 */
export type AgentEventSink = (event: AgentEvent) => AgentEventResult | Promise<AgentEventResult>;

/** An Agent listener: awaited in subscription order, after the Agent reduced its state. */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => AgentEventResult | Promise<AgentEventResult>;

/**
 * Configuration of one loop run. Stream options (`apiKey`, `sessionId`, `onPayload`, …) are
 * forwarded to the stream function; hooks are called as documented on each field.
 * Hooks should not throw: a throwing hook ends the run (the Agent turns it into a failure message).
 */
export interface AgentLoopConfig extends Omit<StreamOptions, "signal"> {
	model: Model;
	/** Reasoning level; `off` (default) sends no `reasoning` option. */
	thinkingLevel?: ThinkingLevel;
	/**
	 * AgentMessage[] → Message[] before each model call. Default: keep user/assistant/toolResult,
	 * converted incrementally (`createLlmMessageConverter`): the result is one array reused and
	 * extended across calls, so stream functions must treat `context.messages` as read-only and
	 * copy it to keep it. A custom function called with the whole transcript costs O(n) per turn.
	 */
	convertToLlm?: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
	/** Runs before `convertToLlm`; return the same array when nothing changes. Must not mutate its input. */
	transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => AgentMessage[] | Promise<AgentMessage[]>;
	/** API key per model call (short-lived tokens). Falls back to `apiKey`. */
	getApiKey?: (provider: string) => string | undefined | Promise<string | undefined>;
	/** Before each tool runs, after validation. */
	beforeToolCall?: (
		context: BeforeToolCallContext,
		signal?: AbortSignal,
		abandoned?: HookAbandonment,
	) => BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined>;
	/** After each executed tool call (also when `execute` threw), before `tool_execution_end`. */
	afterToolCall?: (
		context: AfterToolCallContext,
		signal?: AbortSignal,
		abandoned?: HookAbandonment,
	) => AfterToolCallResult | undefined | Promise<AfterToolCallResult | undefined>;
	/** Before `turn_end` of every turn (also failed ones, whose decision is ignored). */
	finishTurn?: (turn: AgentTurnContext, signal?: AbortSignal) => FinishTurnDecision | Promise<FinishTurnDecision>;
	/** pi compatibility: after `turn_end`; `true` ends the run like `finishTurn` → `"end"`. */
	shouldStopAfterTurn?: (turn: AgentTurnContext) => boolean | Promise<boolean>;
	/** Before every model request; may replace context/model/thinking for that request only. */
	prepareRequest?: (
		input: PrepareRequestInput,
		signal?: AbortSignal,
	) => PrepareRequestResult | undefined | Promise<PrepareRequestResult | undefined>;
	/** Before every turn but the first; may replace context/model/thinking for the rest of the run. */
	prepareNextTurn?: (
		previousTurn: AgentTurnContext,
		signal?: AbortSignal,
	) => AgentLoopTurnUpdate | undefined | Promise<AgentLoopTurnUpdate | undefined>;
	/** Polled at loop start and after every turn; returned messages go in before the next model call. */
	getSteeringMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
	/** Polled only when the loop would otherwise stop. */
	getFollowUpMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
	/** Default `parallel`. */
	toolExecution?: ToolExecutionMode;
	/** The provider; may also be passed as the loop function's last argument. */
	streamFn?: StreamFn;
	/**
	 * After the run is aborted, how long (ms) a running tool may take to return before the loop
	 * stops waiting for it (default 1000). The call then ends as an error result saying the tool
	 * did not stop, and the run ends, so a tool that ignores its abort signal cannot keep a run (and
	 * its session) busy forever; its late result is dropped. Tools that honour the signal return
	 * within the grace with their own result. The `beforeToolCall` / `afterToolCall` hooks (an
	 * extension's `tool_call` / `tool_result` handlers) get the same grace (pi#9910).
	 */
	toolAbortGraceMs?: number;
	/** Timers for {@link AgentLoopConfig.toolAbortGraceMs} (default the process timers; a session passes its clock). */
	timers?: LoopTimers;
}

/**
 * A timer source: `setTimeout` / `clearTimeout` (XState's `SimulatedClock` fits).
 *
 * @example
 * ```ts
 * const timers: LoopTimers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout) };
 * ```
 */
export interface LoopTimers {
	setTimeout(fn: () => void, ms: number): unknown;
	clearTimeout(id: unknown): void;
}

/**
 * Agent state. `agent.state` is live: it always shows the current values. Assigning `messages`
 * or `tools` copies the outer array; the transcript array itself is append-only while a run is
 * active (replace it by assignment, never by splicing).
 */
export interface AgentState {
	systemPrompt: string;
	model: Model;
	thinkingLevel: ThinkingLevel;
	get tools(): AgentTool[];
	set tools(tools: AgentTool[]);
	get messages(): AgentMessage[];
	set messages(messages: AgentMessage[]);
	/** True from the start of a run until its `agent_end` listeners have finished. */
	readonly isStreaming: boolean;
	/** The assistant message being streamed (or the message between its start and end). */
	readonly streamingMessage?: AgentMessage;
	/** Ids of tool calls between `tool_execution_start` and `tool_execution_end`. */
	readonly pendingToolCalls: ReadonlySet<string>;
	/** Error text of the latest failed or aborted turn of the current/last run. */
	readonly errorMessage?: string;
}

/** Initial values of {@link AgentState}. */
export interface AgentInitialState {
	systemPrompt?: string;
	model?: Model;
	thinkingLevel?: ThinkingLevel;
	tools?: AgentTool[];
	messages?: AgentMessage[];
}

/** Options of `new Agent(options)`; every hook can also be set later as a public field. */
export interface AgentOptions {
	initialState?: AgentInitialState;
	/** Whole-transcript conversion, called before every model call. Overrides `convertMessageToLlm`. */
	convertToLlm?: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
	/**
	 * Per-message conversion (a message, several, or `undefined` to drop it). The Agent caches the
	 * result per message and extends the LLM array incrementally, so per-turn cost stays flat.
	 * Default: keep user/assistant/toolResult. Must be pure: same input, same output.
	 */
	convertMessageToLlm?: (message: AgentMessage) => Message | readonly Message[] | undefined;
	transformContext?: AgentLoopConfig["transformContext"];
	/** The provider. Without one, every model call ends with an error message saying so. */
	streamFn?: StreamFn;
	getApiKey?: AgentLoopConfig["getApiKey"];
	onPayload?: StreamOptions["onPayload"];
	onResponse?: StreamOptions["onResponse"];
	beforeToolCall?: AgentLoopConfig["beforeToolCall"];
	afterToolCall?: AgentLoopConfig["afterToolCall"];
	finishTurn?: AgentLoopConfig["finishTurn"];
	prepareRequest?: AgentLoopConfig["prepareRequest"];
	prepareNextTurn?: AgentLoopConfig["prepareNextTurn"];
	/** Default `one-at-a-time`. */
	steeringMode?: QueueMode;
	/** Default `one-at-a-time`. */
	followUpMode?: QueueMode;
	sessionId?: string;
	thinkingBudgets?: StreamOptions["thinkingBudgets"];
	/** Default `auto`. */
	transport?: StreamOptions["transport"];
	maxRetryDelayMs?: number;
	/** Default `parallel`. */
	toolExecution?: ToolExecutionMode;
	/** See {@link AgentLoopConfig.toolAbortGraceMs} (default 1000). */
	toolAbortGraceMs?: number;
	/** See {@link AgentLoopConfig.timers}. */
	timers?: LoopTimers;
}
