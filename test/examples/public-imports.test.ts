/**
 * The examples are code users copy (the README links them): every import must be one a user of the
 * published package can write. In this repo `settle`, `settle/testing`, `settle/inspect` and `settle/rpc` are
 * tsconfig `paths` to the sources (tsx, tsc and the examples' vitest config honour them), so the
 * examples run from a fresh clone without a build and still read exactly as a user's code would.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EXAMPLES = join(ROOT, "examples");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
	name: string;
	exports: Record<string, unknown>;
	dependencies: Record<string, string>;
	devDependencies: Record<string, string>;
};

/** `settle`, `settle/testing`, `settle/inspect`, `settle/rpc`: the package's "exports", minus package.json. */
const PUBLIC_ENTRIES = Object.keys(pkg.exports)
	.filter((key) => key !== "./package.json")
	.map((key) => (key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`));

/**
 * Packages an example may import besides Settle: ones a user installs next to it (the test runner,
 * TypeBox for tool parameters as in pi, fast-check for property tests). Each must be one this repo
 * installs, so the example runs here as printed.
 */
const USER_PACKAGES = ["vitest", "vitest/config", "fast-check", "@sinclair/typebox"];

/** Every `.ts` file under examples/, relative to the repo root. */
function exampleFiles(dir = EXAMPLES): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return exampleFiles(path);
		return entry.name.endsWith(".ts") ? [relative(ROOT, path)] : [];
	});
}

/** Static imports, `export … from`, `import type` and dynamic `import("…")` specifiers of a file. */
function importSpecifiers(file: string): string[] {
	const info = ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true);
	return info.importedFiles.map((imported) => imported.fileName);
}

/** Why `specifier` in `file` is not something a user can import, or undefined when it is. */
function importProblem(file: string, specifier: string): string | undefined {
	if (PUBLIC_ENTRIES.includes(specifier)) return undefined;
	if (specifier.startsWith("node:")) {
		return builtinModules.includes(specifier.slice(5)) ? undefined : `${specifier} is not a Node built-in`;
	}
	if (specifier.startsWith(".")) {
		// Another file of the same example (my-agent.test.ts → ./my-agent.js) travels with it.
		const target = resolve(ROOT, dirname(file), specifier);
		const inside = relative(EXAMPLES, target);
		return inside.startsWith("..")
			? `${specifier} reaches outside examples/ (use ${PUBLIC_ENTRIES.join(", ")})`
			: undefined;
	}
	if (USER_PACKAGES.includes(specifier)) return undefined;
	return `${specifier} is not ${PUBLIC_ENTRIES.join(", ")}, a node: built-in, or a package the user installs (${USER_PACKAGES.join(", ")})`;
}

describe("examples import only what a user of the package can import", () => {
	const files = exampleFiles();

	it("finds the examples (the README links them)", () => {
		expect(files).toEqual(
			expect.arrayContaining([
				"examples/quickstart.ts",
				"examples/sdk.ts",
				"examples/guarded-tools.ts",
				"examples/runtime-projects.ts",
				"examples/trace-retry-compaction.ts",
				"examples/testing/my-agent.test.ts",
				"examples/testing/my-agent.ts",
			]),
		);
		expect(PUBLIC_ENTRIES).toEqual(["settle", "settle/testing", "settle/inspect", "settle/rpc"]);
	});

	it.each(files)("%s: settle, settle/testing, settle/inspect and node: built-ins only", (file) => {
		const problems = importSpecifiers(file)
			.map((specifier) => importProblem(file, specifier))
			.filter((problem) => problem !== undefined);
		expect(problems).toEqual([]);
	});

	it("the packages a user installs alongside are installed here", () => {
		const installed = { ...pkg.dependencies, ...pkg.devDependencies };
		for (const specifier of USER_PACKAGES) {
			const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
			expect(installed, specifier).toHaveProperty([name]);
		}
	});

	it("rejects deep imports, unknown subpaths and other packages (the check itself)", () => {
		expect(importProblem("examples/sdk.ts", "../src/index.js")).toMatch(/reaches outside examples/);
		expect(importProblem("examples/testing/my-agent.ts", "../../src/testing/index.js")).toMatch(/outside/);
		expect(importProblem("examples/sdk.ts", "settle/src/index.js")).toMatch(/is not settle/);
		expect(importProblem("examples/sdk.ts", "xstate")).toMatch(/is not settle/);
		expect(importProblem("examples/sdk.ts", "node:nope")).toMatch(/not a Node built-in/);
		expect(importProblem("examples/testing/my-agent.test.ts", "./my-agent.js")).toBeUndefined();
		expect(importProblem("examples/sdk.ts", "settle/inspect")).toBeUndefined();
		expect(importSpecifiers("examples/quickstart.ts")).toEqual(
			expect.arrayContaining(["node:fs/promises", "settle", "settle/testing"]),
		);
	});
});

describe("in this repo the public names are the sources, built or not", () => {
	it("node --import tsx (as examples.test.ts and npm run demo run them) resolves each name to its src/ entry, never dist/", () => {
		const script = `console.log(JSON.stringify(${JSON.stringify(PUBLIC_ENTRIES)}.map((name) => import.meta.resolve(name))))`;
		const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
			cwd: ROOT,
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(result.stderr).toBe("");
		const resolved = (JSON.parse(result.stdout) as string[]).map((url) => relative(ROOT, fileURLToPath(url)));
		expect(resolved).toEqual(["src/index.ts", "src/testing/index.ts", "src/inspect/index.ts", "src/rpc/index.ts"]);
	});
});

describe("the tsconfig paths that make this work stay out of the package's own code", () => {
	/** `settle` from inside src/ would be a cycle through the package root, hidden by the paths. */
	function ownCodeFiles(dir: string): string[] {
		return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
			.filter((entry) => entry.isFile() && /\.(ts|mts|js)$/.test(entry.name))
			.map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
	}

	it("no file in src/ or machines/ imports settle, settle/testing or settle/inspect", () => {
		const selfImports = [...ownCodeFiles("src"), ...ownCodeFiles("machines")].flatMap((file) =>
			importSpecifiers(file)
				.filter((specifier) => PUBLIC_ENTRIES.includes(specifier))
				.map((specifier) => `${file}: ${specifier}`),
		);
		expect(selfImports).toEqual([]);
	});

	it("tsconfig maps exactly the public entries to the files scripts/build.mjs bundles for them", () => {
		const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile).config as {
			compilerOptions: { paths: Record<string, string[]> };
		};
		expect(config.compilerOptions.paths).toEqual({
			settle: ["./src/index.ts"],
			"settle/testing": ["./src/testing/index.ts"],
			"settle/inspect": ["./src/inspect/index.ts"],
			"settle/rpc": ["./src/rpc/index.ts"],
		});
		const build = readFileSync(join(ROOT, "scripts", "build.mjs"), "utf8");
		expect(build).toContain('const ROOT_ENTRY = "src/index.ts"');
		expect(build).toContain('testing: "src/testing/index.ts"');
		expect(build).toContain('inspect: "src/inspect/index.ts"');
		expect(build).toContain('rpc: "src/rpc/index.ts"');
	});
});
