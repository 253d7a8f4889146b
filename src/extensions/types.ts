/**
 * Extension system types. Names and shapes mirror pi 0.73's
 * `core/extensions/types.ts`, so a pi extension that uses no terminal UI runs unchanged: its
 * `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent"` is erased at load time.
 *
 * Newer events of the document version are included (`agent_before_settle`, `agent_settled`,
 * `turn_end` as a boundary with drafts, `context_with_system`, `before_provider_headers`,
 * `session_compact_failed`, `session_info_changed`, …). Terminal UI parts (components, themes,
 * editors) are typed loosely: Settle has no terminal UI, and a headless UI context answers them
 * with pi's print-mode defaults.
 */
import type { AgentToolResult, AgentToolUpdateCallback, ToolExecutionMode } from "../agent/types.js";
import type { CompactionPreparation, CompactionResult } from "../compaction/types.js";
import type { ProviderAuthStatus } from "../llm/model-runtime.js";
import type {
	AgentMessage,
	AssistantMessage,
	AssistantMessageEvent,
	ImageContent,
	Message,
	Model,
	TextContent,
	ThinkingLevel,
	ToolResultMessage,
	Usage,
} from "../llm/types.js";
import type { ModelRoute, ModelRouteRequest, VirtualModelDefinition } from "../llm/virtual-models.js";
import type { ResourceDiagnostic } from "../resources/types.js";
import type { CacheWarmingDecisionEvent, CacheWarmingDecisionEventResult } from "../session/cache-warmer.js";
import type { CustomMessage } from "../session/messages.js";
import type { SystemPromptOptions } from "../session/system-prompt.js";
import type { BranchSummaryEntry, CompactionEntry, SessionEntry, SessionHeader } from "../store/entries.js";
import type { BashToolDetails, BashToolInput } from "../tools/bash.js";
import type { EditToolDetails, EditToolInput } from "../tools/edit.js";
import type { FindToolDetails, FindToolInput } from "../tools/find.js";
import type { GrepToolDetails, GrepToolInput } from "../tools/grep.js";
import type { LsToolDetails, LsToolInput } from "../tools/ls.js";
import type { ReadToolDetails, ReadToolInput } from "../tools/read.js";
import type { RegisteredTool, ToolInfo } from "../tools/registry.js";
import type { BashOperations } from "../tools/shell.js";
import type { SourceInfo, ToolDefinition } from "../tools/types.js";
import type { WriteToolInput } from "../tools/write.js";

export type { AgentToolResult, AgentToolUpdateCallback, RegisteredTool, ToolExecutionMode };

// ---------------------------------------------------------------------------------------------
// UI (headless in Settle)

/** Options for UI dialogs. */
export interface ExtensionUIDialogOptions {
	/** Dismisses the dialog when aborted. */
	signal?: AbortSignal;
	/** Milliseconds before the dialog dismisses itself. */
	timeout?: number;
}

/** Where a widget is shown (recorded only). */
export type WidgetPlacement = "aboveEditor" | "belowEditor";

/** Options of `ctx.ui.setWidget`: where the widget is shown (`aboveEditor` or `belowEditor`). */
export interface ExtensionWidgetOptions {
	placement?: WidgetPlacement;
}

/** Raw terminal input listener (never called headless). */
export type TerminalInputHandler = (data: string) => { consume?: boolean; data?: string } | undefined;

/** Working indicator configuration (recorded only). */
export interface WorkingIndicatorOptions {
	frames?: string[];
	intervalMs?: number;
}

/** A terminal component a UI would render. Settle has no terminal UI: typed loosely. */
// biome-ignore lint/suspicious/noExplicitAny: terminal components belong to a UI library
export type UIComponent = any;
/** A component factory (terminal UIs only). */
// biome-ignore lint/suspicious/noExplicitAny: terminal components belong to a UI library
export type UIComponentFactory = (...args: any[]) => UIComponent;

/**
 * Colours and styles for terminal text. The headless theme returns text unchanged, so extensions
 * that style their notifications still work.
 */
export interface ExtensionTheme {
	fg(color: string, text: string): string;
	bg(color: string, text: string): string;
	bold(text: string): string;
	italic(text: string): string;
	underline(text: string): string;
	strikethrough(text: string): string;
	inverse(text: string): string;
	readonly name?: string;
}

/**
 * What an extension may ask of the user interface (`ctx.ui`). Each host mode provides one; without
 * a terminal UI (Settle's print, json and SDK use) {@link createHeadlessUIContext} answers with
 * pi's print-mode defaults: dialogs resolve to `undefined` (`confirm` to `false`), `notify` is
 * recorded and forwarded, everything else is recorded or ignored. In a session whose host bound no
 * UI, each notification and dialog is also a session event (`extension_notify`, `extension_dialog`).
 */
export interface ExtensionUIContext {
	select(title: string, options: string[], opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
	confirm(title: string, message: string, opts?: ExtensionUIDialogOptions): Promise<boolean>;
	input(title: string, placeholder?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
	notify(message: string, type?: NotificationType): void;
	onTerminalInput(handler: TerminalInputHandler): () => void;
	setStatus(key: string, text: string | undefined): void;
	setWorkingMessage(message?: string): void;
	setWorkingVisible(visible: boolean): void;
	setWorkingIndicator(options?: WorkingIndicatorOptions): void;
	setHiddenThinkingLabel(label?: string): void;
	setWidget(key: string, content: string[] | UIComponentFactory | undefined, options?: ExtensionWidgetOptions): void;
	setFooter(factory: UIComponentFactory | undefined): void;
	setHeader(factory: UIComponentFactory | undefined): void;
	setTitle(title: string): void;
	custom<T>(factory: UIComponentFactory, options?: Record<string, unknown>): Promise<T>;
	pasteToEditor(text: string): void;
	setEditorText(text: string): void;
	getEditorText(): string;
	/** `opts` is Settle's addition (pi's editor takes none): a timeout or an aborted signal ends it with `undefined`. */
	editor(title: string, prefill?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
	addAutocompleteProvider(factory: UIComponentFactory): void;
	setEditorComponent(factory: UIComponentFactory | undefined): void;
	getEditorComponent(): UIComponentFactory | undefined;
	readonly theme: ExtensionTheme;
	getAllThemes(): { name: string; path: string | undefined }[];
	getTheme(name: string): ExtensionTheme | undefined;
	setTheme(theme: string | ExtensionTheme): { success: boolean; error?: string };
	getToolsExpanded(): boolean;
	setToolsExpanded(expanded: boolean): void;
}

/** Severity of a `ctx.ui.notify` message. */
export type NotificationType = "info" | "warning" | "error";

/** How the host runs: `print` (default), `json`, `rpc`, or a terminal UI (`tui`). */
export type ExtensionMode = "tui" | "rpc" | "json" | "print";

// ---------------------------------------------------------------------------------------------
// Context (`ctx`)

/** How full the context window is (`ctx.getContextUsage()`); `percent` is null when `tokens` is. */
export interface ContextUsage {
	/** Estimated context tokens, or null when unknown (right after a compaction). */
	tokens: number | null;
	contextWindow: number;
	percent: number | null;
}

/** Options of `ctx.compact()`: it is fire-and-forget; the callbacks report the outcome. */
export interface CompactOptions {
	customInstructions?: string;
	onComplete?: (result: CompactionResult<unknown>) => void;
	onError?: (error: Error) => void;
}

/** A model the user scoped the session to (`--models`), with its thinking level. */
export interface ScopedModel {
	model: Model;
	thinkingLevel?: ThinkingLevel;
}

/** A node of the session tree (the store's `getTree()` shape). */
export interface SessionTreeNodeView {
	entry: SessionEntry;
	children: SessionTreeNodeView[];
	label?: string;
	labelTimestamp?: string;
}

/**
 * The read-only part of the SessionManager an extension sees as `ctx.sessionManager` (pi's
 * `ReadonlySessionManager`). The runner exposes only these methods, bound to the real manager.
 */
export interface ReadonlySessionManager {
	getCwd(): string;
	getSessionDir(): string;
	getSessionId(): string;
	getSessionFile(): string | undefined;
	getLeafId(): string | null;
	getLeafEntry(): SessionEntry | undefined;
	getEntry(id: string): SessionEntry | undefined;
	getLabel(id: string): string | undefined;
	getBranch(fromId?: string): SessionEntry[];
	getHeader(): SessionHeader | null;
	getEntries(): SessionEntry[];
	getTree(): SessionTreeNodeView[];
	getSessionName(): string | undefined;
}

/** The session manager `newSession({ setup })` hands out: readable, and it can take messages. */
export interface SetupSessionManager extends ReadonlySessionManager {
	appendMessage(message: AgentMessage): string;
}

/**
 * What an extension may ask of the model registry (`ctx.modelRegistry`). Shaped after pi's
 * `ModelRegistry`; the host passes its registry (any object with these methods) to the runner.
 */
export interface ExtensionModelRegistry {
	find(provider: string, modelId: string): Model | undefined;
	getAll(): Model[];
	getAvailable(): Model[];
	hasConfiguredAuth(model: Model): boolean;
	getApiKeyAndHeaders?(
		model: Model,
	): Promise<{ ok: true; apiKey?: string; headers?: Record<string, string> } | { ok: false; error: string }>;
	/** The API key configured for `provider`, if any (pi's `getApiKeyForProvider`). */
	getApiKeyForProvider?(provider: string): Promise<string | undefined>;
	/** Whether `model`'s provider authenticates with OAuth (a subscription) rather than a key. */
	isUsingOAuth?(model: Model): boolean;
	registerProvider?(name: string, config: ProviderConfig): void;
	unregisterProvider?(name: string): void;
	/** Registers (or replaces) a virtual model (pi 1.6); the runtime must accept registrations. */
	registerVirtualModel?(definition: VirtualModelDefinition): void;
	unregisterVirtualModel?(provider: string, id: string): void;
	/** Reads `<agentDir>/models.json` again and applies it (as pi's); extensions' providers stay. */
	refresh?(): void;
	/** Why loading models failed (pi: a broken models.json), or undefined. */
	getError?(): string | undefined;
	/**
	 * Where `provider`'s credentials come from, without resolving them (pi's `getProviderAuthStatus`):
	 * `configured` only for a key stored in `auth.json`; environment and runtime keys name their `source`.
	 */
	getProviderAuthStatus?(provider: string): ProviderAuthStatus;
	/** The provider's display name: a registered provider's `name`, pi's names of catalogue providers, else the id. */
	getProviderDisplayName?(provider: string): string;
}

/**
 * Context passed to event handlers, tools and (extended) command handlers. Every member reads
 * the session's current value at the time of use, except `signal` in `turn_end`,
 * `agent_before_settle`, `tool_call` and `tool_result` handlers (their call's operation's: see
 * `signal`). After the runner is
 * invalidated (session replacement, reload, dispose) every member throws
 * {@link STALE_EXTENSION_CONTEXT_MESSAGE}.
 */
export interface ExtensionContext {
	ui: ExtensionUIContext;
	/** How the host runs (default `print`). */
	mode: ExtensionMode;
	/** Whether dialogs reach a user. False headless: `confirm` answers false, `select` undefined. */
	hasUI: boolean;
	cwd: string;
	sessionManager: ReadonlySessionManager;
	modelRegistry: ExtensionModelRegistry;
	model: Model | undefined;
	scopedModels: ScopedModel[];
	thinkingLevel: ThinkingLevel;
	/**
	 * True when no operation runs and nothing is compacting: the session's `isIdle`, so a prompt sent
	 * when it is true is not refused as busy (pi 0.73.1 says true during a compaction).
	 */
	isIdle(): boolean;
	/** Whether the project's own code and settings are trusted. */
	isProjectTrusted(): boolean;
	/**
	 * Abort signal of the running operation; undefined when idle. Inside `agent_settled` handlers
	 * (the run is over) it is the dispatch's own signal, aborted when `abort()` is called or the
	 * session is disposed or replaced while they run, so work a handler holds can stop. Inside
	 * `turn_end`, `agent_before_settle`, `tool_call` and `tool_result` handlers it is the signal of
	 * the handler's own operation for the whole call: a handler still running after the abort's
	 * grace (left behind) reads it aborted, never the next run's, and from then on its `ui`,
	 * `abort`, `shutdown`, `compact` and its `pi`'s session actions (`appendEntry`, `sendMessage`,
	 * `sendUserMessage`, the setters) throw `STALE_CONTEXT`: they would act in a later operation
	 * (not when the runtime's teardown left it behind: no later operation follows).
	 *
	 * @example
	 * ```ts
	 * import type { ExtensionAPI } from "settle";
	 * export default function (pi: ExtensionAPI) {
	 *   pi.on("agent_before_settle", async (_event, ctx) => {
	 *     const review = await fetch("http://localhost:8080/review", { signal: ctx.signal });
	 *     if (!ctx.signal?.aborted) pi.appendEntry("review", await review.json());
	 *   });
	 * }
	 * ```
	 */
	signal: AbortSignal | undefined;
	abort(): void;
	hasPendingMessages(): boolean;
	shutdown(): void;
	getContextUsage(): ContextUsage | undefined;
	/**
	 * Starts a compaction and returns at once; the outcome goes to `onComplete` / `onError`. While
	 * an operation runs (a `turn_end` handler, a tool) it does not abort it, unlike pi's: it starts
	 * once the operation settles (UniPi#30); `abort()` / `abortCompaction()` cancel it meanwhile.
	 * From an extension command (or an `input` handler) it runs at once, inside the command's own
	 * prompt, which resolves after it: the command may wait for `onComplete`. A manual compaction
	 * already running or waiting to start is shared when this one gives no instructions or the same
	 * (one summary, both callers get it); with other instructions `onError` gets a `BUSY` error (pi#4203).
	 *
	 * @example
	 * ```ts
	 * import type { ExtensionAPI } from "settle";
	 * export default function (pi: ExtensionAPI) {
	 *   pi.on("turn_end", (_event, ctx) => {
	 *     if ((ctx.getContextUsage()?.percent ?? 0) > 80) ctx.compact({ onError: (e) => console.error(e.message) });
	 *   });
	 * }
	 * ```
	 */
	compact(options?: CompactOptions): void;
	/** The effective system prompt (inside `before_agent_start`: the prompt as chained so far). */
	getSystemPrompt(): string;
}

/** Options of `ctx.newSession`: the parent file to record, a setup step on the new file, and work to run in the new session. */
export interface NewSessionOptions {
	parentSession?: string;
	setup?: (sessionManager: SetupSessionManager) => Promise<void>;
	withSession?: (ctx: ReplacedSessionContext) => Promise<void>;
}

/** Options of `ctx.fork`: fork before or at the entry, and work to run in the forked session. */
export interface ForkOptions {
	position?: "before" | "at";
	withSession?: (ctx: ReplacedSessionContext) => Promise<void>;
}

/** Options of `ctx.navigateTree`: whether to summarize the abandoned branch (and how), and a label for the target. */
export interface NavigateTreeOptions {
	summarize?: boolean;
	customInstructions?: string;
	replaceInstructions?: boolean;
	label?: string;
}

/** Options of `ctx.switchSession`: work to run in the session switched to. */
export interface SwitchSessionOptions {
	withSession?: (ctx: ReplacedSessionContext) => Promise<void>;
}

/** Context for command handlers: session control that only user-initiated commands may use. */
export interface ExtensionCommandContext extends ExtensionContext {
	/** Options the current system prompt was built from. */
	getSystemPromptOptions(): SystemPromptOptions | undefined;
	waitForIdle(): Promise<void>;
	newSession(options?: NewSessionOptions): Promise<{ cancelled: boolean }>;
	fork(entryId: string, options?: ForkOptions): Promise<{ cancelled: boolean }>;
	navigateTree(targetId: string, options?: NavigateTreeOptions): Promise<{ cancelled: boolean }>;
	switchSession(sessionPath: string, options?: SwitchSessionOptions): Promise<{ cancelled: boolean }>;
	reload(): Promise<void>;
}

/**
 * The fresh context `withSession` callbacks get after a replacement: message sends are awaitable.
 * Given to the callback of an extension's `ctx.newSession` / `ctx.fork` / `ctx.switchSession`, it is
 * that extension's: `ctx.ui`'s notifications and dialogs name it (`extensionPath`), as its own ctx's do.
 */
export interface ReplacedSessionContext extends ExtensionCommandContext {
	sendMessage<T = unknown>(message: CustomMessageInput<T>, options?: SendMessageOptions): Promise<void>;
	sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Tools, commands, flags, renderers

/**
 * A tool an extension registers: Settle's {@link ToolDefinition} whose `execute` receives the
 * extension context. pi's terminal renderers (`renderCall`, `renderResult`, `renderShell`) are
 * accepted and ignored.
 */
export type ExtensionToolDefinition<TParameters extends object = object, TDetails = unknown> = ToolDefinition<
	TParameters,
	TDetails,
	ExtensionContext
> & {
	renderCall?: UIComponentFactory;
	renderResult?: UIComponentFactory;
	renderShell?: "default" | "self";
};

/** A slash command as `pi.getCommands()` lists it. */
export interface SlashCommandInfo {
	name: string;
	description?: string;
	/** A prompt template's `argument-hint` (`<file> [focus]`): what to type after the name. */
	argumentHint?: string;
	source: "extension" | "prompt" | "skill";
	sourceInfo: SourceInfo;
}

/** An autocomplete suggestion for command arguments. */
export interface AutocompleteItem {
	value: string;
	label: string;
	description?: string;
}

/** A slash command registered with `pi.registerCommand`, as the runner keeps it. */
export interface RegisteredCommand {
	name: string;
	sourceInfo: SourceInfo;
	description?: string;
	getArgumentCompletions?: (argumentPrefix: string) => AutocompleteItem[] | null | Promise<AutocompleteItem[] | null>;
	handler: (args: string, ctx: ExtensionCommandContext) => Promise<void> | void;
}

/** A command with the name it is invoked by (`name`, or `name:N` when several extensions share it). */
export interface ResolvedCommand extends RegisteredCommand {
	invocationName: string;
}

/** A CLI flag registered with `pi.registerFlag` (`--name`), with the extension that owns it. */
export interface ExtensionFlag {
	name: string;
	description?: string;
	type: "boolean" | "string";
	default?: boolean | string;
	extensionPath: string;
}

/** A keyboard shortcut registered with `pi.registerShortcut`, with the extension that owns it. */
export interface ExtensionShortcut {
	shortcut: string;
	description?: string;
	handler: (ctx: ExtensionContext) => Promise<void> | void;
	extensionPath: string;
}

/** Passed to a message renderer: whether the message is shown expanded. */
export interface MessageRenderOptions {
	expanded: boolean;
}

/** Renders a custom message in a terminal UI. Recorded only: Settle never calls it. */
export type MessageRenderer<T = unknown> = (
	message: CustomMessage<T>,
	options: MessageRenderOptions,
	theme: ExtensionTheme,
) => UIComponent | undefined;

/** A virtual model as `pi.registerVirtualModel` takes it: `route` also gets the extension context. */
export interface ExtensionVirtualModel<TState = unknown> extends Omit<VirtualModelDefinition<TState>, "route"> {
	route(request: ModelRouteRequest<TState>, ctx: ExtensionContext): ModelRoute<TState> | Promise<ModelRoute<TState>>;
}

/** What `pi.registerProvider` takes (pi's `ProviderConfig`); applied by the host's model registry. */
export interface ProviderConfig {
	name?: string;
	baseUrl?: string;
	apiKey?: string;
	api?: string;
	streamSimple?: (...args: never[]) => unknown;
	headers?: Record<string, string>;
	authHeader?: boolean;
	/**
	 * Compatibility flags for every model of `models` (pi#5349; later pi's provider-level `compat`):
	 * a model's own `compat` wins field by field, as in models.json.
	 */
	compat?: Model["compat"];
	models?: Array<Partial<Model> & { id: string; name: string }>;
	oauth?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Actions: the seam between the runner and the session that binds it

/** A custom message as extensions send it (role and timestamp are added by the session). */
export type CustomMessageInput<T = unknown> = Pick<CustomMessage<T>, "customType" | "content" | "display" | "details">;

/** Options of `pi.sendMessage`: start a turn, and how to queue the message while the agent streams. */
export interface SendMessageOptions {
	triggerTurn?: boolean;
	deliverAs?: "steer" | "followUp" | "nextTurn";
}

/** Options of `pi.sendUserMessage`: how to queue it while the agent streams. */
export interface SendUserMessageOptions {
	deliverAs?: "steer" | "followUp";
}

/**
 * What `pi.*` calls need from the session (pi's `ExtensionActions`). Bound with
 * {@link ExtensionRunner.bindCore}. `sendMessage` / `sendUserMessage` may return a promise: the
 * runner makes them fire-and-forget for extensions and reports a rejection as an extension error
 * `{extensionPath: "<runtime>", event: "send_message" | "send_user_message"}`.
 */
export interface ExtensionRuntimeActions {
	sendMessage(message: CustomMessageInput, options?: SendMessageOptions): Promise<void> | void;
	sendUserMessage(
		content: string | (TextContent | ImageContent)[],
		options?: SendUserMessageOptions,
	): Promise<void> | void;
	/** Appends a `custom` entry (and emits `entry_appended`). */
	appendEntry(customType: string, data?: unknown): void;
	setSessionName(name: string): void;
	getSessionName(): string | undefined;
	setLabel(entryId: string, label: string | undefined): void;
	getActiveTools(): string[];
	getAllTools(): ToolInfo[];
	setActiveTools(toolNames: string[]): void;
	/** Re-merges the tool registry after `pi.registerTool` at run time (the run-time refresh). */
	refreshTools(): void;
	/** Extension commands ({@link ExtensionRunner.getCommandInfos}), prompt templates and skills. */
	getCommands(): SlashCommandInfo[];
	/** Resolves false (and changes nothing) when the model has no configured auth. */
	setModel(model: Model): Promise<boolean>;
	getThinkingLevel(): ThinkingLevel;
	setThinkingLevel(level: ThinkingLevel): void;
}

/**
 * What `ctx.*` needs from the session (pi's `ExtensionContextActions`), bound with
 * {@link ExtensionRunner.bindCore}. Until then the context answers pi's defaults (no model,
 * idle, no signal, no usage, empty system prompt).
 */
export interface ExtensionContextActions {
	getModel(): Model | undefined;
	isIdle(): boolean;
	getSignal(): AbortSignal | undefined;
	abort(): void;
	hasPendingMessages(): boolean;
	shutdown(): void;
	getContextUsage(): ContextUsage | undefined;
	/** Runs a compaction; the runner turns it into fire-and-forget with `onComplete` / `onError`. */
	compact(customInstructions?: string): Promise<CompactionResult<unknown>>;
	getSystemPrompt(): string;
	getScopedModels?(): ScopedModel[];
	isProjectTrusted?(): boolean;
	getSystemPromptOptions?(): SystemPromptOptions | undefined;
}

/** Provider registration targets (default: the runner's `modelRegistry`). */
export interface ExtensionProviderActions {
	registerProvider?(name: string, config: ProviderConfig): void;
	unregisterProvider?(name: string): void;
	registerVirtualModel?(definition: VirtualModelDefinition): void;
	unregisterVirtualModel?(provider: string, id: string): void;
	/** Reads `<agentDir>/models.json` again and applies it (as pi's); extensions' providers stay. */
	refresh?(): void;
	/** Why loading models failed (pi: a broken models.json), or undefined. */
	getError?(): string | undefined;
	/**
	 * Where `provider`'s credentials come from, without resolving them (pi's `getProviderAuthStatus`):
	 * `configured` only for a key stored in `auth.json`; environment and runtime keys name their `source`.
	 */
	getProviderAuthStatus?(provider: string): ProviderAuthStatus;
	/** The provider's display name: a registered provider's `name`, pi's names of catalogue providers, else the id. */
	getProviderDisplayName?(provider: string): string;
}

/**
 * Session control for command contexts (pi's `ExtensionCommandContextActions`), bound by the host
 * with {@link ExtensionRunner.bindCommandContext}. Unbound, each call rejects with a clear error.
 */
export interface ExtensionCommandContextActions {
	waitForIdle(): Promise<void>;
	newSession(options?: NewSessionOptions): Promise<{ cancelled: boolean }>;
	fork(entryId: string, options?: ForkOptions): Promise<{ cancelled: boolean }>;
	navigateTree(targetId: string, options?: NavigateTreeOptions): Promise<{ cancelled: boolean }>;
	switchSession(sessionPath: string, options?: SwitchSessionOptions): Promise<{ cancelled: boolean }>;
	reload(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// pi.exec and pi.events

/** Options of `pi.exec`. */
export interface ExecOptions {
	signal?: AbortSignal;
	/** Milliseconds; the process (group) is terminated when it runs longer. */
	timeout?: number;
	/** Working directory (default: the session cwd). */
	cwd?: string;
}

/** What `pi.exec` resolves with (it does not reject on a non-zero exit). */
export interface ExecResult {
	stdout: string;
	stderr: string;
	/** Exit code; `128 + signal number` when killed by a signal; 1 when the process could not start. */
	code: number;
	/** True when Settle terminated the process (timeout or abort). */
	killed: boolean;
}

/** Shared bus for communication between extensions. */
export interface EventBus {
	emit(channel: string, data: unknown): void;
	/** Subscribes; returns the unsubscribe function. */
	on(channel: string, handler: (data: unknown) => void | Promise<void>): () => void;
}

/** The event bus shared by extensions (`pi.events`), with `clear()` for the host. */
export interface EventBusController extends EventBus {
	clear(): void;
}

// ---------------------------------------------------------------------------------------------
// Events and results (behavior B.3)

/** Where an `input` came from: the interactive editor, an RPC client, or an extension. */
export type InputSource = "interactive" | "rpc" | "extension";

/** `input`: text the user submitted, before skill / template expansion; handlers may transform or handle it. */
export interface InputEvent {
	type: "input";
	text: string;
	images?: ImageContent[];
	source: InputSource;
	/** Only set while the session is streaming: how the input will be queued. */
	streamingBehavior?: "steer" | "followUp";
	inputId?: string;
}

/** What an `input` handler returns: let it through, replace it, or mark it handled (nothing is sent). */
export type InputEventResult =
	| { action: "continue" }
	| { action: "transform"; text: string; images?: ImageContent[] }
	| { action: "handled" };

/** An event of pi's fork, not of pi 0.73; dispatched when a host emits it. */
export interface InputDispositionEvent {
	type: "input_disposition";
	inputId: string;
	disposition: "handled" | "queued" | "started" | "rejected";
}

/** `before_agent_start`: a prompt is about to run; handlers may add a message or change the system prompt. */
export interface BeforeAgentStartEvent {
	type: "before_agent_start";
	/** Prompt text after skill / template expansion. */
	prompt: string;
	images?: ImageContent[];
	/** The system prompt as chained so far. */
	systemPrompt: string;
	/** Mutable: changes apply to this operation's prompt. */
	systemPromptOptions: SystemPromptOptions;
	/** `"custom_message"` when a custom message sent with `triggerTurn` starts the operation; absent for a prompt. */
	trigger?: string;
	/** That custom message's `customType`. */
	messageType?: string;
}

/** What a `before_agent_start` handler returns: a message to add before the prompt, and/or a system prompt. */
export interface BeforeAgentStartEventResult {
	message?: CustomMessageInput;
	/** Replaces the system prompt for this operation only; later handlers see it (chain). */
	systemPrompt?: string;
}

/** Combined result of every `before_agent_start` handler. */
export interface BeforeAgentStartCombinedResult {
	/** Messages of all handlers, in order; null content normalized to `[]`. */
	messages?: CustomMessageInput[];
	systemPrompt?: string;
}

/** `context`: the messages of the next model request (system messages excluded); a handler may replace them. */
export interface ContextEvent {
	type: "context";
	/** The handler's own copy (system messages excluded). */
	messages: AgentMessage[];
}

/** `context_with_system`: like `context`, with the system messages of the request included. */
export interface ContextWithSystemEvent {
	type: "context_with_system";
	/** The handler's own copy of the whole request transcript, system messages included. */
	messages: AgentMessage[];
}

/** What a `context` / `context_with_system` handler returns: the messages to send instead. */
export interface ContextEventResult {
	messages?: AgentMessage[];
}

/** `before_provider_request`: the provider payload about to be sent; a handler may return a replacement. */
export interface BeforeProviderRequestEvent {
	type: "before_provider_request";
	payload: unknown;
	model?: Model;
	headers?: Record<string, string>;
}

/** A replacement provider payload (provider-specific shape), or undefined to keep it. */
export type BeforeProviderRequestEventResult = unknown;

/** `before_provider_headers`: the HTTP headers of the next provider request, editable in place. */
export interface BeforeProviderHeadersEvent {
	type: "before_provider_headers";
	/** Mutate in place; set a header to `null` to delete it. */
	headers: Record<string, string | null>;
	model?: Model;
}

/** `after_provider_response`: the HTTP status and headers of a provider response. */
export interface AfterProviderResponseEvent {
	type: "after_provider_response";
	status: number;
	headers: Record<string, string>;
}

/** `agent_start`: an agent run began. */
export interface AgentStartEvent {
	type: "agent_start";
}

/** `agent_end`: an agent run ended, with the messages it added. */
export interface AgentEndEvent {
	type: "agent_end";
	messages: AgentMessage[];
	/** Newer pi: true when the run ended through an abort (its last answer is `aborted`) rather than normal completion. */
	aborted?: boolean;
	/**
	 * Settle: true when the run's last answer is a transient provider error Settle will retry after
	 * its backoff (the session's `agent_end.willRetry`), read as the handlers run: a handler that
	 * calls `ctx.abort()` or turns retry off makes it false for the session's listeners. False when
	 * the run ended any other way; then `agent_settled` follows. pi 0.73.1 does not send it (pi#6827).
	 *
	 * @example
	 * ```ts
	 * export default function (pi: ExtensionAPI) {
	 * 	pi.on("agent_end", (event, ctx) => {
	 * 		if (event.willRetry) return; // Settle retries this failure itself
	 * 		ctx.ui.notify("the turn is over");
	 * 	});
	 * }
	 * ```
	 */
	willRetry?: boolean;
}

/** `agent_settled`: the operation is over (retries, compaction and queued messages included); emitted once per prompt. */
export interface AgentSettledEvent {
	type: "agent_settled";
	/**
	 * Set when the prompt got no answer and the context holds no error saying so: its request
	 * overflowed the context and overflow recovery could not compact it. Says what happened and what to do.
	 */
	errorMessage?: string;
}

/** `turn_start`: a turn (one model request and its tool calls) began. */
export interface TurnStartEvent {
	type: "turn_start";
	turnIndex: number;
	timestamp: number;
}

/** `message_start`: a message began (for assistant messages: streaming starts). */
export interface MessageStartEvent {
	type: "message_start";
	message: AgentMessage;
}

/** `message_update`: a streaming assistant message changed. */
export interface MessageUpdateEvent {
	type: "message_update";
	message: AgentMessage;
	assistantMessageEvent: AssistantMessageEvent;
}

/** `message_end`: a message is complete; a handler may replace it. */
export interface MessageEndEvent {
	type: "message_end";
	message: AgentMessage;
}

/** What a `message_end` handler returns. */
export interface MessageEndEventResult {
	/** Replacement; must keep the role of the message it replaces. */
	message?: AgentMessage;
}

/** `tool_execution_start`: a tool call started executing. */
export interface ToolExecutionStartEvent {
	type: "tool_execution_start";
	toolCallId: string;
	toolName: string;
	// biome-ignore lint/suspicious/noExplicitAny: tool args are arbitrary JSON
	args: any;
	parentToolCallId?: string;
}

/** `tool_execution_update`: a running tool reported a partial result. */
export interface ToolExecutionUpdateEvent {
	type: "tool_execution_update";
	toolCallId: string;
	toolName: string;
	// biome-ignore lint/suspicious/noExplicitAny: tool args are arbitrary JSON
	args: any;
	partialResult: AgentToolResult;
	parentToolCallId?: string;
}

/** `tool_execution_end`: a tool call finished (or failed: `isError`). */
export interface ToolExecutionEndEvent {
	type: "tool_execution_end";
	toolCallId: string;
	toolName: string;
	result: AgentToolResult;
	isError: boolean;
	parentToolCallId?: string;
}

interface ToolCallEventBase {
	type: "tool_call";
	toolCallId: string;
}
/** `tool_call` of the built-in `bash` tool (narrow with {@link isToolCallEventType}). */
export interface BashToolCallEvent extends ToolCallEventBase {
	toolName: "bash";
	input: BashToolInput;
}
/** `tool_call` of the built-in `read` tool. */
export interface ReadToolCallEvent extends ToolCallEventBase {
	toolName: "read";
	input: ReadToolInput;
}
/** `tool_call` of the built-in `edit` tool. */
export interface EditToolCallEvent extends ToolCallEventBase {
	toolName: "edit";
	input: EditToolInput;
}
/** `tool_call` of the built-in `write` tool. */
export interface WriteToolCallEvent extends ToolCallEventBase {
	toolName: "write";
	input: WriteToolInput;
}
/** `tool_call` of the built-in `grep` tool. */
export interface GrepToolCallEvent extends ToolCallEventBase {
	toolName: "grep";
	input: GrepToolInput;
}
/** `tool_call` of the built-in `find` tool. */
export interface FindToolCallEvent extends ToolCallEventBase {
	toolName: "find";
	input: FindToolInput;
}
/** `tool_call` of the built-in `ls` tool. */
export interface LsToolCallEvent extends ToolCallEventBase {
	toolName: "ls";
	input: LsToolInput;
}
/** `tool_call` of any other tool (extension or SDK tools). */
export interface CustomToolCallEvent extends ToolCallEventBase {
	toolName: string;
	input: Record<string, unknown>;
}

/**
 * Before a tool runs. `input` holds the validated arguments and is mutable: mutate it in place to
 * patch them (later handlers see the change; no re-validation).
 */
export type ToolCallEvent =
	| BashToolCallEvent
	| ReadToolCallEvent
	| EditToolCallEvent
	| WriteToolCallEvent
	| GrepToolCallEvent
	| FindToolCallEvent
	| LsToolCallEvent
	| CustomToolCallEvent;

/** What a `tool_call` handler returns to block the call. */
export interface ToolCallEventResult {
	/** Skip execution; the call gets an error result with `reason` (default `Tool execution was blocked`). */
	block?: boolean;
	reason?: string;
	/** Mark the blocked result for early batch termination. */
	terminate?: boolean;
}

interface ToolResultEventBase {
	type: "tool_result";
	toolCallId: string;
	input: Record<string, unknown>;
	content: (TextContent | ImageContent)[];
	isError: boolean;
	usage?: Usage;
}
/** `tool_result` of the built-in `bash` tool (narrow with `isBashToolResult`). */
export interface BashToolResultEvent extends ToolResultEventBase {
	toolName: "bash";
	details: BashToolDetails | undefined;
}
/** `tool_result` of the built-in `read` tool. */
export interface ReadToolResultEvent extends ToolResultEventBase {
	toolName: "read";
	details: ReadToolDetails | undefined;
}
/** `tool_result` of the built-in `edit` tool. */
export interface EditToolResultEvent extends ToolResultEventBase {
	toolName: "edit";
	details: EditToolDetails | undefined;
}
/** `tool_result` of the built-in `write` tool. */
export interface WriteToolResultEvent extends ToolResultEventBase {
	toolName: "write";
	details: undefined;
}
/** `tool_result` of the built-in `grep` tool. */
export interface GrepToolResultEvent extends ToolResultEventBase {
	toolName: "grep";
	details: GrepToolDetails | undefined;
}
/** `tool_result` of the built-in `find` tool. */
export interface FindToolResultEvent extends ToolResultEventBase {
	toolName: "find";
	details: FindToolDetails | undefined;
}
/** `tool_result` of the built-in `ls` tool. */
export interface LsToolResultEvent extends ToolResultEventBase {
	toolName: "ls";
	details: LsToolDetails | undefined;
}
/** `tool_result` of any other tool. */
export interface CustomToolResultEvent extends ToolResultEventBase {
	toolName: string;
	details: unknown;
}

/** After a tool ran (also when it failed). Handlers may override fields of the result. */
export type ToolResultEvent =
	| BashToolResultEvent
	| ReadToolResultEvent
	| EditToolResultEvent
	| WriteToolResultEvent
	| GrepToolResultEvent
	| FindToolResultEvent
	| LsToolResultEvent
	| CustomToolResultEvent;

/** Field-by-field override; omitted fields keep their (possibly already overridden) values. */
export interface ToolResultEventResult {
	content?: (TextContent | ImageContent)[];
	details?: unknown;
	isError?: boolean;
	usage?: Usage;
}

// Boundaries (behavior C.8) ------------------------------------------------------------------

/** A session entry a boundary handler asks to append, committed by the session after the dispatch. */
export type BoundaryEntryDraft =
	| { type: "custom"; customType: string; data?: unknown }
	| {
			type: "custom_message";
			customType: string;
			content: string | (TextContent | ImageContent)[];
			display: boolean;
			details?: unknown;
	  }
	| { type: "context_edit"; targetId: string; replacement: { content: string | (TextContent | ImageContent)[] } | null }
	| { type: "compaction"; summary: string; firstKeptEntryId: string | null; details?: unknown; usage?: Usage };

/** What the model context would be if the drafts were committed now. Built by the session. */
export interface BoundaryContextPreview {
	/** Entries the context is built from, drafts included. */
	contextEntries: readonly SessionEntry[];
	contextMessages: readonly AgentMessage[];
	llmMessages: readonly Message[];
	/** Custom messages waiting to be delivered. */
	pendingMessages: readonly AgentMessage[];
	/** Whether a `continue` request could run a model call on this context. */
	canContinue: boolean;
}

/** How the turn or operation at a boundary ended. */
export type BoundaryOutcome = "completed" | "aborted" | "error";

interface BoundaryFields {
	/** Drafts so far: mutate in place, or return `{ entries }` to replace the list. */
	entries: BoundaryEntryDraft[];
	/** Continuation requested so far. */
	continue: boolean;
	/** Preview of the context with the drafts so far (rebuilt after every handler). */
	context: BoundaryContextPreview;
}

/** What the session passes to `emitBoundary` for `turn_end`. */
export interface TurnEndBoundaryBase {
	type: "turn_end";
	turnIndex: number;
	message: AssistantMessage;
	toolResults: ToolResultMessage[];
	/** Entry id of the persisted assistant message (required). */
	messageEntryId: string;
	toolResultEntryIds: string[];
	outcome: BoundaryOutcome;
}

/** What the session passes to `emitBoundary` for `agent_before_settle`. */
export interface AgentBeforeSettleBase {
	type: "agent_before_settle";
	outcome: BoundaryOutcome;
}

/** The payload of a boundary event (`turn_end_boundary` or `agent_before_settle`), without the context preview. */
export type BoundaryBase = TurnEndBoundaryBase | AgentBeforeSettleBase;

/** End of a turn (document version: a boundary where handlers may add entries and ask to continue). */
export interface TurnEndEvent extends TurnEndBoundaryBase, BoundaryFields {}
/** After automatic continuation, before the operation settles. */
export interface AgentBeforeSettleEvent extends AgentBeforeSettleBase, BoundaryFields {}

/** What a boundary handler returns: entries to append atomically, and whether to run the agent again. */
export interface BoundaryEventResult {
	entries?: BoundaryEntryDraft[];
	continue?: boolean;
}

/** Outcome of {@link ExtensionRunner.emitBoundary}. */
export interface BoundaryDispatchResult {
	/** Final drafts. Commit them only when `valid`. */
	entries: BoundaryEntryDraft[];
	/** Continuation requested and backed by a runnable context (otherwise reported and false). */
	continue: boolean;
	/** Last valid preview; undefined when no handler was registered (nothing was built). */
	context: BoundaryContextPreview | undefined;
	/** False when the final drafts failed validation or preview (already reported). */
	valid: boolean;
	/** Why they are invalid. */
	error?: string;
}

/**
 * How a host follows a boundary dispatch it may stop waiting for (after an abort's grace): the
 * handlers after one left behind must not run later, against another answer.
 *
 * @example
 * ```ts
 * declare const runner: ExtensionRunner;
 * declare const previewDrafts: (entries: readonly BoundaryEntryDraft[]) => BoundaryContextPreview;
 * const gaveUp = new AbortController();
 * let running = "";
 * void runner.emitBoundary({ type: "agent_before_settle", outcome: "aborted" }, previewDrafts, {
 *   abandoned: gaveUp.signal,
 *   onHandler: (extensionPath) => { running = extensionPath; },
 * });
 * gaveUp.abort(); // later: name `running`; no handler starts after it
 * ```
 */
export interface BoundaryDispatchWatch {
	/**
	 * Aborted once the host has given up on the dispatch: no further handler starts, nothing is
	 * reported, and what the handler still running does through its `ctx` or its `pi` (entries,
	 * messages, prompts, notifications, `ctx.abort()`) is refused with a `STALE_CONTEXT` error, reported
	 * naming it: it would land in a later operation.
	 */
	abandoned?: AbortSignal;
	/** The operation's signal: the handlers' `ctx.signal` (without it, the session's current one). */
	signal?: AbortSignal;
	/** Told each handler's extension path as it starts: whom to name if it is left behind. */
	onHandler?: (extensionPath: string) => void;
	/** How long after the abort the host waits (what a left-behind handler is told; default 1000). */
	graceMs?: number | undefined;
}

// Session lifecycle --------------------------------------------------------------------------

/** `session_start`: a session was opened, reloaded, created, resumed or forked. */
export interface SessionStartEvent {
	type: "session_start";
	reason: "startup" | "reload" | "new" | "resume" | "fork";
	previousSessionFile?: string;
}

/** `session_before_switch`: another session is about to replace this one; a handler may cancel. */
export interface SessionBeforeSwitchEvent {
	type: "session_before_switch";
	reason: "new" | "resume";
	targetSessionFile?: string;
}

/** `session_before_fork`: a fork at `entryId` is about to happen; a handler may cancel. */
export interface SessionBeforeForkEvent {
	type: "session_before_fork";
	entryId: string;
	position: "before" | "at";
}

/**
 * `session_shutdown`: this session is being closed or replaced. The teardown waits for the handlers,
 * one after another, at most `shutdownTimeoutMs` in all (default 10 s); a handler still running then
 * is reported as an extension error, the handlers after it are started without being waited for,
 * and the teardown goes on.
 */
export interface SessionShutdownEvent {
	type: "session_shutdown";
	reason: "quit" | "reload" | "new" | "resume" | "fork";
	targetSessionFile?: string;
}

/** Why a compaction runs: the user asked, the threshold was crossed, or the context overflowed. */
export type CompactionReason = "manual" | "threshold" | "overflow";

/** `session_before_compact`: a compaction is about to run; a handler may cancel it or supply the summary. */
export interface SessionBeforeCompactEvent {
	type: "session_before_compact";
	preparation: CompactionPreparation;
	branchEntries: SessionEntry[];
	customInstructions?: string;
	reason: CompactionReason;
	willRetry: boolean;
	signal: AbortSignal;
}

/** `session_compact`: a compaction entry was appended. */
export interface SessionCompactEvent {
	type: "session_compact";
	compactionEntry: CompactionEntry;
	fromExtension: boolean;
	reason: CompactionReason;
	willRetry: boolean;
}

/** `session_compact_failed`: a compaction failed or was aborted. */
export interface SessionCompactFailedEvent {
	type: "session_compact_failed";
	reason: CompactionReason;
	errorMessage?: string;
	aborted: boolean;
	willRetry: boolean;
	fromExtension: boolean;
}

/** What a tree navigation will do: target, old leaf, common ancestor and the entries a summary would cover. */
export interface TreePreparation {
	targetId: string;
	oldLeafId: string | null;
	commonAncestorId: string | null;
	entriesToSummarize: SessionEntry[];
	userWantsSummary: boolean;
	customInstructions?: string;
	replaceInstructions?: boolean;
	label?: string;
}

/** `session_before_tree`: a tree navigation is about to happen; a handler may cancel it or supply the summary. */
export interface SessionBeforeTreeEvent {
	type: "session_before_tree";
	preparation: TreePreparation;
	signal: AbortSignal;
}

/** `session_tree`: the leaf moved (tree navigation), with the branch summary entry when one was written. */
export interface SessionTreeEvent {
	type: "session_tree";
	newLeafId: string | null;
	oldLeafId: string | null;
	summaryEntry?: BranchSummaryEntry;
	fromExtension?: boolean;
}

/** `session_info_changed`: the session's display name changed. */
export interface SessionInfoChangedEvent {
	type: "session_info_changed";
	name: string | undefined;
}

/** `resources_discover`: resources are being discovered; handlers may add skill, prompt and theme paths. */
export interface ResourcesDiscoverEvent {
	type: "resources_discover";
	cwd: string;
	reason: "startup" | "reload";
}

/** A path a `resources_discover` handler returns: a string, or a path with source metadata. */
export type DiscoveredPath = string | { path: string; metadata?: Partial<Omit<SourceInfo, "path">> };

/** What a `resources_discover` handler returns: extra resource paths. */
export interface ResourcesDiscoverResult {
	skillPaths?: DiscoveredPath[];
	promptPaths?: DiscoveredPath[];
	themePaths?: DiscoveredPath[];
}

/** One discovered path with the extension that contributed it. */
export interface CollectedResourcePath {
	path: string;
	extensionPath: string;
	metadata?: Partial<Omit<SourceInfo, "path">>;
}

/** The resource paths all `resources_discover` handlers returned, each with the extension that added it. */
export interface CollectedResourcePaths {
	skillPaths: CollectedResourcePath[];
	promptPaths: CollectedResourcePath[];
	themePaths: CollectedResourcePath[];
}

/** How a model was selected: explicitly, by cycling, or restored from the session. */
export type ModelSelectSource = "set" | "cycle" | "restore";

/** `model_select`: the session's model changed. */
export interface ModelSelectEvent {
	type: "model_select";
	model: Model;
	previousModel: Model | undefined;
	source: ModelSelectSource;
}

/** `thinking_level_select`: the session's thinking level changed. */
export interface ThinkingLevelSelectEvent {
	type: "thinking_level_select";
	level: ThinkingLevel;
	previousLevel: ThinkingLevel;
}

/** `user_bash`: the user ran a `!` / `!!` shell command; a handler may run it elsewhere or answer it. */
export interface UserBashEvent {
	type: "user_bash";
	command: string;
	/** `!!` prefix: kept out of the model context. */
	excludeFromContext: boolean;
	cwd: string;
}

/** Result of a user bash command (pi's `BashResult`). */
export interface UserBashResult {
	output: string;
	exitCode: number | undefined;
	cancelled: boolean;
	truncated: boolean;
	fullOutputPath?: string;
	/** Seconds of the timeout that stopped the command (then `cancelled` is true too). */
	timedOutAfter?: number;
	/** Some output bytes were not UTF-8 text (GBK, Shift-JIS, Latin-1): `output` shows them as U+FFFD, `fullOutputPath` keeps them. */
	notUtf8?: boolean;
	/** The command was killed by a signal (its operations reported `exitCode: null`); `exitCode` is undefined. */
	killedBySignal?: boolean;
}

/** What a `user_bash` handler returns. */
export interface UserBashEventResult {
	/** Run the command through these operations instead of the local shell. */
	operations?: BashOperations;
	/** The extension ran the command itself: use this result. */
	result?: UserBashResult;
}

/** What a `session_before_switch` handler returns. */
export interface SessionBeforeSwitchResult {
	cancel?: boolean;
}

/** What a `session_before_fork` handler returns. */
export interface SessionBeforeForkResult {
	cancel?: boolean;
	skipConversationRestore?: boolean;
}

/** What a `session_before_compact` handler returns. */
export interface SessionBeforeCompactResult {
	cancel?: boolean;
	/** Used instead of the built-in summarizer. */
	compaction?: Omit<CompactionResult<unknown>, "details"> & { details?: unknown };
}

/** What a `session_before_tree` handler returns. */
export interface SessionBeforeTreeResult {
	cancel?: boolean;
	/** Used instead of the branch summarizer (only when a summary was requested). */
	summary?: { summary: string; details?: unknown; usage?: Usage };
	customInstructions?: string;
	replaceInstructions?: boolean;
	label?: string;
}

/** Every event an extension can subscribe to, by name. */
export interface ExtensionEventMap {
	input: InputEvent;
	input_disposition: InputDispositionEvent;
	before_agent_start: BeforeAgentStartEvent;
	context: ContextEvent;
	context_with_system: ContextWithSystemEvent;
	before_provider_request: BeforeProviderRequestEvent;
	before_provider_headers: BeforeProviderHeadersEvent;
	after_provider_response: AfterProviderResponseEvent;
	agent_start: AgentStartEvent;
	agent_end: AgentEndEvent;
	agent_before_settle: AgentBeforeSettleEvent;
	agent_settled: AgentSettledEvent;
	turn_start: TurnStartEvent;
	turn_end: TurnEndEvent;
	message_start: MessageStartEvent;
	message_update: MessageUpdateEvent;
	message_end: MessageEndEvent;
	tool_execution_start: ToolExecutionStartEvent;
	tool_execution_update: ToolExecutionUpdateEvent;
	tool_execution_end: ToolExecutionEndEvent;
	tool_call: ToolCallEvent;
	tool_result: ToolResultEvent;
	session_start: SessionStartEvent;
	session_before_switch: SessionBeforeSwitchEvent;
	session_before_fork: SessionBeforeForkEvent;
	session_shutdown: SessionShutdownEvent;
	session_before_compact: SessionBeforeCompactEvent;
	session_compact: SessionCompactEvent;
	session_compact_failed: SessionCompactFailedEvent;
	session_before_tree: SessionBeforeTreeEvent;
	session_tree: SessionTreeEvent;
	session_info_changed: SessionInfoChangedEvent;
	resources_discover: ResourcesDiscoverEvent;
	model_select: ModelSelectEvent;
	thinking_level_select: ThinkingLevelSelectEvent;
	user_bash: UserBashEvent;
	cache_warming_decision: CacheWarmingDecisionEvent;
}

/** What a handler of each event may return (`undefined` = the return value is ignored). */
export interface ExtensionEventResultMap {
	input: InputEventResult;
	input_disposition: undefined;
	before_agent_start: BeforeAgentStartEventResult;
	context: ContextEventResult;
	context_with_system: ContextEventResult;
	before_provider_request: BeforeProviderRequestEventResult;
	before_provider_headers: undefined;
	after_provider_response: undefined;
	agent_start: undefined;
	agent_end: undefined;
	agent_before_settle: BoundaryEventResult;
	agent_settled: undefined;
	turn_start: undefined;
	turn_end: BoundaryEventResult;
	message_start: undefined;
	message_update: undefined;
	message_end: MessageEndEventResult;
	tool_execution_start: undefined;
	tool_execution_update: undefined;
	tool_execution_end: undefined;
	tool_call: ToolCallEventResult;
	tool_result: ToolResultEventResult;
	session_start: undefined;
	session_before_switch: SessionBeforeSwitchResult;
	session_before_fork: SessionBeforeForkResult;
	session_shutdown: undefined;
	session_before_compact: SessionBeforeCompactResult;
	session_compact: undefined;
	session_compact_failed: undefined;
	session_before_tree: SessionBeforeTreeResult;
	session_tree: undefined;
	session_info_changed: undefined;
	resources_discover: ResourcesDiscoverResult;
	model_select: undefined;
	thinking_level_select: undefined;
	user_bash: UserBashEventResult;
	cache_warming_decision: CacheWarmingDecisionEventResult;
}

/** The name of every event an extension can subscribe to with `pi.on`. */
export type ExtensionEventName = keyof ExtensionEventMap;
/** Any event an extension can receive. */
export type ExtensionEvent = ExtensionEventMap[ExtensionEventName];

/** An event handler: may be async; its return value is used as each event documents. */
export type ExtensionHandler<E, R = undefined> = (
	event: E,
	ctx: ExtensionContext,
	// biome-ignore lint/suspicious/noConfusingVoidType: handlers usually return nothing
) => Promise<R | void> | R | void;

/** The handler type of each event (a mapped type keeps literal results such as `{action: "continue"}` typed). */
export type ExtensionHandlerMap = {
	[K in ExtensionEventName]: ExtensionHandler<ExtensionEventMap[K], ExtensionEventResultMap[K]>;
};

/**
 * Events handled by {@link ExtensionRunner.emit}: those without a dedicated `emitXxx` method.
 * For `session_before_*` it returns the handlers' result.
 */
export type RunnerEmitEvent = Exclude<
	ExtensionEvent,
	| InputEvent
	| BeforeAgentStartEvent
	| ContextEvent
	| ContextWithSystemEvent
	| BeforeProviderRequestEvent
	| BeforeProviderHeadersEvent
	| MessageEndEvent
	| ToolCallEvent
	| ToolResultEvent
	| TurnEndEvent
	| AgentBeforeSettleEvent
	| ResourcesDiscoverEvent
	| UserBashEvent
	| CacheWarmingDecisionEvent
>;

/** What `ExtensionRunner.emit` resolves with for an event: the merged handler result for cancellable events, else undefined. */
export type RunnerEmitResult<E extends RunnerEmitEvent> = E extends { type: "session_before_switch" }
	? SessionBeforeSwitchResult | undefined
	: E extends { type: "session_before_fork" }
		? SessionBeforeForkResult | undefined
		: E extends { type: "session_before_compact" }
			? SessionBeforeCompactResult | undefined
			: E extends { type: "session_before_tree" }
				? SessionBeforeTreeResult | undefined
				: undefined;

// ---------------------------------------------------------------------------------------------
// ExtensionAPI (`pi`)

/**
 * The object an extension factory receives (pi's `ExtensionAPI`). Registration methods work during
 * loading and later; action methods (`sendMessage`, `setActiveTools`, …) need a bound session and
 * throw {@link RUNTIME_NOT_INITIALIZED_MESSAGE} while the factory runs. After the runner is
 * invalidated every member throws {@link STALE_EXTENSION_CONTEXT_MESSAGE}.
 *
 * @example
 * ```ts
 * import type { ExtensionAPI } from "settle";
 * export default function (pi: ExtensionAPI) {
 *   pi.on("tool_call", (event) =>
 *     event.toolName === "bash" && String(event.input.command).includes("rm -rf")
 *       ? { block: true, reason: "Not here" }
 *       : undefined,
 *   );
 * }
 * ```
 */
export interface ExtensionAPI {
	/** Subscribes to an event; returns a function that removes the handler. */
	on<K extends ExtensionEventName>(event: K, handler: ExtensionHandlerMap[K]): () => void;
	/** Registers a tool the model can call. The first registration of a name (in load order) wins. */
	registerTool<TParameters extends object = object, TDetails = unknown>(
		tool: ExtensionToolDefinition<TParameters, TDetails>,
	): void;
	/** Registers `/name` for the user to type; `name` goes without its slash (a leading `/` is dropped). */
	registerCommand(name: string, options: Omit<RegisteredCommand, "name" | "sourceInfo">): void;
	/** Recorded for hosts with a terminal UI; Settle never triggers shortcuts. */
	registerShortcut(
		shortcut: string,
		options: { description?: string; handler: (ctx: ExtensionContext) => Promise<void> | void },
	): void;
	/**
	 * Registers `--name` on the command line; `getFlag(name)` reads it. A `default` must have the
	 * flag's `type` (a boolean flag's default is `false`, not `"false"`): another throws `INVALID_ARGUMENT`.
	 */
	registerFlag(
		name: string,
		options: { description?: string; type: "boolean" | "string"; default?: boolean | string },
	): void;
	/**
	 * Value of a flag this extension registered (undefined for flags it did not register); the name
	 * with or without its leading `--` (`getFlag("plan")` or `getFlag("--plan")`).
	 */
	getFlag(name: string): boolean | string | undefined;
	registerMessageRenderer<T = unknown>(customType: string, renderer: MessageRenderer<T>): void;
	/** Fire-and-forget; failures are reported as extension errors. */
	sendMessage<T = unknown>(message: CustomMessageInput<T>, options?: SendMessageOptions): void;
	/** Fire-and-forget; always starts a turn when idle. While streaming, `deliverAs` says how to queue. */
	sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): void;
	appendEntry<T = unknown>(customType: string, data?: T): void;
	setSessionName(name: string): void;
	getSessionName(): string | undefined;
	setLabel(entryId: string, label: string | undefined): void;
	/** Runs a program (no shell) in the session cwd. Never rejects for a failing program. */
	exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
	getActiveTools(): string[];
	getAllTools(): ToolInfo[];
	setActiveTools(toolNames: string[]): void;
	getCommands(): SlashCommandInfo[];
	setModel(model: Model): Promise<boolean>;
	getThinkingLevel(): ThinkingLevel;
	setThinkingLevel(level: ThinkingLevel): void;
	/** Queued while loading, applied when the session binds the runner; immediate afterwards. */
	registerProvider(name: string, config: ProviderConfig): void;
	unregisterProvider(name: string): void;
	/**
	 * Registers a virtual model (pi 1.6): selectable like any model, its `route` picks the physical
	 * model and thinking level of every request. Queued while loading like {@link registerProvider};
	 * registering the same provider and id again replaces it. A reload unregisters it.
	 *
	 * @example
	 * ```ts
	 * export default function (pi: ExtensionAPI) {
	 *   pi.registerVirtualModel({
	 *     provider: "router",
	 *     id: "auto",
	 *     name: "Auto",
	 *     thinkingLevels: ["low", "high"],
	 *     route: (request, ctx) => ({
	 *       model: ctx.modelRegistry.find("anthropic", request.thinkingLevel === "high" ? "claude-sonnet-4-5" : "claude-haiku-4-5")!,
	 *       thinkingLevel: "medium",
	 *     }),
	 *   });
	 * }
	 * ```
	 */
	registerVirtualModel<TState = unknown>(model: ExtensionVirtualModel<TState>): void;
	/** Removes a virtual model registered with {@link registerVirtualModel} (`unregisterProvider` does not). */
	unregisterVirtualModel(provider: string, id: string): void;
	/** Shared bus for communication between extensions. */
	events: EventBus;
}

/**
 * An extension module's default export, or an SDK inline factory. May be async (it is awaited).
 * Typed as returning `void` so that a one-line factory such as `(pi) => pi.on(...)` type-checks
 * although `pi.on` returns its unsubscribe function.
 */
export type ExtensionFactory = (pi: ExtensionAPI) => void;

// ---------------------------------------------------------------------------------------------
// Errors and loading

/** An error a handler (or an extension-facing action) raised; dispatch went on. */
export interface ExtensionError {
	/** Extension path, `<runtime>` for session actions, `command:<name>` for commands. */
	extensionPath: string;
	event: string;
	error: string;
	stack?: string;
	/**
	 * For a `<runtime>` report of a `pi.sendMessage` / `pi.sendUserMessage` call, or of a failed
	 * `ctx.compact` without `onError`: the path of the extension that made it (oh-my-pi#4345: three
	 * hooks' refused sends, none saying whose).
	 */
	sentBy?: string;
}

/** Listener for extension errors (`runner.onError`). */
export type ExtensionErrorListener = (error: ExtensionError) => void;

/** A factory that threw while loading: the extension is left out, the others load. */
export interface ExtensionLoadError {
	path: string;
	error: string;
}

/** A problem found while loading or validating extension input (pi's `ResourceDiagnostic`). */
export type ExtensionDiagnostic = ResourceDiagnostic;
