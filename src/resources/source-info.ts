/**
 * Source info of what the resource loader finds, pi 0.73.1's rules: a file's first registration
 * (settings entries, then the configuration folders, then explicit paths) decides it; a path
 * nothing registered gets {@link defaultSourceInfoForPath}.
 */
import { statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import type { SourceInfo } from "./types.js";

/** The configuration folders source info is counted from. */
export interface SourceInfoRoots {
	/** The global agent folder. */
	agentDir: string;
	/** The project's configuration folder (`.settle/`, or `.pi/` for a pi project). */
	projectDir: string;
}

/**
 * Source info of an explicit extension path (`additionalExtensionPaths`, the CLI's `-e`) that
 * discovery does not reach: pi labels it `cli`, scope `temporary`, without `baseDir`.
 *
 * @example
 * ```ts
 * cliSourceInfo("/tmp/deploy.ts"); // { path: "/tmp/deploy.ts", source: "cli", scope: "temporary", origin: "top-level" }
 * ```
 */
export function cliSourceInfo(path: string): SourceInfo {
	return { path, source: "cli", scope: "temporary", origin: "top-level" };
}

/**
 * pi's fallback for a path no discovery, settings entry or explicit path registered (e.g. one an
 * `extensionsOverride` adds): `<kind:name>` paths are synthetic (`source` = `kind`); a path
 * under the agent folder's or the project folder's `skills/`, `prompts/`, `themes/` or
 * `extensions/` is `local` with that scope and that folder as `baseDir`; anything else is
 * `local`, scope `temporary`, `baseDir` the folder itself or the file's folder. Must not throw
 * (a path that does not exist counts as a file).
 *
 * @example
 * ```ts
 * defaultSourceInfoForPath("/home/me/.settle/agent/extensions/x.ts", { agentDir: "/home/me/.settle/agent", projectDir: "/repo/.settle" });
 * // { path: …, source: "local", scope: "user", origin: "top-level", baseDir: "/home/me/.settle/agent/extensions" }
 * ```
 */
export function defaultSourceInfoForPath(path: string, roots: SourceInfoRoots): SourceInfo {
	if (path.startsWith("<") && path.endsWith(">")) {
		return { path, source: path.slice(1, -1).split(":")[0] || "temporary", scope: "temporary", origin: "top-level" };
	}
	const normalized = resolve(path);
	for (const [scope, dir] of [
		["user", roots.agentDir],
		["project", roots.projectDir],
	] as const) {
		for (const kind of ["skills", "prompts", "themes", "extensions"]) {
			const root = join(dir, kind);
			if (isUnder(normalized, root)) return { path, source: "local", scope, origin: "top-level", baseDir: root };
		}
	}
	return { path, source: "local", scope: "temporary", origin: "top-level", baseDir: folderOf(normalized) };
}

/**
 * The source info `registered` holds for `path` (pi's lookup: the path itself, else the first
 * registered path it lies under), with `path` as given; undefined when none applies.
 */
export function registeredSourceInfo(
	path: string,
	registered: ReadonlyMap<string, Omit<SourceInfo, "path">>,
): SourceInfo | undefined {
	const normalized = resolve(path);
	const exact = registered.get(normalized) ?? registered.get(path);
	if (exact) return { ...exact, path };
	for (const [registeredPath, info] of registered) {
		if (isUnder(normalized, resolve(registeredPath))) return { ...info, path };
	}
	return undefined;
}

function isUnder(path: string, root: string): boolean {
	return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function folderOf(path: string): string {
	try {
		if (statSync(path).isDirectory()) return path;
	} catch {
		// Not there: counted as a file.
	}
	return dirname(path);
}
