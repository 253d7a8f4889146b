/**
 * Dependencies needed only by some operations (file locks, ignore rules, globs, diagram layout),
 * each required on first use instead of imported with Settle. A static `import` would load them
 * (and Node's CommonJS-from-ESM machinery) whenever Settle is imported, even when nothing locks,
 * walks, matches a file or draws a diagram. The same for the Node built-ins only some operations
 * use: `node:child_process` (with net, dgram and streams), `node:crypto`, `node:worker_threads` and
 * `node:v8` add 3 MiB of RSS to `import "settle"` and ~10 ms to every `settle` start.
 */

import type * as childProcess from "node:child_process";
import type * as crypto from "node:crypto";
import type * as http from "node:http";
import { createRequire } from "node:module";
import type * as readline from "node:readline";
import type * as streamPromises from "node:stream/promises";
import type * as timersPromises from "node:timers/promises";
import type * as v8 from "node:v8";
import type * as workerThreads from "node:worker_threads";
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

let childProcessModule: typeof childProcess | undefined;
let cryptoModule: typeof crypto | undefined;
let workerThreadsModule: typeof workerThreads | undefined;
let v8Module: typeof v8 | undefined;
let httpModule: typeof http | undefined;
let readlineModule: typeof readline | undefined;
let streamPromisesModule: typeof streamPromises | undefined;
let timersPromisesModule: typeof timersPromises | undefined;

/** `node:child_process` (shell commands, `pi.exec`, `npm root -g`). */
export function loadChildProcess(): typeof childProcess {
	childProcessModule ??= require("node:child_process") as typeof childProcess;
	return childProcessModule;
}

/** `node:crypto` (ids, hashes, temp-file names). */
export function loadCrypto(): typeof crypto {
	cryptoModule ??= require("node:crypto") as typeof crypto;
	return cryptoModule;
}

/** `node:worker_threads` (grep's line matcher, the image resizer). */
export function loadWorkerThreads(): typeof workerThreads {
	workerThreadsModule ??= require("node:worker_threads") as typeof workerThreads;
	return workerThreadsModule;
}

/** `node:v8` (heap limits for large session files). */
export function loadV8(): typeof v8 {
	v8Module ??= require("node:v8") as typeof v8;
	return v8Module;
}

/** `node:stream/promises` (waiting for a tool's output file to flush). */
export function loadStreamPromises(): typeof streamPromises {
	streamPromisesModule ??= require("node:stream/promises") as typeof streamPromises;
	return streamPromisesModule;
}

/** `node:timers/promises` (the shell's kill-and-wait steps). */
export function loadTimersPromises(): typeof timersPromises {
	timersPromisesModule ??= require("node:timers/promises") as typeof timersPromises;
	return timersPromisesModule;
}

/** `node:http` (the live inspector's server). */
export function loadHttp(): typeof http {
	httpModule ??= require("node:http") as typeof http;
	return httpModule;
}

/** `node:readline` (the CLI's line input: chat, RPC). */
export function loadReadline(): typeof readline {
	readlineModule ??= require("node:readline") as typeof readline;
	return readlineModule;
}
