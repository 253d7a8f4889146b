/**
 * Small, careful JSON file helpers shared by the settings and trust stores: read without
 * throwing, update under a cross-process lock, write atomically (temp file + rename), and never
 * overwrite a file that could not be parsed.
 */
import {
	chmodSync,
	closeSync,
	existsSync,
	fsyncSync,
	lstatSync,
	openSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	renameSync,
	rmSync,
	statSync,
	writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import { loadLockfile } from "../lazy-deps.js";
import { makeFolders } from "../store/folders.js";
import { decodeText } from "../tools/text-encoding.js";

/** Outcome of reading a JSON object file. */
export type JsonObjectRead =
	| { status: "missing" }
	| { status: "ok"; value: Record<string, unknown> }
	/** Unparsable JSON, or JSON that is not an object. `reason` is a sentence fragment. */
	| { status: "malformed"; reason: string }
	| { status: "unreadable"; reason: string };

/**
 * Reads a JSON object file. Must not throw. A blank file reads as `{}`. `prepare` turns the text into
 * JSON first (e.g. strips comments).
 */
export function readJsonObjectFile(path: string, prepare: (text: string) => string = (text) => text): JsonObjectRead {
	let text: string;
	try {
		if (!existsSync(path)) return { status: "missing" };
		// Windows PowerShell 5.1's `>` writes UTF-16: read as UTF-8 it failed with "Unexpected token '�'".
		text = decodeText(readFileSync(path)).text;
	} catch (error) {
		return { status: "unreadable", reason: errorMessage(error) };
	}
	return parseJsonObject(prepare(text));
}

/** Parses JSON text that must hold an object. Must not throw. */
export function parseJsonObject(text: string): JsonObjectRead {
	if (text.trim() === "") return { status: "ok", value: {} };
	let value: unknown;
	try {
		value = JSON.parse(stripBom(text));
	} catch (error) {
		return { status: "malformed", reason: describeJsonError(text, error) };
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		const kind = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
		return { status: "malformed", reason: `it holds ${kind}, not a JSON object` };
	}
	return { status: "ok", value: value as Record<string, unknown> };
}

/**
 * Read-modify-write of a JSON object file under a lock, written atomically. `mutate` changes the
 * object in place. Refuses (throws `SettleError` INVALID_SETTINGS, file untouched) when the file
 * exists but is not a parsable JSON object; throws `SettleError` IO when it cannot be written.
 */
export function updateJsonObjectFile(
	path: string,
	mutate: (current: Record<string, unknown>) => void,
	describe: { what: string; fileLabel?: string },
): void {
	try {
		makeFolders(dirname(path));
	} catch (error) {
		throw new SettleError(
			"IO",
			`Cannot save ${describe.what}: cannot create ${dirname(path)}: ${errorMessage(error)}. Make that folder creatable, or point SETTLE_AGENT_DIR at a writable folder.`,
			{
				cause: error,
				details: { path },
			},
		);
	}
	withFileLock(path, () => {
		const current = readJsonObjectFile(path);
		if (current.status === "malformed" || current.status === "unreadable") {
			throw new SettleError(
				"INVALID_SETTINGS",
				`Cannot save ${describe.what}: ${path} could not be read (${current.reason}). Settle never overwrites a file it cannot parse; fix or delete the file, then try again.`,
				{ details: { path } },
			);
		}
		const value = current.status === "ok" ? current.value : {};
		mutate(value);
		writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
	});
}

/**
 * Writes a file by writing a temp file next to it, syncing it and renaming it over the target. A
 * symlinked file (a dotfiles manager's link) stays a link and its target gets the new text; an
 * existing file keeps its permissions unless `mode` is given (a new one gets 0644 less the umask).
 */
export function writeFileAtomic(path: string, text: string, mode?: number): void {
	const target = writeTargetOf(path);
	const keptMode = mode ?? existingMode(target);
	const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
	try {
		const fd = openSync(temp, "w", keptMode ?? 0o644);
		try {
			// A short write (a full disk, a file-size limit: openclaw#88028) must not become the file:
			// write until every byte is out, so that the next write reports ENOSPC / EFBIG instead.
			const bytes = Buffer.from(text, "utf8");
			let written = 0;
			while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		if (keptMode !== undefined) chmodSync(temp, keptMode); // exact: the umask only narrows the open() mode
		renameSync(temp, target);
	} catch (error) {
		// A folder that is not one (ENOTDIR) fails the cleanup too: the write's own error is the one to tell.
		try {
			rmSync(temp, { force: true });
		} catch {}
		throw new SettleError(
			"IO",
			`Cannot write ${path}: ${errorMessage(error)}. The file keeps its previous content; ${writeFailureHint(error)}`,
			{ cause: error, details: { path } },
		);
	}
}

/** What to do after a failed write of a file. */
function writeFailureHint(error: unknown): string {
	const code = (error as NodeJS.ErrnoException | undefined)?.code;
	return code === "ENOSPC" || code === "EFBIG" || code === "EDQUOT"
		? "free some disk space (or raise the file-size limit) and try again."
		: "make its folder writable and try again.";
}

/** The file a write to `path` replaces: a symlink's target (even a missing one), else `path`. Must not throw. */
function writeTargetOf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		// missing, or a link to a file not created yet
	}
	try {
		if (lstatSync(path).isSymbolicLink()) return resolve(dirname(path), readlinkSync(path));
	} catch {
		// nothing there: write `path` itself
	}
	return path;
}

function existingMode(path: string): number | undefined {
	try {
		return statSync(path).mode & 0o777;
	} catch {
		return undefined;
	}
}

/** proper-lockfile's stale time: a lock not refreshed for this long is a crashed process's, taken over. */
const LOCK_STALE_MS = 10_000;
/**
 * How long a save waits for another process's lock: until a crashed holder's lock is stale, plus two
 * seconds, because proper-lockfile's first lock in a process dates the lock up to a second ahead
 * (its mtime probe rounds up to the next second); with the bare stale time a save started within a
 * second of the crash gave up just before the takeover (pi#4546's test, CI). Half a second (an
 * older bound) ran out when several processes saved at once on a busy machine.
 */
const LOCK_WAIT_MS = LOCK_STALE_MS + 2_000;
const LOCK_RETRY_MS = 25;

/** Runs `fn` holding `<path>.lock` (proper-lockfile), waiting while another process holds it. */
export function withFileLock<T>(path: string, fn: () => T): T {
	let release: (() => void) | undefined;
	const deadline = Date.now() + LOCK_WAIT_MS;
	while (release === undefined) {
		try {
			release = loadLockfile().lockSync(path, { realpath: false, stale: LOCK_STALE_MS });
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code !== "ELOCKED" || Date.now() >= deadline) {
				throw new SettleError(
					"IO",
					code === "ELOCKED"
						? `Cannot lock ${path}: another process keeps it locked. Try again; if no other Settle or pi process is running, delete ${path}.lock.`
						: `Cannot lock ${path}: ${errorMessage(error)}`,
					{ cause: error, details: { path } },
				);
			}
			sleepSync(LOCK_RETRY_MS);
		}
	}
	try {
		return fn();
	} finally {
		release();
	}
}

function sleepSync(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function stripBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function describeJsonError(text: string, error: unknown): string {
	const message = errorMessage(error);
	const position = /position (\d+)/.exec(message);
	if (!position) return `invalid JSON: ${message}`;
	const offset = Number(position[1]);
	const before = text.slice(0, offset);
	const line = before.split("\n").length;
	const column = offset - before.lastIndexOf("\n");
	return `invalid JSON at line ${line}, column ${column}: ${message}`;
}
