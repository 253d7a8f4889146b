/**
 * Prompt-cache warming (pi 1.6's `CacheWarmer`): after a real model request, keep the provider's
 * prompt-cache entry it wrote alive by re-sending exactly that request with a one-token output cap
 * shortly before the entry expires, while pi's cost model (or an extension) says it pays off.
 *
 * A service beside the prompt-operation machine, not part of it: the session tells it about each
 * request sent, each settled run, mode changes and dispose. Its timers run on an injected clock
 * (XState's `SimulatedClock` in tests) and never keep the process alive.
 */
import {
	CACHE_WARMING_MAX_AGE_MS,
	CACHE_WARMING_MAX_IDLE_AGE_MS,
	CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS,
	type CacheWarmingAction,
	type CacheWarmingDecision,
	type CacheWarmingPhase,
	evaluateCacheWarming,
	getCacheWarmingDelayMs,
	getCacheWarmingRequestOptions,
	getPromptCacheTtlMs,
	isCacheWarmingReplayable,
} from "../llm/cache-warming.js";
import type { Context, Model, StreamFn, StreamOptions } from "../llm/types.js";
import type { SessionEntry, UsageEntry } from "../store/entries.js";

export type { CacheWarmingAction, CacheWarmingDecision, CacheWarmingPhase };

/** The `cacheWarming` setting: `idle` (pi's default) also warms between runs; `streaming` only during runs. */
export type CacheWarmingMode = "off" | "streaming" | "idle";
/** Every {@link CacheWarmingMode}, in pi's order. */
export const CACHE_WARMING_MODES: readonly CacheWarmingMode[] = ["off", "streaming", "idle"];

/** Extension event fired before each refresh with pi's decision filled in (`pi.on("cache_warming_decision", …)`). */
export interface CacheWarmingDecisionEvent
	extends Pick<CacheWarmingDecision, "warmCost" | "missCost" | "continuationProbability" | "action"> {
	type: "cache_warming_decision";
}

/** What a `cache_warming_decision` handler may return. */
export interface CacheWarmingDecisionEventResult {
	/** Override whether this refresh is sent. "stop" ends warming until the next real request. */
	action?: CacheWarmingAction;
}

/** {@link AgentSession.cacheWarmingStatus}: what the warmer is doing and why. */
export interface CacheWarmingStatus {
	/** "scheduled": a refresh timer is armed; "refreshing": a refresh decision or request is in flight. */
	state: "inactive" | "scheduled" | "refreshing";
	/** Why nothing is scheduled. */
	reason?: string;
	/** When the next refresh decision is due (the warmer's clock, ms). */
	nextWarmAt?: number;
	/** The pending decision, or the decision that stopped warming. */
	decision?: CacheWarmingDecision;
	/** True when an extension changed `decision.action`. */
	extensionOverride?: boolean;
}

/** The request whose prompt cache entry is kept warm, exactly as it was sent. */
export interface CacheWarmRequest {
	model: Model;
	context: Context;
	options: StreamOptions;
}

/** The warmer's timer source: `setTimeout`/`clearTimeout` plus `now()` (XState's `SimulatedClock` fits). */
export interface CacheWarmerClock {
	setTimeout(fn: () => void, timeout: number): unknown;
	clearTimeout(id: unknown): void;
	now(): number;
}

/** The real clock (the warmer unrefs every timer it arms, so none keeps the process alive). */
export const REAL_CACHE_WARMER_CLOCK: CacheWarmerClock = {
	setTimeout: (fn, timeout) => setTimeout(fn, timeout),
	clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
	now: () => Date.now(),
};

/** What the warmer needs from its host session. */
export interface CacheWarmerOptions {
	/** Sends the refresh (the model runtime's stream, not the session Agent's). */
	stream: StreamFn;
	/** Appends the `usage` entry of a refresh; returns its id. */
	appendUsage(kind: string, provider: string, model: string, usage: UsageEntry["usage"], note?: string): string;
	/** The current branch (read at decision time only, for the last request's prompt size). */
	getBranch(): SessionEntry[];
	getEntry(id: string): SessionEntry | undefined;
	/**
	 * The current leaf. When given, a decision walks back from it to the last assistant message
	 * through {@link getEntry} (a few entries) instead of reading the whole branch.
	 */
	getLeafId?(): string | null;
	/** The `cacheWarming` setting, read whenever it matters. */
	getMode(): CacheWarmingMode;
	/** Lets extensions override `event.action`; a rejection falls back to pi's decision. */
	decide?(event: CacheWarmingDecisionEvent): Promise<CacheWarmingAction>;
	/** Default: the real clock (unref'd timers). */
	clock?: CacheWarmerClock;
}

interface Run extends CacheWarmRequest {
	isCurrent: () => boolean;
	ttlMs: number;
	delayMs: number;
	refreshDeadlineAt: number;
	startedAt: number;
	controller: AbortController;
	phase: CacheWarmingPhase;
	nextWarmAt: number;
	extensionOverride: boolean;
	/** The armed timer; undefined while a refresh is in flight. */
	timer: { id: unknown } | undefined;
}

/** The prompt size an entry reports, when it is an assistant message (a real request's answer). */
function promptTokensOf(entry: SessionEntry): number | undefined {
	if (entry.type !== "message" || entry.message.role !== "assistant") return undefined;
	const usage = entry.message.usage;
	return usage.input + usage.cacheRead + usage.cacheWrite;
}

/**
 * Prompt size of the most recent real request on the branch, as reported by the provider: the
 * last assistant message walking back from the leaf (parent links; a cycle in a hand-edited file
 * ends the walk), or from the end of the whole branch when the host gives no leaf.
 */
function lastPromptTokens(host: CacheWarmerOptions): number {
	if (!host.getLeafId) {
		const entries = host.getBranch();
		for (let index = entries.length - 1; index >= 0; index--) {
			const tokens = promptTokensOf(entries[index]!);
			if (tokens !== undefined) return tokens;
		}
		return 0;
	}
	const seen = new Set<string>();
	let id = host.getLeafId();
	while (id && !seen.has(id)) {
		seen.add(id);
		const entry = host.getEntry(id);
		if (!entry) return 0;
		const tokens = promptTokensOf(entry);
		if (tokens !== undefined) return tokens;
		id = entry.parentId;
	}
	return 0;
}

/**
 * Keeps one prompt cache entry alive by re-sending its request with a one-token output cap before
 * the entry expires. `start` replaces any previous run; refreshes never extend the fixed safety
 * windows (one hour from the real request while the agent runs, 30 minutes once it is idle).
 * A session creates one for the Agent it builds; read it through `session.cacheWarmingStatus`.
 *
 * @example
 * ```ts
 * const warmer = new CacheWarmer({
 *   stream: modelRuntime.stream,
 *   appendUsage: (...args) => sessionManager.appendUsage(...args),
 *   getBranch: () => sessionManager.getBranch(),
 *   getEntry: (id) => sessionManager.getEntry(id),
 *   getLeafId: () => sessionManager.getLeafId(),
 *   getMode: () => settingsManager.getCacheWarmingMode(),
 *   clock: new SimulatedClock(),
 * });
 * // After sending a request, with the context and options it was sent with:
 * warmer.start({ model, context: { messages: [] }, options: { sessionId: sessionManager.getSessionId() } }, () => true);
 * warmer.status.state; // "scheduled" (when the model has a promptCache lifetime)
 * ```
 */
export class CacheWarmer {
	/** Called with the persisted usage entry after each successful refresh. */
	onWarmed: ((entry: UsageEntry) => void) | undefined;
	private run: Run | undefined;
	private inactive: CacheWarmingStatus = { state: "inactive", reason: "waiting for first request" };
	private readonly clock: CacheWarmerClock;

	constructor(private readonly host: CacheWarmerOptions) {
		this.clock = host.clock ?? REAL_CACHE_WARMER_CLOCK;
	}

	/** What the warmer is doing now, and the decision inputs behind it. */
	get status(): CacheWarmingStatus {
		if (this.host.getMode() === "off") return { state: "inactive", reason: "cache warming disabled" };
		const run = this.run;
		if (!run) return this.inactive;
		if (!run.isCurrent()) return { state: "inactive", reason: "conversation context changed" };
		const decision = this.evaluate(run);
		const refreshing = run.timer === undefined;
		if (!decision.economicsAvailable && !refreshing) {
			return { state: "inactive", reason: "cache economics unavailable" };
		}
		return {
			state: refreshing ? "refreshing" : "scheduled",
			nextWarmAt: run.nextWarmAt,
			decision,
			extensionOverride: run.extensionOverride,
		};
	}

	/** Keep the prompt cache entry written by `request` warm while `isCurrent` holds. */
	start(request: CacheWarmRequest, isCurrent: () => boolean): void {
		this.clearRun();
		if (this.host.getMode() === "off") {
			this.stop("cache warming disabled");
			return;
		}
		if (!isCacheWarmingReplayable(request.model, request.options)) {
			this.stop("request cannot be replayed safely");
			return;
		}
		const ttlMs = getPromptCacheTtlMs(request.model, request.options);
		if (ttlMs === undefined) {
			this.stop(
				request.options.cacheRetention === "none" ? "request disabled prompt caching" : "cache lifetime unavailable",
			);
			return;
		}
		const delayMs = getCacheWarmingDelayMs(ttlMs);
		if (delayMs === undefined) {
			this.stop("cache lifetime unavailable");
			return;
		}
		this.run = {
			model: request.model,
			context: request.context,
			options: request.options,
			isCurrent,
			ttlMs,
			delayMs,
			refreshDeadlineAt: 0,
			startedAt: this.clock.now(),
			controller: new AbortController(),
			phase: "streaming",
			nextWarmAt: 0,
			extensionOverride: false,
			timer: undefined,
		};
		this.schedule(this.run);
	}

	/** The agent run settled: `streaming` mode stops; `idle` mode continues under the 30-minute idle limit. */
	onAgentSettled(): void {
		const run = this.run;
		if (!run) return;
		if (this.host.getMode() === "streaming") {
			this.stop("agent run settled");
			return;
		}
		run.phase = "idle";
		const deadline = run.startedAt + CACHE_WARMING_MAX_IDLE_AGE_MS;
		if (run.nextWarmAt > deadline || this.clock.now() >= deadline) this.stop("30-minute idle safety limit reached");
	}

	/** Reconcile an active run after the warming mode changed. */
	onModeChanged(): void {
		const run = this.run;
		if (!run) return;
		const reason = this.modeStopReason(run);
		if (reason) this.stop(reason);
	}

	/** Stops warming (timer cleared, an in-flight refresh aborted). */
	cancel(): void {
		this.stop("inactive");
	}

	private clearRun(): void {
		const run = this.run;
		if (!run) return;
		this.run = undefined;
		if (run.timer) this.clock.clearTimeout(run.timer.id);
		run.timer = undefined;
		run.controller.abort();
	}

	private stop(reason: string, stopped?: Pick<CacheWarmingStatus, "decision" | "extensionOverride">): void {
		this.clearRun();
		this.inactive = { state: "inactive", reason, ...stopped };
	}

	private schedule(run: Run): void {
		run.extensionOverride = false;
		const now = this.clock.now();
		run.nextWarmAt = now + run.delayMs;
		// A timer can run late after sleep or event-loop blockage. Keep half of the planned pre-expiry
		// margin for that delay and dispatch; a later refresh would be a full-price cache write.
		run.refreshDeadlineAt = run.nextWarmAt + Math.floor((run.ttlMs - run.delayMs) / 2);
		const deadline = run.startedAt + (run.phase === "idle" ? CACHE_WARMING_MAX_IDLE_AGE_MS : CACHE_WARMING_MAX_AGE_MS);
		if (run.nextWarmAt > deadline || now >= deadline) {
			this.stop(run.phase === "idle" ? "30-minute idle safety limit reached" : "one-hour safety limit reached");
			return;
		}
		const id = this.clock.setTimeout(() => void this.refresh(run), Math.max(0, run.nextWarmAt - now));
		// A pending refresh must never keep the process alive (a Node timer; simulated ids have no unref).
		(id as { unref?: () => void } | null)?.unref?.();
		run.timer = { id };
	}

	private async refresh(run: Run): Promise<void> {
		run.timer = undefined;
		if (!this.validateRun(run) || this.refreshDeadlineMissed(run)) return;
		const decision = this.evaluate(run);
		const { warmCost, missCost, continuationProbability } = decision;
		let action = decision.action;
		try {
			const event: CacheWarmingDecisionEvent = {
				type: "cache_warming_decision",
				warmCost,
				missCost,
				continuationProbability,
				action,
			};
			action = this.host.decide ? await this.host.decide(event) : await event.action;
		} catch {
			// Extension failures fall back to pi's own decision.
		}
		if (!this.validateRun(run) || this.refreshDeadlineMissed(run)) return;
		const extensionOverride = action !== decision.action;
		if (action === "stop") {
			const reason = extensionOverride
				? "stopped by extension"
				: decision.economicsAvailable
					? "expected savings below threshold"
					: "cache economics unavailable";
			this.stop(reason, { decision, extensionOverride });
			return;
		}
		run.extensionOverride = extensionOverride;
		try {
			const options = getCacheWarmingRequestOptions(run.options, run.controller.signal);
			const message = await (await this.host.stream(run.model, run.context, options)).result();
			if (!this.validateRun(run)) return;
			if (message.stopReason !== "error" && message.stopReason !== "aborted") {
				const id = this.host.appendUsage(
					"cache_warm",
					message.provider,
					message.model,
					message.usage,
					extensionOverride ? "extension override" : undefined,
				);
				const entry = this.host.getEntry(id);
				if (entry?.type === "usage") this.onWarmed?.(entry);
			}
		} catch {
			// Warming is best-effort and must not affect the session.
		}
		if (this.run === run) this.schedule(run);
	}

	private refreshDeadlineMissed(run: Run): boolean {
		if (this.clock.now() <= run.refreshDeadlineAt) return false;
		this.stop("cache refresh deadline missed");
		return true;
	}

	private validateRun(run: Run): boolean {
		if (this.run !== run) return false;
		const reason = this.modeStopReason(run) ?? (run.isCurrent() ? undefined : "conversation context changed");
		if (!reason) return true;
		this.stop(reason);
		return false;
	}

	private modeStopReason(run: Run): string | undefined {
		const mode = this.host.getMode();
		if (mode === "off") return "cache warming disabled";
		if (mode === "streaming" && run.phase === "idle") return "agent run settled";
		return undefined;
	}

	private evaluate(run: Run): CacheWarmingDecision {
		return evaluateCacheWarming(run.model, lastPromptTokens(this.host), run.phase);
	}
}

function formatDollars(value: number): string {
	return value < 0 ? `-$${Math.abs(value).toFixed(3)}` : `$${value.toFixed(3)}`;
}

function formatEconomics(decision: CacheWarmingDecision): string {
	if (!decision.economicsAvailable) return "cache economics unavailable";
	const probability = Math.round(decision.continuationProbability * 100);
	const probabilityText =
		decision.phase === "streaming"
			? `${probability}% continuation probability while agent is running`
			: `${probability}% continuation probability`;
	const comparison = decision.action === "warm" ? ">=" : "<";
	return `${probabilityText}, expected savings ${formatDollars(decision.expectedSavings)} ${comparison} $${CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS.toFixed(3)}`;
}

function formatDecisionTime(nextWarmAt: number | undefined, now: number): string {
	if (nextWarmAt === undefined || nextWarmAt <= now) return "Decision now";
	let remainingSeconds = Math.ceil((nextWarmAt - now) / 1000);
	const hours = Math.floor(remainingSeconds / 3600);
	remainingSeconds %= 3600;
	const minutes = Math.floor(remainingSeconds / 60);
	const seconds = remainingSeconds % 60;
	const parts: string[] = [];
	if (hours > 0) parts.push(`${hours}h`);
	if (minutes > 0) parts.push(`${minutes}m`);
	if (seconds > 0 || parts.length === 0) parts.push(`${seconds}s`);
	return `Decision in ${parts.join(" ")}`;
}

/**
 * pi 1.6's one-line text of a {@link CacheWarmingStatus} (its `/session` line); `now` on the
 * warmer's clock.
 *
 * @example
 * ```ts
 * formatCacheWarmingStatus({ state: "inactive", reason: "cache lifetime unavailable" });
 * // "Inactive (cache lifetime unavailable)"
 * formatCacheWarmingStatus(session.cacheWarmingStatus!, Date.now());
 * // e.g. "Decision in 4m 30s (15% continuation probability, expected savings $0.217 >= $0.050 -> warm)"
 * ```
 */
export function formatCacheWarmingStatus(status: CacheWarmingStatus, now: number = Date.now()): string {
	const decision = status.decision;
	// A decision is attached once pi (or an extension) acted on it; "inactive" without one never got that far.
	if (!decision || (status.state === "inactive" && !decision.economicsAvailable && !status.extensionOverride)) {
		return `Inactive (${status.reason ?? "unknown reason"})`;
	}
	const details = status.extensionOverride
		? `extension override, ${formatEconomics(decision)}`
		: `${formatEconomics(decision)} -> ${decision.action}`;
	if (status.state === "inactive") return `Stopped (${details})`;
	if (status.state === "refreshing") return `Warming cache (${details})`;
	return `${formatDecisionTime(status.nextWarmAt, now)} (${details})`;
}
