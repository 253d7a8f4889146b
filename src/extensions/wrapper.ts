/** Extension tools as agent tools: each execution gets its extension's current context. */
import type { AgentTool } from "../agent/types.js";
import type { RegisteredTool } from "../tools/registry.js";
import { toAgentTool } from "../tools/types.js";
import type { ExtensionRunner } from "./runner.js";

/**
 * Wraps a registered tool into the `AgentTool` the agent loop runs; `ctx` is its extension's
 * context (`runner.contextForSource(tool.sourceInfo)`) at execution time (so a stale runner makes
 * the tool throw the stale-context error instead of acting on a replaced session).
 *
 * @example
 * ```ts
 * const agentTools = runner.getAllRegisteredTools().map((tool) => wrapRegisteredTool(tool, runner));
 * ```
 */
export function wrapRegisteredTool(tool: RegisteredTool, runner: ExtensionRunner): AgentTool {
	return toAgentTool(tool.definition, () => runner.contextForSource(tool.sourceInfo));
}

/**
 * {@link wrapRegisteredTool} for a list.
 *
 * @example
 * ```ts
 * const agentTools = wrapRegisteredTools(runner.getAllRegisteredTools(), runner);
 * ```
 */
export function wrapRegisteredTools(tools: readonly RegisteredTool[], runner: ExtensionRunner): AgentTool[] {
	return tools.map((tool) => wrapRegisteredTool(tool, runner));
}
