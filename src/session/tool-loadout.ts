/**
 * The session's tool and prompt loadout : the merged tool registry
 * (built-in < extension < SDK), the active tools the Agent runs, and the system prompt built from
 * them and the resources. Changes are recorded in the transcript as `system` messages
 * ({@link SystemPromptTracker}): at the next prompt, or before the next turn of a running operation.
 */
import type { Agent } from "../agent/agent.js";
import type { AgentTool } from "../agent/types.js";
import type { AgentMessage } from "../llm/types.js";
import type { ResourceLoader } from "../resources/types.js";
import { createAllToolDefinitions, defaultActiveToolNames, FileReadStamps } from "../tools/index.js";
import {
	describeTools,
	mergeToolRegistry,
	type RegisteredTool,
	selectRegisteredToolNames,
	type ToolInfo,
	type ToolRegistryEntry,
} from "../tools/registry.js";
import { type AnyToolDefinition, type SourceInfo, toAgentTool, toolDefinitionFromAgentTool } from "../tools/types.js";
import type { SessionInternals } from "./internals.js";
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
	/**
	 * The context tools get at execution time (the current extension context); an extension's tool
	 * gets its extension's (`source`: the tool's source info).
	 */
	toolContext: (source?: SourceInfo) => unknown;
}

export class ToolLoadout {
	private registry = new Map<string, ToolRegistryEntry>();
	private agentTools = new Map<string, AgentTool>();
	private active: string[] = [];
	private builtins: AnyToolDefinition[];
	private readonly defaultActive: string[];
	private cachedOptions: SystemPromptOptions | undefined;
	private tracker: SystemPromptTracker;
	/** The prompt or the tools changed since the last recorded system message. */
	private changed = true;
	/** The last recorded prompt was one operation's (from `before_agent_start` options). */
	private overridden = false;
	/** That operation's prompt, until the operation ends ({@link endOperation}) or a later change is recorded. */
	private operationPrompt: string | undefined;

	/** Files the session's built-in tools have seen: kept across a reload's new tools. */
	private readonly readStamps = new FileReadStamps();

	constructor(private readonly options: ToolLoadoutOptions) {
		this.builtins = this.createBuiltins(options.builtinOptions);
		this.defaultActive = options.baseToolsOverride
			? Object.keys(options.baseToolsOverride)
			: [...defaultActiveToolNames];
		this.tracker = SystemPromptTracker.fromTranscript(options.agent.state.messages);
	}

	private createBuiltins(builtinOptions: ToolLoadoutOptions["builtinOptions"]): AnyToolDefinition[] {
		const override = this.options.baseToolsOverride;
		if (override) return Object.values(override).map((tool) => toolDefinitionFromAgentTool(tool));
		const { autoResizeImages, commandPrefix, shellPath } = builtinOptions;
		return Object.values(
			createAllToolDefinitions(this.options.cwd, {
				read: { autoResizeImages, readStamps: this.readStamps },
				edit: { readStamps: this.readStamps },
				write: { readStamps: this.readStamps },
				bash: { commandPrefix, shellPath },
			}),
		);
	}

	/**
	 * Re-creates the built-in tools with new settings (reload: shell path, command prefix, image
	 * resizing). Takes effect at the next {@link refresh}. `baseToolsOverride` tools are kept.
	 */
	reconfigureBuiltins(builtinOptions: ToolLoadoutOptions["builtinOptions"]): void {
		this.builtins = this.createBuiltins(builtinOptions);
	}

	/** Active tool names recorded by the transcript's current system message, if any. */
	recordedActiveToolNames(): string[] | undefined {
		return this.tracker.current()?.tools;
	}

	/**
	 * The first merge of a session. With `explicitActive` (the host chose the
	 * tools), those plus every extension and SDK tool. Otherwise, when the transcript recorded a tool
	 * set (a resumed session), exactly that set — plus extension and SDK tools the transcript never
	 * mentions, i.e. ones installed since. Otherwise the defaults plus every extension and SDK tool.
	 */
	initialize(extensionTools: readonly RegisteredTool[], explicitActive?: readonly string[]): void {
		const recorded = explicitActive ? undefined : this.recordedActiveToolNames();
		if (!recorded) {
			this.refresh(extensionTools, {
				activeToolNames: explicitActive ?? this.defaultActive,
				includeAllExtensionTools: true,
			});
			return;
		}
		this.refresh(extensionTools, { activeToolNames: recorded });
		const mentioned = mentionedToolNames(this.options.agent.state.messages);
		const added = [...this.registry.values()]
			.filter((entry) => entry.kind !== "builtin" && !mentioned.has(entry.definition.name))
			.map((entry) => entry.definition.name);
		if (added.length > 0) this.setActiveToolsByName([...this.active, ...added]);
	}

	/** The default active set: `read, bash, edit, write`, or the keys of `baseToolsOverride`. */
	get defaultActiveToolNames(): string[] {
		return this.defaultActive.slice();
	}

	/**
	 * Re-merges the registry with the current extension tools and applies the next
	 * active set. Construction passes `activeToolNames` + `includeAllExtensionTools`; a reload passes
	 * the active set plus the tools its extensions newly register; a refresh after `pi.registerTool`
	 * at run time passes nothing (new tools become active).
	 */
	refresh(
		extensionTools: readonly RegisteredTool[] | undefined,
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
			[...merged.tools.values()].map((entry) => [
				entry.definition.name,
				toAgentTool(
					entry.definition,
					entry.kind === "extension" ? () => toolContext(entry.sourceInfo) : () => toolContext(),
				),
			]),
		);
		this.setActiveToolsByName(merged.activeToolNames);
	}

	/**
	 * Activates the registered tools among `names` (unknown names ignored, order kept).
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

	/** The active tools an extension provides, with that extension's path (what a reload must keep). */
	activeExtensionTools(): { name: string; path: string }[] {
		return this.active.flatMap((name) => {
			const entry = this.registry.get(name);
			return entry?.kind === "extension" ? [{ name, path: entry.sourceInfo.path }] : [];
		});
	}

	/** Which layer provides the tool `name` now, if any. */
	toolKind(name: string): "builtin" | "extension" | "sdk" | undefined {
		return this.registry.get(name)?.kind;
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

	/**
	 * Brings the tool fields (`selectedTools`, `toolSnippets`, `promptGuidelines`) of an operation's
	 * options (from {@link operationPromptOptions}) up to date with the active tools, when these are no
	 * longer `activeAtCopy` (a `before_agent_start` handler ran `pi.setActiveTools()`, pi#9932). Other
	 * fields a handler changed are kept. Returns the active tool names to compare next time:
	 * `activeAtCopy` itself when nothing changed.
	 */
	adoptActiveTools(options: SystemPromptOptions, activeAtCopy: readonly string[]): readonly string[] {
		const now = this.getActiveToolNames();
		if (now.length === activeAtCopy.length && now.every((name, i) => name === activeAtCopy[i])) return activeAtCopy;
		const live = this.promptOptions();
		options.selectedTools = live.selectedTools ? [...live.selectedTools] : undefined;
		options.toolSnippets = live.toolSnippets ? { ...live.toolSnippets } : undefined;
		options.promptGuidelines = live.promptGuidelines ? [...live.promptGuidelines] : undefined;
		return now;
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
		const sections = buildSystemPromptSections(options ?? this.promptOptions());
		const message = this.tracker.next(sections, this.active);
		this.changed = false;
		this.overridden = options !== undefined;
		this.operationPrompt = options ? renderSystemPrompt(sections) : undefined;
		return message;
	}

	/**
	 * The prompt the next request uses: after an unrecorded change the loadout's own, else the
	 * running operation's prompt from `before_agent_start` options, else the loadout's own. So
	 * `ctx.getSystemPrompt()` in `agent_start`, `turn_start` or a tool returns what the model gets
	 * (pi-langfuse#12).
	 */
	currentPrompt(): string {
		return (!this.changed && this.operationPrompt) || this.renderedPrompt();
	}

	/** The operation settled: its prompt no longer applies (the next one records the loadout's own). */
	endOperation(): void {
		this.operationPrompt = undefined;
	}

	/** Re-reads the prompt in effect from the transcript (after a system message was not persisted). */
	resyncFromTranscript(): void {
		this.tracker = SystemPromptTracker.fromTranscript(this.options.agent.state.messages);
		this.changed = true;
		this.operationPrompt = undefined;
	}
}

/** Every tool name a transcript's system messages mention (active, added or removed). One pass, at open. */
function mentionedToolNames(messages: readonly AgentMessage[]): Set<string> {
	const names = new Set<string>();
	for (const message of messages) {
		if (message.role !== "system") continue;
		const tools = (message as SystemMessage).tools;
		if (!tools) continue;
		for (const list of [tools.active, tools.added, tools.removed]) for (const name of list ?? []) names.add(name);
	}
	return names;
}

/**
 * Records an unrecorded loadout change in the transcript now, before a run that does not start
 * from a prompt (a retry, a continuation after compaction or a boundary): such a run's first
 * request is not preceded by `prepareNextTurn`, and the transcript must show the prompt it sees.
 * A no-op when nothing changed or the run's prompt already carries the system message.
 */
export function recordLoadoutChangeBeforeRun(s: SessionInternals): void {
	if (!s.loadout.hasUnrecordedChanges || s.scratch.promptSystemMessage) return;
	const message = s.loadout.nextSystemMessage();
	if (!message) return;
	s.events.emit({ type: "message_start", message });
	s.transcript.append(message);
	s.agent.state.systemPrompt = message.content;
	s.events.emit({ type: "message_end", message });
}
