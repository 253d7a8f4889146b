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
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
		expect(broken.stdout).toBe("");

		const manifest = join(qoder, "package.json");
		writeFileSync(manifest, readFileSync(manifest, "utf8").replace("./src/index.ts", "./dist/index.js"));
		const fixed = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(fixed).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(fixed.stderr).toContain("qoder provider registered");
		expect(fixed.stderr).toContain("intercom loaded");
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
			`Failed to load extension: ENOENT: no such file or directory, open '${join(cli.dir, "assets", "prompt.md")}' (${asset}).`,
		);
		expect(failed.stderr).toContain(
			`Extension does not export a valid factory function: ${named} (it gives an object with MyPlugin, VERSION, not a function). Make its default export the factory`,
		);
	});
});
