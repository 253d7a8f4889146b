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
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { errorMessage, SettleError } from "../errors.js";
import { howToTrustProject } from "../settings/trust.js";
import { collectExtensionEntries, isDirectory, resolveExtensionEntries } from "./discovery.js";
import type { ExtensionFactory, ExtensionSource, LoadExtensionsResult } from "./types.js";

/** An extension module found on disk, not yet imported. */
export interface ExtensionCandidate {
	/** Absolute path of the module file. */
	path: string;
	source: Exclude<ExtensionSource, "inline">;
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
 * path does not exist.
 *
 * @example
 * ```ts
 * const paths = extensionEntriesAt(join(cwd, ".settle/extensions")); // absolute module paths, or []
 * ```
 */
export function extensionEntriesAt(path: string): string[] {
	if (!existsSync(path)) return [];
	if (!isDirectory(path)) return [path];
	return resolveExtensionEntries(path) ?? collectExtensionEntries(path);
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
 * exports, so pi extensions load unchanged) and `@sinclair/typebox` (the copy Settle uses) without
 * installing them next to itself. From the built package, `settle` is the very module the host
 * imported (jiti imports the bundle's ES modules natively), so classes and symbols are shared.
 * Must not throw; a module that cannot be found is left out.
 * @example
 * ```ts
 * const result = await loadExtensions(candidates, { cwd, agentDir, projectTrusted, aliases: defaultExtensionAliases() });
 * ```
 */
export function defaultExtensionAliases(): Record<string, string> {
	if (cachedAliases) return { ...cachedAliases };
	const aliases: Record<string, string> = {};
	const require = createRequire(import.meta.url);
	for (const specifier of ["@sinclair/typebox", "@sinclair/typebox/value", "@sinclair/typebox/compiler"]) {
		try {
			aliases[specifier] = require.resolve(specifier);
		} catch {
			// Not installed: the extension resolves it from its own folder, or fails with a clear error.
		}
	}
	Object.assign(aliases, ownModuleAliases());
	cachedAliases = aliases;
	return { ...aliases };
}

/**
 * Imports one module (TypeScript via jiti) and returns its default-exported factory. Throws the import
 * error, or a plain `Error` (`Extension does not export a valid factory function: <path>`) when the
 * module's default export is not a function.
 *
 * @example
 * ```ts
 * const factory = await importExtensionFactory(join(cwd, ".settle/extensions/deploy.ts"));
 * const harness = await createExtensionHarness({ factories: [factory] });
 * ```
 */
export async function importExtensionFactory(
	path: string,
	aliases = defaultExtensionAliases(),
): Promise<ExtensionFactory> {
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
	const exported = await jiti.import(path, { default: true });
	if (typeof exported !== "function") {
		throw new SettleError(
			"EXTENSION",
			`Extension does not export a valid factory function: ${path}`, // pi's text
			{ details: { path } },
		);
	}
	return exported as ExtensionFactory;
}

/**
 * Imports the candidates (in order) and adds inline factories. Must not throw: a module that
 * fails to import (throws, has a syntax error, misses a dependency, exports no factory) becomes an
 * `errors` entry and a diagnostic, and the others still load.
 * @example
 * ```ts
 * const result = await loadExtensions(extensionEntriesAt("./my-ext").map((path) => ({ path, source: "explicit" })), {
 *   cwd, agentDir, projectTrusted: false,
 * });
 * for (const extension of result.extensions) await extension.factory(api);
 * ```
 */
export async function loadExtensions(
	candidates: ExtensionCandidate[],
	options: LoadExtensionsOptions,
): Promise<LoadExtensionsResult> {
	const result: LoadExtensionsResult = { extensions: [], errors: [], skipped: [], diagnostics: [] };
	const jiti = createExtensionImporter(options.aliases ?? defaultExtensionAliases());
	const seen = new Set<string>();
	for (const candidate of candidates) {
		if (seen.has(candidate.path)) continue;
		seen.add(candidate.path);
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
			const factory = await importWith(jiti, candidate.path);
			result.extensions.push({ path: candidate.path, resolvedPath: candidate.path, source: candidate.source, factory });
		} catch (error) {
			const message = errorMessage(error);
			const text = message.startsWith("Extension does not export")
				? message
				: `Failed to load extension: ${firstLines(message, 4)}`;
			result.errors.push({ path: candidate.path, error: text });
			result.diagnostics.push({ type: "error", message: `${text} (${candidate.path})`, path: candidate.path });
		}
	}
	(options.inlineFactories ?? []).forEach((factory, index) => {
		const path = `<inline:${index + 1}>`;
		result.extensions.push({ path, resolvedPath: path, source: "inline", factory });
	});
	return result;
}

function firstLines(text: string, count: number): string {
	return text.split("\n").slice(0, count).join("\n").trim();
}
