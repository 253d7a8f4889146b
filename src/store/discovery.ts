/** Finding and summarising session files without opening them for writing. */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { SessionHeader, SessionInfo } from "./entries.js";

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
 * The most recently modified `.jsonl` session in `sessionDir` (by mtime) with a valid header, and
 * when `cwd` is given, started in that cwd. Null when there is none. Must not throw.
 *
 * @example
 * ```ts
 * const latest = findMostRecentSession(getDefaultSessionDirPath(process.cwd()));
 * ```
 */
export function findMostRecentSession(sessionDir: string, cwd?: string): string | null {
	const dir = resolve(sessionDir);
	const resolvedCwd = cwd === undefined ? undefined : resolve(cwd);
	try {
		const files = readdirSync(dir)
			.filter((name) => name.endsWith(".jsonl"))
			.map((name) => join(dir, name))
			.map((path) => ({ path, mtime: statSync(path).mtimeMs }))
			.sort((a, b) => b.mtime - a.mtime);
		for (const { path } of files) {
			const header = readSessionHeader(path);
			if (header && (resolvedCwd === undefined || cwdMatches(header.cwd, resolvedCwd))) return path;
		}
	} catch {
		// unreadable directory: no session
	}
	return null;
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

/** Summary of one session file, or null if it is not a session. Must not throw. */
export async function buildSessionInfo(path: string): Promise<SessionInfo | null> {
	try {
		const [text, stats] = await Promise.all([readFile(path, "utf8"), stat(path)]);
		let header: SessionHeader | null = null;
		let messageCount = 0;
		let firstMessage = "";
		let name: string | undefined;
		let lastActivity: number | undefined;
		const all: string[] = [];
		for (const line of withoutBom(text).split("\n")) {
			if (!line.trim()) continue;
			let entry: Record<string, unknown>;
			try {
				entry = JSON.parse(line);
			} catch {
				continue;
			}
			if (!entry || typeof entry !== "object") continue;
			if (!header) {
				if (entry.type !== "session" || typeof entry.id !== "string") return null;
				header = entry as unknown as SessionHeader;
				continue;
			}
			if (entry.type === "session_info") name = (typeof entry.name === "string" && entry.name.trim()) || undefined;
			if (entry.type !== "message") continue;
			messageCount++;
			const message = entry.message as Record<string, unknown> | undefined;
			if (!message || (message.role !== "user" && message.role !== "assistant") || !("content" in message)) continue;
			const at =
				typeof message.timestamp === "number" ? message.timestamp : new Date(String(entry.timestamp)).getTime();
			if (!Number.isNaN(at)) lastActivity = Math.max(lastActivity ?? 0, at);
			const textContent = messageText(message.content);
			if (!textContent) continue;
			all.push(textContent);
			if (!firstMessage && message.role === "user") firstMessage = textContent;
		}
		if (!header) return null;
		const headerTime = new Date(header.timestamp).getTime();
		const modified =
			lastActivity !== undefined && lastActivity > 0
				? new Date(lastActivity)
				: Number.isNaN(headerTime)
					? stats.mtime
					: new Date(headerTime);
		return {
			path,
			id: header.id,
			cwd: typeof header.cwd === "string" ? header.cwd : "",
			name,
			parentSessionPath: header.parentSession,
			created: new Date(header.timestamp),
			modified,
			messageCount,
			firstMessage: firstMessage || "(no messages)",
			allMessagesText: all.join(" "),
		};
	} catch {
		return null;
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
 * without a readable header line are read and judged as without it.
 */
export async function listSessionsIn(
	dirs: readonly string[],
	onProgress?: SessionListProgress,
	include: (info: SessionInfo) => boolean = () => true,
	wantedHeader?: (header: SessionHeader) => boolean,
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
		const info = header && !wantedHeader!(header) ? null : await buildSessionInfo(file);
		onProgress?.(++loaded, files.length);
		return info;
	});
	return infos
		.filter((info): info is SessionInfo => info !== null && include(info))
		.sort((a, b) => b.modified.getTime() - a.modified.getTime());
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
