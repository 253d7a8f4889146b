/**
 * AgentSession: the product orchestration layer. It owns the Agent, the session
 * log and the extension runner, and runs one long-lived prompt-operation actor
 * (`machines/prompt-operation.machine.ts`) whose state answers "what is this session doing".
 *
 * The facade stays thin: the prompt pipeline, the awaited event bridge, queues and side channels,
 * boundaries, compaction and the machine's actors are separate modules sharing one
 * {@link SessionInternals}.
 */
import {
	isCompacting,
	isRetrying,
	isStreaming,
	lifecycleState,
	type OperationStall,
	type PromptOperationEmitted,
	type PromptOperationEvent,
	type PromptOperationSnapshot,
	type PromptOperationStatePath,
	type PromptRequest,
	retryFollows,
} from "../../machines/prompt-operation.machine.js";
import {
	DEFAULT_SHUTDOWN_TIMEOUT_MS,
	type ReloadEmitted,
	type ReloadStep,
} from "../../machines/runtime-reload.machine.js";
import { abortWithIssuedReason } from "../abort.js";
import { Agent } from "../agent/agent.js";
import type { AgentTool, AgentToolCall, AgentToolResult } from "../agent/types.js";
import { COMPACTION_CANCELLED, COMPACTION_OTHER_INSTRUCTIONS } from "../compaction/texts.js";
import type { CompactionResult } from "../compaction/types.js";
import { errorMessage, normalizeError, SettleError } from "../errors.js";
import { createEventBus } from "../extensions/event-bus.js";
import type { InstantiatedExtensions } from "../extensions/loader.js";
import { STALE_EXTENSION_CONTEXT_MESSAGE } from "../extensions/messages.js";
import type { ExtensionRunner } from "../extensions/runner.js";
import type {
	ContextUsage,
	CustomMessageInput,
	EventBus,
	ExtensionCommandContextActions,
	ExtensionContextActions,
	ExtensionError,
	ExtensionLoadError,
	ExtensionMode,
	ExtensionModelRegistry,
	ExtensionRuntimeActions,
	ExtensionUIContext,
	InputSource,
	ProviderConfig,
	ReplacedSessionContext,
	ScopedModel,
	SessionStartEvent,
	SlashCommandInfo,
} from "../extensions/types.js";
import { createHeadlessUIContext, type HeadlessUIContext } from "../extensions/ui.js";
import {
	type BuiltInDetailsOptions,
	inspectActorAs,
	type LifecycleInspectorOptions,
	type LifecycleObserver,
	type PromptOperationDetails,
} from "../inspect/lifecycle-inspector.js";
import { type InspectionSubscription, InspectionSubscriptionSet } from "../inspect/subscription-set.js";
import { createTraceRecorder, type TraceRecorder, type TraceRecorderOptions } from "../inspect/trace.js";
import {
	clampThinkingLevel,
	InMemoryModelRuntime,
	type ModelRuntime,
	noApiKeyForModelMessage,
	type ProviderAuthStatus,
	sameModel,
	supportedThinkingLevels,
	THINKING_LEVELS,
} from "../llm/model-runtime.js";
import type { AgentMessage, ImageContent, Model, TextContent, ThinkingLevel, ToolResultMessage } from "../llm/types.js";
import { rewrittenArgumentsProblem as argumentsProblem } from "../llm/validation.js";
import { getBranchSelection, isVirtualModel, type VirtualModelDefinition } from "../llm/virtual-models.js";
import type { PromptTemplate, ResourceLoader } from "../resources/types.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import type { SessionEntry } from "../store/entries.js";
import { contextContent } from "../store/entry-shape.js";
import type { SessionManager } from "../store/session-manager.js";
import { OPERATION_ABORTED } from "../tools/abort.js";
import { type ToolInfo, unknownToolNames } from "../tools/registry.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { type BashResult, BashRunner, type ExecuteBashOptions, signalNoted } from "./bash-runner.js";
import { finishTurnBoundary } from "./boundaries.js";
import { CacheWarmer, type CacheWarmerClock, type CacheWarmingMode, type CacheWarmingStatus } from "./cache-warmer.js";
import {
	compactBeforeRoutedRequest,
	finishPreflightDispatch,
	finishRequestCompaction,
	reportOverflowRecoveryFailed,
} from "./compaction-runner.js";
import { pairToolResults } from "./convert-to-llm.js";
import { allowSessionRun, refuseDirectRuns } from "./direct-runs.js";
import { createEventBridge } from "./event-bridge.js";
import type { AgentSessionEvent, AgentSessionListener } from "./events.js";
import { blockImagesAwareConverter, capRequestImages, normalizeToolResultImages } from "./images.js";
import {
	bashResultError,
	customMessageError,
	ENTRY_ID_HINT,
	emptyUserMessageError,
	LABEL_HINT,
	modelArgumentError,
	promptInputError,
	SESSION_NAME_HINT,
	scopedModelsError,
	streamingBehaviorError,
	stringArgumentError,
	thinkingLevelError,
	toolNamesError,
	userMessageContentError,
} from "./input-check.js";
import { createOperationScratch, holdsSideMessages, type SessionInternals } from "./internals.js";
import type { CustomMessage } from "./messages.js";
import { type CycleDirection, type ModelCycleResult, nextCycleModel } from "./model-cycling.js";
import { modelRegistryView } from "./model-registry-view.js";
import { answerMachineRequests, createSessionOperationActor } from "./operation-actors.js";
import {
	abortPreflight,
	extensionCommandName,
	type PromptPayload,
	queueInput,
	type StreamingBehavior,
} from "./prompt-pipeline.js";
import { providerStreamFn } from "./provider-stream.js";
import { PublicEvents } from "./public-events.js";
import { type QueuedTexts, SessionQueues } from "./queues.js";
import {
	BOUNDED_WAIT_CLOCK,
	builtinToolOptions,
	discardCutOffReload,
	discoverExtensionResources,
	installCutOffReload,
	loadExtensionRunner,
	RELOAD_WHILE_BUSY,
	type ReloadActor,
	type ReloadOptions,
	reportUnfinishedShutdownHandlers,
	startReloadActor,
} from "./reload.js";
import { syncRetrySettings } from "./run-outcome.js";
import {
	awaitsResponseSinceCompaction,
	computeSessionStats,
	contextUsage,
	exportBranchToJsonl,
	lastAssistantText,
	type SessionStats,
	usageStillCurrent,
} from "./session-stats.js";
import { publicSummarizationRetryEvent, sleepOn } from "./summarization-retry.js";
import { type SystemPromptOptions, systemPromptFromTranscript } from "./system-prompt.js";
import {
	COMPACTION_CLOSED,
	DISPOSED_BEFORE_COMPACTION_SETTLED,
	DISPOSED_BEFORE_NAVIGATION_SETTLED,
	DISPOSED_BEFORE_SETTLED,
	invalidShutdownTimeout,
	operationStalledMessage,
	promptHeldByFailedReload,
	reloadCutOff,
	reloadCutOffByRolledBackTeardown,
	SESSION_DISPOSED,
} from "./texts.js";
import { recordLoadoutChangeBeforeRun, ToolLoadout } from "./tool-loadout.js";
import { Transcript } from "./transcript.js";
import {
	abortBranchSummary,
	closeTreeNavigations,
	finishTreeNavigation,
	NAVIGATE_WHILE_SHELL_COMMAND,
	type NavigateTreeOptions,
	type NavigateTreeResult,
	requestTreeNavigation,
} from "./tree-navigation.js";
import { RequestRouter, type RoutedModel, routedModelOf } from "./virtual-routing.js";

/**
 * How a prompt was dispatched: consumed by a command or the input hook, queued, started, or
 * `aborted`: an `abort()` came during its `input` / `before_agent_start` hooks or pre-send checks,
 * so nothing was sent to the model or saved (the text is the caller's to resend); its operation
 * still ends with one `agent_settled`, as a started one does.
 */
export type PromptDisposition = "handled" | "queued" | "started" | "aborted";

/** Options of {@link AgentSession.prompt}. */
export interface PromptOptions {
	/** Run extension commands and expand `/skill:` and prompt templates (default true). */
	expandPromptTemplates?: boolean;
	images?: ImageContent[];
	/** Required while an operation runs: queue the text as steering or as a follow-up. */
	streamingBehavior?: StreamingBehavior;
	/** Reported to `input` handlers (default `interactive`). */
	source?: InputSource;
	/**
	 * Called once the pipeline decided, before `prompt()` settles: `handled` (a command or the
	 * input hook consumed it), `queued`, `started` (the operation began), or `aborted` (an `abort()`
	 * during its hooks: `prompt()` resolves with nothing sent or saved). Not called when the prompt
	 * is rejected.
	 *
	 * @example
	 * ```ts
	 * let disposition: PromptDisposition | undefined;
	 * await session.prompt("fix the build", { preflightResult: (d) => (disposition = d) });
	 * if (disposition === "aborted") console.log("Not sent: fix the build");
	 * ```
	 */
	preflightResult?: (disposition: PromptDisposition) => void;
}

/** What the AgentSession is built from (pi's `AgentSessionConfig`). */
export interface AgentSessionConfig {
	sessionManager: SessionManager;
	settingsManager: SettingsManager;
	resourceLoader: ResourceLoader;
	modelRuntime: ModelRuntime;
	/** Default: the session manager's cwd. */
	cwd?: string;
	/**
	 * An Agent to drive. Default: one created from the session's context (restored messages,
	 * model, thinking level) on the model runtime; a brand-new session then records its initial
	 * `model_change` and `thinking_level_change` entries, as pi's `createAgentSession` does.
	 */
	agent?: Agent;
	/** Model for a created Agent (default: the one the session recorded, else the first available). */
	model?: Model;
	/** Thinking level for a created Agent (default: the session's, else settings, else `medium`; clamped). */
	thinkingLevel?: ThinkingLevel;
	/** Models {@link AgentSession.cycleModel} cycles through (pi's `--models`); default: every available model. */
	scopedModels?: ScopedModel[];
	/** SDK tools; they replace extension and built-in tools of the same name. */
	customTools?: AnyToolDefinition[];
	/** Initially active tools (default: the transcript's recorded set, else read, bash, edit, write). */
	initialActiveToolNames?: string[];
	/** Allowlist applied to every tool source. */
	allowedToolNames?: string[];
	excludedToolNames?: string[];
	/** Replaces the built-in tools; its keys become the default active set. */
	baseToolsOverride?: Record<string, AgentTool>;
	/** `session_start` sent by {@link AgentSession.bindExtensions} (default `{reason: "startup"}`). */
	sessionStartEvent?: SessionStartEvent;
	/** `ctx.modelRegistry` (default: a view of `modelRuntime`). */
	modelRegistry?: ExtensionModelRegistry;
	/** Shared `pi.events` bus (pass the previous one on replacement). */
	eventBus?: EventBus;
	/** Extension flag values to start from. */
	flagValues?: ReadonlyMap<string, boolean | string>;
	/**
	 * Extensions whose factories already ran (`createAgentSessionServices` runs them to validate CLI
	 * flags and apply provider registrations). Default: the resource loader's, instantiated here.
	 */
	extensions?: InstantiatedExtensions;
	/** The actor's clock for retry backoff (XState's `SimulatedClock` in tests). */
	clock?: SessionClock;
	/**
	 * How long (ms, on {@link clock}) `reload()` — and a runtime's new / switch / fork / import and
	 * dispose — wait for the extensions' `session_shutdown` handlers (default
	 * {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}, 10 s; `Infinity` waits as long as they take, as pi does).
	 * A handler still running then is reported as an extension error naming its extension, and the
	 * reload or replacement goes on (pi#9811).
	 */
	shutdownTimeoutMs?: number;
	/**
	 * The session owns `sessionManager` (`createAgentSession` made it): {@link AgentSession.dispose}
	 * closes it, releasing the file's write lock, its descriptor and the lock's refresh timer.
	 */
	ownsSessionManager?: boolean;
}

/**
 * The timer source of the session's actor (retry backoff): XState's clock interface. Pass
 * `new SimulatedClock()` in tests; its `now()`, when present, also times inspection events.
 */
export interface SessionClock {
	setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
	clearTimeout(id: unknown): void;
}

/** An `extension_notify` or `extension_dialog` event. */
export type ExtensionUIEvent = Extract<AgentSessionEvent, { type: "extension_notify" | "extension_dialog" }>;

/**
 * A headless UI that hands `emit` an event for each notification and each dialog (answered at
 * once), each with the `extensionPath` of the extension that called `ctx.ui`: a session's own UI
 * until the host binds one, and `settle --json`'s.
 */
export function createEventingUIContext(emit: (event: ExtensionUIEvent) => void): HeadlessUIContext {
	return createHeadlessUIContext({
		onNotify: ({ message, type }, extensionPath) =>
			emit({
				type: "extension_notify",
				message,
				notifyType: type,
				...(extensionPath === undefined ? {} : { extensionPath }),
			}),
		onDialog: ({ kind, title }, extensionPath) =>
			emit({
				type: "extension_dialog",
				kind,
				...(title === undefined ? {} : { title }),
				answer: kind === "confirm" ? false : undefined,
				...(extensionPath === undefined ? {} : { extensionPath }),
			}),
	});
}

/** Session replacement a runtime offers the extension command context (`ctx.newSession`, …). */
export type SessionReplacementActions = Pick<ExtensionCommandContextActions, "newSession" | "fork" | "switchSession">;

/** Host bindings of {@link AgentSession.bindExtensions}. */
export interface ExtensionBindings {
	/**
	 * The UI extensions talk to (`ctx.ui`; `ctx.hasUI` becomes true unless it is a
	 * `createHeadlessUIContext()`). Without one, extensions get pi's no-UI answers — every dialog
	 * resolves at once to `undefined` (`confirm` to `false`), statuses, widgets and the title are
	 * kept but shown nowhere — and each `ctx.ui.notify` and each dialog is also a session event
	 * (`extension_notify`, `extension_dialog`) for `session.subscribe` listeners.
	 *
	 * @example
	 * ```ts
	 * session.subscribe((event) => {
	 *   if (event.type === "extension_notify") console.error(`[${event.notifyType}] ${event.extensionPath}: ${event.message}`);
	 *   if (event.type === "extension_dialog") console.error(`not asked (no UI): ${event.title ?? event.kind}`);
	 * });
	 * await session.bindExtensions(); // no uiContext: the notifications and dialogs come as events
	 * ```
	 */
	uiContext?: ExtensionUIContext;
	mode?: ExtensionMode;
	/**
	 * Replaces the session's own `ctx` command actions one by one; those not given stay the
	 * session's (`reload` is `session.reload()`; `newSession`, `fork` and `switchSession` the
	 * runtime's). The CLI passes a `reload` that also says what the reload found.
	 *
	 * @example
	 * ```ts
	 * await session.bindExtensions({
	 *   commandContextActions: { reload: async () => { await session.reload(); console.error("reloaded"); } },
	 * });
	 * ```
	 */
	commandContextActions?: Partial<ExtensionCommandContextActions>;
	shutdownHandler?: () => void;
	onError?: (error: ExtensionError) => void;
}

/** Options of {@link AgentSession.sendCustomMessage}. */
export interface SendCustomMessageOptions {
	/** Start a turn when idle; while streaming, `false` holds it until the next safe point. */
	triggerTurn?: boolean;
	deliverAs?: "steer" | "followUp" | "nextTurn";
}

/** A lifecycle trace being recorded; {@link SessionTrace.stop} ends the recording. */
export interface SessionTrace extends TraceRecorder {
	stop(): void;
}

/** The emitted events {@link AgentSession.onMachineEvent} handles (the requests are answered in `operation-actors.ts`). */
const SESSION_HANDLED_EMITS = [
	"prompt_deferred",
	"preflight_result",
	"operation_settled",
	"auto_retry_start",
	"auto_retry_end",
	"summarization_retry_scheduled",
	"summarization_retry_attempt_start",
	"summarization_retry_finished",
	"overflow_recovery_failed",
	"abort_requested",
	"tree_navigation_done",
	"manual_compaction_done",
	"request_compaction_done",
	"preflight_dispatch_released",
] as const satisfies readonly PromptOperationEmitted["type"][];
/** An emitted event the session handles: a case for any other type does not type-check. */
type SessionHandledEmit = Extract<PromptOperationEmitted, { type: (typeof SESSION_HANDLED_EMITS)[number] }>;

/**
 * Why a session was disposed, set by the runtime that disposed it (weak: it keeps no session alive).
 * Calls on it then reject with this text instead of the generic {@link SESSION_DISPOSED}.
 */
const closedMessages = new WeakMap<AgentSession, string>();

/**
 * Sets the `SESSION_CLOSED` message of calls on `session` once it is disposed (for the runtime:
 * "replaced, use runtime.session"). Not part of the package's API.
 *
 * @example
 * ```ts
 * setClosedMessage(session, "This AgentSession was replaced by its runtime …");
 * session.dispose();
 * ```
 */
export function setClosedMessage(session: AgentSession, message: string): void {
	closedMessages.set(session, message);
}

/**
 * Sessions their runtime has begun to replace, with the `BUSY` message their input calls reject with
 * (weak: it keeps no session alive). Extensions' own sends (`pi.sendUserMessage`, `pi.sendMessage`)
 * are not refused: pi runs them on the old session, e.g. from a `session_before_switch` handler.
 */
const replacingMessages = new WeakMap<AgentSession, string>();

/**
 * Marks `session` as being replaced by its runtime (`message`), or usable again (`undefined`, the
 * replacement was cancelled or failed): while marked, `prompt`, `steer`, `followUp`,
 * `sendUserMessage` and `sendCustomMessage` reject at once with `BUSY`. Not part of the package's API.
 *
 * @example
 * ```ts
 * setReplacingMessage(session, "This AgentSession is being replaced …");
 * setReplacingMessage(session, undefined); // an extension cancelled the replacement
 * ```
 */
export function setReplacingMessage(session: AgentSession, message: string | undefined): void {
	if (message === undefined) replacingMessages.delete(session);
	else replacingMessages.set(session, message);
}

/**
 * Sessions their runtime is disposing, with the `SESSION_CLOSED` message their input calls reject
 * with at once (weak: it keeps no session alive). As with {@link replacingMessages}, extensions'
 * own sends are not refused: pi runs a `session_shutdown` handler's sends on the session.
 */
const closingMessages = new WeakMap<AgentSession, string>();

/**
 * Marks `session` as being disposed by its runtime: from now on `prompt`, `steer`, `followUp`,
 * `sendUserMessage` and `sendCustomMessage` reject at once with `SESSION_CLOSED` and `message`
 * (before {@link setReplacingMessage}'s `BUSY`: a dispose cannot be cancelled). Not part of the package's API.
 *
 * @example
 * ```ts
 * setClosingMessage(session, "This AgentSession is being disposed with its runtime …");
 * ```
 */
export function setClosingMessage(session: AgentSession, message: string): void {
	closingMessages.set(session, message);
}

interface PendingPrompt {
	resolve(): void;
	reject(error: unknown): void;
	preflightResult: ((disposition: PromptDisposition) => void) | undefined;
}

interface PendingCompaction {
	resolve(result: CompactionResult<unknown>): void;
	reject(error: unknown): void;
}

/**
 * A coding-agent session: prompts, queues, extensions, persistence and recovery, driven by the
 * prompt-operation state machine. Create it with {@link AgentSession.create}.
 *
 * @example
 * ```ts
 * const faux = createFauxProvider();
 * const modelRuntime = new InMemoryModelRuntime();
 * modelRuntime.registerFauxProvider(faux);
 * const session = await AgentSession.create({
 *   sessionManager: SessionManager.inMemory(process.cwd()),
 *   settingsManager: SettingsManager.inMemory(),
 *   resourceLoader: createTestResourceLoader(),
 *   modelRuntime,
 *   model: faux.getModel(),
 * });
 * faux.setResponses([fauxAssistantMessage("Hello!")]);
 * session.subscribe((event) => console.log(event.type));
 * await session.prompt("hi"); // resolves after agent_settled
 * ```
 */
export class AgentSession {
	/** The session's Agent. Runs start through the session (`prompt()`, {@link continue}): the Agent's own `prompt()` / `continue()` called from outside reject `INVALID_ARGUMENT`. */
	readonly agent: Agent;
	readonly sessionManager: SessionManager;
	readonly settingsManager: SettingsManager;
	readonly resourceLoader: ResourceLoader;
	readonly modelRuntime: ModelRuntime;
	readonly cwd: string;

	private runnerInstance: ExtensionRunner;
	private loadErrors: ExtensionLoadError[];
	private readonly modelRegistry: ExtensionModelRegistry;
	private readonly eventBus: EventBus;
	/** What the host passed to {@link bindExtensions}; re-applied to the runner a reload builds. */
	private hostBindings: ExtensionBindings | undefined;
	/** Providers registered by the current extensions (unregistered on reload). */
	private readonly extensionProviders = new Set<string>();
	/** Virtual models registered by the current extensions, as `[provider, id]` (unregistered on reload). */
	private readonly extensionVirtualModels = new Map<string, [string, string]>();
	private readonly router: RequestRouter;
	private scopedModelList: ScopedModel[];
	/**
	 * The level last asked of `setThinkingLevel`, before the model's ladder clamped it (a model's own
	 * `modelThinkingLevels` entry aside): a model switch carries it, so neither a clamp nor the
	 * settings' default replaces the user's level (pi#6329, pi-llama#24).
	 */
	private requestedThinkingLevel: ThinkingLevel | undefined;
	/** The live level is the current model's own `modelThinkingLevels` entry, not the user's. */
	private thinkingFromModelEntry = false;
	/** The reload machine's actor (machines/runtime-reload.machine.ts), from the first reload() on. */
	private reloadActor: ReloadActor | undefined;
	/** reload() calls the reload machine has not finished, by request id. */
	private readonly reloadCalls = new Map<
		string,
		{ options: ReloadOptions; resolve: () => void; reject: (error: unknown) => void }
	>();
	/** Prompts the reload machine holds until its reloads are over, by id. */
	private readonly heldPrompts = new Map<
		string,
		{
			payload: PromptPayload;
			preflightResult: ((disposition: PromptDisposition) => void) | undefined;
			resolve: () => void;
			reject: (error: unknown) => void;
		}
	>();
	private reloadCounter = 0;
	/** The runtime started tearing this session down (replacement or dispose) and has not rolled back. */
	private teardownUndecided = false;
	/**
	 * A `reload()` cut off by a teardown that may still roll back: it resolves when the session lives
	 * on with the extensions it loaded ({@link settleCutOffReload}), rejects when the session is disposed.
	 */
	private cutOffReload: { requestId: string; step: ReloadStep; installed: boolean } | undefined;
	/** Names this session in a failing listener's `LISTENER` warning (many sessions may share a process). */
	private readonly listenerOwner = () => ({ sessionId: this.sessionId, cwd: this.cwd });
	private readonly events = new PublicEvents(this.listenerOwner);
	/**
	 * The UI extensions talk to until the host binds one (`bindExtensions({ uiContext })`): pi's
	 * no-UI answers (`ctx.hasUI` false), and each notification and dialog a session event, so a host
	 * that only subscribes still hears them.
	 */
	private readonly defaultUI = createEventingUIContext((event) => this.events.emit(event));
	private readonly internals: SessionInternals;
	private readonly loadout: ToolLoadout;
	private readonly queues: SessionQueues;
	private readonly bash: BashRunner;
	private readonly actor;
	private readonly clock: SessionClock | undefined;
	private readonly shutdownTimeoutMs: number;
	private readonly cacheWarmer: CacheWarmer | undefined;
	private readonly pending = new Map<string, PendingPrompt>();
	private readonly compactions = new Map<string, PendingCompaction>();
	/** Sends extensions started with `pi.sendUserMessage` / `pi.sendMessage` that have not resolved yet. */
	private readonly extensionSends = new Set<Promise<void>>();
	private readonly sessionStartEvent: SessionStartEvent;
	private readonly unsubscribeAgent: () => void;
	private unsubscribeErrors: (() => void) | undefined;
	private shutdownHandler: (() => void) | undefined;
	private replacementActions: SessionReplacementActions | undefined;
	private requestCounter = 0;
	private disposed = false;
	/** Settles when the `session_shutdown` handlers that dispose() started are done or given up on. */
	private shutdownWait: Promise<void> = Promise.resolve();
	/** `messages` once disposed: the transcript when {@link dispose} was called. */
	private messagesAtDispose: AgentMessage[] | undefined;
	private readonly ownsSessionManager: boolean;
	private readonly inspections = new InspectionSubscriptionSet("session.inspect", this.listenerOwner);
	/**
	 * While the session is inspected (a trace, a live inspector), each entry the session manager
	 * appends goes to the machine (which ignores it), so that traces show what each step wrote.
	 * Uninspected sessions send nothing (an XState event costs a few µs a message); a stopped actor
	 * (after dispose) is not told.
	 */
	private readonly entryObserver = (entry: SessionEntry): void => {
		if (this.inspections.watched && this.actor.getSnapshot().status === "active") this.actor.send(entryWritten(entry));
	};

	/**
	 * Builds a session: creates the Agent if none is given, loads the resource loader's
	 * extensions, merges the tool registry and starts the prompt-operation actor. Extensions get
	 * `session_start` when the host calls {@link bindExtensions}.
	 *
	 * @example
	 * ```ts
	 * const session = await AgentSession.create({ sessionManager, settingsManager, resourceLoader, modelRuntime });
	 * await session.bindExtensions();
	 * ```
	 */
	static async create(config: AgentSessionConfig): Promise<AgentSession> {
		const cwd = config.cwd ?? config.sessionManager.getCwd();
		const agent = config.agent ?? createSessionAgent(config);
		refuseDirectRuns(agent);
		const modelRegistry = config.modelRegistry ?? modelRegistryView(config.modelRuntime);
		const eventBus = config.eventBus ?? createEventBus();
		const { runner, loadErrors } = await loadExtensionRunner(config.resourceLoader, {
			cwd,
			sessionManager: config.sessionManager,
			modelRegistry,
			eventBus,
			...(config.flagValues ? { flagValues: config.flagValues } : {}),
			...(config.extensions ? { extensions: config.extensions } : {}),
		});
		return new AgentSession(config, { cwd, agent, runner, loadErrors, modelRegistry, eventBus });
	}

	private constructor(
		config: AgentSessionConfig,
		parts: {
			cwd: string;
			agent: Agent;
			runner: ExtensionRunner;
			loadErrors: ExtensionLoadError[];
			modelRegistry: ExtensionModelRegistry;
			eventBus: EventBus;
		},
	) {
		const { cwd, agent, runner } = parts;
		this.agent = agent;
		// An Agent we created gets pi's provider settings and header hook; a caller's Agent is left as given.
		// It also gets a cache warmer that sees every request the session sends (pi's sdk does both).
		if (!config.agent && agent.streamFn) {
			const warmer = createCacheWarmer(config, () => this.runnerInstance);
			this.cacheWarmer = warmer;
			warmer.onWarmed = (entry) => this.events.emit({ type: "entry_appended", entry });
			const sessionManager = config.sessionManager;
			agent.streamFn = providerStreamFn(
				agent.streamFn,
				config.settingsManager,
				() => this.runnerInstance,
				(model, context, options) => {
					// Compaction and summaries carry no session id: only session requests replace the cache entry.
					if (options.sessionId === sessionManager.getSessionId()) {
						warmer.start({ model, context, options }, cacheContextIsCurrent(agent, model));
					}
				},
				config.clock,
				(provider) => this.requestKeySource(provider),
				(provider) => this.modelRuntime.getApiKey(provider),
				(provider) => this.modelRuntime.getAll().flatMap((model) => (model.provider === provider ? [model.id] : [])),
			);
			// A tool that ignores an abort is given up on after a grace timed on the session's clock.
			if (config.clock) agent.timers = config.clock;
		}
		this.sessionManager = config.sessionManager;
		this.ownsSessionManager = config.ownsSessionManager === true;
		this.settingsManager = config.settingsManager;
		this.resourceLoader = config.resourceLoader;
		this.modelRuntime = config.modelRuntime;
		this.cwd = cwd;
		this.loadErrors = parts.loadErrors;
		this.modelRegistry = parts.modelRegistry;
		this.eventBus = parts.eventBus;
		this.scopedModelList = config.scopedModels ? [...config.scopedModels] : [];
		this.runnerInstance = runner;
		this.clock = config.clock;
		this.shutdownTimeoutMs = validShutdownTimeout(config.shutdownTimeoutMs);
		this.sessionStartEvent = config.sessionStartEvent ?? { type: "session_start", reason: "startup" };

		const transcript = new Transcript(agent, this.sessionManager, this.events);
		this.sessionManager.entryObserver = this.entryObserver;
		// Queue changes go to the machine so inspection and traces show them (it stays idle otherwise);
		// a stopped actor (after dispose) is not told.
		this.queues = new SessionQueues(
			agent,
			this.events,
			transcript,
			(change) => {
				if (this.actor.getSnapshot().status === "active") this.actor.send({ type: "QUEUE_CHANGED", ...change });
			},
			() => this.model,
		);
		const settings = this.settingsManager;
		this.loadout = new ToolLoadout({
			cwd,
			agent,
			resourceLoader: this.resourceLoader,
			builtinOptions: builtinToolOptions(settings),
			...(config.customTools ? { customTools: config.customTools } : {}),
			...(config.baseToolsOverride ? { baseToolsOverride: config.baseToolsOverride } : {}),
			...(config.allowedToolNames ? { allowedToolNames: config.allowedToolNames } : {}),
			...(config.excludedToolNames ? { excludedToolNames: config.excludedToolNames } : {}),
			toolContext: (source) => this.runnerInstance.contextForSource(source),
		});
		this.router = new RequestRouter({
			sessionManager: this.sessionManager,
			modelRuntime: this.modelRuntime,
			announce: (id) => transcript.announce(id),
		});
		this.internals = {
			agent,
			router: this.router,
			sessionManager: this.sessionManager,
			settingsManager: settings,
			resourceLoader: this.resourceLoader,
			modelRuntime: this.modelRuntime,
			cwd,
			events: this.events,
			transcript,
			queues: this.queues,
			loadout: this.loadout,
			scratch: createOperationScratch(),
			runner: () => this.runnerInstance,
			snapshot: () => this.snapshot,
			send: (event) => this.actor.send(event),
			isStreaming: () => this.isStreaming,
			model: () => this.model,
			cacheWarmer: this.cacheWarmer,
			beforeRun: () => {
				allowSessionRun(agent);
				transcript.rebuildIfRequested();
				recordLoadoutChangeBeforeRun(this.internals);
				this.selectAgentHooks();
			},
			sleep: (ms, signal) => sleepOn(this.clock, ms, signal),
		};
		this.bash = new BashRunner(this.internals);

		this.unsubscribeAgent = agent.subscribe(createEventBridge(this.internals));
		this.selectAgentHooks();
		this.bindRunner(runner);
		this.loadout.initialize(runner.getAllRegisteredTools(), config.initialActiveToolNames);
		// A resumed session's requests carry the prompt its transcript recorded until a change is recorded:
		// a before_agent_start prompt equal to the recorded one records nothing (pi#1252).
		if (!agent.state.systemPrompt) {
			agent.state.systemPrompt =
				systemPromptFromTranscript(agent.state.messages)?.prompt ?? this.loadout.renderedPrompt();
		}

		this.actor = createSessionOperationActor(this.internals, {
			input: { retry: settings.getRetrySettings() },
			...(this.clock ? { clock: this.clock as never } : {}),
		});
		answerMachineRequests(this.actor, this.internals);
		// One listener per emitted type the session acts on, not a wildcard: XState calls a wildcard
		// listener for every emitted event, including the four requests answered above.
		const onMachineEvent = (event: SessionHandledEmit) => this.onMachineEvent(event);
		for (const type of SESSION_HANDLED_EMITS) this.actor.on(type, onMachineEvent);
		this.actor.start();
	}

	// -------------------------------------------------------------------------------------------
	// State (derived from the machine, never kept as separate flags)

	/** The prompt-operation actor's snapshot. */
	get snapshot(): PromptOperationSnapshot {
		return this.actor.getSnapshot();
	}

	/**
	 * The current lifecycle state as a dotted path (`idle`, `running.working`, `retrying`, …). After
	 * {@link dispose} it stays the state the machine was stopped in; {@link isDisposed} tells.
	 */
	get lifecycle(): PromptOperationStatePath {
		return lifecycleState(this.snapshot);
	}

	/**
	 * {@link dispose} was called (directly, or by the runtime that replaced this session). A disposed
	 * session runs nothing: it is not streaming, retrying or compacting, whatever it was doing.
	 *
	 * @example
	 * ```ts
	 * runtime.onSessionReplaced(({ previous }) => {
	 *   previous.isDisposed; // true
	 *   previous.isStreaming; // false, even if a prompt was running when it was replaced
	 * });
	 * ```
	 */
	get isDisposed(): boolean {
		return this.disposed;
	}

	/** An operation has started and its `agent_settled` dispatch has not begun (false once disposed). */
	get isStreaming(): boolean {
		// dispose() stops the actor where it was (e.g. `running`); nothing runs any more.
		return !this.disposed && isStreaming(this.snapshot);
	}

	/**
	 * Not streaming and not compacting. Also true while a prompt is in its preflight (input hooks,
	 * extension commands, before `agent_start`), as in pi: right after `void session.prompt(…)` it
	 * may still be true. To wait for a prompt you did not await, use {@link waitForIdle}, which
	 * counts pending prompts too. True once disposed.
	 */
	get isIdle(): boolean {
		if (this.disposed) return true;
		const snapshot = this.snapshot;
		return !isStreaming(snapshot) && !isCompacting(snapshot);
	}

	/** Waiting out a retry backoff (false once disposed). */
	get isRetrying(): boolean {
		return !this.disposed && isRetrying(this.snapshot);
	}

	/** A compaction (manual or automatic) or a branch summary is running (false once disposed). */
	get isCompacting(): boolean {
		return !this.disposed && isCompacting(this.snapshot);
	}

	/** Retries made in the current retry sequence. */
	get retryAttempt(): number {
		return this.snapshot.context.retryAttempt;
	}

	/**
	 * Re-reads the live transcript (`session.messages`, `session.state.messages`) from the session
	 * log's projection of the current branch, e.g. after an extension or the host appended entries
	 * straight through the `SessionManager` (pi 1.6 `refreshContext()`). Only the messages and
	 * what they imply (latest compaction, context edits) are re-read; tools and the system prompt
	 * stay as they are.
	 *
	 * While the Agent streams a run, the rebuild is deferred to the run's next safe point — before
	 * its next model request, or at settle — when every message of the run is persisted: rebuilding
	 * mid-turn would drop a message not yet written to the log. (pi rebuilds at once; its requests
	 * are re-projected from the log anyway, Settle's are not.) Outside a run it happens at once.
	 *
	 * @example
	 * ```ts
	 * session.sessionManager.appendCustomMessageEntry("note", "Deploy finished", true);
	 * session.refreshContext();
	 * session.messages.at(-1); // { role: "custom", customType: "note", content: "Deploy finished", … }
	 * ```
	 */
	refreshContext(): void {
		const transcript = this.internals.transcript;
		if (this.agent.state.isStreaming) transcript.rebuildRequested = true;
		else transcript.rebuild();
	}

	/**
	 * The live transcript (read it; don't change it). Once disposed, the transcript as it was then
	 * (a queued message whose delivery had not completed is listed as pending again instead).
	 */
	get messages(): AgentMessage[] {
		return this.messagesAtDispose ?? this.agent.state.messages;
	}

	/** The Agent's live state. */
	get state() {
		return this.agent.state;
	}

	/** The selected model, or undefined when none is selected. */
	get model(): Model | undefined {
		const model = this.agent.state.model;
		return model.provider === "unknown" && model.id === "unknown" ? undefined : model;
	}

	/**
	 * Why the selected {@link model} cannot be requested now, or undefined when it can (or none is
	 * selected). Its provider unregistered (an extension's `pi.unregisterProvider`, a logout) keeps
	 * the model selected, as pi does, so the session can go on once the provider is back; the next
	 * prompt is refused with this text (`PROVIDER`), a request already under way ends with it. RPC
	 * `get_state` carries it as `modelUnavailable`, `settle -i`'s `/model` prints it.
	 *
	 * @example
	 * ```ts
	 * if (session.modelUnavailable) console.warn(session.modelUnavailable); // pick another model first
	 * ```
	 */
	get modelUnavailable(): string | undefined {
		const model = this.model;
		return model && this.modelRuntime.unavailableReason?.(model);
	}

	get thinkingLevel(): ThinkingLevel {
		return this.agent.state.thinkingLevel;
	}

	/**
	 * Under a virtual selection, the physical model and thinking level of the latest successful
	 * response; undefined otherwise (also before the first response). {@link model} stays the selection.
	 *
	 * @example
	 * ```ts
	 * await session.prompt("hi");
	 * console.log(`${session.model?.id} → ${session.routedModel?.model.id} • ${session.routedModel?.thinkingLevel}`);
	 * ```
	 */
	get routedModel(): RoutedModel | undefined {
		return routedModelOf(this.model, this.agent.state.messages, this.modelRuntime);
	}

	get sessionId(): string {
		return this.sessionManager.getSessionId();
	}

	/**
	 * Prompt-cache warming (pi 1.6): `scheduled` with `nextWarmAt` and the pending `decision` while a
	 * refresh of the last request is planned, `refreshing` while one is decided or in flight, else
	 * `inactive` with a `reason`. Undefined when the session runs a caller-supplied Agent (no warmer).
	 *
	 * @example
	 * ```ts
	 * await session.prompt("hi");
	 * const status = session.cacheWarmingStatus;
	 * if (status?.state === "scheduled") console.log(`next refresh decision at ${status.nextWarmAt}`);
	 * else console.log(status?.reason); // e.g. "cache lifetime unavailable"
	 * ```
	 */
	get cacheWarmingStatus(): CacheWarmingStatus | undefined {
		return this.cacheWarmer?.status;
	}

	/**
	 * Persists the global `cacheWarming` setting and reconciles warming at once: `off` stops it,
	 * `streaming` stops an idle refresh cycle (warming then resumes with the next request).
	 *
	 * @example
	 * ```ts
	 * session.setCacheWarmingMode("off"); // no refresh is sent from now on
	 * session.cacheWarmingStatus; // { state: "inactive", reason: "cache warming disabled" }
	 * ```
	 */
	setCacheWarmingMode(mode: CacheWarmingMode): void {
		this.settingsManager.setCacheWarmingMode(mode);
		this.cacheWarmer?.onModeChanged();
	}

	get sessionFile(): string | undefined {
		return this.sessionManager.getSessionFile();
	}

	get sessionName(): string | undefined {
		return this.sessionManager.getSessionName();
	}

	/** The effective system prompt: this operation's override, else the prompt the next request uses. */
	get systemPrompt(): string {
		return this.internals.scratch.forcedSystemPrompt ?? this.loadout.currentPrompt();
	}

	/** The options the current system prompt is built from. */
	getSystemPromptOptions(): SystemPromptOptions {
		return this.loadout.promptOptions();
	}

	get extensionRunner(): ExtensionRunner {
		return this.runnerInstance;
	}

	/**
	 * Extension modules that failed to import and factories that threw (they are left out); replaced by
	 * each reload, which also lists here an extension tool it left inactive (pi#8311).
	 */
	get extensionLoadErrors(): ExtensionLoadError[] {
		return this.loadErrors;
	}

	/** Queued steering + follow-up texts not yet delivered. */
	get pendingMessageCount(): number {
		return this.queues.pendingMessageCount;
	}

	/**
	 * The texts of the steering messages queued by {@link steer} and not yet delivered, oldest
	 * first (a copy). A message leaves the list when the run takes it up (its `message_start`), or
	 * with {@link clearQueue}; `queue_update` events carry the same list.
	 *
	 * @example
	 * ```ts
	 * import { createHarness } from "settle/testing";
	 *
	 * const h = await createHarness();
	 * await h.session.steer("Use the new API instead"); // idle: queued for the next run
	 * h.session.getSteeringMessages(); // ["Use the new API instead"]
	 * h.session.clearQueue();
	 * h.session.getSteeringMessages(); // []
	 * h.cleanup();
	 * ```
	 */
	getSteeringMessages(): string[] {
		return this.queues.steeringTexts();
	}

	/**
	 * The texts of the follow-up messages queued by {@link followUp} and not yet delivered, oldest
	 * first (a copy). They are delivered when the agent would otherwise stop; a message leaves the
	 * list when the run takes it up, or with {@link clearQueue}.
	 *
	 * @example
	 * ```ts
	 * import { createHarness } from "settle/testing";
	 *
	 * const h = await createHarness();
	 * await h.session.followUp("Then run the tests");
	 * await h.session.followUp("And update the changelog");
	 * h.session.getFollowUpMessages(); // ["Then run the tests", "And update the changelog"]
	 * h.cleanup();
	 * ```
	 */
	getFollowUpMessages(): string[] {
		return this.queues.followUpTexts();
	}

	/**
	 * How many images each queued steering / follow-up message carries, in the order of
	 * {@link getSteeringMessages} and {@link getFollowUpMessages} (an image-only message has text "").
	 *
	 * @internal Not part of the public API: the chat's "Queued" notice says what an image-only message is.
	 */
	getQueuedImageCounts(): { steering: number[]; followUp: number[] } {
		return this.queues.imageCounts();
	}

	/**
	 * The custom messages sent with `deliverAs: "nextTurn"` that no prompt has taken yet, oldest
	 * first (a copy). They live in memory only, as in pi 0.73.1 (the session file has no entry for
	 * them): once the session is disposed — also by a runtime replacing it (new session, switch,
	 * fork) — they are not delivered any more, and still listed here (and returned by
	 * {@link dispose}), e.g. to send them again on the session that replaced this one.
	 *
	 * @example
	 * ```ts
	 * await session.sendCustomMessage({ customType: "note", content: "CI is red", display: true }, { deliverAs: "nextTurn" });
	 * const next = session.getNextTurnMessages(); // [{ role: "custom", customType: "note", … }]
	 * ```
	 */
	getNextTurnMessages(): CustomMessage[] {
		return this.queues.nextTurnMessages();
	}

	get steeringMode() {
		return this.agent.steeringMode;
	}

	get followUpMode() {
		return this.agent.followUpMode;
	}

	/**
	 * Sets how steering messages are drained (`one-at-a-time` | `all`) and saves it to settings.
	 * Another value throws `INVALID_ARGUMENT` (from the settings) and changes nothing.
	 */
	setSteeringMode(mode: "all" | "one-at-a-time"): void {
		// Settings first: they refuse a wrong value before the queue takes it.
		this.settingsManager.setSteeringMode(mode);
		this.agent.steeringMode = mode;
	}

	/** Sets how follow-up messages are drained and saves it to settings (checked as {@link setSteeringMode}). */
	setFollowUpMode(mode: "all" | "one-at-a-time"): void {
		this.settingsManager.setFollowUpMode(mode);
		this.agent.followUpMode = mode;
	}

	get isBashRunning(): boolean {
		return this.bash.isRunning;
	}

	get hasPendingBashMessages(): boolean {
		return this.queues.hasPendingBash;
	}

	get autoCompactionEnabled(): boolean {
		return this.settingsManager.getCompactionEnabled();
	}

	setAutoCompactionEnabled(enabled: boolean): void {
		this.settingsManager.setCompactionEnabled(enabled);
	}

	get autoRetryEnabled(): boolean {
		return this.settingsManager.getRetryEnabled();
	}

	setAutoRetryEnabled(enabled: boolean): void {
		this.settingsManager.setRetryEnabled(enabled);
		this.syncRetrySettings();
	}

	// -------------------------------------------------------------------------------------------
	// Events and inspection

	/**
	 * Listens to every session event. Listeners are synchronous and called in subscription
	 * order; a throwing listener is skipped, and its first failure is reported as a process warning
	 * (a `SettleError` with code `LISTENER`: `process.on("warning", …)`; Node prints it on stderr).
	 * Returns the unsubscribe function (pi's convention). {@link inspect} returns a handle that is
	 * both: call it as this one, or call its `unsubscribe()` (XState's convention). Once the session
	 * is disposed it throws `SESSION_CLOSED` (subscribe to the session that replaced it).
	 *
	 * @example
	 * ```ts
	 * const off = session.subscribe((event) => {
	 *   if (event.type === "message_update") process.stdout.write(".");
	 * });
	 * const stopInspecting = session.inspect((e) => console.log(e.kind));
	 * await session.prompt("hi");
	 * off();
	 * stopInspecting(); // the same as stopInspecting.unsubscribe()
	 * ```
	 */
	subscribe(listener: AgentSessionListener): () => void {
		// A disposed session emits nothing more: a listener added now would wait forever.
		this.assertUsable();
		return this.events.subscribe(listener);
	}

	/**
	 * Streams typed inspection events of the prompt-operation actor: the current state first, then
	 * every state change, received event, actor invocation, retry timer and emitted event.
	 * An observer (or `onEnd`) that throws or rejects is skipped and never breaks the session or the
	 * other observers; its first failure is a `LISTENER` process warning, as for `subscribe` listeners.
	 *
	 * Returns the subscription: `subscription.unsubscribe()` (XState's convention) or
	 * `subscription()` (as the function {@link subscribe} returns) stops it.
	 *
	 * @example
	 * ```ts
	 * const subscription = session.inspect((e) => { if (e.kind === "state") console.log(e.to); });
	 * await session.prompt("hi"); // preflight, running.working, postRun, beforeSettle.working, settling, idle
	 * subscription.unsubscribe(); // or subscription()
	 * ```
	 */
	inspect(
		observer: LifecycleObserver<PromptOperationStatePath, PromptOperationDetails>,
		options?: BuiltInDetailsOptions,
	): InspectionSubscription;
	/** With a custom `details` option: the state changes carry what it returns. */
	inspect(
		observer: LifecycleObserver<PromptOperationStatePath>,
		options?: LifecycleInspectorOptions,
	): InspectionSubscription;
	inspect(
		observer: LifecycleObserver<PromptOperationStatePath>,
		options: LifecycleInspectorOptions = {},
	): InspectionSubscription {
		const now = inspectionClockOf(this);
		const { onEnd, ...rest } = options;
		// Through the handle the actor system reaches the whole session: dispose() detaches it.
		return this.inspections.add(
			// The inspector names this actor's states by their paths: PromptOperationStatePath.
			inspectActorAs(
				"session.inspect",
				this.actor,
				observer as LifecycleObserver,
				now ? { now, ...rest } : rest,
				this.listenerOwner,
			),
			onEnd,
		);
	}

	/**
	 * Starts recording the lifecycle into a bounded trace (save it with `saveTrace`, view it with
	 * the trace viewer). Call `stop()` to end the recording.
	 *
	 * @example
	 * ```ts
	 * const trace = session.trace();
	 * await session.prompt("hi");
	 * trace.stop();
	 * console.log(formatTrace(trace.toJSON()));
	 * ```
	 */
	trace(options: TraceRecorderOptions = {}): SessionTrace {
		const recorder = createTraceRecorder(options);
		const subscription = this.inspect(recorder.observer);
		return Object.assign(recorder, { stop: () => subscription.unsubscribe() });
	}

	// -------------------------------------------------------------------------------------------
	// Prompting

	/**
	 * Runs the prompt pipeline. Resolves when the prompt was handled or queued, or — when it started
	 * an operation — after that operation's `agent_settled`. Rejects (starting nothing) with a
	 * `SettleError`: `BUSY` while an operation runs without `streamingBehavior` (or during a manual
	 * compaction; an operation runs until its `agent_settled`, so this includes the compaction after
	 * its `agent_end`), `NO_MODEL`, `NO_AUTH`, `INVALID_ARGUMENT` when `text` is not a string,
	 * `options.images` are not image blocks or `options.streamingBehavior` is neither `"steer"` nor
	 * `"followUp"` (pi queues any other value as a steer), or when `text` is `/<name>` and two
	 * extensions register `<name>` (run them as `/<name>:1`, `/<name>:2`). A prompt made while another is still in its
	 * preflight (its `input` hooks and checks, before its run starts) or while an operation is in its
	 * last step (`settling`: `agent_settled` being sent) is not refused: it waits, then runs as an
	 * operation of its own, so `prompt("a"); await prompt("b")` answers both, in order.
	 *
	 * @example
	 * ```ts
	 * await session.prompt("Fix the failing test");
	 * await session.prompt("Also update the docs", { streamingBehavior: "followUp" }); // while busy: queued
	 * ```
	 */
	prompt(text: string, options: PromptOptions = {}): Promise<void> {
		const refusal =
			this.inputRefusal() ??
			promptInputError("session.prompt", text, options.images) ??
			streamingBehaviorError("session.prompt", options.streamingBehavior);
		if (refusal) return Promise.reject(refusal);
		return this.submitPrompt(text, options);
	}

	/**
	 * Continues the transcript as it is, adding no message: for a host that restored a session
	 * whose last message waits for the model (a user message or a tool result, e.g. after a crash
	 * before the answer). Runs as a prompt's operation does (events, saving, retry, compaction,
	 * queued messages) and resolves after its `agent_settled`; the `input` and `before_agent_start`
	 * hooks do not run (there is no new input). Rejects, starting nothing, with `INVALID_ARGUMENT`
	 * when nothing waits for an answer (no message, or the last is the assistant's), `BUSY` while an
	 * operation runs, `NO_MODEL` / `NO_AUTH` as `prompt()`. (`session.agent.continue()` from outside the
	 * session is refused: it would run the model past the session.)
	 *
	 * @example
	 * ```ts
	 * const faux = createFauxProvider();
	 * const modelRuntime = new InMemoryModelRuntime();
	 * modelRuntime.registerFauxProvider(faux);
	 * const sessionManager = SessionManager.inMemory(process.cwd());
	 * sessionManager.appendMessage({ role: "user", content: "Why does the build fail?", timestamp: Date.now() });
	 * const { session } = await createAgentSession({
	 *   sessionManager, // restored: its last message was never answered
	 *   modelRuntime,
	 *   model: faux.getModel(),
	 *   settingsManager: SettingsManager.inMemory(),
	 * });
	 * faux.setResponses([fauxAssistantMessage("The lockfile is stale.")]);
	 * await session.continue(); // answers it; no second user message
	 * session.dispose();
	 * ```
	 */
	continue(): Promise<void> {
		return this.request({ kind: "continue" });
	}

	/** Where the key on `provider`'s requests comes from: a runtime key (`--api-key`) first, as getApiKey takes it. */
	private requestKeySource(provider: string): ProviderAuthStatus | undefined {
		const runtime = this.modelRuntime;
		if (runtime instanceof InMemoryModelRuntime && runtime.hasRuntimeKey(provider)) {
			return { configured: false, source: "runtime" };
		}
		return this.modelRegistry.getProviderAuthStatus?.(provider);
	}

	private submitPrompt(text: string, options: PromptOptions): Promise<void> {
		const payload: PromptPayload = {
			kind: "text",
			text,
			expandPromptTemplates: options.expandPromptTemplates ?? true,
			source: options.source ?? "interactive",
		};
		if (options.images) payload.images = options.images;
		if (options.streamingBehavior) payload.streamingBehavior = options.streamingBehavior;
		return this.request(payload, options.preflightResult);
	}

	/**
	 * Queues a steering message (delivered after the current turn's tool calls, before the next
	 * model call; when idle, at the start of the next run). Rejects for an extension command.
	 *
	 * @example
	 * ```ts
	 * await session.steer("Use the new API instead");
	 * ```
	 */
	async steer(
		text: string,
		images?: ImageContent[],
		options: { source?: InputSource } = {},
	): Promise<"handled" | "queued"> {
		this.assertAcceptsInput();
		const invalid = promptInputError("session.steer", text, images);
		if (invalid) throw invalid;
		return queueInput(this.internals, "steer", text, images, options.source ?? "interactive");
	}

	/**
	 * Queues a follow-up message (delivered when the agent would otherwise stop). See {@link steer}.
	 *
	 * @example
	 * ```ts
	 * await session.followUp("Then run the tests");
	 * ```
	 */
	async followUp(
		text: string,
		images?: ImageContent[],
		options: { source?: InputSource } = {},
	): Promise<"handled" | "queued"> {
		this.assertAcceptsInput();
		const invalid = promptInputError("session.followUp", text, images);
		if (invalid) throw invalid;
		return queueInput(this.internals, "followUp", text, images, options.source ?? "interactive");
	}

	/**
	 * Sends a user message on behalf of an extension (source `extension`): text parts are joined
	 * with newlines, images kept. While streaming `deliverAs` says how to queue it. An empty block
	 * list is refused (`INVALID_ARGUMENT`, nothing sent); pass a string or at least one block.
	 *
	 * @example
	 * ```ts
	 * const image: ImageContent = { type: "image", data: "iVBORw0KGgo…", mimeType: "image/png" };
	 * await session.sendUserMessage([{ type: "text", text: "Look at this" }, image], { deliverAs: "steer" });
	 * ```
	 */
	sendUserMessage(
		content: string | (TextContent | ImageContent)[],
		options: { deliverAs?: StreamingBehavior; expandPromptTemplates?: boolean } = {},
	): Promise<void> {
		const refusal = this.inputRefusal();
		if (refusal) return Promise.reject(refusal);
		return this.submitUserMessage(content, options, "session.sendUserMessage");
	}

	private submitUserMessage(
		content: string | (TextContent | ImageContent)[],
		options: { deliverAs?: StreamingBehavior; expandPromptTemplates?: boolean },
		caller: string,
	): Promise<void> {
		const invalid = userMessageContentError(caller, content) ?? emptyUserMessageError(caller, content);
		if (invalid) return Promise.reject(invalid);
		let text: string;
		let images: ImageContent[] | undefined;
		if (typeof content === "string") text = content;
		else {
			const parts: string[] = [];
			const found: ImageContent[] = [];
			for (const block of content) {
				if (block.type === "text") parts.push(block.text);
				else found.push(block);
			}
			text = parts.join("\n");
			if (found.length > 0) images = found;
		}
		const promptOptions: PromptOptions = {
			source: "extension",
			expandPromptTemplates: options.expandPromptTemplates ?? false,
		};
		if (images) promptOptions.images = images;
		if (options.deliverAs) promptOptions.streamingBehavior = options.deliverAs;
		return this.submitPrompt(text, promptOptions);
	}

	/**
	 * Adds a custom message (pi's `sendCustomMessage`): `nextTurn` → joins the next prompt; while
	 * streaming → steered (or followed up) into the run, or held until the next safe point with
	 * `triggerTurn: false`; idle with `triggerTurn` → starts an operation; idle otherwise → appended
	 * at once (listeners get `message_start` + `message_end`), or once a tree navigation in progress
	 * is done (on the branch it moved to). With `triggerTurn` during a manual
	 * compaction or a tree navigation it rejects with `BUSY` (no turn follows them): retry once they
	 * are done (during a compaction, `triggerTurn: false` adds it at once).
	 *
	 * @example
	 * ```ts
	 * await session.sendCustomMessage({ customType: "ci", content: "Build failed", display: true }, { triggerTurn: true });
	 * ```
	 */
	async sendCustomMessage(message: CustomMessageInput, options: SendCustomMessageOptions = {}): Promise<void> {
		this.assertAcceptsInput();
		return this.submitCustomMessage(message, options, "session.sendCustomMessage");
	}

	private async submitCustomMessage(
		message: CustomMessageInput,
		options: SendCustomMessageOptions,
		caller: string,
	): Promise<void> {
		this.assertUsable();
		// pi stores any content; one that is no string or block list broke every later run's token count.
		const invalid = customMessageError(caller, message);
		if (invalid) throw invalid;
		const custom: CustomMessage = {
			role: "custom",
			customType: message.customType,
			content: message.content ?? [],
			display: message.display,
			timestamp: Date.now(),
		};
		if (message.details !== undefined) custom.details = message.details;
		if (options.deliverAs === "nextTurn") {
			this.queues.addNextTurn(custom);
			return;
		}
		if (this.isStreaming) {
			// Sent without triggerTurn after the run's last turn (an agent_end handler): no turn to join,
			// so it is added when the operation settles — steered, it started a run whose agent_end sent
			// it again, forever (pi#9379's context-appending extension). A retry run that follows anyway
			// is a turn to join: steered, the retried request sees it, as in pi. So is the compaction after
			// the run: steered, the operation continues with it once compacted, as pi's queued-message kick.
			const runOver =
				this.internals.scratch.runEnded &&
				options.deliverAs === undefined &&
				!retryFollows(this.snapshot) &&
				!this.snapshot.matches("compacting");
			if (options.triggerTurn === false || (options.triggerTurn === undefined && runOver))
				this.queues.holdCustom(custom);
			else if (options.deliverAs === "followUp") this.agent.followUp(custom);
			else this.agent.steer(custom);
			return;
		}
		if (options.triggerTurn) {
			const viaAgentStart = this.internals.scratch.beforeAgentStartDepth > 0;
			return this.request(
				viaAgentStart ? { kind: "custom", message: custom, viaAgentStart } : { kind: "custom", message: custom },
			);
		}
		if (holdsSideMessages(this.internals)) this.queues.holdCustom(custom);
		else this.queues.appendCustom(custom);
	}

	/**
	 * Empties both queues (display lists and the Agent's); returns the texts that will now not be
	 * delivered. A steering or follow-up message the run has already taken for the current turn
	 * (between `turn_start` and its `message_start`) is still delivered, so it stays listed and is not
	 * returned. One sent earlier whose `input` hooks still run is dropped too: its text is returned
	 * (after the listed ones) and its `steer()` / `followUp()` / busy `prompt()` rejects `ABORTED`.
	 * Custom messages extensions queued (`sendCustomMessage` with `deliverAs`) are not the user's to
	 * take back: they stay queued and are delivered (pi#9886: pi destroyed them unreturned).
	 *
	 * @example
	 * ```ts
	 * const { steering, followUp } = session.clearQueue();
	 * ```
	 */
	clearQueue(): QueuedTexts {
		return this.queues.clear();
	}

	/**
	 * Aborts the running operation (the run, a retry backoff, a compaction, the before-settle
	 * boundary) and resolves once the session is idle. What was persisted stays persisted; the
	 * partial assistant message of an aborted stream is persisted too.
	 *
	 * @example
	 * ```ts
	 * await session.abort(); // session.lifecycle === "idle"
	 * ```
	 */
	async abort(): Promise<void> {
		if (this.disposed) return;
		// The machine also cancels a compact() / ctx.compact() waiting on what this ends.
		this.actor.send({ type: "ABORT" });
		await this.waitForIdle();
	}

	/**
	 * `ctx.compact()`: while an operation runs (a `turn_end` or `tool_result` handler, a command
	 * run mid-answer) it does not abort it, as pi's does (UniPi#30: the turn's continuation was
	 * lost); it starts when the operation settles, before its `agent_settled` handlers' prompts, and
	 * later calls join it. Otherwise it is {@link compact}. The machine decides which
	 * (`COMPACT_WHEN_SETTLED`).
	 */
	private compactFromExtension(customInstructions: string | undefined): Promise<CompactionResult<unknown>> {
		this.assertUsable();
		// Inside the session's own dispatch (in a preflight: the prompt's command or input handler, which
		// the prompt waits for): the machine runs it then, not once the prompt has settled.
		return this.requestCompaction({
			...this.compactionEvent(customInstructions),
			type: "COMPACT_WHEN_SETTLED",
			fromDispatch: this.internals.scratch.dispatchDepth > 0,
		});
	}

	/**
	 * Cancels the automatic retry of a failed run: from the `agent_end{willRetry: true}` that
	 * announces it (in that listener or any time after) until its backoff ends. The retry's backoff
	 * is announced and ended at once — `auto_retry_start`, then
	 * `auto_retry_end{success: false, finalError: "Retry cancelled"}` — no further model request is
	 * made, and the operation settles (one `agent_settled`; `prompt()` resolves). Anywhere else
	 * (no retry announced, or the retried request already started) it does nothing; `abort()` stops
	 * a running request.
	 *
	 * @example
	 * ```ts
	 * session.subscribe((event) => {
	 *   if (event.type === "agent_end" && event.willRetry) session.abortRetry();
	 * });
	 * await session.prompt("hi"); // a retryable failure is not retried
	 * ```
	 */
	abortRetry(): void {
		if (!this.disposed) this.actor.send({ type: "ABORT_RETRY" });
	}

	/** Aborts a running compaction (manual or automatic). */
	abortCompaction(): void {
		if (this.disposed) return;
		// The machine also cancels a compaction waiting to start.
		this.actor.send({ type: "ABORT_COMPACTION" });
		this.internals.scratch.compactionController?.abort();
	}

	/**
	 * Resolves when the session is idle: no operation running, none pending or deferred, no
	 * compaction — also one a `compact()` call has asked for and not begun yet (at once when idle).
	 * Don't await it from inside the session's own dispatch (an extension command run by `prompt()`,
	 * an `agent_settled` handler): that dispatch is what the session waits for. Commands get a `ctx.waitForIdle()` that resolves at once there, as pi's does.
	 *
	 * @example
	 * ```ts
	 * void session.prompt("long task");
	 * await session.waitForIdle();
	 * ```
	 */
	waitForIdle(): Promise<void> {
		// A compaction compact() asked for is in the machine (deferred) from the call on: idle is after it.
		if (this.disposed || isQuiet(this.snapshot)) return Promise.resolve();
		return new Promise((resolve) => {
			const subscription = this.actor.subscribe({
				next: (snapshot) => {
					if (!isQuiet(snapshot)) return;
					subscription.unsubscribe();
					resolve();
				},
				complete: () => resolve(),
				error: () => resolve(),
			});
		});
	}

	/**
	 * Compacts the context now: aborts a running operation first (it is not resumed; it settles
	 * once, its partial answer saved), then summarizes — one step: nothing sent meanwhile gets in
	 * between (a prompt that arrives while the summary runs is refused with `BUSY`, as in pi), and a
	 * second `compact()` shares it, before it started or while its summary runs, when it gives no
	 * instructions or the same (pi#4203); other instructions are refused (`BUSY`: that summary would
	 * not follow them; nothing is aborted for them; wait, or cancel it and compact again). Rejects with `Nothing to compact (session
	 * too small)`, `Already compacted`, `Compaction cancelled` (`ABORTED`: `abort()` or
	 * `abortCompaction()` before it ended), `Compaction cancelled by the extension <path>: …`
	 * (`ABORTED`: its `session_before_compact` handler cancelled) or `Compaction failed: …`. "Too small" means every message since the
	 * last compaction fits in the kept span, `compaction.keepRecentTokens` (default 20000 estimated
	 * tokens): lower it (e.g. `SettingsManager.inMemory({ compaction: { keepRecentTokens: 100 } })`)
	 * to compact a short session, as a demo or test would. The summary is a model request (plus one
	 * for the turn's start when the cut falls inside a turn): on the faux provider, queue replies.
	 * Called while `agent_settled` handlers run (`ctx.compact()` from one), it starts as soon as that
	 * dispatch ends, before the prompts deferred there and anything sent later; do not await it in
	 * the handler (the dispatch waits for the handler).
	 *
	 * @example
	 * ```ts
	 * const { summary, tokensBefore } = await session.compact("Keep the API decisions");
	 * ```
	 */
	async compact(customInstructions?: string): Promise<CompactionResult<unknown>> {
		this.assertUsable();
		// One machine decision: idle → compacting; busy → abort what runs and hold the compaction
		// until the machine is idle again (before any prompt deferred meanwhile); in `settling` → hold
		// it without aborting. The caller is answered by the machine's `manual_compaction_done`.
		return this.requestCompaction(this.compactionEvent(customInstructions));
	}

	/** The machine's `COMPACT` request for a `compact()` call (a new request id). */
	private compactionEvent(customInstructions: string | undefined) {
		return {
			type: "COMPACT" as const,
			requestId: `c${++this.requestCounter}`,
			...(customInstructions !== undefined ? { payload: { customInstructions } } : {}),
		};
	}

	/** Sends a compaction request (every state takes one); settles with its `manual_compaction_done`. */
	private requestCompaction(event: {
		type: "COMPACT" | "COMPACT_WHEN_SETTLED";
		requestId: string;
		fromDispatch?: boolean;
	}): Promise<CompactionResult<unknown>> {
		return new Promise((resolve, reject) => {
			this.compactions.set(event.requestId, { resolve, reject });
			this.actor.send(event);
		});
	}

	/**
	 * Moves the session to another entry of its tree, optionally summarizing the branch it
	 * leaves (`summarize`, with `customInstructions` / `replaceInstructions`; `label` marks the
	 * summary or the target). A user or custom message target puts the leaf on its parent and
	 * returns its text as `editorText`. `isCompacting` is true meanwhile; `abortBranchSummary()`
	 * resolves `{cancelled: true, aborted: true}` with nothing changed. Rejects while an operation
	 * runs (`Wait for the current response to finish before navigating the session tree.`), during
	 * a compaction, while an {@link executeBash} command has not recorded its result (`BUSY`: it would
	 * join the branch moved to), for an unknown entry (`Entry <id> not found`) and for a summary
	 * without a model.
	 *
	 * @example
	 * ```ts
	 * declare const userEntryId: string; // a user message on the current branch
	 * const { editorText, summaryEntry } = await session.navigateTree(userEntryId, { summarize: true, label: "retry" });
	 * ```
	 */
	async navigateTree(targetId: string, options: NavigateTreeOptions = {}): Promise<NavigateTreeResult> {
		this.assertUsable();
		// A `!` command's result joins the branch in use when it ends: moving now would hand a command
		// typed on one branch to another branch's context (oh-my-pi#5747).
		if (this.bash.hasUnrecordedResult) throw new SettleError("BUSY", NAVIGATE_WHILE_SHELL_COMMAND);
		return requestTreeNavigation(this.internals, targetId, options);
	}

	/** Aborts the branch summary of a running {@link navigateTree} (it resolves `{cancelled: true, aborted: true}`). */
	abortBranchSummary(): void {
		if (!this.disposed) this.actor.send({ type: "ABORT_BRANCH_SUMMARY" });
	}

	/**
	 * Reloads settings, resources and extensions: the old extensions get `session_shutdown
	 * {reason:"reload"}` and their `pi` / `ctx` objects go stale (an extension command still running
	 * that uses its ctx afterwards throws, reported to `onError` as that command's error); the new
	 * ones load with the previous flag values, the active tools that are still registered stay
	 * active, and — when the host bound
	 * extensions — they get `session_start` and `resources_discover` with reason `reload`. The
	 * transcript, session file and model stay; a changed prompt is recorded before the next request.
	 * Rejects with `BUSY` while an operation or a compaction runs, or while its runtime replaces it
	 * (a runtime's replacement or dispose — or {@link dispose} — stops a reload in progress after the
	 * step it runs, and that call rejects with `SESSION_CLOSED` once the session is disposed; when the
	 * replacement fails and rolls back instead, the session lives on and the call follows it: it
	 * resolves once the extensions the reload loaded are the session's and the host's rebind started
	 * them, or rejects with `BUSY` when it was stopped before loading any — the session kept its
	 * extensions, call `reload()` again). Concurrent calls run one after the
	 * other (the reload machine queues them); prompts sent meanwhile are held and run after the last
	 * one — or, when a reload fails, reject with `RELOAD_FAILED` naming its error, unrun. Load
	 * failures are in {@link extensionLoadErrors}.
	 *
	 * @example
	 * ```ts
	 * import { writeFileSync } from "node:fs";
	 * import { join } from "node:path";
	 *
	 * writeFileSync(join(cwd, "AGENTS.md"), "Use tabs.");
	 * await session.reload(); // the next request's system prompt has the new AGENTS.md
	 * ```
	 */
	reload(options: ReloadOptions = {}): Promise<void> {
		// Refused while its runtime replaces or disposes it, as input is: its teardown does not race a reload.
		const refusal = this.inputRefusal();
		if (refusal) return Promise.reject(refusal);
		// The reload machine decides: refused while busy, queued behind a reload in progress, or run.
		this.reloadActor ??= startReloadActor({
			target: this.reloadTarget(),
			options: (requestId) => this.reloadCalls.get(requestId)?.options ?? {},
			onEmitted: (event) => this.onReloadEvent(event),
		});
		const requestId = `r${++this.reloadCounter}`;
		const actor = this.reloadActor;
		return new Promise<void>((resolve, reject) => {
			this.reloadCalls.set(requestId, { options, resolve, reject });
			actor.send({ type: "RELOAD", requestId, busy: this.isStreaming || this.isCompacting });
		});
	}

	/**
	 * The runtime is about to tear this session down (replacement or dispose): a reload in progress
	 * stops at its next step, the reload machine decides (nothing more is loaded or started for a
	 * session going away); the extensions it leaves installed hear the runtime's session_shutdown,
	 * the old ones are not told twice (the runner tells an extension set once). Resolves once no
	 * reload runs (at once when none does); never rejects.
	 * @internal Not part of the public API: called by {@link abortForTeardown}.
	 */
	stopReloadForTeardown(): Promise<void> {
		this.teardownUndecided = true;
		this.reloadActor?.send({ type: "TEARDOWN" });
		return this.reloadsOver();
	}

	/**
	 * The runtime's teardown rolled back. After it cut a reload off past loading, the extensions that
	 * reload loaded become this session's (the old ones are shut down and stale), for the host's
	 * rebind to start; a reload it stopped waiting for, still in its step, goes on to its end.
	 * Returns `"installed"` when it installed a runner (then the runtime rebinds even if no
	 * `session_shutdown` went out), `"reloading"` when a reload goes on (it starts its own extensions:
	 * the old ones, shut down for it, must not be started again), else `"none"`. Never throws.
	 * @internal Not part of the public API: called by the runtime's rollback.
	 */
	installCutOffReload(): "installed" | "reloading" | "none" {
		this.teardownUndecided = false;
		// A reload the teardown stopped waiting for, still in its step: it is no longer cut off.
		this.reloadActor?.send({ type: "TEARDOWN_ROLLED_BACK" });
		if (this.reloadActor?.getSnapshot().matches("reloading")) return "reloading";
		const installed = this.reloadActor ? installCutOffReload(this.reloadActor) : false;
		if (installed && this.cutOffReload) this.cutOffReload.installed = true;
		return installed ? "installed" : "none";
	}

	/**
	 * After the runtime's rollback (and the host's rebind): a `reload()` its teardown cut off ends.
	 * It resolves when its extensions are the session's (cut off after binding, or after loading and
	 * installed by {@link installCutOffReload}); cut off before loading anything, it rejects `BUSY`
	 * (the session kept its extensions: reload again).
	 * @internal Not part of the public API: called by the runtime's rollback.
	 */
	settleCutOffReload(): void {
		const cut = this.cutOffReload;
		this.cutOffReload = undefined;
		if (!cut) return;
		this.settleReloadCall(
			cut.requestId,
			cut.installed ? undefined : new SettleError("BUSY", reloadCutOffByRolledBackTeardown(cut.step)),
		);
	}

	/** Resolves once the reload machine runs no reload (at once when none runs). */
	private reloadsOver(): Promise<void> {
		const actor = this.reloadActor;
		if (!actor?.getSnapshot().matches("reloading")) return Promise.resolve();
		return new Promise<void>((resolve) => {
			const subscription = actor.subscribe({
				next: (snapshot) => {
					if (snapshot.matches("reloading")) return;
					subscription.unsubscribe();
					resolve();
				},
				complete: () => resolve(),
				error: () => resolve(),
			});
		});
	}

	/** What the reload machine decided. Never throws (XState rethrows asynchronously). */
	private onReloadEvent(event: ReloadEmitted): void {
		try {
			switch (event.type) {
				case "reload_finished":
					if (event.cutOff !== undefined && event.error === undefined && this.teardownUndecided && !this.disposed) {
						// The teardown decides: a rollback keeps the session (settleCutOffReload), dispose closes it.
						// Cut off after binding, its extensions are the session's already.
						this.cutOffReload = {
							requestId: event.requestId,
							step: event.cutOff,
							installed: event.cutOff === "binding",
						};
						return;
					}
					this.settleReloadCall(
						event.requestId,
						event.cutOff !== undefined && event.error === undefined
							? new SettleError("SESSION_CLOSED", reloadCutOff(event.cutOff))
							: event.error,
					);
					return;
				case "reload_refused":
					this.settleReloadCall(event.requestId, new SettleError("BUSY", RELOAD_WHILE_BUSY));
					return;
				case "reloads_cancelled":
					for (const requestId of event.requestIds) this.settleReloadCall(requestId, this.teardownRefusal());
					return;
				case "prompts_released":
					// In arrival order, against the reloaded session: each runs once, as if sent now.
					for (const promptId of event.promptIds) {
						const held = this.takeHeldPrompt(promptId);
						if (held) this.request(held.payload, held.preflightResult).then(held.resolve, held.reject);
					}
					return;
				case "prompts_refused":
					for (const promptId of event.promptIds) {
						this.takeHeldPrompt(promptId)?.reject(
							event.reason === "disposed"
								? this.teardownRefusal()
								: new SettleError("RELOAD_FAILED", promptHeldByFailedReload(errorMessage(event.error)), {
										cause: event.error,
									}),
						);
					}
					return;
				default:
					return;
			}
		} catch {
			// Nothing here may become an uncaught exception inside XState.
		}
	}

	private settleReloadCall(requestId: string, error: unknown): void {
		const call = this.reloadCalls.get(requestId);
		if (!call) return;
		this.reloadCalls.delete(requestId);
		if (error === undefined) call.resolve();
		else call.reject(error);
	}

	private takeHeldPrompt(promptId: string) {
		const held = this.heldPrompts.get(promptId);
		this.heldPrompts.delete(promptId);
		return held;
	}

	private reloadTarget() {
		return {
			s: this.internals,
			eventBus: this.eventBus,
			modelRegistry: this.modelRegistry,
			install: (runner: ExtensionRunner, loadErrors: ExtensionLoadError[]) => {
				this.runnerInstance = runner;
				this.loadErrors = loadErrors;
				this.bindRunner(runner);
				this.applyHostBindings(runner);
			},
			hasHostBindings: () => this.hostBindings !== undefined,
			releaseProviders: () => {
				for (const name of this.extensionProviders) this.modelRegistry.unregisterProvider?.(name);
				this.extensionProviders.clear();
				for (const [provider, id] of this.extensionVirtualModels.values()) {
					this.modelRegistry.unregisterVirtualModel?.(provider, id);
				}
				this.extensionVirtualModels.clear();
			},
			syncSettings: () => {
				this.agent.steeringMode = this.settingsManager.getSteeringMode();
				this.agent.followUpMode = this.settingsManager.getFollowUpMode();
				this.agent.toolExecution = this.settingsManager.getToolExecution();
				if (!this.disposed) this.syncRetrySettings();
			},
			shutdownTimeoutMs: this.shutdownTimeoutMs,
			clock: this.clock,
		};
	}

	// -------------------------------------------------------------------------------------------
	// User bash

	/**
	 * Runs a shell command for the user (not the model) in the session cwd. The result joins the
	 * transcript at once when idle, before `agent_settled` / the next prompt while streaming, and
	 * once a tree navigation in progress is done (on the branch it moved to).
	 * While its runtime replaces the session it rejects at once with `BUSY` (with `SESSION_CLOSED`
	 * once `runtime.dispose()` was called), as `prompt` does; a command already running then is
	 * cancelled and its result recorded before the session goes.
	 *
	 * @example
	 * ```ts
	 * const result = await session.executeBash("git status --short", (chunk) => process.stdout.write(chunk));
	 * ```
	 */
	executeBash(
		command: string,
		onChunk?: (chunk: string) => void,
		options: ExecuteBashOptions = {},
	): Promise<BashResult> {
		this.assertUsable();
		// Refused as a prompt is while the runtime replaces or disposes the session: a command started
		// after the teardown cancelled the others would be killed unrecorded by the dispose.
		const refusal = this.inputRefusal();
		if (refusal) return Promise.reject(refusal);
		return this.bash.execute(command, onChunk, options);
	}

	/**
	 * Records the result of a command run elsewhere (e.g. by an extension). See {@link executeBash}.
	 * Throws `INVALID_ARGUMENT` (nothing recorded) unless `command` is a string and `result` has a
	 * string `output`, a number or undefined `exitCode` and boolean `cancelled` / `truncated`.
	 * An `exitCode` of `null` (a child's close code after a signal) is saved as `killedBySignal`, as a
	 * `!` command's is, and the model is told the command was killed by a signal.
	 *
	 * @example
	 * ```ts
	 * session.recordBashResult("make", { output: "ok", exitCode: 0, cancelled: false, truncated: false });
	 * ```
	 */
	recordBashResult(command: string, result: BashResult, options: { excludeFromContext?: boolean } = {}): void {
		this.assertUsable();
		const invalid = bashResultError("session.recordBashResult", command, result);
		if (invalid) throw invalid;
		this.bash.record(command, signalNoted(result), options);
	}

	/** Aborts every running {@link executeBash} command. */
	abortBash(): void {
		this.bash.abortAll();
	}

	// -------------------------------------------------------------------------------------------
	// Models, thinking, tools

	/**
	 * Switches the model: requires configured auth (`No API key for <provider>/<id>`),
	 * records a `model_change`, sets the thinking level, and tells extensions (`model_select`).
	 * `persist` (default true, as pi) saves it as the default model in settings. The level (clamped
	 * to the model) is, as newer pi picks it: `thinkingLevel` when given, else the model's
	 * `modelThinkingLevels` setting, else the current level when the current model reasons (not one a
	 * model's own entry set), else `defaultThinkingLevel`, else `medium`. A level the
	 * model clamps is not saved as the default, so the user's choice returns with a model that has it.
	 * A settings file that does not parse refuses the switch before anything changed; one that cannot
	 * be written lets it complete and resolve, and a `default_not_saved` event says the default was
	 * not saved (the settings manager's `drainErrors()` has the write error too). A session file that
	 * cannot take the `model_change` rejects with its error and nothing changed; one that takes it but
	 * not the `thinking_level_change` after it rejects with "Switched to <provider>/<id>, but the
	 * session file did not take its thinking level …" (`details.switched`): the model is in use at the
	 * old level.
	 *
	 * @example
	 * ```ts
	 * await session.setModel(modelRuntime.getModel("anthropic", "claude-sonnet-4-5")!, { persist: false });
	 * await session.setModel(modelRuntime.getModel("openai", "gpt-5")!, { thinkingLevel: "high" });
	 * ```
	 */
	async setModel(model: Model, options: { persist?: boolean; thinkingLevel?: ThinkingLevel } = {}): Promise<void> {
		this.assertUsable();
		const invalid =
			modelArgumentError("session.setModel", model) ??
			thinkingLevelError("session.setModel", options.thinkingLevel, THINKING_LEVELS, true);
		if (invalid) throw invalid;
		const runtime = this.modelRuntime;
		const authorized =
			runtime.hasConfiguredAuth(model.provider) ||
			(runtime.checkAuth ? await runtime.checkAuth(model.provider) : false);
		if (!authorized) {
			throw new SettleError("NO_AUTH", noApiKeyForModelMessage(model), { details: { provider: model.provider } });
		}
		await this.switchModel(model, "set", this.thinkingLevelForSwitch(model, options.thinkingLevel), options);
	}

	/**
	 * Switches to the next (or previous) model: among the scoped models that have auth when
	 * models are scoped, else among all available models; wraps around. A scoped model's own
	 * thinking level applies. Resolves undefined (and changes nothing) with at most one candidate.
	 * Extensions get `model_select` with source `cycle`. `persist` (default true) saves the default model.
	 *
	 * @example
	 * ```ts
	 * const next = await session.cycleModel("backward");
	 * if (next) console.log(`now ${next.model.id} (${next.thinkingLevel})`);
	 * ```
	 */
	async cycleModel(
		direction: CycleDirection = "forward",
		options: { persist?: boolean } = {},
	): Promise<ModelCycleResult | undefined> {
		this.assertUsable();
		const runtime = this.modelRuntime;
		const choice = nextCycleModel({
			scoped: this.scopedModelList,
			available: this.scopedModelList.length > 0 ? [] : runtime.getAvailable(),
			current: this.model,
			direction,
			hasAuth: (model) => runtime.hasConfiguredAuth(model.provider),
		});
		if (!choice) return undefined;
		await this.switchModel(
			choice.model,
			"cycle",
			this.thinkingLevelForSwitch(choice.model, choice.thinkingLevel),
			options,
		);
		return { model: choice.model, thinkingLevel: this.thinkingLevel, isScoped: choice.isScoped };
	}

	/** The prompt templates of the current resources (`/name args`). */
	get promptTemplates(): PromptTemplate[] {
		return this.resourceLoader.getPrompts().prompts;
	}

	/** The models {@link cycleModel} cycles through (empty: all available models). */
	get scopedModels(): ScopedModel[] {
		return this.scopedModelList.slice();
	}

	/**
	 * Sets the models {@link cycleModel} cycles through (pi's `--models`); `[]` cycles all available
	 * models. Throws `INVALID_ARGUMENT` unless it is a list of `{ model, thinkingLevel? }`.
	 */
	setScopedModels(scopedModels: readonly ScopedModel[]): void {
		const invalid = scopedModelsError("session.setScopedModels", scopedModels);
		if (invalid) throw invalid;
		this.scopedModelList = [...scopedModels];
	}

	/**
	 * Takes the registry's current version of the selected model (pi's `_refreshCurrentModelFromRegistry`):
	 * a provider re-pointed by an extension (e.g. its `baseUrl` set in `session_start`) applies from
	 * the next request, the first one included (pi#2291). Same provider and id, so no model change.
	 */
	private refreshModelFromRegistry(): void {
		const current = this.model;
		if (!current) return;
		const refreshed = this.modelRegistry.find(current.provider, current.id);
		if (refreshed && refreshed !== current) this.agent.state.model = refreshed;
	}

	/** Applies a model switch: `model_change` entry, optional default, thinking re-clamped, `model_select`. */
	private async switchModel(
		model: Model,
		source: "set" | "cycle",
		thinking: { level: ThinkingLevel; fromModelEntry: boolean },
		options: { persist?: boolean },
	): Promise<void> {
		// Saved before the session changes (saveDefault says why).
		let putBack: (() => void) | undefined;
		const unsaved =
			options.persist !== false
				? saveDefault(() => {
						putBack = this.settingsManager.saveDefaultModel(model.provider, model.id);
					})
				: undefined;
		const previous = this.model;
		try {
			this.sessionManager.appendModelChange(model.provider, model.id);
		} catch (error) {
			// The session file did not take the switch (gone, disk full): the agent stays on the old
			// model, and so does the default, or the next start would be on a model this session never was.
			try {
				putBack?.();
			} catch {
				// The append's error is the one to tell; settings.json then says the new model.
			}
			throw error;
		}
		this.agent.state.model = model;
		// A model's own `modelThinkingLevels` entry is not saved as the default for every other model,
		// nor is a level the model's ladder clamped: the user's choice comes back with a model that has it (pi#6329).
		const clamped = clampThinkingLevel(model, thinking.level) !== thinking.level;
		const requested = this.requestedThinkingLevel;
		const keepLevel = thinking.fromModelEntry || clamped || unsaved !== undefined;
		// The model_change entry is in the file: a level it then cannot take (the disk filled, a file
		// size limit) leaves the old level in use, and the switch stands and is told as one.
		let levelNotRecorded: unknown;
		try {
			this.setThinkingLevel(thinking.level, keepLevel ? { persist: false } : options);
			if (thinking.fromModelEntry) this.requestedThinkingLevel = requested;
			this.thinkingFromModelEntry = thinking.fromModelEntry;
		} catch (error) {
			levelNotRecorded = error;
		}
		if (!sameModel(previous, model) && this.runnerInstance.hasHandlers("model_select")) {
			await this.runnerInstance.emit({ type: "model_select", model, previousModel: previous, source });
		}
		// The switch happened: a caller told it failed would believe the old model still answers.
		if (unsaved) {
			this.events.emit({
				type: "default_not_saved",
				message: `Switched to ${model.provider}/${model.id}, but it was not saved as the default model: ${unsaved.message}`,
			});
		}
		if (levelNotRecorded !== undefined) {
			const cause = normalizeError(levelNotRecorded, "IO");
			throw new SettleError(
				cause.code,
				`Switched to ${model.provider}/${model.id}, but the session file did not take its thinking level ${clampThinkingLevel(model, thinking.level)}, so the level stays ${this.thinkingLevel}: ${cause.message}`,
				{ cause, details: { switched: true, provider: model.provider, modelId: model.id } },
			);
		}
	}

	/**
	 * Sets the thinking level, clamped to the model's supported levels. When it changes: records a
	 * `thinking_level_change`, emits `thinking_level_changed`, tells extensions, and (`persist`,
	 * default true) saves it as the default level: a settings file that does not parse refuses the
	 * level (nothing changes); one that cannot be written lets it apply, with a `default_not_saved` event.
	 *
	 * @example
	 * ```ts
	 * session.setThinkingLevel("high"); // "off" on a model without reasoning
	 * ```
	 */
	setThinkingLevel(level: ThinkingLevel, options: { persist?: boolean } = {}): void {
		const invalid = thinkingLevelError("session.setThinkingLevel", level, THINKING_LEVELS);
		if (invalid) throw invalid;
		const model = this.model;
		const effective = model ? clampThinkingLevel(model, level) : level;
		const previous = this.agent.state.thinkingLevel;
		// Saved before the level changes, as a model switch is (saveDefault says why).
		let putBack: (() => void) | undefined;
		const unsaved =
			effective !== previous && options.persist !== false && (model?.reasoning || effective !== "off")
				? saveDefault(() => {
						putBack = this.settingsManager.saveDefaultThinkingLevel(effective);
					})
				: undefined;
		if (effective !== previous) {
			try {
				this.sessionManager.appendThinkingLevelChange(effective);
			} catch (error) {
				// As for a model switch: a level the session file did not take is not in use, nor the default.
				try {
					putBack?.();
				} catch {
					// The append's error is the one to tell.
				}
				throw error;
			}
		}
		this.requestedThinkingLevel = level;
		this.thinkingFromModelEntry = false;
		this.agent.state.thinkingLevel = effective;
		if (effective === previous) return;
		this.events.emit({ type: "thinking_level_changed", level: effective });
		if (this.runnerInstance.hasHandlers("thinking_level_select")) {
			void this.runnerInstance.emit({ type: "thinking_level_select", level: effective, previousLevel: previous });
		}
		if (unsaved) {
			this.events.emit({
				type: "default_not_saved",
				message: `Thinking level set to ${effective}, but it was not saved as the default: ${unsaved.message}`,
			});
		}
	}

	/** The levels the current model supports (every level when no model is selected). */
	getAvailableThinkingLevels(): ThinkingLevel[] {
		const model = this.model;
		return model ? supportedThinkingLevels(model) : ["off", "minimal", "low", "medium", "high", "xhigh"];
	}

	/** Whether the current model can reason (pi's `supportsThinking`): false without a model. */
	supportsThinking(): boolean {
		return this.model?.reasoning === true;
	}

	/**
	 * Moves to the next thinking level the model supports, wrapping from the highest back to `off`,
	 * through {@link setThinkingLevel} (so it persists and emits as that does). Returns the new level,
	 * or undefined (and changes nothing) when the model cannot reason.
	 *
	 * @example
	 * ```ts
	 * const level = session.cycleThinkingLevel(); // "minimal" after "off" on a reasoning model
	 * ```
	 */
	cycleThinkingLevel(): ThinkingLevel | undefined {
		if (!this.supportsThinking()) return undefined;
		const levels = this.getAvailableThinkingLevels();
		const next = levels[(levels.indexOf(this.thinkingLevel) + 1) % levels.length];
		if (next === undefined) return undefined;
		this.setThinkingLevel(next);
		return next;
	}

	/**
	 * Every user message in the session file that has text, in file order and across all branches
	 * (pi's list for `/fork`): its entry id and its text blocks joined. Pass an `entryId` to
	 * `runtime.fork(entryId)`.
	 *
	 * @example
	 * ```ts
	 * const [first] = session.getUserMessagesForForking();
	 * if (first) await runtime.fork(first.entryId);
	 * ```
	 */
	getUserMessagesForForking(): { entryId: string; text: string }[] {
		const messages: { entryId: string; text: string }[] = [];
		for (const entry of this.sessionManager.getEntries()) {
			if (entry.type !== "message" || entry.message.role !== "user") continue;
			// Read as the context reads it: `null` in the list (a hand-edited file) is left out.
			const content = contextContent(entry.message.content);
			const text =
				typeof content === "string"
					? content
					: content
							.filter((part): part is TextContent => part.type === "text")
							.map((part) => part.text)
							.join("");
			if (text) messages.push({ entryId: entry.id, text });
		}
		return messages;
	}

	/**
	 * Activates the registered tools among `names`; effective on the next request, recorded in the
	 * transcript as a `system` patch before it. Names no registered tool has are left out, as pi does,
	 * and returned (once each, in order; `[]` when every name was found) so that a typo does not take a
	 * tool away unnoticed. `names` that is not an array of strings (one name as a string) throws
	 * `INVALID_ARGUMENT` and changes nothing.
	 *
	 * @example
	 * ```ts
	 * const unknown = session.setActiveToolsByName(["read", "ls"]); // read-only from now on
	 * if (unknown.length > 0) console.warn(`no tool named ${unknown.join(", ")}`);
	 * ```
	 */
	setActiveToolsByName(names: string[]): string[] {
		const invalid = toolNamesError("session.setActiveToolsByName", names);
		if (invalid) throw invalid;
		this.loadout.setActiveToolsByName(names);
		return unknownToolNames(
			this.getAllTools().map((tool) => tool.name),
			names,
		);
	}

	getActiveToolNames(): string[] {
		return this.loadout.getActiveToolNames();
	}

	/** Every registered tool: `{name, description, parameters, promptGuidelines, sourceInfo}`. */
	getAllTools(): ToolInfo[] {
		return this.loadout.getAllTools();
	}

	getToolDefinition(name: string): AnyToolDefinition | undefined {
		return this.loadout.getToolDefinition(name);
	}

	/**
	 * Context tokens against the model's window: the last response's usage plus estimates of what
	 * came after it. Right after a compaction, until the next response, `tokens` and `percent` are
	 * null (unknown). Undefined without a model.
	 *
	 * @example
	 * ```ts
	 * const usage = session.getContextUsage(); // { tokens: 1234, contextWindow: 200000, percent: 0.6 }
	 * ```
	 */
	getContextUsage(): ContextUsage | undefined {
		const { latestCompactionAt, hasContextEdits } = this.internals.transcript;
		// Under a virtual selection: the limits of the model that answered last, else the declared ones.
		return contextUsage(
			this.agent.state.messages,
			this.routedModel?.model ?? this.model,
			latestCompactionAt !== undefined && awaitsResponseSinceCompaction(this.sessionManager),
			hasContextEdits ? usageStillCurrent(this.sessionManager) : undefined,
		);
	}

	/**
	 * Message, tool-call, token and cost totals (pi's `getSessionStats`; `/session` and RPC
	 * `get_session_stats` show these). Messages, and the tokens and cost of the messages
	 * themselves, are counted over the current context as in pi 0.73.1 (a compaction, another
	 * branch or a retried failed answer takes them out). Model calls recorded outside the
	 * conversation are added to `tokens` and `cost` from the whole session file, as in pi 1.6:
	 * cache-warming refreshes and other `usage` entries, and the summarizer calls of compactions
	 * and branch summaries. `byModel` splits those tokens and that cost by the model billed (pi 1.6's
	 * `/session` breakdown). Computed on demand in one pass over the context and the entries.
	 * `cumulative`: the tokens and cost of every model call in the session file, all branches
	 * included (money spent; never goes down after a compaction — gsd-2#1423), kept as a running total.
	 *
	 * @example
	 * ```ts
	 * const { assistantMessages, tokens, cost, byModel } = session.getSessionStats();
	 * console.log(`${assistantMessages} answers, ${tokens.total} tokens, $${cost.toFixed(4)}`);
	 * for (const model of byModel) console.log(`  ${model.key}: $${model.cost.toFixed(4)} (${model.tokens.total} tokens)`);
	 * console.log(`spent in this session: $${session.getSessionStats().cumulative.cost.toFixed(4)}`);
	 * ```
	 */
	getSessionStats(): SessionStats {
		return computeSessionStats(this.agent.state.messages, {
			sessionId: this.sessionId,
			sessionFile: this.sessionFile,
			contextUsage: this.getContextUsage(),
			entries: this.sessionManager.getEntries(),
			cumulative: this.sessionManager.getCumulativeUsage(),
		});
	}

	/**
	 * The trimmed text of the last assistant message (an aborted empty one is skipped), or undefined.
	 *
	 * @example
	 * ```ts
	 * await session.prompt("Write a commit message");
	 * const message = session.getLastAssistantText();
	 * ```
	 */
	getLastAssistantText(): string | undefined {
		return lastAssistantText(this.agent.state.messages);
	}

	/**
	 * Writes the current branch as a linear session file (fresh header, entries re-chained) that
	 * `SessionManager.open` reads; returns its absolute path. Default: `session-<timestamp>.jsonl`
	 * in the process cwd.
	 *
	 * @example
	 * ```ts
	 * const file = session.exportToJsonl("exports/bugfix.jsonl");
	 * ```
	 */
	exportToJsonl(outputPath?: string): string {
		return exportBranchToJsonl(this.sessionManager, outputPath);
	}

	/**
	 * Writes the session (its whole tree, the current branch shown first) as one self-contained HTML
	 * page and returns the path written (pi's `exportToHtml`). Default:
	 * `settle-session-<session file name>.html` in the process cwd; a new session is exported from
	 * memory once it has a message, also before its file is written or with none (`--no-session`:
	 * `settle-session-<session id>.html`). Throws `SettleError` for a session with no message yet (see
	 * `exportSessionToHtml`).
	 *
	 * @example
	 * ```ts
	 * const page = await session.exportToHtml("exports/bugfix.html");
	 * ```
	 */
	async exportToHtml(outputPath?: string): Promise<string> {
		// Loaded on first use: the page template is not needed to run a session.
		const { exportSessionToHtml } = await import("../export/index.js");
		return exportSessionToHtml(this.sessionManager, outputPath === undefined ? {} : { outputPath });
	}

	/**
	 * Sets the session's display name (`session_info_changed`). Throws `INVALID_ARGUMENT` for a name
	 * that is not a string; nothing is written then.
	 */
	setSessionName(name: string): void {
		this.nameSession("session.setSessionName", name);
	}

	private nameSession(method: string, name: unknown): void {
		const invalid = stringArgumentError(method, "the name", name, SESSION_NAME_HINT);
		if (invalid) throw invalid;
		this.sessionManager.appendSessionInfo(name as string);
		const current = this.sessionManager.getSessionName();
		this.events.emit({ type: "session_info_changed", name: current });
		if (this.runnerInstance.hasHandlers("session_info_changed")) {
			void this.runnerInstance.emit({ type: "session_info_changed", name: current });
		}
	}

	// -------------------------------------------------------------------------------------------
	// Extensions and lifecycle

	/**
	 * Applies host bindings (UI, mode, command actions, shutdown handler, error listener), then
	 * sends extensions `session_start` and `resources_discover`.
	 *
	 * @example
	 * ```ts
	 * await session.bindExtensions({ onError: (e) => console.error(`${e.extensionPath}: ${e.error}`) });
	 * ```
	 */
	async bindExtensions(bindings: ExtensionBindings = {}): Promise<void> {
		this.assertUsable();
		this.hostBindings = { ...this.hostBindings, ...bindings };
		const runner = this.runnerInstance;
		this.applyHostBindings(runner);
		await runner.emit(this.sessionStartEvent);
		await discoverExtensionResources(
			this.internals,
			runner,
			this.sessionStartEvent.reason === "reload" ? "reload" : "startup",
		);
	}

	/** Applies the host's bindings (UI, mode, command actions, error listener, shutdown) to a runner. */
	private applyHostBindings(runner: ExtensionRunner): void {
		const bindings = this.hostBindings ?? {};
		if (bindings.uiContext !== undefined || bindings.mode !== undefined) {
			runner.setUIContext(bindings.uiContext ?? runner.getUIContext(), bindings.mode);
		}
		runner.bindCommandContext({ ...this.defaultCommandActions(), ...bindings.commandContextActions });
		this.unsubscribeErrors?.();
		this.unsubscribeErrors = bindings.onError ? runner.onError(bindings.onError) : undefined;
		if (bindings.shutdownHandler) this.shutdownHandler = bindings.shutdownHandler;
	}

	/**
	 * Routes the default command context's `newSession` / `fork` / `switchSession` to a session
	 * runtime (an `AgentSessionRuntime` sets this on every session it installs); undefined makes
	 * them reject again. Bindings given to {@link bindExtensions} take precedence.
	 */
	setReplacementActions(actions: SessionReplacementActions | undefined): void {
		this.replacementActions = actions;
	}

	/**
	 * A fresh command context bound to this session's extensions, whose `sendMessage` /
	 * `sendUserMessage` return promises (what `withSession` callbacks get after a replacement; pi
	 * has it on the session). Hosts that run their own replacement flow hand it to extensions.
	 *
	 * @example
	 * ```ts
	 * const ctx = session.createReplacedSessionContext();
	 * await ctx.sendUserMessage("Continue from the summary.");
	 * ```
	 */
	createReplacedSessionContext(): ReplacedSessionContext {
		return this.runnerInstance.createReplacedSessionContext();
	}

	/** Whether any extension handles `type`. */
	hasExtensionHandlers(type: string): boolean {
		return this.runnerInstance.hasHandlers(type);
	}

	/**
	 * Ends the session: aborts the run, retry, compaction and bash commands, tells extensions that
	 * heard `session_start` and no `session_shutdown` yet `session_shutdown {reason: "quit"}` (their
	 * handlers are all started at once; `await session.dispose()` waits for them, at most
	 * `shutdownTimeoutMs`, default 10 s, then reports the ones still running as extension errors
	 * and resolves; used without `await` it waits for nothing), makes every extension
	 * context stale, detaches from the Agent, drops listeners and stops the actor. Emits no session events.
	 * A tool call still running is answered in the log with its `Operation aborted` result (the
	 * detached tool's own result is never written), so the file stays a valid conversation; a bash
	 * call's full-output file, which only that result named, is removed.
	 * Prompts and `executeBash()` calls still pending reject with `SESSION_CLOSED` (nothing more is
	 * recorded), except a prompt whose extension command is disposing the session by replacing it:
	 * that one resolves when the command is done; and a prompt whose `agent_settled` was already
	 * sent (a dispose from that listener): it ends as it would have without the dispose. Coming from
	 * pi: a dispose from an `agent_end` listener rejects that prompt (pi 0.73.1 resolves it), since a
	 * retry or compaction may still follow `agent_end`; dispose after `await prompt()` or from an
	 * `agent_settled` listener instead. Steering and follow-up messages not yet delivered
	 * are not delivered any more: `getSteeringMessages()` / `getFollowUpMessages()` still list them
	 * (e.g. to send them again on the session that replaced this one). Likewise the custom messages
	 * sent with `deliverAs: "nextTurn"` that no prompt took: they were in memory only, and are
	 * returned (also by {@link getNextTurnMessages}); an empty array when there are none. The `!`
	 * results and custom messages held for the run's end are written to the log, as that end would
	 * have (the commands ran; resuming the file shows them). Closes the
	 * session manager only when the session owns it (`createAgentSession` without a `sessionManager`
	 * made it); close one you passed.
	 *
	 * @example
	 * ```ts
	 * session.subscribe((event) => {
	 *   if (event.type === "agent_settled") void session.dispose(); // not at agent_end: a retry may follow
	 * });
	 * const undelivered = await session.dispose(); // after the extensions' session_shutdown handlers
	 * session.sessionManager.close(); // a manager you passed in; safe to call twice
	 * const again: CustomMessage[] = session.dispose(); // also usable without await: the same array
	 * ```
	 */
	dispose(): DisposeResult {
		if (this.disposed) return this.disposeResult();
		this.disposed = true;
		// Disposed from an agent_settled listener (or after it, before the machine moved on): that
		// prompt settled, so it ends as it would have; the actor stops before it says so.
		const announced = this.internals.scratch.settledAnnounced;
		const settledAs = announced === undefined ? undefined : this.actor.getSnapshot().context;
		const running = this.agent.state.isStreaming;
		this.bash.dispose();
		abortPreflight(this.internals);
		abortWithIssuedReason(this.internals.scratch.compactionController);
		abortWithIssuedReason(this.internals.scratch.boundaryController);
		abortWithIssuedReason(this.internals.scratch.settledController);
		// For good: the run's tools learn that their results will never be written (see below).
		this.agent.abortDiscardingResults();
		// The aborted run still polls the Agent's queues before it ends, detached from the log: what
		// is queued stays undelivered (listed by getSteeringMessages / getFollowUpMessages).
		this.agent.clearAllQueues();
		this.queues.restoreUndelivered();
		// The detached run may still add to the Agent's transcript (the message it was delivering, a
		// follow-up it took just before, its aborted answer): the session shows it as it was.
		this.messagesAtDispose = this.agent.state.messages.slice();
		// The run's tools never write their results now: each call still open is answered "Operation
		// aborted", as an abort does, so the file stays a conversation a provider accepts.
		if (running) this.answerOpenToolCallsAtDispose();
		// Held `!` results and custom messages are written as the operation's end would (pi's finally).
		this.messagesAtDispose.push(...this.queues.writeHeldAtDispose());
		// A host that disposes the session itself (the SDK's `createAgentSession`, no runtime) closes
		// its extensions as `runtime.dispose()` does: `session_shutdown{reason:"quit"}`, so one that
		// started a child process or a socket at `session_start` releases it (pi-web#546). Extensions
		// never started, or already told by a runtime or reload, hear nothing. Every handler is started
		// now, with a live ctx (the rest of the teardown is synchronous); what dispose() returns can be
		// awaited for them to finish, bounded like a runtime's teardown.
		if (this.runnerInstance.awaitingShutdown && this.runnerInstance.hasHandlers("session_shutdown")) {
			const runner = this.runnerInstance;
			void runner.emitSessionShutdown({ type: "session_shutdown", reason: "quit" }, AbortSignal.abort());
			this.shutdownWait = boundedShutdownWait(runner, this.shutdownTimeoutMs, this.clock);
		}
		// Shutdown handlers started just above may await a pi.exec to clean up: its programs end after them.
		this.runnerInstance.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE, this.shutdownWait);
		// The host still hears the shutdown handlers' errors (and the ones given up on) while it waits.
		const unsubscribeErrors = this.unsubscribeErrors;
		this.unsubscribeErrors = undefined;
		if (unsubscribeErrors) void this.shutdownWait.then(unsubscribeErrors);
		this.unsubscribeAgent();
		this.events.clear();
		if (this.cacheWarmer) {
			this.cacheWarmer.onWarmed = undefined;
			this.cacheWarmer.cancel();
		}
		this.actor.stop();
		// Requests it had not handled yet never will be: the messages sent after them must not wait.
		this.queues.releaseReservedTurns();
		// Held prompts and queued reloads end now (SESSION_CLOSED); a reload in progress stops after its step.
		this.reloadActor?.send({ type: "DISPOSE" });
		if (this.reloadActor) discardCutOffReload(this.reloadActor);
		if (this.cutOffReload) {
			this.settleReloadCall(
				this.cutOffReload.requestId,
				new SettleError("SESSION_CLOSED", reloadCutOff(this.cutOffReload.step)),
			);
			this.cutOffReload = undefined;
		}
		// The manager may outlive this session (one the host passed in): stop telling this actor.
		if (this.sessionManager.entryObserver === this.entryObserver) this.sessionManager.entryObserver = undefined;
		this.inspections.closeAll();
		// Each names what was cut: a prompt, a compaction, a navigation.
		const closed = new SettleError("SESSION_CLOSED", DISPOSED_BEFORE_SETTLED);
		const compactionClosed = new SettleError("SESSION_CLOSED", DISPOSED_BEFORE_COMPACTION_SETTLED);
		const navigationClosed = new SettleError("SESSION_CLOSED", DISPOSED_BEFORE_NAVIGATION_SETTLED);
		// Until its stack is formatted, an error keeps its frames' receivers (this session) alive: a
		// caller that keeps the rejection would keep the disposed session.
		for (const error of [closed, compactionClosed, navigationClosed]) void error.stack;
		// A prompt running an extension command that replaced this session (ctx.newSession, fork,
		// switchSession) was handled as pi handles it: it resolves once the command is done.
		const preflight = this.internals.scratch.runningPreflight;
		for (const [requestId, pending] of this.pending) {
			if (requestId === announced && settledAs) {
				if (settledAs.runFailure) pending.reject(normalizeError(settledAs.runFailure.error));
				else if (settledAs.stall) pending.reject(this.stalledError(settledAs.stall));
				// As operation_settled would: what settling could not write fails the prompt.
				else if (this.internals.scratch.settleWriteFailure !== undefined)
					pending.reject(normalizeError(this.internals.scratch.settleWriteFailure));
				else pending.resolve();
			} else if (requestId !== preflight?.requestId) pending.reject(closed);
			else {
				preflight.outcome.then(
					(outcome) => {
						if (outcome.disposition !== "handled") return pending.reject(closed);
						// Its caller hears "handled" as for any command (RPC answers the prompt then, as pi does).
						try {
							pending.preflightResult?.("handled");
						} catch {
							// The caller's callback must not break the disposal.
						}
						pending.resolve();
					},
					() => pending.reject(closed),
				);
			}
		}
		for (const pending of this.compactions.values()) pending.reject(compactionClosed);
		// A request preparation waiting for its compaction: the aborted run ends without a request.
		finishRequestCompaction(this.internals);
		finishPreflightDispatch(this.internals);
		closeTreeNavigations(this.internals, navigationClosed);
		this.pending.clear();
		this.compactions.clear();
		if (this.ownsSessionManager) this.sessionManager.close();
		return this.disposeResult();
	}

	/** Writes the aborted results of the calls still open; a closed or read-only log is left as it is. */
	private answerOpenToolCallsAtDispose(): void {
		let results: ToolResultMessage[];
		try {
			results = this.internals.transcript.answerOpenToolCalls(OPERATION_ABORTED);
		} catch {
			return;
		}
		if (results.length === 0) return;
		const shown = new Set(this.messagesAtDispose);
		this.messagesAtDispose?.push(...results.filter((result) => !shown.has(result)));
		// A result the detached run delivers later (its message_end was under way) is not written twice.
		this.internals.scratch.answeredAtDispose = new Set(results.map((result) => result.toolCallId));
	}

	/** The next-turn messages no prompt took, thenable: awaiting it waits for the shutdown handlers. */
	private disposeResult(): DisposeResult {
		const messages = this.queues.nextTurnMessages();
		const wait = this.shutdownWait;
		const result = messages as DisposeResult;
		// Not enumerable: the array still spreads, compares and serializes as the plain messages.
		// biome-ignore lint/suspicious/noThenProperty: intended, `await session.dispose()` waits for the shutdown handlers
		Object.defineProperty(result, "then", {
			value: <A = CustomMessage[], B = never>(
				onFulfilled?: ((value: CustomMessage[]) => A | PromiseLike<A>) | null,
				onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
			) => wait.then(() => messages.slice()).then(onFulfilled, onRejected),
		});
		return result;
	}

	// -------------------------------------------------------------------------------------------
	// Internals

	private assertUsable(): void {
		if (this.disposed) throw this.closedError();
	}

	/** Why a prompt, steer, follow-up or message is refused now: disposed, being disposed or being replaced by its runtime. */
	private inputRefusal(): SettleError | undefined {
		if (this.disposed) return this.closedError();
		const closing = closingMessages.get(this);
		if (closing !== undefined) return new SettleError("SESSION_CLOSED", closing);
		const replacing = replacingMessages.get(this);
		return replacing === undefined
			? undefined
			: new SettleError("BUSY", replacing, { details: { sessionReplacement: true } });
	}

	private assertAcceptsInput(): void {
		const refusal = this.inputRefusal();
		if (refusal) throw refusal;
	}

	/** Why a held prompt or queued reload ends unrun when the session is torn down: as input sent now would be refused. */
	private teardownRefusal(): SettleError {
		return this.inputRefusal() ?? this.closedError();
	}

	/** The error of any call after dispose(): why it was disposed, when its runtime said so. */
	private closedError(): SettleError {
		return new SettleError("SESSION_CLOSED", closedMessages.get(this) ?? SESSION_DISPOSED);
	}

	private request(payload: PromptPayload, preflightResult?: (disposition: PromptDisposition) => void): Promise<void> {
		if (this.disposed) return Promise.reject(this.closedError());
		// A prompt sent during a reload waits for it (the reload machine holds it, then releases or refuses it).
		const reloadActor = this.reloadActor;
		if (reloadActor?.getSnapshot().can({ type: "HOLD_PROMPT", promptId: "" })) {
			const promptId = `h${++this.reloadCounter}`;
			return new Promise<void>((resolve, reject) => {
				this.heldPrompts.set(promptId, { payload, preflightResult, resolve, reject });
				reloadActor.send({ type: "HOLD_PROMPT", promptId });
			});
		}
		this.syncRetrySettings();
		const requestId = `p${++this.requestCounter}`;
		const request: PromptRequest = { requestId, payload };
		// An extension's send from a manual compaction's session_compact runs once it is over (pi#9647).
		if (
			this.internals.scratch.manualCompactionSaved &&
			(payload.kind === "custom" || (payload.kind === "text" && payload.source === "extension"))
		) {
			request.whenIdle = true;
		}
		// Its place among the messages queued as it asks, from now: the machine may handle the request
		// after a steer() / followUp() made later (sent from one of its own event's listeners).
		if (payload.kind === "text" && payload.streamingBehavior) {
			const command = payload.expandPromptTemplates && extensionCommandName(this.internals, payload.text) !== undefined;
			this.queues.reserveTurn(requestId, payload.streamingBehavior, command ? undefined : payload.text);
		}
		return new Promise<void>((resolve, reject) => {
			this.pending.set(requestId, { resolve, reject, preflightResult });
			this.actor.send({ type: "PROMPT", request });
		});
	}

	private syncRetrySettings(): void {
		syncRetrySettings(this.internals);
	}

	/** Side effects the machine asks for (typed emitted events). Never throws (XState rethrows asynchronously). */
	private onMachineEvent(event: SessionHandledEmit): void {
		try {
			switch (event.type) {
				case "prompt_deferred":
					// It runs as an operation of its own once idle: it joins no queue.
					this.queues.releaseReservedTurn(event.requestId);
					return;
				case "preflight_result": {
					const pending = this.pending.get(event.requestId);
					if (!pending) return;
					if (event.disposition === "rejected") {
						this.pending.delete(event.requestId);
						pending.reject(toError(event.error));
						return;
					}
					// Started, but aborted in its hooks: the operation settles without a run (nothing sent).
					const aborted = event.disposition === "started" && this.internals.scratch.preflightAbort?.aborted === true;
					try {
						pending.preflightResult?.(aborted ? "aborted" : event.disposition);
					} catch {
						// The caller's callback must not break the session.
					}
					if (event.disposition !== "started") {
						this.pending.delete(event.requestId);
						pending.resolve();
					}
					return;
				}
				case "operation_settled": {
					// A retry that never ran (aborted) must not mark the next prompt's request as one.
					this.router.clearRetry();
					this.internals.scratch.settledAnnounced = undefined;
					const pending = this.pending.get(event.requestId);
					this.pending.delete(event.requestId);
					const writeFailure = this.internals.scratch.settleWriteFailure;
					this.internals.scratch.settleWriteFailure = undefined;
					// A run that threw, or stalled, fails its prompt() after agent_settled (C.2: the error escapes the finally).
					// An operation its runtime aborted to tear the session down: as if disposed mid-run.
					if (tearingDown.has(this)) pending?.reject(new SettleError("SESSION_CLOSED", DISPOSED_BEFORE_SETTLED));
					else if (event.runFailure) pending?.reject(normalizeError(event.runFailure.error));
					else if (event.stall) pending?.reject(this.stalledError(event.stall));
					else if (writeFailure !== undefined) pending?.reject(normalizeError(writeFailure));
					else pending?.resolve();
					return;
				}
				case "auto_retry_start": {
					this.events.emit(event);
					// C.4 step 5: the failed attempt leaves the model context but stays in the log.
					const failed = this.internals.scratch.lastAssistant;
					if (failed?.stopReason !== "error") return;
					try {
						this.internals.transcript.omit([failed]);
					} catch (error) {
						// The edit is not in the log (file deleted, disk full): a retry would resend the failed
						// attempt and could not save its answer. It is cancelled; prompt() fails with why.
						this.internals.scratch.settleWriteFailure = error;
						this.actor.send({ type: "ABORT_RETRY" });
						return;
					}
					// A virtual model's router sees the next request as a retry of this one.
					this.router.noteRetry(failed);
					return;
				}
				case "auto_retry_end":
					this.events.emit(event);
					return;
				case "summarization_retry_scheduled":
				case "summarization_retry_attempt_start":
				case "summarization_retry_finished":
					this.events.emit(publicSummarizationRetryEvent(event));
					return;
				case "overflow_recovery_failed":
					reportOverflowRecoveryFailed(this.internals, event.errorMessage);
					return;
				case "abort_requested":
					if (event.target === "run") this.agent.abort();
					else if (event.target === "compaction") abortWithIssuedReason(this.internals.scratch.compactionController);
					else if (event.target === "preflight") {
						abortPreflight(this.internals);
						abortWithIssuedReason(this.internals.scratch.compactionController);
					} else if (event.target === "boundary") {
						this.internals.scratch.boundaryAborted = true;
						abortWithIssuedReason(this.internals.scratch.boundaryController);
					} else if (event.target === "settled") abortWithIssuedReason(this.internals.scratch.settledController);
					else if (event.target === "branch_summary") abortBranchSummary(this.internals);
					return;
				case "tree_navigation_done":
					finishTreeNavigation(this.internals, event.requestId, event.output, event.error, event.refused);
					return;
				case "request_compaction_done":
					finishRequestCompaction(this.internals);
					return;
				case "preflight_dispatch_released":
					finishPreflightDispatch(this.internals);
					return;
				case "manual_compaction_done": {
					const pending = this.compactions.get(event.requestId);
					this.compactions.delete(event.requestId);
					if (!pending) return;
					// Cancelled by the runtime to replace or dispose the session: the caller's session is gone.
					const cancelled = event.cancelled || (event.error instanceof SettleError && event.error.code === "ABORTED");
					if (cancelled && tearingDown.has(this)) pending.reject(new SettleError("SESSION_CLOSED", COMPACTION_CLOSED));
					else if (event.cancelled) pending.reject(new SettleError("ABORTED", COMPACTION_CANCELLED));
					else if (event.refused) pending.reject(new SettleError("BUSY", COMPACTION_OTHER_INSTRUCTIONS));
					else if (event.error !== undefined) pending.reject(toError(event.error));
					else if (event.output?.result) pending.resolve(event.output.result as CompactionResult<unknown>);
					else
						pending.reject(new SettleError("INTERNAL", event.output?.errorMessage ?? "Compaction produced no result"));
					return;
				}
				default:
					return;
			}
		} catch {
			// A failure here must not become an uncaught exception inside XState.
		}
	}

	private stalledError(stall: OperationStall): SettleError {
		const queued = { steering: this.queues.steeringTexts(), followUp: this.queues.followUpTexts() };
		const count = queued.steering.length + queued.followUp.length;
		return new SettleError("OPERATION_STALLED", operationStalledMessage(stall.reason, stall.runIndex, count), {
			details: { ...stall, stillQueued: this.agent.hasQueuedMessages(), ...queued },
		});
	}

	/**
	 * The Agent hooks. The Agent reads them when a run starts, so {@link selectAgentHooks} installs,
	 * before each run, only those something listens to — an idle hook still costs an await per call.
	 * Each reads the current extension runner when called.
	 */
	private readonly hooks: Required<
		Pick<
			Agent,
			| "beforeToolCall"
			| "afterToolCall"
			| "finishTurn"
			| "prepareRequest"
			| "prepareNextTurn"
			| "transformContext"
			| "onPayload"
			| "onResponse"
		>
	> = {
		// Handlers left behind after the abort's grace are refused what they do late (`abandoned`).
		beforeToolCall: ({ toolCall, args, context }, signal, abandoned) =>
			this.runnerInstance
				.emitToolCall(
					{
						type: "tool_call",
						toolName: toolCall.name,
						toolCallId: toolCall.id,
						input: args as Record<string, unknown>,
					},
					(input) => rewrittenArgumentsProblem(context.tools, toolCall, input),
					{ signal, abandoned, graceMs: this.agent.toolAbortGraceMs },
				)
				.then((result) => {
					if (!result?.block) return undefined;
					const decision: { block: true; reason?: string; terminate?: boolean } = { block: true };
					if (result.reason !== undefined) decision.reason = result.reason;
					if (result.terminate !== undefined) decision.terminate = result.terminate;
					return decision;
				}),
		// `tool_result` handlers (chained overrides), then newer pi's image normalization of the
		// (possibly replaced) content: images over the inline limits are resized before the result
		// is saved. Without handlers or images it answers synchronously.
		afterToolCall: ({ toolCall, args, result, isError }, signal, abandoned) => {
			const runner = this.runnerInstance;
			const handled = runner.hasHandlers("tool_result");
			// `content` may be missing (an empty result).
			if (!handled && !result.content?.some((block) => block.type === "image")) return undefined;
			const overridden = handled
				? runner.emitToolResult(
						{
							type: "tool_result",
							toolName: toolCall.name,
							toolCallId: toolCall.id,
							input: args as Record<string, unknown>,
							content: result.content,
							details: (result as AgentToolResult).details,
							isError,
							...(result.usage !== undefined ? { usage: result.usage } : {}),
						},
						{ signal, abandoned, graceMs: this.agent.toolAbortGraceMs },
					)
				: Promise.resolve(undefined);
			return overridden.then(async (override) => {
				const content = override?.content ?? result.content;
				if (!content) return override;
				const normalized = await normalizeToolResultImages(content, {
					autoResize: this.settingsManager.getImageAutoResize(),
					...(signal ? { signal } : {}),
				});
				if (normalized === content) return override;
				return { ...override, content: normalized };
			});
		},
		finishTurn: (turn, signal) => finishTurnBoundary(this.internals, turn, signal),
		// A forced system prompt applies to this operation's requests only; it is never persisted.
		// A virtual selection is routed per request; a routing failure rejects, which ends the run
		// with an error response naming the virtual model. A request over the routed model's
		// threshold is compacted first (pi 1.6); the route stands.
		prepareRequest: ({ context, model, thinkingLevel }, signal) => {
			const forced = this.internals.scratch.forcedSystemPrompt;
			const requestContext = forced === undefined ? context : { ...context, systemPrompt: forced };
			if (!isVirtualModel(model)) return forced === undefined ? undefined : { context: requestContext };
			return this.router.route(model, thinkingLevel, requestContext, signal).then(async (route) => {
				const compacted = await compactBeforeRoutedRequest(this.internals, route.model, requestContext.messages);
				// The compaction rebuilt the transcript: the request carries the compacted context.
				const sent = compacted ? { ...requestContext, messages: this.agent.state.messages } : requestContext;
				return { context: sent, model: route.model, thinkingLevel: route.thinkingLevel };
			});
		},
		// Tools or prompt changed mid-operation: record the change before the next model call.
		prepareNextTurn: () => {
			// refreshContext() during the run: every message of the finished turn is persisted by now.
			this.internals.transcript.rebuildIfRequested();
			if (!this.loadout.hasUnrecordedChanges) return undefined;
			const message = this.loadout.nextSystemMessage();
			return message ? { messages: [message] } : undefined;
		},
		transformContext: (messages) => this.runnerInstance.emitContext(messages),
		onPayload: (payload, model) => this.runnerInstance.emitBeforeProviderRequest(payload, { model }),
		onResponse: (response) =>
			this.runnerInstance.emit({ type: "after_provider_response", status: response.status, headers: response.headers }),
	};

	/**
	 * Installs the hooks this run needs (called before every run): extension hooks only when an
	 * extension handles their event (`afterToolCall` always: it also normalizes tool images, and
	 * answers synchronously for a result without images or handlers), the request projection only
	 * with a forced system prompt. Handlers registered during a run take effect from the next run.
	 */
	private selectAgentHooks(): void {
		const agent = this.agent;
		const runner = this.runnerInstance;
		const hooks = this.hooks;
		agent.beforeToolCall = runner.hasHandlers("tool_call") ? hooks.beforeToolCall : undefined;
		// Always: a tool's images are normalized even without `tool_result` handlers.
		agent.afterToolCall = hooks.afterToolCall;
		agent.finishTurn = runner.hasHandlers("turn_end") ? hooks.finishTurn : undefined;
		// Chosen at run start: a switch to a virtual model mid-run is routed by the model runtime (`direct`).
		agent.prepareRequest =
			this.internals.scratch.forcedSystemPrompt !== undefined || isVirtualModel(agent.state.model)
				? hooks.prepareRequest
				: undefined;
		agent.prepareNextTurn = hooks.prepareNextTurn;
		agent.transformContext =
			runner.hasHandlers("context") || runner.hasHandlers("context_with_system") ? hooks.transformContext : undefined;
		agent.onPayload = runner.hasHandlers("before_provider_request") ? hooks.onPayload : undefined;
		agent.onResponse = runner.hasHandlers("after_provider_response") ? hooks.onResponse : undefined;
	}

	private trackExtensionSend(send: Promise<void>): Promise<void> {
		this.extensionSends.add(send);
		const done = () => this.extensionSends.delete(send);
		send.then(done, done);
		return send;
	}

	/**
	 * Resolves once the session is idle and every message an extension sent with `pi.sendUserMessage`
	 * or `pi.sendMessage(…, { triggerTurn: true })` has run, including runs those start in turn.
	 * `prompt("/cmd")` resolves when the command's handler returns, before a run the command
	 * started has begun: `settle -p` waits here before it prints the answer and exits.
	 *
	 * @example
	 * ```ts
	 * await session.prompt("/review"); // the command calls pi.sendUserMessage("Review the diff")
	 * await session.waitForExtensionRuns();
	 * ```
	 */
	async waitForExtensionRuns(): Promise<void> {
		while (!this.disposed && (this.extensionSends.size > 0 || !isQuiet(this.snapshot))) {
			await Promise.allSettled([...this.extensionSends, this.waitForIdle()]);
		}
	}

	/** Binds what `pi.*` and `ctx.*` need (pi's `_bindExtensionCore`). */
	private bindRunner(runner: ExtensionRunner): void {
		const actions: ExtensionRuntimeActions = {
			// Not refused while the runtime replaces this session: pi runs them on it (see setReplacingMessage).
			sendMessage: (message, options) =>
				this.trackExtensionSend(this.submitCustomMessage(message, options ?? {}, "pi.sendMessage")),
			sendUserMessage: (content, options) =>
				this.trackExtensionSend(
					this.submitUserMessage(
						content,
						options?.deliverAs ? { deliverAs: options.deliverAs } : {},
						"pi.sendUserMessage",
					),
				),
			appendEntry: (customType, data) => {
				const id = this.sessionManager.appendCustomEntry(customType, data);
				this.internals.transcript.announce(id);
			},
			setSessionName: (name) => this.nameSession("pi.setSessionName", name),
			getSessionName: () => this.sessionManager.getSessionName(),
			setLabel: (entryId, label) => {
				const invalid =
					stringArgumentError("pi.setLabel", "the entry id", entryId, ENTRY_ID_HINT) ??
					stringArgumentError("pi.setLabel", "the label", label, LABEL_HINT, true);
				if (invalid) throw invalid;
				this.sessionManager.appendLabelChange(entryId, label);
			},
			getActiveTools: () => this.getActiveToolNames(),
			getAllTools: () => this.getAllTools(),
			setActiveTools: (names) => {
				const invalid = toolNamesError("pi.setActiveTools", names);
				if (invalid) throw invalid;
				this.loadout.setActiveToolsByName(names);
			},
			refreshTools: () => this.loadout.refresh(this.runnerInstance.getAllRegisteredTools()),
			getCommands: () => this.getCommands(),
			setModel: async (model) => {
				const invalid = modelArgumentError("pi.setModel", model);
				if (invalid) throw invalid;
				if (!this.modelRuntime.hasConfiguredAuth(model.provider)) return false;
				await this.setModel(model);
				return true;
			},
			getThinkingLevel: () => this.thinkingLevel,
			setThinkingLevel: (level) => this.setThinkingLevel(level),
		};
		const contextActions: ExtensionContextActions = {
			getModel: () => this.model,
			// The session's isIdle: not idle while compacting either (pi-powerline-footer#198, pinet#941).
			isIdle: () => this.isIdle,
			// While agent_settled handlers run, the dispatch's own signal (pi-agents#139).
			getSignal: () =>
				this.agent.signal ??
				this.internals.scratch.boundaryController?.signal ??
				this.internals.scratch.settledController?.signal,
			abort: () => {
				void this.abort();
			},
			hasPendingMessages: () => this.pendingMessageCount > 0,
			shutdown: () => this.shutdownHandler?.(),
			getContextUsage: () => this.getContextUsage(),
			compact: (customInstructions) => this.compactFromExtension(customInstructions),
			getSystemPrompt: () => this.systemPrompt,
			getSystemPromptOptions: () => this.getSystemPromptOptions(),
			getScopedModels: () => this.scopedModels,
			isProjectTrusted: () => this.resourceLoader.isProjectTrusted?.() ?? this.settingsManager.isProjectTrusted(),
		};
		const registry = this.modelRegistry;
		// Providers go to the model registry; the session remembers them so a reload can unregister them.
		const providerActions = {
			registerProvider: (name: string, config: ProviderConfig) => {
				if (!registry.registerProvider) throw new SettleError("EXTENSION", providerNotSupported(name));
				registry.registerProvider(name, config);
				this.extensionProviders.add(name);
				this.refreshModelFromRegistry();
			},
			unregisterProvider: (name: string) => {
				registry.unregisterProvider?.(name);
				this.extensionProviders.delete(name);
				this.refreshModelFromRegistry();
			},
			registerVirtualModel: (definition: VirtualModelDefinition) => {
				if (!registry.registerVirtualModel) {
					throw new SettleError(
						"EXTENSION",
						`Virtual model ${definition.provider}/${definition.id} cannot be registered: this model runtime is fixed.`,
					);
				}
				registry.registerVirtualModel(definition);
				this.extensionVirtualModels.set(`${definition.provider}\0${definition.id}`, [
					definition.provider,
					definition.id,
				]);
			},
			unregisterVirtualModel: (provider: string, id: string) => {
				registry.unregisterVirtualModel?.(provider, id);
				this.extensionVirtualModels.delete(`${provider}\0${id}`);
			},
		};
		runner.bindCore(actions, contextActions, providerActions);
		runner.bindCommandContext(this.defaultCommandActions());
		// The host's UI, when it bound one, replaces it (applyHostBindings).
		runner.setUIContext(this.defaultUI);
	}

	/** Command actions: `waitForIdle`, and session replacement when a runtime set {@link setReplacementActions}. */
	private defaultCommandActions(): ExtensionCommandContextActions {
		const unavailable = (what: string) => () =>
			Promise.reject(
				new SettleError(
					"EXTENSION",
					`ctx.${what}() needs a session runtime; this AgentSession was created without one.`,
				),
			);
		return {
			// Inside the session's own dispatch (a command run by prompt()), waiting would wait for itself.
			waitForIdle: () => (this.internals.scratch.dispatchDepth > 0 ? Promise.resolve() : this.waitForIdle()),
			newSession: (options) => this.replacementActions?.newSession(options) ?? unavailable("newSession")(),
			fork: (entryId, options) => this.replacementActions?.fork(entryId, options) ?? unavailable("fork")(),
			navigateTree: (targetId, options) => this.navigateTree(targetId, options),
			switchSession: (path, options) =>
				this.replacementActions?.switchSession(path, options) ?? unavailable("switchSession")(),
			reload: () => this.reload(),
		};
	}

	/**
	 * The slash commands a user can type: extension commands, prompt templates and skills
	 * (`skill:<name>`), as pi's `getCommands` lists them for extensions and RPC's `get_commands`.
	 *
	 * @example
	 * ```ts
	 * for (const command of session.getCommands()) console.log(`/${command.name}  ${command.description ?? ""}`);
	 * ```
	 */
	getCommands(): SlashCommandInfo[] {
		const commands = this.runnerInstance.getCommandInfos();
		for (const template of this.resourceLoader.getPrompts().prompts) {
			commands.push({
				name: template.name,
				description: template.description,
				// Shown by pi 0.73.1's autocomplete only; a client building its own needs it too (pi#2761).
				...(template.argumentHint ? { argumentHint: template.argumentHint } : {}),
				source: "prompt",
				sourceInfo: template.sourceInfo,
			});
		}
		for (const skill of this.resourceLoader.getSkills().skills) {
			commands.push({
				name: `skill:${skill.name}`,
				description: skill.description,
				source: "skill",
				sourceInfo: skill.sourceInfo,
			});
		}
		return commands;
	}

	/**
	 * The level a switch to `target` asks for (then clamped), in the spec's order (C.12): the
	 * explicit one (a scoped model's, `setModel`'s option), else the target's `modelThinkingLevels`
	 * entry (newer pi), else the settings' default, else the current level, else `medium`. The
	 * current level counts only on a model that reasons: the `off` a model without reasoning is
	 * clamped to was nobody's choice (pi 0.73.1 starts such a switch at `medium` too). pi 0.73.1
	 * keeps a reasoning model's current level even when the settings' default differs.
	 * `fromModelEntry`: the level is the model's own, not to be saved as everyone's default.
	 */
	private thinkingLevelForSwitch(
		target: Model,
		explicit?: ThinkingLevel,
	): { level: ThinkingLevel; fromModelEntry: boolean } {
		if (explicit) return { level: explicit, fromModelEntry: false };
		const own = this.settingsManager.getModelThinkingLevel(target.provider, target.id) as ThinkingLevel | undefined;
		if (own) return { level: own, fromModelEntry: true };
		// The live level, or the unclamped level it came from (pi#6329); not the settings' default,
		// which `--thinking` or a resumed session's level did not change (pi-llama#24).
		const requested = this.requestedThinkingLevel;
		const current = this.model;
		if (current && requested && clampThinkingLevel(current, requested) === this.thinkingLevel) {
			return { level: requested, fromModelEntry: false };
		}
		if (current?.reasoning && !this.thinkingFromModelEntry) return { level: this.thinkingLevel, fromModelEntry: false };
		const level = (this.settingsManager.getDefaultThinkingLevel() as ThinkingLevel | undefined) ?? "medium";
		return { level, fromModelEntry: false };
	}
}

function providerNotSupported(name: string): string {
	return `Provider "${name}" cannot be registered: the session's model registry does not accept registrations. Use an InMemoryModelRuntime or pass a modelRegistry with registerProvider().`;
}

/** The machine rests in `idle` with no tree navigation running (or was stopped): what `waitForIdle()` waits for. */
function isQuiet(snapshot: PromptOperationSnapshot): boolean {
	return snapshot.status !== "active" || (snapshot.value === "idle" && snapshot.context.treeNavigation === undefined);
}

function toError(error: unknown): Error {
	if (error instanceof Error) return error;
	return new SettleError("INTERNAL", errorMessage(error));
}

/**
 * The Agent a session creates when none is given (pi's `createAgentSession` steps 3, 4, 6, 7):
 * restored messages, model and thinking level; the model runtime's stream function and keys;
 * queue modes, transport and thinking budgets from settings; the session's LLM conversion. A
 * brand-new session records its initial model and thinking level.
 */
function createSessionAgent(config: AgentSessionConfig): Agent {
	const { sessionManager, settingsManager, modelRuntime } = config;
	const context = sessionManager.buildSessionContext();
	// Responses name physical models, so a virtual selection is only in `model_change` entries.
	const selection = recordedSelection(sessionManager, modelRuntime) ?? context.model;
	const recorded = selection ? modelRuntime.getModel(selection.provider, selection.modelId) : undefined;
	const defaultProvider = settingsManager.getDefaultProvider();
	const defaultModelId = settingsManager.getDefaultModel();
	const fromSettings =
		defaultProvider && defaultModelId ? modelRuntime.getModel(defaultProvider, defaultModelId) : undefined;
	const model =
		config.model ??
		(recorded && modelRuntime.hasConfiguredAuth(recorded.provider) ? recorded : undefined) ??
		fromSettings ??
		modelRuntime.getAvailable()[0];
	// pi's "has existing" (A.5 step 2): a conversation message on the branch (Settle's transcript
	// system messages do not count); the thinking entry is looked for on the branch (step 4).
	const hasExistingSession = context.messages.some((message) => message.role !== "system");
	const hasThinkingEntry = sessionManager.getBranch().some((entry) => entry.type === "thinking_level_change");
	// Newer pi: a session without a conversation starts with the model's `modelThinkingLevels` entry.
	const perModel =
		model && !hasExistingSession ? settingsManager.getModelThinkingLevel(model.provider, model.id) : undefined;
	const requested =
		config.thinkingLevel ??
		(hasExistingSession && hasThinkingEntry ? context.thinkingLevel : undefined) ??
		(perModel as ThinkingLevel | undefined) ??
		(settingsManager.getDefaultThinkingLevel() as ThinkingLevel | undefined) ??
		"medium";
	const thinkingLevel = model ? clampThinkingLevel(model, requested) : "off";
	const agent = new Agent({
		initialState: { thinkingLevel, messages: context.messages, ...(model ? { model } : {}) },
		// `images.blockImages` is read at every request, so a changed setting or a reload applies.
		convertToLlm: capRequestImages(pairToolResults(blockImagesAwareConverter(() => settingsManager.getBlockImages()))),
		streamFn: modelRuntime.stream,
		getApiKey: (provider) => modelRuntime.getApiKey(provider),
		steeringMode: settingsManager.getSteeringMode(),
		followUpMode: settingsManager.getFollowUpMode(),
		toolExecution: settingsManager.getToolExecution(),
		transport: settingsManager.getTransport(),
		sessionId: sessionManager.getSessionId(),
		...(settingsManager.getThinkingBudgets() ? { thinkingBudgets: settingsManager.getThinkingBudgets() } : {}),
	});
	// Step 7: a session without a conversation on its branch records its model and thinking level
	// as a new one does (also when resumed: a file whose leaf was moved above its first message).
	if (!hasExistingSession) {
		if (model) sessionManager.appendModelChange(model.provider, model.id);
		sessionManager.appendThinkingLevelChange(thinkingLevel);
		return agent;
	}
	// A model the host passed over the recorded one: the new turns run on it, so a later resume must
	// too (as `settle -c --model`); written with the next activity, as the level below (oh-my-pi#528).
	const hostModel = config.model;
	if (hostModel && selection && (selection.provider !== hostModel.provider || selection.modelId !== hostModel.id)) {
		sessionManager.appendModelChange(hostModel.provider, hostModel.id, { deferWrite: true });
	}
	if (!hasThinkingEntry || (config.thinkingLevel !== undefined && thinkingLevel !== context.thinkingLevel)) {
		// Written with the next activity: resuming must not rewrite the file (oh-my-pi#528). A level
		// the host passed over the recorded one is recorded too: the new turns run at it, and a later
		// resume must come back on it, not on a level none of them used (as `settle --thinking`).
		sessionManager.appendThinkingLevelChange(thinkingLevel, { deferWrite: true });
	}
	return agent;
}

/**
 * The model selection the branch records (pi 1.6's `getBranchSelection`): a virtual `model_change`
 * holds over the physical responses after it while the virtual model is registered. Walks back
 * only to the latest `model_change` or response, and once more to a `model_change` before it.
 */
export function recordedSelection(
	sessionManager: Pick<SessionManager, "getBranch">,
	modelRuntime: Pick<ModelRuntime, "getModel">,
): { provider: string; modelId: string } | undefined {
	return getBranchSelection(sessionManager.getBranch(), (provider, modelId) =>
		modelRuntime.getModel(provider, modelId),
	);
}

/**
 * The session's cache warmer: refreshes go straight to the model runtime (the recorded request
 * already carries the session's provider settings and headers); `cache_warming_decision`
 * handlers may override each decision; timers run on the session's clock.
 */
function createCacheWarmer(config: AgentSessionConfig, runner: () => ExtensionRunner): CacheWarmer {
	const { sessionManager, settingsManager, modelRuntime } = config;
	const sessionClock = config.clock as (SessionClock & { now?: () => number }) | undefined;
	const clock: CacheWarmerClock | undefined = sessionClock && {
		setTimeout: (fn, timeout) => sessionClock.setTimeout(fn, timeout),
		clearTimeout: (id) => sessionClock.clearTimeout(id),
		now: typeof sessionClock.now === "function" ? () => sessionClock.now!() : () => Date.now(),
	};
	return new CacheWarmer({
		stream: modelRuntime.stream,
		appendUsage: (kind, provider, model, usage, note) => sessionManager.appendUsage(kind, provider, model, usage, note),
		getBranch: () => sessionManager.getBranch(),
		getEntry: (id) => sessionManager.getEntry(id),
		getLeafId: () => sessionManager.getLeafId(),
		getMode: () => settingsManager.getCacheWarmingMode(),
		decide: (event) => runner().emitCacheWarmingDecision(event),
		...(clock ? { clock } : {}),
	});
}

/**
 * Whether the conversation still extends the prefix a request was built from, on the same model
 * (pi's `cacheContextIsCurrent`). O(1) at request time: the Agent appends to its live array in
 * place and assigns a new one for any other change, so only a replaced array is compared element
 * by element, and only when the warmer asks (at a refresh or a status read).
 */
function cacheContextIsCurrent(agent: Agent, requestModel: Model): () => boolean {
	const messages = agent.state.messages;
	const length = messages.length;
	return () => {
		const model = agent.state.model;
		if (model.provider !== requestModel.provider || model.id !== requestModel.id) return false;
		const current = agent.state.messages;
		if (current.length < length) return false;
		if (current === messages) return true;
		for (let index = 0; index < length; index++) if (current[index] !== messages[index]) return false;
		return true;
	};
}

/** The `ENTRY_WRITTEN` event of an appended entry: what a trace reader needs to find it in the log. */
function entryWritten(entry: SessionEntry): Extract<PromptOperationEvent, { type: "ENTRY_WRITTEN" }> {
	const event: Extract<PromptOperationEvent, { type: "ENTRY_WRITTEN" }> = {
		type: "ENTRY_WRITTEN",
		entryId: entry.id,
		entryType: entry.type,
	};
	if (entry.type === "message") {
		event.role = entry.message.role;
		if (entry.message.role === "assistant") event.stopReason = entry.message.stopReason;
	} else if (entry.type === "context_edit") {
		event.targetId = entry.targetId;
		event.omits = entry.replacement === null;
	} else if (entry.type === "label") event.targetId = entry.targetId;
	return event;
}

/**
 * What {@link AgentSession.dispose} returns: the custom messages sent with `deliverAs: "nextTurn"`
 * that no prompt took, an array you can use at once, and a thenable: awaiting it resolves with the
 * same messages once the extensions' `session_shutdown` handlers have finished (at most the
 * session's `shutdownTimeoutMs`), so a host that exits right after keeps what they write.
 *
 * @example
 * ```ts
 * const undelivered: CustomMessage[] = await session.dispose();
 * process.exitCode = undelivered.length === 0 ? 0 : 1;
 * ```
 */
export type DisposeResult = CustomMessage[] & PromiseLike<CustomMessage[]>;

/**
 * Waits for the `session_shutdown` handlers `runner` dispatched to finish, at most `timeoutMs` on
 * `clock` (`Infinity`: as long as they take, as pi's `runtime.dispose()` does). Then the ones still
 * running are reported as extension errors naming their extension, and the wait ends (they are not
 * stopped). Never rejects.
 */
function boundedShutdownWait(
	runner: ExtensionRunner,
	timeoutMs: number,
	clock: SessionClock | undefined,
): Promise<void> {
	const settled = runner.sessionShutdownSettled();
	if (!Number.isFinite(timeoutMs)) return settled;
	const timers = (clock ?? BOUNDED_WAIT_CLOCK) as SessionClock;
	return new Promise((resolve) => {
		const timer = timers.setTimeout(() => {
			reportUnfinishedShutdownHandlers(runner, timeoutMs, "quit");
			resolve();
		}, timeoutMs);
		void settled.then(() => {
			timers.clearTimeout(timer);
			resolve();
		});
	});
}

/** {@link argumentsProblem} for the tool of the turn's `tools` that `toolCall` names (none: no check). */
function rewrittenArgumentsProblem(
	tools: readonly AgentTool[] | undefined,
	toolCall: AgentToolCall,
	input: Record<string, unknown>,
): string | undefined {
	const tool = tools?.find((candidate) => candidate.name === toolCall.name);
	return tool ? argumentsProblem(tool, toolCall, input) : undefined;
}

/** A valid `shutdownTimeoutMs` (default {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}); anything else is an `INVALID_ARGUMENT`. */
function validShutdownTimeout(value: number | undefined): number {
	if (value === undefined) return DEFAULT_SHUTDOWN_TIMEOUT_MS;
	if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
		throw new SettleError("INVALID_ARGUMENT", invalidShutdownTimeout(value));
	}
	return value;
}

/**
 * How a runtime's teardown of `session` is timed: the session's clock (undefined: real time) and
 * its `shutdownTimeoutMs`. Not part of the public API.
 */
export function teardownTimingOf(session: AgentSession): {
	clock: SessionClock | undefined;
	shutdownTimeoutMs: number;
} {
	// biome-ignore lint/complexity/useLiteralKeys: private fields, read for the runtime's machine
	return { clock: session["clock"], shutdownTimeoutMs: session["shutdownTimeoutMs"] };
}

/**
 * What times a session's inspection events: its clock's `now()` (a `SimulatedClock` in tests), or
 * undefined for the real clock. The runtime times its own events with it too, so a runtime trace
 * of simulated sessions has one timeline. Not part of the public API.
 */
export function inspectionClockOf(session: AgentSession): (() => number) | undefined {
	// biome-ignore lint/complexity/useLiteralKeys: the private clock, read for the runtime's inspector
	const clock = session["clock"] as { now?: () => number } | undefined;
	return typeof clock?.now === "function" ? () => clock.now!() : undefined;
}

/** Sessions {@link abortForTeardown} aborted: their operation's prompt() and a manual compact() reject with `SESSION_CLOSED`. */
const tearingDown = new WeakSet<AgentSession>();
/** How many replacements of a session rolled back after their teardown began ({@link resumeAfterRollback}). */
const rollbacks = new WeakMap<AgentSession, number>();

/**
 * A replacement rolled back after {@link abortForTeardown}: the session goes on, so its later
 * prompts settle as usual and a handler the teardown's abort left behind is refused again. Not part
 * of the public API.
 */
export function resumeAfterRollback(session: AgentSession): void {
	rollbacks.set(session, (rollbacks.get(session) ?? 0) + 1);
	tearingDown.delete(session);
	// biome-ignore lint/complexity/useLiteralKeys: the private runner, read for the runtime's rollback
	(session["runnerInstance"] as ExtensionRunner).markSessionClosing(false);
}

/**
 * Before a runtime shuts a session down (replacement or dispose): aborts what it runs (a run, a
 * retry's backoff, a compaction, the user's shell commands) and resolves once all have settled, so
 * the run's end (its aborted answer, every tool call's result) and each command's cancelled result
 * are in the log before the session is disposed and its file released (pi-desktop#46: the old file
 * was left with a user message and no answer, or a tool call without a result). At once when
 * nothing runs. Never rejects. How long it is waited for is the runtime machine's `settleTimeout`
 * delay (`settlingCurrent`), on the session's clock. Not part of the public API.
 */
export async function abortForTeardown(session: AgentSession): Promise<void> {
	const rolledBackBefore = rollbacks.get(session);
	await session.stopReloadForTeardown();
	// The settle bound ran out while a reload held this step, and the replacement rolled back: the
	// session lives on, nothing of it is to be stopped.
	if (rollbacks.get(session) !== rolledBackBefore) return;
	// The user's shell commands (`!cmd`, RPC bash) are cancelled while the session can still record
	// them: the file says they ran and what they printed (a dispose would kill them unrecorded).
	// biome-ignore lint/complexity/useLiteralKeys: the private runner, read for the runtime's teardown
	const bash = session["bash"] as BashRunner;
	// biome-ignore lint/complexity/useLiteralKeys: the private runner, read for the runtime's teardown
	(session["runnerInstance"] as ExtensionRunner).markSessionClosing();
	bash.abortAll();
	const commandsEnded = bash.ended();
	// A run in flight, a retry's backoff or a compaction between runs is ended, so its end events
	// (agent_settled, auto_retry_end, compaction_end) reach the host before the session goes. A prompt
	// still in its preflight is left alone: its extension command may be what replaces the session.
	if (session.agent.state.isStreaming || session.isRetrying || session.lifecycle.startsWith("compacting")) {
		// Its prompt() still rejects with SESSION_CLOSED, as when a session is disposed mid-run.
		tearingDown.add(session);
		await session.abort().catch(() => undefined);
	}
	await commandsEnded;
}

/**
 * Whether messages an extension sent (`pi.sendUserMessage`, `pi.sendMessage(…, { triggerTurn })`)
 * are still to run: after a prompt an extension command handled, a run follows then. `settle --rpc`
 * tells its client so (src/cli/rpc-mode.ts). Not part of the public API.
 */
export function hasPendingExtensionSends(session: AgentSession): boolean {
	// biome-ignore lint/complexity/useLiteralKeys: the private set, read for the RPC server
	return (session["extensionSends"] as ReadonlySet<unknown>).size > 0;
}

/**
 * Saves the default a switch implies, before the session changes. A settings file that does not
 * parse (a hand edit under way) refuses the switch here, so nothing changed and "fix it, then try
 * again" is true (cc-switch#1988). One that cannot be written (read-only: a Nix store link) does not
 * stop the switch: its error is returned, for the caller to report once the switch is complete.
 */
function saveDefault(save: () => void): SettleError | undefined {
	try {
		save();
		return undefined;
	} catch (error) {
		if (error instanceof SettleError && error.code === "IO") return error;
		throw error;
	}
}
