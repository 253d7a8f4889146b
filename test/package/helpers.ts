/**
 * Builds of the package for tests: the bundle `scripts/build.mjs` makes (what `npm run build` ships),
 * written into a package-shaped folder (package.json, bin/, dist/) under a git-ignored `.tmp/`
 * inside the repository, so the bundle's bare imports (xstate, jiti, …) resolve from the
 * repository's node_modules. Each test file gets its own copy, and no test depends on (or overwrites)
 * the repository's `dist/`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliBundle } from "../cli/cli-bundle.js";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BUILD_SCRIPT = join(REPO_ROOT, "scripts", "build.mjs");

/** Runs `node scripts/build.mjs --outdir <outDir> --no-types`; throws with the build's output on failure. */
export function buildBundle(outDir: string): void {
	const run = spawnSync(process.execPath, [BUILD_SCRIPT, "--outdir", outDir, "--no-types"], {
		cwd: REPO_ROOT,
		encoding: "utf8",
	});
	if (run.status !== 0) throw new Error(`scripts/build.mjs failed (exit ${run.status}):\n${run.stderr}${run.stdout}`);
}

/** A freshly built package folder. */
export interface BuiltPackage {
	/** The package folder (package.json, bin/settle.js, dist/). */
	root: string;
	/** `<root>/dist`. */
	dist: string;
	/** `<root>/bin/settle.js`. */
	bin: string;
	/** Removes the folder. */
	remove(): void;
}

/**
 * Makes `<area>/.tmp/pkg-*` (e.g. `test/cli/.tmp/pkg-*`) with the repository's package.json and
 * bin/, and the bundle in its dist/. By default a copy of the current sources' bundle
 * (`cliBundle()`: the same `buildBundle` output, built once per content of the sources) without its
 * source maps, whose relative `sources` paths hold only where they were built: a build is ~1.2 s of
 * CPU (node ~0.4, esbuild ~0.8), the copy ~0.02 s. `ownBuild`: built into this dist/, maps included.
 */
export function builtPackage(area: string, options: { ownBuild?: boolean } = {}): BuiltPackage {
	const parent = join(REPO_ROOT, area, ".tmp");
	mkdirSync(parent, { recursive: true });
	const root = mkdtempSync(join(parent, "pkg-"));
	cpSync(join(REPO_ROOT, "package.json"), join(root, "package.json"));
	cpSync(join(REPO_ROOT, "bin"), join(root, "bin"), { recursive: true });
	const dist = join(root, "dist");
	if (options.ownBuild) buildBundle(dist);
	else cpSync(dirname(cliBundle()), dist, { recursive: true, filter: (source) => !source.endsWith(".map") });
	return {
		root,
		dist,
		bin: join(root, "bin", "settle.js"),
		remove: () => rmSync(root, { recursive: true, force: true }),
	};
}

/** The package's `dependencies` and `peerDependencies` names. */
export function runtimeDependencies(): string[] {
	const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
		dependencies?: Record<string, string>;
		peerDependencies?: Record<string, string>;
	};
	return [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
}
