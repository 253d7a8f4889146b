/**
 * Type guards pi exports for narrowing tool events by tool name (`isToolCallEventType("bash", e)`).
 * Direct `event.toolName === "bash"` checks do not narrow, because a custom tool's name is any string.
 */
import type {
	BashToolCallEvent,
	BashToolResultEvent,
	EditToolCallEvent,
	EditToolResultEvent,
	FindToolCallEvent,
	FindToolResultEvent,
	GrepToolCallEvent,
	GrepToolResultEvent,
	LsToolCallEvent,
	LsToolResultEvent,
	ReadToolCallEvent,
	ReadToolResultEvent,
	ToolCallEvent,
	ToolResultEvent,
	WriteToolCallEvent,
	WriteToolResultEvent,
} from "./types.js";

/**
 * Narrows a `tool_call` event by tool name; built-in names narrow `input` automatically.
 *
 * @example
 * ```ts
 * const extension: ExtensionFactory = (pi) => {
 *   pi.on("tool_call", (event) => {
 *     if (isToolCallEventType("bash", event) && event.input.command.includes("sudo")) return { block: true };
 *   });
 * };
 * ```
 */
export function isToolCallEventType(toolName: "bash", event: ToolCallEvent): event is BashToolCallEvent;
export function isToolCallEventType(toolName: "read", event: ToolCallEvent): event is ReadToolCallEvent;
export function isToolCallEventType(toolName: "edit", event: ToolCallEvent): event is EditToolCallEvent;
export function isToolCallEventType(toolName: "write", event: ToolCallEvent): event is WriteToolCallEvent;
export function isToolCallEventType(toolName: "grep", event: ToolCallEvent): event is GrepToolCallEvent;
export function isToolCallEventType(toolName: "find", event: ToolCallEvent): event is FindToolCallEvent;
export function isToolCallEventType(toolName: "ls", event: ToolCallEvent): event is LsToolCallEvent;
export function isToolCallEventType<TName extends string, TInput extends Record<string, unknown>>(
	toolName: TName,
	event: ToolCallEvent,
): event is ToolCallEvent & { toolName: TName; input: TInput };
export function isToolCallEventType(toolName: string, event: ToolCallEvent): boolean {
	return event.toolName === toolName;
}

/** Narrows a `tool_result` event to the built-in `bash` tool (typed `details`). */
export const isBashToolResult = (event: ToolResultEvent): event is BashToolResultEvent => event.toolName === "bash";
/** Narrows a `tool_result` event to the built-in `read` tool. */
export const isReadToolResult = (event: ToolResultEvent): event is ReadToolResultEvent => event.toolName === "read";
/** Narrows a `tool_result` event to the built-in `edit` tool. */
export const isEditToolResult = (event: ToolResultEvent): event is EditToolResultEvent => event.toolName === "edit";
/** Narrows a `tool_result` event to the built-in `write` tool. */
export const isWriteToolResult = (event: ToolResultEvent): event is WriteToolResultEvent => event.toolName === "write";
/** Narrows a `tool_result` event to the built-in `grep` tool. */
export const isGrepToolResult = (event: ToolResultEvent): event is GrepToolResultEvent => event.toolName === "grep";
/** Narrows a `tool_result` event to the built-in `find` tool. */
export const isFindToolResult = (event: ToolResultEvent): event is FindToolResultEvent => event.toolName === "find";
/** Narrows a `tool_result` event to the built-in `ls` tool. */
export const isLsToolResult = (event: ToolResultEvent): event is LsToolResultEvent => event.toolName === "ls";
