/**
 * Tool definitions: what built-in, extension and SDK tools declare, and how a definition becomes the
 * `AgentTool` the agent loop executes. Shapes mirror pi's `ToolDefinition` (minus terminal rendering).
 */
import type { Static, TSchema } from "@sinclair/typebox";
import type { AgentTool, AgentToolResult, AgentToolUpdateCallback, ToolExecutionMode } from "../agent/types.js";
import type { ExtensionContext } from "../extensions/types.js";
import type { JsonSchema } from "../llm/types.js";
import type { TypeBox1Schema, TypeBox1Static } from "../schema/typebox1-static.js";

/** Where a tool (or other resource) came from. Mirrors pi's `SourceInfo`. */
export interface SourceInfo {
	/** File path of the extension, or a synthetic path such as `<builtin:read>`, `<sdk:deploy>`, `<inline:1>`. */
	path: string;
	/** `builtin`, `sdk`, `inline`, `local`, or a package source. */
	source: string;
	scope: SourceScope;
	origin: SourceOrigin;
	/**
	 * The folder a resource is counted from, as pi reports it. Skills and prompt templates: the agent
	 * folder or the project folder (`.settle/` or `.pi/`) for what discovery finds there; none for
	 * entries listed in settings; the file's folder for explicit paths (a template inside a config
	 * folder's `prompts/`: that folder); what the extension gave for paths an extension adds. Not
	 * `skill.baseDir` (the folder a skill's references are relative to). Extensions: the config folder when
	 * discovered, none for settings entries and explicit paths.
	 */
	baseDir?: string;
}
/** Whose configuration a resource belongs to: the user's (agent dir), the project's, or this run only (CLI, SDK). */
export type SourceScope = "user" | "project" | "temporary";
/** Whether a resource came from a package or was found at the top level of a resources folder. */
export type SourceOrigin = "package" | "top-level";

/**
 * The argument type a parameter schema describes: `Static<S>` for TypeBox 0.34 (`@sinclair/typebox`)
 * and TypeBox 1.x (`typebox`) schemas alike, a loose record for plain JSON Schema objects (and other
 * schema libraries).
 *
 * @example
 * ```ts
 * import { Type } from "typebox"; // or "@sinclair/typebox"
 *
 * const parameters = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer()) });
 * type Args = ToolParams<typeof parameters>; // { path: string; limit?: number }
 * ```
 */
export type ToolParams<S> = S extends TSchema
	? Static<S>
	: S extends TypeBox1Schema
		? TypeBox1Static<S>
		: // biome-ignore lint/suspicious/noExplicitAny: plain JSON Schema gives no static type
			Record<string, any>;

/**
 * A tool as built-ins, extensions and SDK callers declare it.
 *
 * Contract: `execute` signals failure by throwing (the message becomes the error text the model sees),
 * honours `signal`, and may stream partial results through `onUpdate`. `ctx` is whatever the session
 * passes to tools (the extension context once extensions are wired in); built-in tools only read
 * `ctx.model` when it is there, and work with `ctx === undefined`.
 *
 * @example
 * ```ts
 * import { Type } from "@sinclair/typebox";
 * const hello = defineTool({
 *   name: "hello",
 *   label: "Hello",
 *   description: "Greets someone",
 *   promptSnippet: "Greet a person by name",
 *   parameters: Type.Object({ name: Type.String() }),
 *   async execute(_id, { name }) {
 *     return { content: [{ type: "text", text: `Hello, ${name}!` }], details: undefined };
 *   },
 * });
 * ```
 */
export interface ToolDefinition<TParameters extends object = JsonSchema, TDetails = unknown, TContext = unknown> {
	/** Name the model calls the tool by. */
	name: string;
	/** Human-readable label for UIs. */
	label: string;
	/** Description sent to the model. */
	description: string;
	/** One-line entry for the system prompt's tool list. Tools without one are callable but not listed. */
	promptSnippet?: string;
	/** Guideline bullets added to the system prompt while the tool is active. */
	promptGuidelines?: string[];
	/** Parameter schema: TypeBox 0.34 or 1.x (either infers `params`), or any plain JSON Schema object. */
	parameters: TParameters;
	/** Compatibility shim applied to raw arguments before schema validation. */
	prepareArguments?: (args: unknown) => ToolParams<TParameters>;
	/** `sequential` forces the whole batch this tool is called in to run one call at a time. */
	executionMode?: ToolExecutionMode;
	execute(
		toolCallId: string,
		params: ToolParams<TParameters>,
		signal: AbortSignal | undefined,
		onUpdate: AgentToolUpdateCallback<TDetails> | undefined,
		ctx: TContext,
	): Promise<AgentToolResult<TDetails>>;
}

/** A tool definition of any parameter, details and state types (for lists of mixed tools). */
// biome-ignore lint/suspicious/noExplicitAny: any definition, for heterogeneous lists
export type AnyToolDefinition = ToolDefinition<any, any, any>;

/**
 * Identity function that keeps parameter inference when a definition is stored in a variable or an
 * array (`customTools: [defineTool({...})]`). `execute`'s last argument is the session's
 * {@link ExtensionContext} (`cwd`, `sessionManager`, `model`, `ui`, …), as in pi, for SDK
 * `customTools` and `pi.registerTool` alike.
 *
 * @example
 * ```ts
 * import { Type } from "@sinclair/typebox";
 *
 * const tool = defineTool({ name: "now", label: "Now", description: "Current time",
 *   parameters: Type.Object({}), execute: async () => ({ content: [{ type: "text", text: new Date().toISOString() }], details: undefined }) });
 * const where = defineTool({ name: "where", label: "Where", description: "The project folder",
 *   parameters: Type.Object({}), execute: async (_id, _params, _signal, _onUpdate, ctx) => ({ content: [{ type: "text", text: ctx.cwd }], details: {} }) });
 * ```
 */
export function defineTool<TParameters extends object, TDetails = unknown, TContext = ExtensionContext>(
	definition: ToolDefinition<TParameters, TDetails, TContext>,
): ToolDefinition<TParameters, TDetails, TContext> & AnyToolDefinition {
	return definition as ToolDefinition<TParameters, TDetails, TContext> & AnyToolDefinition;
}

/**
 * Wraps a definition into the `AgentTool` the agent loop runs. `getContext` is called once per
 * execution, so a tool always sees the session's current context (after a reload or model change).
 *
 * @example
 * ```ts
 * const agentTool = toAgentTool(createReadToolDefinition(cwd), () => runner.createContext());
 * ```
 */
export function toAgentTool<TParameters extends object, TDetails, TContext>(
	definition: ToolDefinition<TParameters, TDetails, TContext>,
	getContext?: () => TContext,
): AgentTool<ToolParams<TParameters>, TDetails> {
	const tool: AgentTool<ToolParams<TParameters>, TDetails> = {
		name: definition.name,
		label: definition.label,
		description: definition.description,
		parameters: definition.parameters as JsonSchema,
		execute: (toolCallId, params, signal, onUpdate) =>
			definition.execute(toolCallId, params, signal, onUpdate, getContext?.() as TContext),
	};
	if (definition.prepareArguments) tool.prepareArguments = definition.prepareArguments;
	if (definition.executionMode) tool.executionMode = definition.executionMode;
	return tool;
}

/**
 * The reverse of {@link toAgentTool}: a minimal definition for a plain `AgentTool` (no prompt
 * snippet or guidelines), so registries can stay definition-first when callers override built-ins
 * with `AgentTool`s.
 *
 * @example
 * ```ts
 * const definition = toolDefinitionFromAgentTool(createReadTool(cwd));
 * ```
 */
export function toolDefinitionFromAgentTool<TParams, TDetails>(tool: AgentTool<TParams, TDetails>): AnyToolDefinition {
	const definition: AnyToolDefinition = {
		name: tool.name,
		label: tool.label,
		description: tool.description,
		parameters: tool.parameters,
		execute: (toolCallId, params, signal, onUpdate) => tool.execute(toolCallId, params, signal, onUpdate),
	};
	if (tool.prepareArguments) definition.prepareArguments = tool.prepareArguments;
	if (tool.executionMode) definition.executionMode = tool.executionMode;
	return definition;
}
