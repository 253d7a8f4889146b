/**
 * Deterministic file-tree walk for `grep` and `find`, without external binaries. Honours
 * `.gitignore` and `.ignore` files hierarchically (deeper files win, `!` re-includes, like git and
 * ripgrep), plus `.git/info/exclude`; as in rg and fd, a rule of any `.ignore` file takes precedence
 * over every `.gitignore` rule, and those over `.git/info/exclude`. Never enters `.git`; does not
 * follow symbolic links below the root. An explicitly requested root that is itself ignored is
 * still searched.
 */
import type { Dirent } from "node:fs";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { Ignore } from "ignore";
import { loadIgnore } from "../lazy-deps.js";
import { throwIfAborted } from "./abort.js";

export type WalkEntryKind = "file" | "directory" | "symlink";

export interface WalkEntry {
	absolutePath: string;
	/** Relative to the walk root, with `/` separators. */
	relativePath: string;
	name: string;
	kind: WalkEntryKind;
}

export interface WalkOptions {
	signal?: AbortSignal;
	/**
	 * Outermost folder whose ignore files apply when the root is not inside a git repository
	 * (normally the session cwd). Inside a repository, ignore files from the repository root down apply.
	 */
	ignoreBoundary?: string;
	/** Extra gitignore-style patterns, relative to the root (for example `["node_modules/"]`). */
	extraIgnore?: readonly string[];
	/**
	 * Entries (by path from the root) yielded, and folders entered, even when an ignore file excludes
	 * them: rg's `--glob` whitelists the files and folders it matches.
	 */
	keep?: (relativePath: string) => boolean;
}

/**
 * Kinds of rules, strongest first: the caller's extra patterns, then `.ignore`, `.gitignore` and
 * `.git/info/exclude` files. Within a kind the deepest folder with a verdict wins; a weaker kind is
 * asked only when no folder's rules of the stronger kinds match (the ignore crate's order, which rg
 * and fd use: a `!x` in an `.ignore` above beats `x` in a deeper `.gitignore`).
 */
const RULE_KINDS = ["extra", "ignore", "gitignore", "exclude"] as const;
type RuleKind = (typeof RULE_KINDS)[number];
/** Ignore files read in every folder, with the kind of their rules. */
const IGNORE_FILES: readonly (readonly [string, RuleKind])[] = [
	[".gitignore", "gitignore"],
	[".ignore", "ignore"],
];
const ignoreCase = process.platform === "darwin" || process.platform === "win32";

/**
 * Rules of one folder. Paths are tested relative to that folder, derived from the walk-relative
 * path without any `path.relative` call: `rootFromLayer` is the walk root seen from a folder above
 * it, `layerFromRoot` the folder seen from the walk root (at most one of them is non-empty).
 */
interface IgnoreLayer {
	kind: RuleKind;
	matcher: Ignore;
	rootFromLayer: string;
	layerFromRoot: string;
}

const toPosix = (path: string) => (sep === "/" ? path : path.split(sep).join("/"));

/** The layers of one folder's ignore files (missing ones are skipped), one per file. */
async function readIgnoreFiles(
	files: readonly (readonly [string, RuleKind])[],
	position: Pick<IgnoreLayer, "rootFromLayer" | "layerFromRoot">,
): Promise<IgnoreLayer[]> {
	const layers: IgnoreLayer[] = [];
	for (const [file, kind] of files) {
		let text: string;
		try {
			text = await readFile(file, "utf-8");
		} catch {
			continue;
		}
		layers.push({ kind, matcher: loadIgnore()({ ignorecase: ignoreCase }).add(text), ...position });
	}
	return layers;
}

const ignoreFilesIn = (dir: string) => IGNORE_FILES.map(([name, kind]) => [join(dir, name), kind] as const);
const infoExclude = (gitRoot: string) => [[join(gitRoot, ".git", "info", "exclude"), "exclude"] as const];

function findGitRoot(start: string): string | undefined {
	for (let dir = start; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) return dir;
		if (dirname(dir) === dir) return undefined;
	}
}

const isInside = (child: string, parent: string) => {
	const rel = relative(parent, child);
	return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel));
};

/** Ignore layers of the folders above `root` that still govern it (outermost first). */
async function ancestorLayers(root: string, gitRoot: string | undefined, boundary: string | undefined) {
	const top = gitRoot ?? (boundary && isInside(root, boundary) ? boundary : root);
	const dirs: string[] = [];
	if (top !== root) {
		for (let dir = dirname(root); ; dir = dirname(dir)) {
			dirs.unshift(dir);
			if (dir === top || dirname(dir) === dir) break;
		}
	}
	const layers: IgnoreLayer[] = [];
	for (const dir of dirs) {
		const extra = dir === gitRoot ? infoExclude(dir) : [];
		const position = { rootFromLayer: toPosix(relative(dir, root)), layerFromRoot: "" };
		layers.push(...(await readIgnoreFiles([...extra, ...ignoreFilesIn(dir)], position)));
	}
	return layers;
}

/** Whether the entry at `relativePath` (from the walk root; "" is the root itself) is ignored. */
function isIgnored(layers: readonly IgnoreLayer[], relativePath: string, isDirectory: boolean): boolean {
	for (const kind of RULE_KINDS) {
		for (let i = layers.length - 1; i >= 0; i--) {
			const layer = layers[i]!;
			if (layer.kind !== kind) continue;
			let rel: string;
			if (layer.layerFromRoot) rel = relativePath.slice(layer.layerFromRoot.length + 1);
			else if (!layer.rootFromLayer) rel = relativePath;
			else rel = relativePath ? `${layer.rootFromLayer}/${relativePath}` : layer.rootFromLayer;
			if (rel === "") continue;
			const verdict = layer.matcher.test(isDirectory ? `${rel}/` : rel);
			if (verdict.ignored) return true;
			if (verdict.unignored) return false;
		}
	}
	return false;
}

function kindOf(entry: Dirent): WalkEntryKind | undefined {
	if (entry.isSymbolicLink()) return "symlink";
	if (entry.isDirectory()) return "directory";
	if (entry.isFile()) return "file";
	return undefined; // sockets, fifos, devices
}

/**
 * Yields every non-ignored entry below `root` (not `root` itself), depth first, names sorted by
 * code unit so the order is the same on every machine. A folder is yielded before its contents;
 * unreadable folders are skipped. Throws `Operation aborted` when `signal` fires.
 *
 * @example
 * ```ts
 * for await (const entry of walkTree(cwd, { ignoreBoundary: cwd })) console.log(entry.relativePath);
 * ```
 */
export async function* walkTree(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
	const { signal } = options;
	const gitRoot = findGitRoot(root);
	let layers = await ancestorLayers(root, gitRoot, options.ignoreBoundary);
	// A root that is itself ignored was asked for explicitly (like `rg x node_modules/`): search it,
	// governed by its own ignore files only.
	if (isIgnored(layers, "", true)) layers = [];
	if (options.extraIgnore && options.extraIgnore.length > 0) {
		const matcher = loadIgnore()({ ignorecase: ignoreCase }).add([...options.extraIgnore]);
		layers = [...layers, { kind: "extra", matcher, rootFromLayer: "", layerFromRoot: "" }];
	}
	// Iterative depth-first walk: nested `yield*` would cost every entry one hop per folder level.
	const rootFrame = await openFolder(root, "", layers, gitRoot === root ? infoExclude(root) : []);
	const stack = rootFrame ? [rootFrame] : [];
	while (stack.length > 0) {
		throwIfAborted(signal);
		const frame = stack[stack.length - 1]!;
		const entry = frame.entries[frame.next++];
		if (!entry) {
			stack.pop();
			continue;
		}
		if (entry.name === ".git") continue;
		const kind = kindOf(entry);
		if (!kind) continue;
		const absolutePath = join(frame.dir, entry.name);
		const relativePath = frame.relativeDir ? `${frame.relativeDir}/${entry.name}` : entry.name;
		if (isIgnored(frame.layers, relativePath, kind === "directory") && !options.keep?.(relativePath)) continue;
		yield { absolutePath, relativePath, name: entry.name, kind };
		if (kind === "directory") {
			const child = await openFolder(absolutePath, relativePath, frame.layers, []);
			if (child) stack.push(child);
		}
	}
}

interface FolderFrame {
	dir: string;
	relativeDir: string;
	layers: IgnoreLayer[];
	entries: Dirent[];
	next: number;
}

/** Reads a folder's sorted entries and its own ignore files; `undefined` when it cannot be read. */
async function openFolder(
	dir: string,
	relativeDir: string,
	inherited: IgnoreLayer[],
	extraIgnoreFiles: readonly (readonly [string, RuleKind])[],
): Promise<FolderFrame | undefined> {
	let entries: Dirent[];
	try {
		entries = await readdir(dir, { withFileTypes: true });
	} catch {
		return undefined;
	}
	entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	const present = new Set(entries.filter((e) => !e.isDirectory()).map((e) => e.name));
	const files = [
		...extraIgnoreFiles,
		...IGNORE_FILES.filter(([name]) => present.has(name)).map(([name, kind]) => [join(dir, name), kind] as const),
	];
	const own = files.length > 0 ? await readIgnoreFiles(files, { rootFromLayer: "", layerFromRoot: relativeDir }) : [];
	const layers = own.length > 0 ? [...inherited, ...own] : inherited;
	return { dir, relativeDir, layers, entries, next: 0 };
}
