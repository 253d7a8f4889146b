/**
 * Fresh extension modules on every load pass (pi#6000). jiti (`moduleCache: false`) re-evaluates
 * the files it transpiles, but hands `.mjs`, `.cjs` and `"type": "module"` `.js` files to Node's own
 * `import()`, which keeps each URL's module for the life of the process: an extension's edited
 * helper (or its whole built `dist/`) kept its old code across `/reload`. From the second pass on, a
 * resolve hook gives every file jiti imports natively, and every file those import, the pass number
 * as a query (`?settle-load=N`): a new URL, so a new module (unless none of its files changed since
 * the last pass, see {@link HOOKS}). Packages in `node_modules` and Settle's
 * own files keep one instance per process (their state and classes are shared; pi#6108).
 */
import { existsSync } from "node:fs";
import { createRequire, register } from "node:module";
import { dirname, join, sep } from "node:path";

/**
 * Runs in Node's hooks thread; `data` carries the shared pass number and the URLs never tagged. A
 * pass takes a new tag only when a file tagged with the last one changed (recorded as resolved:
 * mtime and size), else keeps it, so the same modules: every pass (each /new, /resume, SDK session)
 * would otherwise keep one more copy of every native module for the life of the process. One tag
 * for all, so two extensions importing one module share it. A CommonJS file counts as changed (its
 * own requires are not seen here), and so does one written less than 2 s before it was recorded (a
 * file system keeping mtimes to the second could hide the next edit).
 */
const HOOKS = `
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
let pass;
let own;
export function initialize(data) {
	pass = new Int32Array(data.pass);
	own = data.own;
}
const TAG = /[?&]settle-load=(\\d+)/;
/** Tagged URL -> { tag, mtimeMs, size, reusable }. */
const loaded = new Map();
let current = 0;
let decidedFor = 0;
function stamp(url) {
	try {
		const stats = statSync(fileURLToPath(url));
		return { mtimeMs: stats.mtimeMs, size: stats.size };
	} catch {
		return undefined;
	}
}
function unchanged(tag) {
	for (const [url, file] of loaded) {
		if (file.tag !== tag) continue;
		const now = stamp(url);
		if (!file.reusable || !now || now.mtimeMs !== file.mtimeMs || now.size !== file.size) return false;
	}
	return true;
}
function passTag() {
	const now = Atomics.load(pass, 0);
	if (decidedFor !== now) {
		decidedFor = now;
		if (current === 0 || !unchanged(current)) current = now;
	}
	return current;
}
export async function resolve(specifier, context, next) {
	const result = await next(specifier, context);
	const url = result.url;
	if (!url.startsWith("file:") || url.includes("/node_modules/") || url.startsWith(own) || TAG.test(url)) return result;
	const parent = context.parentURL ?? "";
	const tag = Number(TAG.exec(parent)?.[1] ?? (parent.includes("/node_modules/jiti/") ? passTag() : 0));
	if (tag === 0) return result;
	const tagged = url + (url.includes("?") ? "&" : "?") + "settle-load=" + tag;
	if (!loaded.has(tagged)) {
		const now = stamp(url);
		const reusable = now !== undefined && result.format !== "commonjs" && Date.now() - now.mtimeMs >= 2000;
		loaded.set(tagged, { tag, ...now, reusable });
	}
	return { ...result, url: tagged };
}
`;

let passes = 0;
let sharedPass: Int32Array | undefined;

/**
 * Starts a load pass over `entries` (extension module paths): drops their folders' CommonJS modules
 * from Node's require cache and, from the second pass on, makes native imports new modules.
 */
export function beginExtensionLoadPass(entries: readonly string[]): void {
	passes += 1;
	forgetCommonJs(entries);
	if (passes === 1) return;
	if (!sharedPass) {
		const buffer = new SharedArrayBuffer(4);
		sharedPass = new Int32Array(buffer);
		const own = new URL("../", import.meta.url).href;
		register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { pass: buffer, own } });
	}
	Atomics.store(sharedPass, 0, passes);
}

/**
 * A CommonJS helper loaded through `import()` is also kept in the require cache, which a new URL
 * does not bypass: forget the ones in each extension's package, and the local modules they required
 * (outside `node_modules`).
 */
function forgetCommonJs(entries: readonly string[]): void {
	const cache = createRequire(import.meta.url).cache;
	const roots = [...new Set(entries.map(packageRoot))].map((root) => (root.endsWith(sep) ? root : root + sep));
	const pending = Object.values(cache).filter(
		(module) => module && roots.some((root) => module.filename.startsWith(root)),
	);
	for (let module = pending.pop(); module; module = pending.pop()) {
		if (module.filename.includes(`${sep}node_modules${sep}`) || cache[module.filename] !== module) continue;
		delete cache[module.filename];
		pending.push(...module.children);
	}
}

/** The folder of the nearest `package.json` above `entry`, else the entry's own folder. */
function packageRoot(entry: string): string {
	for (let dir = dirname(entry); ; dir = dirname(dir)) {
		if (existsSync(join(dir, "package.json"))) return dir;
		if (dirname(dir) === dir) return dirname(entry);
	}
}
