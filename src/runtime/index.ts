/** The runtime layer: cwd-bound services, `createAgentSession`, and the session-replacing runtime. */
export { AUTH_FILE_NAME, AuthStorage, type StoredCredential } from "./auth-storage.js";
export {
	assertSessionCwdExists,
	FORK_FAILED_MESSAGE,
	getMissingSessionCwdIssue,
	INVALID_FORK_ENTRY_MESSAGE,
	InvalidForkEntryError,
	isReplacementRefusal,
	MissingSessionCwdError,
	type MissingSessionCwdIssue,
	REPLACEMENT_IN_PROGRESS_MESSAGE,
	RUNTIME_DISPOSED_MESSAGE,
	SessionImportFileNotFoundError,
} from "./errors.js";
export { type AgentSessionRuntimeFactoryOptions, createAgentSessionRuntimeFactory } from "./factory.js";
export {
	AgentSessionRuntime,
	type AgentSessionRuntimeFactory,
	type AgentSessionRuntimeResult,
	type AgentSessionRuntimeTarget,
	type CreateAgentSessionRuntimeOptions,
	createAgentSessionRuntime,
	type ForkResult,
	type ReplacementResult,
	type RuntimeSessionsInspectionEvent,
	type RuntimeSwitchOptions,
	type RuntimeTrace,
	type SessionReplacedEvent,
	type SessionReplacedListener,
	type SessionReplacementReason,
	type SettleTimedOutEvent,
	type SettleTimedOutListener,
	type SwitchResult,
} from "./runtime.js";
export {
	type CreateAgentSessionFromServicesOptions,
	type CreateAgentSessionOptions,
	type CreateAgentSessionResult,
	createAgentSession,
	createAgentSessionFromServices,
	DEFAULT_ACTIVE_TOOL_NAMES,
	DEFAULT_THINKING_LEVEL,
	findModel,
	findModelOrCustomId,
	type InitialModelChoice,
	noModelsAvailableMessage,
	resolveInitialModel,
	resolveToolOptions,
	type SessionToolOptions,
} from "./sdk.js";
export {
	type AgentSessionRuntimeDiagnostic,
	type AgentSessionServices,
	type CreateAgentSessionServicesOptions,
	createAgentSessionServices,
	createDefaultModelRuntime,
} from "./services.js";
