/** The `write` tool: creates or overwrites a file, creating parent folders. */
import { lstat, open, readlink, realpath, stat } from "node:fs/promises";
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
import { decodeText, encodeText, type Utf16Encoding, utf16Encoding, utf16Name } from "./text-encoding.js";
import { counted } from "./truncate.js";
import type { ToolDefinition } from "./types.js";

const writeSchema = Type.Object({
	path: Type.String({ description: "Path to the file to write (relative or absolute)" }),
	content: Type.String({ description: "Content to write to the file" }),
});
/** Arguments of the `write` tool: a path and the full content. */
export type WriteToolInput = Static<typeof writeSchema>;

/**
 * Pluggable file access (for example over SSH). Same shape as pi's `WriteOperations`, plus
 * `writeFile`'s `encoding` and `readHead`.
 */
export interface WriteOperations {
	/**
	 * Saves `content`, whose first character is U+FEFF when the file had a byte-order mark: in the
	 * UTF-16 `encoding` when given (the file was UTF-16), else in UTF-8.
	 */
	writeFile: (absolutePath: string, content: string, encoding?: Utf16Encoding) => Promise<void>;
	/** Creates a folder and its parents. */
	mkdir: (dir: string) => Promise<void>;
	/**
	 * The first bytes (at least 3) of the file there, or undefined when there is none: the write
	 * keeps its byte-order mark and UTF-16 encoding, and, when these bytes hold line breaks all
	 * CRLF, its CRLF line endings. Without it every file is written as given, as pi writes.
	 */
	readHead?: (absolutePath: string) => Promise<Uint8Array | undefined>;
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
async function writeThroughLinks(path: string, content: Uint8Array): Promise<void> {
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

/** Bytes of an existing file read to learn its mark and line endings. */
const HEAD_BYTES = 8192;

/** The first bytes of a regular file (through links), or undefined (missing, a folder, unreadable). */
async function readHead(path: string): Promise<Uint8Array | undefined> {
	try {
		// Opening a FIFO waits for a writer: only a regular file is opened.
		if (!(await stat(path)).isFile()) return undefined;
		const handle = await open(path, "r");
		try {
			const head = Buffer.alloc(HEAD_BYTES);
			const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
			return head.subarray(0, bytesRead);
		} finally {
			await handle.close();
		}
	} catch {
		// Missing or unreadable: written as a new file; the write itself reports what is wrong.
		return undefined;
	}
}

/** How an existing file with `head` is saved again: with its mark, in its UTF-16 encoding. */
function keptEncoding(head: Uint8Array | undefined): { bom: boolean; encoding?: Utf16Encoding; name?: string } {
	if (!head) return { bom: false };
	const wide = utf16Encoding(head);
	if (wide) return { bom: true, encoding: wide, name: utf16Name(wide) };
	return head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? { bom: true, name: "UTF-8" } : { bom: false };
}

/**
 * Whether the file's first bytes break lines with CRLF only. Windows users' files (and git's
 * `core.autocrlf` checkouts) are; a model writes LF, and a whole-file line-ending diff follows.
 */
function isCrlfFile(head: Uint8Array | undefined): boolean {
	if (!head) return false;
	const { text } = decodeText(head);
	const breaks = text.split("\n").length - 1;
	return breaks > 0 && text.split("\r\n").length - 1 === breaks;
}

const defaultOperations: WriteOperations = {
	writeFile: (path, content, encoding) => writeThroughLinks(path, encodeText(content, encoding)),
	readHead,
	mkdir: async (dir) => {
		await makeFoldersAsync(dir);
	},
};

/** What the result says the write kept of the file it replaced (empty when nothing). */
function keptNote(encodingName: string | undefined, crlf: boolean): string {
	if (encodingName) {
		const endings = crlf ? " and CRLF line endings" : "";
		return ` (kept as ${encodingName} with its byte-order mark${endings}, as the file was)`;
	}
	return crlf ? " (kept its CRLF line endings, as the file was)" : "";
}

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
 * Creates the `write` tool for a working directory. Over an existing file with a byte-order mark
 * (UTF-8's, or UTF-16's, as Windows PowerShell 5.1 and Notepad save) the new content keeps that
 * mark and encoding; any other file, and a new one, is written as UTF-8 without a mark, as pi
 * writes every file. Over a file whose line breaks are all CRLF (as far as its first 8 KB show),
 * content with LF breaks only is written with CRLF (pi writes LF: a whole-file diff); content with
 * any CR, and a new file, are written as given.
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
				const head = await ops.readHead?.(absolutePath);
				const kept = keptEncoding(head);
				// LF-only content over a CRLF file keeps the file's endings; content with any CR is the model's choice.
				const crlf = content.includes("\n") && !content.includes("\r") && isCrlfFile(head);
				const body = crlf ? content.replace(/\n/g, "\r\n") : content;
				// The mark is the file's, not the model's: one the content brings is not doubled.
				const text = kept.bom && !body.startsWith("\uFEFF") ? `\uFEFF${body}` : body;
				try {
					await (kept.encoding ? ops.writeFile(absolutePath, text, kept.encoding) : ops.writeFile(absolutePath, text));
				} catch (error) {
					throw fileSystemError(error, absolutePath);
				}
				await options.readStamps?.record(absolutePath);
				const bytes = encodeText(body, kept.encoding).length;
				const note = keptNote(kept.name, crlf);
				return {
					content: [{ type: "text" as const, text: `Successfully wrote ${counted(bytes, "byte")} to ${path}${note}` }],
					details: undefined,
				};
			};
			return raceAbort(withFileMutationQueue(absolutePath, mutation), signal);
		},
	};
}
