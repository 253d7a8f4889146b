/**
 * State shared by the `pi` objects of one load pass and the runner that dispatches to them:
 * the extensions in load order, their registrations, flag values, queued provider registrations,
 * the bound session actions and the stale flag. One runtime per runner; a reload builds a new one.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { dirname } from "node:path";
import { DEFAULT_TOOL_ABORT_GRACE_MS } from "../agent/agent-loop.js";
import { SettleError } from "../errors.js";
import type { VirtualModelDefinition } from "../llm/virtual-models.js";
import type { ExtensionSource } from "../resources/types.js";
import { createSyntheticSourceInfo, unknownToolNames, unknownToolNamesMessage } from "../tools/registry.js";
import type { SourceInfo } from "../tools/types.js";
import { execCommand } from "./exec.js";
import { RUNTIME_NOT_INITIALIZED_MESSAGE } from "./messages.js";
import type {
	EventBus,
	ExecOptions,
	ExtensionAPI,
	ExtensionContext,
	ExtensionError,
	ExtensionFlag,
	ExtensionModelRegistry,
	ExtensionProviderActions,
	ExtensionRuntimeActions,
	ExtensionShortcut,
	ExtensionToolDefinition,
	ExtensionVirtualModel,
	MessageRenderer,
	ProviderConfig,
	RegisteredCommand,
	RegisteredTool,
} from "./types.js";

/** A handler as stored: it receives an event and a context and may return anything. */
export type HandlerFn = (event: unknown, ctx: unknown) => unknown;

/** One loaded extension and everything it registered (pi's `Extension`). */
export interface Extension {
	/** Display path: the module file, or `<inline:N>`. */
	path: string;
	resolvedPath: string;
	sourceInfo: SourceInfo;
	/** Handlers by event name. Arrays are replaced, never mutated, so a dispatch keeps its snapshot. */
	handlers: Map<string, readonly HandlerFn[]>;
	/** Tools by name; re-registering a name replaces it in place. */
	tools: Map<string, RegisteredTool>;
	messageRenderers: Map<string, MessageRenderer>;
	commands: Map<string, RegisteredCommand>;
	flags: Map<string, ExtensionFlag>;
	shortcuts: Map<string, ExtensionShortcut>;
}

/** A handler with the extension that registered it. */
export interface HandlerEntry {
	extension: Extension;
	handler: HandlerFn;
}

const NO_HANDLERS: readonly HandlerEntry[] = Object.freeze([]);

/**
 * One handler call the host may leave behind (`turn_end`, `agent_before_settle`, `tool_call`,
 * `tool_result`): its extension, its
 * event, its operation's signal, and whether the host left it behind (`abandoned` aborted while
 * it still ran). What a left-behind call does to the session is refused: it would land in a later
 * operation.
 */
export interface HandlerScope {
	readonly extensionPath: string;
	readonly event: string;
	/** The operation's signal: the `ctx.signal` of this call. */
	readonly signal: AbortSignal | undefined;
	/** Aborted when the host stops waiting for the dispatch (an `AbortSignal` fits). */
	readonly abandoned: { readonly aborted: boolean } | undefined;
	/** How long after the abort the host waited for it (default {@link DEFAULT_TOOL_ABORT_GRACE_MS}). */
	readonly graceMs?: number | undefined;
	/** The handler returned (or threw) before the dispatch was abandoned. */
	settledInTime: boolean;
}

/** Whether `scope`'s handler was still running when its dispatch was abandoned. */
export function leftBehind(scope: HandlerScope | undefined): boolean {
	return scope?.abandoned?.aborted === true && !scope.settledInTime;
}

/**
 * The boundary handler call whose async work runs now, for `pi.*`: the `pi` object is the
 * extension's for its whole life, so only the async context tells which dispatch a call comes from.
 * Entered only around boundary handlers (entering one makes every later promise of the process a
 * little slower on Node 20): a session without them never enters it.
 */
const handlerScopes = new AsyncLocalStorage<HandlerScope>();

/** Runs `call` (a boundary handler) so that the `pi.*` calls of its async work know `scope`. */
export function runInHandlerScope<T>(scope: HandlerScope, call: () => T): T {
	return handlerScopes.run(scope, call);
}

/** Refusals already reported to the error listeners: the runner does not report them again when the handler rethrows one. */
const reportedRefusals = new WeakSet<object>();

/** Whether `error` is a left-behind refusal already reported ({@link ExtensionRuntime.refuseLeftBehind}). */
export function isReportedRefusal(error: unknown): boolean {
	return typeof error === "object" && error !== null && reportedRefusals.has(error);
}

/** What a left-behind handler is told when it acts on the session (and what the error listeners get). */
export function leftBehindMessage(what: string, scope: HandlerScope): string {
	return (
		`${what} refused: this ${scope.event} handler was left behind after the abort (it did not return within ` +
		`${scope.graceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS} ms of it), and its operation is over: what it does now would land in a later one. ` +
		"An extension handler should return once ctx.signal aborts."
	);
}

/** A provider registration made while loading, applied at `bindCore`. */
export interface PendingProviderRegistration {
	name: string;
	config: ProviderConfig;
	extensionPath: string;
}

/** A `pi.registerVirtualModel` made while extensions load; applied when the session binds. */
export interface PendingVirtualModelRegistration {
	definition: VirtualModelDefinition;
	extensionPath: string;
}

/**
 * Source info of an extension record that carries none (built by hand, not by the resource
 * loader): synthetic for `<inline:N>`; otherwise `local` with the module's folder as `baseDir`.
 */
export function extensionSourceInfo(path: string, resolvedPath: string, source?: ExtensionSource): SourceInfo {
	if (path.startsWith("<") && path.endsWith(">")) {
		return createSyntheticSourceInfo(path, { source: path.slice(1, -1).split(":")[0] || "temporary" });
	}
	const scope = source === "global" ? "user" : source === "project" ? "project" : "temporary";
	return createSyntheticSourceInfo(path, { source: "local", scope, baseDir: dirname(resolvedPath) });
}

/**
 * An extension with nothing registered yet. `sourceInfo` is the loader's (what discovery found);
 * without one it is derived from `path` and `source` ({@link extensionSourceInfo}).
 */
export function createExtension(
	path: string,
	resolvedPath: string,
	source?: ExtensionSource,
	sourceInfo?: SourceInfo,
): Extension {
	return {
		path,
		resolvedPath,
		sourceInfo: sourceInfo ? { ...sourceInfo } : extensionSourceInfo(path, resolvedPath, source),
		handlers: new Map(),
		tools: new Map(),
		messageRenderers: new Map(),
		commands: new Map(),
		flags: new Map(),
		shortcuts: new Map(),
	};
}

/**
 * The shared state. Internal: extensions see it only through their `pi` object.
 *
 * @example
 * ```ts
 * const { runtime } = await instantiateExtensions(resourceLoader.getExtensions().extensions, { cwd });
 * runtime.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE); // on session replacement
 * runtime.assertActive(); // now throws SettleError STALE_CONTEXT
 * ```
 */
export class ExtensionRuntime {
	/** Extensions in load order (a factory that threw is removed again). */
	readonly extensions: Extension[] = [];
	readonly flagValues: Map<string, boolean | string>;
	pendingProviderRegistrations: PendingProviderRegistration[] = [];
	pendingVirtualModelRegistrations: PendingVirtualModelRegistration[] = [];
	/** Set by the runner: the context a virtual model's `route` gets (created per request, as pi). */
	createContext: ((extensionPath?: string) => ExtensionContext) | undefined;
	readonly cwd: string;
	readonly eventBus: EventBus;
	actions: ExtensionRuntimeActions | undefined;
	private providerTarget: ExtensionProviderActions | undefined;
	private staleMessage: string | undefined;
	/** Set when the runtime tears the session down (replacement or dispose): nothing is left behind then. Cleared if the replacement rolls back. */
	sessionClosing = false;
	private readonly handlerIndex = new Map<string, readonly HandlerEntry[]>();
	private readonly busSubscriptions = new Set<() => void>();
	private readonly subscriptionsByExtension = new Map<Extension, Set<() => void>>();
	/** Aborted when the runtime goes stale: ends the `pi.exec` programs its extensions left running. */
	private readonly execsEnd = new AbortController();
	/** Set by the runner: where errors of actions and bus listeners go. */
	reportError: (error: ExtensionError) => void = () => {};

	constructor(options: { cwd: string; eventBus: EventBus; flagValues?: ReadonlyMap<string, boolean | string> }) {
		this.cwd = options.cwd;
		this.eventBus = options.eventBus;
		this.flagValues = new Map(options.flagValues ?? []);
	}

	get stale(): string | undefined {
		return this.staleMessage;
	}

	/**
	 * Throws (and reports, naming the extension and the event) a `STALE_CONTEXT` error when
	 * `scope`, by default the boundary handler call whose async work runs now, was left behind.
	 */
	refuseLeftBehind(what: string, scope: HandlerScope | undefined = handlerScopes.getStore()): void {
		// A session being torn down has no later operation to land in: a gate whose dialog the teardown
		// ended may still notify (its contexts go stale with the dispose).
		if (this.sessionClosing || !leftBehind(scope)) return;
		const message = leftBehindMessage(what, scope!);
		this.reportError({ extensionPath: scope!.extensionPath, event: scope!.event, error: message });
		const error = new SettleError("STALE_CONTEXT", message, {
			details: { extensionPath: scope!.extensionPath, event: scope!.event },
		});
		reportedRefusals.add(error);
		throw error;
	}

	/** Throws the stale-context error once the runtime was invalidated. */
	assertActive(): void {
		if (this.staleMessage !== undefined) throw new SettleError("STALE_CONTEXT", this.staleMessage);
	}

	/**
	 * Marks every `pi` and `ctx` of this runtime stale (first message wins), drops its bus listeners
	 * and ends the programs its extensions still run through `pi.exec` — once `execsEndAfter`
	 * settles when given (`session_shutdown` handlers still running may be awaiting one to clean up).
	 */
	invalidate(message: string, execsEndAfter?: Promise<unknown>): void {
		if (this.staleMessage !== undefined) return;
		this.staleMessage = message;
		for (const unsubscribe of [...this.busSubscriptions]) unsubscribe();
		this.busSubscriptions.clear();
		const endExecs = () => this.execsEnd.abort();
		if (execsEndAfter) void execsEndAfter.then(endExecs, endExecs);
		else endExecs();
	}

	/**
	 * `options.signal` joined with the runtime's end: a program an extension started without a signal
	 * (or never aborted) would run on after settle exits, under init, with no one left to stop it.
	 */
	execSignal(options: ExecOptions | undefined): AbortSignal {
		// A signal of its own per call: a dozen calls listening on one signal would make Node warn of a leak.
		return AbortSignal.any(options?.signal ? [options.signal, this.execsEnd.signal] : [this.execsEnd.signal]);
	}

	/** The handlers of an event across extensions, in dispatch order. The array is never mutated. */
	handlersFor(event: string): readonly HandlerEntry[] {
		const cached = this.handlerIndex.get(event);
		if (cached) return cached;
		const entries: HandlerEntry[] = [];
		for (const extension of this.extensions) {
			const handlers = extension.handlers.get(event);
			if (handlers) for (const handler of handlers) entries.push({ extension, handler });
		}
		const index = entries.length > 0 ? entries : NO_HANDLERS;
		this.handlerIndex.set(event, index);
		return index;
	}

	/** Forgets cached dispatch lists (after a registration, a removal or a failed load). */
	invalidateHandlerIndex(event?: string): void {
		if (event === undefined) this.handlerIndex.clear();
		else this.handlerIndex.delete(event);
	}

	addHandler(extension: Extension, event: string, handler: HandlerFn): () => void {
		// Each registration is its own wrapper, so registering one function twice and removing once keeps one.
		const entry: HandlerFn = (e, ctx) => handler(e, ctx);
		extension.handlers.set(event, [...(extension.handlers.get(event) ?? []), entry]);
		this.invalidateHandlerIndex(event);
		let registered = true;
		return () => {
			if (!registered) return;
			registered = false;
			const remaining = (extension.handlers.get(event) ?? []).filter((other) => other !== entry);
			if (remaining.length > 0) extension.handlers.set(event, remaining);
			else extension.handlers.delete(event);
			this.invalidateHandlerIndex(event);
		};
	}

	/**
	 * Removes an extension whose factory failed: its handlers, bus listeners and queued provider
	 * registrations go with it.
	 */
	dropExtension(extension: Extension): void {
		const index = this.extensions.indexOf(extension);
		if (index >= 0) this.extensions.splice(index, 1);
		for (const unsubscribe of [...(this.subscriptionsByExtension.get(extension) ?? [])]) unsubscribe();
		this.subscriptionsByExtension.delete(extension);
		this.pendingProviderRegistrations = this.pendingProviderRegistrations.filter(
			(entry) => entry.extensionPath !== extension.path,
		);
		this.pendingVirtualModelRegistrations = this.pendingVirtualModelRegistrations.filter(
			(entry) => entry.extensionPath !== extension.path,
		);
		this.invalidateHandlerIndex();
	}

	/** The bound action, or the "not initialized" error while factories run. */
	action<K extends keyof ExtensionRuntimeActions>(name: K): ExtensionRuntimeActions[K] {
		if (!this.actions) throw new SettleError("EXTENSION", RUNTIME_NOT_INITIALIZED_MESSAGE);
		return this.actions[name];
	}

	/** Binds the session's actions and applies queued provider registrations. */
	bind(
		actions: ExtensionRuntimeActions,
		providerActions: ExtensionProviderActions | undefined,
		modelRegistry: ExtensionModelRegistry | undefined,
	): void {
		this.actions = actions;
		this.providerTarget = {
			registerProvider:
				providerActions?.registerProvider ?? modelRegistry?.registerProvider?.bind(modelRegistry) ?? undefined,
			unregisterProvider:
				providerActions?.unregisterProvider ?? modelRegistry?.unregisterProvider?.bind(modelRegistry) ?? undefined,
			registerVirtualModel:
				providerActions?.registerVirtualModel ?? modelRegistry?.registerVirtualModel?.bind(modelRegistry) ?? undefined,
			unregisterVirtualModel:
				providerActions?.unregisterVirtualModel ??
				modelRegistry?.unregisterVirtualModel?.bind(modelRegistry) ??
				undefined,
		};
		const pending = this.pendingProviderRegistrations;
		this.pendingProviderRegistrations = [];
		for (const { name, config, extensionPath } of pending) {
			try {
				this.applyProvider(name, config);
			} catch (error) {
				this.reportError(errorRecord(extensionPath, "register_provider", error));
			}
		}
		const pendingVirtual = this.pendingVirtualModelRegistrations;
		this.pendingVirtualModelRegistrations = [];
		for (const { definition, extensionPath } of pendingVirtual) {
			try {
				this.applyVirtualModel(definition);
			} catch (error) {
				this.reportError(errorRecord(extensionPath, "register_virtual_model", error));
			}
		}
	}

	/** `pi.registerVirtualModel`: queued while loading, immediate once bound (as registerProvider). */
	registerVirtualModel(definition: VirtualModelDefinition, extensionPath: string): void {
		if (!this.actions) {
			this.pendingVirtualModelRegistrations.push({ definition, extensionPath });
			return;
		}
		this.applyVirtualModel(definition);
	}

	unregisterVirtualModel(provider: string, id: string): void {
		if (!this.actions) {
			this.pendingVirtualModelRegistrations = this.pendingVirtualModelRegistrations.filter(
				({ definition }) => definition.provider !== provider || definition.id !== id,
			);
			return;
		}
		const unregister = this.providerTarget?.unregisterVirtualModel;
		if (!unregister) throw noProviderTarget(`${provider}/${id}`);
		unregister(provider, id);
	}

	private applyVirtualModel(definition: VirtualModelDefinition): void {
		const register = this.providerTarget?.registerVirtualModel;
		if (!register) throw noProviderTarget(`${definition.provider}/${definition.id}`);
		register(definition);
	}

	registerProvider(name: string, config: ProviderConfig, extensionPath: string): void {
		if (!this.actions) {
			this.pendingProviderRegistrations.push({ name, config, extensionPath });
			return;
		}
		this.applyProvider(name, config);
	}

	unregisterProvider(name: string): void {
		if (!this.actions) {
			this.pendingProviderRegistrations = this.pendingProviderRegistrations.filter((entry) => entry.name !== name);
			return;
		}
		const unregister = this.providerTarget?.unregisterProvider;
		if (!unregister) throw noProviderTarget(name);
		unregister(name);
	}

	private applyProvider(name: string, config: ProviderConfig): void {
		const register = this.providerTarget?.registerProvider;
		if (!register) throw noProviderTarget(name);
		register(name, config);
	}

	/** Subscribes on the shared bus for one extension; the subscription ends when the runtime goes stale. */
	subscribe(extension: Extension, channel: string, handler: (data: unknown) => void | Promise<void>): () => void {
		const report = (error: unknown) => this.reportError(errorRecord(extension.path, `events:${channel}`, error));
		const off = this.eventBus.on(channel, (data) => {
			try {
				const result = handler(data);
				if (result && typeof (result as Promise<void>).then === "function") {
					(result as Promise<void>).then(undefined, report);
				}
			} catch (error) {
				report(error);
			}
		});
		const owned = this.subscriptionsByExtension.get(extension) ?? new Set<() => void>();
		this.subscriptionsByExtension.set(extension, owned);
		const unsubscribe = () => {
			off();
			this.busSubscriptions.delete(unsubscribe);
			owned.delete(unsubscribe);
		};
		this.busSubscriptions.add(unsubscribe);
		owned.add(unsubscribe);
		return unsubscribe;
	}
}

function noProviderTarget(name: string): SettleError {
	return new SettleError(
		"EXTENSION",
		`Provider "${name}" cannot be registered: the session bound no model registry. Pass modelRegistry to the ExtensionRunner or providerActions to bindCore().`,
	);
}

/**
 * A tool `extension` registered at run time under a name another loaded extension has: the first
 * loaded keeps it for the model (the load-time rule), which would otherwise change without a word.
 */
function reportToolClash(runtime: ExtensionRuntime, extension: Extension, name: string): void {
	const owners = runtime.extensions.filter((candidate) => candidate.tools.has(name));
	const other = owners.find((candidate) => candidate !== extension);
	if (!other) return;
	runtime.reportError(
		errorRecord(
			extension.path,
			"register_tool",
			`Tool "${name}" is also registered by ${other.path}: the model gets the one of ${owners[0]!.path}, the extension loaded first; rename one`,
		),
	);
}

/** An {@link ExtensionError} from anything thrown. */
export function errorRecord(extensionPath: string, event: string, error: unknown): ExtensionError {
	if (error instanceof Error) {
		const record: ExtensionError = { extensionPath, event, error: error.message };
		if (error.stack !== undefined) record.stack = error.stack;
		return record;
	}
	return { extensionPath, event, error: typeof error === "string" ? error : String(error) };
}

function invalid(message: string): SettleError {
	return new SettleError("INVALID_ARGUMENT", message);
}

/**
 * Why providers would refuse `name` as a tool name, or `undefined`. Anthropic and OpenAI accept
 * `^[a-zA-Z0-9_-]{1,64}$` only and answer 400 to every request that carries another name.
 */
function toolNameProblem(name: string): string | undefined {
	if (/^[a-zA-Z0-9_-]{1,64}$/.test(name)) return undefined;
	const suggestion = name.replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 64);
	return `a tool name may hold only letters, digits, "_" and "-" (at most 64), as the Anthropic and OpenAI APIs require; name it e.g. "${suggestion}".`;
}

/** A tool's `parameters` as providers need them: a JSON Schema object (TypeBox or plain). */
function isSchemaObject(value: unknown): boolean {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The `pi` object of one extension. Registration methods write into `extension`; actions go
 * through the runtime's bound session actions; every member checks staleness first.
 */
export function createExtensionAPI(extension: Extension, runtime: ExtensionRuntime): ExtensionAPI {
	// Reported as pi does (`<runtime>`), with the sender's path for the host to name.
	const report = (event: string, error: unknown) =>
		runtime.reportError({ ...errorRecord("<runtime>", event, error), sentBy: extension.path });
	const fireAndForget = (event: string, run: () => Promise<void> | void) => {
		let result: Promise<void> | void;
		try {
			result = run();
		} catch (error) {
			report(event, error);
			return;
		}
		if (result && typeof result.then === "function") result.then(undefined, (error) => report(event, error));
	};
	const events: EventBus = {
		emit(channel, data) {
			runtime.assertActive();
			runtime.eventBus.emit(channel, data);
		},
		on(channel, handler) {
			runtime.assertActive();
			if (typeof handler !== "function") throw invalid(`pi.events.on("${channel}") needs a handler function.`);
			return runtime.subscribe(extension, channel, handler);
		},
	};
	const api: ExtensionAPI = {
		on(event, handler) {
			runtime.assertActive();
			if (typeof event !== "string" || event.length === 0) {
				throw invalid('pi.on() needs an event name such as "tool_call" as its first argument.');
			}
			if (typeof handler !== "function") throw invalid(`pi.on("${event}") needs a handler function.`);
			return runtime.addHandler(extension, event, handler as HandlerFn);
		},
		registerTool(tool) {
			runtime.assertActive();
			if (!tool || typeof tool.name !== "string" || tool.name.length === 0) {
				throw invalid("pi.registerTool() needs a definition with a non-empty string name.");
			}
			const nameProblem = toolNameProblem(tool.name);
			if (nameProblem) throw invalid(`pi.registerTool("${tool.name}"): ${nameProblem}`);
			if (typeof tool.execute !== "function") {
				throw invalid(
					`pi.registerTool("${tool.name}") needs an execute(toolCallId, params, signal, onUpdate, ctx) function.`,
				);
			}
			// Without a schema object every request of the session fails, not just calls to this tool
			// (the Anthropic client reads `parameters.properties` of each tool it sends).
			if (!isSchemaObject(tool.parameters)) {
				throw invalid(
					`pi.registerTool("${tool.name}") needs parameters: a JSON Schema object such as Type.Object({ path: Type.String() }) (Type.Object({}) for a tool without arguments).`,
				);
			}
			const newName = !extension.tools.has(tool.name);
			extension.tools.set(tool.name, {
				definition: tool as ExtensionToolDefinition as RegisteredTool["definition"],
				sourceInfo: extension.sourceInfo,
			});
			// Registered at run time: the load-time conflict check is over, so a name another
			// extension has (two MCP bridges' `query`) is said here, once per new name.
			if (runtime.actions && newName) reportToolClash(runtime, extension, tool.name);
			// Registered at run time: the session re-merges its registry (new tools become active).
			runtime.actions?.refreshTools();
		},
		registerCommand(given, options) {
			runtime.assertActive();
			// maki#640, agent-afk#1654: a name written with its slash (`"/deploy"`) would answer only `//deploy`.
			const name = typeof given === "string" ? given.replace(/^\/+/, "") : given;
			if (typeof name !== "string" || name.length === 0 || /\s/.test(name)) {
				throw invalid(`pi.registerCommand() needs a command name without spaces (got ${JSON.stringify(given)}).`);
			}
			if (typeof options?.handler !== "function") {
				throw invalid(`pi.registerCommand("${name}") needs a handler(args, ctx) function.`);
			}
			extension.commands.set(name, { name, sourceInfo: extension.sourceInfo, ...options });
		},
		registerShortcut(shortcut, options) {
			runtime.assertActive();
			extension.shortcuts.set(shortcut, { shortcut, extensionPath: extension.path, ...options });
		},
		registerFlag(name, options) {
			runtime.assertActive();
			if (typeof name !== "string" || name.length === 0 || name.startsWith("-")) {
				throw invalid(`pi.registerFlag() needs a flag name without leading dashes (got ${JSON.stringify(name)}).`);
			}
			if (options?.type !== "boolean" && options?.type !== "string") {
				throw invalid(`pi.registerFlag("${name}") needs type "boolean" or "string".`);
			}
			// pi#8064: a default of the other type (`default: "false"` on a boolean) would be what
			// getFlag() returns when the flag is not given: a truthy string that turns the option on.
			if (options.default !== undefined && typeof options.default !== options.type) {
				throw invalid(
					`pi.registerFlag("${name}") has type "${options.type}" but default ${JSON.stringify(options.default)} (a ${typeof options.default}): give a ${options.type} default, e.g. default: ${options.type === "boolean" ? "false" : '""'}.`,
				);
			}
			extension.flags.set(name, { name, extensionPath: extension.path, ...options });
			if (options.default !== undefined && !runtime.flagValues.has(name)) runtime.flagValues.set(name, options.default);
		},
		getFlag(name) {
			runtime.assertActive();
			// pi#3614: `getFlag("--plan")`, written as the user types it, reads the flag `plan`.
			const key = typeof name === "string" ? name.replace(/^--/, "") : name;
			return extension.flags.has(key) ? runtime.flagValues.get(key) : undefined;
		},
		registerMessageRenderer(customType, renderer) {
			runtime.assertActive();
			extension.messageRenderers.set(customType, renderer as MessageRenderer);
		},
		sendMessage(message, options) {
			runtime.assertActive();
			runtime.refuseLeftBehind("pi.sendMessage");
			const send = runtime.action("sendMessage");
			fireAndForget("send_message", () => send(message, options));
		},
		sendUserMessage(content, options) {
			runtime.assertActive();
			runtime.refuseLeftBehind("pi.sendUserMessage");
			const send = runtime.action("sendUserMessage");
			fireAndForget("send_user_message", () => send(content, options));
		},
		appendEntry(customType, data) {
			runtime.assertActive();
			runtime.refuseLeftBehind("pi.appendEntry");
			if (typeof customType !== "string" || customType.length === 0) {
				throw invalid("pi.appendEntry() needs a non-empty customType string.");
			}
			runtime.action("appendEntry")(customType, data);
		},
		setSessionName(name) {
			runtime.assertActive();
			runtime.refuseLeftBehind("pi.setSessionName");
			runtime.action("setSessionName")(name);
		},
		getSessionName() {
			runtime.assertActive();
			return runtime.action("getSessionName")();
		},
		setLabel(entryId, label) {
			runtime.assertActive();
			runtime.refuseLeftBehind("pi.setLabel");
			runtime.action("setLabel")(entryId, label);
		},
		exec(command, args, options) {
			runtime.assertActive();
			return execCommand(command, args ?? [], options?.cwd ?? runtime.cwd, {
				...options,
				signal: runtime.execSignal(options),
			});
		},
		getActiveTools() {
			runtime.assertActive();
			return runtime.action("getActiveTools")();
		},
		getAllTools() {
			runtime.assertActive();
			return runtime.action("getAllTools")();
		},
		setActiveTools(toolNames) {
			runtime.assertActive();
			runtime.refuseLeftBehind("pi.setActiveTools");
			runtime.action("setActiveTools")(toolNames);
			// pi drops unknown names silently: a typo would take a tool away without a word.
			const registered = runtime
				.action("getAllTools")()
				.map((tool) => tool.name);
			const unknown = unknownToolNames(registered, toolNames);
			if (unknown.length > 0) {
				const anyApplied = unknown.length < new Set(toolNames).size;
				const message = unknownToolNamesMessage("pi.setActiveTools", unknown, registered, anyApplied);
				runtime.reportError(errorRecord(extension.path, "set_active_tools", message));
			}
		},
		getCommands() {
			runtime.assertActive();
			return runtime.action("getCommands")();
		},
		setModel(model) {
			runtime.assertActive();
			runtime.refuseLeftBehind("pi.setModel");
			if (!runtime.actions) return Promise.reject(new SettleError("EXTENSION", RUNTIME_NOT_INITIALIZED_MESSAGE));
			return runtime.actions.setModel(model);
		},
		getThinkingLevel() {
			runtime.assertActive();
			return runtime.action("getThinkingLevel")();
		},
		setThinkingLevel(level) {
			runtime.assertActive();
			runtime.refuseLeftBehind("pi.setThinkingLevel");
			runtime.action("setThinkingLevel")(level);
		},
		registerProvider(name, config) {
			runtime.assertActive();
			runtime.registerProvider(name, config, extension.path);
		},
		unregisterProvider(name) {
			runtime.assertActive();
			runtime.unregisterProvider(name);
		},
		registerVirtualModel(model) {
			runtime.assertActive();
			// Routing runs after the runner binds, so the context is created per request (pi).
			const definition: VirtualModelDefinition = {
				...(model as ExtensionVirtualModel),
				route: (request) => {
					const createContext = runtime.createContext;
					if (!createContext) throw new SettleError("EXTENSION", RUNTIME_NOT_INITIALIZED_MESSAGE);
					return (model as ExtensionVirtualModel).route(request, createContext(extension.path));
				},
			};
			runtime.registerVirtualModel(definition, extension.path);
		},
		unregisterVirtualModel(provider, id) {
			runtime.assertActive();
			runtime.unregisterVirtualModel(provider, id);
		},
		get events() {
			runtime.assertActive();
			return events;
		},
	};
	return api;
}
