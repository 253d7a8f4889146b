/**
 * Deterministic file-tree walk for `grep` and `find`, without external binaries. Honours
 * `.gitignore` and `.ignore` files hierarchically (deeper files win, `!` re-includes, like git and
 * ripgrep), plus `.git/info/exclude`; never enters `.git`; does not follow symbolic links.
 */
import type { Dirent } from "node:fs";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
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
}

/** Ignore files read in every folder; later ones take precedence within a folder. */
const IGNORE_FILES = [".gitignore", ".ignore"];
const ignoreCase = process.platform === "darwin" || process.platform === "win32";

interface IgnoreLayer {
	dir: string;
	matcher: Ignore;
}

const toPosix = (path: string) => (sep === "/" ? path : path.split(sep).join("/"));

async function readIgnoreLayer(dir: string, extraFiles: string[] = []): Promise<IgnoreLayer | undefined> {
	let matcher: Ignore | undefined;
	for (const file of [...extraFiles, ...IGNORE_FILES.map((name) => join(dir, name))]) {
		let text: string;
		try {
			text = await readFile(file, "utf-8");
		} catch {
			continue;
		}
		matcher ??= ignore({ ignorecase: ignoreCase });
		matcher.add(text);
	}
	return matcher ? { dir, matcher } : undefined;
}

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
		const extra = dir === gitRoot ? [join(dir, ".git", "info", "exclude")] : [];
		const layer = await readIgnoreLayer(dir, extra);
		if (layer) layers.push(layer);
	}
	return layers;
}

function isIgnored(layers: readonly IgnoreLayer[], absolutePath: string, isDirectory: boolean): boolean {
	for (let i = layers.length - 1; i >= 0; i--) {
		const layer = layers[i]!;
		const rel = toPosix(relative(layer.dir, absolutePath));
		if (rel === "" || rel.startsWith("..")) continue;
		const verdict = layer.matcher.test(isDirectory ? `${rel}/` : rel);
		if (verdict.ignored) return true;
		if (verdict.unignored) return false;
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
 * for await (const entry of walkTree("/repo", { ignoreBoundary: "/repo" })) console.log(entry.relativePath);
 * ```
 */
export async function* walkTree(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
	const { signal } = options;
	const gitRoot = findGitRoot(root);
	const baseLayers = await ancestorLayers(root, gitRoot, options.ignoreBoundary);
	const layers = [...baseLayers];
	if (options.extraIgnore && options.extraIgnore.length > 0) {
		layers.push({ dir: root, matcher: ignore({ ignorecase: ignoreCase }).add([...options.extraIgnore]) });
	}
	const rootLayer = await readIgnoreLayer(root, gitRoot === root ? [join(root, ".git", "info", "exclude")] : []);
	if (rootLayer) layers.push(rootLayer);
	yield* walkDir(root, "", layers, signal);
}

async function* walkDir(
	dir: string,
	relativeDir: string,
	layers: IgnoreLayer[],
	signal: AbortSignal | undefined,
): AsyncGenerator<WalkEntry> {
	throwIfAborted(signal);
	let entries: Dirent[];
	try {
		entries = await readdir(dir, { withFileTypes: true });
	} catch {
		return;
	}
	entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	for (const entry of entries) {
		if (entry.name === ".git") continue;
		const kind = kindOf(entry);
		if (!kind) continue;
		const absolutePath = join(dir, entry.name);
		if (isIgnored(layers, absolutePath, kind === "directory")) continue;
		const relativePath = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
		yield { absolutePath, relativePath, name: entry.name, kind };
		if (kind === "directory") {
			const layer = await readIgnoreLayer(absolutePath);
			yield* walkDir(absolutePath, relativePath, layer ? [...layers, layer] : layers, signal);
		}
	}
}
