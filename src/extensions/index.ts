/** The extension system: API types, the runner, loading factories, and helpers for hosts. */
export { validateBoundaryEntries } from "./boundary.js";
export { createEventBus, type EventBusErrorHandler } from "./event-bus.js";
export { execCommand } from "./exec.js";
export { applyExtensionFlagValues, collectExtensionFlags, type ExtensionFlagInput } from "./flags.js";
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
	type ExtensionRecord,
	type InstantiatedExtensions,
	type InstantiateExtensionsOptions,
	instantiateExtensions,
} from "./loader.js";
export {
	continuationWithoutContextMessage,
	INVALID_BOUNDARY_ENTRIES_PREFIX,
	MESSAGE_END_ROLE_MESSAGE,
	RUNTIME_NOT_INITIALIZED_MESSAGE,
	STALE_EXTENSION_CONTEXT_MESSAGE,
	TOOL_CALL_FAILURE_PREFIX,
	TURN_END_MISSING_ENTRY_MESSAGE,
} from "./messages.js";
export {
	type BeforeAgentStartExtras,
	type CommandInvocation,
	type CreateExtensionRunnerOptions,
	createExtensionRunner,
	ExtensionRunner,
	type ExtensionRunnerOptions,
	type InputExtras,
	parseCommandInvocation,
	resourcePathsFromDiscovery,
} from "./runner.js";
export type { Extension, ExtensionRuntime, HandlerEntry } from "./runtime.js";
export type * from "./types.js";
export {
	createHeadlessUIContext,
	type HeadlessUIContext,
	type HeadlessUIOptions,
	isHeadlessUIContext,
	plainTheme,
	type UIDialogRequest,
	type UINotification,
} from "./ui.js";
export { wrapRegisteredTool, wrapRegisteredTools } from "./wrapper.js";
