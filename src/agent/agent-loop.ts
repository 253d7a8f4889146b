/**
 * The agent loop: model call → tool calls → tool results → model
 * call …, emitting AgentEvents to an awaited sink. Holds no product state.
 *
 * Context contract: the loop appends to `context.messages` IN PLACE (no copy) — each message
 * right before its `message_end` is emitted, so a sink sees the context already holding it.
 * Pass `{ ...context, messages: [...messages] }` to keep your array untouched. The property is
 * read again whenever it is needed, so a context with a `messages` getter (the Agent's) follows
 * reassignments.
 *
 * Stream-function contract (what keeps requests cheap without copying the transcript): with the
 * default conversion, `context.messages` handed to the stream function is the same array on every
 * call of a run and of later runs, extended in place as the transcript grows. Its elements are
 * immutable and never replaced; only new ones are appended after the request. A stream function
 * must treat it as read-only and copy it (`slice()`) if it keeps it beyond converting it into a
 * provider payload. pi-ai's providers convert immediately; the faux provider records a copy.
 * A stream function that changes the array anyway only costs a rebuild on the next call.
 */
import { setMaxListeners } from "node:events";
import { errorMessage, SettleError } from "../errors.js";
import { EventStream } from "../llm/event-stream.js";
import { carryFailure, noteFailure, providerFailure } from "../llm/failures.js";
import { redactSecrets, requestSecrets } from "../llm/redact.js";
import {
	type AgentMessage,
	type AssistantMessage,
	type AssistantMessageEvent,
	type Context,
	emptyAssistantMessage,
	type Message,
	type Model,
	type StreamFn,
	type StreamOptions,
	type ThinkingLevel,
	type ToolResultMessage,
} from "../llm/types.js";
import { validateToolArguments } from "../llm/validation.js";
import { withWellFormedToolArguments } from "../llm/well-formed.js";
import { providerToolSchema } from "../schema/provider.js";
import { createLlmMessageConverter } from "./llm-converter.js";
import { RunTracker } from "./run-tracker.js";
import { withNamespacedToolNames } from "./tool-call-names.js";
import { checkToolResult } from "./tool-result-check.js";
import type {
	AfterToolCallResult,
	AgentContext,
	AgentEvent,
	AgentEventResult,
	AgentEventSink,
	AgentLoopConfig,
	AgentTool,
	AgentToolCall,
	AgentToolResult,
	AgentTurnContext,
	LoopTimers,
} from "./types.js";

/** Shared default conversion (keeps user/assistant/toolResult), incremental per transcript array. */
const defaultConvertToLlm = createLlmMessageConverter();

/**
 * Error text of a tool call skipped because the response hit the output token limit (pi's text).
 *
 * @example
 * ```ts
 * lengthStopToolError("write");
 * // 'Tool call "write" was not executed: the response hit the output token limit, so its arguments may be truncated. …'
 * ```
 */
export function lengthStopToolError(toolName: string): string {
	return `Tool call "${toolName}" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.`;
}

/** Error text of a tool call skipped because its streamed arguments are not valid JSON (pi#6284). */
function malformedArgumentsToolError(toolName: string): string {
	return `Tool call "${toolName}" was not executed: its streamed arguments are not valid JSON (the stream ended mid-call or the model wrote malformed JSON), so they may be truncated. Re-issue the tool call with complete arguments.`;
}

/** Whether streamed argument text is complete JSON (an empty text is a call without arguments). */
function isCompleteJson(text: string): boolean {
	if (text.trim() === "") return true;
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
	}
}

/**
 * The message with every tool call id unique: a repeated id keeps its first use and later ones get
 * `<id>_2`, `<id>_3`, … (skipping ids the message already holds). The same message when no id repeats.
 */
function withUniqueToolCallIds(message: AssistantMessage): AssistantMessage {
	const ids = message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
	if (new Set(ids).size === ids.length) return message;
	const taken = new Set(ids);
	const seen = new Set<string>();
	return {
		...message,
		content: message.content.map((block) => {
			if (block.type !== "toolCall") return block;
			if (!seen.has(block.id)) {
				seen.add(block.id);
				return block;
			}
			let n = 2;
			while (taken.has(`${block.id}_${n}`)) n++;
			const id = `${block.id}_${n}`;
			taken.add(id);
			return { ...block, id };
		}),
	};
}

/** A stream event over `shown` (the partial with unique call ids) instead of the partial it came with. */
function withShownCalls(event: AssistantMessageEvent, shown: AssistantMessage): AssistantMessageEvent {
	if (!("partial" in event)) return event;
	if (event.type === "toolcall_end") {
		const block = shown.content[event.contentIndex];
		return { ...event, partial: shown, toolCall: block?.type === "toolCall" ? block : event.toolCall };
	}
	return { ...event, partial: shown };
}

function isArgumentsObject(value: unknown): boolean {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Runs the loop for new prompt messages: `agent_start`, `turn_start`, `message_start`/`message_end`
 * per prompt, then turns until the model stops. Resolves with the messages this run produced
 * (prompts included). Rejects only when a hook or the sink throws (the Agent turns that into a
 * failure message); model and tool failures are messages, never rejections.
 *
 * @example
 * ```ts
 * const faux = createFauxProvider();
 * faux.setResponses([fauxAssistantMessage("hi")]);
 * const context = { systemPrompt: "", messages: [], tools: [] };
 * await runAgentLoop([{ role: "user", content: "hello", timestamp: Date.now() }], context, { model: faux.getModel()! }, (e) => console.log(e.type), undefined, faux.streamFn);
 * ```
 */
export async function runAgentLoop(
	prompts: AgentMessage[],
	context: AgentContext,
	config: AgentLoopConfig,
	emit: AgentEventSink,
	signal?: AbortSignal,
	streamFn?: StreamFn,
): Promise<AgentMessage[]> {
	return new LoopRun(context, config, emit, signal, streamFn).runPrompt(prompts);
}

/**
 * Continues from the current context without new messages (retries, queued tool results).
 * Rejects with `SettleError` INVALID_ARGUMENT `Cannot continue: no messages in context` when there are
 * no (non-system) messages and `Cannot continue from message role: assistant` when the last one is an
 * assistant message. Resolves with the messages this run produced.
 *
 * @example
 * ```ts
 * declare const context: AgentContext; // messages end with a user message or a tool result
 * const added = await runAgentLoopContinue(context, { model }, (event) => console.log(event.type), undefined, faux.streamFn);
 * ```
 */
export async function runAgentLoopContinue(
	context: AgentContext,
	config: AgentLoopConfig,
	emit: AgentEventSink,
	signal?: AbortSignal,
	streamFn?: StreamFn,
): Promise<AgentMessage[]> {
	assertCanContinue(context.messages);
	return new LoopRun(context, config, emit, signal, streamFn).runContinue();
}

/**
 * Stream variant of {@link runAgentLoop}: iterate the events; `result()` gives the new messages.
 * A run that throws is closed with a synthesized failure message (as the Agent does).
 *
 * @example
 * ```ts
 * const context: AgentContext = { systemPrompt: "", messages: [], tools: [] };
 * const stream = agentLoop([{ role: "user", content: "hello", timestamp: Date.now() }], context, { model }, undefined, faux.streamFn);
 * for await (const event of stream) console.log(event.type);
 * const newMessages = await stream.result(); // the prompt and the replies
 * ```
 */
export function agentLoop(
	prompts: AgentMessage[],
	context: AgentContext,
	config: AgentLoopConfig,
	signal?: AbortSignal,
	streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
	return streamRun(config, signal, (emit) => runAgentLoop(prompts, context, config, emit, signal, streamFn));
}

/**
 * Stream variant of {@link runAgentLoopContinue}; throws `SettleError` INVALID_ARGUMENT synchronously
 * when the context cannot continue (no messages, or the last one is an assistant message).
 *
 * @example
 * ```ts
 * declare const transcript: AgentMessage[]; // ends with a user message or a tool result
 * const stream = agentLoopContinue({ systemPrompt: "", messages: transcript, tools: [] }, { model }, signal, faux.streamFn);
 * for await (const event of stream) if (event.type === "message_end") console.log(event.message.role);
 * const newMessages = await stream.result();
 * ```
 */
export function agentLoopContinue(
	context: AgentContext,
	config: AgentLoopConfig,
	signal?: AbortSignal,
	streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
	assertCanContinue(context.messages);
	return streamRun(config, signal, (emit) => runAgentLoopContinue(context, config, emit, signal, streamFn));
}

function streamRun(
	config: AgentLoopConfig,
	signal: AbortSignal | undefined,
	run: (emit: AgentEventSink) => Promise<AgentMessage[]>,
): EventStream<AgentEvent, AgentMessage[]> {
	const stream = new EventStream<AgentEvent, AgentMessage[]>(
		(event) => event.type === "agent_end",
		(event) => (event.type === "agent_end" ? event.messages : []),
	);
	const tracker = new RunTracker();
	run((event) => {
		tracker.observe(event);
		stream.push(event);
	}).then(
		(messages) => stream.end(messages),
		(error: unknown) => {
			const closing = tracker.failureEvents(error, config.model, signal?.aborted === true);
			for (const event of closing?.events ?? []) stream.push(event);
			stream.end(closing ? [closing.failure] : []);
		},
	);
	return stream;
}

/** The last message that is not a `system` message, if any. */
export function lastNonSystemMessage(messages: readonly AgentMessage[]): AgentMessage | undefined {
	for (let index = messages.length - 1; index >= 0; index--) {
		if (messages[index]!.role !== "system") return messages[index];
	}
	return undefined;
}

function assertCanContinue(messages: readonly AgentMessage[]): void {
	const last = lastNonSystemMessage(messages);
	if (!last) throw new SettleError("INVALID_ARGUMENT", "Cannot continue: no messages in context");
	if (last.role === "assistant")
		throw new SettleError("INVALID_ARGUMENT", "Cannot continue from message role: assistant");
}

/**
 * A message_end result: the replacement (same role) or the original. A replacement with another
 * role is rejected: the loop's decisions (tool calls, stop reason) depend on the role.
 */
export function resolveReplacement(original: AgentMessage, result: AgentEventResult): AgentMessage {
	const replacement = result?.message;
	if (!replacement || replacement === original) return original;
	if (replacement.role !== original.role) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`A message_end listener replaced a "${original.role}" message with a "${replacement.role}" message; a replacement must keep the role.`,
		);
	}
	// A failure's code follows its replacement while that is still a failure.
	carryFailure(original, replacement);
	return replacement;
}

/**
 * Delivers events to the sink and stops delivering after a sink failure. The loop awaits each
 * emit, so emissions are sequential — except while tools run (parallel ends, progress updates):
 * those go through {@link Emitter.emitQueued}, which delivers one at a time in call order.
 */
class Emitter {
	private tail: Promise<unknown> = Promise.resolve();
	/** True once the sink threw: the run is failing, nothing more is delivered. */
	failed = false;

	constructor(private readonly sink: AgentEventSink) {}

	/** The sink's answer: synchronous when the sink answers synchronously (the caller awaits it once). */
	emit(event: AgentEvent): AgentEventResult | Promise<AgentEventResult> {
		if (this.failed) return undefined;
		let result: AgentEventResult | Promise<AgentEventResult>;
		try {
			result = this.sink(event);
		} catch (error) {
			this.failed = true;
			throw error;
		}
		if (!isPromiseLike(result)) return result;
		return (result as Promise<AgentEventResult>).then(undefined, (error: unknown) => {
			this.failed = true;
			throw error;
		});
	}

	emitQueued(event: AgentEvent): Promise<AgentEventResult> {
		const delivery = this.tail.then(() => this.emit(event));
		this.tail = delivery.then(noop, noop);
		return delivery;
	}
}

function noop(): void {}

/** `tools` with the schemas providers accept (see providerToolSchema); the same array when every one is its own. */
function providerTools(tools: AgentTool[]): AgentTool[] {
	let sent: AgentTool[] | undefined;
	for (let index = 0; index < tools.length; index++) {
		const tool = tools[index]!;
		const parameters = providerToolSchema(tool.parameters);
		if (parameters === tool.parameters) continue;
		sent ??= tools.slice();
		sent[index] = { ...tool, parameters };
	}
	return sent ?? tools;
}

/** Whether a hook answered with a promise (to be awaited) rather than a value. */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
	return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

function orEmpty(
	messages: AgentMessage[] | Promise<AgentMessage[]> | undefined,
): AgentMessage[] | Promise<AgentMessage[]> {
	if (isPromiseLike(messages)) return messages.then((resolved) => resolved ?? []);
	return messages ?? [];
}

interface Finalized {
	toolCall: AgentToolCall;
	result: AgentToolResult;
	isError: boolean;
}

/** The abort signal of one batch of tool calls (see `LoopRun.toolBatchSignal`). */
interface ToolBatchSignal {
	signal: AbortSignal;
	/** Stops the batch's other calls. */
	abort(reason: unknown): void;
	/** Detaches the batch from the run's signal once the batch is done. */
	release(): void;
}

interface Prepared {
	toolCall: AgentToolCall;
	tool: AgentTool;
	args: unknown;
}

const ABORTED = Symbol("aborted");

class LoopRun {
	private context: AgentContext;
	private model: Model;
	private thinkingLevel: ThinkingLevel;
	private readonly newMessages: AgentMessage[] = [];
	private readonly emitter: Emitter;
	private readonly streamFn: StreamFn;
	/**
	 * Wakes the model call in flight when the run is aborted: one abort listener per run (added
	 * at the first model call), not one per call.
	 */
	private wakeOnAbort: ((value: typeof ABORTED) => void) | undefined;
	private abortListener: (() => void) | undefined;
	/**
	 * Tool calls whose streamed argument text did not parse as JSON: pi-ai salvages a prefix
	 * (`partial-json`), which must not run as if it were the call (pi#6284).
	 */
	private readonly malformedCalls = new Set<string>();
	/** The arguments, as the model gave them, of calls whose arguments are no object: validated as given. */
	private readonly nonObjectArguments = new Map<string, unknown>();

	constructor(
		context: AgentContext,
		private readonly config: AgentLoopConfig,
		sink: AgentEventSink,
		private readonly signal: AbortSignal | undefined,
		streamFn: StreamFn | undefined,
	) {
		this.context = context;
		this.model = config.model;
		this.thinkingLevel = config.thinkingLevel ?? "off";
		this.emitter = new Emitter(sink);
		this.streamFn = streamFn ?? config.streamFn ?? missingStreamFn;
	}

	private emit(event: AgentEvent): AgentEventResult | Promise<AgentEventResult> {
		return this.emitter.emit(event);
	}

	async runPrompt(prompts: AgentMessage[]): Promise<AgentMessage[]> {
		try {
			await this.emit({ type: "agent_start" });
			await this.emit({ type: "turn_start" });
			for (const prompt of prompts) await this.appendMessage(prompt);
			await this.loop();
			return this.newMessages;
		} finally {
			this.removeAbortListener();
		}
	}

	async runContinue(): Promise<AgentMessage[]> {
		try {
			await this.emit({ type: "agent_start" });
			await this.emit({ type: "turn_start" });
			await this.loop();
			return this.newMessages;
		} finally {
			this.removeAbortListener();
		}
	}

	/**
	 * `next`, or {@link ABORTED} as soon as the run is aborted; the wake-up stays armed until
	 * {@link stopAbortWait}. A fresh promise per stream event: racing each event against one promise
	 * that lives as long as the response would leave a reaction on it per event, keeping every event
	 * (and its partial message) alive until the response ends (quadratic memory for a long answer).
	 */
	private nextOrAbort<T>(signal: AbortSignal, next: Promise<T>): Promise<T | typeof ABORTED> {
		if (signal.aborted) return Promise.resolve(ABORTED);
		if (!this.abortListener) {
			const listener = (): void => this.wakeOnAbort?.(ABORTED);
			this.abortListener = listener;
			signal.addEventListener("abort", listener, { once: true });
		}
		return new Promise((resolve, reject) => {
			this.wakeOnAbort = resolve;
			next.then(resolve, reject);
		});
	}

	private stopAbortWait(): void {
		this.wakeOnAbort = undefined;
	}

	private removeAbortListener(): void {
		if (this.abortListener) this.signal?.removeEventListener("abort", this.abortListener);
		this.abortListener = undefined;
		this.wakeOnAbort = undefined;
	}

	/** message_start → append → message_end; returns the final (possibly replaced) message. */
	private async appendMessage<T extends AgentMessage>(message: T): Promise<T> {
		await this.emit({ type: "message_start", message });
		return this.endMessage(message);
	}

	private async endMessage<T extends AgentMessage>(message: T): Promise<T> {
		const messages = this.context.messages;
		messages.push(message);
		const index = messages.length - 1;
		const final = resolveReplacement(message, await this.emit({ type: "message_end", message })) as T;
		if (final !== message) {
			// The Agent already replaced it in its transcript; a plain context needs it done here.
			const current = this.context.messages;
			if (current === messages && current[index] === message) current[index] = final;
			else if (current[current.length - 1] === message) current[current.length - 1] = final;
		}
		this.newMessages.push(final);
		return final;
	}

	private async loop(): Promise<void> {
		const config = this.config;
		let firstTurn = true;
		let runTurn = true;
		let continuationRequested = false;
		let previousTurn: AgentTurnContext | undefined;
		let pending = await this.pollSteering();

		while (true) {
			while (runTurn || pending.length > 0) {
				let prepared: AgentMessage[] = [];
				if (firstTurn) {
					firstTurn = false;
				} else {
					if (previousTurn && config.prepareNextTurn) {
						// A hook that answers synchronously (the session's, unless a system prompt change
						// must be recorded) is not awaited, nor is a synchronous re-poll: each await is a
						// microtask per turn.
						const prepare = config.prepareNextTurn(previousTurn, this.signal);
						const update = isPromiseLike(prepare) ? await prepare : prepare;
						if (update?.context) this.context = update.context;
						if (update?.model) this.model = update.model;
						if (update?.thinkingLevel) this.thinkingLevel = update.thinkingLevel;
						if (update?.messages) prepared = update.messages;
						if (pending.length === 0) {
							const polled = this.pollSteering();
							pending = isPromiseLike(polled) ? await polled : polled;
						}
					}
					await this.emit({ type: "turn_start" });
				}
				for (const message of prepared) await this.appendMessage(message);
				for (const message of pending) await this.appendMessage(message);
				pending = [];
				runTurn = false;
				continuationRequested = false;

				const message = await this.streamAssistantResponse();
				if (message.stopReason === "error" || message.stopReason === "aborted") {
					if (config.finishTurn) await config.finishTurn(this.turnContext(message, []), this.signal);
					await this.emit({ type: "turn_end", message, toolResults: [] });
					await this.emit({ type: "agent_end", messages: this.newMessages });
					return;
				}

				const toolCalls = message.content.filter((block): block is AgentToolCall => block.type === "toolCall");
				let toolResults: ToolResultMessage[] = [];
				if (toolCalls.length > 0) {
					const batch = await this.executeToolCalls(message, toolCalls);
					toolResults = batch.messages;
					runTurn = !batch.terminate;
				}

				const turn = this.turnContext(message, toolResults);
				// Hooks that are not installed are not awaited: each await is a microtask per turn.
				const decision = config.finishTurn ? await config.finishTurn(turn, this.signal) : undefined;
				await this.emit({ type: "turn_end", message, toolResults });
				if (decision === "end" || (config.shouldStopAfterTurn && (await config.shouldStopAfterTurn(turn)))) {
					await this.emit({ type: "agent_end", messages: this.newMessages });
					return;
				}
				if (decision === "continue") continuationRequested = true;
				previousTurn = turn;
				pending = await this.pollSteering();
			}

			const followUps = await this.pollFollowUps();
			if (followUps.length > 0) {
				pending = followUps;
				continue;
			}
			if (continuationRequested) {
				continuationRequested = false;
				runTurn = true;
				continue;
			}
			break;
		}
		await this.emit({ type: "agent_end", messages: this.newMessages });
	}

	private turnContext(message: AssistantMessage, toolResults: ToolResultMessage[]): AgentTurnContext {
		return { message, toolResults, context: this.context, newMessages: this.newMessages };
	}

	private pollSteering(): AgentMessage[] | Promise<AgentMessage[]> {
		return orEmpty(this.config.getSteeringMessages?.());
	}

	private pollFollowUps(): AgentMessage[] | Promise<AgentMessage[]> {
		return orEmpty(this.config.getFollowUpMessages?.());
	}

	// ---------------------------------------------------------------- model call

	private async streamAssistantResponse(): Promise<AssistantMessage> {
		const config = this.config;
		const signal = this.signal;
		let requestContext = this.context;
		let model = this.model;
		let thinkingLevel = this.thinkingLevel;
		// A request whose model the hook replaced (a routed virtual model) records its thinking level.
		let replacedModel = false;
		if (config.prepareRequest) {
			const override = await config.prepareRequest({ context: requestContext, model, thinkingLevel }, signal);
			if (override?.context) requestContext = override.context;
			if (override?.model) {
				model = override.model;
				replacedModel = true;
			}
			if (override?.thinkingLevel) thinkingLevel = override.thinkingLevel;
		}
		if (signal?.aborted) return this.finishAssistant(abortedMessage(undefined, model), false);

		let messages = requestContext.messages;
		if (config.transformContext) messages = await config.transformContext(messages, signal);
		// Synchronous hooks (the usual case) are not awaited.
		const converted = (config.convertToLlm ?? defaultConvertToLlm)(messages);
		const llmMessages: Message[] = isPromiseLike(converted) ? await converted : converted;
		const llmContext: Context = { systemPrompt: requestContext.systemPrompt, messages: llmMessages };
		if (requestContext.tools) llmContext.tools = providerTools(requestContext.tools);
		const key = config.getApiKey?.(model.provider);
		const apiKey = (isPromiseLike(key) ? await key : key) || config.apiKey;
		// Aborted while a context, conversion or key hook ran: no request is sent.
		if (signal?.aborted) return this.finishAssistant(abortedMessage(undefined, model), false);
		const options = buildStreamOptions(config, apiKey, thinkingLevel, signal);

		let partial: AssistantMessage | undefined;
		let started = false;
		let final: AssistantMessage | undefined;
		// The raw argument text of each streamed tool call, by content index.
		const argumentText = new Map<number, string>();
		this.malformedCalls.clear();
		this.nonObjectArguments.clear();
		try {
			const streamed = this.streamFn(model, llmContext, options);
			const response = isPromiseLike(streamed) ? await streamed : streamed;
			if (typeof response?.[Symbol.asyncIterator] !== "function") throw notAStream(model, response);
			const iterator = response[Symbol.asyncIterator]();
			while (final === undefined) {
				const nextPromise = iterator.next();
				// A provider that ignores the signal must not keep an aborted run alive.
				const next = signal ? await this.nextOrAbort(signal, nextPromise) : await nextPromise;
				if (next === ABORTED) {
					nextPromise.catch(noop);
					iterator.return?.()?.catch(noop);
					final = abortedMessage(partial, model);
					break;
				}
				if (next.done) break;
				const event: AssistantMessageEvent = next.value;
				switch (event.type) {
					case "start":
						partial = event.partial;
						started = true;
						await this.emit({ type: "message_start", message: { ...partial } });
						break;
					case "done":
						final = event.message;
						break;
					case "error":
						final = event.error;
						break;
					default:
						if (event.type === "toolcall_delta")
							argumentText.set(event.contentIndex, (argumentText.get(event.contentIndex) ?? "") + event.delta);
						if (started) {
							partial = event.partial;
							// Streamed calls carry the ids the saved answer will have, so a host keying calls by id sees two.
							const shown = withUniqueToolCallIds(partial);
							await this.emit({
								type: "message_update",
								message: { ...shown },
								assistantMessageEvent: shown === partial ? event : withShownCalls(event, shown),
							});
						}
				}
			}
			if (final === undefined) {
				// A stream whose events ended without a final message must not outlive an abort either (pi#2381).
				const resultPromise = response.result();
				const result = signal ? await this.nextOrAbort(signal, resultPromise) : await resultPromise;
				if (result === ABORTED) {
					resultPromise.catch(noop);
					final = abortedMessage(partial, model);
				} else {
					final = result;
				}
			}
		} catch (error) {
			// A stream function must not throw; if it does, the turn still ends with a message.
			// A throwing listener is not a provider failure: it ends the run.
			if (this.emitter.failed) throw error;
			final = {
				...(partial ?? threwBeforeStreaming(model)),
				stopReason: signal?.aborted ? "aborted" : "error",
				errorMessage: errorMessage(error),
				timestamp: Date.now(),
			};
		} finally {
			this.stopAbortWait();
		}
		if (replacedModel) final.thinkingLevel = thinkingLevel;
		// A model or proxy that gives two calls of one answer the same id (MiMo, Kimi): each call gets
		// its own, so each result pairs with its call and no provider refuses the replay (oh-my-pi#2055).
		final = withUniqueToolCallIds(final);
		// GPT-5 models call `functions.read` for `read` (Codex's namespace): each call failed "not found" (maki#505).
		final = withNamespacedToolNames(final, this.context.tools);
		for (const [index, text] of argumentText) {
			const block = final.content[index];
			if (block?.type === "toolCall" && !isCompleteJson(text)) this.malformedCalls.add(block.id);
		}
		// Arguments that are no object (`null` from a model that streamed "null" or was cut before
		// any): the call is not run, and the message keeps `{}`, so that no later request replays an
		// `input: null` every provider refuses (pi#8386).
		if (final.content.some((block) => block.type === "toolCall" && !isArgumentsObject(block.arguments))) {
			final = {
				...final,
				content: final.content.map((block) => {
					if (block.type !== "toolCall" || isArgumentsObject(block.arguments)) return block;
					this.nonObjectArguments.set(block.id, block.arguments);
					return { ...block, arguments: {} };
				}),
			};
		}
		// Half an emoji in a call's arguments: saved, run and sent again as the U+FFFD the tool gets,
		// so the session file, JSON lines and a resumed request all hold one well-formed text.
		final = withWellFormedToolArguments(final);
		// A provider or proxy that echoes the key it got must not put it in the log, events or traces.
		if (final.errorMessage) {
			const redacted = redactSecrets(final.errorMessage, requestSecrets(model, options));
			if (redacted !== final.errorMessage) final = { ...final, errorMessage: redacted };
		}
		// Typed once, here: hosts branch on the code (a refused key: NO_AUTH), not on the text.
		if (final.stopReason === "error") noteFailure(final, providerFailure(final));
		return this.finishAssistant(final, started);
	}

	private async finishAssistant(message: AssistantMessage, started: boolean): Promise<AssistantMessage> {
		if (!started) await this.emit({ type: "message_start", message: { ...message } });
		return this.endMessage(message);
	}

	// ---------------------------------------------------------------- tools

	private findTool(name: string): AgentTool | undefined {
		return this.context.tools?.find((tool) => tool.name === name);
	}

	private async executeToolCalls(
		assistantMessage: AssistantMessage,
		toolCalls: AgentToolCall[],
	): Promise<{ messages: ToolResultMessage[]; terminate: boolean }> {
		const lengthStop = assistantMessage.stopReason === "length";
		// A lone call runs the sequential way: the same events in the same order, without the
		// bookkeeping that parallel calls need.
		const sequential =
			lengthStop ||
			toolCalls.length === 1 ||
			this.config.toolExecution === "sequential" ||
			toolCalls.some((call) => this.findTool(call.name)?.executionMode === "sequential");
		const batch = this.toolBatchSignal(sequential);
		try {
			const messages: ToolResultMessage[] = [];
			let finalized: Finalized[];
			if (sequential) {
				// Sequential (pi): each result message right after its tool_execution_end.
				finalized = await this.executeSequential(assistantMessage, toolCalls, batch.signal, lengthStop, messages);
			} else {
				// Parallel: result messages after the whole batch, in source order.
				finalized = await this.executeParallel(assistantMessage, toolCalls, batch);
				for (const entry of finalized) messages.push(await this.appendMessage(toolResultMessage(entry)));
			}
			return {
				messages,
				terminate: finalized.length > 0 && finalized.every((entry) => entry.result.terminate === true),
			};
		} finally {
			batch.release();
		}
	}

	/**
	 * The signal a batch of tool calls runs with. Parallel calls with siblings get their own
	 * controller (following the run's signal), so a failing call can stop the others; a lone or
	 * sequential call has no sibling to stop and runs on the run's signal itself (an
	 * AbortController costs ~2 µs, a listener more).
	 */
	private toolBatchSignal(withoutSiblings: boolean): ToolBatchSignal {
		const runSignal = this.signal;
		if (runSignal && withoutSiblings) return { signal: runSignal, abort: noop, release: noop };
		const controller = new AbortController();
		// Every call of the batch watches this one signal while it runs (a tool's abort race, its
		// process, a fetch): a batch of 11 calls passed Node's default of 10 listeners and printed a
		// "MaxListenersExceededWarning: Possible EventTarget memory leak" into the user's terminal.
		// The signal lives for this batch only, so nothing can pile up on it: no limit.
		setMaxListeners(0, controller.signal);
		const forwardAbort = (): void => controller.abort(runSignal?.reason);
		if (runSignal?.aborted) forwardAbort();
		else runSignal?.addEventListener("abort", forwardAbort, { once: true });
		return {
			signal: controller.signal,
			abort: (reason) => controller.abort(reason),
			release: () => runSignal?.removeEventListener("abort", forwardAbort),
		};
	}

	private async executeSequential(
		assistantMessage: AssistantMessage,
		toolCalls: AgentToolCall[],
		signal: AbortSignal,
		lengthStop: boolean,
		messages: ToolResultMessage[],
	): Promise<Finalized[]> {
		const finalized: Finalized[] = [];
		for (const toolCall of toolCalls) {
			await this.emitToolStart(toolCall);
			const preparation = lengthStop
				? immediate(toolCall, lengthStopToolError(toolCall.name))
				: await this.prepareToolCall(assistantMessage, toolCall, signal);
			const entry =
				"tool" in preparation
					? await this.finalizeToolCall(
							assistantMessage,
							preparation,
							await this.executeToolCall(preparation, signal),
							signal,
						)
					: preparation;
			await this.emitToolEnd(entry);
			messages.push(await this.appendMessage(toolResultMessage(entry)));
			finalized.push(entry);
		}
		return finalized;
	}

	private async executeParallel(
		assistantMessage: AssistantMessage,
		toolCalls: AgentToolCall[],
		batch: ToolBatchSignal,
	): Promise<Finalized[]> {
		const slots: (Finalized | Promise<Finalized>)[] = [];
		const preparedCalls: { index: number; prepared: Prepared }[] = [];
		for (const toolCall of toolCalls) {
			await this.emitToolStart(toolCall);
			const preparation = await this.prepareToolCall(assistantMessage, toolCall, batch.signal);
			if ("tool" in preparation) {
				preparedCalls.push({ index: slots.length, prepared: preparation });
				slots.push(undefined as unknown as Finalized);
			} else {
				await this.emitToolEnd(preparation);
				slots.push(preparation);
			}
		}
		const tasks = preparedCalls.map(async ({ index, prepared }) => {
			try {
				const executed = await this.executeToolCall(prepared, batch.signal);
				const entry = await this.finalizeToolCall(assistantMessage, prepared, executed, batch.signal);
				await this.emitToolEnd(entry, true);
				slots[index] = entry;
			} catch (error) {
				// The run is failing: stop the sibling tools, then let the error surface.
				batch.abort(error);
				throw error;
			}
		});
		const outcomes = await Promise.allSettled(tasks);
		const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
		if (failure) throw failure.reason;
		return slots as Finalized[];
	}

	private emitToolStart(toolCall: AgentToolCall): AgentEventResult | Promise<AgentEventResult> {
		return this.emit({
			type: "tool_execution_start",
			toolCallId: toolCall.id,
			toolName: toolCall.name,
			args: toolCall.arguments,
		});
	}

	private emitToolEnd(entry: Finalized, queued = false): AgentEventResult | Promise<AgentEventResult> {
		const event: AgentEvent = {
			type: "tool_execution_end",
			toolCallId: entry.toolCall.id,
			toolName: entry.toolCall.name,
			result: entry.result,
			isError: entry.isError,
		};
		return queued ? this.emitter.emitQueued(event) : this.emit(event);
	}

	/** Lookup → prepareArguments → validation → beforeToolCall. */
	private async prepareToolCall(
		assistantMessage: AssistantMessage,
		toolCall: AgentToolCall,
		signal: AbortSignal,
	): Promise<Prepared | Finalized> {
		if (signal.aborted) return immediate(toolCall, "Operation aborted");
		if (this.malformedCalls.has(toolCall.id)) return immediate(toolCall, malformedArgumentsToolError(toolCall.name));
		const tool = this.findTool(toolCall.name);
		if (!tool) return immediate(toolCall, `Tool ${toolCall.name} not found`);
		try {
			// Arguments that are no object are kept as `{}` in the message (pi#8386) but prepared and
			// validated as the model gave them (pi's "must be object").
			const given = this.nonObjectArguments.has(toolCall.id)
				? (this.nonObjectArguments.get(toolCall.id) as AgentToolCall["arguments"])
				: toolCall.arguments;
			let validationCall = given === toolCall.arguments ? toolCall : { ...toolCall, arguments: given };
			if (tool.prepareArguments) {
				const prepared = tool.prepareArguments(given);
				if (prepared !== given) validationCall = { ...toolCall, arguments: prepared as AgentToolCall["arguments"] };
			}
			const args = validateToolArguments(tool, validationCall);
			if (this.config.beforeToolCall) {
				// A hook that never settles must not keep an aborted run alive either (pi#9910).
				const abandonment = { aborted: false };
				const decision = await untilAbandoned(
					this.config.beforeToolCall({ assistantMessage, toolCall, args, context: this.context }, signal, abandonment),
					signal,
					this.config,
				);
				if (decision === ABANDONED) {
					abandonment.aborted = true;
					return immediate(toolCall, abandonedHookMessage("tool_call", toolCall.name, this.config));
				}
				// A hook that blocks and aborts (a confirmation's "Abort run") said why: its reason is the
				// result, as in pi 0.73.1. Otherwise an abort during the hook stops the call unexplained.
				if (signal.aborted && !decision?.block) return immediate(toolCall, "Operation aborted");
				if (decision?.block) {
					const entry = immediate(toolCall, decision.reason || "Tool execution was blocked");
					if (decision.terminate) entry.result.terminate = true;
					return entry;
				}
			}
			return { toolCall, tool, args };
		} catch (error) {
			return immediate(toolCall, errorMessage(error));
		}
	}

	private async executeToolCall(prepared: Prepared, signal: AbortSignal): Promise<Omit<Finalized, "toolCall">> {
		const updates: Promise<AgentEventResult>[] = [];
		let running = true;
		let outcome: Omit<Finalized, "toolCall">;
		// Aborted after this call was prepared (a sibling's hooks ran meanwhile): the tool is not started.
		if (signal.aborted) return { result: errorResult("Operation aborted"), isError: true };
		try {
			const execution = prepared.tool.execute(prepared.toolCall.id, prepared.args, signal, (partialResult) => {
				if (!running) return;
				const update = this.emitter.emitQueued({
					type: "tool_execution_update",
					toolCallId: prepared.toolCall.id,
					toolName: prepared.toolCall.name,
					args: prepared.toolCall.arguments,
					partialResult,
				});
				// Observed below via Promise.all; mark handled so a failing listener is no unhandled rejection.
				update.catch(noop);
				updates.push(update);
			});
			// A tool that ignores its abort signal must not keep an aborted run alive (pi#5778).
			const result = await untilAbandoned(execution, signal, this.config);
			const checked =
				result === ABANDONED
					? ({ ok: false, message: abandonedToolMessage(prepared.toolCall.name, this.config) } as const)
					: checkToolResult(prepared.toolCall.name, result);
			if (!checked.ok) {
				outcome = { result: errorResult(checked.message), isError: true };
			} else {
				const valid = checked.result;
				outcome = { result: { ...valid, content: valid.content ?? [] }, isError: valid.isError === true };
			}
		} catch (error) {
			outcome = { result: errorResult(errorMessage(error)), isError: true };
		} finally {
			running = false;
		}
		await Promise.all(updates);
		return outcome;
	}

	private async finalizeToolCall(
		assistantMessage: AssistantMessage,
		prepared: Prepared,
		executed: Omit<Finalized, "toolCall">,
		signal: AbortSignal,
	): Promise<Finalized> {
		let { result, isError } = executed;
		if (this.config.afterToolCall) {
			try {
				const abandonment = { aborted: false };
				const answer = this.config.afterToolCall(
					{
						assistantMessage,
						toolCall: prepared.toolCall,
						args: prepared.args,
						result,
						isError,
						context: this.context,
					},
					signal,
					abandonment,
				);
				// A synchronous answer (no handlers, no images) costs no abandonment watch and no await.
				const override =
					typeof (answer as PromiseLike<unknown> | undefined)?.then === "function"
						? await untilAbandoned(answer, signal, this.config)
						: (answer as AfterToolCallResult | undefined);
				if (override === ABANDONED) {
					abandonment.aborted = true;
					result = errorResult(abandonedHookMessage("tool_result", prepared.toolCall.name, this.config));
					isError = true;
				} else if (override) {
					result = {
						...result,
						content: override.content ?? result.content,
						details: override.details !== undefined ? override.details : result.details,
						terminate: override.terminate ?? result.terminate,
						usage: override.usage ?? result.usage,
					};
					isError = override.isError ?? isError;
				}
			} catch (error) {
				result = errorResult(errorMessage(error));
				isError = true;
			}
		}
		return { toolCall: prepared.toolCall, result, isError };
	}
}

function immediate(toolCall: AgentToolCall, text: string): Finalized {
	return { toolCall, result: errorResult(text), isError: true };
}

function errorResult(text: string): AgentToolResult {
	return { content: [{ type: "text", text }], details: {} };
}

function toolResultMessage(entry: Finalized): ToolResultMessage {
	const message: ToolResultMessage = {
		role: "toolResult",
		toolCallId: entry.toolCall.id,
		toolName: entry.toolCall.name,
		content: entry.result.content ?? [],
		details: entry.result.details,
		isError: entry.isError,
		timestamp: Date.now(),
	};
	if (entry.result.usage) message.usage = entry.result.usage;
	return message;
}

/** What {@link untilAbandoned} resolves to when the loop stopped waiting for a tool. */
const ABANDONED = Symbol("abandoned");

/** Default of {@link AgentLoopConfig.toolAbortGraceMs}. */
export const DEFAULT_TOOL_ABORT_GRACE_MS = 1000;

// The grace is not unref'd: the caller awaits the run it ends (`await session.prompt()` in a script
// whose aborted tool holds no handle), and Node would otherwise exit mid-run with nothing saved.
const REAL_TIMERS: LoopTimers = {
	setTimeout: (fn, ms) => setTimeout(fn, ms),
	clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/**
 * `execution`, or {@link ABANDONED} once `signal` has been aborted for `config.toolAbortGraceMs`
 * (default {@link DEFAULT_TOOL_ABORT_GRACE_MS}) and the tool has still not returned. A tool that
 * honours its signal returns within the grace with its own result (bash's output so far), so only
 * a tool that ignores it is left behind; its late result or rejection is dropped.
 */
function untilAbandoned<T>(
	execution: Promise<T> | T,
	signal: AbortSignal,
	config: Pick<AgentLoopConfig, "toolAbortGraceMs" | "timers">,
): Promise<T | typeof ABANDONED> {
	const promise = Promise.resolve(execution);
	return new Promise<T | typeof ABANDONED>((resolve, reject) => {
		const timers = config.timers ?? REAL_TIMERS;
		let timer: unknown;
		const onAbort = (): void => {
			timer = timers.setTimeout(() => resolve(ABANDONED), config.toolAbortGraceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS);
		};
		const done = (): void => {
			signal.removeEventListener("abort", onAbort);
			if (timer !== undefined) timers.clearTimeout(timer);
		};
		if (signal.aborted) onAbort();
		else signal.addEventListener("abort", onAbort, { once: true });
		promise.then(
			(value) => {
				done();
				resolve(value);
			},
			(error: unknown) => {
				done();
				reject(error);
			},
		);
	});
}

function abandonedToolMessage(name: string, config: Pick<AgentLoopConfig, "toolAbortGraceMs">): string {
	const grace = config.toolAbortGraceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS;
	return (
		`Operation aborted: the ${name} tool did not stop within ${grace} ms of the abort, so its result was discarded ` +
		"(it may still be running). A tool should return or throw once its abort signal fires."
	);
}

/** The result of a call whose `tool_call` / `tool_result` hook was left behind after an abort. */
function abandonedHookMessage(
	hook: "tool_call" | "tool_result",
	name: string,
	config: Pick<AgentLoopConfig, "toolAbortGraceMs">,
): string {
	const grace = config.toolAbortGraceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS;
	const outcome = hook === "tool_call" ? "the call was not run" : "its result was discarded";
	return (
		`Operation aborted: a ${hook} handler for the ${name} tool did not return within ${grace} ms of the abort, so ${outcome}. ` +
		"An extension handler should return once ctx.signal aborts."
	);
}

function abortedMessage(partial: AssistantMessage | undefined, model: Model): AssistantMessage {
	return {
		...(partial ?? emptyAssistantMessage(model)),
		stopReason: "aborted",
		errorMessage: "Request was aborted",
		timestamp: Date.now(),
	};
}

function buildStreamOptions(
	config: AgentLoopConfig,
	apiKey: string | undefined,
	thinkingLevel: ThinkingLevel,
	signal: AbortSignal | undefined,
): StreamOptions {
	// Named reads, not a loop over a key list: a keyed read per option is a slow (megamorphic)
	// load on every model call.
	const options: StreamOptions = {};
	if (config.temperature !== undefined) options.temperature = config.temperature;
	if (config.maxTokens !== undefined) options.maxTokens = config.maxTokens;
	if (config.apiKey !== undefined) options.apiKey = config.apiKey;
	if (config.transport !== undefined) options.transport = config.transport;
	if (config.cacheRetention !== undefined) options.cacheRetention = config.cacheRetention;
	if (config.sessionId !== undefined) options.sessionId = config.sessionId;
	if (config.onPayload !== undefined) options.onPayload = config.onPayload;
	if (config.onResponse !== undefined) options.onResponse = config.onResponse;
	if (config.headers !== undefined) options.headers = config.headers;
	if (config.timeoutMs !== undefined) options.timeoutMs = config.timeoutMs;
	if (config.maxRetries !== undefined) options.maxRetries = config.maxRetries;
	if (config.maxRetryDelayMs !== undefined) options.maxRetryDelayMs = config.maxRetryDelayMs;
	if (config.metadata !== undefined) options.metadata = config.metadata;
	if (config.reasoning !== undefined) options.reasoning = config.reasoning;
	if (config.thinkingBudgets !== undefined) options.thinkingBudgets = config.thinkingBudgets;
	if (apiKey !== undefined) options.apiKey = apiKey;
	if (thinkingLevel !== "off") options.reasoning = thinkingLevel;
	if (signal) options.signal = signal;
	return options;
}

/** The error of a stream function that returned something other than an event stream (also a wrapper's, provider-stream.ts). */
export function notAStream(model: Model, value: unknown): SettleError {
	const got = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
	return new SettleError(
		"PROVIDER",
		`The stream function for ${model.provider}/${model.id} did not return an event stream (got ${got}). ` +
			"A StreamFn must return an AssistantMessageEventStream (or a promise of one); fix the provider registration.",
		{ details: { provider: model.provider, model: model.id } },
	);
}

/**
 * A stream function that threw before it streamed anything ends the turn with the failure pi's
 * Agent records for a run that threw: one empty text block, zero usage.
 */
function threwBeforeStreaming(model: Model): AssistantMessage {
	return { ...emptyAssistantMessage(model), content: [{ type: "text", text: "" }] };
}

/** Without a stream function every model call fails the way pi's does without a provider: it throws. */
const missingStreamFn: StreamFn = () => {
	throw new SettleError(
		"PROVIDER",
		"No stream function configured: pass `streamFn` to the Agent (for example `createFauxProvider().streamFn`).",
	);
};
