/**
 * pi packages: what a `packages` settings entry names, where pi installs it, and which of its
 * extensions, skills and prompt templates load — pi 0.73.1's rules (`core/package-manager.js`,
 * `docs/packages.md`), so a user's existing pi packages load unchanged.
 *
 * - Sources: `npm:name[@version]`, `git:host/owner/repo[@ref]` (also `git:git@host:owner/repo`),
 *   `https://` / `http://` / `ssh://` / `git://` URLs, anything else a local path (relative to the
 *   settings file's folder). A version, a tag or a commit pins the package (a branch is followed).
 * - Installed at: npm, the global npm root (`npm root -g`, pi's `npm install -g`) or the project's
 *   `<project folder>/npm/node_modules/<name>`; git, `<agent folder>/git/<host>/<path>` or
 *   `<project folder>/git/<host>/<path>`; local paths where they are.
 * - Resources: the `package.json` `pi` manifest's arrays (paths, globs, `!` exclusions), else the
 *   conventional `extensions/`, `skills/`, `prompts/` folders. An object entry's per-kind arrays
 *   narrow that down (`[]` = none, omitted = all).
 * - The same package in global and project settings loads once, from the project entry; so does
 *   one `package.json` name reached from two sources (a dev checkout and the npm install).
 */
import { accessSync, constants, existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve, sep } from "node:path";
import { loadChildProcess, loadPicomatch } from "../lazy-deps.js";
import { expandHome } from "../settings/paths.js";
import type { PackageSource } from "../settings/schema.js";
import {
	collectExtensionEntries,
	collectMarkdownFiles,
	collectSkillFiles,
	isDirectory,
	isFile,
	type MissingExtensionEntry,
	type UnreadableFolders,
} from "./discovery.js";
import { applyFilters } from "./filters.js";

/** What a `packages` entry's source names. */
export type ParsedPackageSource =
	| { type: "npm"; spec: string; name: string; pinned: boolean }
	| { type: "git"; repo: string; host: string; path: string; ref?: string; pinned: boolean }
	| { type: "local"; path: string };

/** The resource kinds Settle loads from a package (pi's themes are not: Settle has no theme UI). */
export type PackageResourceKind = "extensions" | "skills" | "prompts";
export const PACKAGE_RESOURCE_KINDS: readonly PackageResourceKind[] = ["extensions", "skills", "prompts"];

/** Which settings file listed a package: its folder is where local paths and project installs resolve. */
export type PackageScope = "user" | "project";

/** Where packages of each scope live. */
export interface PackageRoots {
	/** The global agent folder (`git/` installs, and what a global local path is relative to). */
	agentDir: string;
	/** The project configuration folder in use (`.settle/`, or `.pi/` for a pi project). */
	projectDir: string;
	/** `settings.npmCommand` (pi's: a wrapper such as `["mise", "exec", "--", "npm"]`). */
	npmCommand?: readonly string[];
	/** Home folder for `~` in local paths. */
	home?: string;
}

/**
 * Parses a `packages` source as pi 0.73.1 does.
 *
 * @example
 * ```ts
 * parsePackageSource("npm:@foo/bar@1.2.0"); // { type: "npm", spec: "@foo/bar@1.2.0", name: "@foo/bar", pinned: true }
 * parsePackageSource("git:github.com/me/tools@v1"); // { type: "git", host: "github.com", path: "me/tools", ref: "v1", … }
 * parsePackageSource("../my-package"); // { type: "local", path: "../my-package" }
 * ```
 */
export function parsePackageSource(source: string): ParsedPackageSource {
	if (source.startsWith("npm:")) {
		const spec = source.slice("npm:".length).trim();
		const match = spec.match(/^(@?[^@]+(?:\/[^@]+)?)(?:@(.+))?$/);
		const name = match?.[1] ?? spec;
		return { type: "npm", spec, name, pinned: Boolean(match?.[2]) };
	}
	const local = !/^(npm|git|github|https?|ssh):/.test(source.trim());
	if (!local || source.trim().startsWith("git://")) {
		const git = parseGitSource(source);
		if (git) return git;
	}
	return { type: "local", path: source };
}

/** pi's `parseGitUrl` for the forms its docs name (hosted shortcuts beyond them are not parsed). */
function parseGitSource(source: string): ParsedPackageSource | undefined {
	const trimmed = source.trim();
	const prefixed = trimmed.startsWith("git:") && !trimmed.startsWith("git://");
	const url = prefixed ? trimmed.slice(4).trim() : trimmed;
	if (!prefixed && !/^(https?|ssh|git):\/\//i.test(url)) return undefined;
	const { repo: withoutRef, ref } = splitRef(url);
	let repo = withoutRef;
	let host: string;
	let path: string;
	const scpLike = withoutRef.match(/^git@([^:]+):(.+)$/);
	if (scpLike) {
		host = scpLike[1] ?? "";
		path = scpLike[2] ?? "";
	} else if (/^(https?|ssh|git):\/\//.test(withoutRef)) {
		try {
			const parsed = new URL(withoutRef);
			host = parsed.hostname;
			path = parsed.pathname;
		} catch {
			return undefined;
		}
	} else {
		const slash = withoutRef.indexOf("/");
		if (slash < 0) return undefined;
		host = withoutRef.slice(0, slash);
		path = withoutRef.slice(slash + 1);
		if (!host.includes(".") && host !== "localhost") return undefined;
		repo = `https://${withoutRef}`;
	}
	const normalized = path.replace(/\.git$/, "").replace(/^\/+/, "");
	if (!host || normalized.split("/").length < 2) return undefined;
	return { type: "git", repo, host, path: normalized, ...(ref ? { ref } : {}), pinned: Boolean(ref) };
}

function splitRef(url: string): { repo: string; ref?: string } {
	const cut = (head: string, rest: string, join: (head: string, path: string) => string) => {
		const at = rest.indexOf("@");
		if (at < 0) return { repo: url };
		const path = rest.slice(0, at);
		const ref = rest.slice(at + 1);
		return path && ref ? { repo: join(head, path), ref } : { repo: url };
	};
	const scpLike = url.match(/^git@([^:]+):(.+)$/);
	if (scpLike) return cut(scpLike[1] ?? "", scpLike[2] ?? "", (host, path) => `git@${host}:${path}`);
	if (url.includes("://")) {
		try {
			const parsed = new URL(url);
			return cut("", parsed.pathname.replace(/^\/+/, ""), (_, path) => {
				parsed.pathname = `/${path}`;
				return parsed.toString().replace(/\/$/, "");
			});
		} catch {
			return { repo: url };
		}
	}
	const slash = url.indexOf("/");
	if (slash < 0) return { repo: url };
	return cut(url.slice(0, slash), url.slice(slash + 1), (host, path) => `${host}/${path}`);
}

/** The source string of an entry (a string, or an object's `source`). */
export function packageSourceOf(entry: PackageSource): string {
	return typeof entry === "string" ? entry : entry.source;
}

/**
 * What makes two entries the same package (pi's identity): the npm name, the git host and path
 * (without the ref), or a local path resolved against its settings folder.
 */
export function packageIdentity(source: string, scope: PackageScope | undefined, roots: PackageRoots): string {
	const parsed = parsePackageSource(source);
	if (parsed.type === "npm") return `npm:${parsed.name}`;
	if (parsed.type === "git") return `git:${parsed.host}/${parsed.path}`;
	return `local:${resolveLocalPath(parsed.path, scope === undefined ? process.cwd() : baseDirOf(scope, roots), roots)}`;
}

/** The folder a scope's local paths resolve against (pi: the agent folder, the project folder). */
export function baseDirOf(scope: PackageScope, roots: PackageRoots): string {
	return scope === "project" ? roots.projectDir : roots.agentDir;
}

function resolveLocalPath(path: string, baseDir: string, roots: PackageRoots): string {
	return resolve(baseDir, expandHome(path.trim(), roots.home));
}

/**
 * Where a package is (or would be) installed; for a local path, the path itself.
 *
 * @example
 * ```ts
 * const roots = { agentDir: "/home/me/.settle/agent", projectDir: "/work/app/.pi" };
 * packageInstallPath(parsePackageSource("git:github.com/me/tools"), "user", roots); // "/home/me/.settle/agent/git/github.com/me/tools"
 * ```
 */
export function packageInstallPath(parsed: ParsedPackageSource, scope: PackageScope, roots: PackageRoots): string {
	if (parsed.type === "npm") {
		if (scope === "project") return join(roots.projectDir, "npm", "node_modules", parsed.name);
		return join(globalNpmRoot(roots.npmCommand), parsed.name);
	}
	if (parsed.type === "git") return join(baseDirOf(scope, roots), "git", parsed.host, parsed.path);
	return resolveLocalPath(parsed.path, baseDirOf(scope, roots), roots);
}

const npmRoots = new Map<string, string>();

/**
 * `npm root -g` (through `npmCommand`), asked once per command and process. Throws when npm cannot
 * say. Asking npm costs a start-up about 0.3 s, so the plain `npm` case is worked out as npm does
 * ({@link derivedNpmRoot}) and npm is asked only where a setting may move the folder.
 */
export function globalNpmRoot(npmCommand: readonly string[] | undefined): string {
	const [command, ...args] = npmCommand && npmCommand.length > 0 ? npmCommand : ["npm"];
	const key = [command, ...args].join("\0") + (process.env.npm_config_prefix ?? "");
	const known = npmRoots.get(key);
	if (known) return known;
	const derived = command === "npm" && args.length === 0 ? derivedNpmRoot() : undefined;
	if (derived) {
		npmRoots.set(key, derived);
		return derived;
	}
	const result = loadChildProcess().spawnSync(command!, [...args, "root", "-g"], {
		encoding: "utf-8",
		stdio: ["ignore", "pipe", "pipe"],
	});
	if (result.error || result.status !== 0) {
		throw new Error(
			`could not find npm's global folder (${[command, ...args, "root", "-g"].join(" ")}: ${result.error?.message ?? result.stderr.trim()})`,
		);
	}
	const root = result.stdout.trim();
	npmRoots.set(key, root);
	return root;
}

/**
 * npm's global folder as npm works it out on POSIX, without running it: `<prefix>/lib/node_modules`,
 * the prefix from `npm_config_prefix`, else from the `node` on the PATH that runs the `npm` on the
 * PATH (its folder's parent). Undefined, so that npm is asked, wherever something else may set the
 * prefix or move npm's configuration: Windows, `DESTDIR`/`PREFIX`, another config file named in the
 * environment, an npmrc npm reads (the user's, the global one, npm's own, a project's up from the
 * cwd) that mentions `prefix` or `globalconfig`, an `npm` that is not a global npm install, or a
 * folder that is not there.
 */
function derivedNpmRoot(): string | undefined {
	if (process.platform === "win32") return undefined;
	const env = process.env;
	const config = (name: string) => {
		const found = Object.keys(env).find((key) => key.toLowerCase() === `npm_config_${name}`);
		return found ? env[found] : undefined;
	};
	if (env.DESTDIR || env.PREFIX || config("globalconfig") || config("userconfig")) return undefined;
	const setsPrefix = (file: string) => {
		try {
			return /prefix|globalconfig/i.test(readFileSync(file, "utf8"));
		} catch (error) {
			return (error as NodeJS.ErrnoException).code !== "ENOENT";
		}
	};
	const home = env.HOME;
	if (!home || setsPrefix(join(home, ".npmrc"))) return undefined;
	for (let dir = resolve(process.cwd()); ; dir = dirname(dir)) {
		if (setsPrefix(join(dir, ".npmrc"))) return undefined;
		if (dirname(dir) === dir) break;
	}
	const fromEnv = config("prefix");
	if (fromEnv) {
		const root = join(resolve(fromEnv), "lib", "node_modules");
		return isDirectory(root) ? root : undefined;
	}
	const npm = onPath("npm");
	const node = onPath("node");
	if (!npm || !node) return undefined;
	// npm's own folder: a global install under <prefix>/lib/node_modules/npm.
	const npmDir = dirname(dirname(npm));
	if (!npmDir.endsWith(`${sep}lib${sep}node_modules${sep}npm`) || setsPrefix(join(npmDir, "npmrc"))) return undefined;
	const prefix = dirname(dirname(node));
	if (setsPrefix(join(prefix, "etc", "npmrc"))) return undefined;
	const root = join(prefix, "lib", "node_modules");
	return isDirectory(root) ? root : undefined;
}

/** The real path of the first executable `name` on the PATH. */
function onPath(name: string): string | undefined {
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		if (!dir) continue;
		try {
			const file = join(dir, name);
			accessSync(file, constants.X_OK);
			return realpathSync(file);
		} catch {
			// not here
		}
	}
	return undefined;
}

/** One package entry to load, from the settings file that listed it. */
export interface ScopedPackage {
	entry: PackageSource;
	scope: PackageScope;
}

/**
 * pi's dedupe: project entries first, then global ones; an entry whose package the project already
 * lists is dropped (the project's wins), and within one file the first entry wins.
 */
export function dedupePackages(entries: readonly ScopedPackage[], roots: PackageRoots): ScopedPackage[] {
	const seen = new Map<string, ScopedPackage>();
	for (const item of entries) {
		const identity = packageIdentity(packageSourceOf(item.entry), item.scope, roots);
		const existing = seen.get(identity);
		if (!existing || (item.scope === "project" && existing.scope === "user")) seen.set(identity, item);
	}
	return [...seen.values()];
}

/**
 * The `name` in a package folder's `package.json`, or undefined (no such file, no name, a plain
 * extension file): two entries naming the same package from two sources share it.
 */
export function packageManifestName(root: string): string | undefined {
	try {
		const name = (JSON.parse(readFileSync(join(root, "package.json"), "utf-8")) as { name?: unknown }).name;
		return typeof name === "string" && name !== "" ? name : undefined;
	} catch {
		return undefined;
	}
}

/** One file a package offers, and whether its manifest and the entry's filter leave it enabled. */
export interface PackageFile {
	path: string;
	enabled: boolean;
}

/**
 * The extension, skill and template files a package folder offers (pi's `collectPackageResources`),
 * each enabled or not under the entry's filter. A plain file is one extension. Undefined when the
 * folder has neither a `pi` manifest nor any conventional folder (pi then loads it as an extension).
 * The entries an extension sub-folder's own `package.json` names but lacks are added to `missing`,
 * those the entry's filter would load only.
 */
export function packageFiles(
	root: string,
	entry: PackageSource,
	missing?: MissingExtensionEntry[],
	unreadable?: UnreadableFolders,
): Record<PackageResourceKind, PackageFile[]> | undefined {
	const filter = typeof entry === "object" ? entry : undefined;
	const manifest = readPiManifest(root);
	const result = { extensions: [], skills: [], prompts: [] } as Record<PackageResourceKind, PackageFile[]>;
	if (!filter && !manifest && !PACKAGE_RESOURCE_KINDS.some((kind) => isDirectory(join(root, kind)))) return undefined;
	for (const kind of PACKAGE_RESOURCE_KINDS) {
		const patterns = filter?.[kind];
		if (patterns === undefined) {
			// pi: without a filter a manifest decides alone (a kind it does not name loads nothing); with one,
			// an omitted kind falls back to the conventional folder when the manifest does not name it either.
			const named = manifest?.[kind];
			const files =
				named !== undefined
					? manifestFiles(root, kind, named, missing, unreadable)
					: manifest && !filter
						? []
						: filesAt(kind, join(root, kind), true, missing, unreadable);
			result[kind] = files.map((path) => ({ path, enabled: true }));
			continue;
		}
		const named = manifest?.[kind];
		const absent: MissingExtensionEntry[] = [];
		const allowed =
			named && named.length > 0
				? manifestFiles(root, kind, named, absent, unreadable)
				: filesAt(kind, join(root, kind), true, absent, unreadable);
		// As for the files: only what the filter would load is missed.
		for (const found of absent) {
			const path = resolve(dirname(found.manifest), found.entry);
			if (patterns.length > 0 && applyFilters([path], patterns, root, true).length > 0) missing?.push(found);
		}
		// An empty array turns the kind off; patterns narrow what the manifest allows (plain entries are patterns too).
		const enabled = new Set(patterns.length === 0 ? [] : applyFilters(allowed, patterns, root, true));
		result[kind] = allowed.map((path) => ({ path, enabled: enabled.has(path) }));
	}
	return result;
}

/** The files a manifest's entries (paths, globs, then `!` / `+` / `-` overrides) allow. */
function manifestFiles(
	root: string,
	kind: PackageResourceKind,
	entries: readonly string[],
	missing?: MissingExtensionEntry[],
	unreadable?: UnreadableFolders,
): string[] {
	const isOverride = (entry: string) => entry.startsWith("!") || entry.startsWith("+") || entry.startsWith("-");
	const paths = entries
		.filter((entry) => !isOverride(entry))
		.flatMap((entry) => (/[*?]/.test(entry) ? globIn(root, entry) : [resolve(root, entry)]));
	const absent: MissingExtensionEntry[] = [];
	const files = paths.flatMap((path) => filesAt(kind, path, false, absent, unreadable));
	const overrides = entries.filter(isOverride);
	const kept = (path: string) => overrides.length === 0 || applyFilters([path], overrides, root).length > 0;
	missing?.push(...absent.filter((found) => kept(resolve(dirname(found.manifest), found.entry))));
	return overrides.length > 0 ? applyFilters(files, overrides, root) : files;
}

function filesAt(
	kind: PackageResourceKind,
	path: string,
	folderOnly = false,
	missing?: MissingExtensionEntry[],
	unreadable?: UnreadableFolders,
): string[] {
	if (isDirectory(path)) {
		if (kind === "extensions") return collectExtensionEntries(path, missing, unreadable);
		if (kind === "skills") return collectSkillFiles(path, "pi", unreadable);
		return collectMarkdownFiles(path, true, unreadable);
	}
	return !folderOnly && isFile(path) ? [path] : [];
}

/**
 * The extension entries a package's `pi` manifest names as plain paths that are not in the package
 * (pi-provider-qoder#21: `./src/index.ts` named, only `dist/` published), as written there; only
 * those the settings `entry`'s filter would load (`extensions: []` turns them all off).
 */
export function missingManifestExtensions(root: string, entry: PackageSource): string[] {
	const patterns = typeof entry === "object" ? entry.extensions : undefined;
	const named = readPiManifest(root)?.extensions ?? [];
	return named.filter((name) => {
		if (/^[!+-]|[*?]/.test(name)) return false;
		const path = resolve(root, name);
		// As packageFiles: an empty list turns the kind off; patterns narrow what the manifest allows.
		const loaded = !patterns || (patterns.length > 0 && applyFilters([path], patterns, root, true).length > 0);
		return loaded && !existsSync(path);
	});
}

type PiManifest = Partial<Record<PackageResourceKind | "themes", string[]>>;

function readPiManifest(root: string): PiManifest | undefined {
	try {
		const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf-8")) as { pi?: unknown };
		if (!pkg.pi || typeof pkg.pi !== "object") return undefined;
		const manifest: PiManifest = {};
		for (const kind of [...PACKAGE_RESOURCE_KINDS, "themes"] as const) {
			const value = (pkg.pi as Record<string, unknown>)[kind];
			if (Array.isArray(value)) manifest[kind] = value.filter((item): item is string => typeof item === "string");
		}
		return manifest;
	} catch {
		return undefined;
	}
}

/** Files and folders under `root` matching a manifest glob (no dot entries; node_modules only when named). */
function globIn(root: string, pattern: string): string[] {
	const isMatch = loadPicomatch()(pattern.replace(/^\.\//, ""));
	const matches: string[] = [];
	const walk = (dir: string) => {
		let names: string[];
		try {
			names = readdirSync(dir).sort();
		} catch {
			return;
		}
		for (const name of names) {
			if (name.startsWith(".")) continue;
			const path = join(dir, name);
			const rel = relative(root, path).split(sep).join("/");
			if (name === "node_modules" && !pattern.includes("node_modules")) continue;
			if (isMatch(rel)) matches.push(path);
			if (isDirectory(path)) walk(path);
		}
	};
	walk(root);
	return matches;
}

/** Whether a path exists (a package folder, installed or not). */
export function packageInstalled(path: string): boolean {
	return existsSync(path);
}
