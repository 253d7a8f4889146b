/** Built-in coding tools and their factories. */

import type { AgentTool } from "../agent/types.js";
import { type BashToolOptions, createBashToolDefinition } from "./bash.js";
import { createEditToolDefinition, type EditToolOptions } from "./edit.js";
import { createFindToolDefinition, type FindToolOptions } from "./find.js";
import { createGrepToolDefinition, type GrepToolOptions } from "./grep.js";
import { createLsToolDefinition, type LsToolOptions } from "./ls.js";
import { createReadToolDefinition, type ReadToolOptions } from "./read.js";
import { type AnyToolDefinition, toAgentTool } from "./types.js";
import { createWriteToolDefinition, type WriteToolOptions } from "./write.js";

export * from "./bash.js";
export * from "./edit.js";
export { applyEdits, numberedDiff, unifiedPatch } from "./edit-diff.js";
export { withFileMutationQueue } from "./file-mutation-queue.js";
export * from "./find.js";
export * from "./grep.js";
export {
	formatDimensionNote,
	type ImageResizeOptions,
	type ImageResizeOutcome,
	imageResizingUnavailable,
	prepareImageForPrompt,
	resizeImage,
	resizeImageDetailed,
} from "./image-resize.js";
export * from "./ls.js";
export { OutputAccumulator, type OutputAccumulatorOptions, type OutputSnapshot } from "./output-accumulator.js";
export { expandPath, resolveReadPath, resolveToCwd } from "./paths.js";
export * from "./read.js";
export * from "./registry.js";
export {
	type BashOperations,
	createLocalBashOperations,
	killProcessTree,
	resolveShellConfig,
	type ShellConfig,
	type ShellExecOptions,
	waitForProcessGroupExit,
} from "./shell.js";

import { FileReadStamps } from "./read-stamps.js";

export * from "./truncate.js";
export * from "./types.js";
export * from "./write.js";
export { FileReadStamps };

/** Names of the built-in tools. */
export type BuiltinToolName = "read" | "bash" | "edit" | "write" | "grep" | "find" | "ls";

/** Every built-in tool name, in pi's order. */
export const allToolNames: readonly BuiltinToolName[] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/** Tools active in a new session unless the caller says otherwise. */
export const defaultActiveToolNames: readonly BuiltinToolName[] = ["read", "bash", "edit", "write"];

/** Per-tool options for {@link createAllToolDefinitions}. */
export interface BuiltinToolsOptions {
	read?: ReadToolOptions;
	bash?: BashToolOptions;
	edit?: EditToolOptions;
	write?: WriteToolOptions;
	grep?: GrepToolOptions;
	find?: FindToolOptions;
	ls?: LsToolOptions;
}

/**
 * One built-in tool by name (pi's `createToolDefinition`).
 *
 * @example
 * ```ts
 * const grep = createToolDefinition("grep", "/repo");
 * const bash = createToolDefinition("bash", "/repo", { bash: { commandPrefix: "set -e" } });
 * ```
 */
export function createToolDefinition(
	name: BuiltinToolName,
	cwd: string,
	options: BuiltinToolsOptions = {},
): AnyToolDefinition {
	switch (name) {
		case "read":
			return createReadToolDefinition(cwd, options.read);
		case "bash":
			return createBashToolDefinition(cwd, options.bash);
		case "edit":
			return createEditToolDefinition(cwd, options.edit);
		case "write":
			return createWriteToolDefinition(cwd, options.write);
		case "grep":
			return createGrepToolDefinition(cwd, options.grep);
		case "find":
			return createFindToolDefinition(cwd, options.find);
		case "ls":
			return createLsToolDefinition(cwd, options.ls);
	}
}

/**
 * All seven built-in tools for `cwd`, keyed by name (pi's `createAllToolDefinitions`).
 *
 * @example
 * ```ts
 * const builtins = createAllToolDefinitions("/repo", { bash: { commandPrefix: "set -e" }, read: { autoResizeImages: false } });
 * const agentTools = defaultActiveToolNames.map((name) => toAgentTool(builtins[name]));
 * ```
 */
export function createAllToolDefinitions(
	cwd: string,
	givenOptions: BuiltinToolsOptions = {},
): Record<BuiltinToolName, AnyToolDefinition> {
	const options = withSharedReadStamps(givenOptions);
	return {
		read: createReadToolDefinition(cwd, options.read),
		bash: createBashToolDefinition(cwd, options.bash),
		edit: createEditToolDefinition(cwd, options.edit),
		write: createWriteToolDefinition(cwd, options.write),
		grep: createGrepToolDefinition(cwd, options.grep),
		find: createFindToolDefinition(cwd, options.find),
		ls: createLsToolDefinition(cwd, options.ls),
	};
}

/**
 * `options` with one {@link FileReadStamps} for `read`, `edit` and `write` (unless given), so a
 * `write` over a file changed on disk since this set's `read` returned it is refused.
 */
function withSharedReadStamps(options: BuiltinToolsOptions): BuiltinToolsOptions {
	const readStamps = new FileReadStamps();
	return {
		...options,
		read: { readStamps, ...options.read },
		edit: { readStamps, ...options.edit },
		write: { readStamps, ...options.write },
	};
}

/**
 * The default coding set as definitions: read, bash, edit, write (pi's `createCodingToolDefinitions`).
 *
 * @example
 * ```ts
 * const definitions = createCodingToolDefinitions("/repo");
 * definitions.map((definition) => definition.name); // ["read", "bash", "edit", "write"]
 * ```
 */
export function createCodingToolDefinitions(cwd: string, options: BuiltinToolsOptions = {}): AnyToolDefinition[] {
	const shared = withSharedReadStamps(options);
	return defaultActiveToolNames.map((name) => createToolDefinition(name, cwd, shared));
}

/**
 * The read-only set as definitions: read, grep, find, ls (pi's `createReadOnlyToolDefinitions`).
 *
 * @example
 * ```ts
 * const definitions = createReadOnlyToolDefinitions("/repo");
 * definitions.map((definition) => definition.name); // ["read", "grep", "find", "ls"]
 * ```
 */
export function createReadOnlyToolDefinitions(cwd: string, options: BuiltinToolsOptions = {}): AnyToolDefinition[] {
	return (["read", "grep", "find", "ls"] as const).map((name) => createToolDefinition(name, cwd, options));
}

/**
 * pi-style `AgentTool` factories (no tool context), for code written against pi's `createReadTool`
 * and friends.
 *
 * @example
 * ```ts
 * const agent = new Agent({ initialState: { tools: [createReadTool(process.cwd()), createBashTool(process.cwd())] } });
 * ```
 */
export const createReadTool = (cwd: string, options?: ReadToolOptions): AgentTool =>
	toAgentTool(createReadToolDefinition(cwd, options));
/** pi-style `bash` tool as an `AgentTool` (see {@link createBashToolDefinition}). */
export const createBashTool = (cwd: string, options?: BashToolOptions): AgentTool =>
	toAgentTool(createBashToolDefinition(cwd, options));
/** pi-style `edit` tool as an `AgentTool` (see {@link createEditToolDefinition}). */
export const createEditTool = (cwd: string, options?: EditToolOptions): AgentTool =>
	toAgentTool(createEditToolDefinition(cwd, options));
/** pi-style `write` tool as an `AgentTool` (see {@link createWriteToolDefinition}). */
export const createWriteTool = (cwd: string, options?: WriteToolOptions): AgentTool =>
	toAgentTool(createWriteToolDefinition(cwd, options));
/** pi-style `grep` tool as an `AgentTool` (see {@link createGrepToolDefinition}). */
export const createGrepTool = (cwd: string, options?: GrepToolOptions): AgentTool =>
	toAgentTool(createGrepToolDefinition(cwd, options));
/** pi-style `find` tool as an `AgentTool` (see {@link createFindToolDefinition}). */
export const createFindTool = (cwd: string, options?: FindToolOptions): AgentTool =>
	toAgentTool(createFindToolDefinition(cwd, options));
/** pi-style `ls` tool as an `AgentTool` (see {@link createLsToolDefinition}). */
export const createLsTool = (cwd: string, options?: LsToolOptions): AgentTool =>
	toAgentTool(createLsToolDefinition(cwd, options));

/**
 * read, bash, edit, write as `AgentTool`s.
 *
 * @example
 * ```ts
 * const agent = new Agent({ initialState: { tools: createCodingTools(process.cwd()) }, streamFn: faux.streamFn });
 * ```
 */
export function createCodingTools(cwd: string, options: BuiltinToolsOptions = {}): AgentTool[] {
	return createCodingToolDefinitions(cwd, options).map((definition) => toAgentTool(definition));
}

/**
 * read, grep, find, ls as `AgentTool`s.
 *
 * @example
 * ```ts
 * const tools = createReadOnlyTools(process.cwd()); // read, grep, find, ls: nothing that writes or runs commands
 * ```
 */
export function createReadOnlyTools(cwd: string, options: BuiltinToolsOptions = {}): AgentTool[] {
	return createReadOnlyToolDefinitions(cwd, options).map((definition) => toAgentTool(definition));
}

/**
 * All seven built-in tools as `AgentTool`s, keyed by name.
 *
 * @example
 * ```ts
 * const { read, grep } = createAllTools("/repo");
 * const context = { systemPrompt: "", messages: [], tools: [read, grep] };
 * ```
 */
export function createAllTools(cwd: string, options: BuiltinToolsOptions = {}): Record<BuiltinToolName, AgentTool> {
	const definitions = createAllToolDefinitions(cwd, options);
	return Object.fromEntries(allToolNames.map((name) => [name, toAgentTool(definitions[name])])) as Record<
		BuiltinToolName,
		AgentTool
	>;
}
