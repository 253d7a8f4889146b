/** Finding and summarising session files without opening them for writing. */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { type FileHandle, open, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { SessionEntry, SessionHeader, SessionInfo } from "./entries.js";
import { readSessionAhead, type SessionReadAhead } from "./read-ahead.js";
import { gluedEntry } from "./session-file.js";

const HEADER_SCAN_BYTES = 1 << 20;

/** The text without a leading UTF-8 byte order mark (pi's readers skip one too). */
function withoutBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The header of a session file (first line), or null when it has none. Reads at most 1 MiB. Must not throw.
 *
 * @example
 * ```ts
 * readSessionHeader(sessionManager.getSessionFile()!)?.cwd; // "/home/me/project"
 * ```
 */
export function readSessionHeader(path: string): SessionHeader | null {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch {
		return null;
	}
	try {
		const buffer = Buffer.allocUnsafe(64 * 1024);
		const parts: Buffer[] = [];
		let scanned = 0;
		while (scanned < HEADER_SCAN_BYTES) {
			const n = readSync(fd, buffer, 0, buffer.length, null);
			if (n === 0) break;
			const nl = buffer.subarray(0, n).indexOf(10);
			parts.push(Buffer.from(buffer.subarray(0, nl < 0 ? n : nl)));
			scanned += n;
			if (nl >= 0) break;
		}
		const value: unknown = JSON.parse(withoutBom(Buffer.concat(parts).toString("utf8")));
		if (typeof value !== "object" || value === null) return null;
		const header = value as SessionHeader;
		return header.type === "session" && typeof header.id === "string" ? header : null;
	} catch {
		return null;
	} finally {
		closeSync(fd);
	}
}

function cwdMatches(cwd: unknown, resolvedCwd: string): boolean {
	return typeof cwd === "string" && cwd !== "" && resolve(cwd) === resolvedCwd;
}

/**
 * The session of `cwd` in `sessionDir` the session lists put first: the latest `modified` (its last
 * user or assistant message, or a fork's creation), as {@link listSessionsIn} sorts. Unlike the newest file by mtime (pi's `findMostRecentSession`),
 * a file whose mtime a sync, a backup restore or a copy bumped without a new message is not taken
 * for the latest. A file holding no user or assistant message nor `!` result (a header, a model pick) is taken only
 * when no session of `cwd` holds one (oh-my-pi#12538). Files are read newest mtime first, and the search stops at the first file older
 * than the best activity found (entries are stamped as they are written, so a file's mtime is never
 * earlier than its activity): one or two files read, however many the folder holds. Each is read as
 * an open reads it, and `read` hands the one picked to `SessionManager.openReadAhead`, so the
 * session `-c` continues is read once. Must not throw.
 *
 * @example
 * ```ts
 * const latest = await findLatestActiveSession(getDefaultSessionDirPath(process.cwd()), process.cwd());
 * latest?.path; // what `settle -c` continues (opened with SessionManager.openReadAhead(latest.read, …))
 * ```
 */
export async function findLatestActiveSession(
	sessionDir: string,
	cwd: string,
): Promise<{ path: string; modified: Date; read: SessionReadAhead } | null> {
	return latestActiveSession(sessionDir, cwd);
}

/** {@link findLatestActiveSession}, synchronous: what `SessionManager.continueRecent` opens, so the SDK and `-c` agree. */
export function latestActiveSession(
	sessionDir: string,
	cwd: string,
): { path: string; modified: Date; read: SessionReadAhead } | null {
	const dir = resolve(sessionDir);
	const resolvedCwd = resolve(cwd);
	let names: string[];
	try {
		names = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
	} catch {
		return null;
	}
	const files: { path: string; mtime: number }[] = [];
	for (const name of names) {
		const path = join(dir, name);
		try {
			files.push({ path, mtime: statSync(path).mtimeMs });
		} catch {
			// deleted since the listing: not a candidate
		}
	}
	files.sort((a, b) => b.mtime - a.mtime);
	type Found = { path: string; modified: Date; read: SessionReadAhead };
	let best: Found | null = null;
	// The newest of those stamped ahead of the clock: taken only when no other session is (deja-vu#880).
	let ahead: Found | null = null;
	// The newest file with no user or assistant message (a header an open of an empty file wrote, a
	// stub another tool left): nothing to continue, so taken only when no session holds a message.
	let empty: Found | null = null;
	const now = Date.now();
	for (const { path, mtime } of files) {
		if (best && mtime < best.modified.getTime()) break;
		if (!cwdMatches(readSessionHeader(path)?.cwd, resolvedCwd)) continue;
		// Read as the open reads it: the file picked is opened from this read (SessionManager.openReadAhead).
		const read = readSessionAhead(path);
		const header = read?.contents.header;
		if (!read || !header) continue;
		const modified = modifiedOfContents(header, read.contents.entries, new Date(read.mtimeMs));
		if (!holdsMessage(read.contents.entries)) {
			if (!empty || modified.getTime() > empty.modified.getTime()) empty = { path, modified, read };
		} else if (stampedAhead(modified, now)) {
			if (!ahead || modified.getTime() > ahead.modified.getTime()) ahead = { path, modified, read };
		} else if (!best || modified.getTime() > best.modified.getTime()) best = { path, modified, read };
	}
	return best ?? ahead ?? empty;
}

/**
 * The `.jsonl` files of `sessionDir` that hold bytes but no session header — a crash can leave a
 * cut line or NUL bytes where the header was — modified after `afterMs` (every one when
 * undefined), newest first. {@link findLatestActiveSession} passes over them without a word; a host
 * can name them. Must not throw.
 *
 * @example
 * ```ts
 * import { statSync } from "node:fs";
 * const dir = "/home/me/.settle/agent/sessions/--home-me-app--";
 * const latest = await findLatestActiveSession(dir, "/home/me/app");
 * const passedOver = unreadableSessionFiles(dir, latest ? statSync(latest.path).mtimeMs : undefined);
 * ```
 */
export function unreadableSessionFiles(sessionDir: string, afterMs?: number): string[] {
	const dir = resolve(sessionDir);
	try {
		return readdirSync(dir)
			.filter((name) => name.endsWith(".jsonl"))
			.map((name) => join(dir, name))
			.map((path) => ({ path, stats: statSync(path) }))
			.filter(({ stats }) => stats.isFile() && stats.size > 0 && (afterMs === undefined || stats.mtimeMs > afterMs))
			.sort((a, b) => b.stats.mtimeMs - a.stats.mtimeMs)
			.filter(({ path }) => readSessionHeader(path) === null)
			.map(({ path }) => path);
	} catch {
		return [];
	}
}

/** The path of the session with header id `id` in `dir` (optionally only for `cwd`), or undefined. */
export function findSessionFileById(dir: string, id: string, cwd?: string): string | undefined {
	const resolvedCwd = cwd === undefined ? undefined : resolve(cwd);
	try {
		for (const name of readdirSync(dir)) {
			if (!name.endsWith(".jsonl")) continue;
			const path = join(dir, name);
			const header = readSessionHeader(path);
			if (header?.id !== id) continue;
			if (resolvedCwd !== undefined && !cwdMatches(header.cwd, resolvedCwd)) continue;
			return path;
		}
	} catch {
		// missing directory: not found
	}
	return undefined;
}

function messageText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const texts: string[] = [];
	for (const block of content) {
		if (block && typeof block === "object" && block.type === "text" && typeof block.text === "string") {
			texts.push(block.text);
		}
	}
	return texts.join(" ");
}

/** What one pass over a session file's lines gathers for its {@link SessionInfo}. */
interface InfoScan {
	header: SessionHeader | null;
	messageCount: number;
	/** Settle's records of the system prompt (`role: "system"`): counted in `messageCount`, as pi does. */
	systemMessages: number;
	firstMessage: string;
	name: string | undefined;
	lastActivity: number | undefined;
	texts: string[];
	/** Whether {@link texts} gathers every message's text (`allMessagesText`). */
	withText: boolean;
}

/** Takes one line of a session file; false when the file is not a session (its first entry is no header). */
function scanLine(scan: InfoScan, line: string): boolean {
	if (!line.trim()) return true;
	let entry: Record<string, unknown>;
	try {
		entry = JSON.parse(line);
	} catch {
		// A whole entry written onto a cut-off line counts as the open loads it (codex#24425).
		const glued = scan.header ? gluedEntry(line) : undefined;
		if (!glued) return true;
		entry = glued.record;
	}
	if (!entry || typeof entry !== "object") return true;
	if (!scan.header) {
		if (entry.type !== "session" || typeof entry.id !== "string") return false;
		scan.header = entry as unknown as SessionHeader;
		return true;
	}
	if (entry.type === "session_info") scan.name = (typeof entry.name === "string" && entry.name.trim()) || undefined;
	if (entry.type !== "message") return true;
	scan.messageCount++;
	const message = entry.message as Record<string, unknown> | undefined;
	if (message?.role === "system") scan.systemMessages++;
	const at = messageActivity(entry);
	if (at === undefined) return true;
	if (!Number.isNaN(at)) scan.lastActivity = Math.max(scan.lastActivity ?? 0, at);
	const textContent = messageText(message!.content);
	if (!textContent) return true;
	if (scan.withText) scan.texts.push(textContent);
	if (!scan.firstMessage && message!.role === "user") scan.firstMessage = textContent;
	return true;
}

/**
 * When a `message` entry's user or assistant message was written (NaN when it says no valid
 * time), or undefined for any other entry: what a session's `modified` is the latest of.
 */
function messageActivity(entry: Record<string, unknown>): number | undefined {
	if (entry.type !== "message") return undefined;
	const message = entry.message as Record<string, unknown> | undefined;
	if (!message || (message.role !== "user" && message.role !== "assistant") || !("content" in message))
		return undefined;
	return typeof message.timestamp === "number" ? message.timestamp : new Date(String(entry.timestamp)).getTime();
}

/**
 * A session's `modified`: its last message, else its header's time, else the file's mtime. A fork
 * (a header naming `parentSession`) counts its creation as activity too: its messages are copies
 * stamped when the original's were written, and the fork just made is the session to continue
 * (codex#39553).
 */
function sessionModified(header: SessionHeader, lastActivity: number | undefined, mtime: Date): Date {
	const headerTime = new Date(header.timestamp).getTime();
	if (lastActivity !== undefined && lastActivity > 0) {
		const forkedAt = header.parentSession && !Number.isNaN(headerTime) ? headerTime : 0;
		return new Date(Math.max(lastActivity, forkedAt));
	}
	return Number.isNaN(headerTime) ? mtime : new Date(headerTime);
}

/** How far past the reading clock a session's time still counts as read: machines' clocks a little apart. */
const AHEAD_TOLERANCE_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a session's `modified` is more than a day after `now`: stamped by a clock that was wrong
 * (set ahead, a restored snapshot). Its time cannot place it among the others, so the lists put it
 * after them and `-c` takes it only when no other session is left (deja-vu#880).
 */
export function stampedAhead(modified: Date, now: number = Date.now()): boolean {
	return modified.getTime() > now + AHEAD_TOLERANCE_MS;
}

/**
 * Newest first by `modified`, sessions {@link stampedAhead} of `now` last (newest first among them):
 * the order of the session lists (`settle -r`, `/resume`, {@link listSessionsIn}).
 *
 * @example
 * ```ts
 * const infos = await listSessionsIn(["/home/me/.settle/agent/sessions/--work--"]);
 * infos.sort(newestSessionFirst()); // the order settle -r lists them in
 * ```
 */
export function newestSessionFirst(now: number = Date.now()): (a: { modified: Date }, b: { modified: Date }) => number {
	return (a, b) =>
		Number(stampedAhead(a.modified, now)) - Number(stampedAhead(b.modified, now)) ||
		b.modified.getTime() - a.modified.getTime();
}

/** {@link sessionModified} of a file read whole (unmigrated entries, as {@link buildSessionInfo} reads them). */
function modifiedOfContents(header: SessionHeader, entries: readonly SessionEntry[], mtime: Date): Date {
	let lastActivity: number | undefined;
	for (const entry of entries) {
		const at = messageActivity(entry as unknown as Record<string, unknown>);
		if (at !== undefined && !Number.isNaN(at)) lastActivity = Math.max(lastActivity ?? 0, at);
	}
	return sessionModified(header, lastActivity, mtime);
}

/**
 * Whether `entries` hold a user or assistant message, or a `!` command's result: a conversation
 * `-c` can continue (the person ran the command there and saw its output; no stub).
 */
function holdsMessage(entries: readonly SessionEntry[]): boolean {
	return entries.some(
		(entry) =>
			messageActivity(entry as unknown as Record<string, unknown>) !== undefined ||
			(entry.type === "message" && entry.message.role === "bashExecution"),
	);
}

/** {@link conversationMessageCount} of the infos {@link buildSessionInfo} made (pi's SessionInfo has no such field). */
const conversationCounts = new WeakMap<SessionInfo, number>();

/**
 * The messages of `info`'s file a user counts: `messageCount` (pi's count, every `message` entry)
 * without Settle's records of the system prompt. What the session lists (`settle -r`, `/resume`)
 * show, as "Resumed … (N messages)" counts. An info not read from a file here: its `messageCount`.
 */
export function conversationMessageCount(info: SessionInfo): number {
	return conversationCounts.get(info) ?? info.messageCount;
}

/** Bytes read at a time by {@link buildSessionInfo} (a longer line grows the buffer). */
const INFO_READ_BYTES = 1 << 20;

/**
 * Summary of one session file, or null if it is not a session. Must not throw.
 *
 * Reads the file a block at a time and decodes only whole lines (a newline byte is never part of
 * a multi-byte UTF-8 character, so this decodes exactly as the whole file would): memory stays at
 * one block plus the longest line and the texts kept, however long the session. A file whose
 * first entry is not a session header is read no further. `withText: false` keeps no
 * `allMessagesText` (`""`): a list that shows no search holds no copy of every conversation
 * (pi#4122). `readBytes` is for tests.
 */
export async function buildSessionInfo(
	path: string,
	readBytes = INFO_READ_BYTES,
	withText = true,
): Promise<SessionInfo | null> {
	let handle: FileHandle | undefined;
	try {
		handle = await open(path, "r");
		const stats = await handle.stat();
		const scan: InfoScan = {
			header: null,
			messageCount: 0,
			systemMessages: 0,
			firstMessage: "",
			name: undefined,
			lastActivity: undefined,
			texts: [],
			withText,
		};
		// No bigger than the file: a folder of small sessions allocates no megabyte per file.
		let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(readBytes, stats.size)));
		let kept = 0; // bytes of an unfinished line at the start of `buffer`
		let start = true;
		for (;;) {
			if (kept === buffer.length) {
				const grown = Buffer.allocUnsafe(buffer.length * 2);
				buffer.copy(grown, 0, 0, kept);
				buffer = grown;
			}
			const { bytesRead } = await handle.read(buffer, kept, buffer.length - kept, null);
			const end = kept + bytesRead;
			// Up to the last newline read; at the end of the file, everything left.
			const cut = bytesRead === 0 ? end : buffer.subarray(0, end).lastIndexOf(10) + 1;
			if (cut > 0) {
				let text = buffer.toString("utf8", 0, cut);
				if (start) text = withoutBom(text);
				start = false;
				for (const line of text.split("\n")) if (!scanLine(scan, line)) return null;
				buffer.copyWithin(0, cut, end);
			}
			kept = end - cut;
			if (bytesRead === 0) break;
		}
		const header = scan.header;
		if (!header) return null;
		const modified = sessionModified(header, scan.lastActivity, stats.mtime);
		const info: SessionInfo = {
			path,
			id: header.id,
			cwd: typeof header.cwd === "string" ? header.cwd : "",
			name: scan.name,
			parentSessionPath: header.parentSession,
			created: new Date(header.timestamp),
			modified,
			messageCount: scan.messageCount,
			firstMessage: scan.firstMessage || "(no messages)",
			allMessagesText: scan.texts.join(" "),
		};
		conversationCounts.set(info, scan.messageCount - scan.systemMessages);
		return info;
	} catch {
		return null;
	} finally {
		await handle?.close().catch(() => {});
	}
}

/** Progress callback of `list` / `listAll`: files done so far and in total. */
export type SessionListProgress = (loaded: number, total: number) => void;

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
	const out = new Array<R>(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const i = next++;
			out[i] = await fn(items[i]!);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return out;
}

/**
 * Session infos of the `.jsonl` files of `dirs`, newest first (by `modified`). Must not throw.
 * `wantedHeader`: a file whose first line is a session header it refuses is left out without
 * being read further (a file's info reads all of it: a months-long session is megabytes); files
 * without a readable header line are read and judged as without it. `withText: false`: infos
 * without `allMessagesText` ({@link buildSessionInfo}).
 */
export async function listSessionsIn(
	dirs: readonly string[],
	onProgress?: SessionListProgress,
	include: (info: SessionInfo) => boolean = () => true,
	wantedHeader?: (header: SessionHeader) => boolean,
	withText = true,
): Promise<SessionInfo[]> {
	const files: string[] = [];
	for (const dir of dirs) {
		try {
			for (const name of await readdir(dir)) if (name.endsWith(".jsonl")) files.push(join(dir, name));
		} catch {
			// missing directory: nothing listed from it
		}
	}
	let loaded = 0;
	const infos = await mapLimited(files, 10, async (file) => {
		const header = wantedHeader ? readSessionHeader(file) : null;
		const info = header && !wantedHeader!(header) ? null : await buildSessionInfo(file, INFO_READ_BYTES, withText);
		onProgress?.(++loaded, files.length);
		return info;
	});
	return infos.filter((info): info is SessionInfo => info !== null && include(info)).sort(newestSessionFirst());
}

/**
 * The sessions of `cwd` in `sessionDir` (by their header), newest first, as `SessionManager.list`
 * reads them; `withText: false` keeps no `allMessagesText` ({@link buildSessionInfo}). Must not throw.
 */
export function listCwdSessions(sessionDir: string, cwd: string, withText = true): Promise<SessionInfo[]> {
	const resolvedCwd = resolve(cwd);
	return listSessionsIn(
		[resolve(sessionDir)],
		undefined,
		(info) => info.cwd !== "" && resolve(info.cwd) === resolvedCwd,
		undefined,
		withText,
	);
}

/** Subdirectories of `sessionsDir` (one per cwd). Must not throw. */
export async function sessionDirsUnder(sessionsDir: string): Promise<string[]> {
	try {
		const entries = await readdir(sessionsDir, { withFileTypes: true });
		return entries.filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => join(sessionsDir, e.name));
	} catch {
		return [];
	}
}
