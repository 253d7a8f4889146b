/**
 * A reload overtaken by its runtime's replacement or dispose at each of its points — during its
 * `session_shutdown` dispatch, while its extensions load, during the host's `beforeSessionStart`,
 * during `session_start` — with the old extensions' `session_shutdown` handler fast, slow (3 s) or
 * stuck; the held step goes on at a moment `fc.scheduler` picks, at once or only after the
 * teardown's 2 s settle bound ran out; time on a SimulatedClock moves only when nothing else can.
 * Each run overtakes the reload at its point by construction: the step is held until the teardown
 * reached the reload (the runtime's `settlingCurrent`). Then: every call settles within the bounds;
 * the reload is cut off (`SESSION_CLOSED`), or reloaded when overtaken during `session_start` (its
 * last step); each extension instance hears `session_shutdown` at most once, and exactly once if it
 * heard `session_start`, once the runtime is disposed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider } from "../../src/llm/faux.js";

import { createWorkspace, inlineExtensionFactory, startRuntime } from "./helpers.js";

type Point = "shutdown" | "load" | "bind" | "start";
const POINTS: Point[] = ["shutdown", "load", "bind", "start"];

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("a reload overtaken by a replacement or dispose at any point", () => {
	// One property per point: each point is overtaken in every one of its runs (by construction).
	it.each(POINTS)(
		"during %s: every call settles within the bounds; each extension instance hears session_shutdown at most once, once if it started",
		async (at) => {
			let overtaken = 0;
			await fc.assert(
				fc.asyncProperty(
					fc.scheduler(),
					fc.constantFrom<"new" | "dispose">("new", "dispose"),
					fc.constantFrom<"fast" | "slow" | "stuck">("fast", "slow", "stuck"),
					fc.boolean(),
					async (s, teardown, oldShutdown, pastSettleBound) => {
						const ws = createWorkspace();
						const clock = new SimulatedClock();
						clock.set(0);
						const instances: { started: number; shutdowns: string[] }[] = [];
						/** Set once the reload is held at `at`. */
						let held = false;
						let reloadRunning = false;
						let teardownReached!: () => void;
						const reached = new Promise<void>((resolve) => (teardownReached = resolve));
						/** Holds the reload at `at` until the teardown reached it, then until the scheduler lets it go on. */
						const holdHere = async (point: Point) => {
							if (point !== at || !reloadRunning) return;
							held = true;
							await reached;
							if (pastSettleBound) await new Promise<void>((resolve) => clock.setTimeout(resolve, 2_500));
							await s.schedule(Promise.resolve(), `reload goes on after ${point}`);
						};
						const extension = async (pi: ExtensionAPI) => {
							const heard = { started: 0, shutdowns: [] as string[] };
							const generation = instances.push(heard);
							pi.on("session_start", async (event) => {
								heard.started++;
								if (event.reason === "reload") await holdHere("start");
							});
							pi.on("session_shutdown", async (event) => {
								heard.shutdowns.push(event.reason);
								if (generation !== 1 || event.reason !== "reload") return;
								await holdHere("shutdown");
								if (oldShutdown === "stuck") await new Promise<void>(() => {});
								if (oldShutdown === "slow") await new Promise<void>((resolve) => clock.setTimeout(resolve, 3_000));
							});
							if (reloadRunning) await holdHere("load");
						};
						const faux = createFauxProvider();
						const rec = inlineExtensionFactory(faux, extension, clock);
						const runtime = await startRuntime(rec.factory, ws, ws.alpha);
						const settled: Record<string, boolean> = { reload: false, teardown: false, dispose: false };
						const beforeTeardown = new Set(["active", "beforeSwitch", "opening", "creating"]);
						const drive = async (until: () => boolean) => {
							// The schedule decides what goes on when; the clock moves only when nothing else can.
							for (let moves = 0; !until() && moves < 40; ) {
								if (!beforeTeardown.has(runtime.lifecycle)) teardownReached();
								if (s.count() > 0) await s.waitOne();
								else {
									for (let i = 0; i < 5; i++) await tick();
									if (s.count() === 0 && !until()) {
										clock.increment(1_000);
										moves++;
									}
								}
							}
						};
						try {
							reloadRunning = true;
							const reloading = runtime.session
								.reload({ beforeSessionStart: () => holdHere("bind") })
								.then(
									() => undefined,
									(error: unknown) => error,
								)
								.finally(() => (settled.reload = true));
							// A slow or stuck old handler holds the reload until its bound: time moves.
							await drive(() => held);
							expect(held, `the reload is held at ${at}`).toBe(true);
							reloadRunning = false;
							overtaken++;
							const tearingDown = (teardown === "new" ? runtime.newSession() : runtime.dispose()).finally(
								() => (settled.teardown = true),
							);
							// 2 s settle + 10 s shutdown bound, and the slow handler's 3 s, with room to spare: 40 s.
							await drive(() => settled.reload && settled.teardown);
							expect(settled, "the reload and the teardown settled within the bounds").toMatchObject({
								reload: true,
								teardown: true,
							});
							await tearingDown;
							const outcome = await reloading;
							// Cut off after the step it was held in; overtaken during session_start, its last step, it reloaded.
							if (at === "start") expect(outcome).toBeUndefined();
							else expect(outcome).toMatchObject({ code: "SESSION_CLOSED" });
							const disposing = runtime.dispose().finally(() => (settled.dispose = true));
							await drive(() => settled.dispose);
							expect(settled.dispose, "dispose settled within the bounds").toBe(true);
							await disposing;
						} finally {
							ws.cleanup();
						}
						for (const [index, heard] of instances.entries()) {
							const label = `g${index + 1}: started ${heard.started}, shutdown ${heard.shutdowns.join(",")}`;
							expect(heard.shutdowns.length, label).toBeLessThanOrEqual(1);
							if (heard.started > 0) expect(heard.shutdowns.length, label).toBe(1);
						}
					},
				),
				{ numRuns: 12 },
			);
			expect(overtaken).toBe(12);
		},
	);
});
