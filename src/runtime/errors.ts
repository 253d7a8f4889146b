/** Errors and user-visible texts of the runtime layer (pi's texts where pi has one). */
import { existsSync, statSync } from "node:fs";
import { SettleError } from "../errors.js";
import type { SessionManager } from "../store/session-manager.js";
import { danglingLinkNote } from "../tools/fs-errors.js";

/** pi's text for an unknown or unsuitable fork entry. */
export const INVALID_FORK_ENTRY_MESSAGE = "Invalid entry ID for forking";
/** pi's text when a branched session could not be written. */
export const FORK_FAILED_MESSAGE = "Failed to create forked session";
/** A replacement was requested while another one runs. */
export const REPLACEMENT_IN_PROGRESS_MESSAGE =
	"A session replacement (new, switch, fork or import) is already in progress; wait for it to finish, then try again.";
/** The runtime was disposed. */
export const RUNTIME_DISPOSED_MESSAGE = "This AgentSessionRuntime was disposed; create a new one.";

/** `settleTimeoutMs` that is not a duration. */
export function invalidSettleTimeout(value: unknown): string {
	return `settleTimeoutMs must be a number of milliseconds ≥ 0, or Infinity to wait as long as it takes: how long a teardown waits for the aborted run to end before session_shutdown (got ${String(value)}).`;
}

/** A session whose recorded working directory is gone or not a directory (pi's `MissingSessionCwdIssue`). */
export interface MissingSessionCwdIssue {
	sessionFile: string;
	sessionCwd: string;
	fallbackCwd: string;
}

/**
 * The session's recorded cwd does not exist. Nothing was torn down; retry with a
 * `cwdOverride` (for example `fallbackCwd`). pi's message.
 *
 * @example
 * ```ts
 * const file = "/home/me/.settle/agent/sessions/--work-gone--/2025-….jsonl";
 * try { await runtime.switchSession(file); }
 * catch (error) {
 *   if (error instanceof MissingSessionCwdError) await runtime.switchSession(file, { cwdOverride: error.fallbackCwd });
 * }
 * ```
 */
export class MissingSessionCwdError extends SettleError {
	override readonly name = "MissingSessionCwdError";
	readonly issue: MissingSessionCwdIssue;
	readonly sessionFile: string;
	readonly sessionCwd: string;
	readonly fallbackCwd: string;

	constructor(issue: MissingSessionCwdIssue) {
		const problem = existsSync(issue.sessionCwd) ? "is not a directory" : "does not exist";
		// The link is still there to see; a bare "does not exist" for it reads as a contradiction (hapi#890).
		const link = danglingLinkNote(issue.sessionCwd);
		super(
			"MISSING_SESSION_CWD",
			`Stored session working directory ${problem}: ${issue.sessionCwd}${link}\nSession file: ${issue.sessionFile}\nCurrent working directory: ${issue.fallbackCwd}`,
			{ details: { ...issue } },
		);
		this.issue = issue;
		this.sessionFile = issue.sessionFile;
		this.sessionCwd = issue.sessionCwd;
		this.fallbackCwd = issue.fallbackCwd;
	}
}

/**
 * `runtime.fork(entryId)` was given an entry it cannot fork at (code INVALID_ARGUMENT): one this
 * session does not have (`reason: "unknown"`), or, with the default `position: "before"`, an entry
 * that is not a user message (`reason: "not-user-message"`). The message starts with pi's
 * {@link INVALID_FORK_ENTRY_MESSAGE} and says what to pass instead; RPC `fork` answers with pi's
 * text alone.
 *
 * @example
 * ```ts
 * try {
 *   await runtime.fork(runtime.session.sessionManager.getLeafId()!);
 * } catch (error) {
 *   if (error instanceof InvalidForkEntryError && error.reason === "not-user-message") {
 *     await runtime.fork(error.entryId, { position: "at" }); // keep the entry: fork at it
 *   }
 * }
 * ```
 */
export class InvalidForkEntryError extends SettleError {
	override readonly name = "InvalidForkEntryError";
	readonly entryId: string;
	readonly reason: "unknown" | "not-user-message";

	/** `kind`: what the entry is (`assistant message`, `compaction`, …) when it exists. */
	constructor(entryId: string, kind?: string) {
		const hint =
			kind === undefined
				? `this session has no entry "${entryId}". Pass an id from runtime.session.sessionManager.getEntries() ` +
					"(runtime.session.getUserMessagesForForking() lists the user messages)."
				: `entry "${entryId}" is ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}, and fork (position "before", the default) ` +
					'needs a user message\'s entry id: the new session ends just before it. Pass { position: "at" } to fork ' +
					"at any entry, keeping it, or pick one from runtime.session.getUserMessagesForForking().";
		super("INVALID_ARGUMENT", `${INVALID_FORK_ENTRY_MESSAGE}: ${hint}`, {
			details: { entryId, reason: kind === undefined ? "unknown" : "not-user-message" },
		});
		this.entryId = entryId;
		this.reason = kind === undefined ? "unknown" : "not-user-message";
	}
}

/**
 * `importFromJsonl` was given a file that does not exist (code NOT_FOUND, pi's `File not found: <path>`).
 *
 * @example
 * ```ts
 * try {
 *   await runtime.importFromJsonl("./shared-session.jsonl");
 * } catch (error) {
 *   if (error instanceof SessionImportFileNotFoundError) console.error(`No such file: ${error.filePath}`);
 * }
 * ```
 */
export class SessionImportFileNotFoundError extends SettleError {
	override readonly name = "SessionImportFileNotFoundError";
	readonly filePath: string;

	constructor(filePath: string) {
		super("NOT_FOUND", `File not found: ${filePath}`, { details: { path: filePath } });
		this.filePath = filePath;
	}
}

/**
 * The issue when a file-backed session records a cwd that does not exist, else undefined. Must not throw.
 *
 * @example
 * ```ts
 * const issue = getMissingSessionCwdIssue(sessionManager, process.cwd()); // undefined while the session's cwd exists
 * ```
 */
export function getMissingSessionCwdIssue(
	sessionManager: Pick<SessionManager, "getSessionFile" | "getCwd">,
	fallbackCwd: string,
): MissingSessionCwdIssue | undefined {
	const sessionFile = sessionManager.getSessionFile();
	if (!sessionFile) return undefined;
	const sessionCwd = sessionManager.getCwd();
	if (!sessionCwd || isDirectory(sessionCwd)) return undefined;
	return { sessionFile, sessionCwd, fallbackCwd };
}

/** Whether `path` is an existing directory. Must not throw. */
export function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/**
 * Throws `INVALID_ARGUMENT` naming `cwd` unless it is an existing directory: tools run there and
 * the project's settings and resources come from it, so nothing useful can start elsewhere.
 */
export function assertProjectDirectory(cwd: string): void {
	if (isDirectory(cwd)) return;
	const problem = existsSync(cwd) ? "is not a directory" : "does not exist";
	throw new SettleError(
		"INVALID_ARGUMENT",
		`Working directory ${problem}: ${cwd}${danglingLinkNote(cwd)}. Pass an existing project directory as \`cwd\`.`,
		{ details: { cwd } },
	);
}

/**
 * Throws {@link MissingSessionCwdError} when the session's recorded cwd is gone.
 *
 * @example
 * ```ts
 * assertSessionCwdExists(sessionManager, process.cwd()); // throws MissingSessionCwdError (MISSING_SESSION_CWD) when the recorded cwd is gone
 * ```
 */
export function assertSessionCwdExists(
	sessionManager: Pick<SessionManager, "getSessionFile" | "getCwd">,
	fallbackCwd: string,
): void {
	const issue = getMissingSessionCwdIssue(sessionManager, fallbackCwd);
	if (issue) throw new MissingSessionCwdError(issue);
}

/**
 * Whether `error` is a session's refusal of input because its runtime is replacing it (`BUSY`, see
 * `AgentSessionRuntime.waitForReplacement`): the input was not taken and may be sent again to
 * `runtime.session` once the replacement is over.
 *
 * @example
 * ```ts
 * runtime.session.prompt("hi").catch((error) => isReplacementRefusal(error) && console.log("retry after the switch"));
 * ```
 */
export function isReplacementRefusal(error: unknown): boolean {
	return error instanceof SettleError && error.code === "BUSY" && error.details?.sessionReplacement === true;
}
