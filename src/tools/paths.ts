/**
 * Path handling for tool arguments: `~` expansion, a leading `@` (models copy file mentions
 * verbatim), odd Unicode spaces, and relative paths resolved against the session cwd.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";

const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * Expands `~` / `~/…`, drops a leading `@`, and turns exotic spaces into plain ones.
 *
 * @example
 * ```ts
 * expandPath("@~/notes.md"); // "/home/me/notes.md" when HOME is /home/me
 * expandPath("@src/a.ts"); // "src/a.ts"
 * ```
 */
export function expandPath(filePath: string): string {
	const withoutAt = filePath.startsWith("@") ? filePath.slice(1) : filePath;
	const normalized = withoutAt.replace(UNICODE_SPACES, " ");
	if (normalized === "~") return homedir();
	if (normalized.startsWith("~/")) return homedir() + normalized.slice(1);
	return normalized;
}

/**
 * Absolute path for a tool argument: absolute paths stay, relative ones are resolved against `cwd`.
 *
 * @example
 * ```ts
 * resolveToCwd("src/a.ts", "/repo"); // "/repo/src/a.ts"
 * resolveToCwd("~/notes.md", "/repo"); // "/home/me/notes.md" when HOME is /home/me
 * ```
 */
export function resolveToCwd(filePath: string, cwd: string): string {
	const expanded = expandPath(filePath);
	return isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
}

/**
 * Like {@link resolveToCwd}, but when the file does not exist tries the spellings macOS uses for
 * screenshot names (narrow no-break space before AM/PM, NFD normalization, curly apostrophe).
 * Returns the plain resolution when no variant exists.
 *
 * @example
 * ```ts
 * resolveReadPath("Screenshot 2024-05-01 at 9.41.12 AM.png", "/Users/me/Desktop");
 * // "/Users/me/Desktop/Screenshot 2024-05-01 at 9.41.12\u202FAM.png" when only that spelling exists
 * ```
 */
export function resolveReadPath(filePath: string, cwd: string): string {
	const resolved = resolveToCwd(filePath, cwd);
	if (existsSync(resolved)) return resolved;
	const nfd = resolved.normalize("NFD");
	const variants = [
		resolved.replace(/ (AM|PM)\./gi, "\u202F$1."),
		nfd,
		resolved.replace(/'/g, "\u2019"),
		nfd.replace(/'/g, "\u2019"),
	];
	for (const variant of variants) {
		if (variant !== resolved && existsSync(variant)) return variant;
	}
	return resolved;
}
