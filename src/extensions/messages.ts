/** User-visible texts of the extension system (pi's exact wording where pi has one). */

/**
 * What every use of a captured `pi` or `ctx` throws after the runner is invalidated (session
 * replacement, reload, dispose). pi 0.73's exact text.
 */
export const STALE_EXTENSION_CONTEXT_MESSAGE =
	"This extension ctx is stale after session replacement or reload. Do not use a captured pi or command ctx after ctx.newSession(), ctx.fork(), ctx.switchSession(), or ctx.reload(). For newSession, fork, and switchSession, move post-replacement work into withSession and use the ctx passed to withSession. For reload, do not use the old ctx after await ctx.reload().";

/** What a `pi.*` action throws while extension factories are still running (pi's text). */
export const RUNTIME_NOT_INITIALIZED_MESSAGE =
	"Extension runtime not initialized. Action methods cannot be called during extension loading.";

/** `message_end` replacement with another role (pi's text). */
export const MESSAGE_END_ROLE_MESSAGE = "message_end handlers must return a message with the same role";

/** Prefix of the error a non-Error value thrown by a `tool_call` handler becomes (pi's text). */
export const TOOL_CALL_FAILURE_PREFIX = "Extension failed, blocking execution: ";

/** Prefix of a boundary draft validation / preview failure. */
export const INVALID_BOUNDARY_ENTRIES_PREFIX = "Invalid boundary entries: ";

/**
 * A `continue` request whose context cannot run a model call.
 *
 * @example
 * ```ts
 * continuationWithoutContextMessage("agent_before_settle"); // "agent_before_settle requested continuation without runnable model context"
 * ```
 */
export function continuationWithoutContextMessage(event: string): string {
	return `${event} requested continuation without runnable model context`;
}

/** A `turn_end` boundary without the persisted assistant entry. */
export const TURN_END_MISSING_ENTRY_MESSAGE = "turn_end could not resolve the persisted assistant entry ID";

/** How long (ms) one `session_shutdown` handler may hold a session's teardown (new, switch, fork, reload, quit). */
export const SESSION_SHUTDOWN_GRACE_MS = 5000;

/**
 * The extension error of a `session_shutdown` handler that did not settle within its grace.
 *
 * @example
 * ```ts
 * sessionShutdownAbandonedMessage(5000); // "The session_shutdown handler did not finish within 5 s; …"
 * ```
 */
export function sessionShutdownAbandonedMessage(graceMs: number): string {
	return `The session_shutdown handler did not finish within ${graceMs / 1000} s; the session was closed without waiting for it (the handlers after it still ran). Make the handler end its cleanup on time: bound what it awaits (a child process, a lock, a network call) with a timeout.`;
}
