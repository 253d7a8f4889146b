/** A small machine with every feature the exporters and the inspector handle. */
import { fromPromise, setup } from "xstate";

export const sampleMachine = setup({
	types: {} as { events: { type: "GO" } | { type: "PING" } | { type: "COOL" } | { type: "STOP" } | { type: "RESET" } },
	actors: { warmUp: fromPromise(async () => "warm") },
	guards: { ok: () => true },
	actions: { act: () => {}, note: (_, _params: { level: string }) => {} },
	delays: { wait: 500 },
}).createMachine({
	id: "sample",
	description: "A tiny sample machine",
	initial: "off",
	on: { RESET: { actions: "act" } },
	states: {
		off: {
			on: {
				GO: [
					{ guard: "ok", target: "on", actions: ["act", { type: "note", params: { level: "info" } }] },
					{ target: "broken" },
				],
			},
		},
		on: {
			description: "Powered",
			initial: "warming",
			entry: "act",
			invoke: { id: "warmer", src: "warmUp" },
			on: { STOP: "off" },
			states: {
				warming: { after: { wait: "hot" }, on: { PING: { actions: "act" } } },
				hot: { on: { COOL: "warming" } },
			},
		},
		broken: { type: "final", description: 'Gone for <good> & "ever"' },
	},
});
