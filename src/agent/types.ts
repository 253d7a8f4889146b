/**
 * Agent-level types: tools, events and the context the loop runs on.
 * Knows nothing of sessions, JSONL, extensions or settings.
 */
import type {
	AgentMessage,
	AssistantMessage,
	ImageContent,
	TextContent,
	Tool,
	ToolResultMessage,
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

/** Events of one agent run, in the order agentLoop emits them (behavior B.1). */
export type AgentEvent =
	| { type: "agent_start" }
	| { type: "agent_end"; messages: AgentMessage[] }
	| { type: "turn_start" }
	| { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
	| { type: "message_start"; message: AgentMessage }
	| {
			type: "message_update";
			message: AgentMessage;
			assistantMessageEvent: import("../llm/types.js").AssistantMessageEvent;
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
