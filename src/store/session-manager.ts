/**
 * SessionManager: an append-only JSONL session tree in pi's format v3, with crash
 * safety (torn and malformed lines are reported and skipped), one writer per file (a lock), and
 * an incrementally maintained context for the current leaf.
 */
import {
	chmodSync,
	closeSync,
	existsSync,
	openSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	truncateSync,
	writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import type { AgentMessage, ThinkingLevel, Usage } from "../llm/types.js";
import {
	CUSTOM_TYPE_HINT,
	ENTRY_ID_HINT,
	LABEL_HINT,
	messageShapeError,
	SESSION_NAME_HINT,
	stringArgumentError,
	userMessageContentError,
} from "../session/input-check.js";
import type { SystemMessage } from "../session/messages.js";
import { getDefaultAgentDir } from "../settings/paths.js";
import { branchCopyEntries } from "./branch-copy.js";
import {
	findSessionFileById,
	latestActiveSession,
	listSessionsIn,
	type SessionListProgress,
	sessionDirsUnder,
} from "./discovery.js";
import {
	type BranchSummaryEntry,
	type CompactionEntry,
	type ContextEditEntry,
	CURRENT_SESSION_VERSION,
	type CustomEntry,
	type CustomMessageEntry,
	type FileEntry,
	type LabelEntry,
	type ModelChangeEntry,
	type NewSessionFileOptions,
	type SessionContext,
	type SessionDiagnostic,
	type SessionEntry,
	type SessionHeader,
	type SessionInfo,
	type SessionInfoEntry,
	type SessionMessageEntry,
	type SessionProjection,
	type SessionTreeNode,
	type ThinkingLevelChangeEntry,
	type UsageEntry,
} from "./entries.js";
import { EntryIndex, isConversationEntry, type UsageTotals } from "./entry-index.js";
import { PRIVATE_FILE_MODE, replacementMode } from "./folders.js";
import { assertValidSessionId, createSessionId, EntryIdSet, generateEntryId } from "./ids.js";
import { LiveProjection } from "./live-projection.js";
import { acquireSessionLock, type SessionLock } from "./lock.js";
import { migrateSessionEntries } from "./migration.js";
import { createSessionFolder, getDefaultSessionDirPath, sessionFileName } from "./paths.js";
import { buildSessionPath } from "./projection.js";
import { IndexingSink, isStillCurrent, type SessionReadAhead } from "./read-ahead.js";
import { readSessionFile, readSessionFileInto, type SessionFileContents } from "./session-file.js";
import { SessionWriter } from "./writer.js";

/** Options of {@link SessionManager.open} beyond pi's. */
export interface OpenSessionOptions {
	/**
	 * Read without taking the write lock and never write (no repairs, no migration rewrite);
	 * appends throw. For viewers and tools that inspect a session another process is writing.
	 */
	readOnly?: boolean;
	/**
	 * What a missing file means: `true` (the default, pi's `SessionManager.open`, what `settle
	 * --session <new path>` relies on) starts a new session at that path; `false` throws `NOT_FOUND`,
	 * so a mistyped path is not taken for a new session. `readOnly` implies `false`.
	 */
	createIfMissing?: boolean;
}

/**
 * {@link SessionManager.open}'s arguments as one object (`SessionManager.open(file, { readOnly: true })`),
 * instead of pi's positional `open(file, sessionDir?, cwdOverride?, options?)`.
 */
export interface SessionManagerOpenOptions extends OpenSessionOptions {
	/** The dir the manager lists and starts new sessions in; default the file's directory. */
	sessionDir?: string;
	/** The session's cwd; default the one in the file's header. */
	cwdOverride?: string;
}

/**
 * {@link SessionManager.create}'s arguments as one object (`SessionManager.create(cwd, { id })`),
 * instead of the positional `create(cwd, sessionDir?, options?)`.
 */
export interface SessionManagerCreateOptions extends NewSessionFileOptions {
	/** Where the session file goes; default the cwd's folder under the default agent dir. */
	sessionDir?: string;
}

/**
 * {@link SessionManager.forkFrom}'s arguments as one object (`SessionManager.forkFrom(file, cwd, { id })`),
 * instead of the positional `forkFrom(source, targetCwd, sessionDir?, options?)`.
 */
export interface SessionManagerForkOptions {
	/** Where the copy goes; default the target cwd's folder under the default agent dir. */
	sessionDir?: string;
	/** The copy's session id; default a fresh UUIDv7. */
	id?: string;
}

/**
 * {@link SessionManager.list}'s and {@link SessionManager.listAll}'s arguments as one object
 * (`list(cwd, { onProgress })`, `listAll({ sessionDir })`), instead of pi's positional
 * `list(cwd, sessionDir?, onProgress?)` / `listAll(sessionDir?, onProgress?)`.
 */
export interface SessionManagerListOptions {
	/**
	 * The one dir to list. `list`: default the cwd's folder under the default agent dir (a dir of
	 * your own is filtered to the cwd's sessions); `listAll`: default every folder under `<agentDir>/sessions`.
	 */
	sessionDir?: string;
	/** Called as session files are read: `(loaded, total)`. */
	onProgress?: SessionListProgress;
	/**
	 * Whether each info carries `allMessagesText`, every message's text (default `true`, as pi).
	 * `false` leaves it `""` (everything else the same): the list then holds no copy of every
	 * conversation, so a folder of big sessions fits in memory (pi#4122; `settle -r` lists this way).
	 *
	 * @example
	 * ```ts
	 * const infos = await SessionManager.listAll({ messagesText: false });
	 * for (const info of infos) console.log(info.name ?? info.firstMessage, info.messageCount);
	 * ```
	 */
	messagesText?: boolean;
}

/** {@link SessionManagerListOptions.messagesText} of `options`, checked: a value that is not a boolean is refused. */
function withMessagesText(factory: string, options: SessionManagerListOptions | undefined): boolean {
	const messagesText = options?.messagesText;
	if (messagesText === undefined) return true;
	if (typeof messagesText !== "boolean") {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`SessionManager.${factory}: messagesText must be true or false, got ${JSON.stringify(messagesText) ?? typeof messagesText}.`,
		);
	}
	return messagesText;
}

/**
 * {@link SessionManager.continueRecent}'s arguments as one object (`continueRecent(cwd, { sessionDir })`),
 * instead of the positional `continueRecent(cwd, sessionDir?)`.
 */
export interface SessionManagerContinueOptions {
	/** The dir to look in and start a new session in; default the cwd's folder under the default agent dir. */
	sessionDir?: string;
}

/**
 * {@link SessionManager.inMemory}'s arguments as one object (`inMemory({ cwd, entries })`), instead of
 * the positional `inMemory(cwd?, { id, parentSession }?, entries?)`.
 */
export interface SessionManagerInMemoryOptions extends NewSessionFileOptions {
	/** The session's cwd; default `process.cwd()`. */
	cwd?: string;
	/** Entries to preload: `[header, ...entries]` (migrated if old), or entries alone under a new header. */
	entries?: readonly FileEntry[];
}

/**
 * The options object of a factory called with one (`{…}` in place of the positional `sessionDir`),
 * or undefined for the positional form; positional arguments after an options object are refused.
 */
function optionsForm<T extends object>(factory: string, second: unknown, rest: readonly unknown[]): T | undefined {
	if (second === null || typeof second !== "object") return undefined;
	if (rest.some((value) => value !== undefined)) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`SessionManager.${factory}: pass either one options object or positional arguments, not both (put sessionDir and the other options in the object).`,
		);
	}
	return second as T;
}

/** Content a {@link SessionManager.appendContextEdit} replacement may carry. */
export type ContextEditReplacement = ContextEditEntry["replacement"];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type NewEntry = DistributiveOmit<SessionEntry, "id" | "parentId" | "timestamp">;

let lastTimestampMs = Number.NaN;
let lastTimestamp = "";

/** `new Date().toISOString()`, formatted once per millisecond (entries are often appended in bursts). */
function entryTimestamp(): string {
	const now = Date.now();
	if (now !== lastTimestampMs) {
		lastTimestampMs = now;
		lastTimestamp = new Date(now).toISOString();
	}
	return lastTimestamp;
}

/** Characters of JSON lines {@link toLines} gathers into one piece before handing it on. */
const LINES_PIECE_CHARS = 1 << 20;

/**
 * The entries as JSON lines, in pieces of about {@link LINES_PIECE_CHARS} characters (a longer
 * line is a piece of its own). Pieces, not one string: a whole session written at once (a fork, a
 * branch, a migration) can be longer than any string V8 can make (2^29 - 24 characters, pi#5231),
 * and is never held twice in memory.
 */
function* toLines(entries: readonly FileEntry[]): Generator<string> {
	let text = "";
	for (const entry of entries) {
		text += `${JSON.stringify(entry)}\n`;
		if (text.length >= LINES_PIECE_CHARS) {
			yield text;
			text = "";
		}
	}
	if (text) yield text;
}

/** Writes `pieces` to a new file at `path` (replacing one there) with `mode`. */
function writeLinesFile(path: string, pieces: Iterable<string>, mode: number): void {
	const fd = openSync(path, "w", mode);
	try {
		for (const piece of pieces) writeFileSync(fd, piece);
	} finally {
		closeSync(fd);
	}
}

/**
 * Removes the `<file>.migrating-<pid>` copies that migrations killed mid-rewrite left (a crash, an
 * OOM kill, a power loss): partial copies of the session, one more per crash (openclaw#44812). The
 * caller holds the file's lock, so no live migration is writing one. Best effort.
 */
function removeDeadMigrationCopies(file: string): void {
	const prefix = `${basename(file)}.migrating-`;
	try {
		for (const name of readdirSync(dirname(file))) {
			if (name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length))) {
				rmSync(join(dirname(file), name), { force: true });
			}
		}
	} catch {
		// an unreadable folder or a copy that cannot be removed: the migration itself goes on
	}
}

/** `IO` for a migration whose rewrite failed: the file was left as it was; what to do depends on why. */
function migrationWriteError(file: string, fromVersion: number, error: unknown): SettleError {
	return fileLeftAsItWasError(
		`Could not migrate session file ${file} from format v${fromVersion} to v${CURRENT_SESSION_VERSION}`,
		file,
		error,
	);
}

/** A write needed to open `file` failed before the file changed: `what` failed, what to do. */
function fileLeftAsItWasError(what: string, file: string, error: unknown): SettleError {
	const code = (error as NodeJS.ErrnoException).code;
	const full = code === "ENOSPC" || code === "EDQUOT" || code === "EFBIG";
	return new SettleError(
		"IO",
		`${what}: ${errorMessage(error)}. The file was left as it was. ` +
			(full
				? "Free disk space (or raise the file size limit: ulimit -f), then open it again."
				: "Fix what the error names, then open it again."),
		{ cause: error, details: { path: file, ...(code ? { errno: code } : {}) } },
	);
}

/** Refuses a directory given where a session file is expected (before any lock is taken next to it). */
function assertNotDirectory(file: string): void {
	let directory = false;
	try {
		directory = statSync(file).isDirectory();
	} catch {
		// missing or unreadable: the open reports it
	}
	if (directory) {
		throw new SettleError(
			"IO",
			`Could not read session file ${file}: it is a directory, not a session file. Pass the path of a session .jsonl file.`,
			{ details: { path: file } },
		);
	}
}

/** Reads a file to open it; I/O failures (no permission…) become `IO` errors naming the file. */
function readForOpen(file: string, sink: IndexingSink): SessionFileContents | undefined {
	try {
		return readSessionFileInto(file, sink);
	} catch (error) {
		throw new SettleError("IO", `Could not read session file ${file}: ${errorMessage(error)}`, {
			cause: error,
			details: { path: file },
		});
	}
}

/**
 * Throws `INVALID_SESSION_FILE` (naming the file, saying what to do) for contents that cannot be
 * opened: not a session, or — for writing — a newer format version.
 */
function assertUsableContents(file: string, contents: SessionFileContents, readOnly: boolean): void {
	if (!contents.header) {
		if (contents.fileBytes === 0 || contents.tornHeaderOnly) return;
		// Reading (an export) cannot start a session there: only the other file is a way out.
		const wayOut = readOnly
			? "Pass the path of a session .jsonl file."
			: "Open a different file, or move this one away to start a new session at this path.";
		throw new SettleError(
			"INVALID_SESSION_FILE",
			`Session file is not a valid pi session: ${file}. Its first line is not a session header; nothing was changed. ${wayOut}`,
			{ details: { path: file } },
		);
	}
	const version = contents.header.version ?? 1;
	if (version > CURRENT_SESSION_VERSION && !readOnly) {
		// Appending v3 entries to a newer format could corrupt it for the tool that wrote it.
		throw new SettleError(
			"INVALID_SESSION_FILE",
			`Session file ${file} uses session format v${version}, newer than this version of Settle understands ` +
				`(v${CURRENT_SESSION_VERSION}); nothing was changed. Upgrade Settle to continue it, or open it with ` +
				"{ readOnly: true } to read the entries this version knows.",
			{ details: { path: file, version } },
		);
	}
}

function addChild(children: Map<string | null, SessionEntry[]>, entry: SessionEntry): void {
	const parent = entry.parentId ?? null;
	const siblings = children.get(parent);
	if (siblings) siblings.push(entry);
	else children.set(parent, [entry]);
}

const MODEL_HINT = "Pass the model's provider and id as text. Nothing was written.";

function throwIfInvalid(error: SettleError | undefined): void {
	if (error) throw error;
}

function withNothingWritten(error: SettleError | undefined): SettleError | undefined {
	return (
		error && new SettleError("INVALID_ARGUMENT", `${error.message} Nothing was written.`, { details: error.details })
	);
}

function notFound(id: string | null | undefined): SettleError {
	return new SettleError("NOT_FOUND", `Entry ${id} not found`, { details: { id } });
}

/**
 * Manages one conversation session: an append-only tree of entries stored as JSONL.
 *
 * Every append creates a child of the current leaf and moves the leaf to it; `branch()` moves the
 * leaf back so the next append starts a sibling branch. Nothing is written until the first user
 * or assistant message; then the header and buffered entries are written at once, and each later
 * entry is appended as one line with one write. A file-backed manager holds the file's write lock
 * until {@link close} (or process exit). Entries and messages handed out are shared with the
 * manager: treat them as immutable.
 *
 * @example
 * ```ts
 * const session = SessionManager.create(process.cwd());
 * session.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
 * const { messages, model, thinkingLevel } = session.buildSessionContext();
 * session.close();
 * ```
 */
export class SessionManager {
	private sessionId = "";
	private sessionFile: string | undefined;
	private sessionDir: string;
	private readonly cwd: string;
	private readonly persist: boolean;
	private readOnly = false;
	private closed = false;
	private header!: SessionHeader;
	/** The entries in file order, with labels, session name and chain length kept as they are added. */
	private index = new EntryIndex();
	/**
	 * Entries by id. Built on first use for a session whose entries form one chain (then every
	 * parent is known to exist and the lookup is not needed to open it), at load otherwise.
	 */
	private byIdIndex: Map<string, SessionEntry> | null = new Map();
	/**
	 * The ids new ids must not collide with, while there is no id index: appending needs no entry
	 * lookup, so a session that never looks entries up by id never builds the index.
	 */
	private idSet: EntryIdSet | null = null;
	/** Children by parent id; built on first use, then kept incrementally. */
	private childrenByParent: Map<string | null, SessionEntry[]> | null = null;
	/** Where the id index reports what it finds while loading a file (cleared once built). */
	private indexDiagnostics: SessionDiagnostic[] | undefined;
	private leafId: string | null = null;
	private live: LiveProjection | null = null;
	private diagnostics: SessionDiagnostic[] = [];
	private writer: SessionWriter | null = null;
	/** The file holds the header and every entry so far (appends go straight to disk). */
	private flushed = false;
	/**
	 * Lines of entries appended with `deferWrite` to a file already on disk: written together with
	 * the next entry that is written, so that opening a session leaves its file as it was until
	 * there is new activity (oh-my-pi#528). Dropped when the manager moves to another file.
	 */
	private deferredLines = "";
	/** The ids of the entries in {@link deferredLines}. */
	private deferredIds = new Set<string>();
	private deferringWrite = false;

	private constructor(cwd: string, sessionDir: string, persist: boolean) {
		this.cwd = resolve(cwd);
		this.sessionDir = sessionDir ? resolve(sessionDir) : "";
		this.persist = persist;
	}

	// ---------------------------------------------------------------------------------------------
	// Factories

	/**
	 * A new file-backed session for `cwd` in `sessionDir`. Nothing is written until the first user or
	 * assistant message. The default `sessionDir` is the cwd's folder under the DEFAULT agent dir
	 * (`$SETTLE_AGENT_DIR`, else `~/.settle/agent`), whatever `agentDir` you give `createAgentSession`
	 * or `createAgentSessionRuntime`; to keep sessions in your own agent dir, pass
	 * `getDefaultSessionDir(cwd, agentDir)`.
	 *
	 * The options may come as one object (`create(cwd, { sessionDir, id })`) or positionally, as in pi.
	 *
	 * `cwd` is used as given, as in pi: through a symlink, the default folder and the header name the
	 * link's path, not the real one the `settle` command keys a project by (it resolves `--cwd`,
	 * oh-my-pi#941). Pass `realpathSync(cwd)` to share the command's sessions; resolving here would
	 * move the sessions of SDK callers that pass a link path to another folder.
	 *
	 * @example
	 * ```ts
	 * import { realpathSync } from "node:fs";
	 * const session = SessionManager.create(cwd, { id: "review-1" });
	 * const asTheCli = SessionManager.create(realpathSync(cwd)); // the folder `settle --cwd <link>` uses
	 * const inMyAgentDir = SessionManager.create(cwd, { sessionDir: getDefaultSessionDir(cwd, agentDir) }); // <agentDir>/sessions/--<cwd>--/
	 * const positional = SessionManager.create(cwd, undefined, { id: "review-2" }); // pi's form
	 * ```
	 */
	static create(cwd: string, options?: SessionManagerCreateOptions): SessionManager;
	static create(cwd: string, sessionDir?: string, options?: NewSessionFileOptions): SessionManager;
	static create(
		cwd: string,
		sessionDirOrOptions?: string | SessionManagerCreateOptions,
		positionalOptions?: NewSessionFileOptions,
	): SessionManager {
		const object = optionsForm<SessionManagerCreateOptions>("create", sessionDirOrOptions, [positionalOptions]);
		const sessionDir = object ? object.sessionDir : (sessionDirOrOptions as string | undefined);
		const options = object ?? positionalOptions;
		const manager = new SessionManager(cwd, sessionDir ?? getDefaultSessionDirPath(cwd), true);
		manager.startNewSession(options);
		return manager;
	}

	/**
	 * Opens a session file for appending (taking its write lock). The cwd comes from the header
	 * unless `cwdOverride` is given; the session dir defaults to the file's directory. A missing
	 * file starts a new session at that path, as in pi (`createIfMissing: false` makes it a `NOT_FOUND`
	 * SettleError instead); an empty file gets a fresh header. A torn last line
	 * is set aside, malformed lines are skipped (see {@link getDiagnostics}), old formats are migrated.
	 * Throws `INVALID_SESSION_FILE` for a non-empty file that is not a session or whose format version
	 * is newer than this one (open it `readOnly` instead), and `SESSION_LOCKED` when another writer holds it.
	 *
	 * The options may come as one object (`open(file, { sessionDir, cwdOverride, readOnly, createIfMissing })`)
	 * or positionally, as in pi (`open(file, sessionDir?, cwdOverride?, options?)`).
	 *
	 * @example
	 * ```ts
	 * const session = SessionManager.open("/home/me/.settle/agent/sessions/--work--/2024-…_id.jsonl");
	 * for (const d of session.getDiagnostics()) console.warn(d.message);
	 *
	 * // Only an existing file: a typo throws SettleError NOT_FOUND instead of starting an empty session.
	 * const existing = SessionManager.open(`${cwd}/sesion.jsonl`, { createIfMissing: false });
	 * // A viewer: no lock, no writes, the cwd it is shown for.
	 * const viewer = SessionManager.open(`${cwd}/session.jsonl`, { readOnly: true, cwdOverride: cwd });
	 * // pi's positional form still works.
	 * const same = SessionManager.open(`${cwd}/session.jsonl`, undefined, undefined, { readOnly: true });
	 * ```
	 */
	static open(path: string, options?: SessionManagerOpenOptions): SessionManager;
	static open(path: string, sessionDir?: string, cwdOverride?: string, options?: OpenSessionOptions): SessionManager;
	static open(
		path: string,
		sessionDirOrOptions?: string | SessionManagerOpenOptions,
		positionalCwd?: string,
		positionalOptions?: OpenSessionOptions,
	): SessionManager {
		const object = optionsForm<SessionManagerOpenOptions>("open", sessionDirOrOptions, [
			positionalCwd,
			positionalOptions,
		]);
		const sessionDir = object ? object.sessionDir : (sessionDirOrOptions as string | undefined);
		const cwdOverride = object ? object.cwdOverride : positionalCwd;
		const options = object ?? positionalOptions;
		const file = resolve(path);
		return SessionManager.openFile(file, sessionDir ? resolve(sessionDir) : dirname(file), cwdOverride, options);
	}

	/**
	 * @internal Not part of the public API: `settle -c` opens the session it picked from the read it
	 * picked it by ({@link readSessionAhead}); a file written since is read again.
	 */
	static openReadAhead(ahead: SessionReadAhead, sessionDir: string, cwdOverride: string): SessionManager {
		return SessionManager.openFile(ahead.file, resolve(sessionDir), cwdOverride, undefined, ahead);
	}

	private static openFile(
		file: string,
		dir: string,
		cwdOverride: string | undefined,
		options: OpenSessionOptions | undefined,
		ahead?: SessionReadAhead,
	): SessionManager {
		const readOnly = options?.readOnly === true;
		assertNotDirectory(file);
		if ((readOnly || options?.createIfMissing === false) && !existsSync(file)) {
			const hint = readOnly
				? ""
				: ". SessionManager.create() starts a new session; leave createIfMissing unset to start one at this path";
			throw new SettleError("NOT_FOUND", `Session file not found: ${file}${hint}`, { details: { path: file } });
		}
		const lock = readOnly || !existsSync(file) ? undefined : acquireSessionLock(file);
		try {
			// Checked under the lock: nothing can append between this check and the writer taking over.
			const reuse = ahead !== undefined && lock !== undefined && isStillCurrent(ahead);
			const sink = reuse ? ahead.sink : new IndexingSink();
			const contents = reuse ? ahead.contents : readForOpen(file, sink);
			const headerCwd = contents?.header?.cwd;
			const cwd = cwdOverride ?? (typeof headerCwd === "string" && headerCwd !== "" ? headerCwd : process.cwd());
			const manager = new SessionManager(cwd, dir, true);
			manager.readOnly = readOnly;
			manager.loadFile(file, contents, lock, sink);
			return manager;
		} catch (error) {
			lock?.release();
			throw error;
		}
	}

	/**
	 * Opens the latest session of `cwd` (by its header) in the session dir, or creates a new one when
	 * there is none: the one `settle -c` continues, latest by its last user or assistant message (a
	 * file whose mtime a copy bumped is not taken for the latest), a file holding no such message
	 * only when no other session holds one. pi 0.73.1 takes the newest file by mtime. Another cwd's sessions are never picked, also in the default dir,
	 * which two cwds can share (`a/b` and `a-b`). The default dir is the one {@link SessionManager.create}
	 * uses: under the default agent dir, not an `agentDir` of yours.
	 *
	 * The options may come as one object (`continueRecent(cwd, { sessionDir })`) or positionally, as in pi.
	 *
	 * @example
	 * ```ts
	 * const session = SessionManager.continueRecent(process.cwd());
	 * const mine = SessionManager.continueRecent(cwd, { sessionDir: getDefaultSessionDir(cwd, agentDir) }); // sessions under your agentDir
	 * const positional = SessionManager.continueRecent(cwd, getDefaultSessionDir(cwd, agentDir)); // pi's form
	 * ```
	 */
	static continueRecent(cwd: string, options?: SessionManagerContinueOptions): SessionManager;
	static continueRecent(cwd: string, sessionDir?: string): SessionManager;
	static continueRecent(cwd: string, sessionDirOrOptions?: string | SessionManagerContinueOptions): SessionManager {
		const object = optionsForm<SessionManagerContinueOptions>("continueRecent", sessionDirOrOptions, []);
		const sessionDir = object ? object.sessionDir : (sessionDirOrOptions as string | undefined);
		const dir = sessionDir ? resolve(sessionDir) : getDefaultSessionDirPath(cwd);
		// Always by the header's cwd: two cwds can share a default dir (`a/b` and `a-b` both map to `--a-b--`).
		// The session `settle -c` continues: by its last message, not the file's mtime (oh-my-pi#12538).
		const recent = latestActiveSession(dir, cwd);
		return recent ? SessionManager.openReadAhead(recent.read, dir, cwd) : SessionManager.create(cwd, dir);
	}

	/**
	 * A session that never touches the disk (`getSessionFile()` is undefined). `entries` may preload
	 * a session (`[header, ...entries]`, migrated if old; or entries alone under a new header).
	 *
	 * The arguments may come as one object (`inMemory({ cwd, id, parentSession, entries })`) or
	 * positionally (`inMemory(cwd?, { id, parentSession }?, entries?)`, pi's `inMemory(cwd?)` extended).
	 *
	 * @example
	 * ```ts
	 * const session = SessionManager.inMemory();
	 * session.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
	 * const copy = SessionManager.inMemory({ entries: session.getEntries() }); // the same entries, under a new header
	 * const positional = SessionManager.inMemory(undefined, undefined, session.getEntries()); // the positional form
	 * ```
	 */
	static inMemory(options: SessionManagerInMemoryOptions): SessionManager;
	static inMemory(cwd?: string, options?: NewSessionFileOptions, entries?: readonly FileEntry[]): SessionManager;
	static inMemory(
		cwdOrOptions?: string | SessionManagerInMemoryOptions,
		positionalOptions?: NewSessionFileOptions,
		positionalEntries?: readonly FileEntry[],
	): SessionManager {
		const object = optionsForm<SessionManagerInMemoryOptions>("inMemory", cwdOrOptions, [
			positionalOptions,
			positionalEntries,
		]);
		if (!object && positionalOptions && ("cwd" in positionalOptions || "entries" in positionalOptions)) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				"SessionManager.inMemory: cwd and entries go in the options object only when it is the one argument: inMemory({ cwd, entries, id }), or positionally inMemory(cwd, { id }, entries).",
			);
		}
		const cwd = (object ? object.cwd : (cwdOrOptions as string | undefined)) ?? process.cwd();
		const options = object ?? positionalOptions;
		const entries = object ? object.entries : positionalEntries;
		const manager = new SessionManager(cwd, "", false);
		const lines = entries ? structuredClone(entries as FileEntry[]) : [];
		const header = lines.find((e): e is SessionHeader => e.type === "session");
		if (header) {
			migrateSessionEntries(lines);
			manager.header = header;
			manager.sessionId = header.id;
			manager.indexAll(lines.filter((e): e is SessionEntry => e.type !== "session"));
		} else {
			manager.startNewSession(options);
			manager.indexAll(lines as SessionEntry[]);
		}
		return manager;
	}

	/**
	 * Copies every entry of another session file into a new session for `targetCwd` (written at
	 * once; header `parentSession` = the source). The source is only read. The options may come as
	 * one object (`forkFrom(source, cwd, { sessionDir, id })`) or positionally
	 * (`forkFrom(source, cwd, sessionDir?, { id })`).
	 *
	 * @example
	 * ```ts
	 * const copy = SessionManager.forkFrom(sessionManager.getSessionFile()!, cwd); // a copy in the project at cwd
	 * const named = SessionManager.forkFrom(sessionManager.getSessionFile()!, cwd, { id: "review-copy" });
	 * const mine = SessionManager.forkFrom(sessionManager.getSessionFile()!, cwd, { sessionDir: `${agentDir}/forks` });
	 * ```
	 */
	static forkFrom(sourcePath: string, targetCwd: string, options?: SessionManagerForkOptions): SessionManager;
	static forkFrom(
		sourcePath: string,
		targetCwd: string,
		sessionDir?: string,
		options?: NewSessionFileOptions,
	): SessionManager;
	static forkFrom(
		sourcePath: string,
		targetCwd: string,
		sessionDirOrOptions?: string | SessionManagerForkOptions,
		positionalOptions?: NewSessionFileOptions,
	): SessionManager {
		const object = optionsForm<SessionManagerForkOptions>("forkFrom", sessionDirOrOptions, [positionalOptions]);
		const sessionDir = object ? object.sessionDir : (sessionDirOrOptions as string | undefined);
		const options = object ?? positionalOptions;
		const source = resolve(sourcePath);
		const cwd = resolve(targetCwd);
		const contents = readSessionFile(source);
		if (!contents || contents.fileBytes === 0 || !contents.header) {
			throw new SettleError("INVALID_SESSION_FILE", `Cannot fork: source session file is empty or invalid: ${source}`, {
				details: { path: source },
			});
		}
		const version = contents.header.version ?? 1;
		if (version > CURRENT_SESSION_VERSION) {
			// Its entries would go under a v3 header: read with this version's meaning by every later reader (pi#9426).
			throw new SettleError(
				"INVALID_SESSION_FILE",
				`Session file ${source} uses session format v${version}, newer than this version of Settle understands ` +
					`(v${CURRENT_SESSION_VERSION}), so it cannot be forked; nothing was written. Upgrade Settle to fork it, ` +
					"or open it with { readOnly: true } to read the entries this version knows.",
				{ details: { path: source, version } },
			);
		}
		const lines: FileEntry[] = [contents.header, ...contents.entries];
		migrateSessionEntries(lines);
		if (options?.id !== undefined) assertValidSessionId(options.id);
		const dir = sessionDir ? resolve(sessionDir) : getDefaultSessionDirPath(cwd);
		const manager = new SessionManager(cwd, dir, true);
		manager.startNewSession({ id: options?.id, parentSession: source });
		manager.indexAll(lines.filter((e): e is SessionEntry => e.type !== "session"));
		manager.writeWholeFile();
		return manager;
	}

	/**
	 * The path of the session with id `id` among the sessions of `cwd` (in its default dir, or in
	 * `sessionDir`), or undefined. Reads only headers.
	 *
	 * @example
	 * ```ts
	 * const path = SessionManager.findById(process.cwd(), "0190f5c2-…");
	 * if (path) SessionManager.open(path);
	 * ```
	 */
	static findById(cwd: string, id: string, sessionDir?: string): string | undefined {
		const dir = sessionDir ? resolve(sessionDir) : getDefaultSessionDirPath(cwd);
		return findSessionFileById(dir, id, cwd);
	}

	/**
	 * Sessions of `cwd` (by their header; from its default dir, or from `sessionDir`), newest first.
	 * The options may come as one object (`list(cwd, { sessionDir, onProgress })`) or positionally, as in pi.
	 *
	 * @example
	 * ```ts
	 * for (const info of await SessionManager.list(process.cwd())) console.log(info.name ?? info.firstMessage);
	 * const mine = await SessionManager.list(cwd, { sessionDir: getDefaultSessionDir(cwd, agentDir) });
	 * const counted = await SessionManager.list(cwd, { onProgress: (loaded, total) => console.log(`${loaded}/${total}`) });
	 * const light = await SessionManager.list(cwd, { messagesText: false }); // allMessagesText "": bounded memory
	 * const positional = await SessionManager.list(cwd, undefined, (loaded, total) => console.log(loaded, total)); // pi's form
	 * ```
	 */
	static async list(cwd: string, options?: SessionManagerListOptions): Promise<SessionInfo[]>;
	static async list(cwd: string, sessionDir?: string, onProgress?: SessionListProgress): Promise<SessionInfo[]>;
	static async list(
		cwd: string,
		sessionDirOrOptions?: string | SessionManagerListOptions,
		positionalOnProgress?: SessionListProgress,
	): Promise<SessionInfo[]> {
		const object = optionsForm<SessionManagerListOptions>("list", sessionDirOrOptions, [positionalOnProgress]);
		const sessionDir = object ? object.sessionDir : (sessionDirOrOptions as string | undefined);
		const onProgress = object ? object.onProgress : positionalOnProgress;
		const dir = sessionDir ? resolve(sessionDir) : getDefaultSessionDirPath(cwd);
		const resolvedCwd = resolve(cwd);
		const include = (info: SessionInfo) => info.cwd !== "" && resolve(info.cwd) === resolvedCwd;
		return listSessionsIn([dir], onProgress, include, undefined, withMessagesText("list", object));
	}

	/**
	 * Every session under `<agentDir>/sessions` (all cwds), or in one `sessionDir`, newest first.
	 * The options may come as one object (`listAll({ sessionDir, onProgress })`) or positionally
	 * (`listAll(onProgress?)` as in pi, or `listAll(sessionDir?, onProgress?)`).
	 *
	 * @example
	 * ```ts
	 * const all = await SessionManager.listAll();
	 * const inOneDir = await SessionManager.listAll({ sessionDir: `${agentDir}/forks` });
	 * const counted = await SessionManager.listAll({ onProgress: (loaded, total) => console.log(`${loaded}/${total}`) });
	 * const light = await SessionManager.listAll({ messagesText: false }); // allMessagesText "": bounded memory
	 * ```
	 */
	static async listAll(options?: SessionManagerListOptions): Promise<SessionInfo[]>;
	static async listAll(onProgress?: SessionListProgress): Promise<SessionInfo[]>;
	static async listAll(sessionDir?: string, onProgress?: SessionListProgress): Promise<SessionInfo[]>;
	static async listAll(
		first?: string | SessionListProgress | SessionManagerListOptions,
		positionalOnProgress?: SessionListProgress,
	): Promise<SessionInfo[]> {
		const object = optionsForm<SessionManagerListOptions>("listAll", first, [positionalOnProgress]);
		const sessionDir = object ? object.sessionDir : typeof first === "string" ? first : undefined;
		const onProgress = object
			? object.onProgress
			: typeof first === "function"
				? (first as SessionListProgress)
				: positionalOnProgress;
		const withText = withMessagesText("listAll", object);
		const dirs =
			sessionDir !== undefined ? [resolve(sessionDir)] : await sessionDirsUnder(join(getDefaultAgentDir(), "sessions"));
		return listSessionsIn(dirs, onProgress, undefined, undefined, withText);
	}

	// ---------------------------------------------------------------------------------------------
	// Loading and writing

	private loadFile(
		file: string,
		contents: SessionFileContents | undefined,
		lock: SessionLock | undefined,
		sink: IndexingSink,
	): void {
		if (!contents) {
			// A path that does not exist yet: a new session written there on the first message.
			lock?.release();
			this.startNewSession();
			this.sessionFile = file;
			return;
		}
		assertUsableContents(file, contents, this.readOnly);
		if (!contents.header) {
			// Empty, or only a header cut off by a crash: start over at this exact path.
			this.diagnostics = contents.diagnostics;
			this.startNewSession();
			this.sessionFile = file;
			if (this.readOnly || !lock) return;
			if (contents.tornTail) this.setAside(file, contents);
			this.writer = SessionWriter.openExisting(file, lock);
			this.writer.append(`${JSON.stringify(this.header)}\n`);
			this.flushed = true;
			return;
		}
		const diagnostics = contents.diagnostics;
		const version = contents.header.version ?? 1;
		// The sink indexed a current-format file while reading it; an older one is migrated first.
		const migrated = sink.index === null && migrateSessionEntries([contents.header, ...contents.entries]);
		this.header = contents.header;
		this.sessionId = contents.header.id;
		this.sessionFile = file;
		this.diagnostics = diagnostics;
		if (sink.index !== null) {
			this.useIndex(sink.index, diagnostics);
			const chain = sink.index.takeChainContext();
			if (chain) this.live = LiveProjection.ofChain(sink.index.entries, chain);
		} else {
			this.indexAll(contents.entries, diagnostics);
		}
		this.flushed = true;
		if (this.readOnly || !lock) return;
		if (contents.tornTail) this.setAside(file, contents);
		if (migrated) {
			this.rewriteMigrated(file, version, contents);
			this.writer = SessionWriter.openExisting(file, lock);
			return;
		}
		this.writer = SessionWriter.openExisting(file, lock);
		if (contents.missingNewline) this.writer.append("\n");
	}

	/**
	 * Moves the bytes of a torn last line to `<file>.<time>.torn` (private: 0600) and cuts the file
	 * after the last complete line. The file is cut only once the copy is whole: a copy that cannot be
	 * written (a full disk) is removed and throws `IO`, the file keeping every byte.
	 */
	private setAside(file: string, contents: SessionFileContents): void {
		const torn = contents.tornTail!;
		const aside = `${file}.${new Date().toISOString().replace(/[:.]/g, "-")}.torn`;
		try {
			writeFileSync(aside, torn.bytes, { mode: PRIVATE_FILE_MODE, flag: "wx" });
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") rmSync(aside, { force: true });
			throw fileLeftAsItWasError(
				`Could not move the torn last line (line ${torn.line}) of session file ${file} aside to ${aside}`,
				file,
				error,
			);
		}
		truncateSync(file, contents.completeBytes);
		const diagnostic = this.diagnostics.find((d) => d.kind === "torn_line" && d.line === torn.line);
		if (diagnostic) {
			diagnostic.setAsidePath = aside;
			diagnostic.message += ` Its bytes were moved to ${aside}.`;
		}
	}

	/**
	 * Rewrites a migrated file atomically (temp file + rename), keeping its permissions. Lines that
	 * could not be read are dropped from the new file, so the original is kept beside it (0600) when
	 * there were any. A rewrite that fails (a full disk) removes what it wrote and throws `IO`: the
	 * file keeps its bytes, and no partial copy of the session is left beside it (pi#9708).
	 */
	private rewriteMigrated(file: string, fromVersion: number, contents: SessionFileContents): void {
		let backup: string | undefined;
		const temp = `${file}.migrating-${process.pid}`;
		removeDeadMigrationCopies(file);
		try {
			if (contents.diagnostics.some((d) => d.kind === "malformed_line")) {
				backup = `${file}.v${fromVersion}.bak`;
				writeFileSync(backup, readFileSync(file), { mode: PRIVATE_FILE_MODE });
			}
			const mode = replacementMode(file);
			writeLinesFile(temp, toLines([this.header, ...this.index.entries]), mode);
			chmodSync(temp, mode); // exact: the umask only narrows, and a leftover temp file keeps its own
			renameSync(temp, file);
		} catch (error) {
			for (const written of [temp, backup]) if (written) rmSync(written, { force: true });
			throw migrationWriteError(file, fromVersion, error);
		}
		this.diagnostics.push({
			kind: "migrated",
			file,
			message:
				`Migrated from session format v${fromVersion} to v${CURRENT_SESSION_VERSION} and rewrote the file.` +
				(backup ? ` Unreadable lines were dropped; the original file was kept at ${backup}.` : ""),
			...(backup ? { setAsidePath: backup } : {}),
		});
	}

	/** Writes header + all entries to a new file at `sessionFile` (taking the lock) and marks it flushed. */
	private writeWholeFile(): void {
		const file = this.sessionFile!;
		createSessionFolder(dirname(file));
		const lock = acquireSessionLock(file);
		this.writer = SessionWriter.create(file, lock, toLines([this.header, ...this.index.entries]));
		this.deferredLines = "";
		this.deferredIds.clear();
		this.flushed = true;
	}

	private releaseWriter(): void {
		this.writer?.close();
		this.writer = null;
		this.deferredLines = "";
		this.deferredIds.clear();
	}

	private assertWritable(): void {
		if (this.closed) {
			throw new SettleError(
				"SESSION_CLOSED",
				`Session ${this.sessionId} is closed${this.sessionFile ? ` (${this.sessionFile})` : ""}; ` +
					"open it again with SessionManager.open() to append.",
			);
		}
		if (this.readOnly) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Session ${this.sessionFile} was opened read-only; open it without { readOnly: true } to append.`,
			);
		}
	}

	// ---------------------------------------------------------------------------------------------
	// Index

	private indexAll(entries: readonly SessionEntry[], diagnostics?: SessionDiagnostic[]): void {
		// Another tree: nothing deferred for the previous one may be written into it.
		this.deferredLines = "";
		this.deferredIds.clear();
		const index = new EntryIndex();
		for (const entry of entries) index.add(entry);
		this.useIndex(index, diagnostics);
	}

	/** Replaces the entries with `index` (leaf: its last entry); the derived lookups are rebuilt on demand. */
	private useIndex(index: EntryIndex, diagnostics?: SessionDiagnostic[]): void {
		this.index = index;
		this.byIdIndex = null;
		this.idSet = null;
		this.childrenByParent = null;
		this.live = null;
		this.indexDiagnostics = diagnostics;
		const entries = index.entries;
		this.leafId = entries.length > 0 ? entries[entries.length - 1]!.id : null;
		// A branched (or damaged) session needs the id index now, to check its parents.
		if (index.linearPrefix < entries.length) this.byId();
	}

	/** The id index, built (with its diagnostics: duplicate ids, missing parents) when first needed. */
	private byId(): Map<string, SessionEntry> {
		if (this.byIdIndex) return this.byIdIndex;
		const index = new Map<string, SessionEntry>();
		const diagnostics = this.indexDiagnostics;
		const entries = this.index.entries;
		for (const entry of entries) {
			if (diagnostics && index.has(entry.id)) {
				diagnostics.push({
					kind: "duplicate_id",
					file: this.sessionFile,
					message: `Entry id ${entry.id} occurs more than once; the later entry wins lookups by id.`,
				});
			}
			index.set(entry.id, entry);
		}
		if (diagnostics) {
			for (let i = this.index.linearPrefix; i < entries.length; i++) {
				const entry = entries[i]!;
				if (entry.parentId && entry.parentId !== entry.id && !index.has(entry.parentId)) {
					diagnostics.push({
						kind: "missing_parent",
						file: this.sessionFile,
						message: `Entry ${entry.id} refers to parent ${entry.parentId}, which is not in the file; its branch starts at it.`,
					});
				}
			}
		}
		this.indexDiagnostics = undefined;
		this.byIdIndex = index;
		// From here on the id index is also the collision check.
		this.idSet = null;
		return index;
	}

	/** A fresh entry id, unique in this session: checked against the id index when there is one, else the (lazily built) id set. */
	private newEntryId(): string {
		if (this.byIdIndex) return generateEntryId(this.byIdIndex);
		if (!this.idSet) {
			const ids = new EntryIdSet();
			for (const entry of this.index.entries) {
				// A duplicate id, or one of another shape: the id index checks them and reports duplicates.
				if (!ids.add(entry.id)) return generateEntryId(this.byId());
			}
			this.idSet = ids;
		}
		return this.idSet.claimNew();
	}

	private indexEntry(entry: SessionEntry): void {
		this.index.add(entry);
		this.byIdIndex?.set(entry.id, entry);
		this.idSet?.add(entry.id);
		if (this.childrenByParent) addChild(this.childrenByParent, entry);
	}

	/** Creates, persists and indexes an entry as a child of `parentId` (default: the leaf). */
	private appendEntry(
		fields: NewEntry,
		parentId: string | null = this.leafId,
		id?: string,
		timestamp = entryTimestamp(),
	): SessionEntry {
		this.assertWritable();
		const { type, ...rest } = fields;
		const entry = {
			type,
			id: id ?? this.newEntryId(),
			parentId,
			timestamp,
			...rest,
		} as SessionEntry;
		this.commitEntry(entry);
		return entry;
	}

	/**
	 * Told of each entry this manager appends, after it is persisted (the AgentSession using it sets
	 * this so that its lifecycle trace shows what each step wrote). One observer: the last session
	 * to set it; it must not throw (nor write entries).
	 * @internal
	 */
	entryObserver: ((entry: SessionEntry) => void) | undefined;

	/** Persists, indexes and makes the leaf an entry built by an append. */
	private commitEntry(entry: SessionEntry): void {
		this.persistEntry(entry);
		this.indexEntry(entry);
		this.leafId = entry.id;
		if (this.live && !this.live.extend(entry)) this.live = null;
		this.entryObserver?.(entry);
	}

	private persistEntry(entry: SessionEntry): void {
		if (!this.persist || this.readOnly) return;
		if (this.flushed) {
			const line = `${JSON.stringify(entry)}\n`;
			if (this.deferringWrite) {
				this.deferredLines += line;
				this.deferredIds.add(entry.id);
			} else if (this.deferredLines) {
				// One write: the deferred entries and this one.
				const lines = this.deferredLines + line;
				this.deferredLines = "";
				this.deferredIds.clear();
				this.writer!.append(lines);
			} else {
				this.writer!.append(line);
			}
			return;
		}
		if (!this.index.hasConversation && !isConversationEntry(entry)) return;
		// First conversation message: header, everything buffered, and this entry in one write.
		const file = this.sessionFile!;
		createSessionFolder(dirname(file));
		const lock = acquireSessionLock(file);
		this.writer = SessionWriter.create(file, lock, toLines([this.header, ...this.index.entries, entry]));
		this.flushed = true;
	}

	private liveProjection(): LiveProjection {
		if (!this.live) {
			this.live = LiveProjection.build(this.index.entries, this.leafId, this.chainPrefix(), () => this.byId());
		}
		return this.live;
	}

	// ---------------------------------------------------------------------------------------------
	// Session lifecycle

	/**
	 * Starts a new, empty session in this manager (releasing the previous file). Returns the new
	 * file path (not yet written) or undefined in memory.
	 *
	 * @example
	 * ```ts
	 * const next = sessionManager.newSession({ parentSession: sessionManager.getSessionFile() });
	 * ```
	 */
	newSession(options?: NewSessionFileOptions): string | undefined {
		this.assertWritable();
		return this.startNewSession(options);
	}

	private startNewSession(options?: NewSessionFileOptions): string | undefined {
		if (options?.id !== undefined) assertValidSessionId(options.id);
		this.releaseWriter();
		this.sessionId = options?.id ?? createSessionId();
		const timestamp = new Date().toISOString();
		this.header = {
			type: "session",
			version: CURRENT_SESSION_VERSION,
			id: this.sessionId,
			timestamp,
			cwd: this.cwd,
			...(options?.parentSession !== undefined ? { parentSession: options.parentSession } : {}),
		};
		this.indexAll([]);
		this.flushed = false;
		this.sessionFile = this.persist ? join(this.sessionDir, sessionFileName(timestamp, this.sessionId)) : undefined;
		return this.sessionFile;
	}

	/**
	 * Switches this manager to another session file (as {@link open} would), releasing the current one.
	 *
	 * @example
	 * ```ts
	 * sessionManager.setSessionFile(`${agentDir}/sessions/imported.jsonl`); // later appends go to that file
	 * ```
	 */
	setSessionFile(sessionFile: string): void {
		if (this.closed) this.assertWritable();
		const file = resolve(sessionFile);
		assertNotDirectory(file);
		// Take and check the new file before letting go of the current one: a file that cannot be
		// opened leaves this manager writing where it was. (The same file is re-locked after release.)
		const same = file === this.sessionFile && this.writer !== null;
		if (same) this.releaseWriter();
		const lock = existsSync(file) ? acquireSessionLock(file) : undefined;
		try {
			const sink = new IndexingSink();
			const contents = readForOpen(file, sink);
			if (contents) assertUsableContents(file, contents, false);
			if (!same) this.releaseWriter();
			this.readOnly = false;
			this.diagnostics = [];
			this.loadFile(file, contents, lock, sink);
		} catch (error) {
			lock?.release();
			throw error;
		}
	}

	/**
	 * Releases the file (write lock and descriptor). Reading still works; appending throws
	 * `SESSION_CLOSED`. Safe to call twice; must not throw.
	 *
	 * @example
	 * ```ts
	 * try { sessionManager.appendMessage({ role: "user", content: "hi", timestamp: Date.now() }); } finally { sessionManager.close(); }
	 * ```
	 */
	close(): void {
		this.releaseWriter();
		this.closed = true;
	}

	/** Same as {@link close}. */
	dispose(): void {
		this.close();
	}

	/** True after {@link close}. */
	isClosed(): boolean {
		return this.closed;
	}

	/** What was noticed while reading the file (torn, malformed lines, migration…); `[]` for a clean file. */
	getDiagnostics(): SessionDiagnostic[] {
		return this.diagnostics.map((d) => ({ ...d }));
	}

	isPersisted(): boolean {
		return this.persist;
	}

	getCwd(): string {
		return this.cwd;
	}

	/** The directory new and branched session files go to (`""` in memory). */
	getSessionDir(): string {
		return this.sessionDir;
	}

	getSessionId(): string {
		return this.sessionId;
	}

	/** The session file path (known before it is written); undefined in memory. */
	getSessionFile(): string | undefined {
		return this.sessionFile;
	}

	getHeader(): SessionHeader | null {
		return this.header ?? null;
	}

	/** All entries in file order, without the header (a new array). */
	getEntries(): SessionEntry[] {
		return this.index.entries.slice();
	}

	/**
	 * Tokens and cost of every model call recorded in this session's entries, in every branch (money
	 * spent stays spent): each assistant message ever appended, a tool result's nested call, `usage`
	 * entries (cache-warming refreshes), and the summarizer calls of compactions and branch summaries.
	 * Never goes down while the session runs: a compaction, `/tree` navigation or a branch only adds
	 * entries. A running total kept as entries are read and appended (O(1) per call); a reopened file
	 * gives the same totals. A new object each call.
	 *
	 * @example
	 * ```ts
	 * const { tokens, cost } = sessionManager.getCumulativeUsage();
	 * console.log(`spent $${cost.toFixed(4)} on ${tokens.total} tokens`);
	 * ```
	 */
	getCumulativeUsage(): UsageTotals {
		const { tokens, cost } = this.index.cumulative;
		return { tokens: { ...tokens }, cost };
	}

	/** Name from the latest `session_info` entry anywhere in the session, trimmed; undefined if empty. */
	getSessionName(): string | undefined {
		return this.index.sessionName;
	}

	// ---------------------------------------------------------------------------------------------
	// Appends (each returns the new entry's id)

	/**
	 * Appends a message (user, assistant, toolResult, bashExecution, custom, system). Compaction
	 * and branch summaries have their own entries: use {@link appendCompaction} / {@link branchWithSummary}.
	 * A message whose fields have the wrong shape for its role (user content `42`, an assistant
	 * without a content list, a tool result without `toolCallId`…) throws `INVALID_ARGUMENT` naming
	 * the field, and nothing is written.
	 *
	 * @example
	 * ```ts
	 * const id = sessionManager.appendMessage({ role: "user", content: "fix the test", timestamp: Date.now() });
	 * ```
	 */
	appendMessage(message: AgentMessage): string {
		throwIfInvalid(messageShapeError("sessionManager.appendMessage", message));
		const role = message.role;
		if (role === "compactionSummary" || role === "branchSummary") {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`A ${role} message is derived, never stored: use appendCompaction() or branchWithSummary() instead.`,
			);
		}
		// The per-message fast path: the entry literal directly (same key order as appendEntry's).
		this.assertWritable();
		const entry: SessionMessageEntry = {
			type: "message",
			id: this.newEntryId(),
			parentId: this.leafId,
			timestamp: entryTimestamp(),
			message,
		};
		this.commitEntry(entry);
		return entry.id;
	}

	/**
	 * Records a thinking level change (sets the context's `thinkingLevel` from here on). With
	 * `deferWrite`, a file already on disk is not written now: the entry is in the tree at once and
	 * reaches the file with the next entry written (what a resumed session records about itself
	 * must not rewrite the file before any activity; oh-my-pi#528).
	 *
	 * @example
	 * ```ts
	 * sessionManager.appendThinkingLevelChange("off", { deferWrite: true }); // a file on disk is unchanged
	 * sessionManager.appendMessage({ role: "user", content: "hi", timestamp: Date.now() }); // both lines written
	 * ```
	 */
	appendThinkingLevelChange(thinkingLevel: ThinkingLevel, options?: { deferWrite?: boolean }): string {
		const fields = { type: "thinking_level_change", thinkingLevel } as Omit<
			ThinkingLevelChangeEntry,
			"id" | "parentId" | "timestamp"
		>;
		return this.appendMaybeDeferred(fields, options?.deferWrite === true);
	}

	/**
	 * Whether an entry was appended with `deferWrite` and is not written yet: what opening the file
	 * recorded (the host's thinking level), with no activity since.
	 * @internal
	 */
	isWriteDeferred(id: string): boolean {
		return this.deferredIds.has(id);
	}

	/** Appends `fields`; deferred: a file already on disk gets it with the next entry written. */
	private appendMaybeDeferred(fields: NewEntry, deferWrite: boolean): string {
		if (!deferWrite) return this.appendEntry(fields).id;
		this.deferringWrite = true;
		try {
			return this.appendEntry(fields).id;
		} finally {
			this.deferringWrite = false;
		}
	}

	/**
	 * Records a model change (sets the context's `model` from here on, until an assistant message of
	 * another model). Throws `INVALID_ARGUMENT` unless `provider` and `modelId` are strings. With
	 * `deferWrite`, as {@link appendThinkingLevelChange}: a file on disk gets it with the next entry.
	 *
	 * @example
	 * ```ts
	 * sessionManager.appendModelChange("anthropic", "claude-sonnet-4-5", { deferWrite: true }); // the file is unchanged
	 * ```
	 */
	appendModelChange(provider: string, modelId: string, options?: { deferWrite?: boolean }): string {
		const method = "sessionManager.appendModelChange";
		throwIfInvalid(
			stringArgumentError(method, "provider", provider, MODEL_HINT) ??
				stringArgumentError(method, "modelId", modelId, MODEL_HINT),
		);
		const fields = { type: "model_change", provider, modelId } as Omit<
			ModelChangeEntry,
			"id" | "parentId" | "timestamp"
		>;
		return this.appendMaybeDeferred(fields, options?.deferWrite === true);
	}

	/**
	 * Appends a compaction: the context becomes `[summary, entries from firstKeptEntryId up to here,
	 * later entries]`. `firstKeptEntryId` null keeps nothing before the compaction. In the
	 * transcript-system model the system message in effect is stored with it.
	 *
	 * @example
	 * ```ts
	 * sessionManager.appendCompaction("We fixed the parser.", sessionManager.getLeafId()!, 120_000, { readFiles: [], modifiedFiles: [] });
	 * ```
	 */
	appendCompaction<T = unknown>(
		summary: string,
		firstKeptEntryId: string | null,
		tokensBefore: number,
		details?: T,
		fromHook?: boolean,
		usage?: Usage,
	): string {
		this.assertWritable();
		const id = this.newEntryId();
		// One timestamp for the entry and its system-message snapshot (two clock reads could straddle a millisecond).
		const timestamp = entryTimestamp();
		const systemMessage = this.currentSystemMessage();
		const fields = {
			type: "compaction",
			summary,
			firstKeptEntryId: firstKeptEntryId ?? id,
			tokensBefore,
			details,
			usage,
			fromHook,
			...(systemMessage ? { systemMessage: { ...systemMessage, timestamp: new Date(timestamp).getTime() } } : {}),
		} as Omit<CompactionEntry, "id" | "parentId" | "timestamp">;
		return this.appendEntry(fields, this.leafId, id, timestamp).id;
	}

	/** The latest system message in the current context (transcript-system model), if any. */
	private currentSystemMessage(): SystemMessage | undefined {
		const messages = this.liveProjection().messages();
		for (let i = messages.length - 1; i >= 0; i--) {
			const message = messages[i]!;
			if (message.role === "system") return message;
		}
		return undefined;
	}

	/**
	 * Extension state that is not part of the model context. Throws `INVALID_ARGUMENT` unless
	 * `customType` is a string (extensions find their entries by it).
	 */
	appendCustomEntry<T = unknown>(customType: string, data?: T): string {
		throwIfInvalid(stringArgumentError("sessionManager.appendCustomEntry", "customType", customType, CUSTOM_TYPE_HINT));
		return this.appendEntry({ type: "custom", customType, data } as Omit<CustomEntry, "id" | "parentId" | "timestamp">)
			.id;
	}

	/**
	 * A message an extension injects into the model context (as a `custom` message). Throws
	 * `INVALID_ARGUMENT` unless `customType` is a string and `content` text or text/image blocks.
	 *
	 * @example
	 * ```ts
	 * sessionManager.appendCustomMessageEntry("reminder", "Run the tests before answering.", false);
	 * ```
	 */
	appendCustomMessageEntry<T = unknown>(
		customType: string,
		content: CustomMessageEntry["content"],
		display: boolean,
		details?: T,
	): string {
		const method = "sessionManager.appendCustomMessageEntry";
		throwIfInvalid(
			stringArgumentError(method, "customType", customType, CUSTOM_TYPE_HINT) ??
				withNothingWritten(userMessageContentError(method, content)),
		);
		return this.appendEntry({ type: "custom_message", customType, content, display, details } as Omit<
			CustomMessageEntry,
			"id" | "parentId" | "timestamp"
		>).id;
	}

	/**
	 * Sets the session's display name (newlines become spaces, trimmed; `""` clears it). Throws
	 * `INVALID_ARGUMENT` for a name that is not a string.
	 */
	appendSessionInfo(name: string): string {
		throwIfInvalid(stringArgumentError("sessionManager.appendSessionInfo", "the name", name, SESSION_NAME_HINT));
		const clean = name.replace(/[\r\n]+/g, " ").trim();
		return this.appendEntry({ type: "session_info", name: clean } as Omit<
			SessionInfoEntry,
			"id" | "parentId" | "timestamp"
		>).id;
	}

	/**
	 * Sets (or with `undefined`/`""` clears) the label of an entry. Throws `Entry <id> not found`, and
	 * `INVALID_ARGUMENT` for a label that is neither a string nor undefined.
	 *
	 * @example
	 * ```ts
	 * sessionManager.appendLabelChange(sessionManager.getLeafId()!, "before refactor");
	 * ```
	 */
	appendLabelChange(targetId: string, label: string | undefined): string {
		const method = "sessionManager.appendLabelChange";
		throwIfInvalid(
			stringArgumentError(method, "the entry id", targetId, ENTRY_ID_HINT) ??
				stringArgumentError(method, "the label", label, LABEL_HINT, true),
		);
		if (!this.byId().has(targetId)) throw notFound(targetId);
		return this.appendEntry({ type: "label", targetId, label } as Omit<LabelEntry, "id" | "parentId" | "timestamp">).id;
	}

	/**
	 * Replaces (or with `null` omits) what an earlier entry on the active branch contributes to the
	 * context. Branch-relative: navigating above the edit shows the original again. The target must
	 * be a user/assistant/toolResult message or a custom_message. A string replacement for an
	 * assistant or toolResult target is stored as one text block.
	 * @example
	 * ```ts
	 * declare const failedAssistantId: string; // the entry of an error response
	 * sessionManager.appendContextEdit(failedAssistantId, null); // drop a failed attempt from the context
	 * ```
	 */
	appendContextEdit(targetId: string, replacement: ContextEditReplacement): string {
		const content = (replacement as { content?: unknown } | null)?.content;
		if (
			replacement !== null &&
			(typeof replacement !== "object" ||
				!("content" in replacement) ||
				(typeof content !== "string" && !Array.isArray(content)))
		) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				"Context edit replacement must be null or contain string/array content",
			);
		}
		const target = this.byId().get(targetId);
		if (!target) throw notFound(targetId);
		if (!this.liveProjection().isOnPath(targetId, this.byId())) {
			throw new SettleError("INVALID_ARGUMENT", `Entry ${targetId} is not on the active branch`, {
				details: { id: targetId },
			});
		}
		const role =
			target.type === "message" ? target.message.role : target.type === "custom_message" ? "custom" : undefined;
		if (role !== "custom" && role !== "user" && role !== "assistant" && role !== "toolResult") {
			throw new SettleError("INVALID_ARGUMENT", `Entry ${targetId} does not contribute editable model content`, {
				details: { id: targetId },
			});
		}
		const normalized: ContextEditReplacement =
			replacement !== null && (role === "assistant" || role === "toolResult") && typeof replacement.content === "string"
				? { content: [{ type: "text", text: replacement.content }] }
				: replacement;
		return this.appendEntry({ type: "context_edit", targetId, replacement: normalized } as Omit<
			ContextEditEntry,
			"id" | "parentId" | "timestamp"
		>).id;
	}

	/** Records model usage that is not part of the context (stats only). */
	appendUsage(kind: string, provider: string, model: string, usage: Usage, note?: string): string {
		return this.appendEntry({
			type: "usage",
			kind,
			provider,
			model,
			usage,
			...(note ? { note } : {}),
		} as Omit<UsageEntry, "id" | "parentId" | "timestamp">).id;
	}

	// ---------------------------------------------------------------------------------------------
	// Tree

	getLeafId(): string | null {
		return this.leafId;
	}

	/**
	 * The thinking level the current branch records: its latest `thinking_level_change` (root..leaf),
	 * `off` when it has none — the level a resume of this leaf starts with. O(1) once the context is
	 * built.
	 *
	 * @example
	 * ```ts
	 * sessionManager.appendThinkingLevelChange("high");
	 * sessionManager.getBranchThinkingLevel(); // "high"
	 * ```
	 */
	getBranchThinkingLevel(): ThinkingLevel {
		return this.liveProjection().thinkingLevel;
	}

	getLeafEntry(): SessionEntry | undefined {
		return this.leafId ? this.byId().get(this.leafId) : undefined;
	}

	getEntry(id: string): SessionEntry | undefined {
		return this.byId().get(id);
	}

	/** Direct children of an entry (or, with null, the roots), in file order; shadowed duplicate ids left out. */
	getChildren(parentId: string | null): SessionEntry[] {
		if (!this.childrenByParent) {
			this.childrenByParent = new Map();
			for (const entry of this.byId().values()) addChild(this.childrenByParent, entry);
		}
		return (this.childrenByParent.get(parentId) ?? []).slice();
	}

	/** The entry's current label (latest label change wins; a clear removes it). */
	getLabel(id: string): string | undefined {
		return this.index.labels.get(id)?.label;
	}

	/** Entries from the root to `fromId` (default: the leaf); `[]` for an unknown id or a null leaf. */
	getBranch(fromId?: string): SessionEntry[] {
		const start = fromId ?? this.leafId;
		if (!start || !this.byId().has(start)) return [];
		return buildSessionPath(this.index.entries, start, this.byId());
	}

	/**
	 * The whole session as a tree: roots are entries with a null, self or missing parent; children
	 * sorted oldest first. Built on demand (O(n log n)).
	 */
	getTree(): SessionTreeNode[] {
		const nodes = new Map<string, SessionTreeNode>();
		for (const entry of this.index.entries) {
			const label = this.index.labels.get(entry.id);
			nodes.set(entry.id, { entry, children: [], label: label?.label, labelTimestamp: label?.timestamp });
		}
		const roots: SessionTreeNode[] = [];
		for (const entry of this.index.entries) {
			const node = nodes.get(entry.id)!;
			const parent = entry.parentId && entry.parentId !== entry.id ? nodes.get(entry.parentId) : undefined;
			if (parent) parent.children.push(node);
			else roots.push(node);
		}
		const stack = roots.slice();
		while (stack.length > 0) {
			const node = stack.pop()!;
			if (node.children.length > 1) {
				node.children.sort((a, b) => Date.parse(a.entry.timestamp) - Date.parse(b.entry.timestamp));
			}
			for (const child of node.children) stack.push(child);
		}
		return roots;
	}

	/**
	 * Moves the leaf to an existing entry; the next append becomes its child (a new branch).
	 * Throws `Entry <id> not found`.
	 */
	branch(branchFromId: string): void {
		if (!this.byId().has(branchFromId)) throw notFound(branchFromId);
		if (this.leafId !== branchFromId) {
			this.leafId = branchFromId;
			this.live = null;
		}
	}

	/** Moves the leaf before the first entry; the next append starts a new root. */
	resetLeaf(): void {
		if (this.leafId !== null) {
			this.leafId = null;
			this.live = null;
		}
	}

	/**
	 * Moves the leaf to `branchFromId` (null: before the first entry) and appends a branch_summary
	 * there that records the previous leaf in `fromId` (`"root"` when there was none).
	 *
	 * @example
	 * ```ts
	 * declare const earlierId: string; // an entry on the current branch
	 * sessionManager.branchWithSummary(earlierId, "Tried approach A; it failed because …");
	 * ```
	 */
	branchWithSummary<T = unknown>(
		branchFromId: string | null,
		summary: string,
		details?: T,
		fromHook?: boolean,
		usage?: Usage,
	): string {
		this.assertWritable();
		if (branchFromId !== null && !this.byId().has(branchFromId)) throw notFound(branchFromId);
		const fromId = this.leafId ?? "root";
		if (this.leafId !== branchFromId) {
			this.leafId = branchFromId;
			this.live = null;
		}
		return this.appendEntry(
			{ type: "branch_summary", fromId, summary, details, usage, fromHook } as Omit<
				BranchSummaryEntry,
				"id" | "parentId" | "timestamp"
			>,
			branchFromId,
		).id;
	}

	// ---------------------------------------------------------------------------------------------
	// Context

	/**
	 * The context for the current leaf: `{messages, thinkingLevel, model}`. Kept up to date
	 * incrementally, so calling it after each append costs O(new entries) plus a copy of the array.
	 *
	 * @example
	 * ```ts
	 * const { messages } = sessionManager.buildSessionContext();
	 * ```
	 */
	buildSessionContext(): SessionContext {
		return this.liveProjection().context();
	}

	/** The context with each message traced to its source entry (`{entries, messages, thinkingLevel, model}`). */
	buildSessionProjection(): SessionProjection {
		return this.liveProjection().projection();
	}

	/** The entries that make up the context (latest compaction, kept entries, later entries). */
	buildContextEntries(): SessionEntry[] {
		return this.liveProjection().entries();
	}

	// ---------------------------------------------------------------------------------------------
	// Branching into a new file

	/**
	 * Extracts the path root..`leafId` into a new session (labels of path entries re-emitted at the
	 * end; header `parentSession` = the current file). File-backed: switches to the new file
	 * (written now if it holds a conversation message, else lazily) and returns its path. In memory:
	 * replaces the entries in place and returns undefined. Throws `Entry <id> not found`.
	 *
	 * @example
	 * ```ts
	 * const newFile = sessionManager.createBranchedSession(sessionManager.getLeafId()!);
	 * ```
	 */
	createBranchedSession(leafId: string): string | undefined {
		this.assertWritable();
		const previousFile = this.sessionFile;
		const path = this.getBranch(leafId);
		if (path.length === 0) throw notFound(leafId);

		const entries = branchCopyEntries(path, this.index.labels);

		this.releaseWriter();
		this.sessionId = createSessionId();
		const timestamp = new Date().toISOString();
		this.header = {
			type: "session",
			version: CURRENT_SESSION_VERSION,
			id: this.sessionId,
			timestamp,
			cwd: this.cwd,
			...(this.persist && previousFile ? { parentSession: previousFile } : {}),
		};
		this.diagnostics = [];
		this.indexAll(entries);
		this.flushed = false;
		if (!this.persist) return undefined;
		this.sessionFile = join(this.sessionDir, sessionFileName(timestamp, this.sessionId));
		if (this.index.hasConversation) this.writeWholeFile();
		return this.sessionFile;
	}

	/**
	 * The entries {@link createBranchedSession} gives the new session for `leafId` (the path
	 * root..`leafId` without its label entries, re-chained, then the labels of path entries),
	 * leaving this session as it is. New entry objects; their messages are shared with this session:
	 * treat them as immutable. Costs O(path + labels), never a copy of the whole session: a fork of
	 * a months-long session copies only its branch. Throws `Entry <id> not found`.
	 *
	 * @example
	 * ```ts
	 * const entries = sessionManager.getBranchedEntries(sessionManager.getLeafId()!);
	 * const copy = SessionManager.inMemory(cwd, undefined, entries); // the branch as a session of its own
	 * ```
	 */
	getBranchedEntries(leafId: string): SessionEntry[] {
		const path = this.getBranch(leafId);
		if (path.length === 0) throw notFound(leafId);
		return branchCopyEntries(path, this.index.labels);
	}

	/**
	 * How many entries from the start form one chain the projection may take without a walk. None
	 * when entries share an id (a hand-edited file): the later one wins lookups (as in pi), so a path
	 * through that id must be walked, while the chain in file order passes through the shadowed one.
	 */
	private chainPrefix(): number {
		const shadowed = this.byIdIndex !== null && this.byIdIndex.size < this.index.entries.length;
		return shadowed ? 0 : this.index.linearPrefix;
	}
}
