/**
 * The Agent: owns the transcript and one active run, awaits its listeners in
 * subscription order, keeps steering / follow-up queues, and turns a failing run into a
 * well-formed failure message.
 */
import { setMaxListeners } from "node:events";
import { abortDiscardingResults, abortWithIssuedReason } from "../abort.js";
import { errorMessage, normalizeError, SettleError } from "../errors.js";
import { noteFailure } from "../llm/failures.js";
import type {
	AgentMessage,
	ImageContent,
	Message,
	Model,
	StreamFn,
	StreamOptions,
	ThinkingLevel,
} from "../llm/types.js";
import {
	isPromiseLike,
	lastNonSystemMessage,
	resolveReplacement,
	runAgentLoop,
	runAgentLoopContinue,
} from "./agent-loop.js";
import { createLlmMessageConverter } from "./llm-converter.js";
import { RunTracker } from "./run-tracker.js";
import type {
	AgentContext,
	AgentEvent,
	AgentEventResult,
	AgentListener,
	AgentLoopConfig,
	AgentLoopTurnUpdate,
	AgentOptions,
	AgentState,
	AgentTool,
	QueueMode,
	ToolExecutionMode,
} from "./types.js";

const BUSY_PROMPT =
	"Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.";
const BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing.";
const BUSY_RESET = "Agent is already processing. Wait for completion before resetting.";

/** Placeholder model until one is set: every request to it fails at the provider. */
const UNKNOWN_MODEL: Model = {
	id: "unknown",
	name: "unknown",
	api: "unknown",
	provider: "unknown",
	baseUrl: "",
	reasoning: false,
	input: [],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 0,
	maxTokens: 0,
};

class MessageQueue {
	private items: AgentMessage[] = [];

	constructor(public mode: QueueMode) {}

	enqueue(message: AgentMessage): void {
		this.items.push(message);
	}

	get size(): number {
		return this.items.length;
	}

	peek(): AgentMessage[] {
		return this.mode === "all" ? this.items.slice() : this.items.slice(0, 1);
	}

	drain(): AgentMessage[] {
		if (this.mode === "all") {
			const drained = this.items;
			this.items = [];
			return drained;
		}
		return this.items.length > 0 ? this.items.splice(0, 1) : [];
	}

	/** Empties the queue; returns what it held. */
	clear(): AgentMessage[] {
		const items = this.items;
		this.items = [];
		return items;
	}
}

interface ActiveRun {
	promise: Promise<void>;
	controller: AbortController;
	tracker: RunTracker;
}

/**
 * A stateful agent: `prompt()` runs the loop on the transcript in `state`, emitting events to
 * awaited listeners.
 *
 * Listener contract:
 * - Listeners run one after another in subscription order and are awaited before the loop goes on.
 * - The state already reflects an event when listeners see it (a `message_end` message is in
 *   `state.messages`, a `tool_execution_start` id is in `pendingToolCalls`).
 * - Messages are immutable values. For `message_end` a listener may return `{ message }` with the
 *   same role: the Agent replaces the element it just appended, later listeners get the
 *   replacement, and the loop continues with it (tool calls are read from the final assistant
 *   message; `turn_end` and `agent_end` carry it). A replacement with a different role is
 *   rejected with a `SettleError` (`INVALID_ARGUMENT`), which ends the run like a throwing listener.
 * - A listener that throws ends the run: the Agent closes it with a failure assistant message
 *   (`stopReason:"error"`, `errorMessage` = the thrown text) and the events `message_start`,
 *   `message_end`, `turn_end`, `agent_end`; errors thrown by listeners during that closing
 *   sequence are ignored. If the throw happened at `agent_end`, nothing more is emitted and only
 *   `state.errorMessage` is set. Either way `prompt()` resolves and the Agent is idle and usable.
 *
 * Transcript contract: the run appends to `state.messages` in place; nothing copies the
 * transcript per turn. To change the transcript, assign a new array (`state.messages = …`,
 * which copies the outer array); don't splice the live one.
 *
 * @example
 * ```ts
 * const faux = createFauxProvider();
 * faux.setResponses([fauxAssistantMessage("Hello!")]);
 * const agent = new Agent({ streamFn: faux.streamFn, initialState: { model: faux.getModel() } });
 * agent.subscribe((event) => console.log(event.type));
 * await agent.prompt("hi");
 * agent.state.messages.length; // 2
 * ```
 */
export class Agent {
	// Hooks are public fields so a host can install them after construction (read at run start).
	convertToLlm: AgentLoopConfig["convertToLlm"];
	transformContext: AgentLoopConfig["transformContext"];
	streamFn: StreamFn | undefined;
	getApiKey: AgentLoopConfig["getApiKey"];
	onPayload: StreamOptions["onPayload"];
	onResponse: StreamOptions["onResponse"];
	beforeToolCall: AgentLoopConfig["beforeToolCall"];
	afterToolCall: AgentLoopConfig["afterToolCall"];
	finishTurn: AgentLoopConfig["finishTurn"];
	prepareRequest: AgentLoopConfig["prepareRequest"];
	prepareNextTurn: AgentLoopConfig["prepareNextTurn"];
	/** Session id forwarded to providers (prompt caching). */
	sessionId: string | undefined;
	thinkingBudgets: StreamOptions["thinkingBudgets"];
	transport: StreamOptions["transport"];
	maxRetryDelayMs: number | undefined;
	toolExecution: ToolExecutionMode;
	/** See {@link AgentLoopConfig.toolAbortGraceMs}. */
	toolAbortGraceMs: number | undefined;
	/** See {@link AgentLoopConfig.timers}. */
	timers: AgentLoopConfig["timers"];

	private systemPrompt: string;
	private model: Model;
	private thinkingLevel: ThinkingLevel;
	private tools: AgentTool[];
	private messages: AgentMessage[];
	private isStreaming = false;
	private streamingMessage: AgentMessage | undefined;
	private pendingToolCalls: ReadonlySet<string> = new Set();
	private errorMessage: string | undefined;

	private listeners: readonly AgentListener[] = [];
	private readonly steeringQueue: MessageQueue;
	private readonly followUpQueue: MessageQueue;
	private readonly defaultConvertToLlm: (messages: AgentMessage[]) => Message[];
	private activeRun: ActiveRun | undefined;
	private readonly liveContext: AgentContext;
	private readonly stateView: AgentState;

	constructor(options: AgentOptions = {}) {
		const initial = options.initialState ?? {};
		this.systemPrompt = initial.systemPrompt ?? "";
		this.model = initial.model ?? UNKNOWN_MODEL;
		this.thinkingLevel = initial.thinkingLevel ?? "off";
		this.tools = initial.tools?.slice() ?? [];
		this.messages = initial.messages?.slice() ?? [];
		this.convertToLlm = options.convertToLlm;
		this.defaultConvertToLlm = createLlmMessageConverter(options.convertMessageToLlm);
		this.transformContext = options.transformContext;
		this.streamFn = options.streamFn;
		this.getApiKey = options.getApiKey;
		this.onPayload = options.onPayload;
		this.onResponse = options.onResponse;
		this.beforeToolCall = options.beforeToolCall;
		this.afterToolCall = options.afterToolCall;
		this.finishTurn = options.finishTurn;
		this.prepareRequest = options.prepareRequest;
		this.prepareNextTurn = options.prepareNextTurn;
		this.steeringQueue = new MessageQueue(options.steeringMode ?? "one-at-a-time");
		this.followUpQueue = new MessageQueue(options.followUpMode ?? "one-at-a-time");
		this.sessionId = options.sessionId;
		this.thinkingBudgets = options.thinkingBudgets;
		this.transport = options.transport ?? "auto";
		this.maxRetryDelayMs = options.maxRetryDelayMs;
		this.toolExecution = options.toolExecution ?? "parallel";
		this.toolAbortGraceMs = options.toolAbortGraceMs;
		this.timers = options.timers;

		const agent = this;
		// The loop reads these on every use, so it always works on the current transcript.
		this.liveContext = {
			get systemPrompt() {
				return agent.systemPrompt;
			},
			get messages() {
				return agent.messages;
			},
			get tools() {
				return agent.tools;
			},
		};
		this.stateView = {
			get systemPrompt() {
				return agent.systemPrompt;
			},
			set systemPrompt(value) {
				agent.systemPrompt = value;
			},
			get model() {
				return agent.model;
			},
			set model(value) {
				agent.model = value;
			},
			get thinkingLevel() {
				return agent.thinkingLevel;
			},
			set thinkingLevel(value) {
				agent.thinkingLevel = value;
			},
			get tools() {
				return agent.tools;
			},
			set tools(value) {
				agent.tools = value.slice();
			},
			get messages() {
				return agent.messages;
			},
			set messages(value) {
				agent.messages = value.slice();
			},
			get isStreaming() {
				return agent.isStreaming;
			},
			get streamingMessage() {
				return agent.streamingMessage;
			},
			get pendingToolCalls() {
				return agent.pendingToolCalls;
			},
			get errorMessage() {
				return agent.errorMessage;
			},
		};
	}

	/** Live state (not a snapshot). Assigning `messages` / `tools` copies the outer array. */
	get state(): AgentState {
		return this.stateView;
	}

	/**
	 * Adds a listener; returns the function that removes it. See the class docs for the contract.
	 *
	 * @example
	 * ```ts
	 * import { appendFile } from "node:fs/promises";
	 *
	 * const off = agent.subscribe(async (event) => {
	 *   if (event.type === "message_end") await appendFile("transcript.jsonl", `${JSON.stringify(event.message)}\n`);
	 * });
	 * ```
	 */
	subscribe(listener: AgentListener): () => void {
		this.listeners = [...this.listeners, listener];
		return () => {
			this.listeners = this.listeners.filter((candidate) => candidate !== listener);
		};
	}

	get steeringMode(): QueueMode {
		return this.steeringQueue.mode;
	}

	set steeringMode(mode: QueueMode) {
		this.steeringQueue.mode = mode;
	}

	get followUpMode(): QueueMode {
		return this.followUpQueue.mode;
	}

	set followUpMode(mode: QueueMode) {
		this.followUpQueue.mode = mode;
	}

	/** Queues a message delivered after the current turn's tool calls, before the next model call. */
	steer(message: AgentMessage): void {
		this.steeringQueue.enqueue(message);
	}

	/** Queues a message delivered only when the run would otherwise stop. */
	followUp(message: AgentMessage): void {
		this.followUpQueue.enqueue(message);
	}

	clearSteeringQueue(): void {
		this.steeringQueue.clear();
	}

	clearFollowUpQueue(): void {
		this.followUpQueue.clear();
	}

	/** Empties both queues; returns the messages they held (not those a run has already taken). */
	clearAllQueues(): { steering: AgentMessage[]; followUp: AgentMessage[] } {
		return { steering: this.steeringQueue.clear(), followUp: this.followUpQueue.clear() };
	}

	hasQueuedMessages(): boolean {
		return this.steeringQueue.size > 0 || this.followUpQueue.size > 0;
	}

	/** The batch the next poll would deliver (steering first), without consuming it. */
	peekQueuedMessages(): AgentMessage[] {
		return this.steeringQueue.size > 0 ? this.steeringQueue.peek() : this.followUpQueue.peek();
	}

	/** The active run's abort signal, or `undefined` when idle. */
	get signal(): AbortSignal | undefined {
		return this.activeRun?.controller.signal;
	}

	/** Signals the active run to stop; the run ends cooperatively (await `waitForIdle()`). */
	abort(): void {
		abortWithIssuedReason(this.activeRun?.controller);
	}

	/**
	 * Stops the active run as {@link abort} does, for good: its results will never be recorded (the
	 * session is being disposed), and its tools' signals say so (`resultsDiscarded(signal)`), so a
	 * tool drops what only its result would have named (the bash tool's full-output file).
	 *
	 * @example
	 * ```ts
	 * agent.abortDiscardingResults();
	 * await agent.waitForIdle();
	 * ```
	 */
	abortDiscardingResults(): void {
		abortDiscardingResults(this.activeRun?.controller);
	}

	/** Resolves when the active run and its `agent_end` listeners have finished (at once when idle). */
	waitForIdle(): Promise<void> {
		return this.activeRun?.promise ?? Promise.resolve();
	}

	/**
	 * Clears the transcript (keeping its latest `system` message, the prompt baseline), streaming
	 * state, error and queues. Throws a `SettleError` (`BUSY`) while a run is active.
	 */
	reset(): void {
		if (this.activeRun) throw new SettleError("BUSY", BUSY_RESET);
		let baseline: AgentMessage | undefined;
		for (let index = this.messages.length - 1; index >= 0; index--) {
			if (this.messages[index]!.role === "system") {
				baseline = this.messages[index];
				break;
			}
		}
		this.messages = baseline ? [baseline] : [];
		this.streamingMessage = undefined;
		this.pendingToolCalls = new Set();
		this.errorMessage = undefined;
		this.clearAllQueues();
	}

	/**
	 * Starts a run with new messages; resolves when the run (and its `agent_end` listeners) ended.
	 * A text becomes one user message with the text and the images. Rejects with a `SettleError`
	 * (`BUSY`) while a run is active. Model and tool failures don't reject: they are in the
	 * transcript and in `state.errorMessage`.
	 *
	 * @example
	 * ```ts
	 * await agent.prompt("Summarize README.md");
	 * await agent.prompt({ role: "user", content: "again", timestamp: Date.now() });
	 * ```
	 */
	async prompt(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): Promise<void> {
		if (this.activeRun) throw new SettleError("BUSY", BUSY_PROMPT);
		await this.runPrompt(normalizePromptInput(input, images), false);
	}

	/**
	 * Continues from the transcript. When the last (non-system) message is an assistant message, or
	 * there is none, runs the queued steering batch as a prompt, else the follow-up batch, else
	 * rejects `Cannot continue from message role: assistant` (`No messages to continue from` on an
	 * empty transcript). Rejects with `BUSY` while a run is active.
	 */
	async continue(): Promise<void> {
		if (this.activeRun) throw new SettleError("BUSY", BUSY_CONTINUE);
		const last = lastNonSystemMessage(this.messages);
		if (!last || last.role === "assistant") {
			const steering = this.steeringQueue.drain();
			if (steering.length > 0) return this.runPrompt(steering, true);
			const followUps = this.followUpQueue.drain();
			if (followUps.length > 0) return this.runPrompt(followUps, false);
			if (!last) throw new SettleError("INVALID_ARGUMENT", "No messages to continue from");
			throw new SettleError("INVALID_ARGUMENT", "Cannot continue from message role: assistant");
		}
		await this.run((signal, config) =>
			runAgentLoopContinue(this.liveContext, config, (event) => this.processEvent(event, signal), signal),
		);
	}

	private runPrompt(messages: AgentMessage[], skipInitialSteeringPoll: boolean): Promise<void> {
		return this.run(
			(signal, config) =>
				runAgentLoop(messages, this.liveContext, config, (event) => this.processEvent(event, signal), signal),
			skipInitialSteeringPoll,
		);
	}

	private createLoopConfig(skipInitialSteeringPoll: boolean): AgentLoopConfig {
		let skipSteering = skipInitialSteeringPoll;
		const userPrepareNextTurn = this.prepareNextTurn;
		const applyUpdate = (update: AgentLoopTurnUpdate | undefined): AgentLoopTurnUpdate => {
			if (update?.context) {
				this.systemPrompt = update.context.systemPrompt;
				this.tools = update.context.tools ?? [];
				if (update.context.messages !== this.messages) this.messages = update.context.messages;
			}
			if (update?.model) this.model = update.model;
			if (update?.thinkingLevel) this.thinkingLevel = update.thinkingLevel;
			return { model: this.model, thinkingLevel: this.thinkingLevel, messages: update?.messages };
		};
		const config: AgentLoopConfig = {
			model: this.model,
			thinkingLevel: this.thinkingLevel,
			convertToLlm: this.convertToLlm ?? this.defaultConvertToLlm,
			transformContext: this.transformContext,
			getApiKey: this.getApiKey,
			beforeToolCall: this.beforeToolCall,
			afterToolCall: this.afterToolCall,
			finishTurn: this.finishTurn,
			prepareRequest: this.prepareRequest,
			// Always installed: model / thinking changes made to `state` mid-run apply to the next turn,
			// and a replacement context becomes the Agent's own state.
			// Synchronous unless the host's hook answers with a promise (one microtask less per turn).
			prepareNextTurn: (previousTurn, signal) => {
				const update = userPrepareNextTurn?.(previousTurn, signal);
				return isPromiseLike(update) ? Promise.resolve(update).then(applyUpdate) : applyUpdate(update);
			},
			getSteeringMessages: () => {
				if (skipSteering) {
					skipSteering = false;
					return [];
				}
				return this.steeringQueue.drain();
			},
			getFollowUpMessages: () => this.followUpQueue.drain(),
			toolExecution: this.toolExecution,
			streamFn: this.streamFn,
			sessionId: this.sessionId,
			onPayload: this.onPayload,
			onResponse: this.onResponse,
			transport: this.transport,
			thinkingBudgets: this.thinkingBudgets,
			maxRetryDelayMs: this.maxRetryDelayMs,
		};
		if (this.toolAbortGraceMs !== undefined) config.toolAbortGraceMs = this.toolAbortGraceMs;
		if (this.timers !== undefined) config.timers = this.timers;
		return config;
	}

	private async run(
		executor: (signal: AbortSignal, config: AgentLoopConfig) => Promise<unknown>,
		skipInitialSteeringPoll = false,
	): Promise<void> {
		const controller = new AbortController();
		// The run's signal is extensions' `ctx.signal`: the tool_call / tool_result handlers of a
		// parallel batch all wait on it at once, and eleven of them made Node print a
		// "MaxListenersExceededWarning: Possible EventTarget memory leak" into the user's terminal.
		// Many holders at once is this signal's purpose, not a leak: no limit.
		setMaxListeners(0, controller.signal);
		let resolveRun!: () => void;
		const promise = new Promise<void>((resolve) => {
			resolveRun = resolve;
		});
		const run: ActiveRun = { promise, controller, tracker: new RunTracker() };
		this.activeRun = run;
		this.isStreaming = true;
		this.streamingMessage = undefined;
		this.errorMessage = undefined;
		try {
			await executor(controller.signal, this.createLoopConfig(skipInitialSteeringPoll));
		} catch (error) {
			await this.closeFailedRun(run, error);
		} finally {
			this.isStreaming = false;
			this.streamingMessage = undefined;
			this.pendingToolCalls = new Set();
			this.activeRun = undefined;
			resolveRun();
		}
	}

	/** Emits the closing events of a failed run; listener errors here are ignored. */
	private async closeFailedRun(run: ActiveRun, error: unknown): Promise<void> {
		const closing = run.tracker.failureEvents(error, this.model, run.controller.signal.aborted);
		if (!closing) {
			this.errorMessage = errorMessage(error);
			return;
		}
		// What ended the run, typed (e.g. the session's log lost its lock: SESSION_LOCKED).
		if (closing.failure.stopReason === "error") noteFailure(closing.failure, normalizeError(error));
		for (const event of closing.events) {
			if (event.type === "message_end") this.messages.push(event.message);
			this.reduce(event, run);
			for (const listener of this.listeners) {
				try {
					await listener(event, run.controller.signal);
				} catch {
					// The run is already failing with the first error; keep closing it.
				}
			}
		}
	}

	/**
	 * Reduces state for an event, then delivers it to the listeners in order; returns the final
	 * message_end message. Synchronous while the listeners are (no microtask per listener and
	 * event); from the first listener that returns a promise on, each is awaited before the next.
	 */
	private processEvent(event: AgentEvent, signal: AbortSignal): AgentEventResult | Promise<AgentEventResult> {
		const run = this.activeRun;
		if (!run) throw new SettleError("INTERNAL", "Agent listener invoked outside an active run");
		this.reduce(event, run);
		return this.deliver(this.listeners, 0, event, event, signal);
	}

	private deliver(
		listeners: readonly AgentListener[],
		from: number,
		original: AgentEvent,
		current: AgentEvent,
		signal: AbortSignal,
	): AgentEventResult | Promise<AgentEventResult> {
		for (let index = from; index < listeners.length; index++) {
			const result = listeners[index]!(current, signal);
			if (isPromiseLike(result)) return this.deliverAfter(result, listeners, index, original, current, signal);
			current = this.applyListenerResult(current, result);
		}
		return current === original
			? undefined
			: { message: (current as Extract<AgentEvent, { type: "message_end" }>).message };
	}

	private async deliverAfter(
		pending: PromiseLike<AgentEventResult>,
		listeners: readonly AgentListener[],
		index: number,
		original: AgentEvent,
		current: AgentEvent,
		signal: AbortSignal,
	): Promise<AgentEventResult> {
		const next = this.applyListenerResult(current, await pending);
		return this.deliver(listeners, index + 1, original, next, signal);
	}

	/** A message_end listener's replacement (same role) becomes the event later listeners see. */
	private applyListenerResult(current: AgentEvent, result: AgentEventResult): AgentEvent {
		if (current.type !== "message_end" || !result?.message || result.message === current.message) return current;
		const replacement = resolveReplacement(current.message, result);
		const messages = this.messages;
		if (messages[messages.length - 1] === current.message) messages[messages.length - 1] = replacement;
		return { type: "message_end", message: replacement };
	}

	private reduce(event: AgentEvent, run: ActiveRun): void {
		run.tracker.observe(event);
		switch (event.type) {
			case "message_start":
			case "message_update":
				this.streamingMessage = event.message;
				break;
			case "message_end":
				this.streamingMessage = undefined;
				break;
			case "tool_execution_start":
				this.pendingToolCalls = new Set(this.pendingToolCalls).add(event.toolCallId);
				break;
			case "tool_execution_end": {
				const pending = new Set(this.pendingToolCalls);
				pending.delete(event.toolCallId);
				this.pendingToolCalls = pending;
				break;
			}
			case "turn_end":
				if (event.message.role === "assistant" && event.message.errorMessage) {
					this.errorMessage = event.message.errorMessage;
				}
				break;
			case "agent_end":
				this.streamingMessage = undefined;
				break;
		}
	}
}

function normalizePromptInput(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): AgentMessage[] {
	if (Array.isArray(input)) return input;
	if (typeof input !== "string") return [input];
	return [
		{
			role: "user",
			content: [{ type: "text", text: input }, ...(images ?? [])],
			timestamp: Date.now(),
		},
	];
}
