/**
 * Prompt-cache warming policy (pi-ai 1.6's `cache-warming.ts`): when a refresh is due, whether a
 * request can be replayed, and whether a refresh pays for itself. The session's cache warmer owns
 * the scheduling; this module owns the numbers. Pure functions, no timers.
 */
import { RESPONSE_LISTENER, type ResponseListenerOption } from "./response-activity.js";
import type { Model, StreamOptions, Usage } from "./types.js";

/** Whether a refresh is sent ("warm") or warming ends until the next real request ("stop"). */
export type CacheWarmingAction = "warm" | "stop";
/** "streaming" while the agent run that sent the request is still active; "idle" after it settled. */
export type CacheWarmingPhase = "streaming" | "idle";

/** Inputs and outcome of one warm-or-stop decision. */
export interface CacheWarmingDecision {
	phase: CacheWarmingPhase;
	/** Price of this refresh: a cache read of the prompt plus one output token (USD). */
	warmCost: number;
	/** Extra price of the next real request if the cache entry is lost (USD). */
	missCost: number;
	/** Estimated chance that a real request arrives before the entry expires. */
	continuationProbability: number;
	/** `continuationProbability * missCost - warmCost`. */
	expectedSavings: number;
	/** False when the prompt size or the model's prices are unknown. */
	economicsAvailable: boolean;
	/** "warm" when `expectedSavings` is at least {@link CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS}. */
	action: CacheWarmingAction;
}

/** Streaming warming never continues past this long after the real request that started it. */
export const CACHE_WARMING_MAX_AGE_MS = 60 * 60_000;
/** Idle warming uses a shorter horizon because continuation estimates become less reliable with age. */
export const CACHE_WARMING_MAX_IDLE_AGE_MS = 30 * 60_000;
/** A refresh is sent only when it is expected to save at least this many dollars. */
export const CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS = 0.05;
/** Chance that a real request arrives before the cache entry expires while the agent sits idle (pi's measured constant). */
export const CACHE_WARMING_IDLE_CONTINUATION_PROBABILITY = 0.15;

/**
 * When to refresh a cache entry of lifetime `ttlMs`: at 90% of it, keeping at least ten seconds of
 * margin; undefined for lifetimes of ten seconds or less.
 *
 * @example
 * ```ts
 * getCacheWarmingDelayMs(300_000); // 270_000
 * getCacheWarmingDelayMs(60_000); // 50_000
 * ```
 */
export function getCacheWarmingDelayMs(ttlMs: number): number | undefined {
	if (ttlMs <= 10_000) return undefined;
	return Math.max(1, Math.floor(Math.min(ttlMs * 0.9, ttlMs - 10_000)));
}

/**
 * Lifetime (ms) of the prompt cache entry a request writes, from the model's `promptCache` tier for
 * the retention the request used (default `short`, or `long` with `PI_CACHE_RETENTION=long`).
 * Undefined when the model has no lifetime for that tier or caching is off.
 *
 * @example
 * ```ts
 * getPromptCacheTtlMs({ ...model, promptCache: { short: 300 } }, {}); // 300_000
 * getPromptCacheTtlMs(model, { cacheRetention: "none" }); // undefined
 * ```
 */
export function getPromptCacheTtlMs(model: Model, options: StreamOptions | undefined): number | undefined {
	// Called for every request: a model without lifetimes answers before the environment is read
	// (each `process.env` lookup is a call into the runtime, not a property read).
	const promptCache = model.promptCache;
	if (promptCache === undefined) return undefined;
	const retention = options?.cacheRetention ?? (process.env.PI_CACHE_RETENTION === "long" ? "long" : "short");
	if (retention === "none") return undefined;
	const seconds = promptCache[retention];
	return seconds === undefined ? undefined : seconds * 1000;
}

/**
 * Whether replaying the request with a one-token output cap leaves its cache entry untouched.
 * Anthropic's budget-based thinking derives `budget_tokens` from `max_tokens`, which the cache is
 * keyed on; only models with `compat.forceAdaptiveThinking` replay a thinking request safely.
 *
 * @example
 * ```ts
 * isCacheWarmingReplayable(model, { reasoning: "high" }); // false for a budget-thinking Claude model
 * ```
 */
export function isCacheWarmingReplayable(model: Model, options: StreamOptions | undefined): boolean {
	if (!options?.reasoning || model.api !== "anthropic-messages") return true;
	return model.compat?.forceAdaptiveThinking === true;
}

/** Stream options of a refresh; `disableContinuation` is pi-ai 1.6's flag (providers without thread state ignore it). */
export interface CacheWarmingRequestOptions extends StreamOptions {
	maxTokens: 1;
	maxRetries: 0;
	/** Don't replace the conversation's provider-side thread state. */
	disableContinuation: true;
	signal: AbortSignal;
}

/**
 * The options of a refresh: the request's own, capped at one output token, without retries, and
 * without replacing the conversation's provider thread state (the refresh repeats the last request).
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * getCacheWarmingRequestOptions({ sessionId: "s1", maxTokens: 8192 }, controller.signal);
 * // { sessionId: "s1", maxTokens: 1, disableContinuation: true, maxRetries: 0, signal }
 * ```
 */
export function getCacheWarmingRequestOptions(options: StreamOptions, signal: AbortSignal): CacheWarmingRequestOptions {
	// The listener of the request it refreshes belongs to that request (provider-stream.ts).
	const { [RESPONSE_LISTENER]: _ownListener, ...own } = options as StreamOptions & ResponseListenerOption;
	return { ...own, maxTokens: 1, disableContinuation: true, maxRetries: 0, signal };
}

/**
 * Decides whether refreshing the cache entry of a `promptTokens`-token request pays for itself in
 * `phase`: warm when `continuationProbability × missCost − warmCost` ≥ $0.05.
 *
 * @example
 * ```ts
 * const decision = evaluateCacheWarming(model, 200_000, "idle");
 * decision.action; // "warm" or "stop"
 * ```
 */
export function evaluateCacheWarming(
	model: Model,
	promptTokens: number,
	phase: CacheWarmingPhase,
): CacheWarmingDecision {
	const cacheHitCost = price(model, { cacheRead: promptTokens });
	const cacheMissCost = price(
		model,
		model.cost.cacheWrite > 0 ? { cacheWrite: promptTokens } : { input: promptTokens },
	);
	const warmCost = price(model, { cacheRead: promptTokens, output: 1 });
	const missCost = Math.max(0, cacheMissCost - cacheHitCost);
	const continuationProbability = phase === "idle" ? CACHE_WARMING_IDLE_CONTINUATION_PROBABILITY : 1;
	const economicsAvailable = promptTokens > 0 && (cacheHitCost > 0 || cacheMissCost > 0);
	const expectedSavings = continuationProbability * missCost - warmCost;
	return {
		phase,
		warmCost,
		missCost,
		continuationProbability,
		expectedSavings,
		economicsAvailable,
		action: expectedSavings >= CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS ? "warm" : "stop",
	};
}

/** pi-ai's `calculateCost(...).total` for the given token counts (USD; prices are per million tokens). */
function price(model: Model, tokens: Partial<Pick<Usage, "input" | "output" | "cacheRead" | "cacheWrite">>): number {
	// Same operations and order as pi-ai's calculateCost, so the dollars match to the last bit.
	const cost = model.cost;
	const input = (cost.input / 1_000_000) * (tokens.input ?? 0);
	const output = (cost.output / 1_000_000) * (tokens.output ?? 0);
	const cacheRead = (cost.cacheRead / 1_000_000) * (tokens.cacheRead ?? 0);
	// pi 1.6 prices cache writes as (rate × short writes + 2 × input rate × 1h writes) / 1e6; none are 1h here.
	const cacheWrite = (cost.cacheWrite * (tokens.cacheWrite ?? 0) + cost.input * 2 * 0) / 1_000_000;
	return input + output + cacheRead + cacheWrite;
}
