/**
 * Extension discovery and import. Extensions are TypeScript or JavaScript modules whose default
 * export is a factory `(api) => void | Promise<void>`; they are imported with jiti (no build step)
 * and NOT called here: the extension runner calls each factory with its API object.
 *
 * Discovery, in load order (pi's): explicit paths (`additionalExtensionPaths`), the project
 * (`.settle/extensions` or `.pi/extensions`, then project settings `extensions`), the global agent
 * folder (`<agentDir>/extensions`, then global settings `extensions`), then inline factories.
 * In an extensions folder: `*.ts` / `*.js` files, and sub-folders with a `package.json`
 * `settle.extensions` / `pi.extensions` manifest or an `index.ts` / `index.js`.
 *
 * A project's extensions are imported only when the project is trusted; otherwise they are listed
 * in `skipped` with a diagnostic saying how to trust it, and their code is never read or run.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire, SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { errorMessage, SettleError } from "../errors.js";
import { whileLoading } from "../extensions/loading-now.js";
import { thrownAtPosition } from "../extensions/thrown-at.js";
import { resolveProjectConfigDir } from "../settings/paths.js";
import { howToTrustProject } from "../settings/trust.js";
import { collectExtensionEntries, isDirectory, isFile, type MissingExtensionEntry } from "./discovery.js";
import { beginExtensionLoadPass } from "./fresh-imports.js";
import { defaultSourceInfoForPath } from "./source-info.js";
import type { ExtensionFactory, ExtensionSource, LoadExtensionsResult, SourceInfo } from "./types.js";

/** An extension module found on disk, not yet imported. */
export interface ExtensionCandidate {
	/** Absolute path of the module file. */
	path: string;
	source: Exclude<ExtensionSource, "inline">;
	/** What the loaded extension reports as its source (default: pi's rule for a path nothing registered). */
	sourceInfo?: SourceInfo;
}

/** What {@link loadExtensions} needs besides the candidates. */
export interface LoadExtensionsOptions {
	cwd: string;
	agentDir: string;
	/** Whether `project` candidates may be imported. */
	projectTrusted: boolean;
	/** SDK inline factories, appended as `<inline:N>`. */
	inlineFactories?: readonly ExtensionFactory[];
	/** Module aliases for extension imports (default {@link defaultExtensionAliases}). */
	aliases?: Record<string, string>;
}

/**
 * The modules found in a folder or file path (a file is itself; a folder per pi's rules); [] when the
 * path does not exist. Entries a folder's `package.json` names but does not have are added to
 * `missing`; a folder that cannot be listed (EACCES, …) to `unreadable`, by path, with the error's text.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 *
 * const paths = extensionEntriesAt(join(cwd, ".settle/extensions")); // absolute module paths, or []
 * ```
 */
export function extensionEntriesAt(
	path: string,
	missing?: MissingExtensionEntry[],
	unreadable?: Map<string, string>,
): string[] {
	if (!existsSync(path)) return [];
	if (!isDirectory(path)) return [path];
	return collectExtensionEntries(path, missing, unreadable);
}

let cachedAliases: Record<string, string> | undefined;

/**
 * This package's own modules that extensions may import, in its two layouts: the bundle (`dist/`,
 * entry files next to the chunk running this code; see scripts/build.mjs) and the sources (`src/`,
 * run by tsx or vitest, or compiled file by file).
 */
const OWN_MODULES = {
	bundle: {
		settle: "./index.js",
		"settle/testing": "./testing.js",
		"settle/inspect": "./inspect.js",
		"@mariozechner/pi-coding-agent": "./pi-compat.js",
	},
	sources: {
		settle: "../index",
		"settle/testing": "../testing/index",
		"settle/inspect": "../inspect/index",
		"@mariozechner/pi-coding-agent": "../extensions/pi-compat",
	},
} as const;

/** Absolute paths of {@link OWN_MODULES}: the bundle's when all its entries are here, else the sources'. */
function ownModuleAliases(): Record<string, string> {
	const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
	const bundle = Object.entries(OWN_MODULES.bundle).map(([specifier, file]) => [specifier, here(file)] as const);
	if (bundle.every(([, path]) => existsSync(path))) return Object.fromEntries(bundle);
	const aliases: Record<string, string> = {};
	for (const [specifier, base] of Object.entries(OWN_MODULES.sources)) {
		const path = [".ts", ".js"].map((extension) => here(base + extension)).find((file) => existsSync(file));
		if (path) aliases[specifier] = path;
	}
	return aliases;
}

/**
 * Aliases that let an extension in any folder import `settle` (this package; also `settle/testing`
 * and `settle/inspect`), `@mariozechner/pi-coding-agent` (resolved to Settle's pi-compatible value
 * exports, so pi extensions load unchanged), `@sinclair/typebox` (the copy Settle uses), pi's
 * `typebox` (the one installed, else Settle's `@sinclair/typebox`, whose `Type` builders pi's
 * examples use alike) and `@mariozechner/pi-ai` when it is installed next to Settle, without
 * installing them next to the extension. From the built package, `settle` is the very module the
 * host imported (jiti imports the bundle's ES modules natively), so classes and symbols are shared.
 * Must not throw; a module that cannot be found is left out.
 * @example
 * ```ts
 * const candidates = extensionEntriesAt(`${cwd}/.settle/extensions`).map((path) => ({ path, source: "project" as const }));
 * const result = await loadExtensions(candidates, { cwd, agentDir, projectTrusted: true, aliases: defaultExtensionAliases() });
 * ```
 */
export function defaultExtensionAliases(): Record<string, string> {
	if (cachedAliases) return { ...cachedAliases };
	const require = createRequire(import.meta.url);
	const aliases = libraryAliases((specifier) => resolveInstalledModule(require, specifier));
	Object.assign(aliases, ownModuleAliases());
	cachedAliases = aliases;
	return { ...aliases };
}

/**
 * The third-party modules extensions may import without installing them, given a resolver that
 * returns a module's entry file or undefined when it is not installed. pi resolves the same
 * specifiers for its extensions: `typebox` (TypeBox 1.x) and `@mariozechner/pi-ai`.
 */
export function libraryAliases(resolveModule: (specifier: string) => string | undefined): Record<string, string> {
	const aliases: Record<string, string> = {};
	const add = (specifier: string, target = specifier) => {
		const path = resolveModule(target);
		if (path) aliases[specifier] = path;
	};
	for (const specifier of ["@sinclair/typebox", "@sinclair/typebox/value", "@sinclair/typebox/compiler"])
		add(specifier);
	// pi's examples import `Type` from "typebox"; without TypeBox 1.x installed, Settle's 0.34 builds the same schemas.
	for (const [specifier, fallback] of [
		["typebox", "@sinclair/typebox"],
		["typebox/value", "@sinclair/typebox/value"],
	] as const) {
		add(specifier, resolveModule(specifier) ? specifier : fallback);
	}
	add("typebox/compile");
	// The optional peer: when the host has it, extensions get the same copy wherever they live.
	add("@mariozechner/pi-ai");
	return aliases;
}

/**
 * A module's entry file as Node resolves it from this package, for CommonJS and ES-module-only
 * packages alike (`require.resolve` refuses the latter). Undefined when it is not installed.
 */
function resolveInstalledModule(require: NodeJS.Require, specifier: string): string | undefined {
	try {
		return require.resolve(specifier);
	} catch {
		// ES-module-only exports: read the package's `exports` below.
	}
	const parts = specifier.split("/");
	const nameLength = specifier.startsWith("@") ? 2 : 1;
	const name = parts.slice(0, nameLength).join("/");
	const subpath = parts.length > nameLength ? `./${parts.slice(nameLength).join("/")}` : ".";
	for (const dir of require.resolve.paths(name) ?? []) {
		const packageDir = join(dir, name);
		const manifest = join(packageDir, "package.json");
		if (!existsSync(manifest)) continue;
		try {
			const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { exports?: unknown; main?: string };
			const exportsField = pkg.exports;
			let entry: unknown;
			if (exportsField === undefined) entry = subpath === "." ? (pkg.main ?? "index.js") : subpath;
			else if (typeof exportsField === "string" || Array.isArray(exportsField))
				entry = subpath === "." ? exportsField : undefined;
			else {
				const map = exportsField as Record<string, unknown>;
				const hasSubpaths = Object.keys(map).some((key) => key.startsWith("."));
				entry = hasSubpaths ? map[subpath] : subpath === "." ? map : undefined;
			}
			const target = importTarget(entry);
			if (!target) return undefined;
			const path = join(packageDir, target);
			return existsSync(path) ? path : undefined;
		} catch {
			return undefined;
		}
	}
	return undefined;
}

/** The file an `exports` entry gives an ES-module import (conditions `import`, `node`, `default`). */
function importTarget(entry: unknown): string | undefined {
	if (typeof entry === "string") return entry;
	if (Array.isArray(entry)) {
		for (const item of entry) {
			const target = importTarget(item);
			if (target) return target;
		}
		return undefined;
	}
	if (entry && typeof entry === "object") {
		const conditions = entry as Record<string, unknown>;
		for (const condition of ["import", "node", "default"]) {
			if (condition in conditions) {
				const target = importTarget(conditions[condition]);
				if (target) return target;
			}
		}
	}
	return undefined;
}

/**
 * Imports one module (TypeScript via jiti) and returns its default-exported factory. Throws the import
 * error, or a plain `Error` (`Extension does not export a valid factory function: <path>`) when the
 * module's default export is not a function.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { createExtensionHarness } from "settle/testing";
 *
 * const factory = await importExtensionFactory(join(cwd, ".settle/extensions/deploy.ts"));
 * const harness = await createExtensionHarness({ factories: [factory] });
 * ```
 */
export async function importExtensionFactory(
	path: string,
	aliases = defaultExtensionAliases(),
): Promise<ExtensionFactory> {
	beginExtensionLoadPass([path]);
	return importWith(createExtensionImporter(aliases), path);
}

type Importer = ReturnType<typeof import("jiti").createJiti>;

/** jiti (and the Babel it bundles) loads on the first extension import, not with Settle. */
let jitiModule: typeof import("jiti") | undefined;
function createJiti(...args: Parameters<typeof import("jiti").createJiti>): Importer {
	jitiModule ??= createRequire(import.meta.url)("jiti") as typeof import("jiti");
	return jitiModule.createJiti(...args);
}

/**
 * A jiti instance for one load pass: no module cache (a reload sees edited files), transpiled
 * output cached on disk by content hash in the OS temp folder (not in node_modules).
 */
function createExtensionImporter(aliases: Record<string, string>): Importer {
	return createJiti(import.meta.url, { moduleCache: false, fsCache: JITI_CACHE_DIR, alias: aliases });
}

const JITI_CACHE_DIR = join(tmpdir(), `settle-jiti-cache-${process.getuid?.() ?? "user"}`);

async function importWith(jiti: Importer, path: string): Promise<ExtensionFactory> {
	let exported: unknown;
	try {
		exported = isCommonJsFile(path) ? requireFresh(path) : await jiti.import(path, { default: true });
	} catch (error) {
		// jiti's transpiler handles what Node's require cannot: the aliases (settle, pi's packages),
		// ES modules and TypeScript among the requires, and a syntax error's position.
		if (!needsTranspiler(error)) throw error;
		exported = await jiti.import(path, { default: true });
	}
	if (typeof exported !== "function") {
		throw new SettleError(
			"EXTENSION",
			`Extension does not export a valid factory function: ${path} (${exportedKind(exported)}). Make its default export the factory: export default function (pi) { … }.`, // pi's text, then what to do
			{ details: { path } },
		);
	}
	return exported as ExtensionFactory;
}

/** What a module gave instead of a factory (a default export, else its named exports), in an author's words. */
function exportedKind(exported: unknown): string {
	if (exported === undefined) return "it has no default export";
	if (exported === null || typeof exported !== "object")
		return `it gives ${exported === null ? "null" : `a ${typeof exported}`}`;
	const names = Object.keys(exported).filter((name) => name !== "__esModule");
	return names.length === 0
		? "it gives an empty object"
		: `it gives an object with ${names.join(", ")}, not a function`;
}

/**
 * Imports the candidates (in order) and adds inline factories. Must not throw: a module that
 * fails to import (throws, has a syntax error, misses a dependency, exports no factory) becomes an
 * `errors` entry and a diagnostic, and the others still load.
 * @example
 * ```ts
 * const result = await loadExtensions(extensionEntriesAt("./my-ext").map((path) => ({ path, source: "explicit" as const })), {
 *   cwd, agentDir, projectTrusted: false,
 * });
 * for (const { path, error } of result.errors) console.error(`${path}: ${error}`);
 * ```
 */
export async function loadExtensions(
	candidates: ExtensionCandidate[],
	options: LoadExtensionsOptions,
): Promise<LoadExtensionsResult> {
	const result: LoadExtensionsResult = { extensions: [], errors: [], skipped: [], diagnostics: [] };
	// Made on the first file to import: a run without extension files never loads jiti (~65 ms of CPU
	// per process) nor resolves the aliases' modules.
	let jiti: Importer | undefined;
	const importer = () => {
		if (!jiti) beginExtensionLoadPass(candidates.map((candidate) => candidate.path));
		jiti ??= createExtensionImporter(options.aliases ?? defaultExtensionAliases());
		return jiti;
	};
	const roots = { agentDir: options.agentDir, projectDir: resolveProjectConfigDir(options.cwd).dir };
	const seen = new Set<string>();
	for (const candidate of candidates) {
		// By real path, as pi: an explicit path through a symlink to a discovered module loads it once (the first).
		const real = realPathOrSelf(candidate.path);
		if (seen.has(real)) continue;
		seen.add(real);
		if (candidate.source === "project" && !options.projectTrusted) {
			result.skipped.push({ path: candidate.path, source: "project", reason: "untrusted-project" });
			result.diagnostics.push({
				type: "warning",
				message: `Project extension not loaded: ${candidate.path}. The project ${options.cwd} is not trusted, so Settle does not import or run its extensions. ${howToTrustProject(options.cwd, options.agentDir)}`,
				path: candidate.path,
			});
			continue;
		}
		try {
			const factory = await whileLoading(candidate.path, "module", () => importWith(importer(), candidate.path));
			result.extensions.push({
				path: candidate.path,
				resolvedPath: candidate.path,
				source: candidate.source,
				sourceInfo: candidate.sourceInfo ?? defaultSourceInfoForPath(candidate.path, roots),
				factory,
			});
		} catch (error) {
			const message = errorMessage(error);
			const text = message.startsWith("Extension does not export")
				? message
				: `Failed to load extension: ${withInstallHint(firstLines(message, 4))}${typeScriptInJavaScriptHint(importer(), candidate.path, message)}${importThrownAtText(error, candidate.path)}`;
			result.errors.push({ path: candidate.path, error: text });
			result.diagnostics.push({ type: "error", message: `${text} (${candidate.path})`, path: candidate.path });
		}
	}
	(options.inlineFactories ?? []).forEach((factory, index) => {
		const path = `<inline:${index + 1}>`;
		result.extensions.push({
			path,
			resolvedPath: path,
			source: "inline",
			sourceInfo: defaultSourceInfoForPath(path, roots),
			factory,
		});
	});
	return result;
}

/**
 * ` (thrown at file.ts:line)` for a module that threw while it was imported, its line in the
 * extension's own file (the first frame there, as for a factory), or "" when the stack never
 * passes through that file or the message names the place already (a parser's error). jiti runs
 * TypeScript and ES-module syntax transpiled, and the transpiler can move code down (comments
 * above the imports: pi's modal-editor.ts threw at line 32 for its line 28), so such a line is
 * mapped back through the transpiler's source map; none is given when that fails.
 */
function importThrownAtText(error: unknown, path: string): string {
	if (!(error instanceof Error) || error.message.includes(`${path}:`)) return "";
	const at = thrownAtPosition(error.stack, path);
	if (!at) return "";
	const line = transpiledByJiti(path) ? sourceLine(path, at) : at.line;
	return line === undefined ? "" : ` (thrown at ${basename(path)}:${line})`;
}

/**
 * Whether jiti imports `path` transpiled: TypeScript, and a `.js` file outside a `"type": "module"`
 * package holding ES-module syntax (CommonJS is required as it is; `.mjs` and type-module `.js` are
 * imported natively).
 */
function transpiledByJiti(path: string): boolean {
	if (/\.[cm]?tsx?$/.test(path)) return true;
	return path.endsWith(".js") && !isCommonJsFile(path) && nearestPackageType(dirname(path)) !== "module";
}

/**
 * The line of `path`'s source that jiti's output has at `at`, through a source map of the same
 * transform. Undefined on the output's first line, where the loader's wrapper shifts the column
 * the map needs, and when no mapping is found.
 */
function sourceLine(path: string, at: { line: number; column: number }): number | undefined {
	if (at.line === 1) return undefined;
	try {
		const source = readFileSync(path, "utf8");
		const mapper = createJiti(import.meta.url, { fsCache: false, moduleCache: false, sourceMaps: true });
		const output = mapper.transform({ source, filename: path, ts: /\.[cm]?tsx?$/.test(path), async: true });
		const inline = /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,(\S+)/.exec(output)?.[1];
		if (!inline) return undefined;
		const map = new SourceMap(JSON.parse(Buffer.from(inline, "base64").toString("utf8")));
		const entry = map.findEntry(at.line - 1, at.column - 1) as { originalLine?: number };
		return entry.originalLine === undefined ? undefined : entry.originalLine + 1;
	} catch {
		return undefined;
	}
}

/**
 * A missing package says how to get it (the first line of Node's "Cannot find module 'x'" does not);
 * a missing relative file is left as it is.
 */
function withInstallHint(message: string): string {
	const missing = /^Cannot find (?:module|package) '([^']+)'/.exec(message)?.[1];
	if (!missing || missing.startsWith(".") || isAbsolute(missing)) return message;
	const parts = missing.split("/");
	const name = parts.slice(0, missing.startsWith("@") ? 2 : 1).join("/");
	const newline = message.indexOf("\n");
	const first = newline === -1 ? message : message.slice(0, newline);
	const rest = newline === -1 ? "" : message.slice(newline);
	return `${first}. Install it where the extension can find it: npm install ${name} in the extension's folder or a folder above it.${rest}`;
}

/**
 * The marker jiti puts in a transform that failed. Spelled out as a literal, it would sit in the
 * bundle's shared chunk, and jiti never caches a transform whose output holds it: each `require`
 * of `settle` from a CommonJS extension then transpiled the whole chunk again (~3 s of CPU).
 */
const JITI_ERROR = ["__JITI", "ERROR__"].join("_");

/**
 * TypeScript in a `.js` file (gsd-2#2381) fails as a bare parse error ("Unexpected reserved word
 * 'interface'"). When the file the error names (else the entry) is `.js` and parses as TypeScript
 * but not as JavaScript, say so and what to do; any other syntax error gets nothing added.
 */
function typeScriptInJavaScriptHint(jiti: Importer, entry: string, message: string): string {
	if (!/ParseError|SyntaxError/.test(message)) return "";
	const file = fileNamedIn(message) ?? entry;
	if (!/\.[cm]?js$/.test(file)) return "";
	try {
		const source = readFileSync(file, "utf8");
		// Valid JavaScript parses as TypeScript too: the error then lies elsewhere.
		const parses = (filename: string, ts: boolean) =>
			!jiti.transform({ source, filename, ts, async: true }).includes(JITI_ERROR);
		if (parses(file, false) || !parses(file.replace(/js$/, "ts"), true)) return "";
	} catch {
		return "";
	}
	return `: this JavaScript file holds TypeScript; rename it to .${/\.([cm]?)js$/.exec(file)?.[1] ?? ""}ts (Settle transpiles TypeScript) or compile it to JavaScript.`;
}

/**
 * The existing file an error message names as `<path>:<line>:<column>`: the longest such path, as
 * it may hold spaces (`C:\Users\Jane Doe\…`).
 */
function fileNamedIn(message: string): string | undefined {
	for (const position of message.matchAll(/:\d+:\d+/g)) {
		const before = message.slice(0, position.index);
		// Every word start, first to last: the first that starts a file's path is the whole path.
		const starts = [0, ...[...before.matchAll(/\s(?=\S)/g)].map((space) => space.index + 1)];
		const file = starts.map((start) => before.slice(start)).find(isFile);
		if (file !== undefined) return file;
	}
	return undefined;
}

/**
 * Whether jiti would hand `path` to Node as CommonJS (`.cjs`, or `.js` outside a `"type": "module"`
 * package with no `import` / `export` statement). Node caches those in its ES-module loader for
 * good, so a reload would keep the old code: {@link requireFresh} loads them instead.
 */
function isCommonJsFile(path: string): boolean {
	if (path.endsWith(".cjs")) return true;
	if (!path.endsWith(".js") || nearestPackageType(dirname(path)) === "module") return false;
	try {
		return !/^\s*(import|export)\b(?!\s*\()/m.test(readFileSync(path, "utf8"));
	} catch {
		return false; // jiti reports the read error
	}
}

const TRANSPILER_ERROR_CODES = new Set([
	"MODULE_NOT_FOUND",
	"ERR_REQUIRE_ESM",
	"ERR_REQUIRE_ASYNC_MODULE",
	"ERR_UNKNOWN_FILE_EXTENSION",
]);

function needsTranspiler(error: unknown): boolean {
	if (error instanceof SyntaxError) return true;
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && TRANSPILER_ERROR_CODES.has(code);
}

function nearestPackageType(dir: string): string | undefined {
	for (let current = dir; ; current = dirname(current)) {
		const manifest = join(current, "package.json");
		if (existsSync(manifest)) {
			try {
				return (JSON.parse(readFileSync(manifest, "utf8")) as { type?: string }).type;
			} catch {
				return undefined;
			}
		}
		if (dirname(current) === current) return undefined;
	}
}

/**
 * Requires a CommonJS extension after forgetting it and the local (non-node_modules) modules it
 * required earlier, so a reload runs the edited code. The default export is the factory
 * (`module.exports = fn`, or `exports.default = fn`).
 */
function requireFresh(path: string): unknown {
	const require = createRequire(path);
	const cache = require.cache;
	const pending: NodeJS.Module[] = [];
	const cached = cache[path] ?? cache[realPathOrSelf(path)];
	if (cached) pending.push(cached);
	const seen = new Set<NodeJS.Module>();
	for (let module = pending.pop(); module; module = pending.pop()) {
		if (seen.has(module)) continue;
		seen.add(module);
		if (module.filename.includes(`${sep}node_modules${sep}`)) continue;
		delete cache[module.filename];
		pending.push(...module.children);
	}
	const exported = require(path) as { default?: unknown } | undefined;
	return typeof exported === "function" ? exported : (exported?.default ?? exported);
}

function realPathOrSelf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function firstLines(text: string, count: number): string {
	return text.split("\n").slice(0, count).join("\n").trim();
}
