/**
 * Cache warming over random interleavings of prompts (some held in a tool call so the run stays
 * active while time passes), clock advances, mode changes and dispose, on the session's
 * SimulatedClock. Checked at every refresh the provider receives:
 *
 * 1. the session is not disposed and the mode is not `off`;
 * 2. it is the latest real request, byte for byte, with pi's one-token options;
 * 3. it comes at least pi's refresh delay (270 s for a 300 s cache) after that request;
 * 4. in `streaming` mode it only comes while a run is active (pi 1.6 does warm during an active
 *    run: that is what the `streaming` profile is for; `idle` also warms between runs).
 *
 * And after every fast prompt settles: in `idle` mode the next refresh is scheduled 270 s after the
 * last request; in the other modes nothing is scheduled. At the end of a run not disposed, `idle`
 * mode refreshes a run held in a tool and, once it settles, its last request (liveness).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AssistantMessage, Model } from "../../src/llm/types.js";
import type { CacheWarmingMode } from "../../src/session/cache-warmer.js";
import {
	drainMicrotasks,
	expectedWarmOptions,
	type RecordedRequest,
	WARM_DELAY_MS,
	warmSession,
} from "./cache-warming-helpers.js";

type Action =
	| { kind: "prompt"; slow: boolean }
	| { kind: "release" }
	| { kind: "advance"; ms: number; jump: boolean }
	| { kind: "mode"; mode: CacheWarmingMode }
	| { kind: "dispose" };

const STEP_MS = 5_000;
const modeArb = fc.constantFrom<CacheWarmingMode>("off", "streaming", "idle");
const actionArb: fc.Arbitrary<Action> = fc.oneof(
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant("prompt" as const), slow: fc.boolean() }) },
	{ weight: 2, arbitrary: fc.constant({ kind: "release" as const }) },
	{
		weight: 5,
		arbitrary: fc.record({
			kind: fc.constant("advance" as const),
			ms: fc.oneof(fc.integer({ min: 1, max: 400_000 }), fc.constantFrom(WARM_DELAY_MS - 1, WARM_DELAY_MS)),
			// A jump is a sleeping laptop: a refresh due meanwhile fires late and pi drops it.
			jump: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("mode" as const), mode: modeArb }) },
	{ weight: 1, arbitrary: fc.constant({ kind: "dispose" as const }) },
);

const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("cache warming (property)", () => {
	it("refreshes only the latest request, only after pi's delay, never when off or after dispose", async () => {
		// Refreshes the random part reached (the liveness tail alone guarantees both kinds).
		let idleRefreshes = 0;
		let activeRefreshes = 0;
		await fc.assert(
			fc.asyncProperty(modeArb, fc.array(actionArb, { maxLength: 25 }), async (initialMode, actions) => {
				const violations: string[] = [];
				const replies: ("tool" | "ok")[] = [];
				let mode = initialMode;
				let disposed = false;
				let lastReal: RecordedRequest | undefined;
				let release: (() => void) | undefined;
				let entered: (() => void) | undefined;
				const slow: AgentTool = {
					name: "slow",
					label: "slow",
					description: "waits for the test",
					parameters: { type: "object", properties: {} } as never,
					execute: () =>
						new Promise((resolve) => {
							release = () => resolve({ content: [{ type: "text", text: "done" }], details: undefined });
							entered?.();
						}),
				};
				const stamp = (message: AssistantMessage, model: Model): AssistantMessage => ({
					...message,
					api: model.api,
					provider: model.provider,
					model: model.id,
				});
				const env = await warmSession({
					mode,
					tools: [slow],
					answerReal: (request, model) => {
						lastReal = request;
						return stamp(
							replies.shift() === "tool"
								? fauxAssistantMessage(fauxToolCall("slow", {}), { stopReason: "toolUse" })
								: fauxAssistantMessage("ok"),
							model,
						);
					},
					answerWarm: (warm, model) => {
						if (disposed) violations.push("refresh after dispose");
						if (mode === "off") violations.push("refresh with mode off");
						if (!lastReal) violations.push("refresh before any request");
						else {
							if (warm.context !== lastReal.context) violations.push("refresh of a stale prompt");
							if (JSON.stringify(warm.options) !== JSON.stringify(expectedWarmOptions(lastReal))) {
								violations.push(`refresh options differ: ${JSON.stringify(warm.options)}`);
							}
							if (warm.at - lastReal.at < WARM_DELAY_MS)
								violations.push(`refresh ${warm.at - lastReal.at} ms after the request`);
						}
						if (mode === "streaming" && !env.session.isStreaming) violations.push("idle refresh in streaming mode");
						if (env.session.isStreaming) activeRefreshes++;
						else idleRefreshes++;
						return stamp(fauxAssistantMessage(""), model);
					},
				});
				cleanups.push(() => env.cleanup());
				let running: Promise<void> | undefined;
				const advanceLive = async (ms: number) => {
					// A live timer: time passes in steps well inside pi's 15 s late-refresh margin.
					for (let left = ms; left > 0; left -= STEP_MS) {
						env.clock.increment(Math.min(STEP_MS, left));
						await drainMicrotasks();
					}
				};
				const startSlow = async () => {
					replies.push("tool", "ok");
					const inTool = new Promise<void>((resolve) => {
						entered = resolve;
					});
					running = env.session.prompt("slow one");
					await inTool;
				};
				const finishSlow = async () => {
					release!();
					await running;
					running = undefined;
					release = undefined;
				};
				for (const action of actions) {
					switch (action.kind) {
						case "prompt": {
							if (disposed || running) break;
							if (action.slow) await startSlow();
							else {
								replies.push("ok");
								await env.session.prompt("fast one");
								const status = env.session.cacheWarmingStatus!;
								if (mode === "idle") {
									expect(status).toMatchObject({ state: "scheduled", nextWarmAt: lastReal!.at + WARM_DELAY_MS });
								} else {
									expect(status.state).toBe("inactive");
								}
							}
							break;
						}
						case "release":
							if (running) await finishSlow();
							break;
						case "advance":
							if (action.jump) {
								env.clock.increment(action.ms);
								await drainMicrotasks();
								break;
							}
							await advanceLive(action.ms);
							break;
						case "mode":
							if (disposed) break;
							mode = action.mode;
							env.session.setCacheWarmingMode(mode);
							break;
						case "dispose":
							if (disposed) break;
							disposed = true;
							env.session.dispose();
							running?.catch(() => undefined);
							running = undefined;
							release?.();
							break;
					}
				}
				if (running) await finishSlow();
				if (!disposed) {
					// Liveness, whatever came before: in `idle` mode a run held in a tool for 270 s gets
					// its request refreshed, and once it settles its last request is refreshed again.
					mode = "idle";
					env.session.setCacheWarmingMode(mode);
					await startSlow();
					const before = env.warmRequests().length;
					await advanceLive(WARM_DELAY_MS);
					expect(env.warmRequests()).toHaveLength(before + 1);
					await finishSlow();
					await advanceLive(WARM_DELAY_MS);
					expect(env.warmRequests()).toHaveLength(before + 2);
				}
				env.clock.increment(2 * 60 * 60_000);
				await drainMicrotasks();
				expect(violations).toEqual([]);
			}),
			{ numRuns: 60 },
		);
		expect(idleRefreshes).toBeGreaterThan(0);
		expect(activeRefreshes).toBeGreaterThan(0);
	});
});
