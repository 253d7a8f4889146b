/**
 * What importing Settle loads. Each entry is compiled to plain JavaScript (as `npm run build` ships
 * it) and imported in a fresh `node` process that records every module resolved (ESM hook) and
 * every CommonJS file required. Heavy or optional packages must load only when used: TypeBox (our
 * schemas are built without it), ajv (first tool-argument check), dagre (first SVG), jiti (first
 * extension file), yaml (first frontmatter), jsdiff (first edit), locks/globs/ignore rules — and
 * never pi's packages or dev tools.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileForNode, REPO_ROOT } from "../crash/compile-store.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "imports");

/** Loaded only by the operations that need them (or never, for dev-only packages). */
const NOT_AT_IMPORT = [
	"@sinclair/typebox",
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
];

let outDir: string;
const compiled = new Map<string, string>();

beforeAll(() => {
	const parent = join(REPO_ROOT, "test", "imports", ".tmp"); // git-ignored
	mkdirSync(parent, { recursive: true });
	outDir = mkdtempSync(join(parent, "graph-"));
	for (const entry of [
		"src/index.ts",
		"src/inspect/index.ts",
		"src/testing/index.ts",
		"test/fixtures/imports/session-prompt.ts",
		"test/fixtures/imports/settings-files.ts",
	]) {
		compiled.set(entry, compileForNode(entry, outDir));
	}
});

afterAll(() => {
	if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** Package names (`xstate`, `@scope/name`) of every module a fresh process loaded for `entry`. */
function packagesLoadedBy(entry: string): Set<string> {
	const log = join(outDir, `modules-${compiled.size}-${Math.random().toString(36).slice(2)}.log`);
	const child = spawnSync(
		process.execPath,
		[join(FIXTURES, "list-modules.mjs"), pathToFileURL(compiled.get(entry)!).href, log],
		{ encoding: "utf8" },
	);
	if (child.status !== 0) throw new Error(`importing ${entry} failed:\n${child.stderr}`);
	const required = JSON.parse(child.stdout.trim().split("\n").pop()!) as string[];
	const resolved = readFileSync(log, "utf8").trim().split("\n");
	const packages = new Set<string>();
	for (const location of [...resolved, ...required]) {
		const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(location.replaceAll("\\", "/"));
		if (match) packages.add(match[1]!);
	}
	return packages;
}

describe("import graph", () => {
	it('import "settle" loads xstate and none of the lazy, pi or dev packages', () => {
		const packages = packagesLoadedBy("src/index.ts");
		expect(packages.has("xstate")).toBe(true); // the recorder sees packages
		expect(NOT_AT_IMPORT.filter((name) => packages.has(name))).toEqual([]);
	});

	it("creating a session and running a text prompt loads no schema, validation, diagram or pi package", () => {
		const packages = packagesLoadedBy("test/fixtures/imports/session-prompt.ts");
		expect(packages.has("xstate")).toBe(true);
		const unexpected = ["@sinclair/typebox", "ajv", "@dagrejs/dagre", "jiti", "yaml", "diff", "fast-check"];
		expect(unexpected.filter((name) => packages.has(name))).toEqual([]);
		expect([...packages].filter((name) => name.startsWith("@mariozechner/"))).toEqual([]);
	});

	it("reading settings files and changing settings does not load TypeBox", () => {
		const packages = packagesLoadedBy("test/fixtures/imports/settings-files.ts");
		expect(packages.has("proper-lockfile")).toBe(true); // the setter wrote under a file lock
		expect(packages.has("@sinclair/typebox")).toBe(false);
	});

	it('import "settle/inspect" does not load dagre until a diagram is drawn', () => {
		const packages = packagesLoadedBy("src/inspect/index.ts");
		expect(packages.has("xstate")).toBe(true);
		expect(NOT_AT_IMPORT.filter((name) => packages.has(name))).toEqual([]);
	});

	it('import "settle/testing" loads fast-check (its arbitraries) but not the lazy or pi packages', () => {
		const packages = packagesLoadedBy("src/testing/index.ts");
		expect(packages.has("fast-check")).toBe(true);
		expect(NOT_AT_IMPORT.filter((name) => name !== "fast-check" && packages.has(name))).toEqual([]);
	});
});
