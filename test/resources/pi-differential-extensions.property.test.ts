/**
 * Randomized differential of extensions' `sourceInfo` against pi 0.73.1: random layouts in real
 * temp folders (extension files and folders in the agent folder's and the project's `extensions/`,
 * in a folder only settings entries reach, CLI files and a CLI folder with a `pi.extensions`
 * manifest), random `extensions` settings entries (files, folders, the extensions folder itself,
 * missing paths, `!glob` / `+path` / `-path` filters) in both settings files, random explicit
 * (`-e`) paths, some of which discovery reaches too, with and without `noExtensions`. pi's
 * DefaultResourceLoader and Settle's read the same tree through `.pi/`; half the trees also hold a
 * copy as `.settle/`, which Settle reads instead (its paths mapped back for the comparison).
 *
 * Compared, un-normalized: which extensions load (by path) and the `sourceInfo` of each, of every
 * tool and of every command it registers (pi's `getAllTools()` / `getCommands()` report those).
 * Focused cases per rule: test/resources/extension-source-info.test.ts.
 * Longer hunts: `RESOURCES_DIFF_RUNS=300 npx vitest run test/resources/pi-differential-extensions.property.test.ts`.
 *
 * Deliberate differences, kept out of the generator (and only these):
 * - Load order inside a folder: Settle lists a folder's entries in name order, pi in the order the
 *   file system returns them; extensions are compared by path, not by position.
 * - An explicit folder without a manifest: pi loads the folder itself as one module (or its
 *   `extensions/` sub-folder, as a package); Settle loads the modules the folder holds (its
 *   `index.ts`, or each `.ts` / `.js` file). The paths differ, so explicit folders here carry a
 *   `pi.extensions` manifest, which both read alike.
 * - Relative explicit paths: pi checks they exist against the process's folder, not cwd (a pi
 *   quirk that reports an error while loading the file); explicit paths here are absolute.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
	DefaultResourceLoader as PiResourceLoader,
	SettingsManager as PiSettingsManager,
} from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { instantiateExtensions } from "../../src/extensions/loader.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import type { SourceInfo } from "../../src/resources/types.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { tempDir } from "../settings/helpers.js";
import { keepHome } from "./keep-home.js";

const RUNS = process.env.RESOURCES_DIFF_RUNS ? Number(process.env.RESOURCES_DIFF_RUNS) : undefined;
const LONG_HUNT_TIMEOUT = RUNS ? RUNS * 1000 : 60_000;

/** Relative path → file content. */
type Tree = Record<string, string>;

const AGENT = "agent";
const HOME = "home";
const CWD = join("w", "a", "b");
const PROJECT = join(CWD, ".pi");
/** Folders holding extensions: the two extensions folders, one only settings reach, one for `-e`. */
const FOLDERS = [join(AGENT, "extensions"), join(PROJECT, "extensions"), join("w", "extra"), "cli"];
const NAMES = ["alpha", "beta", "gamma"];

/** A module registering a tool and a command named after its place (names never collide). */
function extensionModule(relativePath: string, registers: boolean): string {
	const id = relativePath.replace(/[^a-z0-9]/gi, "_");
	if (!registers) return "export default function () {}\n";
	return `export default function (pi) {
	pi.registerTool({ name: "t_${id}", label: "${id}", description: "tool", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [], details: {} }) });
	pi.registerCommand("c_${id}", { description: "command", handler: async () => {} });
}
`;
}

/** One entry of an extensions folder: a file, a folder with `index.ts`, or a folder with a manifest. */
const folderEntry = fc.record({
	name: fc.constantFrom(...NAMES),
	shape: fc.constantFrom("file", "index", "manifest"),
	registers: fc.boolean(),
});

/** `extensions` settings entries, relative to the settings file's folder (`up` leads to the base). */
function settingsEntries(up: string): fc.Arbitrary<string[]> {
	return fc.uniqueArray(
		fc.constantFrom(
			`${up}/w/extra`,
			`${up}/w/extra/alpha.ts`,
			`${up}/w/extra/beta`,
			`${up}/missing`,
			"extensions",
			"extensions/alpha.ts",
			"extensions/gamma",
			"!alpha.ts",
			"!**/beta/**",
			"+extensions/gamma.ts",
			"-extensions/alpha.ts",
		),
		{ maxLength: 4 },
	);
}

interface Layout {
	files: Tree;
	/** Explicit paths, relative to the base (made absolute when loading). */
	explicit: string[];
	noExtensions: boolean;
}

const layout: fc.Arbitrary<Layout> = fc
	.record({
		folders: fc.tuple(...FOLDERS.map(() => fc.array(folderEntry, { maxLength: 3 }))),
		globalSettings: fc.option(settingsEntries(".."), { nil: undefined }),
		projectSettings: fc.option(settingsEntries("../../../.."), { nil: undefined }),
		explicit: fc.uniqueArray(fc.nat({ max: 40 }), { maxLength: 3 }),
		cliPackage: fc.boolean(),
		noExtensions: fc.boolean(),
	})
	.map(({ folders, globalSettings, projectSettings, explicit, cliPackage, noExtensions }) => {
		const files: Tree = { [join("w", ".git", "HEAD")]: "ref: refs/heads/main\n" };
		const modules: string[] = [];
		FOLDERS.forEach((folder, i) => {
			for (const { name, shape, registers } of folders[i]!) {
				if (shape === "file") {
					const path = join(folder, `${name}.ts`);
					files[path] = extensionModule(path, registers);
					modules.push(path);
				} else if (shape === "index") {
					const path = join(folder, name, "index.ts");
					files[path] = extensionModule(path, registers);
					modules.push(path);
				} else {
					const path = join(folder, name, "main.ts");
					files[join(folder, name, "package.json")] = JSON.stringify({ name, pi: { extensions: ["./main.ts"] } });
					files[path] = extensionModule(path, registers);
					modules.push(path);
				}
			}
		});
		if (globalSettings) files[join(AGENT, "settings.json")] = JSON.stringify({ extensions: globalSettings });
		if (projectSettings) files[join(PROJECT, "settings.json")] = JSON.stringify({ extensions: projectSettings });
		const pkg = join("cli", "pkg");
		if (cliPackage) {
			files[join(pkg, "package.json")] = JSON.stringify({ name: "pkg", pi: { extensions: ["./one.ts", "./two.ts"] } });
			files[join(pkg, "one.ts")] = extensionModule(join(pkg, "one.ts"), true);
			files[join(pkg, "two.ts")] = extensionModule(join(pkg, "two.ts"), false);
		}
		// Explicit paths: any module of the tree (discovered, listed or neither), and the package folder.
		const pool = [...new Set(modules)].concat(cliPackage ? [pkg] : []);
		const chosen = pool.length === 0 ? [] : [...new Set(explicit.map((index) => pool[index % pool.length]!))];
		return { files, explicit: chosen, noExtensions };
	});

function writeTree(base: string, files: Tree): void {
	for (const dir of [HOME, CWD, AGENT]) mkdirSync(join(base, dir), { recursive: true });
	for (const [path, content] of Object.entries(files)) {
		mkdirSync(dirname(join(base, path)), { recursive: true });
		writeFileSync(join(base, path), content);
	}
}

/** The tree with every `.pi/` file also under `.settle/` (Settle then reads only `.settle/`). */
function withSettleFolder(files: Tree): Tree {
	const copy: Tree = { ...files };
	for (const [path, content] of Object.entries(files)) {
		if (path.startsWith(`${PROJECT}/`)) copy[join(CWD, ".settle", path.slice(PROJECT.length + 1))] = content;
	}
	return copy;
}

interface ExtensionLike {
	path: string;
	sourceInfo: SourceInfo;
	tools: Map<string, { sourceInfo: SourceInfo }>;
	commands: Map<string, { sourceInfo: SourceInfo }>;
}

/** Per loaded extension (by path): its source info, and its tools' and commands' by name. */
function report(extensions: readonly ExtensionLike[]): Record<string, unknown> {
	return Object.fromEntries(
		extensions.map((ext) => [
			ext.path,
			{
				sourceInfo: ext.sourceInfo,
				tools: Object.fromEntries([...ext.tools].map(([name, tool]) => [name, tool.sourceInfo])),
				commands: Object.fromEntries([...ext.commands].map(([name, command]) => [name, command.sourceInfo])),
			},
		]),
	);
}

describe("extensions' sourceInfo: differential against pi 0.73.1", () => {
	keepHome();

	it(
		"random layouts load the same extensions, each with pi's source info on itself, its tools and its commands",
		async () => {
			const root = tempDir("settle-ext-diff-");
			let run = 0;
			// What the runs exercised: the comparison must not pass by comparing empty reports.
			const seen: Record<string, number> = { auto: 0, local: 0, cli: 0, inline: 0, tools: 0, settleFolder: 0 };
			await fc.assert(
				fc.asyncProperty(layout, fc.boolean(), async ({ files, explicit, noExtensions }, settleFolder) => {
					const base = join(root, String(run++));
					writeTree(base, settleFolder ? withSettleFolder(files) : files);
					try {
						const cwd = join(base, CWD);
						const agentDir = join(base, AGENT);
						process.env.HOME = join(base, HOME);
						const options = {
							cwd,
							agentDir,
							noExtensions,
							additionalExtensionPaths: explicit.map((path) => join(base, path)),
							extensionFactories: [
								(pi: { registerCommand(name: string, options: object): void }) =>
									pi.registerCommand("c_inline", { handler: async () => {} }),
							],
						};
						const pi = new PiResourceLoader({
							...options,
							settingsManager: PiSettingsManager.create(cwd, agentDir),
						});
						await pi.reload();
						const settleLoader = new DefaultResourceLoader({
							...options,
							// With `.settle/`, the explicit paths into `.pi/` name the copies Settle reads.
							additionalExtensionPaths: explicit.map((path) =>
								join(
									base,
									settleFolder && path.startsWith(`${PROJECT}/`) ? path.replace(PROJECT, join(CWD, ".settle")) : path,
								),
							),
							homeDir: join(base, HOME),
							settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted: true }),
							trustProject: true,
						});
						await settleLoader.reload();
						const settle = await instantiateExtensions(settleLoader.getExtensions().extensions, { cwd });
						expect(pi.getExtensions().errors).toEqual([]);
						expect(settle.errors).toEqual([]);
						expect(settleLoader.getExtensions().errors).toEqual([]);

						const piReport = report(pi.getExtensions().extensions as unknown as ExtensionLike[]);
						let settleReport = report(settle.extensions);
						if (settleFolder) {
							seen.settleFolder!++;
							const from = JSON.stringify(join(cwd, ".settle")).slice(1, -1);
							const to = JSON.stringify(join(cwd, ".pi")).slice(1, -1);
							settleReport = JSON.parse(JSON.stringify(settleReport).replaceAll(from, to));
						}
						// JSON drops `baseDir: undefined` alike on both sides.
						expect(settleReport).toEqual(JSON.parse(JSON.stringify(piReport)));
						for (const ext of pi.getExtensions().extensions) {
							seen[ext.sourceInfo.source] = (seen[ext.sourceInfo.source] ?? 0) + 1;
							seen.tools! += ext.tools.size;
						}
					} finally {
						rmSync(base, { recursive: true, force: true });
					}
				}),
				{ numRuns: RUNS ?? 40 },
			);
			for (const [what, count] of Object.entries(seen)) expect({ what, some: count > 0 }).toEqual({ what, some: true });
		},
		LONG_HUNT_TIMEOUT,
	);
});
