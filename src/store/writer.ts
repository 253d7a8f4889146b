/**
 * The append side of a session file: one open descriptor in append mode and the write lock.
 * Each call writes whole lines with one write(2) (looped only if the kernel writes less); if a
 * write fails part-way, the file is cut back to its previous length so no partial line remains.
 * Before each append one fstat(2) of the descriptor checks that the file is still linked and at the
 * length this writer left it (not the first write of a file just made: see {@link SessionWriter.create}):
 * another program may have deleted, replaced or rewritten it (a user's rm, an editor, git checkout),
 * and an entry appended then would point at parents the file no longer holds (or vanish with a
 * deleted file). A file moved away while another is made at its
 * path goes unnoticed (its old inode stays linked), as does a rewrite to the same length.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, type Stats, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { SettleError } from "../errors.js";
import { PRIVATE_FILE_MODE } from "./folders.js";
import type { SessionLock } from "./lock.js";

/**
 * A writer dropped without close() (a SessionManager never closed, a session never disposed) would
 * keep its descriptor, its lock directory and the lock's refresh timer until the process exits, and
 * the file could not be opened for writing again in this process. Once the writer is collected,
 * this closes and releases them.
 */
const abandonedWriters = new FinalizationRegistry<{ fd: number; lock: SessionLock }>(({ fd, lock }) => {
	try {
		closeSync(fd);
	} catch {
		// already closed
	}
	lock.release();
});

export class SessionWriter {
	/** Why a failed write could not be cut back (its bytes are still in the file), if so. */
	private uncut: Error | undefined;

	private constructor(
		readonly path: string,
		private readonly lock: SessionLock,
		private fd: number,
		private size: number,
		/** Device and inode of the file opened: the path must still name them. */
		private readonly identity: Pick<Stats, "dev" | "ino">,
	) {
		abandonedWriters.register(this, { fd, lock }, this);
	}

	/**
	 * Opens an existing file for appending (the caller holds `lock`, and releases it on a throw).
	 * Throws `IO` naming the file when it cannot be written (a read-only file, a read-only mount).
	 */
	static openExisting(path: string, lock: SessionLock): SessionWriter {
		let fd: number;
		try {
			fd = openSync(path, "a");
		} catch (error) {
			// Node's bare `EACCES: permission denied, open '…'` said neither that it is the session nor what to do.
			throw new SettleError(
				"IO",
				`Cannot write session file ${path}: ${(error as Error).message}. Nothing was changed. Make the file writable to continue this session, or start another one.`,
				{ cause: error, details: { path } },
			);
		}
		const stat = fstatSync(fd);
		return new SessionWriter(path, lock, fd, stat.size, stat);
	}

	/**
	 * Creates `path` (which must not exist, 0600: {@link PRIVATE_FILE_MODE}) with `text` as its whole
	 * content: one string, or pieces of whole lines written one after the other (a whole session can
	 * be longer than any one string, pi#5231). On failure nothing is left behind and the lock is
	 * released.
	 */
	static create(path: string, lock: SessionLock, text: string | Iterable<string>): SessionWriter {
		let fd: number;
		try {
			// Append mode as openExisting: after a failed write is cut back, the next one goes to the end (no hole).
			fd = openSync(path, "ax", PRIVATE_FILE_MODE);
		} catch (error) {
			lock.release();
			const exists = (error as NodeJS.ErrnoException).code === "EEXIST";
			throw new SettleError(
				"IO",
				exists
					? `Session file ${path} already exists; open it with SessionManager.open() instead of creating it.`
					: `Could not create session file ${path}: ${(error as Error).message}`,
				{ cause: error, details: { path } },
			);
		}
		const writer = new SessionWriter(path, lock, fd, 0, fstatSync(fd));
		try {
			let first = true;
			for (const piece of typeof text === "string" ? [text] : text) {
				// The first piece skips append's check of the file (one fstat): the file was made (O_EXCL) and
				// fstat'ed just above, with no await between, so a change in those microseconds is the race
				// every check leaves open before its write(2). Every later piece and append checks.
				if (first) writer.write(piece);
				else writer.append(piece);
				first = false;
			}
		} catch (error) {
			writer.close();
			try {
				unlinkSync(path);
			} catch {
				// nothing more to clean up
			}
			throw error;
		}
		return writer;
	}

	/**
	 * Appends whole lines. Throws `SESSION_LOCKED` if the lock was lost, `IO` if the write failed (file
	 * unchanged) or if another program deleted, replaced or changed the file (nothing written).
	 */
	append(text: string): void {
		const changed = this.changedFileError();
		// A deleted file (or folder) took the lock with it: say what happened to the file.
		if (changed?.details?.reason === "deleted") throw changed;
		if (this.lock.compromised) {
			throw new SettleError(
				"SESSION_LOCKED",
				`Lost the write lock on ${this.path} (${this.lock.compromised.message}); another writer may have taken over. ` +
					"Nothing was written. Open the session again to continue.",
				{ cause: this.lock.compromised, details: { path: this.path } },
			);
		}
		if (changed) throw changed;
		this.write(text);
	}

	/** Writes whole lines at the end, unchecked (see {@link append}); a failed write is cut back. */
	private write(text: string): void {
		const length = Buffer.byteLength(text, "utf8");
		try {
			// The string goes to write(2) as it is (no Buffer per line); a short write, which a regular
			// file practically never makes, finishes from a Buffer of the rest.
			let written = writeSync(this.fd, text);
			if (written < length) {
				const bytes = Buffer.from(text, "utf8");
				while (written < length) written += writeSync(this.fd, bytes, written, length - written);
			}
		} catch (error) {
			try {
				ftruncateSync(this.fd, this.size);
			} catch (cutError) {
				// Bytes of the failed write stayed (a device that took none has nothing to cut): the next
				// append must not blame another program for them.
				let left = true;
				try {
					left = fstatSync(this.fd).size !== this.size;
				} catch {
					// unknown: say it may have
				}
				if (left) this.uncut = cutError as Error;
			}
			const code = (error as NodeJS.ErrnoException).code;
			const full = code === "ENOSPC" || code === "EDQUOT" || code === "EFBIG";
			throw new SettleError(
				"IO",
				`Could not append to session file ${this.path}: ${(error as Error).message}. The entry was not added; ` +
					(this.uncut
						? `cutting its partly written line back failed too (${this.uncut.message}), so the file ends in part of it. ` +
							"Reopen the file to continue: opening sets the partial line aside and keeps every entry before it."
						: "the file holds the session up to the last entry saved. " +
							(full
								? "Free disk space (or raise the file size limit: ulimit -f), then go on: this session appends again, or reopen the file to continue from what it holds."
								: "Fix what the error names, then go on, or reopen the file to continue from what it holds.")),
				{
					cause: error,
					details: { path: this.path, ...(code ? { errno: code } : {}), ...(this.uncut ? { uncut: true } : {}) },
				},
			);
		}
		this.size += length;
	}

	/**
	 * An `IO` error (the append writes nothing) when the path no longer names the file this writer holds at the
	 * length it wrote: one fstat(2) per append (cheaper than a stat of the path, measured: no path
	 * lookup), whatever the session's length; the path is looked at only to say what happened. Nothing goes to the
	 * old file (a deleted or replaced file would take the entry out of sight) nor to the new
	 * content (the entry's parents are not in it); the entries stay in memory.
	 */
	private changedFileError(): SettleError | undefined {
		const held = fstatSync(this.fd);
		if (held.nlink > 0 && held.size === this.size) return undefined;
		const stat = statSync(this.path, { throwIfNoEntry: false });
		const same = stat !== undefined && stat.ino === this.identity.ino && stat.dev === this.identity.dev;
		if (same && stat.size === this.size) return undefined;
		if (same && this.uncut) {
			return new SettleError(
				"IO",
				`Session file ${this.path} ends in part of an entry Settle failed to write (${stat.size} bytes, ${this.size} saved): ` +
					`cutting it back failed (${this.uncut.message}). Nothing more is written to it, so that no entry follows the partial line: ` +
					"the entry was not added. Reopen the file to continue: opening sets the partial line aside and keeps every entry before it " +
					"(or SessionManager.createBranchedSession(leafId) saves the conversation in memory to a new file).",
				{ cause: this.uncut, details: { path: this.path, reason: "uncut" } },
			);
		}
		const folder = dirname(this.path);
		const reason = !stat ? "deleted" : same ? "changed" : "replaced";
		const what = !stat
			? statSync(folder, { throwIfNoEntry: false })
				? "was deleted"
				: `was deleted with its folder ${folder}`
			: !same
				? "was replaced by another file"
				: stat.size < this.size
					? `was cut to ${stat.size} bytes (from ${this.size})`
					: `was written to by another program (${stat.size} bytes, ${this.size} expected)`;
		return new SettleError(
			"IO",
			`Session file ${this.path} ${what} while this session was open (rm, an editor, git checkout?). ` +
				"Nothing more is written to it, so that no entry points at entries the file no longer holds: the entry was not added. " +
				"The conversation so far is still in memory (SessionManager.createBranchedSession(leafId) saves it to a new file); " +
				"or reopen the file to continue from what it holds now, or start a new session.",
			{ details: { path: this.path, reason } },
		);
	}

	/** Closes the descriptor and releases the lock. Must not throw. */
	close(): void {
		abandonedWriters.unregister(this);
		if (this.fd >= 0) {
			try {
				closeSync(this.fd);
			} catch {
				// already closed
			}
			this.fd = -1;
		}
		this.lock.release();
	}
}
