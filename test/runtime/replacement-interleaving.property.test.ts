/**
 * Invariant 10 (DESIGN §8) under interleavings: replacements (new, new with a failing setup, fork,
 * switch into another project), prompts on whatever session is current, and `dispose()` are issued
 * at random moments while extension handlers (`session_before_switch`, `session_before_fork`,
 * `session_shutdown`, `session_start`), the model and `withSession` callbacks all wait on
 * `fc.scheduler`. Every call settles; a replacement either completes or is refused (`BUSY` while
 * another runs, `SESSION_CLOSED` once disposed) or fails before its commit point and leaves the
 * session in place; a prompt caught by a replacement ends; at the end the slot holds one usable
 * session whose cwd is the runtime's, every other session built is stopped, and the only lock left
 * is the current file's (none after `dispose()`).
 */
import { existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";

import {
	assertUsable,
	createWorkspace,
	inlineExtensionFactory,
	locksUnder,
	recordOutcome,
	startRuntime,
} from "./helpers.js";

type Action = "new" | "newFailingSetup" | "fork" | "switch" | "prompt" | "dispose";
const actionArb = fc.constantFrom<Action>("new", "newFailingSetup", "fork", "switch", "prompt", "prompt", "dispose");

interface Outcome {
	action: Action;
	settled: boolean;
	error?: unknown;
	skipped?: boolean;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("invariant 10 under interleavings", () => {
	it("replacements, prompts and dispose at random moments never leave a mixed or unusable slot", async () => {
		const seen = { completed: 0, busy: 0, failedBeforeCommit: 0 };
		await fc.assert(
			fc.asyncProperty(fc.scheduler(), fc.array(actionArb, { minLength: 1, maxLength: 5 }), async (s, actions) => {
				const ws = createWorkspace();
				const faux = createFauxProvider();
				// Only while the actions run: setup and cleanup go straight through.
				let live = false;
				const waitOnScheduler = (label: string): Promise<unknown> =>
					live ? s.schedule(Promise.resolve(), label) : Promise.resolve();
				const delayedExtension = (pi: ExtensionAPI) => {
					for (const type of ["session_before_switch", "session_before_fork", "session_shutdown", "session_start"]) {
						pi.on(type as "session_start", async () => {
							await waitOnScheduler(type);
						});
					}
				};
				const rec = inlineExtensionFactory(faux, delayedExtension);
				const beta = await startRuntime(rec.factory, ws, ws.beta);
				await assertUsable(beta.session, faux, "beta work");
				const betaFile = beta.session.sessionFile!;
				await beta.dispose();
				const runtime = await startRuntime(rec.factory, ws, ws.alpha);
				try {
					faux.setResponses([fauxAssistantMessage("a1")]);
					await runtime.session.prompt("alpha one");
					// Model answers from here on wait on the scheduler too.
					faux.setResponses(
						Array.from({ length: 16 }, (_, i) => async () => {
							await waitOnScheduler(`model ${i}`);
							return fauxAssistantMessage(`answer ${i}`);
						}),
					);
					const builtBefore = rec.built.length;
					live = true;
					const outcomes: Outcome[] = [];
					const run = (action: Action, call: () => Promise<unknown> | undefined) => {
						const outcome: Outcome = { action, settled: false };
						outcomes.push(outcome);
						return recordOutcome(outcome, call());
					};
					const withSession = async () => {
						await waitOnScheduler("withSession");
					};
					const pending = actions.map((action, index) =>
						waitOnScheduler(`action ${index} ${action}`).then(() => {
							switch (action) {
								case "new":
									return run(action, () => runtime.newSession({ withSession }));
								case "newFailingSetup":
									return run(action, () =>
										runtime.newSession({
											setup: async () => {
												await waitOnScheduler("setup");
												throw new Error("injected: setup failed");
											},
										}),
									);
								case "fork":
									return run(action, () => {
										const users = runtime.session.sessionManager
											.getBranch()
											.filter((entry) => entry.type === "message" && entry.message.role === "user");
										const last = users.at(-1);
										return last ? runtime.fork(last.id, { position: "before", withSession }) : undefined;
									});
								case "switch":
									return run(action, () => runtime.switchSession(betaFile, { withSession }));
								case "prompt":
									return run(action, () => (runtime.isDisposed ? undefined : runtime.session.prompt(`p${index}`)));
								case "dispose":
									return run(action, () => runtime.dispose());
							}
						}),
					);
					let finished = false;
					void Promise.allSettled(pending).then(() => {
						finished = true;
					});
					// Wall time only bounds a hang; the schedule itself decides every interleaving.
					const deadline = performance.now() + 20_000;
					while (!(finished && s.count() === 0) && performance.now() < deadline) {
						if (s.count() > 0) await s.waitOne();
						else await tick();
					}
					live = false;
					expect(finished, "every call was issued").toBe(true);
					expect(
						outcomes.filter((o) => !o.settled).map((o) => o.action),
						"every call settled",
					).toEqual([]);

					let successes = 0;
					for (const outcome of outcomes) {
						if (outcome.skipped) continue;
						const error = outcome.error;
						if (outcome.action === "prompt") {
							// A prompt caught by a replacement or dispose ends; it never hangs.
							if (error !== undefined) expect(error, String(error)).toBeInstanceOf(Error);
							continue;
						}
						if (outcome.action === "dispose") {
							expect(error).toBeUndefined();
							continue;
						}
						if (error === undefined) {
							expect(outcome.action, "a failing setup never completes").not.toBe("newFailingSetup");
							successes++;
							seen.completed++;
							continue;
						}
						const refused = error instanceof SettleError && (error.code === "BUSY" || error.code === "SESSION_CLOSED");
						const failedSetup =
							outcome.action === "newFailingSetup" && String(error).includes("injected: setup failed");
						expect(refused || failedSetup, `${outcome.action}: ${String(error)}`).toBe(true);
						if (error instanceof SettleError && error.code === "BUSY") seen.busy++;
						if (failedSetup) seen.failedBeforeCommit++;
					}
					// One session built per completed replacement; none for refused or failed ones that the factory never reached.
					expect(rec.built.length - builtBefore).toBeGreaterThanOrEqual(successes);

					const current = runtime.session;
					for (const result of rec.built) {
						if (result.session === current && !runtime.isDisposed) continue;
						expect(result.session.snapshot.status).toBe("stopped");
					}
					if (runtime.isDisposed) {
						expect(runtime.lifecycle).toBe("disposed");
						expect(locksUnder(ws.agentDir)).toEqual([]);
						return;
					}
					expect(runtime.lifecycle).toBe("active");
					expect(current.snapshot.status).toBe("active");
					expect(current.sessionManager.isClosed()).toBe(false);
					expect(current.cwd).toBe(runtime.cwd);
					// A replacement whose setup fails, once the schedule is over: it fails before its commit point
					// and the session stays (every run that did not dispose reaches this, whatever the schedule did).
					await expect(
						runtime.newSession({
							setup: async () => {
								throw new Error("injected: setup failed after the interleaving");
							},
						}),
					).rejects.toThrow("injected: setup failed after the interleaving");
					seen.failedBeforeCommit++;
					expect(runtime.session).toBe(current);
					expect(current.snapshot.status).toBe("active");
					for (const result of rec.built)
						if (result.session !== current) expect(result.session.snapshot.status).toBe("stopped");
					faux.setResponses([]);
					await assertUsable(current, faux, "after the interleaving");
					const file = current.sessionFile;
					expect(locksUnder(ws.agentDir)).toEqual(file && existsSync(file) ? [`${file}.lock`] : []);
				} finally {
					await runtime.dispose();
					ws.cleanup();
				}
			}),
			{ numRuns: 40 },
		);
		// The schedules really overlapped replacements: some completed, some were refused as busy, some rolled back
		// (at least the one after each schedule that did not dispose).
		expect(seen.completed).toBeGreaterThan(0);
		expect(seen.busy).toBeGreaterThan(0);
		expect(seen.failedBeforeCommit).toBeGreaterThan(0);
	});
});
