#!/usr/bin/env node
/**
 * `npm run build`: the published `dist/`. One ESM bundle for Node 20 with code splitting — an entry
 * file per public module, next to the chunks they share — plus TypeScript declarations:
 *
 *   dist/index.js      `settle`                 dist/cli.js        the `settle` command (bin/settle.js)
 *   dist/testing.js    `settle/testing`         dist/pi-compat.js  `@mariozechner/pi-coding-agent` for extensions
 *   dist/inspect.js    `settle/inspect`         dist/chunk-*.js    shared code;  dist/types/  declarations
 *   dist/rpc.js        `settle/rpc`             (a client of `settle --rpc`; it finds dist/cli.js next to it)
 *   dist/image-resize-worker.js  the image resizer's worker thread (started with `new Worker`, see below)
 *
 * Why a bundle, and why this shape: every file Node's module loader loads runs its path helpers
 * (resolve, realpath, URL to path), and after a dozen files they get hot enough for V8's optimizing
 * compiler, whose first use costs ~4.5 MiB of RSS. So `import "settle"` loads two files:
 * - every other entry also imports the package root, so all of the root's code is reached by every
 *   entry and lands in ONE shared chunk (`dist/index.js` + that chunk, nothing else);
 * - dynamic `import()`s of Settle's own modules are made static (see `staticOwnImports`): each one
 *   is a split point that would cut the shared chunk into more files;
 * - `import … from "xstate"` becomes one `createRequire(import.meta.url)("xstate")`: xstate's
 *   `import` entry is a CommonJS wrapper costing ~3.5 MiB more. The sources keep a normal import.
 * Dependencies and peer dependencies stay external; importing any other package fails the build.
 * The image resizer's worker (src/tools/image-resize-worker.js, plain JavaScript) is bundled on its
 * own into dist/: the shared chunk starts it as `new URL("./image-resize-worker.js", import.meta.url)`.
 * The output is deterministic: same sources, same bytes.
 *
 *   node scripts/build.mjs                            bundle + declarations into dist/
 *   node scripts/build.mjs --outdir <dir> --no-types  bundle only, elsewhere (tests)
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT_ENTRY = "src/index.ts";

/** Output name (without `.js`) → source entry. */
const ENTRY_POINTS = {
	index: ROOT_ENTRY,
	testing: "src/testing/index.ts",
	inspect: "src/inspect/index.ts",
	rpc: "src/rpc/index.ts",
	cli: "src/cli/main.ts",
	"pi-compat": "src/extensions/pi-compat.ts",
};

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const EXTERNAL = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
const BUILTINS = new Set(builtinModules);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier) {
	const parts = specifier.split("/");
	return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * xstate's value exports, re-exported from one `require` of its CommonJS build. Generated from the
 * installed xstate, so every name Settle imports resolves (esbuild rejects a missing one).
 */
function xstateRequireModule() {
	const names = Object.keys(createRequire(join(ROOT, "package.json"))("xstate"))
		.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== "default" && name !== "__esModule")
		.sort();
	return [
		'import { createRequire } from "node:module";',
		'const xstate = createRequire(import.meta.url)("xstate");',
		`export const { ${names.join(", ")} } = xstate;`,
		"",
	].join("\n");
}

/**
 * The package boundary: Node built-ins and (peer) dependencies stay external, xstate is loaded with
 * `require`, anything else is an error; entries other than the root also import the root.
 */
const packageBoundary = {
	name: "settle-package-boundary",
	setup(builder) {
		builder.onResolve({ filter: /^settle-entry:/ }, (args) => ({
			path: args.path.slice(13),
			namespace: "settle-entry",
		}));
		builder.onLoad({ filter: /.*/, namespace: "settle-entry" }, (args) => ({
			contents: `import "./${ROOT_ENTRY}";\nexport * from "./${ENTRY_POINTS[args.path]}";\n`,
			loader: "js",
			resolveDir: ROOT,
		}));
		builder.onResolve({ filter: /^[^./]/ }, (args) => {
			if (args.path.startsWith("node:") || BUILTINS.has(args.path)) return { path: args.path, external: true };
			if (args.path === "xstate") return { path: "xstate", namespace: "xstate-require" };
			if (EXTERNAL.has(packageName(args.path))) return { path: args.path, external: true };
			return {
				errors: [
					{
						text: `"${args.path}" (imported by ${relative(ROOT, args.importer)}) is not a dependency or peerDependency of settle: add it to package.json, or do not import it from src/`,
					},
				],
			};
		});
		builder.onLoad({ filter: /^xstate$/, namespace: "xstate-require" }, () => ({
			contents: xstateRequireModule(),
			loader: "js",
			resolveDir: ROOT,
		}));
	},
};

/**
 * Turns each dynamic `import("./x.js")` of Settle's own modules into a static import (appended at
 * the end of the file, so source-map lines stay right). A split point would cut the shared chunk
 * into more files, and the modules imported that way are in the root's static graph anyway
 * (compaction) or small (the CLI's diagram writer; dagre itself stays a lazy `require`).
 */
const staticOwnImports = {
	name: "settle-static-own-imports",
	setup(builder) {
		builder.onLoad({ filter: /\.ts$/ }, (args) => {
			const source = readFileSync(args.path, "utf8");
			const added = new Map();
			const contents = source.replace(/(?<!typeof\s+)\bimport\("(\.{1,2}\/[^"]+\.js)"\)/g, (_call, specifier) => {
				if (!added.has(specifier)) added.set(specifier, `__settleStatic${added.size}`);
				return `Promise.resolve(${added.get(specifier)})`;
			});
			if (added.size === 0) return undefined;
			const imports = [...added].map(([specifier, name]) => `import * as ${name} from "${specifier}";`);
			return { contents: `${contents}\n${imports.join("\n")}\n`, loader: "ts" };
		});
	},
};

/**
 * Options both builds share. The output is ASCII with no comments or indentation (`sourcemap` maps
 * it back; `node --enable-source-maps` shows the TypeScript lines): V8 keeps each module's source
 * in memory, and one non-ASCII character, even in a comment, makes it two bytes a character. The
 * shared chunk was 1.3 MB of UTF-16 (2.6 MB of heap); now 0.95 MB of Latin-1, and less to parse.
 */
const COMMON = {
	absWorkingDir: ROOT,
	bundle: true,
	format: "esm",
	platform: "node",
	target: "node20",
	charset: "ascii",
	minifyWhitespace: true,
	logLevel: "warning",
	sourcemap: "linked",
	sourcesContent: true,
};

/** The worker thread's file, next to the chunk that starts it (see image-resize-thread.ts). */
const IMAGE_RESIZE_WORKER = "src/tools/image-resize-worker.js";

/** Bundles the entry points into `outDir` (emptied first). */
async function bundle(outDir) {
	rmSync(outDir, { recursive: true, force: true });
	await build({
		...COMMON,
		absWorkingDir: ROOT,
		entryPoints: Object.entries(ENTRY_POINTS).map(([out, source]) => ({
			in: source === ROOT_ENTRY ? source : `settle-entry:${out}`,
			out,
		})),
		outdir: outDir,
		entryNames: "[name]",
		chunkNames: "chunk-[hash]",
		splitting: true,
		tsconfig: join(ROOT, "tsconfig.json"),
		plugins: [packageBoundary, staticOwnImports],
	});
	await build({
		...COMMON,
		entryPoints: [IMAGE_RESIZE_WORKER],
		outfile: join(outDir, "image-resize-worker.js"),
		plugins: [packageBoundary],
	});
}

/**
 * Writes the declarations (`tsc -p tsconfig.build.json --noCheck`) into `<outDir>/types`. `--noCheck`
 * emits without type-checking src/ again (13.5 -> 7.3 CPU-s): the type check is `npm run typecheck`
 * (in `npm test`, and `prepublishOnly` before a publish). Same declarations, some unions in another order.
 */
function declarations(outDir) {
	const tsc = createRequire(join(ROOT, "package.json")).resolve("typescript/bin/tsc");
	const run = spawnSync(
		process.execPath,
		[tsc, "-p", join(ROOT, "tsconfig.build.json"), "--declarationDir", join(outDir, "types"), "--noCheck"],
		{ cwd: ROOT, stdio: "inherit" },
	);
	if (run.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (exit ${run.status})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const { values } = parseArgs({
		options: { outdir: { type: "string", default: join(ROOT, "dist") }, "no-types": { type: "boolean" } },
	});
	const outDir = resolve(values.outdir);
	try {
		await bundle(outDir);
		if (!values["no-types"]) declarations(outDir);
	} catch (error) {
		// esbuild already printed its errors; say what failed and exit non-zero.
		console.error(`settle build failed: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
		process.exit(1);
	}
}
