/**
 * Two peers behind one interface: pi 0.73.1 (its own `createAgentSession` on pi-ai's faux
 * provider) and Settle (`createAgentSession` on Settle's faux provider), each with a real session
 * file in a temp dir, in-memory settings, no resource discovery, the same inline extensions and the
 * same scripted model. A scenario drives a {@link Peer} without knowing which one it is.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import * as pi from "@mariozechner/pi-coding-agent";
import { SimulatedClock } from "xstate";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, type FauxProvider } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createPiAiModelRuntime } from "../../src/llm/pi-ai.js";
import { type Context, emptyUsage } from "../../src/llm/types.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import type { Settings } from "../../src/settings/schema.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

export type PeerName = "pi" | "settle";

/** One scripted reply, built for each peer by its own faux helpers when the request arrives. */
export interface ReplySpec {
	thinking?: string;
	text?: string;
	toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
	stopReason?: "stop" | "length" | "toolUse" | "error" | "aborted";
	errorMessage?: string;
}

/**
 * A scripted step: a reply, or a function of the (normalized) request and the request's abort
 * signal (a step that holds its answer can honour the signal as a real provider's request does).
 */
export type Step =
	| ReplySpec
	| ((
			request: ModelRequest,
			peer: Peer,
			signal: AbortSignal | undefined,
			/** The request as the provider got it (its system prompt verbatim, which `request` only classifies). */
			context: Context,
	  ) => ReplySpec | Promise<ReplySpec>);

/** What one model request contained, after each peer's `convertToLlm`. */
export interface ModelRequest {
	/** `agent` for the session's own prompt, `summarizer` for compaction's, `none` without one. */
	system: string;
	messages: string[];
	tools: string[];
}

/** A recorded public event, or a marker the scenario wrote between events. */
export type Recorded = { kind: "event"; event: AnyEvent } | { kind: "mark"; label: string };

/** Events are compared structurally, through the normalizer; their static types differ per peer. */
export type AnyEvent = { type: string } & Record<string, unknown>;

/**
 * The surface of `AgentSession` scenarios use. pi's and Settle's sessions both have it (the names
 * mirror pi's); the types stay loose because each peer has its own message types.
 */
export interface SessionLike {
	prompt(text: string, options?: { streamingBehavior?: "steer" | "followUp" }): Promise<void>;
	steer(text: string): Promise<unknown>;
	followUp(text: string): Promise<unknown>;
	sendCustomMessage(
		message: { customType: string; content: string; display: boolean; details?: unknown },
		options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" },
	): Promise<void>;
	abort(): Promise<void>;
	compact(customInstructions?: string): Promise<unknown>;
	getContextUsage(): { tokens: number | null; contextWindow: number } | undefined;
	subscribe(listener: (event: AnyEvent) => void): () => void;
	getSteeringMessages(): readonly string[];
	setSteeringMode(mode: "all" | "one-at-a-time"): void;
	setFollowUpMode(mode: "all" | "one-at-a-time"): void;
	readonly messages: readonly unknown[];
	readonly sessionFile: string | undefined;
	readonly isStreaming: boolean;
	readonly isCompacting: boolean;
	dispose(): void;
}

/** Inline extensions are written once against Settle's `ExtensionAPI` (pi's has the same shape). */
export type SharedExtension = (api: ExtensionAPI) => void;

/** A custom tool defined once for both peers (TypeBox-compatible JSON schema parameters). */
export interface SharedTool {
	name: string;
	label: string;
	description: string;
	parameters: Record<string, unknown>;
	/** `sequential`: a batch holding this tool runs its calls one after another (both products). */
	executionMode?: "sequential";
	execute(
		toolCallId: string,
		params: Record<string, unknown>,
		signal?: AbortSignal,
		onUpdate?: (partial: { content: { type: "text"; text: string }[]; details: unknown }) => void,
	): Promise<{
		content: ({ type: "text"; text: string } | { type: "image"; data: string; mimeType: string })[];
		details: unknown;
	}>;
}

export interface PeerOptions {
	settings?: Partial<Settings>;
	extensions?: SharedExtension[];
	customTools?: SharedTool[];
	/** Faux model context window (default 128000, both faux providers' default). */
	contextWindow?: number;
	/**
	 * Real pacing of the faux stream (both providers: each chunk waits tokens / rate on a timer).
	 * Default: one microtask per chunk. A scenario that reacts to a chunk (abort mid-stream) sets it
	 * so every listener has run before the next chunk on both peers.
	 */
	tokensPerSecond?: number;
	/** Open this session file instead of creating a new session. */
	openFile?: string;
	/** Extension errors (`bindExtensions({onError})`), from `session_start` on. */
	onError?: (error: { extensionPath: string; event: string; error: string }) => void;
	/**
	 * pi-ai 0.73.1's faux provider never calls `onPayload`, so `before_provider_request` handlers
	 * never run on pi's peer; Settle's faux calls it with the context as the payload, as a real
	 * provider calls it with its request body. Set, pi's peer does the same from its dispenser.
	 */
	payloadHook?: boolean;
	/** Also register `faux-2` (reasoning) with the faux provider; the session starts on `faux-1`. */
	reasoningModel?: boolean;
	/** Start the session on `faux-2` (needs {@link reasoningModel}) instead of `faux-1`. */
	startOnReasoningModel?: boolean;
	/** Extension files loaded by each peer's own loader (`additionalExtensionPaths`). */
	extensionPaths?: string[];
	/** Settle's peer: the loader's `extensionAliases` (default: the sources', `defaultExtensionAliases()`). */
	settleExtensionAliases?: Record<string, string>;
	/** A UI both peers bind (`bindExtensions({uiContext})`); without one, `hasUI` is false. */
	uiContext?: unknown;
	/**
	 * Settle's peer also registers pi-ai's model catalogue (no keys from the environment), as pi's
	 * `ModelRegistry` always does; without it, Settle's registry holds only the faux provider.
	 */
	modelCatalog?: boolean;
	/** `bindExtensions({shutdownHandler})`: what `ctx.shutdown()` calls. */
	shutdownHandler?: () => void;
}

/** The `bindExtensions` argument of a peer's options. */
function bindings(options: PeerOptions) {
	return {
		...(options.onError ? { onError: options.onError } : {}),
		...(options.uiContext ? { uiContext: options.uiContext as never } : {}),
		...(options.shutdownHandler ? { shutdownHandler: options.shutdownHandler } : {}),
	};
}

export interface TempDirs {
	root: string;
	cwd: string;
	agentDir: string;
	sessionDir: string;
}

/** A session of one peer, recording every public event, marker and model request. */
export interface Peer {
	readonly name: PeerName;
	readonly session: SessionLike;
	readonly dirs: TempDirs;
	readonly recorded: Recorded[];
	readonly requests: ModelRequest[];
	/** Replaces the scripted replies. */
	script(steps: Step[]): void;
	/**
	 * Resolves once every agent event emitted so far has reached the public listeners. pi 0.73.1's
	 * session handles agent events on a promise queue the agent loop does not wait for, so a model
	 * request can start before the previous `message_end` was delivered; Settle's bridge is awaited
	 * (DESIGN §4, behavior C.10), and the events a running tool emits (`onUpdate`) are delivered on a
	 * promise chain, so there one macrotask turn is enough. A scripted step that acts on the
	 * session (steer, prompt, custom message) calls this first, so both peers act at the same point
	 * of the event stream. Never call it from a step that answers a request made from inside event
	 * handling (pi's overflow/threshold compaction summary): that would wait for itself.
	 */
	drainEvents(): Promise<void>;
	/** Writes a marker into the event record. */
	mark(label: string): void;
	/** `prompt()` with a marker when it resolves (or rejects). */
	prompt(text: string, options?: { streamingBehavior?: "steer" | "followUp" }): Promise<void>;
	/**
	 * Resolves once the peer has nothing left to do: for Settle when the machine is idle (retry
	 * backoff advanced on the simulated clock); for pi when its event queue is drained and no
	 * continuation it scheduled (retry, overflow or queued-message continue) is still to start.
	 */
	quiesce(): Promise<void>;
	/** Entries of the session file on disk, as parsed JSON (header first). */
	fileEntries(): Record<string, unknown>[];
	/** This peer's `SessionManager.open(file).buildSessionContext().messages`. */
	openContext(file: string): unknown[];
	cleanup(): void;
}

export const FAUX_KEY = "offline-dummy-key";

export function makeTempDirs(): TempDirs {
	const root = mkdtempSync(join(tmpdir(), "settle-parity-"));
	const dirs = { root, cwd: join(root, "cwd"), agentDir: join(root, "agent"), sessionDir: join(root, "sessions") };
	for (const dir of [dirs.cwd, dirs.agentDir, dirs.sessionDir]) mkdirSync(dir, { recursive: true });
	return dirs;
}

export function readFileEntries(file: string | undefined): Record<string, unknown>[] {
	if (!file) return [];
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch {
		return [];
	}
	return text
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

function summarizerRequest(content: Context["messages"][number]["content"]): string {
	const text =
		typeof content === "string" ? content : content.map((block) => ("text" in block ? block.text : "")).join("\n");
	const end = text.lastIndexOf("</conversation>");
	const conversation = end === -1 ? "<no conversation>" : text.slice(0, end + "</conversation>".length);
	// PI_BUG_SPLIT_TURN_PREFIX_DROPS_FOCUS (pi#9348; test/compaction/pi-differential-regressions.test.ts):
	// a split turn's prefix request (the one asking for "## Original Request") carries the focus in
	// Settle only; its focus line is left out of the comparison on both peers.
	const instructions = text.slice(Math.max(end, text.lastIndexOf("</previous-summary>")));
	const prefixRequest = instructions.includes("\n## Original Request\n");
	const focus = prefixRequest ? undefined : /\n(?:Additional focus: .*)$/m.exec(text)?.[0]?.trim();
	return `summarize: ${conversation}${focus ? `\n${focus}` : ""}`;
}

/** Turns a request context into a {@link ModelRequest}. */
export function normalizeRequest(context: Context): ModelRequest {
	const prompt = context.systemPrompt ?? "";
	const summarizer = prompt.startsWith("You are a context summarization assistant");
	const system = summarizer ? "summarizer" : prompt === "" ? "none" : "agent";
	return {
		system,
		messages: context.messages.map((message) => {
			// The summarizer's instructions are each product's own text: keep the serialized conversation
			// and whether the caller's extra instructions were passed on.
			if (summarizer && message.role === "user") return summarizerRequest(message.content);
			if (message.role === "user") {
				const content =
					typeof message.content === "string"
						? message.content
						: message.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
				return `user: ${content}`;
			}
			if (message.role === "assistant") {
				const parts = message.content.map((block) =>
					block.type === "text"
						? block.text
						: block.type === "thinking"
							? `[thinking ${block.thinking}]`
							: `[call ${block.name} ${JSON.stringify(block.arguments)}]`,
				);
				const stop =
					message.stopReason === "stop"
						? ""
						: ` (${message.stopReason}${message.errorMessage ? `: ${message.errorMessage}` : ""})`;
				return `assistant: ${parts.join(" ")}${stop}`;
			}
			const text = message.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
			return `toolResult ${message.toolName}${message.isError ? " error" : ""}: ${text}`;
		}),
		tools: (context.tools ?? []).map((tool) => tool.name),
	};
}

export interface FauxBuilders {
	text(text: string): unknown;
	thinking(text: string): unknown;
	toolCall(name: string, args: Record<string, unknown>, options: { id: string }): unknown;
	message(content: unknown[], options: { stopReason?: ReplySpec["stopReason"]; errorMessage?: string }): unknown;
}

function buildReply(spec: ReplySpec, faux: FauxBuilders): unknown {
	const content: unknown[] = [];
	if (spec.thinking !== undefined) content.push(faux.thinking(spec.thinking));
	if (spec.text !== undefined) content.push(faux.text(spec.text));
	for (const call of spec.toolCalls ?? []) content.push(faux.toolCall(call.name, call.args, { id: call.id }));
	const stopReason = spec.stopReason ?? (spec.toolCalls?.length ? "toolUse" : "stop");
	return faux.message(content, {
		stopReason,
		...(spec.errorMessage !== undefined ? { errorMessage: spec.errorMessage } : {}),
	});
}

/**
 * Scripted steps served through identical faux factories ("dispensers"): each takes the next step,
 * records the request and builds the reply when the request arrives (pi compares reply timestamps
 * with compaction entries, so replies are never built ahead of time).
 *
 * A call whose abort signal already fired takes no step and is not recorded: after a tool batch is
 * aborted, pi 0.73.1's loop still calls the provider (which answers `aborted` at once) where Settle
 * does not call it; neither request reaches a model, and both record the same aborted message.
 */
export function fauxSteps(
	peer: () => Peer,
	requests: ModelRequest[],
	steps: Step[],
	faux: FauxBuilders,
	append: (factory: unknown) => void,
	payloadHook = false,
) {
	const pending = [...steps];
	type PayloadHook = (payload: unknown, model: unknown) => unknown;
	const dispenser = async (
		requestContext: Context,
		options?: { signal?: AbortSignal; onPayload?: PayloadHook },
		_state?: unknown,
		model?: unknown,
	) => {
		if (options?.signal?.aborted) {
			append(dispenser);
			return buildReply({ stopReason: "aborted" }, faux);
		}
		// After the abort check: that call never reaches a model, so it makes no payload either.
		let context = requestContext;
		if (payloadHook && options?.onPayload) {
			const payload = (await options.onPayload(context, model)) as Context | undefined;
			if (payload && typeof payload === "object" && Array.isArray(payload.messages)) context = payload;
		}
		const step = pending.shift();
		if (step === undefined) throw new Error("No more faux responses queued");
		const request = normalizeRequest(context);
		requests.push(request);
		const spec = typeof step === "function" ? await step(request, peer(), options?.signal, context) : step;
		return buildReply(spec, faux);
	};
	return steps.map(() => dispenser);
}

export const piBuilders: FauxBuilders = {
	text: (text) => piAi.fauxText(text),
	thinking: (text) => piAi.fauxThinking(text),
	toolCall: (name, args, options) => piAi.fauxToolCall(name, args, options),
	message: (content, options) => piAi.fauxAssistantMessage(content as piAi.TextContent[], options),
};

export const settleBuilders: FauxBuilders = {
	text: (text) => ({ type: "text", text }),
	thinking: (text) => ({ type: "thinking", thinking: text }),
	toolCall: (name, args, options) => ({ type: "toolCall", id: options.id, name, arguments: args }),
	message: (content, options) => ({
		role: "assistant",
		content,
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage: emptyUsage(),
		stopReason: options.stopReason ?? "stop",
		...(options.errorMessage !== undefined ? { errorMessage: options.errorMessage } : {}),
		timestamp: Date.now(),
	}),
};

export const TOKEN_SIZE = { min: 1, max: 1 };

export function fauxModels(contextWindow: number | undefined, reasoningModel = false) {
	const model = {
		id: "faux-1",
		name: "Faux Model",
		reasoning: false,
		input: ["text", "image"] as ("text" | "image")[],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: contextWindow ?? 128000,
		maxTokens: 16384,
	};
	return reasoningModel ? [model, { ...model, id: "faux-2", name: "Faux Reasoning Model", reasoning: true }] : [model];
}

/** Records events and markers; `prompt` marks its resolution. */
export function recorder() {
	const recorded: Recorded[] = [];
	return {
		recorded,
		onEvent: (event: AnyEvent) => void recorded.push({ kind: "event", event }),
		mark: (label: string) => void recorded.push({ kind: "mark", label }),
	};
}

async function markedPrompt(
	session: SessionLike,
	mark: (label: string) => void,
	text: string,
	options?: { streamingBehavior?: "steer" | "followUp" },
): Promise<void> {
	try {
		await session.prompt(text, options);
		mark(`prompt resolved: ${text}`);
	} catch (error) {
		mark(`prompt rejected: ${text}: ${error instanceof Error ? error.message : String(error)}`);
	}
}

// ---------------------------------------------------------------------------------------------
// pi 0.73.1

export function piTool(tool: SharedTool) {
	return {
		name: tool.name,
		label: tool.label,
		description: tool.description,
		parameters: tool.parameters,
		...(tool.executionMode ? { executionMode: tool.executionMode } : {}),
		execute: (
			id: string,
			params: Record<string, unknown>,
			signal?: AbortSignal,
			onUpdate?: Parameters<SharedTool["execute"]>[3],
		) => tool.execute(id, params, signal, onUpdate),
	} as unknown as pi.ToolDefinition;
}

/** Builds pi's session the way its SDK users do (see `/work/shared/peers/pi-npm/harness.mjs`). */
export async function createPiPeer(options: PeerOptions = {}, dirs: TempDirs = makeTempDirs()): Promise<Peer> {
	const faux = piAi.registerFauxProvider({
		provider: "faux",
		tokenSize: TOKEN_SIZE,
		models: fauxModels(options.contextWindow, options.reasoningModel),
		...(options.tokensPerSecond ? { tokensPerSecond: options.tokensPerSecond } : {}),
	});
	const authStorage = pi.AuthStorage.inMemory();
	authStorage.setRuntimeApiKey("faux", FAUX_KEY);
	const modelRegistry = pi.ModelRegistry.inMemory(authStorage);
	const settingsManager = pi.SettingsManager.inMemory(options.settings as never);
	const resourceLoader = new pi.DefaultResourceLoader({
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		settingsManager,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
		extensionFactories: (options.extensions ?? []) as unknown as pi.ExtensionFactory[],
		...(options.extensionPaths ? { additionalExtensionPaths: options.extensionPaths } : {}),
	});
	await resourceLoader.reload();
	const sessionManager = options.openFile
		? pi.SessionManager.open(options.openFile, dirs.sessionDir)
		: pi.SessionManager.create(dirs.cwd, dirs.sessionDir);
	const { session } = await pi.createAgentSession({
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		model: options.startOnReasoningModel ? faux.getModel("faux-2") : faux.getModel(),
		thinkingLevel: "off",
		authStorage,
		modelRegistry,
		settingsManager,
		resourceLoader,
		sessionManager,
		...(options.customTools ? { customTools: options.customTools.map(piTool) } : {}),
	});
	await session.bindExtensions(bindings(options));
	const rec = recorder();
	const requests: ModelRequest[] = [];
	const s = session as unknown as SessionLike;
	// Continuations pi schedules with setTimeout (retry, overflow recovery, queued messages after a
	// compaction): counted when scheduled, discounted when their run starts.
	let scheduled = 0;
	let runStarted: (() => void) | undefined;
	s.subscribe((event) => {
		rec.onEvent(event);
		if (event.type === "auto_retry_start") scheduled++;
		if (event.type === "auto_retry_end" && event.success === false && event.finalError === "Retry cancelled") {
			scheduled = Math.max(0, scheduled - 1);
		}
		// Only automatic compaction continues (a manual compact() never does, whatever is queued).
		if (
			event.type === "compaction_end" &&
			event.reason !== "manual" &&
			event.result &&
			(event.willRetry || session.agent.hasQueuedMessages())
		) {
			scheduled++;
		}
		if (event.type === "agent_start") {
			scheduled = Math.max(0, scheduled - 1);
			runStarted?.();
		}
	});
	const internals = session as unknown as { _agentEventQueue: Promise<void> };
	const drainEvents = async () => {
		let queue: Promise<void>;
		do {
			queue = internals._agentEventQueue;
			await queue;
		} while (queue !== internals._agentEventQueue);
	};
	let peer: Peer;
	peer = {
		name: "pi",
		session: s,
		dirs,
		recorded: rec.recorded,
		requests,
		script: (steps) =>
			faux.setResponses(
				fauxSteps(
					() => peer,
					requests,
					steps,
					piBuilders,
					(factory) => faux.appendResponses([factory as never]),
					options.payloadHook,
				) as never,
			),
		mark: rec.mark,
		drainEvents,
		prompt: (text, promptOptions) => markedPrompt(s, rec.mark, text, promptOptions),
		async quiesce() {
			for (;;) {
				await session.agent.waitForIdle();
				await drainEvents();
				if (scheduled === 0 && !session.isStreaming && !session.isCompacting && !session.isRetrying) return;
				if (scheduled > 0) await new Promise<void>((resolve) => (runStarted = resolve));
				else await new Promise<void>((resolve) => setImmediate(resolve));
			}
		},
		fileEntries: () => readFileEntries(session.sessionFile),
		openContext: (file) => pi.SessionManager.open(file).buildSessionContext().messages,
		cleanup() {
			session.dispose();
			faux.unregister();
			rmSync(dirs.root, { recursive: true, force: true });
		},
	};
	return peer;
}

// ---------------------------------------------------------------------------------------------
// Settle

/** Builds Settle's session through its public SDK with the same options as pi's. */
export async function createSettlePeer(options: PeerOptions = {}, dirs: TempDirs = makeTempDirs()): Promise<Peer> {
	const faux: FauxProvider = createFauxProvider({
		tokenSize: TOKEN_SIZE,
		models: fauxModels(options.contextWindow, options.reasoningModel),
		...(options.tokensPerSecond ? { tokensPerSecond: options.tokensPerSecond } : {}),
	});
	const modelRuntime = options.modelCatalog
		? await createPiAiModelRuntime({ useEnvironment: false })
		: new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const settingsManager = SettingsManager.inMemory(options.settings ?? {});
	const resourceLoader = new DefaultResourceLoader({
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		settingsManager,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noContextFiles: true,
		extensionFactories: options.extensions ?? [],
		...(options.extensionPaths ? { additionalExtensionPaths: options.extensionPaths } : {}),
		...(options.settleExtensionAliases ? { extensionAliases: options.settleExtensionAliases } : {}),
	});
	await resourceLoader.reload();
	const sessionManager = options.openFile
		? SessionManager.open(options.openFile, dirs.sessionDir)
		: SessionManager.create(dirs.cwd, dirs.sessionDir);
	const clock = new SimulatedClock();
	const { session } = await createAgentSession({
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		modelRuntime,
		model: faux.getModel(options.startOnReasoningModel ? "faux-2" : undefined)!,
		thinkingLevel: "off",
		settingsManager,
		resourceLoader,
		sessionManager,
		clock,
		...(options.customTools ? { customTools: options.customTools as never } : {}),
	});
	await session.bindExtensions(bindings(options));
	const rec = recorder();
	const requests: ModelRequest[] = [];
	const s = session as unknown as SessionLike;
	// Retry backoff runs on the simulated clock. Settle's prompt() resolves only after its retries, so
	// the clock is advanced as soon as the session waits one out, not only in quiesce().
	const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));
	const driveRetryClock = async () => {
		await nextTick();
		while (session.isRetrying) {
			clock.increment(session.snapshot.context.retryDelayMs);
			await nextTick();
		}
	};
	s.subscribe((event) => {
		rec.onEvent(event);
		if (event.type === "auto_retry_start") void driveRetryClock();
	});
	let peer: Peer;
	peer = {
		name: "settle",
		session: s,
		dirs,
		recorded: rec.recorded,
		requests,
		script: (steps) =>
			faux.setResponses(
				fauxSteps(
					() => peer,
					requests,
					steps,
					settleBuilders,
					(factory) => faux.appendResponses([factory as never]),
				) as never,
			),
		mark: rec.mark,
		// The loop's own events are awaited, but events a tool emits while it runs (onUpdate) travel a
		// promise chain: no timers or I/O, so one macrotask turn delivers them.
		drainEvents: nextTick,
		prompt: (text, promptOptions) => markedPrompt(s, rec.mark, text, promptOptions),
		async quiesce() {
			// Retry backoff runs on the simulated clock: jump it whenever the session waits one out.
			for (;;) {
				await nextTick();
				if (session.isRetrying) clock.increment(session.snapshot.context.retryDelayMs);
				else if (session.lifecycle === "idle") {
					await session.waitForIdle();
					return;
				}
			}
		},
		fileEntries: () => readFileEntries(session.sessionFile),
		openContext: (file) => {
			const manager = SessionManager.open(file, undefined, undefined, { readOnly: true } as never);
			try {
				return manager.buildSessionContext().messages;
			} finally {
				manager.close();
			}
		},
		cleanup() {
			session.dispose();
			sessionManager.close();
			rmSync(dirs.root, { recursive: true, force: true });
		},
	};
	return peer;
}

export function createPeer(name: PeerName, options: PeerOptions = {}, dirs?: TempDirs): Promise<Peer> {
	return name === "pi" ? createPiPeer(options, dirs) : createSettlePeer(options, dirs);
}

/**
 * Runs the same scenario on pi, then on Settle (sequentially: pi's faux provider and ours are
 * independent, but one at a time keeps the recorded orders free of cross-talk), and returns what
 * each observed. Both peers are cleaned up even when the scenario throws.
 */
export async function onBothPeers<T>(
	options: PeerOptions | ((name: PeerName) => PeerOptions),
	scenario: (peer: Peer) => Promise<T>,
): Promise<{ pi: T; settle: T }> {
	const results: Partial<Record<PeerName, T>> = {};
	for (const name of ["pi", "settle"] as const) {
		const peer = await createPeer(name, typeof options === "function" ? options(name) : options);
		try {
			results[name] = await scenario(peer);
		} finally {
			peer.cleanup();
		}
	}
	return results as { pi: T; settle: T };
}
