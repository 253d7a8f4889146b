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
import { mkdirSync, renameSync, utimesSync, writeFileSync } from "node:fs";
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

	it("pi#6000: a /reload or /new with no extension file changed since the last load evaluates none of its modules again (each load kept one more copy of every native module for the life of the process); a file changed again is new at the next /reload", async () => {
		const compiled = join(cli.agentDir, "extensions", "browser-native");
		writeCompiledPackage(compiled, "0.4.0");
		// Each edit made a while before the /reload that follows it (a file written within 2 s of its load
		// is always evaluated again: a file system keeping mtimes to the second could hide the next edit).
		const release = (version: string, at: Date) => {
			const tools = join(compiled, "dist", "tools.js");
			writeFileSync(
				tools,
				`export const VERSION = "${version}#" + (globalThis.toolsEvaluated = (globalThis.toolsEvaluated ?? 0) + 1);\n`,
			);
			utimesSync(tools, at, at);
		};
		const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
		const long = new Date(Date.now() - 120_000);
		utimesSync(join(compiled, "dist", "index.js"), long, long);
		release("0.4.0", ago(120));
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/browserversion")).toContain("tools=0.4.0#1 themes=1");

		release("0.4.1", ago(90));
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.1#2 themes=1");
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.1#2 themes=1");
		await chat.say("/new");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.1#2 themes=1");

		release("0.4.2", ago(60));
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.2#3 themes=1");

		// Two edits of one size that a file system keeping coarse mtimes stamps alike (here a minute
		// ahead): the second still runs.
		const tick = ago(-60);
		release("0.4.3", tick);
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.3#4 themes=1");
		release("0.4.4", tick);
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/browserversion")).toContain("tools=0.4.4#5 themes=1");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});

	it("pi#6000: a CommonJS helper an ES module imports is new at /reload when only a file it requires changed", async () => {
		const dir = join(cli.agentDir, "extensions", "legacy");
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "package.json"), '{ "name": "legacy", "type": "module" }');
		writeFileSync(
			join(dir, "index.js"),
			'import legacy from "./legacy.cjs";\nexport default function (pi) {\n\tpi.registerCommand("legacy", { description: "shows", handler: async (_a, ctx) => ctx.ui.notify("util=" + legacy.util(), "info") });\n}\n',
		);
		writeFileSync(join(dir, "legacy.cjs"), 'const { value } = require("./util.cjs");\nexports.util = () => value;\n');
		const util = (value: string, secondsAgo: number) => {
			writeFileSync(join(dir, "util.cjs"), `exports.value = "${value}";\n`);
			const then = new Date(Date.now() - secondsAgo * 1000);
			utimesSync(join(dir, "util.cjs"), then, then);
		};
		util("one", 120);
		const long = new Date(Date.now() - 120_000);
		for (const file of ["index.js", "legacy.cjs"]) utimesSync(join(dir, file), long, long);
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/legacy")).toContain("util=one");
		await chat.say("/reload", "Reloaded:");
		util("two", 60);
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/legacy")).toContain("util=two");
		expect(await chat.end()).toBe(0);
	});

	it("pi#6000: an extension whose module threw at a /reload (an asset it reads at import was gone) loads at the next /reload once the asset is back, though none of its modules changed", async () => {
		const dir = join(cli.agentDir, "extensions", "charts");
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "package.json"), '{ "name": "charts", "type": "module" }');
		const entry = join(dir, "index.js");
		writeFileSync(
			entry,
			'import { readFileSync } from "node:fs";\nconst palette = readFileSync(new URL("./palette.txt", import.meta.url), "utf8").trim();\nexport default function (pi) {\n\tpi.registerCommand("chart", { description: "draws", handler: async (_a, ctx) => ctx.ui.notify("a chart in " + palette, "info") });\n}\n',
		);
		const long = new Date(Date.now() - 120_000);
		utimesSync(entry, long, long);
		const palette = join(dir, "palette.txt");
		writeFileSync(palette, "blue\n");
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/chart")).toContain("a chart in blue");

		renameSync(palette, `${palette}.away`);
		expect(await chat.say("/reload", "> ")).toContain("palette.txt");
		renameSync(`${palette}.away`, palette);
		expect(await chat.say("/reload", "Reloaded:")).not.toContain("palette.txt");
		expect(await chat.say("/chart")).toContain("a chart in blue");
		expect(await chat.end()).toBe(0);
	});
});
