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
import { createRequire, Module } from "node:module";
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

/** `name` required on the first call and kept: a field read afterwards, not Node's require cache lookup. */
function requiredOnFirstUse<T>(name: string): () => T {
	let module: T | undefined;
	return () => {
		module ??= require(name) as T;
		return module;
	};
}

let lockfileModule: typeof lockfile | undefined;

/** The `ignore` package's factory (gitignore rules). */
export const loadIgnore = requiredOnFirstUse<typeof ignore>("ignore");

/** The `picomatch` package (glob matchers). */
export const loadPicomatch = requiredOnFirstUse<typeof picomatch>("picomatch");

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
		lockfileModule = requireWithStandIns("proper-lockfile", {
			// Only the default of its `fs` option, and Settle's locks (synchronous, `realpath: false`)
			// call the same node:fs functions through it: graceful-fs's fs copies and patches cost ~6 ms.
			[createRequire(require.resolve("proper-lockfile")).resolve("graceful-fs")]: require("node:fs"),
			// signal-exit 3 (its exit hook) asserts `typeof cb === "function"`: node:assert cost ~7 ms.
			assert: assertLoadedOnDemand(),
		}) as typeof lockfile;
		keepFileSizeSignalHarmless();
	}
	return lockfileModule;
}

/**
 * Requires `name` while `standIns` (module id → its exports) answer the `require`s of those ids.
 * They are taken out of the require cache again, so code loaded later gets the real modules; an id
 * already in the cache keeps its module. Saves what a package loads and Settle never uses.
 */
function requireWithStandIns(name: string, standIns: Record<string, unknown>): unknown {
	const placed: [string, Module][] = [];
	for (const [id, exports] of Object.entries(standIns)) {
		if (require.cache[id]) continue;
		const standIn = new Module(id);
		standIn.filename = id;
		standIn.loaded = true;
		standIn.exports = exports;
		require.cache[id] = standIn;
		placed.push([id, standIn]);
	}
	try {
		return require(name);
	} finally {
		for (const [id, standIn] of placed) if (require.cache[id] === standIn) delete require.cache[id];
	}
}

/**
 * `node:assert` loaded only when needed: an `equal` of identical values passes here; anything else
 * (a failing or loose `equal`, every other function) is the real module's, with its errors.
 */
function assertLoadedOnDemand(): unknown {
	const real = () => require("node:assert") as typeof import("node:assert");
	const equal = (actual: unknown, expected: unknown, message?: string | Error) => {
		if (actual !== expected) real().equal(actual, expected, message);
	};
	return new Proxy((value: unknown, message?: string | Error) => real().ok(value, message), {
		get: (_target, key) => (key === "equal" ? equal : Reflect.get(real(), key)),
	});
}

/** `@dagrejs/dagre` (graph layout for SVG diagrams; its CommonJS build, same API as the ESM one). */
export const loadDagre = requiredOnFirstUse<typeof dagre>("@dagrejs/dagre");

/** `node:child_process` (shell commands, `pi.exec`, `npm root -g`). */
export const loadChildProcess = requiredOnFirstUse<typeof childProcess>("node:child_process");

/** `node:crypto` (ids, hashes, temp-file names). */
export const loadCrypto = requiredOnFirstUse<typeof crypto>("node:crypto");

/** `node:worker_threads` (grep's line matcher, the image resizer). */
export const loadWorkerThreads = requiredOnFirstUse<typeof workerThreads>("node:worker_threads");

/** `node:v8` (heap limits for large session files). */
export const loadV8 = requiredOnFirstUse<typeof v8>("node:v8");

/** `node:stream/promises` (waiting for a tool's output file to flush). */
export const loadStreamPromises = requiredOnFirstUse<typeof streamPromises>("node:stream/promises");

/** `node:timers/promises` (the shell's kill-and-wait steps). */
export const loadTimersPromises = requiredOnFirstUse<typeof timersPromises>("node:timers/promises");

/** `node:http` (the live inspector's server). */
export const loadHttp = requiredOnFirstUse<typeof http>("node:http");

/** `node:readline` (the CLI's line input: chat, RPC). */
export const loadReadline = requiredOnFirstUse<typeof readline>("node:readline");
