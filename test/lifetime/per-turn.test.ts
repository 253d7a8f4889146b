/**
 * A long session keeps, per turn, the transcript and nothing else: no inspection snapshots, trace
 * events beyond the recorder's bound, listener entries or per-turn closures. Counted in the heap
 * (a V8 snapshot after a full GC), against the objects of the entries the turns appended.
 */
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness } from "../../src/testing/harness.js";
import { countLiveObjects, countReachableObjects, HEAP_SNAPSHOT_TEST_TIMEOUT_MS } from "./heap-census.js";

const TURNS = 120;

describe("per-turn memory", () => {
	it.each(["memory", "disk"] as const)(
		"%s log, with an inspector, a trace recorder and a listener attached: the heap grows by the transcript's objects only",
		async (persistence) => {
			const h = await createHarness({ persistence });
			h.session.inspect(() => {});
			h.session.trace({ maxEvents: 200 });
			// The harness records every event and the faux provider every request: the test's memory, not the session's.
			const events = h.events as unknown[];
			const requests = h.faux.requests as unknown[];
			const run = async (turns: number) => {
				for (let i = 0; i < turns; i++) {
					h.setResponses([fauxAssistantMessage([fauxToolCall("ls", {})]), fauxAssistantMessage(`done ${i}`)]);
					await h.session.prompt(`list the files ${i}`);
					events.length = 0;
					requests.length = 0;
				}
			};
			await run(30); // the trace recorder is full from here on
			await countLiveObjects(); // the first snapshot sets up what every later one reuses
			await run(10);
			const entriesBefore = h.sessionManager.getEntries().length;
			const before = await countLiveObjects();
			await run(TURNS);
			const after = await countLiveObjects();
			const appended = h.sessionManager.getEntries().slice(entriesBefore);
			expect(appended).toHaveLength(TURNS * 4);
			// The entries hold the very message objects the agent's transcript holds: counted once.
			const transcript = countReachableObjects(appended);
			// Measured: 0 to 3 more than the transcript; one object kept per turn would be 120 more.
			expect(after - before - transcript).toBeLessThan(TURNS / 4);
			expect(after - before - transcript).toBeGreaterThan(-TURNS / 4);
			h.cleanup();
		},
		HEAP_SNAPSHOT_TEST_TIMEOUT_MS,
	);
});
