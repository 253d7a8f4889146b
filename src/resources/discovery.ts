/**
 * Finding resource files in folders, with pi's rules: dot entries and `node_modules` are skipped,
 * `.gitignore` / `.ignore` / `.fdignore` rules of the folders walked apply, symlinks are followed,
 * broken ones skipped, and a folder is walked once however many links lead to it (a link back to a
 * folder above, `skills/skills -> skills`, is not a way down forever). Entries are visited in name order so results are deterministic.
 * Nothing here throws: an unreadable folder yields nothing, and is added to the caller's
 * {@link UnreadableFolders} when it passes one (pi passes over it without a word).
 */
import { type Dirent, existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { Ignore } from "ignore";
import { errorMessage } from "../errors.js";
import { loadIgnore } from "../lazy-deps.js";
import { misplacedFrontmatterLine } from "./frontmatter.js";
import { readTextFile } from "./text-file.js";

const IGNORE_FILE_NAMES = [".gitignore", ".ignore", ".fdignore"];

interface EntryKind {
	name: string;
	path: string;
	isDir: boolean;
	isFile: boolean;
}

function toPosix(path: string): string {
	return path.split(sep).join("/");
}

function addIgnoreRules(ig: Ignore, dir: string, root: string): void {
	const rel = relative(root, dir);
	const prefix = rel ? `${toPosix(rel)}/` : "";
	for (const name of IGNORE_FILE_NAMES) {
		const file = join(dir, name);
		if (!existsSync(file)) continue;
		try {
			const patterns = readFileSync(file, "utf-8")
				.split(/\r?\n/)
				.map((line) => prefixPattern(line, prefix))
				.filter((line): line is string => line !== null);
			if (patterns.length > 0) ig.add(patterns);
		} catch {
			// An unreadable ignore file ignores nothing.
		}
	}
}

function prefixPattern(line: string, prefix: string): string | null {
	const trimmed = line.trim();
	if (!trimmed || (trimmed.startsWith("#") && !trimmed.startsWith("\\#"))) return null;
	let pattern = line;
	let negated = false;
	if (pattern.startsWith("!")) {
		negated = true;
		pattern = pattern.slice(1);
	} else if (pattern.startsWith("\\!")) {
		pattern = pattern.slice(1);
	}
	if (pattern.startsWith("/")) pattern = pattern.slice(1);
	return `${negated ? "!" : ""}${prefix}${pattern}`;
}

/** Folders a walk could not list (EACCES, EIO, …), by path, with the error's text. */
export type UnreadableFolders = Map<string, string>;

/** Directory entries (sorted, dot entries and node_modules removed, symlinks resolved). */
function listEntries(dir: string, unreadable?: UnreadableFolders): EntryKind[] {
	let dirents: Dirent[];
	try {
		dirents = readdirSync(dir, { withFileTypes: true });
	} catch (error) {
		// Gone (or not a folder) since it was seen is nothing to report; a folder that is there but cannot be listed hides what it holds.
		const code = (error as NodeJS.ErrnoException).code;
		if (code !== "ENOENT" && code !== "ENOTDIR") unreadable?.set(dir, errorMessage(error));
		return [];
	}
	const entries: EntryKind[] = [];
	for (const dirent of dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
		if (dirent.name.startsWith(".") || dirent.name === "node_modules") continue;
		const path = join(dir, dirent.name);
		let isDir = dirent.isDirectory();
		let isFile = dirent.isFile();
		if (dirent.isSymbolicLink()) {
			try {
				const stats = statSync(path);
				isDir = stats.isDirectory();
				isFile = stats.isFile();
			} catch {
				continue;
			}
		}
		entries.push({ name: dirent.name, path, isDir, isFile });
	}
	return entries;
}

/**
 * True the first time a walk reaches the folder `dir` names (by its real path), false after: a
 * symlink cycle, or two links to one folder, would otherwise walk it again and again (two links back
 * to the root double the walk at every level until the path is 40 links deep). Must not throw.
 */
function firstVisit(visited: Set<string>, dir: string): boolean {
	let real: string;
	try {
		real = realpathSync(dir);
	} catch {
		real = resolve(dir);
	}
	if (visited.has(real)) return false;
	visited.add(real);
	return true;
}

function isIgnored(ig: Ignore, root: string, entry: EntryKind): boolean {
	const rel = toPosix(relative(root, entry.path));
	return rel !== "" && ig.ignores(entry.isDir ? `${rel}/` : rel);
}

/**
 * Whether a `.md` file lying directly in a skills folder is meant as a skill: it has a front matter
 * block (at the top, or below comment lines, bigpowers#108). A `README.md`, `AGENTS.md` or
 * `CLAUDE.md` without one is the folder's documentation (pi#7805); pi 0.73.1 loads it as a skill
 * and warns "description is required" at every start. Unreadable: kept, so the load says why.
 */
function declaresSkill(path: string): boolean {
	let text: string;
	try {
		// Decoded as the load decodes it: read as UTF-8, a UTF-16 skill showed no front matter and was skipped.
		text = readTextFile(path);
	} catch {
		return true;
	}
	return /^---/.test(text) || misplacedFrontmatterLine(text) !== undefined;
}

/**
 * Skill files under `dir`. A folder holding `SKILL.md` is one skill (not searched further);
 * otherwise sub-folders are searched. Mode `pi` also takes `.md` files directly in `dir` (pi's
 * skills folders) that have front matter (documentation beside the skills is not one, pi#7805);
 * mode `agents` (`.agents/skills`) does not.
 */
export function collectSkillFiles(dir: string, mode: "pi" | "agents", unreadable?: UnreadableFolders): string[] {
	const files: string[] = [];
	const visited = new Set<string>();
	const walk = (current: string, ig: Ignore, root: string): void => {
		if (!firstVisit(visited, current)) return;
		addIgnoreRules(ig, current, root);
		const skillFile = join(current, "SKILL.md");
		if (isFile(skillFile) && !ig.ignores(toPosix(relative(root, skillFile)))) {
			files.push(skillFile);
			return;
		}
		for (const entry of listEntries(current, unreadable)) {
			if (isIgnored(ig, root, entry)) continue;
			if (entry.isDir) walk(entry.path, ig, root);
			else if (
				mode === "pi" &&
				current === root &&
				entry.isFile &&
				entry.name.endsWith(".md") &&
				declaresSkill(entry.path)
			)
				files.push(entry.path);
		}
	};
	if (isDirectory(dir)) walk(dir, loadIgnore()(), dir);
	return files;
}

/** `.md` files directly in `dir` (or in all sub-folders with `recursive`). */
export function collectMarkdownFiles(dir: string, recursive: boolean, unreadable?: UnreadableFolders): string[] {
	const files: string[] = [];
	const visited = new Set<string>();
	const walk = (current: string, ig: Ignore, root: string): void => {
		if (!firstVisit(visited, current)) return;
		addIgnoreRules(ig, current, root);
		for (const entry of listEntries(current, unreadable)) {
			if (isIgnored(ig, root, entry)) continue;
			if (entry.isDir && recursive) walk(entry.path, ig, root);
			else if (entry.isFile && entry.name.endsWith(".md")) files.push(entry.path);
		}
	};
	if (isDirectory(dir)) walk(dir, loadIgnore()(), dir);
	return files;
}

/**
 * The sub-folders of a prompts folder that hold `.md` files (at any depth), each with those files.
 * A prompts folder is read one level deep, as pi reads it; Claude Code's `commands/opsx/apply.md`
 * layout put there was passed over without a word (pi-claude-marketplace#140). Must not throw.
 */
export function nestedMarkdownFolders(dir: string): { folder: string; files: string[] }[] {
	return listEntries(dir)
		.filter((entry) => entry.isDir)
		.map((entry) => ({ folder: entry.path, files: collectMarkdownFiles(entry.path, true) }))
		.filter((found) => found.files.length > 0);
}

/** An entry a folder's `package.json` extensions list names that the folder does not have. */
export interface MissingExtensionEntry {
	/** The folder's `package.json`. */
	manifest: string;
	/** The list naming it: `settle` or `pi`. */
	key: string;
	/** The entry as written there. */
	entry: string;
	/** The folder's `index.ts` / `index.js`, not loaded in place of the entries (all missing). */
	index?: string;
}

/**
 * The entry modules a folder declares: `package.json` `settle.extensions` (else `pi.extensions`)
 * entries that exist, else `index.ts`, else `index.js`; null when none. The entries named but
 * missing are added to `missing` (pi drops them without a word); when all the named ones are
 * missing, none loads: not the index either (pi loads it instead).
 */
export function resolveExtensionEntries(dir: string, missing?: MissingExtensionEntry[]): string[] | null {
	const manifestPath = join(dir, "package.json");
	const manifest = readExtensionManifest(manifestPath);
	if (manifest && manifest.entries.length > 0) {
		const entries = manifest.entries.map((entry) => resolve(dir, entry)).filter((entry) => existsSync(entry));
		const absent = manifest.entries.filter((entry) => !/^[!+-]|[*?]/.test(entry) && !existsSync(resolve(dir, entry)));
		if (entries.length > 0) {
			for (const entry of absent) missing?.push({ manifest: manifestPath, key: manifest.key, entry });
			return entries;
		}
		// The manifest names the entries: a stale index.ts beside them is not loaded in their place.
		if (absent.length > 0) {
			const index = ["index.ts", "index.js"].find((name) => isFile(join(dir, name)));
			for (const entry of absent) missing?.push({ manifest: manifestPath, key: manifest.key, entry, index });
			return [];
		}
	}
	for (const index of ["index.ts", "index.js"]) {
		const path = join(dir, index);
		if (isFile(path)) return [path];
	}
	return null;
}

/**
 * Extension modules in an extensions folder: the folder's own entries when it declares some;
 * otherwise its `.ts` / `.js` files and the entries of each sub-folder (one level, as pi).
 */
export function collectExtensionEntries(
	dir: string,
	missing?: MissingExtensionEntry[],
	unreadable?: UnreadableFolders,
): string[] {
	if (!isDirectory(dir)) return [];
	const own = resolveExtensionEntries(dir, missing);
	if (own) return own;
	const ig = loadIgnore()();
	addIgnoreRules(ig, dir, dir);
	const entries: string[] = [];
	for (const entry of listEntries(dir, unreadable)) {
		if (isIgnored(ig, dir, entry)) continue;
		if (entry.isFile && (entry.name.endsWith(".ts") || entry.name.endsWith(".js"))) entries.push(entry.path);
		else if (entry.isDir) entries.push(...(resolveExtensionEntries(entry.path, missing) ?? []));
	}
	return entries;
}

function readExtensionManifest(packageJsonPath: string): { key: string; entries: string[] } | null {
	if (!isFile(packageJsonPath)) return null;
	try {
		const pkg = JSON.parse(readFileSync(packageJsonPath, "utf-8")) as Record<
			string,
			{ extensions?: unknown } | undefined
		>;
		for (const key of ["settle", "pi"]) {
			const extensions = pkg[key]?.extensions;
			if (Array.isArray(extensions) && extensions.length > 0) {
				return { key, entries: extensions.filter((entry): entry is string => typeof entry === "string") };
			}
		}
	} catch {
		// A broken package.json declares nothing; index.ts / index.js may still apply.
	}
	return null;
}

/** Whether `path` is an existing directory. Must not throw. */
export function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** Whether `path` is an existing file. Must not throw. */
export function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

/** Skill files at a path: a folder is searched (pi mode), a `.md` file is itself. */
export function skillFilesAt(path: string, unreadable?: UnreadableFolders): string[] {
	if (isDirectory(path)) return collectSkillFiles(path, "pi", unreadable);
	return isFile(path) && path.endsWith(".md") ? [path] : [];
}

/** Template files at a path: a folder's `.md` files (all levels with `recursive`), or the file itself. */
export function promptFilesAt(path: string, recursive: boolean, unreadable?: UnreadableFolders): string[] {
	if (isDirectory(path)) return collectMarkdownFiles(path, recursive, unreadable);
	return isFile(path) && path.endsWith(".md") ? [path] : [];
}
