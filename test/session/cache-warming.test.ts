/**
 * Prompt-cache warming through the public API (pi 1.6's CacheWarmer): after a run settles the
 * session re-sends its last request with a one-token cap at 90% of the cache lifetime, while pi's
 * cost model (or a `cache_warming_decision` handler) says so; each refresh is a `usage` entry.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { formatCacheWarmingStatus } from "../../src/session/cache-warmer.js";
import { modelRegistryView } from "../../src/session/model-registry-view.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import type { UsageEntry } from "../../src/store/entries.js";
import {
	CHEAP_COST,
	drainMicrotasks,
	expectedWarmOptions,
	PROMPT_TOKENS,
	type RecordedRequest,
	WARM_DELAY_MS,
	warmSession,
} from "./cache-warming-helpers.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
type Env = Awaited<ReturnType<typeof warmSession>>;
const envs: Env[] = [];
async function setup(options: Parameters<typeof warmSession>[0] = {}): Promise<Env> {
	const env = await warmSession(options);
	envs.push(env);
	return env;
}
afterEach(() => {
	for (const env of envs.splice(0)) env.cleanup();
});

/** Advances to the next refresh and waits for its usage entry. */
async function warmOnce(env: Env, ms = WARM_DELAY_MS) {
	const appended = env.nextEvent("entry_appended");
	env.clock.increment(ms);
	return (await appended).entry as UsageEntry;
}

function expectWarmOf(warm: RecordedRequest, real: RecordedRequest) {
	// The prompt (what the provider's cache is keyed on) is the same bytes.
	expect(warm.context).toBe(real.context);
	expect(JSON.parse(warm.json).model).toEqual(JSON.parse(real.json).model);
	expect(warm.options).toEqual(expectedWarmOptions(real));
}

// pi's numbers for a 1,000,010-token prompt at Sonnet prices (cache-warming.js evaluateCacheWarming).
const PROMPT = PROMPT_TOKENS + 10;
const WARM_COST = (0.3 / 1e6) * PROMPT + 15 / 1e6;
const MISS_COST = (3.75 * PROMPT) / 1e6 - (0.3 / 1e6) * PROMPT;

describe("cache warming", () => {
	it("defaults to pi 1.6's `idle` mode, read from the global settings only", () => {
		expect(SettingsManager.inMemory().getCacheWarmingMode()).toBe("idle");
		expect(SettingsManager.inMemory({ cacheWarming: "streaming" }).getCacheWarmingMode()).toBe("streaming");
		expect(SettingsManager.inMemory({}, { project: { cacheWarming: "off" } }).getCacheWarmingMode()).toBe("idle");
	});

	it("re-sends the last request byte for byte with a one-token cap at 90% of the cache lifetime", async () => {
		const env = await setup();
		expect(env.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "waiting for first request" });
		await env.session.prompt("hello");
		const [real] = env.realRequests();
		expect(real!.at).toBe(0);
		const transcriptLength = env.session.messages.length;
		const status = env.session.cacheWarmingStatus!;
		expect(status).toMatchObject({ state: "scheduled", nextWarmAt: WARM_DELAY_MS, extensionOverride: false });
		expect(status.decision).toMatchObject({ phase: "idle", continuationProbability: 0.15, action: "warm" });
		expect(status.decision!.warmCost).toBeCloseTo(WARM_COST, 12);
		expect(status.decision!.missCost).toBeCloseTo(MISS_COST, 12);
		expect(formatCacheWarmingStatus(status, 0)).toBe(
			"Decision in 4m 30s (15% continuation probability, expected savings $0.217 >= $0.050 -> warm)",
		);

		env.clock.increment(WARM_DELAY_MS - 1);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(0);
		const entry = await warmOnce(env, 1);
		const [warm] = env.warmRequests();
		expect(warm!.at).toBe(WARM_DELAY_MS);
		expectWarmOf(warm!, real!);
		expect(entry).toMatchObject({ type: "usage", kind: "cache_warm", provider: "warm", model: "warm-1" });
		expect(entry.usage.cacheRead).toBe(PROMPT_TOKENS);
		expect(entry.note).toBeUndefined();
		// Outside the transcript: a refresh adds nothing the next real request would send.
		expect(env.session.messages).toHaveLength(transcriptLength);
		expect(env.session.cacheWarmingStatus).toMatchObject({ state: "scheduled", nextWarmAt: 2 * WARM_DELAY_MS });
	});

	it("keeps refreshing until pi's 30-minute idle limit stops it", async () => {
		const env = await setup();
		await env.session.prompt("hello");
		for (let index = 1; index <= 6; index++) await warmOnce(env);
		// The 7th decision would be at 1,890 s, past 30 minutes after the real request.
		expect(env.warmRequests().map((request) => request.at)).toEqual([1, 2, 3, 4, 5, 6].map((n) => n * WARM_DELAY_MS));
		expect(env.session.cacheWarmingStatus).toEqual({
			state: "inactive",
			reason: "30-minute idle safety limit reached",
		});
		env.clock.increment(60 * 60_000);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(6);
	});

	it("a refresh whose timer fires more than half the margin late (a sleeping laptop) is dropped", async () => {
		const env = await setup();
		await env.session.prompt("hello");
		// 300 s cache, refresh at 270 s: half of the 30 s margin is the latest a refresh is still sent.
		env.clock.increment(WARM_DELAY_MS + 15_001);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(0);
		expect(env.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "cache refresh deadline missed" });

		const onTime = await setup();
		await onTime.session.prompt("hello");
		await warmOnce(onTime, WARM_DELAY_MS + 15_000);
		expect(onTime.warmRequests()).toHaveLength(1);
	});

	it("sends nothing when expected savings are below $0.05 and says why", async () => {
		const env = await setup({ cost: CHEAP_COST });
		await env.session.prompt("hello");
		expect(env.session.cacheWarmingStatus).toMatchObject({ state: "scheduled", decision: { action: "stop" } });
		env.clock.increment(WARM_DELAY_MS);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(0);
		expect(env.session.cacheWarmingStatus).toMatchObject({
			state: "inactive",
			reason: "expected savings below threshold",
			extensionOverride: false,
			decision: { action: "stop", phase: "idle" },
		});
	});

	it("a model without a cache lifetime, or mode off, never schedules anything", async () => {
		const noLifetime = await setup({ promptCache: null });
		await noLifetime.session.prompt("hello");
		expect(noLifetime.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "cache lifetime unavailable" });
		const off = await setup({ mode: "off" });
		await off.session.prompt("hello");
		expect(off.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "cache warming disabled" });
		for (const env of [noLifetime, off]) {
			env.clock.increment(2 * 60 * 60_000);
			await drainMicrotasks();
			expect(env.warmRequests()).toHaveLength(0);
			expect(env.events.filter((event) => event.type === "entry_appended")).toHaveLength(0);
		}
	});

	it("`cache_warming_decision` handlers see pi's decision; `stop` ends warming and is reported as an override", async () => {
		const seen: unknown[] = [];
		const env = await setup({
			extensionFactories: [
				(pi) => {
					pi.on("cache_warming_decision", (event) => {
						seen.push(event);
						return seen.length === 2 ? { action: "stop" } : undefined;
					});
				},
			],
		});
		await env.session.prompt("hello");
		await warmOnce(env);
		env.clock.increment(WARM_DELAY_MS);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(1);
		expect(seen).toHaveLength(2);
		expect(seen[0]).toEqual({
			type: "cache_warming_decision",
			warmCost: expect.closeTo(WARM_COST, 12),
			missCost: expect.closeTo(MISS_COST, 12),
			continuationProbability: 0.15,
			action: "warm",
		});
		expect(formatCacheWarmingStatus(env.session.cacheWarmingStatus!)).toBe(
			"Stopped (extension override, 15% continuation probability, expected savings $0.217 >= $0.050)",
		);
		expect(env.session.cacheWarmingStatus).toMatchObject({
			state: "inactive",
			reason: "stopped by extension",
			extensionOverride: true,
			decision: { action: "warm" },
		});
	});

	it("a handler can force a refresh pi would skip; the usage entry notes the override", async () => {
		let statusDuringRefresh: unknown;
		const env = await setup({
			cost: CHEAP_COST,
			extensionFactories: [(pi) => pi.on("cache_warming_decision", () => ({ action: "warm" }))],
			answerWarm: (_request, model) => {
				statusDuringRefresh = env.session.cacheWarmingStatus;
				return { ...fauxAssistantMessage(""), api: model.api, provider: model.provider, model: model.id };
			},
		});
		await env.session.prompt("hello");
		const entry = await warmOnce(env);
		expect(entry.note).toBe("extension override");
		expect(statusDuringRefresh).toMatchObject({
			state: "refreshing",
			extensionOverride: true,
			decision: { action: "stop" },
		});
		expect(env.session.cacheWarmingStatus).toMatchObject({ state: "scheduled", extensionOverride: false });
	});

	it("a throwing handler is reported and pi's own decision applies", async () => {
		const env = await setup({
			extensionFactories: [
				(pi) =>
					pi.on("cache_warming_decision", () => {
						throw new Error("policy service down");
					}),
			],
		});
		await env.session.prompt("hello");
		await warmOnce(env);
		expect(env.warmRequests()).toHaveLength(1);
		expect(env.extensionErrors.map((error) => [error.event, error.error])).toEqual([
			["cache_warming_decision", "policy service down"],
		]);
	});

	it("a new real request replaces the warmed one and restarts the timer", async () => {
		const env = await setup();
		await env.session.prompt("first");
		env.clock.increment(100_000);
		await env.session.prompt("second");
		const second = env.realRequests()[1]!;
		expect(env.session.cacheWarmingStatus).toMatchObject({ nextWarmAt: 100_000 + WARM_DELAY_MS });
		env.clock.increment(WARM_DELAY_MS - 1);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(0);
		await warmOnce(env, 1);
		expect(env.warmRequests()).toHaveLength(1);
		expectWarmOf(env.warmRequests()[0]!, second);
	});

	it("dispose cancels a scheduled refresh and an in-flight one; nothing is sent or recorded afterwards", async () => {
		const scheduled = await setup();
		await scheduled.session.prompt("hello");
		scheduled.session.dispose();
		scheduled.clock.increment(2 * 60 * 60_000);
		await drainMicrotasks();
		expect(scheduled.warmRequests()).toHaveLength(0);

		let release: (() => void) | undefined;
		const inFlight = await setup({
			answerWarm: (_request, model) =>
				new Promise((resolve) => {
					release = () =>
						resolve({ ...fauxAssistantMessage(""), api: model.api, provider: model.provider, model: model.id });
				}),
		});
		await inFlight.session.prompt("hello");
		const entriesBefore = inFlight.sessionManager.getEntries().length;
		inFlight.clock.increment(WARM_DELAY_MS);
		await drainMicrotasks();
		const [warm] = inFlight.warmRequests();
		expect(inFlight.session.cacheWarmingStatus).toMatchObject({ state: "refreshing" });
		inFlight.session.dispose();
		expect(warm!.signal?.aborted).toBe(true);
		release!();
		await drainMicrotasks();
		inFlight.clock.increment(2 * 60 * 60_000);
		await drainMicrotasks();
		expect(inFlight.warmRequests()).toHaveLength(1);
		expect(inFlight.sessionManager.getEntries()).toHaveLength(entriesBefore);
	});

	it("the usage entry is written to the session's JSONL file and emitted as entry_appended", async () => {
		const env = await setup({ persistence: "disk" });
		await env.session.prompt("hello");
		const entry = await warmOnce(env);
		const lines = readFileSync(env.sessionManager.getSessionFile()!, "utf8").trim().split("\n");
		const written = JSON.parse(lines[lines.length - 1]!);
		expect(written).toEqual(JSON.parse(JSON.stringify(entry)));
		expect(written).toMatchObject({ type: "usage", kind: "cache_warm", provider: "warm", model: "warm-1" });
		expect(env.events.filter((event) => event.type === "entry_appended").map((event) => event.entry)).toEqual([entry]);
	});

	it("mode `streaming` warms only while the run is active; switching modes reconciles at once", async () => {
		let release: (() => void) | undefined;
		let entered!: () => void;
		const inTool = new Promise<void>((resolve) => {
			entered = resolve;
		});
		const slowTool: AgentTool = {
			name: "slow",
			label: "slow",
			description: "waits",
			parameters: { type: "object", properties: {} } as never,
			execute: () =>
				new Promise((resolve) => {
					release = () => resolve({ content: [{ type: "text", text: "done" }], details: undefined });
					entered();
				}),
		};
		let calls = 0;
		const env = await setup({
			mode: "streaming",
			tools: [slowTool],
			answerReal: (_request, model) => ({
				...(calls++ === 0
					? fauxAssistantMessage(fauxToolCall("slow", {}), { stopReason: "toolUse" })
					: fauxAssistantMessage("ok")),
				api: model.api,
				provider: model.provider,
				model: model.id,
			}),
		});
		const done = env.session.prompt("run the slow tool");
		await inTool;
		// The tool runs for 10 minutes: the request's cache entry is refreshed meanwhile (continuation probability 1).
		expect(env.session.cacheWarmingStatus).toMatchObject({
			state: "scheduled",
			decision: { phase: "streaming", continuationProbability: 1 },
		});
		await warmOnce(env);
		expectWarmOf(env.warmRequests()[0]!, env.realRequests()[0]!);
		release!();
		await done;
		expect(env.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "agent run settled" });
		env.clock.increment(60 * 60_000);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(1);

		env.session.setCacheWarmingMode("idle");
		expect(env.session.settingsManager.getCacheWarmingMode()).toBe("idle");
		await env.session.prompt("again");
		expect(env.session.cacheWarmingStatus).toMatchObject({ state: "scheduled" });
		env.session.setCacheWarmingMode("streaming");
		expect(env.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "agent run settled" });
		await env.session.prompt("once more");
		env.session.setCacheWarmingMode("off");
		expect(env.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "cache warming disabled" });
		env.clock.increment(60 * 60_000);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(1);
	});

	it("a compaction's summary request is not warmed, and the compacted context is not the warmed prompt", async () => {
		const env = await setup({ settings: { compaction: { keepRecentTokens: 1 } } });
		await env.session.prompt("first");
		await env.session.prompt("second");
		const sessionRequests = env.realRequests().length;
		await env.session.compact();
		const summary = env.realRequests()[sessionRequests]!;
		expect(summary.options.sessionId).toBeUndefined();
		expect(env.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "conversation context changed" });
		env.clock.increment(WARM_DELAY_MS);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(0);
		// The next real request is warmed again.
		await env.session.prompt("third");
		await warmOnce(env);
		expectWarmOf(env.warmRequests()[0]!, env.realRequests().at(-1)!);
	});

	it("switching the model makes the warmed request stale: no refresh is sent", async () => {
		const env = await setup();
		await env.session.prompt("hello");
		await env.session.setModel(env.other, { persist: false });
		expect(env.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "conversation context changed" });
		env.clock.increment(WARM_DELAY_MS);
		await drainMicrotasks();
		expect(env.warmRequests()).toHaveLength(0);
		expect(env.session.cacheWarmingStatus).toEqual({ state: "inactive", reason: "conversation context changed" });
	});

	it("status goes inactive → scheduled → refreshing → scheduled, with pi's reasons", async () => {
		const seen: unknown[] = [];
		const env = await setup({
			answerReal: (_request, model) => {
				queueMicrotask(() => seen.push(env.session.cacheWarmingStatus));
				return { ...fauxAssistantMessage("ok"), api: model.api, provider: model.provider, model: model.id };
			},
			answerWarm: (_request, model) => {
				seen.push(env.session.cacheWarmingStatus);
				return { ...fauxAssistantMessage(""), api: model.api, provider: model.provider, model: model.id };
			},
		});
		seen.push(env.session.cacheWarmingStatus);
		await env.session.prompt("hello");
		seen.push(env.session.cacheWarmingStatus);
		await warmOnce(env);
		seen.push(env.session.cacheWarmingStatus);
		const summary = (seen as { state: string; reason?: string; decision?: { phase: string } }[]).map((status) => [
			status.state,
			status.reason ?? status.decision?.phase,
		]);
		expect(summary).toEqual([
			["inactive", "waiting for first request"],
			// While the first request runs, the branch has no reply yet: the prompt size is unknown.
			["inactive", "cache economics unavailable"],
			["scheduled", "idle"],
			["refreshing", "idle"],
			["scheduled", "idle"],
		]);
	});

	it("a provider an extension registers keeps its models' cache lifetimes (pi 1.6's `promptCache`)", () => {
		const runtime = new InMemoryModelRuntime();
		modelRegistryView(runtime).registerProvider?.("proxy", {
			baseUrl: "http://localhost:1",
			apiKey: "key",
			api: "anthropic-messages",
			streamSimple: () => undefined,
			models: [
				{ id: "cached", name: "Cached", promptCache: { short: 300, long: 3600 } },
				{ id: "uncached", name: "Uncached" },
			],
		});
		expect(runtime.getModel("proxy", "cached")?.promptCache).toEqual({ short: 300, long: 3600 });
		expect(runtime.getModel("proxy", "uncached")).not.toHaveProperty("promptCache");
	});

	it("a scheduled refresh on the real clock does not keep the process alive", () => {
		// A real child process: prompt once with a warmable model, leave the session undisposed, and
		// end the script. The refresh is due in 270 s; the process must exit now regardless.
		const dir = mkdtempSync(join(tmpdir(), "settle-warm-exit-"));
		const program = join(dir, "warm-exit.mts");
		const helpers = pathToFileURL(join(ROOT, "test/session/cache-warming-helpers.ts")).href;
		writeFileSync(
			program,
			[
				`import { warmSession } from ${JSON.stringify(helpers)};`,
				// In the test's folder: the script ends without cleanup() (that is the point), which would leave its own.
				`const env = await warmSession({ realClock: true, dir: ${JSON.stringify(dir)} });`,
				'await env.session.prompt("hello");',
				"console.log(JSON.stringify(env.session.cacheWarmingStatus));",
			].join("\n"),
		);
		try {
			const started = Date.now();
			const result = spawnSync(process.execPath, ["--import", "tsx", program], {
				cwd: ROOT,
				encoding: "utf8",
				// It exits in about a second; a held timer would keep it for 270 s.
				timeout: 30_000,
			});
			expect(result.stderr).toBe("");
			expect(result.signal).toBeNull();
			expect(result.status).toBe(0);
			const status = JSON.parse(result.stdout.trim().split("\n").pop()!);
			expect(status).toMatchObject({ state: "scheduled", decision: { action: "warm" } });
			expect(status.nextWarmAt - started).toBeGreaterThan(WARM_DELAY_MS - 60_000);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
