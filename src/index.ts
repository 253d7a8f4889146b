/**
 * Settle: coding-agent sessions run through explicit, inspectable XState v5 state machines.
 * @packageDocumentation
 */

export type { PromptOperationStatePath } from "../machines/prompt-operation.machine.js";
export type { RuntimeStatePath } from "../machines/runtime.machine.js";
export { Agent } from "./agent/agent.js";
export {
	agentLoop,
	agentLoopContinue,
	lengthStopToolError,
	runAgentLoop,
	runAgentLoopContinue,
} from "./agent/agent-loop.js";
export {
	createLlmMessageConverter,
	defaultConvertMessageToLlm,
	type LlmMessageConversion,
} from "./agent/llm-converter.js";
export type * from "./agent/types.js";
export * from "./compaction/index.js";
export * from "./errors.js";
export {
	type ExportHtmlOptions,
	type ExportPageData,
	type ExportStats,
	exportSessionToHtml,
	exportStats,
	renderSessionHtml,
} from "./export/index.js";
export * from "./extensions/index.js";
export type { PendingHandler } from "./extensions/runner.js";
export { setListenerErrorHandler } from "./listener-errors.js";
export {
	CACHE_WARMING_IDLE_CONTINUATION_PROBABILITY,
	CACHE_WARMING_MAX_AGE_MS,
	CACHE_WARMING_MAX_IDLE_AGE_MS,
	CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS,
	type CacheWarmingAction,
	type CacheWarmingDecision,
	type CacheWarmingPhase,
	type CacheWarmingRequestOptions,
	evaluateCacheWarming,
	getCacheWarmingDelayMs,
	getCacheWarmingRequestOptions,
	getPromptCacheTtlMs,
	isCacheWarmingReplayable,
} from "./llm/cache-warming.js";
export { type ProxyEnv, useEnvProxy } from "./llm/env-proxy.js";
export * from "./llm/errors.js";
export {
	AssistantMessageEventStream,
	createAssistantMessageEventStream,
	EventStream,
	instantStreamFn,
	streamFromMessage,
} from "./llm/event-stream.js";
export { failureOf } from "./llm/failures.js";
export {
	createFauxProvider,
	type FauxAssistantMessageOptions,
	type FauxModelDefinition,
	type FauxProvider,
	type FauxProviderOptions,
	type FauxRequest,
	type FauxResponseFactory,
	type FauxResponseStep,
	type FauxState,
	fauxAssistantMessage,
	fauxText,
	fauxThinking,
	fauxToolCall,
} from "./llm/faux.js";
export {
	type ApiKeySource,
	authenticationFailedMessage,
	clampThinkingLevel,
	InMemoryModelRuntime,
	type ModelProviderRegistration,
	type ModelRuntime,
	noApiKeyForModelMessage,
	noApiKeyFoundMessage,
	noModelSelectedMessage,
	type ProviderAuthStatus,
	sameModel,
	supportedThinkingLevels,
} from "./llm/model-runtime.js";
export {
	type CredentialSource,
	createPiAiModelRuntime,
	loadPiAi,
	PI_AI_PACKAGE,
	PI_DEFAULT_MODEL_PER_PROVIDER,
	PiAiModelRuntime,
	type PiAiModelRuntimeOptions,
	type PiAiModule,
	piAiNotInstalledError,
} from "./llm/pi-ai.js";
export { withRequestSignal } from "./llm/request-signal.js";
export * from "./llm/tokens.js";
export * from "./llm/types.js";
export { validateToolArguments, validateToolCall } from "./llm/validation.js";
export {
	createVirtualModel,
	findLatestResponse,
	getBranchSelection,
	getVirtualModelState,
	isVirtualModel,
	type ModelRoute,
	type ModelRouteReason,
	type ModelRouteRequest,
	type ResolvedModelRoute,
	type ResolveModelOptions,
	VIRTUAL_MODEL_API,
	VIRTUAL_MODEL_STATE_ENTRY,
	type VirtualModelDefinition,
	type VirtualModelStateData,
} from "./llm/virtual-models.js";
export * from "./resources/index.js";
export * from "./runtime/index.js";
export {
	AgentSession,
	type AgentSessionConfig,
	type DisposeResult,
	type ExtensionBindings,
	type PromptDisposition,
	type PromptOptions,
	type SendCustomMessageOptions,
	type SessionClock,
	type SessionReplacementActions,
	type SessionTrace,
} from "./session/agent-session.js";
export type { BashResult, ExecuteBashOptions } from "./session/bash-runner.js";
export {
	CACHE_WARMING_MODES,
	CacheWarmer,
	type CacheWarmerClock,
	type CacheWarmerOptions,
	type CacheWarmingDecisionEvent,
	type CacheWarmingDecisionEventResult,
	type CacheWarmingMode,
	type CacheWarmingStatus,
	type CacheWarmRequest,
	formatCacheWarmingStatus,
} from "./session/cache-warmer.js";
export {
	bashExecutionToText,
	type ConvertToLlmOptions,
	convertMessageToLlm,
	convertToLlm,
} from "./session/convert-to-llm.js";
export type {
	AgentSessionEvent,
	AgentSessionEventType,
	AgentSessionListener,
	SessionAgentEndEvent,
	SessionOwnEvent,
} from "./session/events.js";
export {
	blockImagesAwareConverter,
	capRequestImages,
	fitPromptImages,
	MAX_REQUEST_IMAGE_BYTES,
	MAX_REQUEST_IMAGES,
	normalizePromptImages,
	normalizeToolResultImages,
	SUPPORTED_PROMPT_IMAGE_TYPES,
} from "./session/images.js";
export type * from "./session/messages.js";
export { type CycleDirection, type ModelCycleResult, nextCycleModel } from "./session/model-cycling.js";
export { modelRegistryView } from "./session/model-registry-view.js";
export type { StreamingBehavior } from "./session/prompt-pipeline.js";
export type { QueuedTexts } from "./session/queues.js";
export { loadExtensionRunner, RELOAD_WHILE_BUSY, type ReloadOptions } from "./session/reload.js";
export * from "./session/retry-policy.js";
export {
	computeSessionStats,
	contextUsage,
	exportBranchToJsonl,
	lastAssistantText,
	type ModelUsageStats,
	type SessionStats,
	type SessionStatsInfo,
	UNATTRIBUTED_USAGE_KEY,
	type UsageTotals,
} from "./session/session-stats.js";
export {
	buildSystemPrompt,
	buildSystemPromptSections,
	DEFAULT_SYSTEM_PREAMBLE,
	diffSystemPrompt,
	renderSystemPrompt,
	SYSTEM_PROMPT_SECTION_IDS,
	type SystemPromptOptions,
	SystemPromptTracker,
	systemPromptFromTranscript,
	systemPromptOptionsFromResources,
	type ToolPromptInfo,
	type TranscriptSystemPrompt,
} from "./session/system-prompt.js";
export {
	NAVIGATE_WHILE_COMPACTING,
	NAVIGATE_WHILE_STREAMING,
	type NavigateTreeResult,
	NO_MODEL_FOR_BRANCH_SUMMARY,
} from "./session/tree-navigation.js";
export type { RoutedModel } from "./session/virtual-routing.js";
export * from "./settings/index.js";
export type { CacheWarmingModeSetting } from "./settings/schema.js";
export * from "./store/index.js";
export * from "./tools/index.js";
