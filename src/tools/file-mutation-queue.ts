/**
 * Per-file serialization of mutations. Two tool calls of one parallel batch that edit the same file
 * would otherwise both read the old content and the second write would drop the first edit. `read`
 * takes its turn too, so it sees the file as the calls before it left it.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

const tails = new Map<string, Promise<void>>();

/**
 * The file's canonical path: symlinks and `a/../b` spellings of one file share a queue. A file not
 * created yet is keyed by its nearest existing folder's real path plus the missing names, so
 * `alias/new.txt` (alias → target) and `target/new.txt` share one too, before and after the
 * first of them creates it (pi#9389, pi#7041).
 */
function queueKey(filePath: string): string {
	const absolute = resolve(filePath);
	const missing: string[] = [];
	for (let existing = absolute; ; existing = dirname(existing)) {
		try {
			return join(realpathSync.native(existing), ...missing);
		} catch {
			if (dirname(existing) === existing) return absolute;
			missing.unshift(basename(existing));
		}
	}
}

/**
 * Runs `mutation` after every earlier mutation of the same file has finished; mutations of
 * different files run concurrently. The slot is held until `mutation` settles, even if the caller
 * stopped waiting for it (abort), so the next writer never overlaps a write still in flight.
 *
 * @example
 * ```ts
 * import { writeFile } from "node:fs/promises";
 *
 * await withFileMutationQueue(`${cwd}/a.ts`, async () => writeFile(`${cwd}/a.ts`, "export {};\n"));
 * ```
 */
export async function withFileMutationQueue<T>(filePath: string, mutation: () => Promise<T>): Promise<T> {
	const key = queueKey(filePath);
	const previous = tails.get(key) ?? Promise.resolve();
	let release!: () => void;
	const done = new Promise<void>((r) => {
		release = r;
	});
	const tail = previous.then(() => done);
	tails.set(key, tail);
	try {
		await previous;
		return await mutation();
	} finally {
		release();
		if (tails.get(key) === tail) tails.delete(key);
	}
}
