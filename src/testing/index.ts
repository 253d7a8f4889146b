/**
 * `settle/testing`: the public test kit — `createHarness` (a ready AgentSession on the faux
 * provider), the scripted faux provider, instant stream helpers, fast-check arbitraries for random
 * model scripts and for session actions keyed to points of a run, and event-protocol and queue checkers.
 * @packageDocumentation
 */

/** XState's simulated clock, re-exported so tests can pass `clock` without depending on xstate. */
export { SimulatedClock } from "xstate";
export {
	createExtensionHarness,
	ExtensionHarness,
	type ExtensionHarnessOptions,
	type HarnessToolCall,
	type RecordedAction,
} from "../extensions/testing.js";
export { instantStreamFn, streamFromMessage } from "../llm/event-stream.js";
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
} from "../llm/faux.js";
export {
	type ActionRun,
	applyActionsOnEvents,
	DEFAULT_ACTION_EVENTS,
	type FiredAction,
	type SessionAction,
	type SessionActionKind,
	type SessionActionsOptions,
	type SessionActionTrigger,
	sessionActionsArbitrary,
} from "./actions.js";
export {
	FATAL_ERROR_MESSAGES,
	type FauxScriptOptions,
	type FauxScriptStep,
	type FauxScriptStepKind,
	fauxScriptArbitrary,
	fauxStepArbitrary,
	OVERFLOW_ERROR_MESSAGES,
	RETRYABLE_ERROR_MESSAGES,
	scheduledFauxResponses,
} from "./arbitraries.js";
export {
	createHarness,
	getAssistantTexts,
	getMessageText,
	getUserTexts,
	type Harness,
	type HarnessOptions,
	type HarnessSettleOptions,
	type HarnessWithClock,
} from "./harness.js";
export { harnessViolations } from "./harness-invariants.js";
export { agentEventViolations } from "./invariants.js";
export { queueViolations } from "./queue-invariants.js";
export { sessionEventViolations } from "./session-invariants.js";
