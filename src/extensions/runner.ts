/**
 * ExtensionRunner: dispatches events to extension handlers in load order, keeps
 * their registrations, and gives them `ctx` objects backed by the session's actions.
 *
 * Dispatch rules, for every `emit*` method:
 * - extensions in load order, handlers in registration order;
 * - each dispatch iterates a snapshot: handlers registered during it run from the next dispatch,
 *   handlers removed during it (also by themselves) still run in it, neighbours are never skipped;
 * - a throwing handler is reported to `onError` listeners as `{extensionPath, event, error, stack?}`
 *   and the dispatch continues — except `tool_call` (the error propagates and blocks the tool) and
 *   `user_bash` (reported, then the dispatch rejects: the command must not run);
 * - with no handler for an event nothing is allocated or copied.
 *
 * The runner never imports the session: the session binds it with {@link ExtensionRunner.bindCore}
 * (what `pi.*` and `ctx.*` need) and the host with {@link ExtensionRunner.bindCommandContext}.
 */
import { basename, dirname } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import { carryFailure } from "../llm/failures.js";
import type { AgentMessage, ImageContent, Model } from "../llm/types.js";
import type {
	CacheWarmingAction,
	CacheWarmingDecisionEvent,
	CacheWarmingDecisionEventResult,
} from "../session/cache-warmer.js";
import { convertMessageToLlm } from "../session/convert-to-llm.js";
import { messageShapeError } from "../session/input-check.js";
import type { SystemPromptOptions } from "../session/system-prompt.js";
import { isUsableBlock } from "../store/entry-shape.js";
import type { SourceInfo } from "../tools/types.js";
import { validateBoundaryEntries } from "./boundary.js";
import { applyExtensionFlagValues, collectExtensionFlags, type ExtensionFlagInput } from "./flags.js";
import { type ExtensionRecord, type InstantiateExtensionsOptions, instantiateExtensions } from "./loader.js";
import {
	continuationWithoutContextMessage,
	INVALID_BOUNDARY_ENTRIES_PREFIX,
	MESSAGE_END_ROLE_MESSAGE,
	STALE_EXTENSION_CONTEXT_MESSAGE,
	TOOL_CALL_FAILURE_PREFIX,
	TURN_END_MISSING_ENTRY_MESSAGE,
} from "./messages.js";
import {
	type Extension,
	type ExtensionRuntime,
	errorRecord,
	type HandlerEntry,
	type HandlerScope,
	isReportedRefusal,
	runInHandlerScope,
} from "./runtime.js";
import type {
	BeforeAgentStartCombinedResult,
	BeforeAgentStartEventResult,
	BoundaryBase,
	BoundaryContextPreview,
	BoundaryDispatchResult,
	BoundaryDispatchWatch,
	BoundaryEntryDraft,
	BoundaryEventResult,
	CollectedResourcePath,
	CollectedResourcePaths,
	CompactOptions,
	ContextEventResult,
	CustomMessageInput,
	DiscoveredPath,
	ExtensionCommandContext,
	ExtensionCommandContextActions,
	ExtensionContext,
	ExtensionContextActions,
	ExtensionDiagnostic,
	ExtensionError,
	ExtensionErrorListener,
	ExtensionFlag,
	ExtensionLoadError,
	ExtensionMode,
	ExtensionModelRegistry,
	ExtensionProviderActions,
	ExtensionRuntimeActions,
	ExtensionShortcut,
	ExtensionUIContext,
	InputEventResult,
	InputSource,
	MessageEndEvent,
	MessageEndEventResult,
	MessageRenderer,
	ReadonlySessionManager,
	RegisteredCommand,
	RegisteredTool,
	ReplacedSessionContext,
	ResolvedCommand,
	ResourcesDiscoverEvent,
	ResourcesDiscoverResult,
	RunnerEmitEvent,
	RunnerEmitResult,
	SessionShutdownEvent,
	SessionTreeNodeView,
	SlashCommandInfo,
	ToolCallEvent,
	ToolCallEventResult,
	ToolResultEvent,
	ToolResultEventResult,
	UserBashEvent,
	UserBashEventResult,
} from "./types.js";
import { createHeadlessUIContext, isHeadlessUIContext, uiForExtension } from "./ui.js";

/** An extension handler call that has not settled yet ({@link ExtensionRunner.pendingHandlers}). */
export interface PendingHandler {
	/** The extension's file (its `sourceInfo.path`). */
	extensionPath: string;
	/** The event (`before_agent_start`, …), or `command:<name>` for a slash command. */
	event: string;
}

/**
 * The operation of a `tool_call` / `tool_result` dispatch: its signal (the handlers' `ctx.signal`)
 * and `abandoned`, true once the agent loop stopped waiting for the hook after the abort's grace:
 * what a handler still running then does through its `ctx` or `pi` is refused (`STALE_CONTEXT`).
 */
export interface ToolHookWatch {
	signal?: AbortSignal;
	abandoned?: { readonly aborted: boolean };
	/** How long after the abort the loop waits for the hook (the agent's `toolAbortGraceMs`). */
	graceMs?: number | undefined;
}

function toolScope(extensionPath: string, event: string, watch: ToolHookWatch): HandlerScope {
	const { signal, abandoned, graceMs } = watch;
	return { extensionPath, event, signal, abandoned, graceMs, settledInTime: false };
}

/** Marks a handler call that threw (already reported). */
const FAILED: unique symbol = Symbol("handler failed");
type Invoked = unknown | typeof FAILED;

const CANCELLABLE_EVENTS = new Set([
	"session_before_switch",
	"session_before_fork",
	"session_before_compact",
	"session_before_tree",
]);

/**
 * A `session_before_*` result with no field set (`{}`, `{ compaction: undefined }`) or only
 * `cancel: false`: a handler's "go ahead" must not discard an earlier handler's compaction.
 */
function decidesNothing(value: unknown): boolean {
	return (
		typeof value === "object" &&
		value !== null &&
		Object.entries(value).every(([key, field]) => field === undefined || (key === "cancel" && field === false))
	);
}

/** Roles whose `content` a `message_end` replacement must carry (null/missing → `[]`). */
const CONTENT_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);

const READONLY_SESSION_METHODS = [
	"getCwd",
	"getSessionDir",
	"getSessionId",
	"getSessionFile",
	"getLeafId",
	"getLeafEntry",
	"getEntry",
	"getLabel",
	"getBranch",
	"getHeader",
	"getEntries",
	"getTree",
	"getSessionName",
] as const satisfies readonly (keyof ReadonlySessionManager)[];

/** What the runner needs besides the instantiated extensions. */
export interface ExtensionRunnerOptions {
	/** Session cwd (`ctx.cwd`); default: the cwd the extensions were instantiated with. */
	cwd?: string;
	/** The session's manager. Extensions see only its read-only methods. */
	sessionManager?: ReadonlySessionManager;
	/** `ctx.modelRegistry`, and the default target of `pi.registerProvider`. */
	modelRegistry?: ExtensionModelRegistry;
	/** Initial UI (default: a headless one, so `hasUI` is false). */
	ui?: ExtensionUIContext;
	/** Initial mode (default `print`). */
	mode?: ExtensionMode;
}

/** Where a `before_agent_start` dispatch comes from (newer pi payload fields). */
export interface BeforeAgentStartExtras {
	trigger?: string;
	messageType?: string;
	/**
	 * Called before each handler: the base prompt rebuilt when the session's tools changed since
	 * the last call (a handler ran `pi.setActiveTools()`), else undefined. While no handler has
	 * returned a `systemPrompt`, the next handler's `event.systemPrompt` is that fresher prompt, so a
	 * prompt a later handler builds from it does not advertise a tool an earlier one removed (pi#9932).
	 */
	refreshSystemPrompt?: () => string | undefined;
}

/** Newer `input` payload fields. */
export interface InputExtras {
	/** Set only while the session is streaming. */
	streamingBehavior?: "steer" | "followUp";
	inputId?: string;
}

/** A parsed `/name args` input. */
export interface CommandInvocation {
	name: string;
	/** Text after the first space, `""` when there is none. */
	args: string;
}

/**
 * Splits `/name args` the way pi does (name up to the first space, args after it). Returns
 * undefined for text that does not start with `/`.
 *
 * @example
 * ```ts
 * parseCommandInvocation("/deploy staging now"); // { name: "deploy", args: "staging now" }
 * ```
 */
export function parseCommandInvocation(text: string): CommandInvocation | undefined {
	if (!text.startsWith("/")) return undefined;
	// Any whitespace ends the name, as for skills and prompt templates: `/deploy`, a new line, then its arguments.
	const space = text.search(/\s/);
	return space === -1 ? { name: text.slice(1), args: "" } : { name: text.slice(1, space), args: text.slice(space + 1) };
}

function notBound(what: string): Promise<never> {
	return Promise.reject(
		new SettleError(
			"EXTENSION",
			`ctx.${what}() is not available: the host did not bind command actions (ExtensionRunner.bindCommandContext).`,
		),
	);
}

const UNBOUND_COMMAND_ACTIONS: ExtensionCommandContextActions = {
	waitForIdle: () => notBound("waitForIdle"),
	newSession: () => notBound("newSession"),
	fork: () => notBound("fork"),
	navigateTree: () => notBound("navigateTree"),
	switchSession: () => notBound("switchSession"),
	reload: () => notBound("reload"),
};

/** pi's context defaults before the session binds the runner. */
const UNBOUND_CONTEXT_ACTIONS: ExtensionContextActions = {
	getModel: () => undefined,
	isIdle: () => true,
	getSignal: () => undefined,
	abort: () => {},
	hasPendingMessages: () => false,
	shutdown: () => {},
	getContextUsage: () => undefined,
	compact: () =>
		Promise.reject(new SettleError("EXTENSION", "ctx.compact() is not available before the session binds the runner.")),
	getSystemPrompt: () => "",
};

/** The runner each `withSession` context belongs to (to give an extension its own copy of it). */
const replacedContextRunners = new WeakMap<ReplacedSessionContext, ExtensionRunner>();

/** The extension whose `tool_call` handler threw each rejection of {@link ExtensionRunner.emitToolCall}. */
const toolCallFailures = new WeakMap<Error, string>();

/**
 * The path of the extension whose `tool_call` handler threw `error` (a rejection of
 * `emitToolCall`), or undefined for any other error. The session reports such a throw nowhere but
 * in the blocked call's result; `settle/testing`'s harness names the extension with it (internal).
 */
export function toolCallFailureExtension(error: unknown): string | undefined {
	return error instanceof Error ? toolCallFailures.get(error) : undefined;
}

/**
 * Dispatches extension events and hosts extension registrations for one session runtime.
 *
 * @example
 * ```ts
 * declare const runtimeActions: ExtensionRuntimeActions; // what pi.* needs from the session
 * declare const contextActions: ExtensionContextActions; // what ctx.* needs from the session
 * const { runner, errors } = await createExtensionRunner(resourceLoader.getExtensions().extensions, { cwd, sessionManager });
 * runner.onError((e) => console.error(`${e.extensionPath} (${e.event}): ${e.error}`));
 * runner.bindCore(runtimeActions, contextActions);
 * await runner.emit({ type: "session_start", reason: "startup" });
 * const decision = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } });
 * ```
 */
export class ExtensionRunner {
	private readonly runtime: ExtensionRuntime;
	private readonly cwd: string;
	private readonly sessionView: ReadonlySessionManager | undefined;
	private readonly modelRegistry: ExtensionModelRegistry | undefined;
	private readonly errorListeners = new Set<ExtensionErrorListener>();
	/** Handler calls that have not settled yet, for {@link pendingHandlers}. */
	private readonly inFlight = new Set<PendingHandler>();
	/** The `session_shutdown` dispatch of this lifecycle ({@link emitSessionShutdown}: once per extension set). */
	private shutdownDispatch: { abandon: AbortController; done: Promise<void>; settled: Promise<void> } | undefined;
	/** A `session_start` went out (to these extensions, handled or not). */
	private started = false;
	private uiContext: ExtensionUIContext;
	private mode: ExtensionMode;
	private contextActions: ExtensionContextActions = UNBOUND_CONTEXT_ACTIONS;
	private commandActions: ExtensionCommandContextActions = UNBOUND_COMMAND_ACTIONS;
	private context: ExtensionContext | undefined;
	private commandContext: ExtensionCommandContext | undefined;
	/** Each extension's copy of a context, by the context it copies, then by extension path. */
	private readonly extensionContexts = new WeakMap<object, Map<string, ExtensionContext>>();
	/** Per extension, its context and the members bound to a call in its boundary handlers' contexts ({@link scopedContext}). */
	private readonly scopedMembers = new Map<
		string,
		{ own: ExtensionContext; scoped: Map<PropertyKey, (scope: HandlerScope) => unknown> }
	>();

	constructor(loaded: { runtime: ExtensionRuntime }, options: ExtensionRunnerOptions = {}) {
		this.runtime = loaded.runtime;
		this.cwd = options.cwd ?? loaded.runtime.cwd;
		this.sessionView = options.sessionManager ? readonlyView(options.sessionManager) : undefined;
		this.modelRegistry = options.modelRegistry;
		this.uiContext = options.ui ?? createHeadlessUIContext();
		this.mode = options.mode ?? "print";
		this.runtime.reportError = (error) => this.emitError(error);
		this.runtime.createContext = (extensionPath) => this.createContext(extensionPath);
	}

	// -------------------------------------------------------------------------------------------
	// Binding

	/**
	 * Binds what `pi.*` and `ctx.*` need from the session, then applies provider registrations
	 * queued while loading (failures are reported as `register_provider` errors). From here on
	 * `pi.registerTool` calls `actions.refreshTools()` and provider registration is immediate.
	 * Call once, right after constructing the session's runner and before `session_start`.
	 */
	bindCore(
		actions: ExtensionRuntimeActions,
		contextActions: ExtensionContextActions,
		providerActions?: ExtensionProviderActions,
	): void {
		this.contextActions = contextActions;
		this.runtime.bind(actions, providerActions, this.modelRegistry);
	}

	/** Binds session control for command contexts (the host's `newSession`, `fork`, …). */
	bindCommandContext(actions?: ExtensionCommandContextActions): void {
		this.commandActions = actions ?? UNBOUND_COMMAND_ACTIONS;
	}

	/** Sets the UI extensions talk to; without one, a headless UI (`hasUI` false). */
	setUIContext(ui?: ExtensionUIContext, mode?: ExtensionMode): void {
		this.uiContext = ui ?? createHeadlessUIContext();
		if (mode) this.mode = mode;
	}

	getUIContext(): ExtensionUIContext {
		return this.uiContext;
	}

	/** False for the headless UI context. */
	hasUI(): boolean {
		return !isHeadlessUIContext(this.uiContext);
	}

	getMode(): ExtensionMode {
		return this.mode;
	}

	// -------------------------------------------------------------------------------------------
	// Registrations

	/** Paths of the loaded extensions, in load order. */
	getExtensionPaths(): string[] {
		return this.runtime.extensions.map((extension) => extension.path);
	}

	/** The loaded extensions with their registrations (read them; don't change them). */
	getExtensions(): readonly Extension[] {
		return this.runtime.extensions;
	}

	/** Tools registered by extensions; the first registration of a name (in load order) wins. */
	getAllRegisteredTools(): RegisteredTool[] {
		const byName = new Map<string, RegisteredTool>();
		for (const extension of this.runtime.extensions) {
			for (const tool of extension.tools.values()) {
				if (!byName.has(tool.definition.name)) byName.set(tool.definition.name, tool);
			}
		}
		return [...byName.values()];
	}

	getToolDefinition(name: string): RegisteredTool["definition"] | undefined {
		for (const extension of this.runtime.extensions) {
			const tool = extension.tools.get(name);
			if (tool) return tool.definition;
		}
		return undefined;
	}

	/** Registered flags; the first registration of a name wins. */
	getFlags(): Map<string, ExtensionFlag> {
		return collectExtensionFlags(this.runtime.extensions);
	}

	setFlagValue(name: string, value: boolean | string): void {
		this.runtime.flagValues.set(name, value);
	}

	/** A copy of the current flag values (pass it to the next load on reload). */
	getFlagValues(): Map<string, boolean | string> {
		return new Map(this.runtime.flagValues);
	}

	/** Applies CLI flag values; see {@link applyExtensionFlagValues}. */
	applyFlagValues(values: ExtensionFlagInput): ExtensionDiagnostic[] {
		return applyExtensionFlagValues({ extensions: this.runtime.extensions, runtime: this.runtime }, values);
	}

	/** Registered shortcuts by key (lower-cased); a later extension's shortcut replaces an earlier one, as in pi. */
	getShortcuts(): Map<string, ExtensionShortcut> {
		const shortcuts = new Map<string, ExtensionShortcut>();
		for (const extension of this.runtime.extensions) {
			for (const [key, shortcut] of extension.shortcuts) shortcuts.set(key.toLowerCase(), shortcut);
		}
		return shortcuts;
	}

	/** The first renderer registered for a custom message type. Recorded only: Settle never renders. */
	getMessageRenderer(customType: string): MessageRenderer | undefined {
		for (const extension of this.runtime.extensions) {
			const renderer = extension.messageRenderers.get(customType);
			if (renderer) return renderer;
		}
		return undefined;
	}

	/**
	 * Commands with their invocation names: a name registered by one extension keeps it; a name
	 * several extensions registered becomes `name:1`, `name:2`, … in load order (skipping names
	 * already taken).
	 */
	getRegisteredCommands(): ResolvedCommand[] {
		const commands: RegisteredCommand[] = [];
		const counts = new Map<string, number>();
		for (const extension of this.runtime.extensions) {
			for (const command of extension.commands.values()) {
				commands.push(command);
				counts.set(command.name, (counts.get(command.name) ?? 0) + 1);
			}
		}
		const seen = new Map<string, number>();
		const taken = new Set<string>();
		return commands.map((command) => {
			const occurrence = (seen.get(command.name) ?? 0) + 1;
			seen.set(command.name, occurrence);
			let invocationName = (counts.get(command.name) ?? 0) > 1 ? `${command.name}:${occurrence}` : command.name;
			for (let suffix = occurrence; taken.has(invocationName); ) invocationName = `${command.name}:${++suffix}`;
			taken.add(invocationName);
			return { ...command, invocationName };
		});
	}

	getCommand(invocationName: string): ResolvedCommand | undefined {
		return this.getRegisteredCommands().find((command) => command.invocationName === invocationName);
	}

	/**
	 * The commands that share `name` and so are invoked only numbered (`/review:1`, `/review:2`),
	 * when no command is invoked as `name` itself; else an empty list.
	 */
	getCommandsSharing(name: string): ResolvedCommand[] {
		const commands = this.getRegisteredCommands();
		if (commands.some((command) => command.invocationName === name)) return [];
		const sharing = commands.filter((command) => command.name === name);
		return sharing.length > 1 ? sharing : [];
	}

	/** Extension commands as `pi.getCommands()` lists them (the session adds templates and skills). */
	getCommandInfos(): SlashCommandInfo[] {
		return this.getRegisteredCommands().map((command) => {
			const info: SlashCommandInfo = {
				name: command.invocationName,
				source: "extension",
				sourceInfo: command.sourceInfo,
			};
			if (command.description !== undefined) info.description = command.description;
			return info;
		});
	}

	/**
	 * Runs `/name args` if `name` is an extension command's invocation name.
	 * Resolves true when a command ran — also when its handler threw: that is reported as
	 * `{extensionPath: "command:<name>", event: "command"}`, to `reportError` (default: this
	 * runner's listeners; a session passes its current runner's, which a reload during the command
	 * has replaced, pi#7816). Resolves false for other text.
	 */
	async dispatchCommand(
		text: string,
		reportError: (error: ExtensionError) => void = (error) => this.emitError(error),
	): Promise<boolean> {
		const invocation = parseCommandInvocation(text);
		if (!invocation) return false;
		const command = this.getCommand(invocation.name);
		if (!command) return false;
		try {
			const context = this.forExtension(this.createCommandContext(), this.extensionPathOf(command.sourceInfo));
			await this.track(command.sourceInfo.path, `command:${invocation.name}`, () =>
				command.handler(invocation.args, context),
			);
		} catch (error) {
			reportError(errorRecord(`command:${invocation.name}`, "command", error));
		}
		return true;
	}

	/**
	 * The extension handlers (and commands) running right now, oldest first: what a host names
	 * when the session waits on one that never settles (`settle` does on SIGTERM and when the
	 * process would otherwise end with nothing left to run).
	 *
	 * @example
	 * ```ts
	 * for (const { extensionPath, event } of runner.pendingHandlers()) console.error(`${event} in ${extensionPath}`);
	 * ```
	 */
	pendingHandlers(): PendingHandler[] {
		return [...this.inFlight].map((call) => ({ ...call }));
	}

	private async track<T>(extensionPath: string, event: string, call: () => T | Promise<T>): Promise<T> {
		const record: PendingHandler = { extensionPath, event };
		this.inFlight.add(record);
		try {
			return await call();
		} finally {
			this.inFlight.delete(record);
		}
	}

	// -------------------------------------------------------------------------------------------
	// Errors and staleness

	/** Listens to handler errors; returns the unsubscribe function. */
	onError(listener: ExtensionErrorListener): () => void {
		this.errorListeners.add(listener);
		return () => this.errorListeners.delete(listener);
	}

	/**
	 * Reports an error nothing caught (a throw in an extension's own timer or event listener, a
	 * rejection nobody awaited) as an `uncaught` error of the extension whose file is in its stack
	 * (a folder extension's `index` file: any file of its folder). Returns false, reporting
	 * nothing, when no loaded extension's code is in the stack. oh-my-pi#5664, pi#4791.
	 *
	 * @example
	 * ```ts
	 * declare const runner: ExtensionRunner;
	 * process.on("uncaughtException", (error) => {
	 * 	if (!runner.reportUncaught(error)) throw error;
	 * });
	 * ```
	 */
	reportUncaught(error: unknown): boolean {
		const stack = error instanceof Error ? error.stack : undefined;
		if (stack === undefined) return false;
		const frames = stack.split("\n").map((frame) => frame.replace("file://", ""));
		const inFrames = (prefix: string) => frames.some((frame) => frame.includes(prefix));
		const paths = this.getExtensionPaths().filter((path) => path.startsWith("/"));
		const owner =
			paths.find((path) => inFrames(`${path}:`)) ??
			paths.find((path) => /^index\.[cm]?[jt]s$/.test(basename(path)) && inFrames(`${dirname(path)}/`));
		if (owner === undefined) return false;
		this.emitError(errorRecord(owner, "uncaught", error));
		return true;
	}

	/** Reports an error to every listener. A throwing listener does not stop the others. */
	emitError(error: ExtensionError): void {
		for (const listener of [...this.errorListeners]) {
			try {
				listener(error);
			} catch {
				// A broken listener must not break dispatch.
			}
		}
	}

	/**
	 * The runtime tears the session down (a replacement or dispose): a handler left behind by the
	 * teardown's abort is not refused, since no later operation follows. `false` once a replacement
	 * rolled back: the session goes on. Not part of the public API.
	 */
	markSessionClosing(closing = true): void {
		this.runtime.sessionClosing = closing;
	}

	/**
	 * Makes every `pi` and `ctx` object of this runner throw `message` on any use (first call
	 * wins) and ends their `pi.events` subscriptions, and the programs they still run through
	 * `pi.exec` (SIGTERM, then SIGKILL) — after `execsEndAfter` when given. The session calls it on
	 * dispose and before a reload or replacement.
	 */
	invalidate(message: string = STALE_EXTENSION_CONTEXT_MESSAGE, execsEndAfter?: Promise<unknown>): void {
		this.runtime.invalidate(message, execsEndAfter);
	}

	/**
	 * These extensions heard `session_start` and no `session_shutdown` has gone out since: they are
	 * owed one (`session.dispose()` without a runtime sends it, pi-web#546).
	 *
	 * @example
	 * ```ts
	 * if (session.extensionRunner.awaitingShutdown) await runtime.dispose(); // waits for the handlers
	 * ```
	 */
	get awaitingShutdown(): boolean {
		return this.started && this.shutdownDispatch === undefined;
	}

	/** True after {@link invalidate}. */
	get isStale(): boolean {
		return this.runtime.stale !== undefined;
	}

	/** Whether any extension handles `event` (O(1) after the first call per event). */
	hasHandlers(event: string): boolean {
		// Handlers only come from extensions: with none loaded (a common SDK set-up) the session's
		// ~50 checks per prompt skip the dispatch-list lookup.
		const runtime = this.runtime;
		return runtime.extensions.length > 0 && runtime.handlersFor(event).length > 0;
	}

	/**
	 * Paths of the extensions that handle `event`, in dispatch order, each once: whom to name when
	 * the dispatch as a whole is given up on.
	 *
	 * @example
	 * ```ts
	 * declare const runner: ExtensionRunner;
	 * runner.handlerPaths("agent_before_settle"); // [] when no extension handles it
	 * ```
	 */
	handlerPaths(event: string): string[] {
		if (!this.hasHandlers(event)) return [];
		return [...new Set(this.runtime.handlersFor(event).map((entry) => entry.extension.path))];
	}

	// -------------------------------------------------------------------------------------------
	// Contexts

	/**
	 * The context handlers and tools get. Every member reads the current value when used, so one
	 * object serves the whole runner lifetime; after {@link invalidate} every member throws.
	 *
	 * With `extensionPath`, that extension's context (each handler, command and tool gets its own
	 * extension's): the same members, but `ctx.ui` is, for a headless UI, the view whose
	 * notifications and dialogs carry `extensionPath` (`HeadlessUIContext.forExtension`); a host's own
	 * UI is the same object for every extension.
	 *
	 * @example
	 * ```ts
	 * const ctx = runner.createContext("/repo/.settle/extensions/deploy.ts");
	 * ctx.ui.notify("Deployed."); // without a host UI: an extension_notify event naming deploy.ts
	 * ```
	 */
	createContext(extensionPath?: string): ExtensionContext {
		if (extensionPath !== undefined) return this.forExtension(this.createContext(), extensionPath);
		if (this.context) return this.context;
		const runner = this;
		const guard = <T>(read: () => T): T => {
			runner.runtime.assertActive();
			return read();
		};
		const actions = () => runner.contextActions;
		this.context = {
			get ui() {
				return guard(() => runner.uiContext);
			},
			get mode() {
				return guard(() => runner.mode);
			},
			get hasUI() {
				return guard(() => runner.hasUI());
			},
			get cwd() {
				return guard(() => runner.cwd);
			},
			get sessionManager() {
				return guard(() => {
					if (!runner.sessionView) {
						throw new SettleError("EXTENSION", "ctx.sessionManager is not available: this runner has no session.");
					}
					return runner.sessionView;
				});
			},
			get modelRegistry() {
				return guard(() => {
					if (!runner.modelRegistry) {
						throw new SettleError(
							"EXTENSION",
							"ctx.modelRegistry is not available: this runner has no model registry.",
						);
					}
					return runner.modelRegistry;
				});
			},
			get model() {
				return guard(() => actions().getModel());
			},
			get scopedModels() {
				return guard(() => actions().getScopedModels?.() ?? []);
			},
			get thinkingLevel() {
				return guard(() => runner.runtime.actions?.getThinkingLevel() ?? "off");
			},
			isIdle: () => guard(() => actions().isIdle()),
			isProjectTrusted: () => guard(() => actions().isProjectTrusted?.() ?? false),
			get signal() {
				return guard(() => actions().getSignal());
			},
			abort: () => guard(() => actions().abort()),
			hasPendingMessages: () => guard(() => actions().hasPendingMessages()),
			shutdown: () => guard(() => actions().shutdown()),
			getContextUsage: () => guard(() => actions().getContextUsage()),
			compact: (options?: CompactOptions) => guard(() => runner.startCompaction(options)),
			getSystemPrompt: () => guard(() => actions().getSystemPrompt()),
		};
		return this.context;
	}

	/**
	 * The context for what `source` describes: its extension's context when an extension of this
	 * runner registered it (a tool, a command), else the shared one ({@link createContext}).
	 *
	 * @example
	 * ```ts
	 * const tool = runner.getAllRegisteredTools()[0];
	 * const ctx = runner.contextForSource(tool?.sourceInfo); // ctx.ui names the tool's extension
	 * ```
	 */
	contextForSource(source: SourceInfo | undefined): ExtensionContext {
		const owner = source && this.runtime.extensions.find((extension) => extension.sourceInfo === source);
		return owner ? this.createContext(owner.path) : this.createContext();
	}

	/** The path of the extension whose source info `source` is (its own `path` when none is loaded). */
	private extensionPathOf(source: SourceInfo): string {
		return this.runtime.extensions.find((extension) => extension.sourceInfo === source)?.path ?? source.path;
	}

	/**
	 * `ctx` as the extension at `extensionPath` gets it: a copy of its members (getters stay lazy and
	 * stale-checked) whose `ui` is {@link uiForExtension} of the runner's current UI. One per
	 * context and extension.
	 */
	private forExtension<C extends ExtensionContext>(ctx: C, extensionPath: string): C {
		let copies = this.extensionContexts.get(ctx);
		if (!copies) {
			copies = new Map();
			this.extensionContexts.set(ctx, copies);
		}
		let copy = copies.get(extensionPath);
		if (!copy) {
			const runner = this;
			copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx)) as C;
			Object.defineProperty(copy, "ui", {
				enumerable: true,
				configurable: true,
				get() {
					runner.runtime.assertActive();
					return uiForExtension(runner.uiContext, extensionPath);
				},
			});
			this.nameWithSession(copy as Partial<ExtensionCommandContext>, extensionPath);
			// Its failure names this extension, as a refused pi.sendMessage does.
			copy.compact = (options?: CompactOptions) => {
				runner.runtime.assertActive();
				runner.startCompaction(options, extensionPath);
			};
			copies.set(extensionPath, copy);
		}
		return copy as C;
	}

	/**
	 * Makes the session-replacing calls of an extension's command context (`newSession`, `fork`,
	 * `switchSession`) hand their `withSession` callback that extension's context of the new
	 * session: its `ctx.ui` names the extension, as the context the call was made from does.
	 */
	private nameWithSession(copy: Partial<ExtensionCommandContext>, extensionPath: string): void {
		type WithSession = ((ctx: ReplacedSessionContext) => Promise<void>) | undefined;
		const named = <O extends { withSession?: WithSession }>(options: O | undefined): O | undefined => {
			const callback = options?.withSession;
			if (typeof callback !== "function") return options;
			return {
				...options,
				withSession: (replaced: ReplacedSessionContext) => {
					const runner = replacedContextRunners.get(replaced);
					return callback(runner ? runner.forExtension(replaced, extensionPath) : replaced);
				},
			} as O;
		};
		const { newSession, fork, switchSession } = copy;
		if (newSession) copy.newSession = (options) => newSession(named(options));
		if (fork) copy.fork = (entryId, options) => fork(entryId, named(options));
		if (switchSession) copy.switchSession = (sessionPath, options) => switchSession(sessionPath, named(options));
	}

	/** The context command handlers get: {@link createContext} plus session control. */
	createCommandContext(): ExtensionCommandContext {
		if (this.commandContext) return this.commandContext;
		const guard = <T>(read: () => T): T => {
			this.runtime.assertActive();
			return read();
		};
		// Copy descriptors, not values: the getters must stay lazy (and stale-checked).
		const context = Object.defineProperties(
			{},
			Object.getOwnPropertyDescriptors(this.createContext()),
		) as ExtensionCommandContext;
		context.getSystemPromptOptions = () => guard(() => this.contextActions.getSystemPromptOptions?.());
		context.waitForIdle = () => guard(() => this.commandActions.waitForIdle());
		context.newSession = (options) => guard(() => this.commandActions.newSession(options));
		context.fork = (entryId, options) => guard(() => this.commandActions.fork(entryId, options));
		context.navigateTree = (targetId, options) => guard(() => this.commandActions.navigateTree(targetId, options));
		context.switchSession = (path, options) => guard(() => this.commandActions.switchSession(path, options));
		context.reload = () => guard(() => this.commandActions.reload());
		this.commandContext = context;
		return context;
	}

	/**
	 * The context a `withSession` callback gets after a replacement, bound to this (new) runner:
	 * a command context whose `sendMessage` / `sendUserMessage` return the session's promises.
	 */
	createReplacedSessionContext(): ReplacedSessionContext {
		const context = Object.defineProperties(
			{},
			Object.getOwnPropertyDescriptors(this.createCommandContext()),
		) as ReplacedSessionContext;
		context.sendMessage = async (message, options) => {
			this.runtime.assertActive();
			await this.runtime.action("sendMessage")(message, options);
		};
		context.sendUserMessage = async (content, options) => {
			this.runtime.assertActive();
			await this.runtime.action("sendUserMessage")(content, options);
		};
		replacedContextRunners.set(context, this);
		return context;
	}

	private startCompaction(options?: CompactOptions, sentBy?: string): void {
		let pending: Promise<unknown>;
		try {
			pending = this.contextActions.compact(options?.customInstructions);
		} catch (error) {
			pending = Promise.reject(error);
		}
		pending.then(
			(result) => options?.onComplete?.(result as Parameters<NonNullable<CompactOptions["onComplete"]>>[0]),
			(error) => {
				const failure = error instanceof Error ? error : new Error(errorMessage(error));
				if (options?.onError) options.onError(failure);
				else this.emitError({ ...errorRecord("<runtime>", "compact", failure), ...(sentBy && { sentBy }) });
			},
		);
	}

	// -------------------------------------------------------------------------------------------
	// Dispatch

	private async invoke(
		entry: HandlerEntry,
		eventName: string,
		event: unknown,
		ctx: ExtensionContext,
	): Promise<Invoked> {
		try {
			const own = this.forExtension(ctx, entry.extension.path);
			return await this.track(entry.extension.path, eventName, () => entry.handler(event, own));
		} catch (error) {
			this.emitError(errorRecord(entry.extension.path, eventName, error));
			return FAILED;
		}
	}

	/**
	 * {@link invoke} for a boundary handler the host may leave behind: it gets a context bound to
	 * this call ({@link scopedContext}), and its async work runs in `scope`, so that once left
	 * behind neither its `ctx` nor its `pi` acts on the session.
	 */
	private async invokeScoped(entry: HandlerEntry, event: unknown, scope: HandlerScope): Promise<Invoked> {
		const path = entry.extension.path;
		try {
			const ctx = this.scopedContext(path, scope);
			return await this.track(path, scope.event, () => runInHandlerScope(scope, () => entry.handler(event, ctx)));
		} catch (error) {
			// Its refusal was reported when it was made.
			if (!isReportedRefusal(error)) this.emitError(errorRecord(path, scope.event, error));
			return FAILED;
		} finally {
			scope.settledInTime = scope.abandoned?.aborted !== true;
		}
	}

	/**
	 * The extension's context for one boundary handler call: `signal` is the call's operation's
	 * (pi reads the session's current one, so a handler left behind sees the next run's), and once
	 * the call is left behind `ui`, `abort`, `shutdown` and `compact` are refused. It reads as the
	 * extension's plain context (its members its own and enumerable: `{ ...ctx }` and a copy by
	 * descriptors keep the call's): a proxy over it, made per call (an object with its own
	 * accessors cost ~25 µs a call).
	 */
	private scopedContext(extensionPath: string, scope: HandlerScope): ExtensionContext {
		let members = this.scopedMembers.get(extensionPath);
		if (!members) {
			const own = this.forExtension(this.createContext(), extensionPath);
			const runtime = this.runtime;
			const refused =
				<K extends "abort" | "shutdown" | "compact">(name: K) =>
				(scope: HandlerScope) =>
				(...args: unknown[]) => {
					runtime.refuseLeftBehind(`ctx.${name}`, scope);
					return (own[name] as (...a: unknown[]) => unknown)(...args);
				};
			const scoped = new Map<PropertyKey, (scope: HandlerScope) => unknown>([
				[
					"signal",
					(scope) => {
						runtime.assertActive();
						return scope.signal ?? own.signal;
					},
				],
				[
					"ui",
					(scope) => {
						runtime.refuseLeftBehind("ctx.ui", scope);
						return own.ui;
					},
				],
				["abort", refused("abort")],
				["shutdown", refused("shutdown")],
				["compact", refused("compact")],
			]);
			members = { own, scoped };
			this.scopedMembers.set(extensionPath, members);
		}
		const { own, scoped } = members;
		// What the handler assigns on its ctx, as on pi's plain per-event object: this call's alone
		// (`own` is the extension's for every call, so a write there reached its next run).
		let written: Map<string | symbol, unknown> | undefined;
		return new Proxy(own, {
			get: (target, key) => {
				if (written?.has(key)) return written.get(key);
				const read = scoped.get(key);
				return read ? read(scope) : Reflect.get(target, key);
			},
			set: (target, key, value) => {
				const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
				// A getter (`signal`, `ui`, `cwd`…) takes no assignment, as on pi's object (a TypeError).
				if (descriptor && !(descriptor.writable || descriptor.set)) return false;
				written ??= new Map();
				written.set(key, value);
				return true;
			},
			has: (target, key) => written?.has(key) === true || Reflect.has(target, key),
			ownKeys: (target) => {
				const keys = Reflect.ownKeys(target);
				return written ? [...new Set([...keys, ...written.keys()])] : keys;
			},
			// The shared members stay; a delete answers true, as on a plain object (false is a TypeError in strict code).
			deleteProperty: (_target, key) => {
				written?.delete(key);
				return true;
			},
			// A copy by descriptors (`Object.getOwnPropertyDescriptors(ctx)`) reads the call's members too,
			// not the extension context's (the session's current signal, an unrefused `ui`).
			getOwnPropertyDescriptor: (target, key) => {
				if (written?.has(key)) return { configurable: true, enumerable: true, writable: true, value: written.get(key) };
				const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
				const read = scoped.get(key);
				if (!read || !descriptor) return descriptor;
				return { configurable: true, enumerable: descriptor.enumerable, get: () => read(scope) };
			},
		});
	}

	/**
	 * Dispatches an event without a dedicated method. For `session_before_*` it returns the last
	 * handler result that sets a field (`cancel: false` alone sets none) and stops at the first
	 * `{cancel: true}`; otherwise undefined.
	 */
	async emit<E extends RunnerEmitEvent>(event: E): Promise<RunnerEmitResult<E>> {
		return (await this.emitNamingDecider(event)).result;
	}

	/**
	 * {@link emit}, also naming the extension whose handler result was taken (`decidedBy`, its path):
	 * whom a cancelled `session_before_*` is told as cancelled by (pi#7492).
	 */
	async emitNamingDecider<E extends RunnerEmitEvent>(
		event: E,
	): Promise<{ result: RunnerEmitResult<E>; decidedBy?: string }> {
		const handlers = this.runtime.handlersFor(event.type);
		// A session_start opens a new lifecycle (a runtime's rollback binds the old session again): its end is told again.
		if (event.type === "session_start") {
			this.shutdownDispatch = undefined;
			this.started = true;
		}
		if (handlers.length === 0) return { result: undefined as RunnerEmitResult<E> };
		const ctx = this.createContext();
		const cancellable = CANCELLABLE_EVENTS.has(event.type);
		let result: unknown;
		let decidedBy: string | undefined;
		for (const entry of handlers) {
			const value = await this.invoke(entry, event.type, event, ctx);
			// `{}` or `{ cancel: false }` decides nothing: it must not discard an earlier handler's
			// supplied compaction or summary, as pi 0.73.1's does (pi-goal-list-loop-audit#56).
			if (cancellable && value && value !== FAILED && !decidesNothing(value)) {
				result = value;
				decidedBy = entry.extension.path;
				if ((value as { cancel?: unknown }).cancel === true) break;
			}
		}
		return { result: result as RunnerEmitResult<E>, ...(decidedBy !== undefined && { decidedBy }) };
	}

	/**
	 * `session_shutdown`: each handler in turn, as {@link emit} does, until `abandon` aborts (the
	 * teardown's bounded wait ran out, pi#9811). Then the handler still running is left to finish on
	 * its own and the handlers after it are started without being waited for, so one stuck cleanup
	 * does not cost the other extensions theirs (senpi#1732). Never rejects (a throwing handler is
	 * reported through `onError`, as in {@link emit}).
	 *
	 * Once per extension set (until a `session_start` opens a new lifecycle): a second call — a
	 * runtime's teardown overtaking a reload that already told these extensions — dispatches nothing
	 * and waits for the first dispatch; either caller's `abandon` abandons it.
	 *
	 * @example
	 * ```ts
	 * const bound = AbortSignal.timeout(10_000);
	 * await runner.emitSessionShutdown({ type: "session_shutdown", reason: "quit" }, bound);
	 * ```
	 */
	emitSessionShutdown(event: SessionShutdownEvent, abandon?: AbortSignal): Promise<void> {
		const handlers = this.runtime.handlersFor(event.type);
		if (handlers.length === 0) return Promise.resolve();
		let dispatch = this.shutdownDispatch;
		if (!dispatch) {
			const abandonAll = new AbortController();
			const started: Promise<unknown>[] = [];
			const done = this.dispatchSessionShutdown(event, handlers, abandonAll.signal, started);
			// Every handler started (in turn, or all at once once abandoned) has returned or thrown.
			const settled = done.then(() => Promise.all(started)).then(() => undefined);
			dispatch = { abandon: abandonAll, done, settled };
			this.shutdownDispatch = dispatch;
		}
		if (abandon) {
			const shared = dispatch.abandon;
			if (abandon.aborted) shared.abort();
			else abandon.addEventListener("abort", () => shared.abort(), { once: true });
		}
		return dispatch.done;
	}

	/**
	 * Resolves once every `session_shutdown` handler of this lifecycle's dispatch has returned or
	 * thrown, abandoned or not ({@link emitSessionShutdown} resolves when it stops waiting). Resolves
	 * at once when none was dispatched. Unbounded: race it with your own timer.
	 *
	 * @example
	 * ```ts
	 * void runner.emitSessionShutdown({ type: "session_shutdown", reason: "quit" }, AbortSignal.abort());
	 * await runner.sessionShutdownSettled(); // every handler ran to its end
	 * ```
	 */
	sessionShutdownSettled(): Promise<void> {
		return this.shutdownDispatch?.settled ?? Promise.resolve();
	}

	private async dispatchSessionShutdown(
		event: SessionShutdownEvent,
		handlers: readonly HandlerEntry[],
		abandon: AbortSignal,
		started: Promise<unknown>[],
	): Promise<void> {
		const ctx = this.createContext();
		const abandoned = new Promise<void>((resolve) => {
			if (abandon.aborted) resolve();
			else abandon.addEventListener("abort", () => resolve(), { once: true });
		});
		for (const entry of handlers) {
			const running = this.invoke(entry, event.type, event, ctx);
			started.push(running);
			if (abandon.aborted) continue;
			await Promise.race([running, abandoned]);
		}
	}

	/**
	 * `input`. Transforms chain (later handlers see the transformed text;
	 * images are kept when a transform omits them); `handled` stops at once. Resolves
	 * `{action:"transform", …}` when the text or images changed, else `{action:"continue"}`.
	 */
	async emitInput(
		text: string,
		images: ImageContent[] | undefined,
		source: InputSource,
		extras: InputExtras = {},
	): Promise<InputEventResult> {
		const handlers = this.runtime.handlersFor("input");
		if (handlers.length === 0) return { action: "continue" };
		const ctx = this.createContext();
		let currentText = text;
		let currentImages = images;
		for (const entry of handlers) {
			const event: Record<string, unknown> = { type: "input", text: currentText, images: currentImages, source };
			if (extras.streamingBehavior !== undefined) event.streamingBehavior = extras.streamingBehavior;
			if (extras.inputId !== undefined) event.inputId = extras.inputId;
			const value = (await this.invoke(entry, "input", event, ctx)) as InputEventResult | undefined | typeof FAILED;
			if (!value || value === FAILED) continue;
			if (value.action === "handled") return { action: "handled" };
			if (value.action === "transform") {
				if (typeof value.text !== "string") {
					this.emitError({
						extensionPath: entry.extension.path,
						event: "input",
						error: 'An input handler returned {action: "transform"} without a text string; the transform was ignored.',
					});
					continue;
				}
				currentText = value.text;
				currentImages = value.images ?? currentImages;
			}
		}
		if (currentText === text && currentImages === images) return { action: "continue" };
		return currentImages === undefined
			? { action: "transform", text: currentText }
			: { action: "transform", text: currentText, images: currentImages };
	}

	/**
	 * `before_agent_start`. `systemPromptOptions` is handed to every handler
	 * as is and may be mutated: pass the operation's own object. `systemPrompt` chains (and
	 * `ctx.getSystemPrompt()` returns the chained value inside the handlers); messages of all
	 * handlers are collected in order with null content normalized to `[]`. Resolves undefined when
	 * no handler returned anything.
	 */
	async emitBeforeAgentStart(
		prompt: string,
		images: ImageContent[] | undefined,
		systemPrompt: string,
		systemPromptOptions: SystemPromptOptions,
		extras: BeforeAgentStartExtras = {},
	): Promise<BeforeAgentStartCombinedResult | undefined> {
		const handlers = this.runtime.handlersFor("before_agent_start");
		if (handlers.length === 0) return undefined;
		let currentPrompt = systemPrompt;
		let promptChanged = false;
		const messages: CustomMessageInput[] = [];
		const ctx = Object.defineProperties({}, Object.getOwnPropertyDescriptors(this.createContext())) as ExtensionContext;
		ctx.getSystemPrompt = () => {
			this.runtime.assertActive();
			return currentPrompt;
		};
		for (const entry of handlers) {
			const refreshed = extras.refreshSystemPrompt?.();
			if (refreshed !== undefined && !promptChanged) currentPrompt = refreshed;
			const event: Record<string, unknown> = {
				type: "before_agent_start",
				prompt,
				images,
				systemPrompt: currentPrompt,
				systemPromptOptions,
			};
			if (extras.trigger !== undefined) event.trigger = extras.trigger;
			if (extras.messageType !== undefined) event.messageType = extras.messageType;
			const value = (await this.invoke(entry, "before_agent_start", event, ctx)) as
				| BeforeAgentStartEventResult
				| undefined
				| typeof FAILED;
			if (!value || value === FAILED) continue;
			if (value.message) {
				if (typeof value.message.customType !== "string" || value.message.customType.length === 0) {
					this.emitError({
						extensionPath: entry.extension.path,
						event: "before_agent_start",
						error:
							"A before_agent_start handler returned a message without a customType string; the message was dropped.",
					});
				} else {
					messages.push({ ...value.message, content: value.message.content ?? [] });
				}
			}
			if (value.systemPrompt !== undefined && typeof value.systemPrompt !== "string") {
				this.emitError({
					extensionPath: entry.extension.path,
					event: "before_agent_start",
					error: `A before_agent_start handler returned a systemPrompt that is not a string (${typeof value.systemPrompt}); it was ignored.`,
				});
			} else if (value.systemPrompt !== undefined) {
				currentPrompt = value.systemPrompt;
				promptChanged = true;
			}
		}
		if (messages.length === 0 && !promptChanged) return undefined;
		const result: BeforeAgentStartCombinedResult = {};
		if (messages.length > 0) result.messages = messages;
		if (promptChanged) result.systemPrompt = currentPrompt;
		return result;
	}

	/**
	 * `context` and `context_with_system`, before each model request. Without handlers the given
	 * array is returned as is (no copy). Otherwise handlers get their own deep copy, made once per
	 * dispatch: `context` handlers see the messages without `system` ones (restored afterwards at
	 * their positions), then `context_with_system` handlers see everything. Returned `{messages}`
	 * replace the list (chain); in-place changes to the copy count too.
	 */
	async emitContext(messages: AgentMessage[]): Promise<AgentMessage[]> {
		const plain = this.runtime.handlersFor("context");
		const withSystem = this.runtime.handlersFor("context_with_system");
		if (plain.length === 0 && withSystem.length === 0) return messages;
		const ctx = this.createContext();
		let current = messages;
		let owned = false;
		if (plain.length > 0) {
			const slots: { message: AgentMessage; before: number }[] = [];
			const others: AgentMessage[] = [];
			for (const message of messages) {
				if ((message as { role?: string }).role === "system") slots.push({ message, before: others.length });
				else others.push(message);
			}
			let working = structuredClone(others);
			working = await this.chainMessages(plain, "context", working, ctx);
			current =
				slots.length === 0
					? working
					: restoreSystemMessages(working, withSystem.length > 0 ? structuredClone(slots) : slots);
			owned = true;
		}
		if (withSystem.length > 0) {
			current = await this.chainMessages(
				withSystem,
				"context_with_system",
				owned ? current : structuredClone(current),
				ctx,
			);
		}
		return current;
	}

	private async chainMessages(
		handlers: readonly HandlerEntry[],
		type: "context" | "context_with_system",
		messages: AgentMessage[],
		ctx: ExtensionContext,
	): Promise<AgentMessage[]> {
		let current = messages;
		for (const entry of handlers) {
			const value = (await this.invoke(entry, type, { type, messages: current }, ctx)) as
				| ContextEventResult
				| undefined
				| typeof FAILED;
			if (!value || value === FAILED || value.messages === undefined) continue;
			if (!Array.isArray(value.messages)) {
				this.emitError({
					extensionPath: entry.extension.path,
					event: type,
					error: `A ${type} handler returned messages that are not an array; they were ignored.`,
				});
				continue;
			}
			// A list the model reads none of (pi-lens#13: only the handler's own guidance, as role
			// "system") would send a request without the conversation: providers refuse it. An empty
			// list is kept, as in pi (a filter that drops every message must not have it sent).
			if (value.messages.length > 0 && !value.messages.some(isSentToModel) && current.some(isSentToModel)) {
				this.emitError({
					extensionPath: entry.extension.path,
					event: type,
					error: unreadContextMessage(type, value.messages),
				});
				continue;
			}
			current = value.messages;
		}
		return current;
	}

	/**
	 * `message_end`. Replacements chain; one with another role is reported
	 * (`message_end handlers must return a message with the same role`) and ignored; a replacement
	 * with null or missing content (user, assistant, toolResult, custom) gets `content: []`; one
	 * `appendMessage` would refuse (content `42`, a tool result without `toolCallId`…) is reported and ignored.
	 * Resolves the final replacement, or undefined when no handler replaced the message.
	 */
	async emitMessageEnd(event: MessageEndEvent): Promise<AgentMessage | undefined> {
		const handlers = this.runtime.handlersFor("message_end");
		if (handlers.length === 0) return undefined;
		const ctx = this.createContext();
		let current = event.message;
		let replaced = false;
		for (const entry of handlers) {
			const value = (await this.invoke(entry, "message_end", { ...event, message: current }, ctx)) as
				| MessageEndEventResult
				| undefined
				| typeof FAILED;
			if (!value || value === FAILED || !value.message) continue;
			const next = value.message as AgentMessage & { role?: string; content?: unknown };
			if (next.role !== (current as { role?: string }).role) {
				this.emitError({ extensionPath: entry.extension.path, event: "message_end", error: MESSAGE_END_ROLE_MESSAGE });
				continue;
			}
			const candidate =
				CONTENT_ROLES.has(next.role) && next.content == null ? ({ ...next, content: [] } as AgentMessage) : next;
			// Stored as it was, it would be refused at persistence, inside the run (the message lost).
			const invalid = messageShapeError("A message_end handler's replacement", candidate, "It was ignored.");
			if (invalid) {
				this.emitError({ extensionPath: entry.extension.path, event: "message_end", error: invalid.message });
				continue;
			}
			const previous = current;
			current = candidate;
			// The next handler (and the host, via failureOf) sees a reworded failure's code.
			carryFailure(previous, current);
			replaced = true;
		}
		return replaced ? current : undefined;
	}

	/**
	 * `tool_call`. Handlers get `event.input` itself and may mutate it in place (pass
	 * the validated arguments the tool will run with). The first `{block: true}` wins; otherwise
	 * the last non-undefined result. A throwing handler rejects the dispatch (the session turns the
	 * rejection into a blocked call): Errors as they are, other values as
	 * `Extension failed, blocking execution: <value>`. `check` (the session passes the tool's schema
	 * check) runs after each handler: arguments a handler left invalid block the call, naming the
	 * extension that broke them, rather than reaching the tool as a TypeError (claude-code#30770).
	 * With `watch` (the session passes the agent loop's), each handler's `ctx` is bound to the
	 * operation, a handler left behind after the abort's grace is refused what it does late, and the
	 * handlers after it do not start.
	 */
	async emitToolCall(
		event: ToolCallEvent,
		check?: (input: Record<string, unknown>) => string | undefined,
		watch?: ToolHookWatch,
	): Promise<ToolCallEventResult | undefined> {
		const handlers = this.runtime.handlersFor("tool_call");
		if (handlers.length === 0) return undefined;
		const ctx = watch ? undefined : this.createContext();
		let result: ToolCallEventResult | undefined;
		// The first extension after whose handler the arguments went invalid (a later one may mend them).
		let broken: { path: string; problem: string } | undefined;
		for (const entry of handlers) {
			// The loop gave up on the hook: the handlers after the one left behind would run late, for a call that is over.
			if (watch?.abandoned?.aborted) return undefined;
			let value: unknown;
			const path = entry.extension.path;
			const scope = watch && toolScope(path, "tool_call", watch);
			try {
				value = await this.track(path, event.type, () =>
					scope
						? runInHandlerScope(scope, () => entry.handler(event, this.scopedContext(path, scope)))
						: entry.handler(event, this.forExtension(ctx!, path)),
				);
			} catch (error) {
				const rejection =
					error instanceof Error
						? error
						: new SettleError("EXTENSION", `${TOOL_CALL_FAILURE_PREFIX}${String(error)}`, { cause: error });
				toolCallFailures.set(rejection, entry.extension.path);
				throw rejection;
			} finally {
				if (scope) scope.settledInTime = scope.abandoned?.aborted !== true;
			}
			if (value) {
				result = value as ToolCallEventResult;
				if (result.block) return result;
			}
			const problem = check?.(event.input);
			broken = problem === undefined ? undefined : { path: broken?.path ?? entry.extension.path, problem };
		}
		if (broken) {
			return {
				block: true,
				reason: `The tool_call handler of ${broken.path} changed the arguments of ${event.toolName} into ones it cannot take, so the call was not run. ${broken.problem}`,
			};
		}
		return result;
	}

	/**
	 * `tool_result`. Overrides chain field by field (`content`, `details`,
	 * `isError`, `usage`; later handlers see earlier overrides); `content` that is not an array of
	 * content blocks (it could not be stored: `appendMessage` refuses it) is reported to `onError` and
	 * ignored, as is an `isError` that is not a boolean. Resolves the resulting fields, or undefined when no handler
	 * changed anything. `watch` as for {@link emitToolCall}.
	 */
	async emitToolResult(event: ToolResultEvent, watch?: ToolHookWatch): Promise<ToolResultEventResult | undefined> {
		const handlers = this.runtime.handlersFor("tool_result");
		if (handlers.length === 0) return undefined;
		const ctx = watch ? undefined : this.createContext();
		const current = { ...event } as ToolResultEvent;
		let modified = false;
		for (const entry of handlers) {
			// As in emitToolCall: nothing starts once the loop gave up on the hook.
			if (watch?.abandoned?.aborted) return undefined;
			const value = (await (watch
				? this.invokeScoped(entry, current, toolScope(entry.extension.path, "tool_result", watch))
				: this.invoke(entry, "tool_result", current, ctx!))) as ToolResultEventResult | undefined | typeof FAILED;
			if (!value || value === FAILED) continue;
			if (value.content !== undefined && !isUsableBlockList(value.content)) {
				this.emitError({
					extensionPath: entry.extension.path,
					event: "tool_result",
					error: Array.isArray(value.content)
						? "A tool_result handler returned content holding something other than text, image, thinking or toolCall blocks; it was ignored."
						: "A tool_result handler returned content that is not an array; it was ignored.",
				});
			} else if (value.content !== undefined) {
				current.content = value.content;
				modified = true;
			}
			if (value.details !== undefined) {
				current.details = value.details as never;
				modified = true;
			}
			if (value.isError !== undefined && typeof value.isError !== "boolean") {
				// pi 0.73.1 stores it as returned ("yes", 1) and sends it as the provider's `is_error`.
				this.emitError({
					extensionPath: entry.extension.path,
					event: "tool_result",
					error: `A tool_result handler returned isError ${JSON.stringify(value.isError)}, not a boolean; it was ignored. Return isError: true or false (or leave it out).`,
				});
			} else if (value.isError !== undefined) {
				current.isError = value.isError;
				modified = true;
			}
			if (value.usage !== undefined) {
				current.usage = value.usage;
				modified = true;
			}
		}
		if (!modified) return undefined;
		const result: ToolResultEventResult = {
			content: current.content,
			details: current.details,
			isError: current.isError,
		};
		if (current.usage !== undefined) result.usage = current.usage;
		return result;
	}

	/**
	 * `turn_end` and `agent_before_settle` boundaries. Drafts start empty and
	 * `continue` false; each handler gets `{...base, entries, continue, context}` and may mutate
	 * `event.entries` in place (or assign `event.entries` / `event.continue`), or return
	 * `{entries}` (replaces the list) and/or `{continue}`. After every handler — also one that
	 * threw, whose in-place changes are kept — the drafts are checked and `buildContext(entries)`
	 * rebuilds the preview; a failure is reported as `Invalid boundary entries: <msg>` and the
	 * previous preview stays (a later handler may repair the drafts). A `continue` request whose
	 * final context cannot run a model call is reported
	 * (`<event> requested continuation without runnable model context`) and dropped.
	 *
	 * Without handlers it resolves `{entries: [], continue: false, context: undefined, valid: true}`
	 * without calling `buildContext`. Throws when a `turn_end` base lacks `messageEntryId`, and
	 * when `buildContext([])` throws (the preview of no drafts must always build). Once
	 * `watch.abandoned` aborts, no further handler starts and it resolves with no drafts and no
	 * continuation, reporting nothing: the host has moved on. Each handler call gets its own
	 * context, whose `signal` is `watch.signal`; the call still running when `watch.abandoned`
	 * aborts is left behind: what it does through that context or its `pi` is refused
	 * (`STALE_CONTEXT`, reported naming it).
	 *
	 * @example
	 * ```ts
	 * declare const previewDrafts: (entries: readonly BoundaryEntryDraft[]) => BoundaryContextPreview;
	 * declare const commitDrafts: (entries: readonly BoundaryEntryDraft[]) => void;
	 * const boundary = await runner.emitBoundary({ type: "agent_before_settle", outcome: "completed" }, previewDrafts);
	 * if (boundary.valid) commitDrafts(boundary.entries);
	 * if (boundary.continue) await agent.continue();
	 * ```
	 */
	async emitBoundary(
		base: BoundaryBase,
		buildContext: (entries: readonly BoundaryEntryDraft[]) => BoundaryContextPreview,
		watch: BoundaryDispatchWatch = {},
	): Promise<BoundaryDispatchResult> {
		if (base.type === "turn_end" && !base.messageEntryId) {
			throw new SettleError("INTERNAL", TURN_END_MISSING_ENTRY_MESSAGE);
		}
		const handlers = this.runtime.handlersFor(base.type);
		if (handlers.length === 0) return { entries: [], continue: false, context: undefined, valid: true };
		let entries: BoundaryEntryDraft[] = [];
		let requested = false;
		let requestedBy = "<runtime>";
		let context = buildContext(entries);
		let valid = true;
		let error: string | undefined;
		for (const entry of handlers) {
			const event = { ...base, entries, continue: requested, context };
			watch.onHandler?.(entry.extension.path);
			const scope: HandlerScope = {
				extensionPath: entry.extension.path,
				event: base.type,
				signal: watch.signal,
				abandoned: watch.abandoned,
				graceMs: watch.graceMs,
				settledInTime: false,
			};
			const value = (await this.invokeScoped(entry, event, scope)) as BoundaryEventResult | undefined | typeof FAILED;
			// Left behind: the handlers after it would run late, against another answer (oh-my-pi#6489).
			if (watch.abandoned?.aborted) return { entries: [], continue: false, context, valid: true };
			let nextEntries: unknown = event.entries;
			let nextContinue: unknown = event.continue;
			if (value && value !== FAILED && typeof value === "object") {
				if (value.entries !== undefined) nextEntries = value.entries;
				if (value.continue !== undefined) nextContinue = value.continue;
			}
			entries = nextEntries as BoundaryEntryDraft[];
			if (nextContinue !== requested) {
				requested = nextContinue === true;
				if (requested) requestedBy = entry.extension.path;
			}
			try {
				validateBoundaryEntries(entries);
				context = buildContext(entries);
				valid = true;
				error = undefined;
			} catch (failure) {
				valid = false;
				error = `${INVALID_BOUNDARY_ENTRIES_PREFIX}${errorMessage(failure)}`;
				this.emitError({ extensionPath: entry.extension.path, event: base.type, error });
			}
		}
		if (!Array.isArray(entries)) entries = [];
		if (requested && (!valid || !context.canContinue)) {
			this.emitError({
				extensionPath: requestedBy,
				event: base.type,
				error: continuationWithoutContextMessage(base.type),
			});
			requested = false;
		}
		const result: BoundaryDispatchResult = { entries, continue: requested, context, valid };
		if (error !== undefined) result.error = error;
		return result;
	}

	/** `before_provider_request`: any non-undefined result replaces the payload (chain). */
	async emitBeforeProviderRequest(
		payload: unknown,
		extras: { model?: Model; headers?: Record<string, string> } = {},
	): Promise<unknown> {
		const handlers = this.runtime.handlersFor("before_provider_request");
		if (handlers.length === 0) return payload;
		const ctx = this.createContext();
		let current = payload;
		for (const entry of handlers) {
			const event: Record<string, unknown> = { type: "before_provider_request", payload: current };
			if (extras.model !== undefined) event.model = extras.model;
			if (extras.headers !== undefined) event.headers = extras.headers;
			const value = await this.invoke(entry, "before_provider_request", event, ctx);
			if (value !== undefined && value !== FAILED) current = value;
		}
		return current;
	}

	/**
	 * `before_provider_headers`: handlers mutate a copy of `headers` in place (setting a header to
	 * `null` deletes it). Resolves the resulting headers; without handlers, `headers` itself.
	 */
	async emitBeforeProviderHeaders(
		headers: Record<string, string>,
		extras: { model?: Model } = {},
	): Promise<Record<string, string>> {
		const handlers = this.runtime.handlersFor("before_provider_headers");
		if (handlers.length === 0) return headers;
		const ctx = this.createContext();
		let working: Record<string, string | null> = { ...headers };
		for (const entry of handlers) {
			const event: Record<string, unknown> = { type: "before_provider_headers", headers: working };
			if (extras.model !== undefined) event.model = extras.model;
			await this.invoke(entry, "before_provider_headers", event, ctx);
			const assigned = event.headers;
			if (assigned && typeof assigned === "object") working = assigned as Record<string, string | null>;
		}
		const result: Record<string, string> = {};
		for (const [name, value] of Object.entries(working)) {
			if (value !== null && value !== undefined) result[name] = String(value);
		}
		return result;
	}

	/**
	 * `cache_warming_decision`: the event's own action unless a handler returns `{action}`; the last
	 * override wins. A throwing handler is reported and skipped (pi 1.6's `emitCacheWarmingDecision`).
	 */
	async emitCacheWarmingDecision(event: CacheWarmingDecisionEvent): Promise<CacheWarmingAction> {
		const handlers = this.runtime.handlersFor("cache_warming_decision");
		let action = event.action;
		if (handlers.length === 0) return action;
		const ctx = this.createContext();
		for (const entry of handlers) {
			const value = await this.invoke(entry, "cache_warming_decision", event, ctx);
			if (value === FAILED) continue;
			const result = value as CacheWarmingDecisionEventResult | undefined;
			if (result?.action !== undefined) action = result.action;
		}
		return action;
	}

	/**
	 * `user_bash`: the first truthy result wins (`{operations}` or `{result}`). Fails closed: a
	 * throwing handler is reported and the dispatch rejects, so the session does not run the
	 * command on the local shell behind an extension that meant to route it elsewhere.
	 */
	async emitUserBash(event: UserBashEvent): Promise<UserBashEventResult | undefined> {
		const handlers = this.runtime.handlersFor("user_bash");
		if (handlers.length === 0) return undefined;
		const ctx = this.createContext();
		for (const entry of handlers) {
			let value: unknown;
			try {
				value = await this.track(entry.extension.path, event.type, () =>
					entry.handler(event, this.forExtension(ctx, entry.extension.path)),
				);
			} catch (error) {
				this.emitError(errorRecord(entry.extension.path, "user_bash", error));
				throw new SettleError(
					"EXTENSION",
					`The user_bash handler of ${entry.extension.path} failed (${errorMessage(error)}), so the command was not run.`,
					{ cause: error },
				);
			}
			if (value) return value as UserBashEventResult;
		}
		return undefined;
	}

	/** `resources_discover`: paths of all handlers, collected in order with the contributing extension. */
	async emitResourcesDiscover(cwd: string, reason: ResourcesDiscoverEvent["reason"]): Promise<CollectedResourcePaths> {
		const collected: CollectedResourcePaths = { skillPaths: [], promptPaths: [], themePaths: [] };
		const handlers = this.runtime.handlersFor("resources_discover");
		if (handlers.length === 0) return collected;
		const ctx = this.createContext();
		for (const entry of handlers) {
			const event: ResourcesDiscoverEvent = { type: "resources_discover", cwd, reason };
			const value = (await this.invoke(entry, "resources_discover", event, ctx)) as
				| ResourcesDiscoverResult
				| undefined
				| typeof FAILED;
			if (!value || value === FAILED) continue;
			for (const key of ["skillPaths", "promptPaths", "themePaths"] as const) {
				for (const path of value[key] ?? []) {
					const item = collectPath(path, entry.extension.path);
					if (item) collected[key].push(item);
					else {
						this.emitError({
							extensionPath: entry.extension.path,
							event: "resources_discover",
							error: `A resources_discover handler returned an invalid entry in ${key}: ${JSON.stringify(path)}`,
						});
					}
				}
			}
		}
		return collected;
	}
}

function collectPath(path: DiscoveredPath, extensionPath: string): CollectedResourcePath | undefined {
	if (typeof path === "string") return path.length > 0 ? { path, extensionPath } : undefined;
	if (path && typeof path === "object" && typeof path.path === "string" && path.path.length > 0) {
		return path.metadata
			? { path: path.path, extensionPath, metadata: path.metadata }
			: { path: path.path, extensionPath };
	}
	return undefined;
}

/** Whether the model is sent `message` (a request leaves out system and unknown roles). */
function isSentToModel(message: AgentMessage): boolean {
	return convertMessageToLlm(message) !== undefined;
}

/** Why a `context` result the model reads none of was ignored, and what to return instead. */
function unreadContextMessage(type: string, messages: readonly AgentMessage[]): string {
	const roles = [...new Set(messages.map((message) => JSON.stringify((message as { role?: unknown }).role)))];
	return `A ${type} handler returned ${messages.length} message(s) of role ${roles.join(", ")}: the request would carry none of the conversation, so they were ignored. Return event.messages with yours added ([...event.messages, ...yours]); the model reads roles user, assistant, toolResult and custom.`;
}

function restoreSystemMessages(
	messages: AgentMessage[],
	slots: readonly { message: AgentMessage; before: number }[],
): AgentMessage[] {
	const result: AgentMessage[] = [];
	let slot = 0;
	for (let index = 0; index < messages.length; index++) {
		while (slot < slots.length && slots[slot]!.before <= index) result.push(slots[slot++]!.message);
		result.push(messages[index]!);
	}
	while (slot < slots.length) result.push(slots[slot++]!.message);
	return result;
}

function readonlyView(manager: ReadonlySessionManager): ReadonlySessionManager {
	const view: Partial<Record<keyof ReadonlySessionManager, unknown>> = {};
	for (const method of READONLY_SESSION_METHODS) {
		const fn = manager[method];
		if (typeof fn === "function") {
			const call = fn.bind(manager) as (...args: unknown[]) => unknown;
			// pi#9824: the session's own entries would let an extension rewrite what the model is sent
			// (the file keeping the old text); it gets a frozen copy of each.
			view[method] = ENTRY_METHODS.has(method) ? (...args: unknown[]) => readonlyEntries(call(...args)) : call;
		} else {
			view[method] = () => {
				throw new SettleError("EXTENSION", `ctx.sessionManager.${method}() is not provided by this session.`);
			};
		}
	}
	// pi hands extensions the manager itself: a write through it changed the file but not the
	// session's context (pi#1781). Here a write method is a typed error saying what to call instead.
	return new Proxy(view, {
		get(target, property, receiver) {
			if (typeof property === "string" && !(property in target) && property in SESSION_WRITE_ADVICE) {
				return () => {
					throw new SettleError(
						"EXTENSION",
						`ctx.sessionManager.${property}() is not available: ctx.sessionManager is read-only, a write through it would change the session file but not the session. ${SESSION_WRITE_ADVICE[property]}`,
					);
				};
			}
			return Reflect.get(target, property, receiver);
		},
	}) as ReadonlySessionManager;
}

/** The read methods that return entries (or the header, or the tree of entries). */
const ENTRY_METHODS: ReadonlySet<string> = new Set([
	"getLeafEntry",
	"getEntry",
	"getBranch",
	"getHeader",
	"getEntries",
	"getTree",
]);

/**
 * An entry (or header) as extensions see it: a deep copy, frozen, made once per stored object (the
 * store only appends, so a stored entry never changes) — a read costs no copy after the first, and
 * an assignment to it throws a `TypeError` instead of changing the copy other readers get. A value
 * `structuredClone` refuses (a function in a tool's details) is copied as JSON.
 */
function frozenCopy<T>(value: T): T {
	if (value === null || typeof value !== "object") return value;
	const cached = FROZEN_COPIES.get(value);
	if (cached !== undefined) return cached as T;
	let copy: T;
	try {
		copy = structuredClone(value);
	} catch {
		copy = JSON.parse(JSON.stringify(value)) as T;
	}
	deepFreeze(copy);
	FROZEN_COPIES.set(value, copy);
	return copy;
}

const FROZEN_COPIES = new WeakMap<object, unknown>();

function deepFreeze(value: unknown): void {
	if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
	Object.freeze(value);
	for (const child of Object.values(value)) deepFreeze(child);
}

/** What an entry-returning read method gives an extension: entries (in arrays and tree nodes) as {@link frozenCopy}. */
function readonlyEntries(result: unknown): unknown {
	if (!Array.isArray(result)) return frozenCopy(result);
	return result.map((item: unknown) =>
		item !== null && typeof item === "object" && "entry" in item && "children" in item
			? treeNode(item as SessionTreeNodeView)
			: frozenCopy(item),
	);
}

function treeNode(node: SessionTreeNodeView): SessionTreeNodeView {
	return { ...node, entry: frozenCopy(node.entry), children: node.children.map(treeNode) };
}

/** pi's SessionManager write methods, each with the extension API that does it through the session. */
const SESSION_WRITE_ADVICE: Readonly<Record<string, string>> = {
	appendMessage: "Use pi.sendMessage() or pi.sendUserMessage().",
	appendCustomMessageEntry: "Use pi.sendMessage().",
	appendCustomEntry: "Use pi.appendEntry(customType, data).",
	appendSessionInfo: "Use pi.setSessionName(name).",
	appendLabelChange: "Use pi.setLabel(entryId, label).",
	appendModelChange: "Use pi.setModel(model).",
	appendThinkingLevelChange: "Use pi.setThinkingLevel(level).",
	appendCompaction: "Use ctx.compact().",
	appendBranchSummary: "Use ctx.navigateTree(targetId, { summarize: true }) from a command.",
	branch: "Use ctx.navigateTree(targetId) from a command.",
	branchWithSummary: "Use ctx.navigateTree(targetId, { summarize: true }) from a command.",
	resetLeaf: "Use ctx.navigateTree(targetId) from a command.",
	createBranchedSession: "Use ctx.fork(entryId) from a command.",
	newSession: "Use ctx.newSession() from a command.",
	setSessionFile: "Use ctx.switchSession(sessionPath) from a command.",
};

/**
 * Source metadata for resource paths an extension contributed (pi's labels: `extension:<name>`),
 * in the shape `ResourceLoader.extendResources` takes.
 *
 * @example
 * ```ts
 * const collected = await runner.emitResourcesDiscover(cwd, "startup");
 * resourceLoader.extendResources(resourcePathsFromDiscovery(collected));
 * ```
 */
export function resourcePathsFromDiscovery(collected: CollectedResourcePaths): {
	skillPaths: { path: string; metadata: Partial<Omit<SourceInfo, "path">> }[];
	promptPaths: { path: string; metadata: Partial<Omit<SourceInfo, "path">> }[];
	themePaths: { path: string; metadata: Partial<Omit<SourceInfo, "path">> }[];
} {
	const convert = (items: CollectedResourcePath[]) =>
		items.map(({ path, extensionPath, metadata }) => {
			const synthetic = extensionPath.startsWith("<");
			const name = synthetic ? extensionPath.replace(/[<>]/g, "") : basename(extensionPath).replace(/\.(ts|js)$/, "");
			const base: Partial<Omit<SourceInfo, "path">> = {
				source: `extension:${name}`,
				scope: "temporary",
				origin: "top-level",
			};
			if (!synthetic) base.baseDir = dirname(extensionPath);
			return { path, metadata: { ...base, ...metadata } };
		});
	return {
		skillPaths: convert(collected.skillPaths),
		promptPaths: convert(collected.promptPaths),
		themePaths: convert(collected.themePaths),
	};
}

/** Runner options plus loading options. */
export interface CreateExtensionRunnerOptions
	extends ExtensionRunnerOptions,
		Omit<InstantiateExtensionsOptions, "cwd"> {
	cwd: string;
}

/**
 * Runs the factories of `records` (and inline factories) and returns a runner over the
 * extensions that loaded, with the factories that failed. Must not throw for a failing factory.
 *
 * @example
 * ```ts
 * const { runner, errors } = await createExtensionRunner([], {
 *   cwd: process.cwd(),
 *   inlineFactories: [(pi) => pi.on("agent_start", () => console.log("started"))],
 * });
 * ```
 */
export async function createExtensionRunner(
	records: readonly ExtensionRecord[],
	options: CreateExtensionRunnerOptions,
): Promise<{ runner: ExtensionRunner; errors: ExtensionLoadError[]; diagnostics: ExtensionDiagnostic[] }> {
	const loaded = await instantiateExtensions(records, options);
	return { runner: new ExtensionRunner(loaded, options), errors: loaded.errors, diagnostics: loaded.diagnostics };
}

function isUsableBlockList(content: unknown): boolean {
	return Array.isArray(content) && content.every(isUsableBlock);
}
