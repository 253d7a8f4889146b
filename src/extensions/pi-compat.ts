/**
 * The value exports pi extensions import from `@mariozechner/pi-coding-agent`, provided by Settle.
 * Map that specifier to this module (a jiti alias: `loadExtensions(candidates, { aliases })`) and
 * a pi extension that uses no terminal UI loads with no change at all, value imports included
 * (compaction and skill helpers too: `compact`, `generateSummary`, `findCutPoint`,
 * `formatSkillsForPrompt`, … answer as pi's, with pi's arguments).
 * Type-only imports are erased by jiti and need nothing. Not provided: terminal UI classes
 * (`CustomEditor`, `DynamicBorder`, `BorderedLoader`, themes; extensions that need them need a
 * terminal UI), pi's own process (`main`, `runPrintMode`, `RpcClient`, `VERSION`, …) and its SDK
 * layer (`createAgentSession`, `AuthStorage`, `ModelRegistry`, `DefaultResourceLoader`, …), whose
 * Settle counterparts in "settle" take Settle's options.
 *
 * @example
 * ```ts
 * import { fileURLToPath } from "node:url";
 *
 * const aliases = { ...defaultExtensionAliases(), "@mariozechner/pi-coding-agent": fileURLToPath(piCompatModuleUrl) };
 * const result = await loadExtensions([{ path: "/repo/.pi/extensions/plan.ts", source: "project" }], { cwd, agentDir, projectTrusted: true, aliases });
 * ```
 */
// Same names, same results as pi's (checked against pi 0.73.1 in test/extensions/pi-compat-exports.test.ts).
// Where Settle's function of a name takes other arguments or answers differently on purpose
// (compaction, skills), the export here is an adapter with pi's signature and result.
export { serializeConversation } from "../compaction/serialize.js";
export { DEFAULT_COMPACTION_SETTINGS } from "../compaction/types.js";
export { calculateContextTokens, shouldCompact } from "../llm/tokens.js";
export { parseFrontmatter, stripFrontmatter } from "../resources/frontmatter.js";
export { parseSkillBlock } from "../resources/skills.js";
export { convertToLlm } from "../session/convert-to-llm.js";
export { getDefaultAgentDir as getAgentDir } from "../settings/paths.js";
export { SettingsManager } from "../settings/settings-manager.js";
export { CURRENT_SESSION_VERSION } from "../store/entries.js";
export { migrateSessionEntries } from "../store/migration.js";
export { buildSessionContext, getLatestCompactionEntry } from "../store/projection.js";
export { parseSessionEntries } from "../store/session-file.js";
export { SessionManager } from "../store/session-manager.js";
export {
	createAllToolDefinitions,
	createAllTools,
	createBashTool,
	createBashToolDefinition,
	createCodingToolDefinitions,
	createCodingTools,
	createEditTool,
	createEditToolDefinition,
	createFindTool,
	createFindToolDefinition,
	createGrepTool,
	createGrepToolDefinition,
	createLocalBashOperations,
	createLsTool,
	createLsToolDefinition,
	createReadOnlyToolDefinitions,
	createReadOnlyTools,
	createReadTool,
	createReadToolDefinition,
	createWriteTool,
	createWriteToolDefinition,
	withFileMutationQueue,
} from "../tools/index.js";
export {
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	formatSize,
	truncateHead,
	truncateLine,
	truncateTail,
} from "../tools/truncate.js";
export { defineTool } from "../tools/types.js";
export { createEventBus } from "./event-bus.js";
export {
	isBashToolResult,
	isEditToolResult,
	isFindToolResult,
	isGrepToolResult,
	isLsToolResult,
	isReadToolResult,
	isToolCallEventType,
	isWriteToolResult,
} from "./guards.js";
export {
	collectEntriesForBranchSummary,
	compact,
	estimateTokens,
	findCutPoint,
	findTurnStartIndex,
	generateBranchSummary,
	generateSummary,
	getLastAssistantUsage,
	type PiBranchSummaryResult,
	type PiCompactionResult,
	type PiGenerateBranchSummaryOptions,
	prepareBranchEntries,
} from "./pi-compat-compaction.js";
export {
	createSyntheticSourceInfo,
	formatSkillsForPrompt,
	type LoadSkillsOptions,
	type LoadSkillsResult,
	loadProjectContextFiles,
	loadSkills,
	loadSkillsFromDir,
} from "./pi-compat-resources.js";
export type * from "./types.js";
export { wrapRegisteredTool, wrapRegisteredTools } from "./wrapper.js";

/** URL of this module, for building the jiti alias. */
export const piCompatModuleUrl: string = import.meta.url;
