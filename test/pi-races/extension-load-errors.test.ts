/**
 * Extensions that fail to load, or load from their own folder, replayed with real files on disk and
 * real `settle` child processes.
 *
 * gsd-2#2381: an extension saved as `.js` holding TypeScript (an `interface`, a type annotation)
 * failed with "ParseError: Unexpected reserved word 'interface'", nothing saying the syntax was
 * TypeScript or that renaming the file to `.ts` fixes it.
 *
 * nono#1116, openpi#2: an extension importing an npm package installed in its own `node_modules`
 * (nono-ts), and one whose dependency requires a package nobody installed (`ioredis`, required by
 * `@effect/platform-node`): the first must load, resolved from the extension's folder; the second
 * must name the missing package, the file that required it and what to do.
 *
 * pi-provider-qoder#21, pi-intercom#3: a package whose `pi.extensions` names `./src/index.ts` while
 * only `dist/` is published loaded nothing, without a word (`/login qoder` had no option); a package
 * with a root `index.ts` and no manifest was installed but never loaded.
 *
 * opencode#34742, opencode#31575, opencode#49458 (opencode's plugins): a plugin whose module threw
 * at import (a top-level `readFileSync` of an asset the package did not ship), one exporting a
 * constant beside its function, and one under `C:/Program Files/…` were each dropped without a word.
 *
 * pi-provider-qoder#21 again, in a plain extension folder (not an installed package): its
 * `package.json` naming a file the folder does not have dropped the extension without a word. The
 * same in a sub-folder of an installed package's `extensions/` folder.
 *
 * pi#7985, codebase-memory-mcp#1550: a generated `~/.pi/agent/extensions/cbmem.ts` exporting a named
 * `register(pi)` and no default stopped every start with "Extension does not export a valid factory
 * function", which sent its author debugging the extension's code instead of its export.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { useCliProject } from "../cli/helpers.js";
import { writeTree } from "../settings/helpers.js";

const cli = useCliProject("settle-pi-races-ext-load-errors-");

const NOTIFY = (text: string) => `pi.on("session_start", (_event: any, ctx: any) => ctx.ui.notify(${text}));`;

describe("gsd-2#2381: a .js extension holding TypeScript syntax", () => {
	it("gsd-2#2381: settle -p names the file and line and says to rename it to .ts; renamed, it loads; a plain JavaScript syntax error gets no such hint", () => {
		const file = join(cli.dir, "plan-mode.js");
		writeFileSync(
			file,
			`interface PlanState { steps: string[] }
export default function (pi) {
	const state: PlanState = { steps: [] };
	pi.on("session_start", (_event, ctx) => ctx.ui.notify("plan mode " + state.steps.length));
}
`,
		);
		const failed = cli.settle(["--faux", "--no-session", "-e", file, "-p", "hi"]);
		expect(failed.code).toBe(1);
		expect(failed.stderr).toContain(
			`Failed to load extension: ParseError: Unexpected reserved word 'interface'. ${file}:1:0: this JavaScript file holds TypeScript; rename it to .ts (Settle transpiles TypeScript) or compile it to JavaScript.`,
		);

		renameSync(file, join(cli.dir, "plan-mode.ts"));
		const renamed = cli.settle(["--faux", "--no-session", "-e", join(cli.dir, "plan-mode.ts"), "-p", "hi"]);
		expect(renamed).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(renamed.stderr).toContain("plan mode 0");

		const broken = join(cli.dir, "broken.js");
		writeFileSync(broken, "export default function (pi) {\n\tconst steps = ;\n}\n");
		const plain = cli.settle(["--faux", "--no-session", "-e", broken, "-p", "hi"]);
		expect(plain.code).toBe(1);
		expect(plain.stderr).toContain(`Failed to load extension: ParseError: Unexpected token ${broken}:2:15`);
		expect(plain.stderr).not.toContain("TypeScript");
	});
});

describe("gsd-2#2381: the TypeScript hint names only a .js file that holds TypeScript", () => {
	it("gsd-2#2381: a .js file holding TypeScript in a folder whose name has a space (C:\\Users\\Jane Doe) gets the hint; a plain .js entry whose .ts helper has a syntax error, or whose config parse fails at import, does not", () => {
		const folder = join(cli.dir, "Jane Doe", "extensions");
		writeTree(folder, {
			"plan-mode.js":
				"interface PlanState { steps: string[] }\nexport default function (pi) {\n\tconst state: PlanState = { steps: [] };\n}\n",
			"notes.js":
				'import { NOTE } from "./note.ts";\nexport default function (pi) {\n\tpi.on("session_start", (_event, ctx) => ctx.ui.notify(NOTE));\n}\n',
			"note.ts": "export const NOTE: string = ;\n",
		});
		const typescript = join(folder, "plan-mode.js");
		const spaced = cli.settle(["--faux", "--no-session", "-e", typescript, "-p", "hi"]);
		expect(spaced.code).toBe(1);
		expect(spaced.stderr).toContain(
			`Failed to load extension: ParseError: Unexpected reserved word 'interface'. ${typescript}:1:0: this JavaScript file holds TypeScript; rename it to .ts (Settle transpiles TypeScript) or compile it to JavaScript.`,
		);

		const helper = cli.settle(["--faux", "--no-session", "-e", join(folder, "notes.js"), "-p", "hi"]);
		expect(helper.code).toBe(1);
		expect(helper.stderr).toContain(
			`Failed to load extension: ParseError: Unexpected token ${join(folder, "note.ts")}:1:28`,
		);
		expect(helper.stderr).not.toContain("holds TypeScript");

		// Its own config read at import fails with a parser's "ParseError", naming no file: nor does it.
		writeTree(folder, {
			"config.js":
				'const text = "mode plan";\nif (!text.includes("=")) throw new Error("ParseError: expected = in .planrc line 1");\nexport default function (pi) {}\n',
		});
		const config = cli.settle(["--faux", "--no-session", "-e", join(folder, "config.js"), "-p", "hi"]);
		expect(config.code).toBe(1);
		expect(config.stderr).toContain("Failed to load extension: ParseError: expected = in .planrc line 1");
		expect(config.stderr).not.toContain("holds TypeScript");
	});
});

describe("nono#1116, openpi#2: packages an extension imports from its own node_modules", () => {
	it("nono#1116: an extension folder with its own node_modules (a CommonJS package, an ES-module-only package with an exports map) and top-level await loads in settle -p", () => {
		const folder = join(cli.dir, "pi-project-sandbox");
		writeTree(folder, {
			"index.ts": `import { sandboxName } from "nono-ts";
import { hello } from "modern";
import { where } from "modern/node";
const ready = await Promise.resolve("ready");
export default function (pi: any) {
	${NOTIFY('[sandboxName(), hello(), where, ready].join(" ")')}
}
`,
			"node_modules/nono-ts/package.json": '{ "name": "nono-ts", "version": "0.3.0", "main": "index.js" }',
			"node_modules/nono-ts/index.js": 'exports.sandboxName = () => "nono";\n',
			"node_modules/modern/package.json":
				'{ "name": "modern", "type": "module", "exports": { ".": { "import": "./lib/index.js" }, "./node": { "import": "./lib/node.js" } } }',
			"node_modules/modern/lib/index.js": 'export const hello = () => "modern";\n',
			"node_modules/modern/lib/node.js": 'export const where = "node";\n',
		});
		const run = cli.settle(["--faux", "--no-session", "-e", folder, "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(run.stderr).toContain("nono modern node ready");
	});

	it("openpi#2: a dependency requiring a package nobody installed: the error names it, the file that required it and where to install it; installed there, both extensions load", () => {
		const extensions = join(cli.agentDir, "extensions");
		writeTree(extensions, {
			"file-search/index.ts": `import { NodeRedis } from "@effect/platform-node";
export default function (pi: any) {
	${NOTIFY('"file-search " + NodeRedis.name')}
}
`,
			"file-search/node_modules/@effect/platform-node/package.json":
				'{ "name": "@effect/platform-node", "main": "dist/index.js" }',
			"file-search/node_modules/@effect/platform-node/dist/index.js":
				'exports.NodeRedis = require("./NodeRedis.js");\n',
			"file-search/node_modules/@effect/platform-node/dist/NodeRedis.js": 'module.exports = require("ioredis");\n',
			"git-info.ts": `export default function (pi: any) {
	${NOTIFY('"git-info loaded"')}
}
`,
		});
		const requirer = join(extensions, "file-search/node_modules/@effect/platform-node/dist/NodeRedis.js");
		const error = `Failed to load extension: Cannot find module 'ioredis'. Install it where the extension can find it: npm install ioredis in the extension's folder or a folder above it. Require stack: - ${requirer}`;

		const print = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(print.code).toBe(1);
		expect(print.stderr).toContain(error);

		// What the error says to do: npm install ioredis in the extension's folder.
		writeTree(join(extensions, "file-search"), {
			"node_modules/ioredis/package.json": '{ "name": "ioredis", "main": "index.js" }',
			"node_modules/ioredis/index.js": "module.exports = class Redis {};\n",
		});
		const fixed = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(fixed).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(fixed.stderr).toContain("file-search Redis");
		expect(fixed.stderr).toContain("git-info loaded");
	});
});

describe("pi-provider-qoder#21, pi-intercom#3: a package's manifest and what it ships", () => {
	it("pi-provider-qoder#21: a manifest naming a file the package does not ship stops settle -p with an error naming the entry and the package; fixed as the report did, it loads, beside a package with a root index.ts and no manifest (pi-intercom#3)", () => {
		const qoder = join(cli.dir, "packages", "pi-provider-qoder");
		const intercom = join(cli.dir, "packages", "pi-intercom");
		writeTree(qoder, {
			"package.json": '{ "name": "pi-provider-qoder", "files": ["dist"], "pi": { "extensions": ["./src/index.ts"] } }',
			"dist/index.js":
				'export default function (pi) {\n\tpi.on("session_start", (_event, ctx) => ctx.ui.notify("qoder provider registered"));\n}\n',
		});
		writeTree(intercom, {
			"package.json": '{ "name": "pi-intercom", "keywords": ["pi-package"] }',
			"index.ts": `export default function (pi: any) {\n\t${NOTIFY('"intercom loaded"')}\n}\n`,
		});
		const settings = join(cli.agentDir, "settings.json");
		writeTree(cli.agentDir, { "settings.json": JSON.stringify({ packages: [qoder, intercom] }) });

		const broken = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(broken.code).toBe(1);
		expect(broken.stderr).toContain(
			`Package ${qoder} (in ${settings}) names the extension ./src/index.ts in its package.json, but the package has no such file: the extension is not loaded.`,
		);
		// The way to keep the package's other resources meanwhile, which the next test shows working.
		expect(broken.stderr).toContain(
			`until then remove the package, or keep the rest of it by listing it as {"source": ${JSON.stringify(qoder)}, "extensions": []} there.`,
		);
		expect(broken.stdout).toBe("");

		const manifest = join(qoder, "package.json");
		writeFileSync(manifest, readFileSync(manifest, "utf8").replace("./src/index.ts", "./dist/index.js"));
		const fixed = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(fixed).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(fixed.stderr).toContain("qoder provider registered");
		expect(fixed.stderr).toContain("intercom loaded");
	});

	it("pi-provider-qoder#21: a manifest entry the user's package filter turns off (extensions: [], or patterns it does not match) stops nothing: settle -p runs and says nothing of it; a pattern that enables it still stops settle", () => {
		const qoder = join(cli.dir, "packages", "pi-provider-qoder");
		writeTree(qoder, {
			"package.json":
				'{ "name": "pi-provider-qoder", "pi": { "extensions": ["./src/index.ts", "./dist/index.js"], "skills": ["./skills"] } }',
			"dist/index.js":
				'export default function (pi) {\n\tpi.on("session_start", (_event, ctx) => ctx.ui.notify("qoder dist loaded"));\n}\n',
			"skills/qoder-help/SKILL.md": "---\nname: qoder-help\ndescription: Helps with qoder.\n---\nHelp.\n",
		});
		const settle = (filter: string[]) => {
			writeTree(cli.agentDir, {
				"settings.json": JSON.stringify({ packages: [{ source: qoder, extensions: filter }] }),
			});
			return cli.settle(["--faux", "--no-session", "-p", "hi"]);
		};
		const missing = "names the extension ./src/index.ts";

		const off = settle([]);
		expect(off).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(off.stderr).not.toContain(missing);
		expect(off.stderr).not.toContain("qoder dist loaded");

		const distOnly = settle(["dist/*.js"]);
		expect(distOnly).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(distOnly.stderr).not.toContain(missing);
		expect(distOnly.stderr).toContain("qoder dist loaded");

		const enabled = settle(["src/*.ts"]);
		expect(enabled.code).toBe(1);
		expect(enabled.stderr).toContain(missing);
	});
});

describe("pi-provider-qoder#21 in a plain folder: a manifest naming a file the folder does not have", () => {
	it("pi-provider-qoder#21: a folder in the extensions folder, one listed in settings and one given with -e whose package.json names a missing entry each stop settle -p with an error naming the folder and the entry; fixed, they load", () => {
		const extensions = join(cli.agentDir, "extensions");
		const local = join(extensions, "qoder-local");
		const listed = join(cli.dir, "listed-ext");
		const DIST =
			'export default function (pi) {\n\tpi.on("session_start", (_event, ctx) => ctx.ui.notify("NAME loaded"));\n}\n';
		writeTree(local, {
			"package.json": '{ "name": "qoder-local", "pi": { "extensions": ["./src/index.ts"] } }',
			"dist/index.js": DIST.replace("NAME", "qoder"),
		});
		writeTree(listed, {
			"package.json": '{ "name": "listed", "settle": { "extensions": ["./dist/main.js", "./lib/extra.js"] } }',
			"dist/main.js": DIST.replace("NAME", "listed"),
		});
		const settings = join(cli.agentDir, "settings.json");
		writeTree(cli.agentDir, { "settings.json": JSON.stringify({ extensions: [listed] }) });
		const missing = (folder: string, entry: string, key: string, where = "") =>
			`Error: Extension folder ${folder}${where} names the extension ${entry} in its package.json, but the folder has no such file: the extension is not loaded. Its "${key}" extensions list must name a file in the folder (fix the entry, or build the file).`;

		const broken = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(broken).toMatchObject({ code: 1, stdout: "" });
		expect(broken.stderr).toContain(
			`${missing(local, "./src/index.ts", "pi")} Fix or remove it, or run with --no-extensions (only -e extensions load then).\n`,
		);
		expect(broken.stderr).toContain(missing(listed, "./lib/extra.js", "settle", ` (in ${settings})`));
		expect(broken.stderr).not.toContain("./dist/main.js");

		const given = cli.settle(["--faux", "--no-session", "--no-extensions", "-e", local, "-p", "hi"]);
		expect(given).toMatchObject({ code: 1, stdout: "" });
		expect(given.stderr).toBe(`${missing(local, "./src/index.ts", "pi")} Fix it, or run without -e ${local}.\n`);

		for (const [folder, from, to] of [
			[local, "./src/index.ts", "./dist/index.js"],
			[listed, ', "./lib/extra.js"', ""],
		] as const) {
			const manifest = join(folder, "package.json");
			writeFileSync(manifest, readFileSync(manifest, "utf8").replace(from, to));
		}
		const fixed = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(fixed).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(fixed.stderr).toContain("qoder loaded");
		expect(fixed.stderr).toContain("listed loaded");
	});
});

describe("pi-provider-qoder#21 in a plain folder whose manifest entries are all missing, beside an index.ts", () => {
	it("pi-provider-qoder#21: the folder's index.ts is not loaded in their place (the manifest names the entries): the error says so; fixed, the named entry loads", async () => {
		const folder = join(cli.dir, "qoder-indexed");
		writeTree(folder, {
			"package.json": '{ "name": "qoder-indexed", "pi": { "extensions": ["./src/index.ts"] } }',
			"index.ts": `export default function (pi: any) {\n\t${NOTIFY('"stale index loaded"')}\n}\n`,
			"dist/index.js":
				'export default function (pi) {\n\tpi.on("session_start", (_event, ctx) => ctx.ui.notify("qoder loaded"));\n}\n',
		});
		const loader = new DefaultResourceLoader({
			cwd: cli.project,
			agentDir: cli.agentDir,
			additionalExtensionPaths: [folder],
		});
		await loader.reload();
		const { extensions, diagnostics } = loader.getExtensions();
		expect(extensions.map((extension) => extension.path)).toEqual([]);
		expect(diagnostics.map((d) => d.message)).toEqual([
			`Extension folder ${folder} names the extension ./src/index.ts in its package.json, but the folder has no such file: the extension is not loaded, nor its index.ts in its place. Its "pi" extensions list must name a file in the folder (fix the entry, or build the file).`,
		]);

		const given = cli.settle(["--faux", "--no-session", "-e", folder, "-p", "hi"]);
		expect(given).toMatchObject({ code: 1, stdout: "" });
		expect(given.stderr).not.toContain("stale index loaded");

		const manifest = join(folder, "package.json");
		writeFileSync(manifest, readFileSync(manifest, "utf8").replace("./src/index.ts", "./dist/index.js"));
		const fixed = cli.settle(["--faux", "--no-session", "-e", folder, "-p", "hi"]);
		expect(fixed).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(fixed.stderr).toContain("qoder loaded");
		expect(fixed.stderr).not.toContain("stale index loaded");
	});
});

describe("pi-provider-qoder#21 in an installed package's extension sub-folder whose manifest entries are all missing", () => {
	it("pi-provider-qoder#21: a package's extensions/<folder> whose package.json names only missing entries stops settle -p with an error naming the folder's manifest, the entry and the index not loaded in its place, and what to do; the package filter it suggests keeps the rest loading and silences it; fixed, the named entry loads and the stale index does not", () => {
		const toolkit = join(cli.dir, "packages", "toolkit");
		const folder = join(toolkit, "extensions", "qoder");
		writeTree(toolkit, {
			"package.json": '{ "name": "toolkit", "keywords": ["pi-package"] }',
			"extensions/other.ts": `export default function (pi: any) {\n\t${NOTIFY('"other loaded"')}\n}\n`,
			"extensions/qoder/package.json": '{ "name": "qoder", "pi": { "extensions": ["./src/index.ts"] } }',
			"extensions/qoder/index.ts": `export default function (pi: any) {\n\t${NOTIFY('"stale index loaded"')}\n}\n`,
			"extensions/qoder/dist/index.js":
				'export default function (pi) {\n\tpi.on("session_start", (_event, ctx) => ctx.ui.notify("qoder loaded"));\n}\n',
		});
		const settings = join(cli.agentDir, "settings.json");
		const settle = (entry: unknown) => {
			writeTree(cli.agentDir, { "settings.json": JSON.stringify({ packages: [entry] }) });
			return cli.settle(["--faux", "--no-session", "-p", "hi"]);
		};

		const broken = settle(toolkit);
		expect(broken).toMatchObject({ code: 1, stdout: "" });
		expect(broken.stderr).toContain(
			`Package ${toolkit} (in ${settings}) has the extension folder ${folder}, whose package.json names the extension ./src/index.ts, but the folder has no such file: the extension is not loaded, nor its index.ts in its place. Its "pi" extensions list must name a file in the folder (ask the package's author); until then remove the package, or keep the rest of it by listing it as {"source": ${JSON.stringify(toolkit)}, "extensions": ["!extensions/qoder/**"]} there.`,
		);
		expect(broken.stderr).not.toContain("stale index loaded");

		const filtered = settle({ source: toolkit, extensions: ["!extensions/qoder/**"] });
		expect(filtered).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(filtered.stderr).toContain("other loaded");
		expect(filtered.stderr).not.toContain("./src/index.ts");
		expect(settle({ source: toolkit, extensions: [] })).toMatchObject({ code: 0, stdout: "hi\n", stderr: "" });

		const manifest = join(folder, "package.json");
		writeFileSync(manifest, readFileSync(manifest, "utf8").replace("./src/index.ts", "./dist/index.js"));
		const fixed = settle(toolkit);
		expect(fixed).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(fixed.stderr).toContain("qoder loaded");
		expect(fixed.stderr).toContain("other loaded");
		expect(fixed.stderr).not.toContain("stale index loaded");
	});
});

describe("pi-provider-qoder#21 in an untrusted project's extensions folder", () => {
	it("pi-provider-qoder#21: the same mistake in an untrusted project's .pi/extensions does not stop settle -p (its extensions are never read); trusted with --approve, it does", () => {
		const folder = join(cli.project, ".pi", "extensions", "qoder-project");
		writeTree(folder, {
			"package.json": '{ "name": "qoder-project", "pi": { "extensions": ["./src/index.ts"] } }',
			"dist/index.js": "export default function (pi) {}\n",
		});
		const error = `Extension folder ${folder} names the extension ./src/index.ts in its package.json, but the folder has no such file`;
		const untrusted = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(untrusted).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(untrusted.stderr).not.toContain(error);

		const trusted = cli.settle(["--faux", "--no-session", "--approve", "-p", "hi"]);
		expect(trusted).toMatchObject({ code: 1, stdout: "" });
		expect(trusted.stderr).toContain(error);
	});
});

describe("opencode#34742, opencode#31575, opencode#49458: extensions dropped without a word", () => {
	it("opencode#49458: an extension listed in settings under a folder with spaces and a non-ASCII name loads; opencode#34742, opencode#31575: a module throwing ENOENT at import and one without a default export stop settle -p, each error naming its file and cause", () => {
		const plugin = join(cli.dir, "Program Files", "Clawd on Desk é", "hooks", "opencode-plugin");
		writeTree(plugin, {
			"index.js":
				'export default function (pi) {\n\tpi.on("session_start", (_event, ctx) => ctx.ui.notify("clawd loaded"));\n}\n',
		});
		writeTree(cli.agentDir, { "settings.json": JSON.stringify({ extensions: [plugin] }) });
		const loaded = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(loaded).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(loaded.stderr).toContain("clawd loaded");

		const asset = join(cli.dir, "asset-plugin.ts");
		writeFileSync(
			asset,
			`import { readFileSync } from "node:fs";
import { join } from "node:path";
const prompt = readFileSync(join(__dirname, "assets", "prompt.md"), "utf8");
export default function (pi: any) {
	pi.on("before_agent_start", () => ({ systemPrompt: prompt }));
}
`,
		);
		const named = join(cli.dir, "named-plugin.js");
		writeFileSync(named, 'export const VERSION = "1.0.0";\nexport const MyPlugin = async () => ({});\n');
		const failed = cli.settle(["--faux", "--no-session", "-e", asset, "-e", named, "-p", "hi"]);
		expect(failed).toMatchObject({ code: 1, stdout: "" });
		expect(failed.stderr).toContain(
			`Failed to load extension: ENOENT: no such file or directory, open '${join(cli.dir, "assets", "prompt.md")}' (thrown at asset-plugin.ts:3) (${asset}).`,
		);
		expect(failed.stderr).toContain(
			`Extension does not export a valid factory function: ${named} (it gives an object with MyPlugin, VERSION, not a function). Make its default export the factory`,
		);
	});

	it("pi#7985, codebase-memory-mcp#1550: an extension in the extensions folder exporting only `register(pi)`: the error names the export it found and the default export to write", () => {
		const file = join(cli.agentDir, "extensions", "cbmem.ts");
		writeTree(cli.agentDir, {
			"extensions/cbmem.ts":
				"export function register(pi: any) {\n\tpi.registerCommand('cbmem', { description: 'd', handler: async () => {} });\n}\n",
		});
		const run = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(run).toMatchObject({ code: 1, stdout: "" });
		expect(run.stderr).toContain(
			`Extension does not export a valid factory function: ${file} (it gives an object with register, not a function). Make its default export the factory: export default function (pi) { … }.`,
		);
		expect(run.stderr).toContain("or run with --no-extensions");
	});
});
