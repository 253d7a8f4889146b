/**
 * Path handling for tool arguments: `~` expansion, a leading `@` (models copy file mentions
 * verbatim), odd Unicode spaces, and relative paths resolved against the session cwd.
 */
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { SettleError } from "../errors.js";
import { homeFolder } from "../settings/paths.js";

const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * The home folder a `~` path names, as the agent folder reads it: `homedir()` gave an empty HOME
 * back as "", so `~/notes.md` named `/notes.md`, and threw Node's bare error without a home.
 */
function home(path: string): string {
	const folder = homeFolder();
	if (folder !== undefined) return folder;
	throw new SettleError(
		"INVALID_ARGUMENT",
		`There is no home folder for ${path}: HOME is not an absolute path (or is not set, and this user has no passwd entry). Use an absolute path, or set HOME.`,
	);
}

/** `~` / `~/…` expanded and a leading `@` dropped; every other character kept as given. */
function expandHomeAndAt(filePath: string): string {
	const withoutAt = filePath.startsWith("@") ? filePath.slice(1) : filePath;
	if (withoutAt === "~") return home(withoutAt);
	if (withoutAt.startsWith("~/")) return home(withoutAt) + withoutAt.slice(1);
	return withoutAt;
}

/** Whether something (a file, a folder, a link even dangling) is at `path`. */
function entryExists(path: string): boolean {
	try {
		lstatSync(path);
		return true;
	} catch {
		return false;
	}
}

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
	if (normalized === "~") return home(normalized);
	if (normalized.startsWith("~/")) return home(normalized) + normalized.slice(1);
	return normalized;
}

/**
 * Absolute path for a tool argument: absolute paths stay, relative ones are resolved against `cwd`.
 * A path holding Unicode spaces names the entry spelled exactly so when there is one; otherwise
 * (a new file) those spaces become plain ones, as in {@link expandPath}.
 *
 * @example
 * ```ts
 * resolveToCwd("src/a.ts", "/repo"); // "/repo/src/a.ts"
 * resolveToCwd("~/notes.md", "/repo"); // "/home/me/notes.md" when HOME is /home/me
 * ```
 */
export function resolveToCwd(filePath: string, cwd: string): string {
	const expanded = expandPath(filePath);
	const normalized = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
	// A name that really holds a no-break space (macOS screenshots in many locales) names that
	// entry, not its plain-space twin (pi#8877, oh-my-pi#12805).
	const exact = expandHomeAndAt(filePath);
	if (exact === expanded) return normalized;
	const exactPath = isAbsolute(exact) ? exact : resolve(cwd, exact);
	return entryExists(exactPath) ? exactPath : normalized;
}

/**
 * Like {@link resolveToCwd}, but when the file does not exist tries the spellings macOS uses for
 * screenshot names (narrow no-break space before AM/PM, NFD normalization of the whole path or of
 * what lies below its deepest existing folder, curly apostrophe), then
 * the one entry of its folder whose name has Unicode spaces where the path has plain ones.
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
		// A Mac-named entry inside a folder whose own name is composed (`Projets été/Café`).
		nfdBelowExisting(resolved),
		resolved.replace(/'/g, "\u2019"),
		nfd.replace(/'/g, "\u2019"),
	];
	for (const variant of variants) {
		if (variant !== resolved && existsSync(variant)) return variant;
	}
	return siblingWithUnicodeSpaces(resolved) ?? resolved;
}

/** `path` with what lies below its deepest existing folder in NFD (the folder kept as spelled). */
function nfdBelowExisting(path: string): string {
	let base = dirname(path);
	while (!existsSync(base)) {
		const up = dirname(base);
		if (up === base) return path;
		base = up;
	}
	return base + path.slice(base.length).normalize("NFD");
}

/**
 * The one entry beside `path` whose name differs from it only by Unicode spaces where `path` has
 * plain ones (a Czech screenshot's `v\u00A013.05.05.png` typed as `v 13.05.05.png`); undefined when
 * none or several do.
 */
function siblingWithUnicodeSpaces(path: string): string | undefined {
	const name = basename(path);
	if (!name.includes(" ")) return undefined;
	let entries: string[];
	try {
		entries = readdirSync(dirname(path));
	} catch {
		return undefined;
	}
	const wanted = name.normalize("NFC");
	const matches = entries.filter((entry) => {
		const spaced = entry.replace(UNICODE_SPACES, " ");
		return spaced !== entry && spaced.normalize("NFC") === wanted;
	});
	return matches.length === 1 ? join(dirname(path), matches[0]!) : undefined;
}

/**
 * `text` in Unicode NFC. macOS writes names decomposed (NFD: `e` + U+0301, Hangul as jamo) while
 * models and keyboards type them composed, so name globs compare both sides in NFC (aside-codemode#30).
 * ASCII text is returned as it is, without the cost of normalizing.
 *
 * @example
 * ```ts
 * toNfc("cafe\u0301.md") === "caf\u00e9.md"; // true
 * ```
 */
export function toNfc(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, on purpose
	return /^[\x00-\x7f]*$/.test(text) ? text : text.normalize("NFC");
}
