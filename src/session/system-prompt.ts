/**
 * The system prompt as named sections:
 *
 * | id | content |
 * |---|---|
 * | `preamble` | the default coding-assistant prompt, or the custom base (SYSTEM.md / `systemPrompt`) |
 * | `tools` | `- <name>: <snippet>` for each active tool that has a prompt snippet, else `(none)` |
 * | `guidelines` | file-exploration advice for the active tools, tool guidelines, two defaults |
 * | `skills` | pi's `<available_skills>` listing (skills without disable-model-invocation; needs `read`) |
 * | `project_context` | the AGENTS.md / CLAUDE.md files |
 * | `addendum` | appended prompts (APPEND_SYSTEM.md / `appendSystemPrompt`) |
 * | extra ids | sections an extension adds (`sections` option), in id order |
 * | `cwd` | `Current working directory: …` |
 * | `date` | `Current date: YYYY-MM-DD` (local date; injectable) |
 *
 * Empty sections are left out. Rendering: the preamble as is, every other section wrapped in
 * `<id>…</id>`, joined by blank lines. A change of the prompt or of the active tools is recorded in
 * the transcript as a `system` message ({@link diffSystemPrompt}); {@link systemPromptFromTranscript}
 * replays the prompt in effect, so a reopened session shows exactly which prompt each request saw.
 */
import { SettleError } from "../errors.js";
import type { AgentMessage } from "../llm/types.js";
import { formatSkillsForPrompt } from "../resources/skills.js";
import type { ContextFile, ResourceLoader, Skill } from "../resources/types.js";
import { normalizePromptGuidelines, normalizePromptSnippet } from "../tools/registry.js";
import type { SystemMessage, SystemPromptSection } from "./messages.js";

/** Built-in section ids, in render order (extra sections go before `cwd`). */
export const SYSTEM_PROMPT_SECTION_IDS = [
	"preamble",
	"tools",
	"guidelines",
	"skills",
	"project_context",
	"addendum",
	"cwd",
	"date",
] as const;

/** Settle's own base prompt, used when there is no custom one. */
export const DEFAULT_SYSTEM_PREAMBLE =
	"You are an expert coding assistant running inside Settle, a coding-agent harness. You help users by reading files, running commands, editing code and writing new files with the tools available to you. Besides the tools listed below, a project may give you other tools; use them when they fit the task.";

/** Tools assumed active when `selectedTools` is not given (pi's defaults). */
const DEFAULT_TOOLS = ["read", "bash", "edit", "write"];

/** Inputs of {@link buildSystemPromptSections}; names mirror pi's `BuildSystemPromptOptions`. */
export interface SystemPromptOptions {
	cwd: string;
	/** Replaces the default preamble (SYSTEM.md). */
	customPrompt?: string;
	/** Active tool names, in order. Default `read, bash, edit, write`. */
	selectedTools?: string[];
	/** One-line snippet per tool name; only tools with a snippet are listed. */
	toolSnippets?: Record<string, string>;
	/** Guideline bullets from the active tools (trimmed, de-duplicated, empty ones dropped). */
	promptGuidelines?: string[];
	/** Appended prompt text(s) (APPEND_SYSTEM.md), joined by blank lines. */
	appendSystemPrompt?: string | string[];
	contextFiles?: ContextFile[];
	skills?: Skill[];
	/** Extra named sections (e.g. from an extension). Ids: lowercase letters, digits, `_`; not a built-in id. */
	sections?: Record<string, string>;
	/** The clock for the `date` section (a Date or a function returning one). Default: now. */
	now?: Date | (() => Date);
	/** Include the `date` section (default true). */
	includeDate?: boolean;
}

/** What the prompt needs to know about an active tool. */
export interface ToolPromptInfo {
	name: string;
	promptSnippet?: string;
	promptGuidelines?: string[];
}

/**
 * Prompt options from a resource loader and the active tools: custom base
 * prompt, appended prompts, skills, context files, and each tool's snippet and guidelines.
 * @example
 * ```ts
 * const activeTools = createAllToolDefinitions(cwd).read; // or any { name, promptSnippet?, promptGuidelines? }
 * const options = systemPromptOptionsFromResources({ cwd, resources: resourceLoader, tools: [activeTools] });
 * const sections = buildSystemPromptSections(options);
 * ```
 */
export function systemPromptOptionsFromResources(input: {
	cwd: string;
	resources: Pick<ResourceLoader, "getSystemPrompt" | "getAppendSystemPrompt" | "getSkills" | "getAgentsFiles">;
	tools: readonly ToolPromptInfo[];
	sections?: Record<string, string>;
	now?: Date | (() => Date);
}): SystemPromptOptions {
	const toolSnippets: Record<string, string> = {};
	const guidelines: string[] = [];
	for (const tool of input.tools) {
		const snippet = normalizePromptSnippet(tool.promptSnippet);
		if (snippet) toolSnippets[tool.name] = snippet;
		guidelines.push(...(tool.promptGuidelines ?? []));
	}
	const customPrompt = input.resources.getSystemPrompt();
	// As pi: one string, absent when nothing is appended. Extensions written for pi test it for
	// truthiness (`if (options.appendSystemPrompt)`), which an empty array would pass.
	const appendSystemPrompt = input.resources
		.getAppendSystemPrompt()
		.map((text) => text.trim())
		.filter(Boolean)
		.join("\n\n");
	return {
		cwd: input.cwd,
		...(customPrompt !== undefined ? { customPrompt } : {}),
		selectedTools: input.tools.map((tool) => tool.name),
		toolSnippets,
		promptGuidelines: normalizePromptGuidelines(guidelines),
		...(appendSystemPrompt ? { appendSystemPrompt } : {}),
		contextFiles: input.resources.getAgentsFiles().agentsFiles,
		skills: input.resources.getSkills().skills,
		...(input.sections ? { sections: input.sections } : {}),
		...(input.now ? { now: input.now } : {}),
	};
}

/**
 * Builds the sections of the system prompt, in render order. Throws `SettleError`
 * INVALID_ARGUMENT for an extra section with an invalid or built-in id.
 * @example
 * ```ts
 * const sections = buildSystemPromptSections({ cwd: "/repo", selectedTools: ["read"], toolSnippets: { read: "Read files" } });
 * renderSystemPrompt(sections); // "You are an expert … \n\n<tools>\n- read: Read files\n</tools>\n\n…"
 * ```
 */
export function buildSystemPromptSections(options: SystemPromptOptions): SystemPromptSection[] {
	const tools = options.selectedTools ?? DEFAULT_TOOLS;
	const sections: SystemPromptSection[] = [];
	const add = (id: string, text: string | undefined) => {
		const trimmed = text?.trim();
		if (trimmed) sections.push({ id, text: trimmed });
	};

	add("preamble", options.customPrompt?.trim() ? options.customPrompt : DEFAULT_SYSTEM_PREAMBLE);
	// "(none)" as pi's: the preamble speaks of "the tools listed below", so an empty list must say so.
	add(
		"tools",
		tools
			.map((name) => [name, normalizePromptSnippet(options.toolSnippets?.[name])] as const)
			.filter(([, snippet]) => snippet !== undefined)
			.map(([name, snippet]) => `- ${name}: ${snippet}`)
			.join("\n") || "(none)",
	);
	add(
		"guidelines",
		guidelinesFor(tools, options.promptGuidelines)
			.map((line) => `- ${line}`)
			.join("\n"),
	);
	if (tools.includes("read")) add("skills", formatSkillsForPrompt(options.skills ?? []));
	const contextFiles = options.contextFiles ?? [];
	if (contextFiles.length > 0) {
		add(
			"project_context",
			[
				"Project-specific instructions and guidelines:",
				...contextFiles.map((file) => `## ${file.path}\n\n${file.content.trimEnd()}`),
			].join("\n\n"),
		);
	}
	const append = Array.isArray(options.appendSystemPrompt)
		? options.appendSystemPrompt
		: [options.appendSystemPrompt ?? ""];
	add(
		"addendum",
		append
			.map((text) => text.trim())
			.filter(Boolean)
			.join("\n\n"),
	);
	for (const id of Object.keys(options.sections ?? {}).sort()) {
		if (!/^[a-z][a-z0-9_]*$/.test(id) || (SYSTEM_PROMPT_SECTION_IDS as readonly string[]).includes(id)) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Invalid system prompt section name "${id}": use lowercase letters, digits and "_", starting with a letter, and not one of ${SYSTEM_PROMPT_SECTION_IDS.join(", ")}.`,
				{ details: { id } },
			);
		}
		add(id, options.sections?.[id]);
	}
	add("cwd", `Current working directory: ${options.cwd.replace(/\\/g, "/")}`);
	if (options.includeDate !== false) add("date", `Current date: ${formatLocalDate(clock(options.now))}`);
	return sections;
}

/**
 * Renders sections: the preamble as is, every other one as `<id>\n…\n</id>`, blank lines between;
 * sections with empty text are left out.
 *
 * @example
 * ```ts
 * renderSystemPrompt([{ id: "preamble", text: "You are helpful." }, { id: "tools", text: "- read: Read files" }]);
 * // "You are helpful.\n\n<tools>\n- read: Read files\n</tools>"
 * ```
 */
export function renderSystemPrompt(sections: readonly SystemPromptSection[]): string {
	return sections
		.filter((section) => section.text !== "")
		.map((section) => (section.id === "preamble" ? section.text : `<${section.id}>\n${section.text}\n</${section.id}>`))
		.join("\n\n");
}

/**
 * The system prompt as one string: `renderSystemPrompt(buildSystemPromptSections(options))`. Throws as
 * {@link buildSystemPromptSections}.
 *
 * @example
 * ```ts
 * const prompt = buildSystemPrompt({ cwd: "/repo", selectedTools: ["read", "bash"], toolSnippets: { read: "Read files" } });
 * ```
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
	return renderSystemPrompt(buildSystemPromptSections(options));
}

/**
 * The `system` message recording a change of prompt sections or active tools, or undefined when
 * nothing changed. Without previous sections it is a `baseline` (all sections, every tool added);
 * otherwise a `patch` carrying only the changed sections (a removed section has empty text) and
 * the tools added / removed. `content` is always the full prompt in effect from this message on,
 * and `tools.active` the full active list.
 * @example
 * ```ts
 * declare const previous: { sections: SystemPromptSection[]; tools: string[] } | undefined; // what the last request saw
 * const next = buildSystemPromptSections(systemPromptOptionsFromResources({ cwd, resources: resourceLoader, tools: [] }));
 * const message = diffSystemPrompt(previous?.sections, next, previous?.tools, ["read", "bash"]);
 * if (message) messages.unshift(message); // persisted like any message
 * ```
 */
export function diffSystemPrompt(
	previousSections: readonly SystemPromptSection[] | undefined,
	nextSections: readonly SystemPromptSection[],
	previousTools: readonly string[] | undefined,
	nextTools: readonly string[],
	options: { timestamp?: number } = {},
): SystemMessage | undefined {
	const timestamp = options.timestamp ?? Date.now();
	const content = renderSystemPrompt(nextSections);
	if (previousSections === undefined) {
		return {
			role: "system",
			kind: "baseline",
			content,
			sections: nextSections.map((section) => ({ ...section })),
			tools: { active: [...nextTools], ...(nextTools.length > 0 ? { added: [...nextTools] } : {}) },
			timestamp,
		};
	}
	const before = new Map(previousSections.map((section) => [section.id, section.text]));
	const after = new Set(nextSections.map((section) => section.id));
	const changed: SystemPromptSection[] = nextSections
		.filter((section) => before.get(section.id) !== section.text)
		.map((section) => ({ ...section }));
	for (const section of previousSections) {
		if (!after.has(section.id)) changed.push({ id: section.id, text: "" });
	}
	const oldTools = previousTools ?? [];
	const toolsChanged =
		oldTools.length !== nextTools.length || oldTools.some((name, index) => name !== nextTools[index]);
	if (changed.length === 0 && !toolsChanged) return undefined;
	const added = nextTools.filter((name) => !oldTools.includes(name));
	const removed = oldTools.filter((name) => !nextTools.includes(name));
	return {
		role: "system",
		kind: "patch",
		content,
		sections: changed,
		tools: {
			active: [...nextTools],
			...(added.length > 0 ? { added } : {}),
			...(removed.length > 0 ? { removed } : {}),
		},
		timestamp,
	};
}

/**
 * The prompt in effect for a live session, kept in memory so each request costs O(sections)
 * whatever the session length: seed it once from the transcript on open, then ask it for the
 * `system` message of each request.
 * @example
 * ```ts
 * const tracker = SystemPromptTracker.fromTranscript(sessionManager.buildSessionContext().messages);
 * // before each request:
 * const options = systemPromptOptionsFromResources({ cwd, resources: resourceLoader, tools: [] });
 * const message = tracker.next(buildSystemPromptSections(options), ["read", "bash"]);
 * if (message) messages.unshift(message); // persist it with the request's messages
 * ```
 */
export class SystemPromptTracker {
	private sections: SystemPromptSection[] | undefined;
	private tools: string[] | undefined;

	private constructor(sections: SystemPromptSection[] | undefined, tools: string[] | undefined) {
		this.sections = sections;
		this.tools = tools;
	}

	/** Starts from the prompt a transcript leaves in effect (none: the first change is a baseline). */
	static fromTranscript(messages: readonly AgentMessage[]): SystemPromptTracker {
		const replayed = systemPromptFromTranscript(messages);
		return new SystemPromptTracker(replayed?.sections, replayed?.tools);
	}

	/** The `system` message for moving to `sections` / `tools`, or undefined when nothing changed. */
	next(
		sections: readonly SystemPromptSection[],
		tools: readonly string[],
		options: { timestamp?: number } = {},
	): SystemMessage | undefined {
		const message = diffSystemPrompt(this.sections, sections, this.tools, tools, options);
		if (message) {
			this.sections = sections.map((section) => ({ ...section }));
			this.tools = [...tools];
		}
		return message;
	}

	/** The sections and tools in effect (undefined before the first prompt). */
	current(): { sections: SystemPromptSection[]; tools: string[] } | undefined {
		return this.sections
			? { sections: this.sections.map((section) => ({ ...section })), tools: [...(this.tools ?? [])] }
			: undefined;
	}
}

/** The prompt in effect after a transcript's last `system` message. */
export interface TranscriptSystemPrompt {
	/** The full prompt text (the last system message's `content`). */
	prompt: string;
	/** The sections in effect (baseline + patches); [] when the messages carry none. */
	sections: SystemPromptSection[];
	/** Active tool names recorded by the last system message that recorded any. */
	tools: string[] | undefined;
	/** The last system message. */
	message: SystemMessage;
}

/**
 * Replays the system messages of a transcript: the prompt, sections and tools in effect at its
 * end, or undefined when it has no system message. Reads backwards to the last baseline only,
 * but that can be the whole transcript: call it when a session is opened (or use
 * {@link SystemPromptTracker}), not per request. Must not throw.
 * @example
 * ```ts
 * const effective = systemPromptFromTranscript(sessionManager.buildSessionContext().messages);
 * console.log(effective?.prompt ?? "(no prompt recorded yet)");
 * ```
 */
export function systemPromptFromTranscript(messages: readonly AgentMessage[]): TranscriptSystemPrompt | undefined {
	let last = -1;
	for (let index = messages.length - 1; index >= 0; index--) {
		if (messages[index]!.role === "system") {
			last = index;
			break;
		}
	}
	if (last === -1) return undefined;
	let start = last;
	for (; start >= 0; start--) {
		const message = messages[start]!;
		if (message.role === "system" && (message as SystemMessage).kind !== "patch") break;
	}
	let sections = new Map<string, string>();
	let tools: string[] | undefined;
	for (let index = Math.max(start, 0); index <= last; index++) {
		const message = messages[index]!;
		if (message.role !== "system") continue;
		const system = message as SystemMessage;
		if (system.kind !== "patch") sections = new Map();
		for (const section of system.sections ?? []) {
			if (section.text === "") sections.delete(section.id);
			else sections.set(section.id, section.text);
		}
		if (system.tools) tools = [...system.tools.active];
	}
	// A baseline without a tool record (a content-only message) keeps the tools recorded before it.
	for (let index = start - 1; tools === undefined && index >= 0; index--) {
		const message = messages[index]!;
		if (message.role === "system" && (message as SystemMessage).tools)
			tools = [...(message as SystemMessage).tools!.active];
	}
	return {
		prompt: (messages[last] as SystemMessage).content,
		sections: orderSections([...sections].map(([id, text]) => ({ id, text }))),
		tools,
		message: messages[last] as SystemMessage,
	};
}

/** Sorts sections into render order: built-ins in their order, extra ids by id before `cwd`. */
function orderSections(sections: SystemPromptSection[]): SystemPromptSection[] {
	const rank = (id: string) => {
		const index = (SYSTEM_PROMPT_SECTION_IDS as readonly string[]).indexOf(id);
		if (index !== -1) return index < SYSTEM_PROMPT_SECTION_IDS.indexOf("cwd") ? index : index + 1;
		return SYSTEM_PROMPT_SECTION_IDS.indexOf("cwd");
	};
	return sections.sort((a, b) => rank(a.id) - rank(b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function guidelinesFor(tools: readonly string[], extra: readonly string[] | undefined): string[] {
	const guidelines: string[] = [];
	const has = (name: string) => tools.includes(name);
	const explorers = has("grep") || has("find") || has("ls");
	if (has("bash") && !explorers) guidelines.push("Use bash for file operations like ls, rg, find");
	else if (has("bash") && explorers) {
		guidelines.push("Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)");
	}
	guidelines.push(...normalizePromptGuidelines(extra));
	guidelines.push("Be concise in your responses", "Show file paths clearly when working with files");
	return normalizePromptGuidelines(guidelines);
}

function clock(now: SystemPromptOptions["now"]): Date {
	if (now === undefined) return new Date();
	return typeof now === "function" ? now() : now;
}

function formatLocalDate(date: Date): string {
	const month = String(date.getMonth() + 1).padStart(2, "0");
	const day = String(date.getDate()).padStart(2, "0");
	return `${date.getFullYear()}-${month}-${day}`;
}
