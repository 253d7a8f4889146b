/**
 * Per-file serialization of mutations. Two tool calls of one parallel batch that edit the same file
 * would otherwise both read the old content and the second write would drop the first edit.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

const tails = new Map<string, Promise<void>>();

function queueKey(filePath: string): string {
	const absolute = resolve(filePath);
	try {
		// Symlinks and `a/../b` spellings of one file share a queue.
		return realpathSync.native(absolute);
	} catch {
		return absolute;
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
