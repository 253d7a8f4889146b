/** The `edit` tool: one or more exact, unique, non-overlapping replacements in one file. */
import { constants } from "node:fs";
import { access, readFile, realpath } from "node:fs/promises";
import type { Static } from "@sinclair/typebox";
import { SettleError } from "../errors.js";
import { Type } from "../schema/typebox.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import {
	detectLineEnding,
	normalizeToLF,
	numberedDiff,
	planEdits,
	spliceIntoOriginal,
	stripBom,
	unifiedPatch,
} from "./edit-diff.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { fileSystemError, refuseSpecialFile } from "./fs-errors.js";
import { resolveToCwd } from "./paths.js";
import type { FileReadStamps } from "./read-stamps.js";
import { replaceFileContent } from "./replace-file.js";
import { encodeText, type Utf16Encoding, utf16Encoding, utf16Name } from "./text-encoding.js";
import type { ToolDefinition } from "./types.js";

const replaceEditSchema = Type.Object(
	{
		oldText: Type.String({
			description:
				"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call.",
		}),
		newText: Type.String({ description: "Replacement text for this targeted edit." }),
	},
	{ additionalProperties: false },
);

const editSchema = Type.Object(
	{
		path: Type.String({ description: "Path to the file to edit (relative or absolute)" }),
		edits: Type.Array(replaceEditSchema, {
			description:
				"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
		}),
	},
	{ additionalProperties: false },
);
/** Arguments of the `edit` tool: the file and its exact-text replacements. */
export type EditToolInput = Static<typeof editSchema>;

/** `details` of an `edit` tool result. */
export interface EditToolDetails {
	/** Numbered display diff (pi's format). */
	diff: string;
	/** Standard unified diff of the LF-normalized contents. */
	patch: string;
	/** First changed line in the new file (1-based), for editor navigation. */
	firstChangedLine: number | undefined;
}

/**
 * Pluggable file access (for example over SSH). Same shape as pi's `EditOperations`, plus
 * `writeFile`'s `encoding`.
 */
export interface EditOperations {
	readFile: (absolutePath: string) => Promise<Buffer>;
	/**
	 * Saves `content`, whose first character is U+FEFF when the file had a byte-order mark: in the
	 * UTF-16 `encoding` when given (the file was UTF-16), else in UTF-8. An implementation that
	 * ignores `encoding` saves a UTF-16 file as UTF-8 with a mark: no text is lost.
	 */
	writeFile: (absolutePath: string, content: string, encoding?: Utf16Encoding) => Promise<void>;
	/** Rejects when the file is not readable and writable. */
	access: (absolutePath: string) => Promise<void>;
}

/** Options of {@link createEditToolDefinition}: file access (default: the local disk). */
export interface EditToolOptions {
	operations?: EditOperations;
	/** The session's record of files seen, which a successful edit updates (see {@link FileReadStamps}). */
	readStamps?: FileReadStamps;
}

const defaultOperations: EditOperations = {
	readFile: (path) => readFile(path),
	writeFile: async (path, content, encoding) => replaceFileContent(await realpath(path), encodeText(content, encoding)),
	access: async (path) => {
		await access(path, constants.R_OK | constants.W_OK);
		await refuseSpecialFile(path, "edit");
	},
};

/** Whether `value` is one replacement `{oldText, newText}` (not wrapped in an array). */
function isOneReplacement(value: unknown): value is { oldText: string; newText: string } {
	if (!value || typeof value !== "object" || Array.isArray(value)) return false;
	const { oldText, newText } = value as Record<string, unknown>;
	return typeof oldText === "string" && typeof newText === "string";
}

/**
 * Accepts the legacy single-edit form `{path, oldText, newText}` (pi ≤ 0.58), `edits` sent as a
 * JSON string (some models do), and `edits` as one replacement object not wrapped in an array, or
 * a JSON string of one (pi#7835: small models do), turning each into `{path, edits: [...]}`.
 *
 * @example
 * ```ts
 * prepareEditArguments({ path: "a.ts", oldText: "x", newText: "y" });
 * // { path: "a.ts", edits: [{ oldText: "x", newText: "y" }] }
 * ```
 */
export function prepareEditArguments(input: unknown): EditToolInput {
	if (!input || typeof input !== "object") return input as EditToolInput;
	const args: Record<string, unknown> = { ...(input as Record<string, unknown>) };
	if (typeof args.edits === "string") {
		try {
			const parsed: unknown = JSON.parse(args.edits);
			if (Array.isArray(parsed)) args.edits = parsed;
			else if (isOneReplacement(parsed)) args.edits = [parsed];
		} catch {
			// leave it: schema validation reports the bad value
		}
	}
	if (isOneReplacement(args.edits)) args.edits = [args.edits];
	if (typeof args.oldText !== "string" || typeof args.newText !== "string") return args as EditToolInput;
	const { oldText, newText, ...rest } = args;
	const edits = Array.isArray(rest.edits) ? [...rest.edits] : [];
	edits.push({ oldText, newText });
	return { ...rest, edits } as EditToolInput;
}

/** Strict decoders: an undecodable byte is an error, not U+FFFD. `ignoreBOM` keeps the BOM for {@link stripBom}. */
const strictDecoders = {
	"utf-8": new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }),
	"utf-16le": new TextDecoder("utf-16le", { fatal: true, ignoreBOM: true }),
	"utf-16be": new TextDecoder("utf-16be", { fatal: true, ignoreBOM: true }),
};

/**
 * The file's text (its BOM kept) and, for a file that starts with a UTF-16 byte-order mark, that
 * encoding: the edited text is saved in it again. An `INVALID_ARGUMENT` when the bytes do not
 * decode (Windows-1252, Latin-1, binary, a torn UTF-16 file): the whole file is written back, so
 * every byte the decoder could not read would become U+FFFD, far from the edited lines (pi#5797:
 * pi does that and reports success).
 */
function decodeStrict(bytes: Buffer, path: string): { raw: string; encoding?: Utf16Encoding } {
	const wide = utf16Encoding(bytes);
	try {
		return wide
			? { raw: strictDecoders[wide].decode(bytes), encoding: wide }
			: { raw: strictDecoders["utf-8"].decode(bytes) };
	} catch (error) {
		if (wide) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`${path} starts with a ${utf16Name(wide)} byte-order mark but is not valid ${utf16Name(wide)} (an odd number of bytes or a lone surrogate). Nothing was changed: edit rewrites the whole file, which would replace every character it cannot decode. Change it with bash, or write it anew.`,
				{ cause: error },
			);
		}
		throw new SettleError(
			"INVALID_ARGUMENT",
			`${path} is not valid UTF-8 (a legacy encoding such as Windows-1252 or Latin-1, UTF-16, or binary data). Nothing was changed: edit rewrites the whole file as UTF-8, which would replace every byte it cannot decode. Change it with bash in its own encoding (for example iconv to convert it, or sed), or write it anew.`,
			{ cause: error },
		);
	}
}

/** Tells the model a UTF-16 file stayed UTF-16 (read's note said it would). */
function keptNote(encoding: Utf16Encoding | undefined): string {
	return encoding ? ` It stays ${utf16Name(encoding)} with its byte-order mark.` : "";
}

/**
 * An oldText not found in a file changed on disk since the model read it (the user, a formatter, a
 * watcher) names that cause, so the model reads the file again instead of guessing at whitespace
 * (openclaw#56554). Other errors pass through unchanged.
 */
async function staleNote(
	error: unknown,
	absolutePath: string,
	path: string,
	readStamps: FileReadStamps | undefined,
): Promise<unknown> {
	if (
		!(error instanceof SettleError) ||
		error.code !== "NOT_FOUND" ||
		!(await readStamps?.changedSince(absolutePath))
	) {
		return error;
	}
	return new SettleError(
		"NOT_FOUND",
		`${error.message} ${path} has been modified since you last read it (by the user, a formatter or another program): read it again, then edit its current content.`,
	);
}

/**
 * Creates the `edit` tool for a working directory. A UTF-16 file with its byte-order mark is
 * edited as text and saved in its encoding with its mark (pi reads it as UTF-8); a file that is
 * not valid UTF-8 otherwise is refused (`INVALID_ARGUMENT`, nothing written) rather than rewritten
 * with U+FFFD, as pi does.
 *
 * @example
 * ```ts
 * const edit = createEditToolDefinition(cwd);
 * await edit.execute("call-1", { path: "src/a.ts", edits: [{ oldText: "foo()", newText: "bar()" }] }, undefined, undefined, undefined);
 * ```
 */
export function createEditToolDefinition(
	cwd: string,
	options: EditToolOptions = {},
): ToolDefinition<typeof editSchema, EditToolDetails> {
	const ops = options.operations ?? defaultOperations;
	return {
		name: "edit",
		label: "edit",
		description:
			"Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
		promptSnippet: "Change a file by exact text replacement; several separate spots can go in one call",
		promptGuidelines: [
			"Use edit for targeted changes; each edits[].oldText must match the file exactly and only once.",
			"Put all changes to one file in a single edit call with several edits[] entries, each matched against the original file; never overlap them, merge nearby changes instead.",
			"Keep each oldText short but unique; do not pad it with large unchanged regions.",
		],
		parameters: editSchema,
		prepareArguments: prepareEditArguments,
		async execute(_toolCallId, input, signal) {
			const { path, edits } = input;
			if (!Array.isArray(edits) || edits.length === 0) {
				throw new SettleError(
					"INVALID_ARGUMENT",
					"Edit tool input is invalid. edits must contain at least one replacement.",
				);
			}
			throwIfAborted(signal);
			const absolutePath = resolveToCwd(path, cwd);
			const mutation = async (): Promise<{ content: { type: "text"; text: string }[]; details: EditToolDetails }> => {
				throwIfAborted(signal);
				try {
					await ops.access(absolutePath);
				} catch (error) {
					throw fileSystemError(error, absolutePath, "Use write to create a new file.");
				}
				let bytes: Buffer;
				try {
					bytes = await ops.readFile(absolutePath);
				} catch (error) {
					throw fileSystemError(error, absolutePath); // a directory passes access(): say so, not EISDIR
				}
				throwIfAborted(signal);
				const { raw, encoding } = decodeStrict(bytes, path);
				// The model never sees the BOM, and matches against LF text; only the replaced regions are
				// written back changed, so the BOM, the encoding and every untouched line ending stay as they were.
				const { bom, text } = stripBom(raw);
				const ending = detectLineEnding(text);
				const before = normalizeToLF(text);
				let planned: ReturnType<typeof planEdits>;
				try {
					planned = planEdits(before, edits, path);
				} catch (error) {
					throw await staleNote(error, absolutePath, path, options.readStamps);
				}
				const { result: after, replacements } = planned;
				throwIfAborted(signal);
				try {
					const content = bom + spliceIntoOriginal(text, replacements, ending);
					await (encoding ? ops.writeFile(absolutePath, content, encoding) : ops.writeFile(absolutePath, content));
				} catch (error) {
					throw fileSystemError(error, absolutePath);
				}
				await options.readStamps?.record(absolutePath);
				const { diff, firstChangedLine } = numberedDiff(before, after);
				return {
					content: [
						{ type: "text", text: `Successfully replaced ${edits.length} block(s) in ${path}.${keptNote(encoding)}` },
					],
					details: { diff, patch: unifiedPatch(path, before, after), firstChangedLine },
				};
			};
			return raceAbort(withFileMutationQueue(absolutePath, mutation), signal);
		},
	};
}
