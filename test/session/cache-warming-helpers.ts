/**
 * A session on a scripted provider that records every request (as JSON taken when it is sent) and
 * runs on a `SimulatedClock`, for the cache-warming tests. Real requests answer with a large
 * prompt written to the cache, so pi's cost model decides "warm" unless the test picks prices.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatedClock } from "xstate";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionError, ExtensionFactory } from "../../src/extensions/types.js";
import { streamFromMessage } from "../../src/llm/event-stream.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import type {
	AssistantMessage,
	AssistantMessageEventStream,
	Context,
	Model,
	StreamFn,
	StreamOptions,
	Usage,
} from "../../src/llm/types.js";
import { emptyUsage } from "../../src/llm/types.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { AgentSession } from "../../src/session/agent-session.js";
import type { CacheWarmingMode } from "../../src/session/cache-warmer.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import type { Settings } from "../../src/settings/schema.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

/** Tokens of the prompt each real request writes to the cache. */
export const PROMPT_TOKENS = 1_000_000;
/** pi's refresh delay for a 300 s cache lifetime: 90% of it. */
export const WARM_DELAY_MS = 270_000;

/** Claude-Sonnet-like prices: warming a 1M-token prompt pays off even while idle (p = 0.15). */
export const SONNET_COST = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
/** Prices so low no refresh pays for itself. */
export const CHEAP_COST = { input: 0.001, output: 0.001, cacheRead: 0.0001, cacheWrite: 0.001 };

export interface RecordedRequest {
	/** `{model, context, options}` as JSON when the request was sent (signal left out). */
	json: string;
	context: string;
	options: Omit<StreamOptions, "signal">;
	signal: AbortSignal | undefined;
	/** The simulated time it was sent at. */
	at: number;
	/** Sent by the cache warmer (one-token cap, continuation disabled). */
	warm: boolean;
}

export interface WarmSessionOptions {
	mode?: CacheWarmingMode;
	cost?: Model["cost"];
	/** `null`: the model declares no cache lifetime. */
	promptCache?: Model["promptCache"] | null;
	extensionFactories?: ExtensionFactory[];
	persistence?: "memory" | "disk";
	/** Replaces the answer to warm requests (e.g. to hold one in flight). */
	answerWarm?: (request: RecordedRequest, model: Model) => Promise<AssistantMessage> | AssistantMessage;
	/** Replaces the answer to real requests. */
	answerReal?: (request: RecordedRequest, model: Model) => AssistantMessage;
	tools?: AgentTool[];
	/** More global settings. */
	settings?: Partial<Settings>;
	/** Run on the real clock instead of a `SimulatedClock` (timers then really wait). */
	realClock?: boolean;
	/**
	 * The session's folder, made by the caller (for a child process that never calls `cleanup()`:
	 * a folder the test removes); by default a new temp folder. `cleanup()` removes either.
	 */
	dir?: string;
}

export function usage(partial: Partial<Usage>): Usage {
	return { ...emptyUsage(), ...partial };
}

export function warmModel(id: string, options: Pick<WarmSessionOptions, "cost" | "promptCache"> = {}): Model {
	const model: Model = {
		id,
		name: id,
		api: "warm-api",
		provider: "warm",
		baseUrl: "http://localhost",
		reasoning: false,
		input: ["text"],
		cost: options.cost ?? SONNET_COST,
		contextWindow: 2_000_000,
		maxTokens: 8192,
	};
	if (options.promptCache !== null) model.promptCache = options.promptCache ?? { short: 300, long: 3600 };
	else delete model.promptCache;
	return model;
}

export async function warmSession(options: WarmSessionOptions = {}) {
	const dir = options.dir ?? mkdtempSync(join(tmpdir(), "settle-cache-warming-"));
	const clock = new SimulatedClock();
	const model = warmModel("warm-1", options);
	const other = warmModel("warm-2", options);
	const requests: RecordedRequest[] = [];
	const answer = (m: Model, message: AssistantMessage): AssistantMessage => ({
		...message,
		api: m.api,
		provider: m.provider,
		model: m.id,
	});
	const streamFn: StreamFn = (m: Model, context: Context, streamOptions?: StreamOptions) => {
		const { signal, ...rest } = streamOptions ?? {};
		const warm = (rest as { disableContinuation?: boolean }).disableContinuation === true;
		const request: RecordedRequest = {
			json: JSON.stringify({ model: m, context, options: rest }),
			context: JSON.stringify(context),
			options: JSON.parse(JSON.stringify(rest)),
			signal,
			at: clock.now(),
			warm,
		};
		requests.push(request);
		if (warm) {
			const reply = options.answerWarm?.(request, m) ?? answer(m, fauxAssistantMessage("", { stopReason: "length" }));
			const withUsage = (message: AssistantMessage): AssistantMessage => ({
				...message,
				usage: message.usage.cacheRead
					? message.usage
					: usage({ cacheRead: PROMPT_TOKENS, output: 1, totalTokens: PROMPT_TOKENS + 1 }),
			});
			return reply instanceof Promise
				? reply.then((message) => streamFromMessage(withUsage(message)) as AssistantMessageEventStream)
				: streamFromMessage(withUsage(reply));
		}
		const reply = options.answerReal?.(request, m) ?? answer(m, fauxAssistantMessage("ok"));
		return streamFromMessage({
			...reply,
			usage: usage({ input: 10, output: 5, cacheWrite: PROMPT_TOKENS, totalTokens: PROMPT_TOKENS + 15 }),
		});
	};
	const sessionManager =
		options.persistence === "disk" ? SessionManager.create(dir, join(dir, "sessions")) : SessionManager.inMemory(dir);
	const session = await AgentSession.create({
		sessionManager,
		settingsManager: SettingsManager.inMemory({
			...options.settings,
			...(options.mode ? { cacheWarming: options.mode } : {}),
		}),
		resourceLoader: createTestResourceLoader({ extensionFactories: options.extensionFactories ?? [] }),
		modelRuntime: new InMemoryModelRuntime([
			{ provider: "warm", models: [model, other], streamFn, requiresAuth: false },
		]),
		cwd: dir,
		model,
		thinkingLevel: "off",
		...(options.realClock ? {} : { clock }),
		...(options.tools ? { baseToolsOverride: Object.fromEntries(options.tools.map((tool) => [tool.name, tool])) } : {}),
	});
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => events.push(event));
	const extensionErrors: ExtensionError[] = [];
	await session.bindExtensions({ onError: (error) => extensionErrors.push(error) });
	return {
		session,
		sessionManager,
		clock,
		model,
		other,
		requests,
		events,
		extensionErrors,
		dir,
		realRequests: () => requests.filter((request) => !request.warm),
		warmRequests: () => requests.filter((request) => request.warm),
		/** The next public event of `type`. */
		nextEvent<T extends AgentSessionEvent["type"]>(type: T) {
			return new Promise<Extract<AgentSessionEvent, { type: T }>>((resolve) => {
				const off = session.subscribe((event) => {
					if (event.type !== type) return;
					off();
					resolve(event as Extract<AgentSessionEvent, { type: T }>);
				});
			});
		},
		cleanup() {
			session.dispose();
			sessionManager.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/**
 * Lets the promise chain a fired timer started run to its end. With the scripted provider a
 * refresh (decision, request, usage entry, next timer) is promise callbacks only, all of which
 * run before the next macrotask: this waits for that chain, not for time.
 */
export function drainMicrotasks(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** The warm request's options as pi derives them from the real request's (`getCacheWarmingRequestOptions`). */
export function expectedWarmOptions(real: RecordedRequest): Record<string, unknown> {
	return { ...real.options, maxTokens: 1, disableContinuation: true, maxRetries: 0 };
}
