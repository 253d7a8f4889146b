/** Resources on disk: context files, skills, prompt templates, extension modules, and the loader. */
export { CONTEXT_FILE_NAMES, loadProjectContextFiles } from "./context-files.js";
export {
	defaultExtensionAliases,
	type ExtensionCandidate,
	extensionEntriesAt,
	importExtensionFactory,
	type LoadExtensionsOptions,
	loadExtensions,
} from "./extensions.js";
export { type ParsedFrontmatter, parseFrontmatter, stripFrontmatter } from "./frontmatter.js";
export {
	expandPromptTemplate,
	loadPromptTemplateCandidates,
	loadPromptTemplateFile,
	type PromptTemplateCandidate,
	parseCommandArgs,
	substituteArgs,
	templateBodyOnDisk,
} from "./prompt-templates.js";
export { DefaultResourceLoader, type DefaultResourceLoaderOptions } from "./resource-loader.js";
export {
	expandSkillCommand,
	formatSkillsForPrompt,
	loadSkillCandidates,
	loadSkillFile,
	MAX_SKILL_DESCRIPTION_LENGTH,
	MAX_SKILL_NAME_LENGTH,
	parseSkillBlock,
	type SkillBlock,
	type SkillCandidate,
	type SkillExpansion,
	validateSkillName,
} from "./skills.js";
export { createTestResourceLoader, type TestResourceLoader, type TestResourceLoaderOptions } from "./test-loader.js";
export type * from "./types.js";
