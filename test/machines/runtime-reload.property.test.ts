/**
 * Property test of the reload machine over random scripts of reload() calls (busy or not), prompts
 * arriving meanwhile, teardown, dispose, step outcomes (done, failed, stuck until the bound) and
 * SimulatedClock advances: every reload() call ends exactly once (finished, refused or cancelled),
 * every held prompt exactly once (released or refused), prompts are released only when no reload
 * runs or waits, a prompt held across a failed reload is never released, reloads never overlap, and
 * once a teardown or dispose reached a reload no further step of it starts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReloadEmitted } from "../../machines/runtime-reload.machine.js";
import { reloadHarness } from "./harness.js";

type Step =
	| { kind: "reload"; busy: boolean }
	| { kind: "prompt" }
	| { kind: "dispose" }
	| { kind: "teardown" }
	| { kind: "step"; result: "done" | "failed" }
	| { kind: "advance"; ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
	{ weight: 3, arbitrary: fc.boolean().map((busy): Step => ({ kind: "reload", busy })) },
	{ weight: 4, arbitrary: fc.constant<Step>({ kind: "prompt" }) },
	{ weight: 1, arbitrary: fc.constant<Step>({ kind: "dispose" }) },
	{ weight: 1, arbitrary: fc.constant<Step>({ kind: "teardown" }) },
	{
		weight: 5,
		arbitrary: fc
			.constantFrom<"done" | "failed">("done", "done", "failed")
			.map((result): Step => ({ kind: "step", result })),
	},
	{ weight: 2, arbitrary: fc.integer({ min: 0, max: 12_000 }).map((ms): Step => ({ kind: "advance", ms })) },
);

const isRunning = (state: string) => state.startsWith("reloading");
const STEP_OF_STATE: Record<string, string> = {
	"reloading.shuttingDown": "shutdownExtensions",
	"reloading.loading": "loadExtensions",
	"reloading.binding": "bindExtensions",
	"reloading.starting": "startExtensions",
};
const STEPS = Object.values(STEP_OF_STATE);
const stepsStarted = (h: ReturnType<typeof reloadHarness>) => STEPS.reduce((n, step) => n + h.fakes.count(step), 0);

describe("reload machine (property): nothing hangs, nothing is lost, nothing runs twice", () => {
	it("holds for random interleavings of reloads, prompts, dispose, step outcomes and time", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 30 }), async (steps) => {
				const h = reloadHarness({ shutdownTimeoutMs: 10_000 });
				const reloads: string[] = [];
				const prompts: string[] = [];
				/** Index into h.emitted when each prompt was held. */
				const heldAt = new Map<string, number>();
				/** The machine's state whenever it released prompts. */
				const statesAtRelease: string[] = [];
				h.actor.on("prompts_released", () => statesAtRelease.push(h.state()));
				let n = 0;
				/** Steps started when a teardown or dispose reached the reload in progress, by request id. */
				const stepsAtStop = new Map<string, number>();
				const noteStop = () => {
					const state = h.state();
					const requestId = h.actor.getSnapshot().context.requestId;
					if (isRunning(state) && requestId !== undefined && !stepsAtStop.has(requestId)) {
						stepsAtStop.set(requestId, stepsStarted(h));
					}
				};
				/** Reloads that went on after a teardown reached them, or were cut off without one. */
				const violations: string[] = [];
				h.actor.on("reload_finished", (event) => {
					const at = stepsAtStop.get(event.requestId);
					// Cut off: not one more step started after the teardown reached it.
					if (at !== undefined && stepsStarted(h) !== at) violations.push(`${event.requestId} went on`);
					if (at === undefined && event.cutOff !== undefined) violations.push(`${event.requestId} cut off`);
				});
				/** Reloads in flight at once, from the step invocations (must never exceed 1). */
				const maxRunning = () => h.fakes.count("shutdownExtensions") - finishedCount(h.emitted);
				const play = async (step: Step) => {
					const state = h.state();
					switch (step.kind) {
						case "reload": {
							if (state === "disposed") return; // reload() on a disposed session rejects before the machine
							const requestId = `r${++n}`;
							reloads.push(requestId);
							await h.send({ type: "RELOAD", requestId, busy: step.busy });
							return;
						}
						case "prompt": {
							if (!h.actor.getSnapshot().can({ type: "HOLD_PROMPT", promptId: "" } as never)) return; // runs at once
							const promptId = `p${++n}`;
							prompts.push(promptId);
							heldAt.set(promptId, h.emitted.length);
							await h.send({ type: "HOLD_PROMPT", promptId });
							return;
						}
						case "dispose":
							noteStop();
							await h.send({ type: "DISPOSE" });
							return;
						case "teardown":
							noteStop();
							await h.send({ type: "TEARDOWN" });
							return;
						case "step": {
							const src = STEP_OF_STATE[state];
							if (!src || !h.fakes.pending(src)) return;
							if (step.result === "done") await h.resolve(src, undefined);
							else await h.reject(src, new Error(`${src} failed`));
							return;
						}
						case "advance":
							await h.advance(step.ms);
							return;
					}
				};
				for (const step of steps) {
					await play(step);
					expect(maxRunning()).toBeLessThanOrEqual(1);
				}
				// Drain: every step that is still running finishes; nothing may be left waiting.
				for (let i = 0; i < 5 * reloads.length + 5 && isRunning(h.state()); i++) {
					await play({ kind: "step", result: "done" });
				}
				const final = h.state();
				expect(final === "idle" || final === "disposed").toBe(true);
				checkAccounting(h.emitted, reloads, heldAt);
				expect(violations).toEqual([]);
				// Released only once no reload runs or waits.
				expect(statesAtRelease.every((state) => state === "idle")).toBe(true);
			}),
			{ numRuns: 300 },
		);
	});
});

function finishedCount(emitted: ReloadEmitted[]): number {
	return emitted.filter((e) => e.type === "reload_finished").length;
}

function checkAccounting(emitted: ReloadEmitted[], reloads: string[], heldAt: Map<string, number>): void {
	const reloadEnds = new Map<string, number>();
	const promptEnds = new Map<string, number>();
	const count = (map: Map<string, number>, id: string) => map.set(id, (map.get(id) ?? 0) + 1);
	/** Prompts that were held when a reload failed: they must be refused, never released. */
	const heldAcrossFailure = new Set<string>();
	for (const [index, event] of emitted.entries()) {
		switch (event.type) {
			case "reload_finished":
				count(reloadEnds, event.requestId);
				if (event.error !== undefined) {
					for (const [id, at] of heldAt) if (at <= index && !promptEnds.has(id)) heldAcrossFailure.add(id);
				}
				break;
			case "reload_refused":
				count(reloadEnds, event.requestId);
				break;
			case "reloads_cancelled":
				for (const id of event.requestIds) count(reloadEnds, id);
				break;
			case "prompts_released":
				for (const id of event.promptIds) {
					count(promptEnds, id);
					expect(heldAcrossFailure.has(id), `${id} released after its reload failed`).toBe(false);
				}
				break;
			case "prompts_refused":
				for (const id of event.promptIds) count(promptEnds, id);
				break;
			default:
				break;
		}
	}
	for (const id of reloads) expect(reloadEnds.get(id), `reload ${id}`).toBe(1);
	for (const id of heldAt.keys()) expect(promptEnds.get(id), `prompt ${id}`).toBe(1);
}
