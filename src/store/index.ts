/** Public surface of the session store (re-exported from the package root). */

export { readSessionHeader, type SessionListProgress } from "./discovery.js";
export type * from "./entries.js";
export { CURRENT_SESSION_VERSION } from "./entries.js";
export { assertValidSessionId, createSessionId, INVALID_SESSION_ID_MESSAGE } from "./ids.js";
export { LOCK_STALE_MS } from "./lock.js";
export { migrateSessionEntries } from "./migration.js";
export { getDefaultSessionDir, getDefaultSessionDirPath } from "./paths.js";
export {
	buildContextEntries,
	buildSessionContext,
	buildSessionPath,
	buildSessionProjection,
	getLatestCompactionEntry,
	type ProjectedSessionEntry,
	sessionEntryToContextMessages,
} from "./projection.js";
export {
	loadEntriesFromFile,
	parseSessionEntries,
	parseSessionText,
	readSessionFile,
	type SessionFileContents,
} from "./session-file.js";
export {
	type ContextEditReplacement,
	type OpenSessionOptions,
	SessionManager,
	type SessionManagerContinueOptions,
	type SessionManagerCreateOptions,
	type SessionManagerForkOptions,
	type SessionManagerInMemoryOptions,
	type SessionManagerListOptions,
	type SessionManagerOpenOptions,
} from "./session-manager.js";
