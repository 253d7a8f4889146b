/**
 * pi packages listed in settings.json `packages` load their extensions, skills and prompt templates
 * through the resource loader, with pi 0.73.1's rules: the `pi` manifest or the conventional
 * folders, object entries with per-kind filters, the project's entry over the global one, nothing
 * from an untrusted project, and a warning naming the install command for one not installed. The
 * differential at the end resolves the same settings with pi's own DefaultPackageManager.
 */
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { DefaultPackageManager, SettingsManager as PiSettingsManager } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { tempDir, workspace, writeTree } from "../settings/helpers.js";
import { keepHome } from "./keep-home.js";

async function loaded(options: ConstructorParameters<typeof DefaultResourceLoader>[0]) {
	const loader = new DefaultResourceLoader({ homeDir: join(tempDir(), "home"), ...options });
	await loader.reload();
	return loader;
}

/** A package as pi's docs show one: manifest, an extension that leaves a marker when it runs, a skill, a template. */
function piPackage(root: string, name: string, manifest: boolean | "extensions only"): Record<string, string> {
	const files: Record<string, string> = {
		[`${root}/extensions/${name}-ext.ts`]: `import { writeFileSync } from "node:fs";\nif (process.env.PKG_MARKERS) writeFileSync(process.env.PKG_MARKERS + ${JSON.stringify(`${name}.ran`)}, "");\nexport default function () {}\n`,
		[`${root}/extensions/legacy.ts`]: "export default function () {}\n",
		[`${root}/skills/${name}-skill/SKILL.md`]: `---\ndescription: ${name} skill.\n---\nUse ${name}.\n`,
		[`${root}/skills/other-${name}/SKILL.md`]: `---\ndescription: other ${name} skill.\n---\nOther.\n`,
		[`${root}/prompts/${name}-review.md`]: `Review with ${name} $1\n`,
	};
	if (manifest) {
		files[`${root}/package.json`] = JSON.stringify({
			name,
			keywords: ["pi-package"],
			pi:
				manifest === "extensions only"
					? { extensions: ["extensions/*.ts"] }
					: { extensions: ["./extensions", "!**/legacy.ts"], skills: ["./skills"], prompts: ["./prompts"] },
		});
	}
	return files;
}

const names = (loader: DefaultResourceLoader) => ({
	extensions: loader
		.getExtensions()
		.extensions.map((extension) => extension.path.split("/").pop())
		.sort(),
	skills: loader
		.getSkills()
		.skills.map((skill) => skill.name)
		.sort(),
	prompts: loader
		.getPrompts()
		.prompts.map((prompt) => prompt.name)
		.sort(),
});

describe("pi packages listed in settings load", () => {
	it("a local package with a pi manifest loads its extension, skill and template (the manifest's ! exclusion holds), reported as the package's", async () => {
		const { root, agentDir, cwd } = workspace();
		writeTree(root, {
			...piPackage("pkgs/tools", "tools", true),
			"agent/settings.json": JSON.stringify({ packages: ["../pkgs/tools"] }),
		});
		const loader = await loaded({ cwd, agentDir });
		expect(names(loader)).toEqual({
			extensions: ["tools-ext.ts"],
			skills: ["other-tools", "tools-skill"],
			prompts: ["tools-review"],
		});
		const skill = loader.getSkills().skills.find((s) => s.name === "tools-skill")!;
		expect(skill.sourceInfo).toMatchObject({
			source: "../pkgs/tools",
			scope: "user",
			origin: "package",
			baseDir: join(root, "pkgs/tools"),
		});
		expect(loader.getDiagnostics().filter((d) => d.type !== "collision")).toEqual([]);
	});

	it("a package without a manifest loads its conventional folders", async () => {
		const { root, agentDir, cwd } = workspace();
		writeTree(root, {
			...piPackage("pkgs/plain", "plain", false),
			"project/.pi/settings.json": JSON.stringify({ packages: ["../../pkgs/plain"] }),
		});
		const loader = await loaded({ cwd, agentDir, trustProject: true });
		expect(names(loader)).toEqual({
			extensions: ["legacy.ts", "plain-ext.ts"],
			skills: ["other-plain", "plain-skill"],
			prompts: ["plain-review"],
		});
	});

	it("an object entry filters per kind: [] loads none, a plain path includes only it, ! excludes, an omitted kind loads all", async () => {
		const { root, agentDir, cwd } = workspace();
		writeTree(root, {
			...piPackage("pkgs/tools", "tools", true),
			...piPackage("pkgs/plain", "plain", false),
			"agent/settings.json": JSON.stringify({
				packages: [
					{ source: "../pkgs/tools", extensions: [], skills: ["skills/tools-skill"] },
					{ source: "../pkgs/plain", extensions: ["extensions/*.ts", "!legacy.ts"], skills: ["!other-*"] },
				],
			}),
		});
		const loader = await loaded({ cwd, agentDir });
		expect(names(loader)).toEqual({
			extensions: ["plain-ext.ts"],
			skills: ["plain-skill", "tools-skill"],
			prompts: ["plain-review", "tools-review"],
		});
	});

	it("a manifest naming only extensions loads no skills or templates; under an object entry the kinds it does not name come from their folders (pi's rule)", async () => {
		const { root, agentDir, cwd } = workspace();
		writeTree(root, {
			...piPackage("pkgs/solo", "solo", "extensions only"),
			...piPackage("pkgs/duo", "duo", "extensions only"),
			"agent/settings.json": JSON.stringify({ packages: ["../pkgs/solo", { source: "../pkgs/duo", extensions: [] }] }),
		});
		const loader = await loaded({ cwd, agentDir });
		expect(names(loader)).toEqual({
			extensions: ["legacy.ts", "solo-ext.ts"],
			skills: ["duo-skill", "other-duo"],
			prompts: ["duo-review"],
		});
	});

	it("the same package in global and project settings loads once, with the project entry's filter", async () => {
		const { root, agentDir, cwd } = workspace();
		const pkg = join(root, "pkgs/tools");
		writeTree(root, {
			...piPackage("pkgs/tools", "tools", true),
			"agent/settings.json": JSON.stringify({ packages: [{ source: pkg, prompts: [] }] }),
			"project/.pi/settings.json": JSON.stringify({ packages: [{ source: pkg, skills: ["other-tools"] }] }),
		});
		const loader = await loaded({ cwd, agentDir, trustProject: true });
		expect(names(loader)).toEqual({ extensions: ["tools-ext.ts"], skills: ["other-tools"], prompts: ["tools-review"] });
		expect(loader.getPrompts().prompts[0]!.sourceInfo.scope).toBe("project");
	});

	it("a package listed twice, once through a symlink to its folder, loads each file once; the entry first in precedence decides (its [] turns skills off for both, as pi's)", async () => {
		const { root, agentDir, cwd } = workspace();
		writeTree(root, {
			...piPackage("pkgs/tools", "tools", true),
			"agent/settings.json": JSON.stringify({ packages: ["../pkgs/tools"] }),
			"project/.pi/settings.json": JSON.stringify({ packages: [{ source: "../../links/tools", skills: [] }] }),
		});
		mkdirSync(join(root, "links"));
		symlinkSync(join(root, "pkgs/tools"), join(root, "links/tools"), "dir");
		const loader = await loaded({ cwd, agentDir, trustProject: true });
		expect(names(loader)).toEqual({ extensions: ["tools-ext.ts"], skills: [], prompts: ["tools-review"] });
		expect(loader.getExtensions().extensions[0]!.path).toBe(join(root, "links/tools/extensions/tools-ext.ts"));
	});

	it("an untrusted project's packages neither run nor load, and the warning says how to trust the project", async () => {
		const { root, agentDir, cwd } = workspace();
		const markers = `${join(root, "markers")}-`;
		process.env.PKG_MARKERS = markers;
		try {
			writeTree(root, {
				...piPackage("project/.pi/npm/node_modules/evil", "evil", true),
				"project/.pi/settings.json": JSON.stringify({ packages: ["npm:evil"] }),
			});
			const untrusted = await loaded({ cwd, agentDir, trustProject: false });
			expect(names(untrusted)).toEqual({ extensions: [], skills: [], prompts: [] });
			expect(existsSync(`${markers}evil.ran`)).toBe(false);
			expect(untrusted.getDiagnostics().map((d) => d.message)).toContainEqual(
				expect.stringMatching(
					/^Ignored "packages" in .*\.pi\/settings\.json: this setting runs code and the project is not trusted\..*--approve/,
				),
			);
			// Trusted, the same installed package runs and loads (the test can fail).
			const trusted = await loaded({ cwd, agentDir, trustProject: true });
			expect(names(trusted)).toEqual({
				extensions: ["evil-ext.ts"],
				skills: ["evil-skill", "other-evil"],
				prompts: ["evil-review"],
			});
			expect(existsSync(`${markers}evil.ran`)).toBe(true);
		} finally {
			delete process.env.PKG_MARKERS;
		}
	});

	it("a package that is not installed is named with the command that installs it; every other resource still loads", async () => {
		const { root, agentDir, cwd } = workspace();
		writeTree(root, {
			...piPackage("pkgs/tools", "tools", true),
			"project/.pi/skills/mine/SKILL.md": "---\ndescription: The project's own.\n---\nMine.\n",
			"project/.pi/settings.json": JSON.stringify({ packages: ["npm:@acme/helpers@1.2.0", "git:github.com/acme/kit"] }),
			"agent/settings.json": JSON.stringify({ packages: ["../pkgs/tools", "../pkgs/gone"] }),
		});
		const loader = await loaded({ cwd, agentDir, trustProject: true });
		expect(names(loader).skills).toEqual(["mine", "other-tools", "tools-skill"]);
		const settingsFile = join(cwd, ".pi", "settings.json");
		expect(loader.getDiagnostics().filter((d) => d.type === "warning")).toEqual([
			{
				type: "warning",
				message: `Package npm:@acme/helpers@1.2.0 (in ${settingsFile}) is not installed, so nothing of it loads. Install it with: settle install npm:@acme/helpers@1.2.0 -l`,
				path: join(cwd, ".pi", "npm", "node_modules", "@acme", "helpers"),
			},
			{
				type: "warning",
				message: `Package git:github.com/acme/kit (in ${settingsFile}) is not installed, so nothing of it loads. Install it with: settle install git:github.com/acme/kit -l`,
				path: join(cwd, ".pi", "git", "github.com", "acme", "kit"),
			},
			{
				type: "warning",
				message: `Package path "../pkgs/gone" in ${join(agentDir, "settings.json")} does not exist (resolved to ${join(root, "pkgs", "gone")}). Fix or remove the entry.`,
				path: join(root, "pkgs", "gone"),
			},
		]);
	});

	it("an npm package installed at another version than the exact one settings pin still loads, and the warning names the install command", async () => {
		const { root, agentDir, cwd } = workspace();
		const installed = "project/.pi/npm/node_modules/tools";
		writeTree(root, {
			...piPackage(installed, "tools", false),
			[`${installed}/package.json`]: JSON.stringify({ name: "tools", version: "1.0.0" }),
			"project/.pi/settings.json": JSON.stringify({ packages: ["npm:tools@2.0.0"] }),
		});
		const loader = await loaded({ cwd, agentDir, trustProject: true });
		expect(names(loader).prompts).toEqual(["tools-review"]);
		expect(loader.getDiagnostics().filter((d) => d.type === "warning")).toEqual([
			{
				type: "warning",
				message: `Package npm:tools@2.0.0 (in ${join(cwd, ".pi", "settings.json")}) is installed at version 1.0.0, not the pinned one; the installed one loads. Install the pinned one with: settle install npm:tools@2.0.0 -l`,
				path: join(root, installed),
			},
		]);
	});

	it("a git package cloned for both the project and the user loads once, from the project's clone", async () => {
		const { root, agentDir, cwd } = workspace();
		writeTree(root, {
			...piPackage("agent/git/github.com/acme/kit", "kit", true),
			...piPackage("project/.pi/git/github.com/acme/kit", "kit", true),
			"agent/settings.json": JSON.stringify({ packages: ["git:github.com/acme/kit"] }),
			"project/.pi/settings.json": JSON.stringify({ packages: ["https://github.com/acme/kit@v2"] }),
		});
		const loader = await loaded({ cwd, agentDir, trustProject: true });
		expect(loader.getExtensions().extensions.map((extension) => extension.path)).toEqual([
			join(cwd, ".pi/git/github.com/acme/kit/extensions/kit-ext.ts"),
		]);
		expect(loader.getSkills().skills.map((skill) => skill.filePath)).toEqual([
			join(cwd, ".pi/git/github.com/acme/kit/skills/kit-skill/SKILL.md"),
			join(cwd, ".pi/git/github.com/acme/kit/skills/other-kit/SKILL.md"),
		]);
		expect(loader.getDiagnostics().filter((d) => d.type === "collision")).toEqual([]);
	});

	it("a git package already cloned where pi clones it (<agent folder>/git/<host>/<path>) loads", async () => {
		const { root, agentDir, cwd } = workspace();
		writeTree(root, {
			...piPackage("agent/git/github.com/acme/kit", "kit", true),
			"agent/settings.json": JSON.stringify({ packages: ["git:github.com/acme/kit@v1"] }),
		});
		const loader = await loaded({ cwd, agentDir });
		expect(names(loader).skills).toEqual(["kit-skill", "other-kit"]);
	});
});

describe("differential: pi 0.73.1's DefaultPackageManager resolves the same settings to the same files", () => {
	keepHome();
	// `{n}` is the package's file-name stem (names are unique per package folder): the `+`/`-` exact
	// paths then name real files, `extensions/legacy.ts` among them (the manifest's `!` excludes it).
	const filterArb = fc.option(
		fc.constantFrom<string[]>(
			[],
			["skills/*"],
			["!other-*"],
			["*-skill"],
			["extensions/*.ts"],
			["prompts/*.md", "!*-review.md"],
			["+extensions/legacy.ts"],
			["-extensions/{n}-ext.ts"],
			["!**/other-*", "+skills/other-{n}/SKILL.md"],
			["skills/*", "-skills/{n}-skill"],
			["prompts/*.md", "!*-review.md", "+./prompts/{n}-review.md"],
			["!*", "+extensions/{n}-ext.ts", "-extensions/legacy.ts"],
			["extensions/{n}-ext.ts", "+extensions/legacy.ts"],
		),
		{ nil: undefined },
	);
	const entryArb = fc.record({
		pkg: fc.constantFrom("a", "b"),
		// "extensions only": a manifest that names one kind (the others load only under an entry's filter).
		manifest: fc.constantFrom<boolean | "extensions only">(true, false, "extensions only"),
		form: fc.constantFrom<"local" | "npm" | "git">("local", "npm", "git"),
		// How a local source names its folder: absolute, relative to the settings file's folder, with a
		// `..` inside, or through a symlink to it.
		place: fc.constantFrom<"absolute" | "relative" | "dotdot" | "symlink">("absolute", "relative", "dotdot", "symlink"),
		extensions: filterArb,
		skills: filterArb,
		prompts: filterArb,
	});

	it("random package entries in global and project settings (local by path, relative, with .. or through a symlink; npm installed in .pi/npm; git cloned; !/+/- filters) enable the same paths", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(entryArb, { maxLength: 3 }),
				fc.array(entryArb, { maxLength: 3 }),
				async (globalEntries, projectEntries) => {
					const { root, agentDir, cwd } = workspace();
					process.env.HOME = join(root, "home");
					// Removed per run: a long hunt's thousands of trees left to the after-test cleanup outlast its timeout.
					try {
						const files: Record<string, string> = {};
						const links = new Set<string>();
						const entriesFor = (list: typeof globalEntries, scope: "user" | "project") =>
							list.map((entry) => {
								const folder =
									entry.form === "local"
										? `pkgs/${entry.pkg}`
										: entry.form === "npm"
											? scope === "project"
												? `project/.pi/npm/node_modules/${entry.pkg}`
												: `pkgs/${entry.pkg}`
											: scope === "project"
												? `project/.pi/git/example.com/acme/${entry.pkg}`
												: `agent/git/example.com/acme/${entry.pkg}`;
								// Names unique per folder: a name collision is a separate rule (the first wins), not this one.
								const name = `${entry.pkg}${entry.form}${scope}`;
								Object.assign(files, piPackage(folder, name, entry.manifest));
								const settingsFolder = scope === "project" ? join(cwd, ".pi") : agentDir;
								if (entry.form === "local" && entry.place === "symlink") links.add(entry.pkg);
								const localSource = {
									absolute: join(root, folder),
									relative: relative(settingsFolder, join(root, folder)),
									dotdot: `${join(root, "pkgs", "elsewhere")}/../${entry.pkg}`,
									symlink: join(root, "links", entry.pkg),
								}[entry.place];
								const source =
									entry.form === "local"
										? localSource
										: entry.form === "npm" && scope === "project"
											? `npm:${entry.pkg}`
											: entry.form === "git"
												? `git:example.com/acme/${entry.pkg}`
												: join(root, folder);
								const filters = Object.fromEntries(
									(["extensions", "skills", "prompts"] as const)
										.filter((kind) => entry[kind] !== undefined)
										.map((kind) => [kind, entry[kind]?.map((filter) => filter.replaceAll("{n}", name))]),
								);
								return Object.keys(filters).length === 0 ? source : { source, ...filters };
							});
						const global = entriesFor(globalEntries, "user");
						const project = entriesFor(projectEntries, "project");
						files["agent/settings.json"] = JSON.stringify({ packages: global });
						files["project/.pi/settings.json"] = JSON.stringify({ packages: project });
						writeTree(root, files);
						for (const pkg of links) {
							mkdirSync(join(root, "links"), { recursive: true });
							symlinkSync(join(root, "pkgs", pkg), join(root, "links", pkg), "dir");
						}

						const pi = new DefaultPackageManager({
							cwd,
							agentDir,
							settingsManager: PiSettingsManager.create(cwd, agentDir),
						});
						const resolved = await pi.resolve(async () => "skip");
						const piEnabled = (kind: "extensions" | "skills" | "prompts") =>
							resolved[kind]
								.filter((entry) => entry.enabled && entry.metadata.origin === "package")
								.map((entry) => entry.path)
								.sort();
						const loader = await loaded({ cwd, agentDir, trustProject: true, noContextFiles: true });
						const ours = {
							extensions: loader
								.getExtensions()
								.extensions.filter((e) => e.sourceInfo?.origin === "package")
								.map((e) => e.path)
								.sort(),
							skills: loader
								.getSkills()
								.skills.filter((s) => s.sourceInfo.origin === "package")
								.map((s) => s.filePath)
								.sort(),
							prompts: loader
								.getPrompts()
								.prompts.filter((p) => p.sourceInfo.origin === "package")
								.map((p) => p.filePath)
								.sort(),
						};
						expect(ours).toEqual({
							extensions: piEnabled("extensions"),
							skills: piEnabled("skills"),
							prompts: piEnabled("prompts"),
						});
					} finally {
						rmSync(root, { recursive: true, force: true });
					}
				},
			),
			{ numRuns: 40 },
		);
	});
});
