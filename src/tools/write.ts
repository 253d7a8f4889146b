/** The `write` tool: creates or overwrites a file, creating parent folders. */
import { writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Static } from "@sinclair/typebox";
import { errorMessage, SettleError } from "../errors.js";
import { Type } from "../schema/typebox.js";
import { makeFoldersAsync } from "../store/folders.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { fileSystemError } from "./fs-errors.js";
import { resolveToCwd } from "./paths.js";
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
}

const defaultOperations: WriteOperations = {
	writeFile: (path, content) => writeFile(path, content, "utf-8"),
	mkdir: async (dir) => {
		await makeFoldersAsync(dir);
	},
};

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
				throwIfAborted(signal);
				try {
					await ops.writeFile(absolutePath, content);
				} catch (error) {
					throw fileSystemError(error, absolutePath);
				}
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
