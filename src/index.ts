/**
 * Settle: coding-agent sessions run through explicit, inspectable XState v5 state machines.
 * @packageDocumentation
 */
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
export * from "./extensions/index.js";
export * from "./llm/errors.js";
export {
	AssistantMessageEventStream,
	createAssistantMessageEventStream,
	EventStream,
	instantStreamFn,
	streamFromMessage,
} from "./llm/event-stream.js";
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
export * from "./llm/tokens.js";
export * from "./llm/types.js";
export { validateToolArguments, validateToolCall } from "./llm/validation.js";
export * from "./resources/index.js";
export {
	bashExecutionToText,
	type ConvertToLlmOptions,
	convertMessageToLlm,
	convertToLlm,
} from "./session/convert-to-llm.js";
export type * from "./session/messages.js";
export * from "./session/retry-policy.js";
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
export * from "./settings/index.js";
export * from "./store/index.js";
export * from "./tools/index.js";
