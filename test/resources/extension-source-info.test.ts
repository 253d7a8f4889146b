/**
 * Extensions' `sourceInfo` (and that of the tools and commands they register), pi 0.73.1's rules
 * case by case: each case states the expected value and, for the `.pi/` layout, checks that pi's
 * own loader says the same; the `.settle/` layout gets the same rules with Settle's folder.
 * Random layouts: test/resources/pi-differential.property.test.ts.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import {
	DefaultResourceLoader as PiResourceLoader,
	SettingsManager as PiSettingsManager,
} from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { instantiateExtensions } from "../../src/extensions/loader.js";
import { resourcePathsFromDiscovery } from "../../src/extensions/runner.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { DefaultResourceLoader, type DefaultResourceLoaderOptions } from "../../src/resources/resource-loader.js";
import type { SourceInfo } from "../../src/resources/types.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { tempDir, writeTree } from "../settings/helpers.js";
import { keepHome } from "./keep-home.js";

/** An extension registering tool `t_<name>` and command `c_<name>`. */
const extension = (name: string) =>
	`export default function (pi) {
	pi.registerTool({ name: "t_${name}", label: "${name}", description: "tool of ${name}", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [], details: {} }) });
	pi.registerCommand("c_${name}", { description: "command of ${name}", handler: async () => {} });
}
`;

/** What one loader reports per extension (by path): its own, its tools' and its commands' source info. */
type Reported = Record<string, { extension: SourceInfo; tools: SourceInfo[]; commands: SourceInfo[] }>;

interface ExtensionLike {
	path: string;
	sourceInfo: SourceInfo;
	tools: Map<string, { sourceInfo: SourceInfo }>;
	commands: Map<string, { sourceInfo: SourceInfo }>;
}

function report(extensions: readonly ExtensionLike[]): Reported {
	return Object.fromEntries(
		extensions.map((ext) => [
			ext.path,
			{
				extension: ext.sourceInfo,
				tools: [...ext.tools.values()].map((tool) => tool.sourceInfo),
				commands: [...ext.commands.values()].map((command) => command.sourceInfo),
			},
		]),
	);
}

/** The same info on the extension and everything it registered (one tool, one command). */
function everywhere(info: SourceInfo) {
	return { extension: info, tools: [info], commands: [info] };
}

/** The tree, with the project folder named `configDir` (`.pi` or `.settle`). */
function project(configDir: string) {
	const base = tempDir("settle-ext-source-");
	const agentDir = join(base, "agent");
	const cwd = join(base, "repo", "app");
	writeTree(base, {
		"agent/extensions/auto-user.ts": extension("auto_user"),
		"agent/extensions/folder/index.ts": extension("folder"),
		"agent/extensions/both.ts": extension("both"),
		"agent/extensions/filtered.ts": extension("filtered"),
		"agent/settings.json": JSON.stringify({
			extensions: ["extensions/both.ts", "../elsewhere/listed-user.ts", "!filtered.ts"],
		}),
		"elsewhere/listed-user.ts": extension("listed_user"),
		[`repo/app/${configDir}/extensions/auto-project.ts`]: extension("auto_project"),
		[`repo/app/${configDir}/settings.json`]: JSON.stringify({ extensions: ["../../shared/listed-project.ts"] }),
		"repo/shared/listed-project.ts": extension("listed_project"),
		"cli/cli-ext.ts": extension("cli_ext"),
		"cli/pkg/package.json": JSON.stringify({ name: "pkg", pi: { extensions: ["./main.ts"] } }),
		"cli/pkg/main.ts": extension("pkg_main"),
	});
	mkdirSync(join(base, "home"), { recursive: true });
	const options = {
		cwd,
		agentDir,
		additionalExtensionPaths: [
			join(base, "cli", "cli-ext.ts"),
			join(base, "cli", "pkg"),
			// Also discovered (auto, user) and, disabled by a filter, still registered: they keep that info.
			join(agentDir, "extensions", "auto-user.ts"),
			join(agentDir, "extensions", "filtered.ts"),
		],
		extensionFactories: [
			(pi: { registerCommand(name: string, options: object): void }) =>
				pi.registerCommand("c_inline", { handler: async () => {} }),
		],
	};
	return { base, agentDir, cwd, options };
}

async function settleReport(options: DefaultResourceLoaderOptions): Promise<Reported> {
	const loader = new DefaultResourceLoader({
		...options,
		settingsManager: SettingsManager.create(options.cwd, options.agentDir, { projectTrusted: true }),
		trustProject: true,
	});
	await loader.reload();
	const { extensions, errors } = await instantiateExtensions(loader.getExtensions().extensions, { cwd: options.cwd });
	expect(errors).toEqual([]);
	return report(extensions);
}

async function piReport(options: DefaultResourceLoaderOptions & { agentDir: string }): Promise<Reported> {
	const pi = new PiResourceLoader({
		...(options as ConstructorParameters<typeof PiResourceLoader>[0]),
		settingsManager: PiSettingsManager.create(options.cwd, options.agentDir),
	});
	await pi.reload();
	expect(pi.getExtensions().errors).toEqual([]);
	return report(pi.getExtensions().extensions as unknown as ExtensionLike[]);
}

const info = (path: string, source: string, scope: SourceInfo["scope"], baseDir?: string): SourceInfo => ({
	path,
	source,
	scope,
	origin: "top-level",
	...(baseDir ? { baseDir } : {}),
});

describe("extensions' sourceInfo (pi 0.73.1's rules)", () => {
	keepHome();

	for (const configDir of [".pi", ".settle"]) {
		it(`discovered: auto with the configuration folder; settings entries: local, no baseDir; explicit paths: cli; inline: inline (${configDir}/)`, async () => {
			const { base, agentDir, cwd, options } = project(configDir);
			process.env.HOME = join(base, "home");
			const settle = await settleReport(options);
			const projectDir = join(cwd, configDir);
			const at = (...parts: string[]) => join(base, ...parts);
			const expected: Reported = {
				[at("cli/cli-ext.ts")]: everywhere(info(at("cli/cli-ext.ts"), "cli", "temporary")),
				// a folder given explicitly: its manifest's entries, each `cli`
				[at("cli/pkg/main.ts")]: everywhere(info(at("cli/pkg/main.ts"), "cli", "temporary")),
				// explicit, but also discovered: the discovery's info
				[at("agent/extensions/auto-user.ts")]: everywhere(
					info(at("agent/extensions/auto-user.ts"), "auto", "user", agentDir),
				),
				// explicit, discovered but disabled by a settings filter: still the discovery's info
				[at("agent/extensions/filtered.ts")]: everywhere(
					info(at("agent/extensions/filtered.ts"), "auto", "user", agentDir),
				),
				[at("repo/shared/listed-project.ts")]: everywhere(
					info(at("repo/shared/listed-project.ts"), "local", "project"),
				),
				[join(projectDir, "extensions/auto-project.ts")]: everywhere(
					info(join(projectDir, "extensions/auto-project.ts"), "auto", "project", projectDir),
				),
				// in the extensions folder and listed in settings: the settings entry registers it first
				[at("agent/extensions/both.ts")]: everywhere(info(at("agent/extensions/both.ts"), "local", "user")),
				[at("elsewhere/listed-user.ts")]: everywhere(info(at("elsewhere/listed-user.ts"), "local", "user")),
				[at("agent/extensions/folder/index.ts")]: everywhere(
					info(at("agent/extensions/folder/index.ts"), "auto", "user", agentDir),
				),
				"<inline:1>": {
					extension: info("<inline:1>", "inline", "temporary"),
					tools: [],
					commands: [info("<inline:1>", "inline", "temporary")],
				},
			};
			expect(settle).toEqual(expected);
			// Load order too: explicit paths, project (settings, folder), user (settings, folder), inline.
			expect(Object.keys(settle)).toEqual(Object.keys(expected));
			if (configDir === ".pi") expect(settle).toEqual(await piReport(options));
		});
	}

	it("an explicit path with noExtensions keeps what discovery would have said", async () => {
		const { base, options } = project(".pi");
		process.env.HOME = join(base, "home");
		const only = { ...options, noExtensions: true, extensionFactories: [] };
		const settle = await settleReport(only);
		expect(settle[join(base, "agent/extensions/auto-user.ts")]?.extension).toEqual(
			info(join(base, "agent/extensions/auto-user.ts"), "auto", "user", join(base, "agent")),
		);
		expect(settle).toEqual(await piReport(only));
	});

	it("an untrusted project's extensions are skipped; the others keep their source info", async () => {
		const { base, agentDir, cwd, options } = project(".settle");
		process.env.HOME = join(base, "home");
		const loader = new DefaultResourceLoader({
			...options,
			settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted: false }),
			trustProject: false,
		});
		await loader.reload();
		const { extensions } = await instantiateExtensions(loader.getExtensions().extensions, { cwd });
		const reported = report(extensions);
		expect(Object.keys(reported)).not.toContain(join(cwd, ".settle/extensions/auto-project.ts"));
		expect(reported[join(base, "cli/cli-ext.ts")]?.extension.source).toBe("cli");
	});

	it("an extension an extensionsOverride adds gets pi's default rule by its path", async () => {
		const { base, agentDir, cwd, options } = project(".pi");
		process.env.HOME = join(base, "home");
		writeTree(base, { "agent/extensions/sub/extra.ts": extension("extra"), "loose/extra.ts": extension("loose") });
		const added = [join(agentDir, "extensions/sub/extra.ts"), join(base, "loose/extra.ts")];
		const loader = new DefaultResourceLoader({
			...options,
			settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted: true }),
			trustProject: true,
			extensionsOverride: (result) => ({
				...result,
				extensions: [
					...result.extensions,
					...added.map((path) => ({ path, resolvedPath: path, source: "explicit" as const, factory: () => {} })),
				],
			}),
		});
		await loader.reload();
		const byPath = Object.fromEntries(loader.getExtensions().extensions.map((ext) => [ext.path, ext.sourceInfo]));
		expect(byPath[added[0]!]).toEqual(info(added[0]!, "local", "user", join(agentDir, "extensions")));
		expect(byPath[added[1]!]).toEqual(info(added[1]!, "local", "temporary", join(base, "loose")));
		// What the override kept is settled by path as before.
		expect(byPath[join(base, "cli/cli-ext.ts")]).toEqual(info(join(base, "cli/cli-ext.ts"), "cli", "temporary"));
	});

	it("skills and templates an extension contributes: pi's `extension:<name>` info; the discovered ones keep theirs (pi drops it: named difference)", async () => {
		const base = tempDir("settle-ext-source-");
		const skill = (name: string) => `---\nname: ${name}\ndescription: Does ${name}.\n---\nbody`;
		writeTree(base, {
			"agent/skills/found/SKILL.md": skill("found"),
			"ext/skills/given/SKILL.md": skill("given"),
			"ext/prompts/hello.md": "hello",
		});
		mkdirSync(join(base, "home"), { recursive: true });
		process.env.HOME = join(base, "home");
		const cwd = join(base, "repo");
		const agentDir = join(base, "agent");
		const extensionPath = join(base, "ext", "index.ts");
		const paths = resourcePathsFromDiscovery({
			skillPaths: [{ path: join(base, "ext/skills"), extensionPath }],
			promptPaths: [{ path: join(base, "ext/prompts"), extensionPath }],
			themePaths: [],
		});
		const settle = new DefaultResourceLoader({
			cwd,
			agentDir,
			homeDir: join(base, "home"),
			settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted: true }),
			trustProject: true,
		});
		await settle.reload();
		settle.extendResources(paths);
		const pi = new PiResourceLoader({ cwd, agentDir, settingsManager: PiSettingsManager.create(cwd, agentDir) });
		await pi.reload();
		pi.extendResources(paths as Parameters<PiResourceLoader["extendResources"]>[0]);
		const byName = (items: readonly { name: string; sourceInfo: SourceInfo }[]) =>
			Object.fromEntries(items.map((item) => [item.name, JSON.parse(JSON.stringify(item.sourceInfo))]));
		const contributed = (path: string) => info(path, "extension:index", "temporary", join(base, "ext"));
		const settleSkills = byName(settle.getSkills().skills);
		const piSkills = byName(pi.getSkills().skills as never);
		expect(settleSkills.given).toEqual(contributed(join(base, "ext/skills/given/SKILL.md")));
		expect(settleSkills.given).toEqual(piSkills.given);
		expect(byName(settle.getPrompts().prompts).hello).toEqual(contributed(join(base, "ext/prompts/hello.md")));
		expect(byName(settle.getPrompts().prompts).hello).toEqual(byName(pi.getPrompts().prompts as never).hello);
		// pi re-reads its skills without the discovery's info once an extension adds paths (its
		// extendResources passes no metadata), so a discovered skill turns `local` with its own folder;
		// Settle keeps what reload() said (`auto`, the agent folder), whatever extensions add.
		const found = join(base, "agent/skills/found/SKILL.md");
		expect(settleSkills.found).toEqual(info(found, "auto", "user", agentDir));
		expect(piSkills.found).toEqual(info(found, "local", "user", dirname(found)));
	});

	it("a session's getAllTools() and getCommands() carry the extension's source info", async () => {
		const { base, agentDir, cwd, options } = project(".settle");
		process.env.HOME = join(base, "home");
		const loader = new DefaultResourceLoader({
			...options,
			noContextFiles: true,
			settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted: true }),
			trustProject: true,
		});
		const { session } = await createAgentSession({
			cwd,
			agentDir,
			modelRuntime: new InMemoryModelRuntime(),
			resourceLoader: loader,
			sessionManager: SessionManager.inMemory(cwd),
		});
		try {
			const tools = Object.fromEntries(session.getAllTools().map((tool) => [tool.name, tool.sourceInfo]));
			const commands = Object.fromEntries(session.getCommands().map((command) => [command.name, command.sourceInfo]));
			const projectDir = join(cwd, ".settle");
			const autoProject = info(join(projectDir, "extensions/auto-project.ts"), "auto", "project", projectDir);
			expect(tools.t_auto_project).toEqual(autoProject);
			expect(commands.c_auto_project).toEqual(autoProject);
			const listed = info(join(base, "elsewhere/listed-user.ts"), "local", "user");
			expect(tools.t_listed_user).toEqual(listed);
			expect(commands.c_listed_user).toEqual(listed);
			const cli = info(join(base, "cli/cli-ext.ts"), "cli", "temporary");
			expect(tools.t_cli_ext).toEqual(cli);
			expect(commands.c_cli_ext).toEqual(cli);
			expect(commands.c_inline).toEqual(info("<inline:1>", "inline", "temporary"));
		} finally {
			session.dispose();
		}
	});
});
