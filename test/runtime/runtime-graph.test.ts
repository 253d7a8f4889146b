/**
 * Coverage of `machines/runtime.machine.ts` (xstate/graph's transition list) driven through the
 * REAL AgentSessionRuntime: every replacement kind with every failure arranged for real, disposal
 * when idle, during a replacement and with a failing host callback, and a rollback whose rebind
 * fails. Every transition of the machine fires, except the few whose step cannot fail in the
 * real implementation — listed with the reason (the machine-level model test covers them).
 */

import { describe, expect, it } from "vitest";
import { type InspectionEvent, SimulatedClock } from "xstate";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { allTransitionKeys, transitionKey } from "../machines/graph-harness.js";
import { createWorld, FAULTS_BY_KIND, type Kind, replace, type World } from "./faults.js";

/** Transitions no real failure can take, and why. */
const UNREACHABLE_FOR_REAL: Record<string, string> = {
	"runtime.beforeSwitch|xstate.error.actor.checkBeforeSwitch|0":
		"session_before_switch / session_before_fork handler errors are isolated by the runner (reported, not thrown)",
	"runtime.shuttingDown|xstate.error.actor.shutdownCurrent|0": "session_shutdown handler errors are isolated as well",
	"runtime.shuttingDown|xstate.error.actor.shutdownCurrent|1": "(the same, outside of quitting)",
	"runtime.settlingCurrent|xstate.error.actor.settleCurrent|0":
		"settling never rejects: an abort's failure and a reload's are the aborted run's and the reload's own",
	"runtime.disposing|xstate.error.actor.disposeCurrent|0": "AgentSession.dispose() never throws (C.11)",
	"runtime.disposing|xstate.error.actor.disposeCurrent|1": "(the same, outside of quitting)",
};

function firedKeys(events: readonly InspectionEvent[]): string[] {
	const keys: string[] = [];
	for (const event of events) {
		if (event.type !== "@xstate.microstep") continue;
		for (const t of (event as unknown as { _transitions: Parameters<typeof transitionKey>[0][] })._transitions) {
			keys.push(transitionKey(t));
		}
	}
	return keys;
}

async function scenario(
	run: (world: World) => Promise<void>,
	timing: Parameters<typeof createWorld>[1] = {},
): Promise<string[]> {
	const events: InspectionEvent[] = [];
	const world = await createWorld((event) => events.push(event), timing);
	try {
		await run(world);
	} finally {
		await world.runtime.dispose();
		world.ws.cleanup();
	}
	return firedKeys(events);
}

describe("runtime machine coverage through the real runtime", () => {
	it("fires every transition that a real failure can reach", async () => {
		const fired = new Set<string>();
		const add = (keys: string[]) => {
			for (const key of keys) fired.add(key);
		};
		// Every kind with every failure (each world ends with dispose: quit when idle).
		for (const kind of Object.keys(FAULTS_BY_KIND) as Kind[]) {
			for (const fault of FAULTS_BY_KIND[kind])
				add(await scenario(async (world) => void (await replace(world, { kind, fault }))));
		}
		// A rollback whose rebind of the old session fails too.
		add(
			await scenario(async (world) => {
				await replace(world, { kind: "new", fault: "beforeInvalidateThrows" }, { rebind: true });
				expect(world.runtime.lifecycle).toBe("active");
			}),
		);
		// Quitting with a failing beforeSessionInvalidate still disposes.
		add(
			await scenario(async (world) => {
				world.control.invalidate = true;
				await world.runtime.dispose();
				expect(world.runtime.lifecycle).toBe("disposed");
				expect(world.runtime.session.snapshot.status).toBe("stopped");
			}),
		);
		// dispose() during a replacement: the replacement finishes, then the runtime quits.
		add(
			await scenario(async (world) => {
				let release!: () => void;
				world.control.hold = new Promise<void>((resolve) => (release = resolve));
				const replacing = world.runtime.newSession();
				const disposing = world.runtime.dispose();
				expect(world.runtime.lifecycle).toBe("beforeSwitch");
				release();
				expect(await replacing).toEqual({ cancelled: false });
				await disposing;
				expect(world.runtime.lifecycle).toBe("disposed");
				for (const built of world.rec.built) expect(built.session.snapshot.status).toBe("stopped");
			}),
		);

		// pi#9811: a session_shutdown handler that never returns: after the bound the replacement goes on.
		const clock = new SimulatedClock();
		add(
			await scenario(
				async (world) => {
					world.control.shutdownHold = new Promise<void>(() => {});
					const replacing = world.runtime.newSession();
					while (world.runtime.lifecycle !== "shuttingDown") await new Promise((resolve) => setImmediate(resolve));
					clock.increment(1_000);
					expect(await replacing).toEqual({ cancelled: false });
					expect(world.extensionErrors).toEqual([
						expect.stringMatching(/^session_shutdown: session_shutdown handler did not finish within 1000 ms/),
					]);
					// The new session's own handler returns: the scenario's dispose is not held.
					world.control.shutdownHold = undefined;
				},
				{ clock, shutdownTimeoutMs: 1_000 },
			),
		);

		// pi-desktop#46: a run that never settles once aborted holds the teardown only settleTimeoutMs.
		const settleClock = new SimulatedClock();
		add(
			await scenario(
				async (world) => {
					world.control.agentEndHold = new Promise<void>(() => {});
					world.faux.setResponses([fauxAssistantMessage("answer")]);
					const running = world.runtime.session.prompt("hello").catch((error: unknown) => error);
					while (!world.runtime.session.isStreaming) await new Promise((resolve) => setImmediate(resolve));
					const replacing = world.runtime.newSession();
					while (world.runtime.lifecycle !== "settlingCurrent") await new Promise((resolve) => setImmediate(resolve));
					settleClock.increment(2_000);
					expect(await replacing).toEqual({ cancelled: false });
					expect(await running).toMatchObject({ code: "SESSION_CLOSED" });
					world.control.agentEndHold = undefined;
				},
				{ clock: settleClock },
			),
		);

		const all = allTransitionKeys(runtimeMachine);
		const missing = all.filter((key) => !fired.has(key));
		expect(missing.sort()).toEqual(Object.keys(UNREACHABLE_FOR_REAL).sort());
	});
});
