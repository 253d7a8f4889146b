/** The `write` tool: creates or overwrites a file, creating parent folders. */
import { lstat, readlink, realpath } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Static } from "@sinclair/typebox";
import { errorMessage, SettleError } from "../errors.js";
import { Type } from "../schema/typebox.js";
import { makeFoldersAsync } from "../store/folders.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { fileSystemError, refuseSpecialFile } from "./fs-errors.js";
import { resolveToCwd } from "./paths.js";
import type { FileReadStamps } from "./read-stamps.js";
import { replaceFileContent } from "./replace-file.js";
import type { ToolDefinition } from "./types.js";

const writeSchema = Type.Object({
	path: Type.String({ description: "Path to the file to write (relative or absolute)" }),
	content: Type.String({ description: "Content to write to the file" }),
});
/** Arguments of the `write` tool: a path and the full content. */
export type WriteToolInput = Static<typeof writeSchema>;

/** Pluggable file access (for example over SSH). Same shape as pi's `WriteOperations`. */
export interface WriteOperations {
	writeFile: (absolutePath: string, content: string) => Promise<void>;
	/** Creates a folder and its parents. */
	mkdir: (dir: string) => Promise<void>;
}

/** Options of {@link createWriteToolDefinition}: file access (default: the local disk). */
export interface WriteToolOptions {
	operations?: WriteOperations;
	/**
	 * The session's record of files seen: a write over a file that changed on disk since the model
	 * read it is refused (see {@link FileReadStamps}). Without it every write goes through.
	 */
	readStamps?: FileReadStamps;
}

/** Symbolic links followed at most, like the kernel's own limit (ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * The missing file a dangling symbolic link at `path` leads to (following a chain of links), or
 * undefined when `path` is not a link.
 */
async function danglingLinkTarget(path: string): Promise<string | undefined> {
	let current = path;
	for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
		let isLink: boolean;
		try {
			isLink = (await lstat(current)).isSymbolicLink();
		} catch {
			return current === path ? undefined : current;
		}
		if (!isLink) return current === path ? undefined : current;
		current = resolve(dirname(current), await readlink(current));
	}
	return undefined;
}

/**
 * Writes through symbolic links (the link stays, its target changes), replacing the target
 * atomically. A dangling link whose target folder is missing gets that folder made, as a plain
 * path gets its own (claude-code#28376).
 */
async function writeThroughLinks(path: string, content: string): Promise<void> {
	await refuseSpecialFile(path, "write");
	let target: string;
	try {
		target = await realpath(path);
	} catch (error) {
		if ((error as { code?: unknown } | null)?.code !== "ENOENT") throw error;
		const dangling = await danglingLinkTarget(path);
		if (dangling !== undefined) await makeFoldersAsync(dirname(dangling));
		target = dangling ?? path;
	}
	await replaceFileContent(target, content);
}

const defaultOperations: WriteOperations = {
	writeFile: writeThroughLinks,
	mkdir: async (dir) => {
		await makeFoldersAsync(dir);
	},
};

/**
 * Rejects a path ending in `/`: it names a folder, and resolving it would drop the slash and write a
 * file with the folder's name (pi does).
 */
function refuseFolderPath(path: string): void {
	if (!path.endsWith("/")) return;
	throw new SettleError(
		"INVALID_ARGUMENT",
		`Cannot write ${path}: the path ends with "/", so it names a folder, not a file. Nothing was written. Pass the path of a file inside it (for example ${path}README.md); write creates missing folders itself.`,
	);
}

/**
 * Creates the `write` tool for a working directory.
 *
 * @example
 * ```ts
 * const write = createWriteToolDefinition(cwd);
 * await write.execute("call-1", { path: "docs/new.md", content: "# New\n" }, undefined, undefined, undefined);
 * ```
 */
export function createWriteToolDefinition(
	cwd: string,
	options: WriteToolOptions = {},
): ToolDefinition<typeof writeSchema, undefined> {
	const ops = options.operations ?? defaultOperations;
	return {
		name: "write",
		label: "write",
		description:
			"Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
		promptSnippet: "Create a file or replace its whole content",
		promptGuidelines: ["Use write for new files or full rewrites; prefer edit for changing part of an existing file."],
		parameters: writeSchema,
		async execute(_toolCallId, { path, content }, signal) {
			throwIfAborted(signal);
			refuseFolderPath(path);
			const absolutePath = resolveToCwd(path, cwd);
			const mutation = async () => {
				throwIfAborted(signal);
				const dir = dirname(absolutePath);
				try {
					await ops.mkdir(dir);
				} catch (error) {
					const code = (error as { code?: unknown } | null)?.code;
					if (code === "EEXIST" || code === "ENOTDIR") {
						throw new SettleError(
							"INVALID_ARGUMENT",
							`Cannot write ${absolutePath}: ${dir} or one of its parents is a file, not a folder.`,
							{ cause: error },
						);
					}
					if (code === "ENOENT") {
						// A level its parent refuses (under /proc, /sys): not a missing file, a folder that cannot be made.
						throw new SettleError(
							"IO",
							`Cannot write ${absolutePath}: cannot create the folder ${dir} (${errorMessage(error)}). Write somewhere else.`,
							{ cause: error },
						);
					}
					throw fileSystemError(error, dir);
				}
				await options.readStamps?.refuseIfChanged(absolutePath, path);
				throwIfAborted(signal);
				try {
					await ops.writeFile(absolutePath, content);
				} catch (error) {
					throw fileSystemError(error, absolutePath);
				}
				await options.readStamps?.record(absolutePath);
				const bytes = Buffer.byteLength(content, "utf-8");
				return {
					content: [{ type: "text" as const, text: `Successfully wrote ${bytes} bytes to ${path}` }],
					details: undefined,
				};
			};
			return raceAbort(withFileMutationQueue(absolutePath, mutation), signal);
		},
	};
}
