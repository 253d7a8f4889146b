/**
 * The harness types a test names for its `let h` and its helpers: `HarnessWithClock` (=
 * `Harness<SimulatedClock>`) keeps the typed clock that `Awaited<ReturnType<typeof createHarness>>`
 * loses (it picks the last overload). The type check (`npx tsc --noEmit -p .`, part of `npm test`)
 * is what fails when these names or their meaning change; the runtime half runs the same patterns.
 */
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import {
	createHarness,
	fauxAssistantMessage,
	type Harness,
	type HarnessWithClock,
	harnessViolations,
	type SimulatedClock,
} from "../../src/testing/index.js";

/** A helper taking the clocked harness: it may step the clock without `!`. */
function skipBackoff(harness: HarnessWithClock, ms: number): void {
	harness.clock.increment(ms);
}

/** A helper for any harness: a clocked one fits too. */
function answerCount(harness: Harness): number {
	return harness.eventsOfType("agent_settled").length;
}

describe("HarnessWithClock / Harness<Clock>", () => {
	let h: HarnessWithClock;
	beforeEach(async () => {
		h = await createHarness({ simulatedClock: true });
	});
	afterEach(() => h.cleanup());

	it("types the clock as present where the ReturnType pattern does not", () => {
		expectTypeOf(h.clock).toEqualTypeOf<SimulatedClock>();
		expectTypeOf<Harness<SimulatedClock>>().toEqualTypeOf<HarnessWithClock>();
		expectTypeOf<Harness>().toEqualTypeOf<Harness<SimulatedClock | undefined>>();
		expectTypeOf<Harness["clock"]>().toEqualTypeOf<SimulatedClock | undefined>();
		// What the ReturnType pattern gives (the last overload): the clock may be missing.
		expectTypeOf<Awaited<ReturnType<typeof createHarness>>["clock"]>().toEqualTypeOf<SimulatedClock | undefined>();
		expectTypeOf<HarnessWithClock>().toMatchTypeOf<Harness>();
		expectTypeOf<Harness>().not.toMatchTypeOf<HarnessWithClock>();
	});

	it("the patterns run: a clocked helper drives the retry, a general one and harnessViolations take it", async () => {
		h.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
			fauxAssistantMessage("ok"),
		]);
		const done = h.session.prompt("hi");
		const { delayMs } = await h.nextEvent("auto_retry_start");
		skipBackoff(h, delayMs);
		await done;
		expect(answerCount(h)).toBe(1);
		expect(harnessViolations(h)).toEqual([]);
	});

	it("a harness without the simulated clock is not a HarnessWithClock", async () => {
		const plain = await createHarness();
		try {
			// @ts-expect-error its clock may be undefined
			const wrong: HarnessWithClock = plain;
			expect(wrong.clock).toBeUndefined();
		} finally {
			plain.cleanup();
		}
	});
});
