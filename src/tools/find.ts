/**
 * The `find` tool, in pure Node: no fd download. Glob matching via picomatch over a walk that
 * honours .gitignore and skips .git.
 */
import { stat } from "node:fs/promises";
import type { Static } from "@sinclair/typebox";
import { SettleError } from "../errors.js";
import { loadPicomatch } from "../lazy-deps.js";
import { Type } from "../schema/typebox.js";
import { raceAbort, throwIfAborted } from "./abort.js";
import { globBase } from "./grep.js";
import { resolveReadPath, toNfc } from "./paths.js";
import { counted, DEFAULT_MAX_BYTES, listingResult, type TruncationResult } from "./truncate.js";
import type { ToolDefinition } from "./types.js";
import { walkTree } from "./walk.js";

const findSchema = Type.Object({
	pattern: Type.String({
		description: "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'",
	}),
	path: Type.Optional(Type.String({ description: "Directory to search in (default: current directory)" })),
	limit: Type.Optional(Type.Number({ description: "Maximum number of results (default: 1000)" })),
});
/** Arguments of the `find` tool: a glob pattern, a folder and a result limit. */
export type FindToolInput = Static<typeof findSchema>;

/** `details` of a `find` tool result. */
export interface FindToolDetails {
	truncation?: TruncationResult;
	/** The result limit, when more paths matched than were returned. */
	resultLimitReached?: number;
}

/** Most paths `find` returns when the call gives no limit. */
export const DEFAULT_FIND_LIMIT = 1000;

/** Options of {@link createFindToolDefinition}. */
export interface FindToolOptions {
	/** Extra gitignore-style patterns skipped on top of the ignore files (for example `["node_modules/"]`). */
	ignore?: readonly string[];
}

/**
 * fd's glob semantics, smart case included (no uppercase letter in the pattern: any case matches):
 * a pattern without `/` matches the entry name at any depth; a pattern with
 * `/` matches the entry's path (`relativePath`: from the session cwd, see {@link globBase}),
 * anchored anywhere (`src/*.ts` also matches `pkg/src/a.ts`); a pattern starting with `/` matches
 * the absolute path. Unlike pi (fd matches the whole absolute path), folders above the session cwd
 * never match: `*\/*.ts` does not find `a.ts` just because it sits in some folder.
 * Pattern and names are compared in Unicode NFC, so a name macOS wrote decomposed matches the
 * composed spelling a model types (fd compares them as written).
 *
 * @example
 * ```ts
 * const matches = createFindMatcher("src/*.ts");
 * matches({ name: "a.ts", relativePath: "pkg/src/a.ts", absolutePath: "/repo/pkg/src/a.ts" }); // true
 * createFindMatcher("readme*")({ name: "README.md", relativePath: "README.md", absolutePath: "/repo/README.md" }); // true
 * ```
 */
export function createFindMatcher(
	pattern: string,
): (entry: { name: string; relativePath: string; absolutePath: string }) => boolean {
	// fd's smart case: a pattern without an uppercase letter matches any case (`roadmap.md` finds
	// ROADMAP.md, claude-code#46590); one with an uppercase letter matches case exactly.
	const options = { dot: true, nocase: !/\p{Uppercase}/u.test(pattern) };
	// Both sides in NFC: a name macOS wrote decomposed matches the composed pattern a model types.
	const glob = toNfc(pattern);
	if (!glob.includes("/")) {
		const isMatch = loadPicomatch()(glob, options);
		return (entry) => isMatch(toNfc(entry.name));
	}
	if (glob.startsWith("/")) {
		const isMatch = loadPicomatch()(glob, options);
		return (entry) => isMatch(toNfc(entry.absolutePath.split("\\").join("/")));
	}
	let anchored = glob.startsWith("**/") || glob === "**" ? glob : `**/${glob}`;
	// fd (globset): `src/**` is what lies inside src, not src itself; picomatch would take src too.
	if (anchored.endsWith("/**")) anchored = `${anchored}/*`;
	const isMatch = loadPicomatch()(anchored, options);
	return (entry) => isMatch(toNfc(entry.relativePath));
}

/**
 * Creates the `find` tool for a working directory.
 *
 * @example
 * ```ts
 * const find = createFindToolDefinition(cwd);
 * await find.execute("call-1", { pattern: "src/**\/*.test.ts" }, undefined, undefined, undefined);
 * ```
 */
export function createFindToolDefinition(
	cwd: string,
	options: FindToolOptions = {},
): ToolDefinition<typeof findSchema, FindToolDetails | undefined> {
	return {
		name: "find",
		label: "find",
		description: `Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to ${DEFAULT_FIND_LIMIT} results or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first).`,
		promptSnippet: "Find files and folders by glob pattern (respects .gitignore)",
		parameters: findSchema,
		async execute(_toolCallId, params, signal) {
			throwIfAborted(signal);
			return raceAbort(runFind(cwd, params, options.ignore, signal), signal);
		},
	};
}

async function runFind(
	cwd: string,
	params: FindToolInput,
	extraIgnore: readonly string[] | undefined,
	signal: AbortSignal | undefined,
) {
	// As read's path: a folder named in the other Unicode normalization is found (aside-codemode#30).
	const searchPath = resolveReadPath(params.path || ".", cwd);
	let isDirectory: boolean;
	try {
		isDirectory = (await stat(searchPath)).isDirectory();
	} catch {
		throw new SettleError("NOT_FOUND", `Path not found: ${searchPath}`);
	}
	if (!isDirectory) throw new SettleError("INVALID_ARGUMENT", `Not a directory: ${searchPath}`);
	const limit = Math.max(1, Math.floor(params.limit ?? DEFAULT_FIND_LIMIT));
	const matches = createFindMatcher(params.pattern);

	const base = globBase(cwd, searchPath);
	const results: string[] = [];
	let more = false;
	for await (const entry of walkTree(searchPath, { signal, ignoreBoundary: cwd, extraIgnore })) {
		if (!matches(base ? { ...entry, relativePath: `${base}/${entry.relativePath}` } : entry)) continue;
		if (results.length >= limit) {
			more = true;
			break;
		}
		results.push(entry.kind === "directory" ? `${entry.relativePath}/` : entry.relativePath);
	}

	if (results.length === 0) {
		return { content: [{ type: "text" as const, text: "No files found matching pattern" }], details: undefined };
	}
	return listingResult<FindToolDetails>(
		results,
		more
			? [
					{
						text: `${counted(limit, "result")} limit reached. Use limit=${limit * 2} for more, or refine pattern`,
						details: { resultLimitReached: limit },
					},
				]
			: [],
	);
}
