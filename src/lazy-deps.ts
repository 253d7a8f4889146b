/**
 * Dependencies needed only by some operations (file locks, ignore rules, globs, diagram layout),
 * each required on first use instead of imported with Settle. A static `import` would load them
 * (and Node's CommonJS-from-ESM machinery) whenever Settle is imported, even when nothing locks,
 * walks, matches a file or draws a diagram.
 */
import { createRequire } from "node:module";
import type dagre from "@dagrejs/dagre";
import type ignore from "ignore";
import type picomatch from "picomatch";
import type lockfile from "proper-lockfile";

const require = createRequire(import.meta.url);

let ignoreModule: typeof ignore | undefined;
let picomatchModule: typeof picomatch | undefined;
let lockfileModule: typeof lockfile | undefined;
let dagreModule: typeof dagre | undefined;

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

/**
 * Node ignores SIGXFSZ, so a write past the file size limit (`ulimit -f`) fails with EFBIG, which
 * the session writer reports. proper-lockfile's signal-exit catches it instead, and when no other
 * listener is there re-raises it with the default action: the process died at the first write past
 * the limit, before anything was reported. With this listener too it leaves the signal alone, and
 * the signal stays caught (a no-op) should signal-exit let go of it.
 */
function keepFileSizeSignalHarmless(): void {
	// Only this package's own listener; not on Windows, which has no such signal.
	if (process.platform !== "win32" && !process.listeners("SIGXFSZ").includes(ignoreSignal)) {
		process.on("SIGXFSZ", ignoreSignal);
	}
}

function ignoreSignal(): void {}

/** The `proper-lockfile` package (cross-process file locks). */
export function loadLockfile(): typeof lockfile {
	if (!lockfileModule) {
		lockfileModule = require("proper-lockfile") as typeof lockfile;
		keepFileSizeSignalHarmless();
	}
	return lockfileModule;
}

/** `@dagrejs/dagre` (graph layout for SVG diagrams; its CommonJS build, same API as the ESM one). */
export function loadDagre(): typeof dagre {
	dagreModule ??= require("@dagrejs/dagre") as typeof dagre;
	return dagreModule;
}
