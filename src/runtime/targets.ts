/**
 * Opening the target of a replacement while the current session stays
 * untouched: a new session manager, the file to resume, a fork's branch written to a new file,
 * an imported copy. Everything opened here is released again by {@link releaseTarget} when the
 * replacement does not go through, so a failed replacement leaves no lock and no new file behind.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import type { ImageContent, TextContent } from "../llm/types.js";
import { readSessionHeader } from "../store/discovery.js";
import { CURRENT_SESSION_VERSION, type FileEntry, type SessionEntry, type SessionHeader } from "../store/entries.js";
import { makeFolders, PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from "../store/folders.js";
import { createSessionId } from "../store/ids.js";
import { sessionFileName } from "../store/paths.js";
import { SessionManager } from "../store/session-manager.js";
import {
	assertSessionCwdExists,
	FORK_FAILED_MESSAGE,
	InvalidForkEntryError,
	MissingSessionCwdError,
} from "./errors.js";

/** An opened target (the machine's opaque `OpenedTarget.handle`). */
export interface TargetHandle {
	manager: SessionManager;
	/** The current session's own manager (switching to the file that is open): never closed on its behalf. */
	shared: boolean;
	/** Files this replacement created; removed when it fails. */
	createdFiles: string[];
	/** Fork "before": the user message's text. */
	selectedText?: string;
	/** A shared manager's leaf before the target moved it (put back when the replacement does not go through). */
	leafBefore?: string | null;
	/**
	 * The current session's path, opened fresh because it was not written yet: the old session may
	 * still write it before it is disposed (see {@link takeOverFileWrittenMeanwhile}).
	 */
	unwrittenCurrentPath?: string;
	/** A switch that found no file: a new session starts at the path (until a file written meanwhile is taken over). */
	startsNewSession?: boolean;
}

/** The current session, as the openers need it. */
export interface CurrentSessionView {
	manager: SessionManager;
	cwd: string;
	/** Where new session files go when the current session is in memory (settings or the default dir). */
	fallbackSessionDir: string;
}

/** Makes sure new session files can be created in `dir` (creates it); `IO` error naming it otherwise. */
export function ensureSessionDir(dir: string): void {
	try {
		makeFolders(dir, { mode: PRIVATE_FOLDER_MODE });
	} catch (error) {
		const hint =
			"Point sessionDir (settings), SETTLE_AGENT_DIR or the agentDir you passed in code at a writable folder.";
		throw new SettleError("IO", `Cannot create a session file in ${dir}: ${errorMessage(error)}. ${hint}`, {
			cause: error,
			details: { path: dir },
		});
	}
}

/** The directory new files of the current session go to. */
export function sessionDirOf(current: CurrentSessionView): string {
	return current.manager.getSessionDir() || current.fallbackSessionDir;
}

/** `newSession`: a new session for the current cwd, in the same dir (in memory when the current one is). */
export function openNewSession(current: CurrentSessionView, parentSession?: string): TargetHandle {
	const options = parentSession !== undefined ? { parentSession } : undefined;
	if (!current.manager.isPersisted()) {
		return { manager: SessionManager.inMemory(current.cwd, options), shared: false, createdFiles: [] };
	}
	const dir = current.manager.getSessionDir();
	ensureSessionDir(dir);
	const manager = SessionManager.create(current.cwd, dir, options);
	return { manager, shared: false, createdFiles: ownedFile(manager) };
}

/**
 * `switchSession`: opens `sessionFile` (the header's cwd unless `cwdOverride`) and checks
 * that cwd exists (`MissingSessionCwdError`). The file that is already open is reused (its manager,
 * the leaf moved to its last entry) once written. A missing file (the current session's unwritten
 * path included) is `NOT_FOUND` unless `createIfMissing`; with it a new session starts there (pi).
 */
export function openSessionFile(
	current: CurrentSessionView,
	sessionFile: string,
	cwdOverride: string | undefined,
	createIfMissing: boolean,
	sessionDir?: string,
): TargetHandle {
	const file = resolve(sessionFile);
	const existed = existsSync(file);
	if (!existed && !createIfMissing) throw missingSessionFile(file, file === current.manager.getSessionFile());
	// A file at the current path that the current session did not write (a switch that took over
	// what the previous session wrote failed, see takeOverFileWrittenMeanwhile) is opened like any other.
	const isCurrent =
		file === current.manager.getSessionFile() &&
		(!existed || readSessionHeader(file)?.id === current.manager.getSessionId());
	// The written current file is reused (its manager holds the lock and has the same entries). An
	// unwritten one is opened fresh like any missing file (pi): a new session starts there, and what
	// the current session had not written yet (its settings entries) is not carried over.
	if (isCurrent && existed) {
		if (cwdOverride !== undefined && resolve(cwdOverride) !== current.manager.getCwd()) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`${file} is the current session, open in ${current.manager.getCwd()}; it cannot be reopened in ${resolve(cwdOverride)} while it is open. Switch to another session first.`,
				{ details: { path: file } },
			);
		}
		const handle: TargetHandle = { manager: current.manager, shared: true, createdFiles: [] };
		validateCwd(handle, current.cwd);
		// Reopened, a file continues from its last entry (pi reads it again), wherever the leaf was moved.
		const last = current.manager.getEntries().at(-1);
		if (last && last.id !== current.manager.getLeafId()) {
			handle.leafBefore = current.manager.getLeafId();
			current.manager.branch(last.id);
		}
		return handle;
	}
	// A missing file starts a new session there (pi); it belongs to the current project then.
	// New sessions started from it go to the file's folder unless `sessionDir` names another (oh-my-pi#941).
	const manager = SessionManager.open(file, sessionDir, cwdOverride ?? (existed ? undefined : current.cwd));
	// The current session's path stays its own until it is disposed: a failed switch never removes it.
	const createdFiles = existed || isCurrent ? [] : ownedFile(manager);
	const handle: TargetHandle = { manager, shared: false, createdFiles };
	if (isCurrent && !existed) handle.unwrittenCurrentPath = file;
	if (!existed) handle.startsNewSession = true;
	validateCwd(handle, current.cwd);
	return handle;
}

function missingSessionFile(file: string, isCurrent: boolean): SettleError {
	const why = isCurrent
		? "it is the current session's path, and nothing has been written to it yet (a session file is written at its first message)"
		: "check the path (SessionManager.list() lists the saved sessions of a project)";
	return new SettleError(
		"NOT_FOUND",
		`No session file at ${file}: ${why}. To start a new session at that path, pass { createIfMissing: true }.`,
		{ details: { path: file } },
	);
}

/**
 * After the commit of a switch to the current session's unwritten path (call it once the old
 * session's manager is closed): if the old session wrote that file meanwhile (an extension's
 * `session_shutdown` sent a message, its pending work persisted its first message), the new session
 * takes the file over as written and continues from its last entry, as a switch to the written
 * current file does. Otherwise its first write would fail on the existing file (`IO` "already
 * exists"); pi appends a second header to the file instead. Returns true when it took the file over
 * (the caller rebuilds the session's messages). Throws `SettleError` when the file cannot be opened:
 * the file keeps what was written and the manager stays as it was (a later switch to the path opens
 * the file, see {@link openSessionFile}).
 */
export function takeOverFileWrittenMeanwhile(handle: TargetHandle): boolean {
	const file = handle.unwrittenCurrentPath;
	if (file === undefined || !existsSync(file)) return false;
	// Written by the new session itself (a factory that appended a message): nothing to take over.
	if (readSessionHeader(file)?.id === handle.manager.getSessionId()) return false;
	try {
		handle.manager.setSessionFile(file);
		handle.startsNewSession = false;
	} catch (error) {
		const code = error instanceof SettleError ? error.code : "IO";
		throw new SettleError(
			code,
			`The previous session wrote ${file} while the switch to it ran, and the new session could not open it: ${errorMessage(error)} ` +
				"What it wrote is in the file. Fix the cause, then switch to the file again to continue it.",
			{ cause: error, details: { path: file } },
		);
	}
	return true;
}

/**
 * `fork`: validates the entry (pi's `Invalid entry ID for forking`), then builds the branch
 * up to the new leaf as a new session whose `parentSession` is the current file. The current
 * session's manager is only read.
 */
export function openFork(current: CurrentSessionView, entryId: string, position: "before" | "at"): TargetHandle {
	const source = current.manager;
	const entry = source.getEntry(entryId);
	if (!entry) throw new InvalidForkEntryError(entryId);
	let leafId: string | null;
	let selectedText: string | undefined;
	if (position === "at") {
		leafId = entry.id;
	} else {
		if (entry.type !== "message" || entry.message.role !== "user") {
			throw new InvalidForkEntryError(
				entryId,
				entry.type === "message" ? `${entry.message.role} message` : `${entry.type} entry`,
			);
		}
		leafId = entry.parentId ?? null;
		selectedText = userMessageText(entry.message.content as string | (TextContent | ImageContent)[]);
	}
	const handle = source.isPersisted() ? forkToFile(current, leafId) : forkInMemory(current, leafId);
	if (selectedText !== undefined) handle.selectedText = selectedText;
	return handle;
}

function forkInMemory(current: CurrentSessionView, leafId: string | null): TargetHandle {
	const source = current.manager;
	if (leafId === null) return { manager: SessionManager.inMemory(current.cwd), shared: false, createdFiles: [] };
	// Only the branch is copied (inMemory clones what it is given), under a new header.
	const copy = SessionManager.inMemory(source.getCwd(), undefined, [
		branchHeader(source.getCwd()),
		...source.getBranchedEntries(leafId),
	]);
	return { manager: copy, shared: false, createdFiles: [] };
}

function forkToFile(current: CurrentSessionView, leafId: string | null): TargetHandle {
	const source = current.manager;
	const sourceFile = source.getSessionFile();
	if (!sourceFile) throw new SettleError("INTERNAL", "Persisted session is missing a session file");
	const dir = source.getSessionDir();
	ensureSessionDir(dir);
	const fresh = () => {
		const manager = SessionManager.create(current.cwd, dir, { parentSession: sourceFile });
		return { manager, shared: false, createdFiles: ownedFile(manager) };
	};
	if (leafId === null) return fresh();
	// The branch's entries (the current session keeps its file and its lock), written as a new file.
	// Only the path is copied: a fork of a long session never copies (or clones) the whole session.
	const entries = source.getBranchedEntries(leafId);
	// Like pi, a branch without a conversation message is not written yet: it starts as a new session.
	if (!entries.some(isConversationEntry)) return fresh();
	const branchedHeader: SessionHeader = { ...branchHeader(source.getCwd()), parentSession: sourceFile };
	const file = join(dir, sessionFileName(branchedHeader.timestamp, branchedHeader.id));
	let text = "";
	for (const line of [branchedHeader, ...entries] as FileEntry[]) text += `${JSON.stringify(line)}\n`;
	try {
		writeFileSync(file, text, { flag: "wx", mode: PRIVATE_FILE_MODE });
	} catch (error) {
		throw new SettleError("IO", `${FORK_FAILED_MESSAGE}: cannot write ${file}: ${errorMessage(error)}`, {
			cause: error,
			details: { path: file },
		});
	}
	try {
		return { manager: SessionManager.open(file, dir), shared: false, createdFiles: [file] };
	} catch (error) {
		rmSync(file, { force: true });
		throw error;
	}
}

/** Where `importFromJsonl(inputPath)` copies the file: the current session dir + its name. */
export function importDestination(current: CurrentSessionView, inputPath: string): string {
	return join(sessionDirOf(current), basename(resolve(inputPath)));
}

/**
 * `importFromJsonl`: copies the file into the current session dir (unless it is there
 * already), opens it and checks its cwd. Refuses to overwrite a different session file of the
 * same name (pi overwrites it; that would lose the other session).
 */
export function openImport(current: CurrentSessionView, inputPath: string, cwdOverride?: string): TargetHandle {
	const source = resolve(inputPath);
	const destination = importDestination(current, source);
	const createdFiles: string[] = [];
	if (destination !== source) {
		ensureSessionDir(sessionDirOf(current));
		if (destination === current.manager.getSessionFile()) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Importing ${source} would overwrite the current session file ${destination}; rename the file to import it.`,
				{ details: { path: destination } },
			);
		}
		if (existsSync(destination)) {
			if (!sameContents(source, destination)) {
				throw new SettleError(
					"INVALID_ARGUMENT",
					`A different session file named ${basename(destination)} already exists in ${sessionDirOf(current)}; rename the file to import it.`,
					{ details: { path: destination } },
				);
			}
		} else {
			try {
				// A new session file, private (0600) whatever the mode of the file imported.
				writeFileSync(destination, readFileSync(source), { flag: "wx", mode: PRIVATE_FILE_MODE });
			} catch (error) {
				throw new SettleError("IO", `Cannot import ${source} into ${destination}: ${errorMessage(error)}`, {
					cause: error,
					details: { path: destination },
				});
			}
			createdFiles.push(destination);
		}
	}
	if (destination === current.manager.getSessionFile()) {
		return openSessionFile(current, destination, cwdOverride, true);
	}
	let manager: SessionManager;
	try {
		manager = SessionManager.open(destination, sessionDirOf(current), cwdOverride);
	} catch (error) {
		for (const file of createdFiles) rmSync(file, { force: true });
		// The copy is gone again: name the file the caller gave, the one to fix or replace.
		if (createdFiles.length > 0 && error instanceof SettleError && error.message.includes(destination)) {
			throw new SettleError(error.code, error.message.replaceAll(destination, source), {
				cause: error,
				details: { ...error.details, path: source },
			});
		}
		throw error;
	}
	const handle: TargetHandle = { manager, shared: false, createdFiles };
	try {
		validateCwd(handle, current.cwd);
	} catch (error) {
		// The copy was removed with the target: the retry (with a cwdOverride) is for the caller's file.
		if (createdFiles.length > 0 && error instanceof MissingSessionCwdError) {
			throw new MissingSessionCwdError({ ...error.issue, sessionFile: source });
		}
		throw error;
	}
	return handle;
}

/**
 * Undoes an opened target: closes its manager (unless it is the current session's) and removes
 * the files the replacement created. Must not throw.
 */
export function releaseTarget(handle: TargetHandle): void {
	if (handle.shared && handle.leafBefore !== undefined) {
		try {
			if (handle.leafBefore === null) handle.manager.resetLeaf();
			else handle.manager.branch(handle.leafBefore);
		} catch {
			// the current session keeps the leaf it has
		}
	}
	if (!handle.shared) {
		try {
			handle.manager.close();
		} catch {
			// closing must not hide the original failure
		}
	}
	for (const file of handle.createdFiles) {
		try {
			rmSync(file, { force: true });
		} catch {
			// best effort: a leftover empty session is harmless
		}
	}
}

function validateCwd(handle: TargetHandle, fallbackCwd: string): void {
	try {
		assertSessionCwdExists(handle.manager, fallbackCwd);
	} catch (error) {
		releaseTarget(handle);
		throw error;
	}
}

/** A new file-backed manager's file (not written yet): this replacement owns it. */
function ownedFile(manager: SessionManager): string[] {
	const file = manager.getSessionFile();
	return file && !existsSync(file) ? [file] : [];
}

/** The header of a branch extracted into a new session (as `createBranchedSession` writes it). */
function branchHeader(cwd: string): SessionHeader {
	return {
		type: "session",
		version: CURRENT_SESSION_VERSION,
		id: createSessionId(),
		timestamp: new Date().toISOString(),
		cwd: resolve(cwd),
	};
}

function isConversationEntry(entry: SessionEntry): boolean {
	return entry.type === "message" && (entry.message.role === "user" || entry.message.role === "assistant");
}

function sameContents(a: string, b: string): boolean {
	try {
		return readFileSync(a).equals(readFileSync(b));
	} catch {
		return false;
	}
}

/** pi's `extractUserMessageText`: a string, or the text blocks joined. */
export function userMessageText(content: string | (TextContent | ImageContent)[]): string {
	if (typeof content === "string") return content;
	return content
		.filter((part): part is TextContent => part.type === "text" && typeof part.text === "string")
		.map((part) => part.text)
		.join("");
}
