/**
 * `createHarness`: a complete AgentSession for tests — the scripted faux provider
 * on an in-memory model runtime, in-memory settings, an in-memory resource loader with inline
 * extensions, a session log in memory or as a real JSONL file in a temp dir, and every public
 * event recorded.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatedClock } from "xstate";
import type { AgentTool } from "../agent/types.js";
import { SettleError } from "../errors.js";
import { TOOL_CALL_FAILURE_PREFIX } from "../extensions/messages.js";
import { toolCallFailureExtension } from "../extensions/runner.js";
import type { EventBus, ExtensionError, ExtensionFactory } from "../extensions/types.js";
import {
	createFauxProvider,
	type FauxModelDefinition,
	type FauxProvider,
	type FauxProviderOptions,
	type FauxResponseStep,
} from "../llm/faux.js";
import { InMemoryModelRuntime } from "../llm/model-runtime.js";
import type { Message, Model, ThinkingLevel } from "../llm/types.js";
import { createTestResourceLoader, type TestResourceLoaderOptions } from "../resources/test-loader.js";
import type { ResourceLoader } from "../resources/types.js";
import { resolveToolOptions } from "../runtime/sdk.js";
import { AgentSession, type AgentSessionConfig } from "../session/agent-session.js";
import type { AgentSessionEvent, AgentSessionEventType } from "../session/events.js";
import type { QueuedTexts } from "../session/queues.js";
import type { Settings } from "../settings/schema.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { SessionManager } from "../store/session-manager.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { type ActionRun, actionRunStart } from "./actions.js";
import { formatTranscript } from "./transcript.js";

/** Options of {@link createHarness}; everything is optional. */
export interface HarnessOptions {
	/** Faux provider options (models, pacing, token sizes). */
	faux?: FauxProviderOptions;
	/** The faux models (pi's harness option; wins over `faux.models`). Default: pi's `faux-1`. */
	models?: FauxModelDefinition[];
	/** In-memory settings (global layer). Default: pi's defaults. */
	settings?: Partial<Settings>;
	/** System prompt preamble served by the test resource loader (default `You are a test assistant.`). */
	systemPrompt?: string;
	/**
	 * Either tool names, as `createAgentSession`'s `tools`: the allowlist (built-in, extension and
	 * custom tools) and the initial active set; or tool objects replacing the built-ins (pi's harness
	 * `tools`, `baseToolsOverride`). Default: Settle's built-ins for the temp cwd. An empty array
	 * replaces the built-ins with none; `noTools: "all"` allows no tool at all.
	 *
	 * @example
	 * ```ts
	 * const h = await createHarness({ tools: ["read"], excludeTools: ["bash"] });
	 * h.session.getActiveToolNames(); // ["read"]
	 * h.cleanup();
	 * ```
	 */
	tools?: readonly AgentTool[] | readonly string[];
	/** Names removed from the initial active set and from every tool source (`createAgentSession`'s option). */
	excludeTools?: string[];
	/** `createAgentSession`'s option: `all` allows no tools; `builtin` (or true) starts without the built-ins. */
	noTools?: "all" | "builtin" | boolean;
	/** SDK tools (replace extension and built-in tools of the same name). */
	customTools?: AnyToolDefinition[];
	/** `AgentSession`'s name; with `tools` / `noTools` / `excludeTools` given, theirs win. */
	initialActiveToolNames?: string[];
	allowedToolNames?: string[];
	excludedToolNames?: string[];
	/** Inline extensions (`<inline:N>`). */
	extensionFactories?: ExtensionFactory[];
	/** More for the test resource loader (skills, prompt templates, context files…). */
	resources?: Omit<TestResourceLoaderOptions, "extensionFactories">;
	/** A resource loader of your own (then `extensionFactories`, `systemPrompt` and `resources` are ignored). */
	resourceLoader?: ResourceLoader;
	/** `memory` (default) or `disk`: a real JSONL session file under the temp dir. */
	persistence?: "memory" | "disk";
	/** A session manager of your own (then `persistence` is ignored). */
	sessionManager?: SessionManager;
	/** Register the faux provider with a key (default true); false makes prompts fail the auth check. */
	withConfiguredAuth?: boolean;
	/** Model id to start with (default the first faux model). */
	modelId?: string;
	thinkingLevel?: ThinkingLevel;
	/** Run retry backoff on a `SimulatedClock` (advance it with `harness.clock.increment(ms)`). */
	simulatedClock?: boolean;
	/** The `pi.events` bus the extensions share, e.g. one the host also listens on (default: a new one). */
	eventBus?: EventBus;
	/** Call `session.bindExtensions()` (sends `session_start`); default true. */
	bindExtensions?: boolean;
}

/** `tools` given as names (`createAgentSession`'s meaning) rather than tool objects; `[]` counts as objects (none). */
function isToolNameList(tools: readonly AgentTool[] | readonly string[] | undefined): tools is readonly string[] {
	return tools !== undefined && tools.length > 0 && tools.every((tool) => typeof tool === "string");
}

/** Options of {@link Harness.settle}. */
export interface HarnessSettleOptions {
	/**
	 * Real milliseconds after which a `done` that has not settled rejects with `SettleError`
	 * `OPERATION_STALLED` saying what the session is still doing. Default: wait forever.
	 */
	hangAfterMs?: number;
}

/**
 * What {@link createHarness} returns. `Clock` is the type of {@link Harness.clock}: `SimulatedClock`
 * for a harness made with `simulatedClock: true` (see {@link HarnessWithClock}), else possibly
 * undefined. Name it in a test's variables and helpers: `Awaited<ReturnType<typeof createHarness>>`
 * picks the last overload and loses the clock.
 *
 * @example
 * ```ts
 * let h: Harness; // any harness
 * let timed: Harness<SimulatedClock>; // the same as HarnessWithClock
 * h = await createHarness();
 * timed = await createHarness({ simulatedClock: true });
 * timed.clock.increment(1000);
 * h.cleanup();
 * timed.cleanup();
 * ```
 */
export interface Harness<Clock extends SimulatedClock | undefined = SimulatedClock | undefined> {
	session: AgentSession;
	sessionManager: SessionManager;
	settingsManager: SettingsManager;
	modelRuntime: InMemoryModelRuntime;
	resourceLoader: ResourceLoader;
	faux: FauxProvider;
	/** The model the session started with. */
	model: Model;
	/** Every faux model (pi's harness `models`). */
	models: Model[];
	getModel(id?: string): Model | undefined;
	setResponses(steps: readonly FauxResponseStep[]): void;
	appendResponses(steps: readonly FauxResponseStep[]): void;
	getPendingResponseCount(): number;
	/** Every public session event, in order. */
	readonly events: AgentSessionEvent[];
	eventsOfType<T extends AgentSessionEventType>(type: T): Extract<AgentSessionEvent, { type: T }>[];
	/**
	 * Extension errors reported through `onError`, and `tool_call` handlers that threw (the session
	 * blocks such a call with the error text and reports it nowhere else).
	 */
	readonly extensionErrors: ExtensionError[];
	/**
	 * What each `session.clearQueue()` call returned, in order: texts that were queued and dropped on
	 * purpose (neither delivered nor listed any more). {@link harnessViolations} accounts for them.
	 */
	readonly clearedQueue: QueuedTexts[];
	/** The simulated clock (with `simulatedClock: true`; then typed as present, see {@link HarnessWithClock}). */
	clock: Clock;
	/**
	 * Awaits `done` (usually `session.prompt(…)`) and, with `simulatedClock: true`, moves the clock
	 * over every retry backoff (turn and summarization retries) the session waits out meanwhile, so a retried prompt settles without
	 * real waiting. (Awaiting `session.prompt()` alone never returns once a retry waits on a
	 * simulated clock nobody advances.) With the real clock it only awaits. Resolves or rejects as
	 * `done` does. `done` that never settles (a tool that ignores its abort signal and never
	 * returns, a handler that never resolves) keeps it waiting, unless `hangAfterMs` is given: then,
	 * after that much real time, it rejects with `SettleError` `OPERATION_STALLED` naming the
	 * lifecycle state, the tool calls still executing and the extension handlers still running.
	 *
	 * @example
	 * ```ts
	 * const h = await createHarness({ simulatedClock: true });
	 * h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }), fauxAssistantMessage("ok")]);
	 * await h.settle(h.session.prompt("hi"), { hangAfterMs: 2000 }); // the 2 s backoff passes on the simulated clock
	 * h.eventsOfType("auto_retry_end")[0]?.success; // true
	 * ```
	 */
	settle<T>(done: Promise<T>, options?: HarnessSettleOptions): Promise<T>;
	/**
	 * The next public event of `type` (one emitted after this call). Use it to stop at a point of
	 * the lifecycle, e.g. at `auto_retry_start`, when the backoff timer is set and not yet advanced.
	 * Rejects with `SettleError` `SESSION_CLOSED` when called after {@link Harness.cleanup}, or
	 * when `cleanup()` runs while it is still waiting (a disposed session emits nothing more).
	 *
	 * @example
	 * ```ts
	 * const h = await createHarness({ simulatedClock: true });
	 * h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }), fauxAssistantMessage("ok")]);
	 * const done = h.session.prompt("hi");
	 * const { delayMs } = await h.nextEvent("auto_retry_start");
	 * h.clock!.increment(delayMs); // the retry runs now
	 * await done;
	 * ```
	 */
	nextEvent<T extends AgentSessionEventType>(type: T): Promise<Extract<AgentSessionEvent, { type: T }>>;
	/**
	 * Timers set on the simulated clock and neither fired nor cleared yet (0 without
	 * `simulatedClock`). After a prompt settles it should be 0: a timer left is a backoff nobody
	 * will fire. {@link harnessViolations} checks it.
	 *
	 * @example
	 * ```ts
	 * const h = await createHarness({ simulatedClock: true });
	 * h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }), fauxAssistantMessage("ok")]);
	 * const done = h.session.prompt("hi");
	 * await h.nextEvent("auto_retry_start");
	 * h.pendingTimerCount(); // 1: the backoff
	 * await h.settle(done);
	 * h.pendingTimerCount(); // 0
	 * h.cleanup();
	 * ```
	 */
	pendingTimerCount(): number;
	/**
	 * The recorded events as one short line each, for a failed property's message:
	 * `#<index> [run <n> #<index in the run>] <event> <what it carries>` — messages as their text
	 * and tool calls, tool executions with their call ids, retries with attempt and delay, settles.
	 * The run numbers and indexes are those {@link harnessViolations} names (`run 1: #3 turn_end: …`);
	 * consecutive `message_update`s fold into one line. Given an {@link ActionRun}, each fired action
	 * is marked on the line of the event it fired at (`<- steer("steer 0") at turn_start#0`).
	 * Pass it as `expect`'s message so the counterexample comes with its run.
	 *
	 * @example
	 * ```ts
	 * const h = await createHarness();
	 * h.setResponses([fauxAssistantMessage("hello")]);
	 * await h.session.prompt("hi");
	 * expect(harnessViolations(h), h.transcript()).toEqual([]);
	 * h.transcript().split("\n")[4]; // "#4 [run 1 #4] message_start user \"hi\""
	 * h.cleanup();
	 * ```
	 */
	transcript(run?: ActionRun): string;
	/** A temp dir: the session cwd, and the session directory for `disk` persistence. */
	tempDir: string;
	/** Disposes the session, closes the log and removes the temp dir. Safe to call twice. */
	cleanup(): void;
}

/**
 * A harness made with `simulatedClock: true`: its `clock` is typed as present (no `h.clock!`). The
 * type to give a test's `let h` or a helper's parameter.
 *
 * @example
 * ```ts
 * function skipBackoff(harness: HarnessWithClock, ms: number): void {
 *   harness.clock.increment(ms);
 * }
 * let h: HarnessWithClock;
 * h = await createHarness({ simulatedClock: true }); // e.g. in a beforeEach
 * skipBackoff(h, 1000);
 * h.cleanup();
 * ```
 */
export type HarnessWithClock = Harness<SimulatedClock>;

/**
 * Builds a ready AgentSession on the faux provider. With `simulatedClock: true` the harness's
 * `clock` is typed as present (no `h.clock!`).
 *
 * @example
 * ```ts
 * const h = await createHarness({ persistence: "disk" });
 * h.setResponses([fauxAssistantMessage("Hello!")]);
 * await h.session.prompt("hi");
 * h.eventsOfType("agent_settled").length; // 1
 * h.cleanup();
 * ```
 */
export function createHarness(options: HarnessOptions & { simulatedClock: true }): Promise<HarnessWithClock>;
export function createHarness(options?: HarnessOptions): Promise<Harness>;
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
	const tempDir = mkdtempSync(join(tmpdir(), "settle-harness-"));
	const faux = createFauxProvider(options.models ? { ...options.faux, models: options.models } : options.faux);
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux, options.withConfiguredAuth === false ? { apiKey: null } : {});
	const model = faux.getModel(options.modelId) ?? faux.getModel()!;
	const settingsManager = SettingsManager.inMemory(options.settings ?? {});
	const resourceLoader =
		options.resourceLoader ??
		createTestResourceLoader({
			systemPrompt: options.systemPrompt ?? "You are a test assistant.",
			...options.resources,
			...(options.extensionFactories ? { extensionFactories: options.extensionFactories } : {}),
		});
	const sessionManager =
		options.sessionManager ??
		(options.persistence === "disk"
			? SessionManager.create(tempDir, join(tempDir, "sessions"))
			: SessionManager.inMemory(tempDir));
	const clock = options.simulatedClock ? new SimulatedClock() : undefined;
	const pendingTimers = clock ? trackTimers(clock) : new Set<unknown>();
	const config: AgentSessionConfig = {
		sessionManager,
		settingsManager,
		resourceLoader,
		modelRuntime,
		cwd: tempDir,
		model,
	};
	if (options.thinkingLevel) config.thinkingLevel = options.thinkingLevel;
	const tools = options.tools;
	const toolNames = isToolNameList(tools) ? tools : undefined;
	if (tools && !isToolNameList(tools))
		config.baseToolsOverride = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
	if (options.customTools) config.customTools = options.customTools;
	if (options.initialActiveToolNames) config.initialActiveToolNames = options.initialActiveToolNames;
	if (options.allowedToolNames) config.allowedToolNames = options.allowedToolNames;
	if (options.excludedToolNames) config.excludedToolNames = options.excludedToolNames;
	Object.assign(
		config,
		resolveToolOptions({
			...(toolNames ? { tools: [...toolNames] } : {}),
			...(options.excludeTools ? { excludeTools: options.excludeTools } : {}),
			...(options.noTools !== undefined ? { noTools: options.noTools } : {}),
		}),
	);
	if (clock) config.clock = clock;
	if (options.eventBus) config.eventBus = options.eventBus;
	const session = await AgentSession.create(config);
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => events.push(event));
	const extensionErrors: ExtensionError[] = [];
	const clearedQueue = recordClearQueue(session);
	recordToolCallThrows(session, extensionErrors);
	if (options.bindExtensions !== false) {
		await session.bindExtensions({ onError: (error) => extensionErrors.push(error) });
	} else {
		session.extensionRunner.onError((error) => extensionErrors.push(error));
	}
	let cleaned = false;
	/** Pending `nextEvent` calls: `cleanup()` rejects them (a disposed session emits nothing more). */
	const eventWaiters = new Set<() => void>();
	return {
		session,
		sessionManager,
		settingsManager,
		modelRuntime,
		resourceLoader,
		faux,
		model,
		models: faux.models,
		getModel: (id) => faux.getModel(id),
		setResponses: (steps) => faux.setResponses(steps),
		appendResponses: (steps) => faux.appendResponses(steps),
		getPendingResponseCount: () => faux.pendingResponseCount,
		events,
		eventsOfType: <T extends AgentSessionEventType>(type: T) =>
			events.filter((event): event is Extract<AgentSessionEvent, { type: T }> => event.type === type),
		extensionErrors,
		clearedQueue,
		clock,
		settle: (done, settleOptions) =>
			withHangDetector(session, events, faux, settleOnClock(session, clock, done), settleOptions?.hangAfterMs),
		pendingTimerCount: () => pendingTimers.size,
		nextEvent: <T extends AgentSessionEventType>(type: T) =>
			new Promise<Extract<AgentSessionEvent, { type: T }>>((resolve, reject) => {
				if (cleaned || session.isDisposed) {
					reject(closedWhileWaiting(type, "was called after h.cleanup()"));
					return;
				}
				const waiter = () => {
					unsubscribe();
					reject(closedWhileWaiting(type, "was still waiting when h.cleanup() ran"));
				};
				const unsubscribe = session.subscribe((event) => {
					if (event.type !== type) return;
					unsubscribe();
					eventWaiters.delete(waiter);
					resolve(event as Extract<AgentSessionEvent, { type: T }>);
				});
				eventWaiters.add(waiter);
			}),
		transcript: (run) => formatTranscript(events, run?.fired, run ? actionRunStart(run) : 0),
		tempDir,
		cleanup() {
			if (cleaned) return;
			cleaned = true;
			session.dispose();
			// After dispose: a wait for an event dispose itself emits has resolved by now.
			for (const waiter of [...eventWaiters]) waiter();
			eventWaiters.clear();
			sessionManager.close();
			rmSync(tempDir, { recursive: true, force: true });
		},
	};
}

/** `nextEvent(type)` on a harness that is (being) cleaned up: the session emits nothing any more. */
function closedWhileWaiting(type: string, when: string): SettleError {
	return new SettleError(
		"SESSION_CLOSED",
		`h.nextEvent("${type}") ${when}: the session is disposed and emits no more events. Await nextEvent before cleaning up, and clean up in a finally or afterEach once the test is done with the harness.`,
	);
}

/** Rejects when `done` has not settled after `hangAfterMs` of real time, saying what still runs. */
function withHangDetector<T>(
	session: AgentSession,
	events: readonly AgentSessionEvent[],
	faux: FauxProvider,
	done: Promise<T>,
	hangAfterMs: number | undefined,
): Promise<T> {
	if (hangAfterMs === undefined) return done;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const hang = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(hangError(session, events, faux, hangAfterMs)), hangAfterMs);
	});
	return Promise.race([done, hang]).finally(() => clearTimeout(timer));
}

function hangError(
	session: AgentSession,
	events: readonly AgentSessionEvent[],
	faux: FauxProvider,
	ms: number,
): SettleError {
	const running = new Map<string, string>();
	for (const event of events) {
		if (event.type === "tool_execution_start") running.set(event.toolCallId, event.toolName);
		else if (event.type === "tool_execution_end") running.delete(event.toolCallId);
	}
	const tools = [...running].map(([id, name]) => `${name} (${id})`);
	const handlers = session.extensionRunner.pendingHandlers().map((h) => `${h.event} in ${h.extensionPath}`);
	// Every faux request streams an assistant message once its step resolves: one missing is a reply still awaited.
	const replies = events.filter((event) => event.type === "message_start" && event.message.role === "assistant").length;
	const awaited = faux.callCount > replies;
	return new SettleError(
		"OPERATION_STALLED",
		[
			`h.settle: not settled after ${ms} ms of real time (lifecycle ${session.lifecycle}).`,
			`Tools still executing: ${tools.join(", ") || "none"}.`,
			`Extension handlers still running: ${handlers.join(", ") || "none"}.`,
			...(awaited
				? [
						`Model request ${faux.callCount} still waits for its reply: its scripted step returned a promise that has not resolved (a scheduledFauxResponses reply waits until the fc.scheduler releases it: await s.waitFor(h.settle(…)) rather than h.settle(…) alone).`,
					]
				: []),
			"A tool must return (or reject) once its abort signal fires; a handler must resolve.",
		].join(" "),
	);
}

/** Wraps `session.clearQueue` so the queue accounting knows which queued texts were dropped on purpose. */
function recordClearQueue(session: AgentSession): QueuedTexts[] {
	const cleared: QueuedTexts[] = [];
	const clearQueue = session.clearQueue.bind(session);
	session.clearQueue = () => {
		const texts = clearQueue();
		cleared.push({ steering: texts.steering.slice(), followUp: texts.followUp.slice() });
		return texts;
	};
	return cleared;
}

/**
 * A `tool_call` handler that throws blocks the call with its message as the tool result (pi's
 * behavior) and reaches no `onError` listener, so a buggy guard looked like a deliberate block.
 * Records each such throw in `extensionErrors` (event `tool_call:<tool> (call <id>)`).
 */
function recordToolCallThrows(session: AgentSession, errors: ExtensionError[]): void {
	const runner = session.extensionRunner;
	const emitToolCall = runner.emitToolCall.bind(runner);
	runner.emitToolCall = (event, check) =>
		emitToolCall(event, check).catch((error: unknown) => {
			// A thrown non-Error has no stack: the stack of the runner's wrapper would point into the runner.
			const wrapsNonError =
				error instanceof SettleError &&
				error.message.startsWith(TOOL_CALL_FAILURE_PREFIX) &&
				!(error.cause instanceof Error);
			const thrownValue = wrapsNonError ? error.cause : error;
			errors.push({
				extensionPath: toolCallFailureExtension(error) ?? "a tool_call handler",
				event: `tool_call:${event.toolName} (call ${event.toolCallId})`,
				error: error instanceof Error ? error.message : String(error),
				...(thrownValue instanceof Error && thrownValue.stack ? { stack: thrownValue.stack } : {}),
			});
			throw error;
		});
}

/** The ids of `clock`'s timers not yet fired or cleared (SimulatedClock keeps its own map private). */
function trackTimers(clock: SimulatedClock): Set<unknown> {
	const pending = new Set<unknown>();
	const setTimeout = clock.setTimeout.bind(clock);
	const clearTimeout = clock.clearTimeout.bind(clock);
	clock.setTimeout = (fn, timeout) => {
		const id = setTimeout((...args: unknown[]) => {
			pending.delete(id);
			fn(...args);
		}, timeout);
		pending.add(id);
		return id;
	};
	clock.clearTimeout = (id) => {
		pending.delete(id);
		clearTimeout(id);
	};
	return pending;
}

/**
 * Awaits `done`, advancing `clock` by each backoff the session schedules — turn retries and
 * summarization retries — (and by the current turn retry's when it is already waiting). The jump is deferred a macrotask so the machine finishes entering
 * `retrying` first.
 */
async function settleOnClock<T>(
	session: AgentSession,
	clock: SimulatedClock | undefined,
	done: Promise<T>,
): Promise<T> {
	if (!clock) return done;
	const advance = (ms: number) => setImmediate(() => clock.increment(ms));
	const subscription = session.inspect((event) => {
		if (event.kind === "delay" && event.phase === "scheduled" && event.ms !== undefined) advance(event.ms);
	});
	// Summarization retries sleep inside the compaction / branch summary, on the same clock.
	const unsubscribe = session.subscribe((event) => {
		if (event.type === "summarization_retry_scheduled") advance(event.delayMs);
	});
	if (session.isRetrying) advance(session.snapshot.context.retryDelayMs);
	try {
		return await done;
	} finally {
		subscription.unsubscribe();
		unsubscribe();
	}
}

/**
 * The text of a message as pi's test suite reads it: a string content as is, else its text blocks
 * joined with newlines (images, thinking and tool calls left out); `""` without content.
 *
 * @example
 * ```ts
 * getMessageText({ role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], timestamp: 0 }); // "a\nb"
 * ```
 */
export function getMessageText(message: unknown): string {
	if (!message || typeof message !== "object" || !("content" in message)) return "";
	const content = (message as { content?: unknown }).content;
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const texts: string[] = [];
	for (const block of content as { type?: unknown; text?: unknown }[]) {
		if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
	}
	return texts.join("\n");
}

/**
 * The text of every user message in the session, in order (pi's test-suite helper).
 *
 * @example
 * ```ts
 * const h = await createHarness();
 * h.setResponses([fauxAssistantMessage("hello")]);
 * await h.session.prompt("hi");
 * getUserTexts(h); // ["hi"]
 * h.cleanup();
 * ```
 */
export function getUserTexts(harness: Pick<Harness, "session">): string[] {
	return textsOfRole(harness, "user");
}

/**
 * The text of every assistant message in the session, in order (pi's test-suite helper).
 *
 * @example
 * ```ts
 * const h = await createHarness();
 * h.setResponses([fauxAssistantMessage("hello")]);
 * await h.session.prompt("hi");
 * getAssistantTexts(h); // ["hello"]
 * h.cleanup();
 * ```
 */
export function getAssistantTexts(harness: Pick<Harness, "session">): string[] {
	return textsOfRole(harness, "assistant");
}

function textsOfRole(harness: Pick<Harness, "session">, role: Message["role"]): string[] {
	const texts: string[] = [];
	for (const message of harness.session.messages) if (message.role === role) texts.push(getMessageText(message));
	return texts;
}
