/**
 * Resource types: what the loader finds on disk and hands to the session.
 * Shapes match pi 0.73 (`Skill`, `PromptTemplate`, `ResourceDiagnostic`, `SourceInfo`) so code
 * written against pi's loader reads them unchanged.
 */

import type { SettingsManager } from "../settings/settings-manager.js";
import type { SourceInfo } from "../tools/types.js";

export type { SourceInfo };

/** A name collision between two resources; the first one found wins. */
export interface ResourceCollision {
	resourceType: "extension" | "skill" | "prompt" | "theme";
	name: string;
	winnerPath: string;
	loserPath: string;
}

/** A problem found while loading resources. Loading continued. */
export interface ResourceDiagnostic {
	type: "warning" | "error" | "collision";
	message: string;
	path?: string;
	collision?: ResourceCollision;
}

/** A skill: a `SKILL.md` (or a markdown file at the root of a skills folder) with front matter. */
export interface Skill {
	name: string;
	description: string;
	/** Absolute path of the skill's markdown file. */
	filePath: string;
	/** Folder relative references in the skill resolve against. */
	baseDir: string;
	sourceInfo: SourceInfo;
	/** `disable-model-invocation: true`: not listed in the system prompt; only `/skill:name` uses it. */
	disableModelInvocation: boolean;
}

/** A prompt template: `<name>.md`, invoked as `/<name> args`. */
export interface PromptTemplate {
	name: string;
	description: string;
	argumentHint?: string;
	/** Body with front matter removed (trimmed). */
	content: string;
	filePath: string;
	sourceInfo: SourceInfo;
}

/** A context file (`AGENTS.md` / `CLAUDE.md`). */
export interface ContextFile {
	path: string;
	content: string;
}

/** The files the base prompt and the appended prompts were read from; text given as such has none. */
export interface SystemPromptFiles {
	/** `SYSTEM.md`, or the file a `systemPrompt` option named. */
	system?: string;
	/** `APPEND_SYSTEM.md`, or the files `appendSystemPrompt` options named, in order. */
	append: string[];
}

/** A skill file discovery found and a settings filter switched off (`!pattern`, `-path`, a package's list). */
export interface FilteredOutSkill {
	/** The skill file (`SKILL.md`, or a `.md` file in a skills folder). */
	path: string;
	/** The filter that switched it off, for a message: `the "skills" filter in <settings file>`, or the package's. */
	filter: string;
}

import type { ExtensionFactory } from "../extensions/types.js";

export type { ExtensionFactory };

/** Where an extension module was found. */
export type ExtensionSource = "global" | "project" | "inline" | "explicit";

/**
 * An extension ready to run. The loader only imports modules (never calls them); the extension
 * runner calls `factory(api)` once per runtime build with its ExtensionAPI object (pi's `pi`).
 *
 * `source`: `global` (`<agentDir>/extensions`, global settings `extensions`), `project`
 * (`.settle/extensions` or `.pi/extensions`, project settings `extensions`; loaded only when the
 * project is trusted), `inline` (SDK `extensionFactories`, path `<inline:N>`), `explicit`
 * (`additionalExtensionPaths`, e.g. a CLI `--extension` flag).
 */
export interface LoadedExtension {
	/** Display path: the absolute file path, or `<inline:N>`. */
	path: string;
	/** Absolute file path of the module (same as `path` for inline factories). */
	resolvedPath: string;
	source: ExtensionSource;
	/**
	 * Where the extension came from, as pi 0.73.1 reports it (also on every tool and command it
	 * registers): `auto` (scope `user` / `project`, `baseDir` the agent folder or the project's
	 * `.settle/` / `.pi/`) for what an extensions folder holds; `local` (no `baseDir`) for a
	 * settings entry; `cli` (scope `temporary`, no `baseDir`) for an explicit path discovery does
	 * not reach; `inline` for `<inline:N>`. Absent on records built by hand: the runner then
	 * derives it from `path` and `source`.
	 */
	sourceInfo?: SourceInfo;
	factory: ExtensionFactory;
}

/** An extension that was found but not imported, and why. */
export interface SkippedExtension {
	path: string;
	source: ExtensionSource;
	reason: "untrusted-project";
}

/** Result of discovering and importing extensions. Must not throw; every failure is an `errors` entry. */
export interface LoadExtensionsResult {
	/** In load order: explicit paths, project, global, then inline factories. */
	extensions: LoadedExtension[];
	/** Modules that failed to import or export no factory (pi's `{path, error}` shape). */
	errors: Array<{ path: string; error: string }>;
	/** Found but not imported (an untrusted project's extensions). */
	skipped: SkippedExtension[];
	/** Errors, skipped extensions and path problems as diagnostics, with what to do. */
	diagnostics: ResourceDiagnostic[];
}

/** A path an extension contributed at `resources_discover` time. */
export type ResourcePathInput = string | { path: string; metadata?: Partial<Omit<SourceInfo, "path">> };

/** Extra skill / prompt paths (pi's `extendResources`); theme paths are accepted and ignored. */
export interface ResourceExtensionPaths {
	skillPaths?: ResourcePathInput[];
	promptPaths?: ResourcePathInput[];
	themePaths?: ResourcePathInput[];
}

/**
 * Options of {@link ResourceLoader.reload}.
 *
 * @example
 * ```ts
 * declare const settingsManager: SettingsManager;
 * declare const loader: ResourceLoader; // built on settingsManager
 * await settingsManager.reload();
 * await loader.reload({ settingsReloaded: settingsManager }); // the files are not read again
 * ```
 */
export interface ResourceReloadOptions {
	/**
	 * A settings manager the caller has just re-read (`session.reload()`'s): a loader that reads this
	 * one uses it as it is instead of reading its files again, so one reload sees each settings file
	 * once and a file saved meanwhile cannot give half the session one version and half the other.
	 */
	settingsReloaded?: SettingsManager;
}

/**
 * What an AgentSession needs from its resources. Getters return the snapshot taken
 * by the last {@link ResourceLoader.reload}; they never touch the disk and never throw.
 */
export interface ResourceLoader {
	/**
	 * Re-reads settings (unless `options.settingsReloaded` is the loader's own, just re-read) and
	 * every resource, then swaps the snapshot. Never rejects.
	 */
	reload(options?: ResourceReloadOptions): Promise<void>;
	getExtensions(): LoadExtensionsResult;
	getSkills(): { skills: Skill[]; diagnostics: ResourceDiagnostic[] };
	getPrompts(): { prompts: PromptTemplate[]; diagnostics: ResourceDiagnostic[] };
	getAgentsFiles(): { agentsFiles: ContextFile[]; diagnostics?: ResourceDiagnostic[] };
	/** The custom base prompt (SYSTEM.md or the `systemPrompt` option), or undefined for the default. */
	getSystemPrompt(): string | undefined;
	/** Texts appended to the prompt (APPEND_SYSTEM.md or the `appendSystemPrompt` option). */
	getAppendSystemPrompt(): string[];
	/**
	 * Where {@link getSystemPrompt} and {@link getAppendSystemPrompt} were read from, so a host can
	 * show which files shape the prompt (pi#7096: a `SYSTEM.md` replaced the prompt unseen).
	 * @example
	 * ```ts
	 * const { system, append } = session.resourceLoader.getSystemPromptFiles?.() ?? { append: [] };
	 * console.log(system ?? "default base prompt", append);
	 * ```
	 */
	getSystemPromptFiles?(): SystemPromptFiles;
	/**
	 * The skill files settings filters switched off, so a host can say why `/skill:<name>` is not
	 * there instead of "unknown command" (read them with `loadSkillFile` to learn their names).
	 * @example
	 * ```ts
	 * for (const { path, filter } of session.resourceLoader.getFilteredOutSkills?.() ?? []) console.log(path, filter);
	 * ```
	 */
	getFilteredOutSkills?(): FilteredOutSkill[];
	/** Adds skill / prompt paths (from `resources_discover`) to the current snapshot. */
	extendResources(paths: ResourceExtensionPaths): void;
	/** Whether the project's code (extensions) may run. */
	isProjectTrusted?(): boolean;
}
