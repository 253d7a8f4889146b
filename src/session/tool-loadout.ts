/**
 * The session's tool and prompt loadout (behavior F.1, seed §6): the merged tool registry
 * (built-in < extension < SDK), the active tools the Agent runs, and the system prompt built from
 * them and the resources. Changes are recorded in the transcript as `system` messages
 * ({@link SystemPromptTracker}): at the next prompt, or before the next turn of a running operation.
 */
import type { Agent } from "../agent/agent.js";
import type { AgentTool } from "../agent/types.js";
import type { ResourceLoader } from "../resources/types.js";
import { createAllToolDefinitions, defaultActiveToolNames } from "../tools/index.js";
import {
	describeTools,
	mergeToolRegistry,
	selectRegisteredToolNames,
	type ToolInfo,
	type ToolRegistryEntry,
} from "../tools/registry.js";
import { type AnyToolDefinition, toAgentTool, toolDefinitionFromAgentTool } from "../tools/types.js";
import type { SystemMessage } from "./messages.js";
import {
	buildSystemPromptSections,
	renderSystemPrompt,
	type SystemPromptOptions,
	SystemPromptTracker,
	systemPromptOptionsFromResources,
} from "./system-prompt.js";

/** What the loadout is built from (the tool part of the session config). */
export interface ToolLoadoutOptions {
	cwd: string;
	agent: Agent;
	resourceLoader: ResourceLoader;
	/** Built-in tool options from settings. */
	builtinOptions: { autoResizeImages: boolean; commandPrefix?: string; shellPath?: string };
	/** SDK tools; they replace extension and built-in tools of the same name. */
	customTools?: readonly AnyToolDefinition[];
	/** Replaces the built-ins; its keys become the default active set. */
	baseToolsOverride?: Readonly<Record<string, AgentTool>>;
	allowedToolNames?: readonly string[];
	excludedToolNames?: readonly string[];
	/** The context tools get at execution time (the current extension context). */
	toolContext: () => unknown;
}

export class ToolLoadout {
	private registry = new Map<string, ToolRegistryEntry>();
	private agentTools = new Map<string, AgentTool>();
	private active: string[] = [];
	private readonly builtins: AnyToolDefinition[];
	private readonly defaultActive: string[];
	private cachedOptions: SystemPromptOptions | undefined;
	private tracker: SystemPromptTracker;
	/** The prompt or the tools changed since the last recorded system message. */
	private changed = true;
	/** The last recorded prompt was one operation's (from `before_agent_start` options). */
	private overridden = false;

	constructor(private readonly options: ToolLoadoutOptions) {
		if (options.baseToolsOverride) {
			this.builtins = Object.values(options.baseToolsOverride).map((tool) => toolDefinitionFromAgentTool(tool));
			this.defaultActive = Object.keys(options.baseToolsOverride);
		} else {
			const { autoResizeImages, commandPrefix, shellPath } = options.builtinOptions;
			this.builtins = Object.values(
				createAllToolDefinitions(options.cwd, { read: { autoResizeImages }, bash: { commandPrefix, shellPath } }),
			);
			this.defaultActive = [...defaultActiveToolNames];
		}
		this.tracker = SystemPromptTracker.fromTranscript(options.agent.state.messages);
	}

	/** Active tool names recorded by the transcript's current system message, if any. */
	recordedActiveToolNames(): string[] | undefined {
		return this.tracker.current()?.tools;
	}

	/** The default active set: `read, bash, edit, write`, or the keys of `baseToolsOverride`. */
	get defaultActiveToolNames(): string[] {
		return this.defaultActive.slice();
	}

	/**
	 * Re-merges the registry (F.1 steps 1–5) with the current extension tools and applies the next
	 * active set. Construction and reload pass `activeToolNames` + `includeAllExtensionTools`; a
	 * refresh after `pi.registerTool` at run time passes nothing (new tools become active).
	 */
	refresh(
		extensionTools: Parameters<typeof mergeToolRegistry>[0]["extensionTools"],
		options: { activeToolNames?: readonly string[]; includeAllExtensionTools?: boolean } = {},
	): void {
		const input: Parameters<typeof mergeToolRegistry>[0] = {
			builtinTools: this.builtins,
			extensionTools,
			previousActiveToolNames: this.active,
			previousRegistryNames: [...this.registry.keys()],
		};
		if (this.options.customTools) input.customTools = this.options.customTools;
		if (this.options.allowedToolNames) input.allowedToolNames = this.options.allowedToolNames;
		if (this.options.excludedToolNames) input.excludedToolNames = this.options.excludedToolNames;
		if (options.activeToolNames) input.activeToolNames = options.activeToolNames;
		if (options.includeAllExtensionTools) input.includeAllExtensionTools = true;
		const merged = mergeToolRegistry(input);
		this.registry = merged.tools;
		const toolContext = this.options.toolContext;
		this.agentTools = new Map(
			[...merged.tools.values()].map((entry) => [entry.definition.name, toAgentTool(entry.definition, toolContext)]),
		);
		this.setActiveToolsByName(merged.activeToolNames);
	}

	/**
	 * Activates the registered tools among `names` (unknown names ignored, order kept; F.1 step 6).
	 * Effective on the next model request; the prompt change is recorded before it.
	 */
	setActiveToolsByName(names: readonly string[]): void {
		this.active = selectRegisteredToolNames(this.registry, names);
		this.options.agent.state.tools = this.active.map((name) => this.agentTools.get(name)!);
		this.invalidatePrompt();
	}

	getActiveToolNames(): string[] {
		return this.active.slice();
	}

	/** Every registered tool (pi's `getAllTools()`). */
	getAllTools(): ToolInfo[] {
		return describeTools(this.registry);
	}

	getToolDefinition(name: string): AnyToolDefinition | undefined {
		return this.registry.get(name)?.definition;
	}

	/** Resources or tools changed: the prompt is rebuilt and recorded before the next request. */
	invalidatePrompt(): void {
		this.cachedOptions = undefined;
		this.changed = true;
	}

	/** The prompt options of the current loadout (shared; copy before mutating). */
	promptOptions(): SystemPromptOptions {
		if (!this.cachedOptions) {
			this.cachedOptions = systemPromptOptionsFromResources({
				cwd: this.options.cwd,
				resources: this.options.resourceLoader,
				tools: this.active.map((name) => {
					const entry = this.registry.get(name)!;
					return { name, promptSnippet: entry.promptSnippet, promptGuidelines: entry.promptGuidelines };
				}),
			});
		}
		return this.cachedOptions;
	}

	/** A copy of the prompt options a `before_agent_start` handler may mutate for one operation. */
	operationPromptOptions(): SystemPromptOptions {
		const base = this.promptOptions();
		const copy: SystemPromptOptions = { ...base };
		if (base.selectedTools) copy.selectedTools = [...base.selectedTools];
		if (base.toolSnippets) copy.toolSnippets = { ...base.toolSnippets };
		if (base.promptGuidelines) copy.promptGuidelines = [...base.promptGuidelines];
		if (Array.isArray(base.appendSystemPrompt)) copy.appendSystemPrompt = [...base.appendSystemPrompt];
		if (base.contextFiles) copy.contextFiles = [...base.contextFiles];
		if (base.skills) copy.skills = [...base.skills];
		if (base.sections) copy.sections = { ...base.sections };
		return copy;
	}

	/** The prompt the next request would use (without a per-operation override). */
	renderedPrompt(options: SystemPromptOptions = this.promptOptions()): string {
		return renderSystemPrompt(buildSystemPromptSections(options));
	}

	/** The tools or resources changed since the last recorded system message. */
	get hasUnrecordedChanges(): boolean {
		return this.changed;
	}

	/**
	 * The `system` message recording the prompt and tools in effect from now on (a baseline the
	 * first time, then patches), or undefined when nothing changed. The caller must get it into
	 * the transcript (as a prompt message or a next-turn message). With `options` (one operation's
	 * prompt, possibly changed by `before_agent_start` handlers) that prompt is recorded, and the
	 * next call without options records the loadout's own prompt again.
	 */
	nextSystemMessage(options?: SystemPromptOptions): SystemMessage | undefined {
		if (!options && !this.changed && !this.overridden) return undefined;
		const message = this.tracker.next(buildSystemPromptSections(options ?? this.promptOptions()), this.active);
		this.changed = false;
		this.overridden = options !== undefined;
		return message;
	}

	/** Re-reads the prompt in effect from the transcript (after a system message was not persisted). */
	resyncFromTranscript(): void {
		this.tracker = SystemPromptTracker.fromTranscript(this.options.agent.state.messages);
		this.changed = true;
	}
}
