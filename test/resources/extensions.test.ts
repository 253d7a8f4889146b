import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { instantiateExtensions } from "../../src/extensions/loader.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { libraryAliases } from "../../src/resources/extensions.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import type { LoadedExtension } from "../../src/resources/types.js";
import { ProjectTrustStore } from "../../src/settings/trust.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { bundledExtensionAliases } from "../extensions/bundle-aliases.js";
import { copyFixture, tempDir, writeTree } from "../settings/helpers.js";

/** The tiny test API: records `tag` calls instead of a real ExtensionAPI. */
const tagger = (api: ExtensionAPI) => api as unknown as { tag: (name: string) => void };

/** Calls each factory with a tiny API that records `tag` calls. */
async function run(extensions: LoadedExtension[]): Promise<unknown[][]> {
	const calls: unknown[][] = [];
	for (const extension of extensions)
		await extension.factory({ tag: (...args: unknown[]) => calls.push(args) } as unknown as ExtensionAPI);
	return calls;
}

function emptyAgentDir(): string {
	return join(tempDir(), "agent");
}

describe("extension discovery", () => {
	it("finds files, index.ts folders and manifest entries in .settle/extensions, skipping the rest", async () => {
		const cwd = copyFixture("basic");
		const loader = new DefaultResourceLoader({ cwd, agentDir: emptyAgentDir(), trustProject: true });
		await loader.reload();
		const result = loader.getExtensions();
		const dir = join(cwd, ".settle", "extensions");
		expect(result.errors).toEqual([]);
		expect(result.diagnostics).toEqual([]);
		expect(result.extensions.map(({ path, resolvedPath, source }) => ({ path, resolvedPath, source }))).toEqual([
			{
				path: join(dir, "folder-ext", "index.ts"),
				resolvedPath: join(dir, "folder-ext", "index.ts"),
				source: "project",
			},
			{ path: join(dir, "hello.ts"), resolvedPath: join(dir, "hello.ts"), source: "project" },
			{
				path: join(dir, "manifest-ext", "src", "main.ts"),
				resolvedPath: join(dir, "manifest-ext", "src", "main.ts"),
				source: "project",
			},
		]);
		// The loader imports but never calls factories; calling them shows they are the real modules.
		// hello.ts imports @sinclair/typebox, which resolves from Settle's copy although the project has none.
		expect(await run(result.extensions)).toEqual([["folder-ext", "helped"], ["hello", "object"], ["manifest-ext"]]);
	});

	it("loads explicit paths first, then project, then global, then inline factories", async () => {
		const cwd = copyFixture("basic");
		const agentDir = copyFixture("_agent");
		const explicit = join(tempDir(), "explicit.ts");
		writeFileSync(explicit, 'export default (api: { tag?: (n: string) => void }) => api.tag?.("explicit");\n');
		const loader = new DefaultResourceLoader({
			cwd,
			agentDir,
			trustProject: true,
			additionalExtensionPaths: [explicit, "does-not-exist.ts"],
			extensionFactories: [(api) => tagger(api).tag("inline-1"), (api) => tagger(api).tag("inline-2")],
		});
		await loader.reload();
		const { extensions, errors, diagnostics } = loader.getExtensions();
		expect(extensions.map((extension) => extension.source)).toEqual([
			"explicit",
			"project",
			"project",
			"project",
			"global",
			"inline",
			"inline",
		]);
		expect(extensions.slice(-2).map((extension) => extension.path)).toEqual(["<inline:1>", "<inline:2>"]);
		expect((await run(extensions)).map((call) => call[0])).toEqual([
			"explicit",
			"folder-ext",
			"hello",
			"manifest-ext",
			"global-ext",
			"inline-1",
			"inline-2",
		]);
		// pi reports a missing explicit path as a load error too.
		expect(errors).toEqual([
			{ path: join(cwd, "does-not-exist.ts"), error: "Extension path does not exist: does-not-exist.ts" },
		]);
		expect(loader.getDiagnostics()).toContainEqual({
			type: "error",
			message: "Extension path does not exist: does-not-exist.ts",
			path: join(cwd, "does-not-exist.ts"),
		});
		expect(diagnostics).toEqual([
			{
				type: "error",
				message: "Extension path does not exist: does-not-exist.ts",
				path: join(cwd, "does-not-exist.ts"),
			},
		]);
	});

	it("noExtensions skips discovered ones but keeps explicit paths and inline factories", async () => {
		const cwd = copyFixture("basic");
		const explicit = join(tempDir(), "explicit.js");
		writeFileSync(explicit, "export default function explicit() {}\n");
		const loader = new DefaultResourceLoader({
			cwd,
			agentDir: copyFixture("_agent"),
			trustProject: true,
			noExtensions: true,
			additionalExtensionPaths: [explicit],
			extensionFactories: [() => {}],
		});
		await loader.reload();
		expect(loader.getExtensions().extensions.map((extension) => extension.source)).toEqual(["explicit", "inline"]);
	});

	it("an explicit path through a symlink to a discovered extension loads it once, as the explicit one (pi dedupes by real path)", async () => {
		const root = tempDir();
		const agentDir = join(root, "agent");
		writeTree(root, { "agent/extensions/tool.ts": "export default function tool() {}\n" });
		const link = join(root, "link.ts");
		symlinkSync(join(agentDir, "extensions/tool.ts"), link);
		const loader = new DefaultResourceLoader({
			cwd: join(root, "project"),
			agentDir,
			additionalExtensionPaths: [link],
		});
		await loader.reload();
		expect(loader.getExtensions().extensions.map((extension) => [extension.path, extension.source])).toEqual([
			[link, "explicit"],
		]);
	});

	it("reads a pi project's .pi/extensions with a pi manifest", async () => {
		const cwd = copyFixture("pi-only");
		const loader = new DefaultResourceLoader({ cwd, agentDir: emptyAgentDir(), trustProject: true });
		await loader.reload();
		const { extensions } = loader.getExtensions();
		expect(extensions.map((extension) => extension.path)).toEqual([join(cwd, ".pi", "extensions", "pi-ext", "ext.ts")]);
		expect(await run(extensions)).toEqual([["pi-ext"]]);
	});

	it("lets an extension import from settle", async () => {
		const dir = tempDir();
		writeTree(dir, {
			"project/.settle/extensions/uses-settle.ts":
				'import { emptyUsage } from "settle";\n\nexport default (api: { tag: (n: string, d: unknown) => void }) => api.tag("usage", emptyUsage().totalTokens);\n',
		});
		// `settle` is the bundle of the current sources (bundle-aliases.ts), as in the published package.
		// The sources' aliases (jiti transpiling and evaluating all of src/: ~8 CPU-s on a clean clone)
		// are test/package/extension-aliases.test.ts's subject.
		const loader = new DefaultResourceLoader({
			cwd: join(dir, "project"),
			agentDir: join(dir, "agent"),
			trustProject: true,
			extensionAliases: bundledExtensionAliases(),
		});
		await loader.reload();
		expect(loader.getExtensions().errors).toEqual([]);
		expect(await run(loader.getExtensions().extensions)).toEqual([["usage", 0]]);
	}, 120_000);

	it("re-imports modules on reload, so edits take effect", async () => {
		const dir = tempDir();
		const file = join(dir, "project", ".settle", "extensions", "versioned.ts");
		writeTree(dir, {
			"project/.settle/extensions/versioned.ts":
				'export default (api: { tag: (n: string) => void }) => api.tag("v1");\n',
		});
		const loader = new DefaultResourceLoader({
			cwd: join(dir, "project"),
			agentDir: join(dir, "agent"),
			trustProject: true,
		});
		await loader.reload();
		const first = loader.getExtensions();
		writeFileSync(file, 'export default (api: { tag: (n: string) => void }) => api.tag("v2");\n');
		await loader.reload();
		expect(await run(loader.getExtensions().extensions)).toEqual([["v2"]]);
		// The previous snapshot is untouched.
		expect(await run(first.extensions)).toEqual([["v1"]]);
	});
});

describe("explicit extension paths", () => {
	it("regression: a folder with no extension module is a load error naming it (nothing was loaded, silently)", async () => {
		const dir = tempDir();
		writeTree(dir, { "project/tools/README.md": "notes, no module" });
		const loader = new DefaultResourceLoader({
			cwd: join(dir, "project"),
			agentDir: join(dir, "agent"),
			additionalExtensionPaths: ["tools"],
		});
		await loader.reload();
		const error =
			'Extension path has no extension module: tools. Put an index.ts (or .ts / .js files, or a package.json "settle"/"pi" extensions list) there, or pass the module file itself.';
		expect(loader.getExtensions().errors).toEqual([{ path: join(dir, "project", "tools"), error }]);
		expect(loader.getExtensions().diagnostics).toEqual([
			{ type: "error", message: error, path: join(dir, "project", "tools") },
		]);
	});
});

describe("reloading CommonJS extensions", () => {
	it("regression: reload re-imports a module.exports extension and the local module it requires (Node's require cache kept the old code)", async () => {
		const dir = tempDir();
		const extension = join(dir, "project", ".settle", "extensions", "legacy.js");
		const helper = join(dir, "project", "lib", "version.js");
		writeTree(dir, {
			"project/.settle/extensions/legacy.js":
				'const { version } = require("../../lib/version.js");\nmodule.exports = (api) => api.tag("legacy", version);\n',
			"project/lib/version.js": "module.exports = { version: 1 };\n",
		});
		const loader = new DefaultResourceLoader({
			cwd: join(dir, "project"),
			agentDir: join(dir, "agent"),
			trustProject: true,
			extensionAliases: bundledExtensionAliases(),
		});
		await loader.reload();
		expect(await run(loader.getExtensions().extensions)).toEqual([["legacy", 1]]);
		writeFileSync(helper, "module.exports = { version: 2 };\n");
		await loader.reload();
		expect(await run(loader.getExtensions().extensions)).toEqual([["legacy", 2]]);
		writeFileSync(extension, 'module.exports = (api) => api.tag("rewritten", 3);\n');
		await loader.reload();
		expect(loader.getExtensions().errors).toEqual([]);
		expect(await run(loader.getExtensions().extensions)).toEqual([["rewritten", 3]]);
		// Requiring what only the aliases provide (settle) still works: jiti's transpiler applies them.
		writeFileSync(
			extension,
			'const { emptyUsage } = require("settle");\nmodule.exports = (api) => api.tag("usage", emptyUsage().totalTokens);\n',
		);
		await loader.reload();
		expect(loader.getExtensions().errors).toEqual([]);
		expect(await run(loader.getExtensions().extensions)).toEqual([["usage", 0]]);
		writeFileSync(
			extension,
			'const { emptyUsage } = require("settle");\nmodule.exports = (api) => api.tag("usage again", emptyUsage().totalTokens);\n',
		);
		await loader.reload();
		expect(await run(loader.getExtensions().extensions)).toEqual([["usage again", 0]]);
		// A syntax error still names the file and position (jiti's transpiler, not Node's bare SyntaxError).
		writeFileSync(extension, "module.exports = (api) => {\n\tapi.tag(\n};\n");
		await loader.reload();
		expect(loader.getExtensions().errors[0]?.error).toContain(`${extension}:3`);
		// `settle` is the bundle of the current sources here (bundle-aliases.ts), as in the published
		// package: 3.7 s. With the sources' aliases two of the six reloads evaluated all of src/ anew
		// through jiti (15 s warm, 54 s in a loaded full run).
	}, 120_000);

	it("regression: the bundle holds no literal of jiti's failed-transform marker, so jiti caches the transform of the chunk a CommonJS extension's require of settle reaches (each such load transpiled ~1 MB again: ~4 s of CPU)", () => {
		// jiti writes no cache file for a transform whose output contains the marker.
		const marker = ["__JITI", "ERROR__"].join("_");
		const dist = dirname(cliBundle());
		const holding = readdirSync(dist).filter(
			(name) => name.endsWith(".js") && readFileSync(join(dist, name), "utf8").includes(marker),
		);
		expect(holding).toEqual([]);
	});
});

describe("extension load errors", () => {
	it("turns every kind of broken module into a typed error and loads the rest", async () => {
		const cwd = copyFixture("broken-extensions");
		const dir = join(cwd, ".settle", "extensions");
		const loader = new DefaultResourceLoader({ cwd, agentDir: emptyAgentDir(), trustProject: true });
		await expect(loader.reload()).resolves.toBeUndefined();
		const { extensions, errors, diagnostics } = loader.getExtensions();
		expect(extensions.map((extension) => extension.path)).toEqual([join(dir, "good.ts")]);
		const byFile = Object.fromEntries(errors.map((error) => [error.path.slice(dir.length + 1), error.error]));
		expect(Object.keys(byFile).sort()).toEqual([
			"missing-dep.ts",
			"no-factory.ts",
			"syntax-error.ts",
			"throws-at-import.ts",
		]);
		expect(byFile["throws-at-import.ts"]).toBe("Failed to load extension: boom at import");
		expect(byFile["no-factory.ts"]).toBe(
			`Extension does not export a valid factory function: ${join(dir, "no-factory.ts")} (it gives an object with notAFactory, not a function). Make its default export the factory: export default function (pi) { … }.`,
		);
		expect(byFile["syntax-error.ts"]).toMatch(/^Failed to load extension: .*(ParseError|Unexpected)/s);
		expect(byFile["syntax-error.ts"]).toContain("syntax-error.ts:2");
		expect(byFile["missing-dep.ts"]).toMatch(
			/^Failed to load extension: Cannot find module 'settle-fixture-package-that-does-not-exist'/,
		);
		// regression: a missing package said nothing about what to do
		expect(byFile["missing-dep.ts"]?.split("\n")[0]).toBe(
			"Failed to load extension: Cannot find module 'settle-fixture-package-that-does-not-exist'. Install it where the extension can find it: npm install settle-fixture-package-that-does-not-exist in the extension's folder or a folder above it.",
		);
		expect(diagnostics).toHaveLength(4);
		for (const diagnostic of diagnostics) {
			expect(diagnostic.type).toBe("error");
			expect(diagnostic.message).toContain(diagnostic.path!);
		}
		expect(await run(extensions)).toEqual([["good"]]);
	});
});

describe("project trust", () => {
	const sideEffects = (cwd: string) =>
		readdirSync(cwd).filter((name) => name.endsWith(".imported") || name.endsWith(".called"));

	it("lists an untrusted project's extensions without importing them", async () => {
		const cwd = copyFixture("untrusted-extension");
		const agentDir = emptyAgentDir();
		const loader = new DefaultResourceLoader({ cwd, agentDir });
		await loader.reload();
		expect(loader.isProjectTrusted()).toBe(false);
		const { extensions, skipped, errors, diagnostics } = loader.getExtensions();
		expect(extensions).toEqual([]);
		expect(errors).toEqual([]);
		expect(skipped).toEqual([
			{ path: join(cwd, "tools", "from-settings.ts"), source: "project", reason: "untrusted-project" },
			{ path: join(cwd, ".settle", "extensions", "side-effect.ts"), source: "project", reason: "untrusted-project" },
		]);
		expect(diagnostics).toHaveLength(2);
		expect(diagnostics[1]!.message).toBe(
			`Project extension not loaded: ${join(cwd, ".settle", "extensions", "side-effect.ts")}. The project ${cwd} is not trusted, so Settle does not import or run its extensions. To trust it: run settle with --approve; in the SDK, pass trustProject: true to the resource loader (new DefaultResourceLoader({ cwd, agentDir, trustProject: true }), or resourceLoaderOptions: { trustProject: true } of createAgentSessionServices / createAgentSessionRuntimeFactory); remember it with new ProjectTrustStore(agentDir).set("${cwd}", true) (writes ${join(agentDir, "trust.json")}); or set "defaultProjectTrust": "always" in ${join(agentDir, "settings.json")}.`,
		);
		// Not even imported: the modules write a file at import time.
		expect(sideEffects(cwd)).toEqual([]);
	});

	it("imports them once the project is trusted (the same fixture does leave side effects)", async () => {
		const cwd = copyFixture("untrusted-extension");
		const loader = new DefaultResourceLoader({ cwd, agentDir: emptyAgentDir(), trustProject: true });
		await loader.reload();
		expect(loader.getExtensions().skipped).toEqual([]);
		expect(sideEffects(cwd).sort()).toEqual(["from-settings.imported", "side-effect.imported"]);
		await run(loader.getExtensions().extensions);
		expect(sideEffects(cwd).sort()).toEqual([
			"from-settings.called",
			"from-settings.imported",
			"side-effect.called",
			"side-effect.imported",
		]);
	});

	it("honours a remembered trust decision and the global defaultProjectTrust", async () => {
		const cwd = copyFixture("untrusted-extension");
		const agentDir = emptyAgentDir();
		new ProjectTrustStore(agentDir).set(cwd, true);
		const remembered = new DefaultResourceLoader({ cwd, agentDir });
		await remembered.reload();
		expect(remembered.getExtensions().extensions).toHaveLength(2);

		const other = copyFixture("untrusted-extension");
		const otherAgentDir = emptyAgentDir();
		writeTree(otherAgentDir, { "settings.json": '{ "defaultProjectTrust": "always" }' });
		const byDefault = new DefaultResourceLoader({ cwd: other, agentDir: otherAgentDir });
		await byDefault.reload();
		expect(byDefault.getExtensions().extensions.map((extension) => extension.source)).toEqual(["project", "project"]);

		// trustProject: false wins over both.
		const refused = copyFixture("untrusted-extension");
		const refusedAgent = emptyAgentDir();
		writeTree(refusedAgent, { "settings.json": '{ "defaultProjectTrust": "always" }' });
		const loader = new DefaultResourceLoader({ cwd: refused, agentDir: refusedAgent, trustProject: false });
		await loader.reload();
		expect(loader.getExtensions().extensions).toEqual([]);
		expect(existsSync(join(refused, "side-effect.imported"))).toBe(false);
	});

	it("still loads global extensions for an untrusted project", async () => {
		const cwd = copyFixture("untrusted-extension");
		const loader = new DefaultResourceLoader({ cwd, agentDir: copyFixture("_agent") });
		await loader.reload();
		expect(loader.getExtensions().extensions.map((extension) => extension.source)).toEqual(["global"]);
		expect(sideEffects(cwd)).toEqual([]);
	});
});

describe("pi extensions in a project folder (outside node_modules)", () => {
	const PI_EXAMPLES = fileURLToPath(
		new URL("../../node_modules/@mariozechner/pi-coding-agent/examples/extensions", import.meta.url),
	);

	it('regression: pi examples importing "typebox" and "@mariozechner/pi-ai" load from a project\'s .pi/extensions', async () => {
		// They loaded only from inside node_modules, where pi's own dependencies happen to resolve.
		const cwd = join(tempDir(), "project");
		mkdirSync(join(cwd, ".pi", "extensions"), { recursive: true });
		for (const name of ["dynamic-tools.ts", "hello.ts", "shutdown-command.ts"]) {
			copyFileSync(join(PI_EXAMPLES, name), join(cwd, ".pi", "extensions", name));
		}
		const loader = new DefaultResourceLoader({ cwd, agentDir: emptyAgentDir(), trustProject: true });
		await loader.reload();
		expect(loader.getExtensions().errors).toEqual([]);
		const loaded = await instantiateExtensions(loader.getExtensions().extensions, { cwd });
		expect(loaded.errors).toEqual([]);
		const tools = loaded.extensions.flatMap((extension) => [...extension.tools.keys()]);
		expect(tools).toEqual(expect.arrayContaining(["hello", "finish_and_exit"]));
		const hello = loaded.extensions.map((extension) => extension.tools.get("hello")).find(Boolean);
		expect(hello?.definition.parameters).toMatchObject({ type: "object", properties: { name: { type: "string" } } });
	});

	it('regression: without TypeBox 1.x installed, "typebox" resolves to Settle\'s @sinclair/typebox', () => {
		const installed: Record<string, string> = {
			"@sinclair/typebox": "/n/@sinclair/typebox/index.js",
			"@sinclair/typebox/value": "/n/@sinclair/typebox/value.js",
		};
		expect(libraryAliases((specifier) => installed[specifier])).toEqual({
			"@sinclair/typebox": "/n/@sinclair/typebox/index.js",
			"@sinclair/typebox/value": "/n/@sinclair/typebox/value.js",
			typebox: "/n/@sinclair/typebox/index.js",
			"typebox/value": "/n/@sinclair/typebox/value.js",
		});
		installed.typebox = "/n/typebox/index.mjs";
		installed["@mariozechner/pi-ai"] = "/n/pi-ai/index.js";
		expect(libraryAliases((specifier) => installed[specifier])).toMatchObject({
			typebox: "/n/typebox/index.mjs",
			"@mariozechner/pi-ai": "/n/pi-ai/index.js",
		});
	});
});
