/**
 * The tool-registry merge, as pure functions: which definitions exist (built-in <
 * extension < SDK), which are allowed, how their prompt text is normalized, and which are active
 * next. No I/O, no session state: the session passes what it had and stores what comes back.
 */
import type { AnyToolDefinition, SourceInfo, SourceOrigin, SourceScope } from "./types.js";

/** A tool registered by an extension, with where it came from. Mirrors pi's `RegisteredTool`. */
export interface RegisteredTool {
	definition: AnyToolDefinition;
	sourceInfo: SourceInfo;
}

/** Which layer a registry entry comes from. */
export type ToolOriginKind = "builtin" | "extension" | "sdk";

/** One entry of the merged registry. */
export interface ToolRegistryEntry {
	definition: AnyToolDefinition;
	sourceInfo: SourceInfo;
	kind: ToolOriginKind;
	/** `promptSnippet` on one line; absent when the tool has none (it is then not listed in the prompt). */
	promptSnippet?: string;
	/** Trimmed, de-duplicated, non-empty guidelines. */
	promptGuidelines: string[];
}

/** Input of {@link mergeToolRegistry}: the tools of every source and the active-tool choices. */
export interface ToolRegistryInput {
	/** Built-in definitions (a list, or pi's name → definition record). */
	builtinTools: readonly AnyToolDefinition[] | Readonly<Record<string, AnyToolDefinition>>;
	/** Extension tools in load order; the first registration of a name wins. */
	extensionTools?: readonly RegisteredTool[];
	/** SDK `customTools`; they replace extension and built-in tools of the same name. */
	customTools?: readonly AnyToolDefinition[];
	/** Allowlist (the `tools` option). Absent: no allowlist. Also filters extension and SDK tools. */
	allowedToolNames?: readonly string[];
	/** Names removed from every source. */
	excludedToolNames?: readonly string[];
	/** `"all"` without an allowlist means an empty allowlist. `"builtin"` only changes the initial active set. */
	noTools?: "all" | "builtin";
	/** Explicit next active names (construction, reload). */
	activeToolNames?: readonly string[];
	/** Names active before this merge; used when `activeToolNames` is absent. */
	previousActiveToolNames?: readonly string[];
	/**
	 * Names registered before this merge. For a refresh caused by a tool registered at runtime, tools
	 * not in this list become active. Absent: nothing is added that way.
	 */
	previousRegistryNames?: readonly string[];
	/** Activate every allowed extension and SDK tool (construction and reload). */
	includeAllExtensionTools?: boolean;
}

/** What {@link mergeToolRegistry} returns. */
export interface MergedToolRegistry {
	/** Registered tools by name, in registration order (a replaced tool keeps its position). */
	tools: Map<string, ToolRegistryEntry>;
	/** Next active tool names: registered, de-duplicated, in order. */
	activeToolNames: string[];
}

/**
 * Source info for synthetic paths such as `<builtin:read>`; scope `temporary`, origin `top-level`
 * unless given. Mirrors pi's `createSyntheticSourceInfo`.
 *
 * @example
 * ```ts
 * createSyntheticSourceInfo("<sdk:deploy>", { source: "sdk" });
 * // { path: "<sdk:deploy>", source: "sdk", scope: "temporary", origin: "top-level" }
 * ```
 */
export function createSyntheticSourceInfo(
	path: string,
	options: { source: string; scope?: SourceScope; origin?: SourceOrigin; baseDir?: string },
): SourceInfo {
	const info: SourceInfo = {
		path,
		source: options.source,
		scope: options.scope ?? "temporary",
		origin: options.origin ?? "top-level",
	};
	if (options.baseDir !== undefined) info.baseDir = options.baseDir;
	return info;
}

/** Source info of a built-in tool: `<builtin:name>`. */
export const builtinSourceInfo = (name: string): SourceInfo =>
	createSyntheticSourceInfo(`<builtin:${name}>`, { source: "builtin" });

/** Source info of an SDK `customTools` entry: `<sdk:name>`. */
export const sdkSourceInfo = (name: string): SourceInfo =>
	createSyntheticSourceInfo(`<sdk:${name}>`, { source: "sdk" });

/** Source info of the `index`-th (1-based) inline extension factory given to the SDK: `<inline:N>`. */
export const inlineExtensionSourceInfo = (index: number): SourceInfo =>
	createSyntheticSourceInfo(`<inline:${index}>`, { source: "inline" });

/**
 * Flattens the tools of loaded extensions (in load order); the first registration of a name wins,
 * later ones are dropped (the loader reports those as conflicts).
 *
 * @example
 * ```ts
 * const { extensions } = await instantiateExtensions(resourceLoader.getExtensions().extensions, { cwd });
 * const extensionTools = collectExtensionTools(extensions); // one RegisteredTool per name
 * ```
 */
export function collectExtensionTools(
	extensions: Iterable<{ tools: Iterable<RegisteredTool> | ReadonlyMap<string, RegisteredTool> }>,
): RegisteredTool[] {
	const byName = new Map<string, RegisteredTool>();
	for (const extension of extensions) {
		const tools = extension.tools instanceof Map ? extension.tools.values() : extension.tools;
		for (const tool of tools as Iterable<RegisteredTool>) {
			if (!byName.has(tool.definition.name)) byName.set(tool.definition.name, tool);
		}
	}
	return [...byName.values()];
}

/**
 * `promptSnippet` collapsed to one trimmed line; `undefined` when empty.
 *
 * @example
 * ```ts
 * normalizePromptSnippet("  Read\n files  "); // "Read files"
 * normalizePromptSnippet("   "); // undefined
 * ```
 */
export function normalizePromptSnippet(text: string | undefined): string | undefined {
	if (!text) return undefined;
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > 0 ? line : undefined;
}

/**
 * Guidelines trimmed, empty ones dropped, duplicates removed (first occurrence kept).
 *
 * @example
 * ```ts
 * normalizePromptGuidelines([" Prefer edit ", "", "Prefer edit", "Read first"]); // ["Prefer edit", "Read first"]
 * ```
 */
export function normalizePromptGuidelines(guidelines: readonly string[] | undefined): string[] {
	const unique = new Set<string>();
	for (const guideline of guidelines ?? []) {
		const trimmed = guideline.trim();
		if (trimmed.length > 0) unique.add(trimmed);
	}
	return [...unique];
}

/**
 * The allow filter: in the allowlist (when there is one) and not excluded. Works on
 * final names, so excluding `read` removes the built-in, extension and SDK `read` alike.
 *
 * @example
 * ```ts
 * const allowed = createToolFilter({ allowedToolNames: ["read", "bash"], excludedToolNames: ["bash"] });
 * allowed("read"); // true
 * allowed("bash"); // false (excluded)
 * allowed("edit"); // false (not in the allowlist)
 * ```
 */
export function createToolFilter(options: {
	allowedToolNames?: readonly string[];
	excludedToolNames?: readonly string[];
	noTools?: "all" | "builtin";
}): (name: string) => boolean {
	const allowlist = effectiveAllowlist(options);
	const excluded = new Set(options.excludedToolNames ?? []);
	return (name) => (!allowlist || allowlist.has(name)) && !excluded.has(name);
}

function effectiveAllowlist(options: {
	allowedToolNames?: readonly string[];
	noTools?: "all" | "builtin";
}): Set<string> | undefined {
	if (options.allowedToolNames) return new Set(options.allowedToolNames);
	return options.noTools === "all" ? new Set() : undefined;
}

/**
 * The active tool names a new session starts with: the allowlist when given,
 * none with `noTools`, else the defaults; minus the exclude list.
 *
 * @example
 * ```ts
 * initialActiveToolNames({ excludeTools: ["bash"] }, ["read", "bash", "edit", "write"]); // ["read", "edit", "write"]
 * ```
 */
export function initialActiveToolNames(
	options: { tools?: readonly string[]; excludeTools?: readonly string[]; noTools?: "all" | "builtin" },
	defaults: readonly string[],
): string[] {
	const base = options.tools ? [...options.tools] : options.noTools ? [] : [...defaults];
	const excluded = new Set(options.excludeTools ?? []);
	return base.filter((name) => !excluded.has(name));
}

function entry(definition: AnyToolDefinition, sourceInfo: SourceInfo, kind: ToolOriginKind): ToolRegistryEntry {
	const result: ToolRegistryEntry = {
		definition,
		sourceInfo,
		kind,
		promptGuidelines: normalizePromptGuidelines(definition.promptGuidelines),
	};
	const snippet = normalizePromptSnippet(definition.promptSnippet);
	if (snippet) result.promptSnippet = snippet;
	return result;
}

/**
 * Merges built-in, extension and SDK tools. Pure: same input, same output;
 * the input is not modified.
 *
 * Next active names: `activeToolNames`, else `previousActiveToolNames`, filtered by the allow filter;
 * then with an allowlist every registered allowed tool that was not in `previousRegistryNames` is
 * added (regression 2835: this includes extension tools, and an allowlist also removes extension
 * tools it does not name; pi#7406: a tool already registered and turned off stays off); else with
 * `includeAllExtensionTools` every extension and SDK tool; else, without explicit names, every
 * tool that was not in `previousRegistryNames`. Unknown names are dropped, duplicates removed.
 *
 * @example
 * ```ts
 * declare const deployTool: AnyToolDefinition; // an SDK customTools entry
 * const { extensions } = await instantiateExtensions(resourceLoader.getExtensions().extensions, { cwd });
 * const { tools, activeToolNames } = mergeToolRegistry({
 *   builtinTools: createAllToolDefinitions(cwd),
 *   extensionTools: collectExtensionTools(extensions),
 *   customTools: [deployTool],
 *   activeToolNames: initialActiveToolNames({}, defaultActiveToolNames),
 *   includeAllExtensionTools: true,
 * });
 * ```
 */
export function mergeToolRegistry(input: ToolRegistryInput): MergedToolRegistry {
	const isAllowed = createToolFilter(input);
	const allowlist = effectiveAllowlist(input);
	const builtins = Array.isArray(input.builtinTools)
		? (input.builtinTools as readonly AnyToolDefinition[])
		: Object.values(input.builtinTools as Readonly<Record<string, AnyToolDefinition>>);

	const tools = new Map<string, ToolRegistryEntry>();
	for (const definition of builtins) {
		if (isAllowed(definition.name)) {
			tools.set(definition.name, entry(definition, builtinSourceInfo(definition.name), "builtin"));
		}
	}
	const layered: ToolRegistryEntry[] = [];
	const seenExtensionNames = new Set<string>();
	for (const tool of input.extensionTools ?? []) {
		const name = tool.definition.name;
		if (seenExtensionNames.has(name)) continue; // first registration wins
		seenExtensionNames.add(name);
		if (isAllowed(name)) layered.push(entry(tool.definition, tool.sourceInfo, "extension"));
	}
	for (const definition of input.customTools ?? []) {
		if (isAllowed(definition.name)) layered.push(entry(definition, sdkSourceInfo(definition.name), "sdk"));
	}
	for (const layer of layered) tools.set(layer.definition.name, layer);

	const next = [...(input.activeToolNames ?? input.previousActiveToolNames ?? [])].filter(isAllowed);
	const previous = input.previousRegistryNames ? new Set(input.previousRegistryNames) : undefined;
	if (allowlist) {
		// pi#7406: only names new to the registry; one already there and inactive was turned off on purpose.
		for (const name of tools.keys()) if (allowlist.has(name) && !previous?.has(name)) next.push(name);
	} else if (input.includeAllExtensionTools) {
		for (const layer of layered) next.push(layer.definition.name);
	} else if (!input.activeToolNames && previous) {
		for (const name of tools.keys()) if (!previous.has(name)) next.push(name);
	}
	const activeToolNames = [...new Set(next)].filter((name) => tools.has(name));
	return { tools, activeToolNames };
}

/**
 * Keeps the registered names of `names` in order, without duplicates (unknown names ignored).
 *
 * @example
 * ```ts
 * const { tools } = mergeToolRegistry({ builtinTools: createAllToolDefinitions(cwd) });
 * selectRegisteredToolNames(tools, ["read", "nope", "read", "bash"]); // ["read", "bash"]
 * ```
 */
export function selectRegisteredToolNames(
	registry: ReadonlyMap<string, ToolRegistryEntry>,
	names: readonly string[],
): string[] {
	return [...new Set(names)].filter((name) => registry.has(name));
}

/**
 * The names of `names` that no registered tool has, once each, in order: what
 * {@link selectRegisteredToolNames} drops (an extension author's typo would otherwise remove a tool
 * without a word).
 *
 * @example
 * ```ts
 * unknownToolNames(["read", "bash", "ls"], ["read", "bahs", "bahs"]); // ["bahs"]
 * ```
 */
export function unknownToolNames(registered: readonly string[], names: readonly string[]): string[] {
	return [...new Set(names)].filter((name) => !registered.includes(name));
}

/**
 * What `method` (`pi.setActiveTools`, …) says of the `unknown` names it left inactive; `anyApplied`:
 * some other name was a tool (else no tool is active now: one typo took every tool away).
 */
export function unknownToolNamesMessage(
	method: string,
	unknown: readonly string[],
	registered: readonly string[],
	anyApplied = true,
): string {
	const named = unknown.map((name) => `"${name}"`).join(", ");
	const rest = anyApplied ? "the other names were applied" : "no tool is active now";
	return (
		`${method}: no tool is named ${named}, so ${unknown.length === 1 ? "it was" : "they were"} left out; ${rest}. ` +
		`The registered tools are ${registered.length > 0 ? registered.join(", ") : "none"}. Check the spelling, or register the tool before activating it.`
	);
}

/** What the system prompt needs about the active tools. */
export interface PromptToolSection {
	/** Active tool names, registered only. */
	selectedTools: string[];
	/** Name → one-line snippet, for active tools that have one (only those are listed in the prompt). */
	toolSnippets: Record<string, string>;
	/** Guidelines of the active tools, in tool order, de-duplicated across tools. */
	promptGuidelines: string[];
}

/**
 * Collects snippets and guidelines of the active tools for the system prompt builder.
 *
 * @example
 * ```ts
 * declare const registry: MergedToolRegistry; // from mergeToolRegistry
 * const section = promptToolSection(registry.tools, registry.activeToolNames);
 * const list = Object.entries(section.toolSnippets).map(([name, s]) => `- ${name}: ${s}`).join("\n");
 * ```
 */
export function promptToolSection(
	registry: ReadonlyMap<string, ToolRegistryEntry>,
	activeToolNames: readonly string[],
): PromptToolSection {
	const selectedTools = selectRegisteredToolNames(registry, activeToolNames);
	const toolSnippets: Record<string, string> = {};
	const guidelines: string[] = [];
	for (const name of selectedTools) {
		const tool = registry.get(name)!;
		if (tool.promptSnippet) toolSnippets[name] = tool.promptSnippet;
		guidelines.push(...tool.promptGuidelines);
	}
	return { selectedTools, toolSnippets, promptGuidelines: normalizePromptGuidelines(guidelines) };
}

/** pi's `ToolInfo` (what `getAllTools()` returns), with the normalized guidelines. */
export interface ToolInfo {
	name: string;
	description: string;
	parameters: AnyToolDefinition["parameters"];
	promptGuidelines: string[];
	sourceInfo: SourceInfo;
}

/**
 * Every registered tool as {@link ToolInfo}, in registry order.
 *
 * @example
 * ```ts
 * const { tools } = mergeToolRegistry({ builtinTools: createAllToolDefinitions(cwd) });
 * describeTools(tools).map((tool) => `${tool.name}: ${tool.description}`);
 * ```
 */
export function describeTools(registry: ReadonlyMap<string, ToolRegistryEntry>): ToolInfo[] {
	return [...registry.values()].map(({ definition, promptGuidelines, sourceInfo }) => ({
		name: definition.name,
		description: definition.description,
		parameters: definition.parameters,
		promptGuidelines,
		sourceInfo,
	}));
}
