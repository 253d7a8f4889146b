/**
 * What XState 5 itself costs per event on this machine: a two-state machine with one transition
 * per event, no context, guards, actions or observers, sent N events after a warm-up. This is the
 * least any XState lifecycle pays per machine event; `bench/session.ts` prints it beside the
 * per-turn budget that the ≤ 1.3× target leaves.
 *
 *   npx tsx bench/xstate-event.ts        prints {"microsPerEvent": …}
 */
import { createActor, setup } from "xstate";

const EVENTS = Number(process.env.EVENTS ?? 400_000);
const pingPong = setup({ types: {} as { events: { type: "GO" } } }).createMachine({
	id: "pingPong",
	initial: "a",
	states: { a: { on: { GO: "b" } }, b: { on: { GO: "a" } } },
});

const actor = createActor(pingPong).start();
for (let i = 0; i < 40_000; i++) actor.send({ type: "GO" });
const start = performance.now();
for (let i = 0; i < EVENTS; i++) actor.send({ type: "GO" });
const microsPerEvent = ((performance.now() - start) * 1000) / EVENTS;
process.stdout.write(
	`${JSON.stringify({ microsPerEvent: Math.round(microsPerEvent * 1000) / 1000, events: EVENTS })}\n`,
);
