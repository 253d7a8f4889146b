/**
 * The `settle` command as published, for tests that start it many times (`cliCommand()` in
 * helpers.ts): the bundle
 * `scripts/build.mjs` makes of the CURRENT sources (what `npm run build` ships as dist/cli.js).
 * Started through tsx, each child spends ~0.5 s of CPU loading ~200 TypeScript modules through
 * the loader hooks; the bundle starts in ~0.07 s. It is built once per content of the sources
 * (src/, machines/, the build script, package.json, tsconfig.json) into the git-ignored
 * `.tmp/cli-bundle/<hash>/` inside the repository (so its bare imports resolve from node_modules),
 * and reused by every test file and run until a source changes (a mutant, an edit): never stale.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
// Only a function from helpers.ts, which imports cliBundle from here: a function declaration is
// bound before either module runs, whichever of the two is imported first.
import { buildBundle } from "../package/helpers.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUNDLES = join(ROOT, ".tmp", "cli-bundle");
/** Bundles of other sources older than this are removed when a new one is built. */
const STALE_MS = 60 * 60 * 1000;

let memo: string | undefined;

/** The path of the bundled `cli.js` of the current sources (built on first use, see above). */
export function cliBundle(): string {
	memo ??= bundleOf(sourcesHash());
	return memo;
}

/** SHA-256 of every file the bundle is made from: relative paths and bytes. */
function sourcesHash(): string {
	const hash = createHash("sha256");
	const files = [
		...["src", "machines"].flatMap((dir) => filesUnder(join(ROOT, dir))),
		...["scripts/build.mjs", "package.json", "tsconfig.json"].map((file) => join(ROOT, file)),
	];
	for (const file of files) {
		hash.update(`${relative(ROOT, file)}\0`);
		hash.update(readFileSync(file));
		hash.update("\0");
	}
	return hash.digest("hex").slice(0, 16);
}

function filesUnder(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true, recursive: true })
		.filter((entry) => entry.isFile())
		.map((entry) => join(entry.parentPath, entry.name))
		.sort();
}

/** `<BUNDLES>/<hash>/cli.js`, built when missing (into a private folder, then renamed: concurrent runs agree). */
function bundleOf(hash: string): string {
	const dir = join(BUNDLES, hash);
	const cli = join(dir, "cli.js");
	if (existsSync(cli)) return cli;
	mkdirSync(BUNDLES, { recursive: true });
	const partial = join(BUNDLES, `${hash}.${process.pid}.partial`);
	rmSync(partial, { recursive: true, force: true });
	buildBundle(partial);
	try {
		renameSync(partial, dir);
	} catch (error) {
		// Another run built the same sources first: its bundle is the same bytes (the build is deterministic).
		rmSync(partial, { recursive: true, force: true });
		if (!existsSync(cli)) throw error;
	}
	removeStale(hash);
	return cli;
}

function removeStale(current: string): void {
	for (const name of readdirSync(BUNDLES)) {
		if (name === current) continue;
		const path = join(BUNDLES, name);
		if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
	}
}
