/**
 * A lifecycle inspector attached for the life of a long-lived actor (a session's, a runtime's)
 * keeps state proportional to what is running now, not to how many operations ran.
 */

import { describe, expect, it } from "vitest";
import { createActor, fromPromise, setup } from "xstate";
import { inspectActor } from "../../src/inspect/lifecycle-inspector.js";
import { countObjectsWithKeys, HEAP_SNAPSHOT_TEST_TIMEOUT_MS } from "./heap-census.js";
import { tick } from "./helpers.js";

/** Invokes a promise actor per GO, like compaction, tree navigation and each runtime replacement step. */
const machine = setup({ actors: { work: fromPromise(async () => "done") } }).createMachine({
	id: "worker",
	initial: "idle",
	states: {
		idle: { on: { GO: "busy" } },
		busy: { invoke: { src: "work", onDone: "idle" } },
	},
});

describe("lifecycle inspector", () => {
	it("kept an entry for every child actor that ever ran (grew per invoked operation)", {
		timeout: HEAP_SNAPSHOT_TEST_TIMEOUT_MS,
	}, async () => {
		const actor = createActor(machine).start();
		const phases: string[] = [];
		const subscription = inspectActor(actor, (event) => {
			if (event.kind === "actor") phases.push(event.phase);
		});
		const run = async (operations: number) => {
			for (let i = 0; i < operations; i++) {
				actor.send({ type: "GO" });
				while (actor.getSnapshot().value !== "idle") await tick();
			}
		};
		// The inspector's record of a child: { id, src } (before the fix: { id, src, finished }).
		const records = async () =>
			(await countObjectsWithKeys(["id", "src"])) + (await countObjectsWithKeys(["finished", "id", "src"]));
		await run(5);
		const before = await records();
		await run(100);
		const after = await records();
		subscription.unsubscribe();
		actor.stop();
		// Every child was still reported invoked and done.
		expect(phases.filter((phase) => phase === "invoked")).toHaveLength(105);
		expect(phases.filter((phase) => phase === "done")).toHaveLength(105);
		// Not one record per operation (100); at most the one that runs.
		expect(after - before).toBeLessThanOrEqual(1);
	});
});
