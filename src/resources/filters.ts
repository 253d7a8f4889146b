/**
 * pi's resource filter entries in settings arrays (`extensions`, `skills`, `prompts`):
 * a plain entry is a path to load; `!glob` excludes, `+path` force-includes and `-path`
 * force-excludes (exact paths); an entry with `*` or `?` is an include glob. Globs match the path
 * relative to the settings folder, the file name, or the absolute path (for `SKILL.md` files also
 * the skill folder).
 */
import { basename, dirname, relative, sep } from "node:path";
import { loadPicomatch } from "../lazy-deps.js";

function toPosix(path: string): string {
	return path.split(sep).join("/");
}

/** Whether an entry is a filter (not a plain path). */
export function isFilterEntry(entry: string): boolean {
	return (
		entry.startsWith("!") ||
		entry.startsWith("+") ||
		entry.startsWith("-") ||
		entry.includes("*") ||
		entry.includes("?")
	);
}

function candidatesFor(filePath: string, baseDir: string): string[] {
	const names = [toPosix(relative(baseDir, filePath)), basename(filePath), toPosix(filePath)];
	if (basename(filePath) === "SKILL.md") {
		const dir = dirname(filePath);
		names.push(toPosix(relative(baseDir, dir)), basename(dir), toPosix(dir));
	}
	return names;
}

// pi matches with minimatch, where a trailing `/**` needs at least one more path segment: `x/**`
// does not match `x` itself. picomatch lets it match, which made `!**/beta/**` exclude a skill
// through its bare folder name `beta` where pi keeps it. picomatch's `x/**/*` is minimatch's `x/**`.
function minimatchCompatible(pattern: string): string {
	return pattern.endsWith("/**") && pattern !== "/**" ? `${pattern}/*` : pattern;
}

function matchesGlob(filePath: string, patterns: string[], baseDir: string): boolean {
	if (patterns.length === 0) return false;
	const names = candidatesFor(filePath, baseDir);
	return patterns.some((pattern) => {
		const isMatch = loadPicomatch()(minimatchCompatible(toPosix(pattern)));
		return names.some((name) => isMatch(name));
	});
}

function matchesExact(filePath: string, patterns: string[], baseDir: string): boolean {
	if (patterns.length === 0) return false;
	const names = candidatesFor(filePath, baseDir).filter((_, index) => index !== 1 && index !== 4);
	return patterns.some((pattern) => {
		const normalized = toPosix(pattern.startsWith("./") || pattern.startsWith(".\\") ? pattern.slice(2) : pattern);
		return names.includes(normalized);
	});
}

function split(entries: readonly string[], plainAreIncludes = false) {
	const groups = {
		includes: [] as string[],
		excludes: [] as string[],
		forceIncludes: [] as string[],
		forceExcludes: [] as string[],
	};
	for (const entry of entries) {
		if (entry.startsWith("+")) groups.forceIncludes.push(entry.slice(1));
		else if (entry.startsWith("-")) groups.forceExcludes.push(entry.slice(1));
		else if (entry.startsWith("!")) groups.excludes.push(entry.slice(1));
		else if (plainAreIncludes || isFilterEntry(entry)) groups.includes.push(entry);
	}
	return groups;
}

/** Whether an auto-discovered file stays enabled under the settings entries (`!`, `+`, `-`). */
export function isEnabledByFilters(filePath: string, entries: readonly string[], baseDir: string): boolean {
	const { excludes, forceIncludes, forceExcludes } = split(entries);
	let enabled = !matchesGlob(filePath, excludes, baseDir);
	if (matchesExact(filePath, forceIncludes, baseDir)) enabled = true;
	if (matchesExact(filePath, forceExcludes, baseDir)) enabled = false;
	return enabled;
}

/** The files (found from plain entries) the filter entries leave enabled, in their order. */
export function applyFilters(
	files: readonly string[],
	entries: readonly string[],
	baseDir: string,
	/** A package filter's rule (pi): a plain entry is an include pattern too, not a path to add. */
	plainAreIncludes = false,
): string[] {
	const { includes, excludes, forceIncludes, forceExcludes } = split(entries, plainAreIncludes);
	let result = includes.length === 0 ? [...files] : files.filter((file) => matchesGlob(file, includes, baseDir));
	result = result.filter((file) => !matchesGlob(file, excludes, baseDir));
	for (const file of files) {
		if (!result.includes(file) && matchesExact(file, forceIncludes, baseDir)) result.push(file);
	}
	return result.filter((file) => !matchesExact(file, forceExcludes, baseDir));
}
