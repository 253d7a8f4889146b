/**
 * DefaultResourceLoader: everything bound to one cwd that the session reads from disk — context
 * files, skills, prompt templates, extensions, the custom base prompt and appended prompts —
 * snapshotted by {@link DefaultResourceLoader.reload}.
 *
 * Sources and precedence (pi's): the project (`.settle/` or, for a pi project without one,
 * `.pi/`) before the global agent folder; within each, paths listed in settings before the
 * folder's own `skills/`, `prompts/`, `extensions/`; then paths given as options; then paths
 * extensions add with `extendResources`. The first skill / template of a name wins.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { errorMessage } from "../errors.js";
import {
	expandHome,
	getDefaultAgentDir,
	homeFolder,
	PI_CONFIG_DIR_NAME,
	resolveProjectConfigDir,
} from "../settings/paths.js";
import type { Settings } from "../settings/schema.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { shellWord } from "../shell-word.js";
import { loadProjectContextFiles } from "./context-files.js";
import {
	collectSkillFiles,
	isDirectory,
	isFile,
	type MissingExtensionEntry,
	nestedMarkdownFolders,
	promptFilesAt,
	skillFilesAt,
	type UnreadableFolders,
} from "./discovery.js";
import { type ExtensionCandidate, extensionEntriesAt, loadExtensions } from "./extensions.js";
import { applyFilters, isEnabledByFilters, isFilterEntry } from "./filters.js";
import {
	dedupePackages,
	missingManifestExtensions,
	type PackageResourceKind,
	type PackageRoots,
	type PackageScope,
	packageFiles,
	packageInstallPath,
	packageManifestName,
	packageSourceOf,
	parsePackageSource,
	type ScopedPackage,
} from "./packages.js";
import { loadPromptTemplateCandidates, type PromptTemplateCandidate } from "./prompt-templates.js";
import { loadSkillCandidates, type SkillCandidate } from "./skills.js";
import { cliSourceInfo, defaultSourceInfoForPath, registeredSourceInfo } from "./source-info.js";
import { readPromptTextFile, readTextFile } from "./text-file.js";
import type {
	ContextFile,
	ExtensionFactory,
	FilteredOutSkill,
	LoadExtensionsResult,
	PromptTemplate,
	ResourceDiagnostic,
	ResourceExtensionPaths,
	ResourceLoader,
	ResourcePathInput,
	ResourceReloadOptions,
	Skill,
	SourceInfo,
	SystemPromptFiles,
} from "./types.js";

/** Options of {@link DefaultResourceLoader}. */
export interface DefaultResourceLoaderOptions {
	cwd: string;
	/** Global agent folder. Default `$SETTLE_AGENT_DIR` or `~/.settle/agent`. */
	agentDir?: string;
	/** Default `SettingsManager.create(cwd, agentDir)`. The loader reloads it on every reload. */
	settingsManager?: SettingsManager;
	/** Inline extensions, loaded after the ones on disk as `<inline:N>`. */
	extensionFactories?: ExtensionFactory[];
	/**
	 * Trust the project (import its extensions, apply its code-running settings). Overrides the
	 * settings manager's decision (and is applied to it). Default: the settings manager decides.
	 */
	trustProject?: boolean;
	/** Skip discovered and configured extensions (explicit paths and inline factories still load). */
	noExtensions?: boolean;
	/** Skip discovered and configured skills (`additionalSkillPaths` still load). */
	noSkills?: boolean;
	/** Skip discovered and configured templates (`additionalPromptTemplatePaths` still load). */
	noPromptTemplates?: boolean;
	/** Skip AGENTS.md / CLAUDE.md. */
	noContextFiles?: boolean;
	/** Extension files or folders to load first (e.g. from `--extension`). Relative to `cwd`. */
	additionalExtensionPaths?: string[];
	additionalSkillPaths?: string[];
	additionalPromptTemplatePaths?: string[];
	/** Base prompt text, or a path to a file holding it; replaces SYSTEM.md discovery. */
	systemPrompt?: string;
	/** Texts (or file paths) to append; replaces APPEND_SYSTEM.md discovery. */
	appendSystemPrompt?: string[];
	/** Home folder for `~` and `~/.agents/skills` (default `os.homedir()`). */
	homeDir?: string;
	/** Module aliases for extension imports (default: `settle` and `@sinclair/typebox`). */
	extensionAliases?: Record<string, string>;
	/** Last-step rewrites of each snapshot part (pi's override hooks). */
	extensionsOverride?: (base: LoadExtensionsResult) => LoadExtensionsResult;
	skillsOverride?: (base: { skills: Skill[]; diagnostics: ResourceDiagnostic[] }) => {
		skills: Skill[];
		diagnostics: ResourceDiagnostic[];
	};
	promptsOverride?: (base: { prompts: PromptTemplate[]; diagnostics: ResourceDiagnostic[] }) => {
		prompts: PromptTemplate[];
		diagnostics: ResourceDiagnostic[];
	};
	agentsFilesOverride?: (base: { agentsFiles: ContextFile[] }) => { agentsFiles: ContextFile[] };
	systemPromptOverride?: (base: string | undefined) => string | undefined;
	appendSystemPromptOverride?: (base: string[]) => string[];
}

interface Snapshot {
	extensions: LoadExtensionsResult;
	skills: Skill[];
	skillDiagnostics: ResourceDiagnostic[];
	skillCandidates: SkillCandidate[];
	/** What discovery said of the skill paths (kept: {@link DefaultResourceLoader.extendResources} rebuilds the skills). */
	skillPathDiagnostics: ResourceDiagnostic[];
	prompts: PromptTemplate[];
	promptDiagnostics: ResourceDiagnostic[];
	promptCandidates: PromptTemplateCandidate[];
	promptPathDiagnostics: ResourceDiagnostic[];
	agentsFiles: ContextFile[];
	agentsDiagnostics: ResourceDiagnostic[];
	systemPrompt: string | undefined;
	appendSystemPrompt: string[];
	systemPromptFiles: SystemPromptFiles;
	filteredOutSkills: FilteredOutSkill[];
}

function emptySnapshot(): Snapshot {
	return {
		extensions: { extensions: [], errors: [], skipped: [], diagnostics: [] },
		skills: [],
		skillDiagnostics: [],
		skillCandidates: [],
		skillPathDiagnostics: [],
		prompts: [],
		promptDiagnostics: [],
		promptCandidates: [],
		promptPathDiagnostics: [],
		agentsFiles: [],
		agentsDiagnostics: [],
		systemPrompt: undefined,
		appendSystemPrompt: [],
		systemPromptFiles: { append: [] },
		filteredOutSkills: [],
	};
}

type Scope = "project" | "user";
interface Layer {
	scope: Scope;
	/** Folder relative settings entries resolve against, and where `skills/`, … live. */
	baseDir: string;
	settings: Settings;
	settingsPath: string;
}
type ResourceKind = "extensions" | "skills" | "prompts";
interface Found {
	path: string;
	scope: Scope | "temporary";
	/** `local` / `auto`, or the package source for a package's file. */
	source: string;
	/** Set for a file a `packages` entry brought (pi: lowest precedence). */
	origin?: "package";
	/**
	 * `sourceInfo.baseDir`, pi's rule: the configuration folder (agent folder, or the project's
	 * `.settle/` / `.pi/`) for what a folder's own `skills/`, `prompts/`, `extensions/` and the
	 * `.agents/skills` folders hold; none for what a settings entry lists.
	 */
	baseDir: string | undefined;
}

/**
 * @example
 * ```ts
 * const loader = new DefaultResourceLoader({ cwd: process.cwd(), trustProject: true });
 * await loader.reload();
 * const { skills, diagnostics } = loader.getSkills();
 * for (const { path, error } of loader.getExtensions().errors) console.warn(path, error);
 * ```
 */
export class DefaultResourceLoader implements ResourceLoader {
	readonly cwd: string;
	readonly agentDir: string;
	readonly settingsManager: SettingsManager;
	private readonly options: DefaultResourceLoaderOptions;
	private readonly home: string | undefined;
	private snapshot: Snapshot = emptySnapshot();
	private queue: Promise<void> = Promise.resolve();
	private loaded = false;

	constructor(options: DefaultResourceLoaderOptions) {
		this.options = options;
		this.cwd = resolve(options.cwd);
		this.agentDir = resolve(options.agentDir ?? getDefaultAgentDir());
		this.home = options.homeDir ?? homeFolder();
		this.settingsManager =
			options.settingsManager ??
			SettingsManager.create(
				this.cwd,
				this.agentDir,
				options.trustProject === undefined ? {} : { projectTrusted: options.trustProject },
			);
		if (options.trustProject !== undefined && this.settingsManager.isProjectTrusted() !== options.trustProject) {
			this.settingsManager.setProjectTrusted(options.trustProject);
		}
	}

	/** Whether the project's extensions may run (see `trustProject`). */
	isProjectTrusted(): boolean {
		return this.options.trustProject ?? this.settingsManager.isProjectTrusted();
	}

	/**
	 * Whether a {@link reload} has completed. Until then the loader holds nothing: no extensions,
	 * skills, templates or context files (`createAgentSession` reloads a loader that is not loaded).
	 */
	isLoaded(): boolean {
		return this.loaded;
	}

	/** The project configuration folder in use (`.settle/`, or `.pi/` for a pi project). */
	getProjectConfigDir(): string {
		return resolveProjectConfigDir(this.cwd).dir;
	}

	/**
	 * The `settle install` line for a package entry: `-l` for the project's, `--agent-dir` when the
	 * user's folder is not the one `settle install` writes by default (`--agent-dir` or an SDK
	 * `agentDir`), so the copied line installs where this loader reads.
	 */
	private installCommand(source: string, scope: PackageScope): string {
		if (scope === "project") return `settle install ${source} -l`;
		if (this.agentDir === resolve(getDefaultAgentDir())) return `settle install ${source}`;
		return `settle install ${source} --agent-dir ${shellWord(this.agentDir)}`;
	}

	getExtensions(): LoadExtensionsResult {
		return this.snapshot.extensions;
	}
	getSkills(): { skills: Skill[]; diagnostics: ResourceDiagnostic[] } {
		return { skills: this.snapshot.skills, diagnostics: this.snapshot.skillDiagnostics };
	}
	getPrompts(): { prompts: PromptTemplate[]; diagnostics: ResourceDiagnostic[] } {
		return { prompts: this.snapshot.prompts, diagnostics: this.snapshot.promptDiagnostics };
	}
	getAgentsFiles(): { agentsFiles: ContextFile[]; diagnostics: ResourceDiagnostic[] } {
		return { agentsFiles: this.snapshot.agentsFiles, diagnostics: this.snapshot.agentsDiagnostics };
	}
	getSystemPrompt(): string | undefined {
		return this.snapshot.systemPrompt;
	}
	getAppendSystemPrompt(): string[] {
		return this.snapshot.appendSystemPrompt;
	}
	getSystemPromptFiles(): SystemPromptFiles {
		return this.snapshot.systemPromptFiles;
	}

	/** The skill files settings filters switched off (see {@link ResourceLoader.getFilteredOutSkills}). */
	getFilteredOutSkills(): FilteredOutSkill[] {
		return this.snapshot.filteredOutSkills;
	}

	/**
	 * Every problem of the current snapshot: settings files, extensions, skills, templates,
	 * context and prompt files, and configured paths that do not exist. Must not throw.
	 */
	getDiagnostics(): ResourceDiagnostic[] {
		const settings = this.settingsManager
			.getErrors()
			.map((problem): ResourceDiagnostic => ({ type: problem.type, message: problem.message, path: problem.path }));
		const s = this.snapshot;
		return [
			...settings,
			...s.extensions.diagnostics,
			...s.skillDiagnostics,
			...s.promptDiagnostics,
			...s.agentsDiagnostics,
		];
	}

	/**
	 * Adds skill and template paths (e.g. from an extension's `resources_discover`) to the current
	 * snapshot; earlier resources keep precedence. Theme paths are accepted and ignored.
	 */
	extendResources(paths: ResourceExtensionPaths): void {
		const next = { ...this.snapshot };
		const skillPaths = (paths.skillPaths ?? []).map((input) => this.normalizeInput(input));
		const promptPaths = (paths.promptPaths ?? []).map((input) => this.normalizeInput(input));
		// The folders an extension's paths reach that cannot be read are named, as discovery's are (pi says nothing).
		const added = (kind: "skills" | "prompts", unreadable: UnreadableFolders, known: ResourceDiagnostic[]) => [
			...known,
			...unreadableFolderDiagnostics(
				notYetNamed(unreadable, known),
				`the ${kind} in it (an extension's resources_discover added it)`,
			),
		];
		if (skillPaths.length > 0) {
			const unreadable: UnreadableFolders = new Map();
			const extra = skillPaths.flatMap(({ path, info }) =>
				skillFilesAt(path, unreadable).map((filePath): SkillCandidate => ({ filePath, sourceInfo: info })),
			);
			next.skillCandidates = [...next.skillCandidates, ...extra];
			next.skillPathDiagnostics = added("skills", unreadable, next.skillPathDiagnostics);
			Object.assign(next, this.buildSkills(next.skillCandidates, next.skillPathDiagnostics));
		}
		if (promptPaths.length > 0) {
			const unreadable: UnreadableFolders = new Map();
			const extra = promptPaths.flatMap(({ path, info }) =>
				promptFilesAt(path, false, unreadable).map(
					(filePath): PromptTemplateCandidate => ({ filePath, sourceInfo: info }),
				),
			);
			next.promptCandidates = [...next.promptCandidates, ...extra];
			next.promptPathDiagnostics = added("prompts", unreadable, next.promptPathDiagnostics);
			Object.assign(next, this.buildPrompts(next.promptCandidates, next.promptPathDiagnostics));
		}
		this.snapshot = next;
	}

	/**
	 * Re-reads settings (the settings manager is reloaded too) and every resource, then swaps the
	 * snapshot in one step. Concurrent calls run one after the other. Never rejects: problems are
	 * diagnostics.
	 */
	reload(options: ResourceReloadOptions = {}): Promise<void> {
		const run = this.queue
			.then(() => this.load(options.settingsReloaded !== this.settingsManager))
			.then(() => {
				this.loaded = true;
			});
		this.queue = run.catch(() => undefined);
		return run;
	}

	private async load(readSettings: boolean): Promise<void> {
		if (readSettings) await this.settingsManager.reload();
		const projectDir = resolveProjectConfigDir(this.cwd).dir;
		const paths = this.settingsManager.getSettingsPaths();
		const layers: Layer[] = [
			{
				scope: "project",
				baseDir: projectDir,
				settings: this.settingsManager.getProjectSettings(),
				settingsPath: paths.project,
			},
			{
				scope: "user",
				baseDir: this.agentDir,
				settings: this.settingsManager.getGlobalSettings(),
				settingsPath: paths.global,
			},
		];
		// Every problem lands in the list of its kind, so services and the CLI report it (a separate list was dropped there).
		const settingsExtensionDiagnostics: ResourceDiagnostic[] = [];
		const promptFileDiagnostics: ResourceDiagnostic[] = [];
		const shadowed = shadowedPiConfig(this.cwd, projectDir);
		if (shadowed) promptFileDiagnostics.push(shadowed);
		const o = this.options;

		// Extensions: explicit paths, then project, then global, then inline factories.
		const extensionCandidates: ExtensionCandidate[] = [];
		const missingExtensionPaths: ResourceDiagnostic[] = [];
		// As pi: what discovery and settings reach (even disabled, even with noExtensions) keeps that source info
		// when an explicit path names it; other explicit paths are `cli`.
		const packaged = this.packagedFiles(layers, projectDir);
		settingsExtensionDiagnostics.push(...packaged.diagnostics);
		// Entries a plain folder's package.json names but does not have: errors, as for a package.
		const missingEntries: MissingEntryFound[] = [];
		const discoveredExtensions = this.registry(
			"extensions",
			layers,
			o.noExtensions ? [] : settingsExtensionDiagnostics,
			packaged.files,
			o.noExtensions ? [] : missingEntries,
		);
		const extensionSourceInfos = new Map<string, Omit<SourceInfo, "path">>();
		for (const found of discoveredExtensions.values()) extensionSourceInfos.set(found.path, toSourceInfo(found));
		for (const entry of o.additionalExtensionPaths ?? []) {
			const path = this.resolvePath(entry, this.cwd);
			if (!existsSync(path)) {
				missingExtensionPaths.push({ type: "error", message: `Extension path does not exist: ${entry}`, path });
				continue;
			}
			const missing: MissingExtensionEntry[] = [];
			const files = extensionEntriesAt(path, missing);
			missingEntries.push(...missing);
			if (files.length === 0 && missing.length === 0) {
				// Asked for by name, so an empty folder is an error, not silence.
				missingExtensionPaths.push({
					type: "error",
					message: `Extension path has no extension module: ${entry}. Put an index.ts (or .ts / .js files, or a package.json "settle"/"pi" extensions list) there, or pass the module file itself.`,
					path,
				});
			}
			for (const file of files) {
				if (!extensionSourceInfos.has(file)) extensionSourceInfos.set(file, cliSourceInfo(file));
				extensionCandidates.push({
					path: file,
					source: "explicit",
					sourceInfo: { ...extensionSourceInfos.get(file)!, path: file },
				});
			}
		}
		if (!o.noExtensions) {
			for (const found of enabledInOrder(discoveredExtensions)) {
				extensionCandidates.push({
					path: found.path,
					source: found.scope === "project" ? "project" : "global",
					sourceInfo: { ...toSourceInfo(found), path: found.path },
				});
			}
		}
		let extensions = await loadExtensions(extensionCandidates, {
			cwd: this.cwd,
			agentDir: this.agentDir,
			projectTrusted: this.isProjectTrusted(),
			inlineFactories: o.extensionFactories ?? [],
			...(o.extensionAliases ? { aliases: o.extensionAliases } : {}),
		});
		// An extension asked for by path that is not there is a load error, as in pi (not only a diagnostic).
		for (const missing of missingExtensionPaths) {
			extensions.errors.push({ path: missing.path!, error: missing.message });
			extensions.diagnostics.push(missing);
		}
		extensions.diagnostics.push(...settingsExtensionDiagnostics, ...missingEntryDiagnostics(missingEntries));
		if (o.extensionsOverride) {
			extensions = o.extensionsOverride(extensions);
			// As pi: source info is settled after the override, by path (what it added gets pi's default rule).
			const roots = { agentDir: this.agentDir, projectDir };
			extensions = {
				...extensions,
				extensions: extensions.extensions.map((extension) => ({
					...extension,
					sourceInfo: extension.path.startsWith("<")
						? defaultSourceInfoForPath(extension.path, roots)
						: (registeredSourceInfo(extension.path, extensionSourceInfos) ??
							defaultSourceInfoForPath(extension.path, roots)),
				})),
			};
		}

		// Skills and templates: discovered (unless disabled), then the option paths.
		const skillCandidates: SkillCandidate[] = [];
		const skillPathDiagnostics: ResourceDiagnostic[] = [];
		// As pi: what discovery found (even disabled, even with noSkills) keeps its source info when an explicit path reaches it.
		const discoveredSkills = this.registry("skills", layers, o.noSkills ? [] : skillPathDiagnostics, packaged.files);
		if (!o.noSkills) for (const found of enabledInOrder(discoveredSkills)) skillCandidates.push(toCandidate(found));
		// The folders `--skill` paths reach that cannot be read are named as discovery's are, once (pi says nothing).
		const skillPathsUnreadable: UnreadableFolders = new Map();
		for (const entry of o.additionalSkillPaths ?? []) {
			const path = this.resolvePath(entry, this.cwd);
			if (!existsSync(path)) {
				skillPathDiagnostics.push({ type: "error", message: "Skill path does not exist", path });
				continue;
			}
			for (const filePath of skillFilesAt(path, skillPathsUnreadable)) {
				const found = discoveredSkills.get(filePath) ?? this.explicitPathInfo(filePath, "skills", projectDir);
				skillCandidates.push(toCandidate(found));
			}
		}
		skillPathDiagnostics.push(
			...unreadableFolderDiagnostics(notYetNamed(skillPathsUnreadable, skillPathDiagnostics), "the skills in it"),
		);
		const promptCandidates: PromptTemplateCandidate[] = [];
		const promptPathDiagnostics: ResourceDiagnostic[] = [];
		const discoveredPrompts = this.registry(
			"prompts",
			layers,
			o.noPromptTemplates ? [] : promptPathDiagnostics,
			packaged.files,
		);
		if (!o.noPromptTemplates) {
			for (const found of enabledInOrder(discoveredPrompts)) promptCandidates.push(toCandidate(found));
		}
		// As `--skill` folders: one `--prompt-template` folder cannot list is named once (pi says nothing).
		const promptPathsUnreadable: UnreadableFolders = new Map();
		for (const entry of o.additionalPromptTemplatePaths ?? []) {
			const path = this.resolvePath(entry, this.cwd);
			if (!existsSync(path)) {
				promptPathDiagnostics.push({ type: "error", message: "Prompt template path does not exist", path });
				continue;
			}
			for (const filePath of promptFilesAt(path, false, promptPathsUnreadable)) {
				const found = discoveredPrompts.get(filePath) ?? this.explicitPathInfo(filePath, "prompts", projectDir);
				promptCandidates.push(toCandidate(found));
			}
		}
		promptPathDiagnostics.push(
			...unreadableFolderDiagnostics(notYetNamed(promptPathsUnreadable, promptPathDiagnostics), "the prompts in it"),
		);
		if (!o.noPromptTemplates) {
			const reached = new Set([
				...discoveredPrompts.keys(),
				...promptCandidates.map((candidate) => candidate.filePath),
			]);
			for (const layer of layers)
				promptPathDiagnostics.push(...nestedTemplateWarnings(join(layer.baseDir, "prompts"), reached));
		}

		// Context files and prompts.
		let agentsFiles: ContextFile[] = [];
		let agentsDiagnostics: ResourceDiagnostic[] = [];
		if (!o.noContextFiles) {
			const loaded = loadProjectContextFiles({ cwd: this.cwd, agentDir: this.agentDir });
			agentsFiles = loaded.agentsFiles;
			agentsDiagnostics = loaded.diagnostics;
		}
		if (o.agentsFilesOverride) agentsFiles = o.agentsFilesOverride({ agentsFiles }).agentsFiles;

		const systemSource = o.systemPrompt ?? firstFile([join(projectDir, "SYSTEM.md"), join(this.agentDir, "SYSTEM.md")]);
		const systemRead: string[] = [];
		const fromSystemFile = this.readPromptInput(
			systemSource,
			"system prompt",
			promptFileDiagnostics,
			o.systemPrompt !== undefined,
			systemRead,
		);
		let systemPrompt = fromSystemFile;
		if (o.systemPromptOverride) systemPrompt = o.systemPromptOverride(systemPrompt);
		// An override's own text came from no file.
		const systemFile = systemPrompt !== undefined && systemPrompt === fromSystemFile ? systemRead[0] : undefined;
		const appendSources =
			o.appendSystemPrompt ??
			[firstFile([join(projectDir, "APPEND_SYSTEM.md"), join(this.agentDir, "APPEND_SYSTEM.md")])].filter(
				(source): source is string => source !== undefined,
			);
		const appendRead = new Map<string, string>();
		let appendSystemPrompt = appendSources
			.map((source) => {
				const read: string[] = [];
				const text = this.readPromptInput(
					source,
					"appended system prompt",
					promptFileDiagnostics,
					o.appendSystemPrompt !== undefined,
					read,
				);
				if (text !== undefined && read[0] !== undefined) appendRead.set(read[0], text);
				return text;
			})
			.filter((text): text is string => text !== undefined);
		if (o.appendSystemPromptOverride) appendSystemPrompt = o.appendSystemPromptOverride(appendSystemPrompt);
		const appendFiles = [...appendRead].filter(([, text]) => appendSystemPrompt.includes(text)).map(([path]) => path);

		this.snapshot = {
			extensions,
			skillCandidates,
			skillPathDiagnostics,
			promptCandidates,
			promptPathDiagnostics,
			...this.buildSkills(skillCandidates, skillPathDiagnostics),
			...this.buildPrompts(promptCandidates, promptPathDiagnostics),
			agentsFiles,
			// SYSTEM.md / APPEND_SYSTEM.md are context files too.
			agentsDiagnostics: [...agentsDiagnostics, ...promptFileDiagnostics],
			systemPrompt,
			appendSystemPrompt,
			systemPromptFiles: { ...(systemFile !== undefined ? { system: systemFile } : {}), append: appendFiles },
			filteredOutSkills: o.noSkills ? [] : filteredOut(discoveredSkills),
		};
	}

	private buildSkills(candidates: SkillCandidate[], extra: ResourceDiagnostic[]) {
		const loaded = loadSkillCandidates(candidates);
		const result = { skills: loaded.skills, diagnostics: [...loaded.diagnostics, ...extra] };
		const final = this.options.skillsOverride ? this.options.skillsOverride(result) : result;
		return { skills: final.skills, skillDiagnostics: final.diagnostics };
	}

	private buildPrompts(candidates: PromptTemplateCandidate[], extra: ResourceDiagnostic[]) {
		const loaded = loadPromptTemplateCandidates(candidates);
		const result = { prompts: loaded.prompts, diagnostics: [...loaded.diagnostics, ...extra] };
		const final = this.options.promptsOverride ? this.options.promptsOverride(result) : result;
		return { prompts: final.prompts, promptDiagnostics: final.diagnostics };
	}

	/**
	 * Every resource file of one kind that settings entries and the configuration folders reach,
	 * enabled or not, keyed by path (see {@link enabledInOrder} for the precedence order).
	 *
	 * A file's first registration decides whether it is enabled and its source info, in pi's order:
	 * settings entries of both layers (project first), then both layers' own folders. So a project
	 * filter that disables a file (`!name`, `-path`) also holds when the global settings or folder
	 * list it again.
	 */
	private registry(
		kind: ResourceKind,
		layers: Layer[],
		diagnostics: ResourceDiagnostic[],
		packages: PackagedFile[],
		missingEntries: MissingEntryFound[] = [],
	): Map<string, Registered> {
		const registered = new Map<string, Registered>();
		const unreadable: UnreadableFolders = new Map();
		// pi registers package files first: a package's filter decides for a file before any settings entry does.
		for (const file of packages) {
			if (file.kind === kind && !registered.has(file.path)) {
				const off = file.enabled ? {} : { offBy: `the "${kind}" filter of the package ${file.found.source}` };
				registered.set(file.path, { ...file.found, enabled: file.enabled, ...off });
			}
		}
		const register = (path: string, layer: Layer, source: "local" | "auto", enabled: boolean) => {
			const baseDir = source === "auto" ? layer.baseDir : undefined;
			const off = enabled ? {} : { offBy: `the "${kind}" filter in ${layer.settingsPath}` };
			if (!registered.has(path)) registered.set(path, { path, scope: layer.scope, source, baseDir, enabled, ...off });
		};
		// An untrusted project's extensions are never imported: their folders' mistakes do not stop start-up.
		const reportMissing = (layer: Layer, missing: MissingExtensionEntry[], settingsPath?: string) => {
			if (layer.scope === "project" && !this.isProjectTrusted()) return;
			for (const found of missing) missingEntries.push({ ...found, ...(settingsPath ? { settingsPath } : {}) });
		};
		for (const layer of layers) {
			const entries = (layer.settings[kind] ?? []) as string[];
			const plain = entries.filter((entry) => !isFilterEntry(entry));
			const fromSettings: string[] = [];
			for (const entry of plain) {
				const path = this.resolvePath(entry, layer.baseDir);
				if (!existsSync(path)) {
					diagnostics.push({
						type: "warning",
						message: `${kind} path "${entry}" in ${layer.settingsPath} does not exist (resolved to ${path}). Fix or remove the entry.`,
						path,
					});
					continue;
				}
				const missing: MissingExtensionEntry[] = [];
				fromSettings.push(...filesAt(kind, path, true, missing, unreadable));
				reportMissing(layer, missing, layer.settingsPath);
			}
			const enabled = new Set(applyFilters(fromSettings, entries, layer.baseDir));
			for (const path of fromSettings) register(path, layer, "local", enabled.has(path));
		}
		for (const layer of layers) {
			const entries = (layer.settings[kind] ?? []) as string[];
			const missing: MissingExtensionEntry[] = [];
			const auto = filesAt(kind, join(layer.baseDir, kind), false, missing, unreadable);
			reportMissing(layer, missing);
			if (kind === "skills")
				auto.push(...this.agentsSkillDirs(layer.scope).flatMap((dir) => collectSkillFiles(dir, "agents", unreadable)));
			for (const path of auto) register(path, layer, "auto", isEnabledByFilters(path, entries, layer.baseDir));
		}
		// pi passes over such a folder without a word: its skills were just not there (claude-code#80291).
		diagnostics.push(
			...unreadableFolderDiagnostics(unreadable, `the ${kind} in it`, ` or move it out of the ${kind} folder`),
		);
		return registered;
	}

	/**
	 * The files the `packages` entries bring (project entries first; the project's entry wins for a
	 * package both list, also by its `package.json` name), where pi installs them. An untrusted project's packages are not read at
	 * all (the settings manager says so): they may run code. A package that is not installed is
	 * reported with the command that installs it, and the others still load.
	 */
	private packagedFiles(
		layers: Layer[],
		projectDir: string,
	): { files: PackagedFile[]; diagnostics: ResourceDiagnostic[] } {
		const roots: PackageRoots = {
			agentDir: this.agentDir,
			projectDir,
			npmCommand: this.settingsManager.getNpmCommand(),
			...(this.home === undefined ? {} : { home: this.home }),
		};
		const listed: (ScopedPackage & { settingsPath: string })[] = [];
		for (const layer of layers) {
			if (layer.scope === "project" && !this.isProjectTrusted()) continue;
			for (const entry of layer.settings.packages ?? [])
				listed.push({ entry, scope: layer.scope, settingsPath: layer.settingsPath });
		}
		const files: PackagedFile[] = [];
		const diagnostics: ResourceDiagnostic[] = [];
		const byName = new Map<string, { source: string; scope: PackageScope; real: string }>();
		for (const item of dedupePackages(listed, roots) as typeof listed) {
			const source = packageSourceOf(item.entry);
			const parsed = parsePackageSource(source);
			let root: string;
			try {
				root = packageInstallPath(parsed, item.scope, roots);
			} catch (error) {
				diagnostics.push({
					type: "warning",
					message: `Package ${source} (in ${item.settingsPath}) not loaded: ${errorMessage(error)}.`,
					path: item.settingsPath,
				});
				continue;
			}
			if (!existsSync(root)) {
				const message =
					parsed.type === "local"
						? `Package path "${source}" in ${item.settingsPath} does not exist (resolved to ${root}). Fix or remove the entry.`
						: `Package ${source} (in ${item.settingsPath}) is not installed, so nothing of it loads. Install it with: ${this.installCommand(source, item.scope)}`;
				diagnostics.push({ type: "warning", message, path: root });
				continue;
			}
			// One package from two sources (a project's dev checkout and the global npm install, pi#6466)
			// would load twice and its tools and flags collide: the entry first in precedence loads.
			const name = packageManifestName(root);
			const loadedAs = name === undefined ? undefined : byName.get(name);
			if (loadedAs && loadedAs.real !== realPath(root)) {
				// Across scopes the project's copy overriding the global one is the point: quiet, as for one source.
				if (loadedAs.scope === item.scope) {
					diagnostics.push({
						type: "warning",
						message: `Package ${source} (in ${item.settingsPath}) not loaded: it is package "${name}", which ${loadedAs.source}, listed before it, loads already. Remove one of the two entries.`,
						path: root,
					});
				}
				continue;
			}
			if (name !== undefined && !loadedAs) byName.set(name, { source, scope: item.scope, real: realPath(root) });
			const pinnedElsewhere = parsed.type === "npm" ? installedVersionMismatch(parsed.spec, root) : undefined;
			if (pinnedElsewhere) {
				// pi reinstalls at startup; Settle installs only when asked, and says how.
				diagnostics.push({
					type: "warning",
					message: `Package ${source} (in ${item.settingsPath}) is installed at version ${pinnedElsewhere}, not the pinned one; the installed one loads. Install the pinned one with: ${this.installCommand(source, item.scope)}`,
					path: root,
				});
			}
			const found: Found = { path: "", scope: item.scope, source, origin: "package", baseDir: root };
			const absent: MissingExtensionEntry[] = [];
			const unreadable: UnreadableFolders = new Map();
			const offered = isDirectory(root) ? packageFiles(root, item.entry, absent, unreadable) : undefined;
			for (const entry of isDirectory(root) ? missingManifestExtensions(root, item.entry) : []) {
				// pi drops the entry without a word: the extension the user installed is just not there.
				diagnostics.push({
					type: "error",
					message: `Package ${source} (in ${item.settingsPath}) names the extension ${entry} in its package.json, but the package has no such file: the extension is not loaded. Its "pi" extensions list must name a file the package ships (ask its author); until then remove the package, or keep the rest of it by listing it as {"source": ${JSON.stringify(source)}, "extensions": []} there.`,
					path: join(root, "package.json"),
				});
			}
			if (!offered) {
				// pi: a file, or a folder with no manifest and no resource folders, is one extension.
				const baseDir = isDirectory(root) ? root : dirname(root);
				for (const path of extensionEntriesAt(root, absent, unreadable))
					files.push({ kind: "extensions", path, enabled: true, found: { ...found, path, baseDir } });
			}
			diagnostics.push(
				...unreadableFolderDiagnostics(
					unreadable,
					`the files of package ${source} (in ${item.settingsPath}) in it`,
					", or install the package again",
				),
			);
			diagnostics.push(
				...packageMissingEntryDiagnostics(absent, source, item.settingsPath, offered ? root : undefined),
			);
			if (!offered) continue;
			for (const kind of ["extensions", "skills", "prompts"] as PackageResourceKind[]) {
				for (const file of offered[kind])
					files.push({ kind, path: file.path, enabled: file.enabled, found: { ...found, path: file.path } });
			}
		}
		return { files, diagnostics };
	}

	/**
	 * Source info of a file given as an explicit path (an option, `--skill`, `--prompt-template`)
	 * that discovery did not reach, as pi's loaders give it: under the agent folder's or the
	 * project folder's own `skills/` / `prompts/`, that scope; otherwise `temporary`. `baseDir` is
	 * that `prompts/` folder for a template inside one, else the file's own folder.
	 */
	private explicitPathInfo(filePath: string, kind: "skills" | "prompts", projectDir: string): Found {
		const userRoot = join(this.agentDir, kind);
		const projectRoot = join(projectDir, kind);
		const scope = isUnder(filePath, userRoot) ? "user" : isUnder(filePath, projectRoot) ? "project" : "temporary";
		const root = scope === "user" ? userRoot : scope === "project" ? projectRoot : undefined;
		const baseDir = kind === "prompts" && root ? root : dirname(filePath);
		return { path: filePath, source: "local", scope, baseDir };
	}

	/** `.agents/skills` folders: for the project, from cwd up to the git root (or filesystem root). */
	private agentsSkillDirs(scope: Scope): string[] {
		// No home folder (a container's arbitrary uid): no user-level `~/.agents/skills`.
		const userDir = this.home === undefined ? undefined : join(this.home, ".agents", "skills");
		if (scope === "user") return userDir === undefined ? [] : [userDir];
		const dirs: string[] = [];
		const gitRoot = findGitRoot(this.cwd);
		// Compared as folders, not spellings: with HOME a symlink the cwd is the real path, and the
		// walk up meets the user's ~/.agents/skills by that path (pi#2472).
		const userReal = userDir === undefined ? undefined : realPath(userDir);
		let dir = this.cwd;
		for (;;) {
			const candidate = join(dir, ".agents", "skills");
			if (userReal === undefined || realPath(candidate) !== userReal) dirs.push(candidate);
			if (gitRoot && dir === gitRoot) break;
			const parent = dirname(dir);
			if (parent === dir) break;
			dir = parent;
		}
		return dirs;
	}

	private resolvePath(entry: string, baseDir: string): string {
		return resolve(baseDir, expandHome(entry, this.home));
	}

	private normalizeInput(input: ResourcePathInput): { path: string; info: Omit<SourceInfo, "path"> } {
		const raw = typeof input === "string" ? { path: input } : input;
		const metadata = typeof input === "string" ? undefined : input.metadata;
		return {
			path: this.resolvePath(raw.path, this.cwd),
			info: {
				source: metadata?.source ?? "extension",
				scope: metadata?.scope ?? "temporary",
				origin: metadata?.origin ?? "top-level",
				// pi: exactly what the extension said (none when it said none), not the skill's folder.
				baseDir: metadata?.baseDir,
			},
		};
	}

	/**
	 * pi's rule: a value naming an existing file is read; anything else is the text itself. A value
	 * given (an option) that names something unreadable (a folder) stays the text, as in pi 0.73.1;
	 * a SYSTEM.md / APPEND_SYSTEM.md found in a folder is left out instead (its path is no prompt).
	 */
	private readPromptInput(
		input: string | undefined,
		what: string,
		diagnostics: ResourceDiagnostic[],
		given: boolean,
		readFrom: string[] = [],
	): string | undefined {
		if (!input) return undefined;
		const path = resolve(this.cwd, input);
		if (!input.includes("\n") && existsSync(path)) {
			try {
				const text = readPromptTextFile(path, `${what} file`, diagnostics);
				readFrom.push(path);
				return text;
			} catch (error) {
				const kept = given ? `; the value is used as the ${what} text, as written` : "";
				diagnostics.push({ type: "warning", message: `cannot read ${what} file: ${errorMessage(error)}${kept}`, path });
				return given ? input : undefined;
			}
		}
		// Kept as the text (pi's rule), but a typo'd path would otherwise become the prompt unseen.
		if (given && looksLikePath(input)) {
			diagnostics.push({
				type: "warning",
				message: `no ${what} file ${input}: the value looks like a path but no such file exists, so it is used as the ${what} text, as written; fix the path to read the file`,
				path,
			});
		}
		return input;
	}
}

/** One word naming a file: no whitespace, and a path separator or a `.md` / `.txt` ending. */
function looksLikePath(value: string): boolean {
	return !/\s/.test(value) && (/[/\\]/.test(value) || /\.(md|txt)$/i.test(value));
}

/** The folders of `unreadable` no diagnostic of `known` names yet. */
function notYetNamed(unreadable: UnreadableFolders, known: ResourceDiagnostic[]): UnreadableFolders {
	const named = new Set(known.map((diagnostic) => diagnostic.path));
	return new Map([...unreadable].filter(([path]) => !named.has(path)));
}

/** A warning per folder a walk could not list: what of it is not loaded, and the command that fixes it. */
function unreadableFolderDiagnostics(unreadable: UnreadableFolders, what: string, orElse = ""): ResourceDiagnostic[] {
	return [...unreadable].map(([path, error]) => ({
		type: "warning",
		message: `cannot read folder: ${error}; ${what} are not loaded. Give read access to it (chmod u+rx ${shellWord(path)})${orElse}.`,
		path,
	}));
}

function filesAt(
	kind: ResourceKind,
	path: string,
	fromSettings: boolean,
	missing?: MissingExtensionEntry[],
	unreadable?: UnreadableFolders,
): string[] {
	if (kind === "extensions") return extensionEntriesAt(path, missing, unreadable);
	if (kind === "skills") return skillFilesAt(path, unreadable);
	return promptFilesAt(path, fromSettings, unreadable);
}

/** `offBy`: the filter that switched a file off (absent when enabled). */
type Registered = Found & { enabled: boolean; offBy?: string };

/**
 * A warning per sub-folder of the prompts folder `dir` whose templates nothing reaches (a settings
 * entry or `--prompt-template` naming them loads them): only the files directly in `dir` are templates.
 */
function nestedTemplateWarnings(dir: string, reached: ReadonlySet<string>): ResourceDiagnostic[] {
	return nestedMarkdownFolders(dir).flatMap(({ folder, files }) => {
		const unloaded = files.filter((file) => !reached.has(file)).map((file) => relative(dir, file).split(sep).join("/"));
		if (unloaded.length === 0) return [];
		const named =
			unloaded.length > 3 ? `${unloaded.slice(0, 3).join(", ")} and ${unloaded.length - 3} more` : unloaded.join(", ");
		const example = unloaded[0]!.replace(/\.md$/, "").replaceAll("/", "-");
		return [
			{
				type: "warning",
				message: `prompt templates in a sub-folder are not loaded (${named}): only the .md files directly in ${dir} are templates. Move them there (${unloaded[0]} as ${example}.md, typed /${example}), or list the sub-folder in "prompts" in settings.json.`,
				path: folder,
			},
		];
	});
}

/** A missing extension entry, with the settings file whose `extensions` entry reached the folder, if one did. */
type MissingEntryFound = MissingExtensionEntry & { settingsPath?: string };

/**
 * One error per entry a plain extension folder's `package.json` names but does not have (pi drops
 * it without a word; a package with the same mistake stops start-up too), once however many ways
 * reach the folder.
 */
function missingEntryDiagnostics(missing: readonly MissingEntryFound[]): ResourceDiagnostic[] {
	const seen = new Set<string>();
	const diagnostics: ResourceDiagnostic[] = [];
	for (const { manifest, key, entry, settingsPath, index } of missing) {
		const id = `${manifest}\0${entry}`;
		if (seen.has(id)) continue;
		seen.add(id);
		const folder = dirname(manifest);
		diagnostics.push({
			type: "error",
			message: `Extension folder ${folder}${settingsPath ? ` (in ${settingsPath})` : ""} names the extension ${entry} in its package.json, but the folder has no such file: the extension is not loaded${index ? `, nor its ${index} in its place` : ""}. Its "${key}" extensions list must name a file in the folder (fix the entry, or build the file).`,
			path: manifest,
		});
	}
	return diagnostics;
}

/**
 * One error per entry an extension folder inside a package (`extensions/<folder>/package.json`)
 * names but lacks: as for a plain folder, with the package filter that keeps the rest of the package.
 */
function packageMissingEntryDiagnostics(
	missing: readonly MissingExtensionEntry[],
	source: string,
	settingsPath: string,
	/** The package's root when a filter can leave one folder out; undefined when only [] helps. */
	root: string | undefined,
): ResourceDiagnostic[] {
	const seen = new Set<string>();
	const diagnostics: ResourceDiagnostic[] = [];
	for (const { manifest, key, entry, index } of missing) {
		const id = `${manifest}\0${entry}`;
		if (seen.has(id)) continue;
		seen.add(id);
		const folder = dirname(manifest);
		const relativeFolder = root === undefined ? "" : relative(root, folder).split(sep).join("/");
		const filter = relativeFolder ? [`!${relativeFolder}/**`] : [];
		diagnostics.push({
			type: "error",
			message: `Package ${source} (in ${settingsPath}) has the extension folder ${folder}, whose package.json names the extension ${entry}, but the folder has no such file: the extension is not loaded${index ? `, nor its ${index} in its place` : ""}. Its "${key}" extensions list must name a file in the folder (ask the package's author); until then remove the package, or keep the rest of it by listing it as {"source": ${JSON.stringify(source)}, "extensions": ${JSON.stringify(filter)}} there.`,
			path: manifest,
		});
	}
	return diagnostics;
}

/** A file a `packages` entry brings, before precedence is decided. */
interface PackagedFile {
	kind: ResourceKind;
	path: string;
	enabled: boolean;
	found: Found;
}

/** The installed version when an exact `name@x.y.z` pin names another one; undefined otherwise. */
function installedVersionMismatch(spec: string, root: string): string | undefined {
	const pinned = /^@?[^@]+@(\d+\.\d+\.\d+\S*)$/.exec(spec)?.[1];
	if (!pinned) return undefined;
	try {
		const installed = (JSON.parse(readTextFile(join(root, "package.json"))) as { version?: unknown }).version;
		return typeof installed === "string" && installed !== pinned ? installed : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Enabled files in precedence order: project settings entries, project folders, then the same for
 * the user, then packages. A file reached by two paths (a package folder named directly and through
 * a symlink) counts once, as in pi: its first registration by precedence decides, enabled or not.
 */
function enabledInOrder(registered: Map<string, Registered>): Found[] {
	return decided(registered)
		.filter((found) => found.enabled)
		.map(({ enabled: _enabled, offBy: _offBy, ...found }) => found);
}

/** The files a filter switched off, as {@link enabledInOrder} decides (a file counts once). */
function filteredOut(registered: Map<string, Registered>): FilteredOutSkill[] {
	return decided(registered).flatMap((found) => (found.offBy ? [{ path: found.path, filter: found.offBy }] : []));
}

/** Every file once, by precedence: its first registration decides (see {@link enabledInOrder}). */
function decided(registered: Map<string, Registered>): Registered[] {
	const rank = (found: Found) =>
		found.origin === "package" ? 4 : (found.scope === "project" ? 0 : 2) + (found.source === "local" ? 0 : 1);
	const seen = new Set<string>();
	return [...registered.values()]
		.sort((a, b) => rank(a) - rank(b))
		.filter((found) => {
			const real = realPath(found.path);
			if (seen.has(real)) return false;
			seen.add(real);
			return true;
		});
}

function toSourceInfo(found: Found): Omit<SourceInfo, "path"> {
	return { source: found.source, scope: found.scope, origin: found.origin ?? "top-level", baseDir: found.baseDir };
}

function toCandidate(found: Found): SkillCandidate & PromptTemplateCandidate {
	return { filePath: found.path, sourceInfo: toSourceInfo(found) };
}

function isUnder(path: string, root: string): boolean {
	const normalized = resolve(root);
	return path === normalized || path.startsWith(normalized.endsWith(sep) ? normalized : `${normalized}${sep}`);
}

/** What a `.pi/` folder would configure: when `.settle/` exists too, none of it is read. */
const PI_CONFIG_ENTRIES = ["settings.json", "extensions", "skills", "prompts", "SYSTEM.md", "APPEND_SYSTEM.md"];

/**
 * A warning when the project has both `.settle/` (the folder in use) and a `.pi/` with
 * configuration, which is then silently ignored: a pi project's extensions and skills stop loading
 * the moment someone adds `.settle/settings.json`. Undefined otherwise.
 */
function shadowedPiConfig(cwd: string, projectDir: string): ResourceDiagnostic | undefined {
	const piDir = join(cwd, PI_CONFIG_DIR_NAME);
	if (resolve(projectDir) === resolve(piDir)) return undefined;
	const ignored = PI_CONFIG_ENTRIES.filter((entry) => existsSync(join(piDir, entry)));
	if (ignored.length === 0) return undefined;
	return {
		type: "warning",
		message: `Ignored ${piDir} (${ignored.join(", ")}): this project also has ${projectDir}, and Settle reads only one project folder. Move what you need into ${projectDir}, or remove ${projectDir} to use ${piDir}.`,
		path: piDir,
	};
}

/** The first path that is a file: a folder named `SYSTEM.md` is passed over, as for context files (gemini-cli#4760). */
function firstFile(paths: string[]): string | undefined {
	return paths.find((path) => isFile(path));
}

/** The path with links resolved; as written (absolute) when it does not exist. Must not throw. */
function realPath(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}

/**
 * Whether `path` makes its folder a repository root, as git decides: a folder holding `HEAD`, or a
 * `gitdir:` pointer file (worktree, submodule). A stray empty `.git` folder is not one: git walks past it,
 * and stopping there hid the repository's `.agents/skills` (codex#25651). A `.git` the user cannot
 * read is one (it is there). Must not throw.
 */
function isGitMarker(path: string): boolean {
	const dir = isDirectory(path);
	if (!dir && !isFile(path)) return false;
	try {
		if (dir) return statSync(join(path, "HEAD")).isFile();
		return readTextFile(path).startsWith("gitdir:");
	} catch (error) {
		// A `.git` the user may not look into is no stray empty folder: walking past it read above the repository.
		return isAccessDenied(error);
	}
}

function isAccessDenied(error: unknown): boolean {
	const code = (error as NodeJS.ErrnoException | undefined)?.code;
	return code === "EACCES" || code === "EPERM";
}

function findGitRoot(start: string): string | null {
	let dir = resolve(start);
	for (;;) {
		if (isGitMarker(join(dir, ".git"))) return dir;
		const parent = dirname(dir);
		if (parent === dir) return null;
		dir = parent;
	}
}
