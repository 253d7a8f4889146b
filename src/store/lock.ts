/**
 * One writer per session file. The lock is a `<file>.lock` directory managed by proper-lockfile
 * (atomic mkdir, mtime refreshed while held, stale after {@link LOCK_STALE_MS} without refresh,
 * removed on close and on process exit). Inside it an `owner.json` names the holder, so a lock
 * left by a process that died on this machine (SIGKILL, crash) is recognised at once instead of
 * after the stale timeout.
 *
 * A lock can be lost while held: a process stalled past the stale timeout (a blocked event loop, a
 * suspended process) finds that another writer removed its directory and made its own. The holder
 * keeps its lock directory open, so `compromised` notices at once — the directory it holds has no
 * name any more (one fstat, no path lookup) — not only when proper-lockfile's refresh timer next
 * runs; and releasing a lost lock, or exiting, never removes the new holder's directory.
 *
 * That fstat is done only when the lock could have been taken over: a writer that follows the lock
 * protocol (Settle, pi, anything on proper-lockfile) takes it over only once its mtime is older than
 * the stale timeout, and the mtime is the one our last refresh wrote, which is recorded. While that
 * refresh is younger than the stale timeout less a quarter (7.5 s of 10 s; the quarter covers a
 * file system that keeps mtimes to 2 s, and clocks of machines sharing the folder a little apart),
 * no such writer can have taken the lock, and an append checks nothing: what an fstat per append
 * cost (1–2 µs, two or three appends a turn) is gone from the normal case, where the refresh timer
 * keeps the lock at most 5 s old. Given up: a writer that breaks the protocol and removes a lock
 * still fresh (`rm -rf` of the lock directory, a hand-made takeover), or one on a machine whose
 * clock runs more than 2.5 s ahead, is noticed only by the refresh timer (within 5 s: its stat
 * finds the directory gone or not ours), as before the per-append check was added; meanwhile
 * appends go on.
 */
import * as fs from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { LockOptions } from "proper-lockfile";
import { SettleError } from "../errors.js";
import { loadCrypto, loadLockfile } from "../lazy-deps.js";

/** A lock not refreshed for this long is stale (its holder hung or died on another machine). */
export const LOCK_STALE_MS = 10_000;
const OWNER_FILE = "owner.json";

/**
 * The stale timeout this process uses: {@link LOCK_STALE_MS}, or for tests a shorter one from
 * `SETTLE_TEST_LOCK_STALE_MS` (read once, when this module loads; whole milliseconds from 2000,
 * proper-lockfile's floor, to LOCK_STALE_MS, else ignored), so that a test can stall a holder past
 * it in seconds. Only for tests: a process with a shorter timeout than the holder's takes over a
 * lock that its holder still refreshes.
 */
const STALE_MS = staleTimeout(process.env.SETTLE_TEST_LOCK_STALE_MS);
/** Appends check the held directory only once our last refresh of the lock is this old (see the module comment). */
const CHECK_AFTER_MS = STALE_MS - STALE_MS / 4;

function staleTimeout(fromEnv: string | undefined): number {
	const ms = Number(fromEnv);
	return fromEnv && Number.isInteger(ms) && ms >= 2000 && ms <= LOCK_STALE_MS ? ms : LOCK_STALE_MS;
}

interface LockOwner {
	pid: number;
	hostname: string;
	acquiredAt: string;
	token: string;
}

/** A held write lock on a session file. */
export interface SessionLock {
	readonly file: string;
	readonly lockPath: string;
	/**
	 * Set when the lock was lost while held (for example taken over as stale after a long stall).
	 * Reading it costs an fstat only once the lock could have been taken over (see the module comment).
	 */
	readonly compromised: Error | undefined;
	/** Releases the lock; safe to call twice. Must not throw. */
	release(): void;
}

/** What {@link lockFs} tells the lock it makes about its directory. */
interface LockDirectoryEvents {
	/** Our directory was made and is open as `fd` (not called when it cannot be opened). */
	opened(fd: number): void;
	/** Our directory's mtime was set to `mtimeMs`: other writers see the lock that fresh. */
	refreshed(mtimeMs: number): void;
}

/**
 * fs for proper-lockfile: the lock directory is created with its owner file and removed with it,
 * kept open once made, and each mtime written to it (on taking the lock, and by every refresh) is
 * reported. Only the methods proper-lockfile 4's sync API calls (it wraps `mkdir`, `realpath`,
 * `stat`, `rmdir` and `utimes` around their `…Sync` forms, and calls `rmdirSync` on exit): it
 * copies this object on every lock, and a copy of all of `fs` costs more than the rest of taking
 * the lock.
 */
function lockFs(owner: LockOwner, events: LockDirectoryEvents) {
	const ownerJson = JSON.stringify(owner);
	// Once our directory exists, a directory at the path that does not name us is not ours to remove
	// (we lost the lock to it: another Settle, or pi, whose lock has no owner file); before, removing
	// one is proper-lockfile taking a stale lock over.
	let made = false;
	let dir = -1;
	return {
		mkdirSync(path: fs.PathLike, options?: fs.MakeDirectoryOptions) {
			const result = fs.mkdirSync(path, options);
			made = true;
			try {
				dir = fs.openSync(path, "r");
				events.opened(dir);
			} catch {
				// a file system that refuses to open directories: only the refresh timer notices a takeover
			}
			try {
				fs.writeFileSync(join(String(path), OWNER_FILE), ownerJson);
			} catch {
				// Without an owner file the lock still works; it is only cleared by the stale timeout (and not by release: it does not name us).
			}
			return result;
		},
		utimesSync(path: fs.PathLike, atime: fs.TimeLike, mtime: fs.TimeLike) {
			fs.utimesSync(path, atime, mtime);
			// Recorded only while the path still names the directory we made: after a takeover between
			// proper-lockfile's stat and this call, the mtime just written is the other writer's.
			// (proper-lockfile passes Dates; any other time is not recorded.)
			try {
				if (mtime instanceof Date && dir >= 0 && fs.fstatSync(dir).nlink > 0) events.refreshed(mtime.getTime());
			} catch {
				// not recorded: appends keep checking
			}
		},
		rmdirSync(path: fs.PathLike) {
			if (made && readOwner(String(path))?.token !== owner.token) return;
			try {
				fs.unlinkSync(join(String(path), OWNER_FILE));
				fs.rmdirSync(path);
			} catch {
				// Not only the owner file inside (or none): remove whatever is there.
				fs.rmSync(path, { recursive: true, force: true });
			}
		},
		statSync: fs.statSync,
		realpathSync: fs.realpathSync,
	};
}

function readOwner(lockPath: string): LockOwner | undefined {
	try {
		const owner = JSON.parse(fs.readFileSync(join(lockPath, OWNER_FILE), "utf8")) as Partial<LockOwner>;
		if (typeof owner.pid === "number" && typeof owner.hostname === "string" && typeof owner.token === "string") {
			return owner as LockOwner;
		}
	} catch {
		// missing or half-written owner file: unknown holder
	}
	return undefined;
}

/** False only when `pid` certainly does not run (or is a zombie waiting to be reaped). */
function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
	try {
		// Linux: a killed child stays a zombie ("Z") until its parent reaps it.
		const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
		const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
		return state !== "Z" && state !== "X";
	} catch {
		return true;
	}
}

/**
 * Removes a lock whose holder is dead. The directory is first renamed (atomic, so only one
 * contender wins) and its owner checked again: if a live holder replaced the dead one in between,
 * it is put back untouched.
 */
function removeAbandonedLock(lockPath: string, dead: LockOwner): boolean {
	const tomb = `${lockPath}.abandoned-${loadCrypto().randomUUID().slice(0, 8)}`;
	try {
		fs.renameSync(lockPath, tomb);
	} catch {
		return false;
	}
	const owner = readOwner(tomb);
	if (owner?.token === dead.token) {
		fs.rmSync(tomb, { recursive: true, force: true });
		return true;
	}
	try {
		fs.renameSync(tomb, lockPath);
	} catch {
		fs.rmSync(tomb, { recursive: true, force: true });
	}
	return false;
}

function lockedError(file: string, lockPath: string, holder: LockOwner | undefined): SettleError {
	const inThisProcess = holder !== undefined && holder.pid === process.pid && holder.hostname === hostname();
	const who = !holder
		? "another writer"
		: inThisProcess
			? "another SessionManager in this process"
			: `process ${holder.pid} on ${holder.hostname}`;
	// The usual in-process cause: session.dispose() leaves open a manager the host passed in.
	const ownManager = inThisProcess
		? " (session.dispose() does not close a SessionManager you gave the session: call session.sessionManager.close())"
		: "";
	return new SettleError(
		"SESSION_LOCKED",
		`Session file ${file} is already open for writing by ${who}. Only one SessionManager may write a session: ` +
			`close the other one (manager.close())${ownManager} or let that process exit, then open the file again; ` +
			`to only read it, open it with { readOnly: true }. ` +
			`A lock left by a crashed process on this machine is cleared automatically; ` +
			`otherwise it expires ${STALE_MS / 1000}s after its holder stopped (lock: ${lockPath}).`,
		{ details: { file, lockPath, holderPid: holder?.pid, holderHost: holder?.hostname } },
	);
}

/**
 * The live process that holds `file`'s write lock, or undefined when none does: no lock, a lock
 * left by a process that died on this machine, or one not refreshed for the stale timeout. A fresh
 * lock naming no owner (its owner file not written yet, or a writer that writes none) is held by an
 * unknown writer: `{}`, refused all the same. Only reads (a stat and the owner file), so a session
 * list can say which sessions are open elsewhere before one is picked (claude-code#87902).
 *
 * @example
 * ```ts
 * sessionLockHolder(sessionManager.getSessionFile()!)?.pid; // this process's pid while it writes the file
 * ```
 */
export function sessionLockHolder(file: string): { pid?: number; hostname?: string } | undefined {
	const lockPath = `${file}.lock`;
	// Most listed sessions have no lock: no ENOENT error built for each (~1.5 µs instead of ~5–9).
	let mtimeMs: number | undefined;
	try {
		mtimeMs = fs.statSync(lockPath, { throwIfNoEntry: false })?.mtimeMs;
	} catch {
		return undefined;
	}
	if (mtimeMs === undefined || Date.now() - mtimeMs > STALE_MS) return undefined;
	const owner = readOwner(lockPath);
	if (!owner) return {};
	if (owner.hostname === hostname() && !processAlive(owner.pid)) return undefined;
	return { pid: owner.pid, hostname: owner.hostname };
}

/**
 * Takes the write lock on `file` (which need not exist yet). Throws `SESSION_LOCKED` when another
 * live writer holds it, `IO` when the lock directory cannot be created.
 *
 * @example
 * ```ts
 * import { appendFileSync } from "node:fs";
 *
 * const file = sessionManager.getSessionFile()!;
 * const lock = acquireSessionLock(file);
 * try { appendFileSync(file, '{"type":"label"}\n'); } finally { lock.release(); }
 * ```
 */
export function acquireSessionLock(file: string): SessionLock {
	const lockPath = `${file}.lock`;
	const owner: LockOwner = {
		pid: process.pid,
		hostname: hostname(),
		acquiredAt: new Date().toISOString(),
		token: loadCrypto().randomUUID(),
	};
	let compromised: Error | undefined;
	// The directory we hold, open: removed (taken over, deleted) it has no links left. Without it
	// (a file system that refuses to open directories) the refresh timer still notices, later.
	let held = -1;
	// The mtime our lock last got from us (taking it, refreshing it): what another writer's stale check reads.
	let refreshedAt = Number.NEGATIVE_INFINITY;
	const options: LockOptions = {
		realpath: false,
		stale: STALE_MS,
		lockfilePath: lockPath,
		fs: lockFs(owner, {
			opened(fd) {
				held = fd;
			},
			refreshed(mtimeMs) {
				refreshedAt = mtimeMs;
			},
		}),
		onCompromised: (error) => {
			compromised = error;
		},
	};
	const tryLock = (): (() => void) | undefined => {
		try {
			return loadLockfile().lockSync(file, options);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ELOCKED") return undefined;
			throw new SettleError("IO", `Could not lock session file ${file}: ${(error as Error).message}`, {
				cause: error,
			});
		}
	};
	let unlock: (() => void) | undefined;
	try {
		unlock = tryLock();
		if (!unlock) {
			const holder = readOwner(lockPath);
			if (holder && holder.hostname === hostname() && !processAlive(holder.pid)) {
				if (removeAbandonedLock(lockPath, holder)) unlock = tryLock();
			}
			if (!unlock) throw lockedError(file, lockPath, readOwner(lockPath) ?? holder);
		}
	} catch (error) {
		// proper-lockfile made the directory, then failed (and removed it): do not keep it open.
		if (held >= 0) fs.closeSync(held);
		throw error;
	}
	const unlockHeld = unlock;
	let released = false;
	return {
		file,
		lockPath,
		get compromised() {
			// Checked only when a writer keeping to the protocol could have taken the lock (module comment).
			if (compromised === undefined && held >= 0 && !released && Date.now() - refreshedAt >= CHECK_AFTER_MS) {
				try {
					if (fs.fstatSync(held).nlink === 0) compromised = lostLockError(lockPath);
				} catch {
					// cannot tell: the refresh timer decides
				}
			}
			return compromised;
		},
		release() {
			if (released) return;
			released = true;
			if (held >= 0) {
				try {
					fs.closeSync(held);
				} catch {
					// already closed
				}
			}
			try {
				unlockHeld();
			} catch {
				// already released or taken over: nothing left to undo
			}
		},
	};
}

/** Why a held lock is lost: its directory was removed; who holds the path now, when known. */
function lostLockError(lockPath: string): Error {
	const holder = readOwner(lockPath);
	const now = !holder
		? "no writer holds it now"
		: holder.pid === process.pid && holder.hostname === hostname()
			? "another SessionManager in this process holds it now"
			: `process ${holder.pid} on ${holder.hostname} holds it now`;
	return Object.assign(new Error(`the lock directory was removed, ${now}`), { code: "ECOMPROMISED" });
}
