/**
 * The CLI trace recorder on a real runtime (the CLI's own host, faux model, in process): however
 * many prompts and session replacements, a trace bounded to N events is exactly the last N events
 * of the unbounded one, counts the rest in `dropped`, and its `sessions` index points at each kept
 * session's first event; each replacing session is attached during the runtime machine's rebind.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { startHost } from "../../src/cli/host.js";
import { startCliTrace } from "../../src/cli/trace.js";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";

type Step = "prompt" | "new_session";

async function record(steps: readonly Step[], maxEvents: number) {
	const dir = mkdtempSync(join(tmpdir(), "settle-trace-recorder-"));
	try {
		const project = join(dir, "project");
		mkdirSync(project);
		const args = parseArgs(["--faux", "--no-session", "--cwd", project, "--agent-dir", join(dir, "agent")]);
		const { runtime } = await startHost(args);
		const bounded = startCliTrace(join(dir, "bounded.json"), { maxEvents });
		const full = startCliTrace(join(dir, "full.json"), { maxEvents: 1_000_000 });
		bounded.follow(runtime);
		full.follow(runtime);
		runtime.setRebindSession((session) => session.bindExtensions({}));
		const sessionIds = [runtime.session.sessionId];
		for (const [i, step] of steps.entries()) {
			if (step === "prompt") await runtime.session.prompt(`prompt ${i}`);
			else {
				await runtime.newSession();
				sessionIds.push(runtime.session.sessionId);
			}
		}
		await runtime.dispose();
		bounded.save();
		full.save();
		return { bounded: bounded.toJSON(), full: full.toJSON(), sessionIds };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

describe("startCliTrace", () => {
	it("keeps the last maxEvents events of every session, counts the dropped ones, and indexes each kept session", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.constantFrom<Step>("prompt", "prompt", "new_session"), { minLength: 1, maxLength: 8 }),
				fc.integer({ min: 1, max: 80 }),
				async (steps, maxEvents) => {
					const { bounded, full, sessionIds } = await record(steps, maxEvents);
					// The unbounded trace has every session, each from its attach state.
					expect(full.dropped).toBe(0);
					expect(full.sessions.map((session) => session.sessionId)).toEqual(sessionIds);
					for (const session of full.sessions) {
						expect(full.events[session.firstEvent]).toMatchObject({ kind: "state", from: null, trigger: "inspect" });
					}
					// The runtime machine is recorded too: each session after the first is attached while the
					// runtime rebinds it, i.e. between its `rebinding` and its return to `active`.
					const runtimeStates = full.events.flatMap((event, i) =>
						event.kind === "state" && event.machine === "runtime" ? [{ i, to: event.to }] : [],
					);
					const rebinds = runtimeStates.filter((state) => state.to === "rebinding");
					expect(rebinds).toHaveLength(sessionIds.length - 1);
					full.sessions.slice(1).forEach((session, n) => {
						const rebind = rebinds[n]!.i;
						const back = runtimeStates.find((state) => state.i > rebind && state.to === "active")!.i;
						expect(session.firstEvent).toBeGreaterThan(rebind);
						expect(session.firstEvent).toBeLessThan(back);
					});
					// The bounded one is its suffix (each recorder reads the clock itself: `at` may differ by a few ms).
					const kept = Math.min(maxEvents, full.events.length);
					const timeless = (events: readonly LifecycleInspectionEvent[]) => events.map(({ at: _at, ...rest }) => rest);
					expect(timeless(bounded.events)).toEqual(timeless(full.events.slice(full.events.length - kept)));
					expect(bounded.dropped).toBe(full.events.length - kept);
					// Its sessions: those with a kept event, each pointing where it starts (or 0 if it started earlier).
					const expected = full.sessions
						.filter((_session, i) => (full.sessions[i + 1]?.firstEvent ?? full.events.length) > bounded.dropped)
						.map((session) => ({ ...session, firstEvent: Math.max(0, session.firstEvent - bounded.dropped) }));
					expect(bounded.sessions).toEqual(expected);
				},
			),
			{ numRuns: 12 },
		);
	});
});
