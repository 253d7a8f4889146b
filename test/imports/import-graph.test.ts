/**
 * What importing Settle loads. The package is built as `npm run build` ships it (the bundle made by
 * scripts/build.mjs, into a temp package folder) and each entry is imported in a fresh `node`
 * process that records every module resolved (ESM hook) and every CommonJS file required. Heavy or
 * optional packages must load only when used: TypeBox (our schemas are built without it), ajv
 * (first tool-argument check), dagre (first SVG), jiti (first extension file, not a resource load
 * without one), yaml (first frontmatter), jsdiff (first edit), locks/globs/ignore rules — and never
 * pi's packages or dev tools.
 * The bundle's shape is guarded too: `import "settle"` reads two files, and xstate is `require`d.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltPackage, builtPackage, REPO_ROOT } from "../package/helpers.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "imports");

/** Loaded only by the operations that need them (or never, for dev-only packages). */
const NOT_AT_IMPORT = [
	"@sinclair/typebox",
	"@silvia-odwyer/photon-node",
	"ajv",
	"@dagrejs/dagre",
	"jiti",
	"yaml",
	"diff",
	"proper-lockfile",
	"ignore",
	"picomatch",
	"immer",
	"fast-check",
	"@mariozechner/pi-ai",
	"@mariozechner/pi-agent-core",
	"@mariozechner/pi-coding-agent",
	"typescript",
	"vitest",
	"tsx",
	"esbuild",
];

let pkg: BuiltPackage;

beforeAll(() => {
	// Its own build: the bundle-contents test reads the source maps, relative to where they were built.
	pkg = builtPackage("test/imports", { ownBuild: true });
});

afterAll(() => pkg?.remove());

interface Loaded {
	/** Package names (`xstate`, `@scope/name`) of every module loaded. */
	packages: Set<string>;
	/** Files of the built package's dist/ loaded as ES modules (names). */
	distFiles: string[];
	/** CommonJS files required (absolute paths). */
	required: string[];
}

/** What a fresh process loaded for `entry` (a dist/ file name), then running `scenario` (a fixture). */
function loadedBy(entry: string, scenario?: string): Loaded {
	const log = join(pkg.root, `modules-${Math.random().toString(36).slice(2)}.log`);
	const args = [join(FIXTURES, "list-modules.mjs"), log, pathToFileURL(join(pkg.dist, entry)).href];
	if (scenario) args.push(pathToFileURL(join(FIXTURES, scenario)).href);
	const child = spawnSync(process.execPath, args, { encoding: "utf8" });
	if (child.status !== 0) throw new Error(`importing ${entry} failed:\n${child.stderr}`);
	const required = JSON.parse(child.stdout.trim().split("\n").pop()!) as string[];
	const resolved = readFileSync(log, "utf8").trim().split("\n");
	const packages = new Set<string>();
	for (const location of [...resolved, ...required]) {
		const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(location.replaceAll("\\", "/"));
		if (match) packages.add(match[1]!);
	}
	const distUrl = `${pathToFileURL(pkg.dist).href}/`;
	const distFiles = [
		...new Set(resolved.filter((url) => url.startsWith(distUrl)).map((url) => url.slice(distUrl.length))),
	];
	return { packages, distFiles, required };
}

describe("import graph of the built package", () => {
	it('import "settle" loads xstate and none of the lazy, pi or dev packages', () => {
		const { packages } = loadedBy("index.js");
		expect(packages.has("xstate")).toBe(true); // the recorder sees packages
		expect(NOT_AT_IMPORT.filter((name) => packages.has(name))).toEqual([]);
	});

	it('import "settle" reads two files (the entry and the shared chunk) and requires xstate\'s CommonJS build', () => {
		const { distFiles, required } = loadedBy("index.js");
		expect(distFiles).toHaveLength(2);
		expect(distFiles[0]).toBe("index.js");
		expect(distFiles[1]).toMatch(/^chunk-[A-Z0-9]+\.js$/);
		// Every other entry imports the same chunk (see scripts/build.mjs): one copy of Settle per process.
		for (const entry of ["testing.js", "inspect.js", "rpc.js", "cli.js", "pi-compat.js"]) {
			expect(readFileSync(join(pkg.dist, entry), "utf8")).toContain(`from"./${distFiles[1]}"`);
		}
		// V8 keeps a module's source; one non-ASCII character (a regex literal: esbuild escapes strings
		// only) would store all of it at two bytes a character.
		for (const file of readdirSync(pkg.dist).filter((name) => name.endsWith(".js"))) {
			expect({ file, nonAscii: /[\u0080-\uffff]/.exec(readFileSync(join(pkg.dist, file), "utf8"))?.[0] }).toEqual({
				file,
				nonAscii: undefined,
			});
		}
		const xstate = required.filter((file) => file.replaceAll("\\", "/").includes("/node_modules/xstate/"));
		expect(xstate.length).toBeGreaterThan(0);
		expect(xstate.every((file) => file.endsWith(".cjs.js") || file.endsWith(".cjs"))).toBe(true);
	});

	it('import "settle" loads none of the Node built-ins only some operations use (lazy-deps.ts)', () => {
		const child = spawnSync(
			process.execPath,
			[
				"--input-type=module",
				"-e",
				// The list is taken before process.stdout exists: a piped stdout loads net.
				`await import(${JSON.stringify(pathToFileURL(join(pkg.dist, "index.js")).href)});
				const loaded = JSON.stringify(process.moduleLoadList);
				process.stdout.write(loaded);`,
			],
			{ encoding: "utf8" },
		);
		expect(child.stderr).toBe("");
		const builtins = new Set(
			(JSON.parse(child.stdout) as string[]).filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)),
		);
		expect(builtins.has("fs")).toBe(true); // the list names built-ins
		const lazy = ["child_process", "crypto", "worker_threads", "v8", "http", "readline", "net"];
		expect(lazy.filter((name) => builtins.has(name))).toEqual([]);
	});

	it("creating a session and running a text prompt loads no schema, validation, diagram or pi package", () => {
		const { packages } = loadedBy("index.js", "session-prompt.mjs");
		expect(packages.has("xstate")).toBe(true);
		const unexpected = ["@sinclair/typebox", "ajv", "@dagrejs/dagre", "jiti", "yaml", "diff", "fast-check"];
		expect(unexpected.filter((name) => packages.has(name))).toEqual([]);
		expect([...packages].filter((name) => name.startsWith("@mariozechner/"))).toEqual([]);
	});

	it("loading the resources of a project without extension files does not load jiti (every `settle` run starts so)", () => {
		const { packages } = loadedBy("index.js", "resources-without-extensions.mjs");
		expect(packages.has("xstate")).toBe(true);
		expect(packages.has("jiti")).toBe(false);
	});

	it("reading settings files and changing settings does not load TypeBox", () => {
		const { packages } = loadedBy("index.js", "settings-files.mjs");
		expect(packages.has("proper-lockfile")).toBe(true); // the setter wrote under a file lock
		expect(packages.has("@sinclair/typebox")).toBe(false);
	});

	it("a file lock loads proper-lockfile without graceful-fs or node:assert (unused by Settle's locks)", () => {
		const { packages } = loadedBy("index.js", "settings-files.mjs");
		expect(packages.has("proper-lockfile")).toBe(true);
		expect(packages.has("graceful-fs")).toBe(false);
		const child = spawnSync(
			process.execPath,
			[
				"--input-type=module",
				"-e",
				`const settle = await import(${JSON.stringify(pathToFileURL(join(pkg.dist, "index.js")).href)});
				await (await import(${JSON.stringify(pathToFileURL(join(FIXTURES, "settings-files.mjs")).href)})).default(settle);
				process.stdout.write(JSON.stringify(process.moduleLoadList));`,
			],
			{ encoding: "utf8" },
		);
		expect(child.stderr).toBe("");
		const builtins = (JSON.parse(child.stdout) as string[]).filter((m) => m.startsWith("NativeModule "));
		expect(builtins).toContain("NativeModule fs");
		expect(builtins).not.toContain("NativeModule assert");
	});

	it('import "settle/inspect" does not load dagre until a diagram is drawn', () => {
		const { packages } = loadedBy("inspect.js");
		expect(packages.has("xstate")).toBe(true);
		expect(NOT_AT_IMPORT.filter((name) => packages.has(name))).toEqual([]);
	});

	it('import "settle/rpc" loads none of the lazy, pi or dev packages (an editor plugin pays for the client only)', () => {
		const { packages, distFiles } = loadedBy("rpc.js");
		expect(NOT_AT_IMPORT.filter((name) => packages.has(name))).toEqual([]);
		expect(distFiles[0]).toBe("rpc.js");
		expect(distFiles.length).toBeLessThanOrEqual(3);
	});

	it('import "settle/testing" loads fast-check (its arbitraries) but not the lazy or pi packages', () => {
		const { packages } = loadedBy("testing.js");
		expect(packages.has("fast-check")).toBe(true);
		expect(NOT_AT_IMPORT.filter((name) => name !== "fast-check" && packages.has(name))).toEqual([]);
	});

	it("the bundle contains no package code: dependencies stay external", () => {
		const sourcesOf = (file: string) =>
			(JSON.parse(readFileSync(join(pkg.dist, file), "utf8")) as { sources: string[] }).sources;
		const maps = readdirSync(pkg.dist).filter((file) => file.endsWith(".js.map"));
		expect(maps.length).toBeGreaterThan(5);
		const bundled = maps.flatMap(sourcesOf).filter((source) => source.includes("node_modules"));
		expect(bundled).toEqual([]);
		// Source maps point at the TypeScript sources (and the generated xstate loader).
		const sources = maps
			.flatMap(sourcesOf)
			.map((source) => (source.startsWith("../") ? join(pkg.dist, source) : source));
		expect(sources).toContain("xstate-require:xstate");
		expect(sources).toContain(join(REPO_ROOT, "src", "session", "agent-session.ts"));
		expect(sources).toContain(join(REPO_ROOT, "machines", "runtime.machine.ts"));
	});
});
