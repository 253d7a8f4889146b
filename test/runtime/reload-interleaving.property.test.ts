/**
 * The runtime and reload machines together under interleavings: `reload()` (some failing in their
 * `beforeSessionStart`), new, fork, switch, prompts on whatever session is current and `dispose()`
 * are issued at random moments while extension handlers (`session_shutdown`, `session_start`,
 * `session_before_switch`), the model and `withSession` wait on `fc.scheduler`, and in some runs a
 * `session_shutdown` handler never returns (the SimulatedClock is moved past the machines' bounds
 * only when nothing else can move). Nothing hangs: every call settles. Nothing is lost or doubled:
 * each prompt reaches the model exactly once and resolves with its message in its session's
 * transcript, or rejects with a typed SettleError (`BUSY`, `SESSION_CLOSED`, `RELOAD_FAILED`)
 * having reached the model at most once (only when a teardown aborted it mid-run). Each extension
 * instance (one per factory call, whose loading also waits on the scheduler) hears
 * `session_shutdown` at most once, and exactly once if it heard `session_start`, once the runtime is
 * disposed: a reload overtaken by a replacement or dispose at any step neither tells the old
 * extensions twice nor leaves extensions it started unheard.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";

import type { AgentSession } from "../../src/session/agent-session.js";

import { createWorkspace, inlineExtensionFactory, recordOutcome, startRuntime } from "./helpers.js";

type Action = "reload" | "reloadFailing" | "new" | "fork" | "switch" | "prompt" | "dispose";
const actionArb = fc.constantFrom<Action>(
	"reload",
	"reload",
	"reloadFailing",
	"new",
	"fork",
	"switch",
	"prompt",
	"prompt",
	"prompt",
	"dispose",
);

interface Outcome {
	action: Action;
	settled: boolean;
	error?: unknown;
	skipped?: boolean;
	/** For a prompt: its text and the session it was sent to. */
	text?: string;
	session?: AgentSession;
	/** A prompt sent while its session reloaded (the reload machine held it). */
	duringReload?: boolean;
}

/** Whether `session`'s reload machine runs a reload now (a prompt sent now is held). */
function reloading(session: AgentSession): boolean {
	// biome-ignore lint/complexity/useLiteralKeys: the private actor, read to classify the schedule
	const actor = session["reloadActor"] as { getSnapshot(): { matches(state: string): boolean } } | undefined;
	return actor?.getSnapshot().matches("reloading") === true;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function lastUserText(context: Context): string {
	const user = [...context.messages].reverse().find((message) => message.role === "user");
	if (!user) return "";
	if (typeof user.content === "string") return user.content;
	return user.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

function userTexts(session: AgentSession): string[] {
	return session.messages.flatMap((message) => {
		if (message.role !== "user") return [];
		if (typeof message.content === "string") return [message.content];
		return [message.content.map((block) => (block.type === "text" ? block.text : "")).join("")];
	});
}

/** A seed whose 60 schedules reach every path the test counts (see the reach checks). */
const REACH_SEED = 1;

describe("reload, replacements, prompts and dispose interleaved with slow and stuck handlers", () => {
	it("nothing hangs, nothing is lost, each prompt runs exactly once or rejects with a typed error", async () => {
		const seen = { ran: 0, held: 0, reloadFailed: 0, busy: 0, closed: 0 };
		// One workspace for all runs: each run starts on a session file of its own (and makes its own
		// forks and new sessions), and nothing here reads the folder. Copying the projects and removing
		// them per run was most of this test's time.
		const ws = createWorkspace();
		const schedules = fc.asyncProperty(
			fc.scheduler(),
			fc.array(actionArb, { minLength: 2, maxLength: 7 }),
			fc.boolean(),
			async (s, actions, stuckShutdown) => {
				const faux = createFauxProvider();
				const clock = new SimulatedClock();
				clock.set(0);
				let live = false;
				let stuckLeft = stuckShutdown ? 1 : 0;
				const waitOnScheduler = (label: string): Promise<unknown> =>
					live ? s.schedule(Promise.resolve(), label) : Promise.resolve();
				/** What each extension instance heard (session_start, session_shutdown), one entry per factory call. */
				const instances: { started: number; shutdowns: string[] }[] = [];
				const slowExtension = async (pi: ExtensionAPI) => {
					const heard = { started: 0, shutdowns: [] as string[] };
					instances.push(heard);
					pi.on("session_start", () => void heard.started++);
					for (const type of ["session_before_switch", "session_start"] as const) {
						pi.on(type as "session_start", async () => {
							await waitOnScheduler(type);
						});
					}
					pi.on("session_shutdown", async (event) => {
						heard.shutdowns.push(event.reason);
						if (live && stuckLeft > 0) {
							stuckLeft--;
							// pi#9811: never returns; only the machines' bound lets the teardown or reload go on.
							await new Promise<void>(() => {});
						}
						await waitOnScheduler(`session_shutdown ${event.reason}`);
					});
					// Loading takes a while too (a reload's load step, a replacement's new session).
					await waitOnScheduler("load extension");
				};
				const rec = inlineExtensionFactory(faux, slowExtension, clock);
				const runtime = await startRuntime(rec.factory, ws, ws.alpha);
				/** Model calls per prompt text. */
				const calls = new Map<string, number>();
				try {
					faux.setResponses([fauxAssistantMessage("a1")]);
					await runtime.session.prompt("alpha one");
					const firstFile = runtime.session.sessionFile!;
					faux.setResponses(
						Array.from({ length: 32 }, (_, i) => async (context: Context) => {
							const text = lastUserText(context);
							calls.set(text, (calls.get(text) ?? 0) + 1);
							await waitOnScheduler(`model ${i}`);
							return fauxAssistantMessage(`answer ${i}`);
						}),
					);
					live = true;
					const outcomes: Outcome[] = [];
					const run = (outcome: Outcome, call: () => Promise<unknown> | undefined) => {
						outcomes.push(outcome);
						return recordOutcome(outcome, call());
					};
					const withSession = async () => {
						await waitOnScheduler("withSession");
					};
					// A prompt sent the moment a reload started (a user typing while /reload runs): every
					// schedule with a reload that started has one held, so the reach checks below cannot
					// come up empty by chance (60 random schedules sometimes had none).
					const withPromptDuringReload = (index: number, reload: Promise<void>) => {
						const session = runtime.session;
						if (runtime.isDisposed || !reloading(session)) return reload;
						const text = `p${index}r`;
						const outcome: Outcome = { action: "prompt", settled: false, text, session, duringReload: true };
						return Promise.all([reload, run(outcome, () => session.prompt(text))]).then(() => undefined);
					};
					const pending = actions.map((action, index) =>
						waitOnScheduler(`action ${index} ${action}`).then(() => {
							const outcome: Outcome = { action, settled: false };
							switch (action) {
								case "reload":
									outcome.session = runtime.session;
									return withPromptDuringReload(
										index,
										run(outcome, () => (runtime.isDisposed ? undefined : outcome.session!.reload())),
									);
								case "reloadFailing":
									outcome.session = runtime.session;
									return withPromptDuringReload(
										index,
										run(outcome, () =>
											runtime.isDisposed
												? undefined
												: outcome.session!.reload({
														beforeSessionStart: async () => {
															await waitOnScheduler("beforeSessionStart");
															throw new Error("injected: host rebind failed");
														},
													}),
										),
									);
								case "new":
									return run(outcome, () => runtime.newSession({ withSession }));
								case "fork":
									return run(outcome, () => {
										const leaf = runtime.session.sessionManager.getLeafId();
										return leaf ? runtime.fork(leaf, { position: "at", withSession }) : undefined;
									});
								case "switch":
									return run(outcome, () => runtime.switchSession(firstFile, { withSession }));
								case "prompt": {
									if (runtime.isDisposed) return run(outcome, () => undefined);
									outcome.text = `p${index}`;
									outcome.session = runtime.session;
									outcome.duringReload = reloading(outcome.session);
									return run(outcome, () => outcome.session!.prompt(outcome.text!));
								}
								case "dispose":
									return run(outcome, () => runtime.dispose());
							}
						}),
					);
					let finished = false;
					void Promise.allSettled(pending).then(() => {
						finished = true;
					});
					// The schedule decides every interleaving; the clock moves only when nothing else can
					// (a stuck handler, an aborted run waiting on it). Wall time only bounds a hang.
					const deadline = performance.now() + 20_000;
					let clockMoves = 0;
					while (!(finished && s.count() === 0) && performance.now() < deadline) {
						if (s.count() > 0) await s.waitOne();
						else {
							for (let i = 0; i < 5; i++) await tick();
							if (s.count() === 0 && !finished && clockMoves < 20) {
								clock.increment(10_000);
								clockMoves++;
							}
						}
					}
					live = false;
					expect(finished, "every call was issued").toBe(true);
					expect(
						outcomes.filter((o) => !o.settled).map((o) => o.action),
						"every call settled",
					).toEqual([]);

					for (const outcome of outcomes) {
						if (outcome.skipped) continue;
						const error = outcome.error;
						if (outcome.action === "prompt") {
							const text = outcome.text!;
							const modelCalls = calls.get(text) ?? 0;
							if (error === undefined) {
								expect(modelCalls, `${text} ran once`).toBe(1);
								expect(userTexts(outcome.session!), `${text} is in its transcript`).toContain(text);
								seen.ran++;
								if (outcome.duringReload) seen.held++;
								continue;
							}
							expect(error, String(error)).toBeInstanceOf(SettleError);
							const code = (error as SettleError).code;
							expect(["BUSY", "SESSION_CLOSED", "RELOAD_FAILED"], `${text}: ${String(error)}`).toContain(code);
							// Refused before it ran, or aborted by a teardown after it reached the model once.
							expect(modelCalls, `${text} (${code})`).toBeLessThanOrEqual(code === "SESSION_CLOSED" ? 1 : 0);
							if (code === "RELOAD_FAILED") seen.reloadFailed++;
							if (code === "BUSY") seen.busy++;
							if (code === "SESSION_CLOSED") seen.closed++;
							continue;
						}
						if (outcome.action === "dispose") {
							expect(error).toBeUndefined();
							continue;
						}
						if (error === undefined) {
							// Except when its session was disposed meanwhile: the reload stops, binding nothing.
							if (outcome.action === "reloadFailing") expect(outcome.session!.isDisposed).toBe(true);
							continue;
						}
						const refused = error instanceof SettleError && (error.code === "BUSY" || error.code === "SESSION_CLOSED");
						const injected = outcome.action === "reloadFailing" && String(error).includes("injected");
						expect(refused || injected, `${outcome.action}: ${String(error)}`).toBe(true);
					}
					// No prompt reached the model twice, whatever happened to it.
					expect([...calls.values()].every((n) => n <= 1)).toBe(true);
					if (!runtime.isDisposed) {
						expect(runtime.lifecycle).toBe("active");
						expect(runtime.session.snapshot.status).toBe("active");
						// Whatever the schedule did, the session it left answers the next prompt, once.
						await runtime.session.prompt("afterwards");
						expect(calls.get("afterwards"), "the prompt after the schedule ran once").toBe(1);
						expect(userTexts(runtime.session)).toContain("afterwards");
						seen.ran++;
					}
				} finally {
					live = false;
					const disposing = runtime.dispose();
					for (let i = 0; i < 10; i++) {
						clock.increment(10_000);
						await tick();
					}
					await disposing;
				}
				for (const [index, heard] of instances.entries()) {
					const label = `instance ${index}: started ${heard.started}, shutdown ${heard.shutdowns.join(",")}`;
					expect(heard.shutdowns.length, label).toBeLessThanOrEqual(1);
					if (heard.started > 0) expect(heard.shutdowns.length, label).toBe(1);
				}
			},
		);
		try {
			await fc.assert(schedules, { numRuns: 60 });
			// Whether random schedules reach a path is chance (60 of them once held no prompt through a reload
			// that then ran or failed), so the reach is checked on fixed schedules: 60 more from one seed.
			const reached = Object.fromEntries(Object.keys(seen).map((key) => [key, 0])) as typeof seen;
			Object.assign(seen, reached);
			await fc.assert(schedules, { numRuns: 60, seed: REACH_SEED });
		} finally {
			ws.cleanup();
		}
		// The schedules really exercised the paths: prompts ran (in the schedule or after it), were refused by a
		// failed reload, were busy or closed.
		expect(seen.ran).toBeGreaterThan(0);
		expect(seen.busy + seen.closed).toBeGreaterThan(0);
		// Prompts sent during a reload were held and ran after it, or were refused by its failure.
		expect(seen.held + seen.reloadFailed).toBeGreaterThan(0);
	});
});
