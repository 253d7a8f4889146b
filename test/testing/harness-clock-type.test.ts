/**
 * `createHarness({ simulatedClock: true })` types `clock` as present, so a test author steps the
 * backoff with `h.clock.increment(ms)` (no `h.clock!`), as the README's testing section does. The
 * type check (`npx tsc --noEmit -p .`, part of `npm test`) is what fails without the overload;
 * the runtime half shows the clock is really there and really drives the retry.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { SimulatedClock } from "xstate";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

describe("createHarness({ simulatedClock: true })", () => {
	it("returns a harness whose clock is typed and present; the retry waits for it", async () => {
		const h = await createHarness({ simulatedClock: true, persistence: "memory" });
		try {
			const clock: SimulatedClock = h.clock; // a type error while `clock` was `SimulatedClock | undefined`
			expectTypeOf(h.clock).toEqualTypeOf<SimulatedClock>();
			h.setResponses([
				fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
				fauxAssistantMessage("ok"),
			]);
			const done = h.session.prompt("hi");
			const { delayMs } = await h.nextEvent("auto_retry_start");
			clock.increment(delayMs - 1);
			expect(h.session.isRetrying).toBe(true);
			h.clock.increment(1);
			await done;
			expect(h.eventsOfType("auto_retry_end")).toMatchObject([{ success: true, attempt: 1 }]);
		} finally {
			h.cleanup();
		}
	});

	it("without it (or with a boolean not known to be true) the clock stays optional", async () => {
		const plain = await createHarness();
		const maybe = await createHarness({ simulatedClock: Math.random() > 2 });
		try {
			expectTypeOf(plain.clock).toEqualTypeOf<SimulatedClock | undefined>();
			expectTypeOf(maybe).toEqualTypeOf<Harness>();
			expect(plain.clock).toBeUndefined();
			expect(maybe.clock).toBeUndefined();
		} finally {
			plain.cleanup();
			maybe.cleanup();
		}
	});
});
