/**
 * Building the session's extension runtime, and rebuilding it on `reload()`:
 *
 * 1. `session_shutdown {reason: "reload"}` to the old runner, awaited for at most the session's
 *    `shutdownTimeoutMs` (the reload machine's bounded wait: a handler still running then is
 *    reported as an extension error naming its extension, and the reload goes on, pi#9811), then
 *    the old runner is invalidated: every `pi` / `ctx` captured from it throws the stale-context error;
 * 2. providers the old extensions registered are unregistered (the new ones register again);
 * 3. settings are re-read (queue modes, retry settings and built-in tool options follow), then
 *    every resource (context files, skills, templates, prompts, extension modules);
 * 4. a new runner runs the extension factories with the previous flag values and the same
 *    `pi.events` bus; the tool registry is merged again, keeping the active tools that are still
 *    registered and activating every extension and SDK tool;
 * 5. when the host bound extensions: its `beforeSessionStart`, then `session_start {reason:
 *    "reload"}` and `resources_discover {reason: "reload"}` (paths found extend the resources).
 *
 * The session manager, the transcript and the model stay. The prompt change (if any) is recorded
 * as a `system` patch before the next request.
 *
 * Which reload runs when, what a prompt sent meanwhile does (held, then run or refused), and where
 * a reload overtaken by its runtime's teardown stops, is the reload machine's decision
 * (`machines/runtime-reload.machine.ts`); {@link startReloadActor} runs it with step 1
 * (`shutdownExtensions`), steps 1's invalidation to 4's factories (`loadExtensions`), the rest of 4
 * and `beforeSessionStart` (`bindExtensions`) and 5's events (`startExtensions`) as its invoked actors.
 * A runner loaded and not installed (the reload was cut off or failed before `bindExtensions`) is
 * invalidated unused: its extensions never hear of the session. One exception: cut off by a runtime
 * teardown that then rolls back, it becomes the session's ({@link installCutOffReload}; the old
 * runner is stale by then), and is invalidated only once the session is disposed.
 */
import { type ActorRefFrom, createActor, fromPromise } from "xstate";
import {
	MAX_TIMER_DELAY_MS,
	type ReloadEmitted,
	type ReloadStepInput,
	reloadMachine,
} from "../../machines/runtime-reload.machine.js";
import { type InstantiatedExtensions, instantiateExtensions } from "../extensions/loader.js";
import { STALE_EXTENSION_CONTEXT_MESSAGE } from "../extensions/messages.js";
import { ExtensionRunner, resourcePathsFromDiscovery } from "../extensions/runner.js";
import type { EventBus, ExtensionLoadError, ExtensionModelRegistry } from "../extensions/types.js";
import type { ResourceLoader } from "../resources/types.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import type { SessionManager } from "../store/session-manager.js";
import type { SessionInternals } from "./internals.js";
import { extensionToolLeftInactive, shutdownHandlerTimedOut } from "./texts.js";
import type { ToolLoadoutOptions } from "./tool-loadout.js";

/** `reload()` while an operation or a compaction runs. */
export const RELOAD_WHILE_BUSY =
	"Cannot reload while the session is processing a prompt or compacting. Wait for it (await session.waitForIdle()) or abort it, then reload.";

/** Options of `session.reload()`. */
export interface ReloadOptions {
	/**
	 * Called after the new extensions loaded and before they get `session_start` (only when the host
	 * bound extensions): the place to re-bind host UI state. A rejection rejects `reload()`; the
	 * session is already reloaded by then. Don't await a prompt here: prompts wait for the reload.
	 */
	beforeSessionStart?: () => void | Promise<void>;
}

/** A runner over freshly instantiated extensions, and the extensions that failed to load. */
export interface LoadedExtensionRunner {
	runner: ExtensionRunner;
	/** Modules that failed to import (from the resource loader) and factories that threw. */
	loadErrors: ExtensionLoadError[];
}

/**
 * Runs the factories of the resource loader's current extensions and wraps them in a runner.
 * Must not throw: failures are `loadErrors`.
 *
 * @example
 * ```ts
 * const { runner, loadErrors } = await loadExtensionRunner(resourceLoader, {
 *   cwd,
 *   sessionManager,
 *   modelRegistry: modelRegistryView(modelRuntime),
 *   eventBus: createEventBus(),
 * });
 * ```
 */
export async function loadExtensionRunner(
	resourceLoader: ResourceLoader,
	options: {
		cwd: string;
		sessionManager: SessionManager;
		modelRegistry: ExtensionModelRegistry;
		eventBus: EventBus;
		flagValues?: ReadonlyMap<string, boolean | string>;
		/** Factories already run (the services run them once to validate CLI flags); default: run the loader's. */
		extensions?: InstantiatedExtensions;
	},
): Promise<LoadedExtensionRunner> {
	const extensions = resourceLoader.getExtensions();
	const loaded =
		options.extensions ??
		(await instantiateExtensions(extensions.extensions, {
			cwd: options.cwd,
			eventBus: options.eventBus,
			...(options.flagValues ? { flagValues: options.flagValues } : {}),
		}));
	const runner = new ExtensionRunner(loaded, {
		cwd: options.cwd,
		sessionManager: options.sessionManager,
		modelRegistry: options.modelRegistry,
	});
	return { runner, loadErrors: [...extensions.errors, ...loaded.errors] };
}

/** Options of the built-in tools that come from settings (read at creation and on reload). */
export function builtinToolOptions(settings: SettingsManager): ToolLoadoutOptions["builtinOptions"] {
	const options: ToolLoadoutOptions["builtinOptions"] = { autoResizeImages: settings.getImageAutoResize() };
	const commandPrefix = settings.getShellCommandPrefix();
	const shellPath = settings.getShellPath();
	if (commandPrefix !== undefined) options.commandPrefix = commandPrefix;
	if (shellPath !== undefined) options.shellPath = shellPath;
	return options;
}

/**
 * Sends `resources_discover` and adds the skill and prompt paths handlers return to the resource
 * loader; the prompt is rebuilt before the next request when anything was added.
 */
export async function discoverExtensionResources(
	s: Pick<SessionInternals, "cwd" | "resourceLoader" | "loadout">,
	runner: ExtensionRunner,
	reason: "startup" | "reload",
): Promise<void> {
	if (!runner.hasHandlers("resources_discover")) return;
	const collected = await runner.emitResourcesDiscover(s.cwd, reason);
	if (collected.skillPaths.length + collected.promptPaths.length + collected.themePaths.length === 0) return;
	s.resourceLoader.extendResources(resourcePathsFromDiscovery(collected));
	s.loadout.invalidatePrompt();
}

/** What a reload needs from the session facade ({@link ReloadHost.target}). */
export interface ReloadTarget {
	readonly s: SessionInternals;
	readonly eventBus: EventBus;
	readonly modelRegistry: ExtensionModelRegistry;
	/** Makes `runner` the session's runner: binds the session's actions and the host's bindings. */
	install(runner: ExtensionRunner, loadErrors: ExtensionLoadError[]): void;
	/** The host called `bindExtensions()`. */
	hasHostBindings(): boolean;
	/** Unregisters the providers the current extensions registered. */
	releaseProviders(): void;
	/** Re-reads the settings the session keeps elsewhere (queue modes, retry settings). */
	syncSettings(): void;
	/** How long the old extensions' `session_shutdown` handlers are waited for (`Infinity`: no limit). */
	readonly shutdownTimeoutMs: number;
	/** The clock the reload machine's bounded wait runs on (the session's; real time when undefined). */
	readonly clock: SessionClockLike | undefined;
}

/** XState's clock interface (the session's `SessionClock`). */
export interface SessionClockLike {
	setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
	clearTimeout(id: unknown): void;
}

/**
 * Real time for the bounded waits on `session_shutdown` handlers and on the session's settling. A
 * bounded wait keeps the process alive until it ends: a script awaiting `runtime.dispose()` or
 * `reload()` whose handler waits on nothing gets past it, the handler reported (unref'd, Node
 * exited inside the await, exit 0 and the rest of the script never run). The unbounded one
 * (`Infinity`, scheduled as the longest timer and ignored) does not: such a handler then ends the
 * process as it ends pi's, instead of holding it for 24 days.
 */
export const BOUNDED_WAIT_CLOCK: SessionClockLike = {
	setTimeout: (fn, ms) => {
		const timer = setTimeout(fn, ms);
		if (ms >= MAX_TIMER_DELAY_MS) timer.unref();
		return timer;
	},
	clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/**
 * Reports every `session_shutdown` handler of `runner` still running through the extension error
 * path (the handler is not stopped: it is abandoned), naming its extension.
 */
export function reportUnfinishedShutdownHandlers(
	runner: ExtensionRunner,
	timeoutMs: number,
	goingOn: Parameters<typeof shutdownHandlerTimedOut>[1],
): void {
	for (const { extensionPath, event } of runner.pendingHandlers()) {
		if (event !== "session_shutdown") continue;
		runner.emitError({ extensionPath, event, error: shutdownHandlerTimedOut(timeoutMs, goingOn) });
	}
}

/** What a reload's steps hand each other: the old runtime, as it was when the reload started, and the new one. */
interface BeforeReload {
	old: ExtensionRunner;
	flagValues: ReadonlyMap<string, boolean | string>;
	activeToolNames: string[];
	extensionTools: { name: string; path: string }[];
	/** Every tool name an extension registered before the reload, active or not. */
	extensionToolNames: string[];
	/** The runner `loadExtensions` built. */
	loaded?: LoadedExtensionRunner;
	/** `bindExtensions` made {@link loaded} the session's runner. */
	installed?: boolean;
}

/** What a session's reload actor needs from the session facade. */
export interface ReloadHost {
	readonly target: ReloadTarget;
	/** The options of the `reload()` call `requestId`. */
	options(requestId: string): ReloadOptions;
	/** What the machine decided (a reload ended, held prompts run or are refused, …). Must not throw. */
	onEmitted(event: ReloadEmitted): void;
}

interface ReloadHostState extends ReloadHost {
	readonly before: Map<string, BeforeReload>;
	/**
	 * A reload the runtime's teardown cut off after loading: its runner loaded, not installed, and
	 * the old runner already stale. The teardown decides: a rollback installs it
	 * ({@link installCutOffReload}), the session's dispose drops it ({@link discardCutOffReload}).
	 */
	cutOffAfterLoading?: BeforeReload & { loaded: LoadedExtensionRunner };
	/** The session was disposed: nothing is kept for a rollback any more. */
	closed?: boolean;
}

/** Each reload actor's session, by its actor system (one system per root actor). */
const reloadHostsBySystem = new WeakMap<object, ReloadHostState>();

function reloadHostOf(system: object): ReloadHostState {
	const host = reloadHostsBySystem.get(system);
	// Unreachable: only startReloadActor creates actors of this machine.
	if (!host) throw new Error("Reload-machine actor without a session: create it with startReloadActor.");
	return host;
}

/** The reload machine with its steps, built once for every session (each step finds its session through its actor system). */
const reloadMachineWithSteps = reloadMachine.provide({
	actors: {
		// Stopped by the machine's bounded wait: the handlers after a stuck one still run (senpi#1732).
		shutdownExtensions: fromPromise<void, ReloadStepInput>(async ({ input, system, signal }) => {
			const host = reloadHostOf(system);
			const s = host.target.s;
			const old = s.runner();
			host.before.set(input.requestId, {
				old,
				flagValues: old.getFlagValues(),
				activeToolNames: s.loadout.getActiveToolNames(),
				extensionTools: s.loadout.activeExtensionTools(),
				extensionToolNames: old.getAllRegisteredTools().map((tool) => tool.definition.name),
			});
			await old.emitSessionShutdown({ type: "session_shutdown", reason: "reload" }, signal);
		}),
		loadExtensions: fromPromise<void, ReloadStepInput>(async ({ input, system }) => {
			const host = reloadHostOf(system);
			const before = stepState(host, input);
			before.loaded = await loadAfterShutdown(host.target, before);
		}),
		bindExtensions: fromPromise<void, ReloadStepInput>(async ({ input, system }) => {
			const host = reloadHostOf(system);
			const before = stepState(host, input);
			if (!before.loaded) throw new Error("reload: binding before the new extensions loaded");
			bindLoaded(host.target, before, before.loaded);
			before.installed = true;
			if (host.target.hasHostBindings()) await host.options(input.requestId).beforeSessionStart?.();
		}),
		startExtensions: fromPromise<void, ReloadStepInput>(async ({ input, system }) => {
			const host = reloadHostOf(system);
			const runner = stepState(host, input).loaded?.runner;
			if (!runner || !host.target.hasHostBindings()) return;
			await runner.emit({ type: "session_start", reason: "reload" });
			await discoverExtensionResources(host.target.s, runner, "reload");
		}),
	},
});

/** A session's reload actor ({@link startReloadActor}). */
export type ReloadActor = ActorRefFrom<typeof reloadMachineWithSteps>;

/**
 * Starts a session's reload actor (the reload machine with its steps): send it `RELOAD` for each
 * `reload()` call and `HOLD_PROMPT` for each prompt that arrives while `snapshot.can()` accepts it;
 * `host.onEmitted` hears what the machine decided. Timed on the session's clock.
 */
export function startReloadActor(host: ReloadHost): ReloadActor {
	const state: ReloadHostState = { ...host, before: new Map() };
	const actor = createActor(reloadMachineWithSteps, {
		input: { shutdownTimeoutMs: host.target.shutdownTimeoutMs },
		clock: (host.target.clock ?? BOUNDED_WAIT_CLOCK) as never,
	});
	reloadHostsBySystem.set(actor.system, state);
	actor.on("*", (event) => {
		const emitted = event as ReloadEmitted;
		if (emitted.type === "shutdown_timed_out") {
			// Reported while the old runner is still the session's: its errors reach the host's onError.
			const before = state.before.get(emitted.requestId);
			if (before) reportUnfinishedShutdownHandlers(before.old, emitted.timeoutMs, "reload");
		} else if (emitted.type === "reload_finished") {
			const before = state.before.get(emitted.requestId);
			state.before.delete(emitted.requestId);
			if (before?.loaded && !before.installed) {
				// Cut off by a teardown that may still roll back: kept, the old runner is stale already.
				if (emitted.cutOff !== undefined && !state.closed)
					state.cutOffAfterLoading = { ...before, loaded: before.loaded };
				// Loaded and never installed (failed in between, or the session is gone): its pi / ctx go stale unused.
				else before.loaded.runner.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE);
			}
		}
		host.onEmitted(emitted);
	});
	actor.start();
	return actor;
}

/**
 * A teardown that cut a reload off after loading rolled back, and the session lives on: the old
 * runner was shut down and invalidated by the reload, so the runner it loaded becomes the
 * session's (its tools, the host's bindings), for the host's rebind to start. Returns whether
 * there was one. Not part of the public API.
 */
export function installCutOffReload(actor: ReloadActor): boolean {
	const state = reloadHostsBySystem.get(actor.system);
	const kept = state?.cutOffAfterLoading;
	if (!state || !kept) return false;
	state.cutOffAfterLoading = undefined;
	bindLoaded(state.target, kept, kept.loaded);
	return true;
}

/** The session is disposed: a runner kept by {@link installCutOffReload}'s cut-off goes stale unused. */
export function discardCutOffReload(actor: ReloadActor): void {
	const state = reloadHostsBySystem.get(actor.system);
	if (!state) return;
	state.closed = true;
	state.cutOffAfterLoading?.loaded.runner.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE);
	state.cutOffAfterLoading = undefined;
}

function stepState(host: ReloadHostState, input: ReloadStepInput): BeforeReload {
	const before = host.before.get(input.requestId);
	if (!before) throw new Error("reload: a step without the runtime the reload started from");
	return before;
}

/** Step 1's invalidation to step 4's factories: the new runner, not installed yet. */
async function loadAfterShutdown(target: ReloadTarget, before: BeforeReload): Promise<LoadedExtensionRunner> {
	const s = target.s;
	before.old.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE);
	target.releaseProviders();

	// Read once: the loader takes these settings as they are (a second read could see a newer file).
	await s.settingsManager.reload();
	target.syncSettings();
	await s.resourceLoader.reload({ settingsReloaded: s.settingsManager });
	return loadExtensionRunner(s.resourceLoader, {
		cwd: s.cwd,
		sessionManager: s.sessionManager,
		modelRegistry: target.modelRegistry,
		eventBus: target.eventBus,
		flagValues: before.flagValues,
	});
}

/** Step 4's rest: `loaded` becomes the session's runner, with its tools. */
function bindLoaded(target: ReloadTarget, before: BeforeReload, loaded: LoadedExtensionRunner): void {
	const s = target.s;
	const { runner, loadErrors } = loaded;
	s.loadout.reconfigureBuiltins(builtinToolOptions(s.settingsManager));
	target.install(runner, loadErrors);
	// The active set survives: a tool turned off stays off (pi-code#81: a plan mode's read-only set
	// came back with every extension tool); only names no extension registered before become active.
	const known = new Set(before.extensionToolNames);
	const tools = runner.getAllRegisteredTools();
	const added = tools.map((tool) => tool.definition.name).filter((name) => !known.has(name));
	s.loadout.refresh(tools, { activeToolNames: [...before.activeToolNames, ...added] });
	keepExtensionToolsClosed(s, before.extensionTools, loadErrors);
	// Context files, skills or the base prompt may have changed even if the tools did not.
	s.loadout.invalidatePrompt();
}

/**
 * An active tool an extension provided before the reload and no extension provides after it,
 * because that extension failed to load, is left inactive, and the failure says so: a built-in
 * or SDK tool of the same name does not silently take its place (pi#8311: a sandboxing `bash`
 * fell through to the unrestricted built-in). `setActiveTools` (or a fixed extension and another
 * reload) brings the name back. An extension that loads but no longer registers the tool (or was
 * taken out of the configuration) chose so: the built-in of that name is active again.
 */
function keepExtensionToolsClosed(
	s: Pick<SessionInternals, "loadout">,
	before: readonly { name: string; path: string }[],
	loadErrors: ExtensionLoadError[],
): void {
	const failed = new Set(loadErrors.map((error) => error.path));
	const lost = before.filter(({ name, path }) => failed.has(path) && s.loadout.toolKind(name) !== "extension");
	const replaced = lost.filter(({ name }) => s.loadout.getActiveToolNames().includes(name));
	if (replaced.length === 0) return;
	const names = new Set(replaced.map(({ name }) => name));
	s.loadout.setActiveToolsByName(s.loadout.getActiveToolNames().filter((name) => !names.has(name)));
	for (const { name, path } of replaced) loadErrors.push({ path, error: extensionToolLeftInactive(name) });
}
