/**
 * A harness for testing extensions without a model or a session: it loads factories into a real
 * {@link ExtensionRunner}, binds recorded actions backed by a small in-memory state, and offers
 * shortcuts for the common interactions (commands, input, tool calls through the hooks).
 */
import { randomUUID } from "node:crypto";
import type { AgentToolResult } from "../agent/types.js";
import { errorMessage } from "../errors.js";
import type { ImageContent, Model, TextContent, ThinkingLevel, ToolCall } from "../llm/types.js";
import { rewrittenArgumentsProblem, validateToolArguments } from "../llm/validation.js";
import type { CustomEntry, LabelEntry, SessionEntry, SessionInfoEntry } from "../store/entries.js";
import { createAllToolDefinitions, defaultActiveToolNames } from "../tools/index.js";
import { describeTools, type MergedToolRegistry, mergeToolRegistry } from "../tools/registry.js";
import type { AnyToolDefinition } from "../tools/types.js";
import type { ExtensionFlagInput } from "./flags.js";
import type { ExtensionRecord } from "./loader.js";
import { createExtensionRunner, type ExtensionRunner } from "./runner.js";
import type {
	CustomMessageInput,
	ExtensionContextActions,
	ExtensionDiagnostic,
	ExtensionError,
	ExtensionFactory,
	ExtensionLoadError,
	ExtensionModelRegistry,
	ExtensionRuntimeActions,
	InputEventResult,
	InputSource,
	ReadonlySessionManager,
	SendMessageOptions,
	SendUserMessageOptions,
	SessionStartEvent,
	SessionTreeNodeView,
	ToolCallEventResult,
} from "./types.js";
import { createHeadlessUIContext, type HeadlessUIContext } from "./ui.js";

/** One action an extension performed through `pi.*` or `ctx.*`, in call order. */
export type RecordedAction =
	| { action: "sendMessage"; message: CustomMessageInput; options?: SendMessageOptions }
	| { action: "sendUserMessage"; content: string | (TextContent | ImageContent)[]; options?: SendUserMessageOptions }
	| { action: "appendEntry"; customType: string; data: unknown }
	| { action: "setSessionName"; name: string }
	| { action: "setLabel"; entryId: string; label: string | undefined }
	| { action: "setActiveTools"; toolNames: string[] }
	| { action: "refreshTools" }
	| { action: "setModel"; model: Model; accepted: boolean }
	| { action: "setThinkingLevel"; level: ThinkingLevel }
	| { action: "abort" }
	| { action: "shutdown" }
	| { action: "compact"; customInstructions?: string };

/** Options of {@link createExtensionHarness}: the extensions to load and the session they see. */
export interface ExtensionHarnessOptions {
	/** Inline factories (`<inline:N>`), run after `extensions`. */
	factories?: readonly ExtensionFactory[];
	/** Records from the resource loader (`loadExtensions(...).extensions`). */
	extensions?: readonly ExtensionRecord[];
	/** Default `process.cwd()`. */
	cwd?: string;
	model?: Model;
	/** Models `pi.setModel` accepts (default: every model). */
	hasAuth?: (model: Model) => boolean;
	thinkingLevel?: ThinkingLevel;
	/** Built-in tool definitions (default: Settle's seven built-ins for `cwd`). */
	builtinTools?: readonly AnyToolDefinition[];
	/** Initially active tool names (default read, bash, edit, write, plus every extension tool). */
	activeTools?: readonly string[];
	/** CLI flag values, validated like the CLI does (see `flagDiagnostics`). */
	flags?: ExtensionFlagInput;
	systemPrompt?: string;
	modelRegistry?: ExtensionModelRegistry;
	/** Starting value of `ctx.isIdle()` (default true); change it later with `harness.idle`. */
	idle?: boolean;
}

/** Outcome of {@link ExtensionHarness.callTool}. */
export interface HarnessToolCall {
	/** The `tool_call` decision (undefined when no handler answered). */
	decision: ToolCallEventResult | undefined;
	blocked: boolean;
	/** Arguments the tool ran with (after handlers mutated them). */
	input: Record<string, unknown>;
	/** The final result (after `tool_result` overrides), or the blocked / failed error result. */
	result: AgentToolResult;
	isError: boolean;
}

/**
 * A runner plus recorded session state. Everything extensions do through actions is appended to
 * {@link calls} and applied to the harness state (session name, entries, labels, active tools,
 * model, thinking level). The harness emits no events on its own: call `start()`, `command()`,
 * `input()`, `callTool()` or `runner.emit*` to drive the extension.
 *
 * @example
 * ```ts
 * const deployExtension: ExtensionFactory = (pi) => {
 *   pi.registerCommand("deploy", { description: "Deploy", handler: async (args) => pi.sendUserMessage(`Deploy to ${args}`) });
 * };
 * const harness = await createExtensionHarness({ factories: [deployExtension] });
 * await harness.start();
 * const handled = await harness.command("/deploy staging"); // false when no extension registered /deploy
 * console.log(harness.calls.map((call) => call.action)); // what the extension did, e.g. ["sendUserMessage"]
 * ```
 */
export class ExtensionHarness {
	readonly runner: ExtensionRunner;
	readonly ui: HeadlessUIContext;
	/** Handler and action errors reported through `onError`. */
	readonly errors: ExtensionError[] = [];
	readonly loadErrors: ExtensionLoadError[];
	readonly flagDiagnostics: ExtensionDiagnostic[];
	readonly calls: RecordedAction[] = [];
	/** Session entries the extensions appended (`custom`, `label`, `session_info`). */
	readonly entries: SessionEntry[];
	readonly sessionManager: ReadonlySessionManager;
	readonly cwd: string;
	idle: boolean;
	pendingMessages = false;
	model: Model | undefined;
	thinkingLevel: ThinkingLevel;
	systemPrompt: string;
	private registry: MergedToolRegistry;
	private readonly builtinTools: readonly AnyToolDefinition[];
	private readonly hasAuth: (model: Model) => boolean;

	/** Use {@link createExtensionHarness}. */
	constructor(
		parts: {
			runner: ExtensionRunner;
			ui: HeadlessUIContext;
			loadErrors: ExtensionLoadError[];
			flagDiagnostics: ExtensionDiagnostic[];
			entries: SessionEntry[];
			sessionManager: ReadonlySessionManager;
		},
		options: ExtensionHarnessOptions & { cwd: string },
	) {
		this.runner = parts.runner;
		this.entries = parts.entries;
		this.sessionManager = parts.sessionManager;
		this.ui = parts.ui;
		this.loadErrors = parts.loadErrors;
		this.flagDiagnostics = parts.flagDiagnostics;
		this.cwd = options.cwd;
		this.idle = options.idle ?? true;
		this.model = options.model;
		this.thinkingLevel = options.thinkingLevel ?? "off";
		this.systemPrompt = options.systemPrompt ?? "";
		this.hasAuth = options.hasAuth ?? (() => true);
		this.builtinTools = options.builtinTools ?? Object.values(createAllToolDefinitions(options.cwd));
		this.registry = mergeToolRegistry({
			builtinTools: this.builtinTools,
			extensionTools: this.runner.getAllRegisteredTools(),
			activeToolNames: options.activeTools ? [...options.activeTools] : [...defaultActiveToolNames],
			includeAllExtensionTools: options.activeTools === undefined,
		});
		this.runner.onError((error) => this.errors.push(error));
	}

	/** Session name set through `pi.setSessionName`. */
	get sessionName(): string | undefined {
		return this.sessionManager.getSessionName();
	}

	/** Names of the active tools. */
	get activeTools(): string[] {
		return [...this.registry.activeToolNames];
	}

	/** Notifications extensions sent to `ctx.ui.notify`. */
	get notifications(): HeadlessUIContext["notifications"] {
		return this.ui.notifications;
	}

	/** Emits `session_start` and then `resources_discover`, as a session does at startup. */
	async start(reason: SessionStartEvent["reason"] = "startup"): Promise<void> {
		await this.runner.emit({ type: "session_start", reason });
		await this.runner.emitResourcesDiscover(this.cwd, reason === "reload" ? "reload" : "startup");
	}

	/** Runs `/name args`; resolves false when no extension command has that name. */
	command(text: string): Promise<boolean> {
		return this.runner.dispatchCommand(text);
	}

	/** Sends text through the `input` hook. */
	input(text: string, source: InputSource = "interactive", images?: ImageContent[]): Promise<InputEventResult> {
		return this.runner.emitInput(text, images, source);
	}

	/**
	 * Calls a registered tool the way the agent loop does: `prepareArguments`, schema validation,
	 * the `tool_call` hook (a block, a throwing handler, or arguments a handler left invalid stop
	 * here; ones valid once coerced are coerced), `execute` with the extension
	 * context, then the `tool_result` hook. Never rejects for tool or hook failures: they become
	 * error results, as the model would see them.
	 */
	async callTool(toolName: string, args: Record<string, unknown>, toolCallId = randomUUID()): Promise<HarnessToolCall> {
		const failed = (text: string, input: Record<string, unknown>, decision?: ToolCallEventResult): HarnessToolCall => ({
			decision,
			blocked: decision?.block === true,
			input,
			result: { content: [{ type: "text", text }], details: {} },
			isError: true,
		});
		const registered = this.registry.tools.get(toolName);
		const tool = registered?.definition;
		if (!tool) return failed(`Tool ${toolName} not found`, args);
		let input: Record<string, unknown>;
		let call: ToolCall;
		try {
			const prepared = tool.prepareArguments ? tool.prepareArguments(args) : args;
			call = { type: "toolCall", id: toolCallId, name: toolName, arguments: prepared as ToolCall["arguments"] };
			input = validateToolArguments(tool, call);
		} catch (error) {
			return failed(errorMessage(error), args);
		}
		let decision: ToolCallEventResult | undefined;
		try {
			// Checked after each handler, as in a session: a rewrite the tool cannot take blocks the call.
			decision = await this.runner.emitToolCall({ type: "tool_call", toolName, toolCallId, input }, (rewritten) =>
				rewrittenArgumentsProblem(tool, call, rewritten),
			);
		} catch (error) {
			return { ...failed(errorMessage(error), input), blocked: true };
		}
		if (decision?.block) return failed(decision.reason || "Tool execution was blocked", input, decision);
		let result: AgentToolResult;
		let isError = false;
		try {
			const ctx = this.runner.contextForSource(registered.sourceInfo);
			result = await tool.execute(toolCallId, input, undefined, undefined, ctx);
			isError = result.isError === true;
		} catch (error) {
			result = { content: [{ type: "text", text: errorMessage(error) }], details: {} };
			isError = true;
		}
		const override = await this.runner.emitToolResult({
			type: "tool_result",
			toolName,
			toolCallId,
			input,
			content: result.content,
			details: result.details,
			isError,
		});
		if (override) {
			result = { ...result, content: override.content ?? result.content, details: override.details };
			if (override.usage !== undefined) result.usage = override.usage;
			isError = override.isError ?? isError;
		}
		return { decision, blocked: false, input, result, isError };
	}

	/** Invalidates the runner: captured `pi` / `ctx` objects throw the stale-context error from now on. */
	dispose(): void {
		this.runner.invalidate();
	}

	/** The recorded calls of one action. */
	callsOf<K extends RecordedAction["action"]>(action: K): Extract<RecordedAction, { action: K }>[] {
		return this.calls.filter((call): call is Extract<RecordedAction, { action: K }> => call.action === action);
	}

	private append<T extends SessionEntry>(entry: Omit<T, "id" | "parentId" | "timestamp">): T {
		const full = {
			...entry,
			id: randomUUID().slice(0, 8),
			parentId: this.entries.at(-1)?.id ?? null,
			timestamp: new Date().toISOString(),
		} as T;
		this.entries.push(full);
		return full;
	}

	private refreshRegistry(): void {
		this.registry = mergeToolRegistry({
			builtinTools: this.builtinTools,
			extensionTools: this.runner.getAllRegisteredTools(),
			previousActiveToolNames: this.registry.activeToolNames,
			previousRegistryNames: [...this.registry.tools.keys()],
		});
	}

	/** @internal The actions bound to the runner. */
	runtimeActions(): ExtensionRuntimeActions {
		return {
			sendMessage: (message, options) => {
				this.calls.push(options ? { action: "sendMessage", message, options } : { action: "sendMessage", message });
			},
			sendUserMessage: (content, options) => {
				this.calls.push(
					options ? { action: "sendUserMessage", content, options } : { action: "sendUserMessage", content },
				);
			},
			appendEntry: (customType, data) => {
				this.calls.push({ action: "appendEntry", customType, data });
				this.append<CustomEntry>({ type: "custom", customType, data });
			},
			setSessionName: (name) => {
				this.calls.push({ action: "setSessionName", name });
				this.append<SessionInfoEntry>({ type: "session_info", name });
			},
			getSessionName: () => this.sessionName,
			setLabel: (entryId, label) => {
				this.calls.push({ action: "setLabel", entryId, label });
				this.append<LabelEntry>({ type: "label", targetId: entryId, label });
			},
			getActiveTools: () => this.activeTools,
			getAllTools: () => describeTools(this.registry.tools),
			setActiveTools: (toolNames) => {
				this.calls.push({ action: "setActiveTools", toolNames: [...toolNames] });
				this.registry = {
					tools: this.registry.tools,
					activeToolNames: [...new Set(toolNames)].filter((name) => this.registry.tools.has(name)),
				};
			},
			refreshTools: () => {
				this.calls.push({ action: "refreshTools" });
				this.refreshRegistry();
			},
			getCommands: () => this.runner.getCommandInfos(),
			setModel: async (model) => {
				const accepted = this.hasAuth(model);
				this.calls.push({ action: "setModel", model, accepted });
				if (accepted) this.model = model;
				return accepted;
			},
			getThinkingLevel: () => this.thinkingLevel,
			setThinkingLevel: (level) => {
				this.calls.push({ action: "setThinkingLevel", level });
				this.thinkingLevel = level;
			},
		};
	}

	/** @internal The context actions bound to the runner. */
	contextActions(): ExtensionContextActions {
		return {
			getModel: () => this.model,
			isIdle: () => this.idle,
			getSignal: () => undefined,
			abort: () => {
				this.calls.push({ action: "abort" });
			},
			hasPendingMessages: () => this.pendingMessages,
			shutdown: () => {
				this.calls.push({ action: "shutdown" });
			},
			getContextUsage: () => undefined,
			compact: async (customInstructions) => {
				this.calls.push(
					customInstructions === undefined ? { action: "compact" } : { action: "compact", customInstructions },
				);
				return { summary: "", firstKeptEntryId: this.entries[0]?.id ?? "", tokensBefore: 0, details: {} };
			},
			getSystemPrompt: () => this.systemPrompt,
			isProjectTrusted: () => true,
		};
	}
}

/** An in-memory read-only session over `entries` (a simple chain: each entry's parent is the previous one). */
function createSessionView(cwd: string, entries: SessionEntry[]): ReadonlySessionManager {
	const sessionId = randomUUID();
	return {
		getCwd: () => cwd,
		getSessionDir: () => "",
		getSessionId: () => sessionId,
		getSessionFile: () => undefined,
		getLeafId: () => entries.at(-1)?.id ?? null,
		getLeafEntry: () => entries.at(-1),
		getEntry: (id) => entries.find((entry) => entry.id === id),
		getLabel: (id) => {
			let label: string | undefined;
			for (const entry of entries) if (entry.type === "label" && entry.targetId === id) label = entry.label;
			return label;
		},
		getBranch: () => [...entries],
		getHeader: () => ({ type: "session", version: 3, id: sessionId, timestamp: new Date(0).toISOString(), cwd }),
		getEntries: () => [...entries],
		getTree: () => {
			const nodes = entries.map((entry) => ({ entry, children: [] as SessionTreeNodeView[] }));
			for (let index = 1; index < nodes.length; index++) nodes[index - 1]!.children.push(nodes[index]!);
			return nodes.slice(0, 1);
		},
		getSessionName: () => {
			for (let index = entries.length - 1; index >= 0; index--) {
				const entry = entries[index]!;
				if (entry.type === "session_info") return (entry as SessionInfoEntry).name;
			}
			return undefined;
		},
	};
}

/**
 * Loads extensions into a runner bound to recorded actions.
 *
 * @example
 * ```ts
 * import { createExtensionHarness } from "settle/testing";
 * import type { ExtensionFactory } from "settle";
 *
 * const permissionGate: ExtensionFactory = (pi) => {
 *   pi.on("tool_call", (event) => (event.toolName === "bash" ? { block: true, reason: "bash needs approval" } : undefined));
 * };
 * const harness = await createExtensionHarness({ factories: [permissionGate] });
 * const call = await harness.callTool("bash", { command: "rm -rf /tmp/x" });
 * console.log(call.blocked); // true
 * ```
 */
export async function createExtensionHarness(options: ExtensionHarnessOptions = {}): Promise<ExtensionHarness> {
	const cwd = options.cwd ?? process.cwd();
	const ui = createHeadlessUIContext();
	const entries: SessionEntry[] = [];
	const sessionManager = createSessionView(cwd, entries);
	const loaded = await createExtensionRunner(options.extensions ?? [], {
		cwd,
		ui,
		sessionManager,
		inlineFactories: options.factories ?? [],
		...(options.modelRegistry ? { modelRegistry: options.modelRegistry } : {}),
	});
	const flagDiagnostics = options.flags ? loaded.runner.applyFlagValues(options.flags) : [];
	const harness = new ExtensionHarness(
		{ runner: loaded.runner, ui, loadErrors: loaded.errors, flagDiagnostics, entries, sessionManager },
		{ ...options, cwd },
	);
	loaded.runner.bindCore(harness.runtimeActions(), harness.contextActions());
	return harness;
}
