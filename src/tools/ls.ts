/** The `ls` tool: one folder's entries, sorted case-insensitively, `/` after folders, dotfiles included. */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { SettleError } from "../errors.js";
import { Type } from "../schema/typebox.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import { resolveReadPath } from "./paths.js";
import { counted, DEFAULT_MAX_BYTES, listingResult, type TruncationResult } from "./truncate.js";
import type { ToolDefinition } from "./types.js";

const lsSchema = Type.Object({
	path: Type.Optional(Type.String({ description: "Directory to list (default: current directory)" })),
	limit: Type.Optional(Type.Number({ description: "Maximum number of entries to return (default: 500)" })),
});
/** Arguments of the `ls` tool: a folder and an entry limit. */
export type LsToolInput = Static<typeof lsSchema>;

/** `details` of an `ls` tool result. */
export interface LsToolDetails {
	truncation?: TruncationResult;
	/** The entry limit, when the folder had more entries than were returned. */
	entryLimitReached?: number;
}

/** Pluggable file access (for example over SSH). Same shape as pi's `LsOperations`. */
export interface LsOperations {
	exists: (absolutePath: string) => Promise<boolean> | boolean;
	stat: (absolutePath: string) => Promise<{ isDirectory(): boolean }> | { isDirectory(): boolean };
	readdir: (absolutePath: string) => Promise<string[]> | string[];
}

/** Options of {@link createLsToolDefinition}: file access (default: the local disk). */
export interface LsToolOptions {
	operations?: LsOperations;
}

/** Most entries `ls` returns when the call gives no limit. */
export const DEFAULT_LS_LIMIT = 500;

const defaultOperations: LsOperations = {
	exists: async (path) => {
		try {
			await stat(path);
			return true;
		} catch {
			return false;
		}
	},
	stat: (path) => stat(path),
	readdir: (path) => readdir(path),
};

/**
 * Creates the `ls` tool for a working directory.
 *
 * @example
 * ```ts
 * const ls = createLsToolDefinition(cwd);
 * await ls.execute("call-1", { path: "src" }, undefined, undefined, undefined);
 * ```
 */
export function createLsToolDefinition(
	cwd: string,
	options: LsToolOptions = {},
): ToolDefinition<typeof lsSchema, LsToolDetails | undefined> {
	const ops = options.operations ?? defaultOperations;
	return {
		name: "ls",
		label: "ls",
		description: `List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to ${DEFAULT_LS_LIMIT} entries or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first).`,
		promptSnippet: "List a folder's entries (folders end with /)",
		parameters: lsSchema,
		async execute(_toolCallId, { path, limit }, signal) {
			throwIfAborted(signal);
			const work = async () => {
				// As read's path: a folder named in the other Unicode normalization is found (aside-codemode#30).
				const dirPath = resolveReadPath(path || ".", cwd);
				const max = Math.max(1, Math.floor(limit ?? DEFAULT_LS_LIMIT));
				if (!(await ops.exists(dirPath))) throw new SettleError("NOT_FOUND", `Path not found: ${dirPath}`);
				if (!(await ops.stat(dirPath)).isDirectory()) {
					throw new SettleError("INVALID_ARGUMENT", `Not a directory: ${dirPath}. Use read to see a file.`);
				}
				let names: string[];
				try {
					names = [...(await ops.readdir(dirPath))];
				} catch (error) {
					throw new SettleError("IO", `Cannot read directory: ${error instanceof Error ? error.message : error}`);
				}
				names.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
				const entries: string[] = [];
				let more = false;
				for (const name of names) {
					throwIfAborted(signal);
					if (entries.length >= max) {
						more = true;
						break;
					}
					let isDirectory = false;
					try {
						isDirectory = (await ops.stat(join(dirPath, name))).isDirectory();
					} catch {
						// A dangling symlink (or an entry in a folder that can be read but not searched): the
						// stat only decides the `/`; the entry is still there and is listed (pi#7977: pi dropped
						// it, and called a folder of such entries "(empty directory)").
					}
					entries.push(isDirectory ? `${name}/` : name);
				}
				if (entries.length === 0) {
					return { content: [{ type: "text" as const, text: "(empty directory)" }], details: undefined };
				}
				return listingResult<LsToolDetails>(
					entries,
					more
						? [
								{
									text: `${counted(max, "entry", "entries")} limit reached. Use limit=${max * 2} for more`,
									details: { entryLimitReached: max },
								},
							]
						: [],
				);
			};
			return raceAbort(work(), signal);
		},
	};
}
