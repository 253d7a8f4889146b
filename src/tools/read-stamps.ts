/**
 * What one session's file tools know of the files the model saw: their size and modification time
 * when `read` returned them (or `write` / `edit` last changed them), so a `write` over a file that
 * changed on disk since is refused instead of silently dropping that change (qwen-code#3839).
 */

import { realpath, stat } from "node:fs/promises";
import { SettleError } from "../errors.js";
import { loadCrypto } from "../lazy-deps.js";
import { readFileChunks } from "./read-window.js";

/**
 * A file modified less than this before its stamp was taken may change again within the same tick
 * of the file system's clock (up to 2 s on FAT, plus clock skew on a network file system) and keep
 * its size and time: such a stamp also keeps a digest of the content (git's "racily clean" files).
 */
const SAME_TICK_WINDOW_NS = 10_000_000_000n;

/** Largest file whose content is digested; a larger one is compared by size and time only. */
const DIGEST_MAX_BYTES = 16n * 1024n * 1024n;

interface Stamp {
	size: bigint;
	mtimeNs: bigint;
	/** Digest of the content, for a file modified within {@link SAME_TICK_WINDOW_NS} of the stamp. */
	digest?: string;
}

async function digestOf(path: string): Promise<string | undefined> {
	try {
		const hash = loadCrypto().createHash("sha256");
		for await (const chunk of readFileChunks(path)) hash.update(chunk);
		return hash.digest("hex");
	} catch {
		return undefined; // unreadable now: nothing to compare with
	}
}

async function currentStamp(absolutePath: string): Promise<{ key: string; stamp: Stamp } | undefined> {
	try {
		const key = await realpath(absolutePath);
		const stats = await stat(key, { bigint: true });
		return { key, stamp: { size: stats.size, mtimeNs: stats.mtimeNs } };
	} catch {
		return undefined; // missing or unreachable: nothing to compare with
	}
}

/**
 * Per-session record of the files the model has seen, keyed by real path (a link and its target
 * are one file). {@link createAllToolDefinitions} gives its `read`, `edit` and `write` one record;
 * a tool made alone gets none and writes without the check. Files are compared by size and
 * modification time (nanoseconds); one modified within 10 s before it was seen (so possibly again
 * within the same tick of the file system's clock, to the same size) is also compared by content,
 * when up to 16 MB.
 *
 * @example
 * ```ts
 * const stamps = new FileReadStamps();
 * const tools = createAllToolDefinitions(cwd, { read: { readStamps: stamps }, write: { readStamps: stamps } });
 * ```
 */
export class FileReadStamps {
	private readonly stamps = new Map<string, Stamp>();

	/** Remembers `absolutePath` as the model now knows it (after a read, or a write of its own). */
	async record(absolutePath: string): Promise<void> {
		const current = await currentStamp(absolutePath);
		if (current === undefined) return;
		const { stamp } = current;
		const now = BigInt(Date.now()) * 1_000_000n;
		if (stamp.mtimeNs > now - SAME_TICK_WINDOW_NS && stamp.size <= DIGEST_MAX_BYTES) {
			stamp.digest = await digestOf(current.key);
		}
		this.stamps.set(current.key, stamp);
	}

	/**
	 * Whether `absolutePath` was seen and has changed since (size, modification time, or content
	 * when digested); false for a file never seen, or missing now.
	 */
	async changedSince(absolutePath: string): Promise<boolean> {
		const current = await currentStamp(absolutePath);
		if (current === undefined) return false;
		const seen = this.stamps.get(current.key);
		if (seen === undefined) return false;
		if (seen.size !== current.stamp.size || seen.mtimeNs !== current.stamp.mtimeNs) return true;
		// Same size and time: only a stamp taken within a tick of a change can still miss one.
		if (seen.digest === undefined) return false;
		const digest = await digestOf(current.key);
		return digest !== undefined && digest !== seen.digest;
	}

	/**
	 * Rejects with `INVALID_ARGUMENT` when `absolutePath` was seen and has changed since (size,
	 * modification time, or content when digested); a file never seen, or missing now, passes.
	 */
	async refuseIfChanged(absolutePath: string, path: string): Promise<void> {
		if (!(await this.changedSince(absolutePath))) return;
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Cannot write ${path}: the file has been modified since you last read it (by the user, a formatter or another program). Nothing was written. Read it again, then write your change on top of its current content.`,
		);
	}
}
