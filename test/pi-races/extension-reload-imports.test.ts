/**
 * pi#6000, pi-agent-browser-native#129: `/reload` re-read an extension's entry `.ts` but not the
 * modules it imports: an edited `dep.mjs`, `dep.cjs` or package-local `.js` helper kept its old code
 * until pi restarted (an entry reading a newly added export saw `undefined`), and a compiled
 * extension (`"type": "module"`, entry `dist/index.js`) ran its old `dist/` after `pi update`.
 * pi#6108: the other way round, a dependency in `node_modules` evaluated again on each `/reload`
 * repeated its side effects ("theme name already registered" printed at every reload).
 * Replayed against a real `settle -i` child process with the reports' folders on disk: after editing
 * only the helpers, one `/reload` runs the new code of each; the dependency is evaluated once.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-ext-reload-imports-");

/** The report's entry: `/reproval` shows what each helper exports. */
const ENTRY = `import { VAL as mjs, ADDED } from "./dep.mjs";
import cjs from "./dep.cjs";
import { VAL as js } from "./dist/helper.js";

export default function (pi: any) {
	pi.registerCommand("reproval", {
		description: "shows the helpers' values",
		handler: async (_args: string, ctx: any) => ctx.ui.notify(\`mjs=\${mjs} cjs=\${cjs.VAL} js=\${js} added=\${ADDED}\`, "info"),
	});
}
`;

/** A compiled extension package: `dist/index.js` imports `dist/tools.js` and a themes dependency. */
function writeCompiledPackage(dir: string, version: string): void {
	mkdirSync(join(dir, "dist"), { recursive: true });
	mkdirSync(join(dir, "node_modules", "themes"), { recursive: true });
	writeFileSync(
		join(dir, "package.json"),
		'{ "name": "browser-native", "type": "module", "pi": { "extensions": ["./dist/index.js"] } }',
	);
	writeFileSync(
		join(dir, "dist", "index.js"),
		`import { VERSION } from "./tools.js";
import { registrations } from "themes";
export default function (pi) {
	pi.registerCommand("browserversion", {
		description: "shows the built tools' version",
		handler: async (_args, ctx) => ctx.ui.notify(\`tools=\${VERSION} themes=\${registrations()}\`, "info"),
	});
}
`,
	);
	writeFileSync(join(dir, "dist", "tools.js"), `export const VERSION = "${version}";\n`);
	writeFileSync(
		join(dir, "node_modules", "themes", "package.json"),
		'{ "name": "themes", "type": "module", "exports": "./index.js" }',
	);
	writeFileSync(
		join(dir, "node_modules", "themes", "index.js"),
		`globalThis.themeRegistrations = (globalThis.themeRegistrations ?? 0) + 1;
if (globalThis.themeRegistrations > 1) console.warn("theme name already registered pierre-dark");
export const registrations = () => globalThis.themeRegistrations;
`,
	);
}

function writeHelpers(dir: string, value: string, added: boolean): void {
	writeFileSync(
		join(dir, "dep.mjs"),
		`export const VAL = "${value}";\n${added ? 'export const ADDED = "yes";\n' : ""}`,
	);
	writeFileSync(join(dir, "dep.cjs"), `module.exports = { VAL: "${value}" };\n`);
	writeFileSync(join(dir, "dist", "helper.js"), `export const VAL = "${value}";\n`);
}

describe("pi#6000, pi-agent-browser-native#129: /reload after editing only an extension's imported helpers", () => {
	it("pi#6000: settle -i: after dep.mjs, dep.cjs, a .js helper and a compiled package's dist/tools.js change on disk, one /reload runs the new code of each; a newly added export is defined; the node_modules dependency is evaluated once", async () => {
		const dir = join(cli.agentDir, "extensions", "reload test é");
		mkdirSync(join(dir, "dist"), { recursive: true });
		writeFileSync(join(dir, "index.ts"), ENTRY);
		writeHelpers(dir, "old", false);
		const compiled = join(cli.agentDir, "extensions", "browser-native");
		writeCompiledPackage(compiled, "0.4.0");
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/reproval")).toContain("mjs=old cjs=old js=old added=undefined");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.0 themes=1");

		writeHelpers(dir, "new", true);
		writeFileSync(join(compiled, "dist", "tools.js"), 'export const VERSION = "0.4.1";\n');
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/reproval")).toContain("mjs=new cjs=new js=new added=yes");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.1 themes=1");
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.1 themes=1");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});
