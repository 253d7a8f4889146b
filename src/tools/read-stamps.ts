/**
 * What one session's file tools know of the files the model saw: their size and modification time
 * when `read` returned them (or `write` / `edit` last changed them), so a `write` over a file that
 * changed on disk since is refused instead of silently dropping that change (qwen-code#3839).
 */
import { realpath, stat } from "node:fs/promises";
import { SettleError } from "../errors.js";

interface Stamp {
	size: number;
	mtimeMs: number;
}

async function currentStamp(absolutePath: string): Promise<{ key: string; stamp: Stamp } | undefined> {
	try {
		const key = await realpath(absolutePath);
		const stats = await stat(key);
		return { key, stamp: { size: stats.size, mtimeMs: stats.mtimeMs } };
	} catch {
		return undefined; // missing or unreachable: nothing to compare with
	}
}

/**
 * Per-session record of the files the model has seen, keyed by real path (a link and its target
 * are one file). {@link createAllToolDefinitions} gives its `read`, `edit` and `write` one record;
 * a tool made alone gets none and writes without the check. A file changed within one tick of the
 * file system's clock and to the same size is not noticed.
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
		if (current !== undefined) this.stamps.set(current.key, current.stamp);
	}

	/**
	 * Rejects with `INVALID_ARGUMENT` when `absolutePath` was seen and has changed since (size or
	 * modification time); a file never seen, or missing now, passes.
	 */
	async refuseIfChanged(absolutePath: string, path: string): Promise<void> {
		const current = await currentStamp(absolutePath);
		if (current === undefined) return;
		const seen = this.stamps.get(current.key);
		if (seen === undefined) return;
		if (seen.size === current.stamp.size && seen.mtimeMs === current.stamp.mtimeMs) return;
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Cannot write ${path}: the file has been modified since you last read it (by the user, a formatter or another program). Nothing was written. Read it again, then write your change on top of its current content.`,
		);
	}
}
