/**
 * An in-memory {@link ResourceLoader} for tests and embedding: no disk access, resources given
 * directly. pi's tests use the same idea (`createTestResourceLoader`).
 */
import { resolve } from "node:path";
import { promptFilesAt, skillFilesAt } from "./discovery.js";
import { loadPromptTemplateCandidates } from "./prompt-templates.js";
import { loadSkillCandidates } from "./skills.js";
import type {
	ContextFile,
	ExtensionFactory,
	LoadExtensionsResult,
	LoadedExtension,
	PromptTemplate,
	ResourceDiagnostic,
	ResourceExtensionPaths,
	ResourceLoader,
	ResourcePathInput,
	Skill,
} from "./types.js";

/** Resources a test loader serves. Everything is optional and empty by default. */
export interface TestResourceLoaderOptions {
	/** Inline extension factories, served as `<inline:N>` records. */
	extensionFactories?: ExtensionFactory[];
	/** Ready-made extension records (appended after the factories). */
	extensions?: LoadedExtension[];
	skills?: Skill[];
	prompts?: PromptTemplate[];
	agentsFiles?: ContextFile[];
	systemPrompt?: string;
	appendSystemPrompt?: string[];
	diagnostics?: ResourceDiagnostic[];
	projectTrusted?: boolean;
}

/** A {@link ResourceLoader} that also lets a test change what it serves. */
export interface TestResourceLoader extends ResourceLoader {
	/** Replaces parts of what the loader serves (takes effect immediately, like a reload). */
	set(options: TestResourceLoaderOptions): void;
	/** How many times `reload()` was called. */
	readonly reloadCount: number;
}

/**
 * @example
 * ```ts
 * const loader = createTestResourceLoader({ extensionFactories: [(pi) => pi.on("input", () => {})] });
 * await loader.reload();
 * loader.getExtensions().extensions[0]!.path; // "<inline:1>"
 * ```
 */
export function createTestResourceLoader(initial: TestResourceLoaderOptions = {}): TestResourceLoader {
	let options = { ...initial };
	let reloadCount = 0;
	let extraSkills: Skill[] = [];
	let extraPrompts: PromptTemplate[] = [];
	const extensions = (): LoadExtensionsResult => ({
		extensions: [
			...(options.extensionFactories ?? []).map(
				(factory, index): LoadedExtension => ({
					path: `<inline:${index + 1}>`,
					resolvedPath: `<inline:${index + 1}>`,
					source: "inline",
					factory,
				}),
			),
			...(options.extensions ?? []),
		],
		errors: [],
		skipped: [],
		diagnostics: [],
	});
	let cachedExtensions = extensions();
	return {
		get reloadCount() {
			return reloadCount;
		},
		set(next) {
			options = { ...options, ...next };
			cachedExtensions = extensions();
		},
		async reload() {
			reloadCount++;
			cachedExtensions = extensions();
			// Like the default loader: paths added by extendResources are added again by the next resources_discover.
			extraSkills = [];
			extraPrompts = [];
		},
		getExtensions: () => cachedExtensions,
		getSkills: () => ({ skills: [...(options.skills ?? []), ...extraSkills], diagnostics: options.diagnostics ?? [] }),
		getPrompts: () => ({ prompts: [...(options.prompts ?? []), ...extraPrompts], diagnostics: [] }),
		getAgentsFiles: () => ({ agentsFiles: options.agentsFiles ?? [] }),
		getSystemPrompt: () => options.systemPrompt,
		getAppendSystemPrompt: () => options.appendSystemPrompt ?? [],
		extendResources(paths: ResourceExtensionPaths) {
			// Paths are real files: load them as the default loader does, after the given resources.
			const info = { source: "extension", scope: "temporary", origin: "top-level" } as const;
			const pathOf = (input: ResourcePathInput) => resolve(typeof input === "string" ? input : input.path);
			const skillFiles = (paths.skillPaths ?? []).flatMap((input) => skillFilesAt(pathOf(input)));
			const promptFiles = (paths.promptPaths ?? []).flatMap((input) => promptFilesAt(pathOf(input), false));
			const known = new Set((options.skills ?? []).map((skill) => skill.name));
			extraSkills = [
				...extraSkills,
				...loadSkillCandidates(skillFiles.map((filePath) => ({ filePath, sourceInfo: info }))).skills.filter(
					(skill) => !known.has(skill.name),
				),
			];
			const knownPrompts = new Set((options.prompts ?? []).map((prompt) => prompt.name));
			extraPrompts = [
				...extraPrompts,
				...loadPromptTemplateCandidates(promptFiles.map((filePath) => ({ filePath, sourceInfo: info }))).prompts.filter(
					(prompt) => !knownPrompts.has(prompt.name),
				),
			];
		},
		isProjectTrusted: () => options.projectTrusted ?? true,
	};
}
