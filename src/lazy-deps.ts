/**
 * CommonJS dependencies needed only by some operations (file locks, ignore rules, globs), each
 * required on first use instead of imported with Settle. A static `import` would load them (and
 * Node's CommonJS-from-ESM machinery) whenever Settle is imported, even when nothing locks, walks
 * or matches a file.
 */
import { createRequire } from "node:module";
import type ignore from "ignore";
import type picomatch from "picomatch";
import type lockfile from "proper-lockfile";

const require = createRequire(import.meta.url);

let ignoreModule: typeof ignore | undefined;
let picomatchModule: typeof picomatch | undefined;
let lockfileModule: typeof lockfile | undefined;

/** The `ignore` package's factory (gitignore rules). */
export function loadIgnore(): typeof ignore {
	ignoreModule ??= require("ignore") as typeof ignore;
	return ignoreModule;
}

/** The `picomatch` package (glob matchers). */
export function loadPicomatch(): typeof picomatch {
	picomatchModule ??= require("picomatch") as typeof picomatch;
	return picomatchModule;
}

/** The `proper-lockfile` package (cross-process file locks). */
export function loadLockfile(): typeof lockfile {
	lockfileModule ??= require("proper-lockfile") as typeof lockfile;
	return lockfileModule;
}
