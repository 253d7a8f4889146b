/**
 * Reading a session file ahead of its open: `settle -c` compares the project's sessions by their
 * last message, and the one it picks is then opened from what that comparison read, not read again
 * (a months-long session is megabytes).
 */
import { statSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "./entries.js";
import { CURRENT_SESSION_VERSION } from "./entries.js";
import { EntryIndex } from "./entry-index.js";
import { readSessionFileInto, type SessionFileContents, type SessionFileSink } from "./session-file.js";

/**
 * Indexes a file's entries as they are parsed, gathering the context of the last entry while they
 * form one chain (then opening a linear session leaves nothing to walk again). Only for the current
 * format: older files are indexed after migration has changed their entries.
 */
export class IndexingSink implements SessionFileSink {
	readonly entries: SessionEntry[] = [];
	index: EntryIndex | null = null;

	header(header: SessionHeader): void {
		const current = typeof header.version === "number" && header.version >= CURRENT_SESSION_VERSION;
		this.index = current ? new EntryIndex(true, this.entries) : null;
	}

	added(from: number): void {
		if (this.index === null) return;
		try {
			this.index.indexFrom(from);
		} catch {
			// An entry indexing cannot take (a hand-edited file): index after the read instead, which
			// raises the same error where opening always has.
			this.index = null;
		}
	}
}

/** A session file as read by {@link readSessionAhead}, with the size and mtime it had then. */
export interface SessionReadAhead {
	readonly file: string;
	readonly contents: SessionFileContents;
	readonly sink: IndexingSink;
	readonly size: number;
	readonly mtimeMs: number;
}

/** Reads `file` as an open would (indexing it as it is parsed); null when it cannot be read. Must not throw. */
export function readSessionAhead(file: string): SessionReadAhead | null {
	try {
		// Stat first: a write during the read moves the mtime past this, and the open reads again.
		const { mtimeMs } = statSync(file);
		const sink = new IndexingSink();
		const contents = readSessionFileInto(file, sink);
		return contents ? { file, contents, sink, size: contents.fileBytes, mtimeMs } : null;
	} catch {
		return null;
	}
}

/** Whether `ahead` still holds what its file does (same size, same mtime). Must not throw. */
export function isStillCurrent(ahead: SessionReadAhead): boolean {
	try {
		const stats = statSync(ahead.file);
		return stats.size === ahead.size && stats.mtimeMs === ahead.mtimeMs;
	} catch {
		return false;
	}
}
